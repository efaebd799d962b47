package serve

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/recom-compiler/recom/compiler"
	"github.com/recom-compiler/recom/frontend/gen"
	"github.com/recom-compiler/recom/interp"
	"github.com/recom-compiler/recom/interp/exec"
	"github.com/recom-compiler/recom/interp/npz"
)

// The bundled model (README's main command) and its tables.
var (
	smallModel  = filepath.Join("..", "examples", "small.pbtxt")
	smallTables = filepath.Join("..", "examples", "small.tables.npz")
)

// smallProgram is the bundled model imported once, with its variables.
type smallProgram struct {
	res  *compiler.Result
	opts *exec.Options
	spec *gen.Spec
	ref  *exec.Program
}

var (
	smallOnce sync.Once
	small     *smallProgram
	smallErr  error
)

func loadSmall(t testing.TB) *smallProgram {
	t.Helper()
	smallOnce.Do(func() {
		p := &smallProgram{opts: &exec.Options{Variables: map[string]*interp.Tensor{}, Tables: map[string]exec.TableData{}}}
		if p.res, smallErr = compiler.Compile(context.Background(), smallModel, compiler.Options{StopAfter: compiler.StageImport}); smallErr != nil {
			return
		}
		arrays, err := npz.ReadFile(smallTables)
		if err != nil {
			smallErr = err
			return
		}
		for _, a := range arrays {
			p.opts.Variables[a.Name] = a.Tensor
		}
		if p.spec, smallErr = gen.Preset("small"); smallErr != nil {
			return
		}
		p.ref, smallErr = exec.Compile(p.res.Module)
		small = p
	})
	if smallErr != nil {
		t.Fatal(smallErr)
	}
	return small
}

// feeds draws rows rows of the model's inputs.
func (p *smallProgram) feeds(t testing.TB, rows int, seed uint64) map[string]*interp.Tensor {
	t.Helper()
	arrays, err := gen.Feeds(p.spec, rows, seed)
	if err != nil {
		t.Fatal(err)
	}
	f := map[string]*interp.Tensor{}
	for _, a := range arrays {
		f[a.Name] = a.Tensor
	}
	return f
}

// want is the interpreter's prediction for feeds (recom interp's).
func (p *smallProgram) want(t testing.TB, feeds map[string]*interp.Tensor) *interp.Tensor {
	t.Helper()
	out, err := p.ref.Run(context.Background(), feeds, []string{"prediction"}, p.opts)
	if err != nil {
		t.Fatal(err)
	}
	return out["prediction"]
}

// fixture is a server of the bundled model on the interpreter, serving
// HTTP and gRPC on loopback ports.
type fixture struct {
	prog     *smallProgram
	srv      *Server
	backend  Backend
	httpURL  string
	grpcAddr string
	cancel   context.CancelFunc
	done     chan error
	client   *http.Client
}

// gated holds each Run until its gate is closed (nil: never), and says
// when one starts.
type gated struct {
	Backend
	gate    chan struct{}
	started chan struct{}
}

func (g *gated) Run(ctx context.Context, feeds map[string]*interp.Tensor) (map[string]*interp.Tensor, error) {
	if g.started != nil {
		select {
		case g.started <- struct{}{}:
		default:
		}
	}
	if g.gate != nil {
		<-g.gate
	}
	return g.Backend.Run(ctx, feeds)
}

