package cuda

import (
	"encoding/binary"
	"errors"
	"math"
	"slices"
	"strings"
	"testing"
	"time"
)

// openFake returns a context of a fake GPU with a kernel axpy(y, x, a
// float32, n i32) and a kernel fill(p, v i64, n i64).
func openFake(t *testing.T, g *fakeGPU) *Context {
	t.Helper()
	g.addKernel("axpy", []uint64{8, 8, 4, 4}, func(g *fakeGPU, grid, block uint32, args []uint64) {
		n := uint64(uint32(args[3]))
		y, x := g.find(args[0], 4*n), g.find(args[1], 4*n)
		a := math.Float32frombits(uint32(args[2]))
		for i := uint64(0); i < n; i++ {
			yi := math.Float32frombits(binary.LittleEndian.Uint32(y[4*i:]))
			xi := math.Float32frombits(binary.LittleEndian.Uint32(x[4*i:]))
			binary.LittleEndian.PutUint32(y[4*i:], math.Float32bits(yi+a*xi))
		}
	})
	g.addKernel("fill", []uint64{8, 8, 8}, func(g *fakeGPU, grid, block uint32, args []uint64) {
		n := args[2]
		p := g.find(args[0], 8*n)
		for i := uint64(0); i < n; i++ {
			binary.LittleEndian.PutUint64(p[8*i:], args[1])
		}
	})
	d, err := newDriver(g.api())
	if err != nil {
		t.Fatal(err)
	}
	if d.Version() != 13000 {
		t.Errorf("version %d", d.Version())
	}
	c, err := d.NewContext(0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

func TestDevice(t *testing.T) {
	g := newFakeGPU()
	c := openFake(t, g)
	dev := c.Device()
	want := "Fake H200 (sm_90, 132 SMs, 141.0 GiB, 60 MiB L2)"
	if dev.String() != want {
		t.Errorf("device %q, want %q", dev, want)
	}
	if g.retained != 1 {
		t.Errorf("retained %d", g.retained)
	}
	if err := c.Close(); err != nil || c.Close() != nil || g.retained != 0 {
		t.Errorf("close: %v, retained %d", err, g.retained)
	}
	if _, err := c.Alloc(4); err == nil || !strings.Contains(err.Error(), "use of closed Context") {
		t.Errorf("alloc on a closed context: %v", err)
	}
	d, _ := newDriver(g.api())
	if _, err := d.NewContext(3); err == nil || err.Error() != "cuda: device 3: cuDeviceGet: CUDA_ERROR_INVALID_VALUE: invalid argument" {
		t.Errorf("device 3: %v", err)
	}
}

func TestModule(t *testing.T) {
	g := newFakeGPU()
	c := openFake(t, g)
	m, err := c.LoadModule([]byte(".version 8.5\n.target sm_90\n"))
	if err != nil {
		t.Fatal(err)
	}
	if m.InfoLog() != "ptxas info    : Used 16 registers" {
		t.Errorf("info log %q", m.InfoLog())
	}
	if !slices.Equal(g.lastOpts, []int32{jitInfoLogBuffer, jitInfoLogBufferBytes, jitErrorLogBuffer, jitErrorLogBufferBytes, jitLogVerbose}) {
		t.Errorf("JIT options %v", g.lastOpts)
	}
	if g.modules[m.mod] != "PTX" {
		t.Errorf("module kind %q", g.modules[m.mod])
	}
	f, err := m.Function("axpy")
	if err != nil {
		t.Fatal(err)
	}
	if f.NumParams() != 4 || f.Name() != "axpy" {
		t.Errorf("params %d", f.NumParams())
	}
	if r, err := f.Attribute(FuncNumRegs); err != nil || r != 16 {
		t.Errorf("registers %d, %v", r, err)
	}
	if _, err := m.Function("nope"); err == nil || err.Error() != `cuda: function "nope": cuModuleGetFunction: CUDA_ERROR_NOT_FOUND: named symbol not found` {
		t.Errorf("missing function: %v", err)
	}
	if err := m.Close(); err != nil || m.Close() != nil || len(g.modules) != 0 {
		t.Errorf("close: %v", err)
	}
	if err := f.Launch(Dim(1), Dim(1), 0, nil); err == nil || !strings.Contains(err.Error(), "use of closed Module") {
		t.Errorf("launch of an unloaded function: %v", err)
	}
	cubin, err := c.LoadModule([]byte("\x7fELF\x02\x01"))
	if err != nil || g.modules[cubin.mod] != "cubin" {
		t.Errorf("cubin: %v", err)
	}
	if _, err := c.LoadModule(nil); err == nil {
		t.Error("empty image accepted")
	}
	g.failPTX = true
	_, err = c.LoadModule([]byte("bogus"))
	want := "cuda: load module (PTX, 5 bytes): cuModuleLoadDataEx: CUDA_ERROR_INVALID_PTX: a PTX JIT compilation failed\n" +
		"JIT error log:\nptxas application ptx input, line 7; error   : Unknown symbol 'bogus'"
	if err == nil || err.Error() != want {
		t.Errorf("bad PTX:\n%v\nwant\n%s", err, want)
	}
}

func TestMemoryAndLaunch(t *testing.T) {
	g := newFakeGPU()
	c := openFake(t, g)
	m, err := c.LoadModule([]byte("ptx"))
	if err != nil {
		t.Fatal(err)
	}
	axpy, _ := m.Function("axpy")
	x, err := c.Alloc(16)
	if err != nil {
		t.Fatal(err)
	}
	y, _ := c.Alloc(16)
	if err := CopyToDevice(x, []float32{1, 2, 3, 4}); err != nil {
		t.Fatal(err)
	}
	if err := y.Memset32(math.Float32bits(10)); err != nil {
		t.Fatal(err)
	}
	if err := axpy.Launch(Dim(1), Dim(4), 0, nil, y, x, float32(2), int32(4)); err != nil {
		t.Fatal(err)
	}
	got := make([]float32, 4)
	if err := CopyFromDevice(got, y); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(got, []float32{12, 14, 16, 18}) {
		t.Errorf("y = %v", got)
	}
	// Arguments checked against the kernel's parameters.
	err = axpy.Launch(Dim(1), Dim(4), 0, nil, y, x, float32(2), int64(4))
	if err == nil || err.Error() != "cuda: launch axpy: argument 3 is 8 bytes, but the kernel's parameter 3 is 4 bytes" {
		t.Errorf("wrong width: %v", err)
	}
	if err := axpy.Launch(Dim(1), Dim(4), 0, nil, y, x); err == nil || !strings.Contains(err.Error(), "takes 4 parameters, got 2") {
		t.Errorf("too few: %v", err)
	}
	if err := axpy.Launch(Dim(0), Dim(4), 0, nil, y, x, float32(2), int32(4)); err == nil {
		t.Error("empty grid accepted")
	}
	// Bounds of copies.
	if err := CopyToDevice(x, make([]float64, 3)); err == nil || err.Error() != "cuda: copy 24 bytes to the device: 24 bytes do not fit the 16-byte allocation" {
		t.Errorf("overflow: %v", err)
	}
	// Device to device, async, memset8.
	s, err := c.NewStream()
	if err != nil {
		t.Fatal(err)
	}
	if err := x.CopyFromAsync(y, 8, s); err != nil {
		t.Fatal(err)
	}
	if err := CopyFromDeviceAsync(got, x, s); err != nil || s.Synchronize() != nil {
		t.Fatal(err)
	}
	if !slices.Equal(got, []float32{12, 14, 3, 4}) {
		t.Errorf("x = %v", got)
	}
	if err := x.Memset8(0); err != nil || x.CopyFrom(y, 16) != nil || CopyToDeviceAsync(y, []float32{0}, s) != nil {
		t.Fatal("memset8, copy or async copy failed")
	}
	if err := CopyFromDevice(got, x); err != nil || !slices.Equal(got, []float32{12, 14, 16, 18}) {
		t.Errorf("x = %v, %v", got, err)
	}
	if _, err := c.Alloc(2 << 30); err == nil || !strings.Contains(err.Error(), "cuda: alloc 2147483648 bytes: cuMemAlloc_v2: CUDA_ERROR_OUT_OF_MEMORY") {
		t.Errorf("oom: %v", err)
	}
	if err := x.Close(); err != nil || x.Close() != nil {
		t.Errorf("free: %v", err)
	}
	if err := CopyToDevice(x, got); err == nil || !strings.Contains(err.Error(), "use of closed DevicePtr") {
		t.Errorf("use after free: %v", err)
	}
	if err := axpy.Launch(Dim(1), Dim(4), 0, nil, y, x, float32(2), int32(4)); err == nil {
		t.Error("launch with a freed pointer accepted")
	}
	y.Close()
	s.Close()
	if len(g.mem) != 0 {
		t.Errorf("leaked %d allocations", len(g.mem))
	}
}

func TestGraphAndEvents(t *testing.T) {
	g := newFakeGPU()
	c := openFake(t, g)
	m, _ := c.LoadModule([]byte("ptx"))
	fill, _ := m.Function("fill")
	p, _ := c.Alloc(64)
	s, _ := c.NewStream()
	if err := s.BeginCapture(); err != nil {
		t.Fatal(err)
	}
	if err := p.Memset8Async(0, s); err != nil {
		t.Fatal(err)
	}
	if err := fill.Launch(Dim(1), Dim(32), 0, s, p, int64(7), int64(8)); err != nil {
		t.Fatal(err)
	}
	graph, err := s.EndCapture()
	if err != nil {
		t.Fatal(err)
	}
	if graph.Nodes() != 2 || g.launches != 0 {
		t.Fatalf("nodes %d, launches while capturing %d", graph.Nodes(), g.launches)
	}
	start, _ := c.NewEvent()
	end, _ := c.NewEvent()
	for range 3 {
		if err := start.Record(s); err != nil {
			t.Fatal(err)
		}
		if err := graph.Launch(s); err != nil {
			t.Fatal(err)
		}
		if err := end.Record(s); err != nil || end.Synchronize() != nil {
			t.Fatal(err)
		}
	}
	if g.launches != 3 {
		t.Errorf("launches %d", g.launches)
	}
	d, err := Elapsed(start, end)
	if err != nil || d != 12500*time.Nanosecond {
		t.Errorf("elapsed %v, %v", d, err)
	}
	// The same with the events recorded under the launch's one hold of
	// the context.
	done, _ := c.NewSyncEvent()
	if err := graph.LaunchRecording(s, start, end, done); err != nil || done.Synchronize() != nil {
		t.Fatal(err)
	}
	if err := graph.LaunchRecording(s, nil, done); err != nil || done.Synchronize() != nil {
		t.Fatal(err)
	}
	if g.launches != 5 {
		t.Errorf("launches %d, want 5", g.launches)
	}
	if d, err := Elapsed(start, end); err != nil || d != 12500*time.Nanosecond {
		t.Errorf("elapsed %v, %v", d, err)
	}
	done.Close()
	if err := graph.LaunchRecording(s, nil, done); err == nil || !strings.Contains(err.Error(), "use of closed Event") {
		t.Errorf("closed event: %v", err)
	}
	if g.launches != 5 {
		t.Errorf("a launch with a closed event ran: %d", g.launches)
	}
	got := make([]int64, 8)
	if err := CopyFromDevice(got, p); err != nil || got[7] != 7 {
		t.Errorf("filled %v, %v", got, err)
	}
	if err := graph.Close(); err != nil || graph.Close() != nil || len(g.execs)+len(g.graphs) != 0 {
		t.Errorf("graph close: %v", err)
	}
	if err := graph.Launch(s); err == nil {
		t.Error("launch of a closed graph")
	}
	// Capture of the legacy default stream is refused by the driver; a
	// nil *Stream is an error here.
	var nilStream *Stream
	if err := nilStream.BeginCapture(); err == nil {
		t.Error("capture of a nil stream")
	}
	start.Close()
	if _, err := Elapsed(start, end); err == nil || !strings.Contains(err.Error(), "use of closed Event") {
		t.Errorf("closed event: %v", err)
	}
	s.Close()
	if err := fill.Launch(Dim(1), Dim(1), 0, s, p, int64(0), int64(0)); err == nil || !strings.Contains(err.Error(), "use of closed Stream") {
		t.Errorf("closed stream: %v", err)
	}
}

// TestNoParamInfo: an older driver without cuFuncGetParamInfo launches
// unchecked.
func TestNoParamInfo(t *testing.T) {
	g := newFakeGPU()
	g.noParams = true
	c := openFake(t, g)
	m, _ := c.LoadModule([]byte("ptx"))
	fill, _ := m.Function("fill")
	if fill.NumParams() != -1 {
		t.Errorf("params %d", fill.NumParams())
	}
	p, _ := c.Alloc(8)
	if err := fill.Launch(Dim(1), Dim(1), 0, nil, p, int64(5), int64(1)); err != nil {
		t.Fatal(err)
	}
}

// TestCurrentAndHandle: the accessors for libraries that use the current
// context and take raw stream handles (runtime/cublaslt).
func TestCurrentAndHandle(t *testing.T) {
	g := newFakeGPU()
	c := openFake(t, g)
	g.current = 0
	ran := false
	if err := c.Current(func() error { ran = g.current == 0xc0; return nil }); err != nil || !ran {
		t.Errorf("Current: %v, context current while f ran: %v", err, ran)
	}
	want := errors.New("f failed")
	if err := c.Current(func() error { return want }); err != want {
		t.Errorf("Current returned %v, want f's error as it is", err)
	}
	s, err := c.NewStream()
	if err != nil {
		t.Fatal(err)
	}
	if h, err := s.Handle(); err != nil || h != s.s || h == 0 {
		t.Errorf("Handle = %#x, %v, want %#x", h, err, s.s)
	}
	if h, err := (*Stream)(nil).Handle(); err != nil || h != 0 {
		t.Errorf("nil stream: %#x, %v, want the legacy default stream 0", h, err)
	}
	s.Close()
	if _, err := s.Handle(); err == nil || err.Error() != "cuda: stream handle: cuda: use of closed Stream" {
		t.Errorf("closed stream: %v", err)
	}
	c.Close()
	if err := c.Current(func() error { t.Error("f ran on a closed context"); return nil }); err == nil ||
		!strings.Contains(err.Error(), "use of closed Context") {
		t.Errorf("Current on a closed context: %v", err)
	}
}
