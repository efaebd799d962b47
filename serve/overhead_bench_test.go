package serve

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"strconv"
	"sync"
	"testing"

	"google.golang.org/grpc/mem"
	"google.golang.org/protobuf/proto"

	"github.com/recom-compiler/recom/compiler"
	"github.com/recom-compiler/recom/frontend/gen"
	"github.com/recom-compiler/recom/interp"
	"github.com/recom-compiler/recom/serve/oippb"
)

// The server's own time per request on preset E (1000 columns as 1001
// inputs) with a backend that does no work: BenchmarkServeJSON64 (TensorFlow
// Serving's row format), BenchmarkServeOIPJSON64, BenchmarkServeOIPBinary64
// (the Open Inference Protocol over HTTP, JSON and binary tensor data) and
// BenchmarkServeGRPC64 (ModelInfer with raw_input_contents), each a
// request of 64 rows from its body's bytes to its response's bytes, in
// process (no sockets: what a request costs the server, not the client).

// presetE is preset E's signature and a 64-row draw of its feeds, made once.
type presetE struct {
	spec  *gen.Spec
	sig   Signature
	feeds map[string]*interp.Tensor
}

var (
	eOnce sync.Once
	eData *presetE
	eErr  error
)

func loadE(tb testing.TB) *presetE {
	tb.Helper()
	eOnce.Do(func() {
		p := &presetE{}
		if p.spec, eErr = gen.Preset("E"); eErr != nil {
			return
		}
		m, err := gen.Generate(p.spec, gen.Options{NoTableValues: true})
		if err != nil {
			eErr = err
			return
		}
		data, err := gen.MarshalGraph(m.Graph)
		if err != nil {
			eErr = err
			return
		}
		res, err := compiler.CompileBytes(context.Background(), "E.pb", data, compiler.Options{StopAfter: compiler.StageImport})
		if err != nil {
			eErr = err
			return
		}
		if p.sig, eErr = SignatureOf(res.Module, res, []string{"prediction"}); eErr != nil {
			return
		}
		arrays, err := gen.Feeds(p.spec, 64, 1)
		if err != nil {
			eErr = err
			return
		}
		p.feeds = map[string]*interp.Tensor{}
		for _, a := range arrays {
			p.feeds[a.Name] = a.Tensor
		}
		eData = p
	})
	if eErr != nil {
		tb.Fatal(eErr)
	}
	return eData
}

// benchServer serves E on the zeros backend, batching as recom serve does.
func benchServer(tb testing.TB, p *presetE) *Server {
	srv, err := New(Config{Name: "E", Signature: p.sig, Backend: zeros{p.sig.Inputs[0].Name},
		Batch: BatchOptions{MaxBatch: DefaultMaxBatch, Timeout: 0}})
	if err != nil {
		tb.Fatal(err)
	}
	srv.SetReady(true)
	tb.Cleanup(func() { srv.Close() })
	return srv
}

// discardWriter is a ResponseWriter that keeps only the status.
type discardWriter struct {
	h      http.Header
	status int
	n      int
}

func (w *discardWriter) Header() http.Header { return w.h }
func (w *discardWriter) WriteHeader(c int) {
	if w.status == 0 {
		w.status = c
	}
}
func (w *discardWriter) Write(b []byte) (int, error) {
	if w.status == 0 {
		w.status = http.StatusOK
	}
	w.n += len(b)
	return len(b), nil
}

// benchHTTP posts body to path on the server's handler b.N times.
func benchHTTP(b *testing.B, srv *Server, path string, body []byte, header map[string]string) {
	h := srv.Handler()
	req, err := http.NewRequest(http.MethodPost, "http://localhost"+path, nil)
	if err != nil {
		b.Fatal(err)
	}
	for k, v := range header {
		req.Header.Set(k, v)
	}
	req.ContentLength = int64(len(body))
	w := &discardWriter{h: http.Header{}}
	rd := bytes.NewReader(body)
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	for b.Loop() {
		rd.Reset(body)
		req.Body = io.NopCloser(rd)
		w.status, w.n = 0, 0
		clear(w.h)
		h.ServeHTTP(w, req)
		if w.status != http.StatusOK {
			b.Fatalf("status %d", w.status)
		}
	}
}

