package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"

	"github.com/recom-compiler/recom/interp"
	"github.com/recom-compiler/recom/serve/oippb"
)

var (
	exampleModel  = filepath.Join("..", "..", "examples", "small.pbtxt")
	exampleTables = filepath.Join("..", "..", "examples", "small.tables.npz")
)

// logWatch is a log writer that hands each line to whoever waits for it.
type logWatch struct {
	mu    sync.Mutex
	all   bytes.Buffer
	lines chan string
}

func newLogWatch() (*logWatch, io.WriteCloser) {
	w := &logWatch{lines: make(chan string, 1024)}
	pr, pw := io.Pipe()
	go func() {
		sc := bufio.NewScanner(pr)
		for sc.Scan() {
			w.mu.Lock()
			w.all.WriteString(sc.Text() + "\n")
			w.mu.Unlock()
			select {
			case w.lines <- sc.Text():
			default:
			}
		}
		close(w.lines)
	}()
	return w, pw
}

// wait returns the first line (from now) matching re's group 1.
func (w *logWatch) wait(t *testing.T, re string) string {
	t.Helper()
	r := regexp.MustCompile(re)
	for l := range w.lines {
		if m := r.FindStringSubmatch(l); m != nil {
			return m[1]
		}
	}
	t.Fatalf("the server ended without logging %s:\n%s", re, w.text())
	return ""
}

// exampleReference draws feeds of batch rows for the bundled model
// (recom gen --feeds --seed seed, into dir) and returns them with recom
// interp's predictions for them.
func exampleReference(t *testing.T, dir string, batch, seed int) (map[string]*interp.Tensor, []float32) {
	t.Helper()
	feeds, want := filepath.Join(dir, "feeds.npz"), filepath.Join(dir, "want.npz")
	if st, _, e := runTool("gen", "--feeds", "--batch", strconv.Itoa(batch), "--seed", strconv.Itoa(seed), exampleModel, "-o", feeds); st != 0 {
		t.Fatalf("recom gen --feeds: %s", e)
	}
	if st, _, e := runTool("interp", exampleModel, "--tables", exampleTables, "--feeds", feeds, "--outputs", "prediction", "-o", want); st != 0 {
		t.Fatalf("recom interp: %s", e)
	}
	return readNPZ(t, feeds), readNPZ(t, want)["prediction"].Float32s()
}

// startServe runs recom serve with args until ctx ends, its logs watched;
// status gets its exit status.
func startServe(ctx context.Context, args ...string) (logs *logWatch, status chan int) {
	logs, lw := newLogWatch()
	status = make(chan int, 1)
	go func() {
		status <- runContext(ctx, append([]string{"serve"}, args...), strings.NewReader(""), io.Discard, lw)
		lw.Close()
	}()
	return logs, status
}

// inferOutput is an output of an Open Inference Protocol JSON response.
type inferOutput struct{ Data []float32 }

// postInferJSON posts inputs as an Open Inference Protocol JSON request
// to model's /infer at addr and returns the response's outputs; anything
// but a 200 with a JSON body fails the test.
func postInferJSON(t *testing.T, addr, model string, inputs []map[string]any) []inferOutput {
	t.Helper()
	body, _ := json.Marshal(map[string]any{"inputs": inputs})
	hr, err := http.Post("http://"+addr+"/v2/models/"+model+"/infer", "application/json", bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	var r struct{ Outputs []inferOutput }
	b, _ := io.ReadAll(hr.Body)
	hr.Body.Close()
	if err := json.Unmarshal(b, &r); err != nil || hr.StatusCode != 200 {
		t.Fatalf("infer: %d %v %s", hr.StatusCode, err, b)
	}
	return r.Outputs
}

func (w *logWatch) text() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.all.String()
}

