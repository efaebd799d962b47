package session

import (
	"errors"
	"fmt"
	"strings"
	"sync"
	"unsafe"

	"github.com/recom-compiler/recom/dialects/fused/abi"
	"github.com/recom-compiler/recom/interp"
	"github.com/recom-compiler/recom/runtime/cublaslt"
	"github.com/recom-compiler/recom/runtime/cuda"
	"github.com/recom-compiler/recom/runtime/densekern"
	"github.com/recom-compiler/recom/textir"
)

// CublasLtOptions configure NewCublasLtDense.
type CublasLtOptions struct {
	// Precision is the products' arithmetic (see Options.Precision).
	Precision cublaslt.Precision
	// WeightsNK stores each weight N×K (cuBLASLt's A transposed:
	// K-major), the layout of torch.nn.Linear and the one Hopper's
	// tensor-core kernels read for every input type (wgmma's tf32
	// operands must be K-major). By default a weight stays K×N,
	// row-major as TensorFlow's MatMul reads it (A untransposed: M-major),
	// the layout of PyTorch's addmm with the same weights and the one
	// measured against it (bench/RESULTS.md, 2026-12-03).
	WeightsNK bool
	// MaxWorkspaceBytes bounds each product's workspace (0:
	// cublaslt.DefaultWorkspaceBytes).
	MaxWorkspaceBytes int64
	// Inputs says how a layer over a concatenation of inputs multiplies:
	// InputsSplit, one product per input, accumulating; InputsConcat, one
	// product over the inputs moved into one buffer; "" chooses (split in
	// fp32 and tf32, concatenated in bf16: see NewCublasLtDense).
	Inputs string
}

// The values of CublasLtOptions.Inputs.
const (
	InputsSplit  = "split"
	InputsConcat = "concat"
)

// NewCublasLtDense returns the DenseBackend of cuBLASLt's products: each
// fused.dense is one cuBLASLt product per batch size (plans made by
// Workspace, outside any capture, and captured in the batch's graph),
// with the bias and ReLU in the product's epilogue.
//
// A layer over a concatenation of inputs is, in fp32 and tf32, one product
// per input over its rows of the weight, each after the first
// accumulating into the output (beta 1), the bias and activation in the
// last: no input is copied (an embedding layer writes its output
// contiguous, so a concatenated buffer would cost a copy of it). In bf16
// it is one product over the concatenated input (Layout.Concat): the
// embedding layer's float32 output must be converted anyway, and the
// conversion writes it into its columns; the products before write their
// bf16 outputs straight into theirs (Layout.OutPitched).
//
// In bf16 the weights are converted once (cublaslt.ToBF16), and the
// outputs that only bf16 products read stay bf16 on the device; an
// output the host reads is float32.
//
// cuBLASLt has no sigmoid or tanh epilogue: a layer with one of them is
// the product with the bias epilogue into a float32 output, then
// runtime/densekern's kernel of the activation over it, in place (float64
// inside, as the interpreter computes it). Those are the prediction
// layers of the models this compiler sees (N of 1 or a few): a product
// of about 2 µs and a kernel of about as much, where the program's own
// tiled kernel would take one block per 256 rows through K.
func NewCublasLtDense(lib *cublaslt.Library, o CublasLtOptions) DenseBackend {
	return &cublasLtDense{lib: lib, o: o}
}

type cublasLtDense struct {
	lib *cublaslt.Library
	o   CublasLtOptions

	mu   sync.Mutex
	h    *cublaslt.Handle
	ctx  *cuda.Context
	kern *cuda.Module // runtime/densekern's kernels, loaded for the first activation
	refs int          // steps holding h (and kern)
}

// Name implements DenseBackend.
func (c *cublasLtDense) Name() string {
	w := "weights K×N"
	if c.o.WeightsNK {
		w = "weights N×K"
	}
	if c.o.Inputs != "" {
		w += ", concatenated inputs: " + c.o.Inputs
	}
	return fmt.Sprintf("%v, %v, %s", c.lib, c.o.Precision, w)
}

