package cuda

import (
	"encoding/binary"
	"errors"
	"math"
	"slices"
	"strings"
	"testing"
)

// fillPinned writes v as little-endian uint32 words into b.
func fillPinned(b []byte, v ...uint32) {
	for i, x := range v {
		binary.LittleEndian.PutUint32(b[4*i:], x)
	}
}

func words(b []byte) []uint32 {
	w := make([]uint32, len(b)/4)
	for i := range w {
		w[i] = binary.LittleEndian.Uint32(b[4*i:])
	}
	return w
}

func TestHostBuffer(t *testing.T) {
	g := newFakeGPU()
	c := openFake(t, g)
	in, err := c.AllocHost(16)
	if err != nil {
		t.Fatal(err)
	}
	out, err := c.AllocHost(16)
	if err != nil {
		t.Fatal(err)
	}
	if len(in.Bytes()) != 16 || in.Size() != 16 || g.Counts().HostAllocs != 2 {
		t.Fatalf("pinned buffer of %d bytes (size %d), %d allocations", len(in.Bytes()), in.Size(), g.Counts().HostAllocs)
	}
	d, _ := c.Alloc(32)
	s, err := c.NewStream()
	if err != nil {
		t.Fatal(err)
	}
	fillPinned(in.Bytes(), 1, 2, 3, 4)
	// Bytes 4..12 of in to bytes 16..24 of d, back into out at 8.
	if err := CopyHostToDeviceAsync(d, 16, in, 4, 8, s); err != nil {
		t.Fatal(err)
	}
	if err := CopyDeviceToHostAsync(out, 8, d, 16, 8, s); err != nil {
		t.Fatal(err)
	}
	if err := s.Synchronize(); err != nil {
		t.Fatal(err)
	}
	if got := words(out.Bytes()); !slices.Equal(got, []uint32{0, 0, 2, 3}) {
		t.Errorf("out = %v", got)
	}
	if c := g.Counts(); c.CopiesToDevice != 1 || c.CopiesToHost != 1 || c.BytesToDevice != 8 || c.BytesToHost != 8 {
		t.Errorf("counts %+v", c)
	}
	for _, tc := range []struct {
		name string
		err  error
		want string
	}{
		{"host range", CopyHostToDeviceAsync(d, 0, in, 12, 8, s), "cuda: copy 8 pinned bytes to the device asynchronously: bytes [12, 20) are not inside the 16-byte host buffer"},
		{"device range", CopyHostToDeviceAsync(d, 28, in, 0, 8, s), "bytes [28, 36) are not inside the 32-byte allocation"},
		{"negative offset", CopyDeviceToHostAsync(out, -4, d, 0, 4, s), "bytes [-4, 0) are not inside the 16-byte host buffer"},
		{"nil buffer", CopyDeviceToHostAsync(nil, 0, d, 0, 4, s), "nil HostBuffer"},
	} {
		if tc.err == nil || !strings.Contains(tc.err.Error(), tc.want) {
			t.Errorf("%s: %v, want %q", tc.name, tc.err, tc.want)
		}
	}
	if _, err := c.AllocHost(0); err == nil || err.Error() != "cuda: alloc 0 bytes of pinned host memory: the size must be positive" {
		t.Errorf("empty: %v", err)
	}
	if _, err := c.AllocHost(2 << 30); err == nil || !strings.Contains(err.Error(), "cuMemHostAlloc: CUDA_ERROR_OUT_OF_MEMORY") {
		t.Errorf("huge: %v", err)
	}
	if err := in.Close(); err != nil || in.Close() != nil {
		t.Errorf("close: %v", err)
	}
	if in.Bytes() != nil {
		t.Error("Bytes of a closed buffer")
	}
	if err := CopyHostToDeviceAsync(d, 0, in, 0, 4, s); err == nil || !strings.Contains(err.Error(), "use of closed HostBuffer") {
		t.Errorf("closed buffer: %v", err)
	}
	out.Close()
	d.Close()
	s.Close()
	if c := g.Counts(); c.HostAllocs != 0 || c.Allocs != 0 {
		t.Errorf("leaked: %+v", c)
	}
}

