package cuda

import (
	"fmt"
	"runtime"
	"time"
	"unsafe"
)

// Dim3 is a grid or block size; a zero Y or Z counts as 1.
type Dim3 struct{ X, Y, Z uint32 }

// Dim is the one-dimensional size x.
func Dim(x int) Dim3 { return Dim3{X: uint32(x), Y: 1, Z: 1} }

func (d Dim3) norm() Dim3 {
	if d.Y == 0 {
		d.Y = 1
	}
	if d.Z == 0 {
		d.Z = 1
	}
	return d
}

// Launch enqueues the kernel on s (nil: the legacy default stream) over
// grid blocks of block threads with shared bytes of dynamic shared memory
// (cuLaunchKernel). args are packed as packArgs says and, where the driver
// can tell, checked against the kernel's parameters.
func (f *Function) Launch(grid, block Dim3, shared int, s *Stream, args ...any) error {
	if f == nil {
		return fmt.Errorf("cuda: launch: nil Function")
	}
	what := fmt.Sprintf("launch %s", f.name)
	if f.mod.closed {
		return fmt.Errorf("cuda: %s: %w", what, errClosed("Module"))
	}
	grid, block = grid.norm(), block.norm()
	if grid.X == 0 || block.X == 0 {
		return fmt.Errorf("cuda: %s: empty grid %v or block %v", what, grid, block)
	}
	if shared < 0 || shared > math32 {
		return fmt.Errorf("cuda: %s: shared memory %d bytes out of range", what, shared)
	}
	packed, err := packArgs(args)
	if err != nil {
		return fmt.Errorf("cuda: %s: %w", what, err)
	}
	if err := packed.checkParams(f.params); err != nil {
		return fmt.Errorf("cuda: %s: %w", what, err)
	}
	// kernelParams is an array of pointers to the values; the driver copies
	// the values during the call. Both arrays are pinned meanwhile.
	ptrs := make([]unsafe.Pointer, len(args)+1)
	for i, off := range packed.offsets {
		ptrs[i] = unsafe.Pointer(&packed.buf[off])
	}
	var pin runtime.Pinner
	pin.Pin(&packed.buf[0])
	pin.Pin(&ptrs[0])
	defer pin.Unpin()
	return f.mod.ctx.do(what, func(a *api) error {
		h, err := streamHandle(s)
		if err != nil {
			return err
		}
		r := a.cuLaunchKernel(f.fn, grid.X, grid.Y, grid.Z, block.X, block.Y, block.Z, uint32(shared), h,
			unsafe.Pointer(&ptrs[0]), nil)
		runtime.KeepAlive(packed)
		return a.check("cuLaunchKernel", r)
	})
}

const math32 = 1<<31 - 1

// Stream is a CUDA stream (created blocking: ordered with the legacy
// default stream).
type Stream struct {
	ctx    *Context
	s      uintptr
	closed bool
}

// NewStream creates a stream (cuStreamCreate).
func (c *Context) NewStream() (*Stream, error) {
	s := &Stream{ctx: c}
	err := c.do("create a stream", func(a *api) error { return a.check("cuStreamCreate", a.cuStreamCreate(&s.s, 0)) })
	if err != nil {
		return nil, err
	}
	return s, nil
}

// Handle is the stream's CUstream, for libraries that take one (a
// cudaStream_t is the same handle); a nil Stream is the legacy default
// stream, 0. A closed stream is an error.
func (s *Stream) Handle() (uintptr, error) {
	h, err := streamHandle(s)
	if err != nil {
		return 0, fmt.Errorf("cuda: stream handle: %w", err)
	}
	return h, nil
}

func (s *Stream) usable(what string) error {
	if s == nil {
		return fmt.Errorf("cuda: %s: nil Stream", what)
	}
	if s.closed {
		return fmt.Errorf("cuda: %s: %w", what, errClosed("Stream"))
	}
	return nil
}

// streamNonBlocking is CU_STREAM_NON_BLOCKING.
const streamNonBlocking = 0x1

