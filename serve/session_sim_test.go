package serve

import (
	"context"
	"encoding/json"
	"fmt"
	"github.com/recom-compiler/recom/runtime/simgpu"
	"math"
	"strings"
	"sync"
	"testing"

	"github.com/recom-compiler/recom/compiler"
	"github.com/recom-compiler/recom/dialects/all"
	"github.com/recom-compiler/recom/runtime/cuda"
	"github.com/recom-compiler/recom/runtime/densekern"
	"github.com/recom-compiler/recom/runtime/session"
	"github.com/recom-compiler/recom/textir"
)

// simKernels registers every kernel of module on sim, run by the gpu
// dialect's thread-level simulator over the simulated device memory.
func simKernels(t testing.TB, sim *cuda.Sim, module *textir.Operation) {
	t.Helper()
	if err := simgpu.Register(sim, module); err != nil {
		t.Fatal(err)
	}
}

// TestSessionBackendOnSimulatedGPU serves the compiled bundled model
// through the native runtime on the simulated GPU (the GPU backend's whole
// path: padding to allowed sizes, several batches in flight, the session's
// graphs), with requests merged, and compares with the interpreter.
func TestSessionBackendOnSimulatedGPU(t *testing.T) {
	p := loadSmall(t)
	res, err := compiler.Compile(context.Background(), smallModel, compiler.Options{Dense: true, StopAfter: compiler.StageFuseDense})
	if err != nil {
		t.Fatal(err)
	}
	sig, err := SignatureOf(res.Module, res, []string{"prediction"})
	if err != nil {
		t.Fatal(err)
	}
	sim := cuda.NewSim()
	sim.Deferred = true
	simKernels(t, sim, res.Module)
	simKernels(t, sim, densekern.Module(all.NewContext()))
	drv, err := sim.Driver()
	if err != nil {
		t.Fatal(err)
	}
	cctx, err := drv.NewContext(0)
	if err != nil {
		t.Fatal(err)
	}
	defer cctx.Close()
	s, err := session.New(context.Background(), session.Program{Context: res.Context, Module: res.Module}, []byte("simulated PTX"),
		session.Options{Outputs: []string{"prediction"}, Interp: p.opts, CUDA: cctx, Slots: 2, Dense: session.DenseGenerated, Poison: true, BatchSizes: 8})
	if err != nil {
		t.Fatal(err)
	}
	g := &gated{Backend: NewSessionBackend(s, "simulated"), gate: make(chan struct{}), started: make(chan struct{}, 1)}
	f := start(t, func(c *Config) {
		c.Backend = g
		c.Signature = sig
		c.Batch = BatchOptions{MaxBatch: 64, InFlight: 1, Sizes: PowersOfTwo(64)}
	})
	first := make(chan error, 1)
	go func() {
		feeds := p.feeds(t, 3, 300)
		code, body := f.post(t, "/v1/models/small:predict", instancesBody(t, feeds, false))
		if code != 200 {
			first <- fmt.Errorf("%d %s", code, body)
		}
		close(first)
	}()
	<-g.started
	var wg sync.WaitGroup
	const clients = 6
	errs := make([]error, clients)
	for i := range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			feeds := p.feeds(t, 1+2*i, uint64(301+i))
			want := p.want(t, feeds)
			code, body := f.post(t, "/v1/models/small:predict", instancesBody(t, feeds, false))
			var r struct{ Predictions [][]float32 }
			if code != 200 || json.Unmarshal(body, &r) != nil {
				errs[i] = fmt.Errorf("client %d: %d %s", i, code, body)
				return
			}
			for j, w := range want.Float32s() {
				g := r.Predictions[j][0]
				if math.IsNaN(float64(g)) || math.Abs(float64(g-w)) > 1e-6+1e-5*math.Abs(float64(w)) {
					errs[i] = fmt.Errorf("client %d: row %d is %v, the interpreter gives %v", i, j, g, w)
					return
				}
			}
		}()
	}
	waitCollected(f.srv.batcher, clients)
	close(g.gate)
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			t.Error(err)
		}
	}
	if err := <-first; err != nil {
		t.Error(err)
	}
	if err := f.stop(t); err != nil {
		t.Fatal(err)
	}
	if err := sim.Err(); err != nil {
		t.Fatalf("simulator: %v", err)
	}
	// 3 rows padded to 4, then 1+3+5+7+9+11 = 36 rows padded to 64 (the
	// server is stopped: its registry is read directly).
	var b strings.Builder
	mfs, err := f.srv.met.reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, mf := range mfs {
		if mf.GetName() == "recom_serve_batch_padding_rows_total" {
			fmt.Fprint(&b, mf.GetMetric()[0].GetCounter().GetValue())
		}
	}
	if b.String() != "29" {
		t.Errorf("padding rows %s, want 1 + 28", b.String())
	}
	if c := sim.Counts(); c.Allocs != 0 || c.HostAllocs != 0 {
		t.Errorf("the session leaked %d device and %d pinned allocations", c.Allocs, c.HostAllocs)
	}
}
