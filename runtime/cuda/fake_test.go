package cuda

import (
	"fmt"
	"unsafe"
)

// fakeGPU is a driver made of Go functions: memory is byte slices, kernels
// are Go functions of their parameter bytes, and streams run eagerly
// unless capturing. It checks the runtime's side of every call.
type fakeGPU struct {
	mem       map[uint64][]byte
	next      uint64
	current   uintptr // the current context
	retained  int
	modules   map[uintptr]string // handle → image kind
	kernels   map[string]fakeKernel
	funcs     map[uintptr]string
	handles   uintptr
	capturing map[uintptr][]func() // stream → captured work
	graphs    map[uintptr][]func()
	execs     map[uintptr][]func()
	launches  int
	lastOpts  []int32
	failPTX   bool // cuModuleLoadDataEx fails with a JIT log
	noParams  bool // no cuFuncGetParamInfo
	strs      map[Result][2][]byte
}

// fakeKernel is a kernel: its parameter sizes and what it does with the
// parameter values (as uint64).
type fakeKernel struct {
	sizes []uint64
	run   func(g *fakeGPU, grid, block uint32, args []uint64)
}

func newFakeGPU() *fakeGPU {
	return &fakeGPU{
		mem: map[uint64][]byte{}, next: 0x10000, modules: map[uintptr]string{}, kernels: map[string]fakeKernel{},
		funcs: map[uintptr]string{}, handles: 100, capturing: map[uintptr][]func(){}, graphs: map[uintptr][]func(){},
		execs: map[uintptr][]func(){}, strs: map[Result][2][]byte{},
	}
}

func (g *fakeGPU) handle() uintptr { g.handles++; return g.handles }

// find returns the allocation bytes at addr, n long.
func (g *fakeGPU) find(addr, n uint64) []byte {
	for base, b := range g.mem {
		if addr >= base && addr+n <= base+uint64(len(b)) {
			return b[addr-base : addr-base+n]
		}
	}
	return nil
}

func hostBytes(p unsafe.Pointer, n uint64) []byte { return unsafe.Slice((*byte)(p), n) }

// enqueue runs f now, or records it when s is capturing.
func (g *fakeGPU) enqueue(s uintptr, f func()) {
	if w, ok := g.capturing[s]; ok {
		g.capturing[s] = append(w, f)
		return
	}
	f()
}

func (g *fakeGPU) cstr(r Result, i int, s string) *byte {
	e := g.strs[r]
	e[i] = append([]byte(s), 0)
	g.strs[r] = e
	return &e[i][0]
}