// start serves the bundled model; edit changes the config first.
func start(t *testing.T, edit func(*Config)) *fixture {
	t.Helper()
	p := loadSmall(t)
	sig, err := SignatureOf(p.res.Module, p.res, []string{"prediction"})
	if err != nil {
		t.Fatal(err)
	}
	b, err := NewInterpBackend(p.res.Module, []string{"prediction"}, p.opts)
	if err != nil {
		t.Fatal(err)
	}
	cfg := Config{Name: "small", Signature: sig, Backend: b, Batch: BatchOptions{MaxBatch: 64, InFlight: 2},
		Logger: slog.New(slog.NewTextHandler(testWriter{t}, &slog.HandlerOptions{Level: slog.LevelWarn})), ServerVersion: "test"}
	if edit != nil {
		edit(&cfg)
	}
	srv, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	srv.SetReady(true)
	hl, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	gl, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	f := &fixture{prog: p, srv: srv, backend: cfg.Backend, httpURL: "http://" + hl.Addr().String(), grpcAddr: gl.Addr().String(),
		cancel: cancel, done: make(chan error, 1), client: &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 64}}}
	go func() { f.done <- srv.Serve(ctx, hl, gl, 0) }()
	t.Cleanup(func() { f.stop(t) })
	return f
}

// stop shuts the server down (once) and returns Serve's error.
func (f *fixture) stop(t testing.TB) error {
	if f.cancel == nil {
		return nil
	}
	f.cancel()
	f.cancel = nil
	err := <-f.done
	f.client.CloseIdleConnections()
	return err
}

type testWriter struct{ t *testing.T }

func (w testWriter) Write(p []byte) (int, error) {
	w.t.Log(strings.TrimSpace(string(p)))
	return len(p), nil
}

// post sends a JSON body and returns the status and the response body.
func (f *fixture) post(t testing.TB, path string, body []byte, header ...string) (int, []byte) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, f.httpURL+path, bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	resp, err := f.client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, b
}

func (f *fixture) get(t testing.TB, path string) (int, []byte) {
	t.Helper()
	resp, err := f.client.Get(f.httpURL + path)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, b
}

// jsonValue is row r of t (all its rows when r < 0) as a value for
// encoding/json; strings as {"b64": ...} when b64 is set.
func jsonValue(t *interp.Tensor, r int, b64 bool) any {
	shape := t.Shape()
	off := 0
	if r >= 0 {
		row := t.Len() / int(shape[0])
		off, shape = r*row, shape[1:]
	}
	var rec func(level, off int) any
	rec = func(level, off int) any {
		if level == len(shape) {
			switch d := t.Data().(type) {
			case []string:
				if b64 {
					return map[string]string{"b64": base64.StdEncoding.EncodeToString([]byte(d[off]))}
				}
				return d[off]
			case []float32:
				return d[off]
			case []int64:
				return d[off]
			}
			panic(fmt.Sprintf("dtype %v", t.DType()))
		}
		stride := 1
		for _, d := range shape[level+1:] {
			stride *= int(d)
		}
		l := make([]any, shape[level])
		for i := range l {
			l[i] = rec(level+1, off+i*stride)
		}
		return l
	}
	return rec(0, off)
}

