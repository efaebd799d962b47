package serve

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"strconv"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/recom-compiler/recom/frontend/gen"
	"github.com/recom-compiler/recom/interp"
)

// BenchmarkServeParallelOIPBinary is the server under concurrent load, in
// process: 8 clients per core post OIP binary requests of E (1001 inputs)
// of 1 to 64 rows (eight bodies: 1, 3, 9, 17, 30, 41, 55 and 64 rows) to
// the handler at once, batched as recom serve batches on the GPU (batch
// sizes the powers of two up to 256, --batch-timeout 500us, 4 batches in
// flight) on a backend that does no work. ns/op is the server's time per
// request with every core busy (its inverse the request rate one core
// sustains), allocs/op the allocations per request; req/s the rate the
// whole machine sustained. What it shows is the part of the request path
// that does not run in parallel: the batcher's join of the requests'
// tensors, locks. cpu-ns/op is the process's CPU time per request (all
// threads).
func BenchmarkServeParallelOIPBinary(b *testing.B) {
	p := loadE(b)
	srv, err := New(Config{Name: "E", Signature: p.sig, Backend: zeros{p.sig.Inputs[0].Name},
		Batch: BatchOptions{MaxBatch: 256, Timeout: 500 * time.Microsecond, InFlight: 4, Sizes: PowersOfTwo(256)}})
	if err != nil {
		b.Fatal(err)
	}
	srv.SetReady(true)
	b.Cleanup(func() { srv.Close() })
	all := allBinary(&p.sig)
	type body struct {
		data []byte
		json string
	}
	var bodies []body
	for i, rows := range []int{1, 3, 9, 17, 30, 41, 55, 64} {
		arrays, err := gen.Feeds(p.spec, rows, uint64(i+7))
		if err != nil {
			b.Fatal(err)
		}
		feeds := map[string]*interp.Tensor{}
		for _, a := range arrays {
			feeds[a.Name] = a.Tensor
		}
		data, n := inferBody(b, &p.sig, feeds, all)
		bodies = append(bodies, body{data, strconv.Itoa(n)})
	}
	h := srv.Handler()
	var next atomic.Int64
	b.ReportAllocs()
	b.SetParallelism(8)
	t0, c0 := time.Now(), cpuTime()
	b.RunParallel(func(pb *testing.PB) {
		w := &discardWriter{h: http.Header{}}
		rd := bytes.NewReader(nil)
		for pb.Next() {
			bd := bodies[next.Add(1)%int64(len(bodies))]
			req, err := http.NewRequest(http.MethodPost, "http://localhost/v2/models/E/infer", nil)
			if err != nil {
				b.Error(err)
				return
			}
			req.Header.Set(binaryHeader, bd.json)
			req.ContentLength = int64(len(bd.data))
			rd.Reset(bd.data)
			req.Body = io.NopCloser(rd)
			w.status, w.n = 0, 0
			clear(w.h)
			h.ServeHTTP(w, req)
			if w.status != http.StatusOK {
				b.Errorf("status %d", w.status)
				return
			}
		}
	})
	b.ReportMetric(float64(b.N)/time.Since(t0).Seconds(), "req/s")
	b.ReportMetric(float64(cpuTime()-c0)/float64(b.N), "cpu-ns/op")
}

// cpuTime is the process's CPU time so far (user and system, every
// thread: the garbage collector's included). A benchmark that reports
// it per op gives a number that a machine shared with other work does
// not inflate as it does ns/op (wall time).
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// binaryBodyE is E's request of every input binary (BenchmarkServeOIPBinary64's
// body) in a buffer as the server reads it (getBody: the binary data
// 8-aligned), and its JSON header's length.
func binaryBodyE(b *testing.B, p *presetE) ([]byte, int) {
	raw, n := inferBody(b, &p.sig, p.feeds, allBinary(&p.sig))
	buf, _ := getBody(len(raw), n)
	return append(buf, raw...), n
}

// BenchmarkDecodeOIPBinary64 is decodeInfer alone on
// BenchmarkServeOIPBinary64's body: the JSON header of 1001 inputs (the
// binary data are views).
func BenchmarkDecodeOIPBinary64(b *testing.B) {
	p := loadE(b)
	body, n := binaryBodyE(b, p)
	b.SetBytes(int64(n))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := decodeInfer(body, n, &p.sig); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkDecodeOIPRaw64 is BenchmarkDecodeOIPBinary64's body read by
// decodeInferRaw (the inputs kept as the body holds them).
func BenchmarkDecodeOIPRaw64(b *testing.B) {
	p := loadE(b)
	body, n := binaryBodyE(b, p)
	sig := p.sig // indexed, as the server's is
	if err := sig.check(); err != nil {
		b.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		c    *rawCache
	}{{"instantiated", &rawCache{}}, {"template", &rawCache{noInst: true}}, {"reader", nil}} {
		// instantiated: as the server reads them, by the first one's
		// template instantiated for their rows; template: by the template
		// alone; reader: the input reader alone.
		b.Run(tc.name, func(b *testing.B) {
			b.SetBytes(int64(n))
			b.ReportAllocs()
			for b.Loop() {
				_, f, ok := decodeInferRaw(body, n, &sig, 1<<20, tc.c)
				if !ok {
					b.Fatal("not read by decodeInferRaw")
				}
				putRawFeeds(f)
			}
		})
	}
}

// BenchmarkServeRawAlone is the batcher's work on one binary request of
// E's 64 rows run as a batch by itself (a power of two: no padding), on
// views of its body ("views") and joined into the batch's arenas
// ("copy"): the backend does no work. cpu-ns/op is the process's CPU
// time per request (the join's second half runs on a goroutine of its
// own, as for a request run inline).
func BenchmarkServeRawAlone(b *testing.B) {
	p := loadE(b)
	body, n := binaryBodyE(b, p)
	srv := benchServer(b, p)
	sig := srv.sig
	bt := srv.batcher
	bt.opts.Sizes = PowersOfTwo(DefaultMaxBatch)
	_, f, ok := decodeInferRaw(body, n, sig, 1<<20, nil)
	if !ok {
		b.Fatal("not read by decodeInferRaw")
	}
	defer func(v bool) { viewBodies = v }(viewBodies)
	for _, views := range []bool{true, false} {
		name := "views"
		if !views {
			name = "copy"
		}
		b.Run(name, func(b *testing.B) {
			viewBodies = views
			r := &request{ctx: context.Background(), raw: f, rows: int(f.rows), key: bt.static}
			b.ReportAllocs()
			c0 := cpuTime()
			for b.Loop() {
				out, _, err := bt.runBatch([]*request{r}, false)
				if err != nil {
					b.Fatal(err)
				}
				if _, err := bt.split(out, []*request{r}, false); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(cpuTime()-c0)/float64(b.N), "cpu-ns/op")
		})
	}
}
