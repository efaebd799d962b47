package densetogpu

import (
	"fmt"
	"strings"

	"github.com/recom-compiler/recom/dialects/fused"
	"github.com/recom-compiler/recom/dialects/fused/abi"
	"github.com/recom-compiler/recom/dialects/gpu"
	"github.com/recom-compiler/recom/dialects/tfg"
	"github.com/recom-compiler/recom/dialects/tfg/optab"
	"github.com/recom-compiler/recom/lowering/conversion"
	"github.com/recom-compiler/recom/textir"
)

// PatternName names the pattern that fuses a dense layer (in conversion
// diagnostics and match-failure reports).
const PatternName = "fuse-dense-layer"

// Counts is what the fuse-dense patterns did; they add to it as they
// rewrite.
type Counts struct {
	Layers  int64 // dense layers fused into one kernel
	Concats int64 // ConcatV2 ops fused into a product
}

// PopulateFuseDensePatterns adds the pattern that fuses a dense layer to
// patterns: rooted at a tfg.MatMul of a constant or variable weight, it
// takes the BiasAdd (or Add) of a bias vector and the Relu, Sigmoid or Tanh
// after it, and the ConcatV2 on axis 1 before it (unless o.NoConcat), and
// rewrites them into one fused.dense op and its kernels, gpu.funcs in
// gpu.module @dense (created at the end of the enclosing builtin.module
// when it is missing). o.Accumulate must be f64 or f32. counts, when not
// nil, receives what the pattern did.
func PopulateFuseDensePatterns(patterns *conversion.PatternList, o Options, counts *Counts) {
	if counts == nil {
		counts = &Counts{}
	}
	patterns.Add(&fuseDense{opts: o, counts: counts})
}

// fuseDense rewrites a dense chain into one fused.dense.
type fuseDense struct {
	opts   Options
	counts *Counts
}

func (p *fuseDense) Root() string { return "tfg.MatMul" }
func (p *fuseDense) Benefit() int { return 1 }
func (p *fuseDense) Name() string { return PatternName }

// MatchAndRewrite checks everything (the match, the tiling, the symbol of
// the kernel module) before it changes the IR; a tiling that fails is the
// conversion's error, located at the MatMul.
func (p *fuseDense) MatchAndRewrite(mm *textir.Operation, _ []*textir.Value, rw *conversion.ConversionRewriter) bool {
	c, why := match(mm, p.opts)
	if c == nil {
		return rw.NotifyMatchFailure(mm, "%s", why.msg)
	}
	if err := Plan(&c.d, p.opts); err != nil {
		rw.SetErr(mm.Errorf("--%s: %v", Flag, err))
		return false
	}
	top := enclosingModule(mm)
	if top == nil || top.NumRegions() == 0 || top.Region(0).Front() == nil {
		rw.SetErr(mm.Errorf("expects to be inside a module with a body"))
		return false
	}
	mod := textir.LookupSymbolIn(top, ModuleName)
	if mod != nil && mod.Name() != gpu.ModuleOp {
		rw.SetErr(mod.Errorf("symbol @%s is taken, --%s needs it for its gpu.module", ModuleName, Flag))
		return false
	}
	if mod == nil {
		mod = gpu.NewModule(rw.Context(), textir.NameLoc{Name: "dense_layers"}, ModuleName)
		rw.Builder().SetInsertionPointToEnd(top.Region(0).Front())
		rw.Insert(mod)
	}
	rewrite(rw, mod, c)
	p.counts.Layers++
	if c.concat != nil {
		p.counts.Concats++
	}
	return true
}

