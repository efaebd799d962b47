package serve

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/recom-compiler/recom/interp"
	"github.com/recom-compiler/recom/serve/oippb"
)

// TestMalformed: every bad request is refused with its status and an
// error naming what is wrong, and the server goes on serving.
func TestMalformed(t *testing.T) {
	f := start(t, func(c *Config) { c.Limits.MaxRequestRows = 8 })
	one := string(instancesBody(t, f.prog.feeds(t, 1, 1), false))
	nine := string(instancesBody(t, f.prog.feeds(t, 9, 1), false))
	two := f.prog.feeds(t, 2, 1)
	two["num_0017"] = interp.Must(interp.New([]int64{3}, []float32{1, 2, 3}))
	cols := string(columnsBody(t, two))
	nopeReq, _ := inferBody(t, f.srv.Signature(), f.prog.feeds(t, 1, 1), nil)
	nope := strings.Replace(string(nopeReq), `"outputs":[{"name":"prediction"}]`, `"outputs":[{"name":"nope"}]`, 1)
	cases := []struct {
		path, body string
		code       int
		want       string
	}{
		{"/v1/models/small:predict", ``, 400, "must be a JSON object"},
		{"/v1/models/small:predict", `[]`, 400, "must be a JSON object"},
		{"/v1/models/small:predict", `{"instances": [}`, 400, "at byte 15"},
		{"/v1/models/small:predict", `{"instances": []}`, 400, "no rows"},
		{"/v1/models/small:predict", `{}`, 400, `neither "instances" nor "inputs"`},
		{"/v1/models/small:predict", `{"instances": [], "inputs": {}}`, 400, "only one of them"},
		{"/v1/models/small:predict", `{"instances": {}}`, 400, `"instances" must be a list`},
		{"/v1/models/small:predict", `{"instances": [1]}`, 400, "instances[0]: expected an object"},
		{"/v1/models/small:predict", `{"instances": [{"x": 1}]}`, 400, `instances[0]: "x" is not an input`},
		{"/v1/models/small:predict", strings.Replace(one, `"num_0017":`, `"zzz":1,"num_0017":`, 1), 400, `"zzz" is not an input`},
		{"/v1/models/small:predict", strings.Replace(one, `"dense_features":[`, `"dense_features":[1,`, 1), 400, `"dense_features" has shape [1,9]`},
		{"/v1/models/small:predict", strings.Replace(one, `"dense_features":[`, `"dense_features":[[1],`, 1), 400, "ragged"},
		{"/v1/models/small:predict", strings.Replace(one, `"int_0004":`, `"int_0004":1.5,"int_0005x":`, 1), 400, "1.5 is not a DT_INT64 value"},
		{"/v1/models/small:predict", strings.Replace(one, `"str_0000":`, `"str_0000":7,"x":`, 1), 400, "expected a string or {\"b64\": ...}"},
		{"/v1/models/small:predict", strings.Replace(one, `"str_0000":`, `"str_0000":{"b64":"!!"},"x":`, 1), 400, "bad base64"},
		{"/v1/models/small:predict", strings.Replace(one, `"num_0017":`, `"num_0017":1e999,"x":`, 1), 400, "out of the range"},
		{"/v1/models/small:predict", strings.Replace(one, `{"instances":[{`, `{"instances":[{"str_0000":"a",`, 1), 400, "given twice"},
		{"/v1/models/small:predict", nine, 400, "more than the server's limit of 8"},
		{"/v1/models/small:predict", cols, 400, `"num_0017" has 3 rows`},
		{"/v2/models/small/infer", nope, 400, `outputs[0]: "nope" is not an output`},
		{"/v1/models/small:predict", `{"signature_name": "other", "instances": [1]}`, 400, `serving signature name: "other" not found`},
		{"/v1/models/small:predict", strings.Repeat("[", 100), 400, "must be a JSON object"},
		{"/v1/models/small:predict", `{"instances":` + strings.Repeat("[", 100), 400, "nested more than 64"},
		{"/v1/models/small:predict", one + "x", 400, "after the JSON value"},
		{"/v1/models/small:classify", one, 501, "is not served"},
		{"/v1/models/other:predict", one, 404, "Servable not found for request: Latest(other)"},
		{"/v2/models/small/infer", `{"inputs": [{"name": "str_0000"}]}`, 400, `has no "datatype"`},
		{"/v2/models/small/infer", `{"inputs": [{"name": "str_0000", "datatype": "BYTES", "shape": [1], "data": ["a"]}]}`, 400, "is missing"},
		{"/v2/models/small/infer", `{"inputs": [{"name": "num_0017", "datatype": "FP32", "shape": [2], "data": [1]}]}`, 400, "data has 1 elements, shape [2] has 2"},
		{"/v2/models/small/infer", `{"inputs": [{"name": "num_0017", "datatype": "FP64", "shape": [1], "data": [1]}]}`, 400, "the model wants FP32"},
		{"/v2/models/small/infer", `{"inputs": [{"name": "num_0017", "datatype": "FP32", "shape": [1000000000000], "data": [1]}]}`, 400, "num_0017"},
		{"/v2/models/small/infer", `{"inputs": [{"name": "num_0017", "datatype": "FP32", "shape": [-1], "data": [1]}]}`, 400, "negative dimension"},
		{"/v2/models/small/infer", `{"inputs": [{"name": "num_0017", "datatype": "FP32", "shape": [1], "parameters": {"binary_data_size": 99}}]}`, 400, "past the end of the binary data"},
		{"/v2/models/small/infer", `{"inputs": [], "outputs": [{"name": "nope"}]}`, 400, `no "inputs"`},
		{"/v2/models/other/infer", `{}`, 404, `model "other" is not served`},
		{"/v2/models/small/versions/7/infer", `{}`, 404, `has no version "7"`},
	}
	for _, c := range cases {
		code, body := f.post(t, c.path, []byte(c.body))
		var e struct{ Error string }
		if err := json.Unmarshal(body, &e); err != nil || code != c.code || !strings.Contains(e.Error, c.want) {
			name := c.body
			if len(name) > 80 {
				name = name[:80] + "..."
			}
			t.Errorf("POST %s %s:\n got %d %s\nwant %d and an error containing %q", c.path, name, code, body, c.code, c.want)
		}
	}
	if code, body := f.post(t, "/v2/models/small/infer", []byte(`{}`), binaryHeader, "-3"); code != 400 || !strings.Contains(string(body), "is not a byte count") {
		t.Errorf("a bad %s: %d %s", binaryHeader, code, body)
	}
	// Wrong methods.
	if code, _ := f.get(t, "/v1/models/small:predict"); code != http.StatusMethodNotAllowed {
		t.Errorf("GET :predict: %d", code)
	}
	if code, _ := f.post(t, "/v2/models/small", nil); code != http.StatusMethodNotAllowed {
		t.Errorf("POST model metadata: %d", code)
	}
	// Still serving.
	feeds := f.prog.feeds(t, 2, 3)
	code, body := f.post(t, "/v1/models/small:predict", instancesBody(t, feeds, false))
	var r struct{ Predictions [][]float32 }
	if code != 200 || json.Unmarshal(body, &r) != nil {
		t.Fatalf("after the bad requests: %d %s", code, body)
	}
	checkPrediction(t, "after the bad requests", r.Predictions, f.prog.want(t, feeds))
}