// NewNonBlockingStream creates a stream that does not synchronize with
// the legacy default stream (CU_STREAM_NON_BLOCKING): its work is neither
// ordered after nor waited for by synchronous calls such as CopyToDevice
// or Memset8, so those may run in other goroutines while it is captured
// into a graph (with a blocking stream, CUDA refuses them then:
// CUDA_ERROR_STREAM_CAPTURE_IMPLICIT).
func (c *Context) NewNonBlockingStream() (*Stream, error) {
	s := &Stream{ctx: c}
	err := c.do("create a non-blocking stream", func(a *api) error {
		return a.check("cuStreamCreate", a.cuStreamCreate(&s.s, streamNonBlocking))
	})
	if err != nil {
		return nil, err
	}
	return s, nil
}

// Synchronize waits for the stream's work (cuStreamSynchronize).
func (s *Stream) Synchronize() error {
	if err := s.usable("synchronize a stream"); err != nil {
		return err
	}
	return s.ctx.do("synchronize a stream", func(a *api) error { return a.check("cuStreamSynchronize", a.cuStreamSynchronize(s.s)) })
}

// Close destroys the stream.
func (s *Stream) Close() error {
	if s == nil || s.closed {
		return nil
	}
	s.closed = true
	return s.ctx.do("destroy a stream", func(a *api) error { return a.check("cuStreamDestroy_v2", a.cuStreamDestroy(s.s)) })
}

// Stream capture modes (CUstreamCaptureMode).
const captureModeRelaxed = 2

// BeginCapture starts capturing the stream's work into a graph
// (cuStreamBeginCapture_v2). The mode is relaxed: goroutines move between
// threads, so thread-based restrictions would be arbitrary.
func (s *Stream) BeginCapture() error {
	if err := s.usable("begin capture"); err != nil {
		return err
	}
	return s.ctx.do("begin capture", func(a *api) error {
		return a.check("cuStreamBeginCapture_v2", a.cuStreamBeginCapture(s.s, captureModeRelaxed))
	})
}

// Graph is a captured CUDA graph and its executable instance.
type Graph struct {
	ctx    *Context
	g      uintptr
	exec   uintptr
	nodes  int
	closed bool
}

