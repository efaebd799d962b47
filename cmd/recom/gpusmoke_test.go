package main

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/recom-compiler/recom/backend/llc/llctest"
	"github.com/recom-compiler/recom/dialects/all"
	"github.com/recom-compiler/recom/dialects/gpu"
	"github.com/recom-compiler/recom/runtime/cuda"
	"github.com/recom-compiler/recom/textir"
)

// smokeKernel compiles the embedded kernel name for the gpu simulator.
func smokeKernel(t *testing.T, name string) *gpu.Kernel {
	t.Helper()
	ctx := all.NewContext()
	m, err := textir.Parse(ctx, "gpusmoke.mlir", gpuSmokeKernels)
	if err != nil {
		t.Fatal(err)
	}
	if err := textir.Verify(ctx, m); err != nil {
		t.Fatal(err)
	}
	var fn *textir.Operation
	m.Walk(func(op *textir.Operation) bool {
		if n, ok := textir.SymbolName(op); ok && n == name && op.Name() == gpu.FuncOp {
			fn = op
		}
		return true
	})
	if fn == nil {
		t.Fatalf("no kernel %s", name)
	}
	k, err := gpu.Compile(fn)
	if err != nil {
		t.Fatal(err)
	}
	return k
}

func le[T int64 | float32](v []T) []byte {
	var b bytes.Buffer
	binary.Write(&b, binary.LittleEndian, v)
	return b.Bytes()
}

func leF32(b []byte) []float32 {
	v := make([]float32, len(b)/4)
	for i := range v {
		v[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:]))
	}
	return v
}

// TestGPUSmokeKernelsSimulated runs the smoke kernels in the gpu dialect's
// simulator and compares them with the CPU computations the smoke test
// checks the GPU against: both sides of the GPU check are checked here.
func TestGPUSmokeKernelsSimulated(t *testing.T) {
	for _, tc := range []struct {
		bags, rows  int64
		dim, maxLen int
		block       int64
	}{
		{bags: 37, rows: 50, dim: 16, maxLen: 6, block: 32},
		{bags: 64, rows: 9, dim: 4, maxLen: 3, block: 256},
		{bags: 5, rows: 3, dim: 8, maxLen: 0, block: 16}, // all bags empty
	} {
		in := genBags(rand.New(rand.NewPCG(uint64(tc.bags), 1)), tc.bags, tc.rows, tc.dim, tc.maxLen)
		want := cpuBagSum(in)
		if in.offsets[1] != 0 || in.offsets[tc.bags] != in.offsets[tc.bags-1] {
			t.Errorf("the first and last bags must be empty")
		}
		out := bytes.Repeat([]byte{0xff}, 4*len(want))
		d4 := int64(tc.dim / 4)
		grid := (tc.bags*d4 + tc.block - 1) / tc.block
		args := []any{gpu.Buf{Data: le(in.offsets)}, gpu.Buf{Data: le(append(in.ids, 0))}, gpu.Buf{Data: le(in.table)},
			gpu.Buf{Data: out}, tc.bags, d4}
		if err := smokeKernel(t, "bag_sum").Launch(grid, tc.block, args, nil); err != nil {
			t.Fatal(err)
		}
		if bad, first, _ := mismatch(leF32(out), want, 1e-6); bad > 0 {
			t.Errorf("bag_sum %+v: %d mismatches, first at %d: %v want %v", tc, bad, first, leF32(out)[first], want[first])
		}
	}
	n := int64(1000)
	a, b := make([]float32, n), make([]float32, n)
	for i := range a {
		a[i], b[i] = float32(i), float32(2*i)+0.5
	}
	c := bytes.Repeat([]byte{0xff}, 4*int(n))
	if err := smokeKernel(t, "vadd4").Launch((n/4+63)/64, 64, []any{gpu.Buf{Data: le(a)}, gpu.Buf{Data: le(b)}, gpu.Buf{Data: c}, n}, nil); err != nil {
		t.Fatal(err)
	}
	for i, v := range leF32(c) {
		if v != a[i]+b[i] {
			t.Fatalf("vadd4[%d] = %v, want %v", i, v, a[i]+b[i])
		}
	}
}