// TestOversized: bodies and gRPC messages over the limit are refused
// before they are read whole (413, RESOURCE_EXHAUSTED).
func TestOversized(t *testing.T) {
	f := start(t, func(c *Config) { c.Limits.MaxBodyBytes = 4096 })
	big := instancesBody(t, f.prog.feeds(t, 40, 1), false)
	if len(big) <= 4096 {
		t.Fatalf("the big body has only %d bytes", len(big))
	}
	code, body := f.post(t, "/v1/models/small:predict", big)
	if code != http.StatusRequestEntityTooLarge || !strings.Contains(string(body), "larger than the server's limit of 4096 bytes") {
		t.Errorf("a body of %d bytes: %d %s", len(big), code, body)
	}
	// Without a Content-Length (chunked), the reader stops at the limit.
	req, _ := http.NewRequest(http.MethodPost, f.httpURL+"/v2/models/small/infer", io.MultiReader(bytes.NewReader(big), bytes.NewReader(big)))
	req.ContentLength = -1
	resp, err := f.client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusRequestEntityTooLarge || !strings.Contains(string(b), "larger than the server's limit") {
		t.Errorf("a chunked body: %d %s", resp.StatusCode, b)
	}
	c := dialGRPC(t, f.grpcAddr)
	greq := grpcRequest(f.srv.Signature(), f.prog.feeds(t, 64, 1), false)
	if _, err := c.ModelInfer(context.Background(), greq); status.Code(err) != codes.ResourceExhausted {
		t.Errorf("a gRPC message over the limit: %v, want RESOURCE_EXHAUSTED", err)
	}
	small := f.prog.feeds(t, 1, 2)
	code, body = f.post(t, "/v1/models/small:predict", instancesBody(t, small, false))
	if code != http.StatusOK {
		t.Errorf("a small request after the big ones: %d %s", code, body)
	}
}

