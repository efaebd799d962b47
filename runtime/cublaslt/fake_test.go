package cublaslt

import (
	"encoding/binary"
	"fmt"
	"math"
	"unsafe"
)

// fakeLt is cuBLASLt made of Go functions: device memory is byte slices,
// and cublasLtMatmul computes what the real one does from the descriptors
// it is given (column-major layouts, operations, epilogue, data types), in
// float64 rounded once to D's type. It checks the runtime's side of every
// call: live objects, the context current, consistent dimensions, buffers
// large enough, the algorithm and workspace of a heuristic.
type fakeLt struct {
	mem     map[uint64][]byte
	next    uint64
	handles uintptr
	live    map[uintptr]string // object → kind: handle, desc, layout, pref
	descs   map[uintptr]*fakeDesc
	layouts map[uintptr]fakeLayout
	prefs   map[uintptr]map[uint32]uint64
	inCtx   bool // the (fake) CUDA context is current
	calls   int  // every entry point but the status strings
	matmuls int

	// What the last heuristic and matmul were given.
	lastPref   map[uint32]uint64
	lastWS     uint64
	lastStream uintptr

	// Behaviour.
	algoWS     uint64 // the workspace the fake's algorithm needs
	noAlgo     bool   // the heuristic finds nothing
	heuristicS Status // the heuristic's status
	algoState  Status // the state of the result it returns
	createS    Status // cublasLtCreate's status
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

// fakeAlgoMark is in the first word of the fake's algorithms.
const fakeAlgoMark = 0xa160_0000_0000_0001

func newFakeLt() *fakeLt {
	return &fakeLt{mem: map[uint64][]byte{}, next: 0x10000, handles: 100, live: map[uintptr]string{},
		descs: map[uintptr]*fakeDesc{}, layouts: map[uintptr]fakeLayout{}, prefs: map[uintptr]map[uint32]uint64{}}
}

func (g *fakeLt) handle(kind string) uintptr {
	g.handles++
	g.live[g.handles] = kind
	return g.handles
}

// current is the Handle's context hook: f runs with the context current.
func (g *fakeLt) current(f func() error) error {
	g.inCtx = true
	defer func() { g.inCtx = false }()
	return f()
}

// fakeBuf is an allocation of the fake's memory.
type fakeBuf struct {
	addr uint64
	size int64
}

func (b fakeBuf) Addr() uint64 { return b.addr }
func (b fakeBuf) Size() int64  { return b.size }

// alloc returns n bytes at a 256-byte aligned address.
func (g *fakeLt) alloc(n int64) fakeBuf {
	b := fakeBuf{addr: g.next, size: n}
	g.mem[g.next] = make([]byte, n)
	g.next += (uint64(n) + 511) / 256 * 256
	return b
}

// find returns the n bytes at addr, nil when no allocation holds them.
func (g *fakeLt) find(addr, n uint64) []byte {
	for base, b := range g.mem {
		if addr >= base && addr+n <= base+uint64(len(b)) {
			return b[addr-base : addr-base+n]
		}
	}
	return nil
}

// putF32 and putBF16 store host values at b; getF32 and getBF16 read them.
func (g *fakeLt) putF32(b fakeBuf, v []float32) {
	m := g.find(b.addr, uint64(4*len(v)))
	for i, x := range v {
		binary.LittleEndian.PutUint32(m[4*i:], math.Float32bits(x))
	}
}

func (g *fakeLt) putBF16(b fakeBuf, v []Bfloat16) {
	m := g.find(b.addr, uint64(2*len(v)))
	for i, x := range v {
		binary.LittleEndian.PutUint16(m[2*i:], uint16(x))
	}
}

func (g *fakeLt) getF32(b fakeBuf, n int) []float32 {
	m := g.find(b.addr, uint64(4*n))
	v := make([]float32, n)
	for i := range v {
		v[i] = math.Float32frombits(binary.LittleEndian.Uint32(m[4*i:]))
	}
	return v
}

func (g *fakeLt) getBF16(b fakeBuf, n int) []float32 {
	m := g.find(b.addr, uint64(2*n))
	v := make([]float32, n)
	for i := range v {
		v[i] = Bfloat16(binary.LittleEndian.Uint16(m[2*i:])).Float32()
	}
	return v
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

// matrix returns the bytes of a column-major matrix of layout l at addr.
func (g *fakeLt) matrix(addr uint64, l fakeLayout) []byte {
	if l.ld < int64(l.rows) {
		return nil
	}
	n := ((l.cols-1)*uint64(l.ld) + l.rows) * elemBytes(l.typ)
	return g.find(addr, n)
}

// matmul is cublasLtMatmul: D = epilogue(alpha·op(A)·op(B) + beta·C).
func (g *fakeLt) matmul(h, op uintptr, alpha unsafe.Pointer, a uint64, adesc uintptr, b uint64, bdesc uintptr,
	beta unsafe.Pointer, c uint64, cdesc uintptr, d uint64, ddesc uintptr, al *algo, ws, wsSize uint64, stream uintptr) Status {
	g.calls++
	if !g.inCtx {
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
	if wsSize < g.algoWS || (wsSize > 0 && g.find(ws, wsSize) == nil) {
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
	am, bm, dm := g.matrix(a, la), g.matrix(b, lb), g.matrix(d, ld)
	if am == nil || bm == nil || dm == nil {
		return StatusInvalidValue
	}
	ep := uint32(desc.i32(descEpilogue, int32(epilogueDefault)))
	var bias []byte
	biasType := desc.i32(descBiasDataType, ld.typ)
	if ep == epilogueBias || ep == epilogueReLUBias {
		if bias = g.find(desc.u64(descBiasPointer), m*elemBytes(biasType)); bias == nil {
			return StatusInvalidValue
		}
	}
	al32, be32 := *(*float32)(alpha), *(*float32)(beta)
	var cm []byte
	if be32 != 0 { // as cuBLAS, C is not read when beta is 0
		if cm = g.matrix(c, lc); cm == nil {
			return StatusInvalidValue
		}
	}
	g.matmuls++
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
				s += element(am, la.typ, ai) * element(bm, lb.typ, bi)
			}
			s *= float64(al32)
			if cm != nil {
				s += float64(be32) * element(cm, lc.typ, i+j*uint64(lc.ld))
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
	return StatusSuccess
}

func (g *fakeLt) api() *api {
	names := map[Status][2]string{
		StatusNotInitialized: {"CUBLAS_STATUS_NOT_INITIALIZED", "the library was not initialized"},
		StatusInvalidValue:   {"CUBLAS_STATUS_INVALID_VALUE", "an invalid numeric value was used as an argument"},
		StatusNotSupported:   {"CUBLAS_STATUS_NOT_SUPPORTED", "the requested functionality is not supported"},
	}
	destroy := func(kind string) func(uintptr) Status {
		return func(x uintptr) Status {
			g.calls++
			if g.live[x] != kind {
				return StatusInvalidValue
			}
			delete(g.live, x)
			return StatusSuccess
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
			g.calls++
			if !g.inCtx {
				return StatusNotInitialized
			}
			if g.createS != StatusSuccess {
				return g.createS
			}
			*h = g.handle("handle")
			return StatusSuccess
		},
		cublasLtDestroy: destroy("handle"),
		cublasLtMatmulDescCreate: func(d *uintptr, compute, scale int32) Status {
			g.calls++
			*d = g.handle("desc")
			g.descs[*d] = &fakeDesc{compute: compute, scale: scale, attrs: map[uint32][]byte{}}
			return StatusSuccess
		},
		cublasLtMatmulDescDestroy: destroy("desc"),
		cublasLtMatmulDescSetAttribute: func(d uintptr, attr uint32, buf unsafe.Pointer, size uint64) Status {
			g.calls++
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
		},
		cublasLtMatrixLayoutCreate: func(l *uintptr, typ int32, rows, cols uint64, ld int64) Status {
			g.calls++
			if elemBytes(typ) == 0 || rows == 0 || cols == 0 || ld < int64(rows) {
				return StatusInvalidValue
			}
			*l = g.handle("layout")
			g.layouts[*l] = fakeLayout{typ: typ, rows: rows, cols: cols, ld: ld}
			return StatusSuccess
		},
		cublasLtMatrixLayoutDestroy: destroy("layout"),
		cublasLtMatmulPreferenceCreate: func(p *uintptr) Status {
			g.calls++
			*p = g.handle("pref")
			g.prefs[*p] = map[uint32]uint64{}
			return StatusSuccess
		},
		cublasLtMatmulPreferenceDestroy: destroy("pref"),
		cublasLtMatmulPreferenceSetAttribute: func(p uintptr, attr uint32, buf unsafe.Pointer, size uint64) Status {
			g.calls++
			if g.live[p] != "pref" || attr != prefMaxWorkspaceBytes || size != 8 {
				return StatusInvalidValue
			}
			g.prefs[p][attr] = *(*uint64)(buf)
			return StatusSuccess
		},
		cublasLtMatmulAlgoGetHeuristic: func(h, op, a, b, c, d, pref uintptr, requested int32, res *heuristicResult, n *int32) Status {
			g.calls++
			if !g.inCtx {
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
			*res = heuristicResult{algo: algo{fakeAlgoMark}, workspaceSize: g.algoWS, state: g.algoState, wavesCount: 0.5}
			*n = 1
			return StatusSuccess
		},
		cublasLtMatmul: g.matmul,
	}
}

func (g *fakeLt) String() string { return fmt.Sprintf("fakeLt(%d live objects)", len(g.live)) }