// instancesBody is the row-format :predict body of feeds.
func instancesBody(t testing.TB, feeds map[string]*interp.Tensor, b64 bool) []byte {
	rows := 0
	for _, v := range feeds {
		rows = int(v.Dim(0))
	}
	inst := make([]map[string]any, rows)
	for r := range inst {
		inst[r] = map[string]any{}
		for k, v := range feeds {
			inst[r][k] = jsonValue(v, r, b64 && strings.HasPrefix(k, "str_"))
		}
	}
	b, err := json.Marshal(map[string]any{"instances": inst})
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// columnsBody is the columnar :predict body of feeds.
func columnsBody(t testing.TB, feeds map[string]*interp.Tensor) []byte {
	in := map[string]any{}
	for k, v := range feeds {
		in[k] = jsonValue(v, -1, false)
	}
	b, err := json.Marshal(map[string]any{"signature_name": "serving_default", "inputs": in})
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// checkPrediction compares a response's predictions ([rows][1]) with the
// interpreter's.
func checkPrediction(t testing.TB, what string, got [][]float32, want *interp.Tensor) {
	t.Helper()
	if int64(len(got)) != want.Dim(0) {
		t.Fatalf("%s: %d rows of predictions, want %d", what, len(got), want.Dim(0))
	}
	w := want.Float32s()
	for r, row := range got {
		if len(row) != 1 || row[0] != w[r] {
			t.Fatalf("%s: row %d is %v, the interpreter gives %v", what, r, row, w[r])
		}
	}
}

func TestTFServingPredict(t *testing.T) {
	f := start(t, nil)
	for i, rows := range []int{1, 7, 64} {
		feeds := f.prog.feeds(t, rows, uint64(10+i))
		want := f.prog.want(t, feeds)
		code, body := f.post(t, "/v1/models/small:predict", instancesBody(t, feeds, i%2 == 0))
		if code != http.StatusOK {
			t.Fatalf("instances of %d rows: %d %s", rows, code, body)
		}
		var rowResp struct{ Predictions [][]float32 }
		if err := json.Unmarshal(body, &rowResp); err != nil {
			t.Fatalf("%v: %s", err, body)
		}
		checkPrediction(t, fmt.Sprintf("instances, %d rows", rows), rowResp.Predictions, want)

		code, body = f.post(t, "/v1/models/small/versions/1:predict", columnsBody(t, feeds))
		if code != http.StatusOK {
			t.Fatalf("inputs of %d rows: %d %s", rows, code, body)
		}
		var colResp struct{ Outputs [][]float32 }
		if err := json.Unmarshal(body, &colResp); err != nil {
			t.Fatalf("%v: %s", err, body)
		}
		checkPrediction(t, fmt.Sprintf("inputs, %d rows", rows), colResp.Outputs, want)
	}
}

func TestTFServingStatusAndMetadata(t *testing.T) {
	f := start(t, nil)
	code, body := f.get(t, "/v1/models/small")
	if code != http.StatusOK || !strings.Contains(string(body), `"state":"AVAILABLE"`) {
		t.Errorf("status: %d %s", code, body)
	}
	code, body = f.get(t, "/v1/models/small/versions/1/metadata")
	var meta struct {
		ModelSpec struct{ Name, Version string } `json:"model_spec"`
		Metadata  struct {
			SignatureDef struct {
				SignatureDef map[string]struct {
					Inputs map[string]struct {
						Dtype       string
						Name        string
						TensorShape struct {
							Dim []struct{ Size string }
						} `json:"tensor_shape"`
					}
					Outputs    map[string]struct{ Dtype string }
					MethodName string `json:"method_name"`
				} `json:"signature_def"`
			} `json:"signature_def"`
		}
	}
	if err := json.Unmarshal(body, &meta); code != http.StatusOK || err != nil {
		t.Fatalf("metadata: %d %v %s", code, err, body)
	}
	sd, ok := meta.Metadata.SignatureDef.SignatureDef["serving_default"]
	if !ok || meta.ModelSpec.Name != "small" || sd.MethodName != PredictMethod {
		t.Fatalf("metadata: %s", body)
	}
	if in := sd.Inputs["dense_features"]; in.Dtype != "DT_FLOAT" || in.Name != "dense_features:0" || len(in.TensorShape.Dim) != 2 || in.TensorShape.Dim[1].Size != "8" {
		t.Errorf("dense_features: %+v", in)
	}
	if in := sd.Inputs["str_0000"]; in.Dtype != "DT_STRING" {
		t.Errorf("str_0000: %+v", in)
	}
	if len(sd.Inputs) != 27 || sd.Outputs["prediction"].Dtype != "DT_FLOAT" {
		t.Errorf("%d inputs, outputs %+v", len(sd.Inputs), sd.Outputs)
	}
	for path, want := range map[string]int{
		"/v1/models/other":             http.StatusNotFound,
		"/v1/models/small/versions/2":  http.StatusNotFound,
		"/v1/models/small/labels/prod": http.StatusNotFound,
		"/v1/nothing":                  http.StatusNotFound,
		"/elsewhere":                   http.StatusNotFound,
	} {
		if code, body := f.get(t, path); code != want || !strings.HasPrefix(string(body), `{"error":`) {
			t.Errorf("GET %s: %d %s, want %d and an error body", path, code, body, want)
		}
	}
}
