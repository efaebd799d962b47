package cuda

import (
	"fmt"
	"slices"
	"sync"
	"unsafe"
)

// Sim is a CUDA driver simulated in Go, for the tests of this package and
// of the runtimes built on it where there is no GPU: Sim.Driver opens a
// Driver on it, and everything above the driver's entry points (argument
// packing, parameter checks, pinned buffers, graph capture) runs as it
// does on a GPU.
//
// Device memory is Go memory at made-up addresses; pinned host memory
// (AllocHost) is Go memory too. A kernel is a Go function registered by
// name (AddKernel) that gets its parameter values; it reads and writes
// device memory through Memory. A module's image is not read: any name a
// kernel was registered under is found in any module.
//
// Streams follow CUDA's ordering: work enqueued on a stream runs in order,
// stream capture records it into a graph (a launched graph runs its work
// in capture order), and an asynchronous copy between the device and
// pinned host memory reads or writes the host memory when it runs, not
// when it is enqueued. With Deferred, work runs only when something waits
// for it (a stream or event synchronization, a synchronous copy, the
// context's synchronization), so a program that reads results before
// waiting for them, or reuses a pinned buffer whose copy has not run,
// computes wrong results here as it would on a GPU; without it, work runs
// as it is enqueued. Asynchronous copies with pageable memory are staged
// at the call, as the driver does, and cannot be captured.
//
// A kernel that finds its arguments wrong calls Fault: the launch failure
// is then reported by every later synchronization, as CUDA reports a
// sticky error, and Err returns what the kernel said.
//
// A Sim is safe for concurrent use; kernels run with it locked (they must
// use only Memory and Fault).
type Sim struct {
	// Deferred makes streams run their work only when it is waited for.
	// Set it before the first call.
	Deferred bool

	mu        sync.Mutex
	mem       map[uint64][]byte  // device allocations by address
	host      map[uintptr][]byte // pinned host allocations by address
	next      uint64
	current   uintptr // the current context
	retained  int
	modules   map[uintptr]string // handle → image kind
	kernels   map[string]simKernel
	funcs     map[uintptr]string
	handles   uintptr
	streams   map[uintptr]*simStream // 0: the legacy default stream
	capturing map[uintptr][]func()   // stream → captured work
	graphs    map[uintptr][]func()
	execs     map[uintptr][]func()
	events    map[uintptr]*simEvent
	launches  int
	counts    SimCounts
	fault     error
	lastOpts  []int32
	failPTX   bool // cuModuleLoadDataEx fails with a JIT log
	noParams  bool // no cuFuncGetParamInfo
	strs      map[Result][2][]byte
}

// SimKernel is a simulated kernel: it gets the sizes of the launch and
// its parameter values (each zero-extended to 64 bits).
type SimKernel func(s *Sim, grid, block uint32, args []uint64)

type simKernel struct {
	sizes []uint64
	run   SimKernel
}

type simStream struct {
	blocking bool
	queue    []func()
}

type simEvent struct {
	stream uintptr
	done   bool
	timing bool
}

// SimCounts counts what a Sim did.
type SimCounts struct {
	Launches      int // kernels run
	GraphLaunches int // graphs run
	Graphs        int // graphs instantiated
	// CopiesToDevice and CopiesToHost count the copies between host and
	// device memory that ran (synchronous and asynchronous), and
	// BytesToDevice and BytesToHost their bytes.
	CopiesToDevice, CopiesToHost int
	BytesToDevice, BytesToHost   int64
	// Allocs and HostAllocs are the device and pinned host allocations
	// not freed.
	Allocs, HostAllocs int
}

// NewSim returns a simulated driver with one device and no kernels.
func NewSim() *Sim {
	return &Sim{
		mem: map[uint64][]byte{}, host: map[uintptr][]byte{}, next: 0x10000, modules: map[uintptr]string{},
		kernels: map[string]simKernel{}, funcs: map[uintptr]string{}, handles: 100,
		streams: map[uintptr]*simStream{0: {blocking: true}}, capturing: map[uintptr][]func(){},
		graphs: map[uintptr][]func(){}, execs: map[uintptr][]func(){}, events: map[uintptr]*simEvent{},
		strs: map[Result][2][]byte{},
	}
}

