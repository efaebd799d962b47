// Package foldbn is the --fold-bn pass: inference batch normalization
// folded into the dense layer that reads it.
//
// tf.layers.batch_normalization at inference (TF1's fused=False form, what
// an Estimator DSSM tower writes after each Relu) is, per column j,
//
//	y = x*m + (beta - mean*m),   m = rsqrt(moving_variance + eps) * gamma
//
// an affine map y = x*s + t whose s and t are computed from variables and
// constants only. When y reaches a MatMul (through the dropout layer's
// inference Identity) whose weight W [K, N] is a constant or variable and
// whose product gets a BiasAdd of a bias b [N], the product is rewritten
// to read x directly:
//
//	y·W + b = x·W' + b',   W'[k, n] = s[k]*W[k, n],   b' = b + t·W
//
// The batch norm usually follows an activation (Relu): it cannot fold into
// the layer before it, but it always folds into the one after. W' and b'
// are written as tfg ops on the parameters, computed in float64 and cast
// to float32 (the weights' type) once, so `recom compile` stays meaningful
// without the weights: the runtime evaluates them when the variables'
// values are bound (a session's constants), and --fuse-dense takes them
// as the layer's weight and bias.
package foldbn

import (
	"github.com/recom-compiler/recom/dialects/tfg"
	"github.com/recom-compiler/recom/dialects/tfg/optab"
	"github.com/recom-compiler/recom/lowering/pass"
	"github.com/recom-compiler/recom/textir"
)

// Flag is the pass's command-line name.
const Flag = "fold-bn"

// Decl declares the --fold-bn pass.
var Decl = pass.Decl{
	Flag:    Flag,
	Name:    "FoldBatchNorm",
	Summary: "Fold inference batch normalization (x*s+t with s, t from variables) into the next dense layer's weight and bias, computed in f64 from the parameters",
	Options: []pass.OptDecl{
		{Name: "disable", Kind: pass.BoolOption, Help: "Leave the IR as it is (ablation)"},
	},
	Statistics: []pass.StatDecl{
		{Name: "folded", Help: "Batch normalizations folded into a dense layer"},
	},
	New: func(o *pass.Options) pass.Runner { return &Pass{disable: o.Bool("disable")} },
}

// Pass is the --fold-bn pass.
type Pass struct{ disable bool }

// Run folds every batch normalization of root's graphs that it can.
func (p *Pass) Run(root *textir.Operation, st *pass.State) error {
	if p.disable {
		st.MarkUnchanged()
		return nil
	}
	folded := st.Stat("folded", "Batch normalizations folded into a dense layer")
	n := Fold(root, st.Context())
	folded.Add(n)
	if n == 0 {
		st.MarkUnchanged()
	}
	return nil
}

// Fold folds every batch normalization of root's graphs that reads into
// a dense layer (see the package comment) and returns how many it folded.
func Fold(root *textir.Operation, ctx *textir.Context) int64 {
	var blocks []*textir.Block
	root.Walk(func(op *textir.Operation) bool {
		if op.Name() == "tfg.graph" {
			for _, r := range op.Regions() {
				blocks = append(blocks, r.Blocks()...)
			}
			return false
		}
		return true
	})
	n := int64(0)
	for _, b := range blocks {
		var adds []*textir.Operation
		for op := range b.Ops() {
			if op.Name() == "tfg.AddV2" || op.Name() == "tfg.Add" {
				adds = append(adds, op)
			}
		}
		for _, add := range adds {
			if f := match(add); f != nil {
				f.rewrite(ctx)
				n++
			}
		}
	}
	return n
}

// fold is one batch normalization y = x*s + t read by mm (y·W + b).
type fold struct {
	add, mul *textir.Operation // y = add(mul(x, s), t)
	x, s, t  *textir.Value
	ids      []*textir.Operation // the Identity ops between y and mm
	mm, bias *textir.Operation
	w, b     *textir.Value
	k, n     int64
}

