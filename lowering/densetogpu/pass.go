// Package densetogpu is the --fuse-dense pass: the dense part of a model
// (the multilayer perceptrons of DLRM-style models) on the GPU.
//
// It finds each dense chain of tfg ops — a MatMul of a constant or
// variable weight (transpose_a / transpose_b honoured), then optionally a
// BiasAdd (or Add) of a bias vector, then optionally Relu, Sigmoid or
// Tanh — and replaces it with one fused.dense op (see dialects/fused and its abi package) whose
// kernel, a gpu.func in gpu.module @dense, computes Y = act(X·W + b) with
// the bias and the activation in the product's epilogue. When the MatMul's
// input is a ConcatV2 on axis 1 used by nothing else (the join of the
// embedding layer's output with the bottom MLP), the concatenation is
// fused into the product as well: each part covers its own range of K, so
// no concatenated tensor is ever made.
//
// The kernel is a classic tiled product: a block computes a
// block_m×block_n tile of Y, stepping through K by block_k with both tiles
// staged in shared memory (16-byte global loads where the widths allow,
// zeros outside the matrices), every thread keeping thread_m×thread_n
// accumulators in registers. By default the products are accumulated in
// float64 in the order k = 0..K-1, which is what the interpreter's MatMul
// does: the GPU's result is the interpreter's bit for bit before the
// activation (accumulate=f32 is faster and only close).
//
// The fused op keeps the name (and location) of the chain's last node, so
// that a fetch of "prediction" still finds the model's output.
package densetogpu

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/recom-compiler/recom/dialects/fused"
	"github.com/recom-compiler/recom/dialects/fused/abi"
	"github.com/recom-compiler/recom/dialects/gpu"
	"github.com/recom-compiler/recom/dialects/tfg"
	"github.com/recom-compiler/recom/lowering/pass"
	"github.com/recom-compiler/recom/textir"
)

// Flag is the pass's command-line name.
const Flag = "fuse-dense"

// ModuleName is the gpu.module the kernels go into.
const ModuleName = "dense"

// Decl declares the --fuse-dense pass. Its option values fill the typed
// Options (optionsFrom); DefaultOptions are its defaults.
var Decl = pass.Decl{
	Flag:    Flag,
	Name:    "FuseDense",
	Summary: "Fuse each dense layer (MatMul, bias, activation; a ConcatV2 before it) into one GPU kernel",
	Anchor:  "builtin.module",
	Options: []pass.OptDecl{
		{Name: "accumulate", Kind: pass.StringOption, Default: abi.AccF64,
			Help: "Accumulator precision: f64 (exact, the interpreter's sums) or f32"},
		{Name: "block-m", Kind: pass.IntOption, Help: "Rows of a block's output tile (0: chosen per layer)"},
		{Name: "block-n", Kind: pass.IntOption, Help: "Columns of a block's output tile (0: chosen per layer)"},
		{Name: "block-k", Kind: pass.IntOption, Help: "K step staged in shared memory (0: 16)"},
		{Name: "thread-m", Kind: pass.IntOption, Help: "Rows of outputs per thread (0: chosen per layer)"},
		{Name: "thread-n", Kind: pass.IntOption, Help: "Columns of outputs per thread (0: chosen per layer)"},
		{Name: "split-k", Kind: pass.StringOption, Default: "auto",
			Help: "K slices: auto (chosen per launch from the batch) or a number (1: never split)"},
		{Name: "no-concat", Kind: pass.BoolOption,
			Help: "Do not fuse a ConcatV2 before the product (it stays in the interpreter)"},
	},
	Statistics: []pass.StatDecl{
		{Name: "layers", Help: "Dense layers fused into one kernel"},
		{Name: "concats", Help: "ConcatV2 ops fused into a product"},
	},
	New: func(o *pass.Options) pass.Runner { return &Pass{opts: optionsFrom(o)} },
}

// Options are the pass's options; zero tile sizes are chosen per layer.
type Options struct {
	Accumulate                               string
	BlockM, BlockN, BlockK, ThreadM, ThreadN int64
	NoConcat                                 bool
	// SplitK is "auto" (or ""), or the number of K slices of every launch.
	SplitK string
}

// Split-K planning of split-k=auto.
const (
	// MinSliceSteps is the fewest block_k steps of a slice.
	MinSliceSteps = 4
	// MinAutoSteps is the fewest block_k steps of a layer that
	// split-k=auto splits (a shorter K is not worth a second launch).
	MinAutoSteps = 16
	// MaxAutoSplit is the most slices split-k=auto plans for.
	MaxAutoSplit = 64
)