func (g *fakeGPU) api() *api {
	needCtx := func() Result {
		if g.current == 0 {
			return ErrorInvalidContext
		}
		return Success
	}
	a := &api{
		cuGetErrorName: func(r Result, s **byte) Result {
			names := map[Result]string{ErrorInvalidValue: "CUDA_ERROR_INVALID_VALUE", ErrorOutOfMemory: "CUDA_ERROR_OUT_OF_MEMORY",
				ErrorInvalidPTX: "CUDA_ERROR_INVALID_PTX", ErrorInvalidContext: "CUDA_ERROR_INVALID_CONTEXT", ErrorNotFound: "CUDA_ERROR_NOT_FOUND"}
			n, ok := names[r]
			if !ok {
				return ErrorInvalidValue
			}
			*s = g.cstr(r, 0, n)
			return Success
		},
		cuGetErrorString: func(r Result, s **byte) Result {
			texts := map[Result]string{ErrorInvalidValue: "invalid argument", ErrorOutOfMemory: "out of memory",
				ErrorInvalidPTX: "a PTX JIT compilation failed", ErrorInvalidContext: "invalid device context", ErrorNotFound: "named symbol not found"}
			t, ok := texts[r]
			if !ok {
				return ErrorInvalidValue
			}
			*s = g.cstr(r, 1, t)
			return Success
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
		cuDeviceTotalMem:          func(b *uint64, _ int32) Result { *b = 141 << 30; return Success },
		cuDevicePrimaryCtxRetain:  func(c *uintptr, _ int32) Result { g.retained++; *c = 0xc0; return Success },
		cuDevicePrimaryCtxRelease: func(int32) Result { g.retained--; return Success },
		cuCtxSetCurrent:           func(c uintptr) Result { g.current = c; return Success },
		cuCtxSynchronize:          func() Result { return needCtx() },
		cuModuleLoadDataEx: func(m *uintptr, image unsafe.Pointer, nopts uint32, opts *int32, vals *uintptr) Result {
			if r := needCtx(); r != Success {
				return r
			}
			g.lastOpts = append([]int32(nil), unsafe.Slice(opts, nopts)...)
			v := unsafe.Slice(vals, nopts)
			// The image is NUL-terminated PTX or an ELF.
			img := hostBytes(image, 4)
			kind := "PTX"
			if string(img) == "\x7fELF" {
				kind = "cubin"
			} else {
				n := 0
				for hostBytes(image, uint64(n+1))[n] != 0 {
					n++
				}
			}
			write := func(bufIdx, sizeIdx int, s string) {
				for i, o := range g.lastOpts {
					if int(o) == bufIdx {
						for j, sz := range g.lastOpts {
							if int(sz) == sizeIdx {
								// v[i] holds the address of a pinned Go buffer; view it as one.
								buf := unsafe.Slice(*(**byte)(unsafe.Pointer(&v[i])), v[j])
								n := copy(buf, s)
								v[j] = uintptr(n)
							}
						}
					}
				}
			}
			if g.failPTX {
				write(jitErrorLogBuffer, jitErrorLogBufferBytes, "ptxas application ptx input, line 7; error   : Unknown symbol 'bogus'\x00")
				write(jitInfoLogBuffer, jitInfoLogBufferBytes, "")
				return ErrorInvalidPTX
			}
			write(jitInfoLogBuffer, jitInfoLogBufferBytes, "ptxas info    : Used 16 registers")
			write(jitErrorLogBuffer, jitErrorLogBufferBytes, "")
			*m = g.handle()
			g.modules[*m] = kind
			return Success
		},
		cuModuleUnload: func(m uintptr) Result {
			if _, ok := g.modules[m]; !ok {
				return ErrorInvalidValue
			}
			delete(g.modules, m)
			return Success
		},
		cuModuleGetFunction: func(f *uintptr, m uintptr, name *byte) Result {
			n := goString(name)
			if _, ok := g.kernels[n]; !ok {
				return ErrorNotFound
			}
			*f = g.handle()
			g.funcs[*f] = n
			return Success
		},
		cuFuncGetAttribute: func(v *int32, attr int32, f uintptr) Result {
			if attr == FuncNumRegs {
				*v = 16
			}
			return Success
		},
		cuFuncGetParamInfo: func(f uintptr, i uint64, off, size *uint64) Result {
			k := g.kernels[g.funcs[f]]
			if i >= uint64(len(k.sizes)) {
				return ErrorInvalidValue
			}
			*size = k.sizes[i]
			return Success
		},
		cuMemAlloc: func(p *uint64, n uint64) Result {
			if r := needCtx(); r != Success {
				return r
			}
			if n > 1<<30 {
				return ErrorOutOfMemory
			}
			*p = g.next
			g.mem[g.next] = make([]byte, n)
			g.next += (n + 255) / 256 * 256
			return Success
		},
		cuMemFree: func(p uint64) Result {
			if _, ok := g.mem[p]; !ok {
				return ErrorInvalidValue
			}
			delete(g.mem, p)
			return Success
		},
		cuMemcpyHtoD: func(dst uint64, src unsafe.Pointer, n uint64) Result {
			d := g.find(dst, n)
			if d == nil {
				return ErrorInvalidValue
			}
			copy(d, hostBytes(src, n))
			return Success
		},
		cuMemcpyDtoH: func(dst unsafe.Pointer, src uint64, n uint64) Result {
			s := g.find(src, n)
			if s == nil {
				return ErrorInvalidValue
			}
			copy(hostBytes(dst, n), s)
			return Success
		},
		cuMemcpyDtoD: func(dst, src uint64, n uint64) Result {
			d, s := g.find(dst, n), g.find(src, n)
			if d == nil || s == nil {
				return ErrorInvalidValue
			}
			copy(d, s)
			return Success
		},
		cuMemsetD8: func(dst uint64, v uint8, n uint64) Result {
			d := g.find(dst, n)
			if d == nil {
				return ErrorInvalidValue
			}
			for i := range d {
				d[i] = v
			}
			return Success
		},
		cuMemsetD32: func(dst uint64, v uint32, n uint64) Result {
			d := g.find(dst, 4*n)
			if d == nil {
				return ErrorInvalidValue
			}
			for i := uint64(0); i < n; i++ {
				*(*uint32)(unsafe.Pointer(&d[4*i])) = v
			}
			return Success
		},
		cuStreamCreate:      func(s *uintptr, _ uint32) Result { *s = g.handle(); return Success },
		cuStreamDestroy:     func(uintptr) Result { return Success },
		cuStreamSynchronize: func(uintptr) Result { return Success },
		cuEventCreate:       func(e *uintptr, _ uint32) Result { *e = g.handle(); return Success },
		cuEventRecord:       func(e, s uintptr) Result { return Success },
		cuEventSynchronize:  func(uintptr) Result { return Success },
		cuEventElapsedTime:  func(ms *float32, a, b uintptr) Result { *ms = 0.0125; return Success },
		cuEventDestroy:      func(uintptr) Result { return Success },
		cuLaunchKernel: func(f uintptr, gx, gy, gz, bx, by, bz, shared uint32, s uintptr, params, extra unsafe.Pointer) Result {
			if r := needCtx(); r != Success {
				return r
			}
			k, ok := g.kernels[g.funcs[f]]
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
			g.enqueue(s, func() { g.launches++; k.run(g, gx, bx, args) })
			return Success
		},
		cuStreamBeginCapture: func(s uintptr, mode int32) Result {
			if s == 0 {
				return ErrorStreamCaptureUnsupp
			}
			g.capturing[s] = []func(){}
			return Success
		},
		cuStreamEndCapture: func(s uintptr, gr *uintptr) Result {
			w, ok := g.capturing[s]
			if !ok {
				return ErrorInvalidValue
			}
			delete(g.capturing, s)
			*gr = g.handle()
			g.graphs[*gr] = w
			return Success
		},
		cuGraphGetNodes: func(gr uintptr, nodes *uintptr, n *uint64) Result {
			*n = uint64(len(g.graphs[gr]))
			return Success
		},
		cuGraphInstantiate: func(e *uintptr, gr uintptr, _ uint64) Result {
			*e = g.handle()
			g.execs[*e] = g.graphs[gr]
			return Success
		},
		cuGraphLaunch: func(e, s uintptr) Result {
			w, ok := g.execs[e]
			if !ok {
				return ErrorInvalidValue
			}
			for _, f := range w {
				f()
			}
			return Success
		},
		cuGraphExecDestroy: func(e uintptr) Result { delete(g.execs, e); return Success },
		cuGraphDestroy:     func(gr uintptr) Result { delete(g.graphs, gr); return Success },
	}
	a.cuMemcpyHtoDAsync = func(dst uint64, src unsafe.Pointer, n uint64, s uintptr) Result {
		return a.cuMemcpyHtoD(dst, src, n)
	}
	a.cuMemcpyDtoHAsync = func(dst unsafe.Pointer, src uint64, n uint64, s uintptr) Result {
		return a.cuMemcpyDtoH(dst, src, n)
	}
	a.cuMemcpyDtoDAsync = func(dst, src uint64, n uint64, s uintptr) Result {
		var r Result
		g.enqueue(s, func() { r = a.cuMemcpyDtoD(dst, src, n) })
		return r
	}
	a.cuMemsetD8Async = func(dst uint64, v uint8, n uint64, s uintptr) Result {
		var r Result
		g.enqueue(s, func() { r = a.cuMemsetD8(dst, v, n) })
		return r
	}
	a.cuMemsetD32Async = func(dst uint64, v uint32, n uint64, s uintptr) Result {
		var r Result
		g.enqueue(s, func() { r = a.cuMemsetD32(dst, v, n) })
		return r
	}
	if g.noParams {
		a.cuFuncGetParamInfo = nil
	}
	return a
}

// addKernel registers a kernel of the fake's modules.
func (g *fakeGPU) addKernel(name string, sizes []uint64, run func(g *fakeGPU, grid, block uint32, args []uint64)) {
	g.kernels[name] = fakeKernel{sizes: sizes, run: run}
}

func (g *fakeGPU) String() string { return fmt.Sprintf("fakeGPU(%d allocations)", len(g.mem)) }