// TestConcurrent: many clients at once over the three protocols, each
// with its own rows; every answer is its own rows' prediction, and
// requests were batched together.
func TestConcurrent(t *testing.T) {
	g := &gated{gate: make(chan struct{}), started: make(chan struct{}, 1)}
	f := start(t, func(c *Config) {
		g.Backend = c.Backend
		c.Backend = g
		c.Batch = BatchOptions{MaxBatch: 256, InFlight: 1, Sizes: PowersOfTwo(256)}
	})
	c := dialGRPC(t, f.grpcAddr)
	sig := f.srv.Signature()
	// A first request holds the only worker: the others queue behind it
	// and run together.
	warm := make(chan error, 1)
	go func() {
		code, body := f.post(t, "/v1/models/small:predict", instancesBody(t, f.prog.feeds(t, 1, 99), false))
		if code != 200 {
			warm <- fmt.Errorf("%d %s", code, body)
		}
		close(warm)
	}()
	<-g.started
	const clients = 24
	var wg sync.WaitGroup
	errs := make(chan error, clients)
	for i := range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rows := 1 + i%7
			feeds := f.prog.feeds(t, rows, uint64(100+i))
			want := f.prog.want(t, feeds)
			switch i % 3 {
			case 0:
				code, body := f.post(t, "/v1/models/small:predict", instancesBody(t, feeds, true))
				var r struct{ Predictions [][]float32 }
				if code != 200 || json.Unmarshal(body, &r) != nil {
					errs <- fmt.Errorf("client %d: %d %s", i, code, body)
					return
				}
				checkPrediction(t, fmt.Sprint("client ", i), r.Predictions, want)
			case 1:
				// Binary (read by decodeInferRaw) and JSON requests, in
				// one batch.
				var bin map[string]bool
				if i%2 == 1 {
					bin = allBinary(sig)
				}
				code, body := f.postInfer(t, feeds, bin)
				var r inferResponse
				if code != 200 || json.Unmarshal(body, &r) != nil {
					errs <- fmt.Errorf("client %d: %d %s", i, code, body)
					return
				}
				checkInferOutput(t, fmt.Sprint("client ", i), &r, want)
			case 2:
				r, err := c.ModelInfer(context.Background(), grpcRequest(sig, feeds, i%2 == 0))
				if err != nil {
					errs <- fmt.Errorf("client %d: %v", i, err)
					return
				}
				got := r.Outputs[0].GetContents().GetFp32Contents()
				if len(r.RawOutputContents) > 0 {
					t2, err := decodeRaw(interp.Float32, r.Outputs[0].Shape, r.RawOutputContents[0])
					if err != nil {
						errs <- err
						return
					}
					got = t2.Float32s()
				}
				for j, w := range want.Float32s() {
					if got[j] != w {
						errs <- fmt.Errorf("client %d: element %d is %v, want %v", i, j, got[j], w)
						return
					}
				}
			}
		}()
	}
	waitCollected(f.srv.batcher, clients)
	close(g.gate)
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	if err := <-warm; err != nil {
		t.Error(err)
	}
	// All 24 ran in one batch after the first.
	_, metrics := f.get(t, "/metrics")
	if want := `recom_serve_batch_requests_count{model="small"} 2`; !strings.Contains(string(metrics), want) {
		t.Errorf("/metrics has no %s:\n%s", want, grep(metrics, "recom_serve_batch"))
	}
	for _, want := range []string{
		`recom_serve_requests_total{code="200",endpoint="infer",model="small",protocol="oip-http"} 8`,
		`recom_serve_requests_total{code="OK",endpoint="ModelInfer",model="small",protocol="oip-grpc"} 8`,
		`recom_serve_request_duration_seconds_count{endpoint="predict",model="small",protocol="tfserving"} 9`,
		`recom_serve_queue_duration_seconds_count{model="small"} 25`,
		`recom_serve_ready{model="small"} 1`,
	} {
		if !strings.Contains(string(metrics), want) {
			t.Errorf("/metrics has no %s:\n%s", want, grep(metrics, strings.SplitN(want, "{", 2)[0]))
		}
	}
}