// match recognises the batch normalization whose last op is add, or
// returns nil.
func match(add *textir.Operation) *fold {
	if !tfg.NoControlEdges(add) || !isF32(add) {
		return nil
	}
	f := &fold{add: add}
	l, r := optab.Operand(add, "x"), optab.Operand(add, "y")
	for _, c := range [][2]*textir.Value{{l, r}, {r, l}} {
		mul := defOf(c[0], "tfg.Mul")
		if mul == nil || !soleUse(c[0]) || !tfg.NoControlEdges(mul) || !isF32(mul) || !param(c[1], 0) {
			continue
		}
		a, b := optab.Operand(mul, "x"), optab.Operand(mul, "y")
		switch {
		case param(b, 0) && !param(a, 0):
			f.x, f.s = a, b
		case param(a, 0) && !param(b, 0):
			f.x, f.s = b, a
		default:
			continue
		}
		f.mul, f.t = mul, c[1]
		break
	}
	if f.mul == nil {
		return nil
	}
	// y → Identity* → MatMul (its a operand, not transposed).
	y := optab.SoleResult(add)
	for range 8 {
		if !soleUse(y) {
			return nil
		}
		var u *textir.Operation
		for o := range y.Users() {
			u = o
		}
		if u.Name() == "tfg.Identity" && tfg.NoControlEdges(u) {
			f.ids = append(f.ids, u)
			y = optab.SoleResult(u)
			continue
		}
		if u.Name() != "tfg.MatMul" || !tfg.NoControlEdges(u) || !isF32(u) || optab.Operand(u, "a") != y ||
			boolAttr(u, "transpose_a") || boolAttr(u, "transpose_b") {
			return nil
		}
		f.mm = u
		break
	}
	if f.mm == nil {
		return nil
	}
	f.w = optab.Operand(f.mm, "b")
	ws, ok := staticShape(f.w)
	if !ok || len(ws) != 2 || !param(f.w, 0) {
		return nil
	}
	f.k, f.n = ws[0], ws[1]
	// The bias: the product's sole user, a BiasAdd of a parameter [N].
	p := optab.SoleResult(f.mm)
	if !soleUse(p) {
		return nil
	}
	for u := range p.Users() {
		f.bias = u
	}
	if f.bias.Name() != "tfg.BiasAdd" || !tfg.NoControlEdges(f.bias) || optab.Operand(f.bias, "value") != p {
		return nil
	}
	if df, ok := f.bias.Attr("data_format").(textir.StringAttr); ok && df.Value != "" && df.Value != "NHWC" {
		return nil
	}
	f.b = optab.Operand(f.bias, "bias")
	if bs, ok := staticShape(f.b); !ok || len(bs) != 1 || bs[0] != f.n || !param(f.b, 0) {
		return nil
	}
	// s and t are [K] vectors (or scalars).
	for _, v := range []*textir.Value{f.s, f.t} {
		if vs, ok := staticShape(v); !ok || len(vs) > 1 || (len(vs) == 1 && vs[0] != f.k) {
			return nil
		}
	}
	return f
}