func BenchmarkServeJSON64(b *testing.B) {
	p := loadE(b)
	srv := benchServer(b, p)
	benchHTTP(b, srv, "/v1/models/E:predict", instancesBody(b, p.feeds, false), nil)
}

func BenchmarkServeOIPJSON64(b *testing.B) {
	p := loadE(b)
	srv := benchServer(b, p)
	body, _ := inferBody(b, &p.sig, p.feeds, nil)
	benchHTTP(b, srv, "/v2/models/E/infer", body, nil)
}

func BenchmarkServeOIPBinary64(b *testing.B) {
	p := loadE(b)
	srv := benchServer(b, p)
	all := allBinary(&p.sig)
	body, n := inferBody(b, &p.sig, p.feeds, all)
	benchHTTP(b, srv, "/v2/models/E/infer", body, map[string]string{binaryHeader: strconv.Itoa(n)})
}

// BenchmarkServeOIPBinary64Tensors is BenchmarkServeOIPBinary64 with the
// inputs decoded into tensors (decodeInfer) instead of kept as the body
// holds them (decodeInferRaw): what the raw path saves.
func BenchmarkServeOIPBinary64Tensors(b *testing.B) {
	p := loadE(b)
	srv := benchServer(b, p)
	srv.noRaw = true
	body, n := inferBody(b, &p.sig, p.feeds, allBinary(&p.sig))
	benchHTTP(b, srv, "/v2/models/E/infer", body, map[string]string{binaryHeader: strconv.Itoa(n)})
}

// grpcMessageE is a ModelInfer request of p's feeds (64 rows of model E)
// as a client writes it: every input in raw_input_contents.
func grpcMessageE(b *testing.B, p *presetE) []byte {
	req := grpcRequest(&p.sig, p.feeds, true)
	req.ModelName = "E"
	msg, err := proto.Marshal(req)
	if err != nil {
		b.Fatal(err)
	}
	return msg
}

