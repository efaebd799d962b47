package cublaslt

import (
	"errors"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/recom-compiler/recom/runtime/cuda"
)

// The simulated library on a simulated driver: products run in stream
// order when the stream runs (Deferred), are captured into graphs and
// replayed, and a product over memory that is not the device's faults the
// device when it runs.
func TestSimOnCUDASim(t *testing.T) {
	dev := cuda.NewSim()
	dev.Deferred = true
	drv, err := dev.Driver()
	if err != nil {
		t.Fatal(err)
	}
	ctx, err := drv.NewContext(0)
	if err != nil {
		t.Fatal(err)
	}
	defer ctx.Close()
	sim := NewSim(dev)
	sim.SetWorkspace(512)
	lib := sim.Library()
	if lib.Path() != "simulated" || lib.Version() != 130100 {
		t.Errorf("library %v", lib)
	}
	h, err := lib.NewHandle(ctx)
	if err != nil {
		t.Fatal(err)
	}
	gm := GEMM{B: 3, K: 4, N: 5, Precision: BF16, Epilogue: EpilogueReLUBias}
	p, err := h.NewPlan(gm)
	if err != nil {
		t.Fatal(err)
	}
	hg := newHostGEMM(gm, rand.New(rand.NewPCG(7, 8)))
	alloc := func(n int64) *cuda.DevicePtr {
		d, err := ctx.Alloc(n)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { d.Close() })
		return d
	}
	x, w, bias, y, ws := alloc(3*4*2), alloc(4*5*2), alloc(5*4), alloc(3*5*4), alloc(512)
	if err := errors.Join(cuda.CopyToDevice(x, ToBF16(hg.x)), cuda.CopyToDevice(w, ToBF16(hg.w)), cuda.CopyToDevice(bias, hg.bias)); err != nil {
		t.Fatal(err)
	}
	s, err := ctx.NewNonBlockingStream()
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	o := Operands{X: x, W: w, Bias: bias, Y: y, Workspace: ws}
	check := func(what string) {
		t.Helper()
		got := make([]float32, 15)
		if err := cuda.CopyFromDevice(got, y); err != nil {
			t.Fatal(err)
		}
		ref := hg.rounded()
		for b := range int64(3) {
			for n, v := range ref.row(b) {
				if g := got[b*5+int64(n)]; g != store(gm, v) {
					t.Fatalf("%s: Y[%d][%d] = %v, want %v", what, b, n, g, store(gm, v))
				}
			}
		}
	}
	// Enqueued, not run until the stream is waited for.
	if err := errors.Join(y.Memset8(0xff), p.Run(s, o)); err != nil {
		t.Fatal(err)
	}
	if sim.Matmuls() != 1 || dev.Counts().Launches != 0 {
		t.Errorf("%d products enqueued, %d run before the wait; want 1 and 0", sim.Matmuls(), dev.Counts().Launches)
	}
	if err := s.Synchronize(); err != nil {
		t.Fatal(err)
	}
	check("run")
	// Captured and replayed.
	if err := y.Memset8(0xff); err != nil {
		t.Fatal(err)
	}
	if err := s.BeginCapture(); err != nil {
		t.Fatal(err)
	}
	if err := p.Run(s, o); err != nil {
		t.Fatal(err)
	}
	g, err := s.EndCapture()
	if err != nil {
		t.Fatal(err)
	}
	if got := make([]float32, 1); cuda.CopyFromDevice(got, y) != nil || !math.IsNaN(float64(got[0])) {
		t.Errorf("the captured product ran at capture: Y[0][0] = %v", got[0])
	}
	if err := errors.Join(g.Launch(s), s.Synchronize(), g.Close()); err != nil {
		t.Fatal(err)
	}
	check("replay")
	// Operands that are not device memory: the device faults.
	bogus := fakeBuf{addr: 1 << 40, size: 3 * 4 * 2}
	if err := p.Run(s, Operands{X: bogus, W: w, Bias: bias, Y: y, Workspace: ws}); err != nil {
		t.Fatal(err) // enqueued: the fault shows when it runs
	}
	if err := s.Synchronize(); err == nil || dev.Err() == nil || !strings.Contains(dev.Err().Error(), "cublasLtMatmul: matrix A 0x") {
		t.Errorf("a product over bogus memory: %v (device fault %v)", err, dev.Err())
	}
	if err := errors.Join(p.Close(), h.Close()); err != nil {
		t.Fatal(err)
	}
	if sim.Live() != 0 {
		t.Errorf("%v after closing everything", sim)
	}
}