// rewrite replaces y·W + b by x·W' + b'.
func (f *fold) rewrite(ctx *textir.Context) {
	bld := textir.NewBuilder(ctx)
	bld.SetInsertionPoint(f.mm)
	name := tfg.NodeName(f.add)
	loc := f.mm.Loc()
	f64 := textir.F64()
	f32 := textir.F32()
	op := func(kind, suffix string, ins []*textir.Value, res textir.Type, attrs ...textir.NamedAttribute) *textir.Value {
		attrs = append(attrs, textir.NamedAttribute{Name: "_mlir_name", Value: textir.Str(name + "/folded/" + suffix)})
		o := bld.Create(&textir.OperationState{Name: kind, Loc: loc, Operands: ins,
			ResultTypes: []textir.Type{res, tfg.Control()}, Attrs: attrs})
		return o.Result(0)
	}
	tAttr := func(t textir.Type) textir.NamedAttribute {
		return textir.NamedAttribute{Name: "T", Value: textir.TypeAttr{Type: t}}
	}
	cast := func(suffix string, v *textir.Value, from, to textir.Type, res textir.Type) *textir.Value {
		return op("tfg.Cast", suffix, []*textir.Value{v}, res,
			textir.NamedAttribute{Name: "DstT", Value: textir.TypeAttr{Type: to}},
			textir.NamedAttribute{Name: "SrcT", Value: textir.TypeAttr{Type: from}},
			textir.NamedAttribute{Name: "Truncate", Value: textir.BoolAttr{Value: false}})
	}
	shape := func(suffix string, dims ...int64) *textir.Value {
		t := textir.TensorOf([]int64{int64(len(dims))}, textir.I32())
		return op("tfg.Const", suffix, nil, t,
			textir.NamedAttribute{Name: "dtype", Value: textir.TypeAttr{Type: textir.I32()}},
			textir.NamedAttribute{Name: "value", Value: textir.DenseInts(t, dims)})
	}
	bcast := func(suffix string, v *textir.Value, dims ...int64) *textir.Value {
		// A scalar s or t is broadcast to [K] first.
		one := op("tfg.Const", suffix+"/ones", nil, textir.TensorOf([]int64{f.k}, f64),
			textir.NamedAttribute{Name: "dtype", Value: textir.TypeAttr{Type: f64}},
			textir.NamedAttribute{Name: "value", Value: textir.DenseFloats(textir.TensorOf([]int64{f.k}, f64), []float64{1})})
		full := op("tfg.Mul", suffix+"/full", []*textir.Value{v, one}, textir.TensorOf([]int64{f.k}, f64), tAttr(f64))
		return op("tfg.Reshape", suffix, []*textir.Value{full, shape(suffix+"/shape", dims...)}, textir.TensorOf(dims, f64),
			tAttr(f64), textir.NamedAttribute{Name: "Tshape", Value: textir.TypeAttr{Type: textir.I32()}})
	}
	s := cast("scale", f.s, f32, f64, textir.UnrankedTensorOf(f64))
	t := cast("shift", f.t, f32, f64, textir.UnrankedTensorOf(f64))
	w := cast("weight", f.w, f32, f64, textir.TensorOf([]int64{f.k, f.n}, f64))
	b := cast("bias", f.b, f32, f64, textir.TensorOf([]int64{f.n}, f64))
	sCol := bcast("scale_column", s, f.k, 1)
	w2 := op("tfg.Mul", "weight_scaled", []*textir.Value{sCol, w}, textir.TensorOf([]int64{f.k, f.n}, f64), tAttr(f64))
	tRow := bcast("shift_row", t, 1, f.k)
	tw := op("tfg.MatMul", "shift_product", []*textir.Value{tRow, w}, textir.TensorOf([]int64{1, f.n}, f64), tAttr(f64),
		textir.NamedAttribute{Name: "transpose_a", Value: textir.BoolAttr{Value: false}},
		textir.NamedAttribute{Name: "transpose_b", Value: textir.BoolAttr{Value: false}})
	twv := op("tfg.Reshape", "shift_vector", []*textir.Value{tw, shape("shift_vector/shape", f.n)}, textir.TensorOf([]int64{f.n}, f64),
		tAttr(f64), textir.NamedAttribute{Name: "Tshape", Value: textir.TypeAttr{Type: textir.I32()}})
	b2 := op("tfg.AddV2", "bias_shifted", []*textir.Value{b, twv}, textir.TensorOf([]int64{f.n}, f64), tAttr(f64))
	wOut := cast("kernel", w2, f64, f32, textir.TensorOf([]int64{f.k, f.n}, f32))
	bOut := cast("bias_out", b2, f64, f32, textir.TensorOf([]int64{f.n}, f32))
	setOperand(f.mm, optab.Operand(f.mm, "a"), f.x)
	setOperand(f.mm, f.w, wOut)
	setOperand(f.bias, f.b, bOut)
	// The batch norm's ops that nothing else reads go.
	for i := len(f.ids) - 1; i >= 0; i-- {
		f.ids[i].Erase()
	}
	f.add.Erase()
	f.mul.Erase()
}

// setOperand replaces op's operand old by v.
func setOperand(op *textir.Operation, old, v *textir.Value) {
	for i := range op.NumOperands() {
		if op.Operand(i) == old {
			op.SetOperand(i, v)
			return
		}
	}
}

