package cuda

import (
	"errors"
	"math"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"
	"unsafe"
)

// openGPU opens the real driver and device 0. Without a driver (no
// libcuda.so.1: CI, this repository's build machines) the test is skipped
// and says why, unless RECOM_GPU=1 demands a GPU. Any other failure, and
// every check once a driver is there, fails the test: nothing that can
// run is skipped.
func openGPU(t *testing.T) *Context {
	t.Helper()
	d, err := Open()
	if errors.Is(err, ErrNoDriver) && os.Getenv("RECOM_GPU") != "1" {
		t.Skipf("%v: the GPU tests need the CUDA driver (set RECOM_GPU=1 to make its absence a failure)", err)
	}
	if err != nil {
		t.Fatal(err)
	}
	c, err := d.NewContext(0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := c.Close(); err != nil {
			t.Error(err)
		}
	})
	t.Logf("driver %d, %v", d.Version(), c.Device())
	return c
}

func loadPTX(t *testing.T, c *Context, name string) *Module {
	t.Helper()
	src, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	m, err := c.LoadModule(src)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := m.Close(); err != nil {
			t.Error(err)
		}
	})
	return m
}

func TestGPUAxpy(t *testing.T) {
	c := openGPU(t)
	m := loadPTX(t, c, "axpy.ptx")
	t.Logf("JIT info log: %s", m.InfoLog())
	f, err := m.Function("axpy")
	if err != nil {
		t.Fatal(err)
	}
	if f.NumParams() != 4 && f.NumParams() != -1 {
		t.Errorf("axpy has %d parameters, want 4", f.NumParams())
	}
	regs, err := f.Attribute(FuncNumRegs)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("axpy: %d registers", regs)
	const n = 1<<20 + 3
	x := make([]float32, n)
	y := make([]float32, n)
	for i := range x {
		x[i] = float32(i % 1000)
		y[i] = float32(i % 7)
	}
	dx, err := c.Alloc(4 * n)
	if err != nil {
		t.Fatal(err)
	}
	defer dx.Close()
	dy, err := c.Alloc(4 * n)
	if err != nil {
		t.Fatal(err)
	}
	defer dy.Close()
	if err := CopyToDevice(dx, x); err != nil {
		t.Fatal(err)
	}
	if err := CopyToDevice(dy, y); err != nil {
		t.Fatal(err)
	}
	if err := f.Launch(Dim((n+255)/256), Dim(256), 0, nil, dy, dx, float32(0.5), uint32(n)); err != nil {
		t.Fatal(err)
	}
	got := make([]float32, n)
	if err := CopyFromDevice(got, dy); err != nil {
		t.Fatal(err)
	}
	for i := range got {
		if want := y[i] + 0.5*x[i]; got[i] != want {
			t.Fatalf("y[%d] = %v, want %v", i, got[i], want)
		}
	}
	// A wrong argument width is caught before the launch.
	err = f.Launch(Dim(1), Dim(1), 0, nil, dy, dx, float32(0.5), int64(n))
	if f.NumParams() == 4 && (err == nil || !strings.Contains(err.Error(), "argument 3 is 8 bytes, but the kernel's parameter 3 is 4 bytes")) {
		t.Errorf("wrong width: %v", err)
	}
	// Memset, device-to-device and async copies on a stream.
	s, err := c.NewStream()
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if err := dy.Memset32Async(math.Float32bits(1), s); err != nil {
		t.Fatal(err)
	}
	if err := dx.CopyFromAsync(dy, 4*n, s); err != nil {
		t.Fatal(err)
	}
	if err := CopyFromDeviceAsync(got, dx, s); err != nil {
		t.Fatal(err)
	}
	if err := s.Synchronize(); err != nil {
		t.Fatal(err)
	}
	if got[0] != 1 || got[n-1] != 1 {
		t.Errorf("after memset and copy: %v %v", got[0], got[n-1])
	}
	if err := dy.Memset8(0); err != nil || dx.CopyFrom(dy, 8) != nil || CopyToDeviceAsync(dy, x[:4], s) != nil || c.Synchronize() != nil {
		t.Fatal("memset8, copy or synchronize failed")
	}
}

func TestGPUBadPTX(t *testing.T) {
	c := openGPU(t)
	src, err := os.ReadFile(filepath.Join("testdata", "bad.ptx"))
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.LoadModule(src)
	if err == nil {
		t.Fatal("bad PTX loaded")
	}
	t.Logf("bad PTX: %v", err)
	if Code(err) != ErrorInvalidPTX || !strings.Contains(err.Error(), "CUDA_ERROR_INVALID_PTX") ||
		!strings.Contains(err.Error(), "JIT error log:") || !strings.Contains(err.Error(), "bogus") {
		t.Errorf("the error lacks the driver's name or the JIT log: %v", err)
	}
	// An error of the driver carries its name and text.
	if _, err := c.Alloc(1 << 50); Code(err) != ErrorOutOfMemory || !strings.Contains(err.Error(), "CUDA_ERROR_OUT_OF_MEMORY: out of memory") {
		t.Errorf("huge alloc: %v", err)
	}
}