// Pass is the --fuse-dense pass; its options are declared in Decl.
//
// Split-K: a block walks K in order, so a small batch (few block rows)
// leaves most of the GPU idle. With split-k=auto (the default) a layer of
// at least MinAutoSteps steps of block_k gets a kernel that may cut K
// into up to min(MaxAutoSplit, steps/MinSliceSteps) slices, and each launch
// takes the fewest that give abi.TargetBlocks blocks (abi.Dense.Splits:
// one slice, no second kernel, once the batch fills the GPU); split-k=N
// always cuts N slices. Each block sums its slice in k order; the reduce
// kernel adds the slices' partial sums in slice order (deterministic),
// then the bias and the activation.
type Pass struct {
	opts Options
}

// optionsFrom returns the typed options given by the pass's option values
// (accumulate and split-k are case-insensitive).
func optionsFrom(o *pass.Options) Options {
	return Options{Accumulate: strings.ToLower(o.String("accumulate")),
		BlockM: int64(o.Int("block-m")), BlockN: int64(o.Int("block-n")), BlockK: int64(o.Int("block-k")),
		ThreadM: int64(o.Int("thread-m")), ThreadN: int64(o.Int("thread-n")), NoConcat: o.Bool("no-concat"),
		SplitK: strings.ToLower(o.String("split-k"))}
}

// DefaultOptions returns the defaults of the options declared in Decl.
func DefaultOptions() Options { return optionsFrom(Decl.Defaults()) }

func (p *Pass) options() Options { return p.opts }

func pow2ceil(n int64) int64 {
	p := int64(1)
	for p < n {
		p <<= 1
	}
	return p
}

// Plan fills the tiling of d (Ks, N and the flags set) from the options.
func Plan(d *abi.Dense, o Options) error {
	d.Accumulate = o.Accumulate
	if d.Accumulate == "" {
		d.Accumulate = abi.AccF64
	}
	d.BlockN = o.BlockN
	if d.BlockN == 0 {
		d.BlockN = min(64, pow2ceil(d.N))
	}
	d.ThreadN = o.ThreadN
	if d.ThreadN == 0 {
		d.ThreadN = min(4, d.BlockN)
	}
	d.ThreadM = o.ThreadM
	if d.ThreadM == 0 {
		d.ThreadM = 4
	}
	d.BlockM = o.BlockM
	if d.BlockM == 0 {
		d.BlockM = 64
		for d.Threads() < 64 && d.BlockM < 256 { // narrow outputs: more rows per block
			d.BlockM *= 2
		}
	}
	d.BlockK = o.BlockK
	if d.BlockK == 0 {
		d.BlockK = 16
	}
	if err := d.Check(); err != nil {
		return err
	}
	d.SplitK, d.SplitAuto = 1, false
	switch o.SplitK {
	case "", "auto":
		if s := min(MaxAutoSplit, d.Steps()/MinSliceSteps); s >= 2 && d.Steps() >= MinAutoSteps {
			d.SplitK, d.SplitAuto = s, true
		}
	default:
		n, err := strconv.ParseInt(o.SplitK, 10, 64)
		if err != nil || n < 1 || n > abi.MaxSplitK {
			return fmt.Errorf("split-k must be auto or a number in [1, %d], got %q", abi.MaxSplitK, o.SplitK)
		}
		d.SplitK = min(n, d.Steps())
	}
	return d.Check()
}

// chain is one dense layer to fuse.
type chain struct {
	matmul, bias, act *textir.Operation
	concat            *textir.Operation // fused ConcatV2, or nil
	concatAxis        *textir.Operation // its axis constant
	inputs            []*textir.Value
	w, b              *textir.Value
	d                 abi.Dense
}

// last returns the chain's last op (whose result the fused op replaces).
func (c *chain) last() *textir.Operation {
	switch {
	case c.act != nil:
		return c.act
	case c.bias != nil:
		return c.bias
	}
	return c.matmul
}