// Driver opens a Driver on the simulated device.
func (s *Sim) Driver() (*Driver, error) { return newDriver(s.api()) }

// NewContext opens a Driver on the simulated device and a context on it
// (device 0), what most tests need.
func (s *Sim) NewContext() (*Context, error) {
	drv, err := s.Driver()
	if err != nil {
		return nil, err
	}
	return drv.NewContext(0)
}

// AddKernel registers the kernel name, whose parameters have the given
// sizes in bytes.
func (s *Sim) AddKernel(name string, paramSizes []uint64, run SimKernel) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.kernels[name] = simKernel{sizes: slices.Clone(paramSizes), run: run}
}

// Memory returns the device memory from addr to the end of the allocation
// that holds it, or nil. It is for kernels, which run with s locked.
func (s *Sim) Memory(addr uint64) []byte {
	for base, b := range s.mem {
		if addr >= base && addr < base+uint64(len(b)) {
			return b[addr-base:]
		}
	}
	return nil
}

// Fault records that a kernel failed (the first fault is kept): every
// later synchronization fails with CUDA_ERROR_LAUNCH_FAILED. It is for
// kernels.
func (s *Sim) Fault(err error) {
	if s.fault == nil {
		s.fault = err
	}
}

// Err returns the kernel fault, or nil.
func (s *Sim) Err() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.fault
}

// Enqueue adds work to the stream whose CUstream handle is stream (0 is
// the legacy default stream), as a library that takes raw streams
// (cuBLASLt) enqueues its kernels: recorded into the graph while the
// stream captures, otherwise run in order with the stream's other work
// (with Deferred, when something waits for it). work runs with s locked,
// like a kernel: it reads and writes device memory through Memory and
// reports a failure with Fault; it counts as a launch. It is an error
// when no context is current or the stream is unknown.
func (s *Sim) Enqueue(stream uintptr, work func(s *Sim)) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.current == 0 {
		return fmt.Errorf("cuda: simulated enqueue: %s", simErrorNames[ErrorInvalidContext][1])
	}
	if r := s.enqueue(stream, func() { s.launches++; work(s) }); r != Success {
		return fmt.Errorf("cuda: simulated enqueue on stream %#x: %s", stream, simErrorNames[r][1])
	}
	return nil
}

// RunUntil runs stream h's pending work, in order, until done reports
// true or none is left (with Deferred; otherwise the work has run). It is
// for work run by Enqueue, which runs with s locked: a library's work that
// reads what another stream writes (a simulated NCCL receive) first runs
// that stream up to the point it waits for.
func (s *Sim) RunUntil(h uintptr, done func() bool) {
	st := s.streams[h]
	for st != nil && !done() && len(st.queue) > 0 {
		f := st.queue[0]
		st.queue = st.queue[1:]
		f()
	}
}

// Counts returns what s did so far.
func (s *Sim) Counts() SimCounts {
	s.mu.Lock()
	defer s.mu.Unlock()
	c := s.counts
	c.Launches, c.Allocs, c.HostAllocs = s.launches, len(s.mem), len(s.host)
	return c
}

func (s *Sim) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return fmt.Sprintf("Sim(%d allocations, %d pinned)", len(s.mem), len(s.host))
}

func (s *Sim) handle() uintptr { s.handles++; return s.handles }

// find returns the device bytes at addr, n long, or nil.
func (s *Sim) find(addr, n uint64) []byte {
	b := s.Memory(addr)
	if uint64(len(b)) < n {
		return nil
	}
	return b[:n]
}

// hostRange returns the host bytes at p, n long, and whether they lie in
// one pinned allocation.
func (s *Sim) hostRange(p unsafe.Pointer, n uint64) ([]byte, bool) {
	a := uintptr(p)
	for base, b := range s.host {
		if a >= base && a < base+uintptr(len(b)) {
			if a+uintptr(n) > base+uintptr(len(b)) {
				return nil, true
			}
			return b[a-base : a-base+uintptr(n)], true
		}
	}
	return hostBytes(p, n), false
}

func hostBytes(p unsafe.Pointer, n uint64) []byte { return unsafe.Slice((*byte)(p), n) }

