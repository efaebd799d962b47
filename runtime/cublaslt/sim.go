package cublaslt

import (
	"encoding/binary"
	"fmt"
	"math"
	"sync"
	"unsafe"

	"github.com/recom-compiler/recom/runtime/cuda"
)

// Sim is cuBLASLt simulated in Go, for the tests of the runtimes built on
// this package where there is no GPU, as cuda.Sim simulates the driver:
// NewSim makes one over a simulated driver, and Library opens it.
//
// Its cublasLtMatmul computes what the real one does with the
// descriptors it is given (column-major layouts and leading dimensions,
// operations, epilogue, data types, alpha and beta), in float64 rounded
// once to D's type; with CUBLAS_COMPUTE_32F_FAST_TF32 the inputs are
// rounded to TF32 first (to nearest even: a model, cuBLAS does not say). The product is enqueued on the call's stream
// (cuda.Sim.Enqueue), so that it is captured into graphs and runs in
// stream order, reading the operands when it runs, as a kernel does; the
// values it needs from the descriptors (the bias pointer included) are
// taken at the call, as the library bakes them into its launch. It checks
// the runtime's side of every call: live objects, consistent dimensions,
// the algorithm and workspace of a heuristic, and every pointer aligned
// as the preference promised the heuristic
// (CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_*_BYTES, 256 by default); a failed
// check is the call's CUBLAS_STATUS_INVALID_VALUE. A product whose
// operands are not device memory when it runs faults the simulated device
// (cuda.Sim.Fault).
//
// A Sim is safe for concurrent use.
type Sim struct {
	dev simDevice

	mu      sync.Mutex
	handles uintptr
	live    map[uintptr]string // object → kind: handle, desc, layout, pref
	descs   map[uintptr]*fakeDesc
	layouts map[uintptr]fakeLayout
	prefs   map[uintptr]map[uint32]uint64
	calls   int // every entry point but the status strings
	matmuls int

	// What the last heuristic and matmul were given.
	lastPref   map[uint32]uint64
	lastWS     uint64
	lastStream uintptr

	// Behaviour.
	algoWS     uint64 // the workspace the simulated algorithm needs
	noAlgo     bool   // the heuristic finds nothing
	heuristicS Status // the heuristic's status
	algoState  Status // the state of the result it returns
	createS    Status // cublasLtCreate's status
}

// simDevice is where a Sim's products run.
type simDevice interface {
	// inContext reports whether a context is current (the fake of this
	// package's tests knows; a simulated driver checks when it enqueues).
	inContext() bool
	// run runs work on stream, now or in stream order; work reads device
	// memory through mem (the n bytes at addr, nil outside every
	// allocation) and fails with an error. A failure to enqueue is a
	// status.
	run(stream uintptr, work func(mem func(addr, n uint64) []byte) error) Status
}

// NewSim returns a simulated cuBLASLt over the device memory and streams
// of the simulated driver dev.
func NewSim(dev *cuda.Sim) *Sim { return newSim(cudaSimDevice{dev}) }

func newSim(dev simDevice) *Sim {
	return &Sim{dev: dev, handles: 100, live: map[uintptr]string{}, descs: map[uintptr]*fakeDesc{},
		layouts: map[uintptr]fakeLayout{}, prefs: map[uintptr]map[uint32]uint64{}}
}

// Library returns the simulated library; its Path is "simulated".
func (g *Sim) Library() *Library { return newLibrary(g.api(), "simulated") }

// SetWorkspace makes the simulated heuristic return algorithms that need
// n bytes of workspace (0 at first), for the plans made after it.
func (g *Sim) SetWorkspace(n int64) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.algoWS = uint64(max(n, 0))
}

// Matmuls returns the number of products enqueued so far.
func (g *Sim) Matmuls() int {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.matmuls
}

// Live returns the number of handles and descriptors not destroyed.
func (g *Sim) Live() int {
	g.mu.Lock()
	defer g.mu.Unlock()
	return len(g.live)
}

func (g *Sim) String() string { return fmt.Sprintf("cublaslt.Sim(%d live objects)", g.Live()) }

// cudaSimDevice runs products on a simulated driver's streams.
type cudaSimDevice struct{ s *cuda.Sim }

func (d cudaSimDevice) inContext() bool { return true }