func (p *Pass) Run(root *textir.Operation, st *pass.State) error {
	o := p.options()
	if o.Accumulate != abi.AccF64 && o.Accumulate != abi.AccF32 {
		return fmt.Errorf("--%s: accumulate must be f64 or f32, got %q", Flag, o.Accumulate)
	}
	layers := st.Stat("layers", "Dense layers fused into one kernel")
	concats := st.Stat("concats", "ConcatV2 ops fused into a product")
	var mms []*textir.Operation
	root.Walk(func(op *textir.Operation) bool {
		if op.Name() == "tfg.MatMul" {
			mms = append(mms, op)
		}
		return true
	})
	ctx := st.Context()
	var mod *textir.Operation
	changed := false
	for _, mm := range mms {
		c, ok := match(mm, o, st)
		if !ok {
			continue
		}
		if err := Plan(&c.d, o); err != nil {
			return mm.Errorf("--%s: %v", Flag, err)
		}
		if mod == nil {
			body := root.Region(0).Front()
			if body == nil {
				return root.Errorf("expects a module with a body")
			}
			mod = textir.LookupSymbolIn(root, ModuleName)
			if mod != nil && mod.Name() != gpu.ModuleOp {
				return mod.Errorf("symbol @%s is taken, --%s needs it for its gpu.module", ModuleName, Flag)
			}
			if mod == nil {
				mod = gpu.NewModule(ctx, textir.NameLoc{Name: "dense_layers"}, ModuleName)
				body.Append(mod)
			}
		}
		rewrite(ctx, mod, c)
		layers.Inc()
		if c.concat != nil {
			concats.Inc()
		}
		changed = true
	}
	if !changed {
		st.MarkUnchanged()
	}
	return nil
}

// rewrite replaces the chain c with a fused.dense and its kernel.
func rewrite(ctx *textir.Context, mod *textir.Operation, c *chain) {
	last := c.last()
	nodeName := tfg.NodeName(last)
	loc := last.Loc()
	if nodeName != "" {
		if ln, ok := textir.LocName(loc); !ok || ln != nodeName {
			loc = textir.NameLoc{Name: nodeName}
		}
	}
	name := symbolName(tfg.NodeName(c.matmul))
	base := name
	for i := 1; textir.LookupSymbolIn(mod, name) != nil; i++ {
		name = fmt.Sprintf("%s_%d", base, i)
	}
	mod.Region(0).Front().Append(BuildKernel(ctx, loc, name, &c.d))
	var reduce textir.SymbolRefAttr
	if c.d.Split() {
		rname := name + "_reduce"
		for i := 1; textir.LookupSymbolIn(mod, rname) != nil; i++ {
			rname = fmt.Sprintf("%s_reduce_%d", name, i)
		}
		mod.Region(0).Front().Append(BuildReduceKernel(ctx, loc, rname, &c.d))
		reduce = textir.SymbolRefAttr{Root: ModuleName, Nested: []string{rname}}
	}
	operands := append(append([]*textir.Value(nil), c.inputs...), c.w)
	if c.b != nil {
		operands = append(operands, c.b)
	}
	b := textir.NewBuilder(ctx)
	b.SetInsertionPoint(last)
	op := b.Create(&textir.OperationState{Name: fused.DenseOp, Loc: loc, Operands: operands,
		ResultTypes: []textir.Type{textir.TensorOf([]int64{textir.Dynamic, c.d.N}, textir.F32())},
		Attrs:       append(c.d.Attrs(textir.SymbolRefAttr{Root: ModuleName, Nested: []string{name}}), c.d.SplitAttrs(reduce)...)})
	if nodeName != "" {
		op.SetAttr("_mlir_name", textir.Str(nodeName))
	}
	last.Result(0).ReplaceAllUsesWith(op.Result(0))
	for _, o := range []*textir.Operation{c.act, c.bias, c.matmul, c.concat} {
		if o != nil {
			o.Erase()
		}
	}
	if c.concat != nil { // its axis constant, when nothing else reads it
		if ax := c.concatAxis; ax != nil && !ax.HasResultUses() {
			ax.Erase()
		}
	}
}

// symbolName makes a symbol of a node name: the MatMul's layer path
// ("top_mlp/dense_1/MatMul" → "top_mlp_dense_1").
func symbolName(node string) string {
	node = strings.TrimSuffix(node, "/MatMul")
	var sb strings.Builder
	for _, r := range node {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '_':
			sb.WriteRune(r)
		default:
			sb.WriteByte('_')
		}
	}
	if sb.Len() == 0 || (sb.String()[0] >= '0' && sb.String()[0] <= '9') {
		return "dense_" + sb.String()
	}
	return sb.String()
}