// TestServeMatchesInterp serves the bundled model on the CPU backend,
// calls it over gRPC and HTTP with feeds recom gen drew, compares with
// recom interp's outputs for them, and shuts it down as SIGTERM would.
func TestServeMatchesInterp(t *testing.T) {
	dir := t.TempDir()
	in, ref := exampleReference(t, dir, 6, 5)

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	logs, status := startServe(ctx, exampleModel, "--tables", exampleTables, "--backend", "cpu",
		"--http-addr", "127.0.0.1:0", "--grpc-addr", "127.0.0.1:0", "--log-format", "text", "--cpuprofile", filepath.Join(dir, "cpu.pprof"))
	httpAddr := logs.wait(t, `msg="serving HTTP" addr=(\S+)`)
	grpcAddr := logs.wait(t, `msg="serving gRPC" addr=(\S+)`)

	// gRPC, typed contents.
	conn, err := grpc.NewClient(grpcAddr, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	meta, err := oippb.NewGRPCInferenceServiceClient(conn).ModelMetadata(ctx, &oippb.ModelMetadataRequest{Name: "small"})
	if err != nil {
		t.Fatal(err)
	}
	req := &oippb.ModelInferRequest{ModelName: "small"}
	var v2 []map[string]any
	for _, im := range meta.Inputs {
		x, ok := in[im.Name]
		if !ok {
			t.Fatalf("the feeds have no %q", im.Name)
		}
		c := &oippb.InferTensorContents{}
		switch d := x.Data().(type) {
		case []string:
			for _, s := range d {
				c.BytesContents = append(c.BytesContents, []byte(s))
			}
		case []float32:
			c.Fp32Contents = d
		case []int64:
			c.Int64Contents = d
		default:
			t.Fatalf("%s: %v", im.Name, x.DType())
		}
		req.Inputs = append(req.Inputs, &oippb.ModelInferRequest_InferInputTensor{Name: im.Name, Datatype: im.Datatype, Shape: x.Shape(), Contents: c})
		v2 = append(v2, map[string]any{"name": im.Name, "datatype": im.Datatype, "shape": x.Shape(), "data": x.Data()})
	}
	resp, err := oippb.NewGRPCInferenceServiceClient(conn).ModelInfer(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	checkFloats(t, "gRPC", resp.Outputs[0].GetContents().GetFp32Contents(), ref)

	// HTTP, the Open Inference Protocol's JSON.
	outs := postInferJSON(t, httpAddr, "small", v2)
	checkFloats(t, "HTTP", outs[0].Data, ref)

	cancel() // as SIGINT or SIGTERM does (outfile.HandleGracefully)
	if st := <-status; st != 0 {
		t.Fatalf("recom serve exited %d:\n%s", st, logs.text())
	}
	if !strings.Contains(logs.text(), "accepted=2 answered=2") {
		t.Errorf("the log does not say both requests were answered:\n%s", logs.text())
	}
	if fi, err := os.Stat(filepath.Join(dir, "cpu.pprof")); err != nil || fi.Size() == 0 {
		t.Errorf("--cpuprofile wrote no profile: %v", err)
	}
}

func checkFloats(t *testing.T, what string, got, want []float32) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %d values, recom interp gives %d", what, len(got), len(want))
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("%s: value %d is %v, recom interp gives %v", what, i, got[i], want[i])
		}
	}
}

func TestServeFlags(t *testing.T) {
	busy, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer busy.Close()
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--backend", "tpu"}, "--backend must be auto, gpu or cpu"},
		{[]string{"--http-addr", "", "--grpc-addr", ""}, "nothing to serve on"},
		{[]string{"--http-addr", busy.Addr().String()}, "--http-addr: listen tcp"},
		{[]string{"--log-level", "loud"}, "--log-level"},
		{[]string{"--backend", "cpu", "--batch-sizes", "4,-1", "--grpc-addr", ""}, "--batch-sizes: -1 is not a batch size"},
		{[]string{"--backend", "cpu", "--outputs", "nope", "--grpc-addr", ""}, "nope"},
	} {
		args := append([]string{"serve", exampleModel, "--tables", exampleTables, "--http-addr", "127.0.0.1:0", "--grpc-addr", "127.0.0.1:0"}, c.args...)
		st, _, e := runTool(args...)
		if st != 1 || !strings.Contains(e, c.want) {
			t.Errorf("recom %v: exit %d, %s; want exit 1 and %q", c.args, st, e, c.want)
		}
	}
}