// handle returns the backend's handle for ctx, made by the first step.
func (c *cublasLtDense) handle(ctx *cuda.Context) (*cublaslt.Handle, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.h == nil {
		h, err := c.lib.NewHandle(ctx)
		if err != nil {
			return nil, err
		}
		c.h, c.ctx = h, ctx
	} else if ctx != c.ctx {
		return nil, errors.New("a cuBLASLt dense backend serves one CUDA context")
	}
	c.refs++
	return c.h, nil
}

// kernel returns runtime/densekern's kernel k, its module loaded by the
// first step that needs one.
func (c *cublasLtDense) kernel(k densekern.Kernel) (*cuda.Function, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.kern == nil {
		m, err := c.ctx.LoadModule(densekern.PTX)
		if err != nil {
			return nil, fmt.Errorf("the dense kernels: %w", err)
		}
		c.kern = m
	}
	return c.kern.Function(k.Name)
}

// release drops a step's hold on the handle; the last closes it and the
// kernels' module.
func (c *cublasLtDense) release() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.refs--; c.refs > 0 || c.h == nil {
		return nil
	}
	h, m := c.h, c.kern
	c.h, c.ctx, c.kern = nil, nil, nil
	return errors.Join(m.Close(), h.Close())
}

// Prepare implements DenseBackend.
func (c *cublasLtDense) Prepare(dev *Device, op *textir.Operation, d *abi.Dense, w, bias *interp.Tensor) (DenseStep, error) {
	epi, rest, err := cublaslt.ForActivation(d.Activation, d.Bias)
	if err != nil {
		return nil, op.Errorf("%v", err)
	}
	if i := c.o.Inputs; i != "" && i != InputsSplit && i != InputsConcat {
		return nil, op.Errorf("cuBLASLt: Inputs %q: want %q, %q or empty", i, InputsSplit, InputsConcat)
	}
	if d.TransposeA {
		return nil, op.Errorf("transpose_a: the cuBLASLt backend reads row-major [batch, K] inputs")
	}
	k := d.K()
	wr, wc := k, d.N
	if d.TransposeB {
		wr, wc = wc, wr
	}
	if w.Float32s() == nil || w.Rank() != 2 || w.Dim(0) != wr || w.Dim(1) != wc {
		return nil, op.Errorf("the weight must be a float32 %dx%d matrix, got %v of shape %s", wr, wc, w.DType(), interp.ShapeString(w.Shape()))
	}
	if d.Bias && (bias == nil || bias.Float32s() == nil || bias.Rank() != 1 || bias.Dim(0) != d.N) {
		return nil, op.Errorf("the bias must be a float32 vector of %d", d.N)
	}
	h, err := c.handle(dev.Context)
	if err != nil {
		return nil, op.Errorf("cuBLASLt: %v", err)
	}
	st := &ltStep{c: c, op: op, name: nodeName(op), d: d, epi: epi, ctx: dev.Context, h: h,
		out: F32, ld: d.N, align: align, plans: map[int64][]*cublaslt.Plan{}}
	if d.Bias {
		st.biasHost = bias.Float32s()
	}
	ok := false
	defer func() {
		if !ok {
			st.Close()
		}
	}()
	if rest != "" {
		if st.act, err = densekern.Activation(rest); err == nil {
			st.actFn, err = c.kernel(st.act)
		}
		if err != nil {
			return nil, op.Errorf("%v", err)
		}
	}
	// The parts of K: the inputs, or all of K over a concatenated input.
	ks := d.Ks
	if st.concat() {
		ks = []int64{k}
	}
	off := int64(0)
	for _, kp := range ks {
		blk := weightBlock(w.Float32s(), k, d.N, d.TransposeB, off, kp, c.o.WeightsNK)
		var p *cuda.DevicePtr
		if c.o.Precision == cublaslt.BF16 {
			p, err = uploadAs(dev.Context, cublaslt.ToBF16(blk))
		} else {
			p, err = uploadAs(dev.Context, blk)
		}
		if err != nil {
			return nil, op.Errorf("weight: %v", err)
		}
		st.parts = append(st.parts, ltPart{k: kp, w: p})
		off += kp
	}
	if err := st.uploadBias(); err != nil {
		return nil, err
	}
	ok = true
	return st, nil
}