func (d cudaSimDevice) run(stream uintptr, work func(mem func(addr, n uint64) []byte) error) Status {
	err := d.s.Enqueue(stream, func(s *cuda.Sim) {
		mem := func(addr, n uint64) []byte {
			b := s.Memory(addr)
			if uint64(len(b)) < n {
				return nil
			}
			return b[:n]
		}
		if err := work(mem); err != nil {
			s.Fault(fmt.Errorf("cublasLtMatmul: %v", err))
		}
	})
	if err != nil {
		return StatusExecutionFailed
	}
	return StatusSuccess
}

type fakeDesc struct {
	compute, scale int32
	attrs          map[uint32][]byte
}

type fakeLayout struct {
	typ        int32
	rows, cols uint64
	ld         int64
}

// The words of a simulated algorithm (cublasLtMatmulAlgo_t): a mark, then
// the alignments of A, B, C and D the heuristic was promised.
const (
	fakeAlgoMark = 0xa160_0000_0000_0001
	algoAlignA   = 1
	algoAlignD   = 4
)

func (g *Sim) handle(kind string) uintptr {
	g.handles++
	g.live[g.handles] = kind
	return g.handles
}

func elemBytes(typ int32) uint64 {
	switch typ {
	case cudaR32F:
		return 4
	case cudaR16BF:
		return 2
	}
	return 0
}

// element reads element i of a matrix of type typ.
func element(m []byte, typ int32, i uint64) float64 {
	if typ == cudaR16BF {
		return float64(Bfloat16(binary.LittleEndian.Uint16(m[2*i:])).Float32())
	}
	return float64(math.Float32frombits(binary.LittleEndian.Uint32(m[4*i:])))
}

func (d *fakeDesc) i32(attr uint32, def int32) int32 {
	if v, ok := d.attrs[attr]; ok {
		return int32(binary.LittleEndian.Uint32(v))
	}
	return def
}

func (d *fakeDesc) u64(attr uint32) uint64 {
	if v, ok := d.attrs[attr]; ok {
		return binary.LittleEndian.Uint64(v)
	}
	return 0
}

// matrixBytes is the extent of a column-major matrix of layout l.
func matrixBytes(l fakeLayout) uint64 {
	return ((l.cols-1)*uint64(l.ld) + l.rows) * elemBytes(l.typ)
}

// roundTF32 rounds a float32 value to TF32 (10 mantissa bits), to
// nearest with ties to even: the simulator's model of the tensor cores'
// conversion under CUBLAS_COMPUTE_32F_FAST_TF32 (cuBLAS does not document
// the rounding).
func roundTF32(v float64) float64 {
	u := math.Float32bits(float32(v))
	if u&0x7f800000 == 0x7f800000 { // infinity or NaN
		return v
	}
	u += 0xfff + (u>>13)&1
	return float64(math.Float32frombits(u &^ 0x1fff))
}