// soleDataUser returns the only user of op's data result #0 when op has
// one data result, no other use of it, and no use of its control result.
func soleDataUser(op *textir.Operation) *textir.Operation {
	if len(tfg.DataResults(op)) != 1 || !op.Result(0).HasOneUse() {
		return nil
	}
	if c := tfg.ControlResult(op); c != nil && c.HasUses() {
		return nil
	}
	for u := range op.Result(0).Users() {
		return u
	}
	return nil
}

// noControl reports whether op has no control operands and no used
// control result (so that it can be replaced without losing an edge).
func noControl(op *textir.Operation) bool {
	if len(tfg.DataOperands(op)) != op.NumOperands() {
		return false
	}
	c := tfg.ControlResult(op)
	return c == nil || !c.HasUses()
}

func isF32(op *textir.Operation) bool {
	t, ok := op.Attr("T").(textir.TypeAttr)
	return !ok || t.Type == textir.F32()
}

// match recognises the dense chain starting at the MatMul mm.
func match(mm *textir.Operation, o Options, st *pass.State) (*chain, bool) {
	in := tfg.DataOperands(mm)
	if len(in) != 2 || !noControl(mm) || !isF32(mm) {
		return nil, false
	}
	c := &chain{matmul: mm, w: in[1]}
	c.d.TransposeA = boolAttr(mm, "transpose_a")
	c.d.TransposeB = boolAttr(mm, "transpose_b")
	ws, ok := constShape(in[1])
	if !ok || len(ws) != 2 || ws[0] < 1 || ws[1] < 1 {
		st.Emit(mm.Remarkf("not fused: the weight is not a constant or variable of known 2-D shape"))
		return nil, false
	}
	K, N := ws[0], ws[1]
	if c.d.TransposeB {
		K, N = N, K
	}
	c.d.N = N
	c.inputs = []*textir.Value{in[0]}
	c.d.Ks = []int64{K}
	// The ConcatV2 that joins the inputs.
	if cc := in[0].DefiningOp(); cc != nil && cc.Name() == "tfg.ConcatV2" && !c.d.TransposeA && !o.NoConcat &&
		soleDataUser(cc) == mm && noControl(cc) && isF32(cc) {
		parts := tfg.DataOperands(cc)
		if ax, ok := tfg.ConstInt(parts[len(parts)-1]); ok && (ax == 1 || ax == -1) && len(parts) >= 3 {
			var ks []int64
			sum := int64(0)
			for _, v := range parts[:len(parts)-1] {
				w, ok := width(v)
				if !ok {
					ks = nil
					break
				}
				ks = append(ks, w)
				sum += w
			}
			if ks != nil && sum == K {
				c.concat = cc
				c.concatAxis = parts[len(parts)-1].DefiningOp()
				c.inputs = parts[:len(parts)-1]
				c.d.Ks = ks
			}
		}
	}
	// The bias.
	next := soleDataUser(mm)
	if next != nil && noControl(next) && isF32(next) {
		ops := tfg.DataOperands(next)
		switch {
		case next.Name() == "tfg.BiasAdd" && len(ops) == 2 && ops[0] == mm.Result(0) && nhwc(next):
			c.b = ops[1]
		case (next.Name() == "tfg.Add" || next.Name() == "tfg.AddV2") && len(ops) == 2:
			if ops[0] == mm.Result(0) {
				c.b = ops[1]
			} else if ops[1] == mm.Result(0) {
				c.b = ops[0]
			}
		}
		if c.b != nil {
			if bs, ok := constShape(c.b); !ok || len(bs) != 1 || bs[0] != N {
				c.b = nil
			} else {
				c.bias = next
				c.d.Bias = true
				next = soleDataUser(next)
			}
		}
	}
	// The activation.
	c.d.Activation = abi.ActNone
	if next != nil && noControl(next) && isF32(next) && len(tfg.DataOperands(next)) == 1 {
		switch next.Name() {
		case "tfg.Relu":
			c.d.Activation = abi.ActRelu
		case "tfg.Sigmoid":
			c.d.Activation = abi.ActSigmoid
		case "tfg.Tanh":
			c.d.Activation = abi.ActTanh
		}
		if c.d.Activation != abi.ActNone {
			c.act = next
		}
	}
	return c, true
}

func boolAttr(op *textir.Operation, name string) bool {
	b, _ := op.Attr(name).(textir.BoolAttr)
	return b.Value
}

func nhwc(op *textir.Operation) bool {
	s, ok := op.Attr("data_format").(textir.StringAttr)
	return !ok || s.Value == "" || s.Value == "NHWC"
}