// With Deferred streams, a copy with pinned memory reads and writes it
// when the stream runs it: a write to the source before that is what the
// device gets, and the destination shows the result only after a wait.
// A copy with pageable memory is staged at the call.
func TestDeferredCopies(t *testing.T) {
	g := newFakeGPU()
	g.Deferred = true
	c := openFake(t, g)
	in, _ := c.AllocHost(8)
	out, _ := c.AllocHost(8)
	d, _ := c.Alloc(8)
	s1, _ := c.NewStream()
	s2, _ := c.NewNonBlockingStream()
	done, err := c.NewSyncEvent()
	if err != nil {
		t.Fatal(err)
	}
	fillPinned(in.Bytes(), 1, 1)
	if err := CopyHostToDeviceAsync(d, 0, in, 0, 8, s1); err != nil {
		t.Fatal(err)
	}
	fillPinned(in.Bytes(), 7, 7) // before the copy ran: the device gets 7s
	if err := CopyDeviceToHostAsync(out, 0, d, 0, 8, s1); err != nil {
		t.Fatal(err)
	}
	if err := done.Record(s1); err != nil {
		t.Fatal(err)
	}
	if got := words(out.Bytes()); !slices.Equal(got, []uint32{0, 0}) {
		t.Errorf("out before the wait = %v", got)
	}
	// Work on another stream does not run s1's.
	if err := s2.Synchronize(); err != nil || words(out.Bytes())[0] != 0 {
		t.Errorf("s2's synchronization ran s1's work: %v %v", err, words(out.Bytes()))
	}
	if err := done.Synchronize(); err != nil {
		t.Fatal(err)
	}
	if got := words(out.Bytes()); !slices.Equal(got, []uint32{7, 7}) {
		t.Errorf("out after the wait = %v", got)
	}
	if _, err := Elapsed(done, done); Code(err) != ErrorInvalidHandle {
		t.Errorf("elapsed time of a sync event: %v", err)
	}
	// Pageable: staged when called.
	src := []uint32{5, 6}
	if err := CopyToDeviceAsync(d, src, s1); err != nil {
		t.Fatal(err)
	}
	src[0] = 9
	got := make([]uint32, 2)
	if err := CopyFromDevice(got, d); err != nil || !slices.Equal(got, []uint32{5, 6}) {
		t.Errorf("pageable copy: %v, %v", got, err)
	}
}

// A graph holds the copies with pinned memory: each replay copies what
// the buffer holds then. Pageable copies and synchronous calls that would
// wait for a blocking stream being captured are refused.
func TestCaptureCopies(t *testing.T) {
	g := newFakeGPU()
	g.Deferred = true
	c := openFake(t, g)
	m, _ := c.LoadModule([]byte("ptx"))
	axpy, _ := m.Function("axpy")
	in, _ := c.AllocHost(8)
	out, _ := c.AllocHost(8)
	x, _ := c.Alloc(8)
	y, _ := c.Alloc(8)
	s, _ := c.NewNonBlockingStream()
	if err := s.BeginCapture(); err != nil {
		t.Fatal(err)
	}
	steps := []error{
		CopyHostToDeviceAsync(x, 0, in, 0, 8, s),
		y.Memset32Async(0x3f800000, s), // 1.0
		axpy.Launch(Dim(1), Dim(2), 0, s, y, x, float32(2), int32(2)),
		CopyDeviceToHostAsync(out, 0, y, 0, 8, s),
	}
	// Allowed during the capture of a non-blocking stream: a synchronous
	// call on the legacy stream.
	steps = append(steps, x.Memset8(0))
	for i, err := range steps {
		if err != nil {
			t.Fatalf("step %d: %v", i, err)
		}
	}
	if err := CopyToDeviceAsync(x, []float32{1}, s); Code(err) != ErrorStreamCaptureUnsupp {
		t.Errorf("pageable copy in a capture: %v", err)
	}
	graph, err := s.EndCapture()
	if err != nil {
		t.Fatal(err)
	}
	defer graph.Close()
	if graph.Nodes() != 4 {
		t.Errorf("%d nodes, want 4", graph.Nodes())
	}
	for _, v := range []float32{1, 3} {
		fillPinned(in.Bytes(), f32bits(v), f32bits(-v))
		if err := graph.Launch(s); err != nil {
			t.Fatal(err)
		}
		if err := s.Synchronize(); err != nil {
			t.Fatal(err)
		}
		want := []uint32{f32bits(1 + 2*v), f32bits(1 - 2*v)}
		if got := words(out.Bytes()); !slices.Equal(got, want) {
			t.Errorf("replay with x = %v: out %v, want %v", v, got, want)
		}
	}
	if c := g.Counts(); c.GraphLaunches != 2 || c.Graphs != 1 {
		t.Errorf("counts %+v", c)
	}
	// A blocking stream's capture forbids synchronous calls meanwhile.
	b, _ := c.NewStream()
	if err := b.BeginCapture(); err != nil {
		t.Fatal(err)
	}
	if err := x.Memset8(0); Code(err) != ErrorStreamCaptureImplicit || !strings.Contains(err.Error(), "CUDA_ERROR_STREAM_CAPTURE_IMPLICIT") {
		t.Errorf("memset during the capture of a blocking stream: %v", err)
	}
	if err := b.Synchronize(); Code(err) != ErrorStreamCaptureUnsupp {
		t.Errorf("synchronize a capturing stream: %v", err)
	}
	if g2, err := b.EndCapture(); err != nil {
		t.Error(err)
	} else {
		g2.Close()
	}
}