func TestMismatch(t *testing.T) {
	nan := float32(math.NaN())
	for _, tc := range []struct {
		got, want []float32
		tol       float64
		bad, idx  int
	}{
		{[]float32{1, 2}, []float32{1, 2}, 0, 0, -1},
		{[]float32{1, 2.5}, []float32{1, 2}, 0.1, 1, 1},
		{[]float32{100.0001, 2}, []float32{100, 2}, 1e-5, 0, -1},
		{[]float32{nan, nan}, []float32{0, 1}, 1, 2, 0},
	} {
		bad, idx, _ := mismatch(tc.got, tc.want, tc.tol)
		if bad != tc.bad || idx != tc.idx {
			t.Errorf("mismatch(%v, %v) = %d at %d, want %d at %d", tc.got, tc.want, bad, idx, tc.bad, tc.idx)
		}
	}
}

// TestGPUSmokeEmitPTX makes the PTX the device run loads (llc-19 is needed:
// skipped without it, except under CI=true).
func TestGPUSmokeEmitPTX(t *testing.T) {
	llctest.Need(t)
	path := filepath.Join(t.TempDir(), "smoke.ptx")
	var stdout, stderr bytes.Buffer
	if st := run([]string{"gpu-smoke", "--emit-ptx", path}, nil, &stdout, &stderr); st != 0 {
		t.Fatalf("status %d: %s", st, stderr.String())
	}
	ptx, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{".entry vadd4(", ".entry bag_sum(", "ld.global.nc.v4.f32", "st.global.v4.f32", "div.u64"} {
		if !bytes.Contains(ptx, []byte(want)) {
			t.Errorf("the PTX lacks %q", want)
		}
	}
	if _, err := gpuSmokePTX(context.Background(), "sm_90"); err != nil {
		t.Fatal(err)
	}
}

// TestGPUSmokeNoDriver: without libcuda.so.1 the command says so and exits 1.
func TestGPUSmokeNoDriver(t *testing.T) {
	var stdout, stderr bytes.Buffer
	st := run([]string{"gpu-smoke", "--n", "4", "--bags", "2", "--rows", "2", "--iters", "1"}, nil, &stdout, &stderr)
	if _, err := cuda.Open(); !errors.Is(err, cuda.ErrNoDriver) {
		t.Logf("a CUDA driver is here (Open: %v): status %d\n%s%s", err, st, stdout.String(), stderr.String())
		return
	}
	if st != 1 || !strings.Contains(stderr.String(), "recom: error: no CUDA driver: libcuda.so.1 not found") {
		t.Errorf("status %d, stderr %q", st, stderr.String())
	}
	st = run([]string{"gpu-smoke", "--dim", "6"}, nil, &stdout, &stderr)
	if st != 1 || !strings.Contains(stderr.String(), "multiples of 4") {
		t.Errorf("bad --dim: status %d, stderr %q", st, stderr.String())
	}
}

// TestQueuedMedian: every launch is timed between its own pair of events
// and all of them run (a memset per launch on the simulated driver); the
// order of the events and launches is the one the device sees.
func TestQueuedMedian(t *testing.T) {
	sim := cuda.NewSim()
	sim.Deferred = true
	c, err := sim.NewContext()
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	s, err := c.NewStream()
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	d, err := c.Alloc(4 * 8)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	n := 0
	if _, err := queuedMedian(c, s, 8, func(it int) error {
		n++
		return d.Memset32Async(uint32(it), s)
	}); err != nil {
		t.Fatal(err)
	}
	got := make([]uint32, 8)
	if err := cuda.CopyFromDevice(got, d); err != nil {
		t.Fatal(err)
	}
	if n != 8 || got[0] != 7 {
		t.Errorf("launched %d times, memory %v: want 8 launches, the last one's value", n, got)
	}
	if _, err := queuedMedian(c, s, 0, func(int) error { return nil }); err == nil {
		t.Error("no launches: want an error")
	}
}