// weightBlock returns rows [off, off+k) of the K×N weight w (stored K×N,
// or N×K with transposeB), laid out k×N, or N×k with nk.
func weightBlock(w []float32, K, N int64, transposeB bool, off, k int64, nk bool) []float32 {
	out := make([]float32, k*N)
	for kk := range k {
		for n := range N {
			v := w[(off+kk)*N+n]
			if transposeB {
				v = w[n*K+off+kk]
			}
			if nk {
				out[n*k+kk] = v
			} else {
				out[kk*N+n] = v
			}
		}
	}
	return out
}

// uploadAs copies v to a new device allocation.
func uploadAs[T cuda.Elem](c *cuda.Context, v []T) (*cuda.DevicePtr, error) {
	var zero T
	p, err := c.Alloc(max(int64(len(v))*int64(unsafe.Sizeof(zero)), 4))
	if err != nil {
		return nil, err
	}
	if err := cuda.CopyToDevice(p, v); err != nil {
		p.Close()
		return nil, err
	}
	return p, nil
}

// ltStep is one fused.dense as cuBLASLt products.
type ltStep struct {
	c        *cublasLtDense
	op       *textir.Operation
	name     string
	d        *abi.Dense
	epi      cublaslt.Epilogue
	ctx      *cuda.Context
	h        *cublaslt.Handle
	parts    []ltPart
	biasHost []float32
	bias     *cuda.DevicePtr  // in the output's type
	act      densekern.Kernel // the activation after the products (Act "" for none)
	actFn    *cuda.Function

	out       Format
	ld, align int64

	mu     sync.Mutex
	plans  map[int64][]*cublaslt.Plan // per batch size, one per part
	closed bool
}

// ltPart is a product over a part of K: its rows of the weight, on the
// device in the plan's layout and type.
type ltPart struct {
	k int64
	w *cuda.DevicePtr
}

func (st *ltStep) concat() bool {
	switch st.c.o.Inputs {
	case InputsConcat:
		return true
	case InputsSplit:
		return false
	}
	return st.c.o.Precision == cublaslt.BF16
}

// Layout implements LaidOutStep.
func (st *ltStep) Layout() Layout {
	bf := st.c.o.Precision == cublaslt.BF16
	in := F32
	if bf {
		in = BF16
	}
	// cuBLASLt's vectorized kernels read and write 16-byte pieces: a Y
	// at a column offset or pitch of fewer may find no algorithm. The
	// activation kernels work on a contiguous float32 output.
	plain := st.act.Act == ""
	return Layout{In: in, Concat: st.concat(), OutBF16: bf && plain, OutPitched: plain, PitchAlign: 16, Warm: true}
}

// SetOutput implements LaidOutStep.
func (st *ltStep) SetOutput(f Format, ld, align int64) error {
	if f == BF16 && st.c.o.Precision != cublaslt.BF16 {
		return fmt.Errorf("a bf16 output needs precision bf16, not %v", st.c.o.Precision)
	}
	st.mu.Lock()
	defer st.mu.Unlock()
	if len(st.plans) > 0 {
		return errors.New("SetOutput after the first plan")
	}
	changed := f != st.out
	st.out, st.ld, st.align = f, ld, align
	if changed {
		return st.uploadBias()
	}
	return nil
}

// uploadBias puts the bias on the device in the output's type (cuBLASLt's
// rule for its epilogue).
func (st *ltStep) uploadBias() error {
	if st.biasHost == nil {
		return nil
	}
	if st.bias != nil {
		st.bias.Close()
		st.bias = nil
	}
	var err error
	if st.out == BF16 {
		st.bias, err = uploadAs(st.ctx, cublaslt.ToBF16(st.biasHost))
	} else {
		st.bias, err = uploadAs(st.ctx, st.biasHost)
	}
	if err != nil {
		return st.op.Errorf("bias: %v", err)
	}
	return nil
}