// enqueue adds f to stream h's work: recorded when h is capturing, run
// now unless Deferred.
func (s *Sim) enqueue(h uintptr, f func()) Result {
	if w, ok := s.capturing[h]; ok {
		s.capturing[h] = append(w, f)
		return Success
	}
	st, ok := s.streams[h]
	if !ok {
		return ErrorInvalidValue
	}
	if !s.Deferred {
		f()
		return Success
	}
	st.queue = append(st.queue, f)
	return Success
}

// flush runs stream h's pending work.
func (s *Sim) flush(h uintptr) {
	st := s.streams[h]
	if st == nil {
		return
	}
	for len(st.queue) > 0 {
		f := st.queue[0]
		st.queue = st.queue[1:]
		f()
	}
}

// flushStreams runs the pending work of the legacy default stream and,
// with blocking, of every stream created blocking (which synchronize with
// it); else of every stream.
func (s *Sim) flushStreams(blockingOnly bool) {
	hs := make([]uintptr, 0, len(s.streams))
	for h, st := range s.streams {
		if h == 0 || st.blocking || !blockingOnly {
			hs = append(hs, h)
		}
	}
	slices.Sort(hs)
	for _, h := range hs {
		s.flush(h)
	}
}

// legacySync is what a synchronous call on the legacy default stream
// does first: wait for the blocking streams. During the capture of a
// blocking stream that is an implicit synchronization with it, which
// CUDA refuses.
func (s *Sim) legacySync() Result {
	for h := range s.capturing {
		if st := s.streams[h]; st != nil && st.blocking {
			return ErrorStreamCaptureImplicit
		}
	}
	s.flushStreams(true)
	return s.faulted()
}

func (s *Sim) faulted() Result {
	if s.fault != nil {
		return ErrorLaunchFailed
	}
	return Success
}

func (s *Sim) cstr(r Result, i int, str string) *byte {
	e := s.strs[r]
	e[i] = append([]byte(str), 0)
	s.strs[r] = e
	return &e[i][0]
}

var simErrorNames = map[Result][2]string{
	ErrorInvalidValue:          {"CUDA_ERROR_INVALID_VALUE", "invalid argument"},
	ErrorOutOfMemory:           {"CUDA_ERROR_OUT_OF_MEMORY", "out of memory"},
	ErrorInvalidPTX:            {"CUDA_ERROR_INVALID_PTX", "a PTX JIT compilation failed"},
	ErrorInvalidContext:        {"CUDA_ERROR_INVALID_CONTEXT", "invalid device context"},
	ErrorNotFound:              {"CUDA_ERROR_NOT_FOUND", "named symbol not found"},
	ErrorNotReady:              {"CUDA_ERROR_NOT_READY", "device not ready"},
	ErrorInvalidHandle:         {"CUDA_ERROR_INVALID_HANDLE", "invalid resource handle"},
	ErrorLaunchFailed:          {"CUDA_ERROR_LAUNCH_FAILED", "unspecified launch failure"},
	ErrorStreamCaptureUnsupp:   {"CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED", "operation not permitted when stream is capturing"},
	ErrorStreamCaptureImplicit: {"CUDA_ERROR_STREAM_CAPTURE_IMPLICIT", "operation would make the legacy stream depend on a capturing blocking stream"},
}

// copyWork returns the work of a copy of n bytes between dst and src,
// counted as toDevice or to the host.
func (s *Sim) copyWork(dst, src []byte, toDevice bool) func() {
	return func() {
		copy(dst, src)
		if toDevice {
			s.counts.CopiesToDevice++
			s.counts.BytesToDevice += int64(len(src))
		} else {
			s.counts.CopiesToHost++
			s.counts.BytesToHost += int64(len(src))
		}
	}
}

// copyAsync enqueues a copy between device memory d and host memory at
// hp: one of pinned memory runs in stream order; one of pageable memory
// is staged now, after the stream's earlier work, and cannot be captured.
func (s *Sim) copyAsync(h uintptr, d []byte, hp unsafe.Pointer, n uint64, toDevice bool) Result {
	hb, pinned := s.hostRange(hp, n)
	if d == nil || hb == nil {
		return ErrorInvalidValue
	}
	dst, src := hb, d
	if toDevice {
		dst, src = d, hb
	}
	if pinned {
		return s.enqueue(h, s.copyWork(dst, src, toDevice))
	}
	if _, ok := s.capturing[h]; ok {
		return ErrorStreamCaptureUnsupp
	}
	if _, ok := s.streams[h]; !ok {
		return ErrorInvalidValue
	}
	s.flush(h)
	s.copyWork(dst, src, toDevice)()
	return Success
}