func TestGPUGraph(t *testing.T) {
	c := openGPU(t)
	m := loadPTX(t, c, "axpy.ptx")
	f, err := m.Function("axpy")
	if err != nil {
		t.Fatal(err)
	}
	const n = 1 << 16
	dx, _ := c.Alloc(4 * n)
	dy, _ := c.Alloc(4 * n)
	defer dx.Close()
	defer dy.Close()
	if err := dx.Memset32(math.Float32bits(1)); err != nil {
		t.Fatal(err)
	}
	if err := dy.Memset32(0); err != nil {
		t.Fatal(err)
	}
	s, err := c.NewStream()
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if err := s.BeginCapture(); err != nil {
		t.Fatal(err)
	}
	const perGraph = 10
	for range perGraph {
		if err := f.Launch(Dim(n/256), Dim(256), 0, s, dy, dx, float32(1), uint32(n)); err != nil {
			t.Fatal(err)
		}
	}
	g, err := s.EndCapture()
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	if g.Nodes() != perGraph {
		t.Errorf("graph of %d nodes, want %d", g.Nodes(), perGraph)
	}
	start, _ := c.NewEvent()
	end, _ := c.NewEvent()
	defer start.Close()
	defer end.Close()
	const replays = 20
	var times []time.Duration
	for range replays {
		if err := start.Record(s); err != nil {
			t.Fatal(err)
		}
		if err := g.Launch(s); err != nil {
			t.Fatal(err)
		}
		if err := end.Record(s); err != nil {
			t.Fatal(err)
		}
		if err := end.Synchronize(); err != nil {
			t.Fatal(err)
		}
		d, err := Elapsed(start, end)
		if err != nil {
			t.Fatal(err)
		}
		times = append(times, d)
	}
	sort.Slice(times, func(i, j int) bool { return times[i] < times[j] })
	t.Logf("replay of a %d-kernel graph: median %v", perGraph, times[len(times)/2])
	got := make([]float32, n)
	if err := CopyFromDevice(got, dy); err != nil {
		t.Fatal(err)
	}
	if want := float32(perGraph * replays); got[0] != want || got[n-1] != want || slices.Max(got) != want {
		t.Errorf("y = %v..%v, want %v", got[0], got[n-1], want)
	}
}

// TestGPUPinnedGraph: copies with pinned host memory captured into a
// graph with a kernel, on a non-blocking stream; every replay copies what
// the pinned input holds then, and the pinned output holds the result
// once an event recorded after the replay has happened.
func TestGPUPinnedGraph(t *testing.T) {
	c := openGPU(t)
	m := loadPTX(t, c, "axpy.ptx")
	f, err := m.Function("axpy")
	if err != nil {
		t.Fatal(err)
	}
	const n = 1 << 12
	in, err := c.AllocHost(4 * n)
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	out, err := c.AllocHost(4 * n)
	if err != nil {
		t.Fatal(err)
	}
	defer out.Close()
	dx, _ := c.Alloc(4 * n)
	dy, _ := c.Alloc(4 * n)
	defer dx.Close()
	defer dy.Close()
	s, err := c.NewNonBlockingStream()
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	done, err := c.NewSyncEvent()
	if err != nil {
		t.Fatal(err)
	}
	defer done.Close()
	if err := s.BeginCapture(); err != nil {
		t.Fatal(err)
	}
	for i, err := range []error{
		CopyHostToDeviceAsync(dx, 0, in, 0, 4*n, s),
		dy.Memset32Async(math.Float32bits(1), s),
		f.Launch(Dim(n/256), Dim(256), 0, s, dy, dx, float32(2), uint32(n)),
		CopyDeviceToHostAsync(out, 0, dy, 0, 4*n, s),
	} {
		if err != nil {
			t.Fatalf("capture step %d: %v", i, err)
		}
	}
	g, err := s.EndCapture()
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	if g.Nodes() != 4 {
		t.Errorf("graph of %d nodes, want 4", g.Nodes())
	}
	x := unsafeFloats(in.Bytes())
	y := unsafeFloats(out.Bytes())
	for r := range 3 {
		for i := range x {
			x[i] = float32(i%100 + r)
		}
		if err := g.Launch(s); err != nil {
			t.Fatal(err)
		}
		if err := done.Record(s); err != nil {
			t.Fatal(err)
		}
		if err := done.Synchronize(); err != nil {
			t.Fatal(err)
		}
		for i := range y {
			if want := 1 + 2*x[i]; y[i] != want {
				t.Fatalf("replay %d: y[%d] = %v, want %v", r, i, y[i], want)
			}
		}
	}
}

func unsafeFloats(b []byte) []float32 {
	return unsafe.Slice((*float32)(unsafe.Pointer(&b[0])), len(b)/4)
}