func f32bits(f float32) uint32 { return math.Float32bits(f) }

// A kernel's fault is reported by the next synchronizations.
func TestSimFault(t *testing.T) {
	g := newFakeGPU()
	g.Deferred = true
	g.AddKernel("bad", []uint64{8}, func(s *Sim, grid, block uint32, args []uint64) {
		if s.Memory(args[0]) == nil {
			s.Fault(errors.New("bad: argument 0 is not device memory"))
		}
	})
	c := openFake(t, g)
	m, _ := c.LoadModule([]byte("ptx"))
	bad, _ := m.Function("bad")
	s, _ := c.NewStream()
	if err := bad.Launch(Dim(1), Dim(1), 0, s, uint64(8)); err != nil {
		t.Fatal(err) // enqueued: the fault shows later
	}
	if err := s.Synchronize(); Code(err) != ErrorLaunchFailed || !strings.Contains(err.Error(), "unspecified launch failure") {
		t.Errorf("synchronize after a fault: %v", err)
	}
	if err := c.Synchronize(); Code(err) != ErrorLaunchFailed {
		t.Errorf("the fault is sticky: %v", err)
	}
	if g.Err() == nil || g.Err().Error() != "bad: argument 0 is not device memory" {
		t.Errorf("Err = %v", g.Err())
	}
}

// Work a library enqueues on a raw stream runs in the stream's order, is
// captured into graphs like the stream's other work, and reports faults
// as a kernel does.
func TestSimEnqueue(t *testing.T) {
	g := newFakeGPU()
	g.Deferred = true
	if err := g.Enqueue(0, func(*Sim) {}); err == nil || !strings.Contains(err.Error(), "invalid device context") {
		t.Errorf("enqueue without a context: %v", err)
	}
	c := openFake(t, g)
	x, _ := c.Alloc(4)
	out, _ := c.AllocHost(4)
	s, _ := c.NewNonBlockingStream()
	h, err := s.Handle()
	if err != nil {
		t.Fatal(err)
	}
	if err := g.Enqueue(h+1000, func(*Sim) {}); err == nil || !strings.Contains(err.Error(), "invalid argument") {
		t.Errorf("enqueue on an unknown stream: %v", err)
	}
	double := func(s *Sim) {
		m := s.Memory(x.Addr())
		binary.LittleEndian.PutUint32(m, 2*binary.LittleEndian.Uint32(m))
	}
	// Deferred: the work runs after the copy enqueued before it, when
	// the stream is waited for.
	fillPinned(out.Bytes(), 21)
	steps := []error{CopyHostToDeviceAsync(x, 0, out, 0, 4, s), g.Enqueue(h, double), CopyDeviceToHostAsync(out, 0, x, 0, 4, s)}
	if err := errors.Join(steps...); err != nil {
		t.Fatal(err)
	}
	fillPinned(out.Bytes(), 5) // the copy in has not run yet
	if err := s.Synchronize(); err != nil {
		t.Fatal(err)
	}
	if got := words(out.Bytes()); got[0] != 10 {
		t.Errorf("after the stream ran: %d, want 10 (5 copied in, doubled)", got[0])
	}
	// Captured: it runs with every replay.
	if err := s.BeginCapture(); err != nil {
		t.Fatal(err)
	}
	before := g.Counts().Launches
	if err := errors.Join(g.Enqueue(h, double), CopyDeviceToHostAsync(out, 0, x, 0, 4, s)); err != nil {
		t.Fatal(err)
	}
	graph, err := s.EndCapture()
	if err != nil {
		t.Fatal(err)
	}
	defer graph.Close()
	for range 2 {
		if err := errors.Join(graph.Launch(s), s.Synchronize()); err != nil {
			t.Fatal(err)
		}
	}
	if got := words(out.Bytes()); got[0] != 40 || g.Counts().Launches-before != 2 {
		t.Errorf("two replays: %d, want 40; %d launches, want 2", got[0], g.Counts().Launches-before)
	}
	// A fault fails the next synchronization.
	if err := g.Enqueue(h, func(s *Sim) { s.Fault(errors.New("library kernel failed")) }); err != nil {
		t.Fatal(err)
	}
	if err := s.Synchronize(); Code(err) != ErrorLaunchFailed || g.Err() == nil || g.Err().Error() != "library kernel failed" {
		t.Errorf("after a fault: %v (Err %v)", err, g.Err())
	}
}