func (s *Sim) api() *api {
	// locked runs f with s locked: every entry point but the error
	// strings, which the package asks for after a failed call.
	locked := func(f func() Result) Result {
		s.mu.Lock()
		defer s.mu.Unlock()
		return f()
	}
	needCtx := func() Result {
		if s.current == 0 {
			return ErrorInvalidContext
		}
		return Success
	}
	a := &api{
		cuGetErrorName: func(r Result, p **byte) Result {
			return locked(func() Result {
				n, ok := simErrorNames[r]
				if !ok {
					return ErrorInvalidValue
				}
				*p = s.cstr(r, 0, n[0])
				return Success
			})
		},
		cuGetErrorString: func(r Result, p **byte) Result {
			return locked(func() Result {
				n, ok := simErrorNames[r]
				if !ok {
					return ErrorInvalidValue
				}
				*p = s.cstr(r, 1, n[1])
				return Success
			})
		},
		cuInit:             func(uint32) Result { return Success },
		cuDriverGetVersion: func(v *int32) Result { *v = 13000; return Success },
		cuDeviceGetCount:   func(n *int32) Result { *n = 1; return Success },
		cuDeviceGet: func(d *int32, o int32) Result {
			if o != 0 {
				return ErrorInvalidValue
			}
			*d = 0
			return Success
		},
		cuDeviceGetName: func(name *byte, n int32, _ int32) Result {
			copy(unsafe.Slice(name, n), "Fake H200\x00")
			return Success
		},
		cuDeviceGetAttribute: func(v *int32, attr, _ int32) Result {
			*v = map[int32]int32{attrCCMajor: 9, attrCCMinor: 0, attrMultiprocessors: 132, attrL2CacheSize: 60 << 20,
				attrMaxThreadsPerBlock: 1024, attrClockRate: 1980000, attrMemClockRate: 3201000, attrMemBusWidth: 6144}[attr]
			return Success
		},
		cuDeviceTotalMem: func(b *uint64, _ int32) Result { *b = 141 << 30; return Success },
		cuDevicePrimaryCtxRetain: func(c *uintptr, _ int32) Result {
			return locked(func() Result { s.retained++; *c = 0xc0; return Success })
		},
		cuDevicePrimaryCtxRelease: func(int32) Result { return locked(func() Result { s.retained--; return Success }) },
		cuCtxSetCurrent:           func(c uintptr) Result { return locked(func() Result { s.current = c; return Success }) },
		cuCtxSynchronize: func() Result {
			return locked(func() Result {
				if r := needCtx(); r != Success {
					return r
				}
				s.flushStreams(false)
				return s.faulted()
			})
		},
		cuModuleLoadDataEx: func(m *uintptr, image unsafe.Pointer, nopts uint32, opts *int32, vals *uintptr) Result {
			return locked(func() Result { return s.loadModule(m, image, nopts, opts, vals) })
		},
		cuModuleUnload: func(m uintptr) Result {
			return locked(func() Result {
				if _, ok := s.modules[m]; !ok {
					return ErrorInvalidValue
				}
				delete(s.modules, m)
				return Success
			})
		},
		cuModuleGetFunction: func(f *uintptr, m uintptr, name *byte) Result {
			return locked(func() Result {
				n := goString(name)
				if _, ok := s.kernels[n]; !ok {
					return ErrorNotFound
				}
				*f = s.handle()
				s.funcs[*f] = n
				return Success
			})
		},
		cuFuncGetAttribute: func(v *int32, attr int32, f uintptr) Result {
			if attr == FuncNumRegs {
				*v = 16
			}
			return Success
		},
		cuFuncGetParamInfo: func(f uintptr, i uint64, off, size *uint64) Result {
			return locked(func() Result {
				k := s.kernels[s.funcs[f]]
				if i >= uint64(len(k.sizes)) {
					return ErrorInvalidValue
				}
				*size = k.sizes[i]
				return Success
			})
		},
		cuMemAlloc: func(p *uint64, n uint64) Result {
			return locked(func() Result {
				if r := needCtx(); r != Success {
					return r
				}
				if n > 1<<30 {
					return ErrorOutOfMemory
				}
				*p = s.next
				s.mem[s.next] = make([]byte, n)
				s.next += (n + 255) / 256 * 256
				return Success
			})
		},
		cuMemFree: func(p uint64) Result {
			return locked(func() Result {
				if _, ok := s.mem[p]; !ok {
					return ErrorInvalidValue
				}
				delete(s.mem, p)
				return Success
			})
		},
		cuMemHostAlloc: func(pp *unsafe.Pointer, n uint64, flags uint32) Result {
			return locked(func() Result {
				if r := needCtx(); r != Success {
					return r
				}
				if n == 0 || flags&^memHostAllocPortable != 0 {
					return ErrorInvalidValue
				}
				if n > 1<<30 {
					return ErrorOutOfMemory
				}
				words := make([]uint64, (n+7)/8) // 8-byte aligned, as a page is
				b := unsafe.Slice((*byte)(unsafe.Pointer(&words[0])), n)
				*pp = unsafe.Pointer(&b[0])
				s.host[uintptr(*pp)] = b
				return Success
			})
		},
		cuMemFreeHost: func(p unsafe.Pointer) Result {
			return locked(func() Result {
				if _, ok := s.host[uintptr(p)]; !ok {
					return ErrorInvalidValue
				}
				delete(s.host, uintptr(p))
				return Success
			})
		},
		cuMemcpyHtoD: func(dst uint64, src unsafe.Pointer, n uint64) Result {
			return locked(func() Result {
				d := s.find(dst, n)
				hb, _ := s.hostRange(src, n)
				if d == nil || hb == nil {
					return ErrorInvalidValue
				}
				if r := s.legacySync(); r != Success {
					return r
				}
				s.copyWork(d, hb, true)()
				return Success
			})
		},
		cuMemcpyDtoH: func(dst unsafe.Pointer, src uint64, n uint64) Result {
			return locked(func() Result {
				d := s.find(src, n)
				hb, _ := s.hostRange(dst, n)
				if d == nil || hb == nil {
					return ErrorInvalidValue
				}
				if r := s.legacySync(); r != Success {
					return r
				}
				s.copyWork(hb, d, false)()
				return Success
			})
		},
		cuMemcpyDtoD: func(dst, src uint64, n uint64) Result {
			return locked(func() Result {
				d, from := s.find(dst, n), s.find(src, n)
				if d == nil || from == nil {
					return ErrorInvalidValue
				}
				if r := s.legacySync(); r != Success {
					return r
				}
				copy(d, from)
				return Success
			})
		},
		cuMemcpyHtoDAsync: func(dst uint64, src unsafe.Pointer, n uint64, h uintptr) Result {
			return locked(func() Result { return s.copyAsync(h, s.find(dst, n), src, n, true) })
		},
		cuMemcpyDtoHAsync: func(dst unsafe.Pointer, src uint64, n uint64, h uintptr) Result {
			return locked(func() Result { return s.copyAsync(h, s.find(src, n), dst, n, false) })
		},
		cuMemcpyDtoDAsync: func(dst, src uint64, n uint64, h uintptr) Result {
			return locked(func() Result {
				d, from := s.find(dst, n), s.find(src, n)
				if d == nil || from == nil {
					return ErrorInvalidValue
				}
				return s.enqueue(h, func() { copy(d, from) })
			})
		},
		cuMemsetD8: func(dst uint64, v uint8, n uint64) Result {
			return locked(func() Result {
				d := s.find(dst, n)
				if d == nil {
					return ErrorInvalidValue
				}
				if r := s.legacySync(); r != Success {
					return r
				}
				memset8(d, v)
				return Success
			})
		},
		cuMemsetD32: func(dst uint64, v uint32, n uint64) Result {
			return locked(func() Result {
				d := s.find(dst, 4*n)
				if d == nil {
					return ErrorInvalidValue
				}
				if r := s.legacySync(); r != Success {
					return r
				}
				memset32(d, v)
				return Success
			})
		},
		cuMemsetD8Async: func(dst uint64, v uint8, n uint64, h uintptr) Result {
			return locked(func() Result {
				d := s.find(dst, n)
				if d == nil {
					return ErrorInvalidValue
				}
				return s.enqueue(h, func() { memset8(d, v) })
			})
		},
		cuMemsetD32Async: func(dst uint64, v uint32, n uint64, h uintptr) Result {
			return locked(func() Result {
				d := s.find(dst, 4*n)
				if d == nil {
					return ErrorInvalidValue
				}
				return s.enqueue(h, func() { memset32(d, v) })
			})
		},
		cuStreamCreate: func(h *uintptr, flags uint32) Result {
			return locked(func() Result {
				if flags&^streamNonBlocking != 0 {
					return ErrorInvalidValue
				}
				*h = s.handle()
				s.streams[*h] = &simStream{blocking: flags&streamNonBlocking == 0}
				return Success
			})
		},
		cuStreamDestroy: func(h uintptr) Result {
			return locked(func() Result {
				if _, ok := s.streams[h]; !ok || h == 0 {
					return ErrorInvalidValue
				}
				s.flush(h) // the driver lets the stream's work finish
				delete(s.streams, h)
				return Success
			})
		},
		cuStreamSynchronize: func(h uintptr) Result {
			return locked(func() Result {
				if _, ok := s.capturing[h]; ok {
					return ErrorStreamCaptureUnsupp
				}
				if _, ok := s.streams[h]; !ok {
					return ErrorInvalidValue
				}
				if h == 0 {
					s.flushStreams(true)
				} else {
					s.flush(h)
				}
				return s.faulted()
			})
		},
		cuEventCreate: func(e *uintptr, flags uint32) Result {
			return locked(func() Result {
				if flags&^eventDisableTiming != 0 {
					return ErrorInvalidValue
				}
				*e = s.handle()
				s.events[*e] = &simEvent{timing: flags&eventDisableTiming == 0}
				return Success
			})
		},
		cuEventRecord: func(e, h uintptr) Result {
			return locked(func() Result {
				ev, ok := s.events[e]
				if !ok {
					return ErrorInvalidValue
				}
				if _, ok := s.capturing[h]; ok {
					return Success // an ordering point of the capture, not a node
				}
				ev.stream, ev.done = h, false
				return s.enqueue(h, func() { ev.done = true })
			})
		},
		cuStreamWaitEvent: func(h, e uintptr, flags uint32) Result {
			return locked(func() Result {
				ev, ok := s.events[e]
				if !ok || flags != 0 {
					return ErrorInvalidValue
				}
				if _, ok := s.capturing[h]; ok {
					return Success // a dependency of the capture, not a node
				}
				from := ev.stream
				return s.enqueue(h, func() {
					// The waited-for stream's work up to the event, not after.
					s.RunUntil(from, func() bool { return ev.done })
				})
			})
		},
		cuEventSynchronize: func(e uintptr) Result {
			return locked(func() Result {
				ev, ok := s.events[e]
				if !ok {
					return ErrorInvalidValue
				}
				if !ev.done {
					s.flush(ev.stream)
				}
				return s.faulted()
			})
		},
		cuEventElapsedTime: func(ms *float32, start, end uintptr) Result {
			return locked(func() Result {
				a, b := s.events[start], s.events[end]
				if a == nil || b == nil {
					return ErrorInvalidValue
				}
				if !a.timing || !b.timing {
					return ErrorInvalidHandle
				}
				if !a.done || !b.done {
					return ErrorNotReady
				}
				*ms = 0.0125
				return Success
			})
		},
		cuEventDestroy: func(e uintptr) Result {
			return locked(func() Result {
				if _, ok := s.events[e]; !ok {
					return ErrorInvalidValue
				}
				delete(s.events, e)
				return Success
			})
		},
		cuLaunchKernel: func(f uintptr, gx, gy, gz, bx, by, bz, shared uint32, h uintptr, params, extra unsafe.Pointer) Result {
			return locked(func() Result {
				if r := needCtx(); r != Success {
					return r
				}
				k, ok := s.kernels[s.funcs[f]]
				if !ok || extra != nil {
					return ErrorInvalidValue
				}
				// Read the values now, as the driver does.
				ptrs := unsafe.Slice((*unsafe.Pointer)(params), len(k.sizes))
				args := make([]uint64, len(k.sizes))
				for i, sz := range k.sizes {
					switch sz {
					case 8:
						args[i] = *(*uint64)(ptrs[i])
					case 4:
						args[i] = uint64(*(*uint32)(ptrs[i]))
					case 2:
						args[i] = uint64(*(*uint16)(ptrs[i]))
					case 1:
						args[i] = uint64(*(*uint8)(ptrs[i]))
					}
				}
				return s.enqueue(h, func() { s.launches++; k.run(s, gx, bx, args) })
			})
		},
		cuStreamBeginCapture: func(h uintptr, mode int32) Result {
			return locked(func() Result {
				if h == 0 {
					return ErrorStreamCaptureUnsupp
				}
				if _, ok := s.streams[h]; !ok {
					return ErrorInvalidValue
				}
				s.capturing[h] = []func(){}
				return Success
			})
		},
		cuStreamEndCapture: func(h uintptr, gr *uintptr) Result {
			return locked(func() Result {
				w, ok := s.capturing[h]
				if !ok {
					return ErrorInvalidValue
				}
				delete(s.capturing, h)
				*gr = s.handle()
				s.graphs[*gr] = w
				return Success
			})
		},
		cuGraphGetNodes: func(gr uintptr, nodes *uintptr, n *uint64) Result {
			return locked(func() Result {
				*n = uint64(len(s.graphs[gr]))
				return Success
			})
		},
		cuGraphInstantiate: func(e *uintptr, gr uintptr, _ uint64) Result {
			return locked(func() Result {
				w, ok := s.graphs[gr]
				if !ok {
					return ErrorInvalidValue
				}
				*e = s.handle()
				s.execs[*e] = w
				s.counts.Graphs++
				return Success
			})
		},
		cuGraphLaunch: func(e, h uintptr) Result {
			return locked(func() Result {
				w, ok := s.execs[e]
				if !ok {
					return ErrorInvalidValue
				}
				return s.enqueue(h, func() {
					s.counts.GraphLaunches++
					for _, f := range w {
						f()
					}
				})
			})
		},
		cuGraphExecDestroy: func(e uintptr) Result {
			return locked(func() Result { delete(s.execs, e); return Success })
		},
		cuGraphDestroy: func(gr uintptr) Result {
			return locked(func() Result { delete(s.graphs, gr); return Success })
		},
	}
	if s.noParams {
		a.cuFuncGetParamInfo = nil
	}
	return a
}