func isF32(op *textir.Operation) bool {
	t, ok := op.Attr("T").(textir.TypeAttr)
	return ok && t.Type == textir.F32()
}

func boolAttr(op *textir.Operation, name string) bool {
	b, _ := op.Attr(name).(textir.BoolAttr)
	return b.Value
}

// defOf returns v's defining op when it is named kind.
func defOf(v *textir.Value, kind string) *textir.Operation {
	if v == nil {
		return nil
	}
	d := v.DefiningOp()
	if d == nil || d.Name() != kind || optab.SoleResult(d) != v {
		return nil
	}
	return d
}

func soleUse(v *textir.Value) bool { return v != nil && v.HasOneUse() }

// paramOps are the ops a parameter expression may be made of: reads of
// constants and variables, and the arithmetic of batch normalization.
var paramOps = map[string]bool{
	"tfg.Identity": true, "tfg.ReadVariableOp": true, "tfg.Snapshot": true,
	"tfg.AddV2": true, "tfg.Add": true, "tfg.Sub": true, "tfg.Mul": true, "tfg.RealDiv": true,
	"tfg.Rsqrt": true, "tfg.Sqrt": true, "tfg.Cast": true, "tfg.Reshape": true, "tfg.MatMul": true,
}

// IsParam reports whether v is computed from constants and variables only
// (known when the variables are bound, the same for every batch): what
// --fold-bn writes as a folded weight or bias.
func IsParam(v *textir.Value) bool { return param(v, 0) }

func param(v *textir.Value, depth int) bool {
	if v == nil || depth > 16 {
		return false
	}
	d := v.DefiningOp()
	if d == nil {
		return false
	}
	switch d.Name() {
	case "tfg.Const", "tfg.VariableV2", "tfg.Variable", "tfg.VarHandleOp":
		return true
	}
	if !paramOps[d.Name()] {
		return false
	}
	ins := tfg.DataOperands(d)
	if len(ins) == 0 {
		return false
	}
	for _, in := range ins {
		if !param(in, depth+1) {
			return false
		}
	}
	return true
}

// staticShape returns v's shape: its type's when ranked and static, else
// the constant's or the variable's through reads.
func staticShape(v *textir.Value) ([]int64, bool) {
	if tt, ok := v.Type().(*textir.TensorType); ok {
		static := true
		for _, d := range tt.Shape {
			static = static && d >= 0
		}
		if static {
			return tt.Shape, true
		}
	}
	for range 16 {
		d := v.DefiningOp()
		if d == nil {
			return nil, false
		}
		switch d.Name() {
		case "tfg.Identity", "tfg.ReadVariableOp", "tfg.Snapshot":
			in := optab.SoleOperand(d)
			if in == nil {
				return nil, false
			}
			v = in
		case "tfg.Const":
			a, ok := d.Attr("value").(*textir.DenseElementsAttr)
			if !ok || a.Type == nil {
				return nil, false
			}
			return a.Type.Shape, true
		case "tfg.VariableV2", "tfg.Variable", "tfg.VarHandleOp":
			s, ok := tfg.ShapeOf(d.Attr("shape"))
			if !ok || s.UnknownRank {
				return nil, false
			}
			for _, x := range s.Dims {
				if x < 0 {
					return nil, false
				}
			}
			return s.Dims, true
		case "tfg.AddV2", "tfg.Add", "tfg.Sub", "tfg.Mul", "tfg.RealDiv":
			// Elementwise with broadcasting: the larger static shape
			// (batch norm's vectors against a scalar eps).
			var best []int64
			for _, in := range tfg.DataOperands(d) {
				s, ok := staticShape(in)
				if !ok {
					return nil, false
				}
				if len(s) > len(best) {
					best = s
				}
			}
			return best, true
		case "tfg.Rsqrt", "tfg.Sqrt", "tfg.Cast":
			v = optab.SoleOperand(d)
			if v == nil {
				return nil, false
			}
		default:
			return nil, false
		}
	}
	return nil, false
}