// matmul is cublasLtMatmul: D = epilogue(alpha·op(A)·op(B) + beta·C).
func (g *Sim) matmul(h, op uintptr, alpha unsafe.Pointer, a uint64, adesc uintptr, b uint64, bdesc uintptr,
	beta unsafe.Pointer, c uint64, cdesc uintptr, d uint64, ddesc uintptr, al *algo, ws, wsSize uint64, stream uintptr) Status {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.calls++
	if !g.dev.inContext() {
		return StatusNotInitialized
	}
	desc, ok := g.descs[op]
	if g.live[h] != "handle" || !ok || al == nil || al[0] != fakeAlgoMark {
		return StatusInvalidValue
	}
	la, okA := g.layouts[adesc]
	lb, okB := g.layouts[bdesc]
	lc, okC := g.layouts[cdesc]
	ld, okD := g.layouts[ddesc]
	if !okA || !okB || !okC || !okD || lc != ld || desc.scale != cudaR32F {
		return StatusInvalidValue
	}
	if wsSize < g.algoWS || (wsSize > 0 && ws == 0) {
		return StatusInvalidValue
	}
	g.lastWS, g.lastStream = wsSize, stream
	// op(A) is m×k, op(B) k×n, D m×n.
	transA, transB := desc.i32(descTransA, opN), desc.i32(descTransB, opN)
	m, k := la.rows, la.cols
	if transA == opT {
		m, k = k, m
	}
	k2, n := lb.rows, lb.cols
	if transB == opT {
		k2, n = n, k2
	}
	if k != k2 || ld.rows != m || ld.cols != n || la.typ != lb.typ {
		return StatusInvalidValue
	}
	al32, be32 := *(*float32)(alpha), *(*float32)(beta)
	for i, addr := range []uint64{a, b, c, d} {
		if i == 2 && be32 == 0 { // as cuBLAS, C is not read when beta is 0
			continue
		}
		if addr%al[algoAlignA+i] != 0 {
			return StatusInvalidValue
		}
	}
	tf32 := desc.compute == computeF32TF32
	ep := uint32(desc.i32(descEpilogue, int32(epilogueDefault)))
	biasType := desc.i32(descBiasDataType, ld.typ)
	biasAddr := uint64(0)
	if ep == epilogueBias || ep == epilogueReLUBias {
		if biasAddr = desc.u64(descBiasPointer); biasAddr == 0 {
			return StatusInvalidValue
		}
	}
	work := func(mem func(addr, n uint64) []byte) error {
		am, bm, dm := mem(a, matrixBytes(la)), mem(b, matrixBytes(lb)), mem(d, matrixBytes(ld))
		if am == nil || bm == nil || dm == nil {
			return fmt.Errorf("matrix A %#x, B %#x or D %#x is not device memory of its layout's extent", a, b, d)
		}
		var bias, cm []byte
		if biasAddr != 0 {
			if bias = mem(biasAddr, m*elemBytes(biasType)); bias == nil {
				return fmt.Errorf("the bias %#x is not device memory of %d elements", biasAddr, m)
			}
		}
		if be32 != 0 {
			if cm = mem(c, matrixBytes(lc)); cm == nil {
				return fmt.Errorf("matrix C %#x is not device memory of its layout's extent", c)
			}
		}
		// Read C whole first: C may be D.
		var cv []float64
		if cm != nil {
			cv = make([]float64, m*n)
			for j := range n {
				for i := range m {
					cv[i+j*m] = element(cm, lc.typ, i+j*uint64(lc.ld))
				}
			}
		}
		for j := range n {
			for i := range m {
				var s float64
				for kk := range k {
					ai := i + kk*uint64(la.ld)
					if transA == opT {
						ai = kk + i*uint64(la.ld)
					}
					bi := kk + j*uint64(lb.ld)
					if transB == opT {
						bi = j + kk*uint64(lb.ld)
					}
					av, bv := element(am, la.typ, ai), element(bm, lb.typ, bi)
					if tf32 {
						av, bv = roundTF32(av), roundTF32(bv)
					}
					s += av * bv
				}
				s *= float64(al32)
				if cv != nil {
					s += float64(be32) * cv[i+j*m]
				}
				if bias != nil {
					s += element(bias, biasType, i)
				}
				if ep == epilogueReLU || ep == epilogueReLUBias {
					s = math.Max(s, 0)
				}
				at := i + j*uint64(ld.ld)
				if ld.typ == cudaR16BF {
					binary.LittleEndian.PutUint16(dm[2*at:], uint16(RoundBF16(float32(s))))
				} else {
					binary.LittleEndian.PutUint32(dm[4*at:], math.Float32bits(float32(s)))
				}
			}
		}
		return nil
	}
	r := g.dev.run(stream, work)
	if r == StatusSuccess {
		g.matmuls++
	}
	return r
}