// loadModule is cuModuleLoadDataEx: the image is NUL-terminated PTX or an
// ELF; the JIT logs are written as the driver writes them.
func (s *Sim) loadModule(m *uintptr, image unsafe.Pointer, nopts uint32, opts *int32, vals *uintptr) Result {
	if s.current == 0 {
		return ErrorInvalidContext
	}
	s.lastOpts = append([]int32(nil), unsafe.Slice(opts, nopts)...)
	v := unsafe.Slice(vals, nopts)
	kind := "PTX"
	if string(hostBytes(image, 4)) == "\x7fELF" {
		kind = "cubin"
	}
	write := func(bufIdx, sizeIdx int, str string) {
		for i, o := range s.lastOpts {
			if int(o) != bufIdx {
				continue
			}
			for j, sz := range s.lastOpts {
				if int(sz) == sizeIdx {
					// v[i] holds the address of a pinned Go buffer; view it as one.
					buf := unsafe.Slice(*(**byte)(unsafe.Pointer(&v[i])), v[j])
					v[j] = uintptr(copy(buf, str))
				}
			}
		}
	}
	if s.failPTX {
		write(jitErrorLogBuffer, jitErrorLogBufferBytes, "ptxas application ptx input, line 7; error   : Unknown symbol 'bogus'\x00")
		write(jitInfoLogBuffer, jitInfoLogBufferBytes, "")
		return ErrorInvalidPTX
	}
	write(jitInfoLogBuffer, jitInfoLogBufferBytes, "ptxas info    : Used 16 registers")
	write(jitErrorLogBuffer, jitErrorLogBufferBytes, "")
	*m = s.handle()
	s.modules[*m] = kind
	return Success
}

func memset8(d []byte, v uint8) {
	for i := range d {
		d[i] = v
	}
}

func memset32(d []byte, v uint32) {
	for i := 0; i+4 <= len(d); i += 4 {
		*(*uint32)(unsafe.Pointer(&d[i])) = v
	}
}