// A stream that waits for an event recorded on another runs, when it
// runs, the other's work before the event first (Deferred streams), and
// none after it.
func TestStreamWaitEvent(t *testing.T) {
	g := newFakeGPU()
	g.Deferred = true
	c := openFake(t, g)
	out, _ := c.AllocHost(8)
	a, _ := c.Alloc(8)
	b, _ := c.Alloc(8)
	s1, _ := c.NewNonBlockingStream()
	s2, _ := c.NewNonBlockingStream()
	ev, err := c.NewSyncEvent()
	if err != nil {
		t.Fatal(err)
	}
	if err := a.Memset32Async(5, s1); err != nil {
		t.Fatal(err)
	}
	if err := ev.Record(s1); err != nil {
		t.Fatal(err)
	}
	if err := a.Memset32Async(9, s1); err != nil { // after the event: not waited for
		t.Fatal(err)
	}
	if err := s2.WaitEvent(ev); err != nil {
		t.Fatal(err)
	}
	if err := b.CopyFromAsync(a, 8, s2); err != nil {
		t.Fatal(err)
	}
	if err := CopyDeviceToHostAsync(out, 0, b, 0, 8, s2); err != nil {
		t.Fatal(err)
	}
	if err := s2.Synchronize(); err != nil {
		t.Fatal(err)
	}
	if got := words(out.Bytes()); !slices.Equal(got, []uint32{5, 5}) {
		t.Errorf("s2 copied %v, want the 5s s1 wrote before the event", got)
	}
	ev.Close()
	if err := s2.WaitEvent(ev); err == nil {
		t.Error("waited for a closed event")
	}
}

// A device-to-device copy moves the bytes between the offsets and refuses
// a range outside either buffer.
func TestCopyDeviceToDeviceAsync(t *testing.T) {
	c := openFake(t, newFakeGPU())
	a, _ := c.Alloc(16)
	b, _ := c.Alloc(16)
	out, _ := c.AllocHost(16)
	s, _ := c.NewStream()
	if err := CopyToDevice(a, []uint32{1, 2, 3, 4}); err != nil {
		t.Fatal(err)
	}
	if err := b.Memset32Async(0, s); err != nil {
		t.Fatal(err)
	}
	if err := CopyDeviceToDeviceAsync(b, 8, a, 4, 8, s); err != nil {
		t.Fatal(err)
	}
	if err := CopyDeviceToHostAsync(out, 0, b, 0, 16, s); err != nil {
		t.Fatal(err)
	}
	if err := s.Synchronize(); err != nil {
		t.Fatal(err)
	}
	if got := words(out.Bytes()); !slices.Equal(got, []uint32{0, 0, 2, 3}) {
		t.Errorf("copied %v", got)
	}
	if err := CopyDeviceToDeviceAsync(b, 12, a, 0, 8, s); err == nil {
		t.Error("a copy past the destination was accepted")
	}
}