func grep(b []byte, s string) string {
	var out []string
	for _, l := range strings.Split(string(b), "\n") {
		if strings.Contains(l, s) {
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}

// TestShutdownUnderLoad: clients keep sending over HTTP and gRPC while
// the server shuts down with batches in flight; every request the server
// accepted is answered with its prediction, and every other one failed to
// connect (none was cut off or answered with an error).
func TestShutdownUnderLoad(t *testing.T) {
	g := &gated{gate: make(chan struct{}), started: make(chan struct{}, 1)}
	f := start(t, func(c *Config) {
		g.Backend = c.Backend
		c.Backend = g
		c.Batch = BatchOptions{MaxBatch: 32, InFlight: 1}
	})
	c := dialGRPC(t, f.grpcAddr)
	sig := f.srv.Signature()
	type set struct {
		body  []byte
		grpc  *oippb.ModelInferRequest
		want  *interp.Tensor
		feeds map[string]*interp.Tensor
	}
	sets := make([]set, 4)
	for i := range sets {
		feeds := f.prog.feeds(t, 1+i, uint64(200+i))
		sets[i] = set{body: instancesBody(t, feeds, false), grpc: grpcRequest(sig, feeds, false), want: f.prog.want(t, feeds), feeds: feeds}
	}
	var ok200, okGRPC, refused atomic.Int64
	var bad []string
	var mu sync.Mutex
	fail := func(format string, args ...any) {
		mu.Lock()
		bad = append(bad, fmt.Sprintf(format, args...))
		mu.Unlock()
	}
	stop := make(chan struct{})
	var wg sync.WaitGroup
	const clients = 12
	for i := range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for n := 0; n < 200; n++ { // bounded: the server stops long before
				select {
				case <-stop:
					return
				default:
				}
				s := sets[(i+n)%len(sets)]
				if i%3 == 2 {
					r, err := c.ModelInfer(context.Background(), s.grpc)
					switch {
					case status.Code(err) == codes.Unavailable:
						refused.Add(1) // not accepted: the connection was closing
						return
					case err != nil:
						fail("gRPC client %d: %v", i, err)
						return
					}
					got := r.Outputs[0].GetContents().GetFp32Contents()
					for j, w := range s.want.Float32s() {
						if got[j] != w {
							fail("gRPC client %d: element %d is %v, want %v", i, j, got[j], w)
						}
					}
					okGRPC.Add(1)
					continue
				}
				resp, err := f.client.Post(f.httpURL+"/v1/models/small:predict", "application/json", bytes.NewReader(s.body))
				if err != nil {
					if isConnError(err) {
						refused.Add(1)
						return
					}
					fail("HTTP client %d: %v", i, err)
					return
				}
				body, err := io.ReadAll(resp.Body)
				resp.Body.Close()
				var r struct{ Predictions [][]float32 }
				if err != nil || resp.StatusCode != 200 || json.Unmarshal(body, &r) != nil {
					fail("HTTP client %d: %d %v %s", i, resp.StatusCode, err, body)
					return
				}
				w := s.want.Float32s()
				for j := range w {
					if r.Predictions[j][0] != w[j] {
						fail("HTTP client %d: row %d is %v, want %v", i, j, r.Predictions[j], w[j])
					}
				}
				ok200.Add(1)
			}
		}()
	}
	<-g.started // a batch is on the backend, held
	for f.srv.batcher.queued.Load() < 4 {
		time.Sleep(50 * time.Microsecond) // more wait behind it
	}
	done := make(chan error, 1)
	go func() { done <- f.stop(t) }()
	for f.srv.Ready() {
		time.Sleep(100 * time.Microsecond)
	}
	close(g.gate) // the held batches finish during the shutdown
	if err := <-done; err != nil {
		t.Errorf("Serve: %v", err)
	}
	close(stop)
	wg.Wait()
	for _, b := range bad {
		t.Error(b)
	}
	acc, ans := f.srv.Counts()
	if acc != ans || acc != ok200.Load()+okGRPC.Load() {
		t.Errorf("the server accepted %d requests and answered %d; the clients got %d answers over HTTP and %d over gRPC", acc, ans, ok200.Load(), okGRPC.Load())
	}
	if acc < 4 {
		t.Errorf("only %d requests were accepted before the shutdown", acc)
	}
	t.Logf("%d answered over HTTP, %d over gRPC, %d refused at the closed listener", ok200.Load(), okGRPC.Load(), refused.Load())
}

// isConnError reports whether a client error means the request was never
// taken: the connection was refused or closed before a response began.
func isConnError(err error) bool {
	s := err.Error()
	for _, m := range []string{"connection refused", "server closed idle connection", "EOF", "connection reset"} {
		if strings.Contains(s, m) {
			return true
		}
	}
	return errors.Is(err, io.EOF)
}