// enclosingModule returns the builtin.module nearest above op (the symbol
// table that holds the kernel module), or nil.
func enclosingModule(op *textir.Operation) *textir.Operation {
	for p := op.ParentOp(); p != nil; p = p.ParentOp() {
		if p.Name() == "builtin.module" {
			return p
		}
	}
	return nil
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

// rewrite replaces the chain c with a fused.dense and its kernel.
func rewrite(rw *conversion.ConversionRewriter, mod *textir.Operation, c *chain) {
	ctx := rw.Context()
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
	rw.Builder().SetInsertionPointToEnd(mod.Region(0).Front())
	rw.Insert(BuildKernel(ctx, loc, name, &c.d))
	var reduce textir.SymbolRefAttr
	if c.d.Split() {
		rname := name + "_reduce"
		for i := 1; textir.LookupSymbolIn(mod, rname) != nil; i++ {
			rname = fmt.Sprintf("%s_reduce_%d", name, i)
		}
		rw.Insert(BuildReduceKernel(ctx, loc, rname, &c.d))
		reduce = textir.SymbolRefAttr{Root: ModuleName, Nested: []string{rname}}
	}
	operands := append(append([]*textir.Value(nil), c.inputs...), c.w)
	if c.b != nil {
		operands = append(operands, c.b)
	}
	attrs := append(c.d.Attrs(textir.SymbolRefAttr{Root: ModuleName, Nested: []string{name}}), c.d.SplitAttrs(reduce)...)
	if nodeName != "" {
		attrs = append(attrs, textir.NamedAttribute{Name: "_mlir_name", Value: textir.Str(nodeName)})
	}
	rw.SetInsertionPoint(last)
	op := rw.Create(&textir.OperationState{Name: fused.DenseOp, Loc: loc, Operands: operands,
		ResultTypes: []textir.Type{textir.TensorOf([]int64{textir.Dynamic, c.d.N}, textir.F32())},
		Attrs:       attrs})
	// The fused result refines the chain's type in place (a graph's
	// tensor<*xf32> becomes tensor<?xNxf32>): no type converter is
	// involved, so the uses move without a materialization.
	dense, _ := fused.AsDense(op)
	rw.Rewriter.ReplaceAllUsesWith(optab.SoleResult(last), dense.Result())
	for _, o := range []*textir.Operation{c.act, c.bias, c.matmul, c.concat} {
		if o != nil {
			rw.EraseOp(o)
		}
	}
	if c.concat != nil { // its axis constant, when nothing else reads it
		if ax := c.concatAxis; ax != nil && !ax.HasResultUses() {
			rw.EraseOp(ax)
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

// soleDataUser returns the only user of op's data result when op has one
// data result, no other use of it, and no use of its control result.
func soleDataUser(op *textir.Operation) *textir.Operation {
	data := tfg.DataResults(op)
	if len(data) != 1 || !data[0].HasOneUse() {
		return nil
	}
	if c := tfg.ControlResult(op); c != nil && c.HasUses() {
		return nil
	}
	for u := range data[0].Users() {
		return u
	}
	return nil
}

func isF32(op *textir.Operation) bool {
	t, ok := op.Attr("T").(textir.TypeAttr)
	return !ok || t.Type == textir.F32()
}

// notFused says why a MatMul is not the root of a dense chain.
type notFused struct {
	msg    string
	remark bool // the MatMul gets a remark (a product the pattern could fuse but for its weight)
}

// match recognises the dense chain starting at the MatMul mm, or says why
// there is none. It changes nothing.
func match(mm *textir.Operation, o Options) (*chain, *notFused) {
	x, w := optab.Operand(mm, "a"), optab.Operand(mm, "b")
	if x == nil || w == nil || len(tfg.DataOperands(mm)) != 2 {
		return nil, &notFused{msg: "it does not have two inputs"}
	}
	if !tfg.NoControlEdges(mm) {
		return nil, &notFused{msg: "it has control edges"}
	}
	if !isF32(mm) {
		return nil, &notFused{msg: "its type is not f32"}
	}
	c := &chain{matmul: mm, w: w}
	c.d.TransposeA = boolAttr(mm, "transpose_a")
	c.d.TransposeB = boolAttr(mm, "transpose_b")
	ws, ok := constShape(w)
	if !ok || len(ws) != 2 || ws[0] < 1 || ws[1] < 1 {
		return nil, &notFused{msg: "the weight is not a constant or variable of known 2-D shape", remark: true}
	}
	K, N := ws[0], ws[1]
	if c.d.TransposeB {
		K, N = N, K
	}
	c.d.N = N
	c.inputs = []*textir.Value{x}
	c.d.Ks = []int64{K}
	// The ConcatV2 that joins the inputs.
	if cc := x.DefiningOp(); cc != nil && cc.Name() == "tfg.ConcatV2" && !c.d.TransposeA && !o.NoConcat &&
		soleDataUser(cc) == mm && tfg.NoControlEdges(cc) && isF32(cc) {
		if parts, axis := optab.Operands(cc, "values"), optab.Operand(cc, "axis"); axis != nil && len(parts) >= 2 && alongAxis1(axis) {
			var ks []int64
			sum := int64(0)
			for _, v := range parts {
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
				c.concatAxis = axis.DefiningOp()
				c.inputs = parts
				c.d.Ks = ks
			}
		}
	}
	// The bias.
	y := optab.Result(mm, "product")
	next := soleDataUser(mm)
	if next != nil && tfg.NoControlEdges(next) && isF32(next) && len(tfg.DataOperands(next)) == 2 {
		switch next.Name() {
		case "tfg.BiasAdd":
			if optab.Operand(next, "value") == y && nhwc(next) {
				c.b = optab.Operand(next, "bias")
			}
		case "tfg.Add", "tfg.AddV2":
			l, r := optab.Operand(next, "x"), optab.Operand(next, "y")
			if l == y {
				c.b = r
			} else if r == y {
				c.b = l
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
	if next != nil && tfg.NoControlEdges(next) && isF32(next) {
		if optab.SoleOperand(next) != nil && len(tfg.DataOperands(next)) == 1 {
			switch next.Name() {
			case "tfg.Relu":
				c.d.Activation = abi.ActRelu
			case "tfg.Sigmoid":
				c.d.Activation = abi.ActSigmoid
			case "tfg.Tanh":
				c.d.Activation = abi.ActTanh
			}
		}
		if c.d.Activation != abi.ActNone {
			c.act = next
		}
	}
	return c, nil
}

// alongAxis1 reports whether axis is the constant 1 (or -1, the last of
// two dimensions).
func alongAxis1(axis *textir.Value) bool {
	ax, ok := tfg.ConstInt(axis)
	return ok && (ax == 1 || ax == -1)
}

func boolAttr(op *textir.Operation, name string) bool {
	b, _ := op.Attr(name).(textir.BoolAttr)
	return b.Value
}

func nhwc(op *textir.Operation) bool {
	s, ok := op.Attr("data_format").(textir.StringAttr)
	return !ok || s.Value == "" || s.Value == "NHWC"
}