func TestModelName(t *testing.T) {
	for in, want := range map[string]string{
		"examples/small.pbtxt":            "small",
		"models/ranker/3":                 "ranker",
		"models/ranker/3/saved_model.pb":  "ranker",
		"/tmp/census_wide_deep_tf1.pb.gz": "census_wide_deep_tf1",
		"E.pb":                            "E",
	} {
		if got := modelName(in); got != want {
			t.Errorf("modelName(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestLoadtest drives a served bundled model briefly (a bounded number of
// requests) in each protocol's form; every request must be answered.
func TestLoadtest(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	logs, status := startServe(ctx, exampleModel, "--tables", exampleTables, "--backend", "cpu",
		"--http-addr", "127.0.0.1:0", "--grpc-addr", "127.0.0.1:0")
	addr := logs.wait(t, `msg="serving HTTP" addr=(\S+)`)
	grpcAddr := logs.wait(t, `msg="serving gRPC" addr=(\S+)`)
	dir := t.TempDir()
	for _, p := range []string{"tfserving", "oip", "oip-binary", "grpc"} {
		out := filepath.Join(dir, p+".jsonl")
		url := "http://" + addr
		if p == "grpc" {
			url = "http://" + grpcAddr
		}
		st, o, e := runTool("loadtest", exampleModel, "--url", url, "--protocol", p, "--rates", "20",
			"--duration", "250ms", "--bodies", "4", "--min-rows", "1", "--max-rows", "8", "--json", out)
		if st != 0 || !strings.Contains(o, "p999 ms") {
			t.Fatalf("recom loadtest --protocol %s: exit %d\n%s%s", p, st, o, e)
		}
		b, err := os.ReadFile(out)
		if err != nil {
			t.Fatal(err)
		}
		var r loadResult
		if err := json.Unmarshal(b, &r); err != nil {
			t.Fatalf("%s: %v", b, err)
		}
		if r.Requests == 0 || r.Success != 1 || r.Answered != int(r.Requests) || r.Codes["200"] != int(r.Requests) || !(r.P50 > 0 && r.P50 <= r.P99 && r.P99 <= r.P999) {
			t.Errorf("--protocol %s: %+v", p, r)
		}
	}
	// A gRPC call that fails (another model's name: NOT_FOUND) counts as
	// a 500 carrying the gRPC status and message.
	st, o, e := runTool("loadtest", exampleModel, "--url", "http://"+grpcAddr, "--protocol", "grpc", "--name", "nope",
		"--rates", "10", "--duration", "200ms", "--bodies", "2", "--max-rows", "2")
	if st != 0 || !strings.Contains(o, `codes map[500:2]; 500 grpc-status 5 (NotFound): model "nope" is not served`) {
		t.Errorf("recom loadtest --protocol grpc --name nope: exit %d\n%s%s", st, o, e)
	}
	st, o, e = runTool("loadtest", exampleModel, "--url", "http://"+addr, "--rates", "10", "--duration", "200ms",
		"--bodies", "2", "--max-rows", "2", "--max-p99", "1ns")
	if st != 0 || !strings.Contains(o, "max rate at p99 <= 1ns: none (10/s already misses it)") {
		t.Errorf("recom loadtest --max-p99: exit %d\n%s%s", st, o, e)
	}
	cancel()
	if st := <-status; st != 0 {
		t.Fatalf("recom serve exited %d:\n%s", st, logs.text())
	}
}

// TestLoadtestTFExample drives a model served from serialized tf.Example
// records (weighted columns among its features): the load's records are
// drawn from the spec the model records, as recom gen --feeds draws them,
// so the server parses every one; the OIP JSON form, which cannot carry
// the records' bytes, is refused before any request.
func TestLoadtestTFExample(t *testing.T) {
	dir := t.TempDir()
	model := filepath.Join(dir, "tfex.pbtxt")
	if st, _, e := runTool("gen", "--preset", "small", "--tf-example", "-o", model); st != 0 {
		t.Fatalf("recom gen: %s", e)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	logs, status := startServe(ctx, model, "--tables", filepath.Join(dir, "tfex.tables.npz"), "--backend", "cpu",
		"--http-addr", "127.0.0.1:0", "--grpc-addr", "127.0.0.1:0")
	addr := logs.wait(t, `msg="serving HTTP" addr=(\S+)`)
	grpcAddr := logs.wait(t, `msg="serving gRPC" addr=(\S+)`)
	for _, p := range []string{"tfserving", "oip-binary", "grpc"} {
		url := "http://" + addr
		if p == "grpc" {
			url = "http://" + grpcAddr
		}
		out := filepath.Join(dir, p+".jsonl")
		st, o, e := runTool("loadtest", model, "--url", url, "--protocol", p, "--rates", "20",
			"--duration", "250ms", "--bodies", "4", "--max-rows", "8", "--json", out)
		b, _ := os.ReadFile(out)
		var r loadResult
		if st != 0 || json.Unmarshal(b, &r) != nil || r.Requests == 0 || r.Success != 1 {
			t.Errorf("recom loadtest --protocol %s: exit %d\n%s%s%s", p, st, o, e, b)
		}
	}
	st, _, e := runTool("loadtest", model, "--url", "http://"+addr, "--protocol", "oip", "--rates", "20", "--duration", "250ms")
	if st == 0 || !strings.Contains(e, `--protocol oip: input "input_example_tensor" holds strings that are not UTF-8 text`) {
		t.Errorf("recom loadtest --protocol oip of tf.Example records: exit %d\n%s", st, e)
	}
	cancel()
	if st := <-status; st != 0 {
		t.Fatalf("recom serve exited %d:\n%s", st, logs.text())
	}
}

// TestHopeless: a run stops once its p99 cannot meet the bound whatever
// its remaining requests do.
func TestHopeless(t *testing.T) {
	for _, c := range []struct {
		over, failed, planned int
		want                  bool
	}{{0, 0, 1000, false}, {10, 0, 1000, false}, {11, 0, 1000, true}, {0, 1, 1000, true}, {0, 0, 50, false}, {1, 0, 50, true}, {1, 0, 100, false}, {2, 0, 100, true}} {
		if got := hopeless(c.over, c.failed, c.planned); got != c.want {
			t.Errorf("hopeless(%d over, %d failed, %d planned) = %v", c.over, c.failed, c.planned, got)
		}
		// The rule is exact: with the planned requests answered and over
		// of them above the bound, the p99 is above it exactly when
		// hopeless says so.
		if c.failed == 0 {
			n := c.planned
			p99Over := c.over >= n-int(math.Ceil(0.99*float64(n)))+1
			if p99Over != c.want {
				t.Errorf("%d of %d over the bound: p99 over %v, hopeless %v", c.over, n, p99Over, c.want)
			}
		}
	}
}

func TestLoadtestSearch(t *testing.T) {
	f := &loadtestFlags{rates: []float64{100}, maxP99: 10 * time.Millisecond, steps: 5}
	var ran []float64
	best, err := f.search(func(rate float64) (*loadResult, error) {
		ran = append(ran, rate)
		p99 := 5.0
		if rate > 700 {
			p99 = 20
		}
		return &loadResult{Rate: rate, Success: 1, P99: p99, Throughput: rate}, nil
	})
	if err != nil || best == nil || best.Rate != 700 {
		t.Fatalf("search found %+v (%v) after %v, want 700", best, err, ran)
	}
	if fmt.Sprint(ran) != "[100 200 400 800 600 700 750 725 713]" {
		t.Errorf("rates run: %v", ran)
	}
	// A rate the server answers within the bound but not at its pace
	// (fewer answers a second than minPace of it) does not meet it.
	ran = nil
	best, err = f.search(func(rate float64) (*loadResult, error) {
		ran = append(ran, rate)
		return &loadResult{Rate: rate, Success: 1, P99: 1, Throughput: min(rate, 650)}, nil
	})
	if err != nil || best == nil || best.Rate != 675 {
		t.Fatalf("search found %+v (%v) after %v, want 675 (650/675 >= %v)", best, err, ran, minPace)
	}
}