// BenchmarkServeGRPC64 is ModelInfer from the request message's bytes
// (read by the server's codec, through ModelInfer's method handler as
// gRPC calls it, the interceptors left out) to the response's (gRPC's
// framing and HTTP/2 left out).
func BenchmarkServeGRPC64(b *testing.B) {
	p := loadE(b)
	srv := benchServer(b, p)
	msg := grpcMessageE(b, p)
	g := &grpcService{s: srv}
	codec := newInferCodec() // the server's (Server.GRPC)
	ctx := context.Background()
	b.SetBytes(int64(len(msg)))
	b.ReportAllocs()
	dec := func(v any) error { return codec.Unmarshal(mem.BufferSlice{mem.SliceBuffer(msg)}, v) }
	for b.Loop() {
		resp, err := grpcModelInfer(g, ctx, dec, nil)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := proto.Marshal(resp.(*oippb.ModelInferResponse)); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkServeBatch5x30 is BenchmarkServeBatch8x32 for five requests of
// 30 rows: 150 rows padded to 256 (the last row repeated 106 times).
func BenchmarkServeBatch5x30(b *testing.B) { benchBatch(b, 5, 30) }

// BenchmarkServeBatch8x32: eight requests of 32 rows, 256 (no padding).
func BenchmarkServeBatch8x32(b *testing.B) { benchBatch(b, 8, 32) }

// benchBatch is the batcher's own work on a batch of n requests of rows
// rows of E, padded to a power of two as on the GPU: joining their 1001
// inputs (all on the benchmark's goroutine: the requests have none of
// their own), running
// the backend (no work) and splitting the output back. cpu-ns/op is the
// process's CPU time per batch (the garbage collector's included).
func benchBatch(b *testing.B, n, rows int) {
	p := loadE(b)
	srv, err := New(Config{Name: "E", Signature: p.sig, Backend: zeros{p.sig.Inputs[0].Name},
		Batch: BatchOptions{MaxBatch: DefaultMaxBatch, Sizes: PowersOfTwo(DefaultMaxBatch)}})
	if err != nil {
		b.Fatal(err)
	}
	srv.SetReady(true)
	b.Cleanup(func() { srv.Close() })
	var reqs []*request
	for i := range n {
		arrays, err := gen.Feeds(p.spec, rows, uint64(i+1))
		if err != nil {
			b.Fatal(err)
		}
		by := map[string]*interp.Tensor{}
		for _, a := range arrays {
			by[a.Name] = a.Tensor
		}
		feeds := make([]*interp.Tensor, len(p.sig.Inputs))
		for k, in := range p.sig.Inputs {
			feeds[k] = by[in.Name]
		}
		reqs = append(reqs, &request{ctx: context.Background(), feeds: feeds, rows: rows, key: shapeKey(feeds)})
	}
	bt := srv.batcher
	b.ReportAllocs()
	c0 := cpuTime()
	for b.Loop() {
		out, _, err := bt.runBatch(reqs, false)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := bt.split(out, reqs, false); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(cpuTime()-c0)/float64(b.N), "cpu-ns/op")
}

// BenchmarkDecodeJSON64 is decodePredict alone on BenchmarkServeJSON64's
// body, with the rows read by the fast readers (the row plan, instanceRow,
// the parallel reader where GOMAXPROCS > 1) and by the general reader.
// cpu-ns/op is the process's CPU time per op (every thread, the garbage
// collector's included: on a loaded machine steadier than ns/op);
// -cpu 1 gives one core's cost.
func BenchmarkDecodeJSON64(b *testing.B) {
	p := loadE(b)
	benchDecode(b, benchServer(b, p).sig, instancesBody(b, p.feeds, false))
}

// BenchmarkDecodeJSONColumns64 is the same for the columnar form
// ({"inputs": {...}}: each of E's 1001 inputs a list of 64 rows).
func BenchmarkDecodeJSONColumns64(b *testing.B) {
	p := loadE(b)
	benchDecode(b, benchServer(b, p).sig, columnsBody(b, p.feeds))
}

// BenchmarkDecodeJSONRows is BenchmarkDecodeJSON64 (the fast readers) on
// requests of 1 and 30 rows of E (recom loadtest sends 1 to 64).
func BenchmarkDecodeJSONRows(b *testing.B) {
	p := loadE(b)
	sig := benchServer(b, p).sig
	for _, rows := range []int{1, 30} {
		arrays, err := gen.Feeds(p.spec, rows, 2)
		if err != nil {
			b.Fatal(err)
		}
		feeds := map[string]*interp.Tensor{}
		for _, a := range arrays {
			feeds[a.Name] = a.Tensor
		}
		body := instancesBody(b, feeds, false)
		b.Run(strconv.Itoa(rows), func(b *testing.B) {
			b.SetBytes(int64(len(body)))
			b.ReportAllocs()
			c0 := cpuTime()
			for b.Loop() {
				if _, err := decodePredictWith(body, sig, true); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(cpuTime()-c0)/float64(b.N), "cpu-ns/op")
		})
	}
}

// benchDecode decodes body against sig (the server's: checked, its keys
// indexed).
func benchDecode(b *testing.B, sig *Signature, body []byte) {
	for _, fast := range []bool{true, false} {
		b.Run(map[bool]string{true: "fast", false: "general"}[fast], func(b *testing.B) {
			b.SetBytes(int64(len(body)))
			b.ReportAllocs()
			c0 := cpuTime()
			for b.Loop() {
				if _, err := decodePredictWith(body, sig, fast); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(cpuTime()-c0)/float64(b.N), "cpu-ns/op")
		})
	}
}