// gemms are the products of a batch of b rows.
func (st *ltStep) gemms(b int64) []cublaslt.GEMM {
	gs := make([]cublaslt.GEMM, len(st.parts))
	for i, p := range st.parts {
		g := cublaslt.GEMM{Name: st.name, B: b, K: p.k, N: st.d.N, TransposeW: st.c.o.WeightsNK, Precision: st.c.o.Precision,
			OutBF16: st.out == BF16, Epilogue: cublaslt.EpilogueDefault, Accumulate: i > 0, MaxWorkspaceBytes: st.c.o.MaxWorkspaceBytes}
		if i == len(st.parts)-1 {
			g.Epilogue = st.epi
		}
		if st.ld != st.d.N {
			g.LdY = st.ld
		}
		if st.align < cublaslt.Alignment {
			g.AlignY = st.align
		}
		gs[i] = g
	}
	return gs
}

// Workspace implements DenseStep: it makes the batch size's plans.
func (st *ltStep) Workspace(b int64) (int64, error) {
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.closed {
		return 0, errors.New("cuBLASLt step used after Close")
	}
	ps := st.plans[b]
	if ps == nil {
		for _, g := range st.gemms(b) {
			p, err := st.h.NewPlan(g)
			if err != nil {
				for _, q := range ps {
					q.Close()
				}
				return 0, err
			}
			ps = append(ps, p)
		}
		st.plans[b] = ps
	}
	var ws int64
	for _, p := range ps {
		ws = max(ws, p.WorkspaceBytes())
	}
	return ws, nil
}

// Enqueue implements DenseStep.
func (st *ltStep) Enqueue(s *cuda.Stream, b int64, xs []Buffer, y, ws Buffer) error {
	st.mu.Lock()
	ps := st.plans[b]
	st.mu.Unlock()
	if ps == nil {
		return fmt.Errorf("no cuBLASLt plan for a batch of %d (Workspace makes them)", b)
	}
	if len(xs) != len(st.parts) {
		return fmt.Errorf("%d inputs for %d products", len(xs), len(st.parts))
	}
	for i, p := range ps {
		o := cublaslt.Operands{X: xs[i], W: st.parts[i].w, Y: y}
		if p.GEMM().Epilogue.HasBias() {
			o.Bias = st.bias
		}
		if ws.Ptr != nil {
			o.Workspace = ws
		}
		if err := p.Run(s, o); err != nil {
			return err
		}
	}
	if st.actFn != nil {
		if err := st.actFn.Launch(cuda.Dim(int(densekern.ActGrid(b, st.d.N))), cuda.Dim(densekern.Threads), 0, s, y.Addr(), b, st.d.N, y.Ld); err != nil {
			return fmt.Errorf("launch %s: %w", st.act.Name, err)
		}
	}
	return nil
}

// Describe implements DenseStep.
func (st *ltStep) Describe(b int64) string {
	st.mu.Lock()
	ps := st.plans[b]
	st.mu.Unlock()
	var out []string
	for i, g := range st.gemms(b) {
		d := "cuBLASLt " + strings.Replace(g.String(), fmt.Sprintf("%q ", st.name), "", 1)
		if i < len(ps) && ps[i].WorkspaceBytes() > 0 {
			d += fmt.Sprintf(" (workspace %d)", ps[i].WorkspaceBytes())
		}
		out = append(out, d)
	}
	if st.actFn != nil {
		out = append(out, fmt.Sprintf("kernel %s %d x %d", st.act.Name, densekern.ActGrid(b, st.d.N), densekern.Threads))
	}
	return strings.Join(out, ", then ")
}

// Close implements DenseStep.
func (st *ltStep) Close() error {
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.closed {
		return nil
	}
	st.closed = true
	var errs []error
	for _, ps := range st.plans {
		for _, p := range ps {
			errs = append(errs, p.Close())
		}
	}
	for _, p := range st.parts {
		errs = append(errs, p.w.Close())
	}
	errs = append(errs, st.bias.Close(), st.c.release())
	return errors.Join(errs...)
}
