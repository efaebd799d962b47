package cublaslt

import (
	"fmt"
	"math"
	"runtime"
	"sync"
	"unsafe"

	"github.com/recom-compiler/recom/runtime/cuda"
)

// Handle is a cuBLASLt handle (cublasLtCreate) of one CUDA context.
type Handle struct {
	api     *api
	current func(f func() error) error // runs f with the context current
	h       uintptr
	mu      sync.Mutex
	closed  bool
}

// NewHandle creates a handle for work in ctx.
func (l *Library) NewHandle(ctx *cuda.Context) (*Handle, error) {
	if ctx == nil {
		return nil, fmt.Errorf("cublaslt: new handle: nil cuda.Context")
	}
	return l.newHandle(ctx.Current)
}

func (l *Library) newHandle(current func(f func() error) error) (*Handle, error) {
	h := &Handle{api: l.api, current: current}
	err := current(func() error { return l.api.check("cublasLtCreate", l.api.cublasLtCreate(&h.h)) })
	if err != nil {
		return nil, fmt.Errorf("cublaslt: create a handle: %w", err)
	}
	return h, nil
}

// Close destroys the handle (cublasLtDestroy). Its plans must be closed
// first; closing twice is a no-op.
func (h *Handle) Close() error {
	if h == nil {
		return nil
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.closed {
		return nil
	}
	h.closed = true
	err := h.current(func() error { return h.api.check("cublasLtDestroy", h.api.cublasLtDestroy(h.h)) })
	if err != nil {
		return fmt.Errorf("cublaslt: destroy a handle: %w", err)
	}
	return nil
}

func (h *Handle) usable(what string) error {
	if h == nil {
		return fmt.Errorf("cublaslt: %s: nil Handle", what)
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.closed {
		return fmt.Errorf("%s: %w", what, errClosed("Handle"))
	}
	return nil
}

// Precision is how a plan multiplies.
type Precision int

// The precisions (see the package documentation).
const (
	FP32 Precision = iota // fp32 matrices, CUBLAS_COMPUTE_32F: TensorFlow's arithmetic without TF32
	TF32                  // fp32 matrices, CUBLAS_COMPUTE_32F_FAST_TF32
	BF16                  // bf16 X and W, fp32 accumulation (CUBLAS_COMPUTE_32F); Y fp32 or bf16
)

var precisionNames = [...]string{FP32: "fp32", TF32: "tf32", BF16: "bf16"}

func (p Precision) String() string {
	if p >= 0 && int(p) < len(precisionNames) {
		return precisionNames[p]
	}
	return fmt.Sprintf("Precision(%d)", int(p))
}

// ParsePrecision is the inverse of Precision.String.
func ParsePrecision(s string) (Precision, error) {
	for i, n := range precisionNames {
		if n == s {
			return Precision(i), nil
		}
	}
	return 0, fmt.Errorf("cublaslt: unknown precision %q (want fp32, tf32 or bf16)", s)
}

// Epilogue is what a plan does to X·W before storing Y.
type Epilogue int

// The epilogues, each one of cuBLASLt's.
const (
	EpilogueDefault  Epilogue = iota // Y = X·W (CUBLASLT_EPILOGUE_DEFAULT)
	EpilogueBias                     // Y = X·W + bias (CUBLASLT_EPILOGUE_BIAS)
	EpilogueReLU                     // Y = max(X·W, 0) (CUBLASLT_EPILOGUE_RELU)
	EpilogueReLUBias                 // Y = max(X·W + bias, 0) (CUBLASLT_EPILOGUE_RELU_BIAS)
)

var epilogues = [...]struct {
	name  string
	value uint32
	bias  bool
}{
	EpilogueDefault:  {"default", epilogueDefault, false},
	EpilogueBias:     {"bias", epilogueBias, true},
	EpilogueReLU:     {"relu", epilogueReLU, false},
	EpilogueReLUBias: {"relu_bias", epilogueReLUBias, true},
}

func (e Epilogue) valid() bool { return e >= 0 && int(e) < len(epilogues) }

func (e Epilogue) String() string {
	if e.valid() {
		return epilogues[e].name
	}
	return fmt.Sprintf("Epilogue(%d)", int(e))
}

// HasBias reports whether the epilogue adds a bias vector.
func (e Epilogue) HasBias() bool { return e.valid() && epilogues[e].bias }

// ForActivation returns the epilogue for a dense layer with or without a
// bias and with the activation act, named as package fused names them
// ("none" or "", "relu", "sigmoid", "tanh"), and the activation the caller
// must still apply to Y: "" when cuBLASLt does it all, else act.
// cuBLASLt has no sigmoid or tanh epilogue; for those the epilogue adds
// only the bias.
func ForActivation(act string, bias bool) (e Epilogue, rest string, err error) {
	switch act {
	case "", "none":
		if bias {
			return EpilogueBias, "", nil
		}
		return EpilogueDefault, "", nil
	case "relu":
		if bias {
			return EpilogueReLUBias, "", nil
		}
		return EpilogueReLU, "", nil
	case "sigmoid", "tanh":
		if bias {
			return EpilogueBias, act, nil
		}
		return EpilogueDefault, act, nil
	}
	return 0, "", fmt.Errorf("cublaslt: unknown activation %q (want none, relu, sigmoid or tanh)", act)
}

// DefaultWorkspaceBytes is the workspace limit of a plan whose
// GEMM.MaxWorkspaceBytes is 0: 32 MiB, what NVIDIA advises for Hopper.
const DefaultWorkspaceBytes = 32 << 20

// MaxDim is the largest B, K or N: cuBLASLt supports only sizes and
// leading dimensions that fit int32.
const MaxDim = math.MaxInt32

// GEMM describes one product Y[B,N] = act(X[B,K]·W[K,N] + bias[N]) of
// row-major matrices, as TensorFlow's MatMul with BiasAdd and an
// activation computes it.
type GEMM struct {
	Name       string // what the product is (the MatMul's node), for errors
	B, K, N    int64
	TransposeX bool // X is stored K×B (MatMul's transpose_a)
	TransposeW bool // W is stored N×K (MatMul's transpose_b)
	Precision  Precision
	OutBF16    bool // Y and bias in bfloat16 (BF16 only); else fp32
	Epilogue   Epilogue
	// Accumulate adds the product to Y: Y = act(X·W + Y + bias), beta 1
	// with cuBLASLt's C the same matrix as D (a sum over parts of K, the
	// activation in the last part's epilogue); else Y is only written.
	Accumulate bool
	// LdY is the distance between Y's rows in elements when Y is
	// columns of a wider row-major matrix (a concatenation the next
	// product reads whole); 0 is N.
	LdY int64
	// AlignY is the alignment of Y's address, in bytes, that the
	// algorithm may assume and Run requires (Y at a column offset of a
	// wider matrix): a power of two from Y's element size to Alignment;
	// 0 is Alignment.
	AlignY int64
	// MaxWorkspaceBytes bounds the algorithm's workspace
	// (CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES); 0 is
	// DefaultWorkspaceBytes.
	MaxWorkspaceBytes int64
}

func (g GEMM) String() string {
	s := fmt.Sprintf("gemm %dx%dx%d", g.B, g.K, g.N)
	if g.Name != "" {
		s = fmt.Sprintf("gemm %q %dx%dx%d", g.Name, g.B, g.K, g.N)
	}
	if g.TransposeX {
		s += " transpose_a"
	}
	if g.TransposeW {
		s += " transpose_b"
	}
	s += " " + g.Precision.String()
	if g.OutBF16 {
		s += "->bf16"
	}
	if g.LdY != 0 {
		s += fmt.Sprintf(" ldy=%d", g.LdY)
	}
	if g.AlignY != 0 {
		s += fmt.Sprintf(" aligny=%d", g.AlignY)
	}
	if g.Accumulate {
		s += " y+="
	}
	return s + " " + g.Epilogue.String()
}

// ldY is Y's row pitch in elements; alignY the alignment of its address.
func (g GEMM) ldY() int64 {
	if g.LdY == 0 {
		return g.N
	}
	return g.LdY
}

func (g GEMM) alignY() int64 {
	if g.AlignY == 0 {
		return Alignment
	}
	return g.AlignY
}

// inType and outType are the cudaDataType_t of X and W, and of Y and bias;
// inBytes and outBytes their element sizes.
func (g GEMM) inType() (int32, int64) {
	if g.Precision == BF16 {
		return cudaR16BF, 2
	}
	return cudaR32F, 4
}

func (g GEMM) outType() (int32, int64) {
	if g.OutBF16 {
		return cudaR16BF, 2
	}
	return cudaR32F, 4
}

// bytes is rows·cols·elem, or false when it exceeds math.MaxInt64.
func bytes(rows, cols, elem int64) (int64, bool) {
	if rows > math.MaxInt64/cols/elem {
		return 0, false
	}
	return rows * cols * elem, true
}

// check validates the description; it touches no GPU.
func (g GEMM) check() error {
	for _, d := range []struct {
		name string
		v    int64
	}{{"B", g.B}, {"K", g.K}, {"N", g.N}} {
		if d.v < 1 || d.v > MaxDim {
			return fmt.Errorf("%s is %d: it must be in [1, %d] (cuBLASLt takes int32 sizes)", d.name, d.v, int64(MaxDim))
		}
	}
	if g.Precision < FP32 || g.Precision > BF16 {
		return fmt.Errorf("unknown precision %v", g.Precision)
	}
	if g.OutBF16 && g.Precision != BF16 {
		return fmt.Errorf("a bf16 output needs precision bf16, not %v", g.Precision)
	}
	if !g.Epilogue.valid() {
		return fmt.Errorf("unknown epilogue %v", g.Epilogue)
	}
	if g.MaxWorkspaceBytes < 0 {
		return fmt.Errorf("the workspace limit %d is negative", g.MaxWorkspaceBytes)
	}
	_, in := g.inType()
	_, out := g.outType()
	if g.LdY != 0 && (g.LdY < g.N || g.LdY > MaxDim) {
		return fmt.Errorf("LdY is %d: it must be 0 or in [N, %d]", g.LdY, int64(MaxDim))
	}
	if a := g.AlignY; a != 0 && (a < out || a > Alignment || a&(a-1) != 0) {
		return fmt.Errorf("AlignY is %d: it must be 0 or a power of two in [%d, %d]", a, out, Alignment)
	}
	for _, m := range []struct {
		name             string
		rows, cols, elem int64
	}{{"X", g.B, g.K, in}, {"W", g.K, g.N, in}, {"Y", g.B, g.ldY(), out}} {
		if _, ok := bytes(m.rows, m.cols, m.elem); !ok {
			return fmt.Errorf("%s (%dx%d) exceeds 2^63 bytes", m.name, m.rows, m.cols)
		}
	}
	return nil
}

// layout is one matrix as cuBLASLt sees it: column-major rows×cols with
// leading dimension ld, and the operation applied to it.
type layout struct {
	rows, cols, ld int64
	op             int32
}

// layouts returns cuBLASLt's A (W's buffer), B (X's buffer) and D (Y's,
// also C) for the row-major product: the table of the package
// documentation.
func (g GEMM) layouts() (a, b, d layout) {
	a = layout{rows: g.N, cols: g.K, ld: g.N, op: opN}
	if g.TransposeW {
		a = layout{rows: g.K, cols: g.N, ld: g.K, op: opT}
	}
	b = layout{rows: g.K, cols: g.B, ld: g.K, op: opN}
	if g.TransposeX {
		b = layout{rows: g.B, cols: g.K, ld: g.B, op: opT}
	}
	return a, b, layout{rows: g.N, cols: g.B, ld: g.ldY(), op: opN}
}

// computeType is the plan's cublasComputeType_t.
func (g GEMM) computeType() int32 {
	if g.Precision == TF32 {
		return computeF32TF32
	}
	return computeF32
}

// Plan is a prepared product: its descriptors and the algorithm
// cublasLtMatmulAlgoGetHeuristic chose for its shape.
type Plan struct {
	h                *Handle
	g                GEMM
	desc             uintptr
	a, b, d          uintptr // matrix layouts; C is D's
	al               algo
	ws               int64   // the algorithm's workspace
	waves            float32 // the heuristic's device utilisation estimate
	alpha, beta      float32
	xBytes, wBytes   int64
	yBytes, biasSize int64
	mu               sync.Mutex
	closed           bool
}

// NewPlan checks g and prepares its product: the operation descriptor,
// the three matrix layouts, a preference with g's workspace limit, and the
// first algorithm of cublasLtMatmulAlgoGetHeuristic. A bad g is an error
// before any cuBLASLt call.
func (h *Handle) NewPlan(g GEMM) (*Plan, error) {
	what := "plan " + g.String()
	if err := h.usable(what); err != nil {
		return nil, err
	}
	if err := g.check(); err != nil {
		return nil, fmt.Errorf("cublaslt: %s: %w", what, err)
	}
	inT, inB := g.inType()
	outT, outB := g.outType()
	p := &Plan{h: h, g: g, alpha: 1, beta: 0}
	if g.Accumulate {
		p.beta = 1
	}
	p.xBytes, _ = bytes(g.B, g.K, inB)
	p.wBytes, _ = bytes(g.K, g.N, inB)
	p.yBytes = ((g.B-1)*g.ldY() + g.N) * outB
	if g.Epilogue.HasBias() {
		p.biasSize = g.N * outB
	}
	maxWS := g.MaxWorkspaceBytes
	if maxWS == 0 {
		maxWS = DefaultWorkspaceBytes
	}
	a := h.api
	err := h.current(func() error {
		if err := a.check("cublasLtMatmulDescCreate", a.cublasLtMatmulDescCreate(&p.desc, g.computeType(), cudaR32F)); err != nil {
			return err
		}
		la, lb, ld := g.layouts()
		ep := epilogues[g.Epilogue].value
		type attr struct {
			name string
			attr uint32
			ptr  unsafe.Pointer
		}
		attrs := []attr{ // every value is 4 bytes: int32_t or uint32_t
			{"TRANSA", descTransA, unsafe.Pointer(&la.op)},
			{"TRANSB", descTransB, unsafe.Pointer(&lb.op)},
			{"EPILOGUE", descEpilogue, unsafe.Pointer(&ep)},
		}
		if g.Epilogue.HasBias() {
			attrs = append(attrs, attr{"BIAS_DATA_TYPE", descBiasDataType, unsafe.Pointer(&outT)})
		}
		for _, at := range attrs {
			if err := a.check("cublasLtMatmulDescSetAttribute", a.cublasLtMatmulDescSetAttribute(p.desc, at.attr, at.ptr, 4)); err != nil {
				return fmt.Errorf("set CUBLASLT_MATMUL_DESC_%s: %w", at.name, err)
			}
		}
		for _, m := range []struct {
			name string
			dst  *uintptr
			typ  int32
			l    layout
		}{{"A (W)", &p.a, inT, la}, {"B (X)", &p.b, inT, lb}, {"D (Y)", &p.d, outT, ld}} {
			r := a.cublasLtMatrixLayoutCreate(m.dst, m.typ, uint64(m.l.rows), uint64(m.l.cols), m.l.ld)
			if err := a.check("cublasLtMatrixLayoutCreate", r); err != nil {
				return fmt.Errorf("layout of %s: %w", m.name, err)
			}
		}
		var pref uintptr
		if err := a.check("cublasLtMatmulPreferenceCreate", a.cublasLtMatmulPreferenceCreate(&pref)); err != nil {
			return err
		}
		defer a.cublasLtMatmulPreferenceDestroy(pref)
		ws := uint64(maxWS)
		r := a.cublasLtMatmulPreferenceSetAttribute(pref, prefMaxWorkspaceBytes, unsafe.Pointer(&ws), 8)
		if err := a.check("cublasLtMatmulPreferenceSetAttribute", r); err != nil {
			return fmt.Errorf("set CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES: %w", err)
		}
		if g.alignY() < Alignment { // Y is C (read when accumulating) and D
			al := uint32(g.alignY())
			for _, at := range []struct {
				name string
				attr uint32
			}{{"C", prefMinAlignmentCBytes}, {"D", prefMinAlignmentDBytes}} {
				r := a.cublasLtMatmulPreferenceSetAttribute(pref, at.attr, unsafe.Pointer(&al), 4)
				if err := a.check("cublasLtMatmulPreferenceSetAttribute", r); err != nil {
					return fmt.Errorf("set CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_%s_BYTES: %w", at.name, err)
				}
			}
		}
		var res heuristicResult
		var n int32
		r = a.cublasLtMatmulAlgoGetHeuristic(h.h, p.desc, p.a, p.b, p.d, p.d, pref, 1, &res, &n)
		if err := a.check("cublasLtMatmulAlgoGetHeuristic", r); err != nil {
			return err
		}
		if n < 1 {
			return fmt.Errorf("cublasLtMatmulAlgoGetHeuristic found no algorithm within a %d-byte workspace", maxWS)
		}
		if err := a.check("cublasLtMatmulAlgoGetHeuristic (the algorithm's state)", res.state); err != nil {
			return err
		}
		if res.workspaceSize > uint64(maxWS) {
			return fmt.Errorf("the algorithm needs %d bytes of workspace, over the limit %d", res.workspaceSize, maxWS)
		}
		p.al, p.ws, p.waves = res.algo, int64(res.workspaceSize), res.wavesCount
		return nil
	})
	if err != nil {
		p.destroy()
		return nil, fmt.Errorf("cublaslt: %s: %w", what, err)
	}
	return p, nil
}

// GEMM is the plan's description.
func (p *Plan) GEMM() GEMM { return p.g }

// WorkspaceBytes is the workspace the plan's algorithm needs: Run's
// workspace must have at least this many bytes.
func (p *Plan) WorkspaceBytes() int64 { return p.ws }

// Waves is the heuristic's estimate of the device utilisation (1: the
// kernel fills the GPU once).
func (p *Plan) Waves() float32 { return p.waves }

// Buffer is device memory: *cuda.DevicePtr is one. It must stay allocated
// while the work that uses it runs.
type Buffer interface {
	Addr() uint64
	Size() int64
}

// Stream is where Run enqueues the product: *cuda.Stream is one, and a
// nil Stream (or a nil *cuda.Stream) is the legacy default stream.
type Stream interface {
	Handle() (uintptr, error)
}

// Operands are the buffers of one Run. X, W, Y and Bias hold the types of
// the plan's precision (X and W bf16 for BF16; Y and Bias bf16 with
// OutBF16, else fp32), row-major as GEMM says. Bias is needed exactly when
// the epilogue adds one. Workspace may be nil when the plan needs none.
type Operands struct {
	X, W, Bias, Y Buffer
	Workspace     Buffer
}

// Alignment is the alignment, in bytes, that Run requires of every buffer.
const Alignment = 256

// checkBuffer validates one operand, whose address must be align-byte
// aligned.
func checkBuffer(name string, b Buffer, need, align int64) error {
	if b == nil {
		return fmt.Errorf("%s: no buffer", name)
	}
	if b.Size() < need {
		return fmt.Errorf("%s: %d bytes do not hold the %d the product needs", name, b.Size(), need)
	}
	if b.Addr()%uint64(align) != 0 {
		return fmt.Errorf("%s: address %#x is not %d-byte aligned", name, b.Addr(), align)
	}
	return nil
}

// addr is b's address; 0 for nil.
func addr(b Buffer) uint64 {
	if b == nil {
		return 0
	}
	return b.Addr()
}

// Run enqueues Y = act(X·W + bias) on s (cublasLtMatmul) with the plan's
// algorithm. The operands are checked first (presence, sizes, alignment),
// before any cuBLASLt call.
func (p *Plan) Run(s Stream, o Operands) error {
	if p == nil {
		return fmt.Errorf("cublaslt: run: nil Plan")
	}
	what := "run " + p.g.String()
	if err := p.h.usable(what); err != nil {
		return err
	}
	if err := p.checkOperands(o); err != nil {
		return fmt.Errorf("cublaslt: %s: %w", what, err)
	}
	var stream uintptr
	if s != nil {
		var err error
		if stream, err = s.Handle(); err != nil {
			return fmt.Errorf("cublaslt: %s: %w", what, err)
		}
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return fmt.Errorf("%s: %w", what, errClosed("Plan"))
	}
	a := p.h.api
	err := p.h.current(func() error {
		if p.g.Epilogue.HasBias() {
			bias := o.Bias.Addr()
			r := a.cublasLtMatmulDescSetAttribute(p.desc, descBiasPointer, unsafe.Pointer(&bias), 8)
			if err := a.check("cublasLtMatmulDescSetAttribute", r); err != nil {
				return fmt.Errorf("set CUBLASLT_MATMUL_DESC_BIAS_POINTER: %w", err)
			}
		}
		y := o.Y.Addr()
		r := a.cublasLtMatmul(p.h.h, p.desc, unsafe.Pointer(&p.alpha), o.W.Addr(), p.a, o.X.Addr(), p.b,
			unsafe.Pointer(&p.beta), y, p.d, y, p.d, &p.al, addr(o.Workspace), uint64(p.ws), stream)
		runtime.KeepAlive(p)
		return a.check("cublasLtMatmul", r)
	})
	if err != nil {
		return fmt.Errorf("cublaslt: %s: %w", what, err)
	}
	return nil
}

func (p *Plan) checkOperands(o Operands) error {
	for _, b := range []struct {
		name        string
		buf         Buffer
		need, align int64
	}{{"X", o.X, p.xBytes, Alignment}, {"W", o.W, p.wBytes, Alignment}, {"Y", o.Y, p.yBytes, p.g.alignY()}} {
		if err := checkBuffer(b.name, b.buf, b.need, b.align); err != nil {
			return err
		}
	}
	if p.g.Epilogue.HasBias() {
		if err := checkBuffer("bias", o.Bias, p.biasSize, Alignment); err != nil {
			return err
		}
	} else if o.Bias != nil {
		return fmt.Errorf("bias: the %v epilogue adds none", p.g.Epilogue)
	}
	if p.ws > 0 {
		if err := checkBuffer("workspace", o.Workspace, p.ws, Alignment); err != nil {
			return err
		}
	} else if o.Workspace != nil && o.Workspace.Addr()%Alignment != 0 {
		return fmt.Errorf("workspace: address %#x is not %d-byte aligned", o.Workspace.Addr(), Alignment)
	}
	return nil
}

// Close destroys the plan's descriptors; closing twice is a no-op.
func (p *Plan) Close() error {
	if p == nil {
		return nil
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return nil
	}
	p.closed = true
	return p.destroy()
}

// destroy releases the descriptors made so far (host objects: no context
// is needed).
func (p *Plan) destroy() error {
	a := p.h.api
	var first error
	keep := func(fn string, s Status) {
		if err := a.check(fn, s); err != nil && first == nil {
			first = fmt.Errorf("cublaslt: close plan %s: %w", p.g.String(), err)
		}
	}
	for _, l := range []*uintptr{&p.a, &p.b, &p.d} {
		if *l != 0 {
			keep("cublasLtMatrixLayoutDestroy", a.cublasLtMatrixLayoutDestroy(*l))
			*l = 0
		}
	}
	if p.desc != 0 {
		keep("cublasLtMatmulDescDestroy", a.cublasLtMatmulDescDestroy(p.desc))
		p.desc = 0
	}
	return first
}