func (g *Sim) api() *api {
	names := map[Status][2]string{
		StatusNotInitialized:  {"CUBLAS_STATUS_NOT_INITIALIZED", "the library was not initialized"},
		StatusInvalidValue:    {"CUBLAS_STATUS_INVALID_VALUE", "an invalid numeric value was used as an argument"},
		StatusNotSupported:    {"CUBLAS_STATUS_NOT_SUPPORTED", "the requested functionality is not supported"},
		StatusExecutionFailed: {"CUBLAS_STATUS_EXECUTION_FAILED", "the GPU program failed to execute"},
	}
	// locked runs f with g locked, counting the call.
	locked := func(f func() Status) Status {
		g.mu.Lock()
		defer g.mu.Unlock()
		g.calls++
		return f()
	}
	destroy := func(kind string) func(uintptr) Status {
		return func(x uintptr) Status {
			return locked(func() Status {
				if g.live[x] != kind {
					return StatusInvalidValue
				}
				delete(g.live, x)
				return StatusSuccess
			})
		}
	}
	return &api{
		cublasLtGetStatusName: func(s Status) string {
			if n, ok := names[s]; ok {
				return n[0]
			}
			return "<unknown>"
		},
		cublasLtGetStatusString: func(s Status) string {
			if n, ok := names[s]; ok {
				return n[1]
			}
			return "<unknown>"
		},
		cublasLtGetVersion: func() uint64 { return 130100 },
		cublasLtCreate: func(h *uintptr) Status {
			return locked(func() Status {
				if !g.dev.inContext() {
					return StatusNotInitialized
				}
				if g.createS != StatusSuccess {
					return g.createS
				}
				*h = g.handle("handle")
				return StatusSuccess
			})
		},
		cublasLtDestroy: destroy("handle"),
		cublasLtMatmulDescCreate: func(d *uintptr, compute, scale int32) Status {
			return locked(func() Status {
				*d = g.handle("desc")
				g.descs[*d] = &fakeDesc{compute: compute, scale: scale, attrs: map[uint32][]byte{}}
				return StatusSuccess
			})
		},
		cublasLtMatmulDescDestroy: destroy("desc"),
		cublasLtMatmulDescSetAttribute: func(d uintptr, attr uint32, buf unsafe.Pointer, size uint64) Status {
			return locked(func() Status {
				desc, ok := g.descs[d]
				if !ok || g.live[d] != "desc" {
					return StatusInvalidValue
				}
				want := map[uint32]uint64{descTransA: 4, descTransB: 4, descEpilogue: 4, descBiasDataType: 4, descBiasPointer: 8}[attr]
				if want == 0 || size != want {
					return StatusInvalidValue
				}
				desc.attrs[attr] = append([]byte(nil), unsafe.Slice((*byte)(buf), size)...)
				return StatusSuccess
			})
		},
		cublasLtMatrixLayoutCreate: func(l *uintptr, typ int32, rows, cols uint64, ld int64) Status {
			return locked(func() Status {
				if elemBytes(typ) == 0 || rows == 0 || cols == 0 || ld < int64(rows) {
					return StatusInvalidValue
				}
				*l = g.handle("layout")
				g.layouts[*l] = fakeLayout{typ: typ, rows: rows, cols: cols, ld: ld}
				return StatusSuccess
			})
		},
		cublasLtMatrixLayoutDestroy: destroy("layout"),
		cublasLtMatmulPreferenceCreate: func(p *uintptr) Status {
			return locked(func() Status {
				*p = g.handle("pref")
				g.prefs[*p] = map[uint32]uint64{}
				return StatusSuccess
			})
		},
		cublasLtMatmulPreferenceDestroy: destroy("pref"),
		cublasLtMatmulPreferenceSetAttribute: func(p uintptr, attr uint32, buf unsafe.Pointer, size uint64) Status {
			return locked(func() Status {
				if g.live[p] != "pref" {
					return StatusInvalidValue
				}
				switch {
				case attr == prefMaxWorkspaceBytes && size == 8:
					g.prefs[p][attr] = *(*uint64)(buf)
				case (attr == prefMinAlignmentCBytes || attr == prefMinAlignmentDBytes) && size == 4:
					v := *(*uint32)(buf)
					if v == 0 || v&(v-1) != 0 {
						return StatusInvalidValue
					}
					g.prefs[p][attr] = uint64(v)
				default:
					return StatusInvalidValue
				}
				return StatusSuccess
			})
		},
		cublasLtMatmulAlgoGetHeuristic: func(h, op, a, b, c, d, pref uintptr, requested int32, res *heuristicResult, n *int32) Status {
			return locked(func() Status {
				if !g.dev.inContext() {
					return StatusNotInitialized
				}
				if g.live[h] != "handle" || g.live[op] != "desc" || g.live[pref] != "pref" || requested < 1 {
					return StatusInvalidValue
				}
				for _, l := range []uintptr{a, b, c, d} {
					if g.live[l] != "layout" {
						return StatusInvalidValue
					}
				}
				g.lastPref = g.prefs[pref]
				if g.heuristicS != StatusSuccess {
					return g.heuristicS
				}
				*n = 0
				if g.noAlgo {
					return StatusSuccess
				}
				al := algo{fakeAlgoMark, 256, 256, 256, 256}
				for i, attr := range []uint32{prefMinAlignmentCBytes, prefMinAlignmentDBytes} {
					if v, ok := g.prefs[pref][attr]; ok {
						al[algoAlignA+2+i] = v
					}
				}
				*res = heuristicResult{algo: al, workspaceSize: g.algoWS, state: g.algoState, wavesCount: 0.5}
				*n = 1
				return StatusSuccess
			})
		},
		cublasLtMatmul: g.matmul,
	}
}