// EndCapture ends the capture begun by BeginCapture and instantiates the
// graph (cuStreamEndCapture, cuGraphInstantiateWithFlags).
func (s *Stream) EndCapture() (*Graph, error) {
	if err := s.usable("end capture"); err != nil {
		return nil, err
	}
	g := &Graph{ctx: s.ctx}
	err := s.ctx.do("end capture", func(a *api) error {
		if err := a.check("cuStreamEndCapture", a.cuStreamEndCapture(s.s, &g.g)); err != nil {
			return err
		}
		var n uint64
		if err := a.check("cuGraphGetNodes", a.cuGraphGetNodes(g.g, nil, &n)); err != nil {
			a.cuGraphDestroy(g.g)
			return err
		}
		g.nodes = int(n)
		if err := a.check("cuGraphInstantiateWithFlags", a.cuGraphInstantiate(&g.exec, g.g, 0)); err != nil {
			a.cuGraphDestroy(g.g)
			return err
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return g, nil
}

// Nodes is the number of nodes of the captured graph.
func (g *Graph) Nodes() int { return g.nodes }

// Launch replays the graph on s (cuGraphLaunch).
func (g *Graph) Launch(s *Stream) error {
	if g == nil || g.closed {
		return fmt.Errorf("cuda: launch a graph: %w", errClosed("Graph"))
	}
	return g.ctx.do("launch a graph", func(a *api) error {
		h, err := streamHandle(s)
		if err != nil {
			return err
		}
		return a.check("cuGraphLaunch", a.cuGraphLaunch(g.exec, h))
	})
}

// LaunchRecording launches the graph on s between records of events:
// before (nil: none) is recorded just before the launch, each of after
// just after it, all under one hold of the context (one cuCtxSetCurrent
// for the lot), which costs the host less than Record, Launch and Record
// apart.
func (g *Graph) LaunchRecording(s *Stream, before *Event, after ...*Event) error {
	if g == nil || g.closed {
		return fmt.Errorf("cuda: launch a graph: %w", errClosed("Graph"))
	}
	if before != nil {
		if err := before.usable("record an event"); err != nil {
			return err
		}
	}
	for _, e := range after {
		if err := e.usable("record an event"); err != nil {
			return err
		}
	}
	return g.ctx.do("launch a graph", func(a *api) error {
		h, err := streamHandle(s)
		if err != nil {
			return err
		}
		if before != nil {
			if err := a.check("cuEventRecord", a.cuEventRecord(before.e, h)); err != nil {
				return err
			}
		}
		if err := a.check("cuGraphLaunch", a.cuGraphLaunch(g.exec, h)); err != nil {
			return err
		}
		for _, e := range after {
			if err := a.check("cuEventRecord", a.cuEventRecord(e.e, h)); err != nil {
				return err
			}
		}
		return nil
	})
}

// Close destroys the executable graph and the graph.
func (g *Graph) Close() error {
	if g == nil || g.closed {
		return nil
	}
	g.closed = true
	return g.ctx.do("destroy a graph", func(a *api) error {
		err1 := a.check("cuGraphExecDestroy", a.cuGraphExecDestroy(g.exec))
		err2 := a.check("cuGraphDestroy", a.cuGraphDestroy(g.g))
		if err1 != nil {
			return err1
		}
		return err2
	})
}

// Event is a CUDA event, for timing and ordering.
type Event struct {
	ctx    *Context
	e      uintptr
	closed bool
}

// NewEvent creates an event that records time (cuEventCreate).
func (c *Context) NewEvent() (*Event, error) { return c.newEvent(0) }

// eventDisableTiming is CU_EVENT_DISABLE_TIMING.
const eventDisableTiming = 0x2

// NewSyncEvent creates an event for ordering and waiting only
// (CU_EVENT_DISABLE_TIMING): it costs less to record and wait for, and
// Elapsed refuses it.
func (c *Context) NewSyncEvent() (*Event, error) { return c.newEvent(eventDisableTiming) }

func (c *Context) newEvent(flags uint32) (*Event, error) {
	e := &Event{ctx: c}
	err := c.do("create an event", func(a *api) error { return a.check("cuEventCreate", a.cuEventCreate(&e.e, flags)) })
	if err != nil {
		return nil, err
	}
	return e, nil
}

func (e *Event) usable(what string) error {
	if e == nil {
		return fmt.Errorf("cuda: %s: nil Event", what)
	}
	if e.closed {
		return fmt.Errorf("cuda: %s: %w", what, errClosed("Event"))
	}
	return nil
}

// Record enqueues the event on s (nil: the legacy default stream).
func (e *Event) Record(s *Stream) error {
	if err := e.usable("record an event"); err != nil {
		return err
	}
	return e.ctx.do("record an event", func(a *api) error {
		h, err := streamHandle(s)
		if err != nil {
			return err
		}
		return a.check("cuEventRecord", a.cuEventRecord(e.e, h))
	})
}

// WaitEvent makes the work enqueued on s after it wait until the work
// before e's last Record has run (cuStreamWaitEvent): the ordering of
// two streams without the host, which a capture records as a dependency.
func (s *Stream) WaitEvent(e *Event) error {
	if err := e.usable("wait for an event"); err != nil {
		return err
	}
	return e.ctx.do("wait for an event", func(a *api) error {
		h, err := streamHandle(s)
		if err != nil {
			return err
		}
		return a.check("cuStreamWaitEvent", a.cuStreamWaitEvent(h, e.e, 0))
	})
}

// Synchronize waits until the event has happened.
func (e *Event) Synchronize() error {
	if err := e.usable("synchronize an event"); err != nil {
		return err
	}
	return e.ctx.do("synchronize an event", func(a *api) error { return a.check("cuEventSynchronize", a.cuEventSynchronize(e.e)) })
}

// Elapsed is the device time between two recorded events
// (cuEventElapsedTime, about half a microsecond of resolution).
func Elapsed(start, end *Event) (time.Duration, error) {
	if err := start.usable("elapsed time"); err != nil {
		return 0, err
	}
	if err := end.usable("elapsed time"); err != nil {
		return 0, err
	}
	var ms float32
	err := start.ctx.do("elapsed time", func(a *api) error {
		return a.check("cuEventElapsedTime", a.cuEventElapsedTime(&ms, start.e, end.e))
	})
	if err != nil {
		return 0, err
	}
	return time.Duration(float64(ms) * 1e6), nil
}

// Close destroys the event.
func (e *Event) Close() error {
	if e == nil || e.closed {
		return nil
	}
	e.closed = true
	return e.ctx.do("destroy an event", func(a *api) error { return a.check("cuEventDestroy_v2", a.cuEventDestroy(e.e)) })
}
