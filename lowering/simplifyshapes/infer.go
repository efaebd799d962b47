package simplifyshapes

import (
	"errors"
	"strconv"
	"strings"

	"github.com/recom-compiler/recom/dialects/emb"
	"github.com/recom-compiler/recom/dialects/shape/expr"
	"github.com/recom-compiler/recom/dialects/tfg"
	"github.com/recom-compiler/recom/textir"
)

// MaxContent is the largest integer tensor (in elements, rank ≤ 1) whose
// content the analysis tracks.
const MaxContent = 8

// BatchSymbol is the name of the batch-size symbol: dimension 0 of the
// first placeholder whose dimension 0 is unknown.
const BatchSymbol = "batch"

var errUnknown = errors.New("unknown")

// unk is the unknown dimension (a poisoned expression).
var unk = expr.Poison(errUnknown)

func known(e expr.Expr) bool { return e.Err() == nil }

// Info is what the analysis knows of one tensor value: its dims (nil: the
// rank is unknown; an unknown dim is a poisoned expression) and, for small
// integer tensors (rank ≤ 1, at most MaxContent elements), its content
// (nil: unknown; an unknown element is poisoned).
type Info struct {
	Dims    []expr.Expr
	Content []expr.Expr
}

// binding says how to compute a symbol at run time: dimension Dim of V, or
// (Dim < 0) the number of elements of V.
type binding struct {
	v   *textir.Value
	dim int
}

// Analysis is the symbolic shape inference of one tfg graph block: every
// tensor's dims and small integer tensors' content as canonical
// expressions over a table of symbols (input dims and data-dependent
// counts), with the equalities that ops require merged.
type Analysis struct {
	tab      *expr.Table
	info     map[*textir.Value]*Info
	bind     map[expr.Sym]binding
	order    []*textir.Operation
	hasBatch bool
	batch    expr.Sym
	// Created and Merged count the symbols created and the equalities
	// that merged two classes (or defined a symbol).
	Created, Merged int
}

// Table returns the symbol table.
func (a *Analysis) Table() *expr.Table { return a.tab }

// Batch returns the batch symbol, if any.
func (a *Analysis) Batch() (expr.Sym, bool) { return a.batch, a.hasBatch }

// Of returns what is known of v, with every expression canonical.
func (a *Analysis) Of(v *textir.Value) Info {
	in := a.get(v)
	if in == nil {
		return Info{}
	}
	out := Info{}
	if in.Dims != nil {
		out.Dims = make([]expr.Expr, len(in.Dims))
		for i, d := range in.Dims {
			out.Dims[i] = a.canon(d)
		}
	}
	if in.Content != nil {
		out.Content = make([]expr.Expr, len(in.Content))
		for i, d := range in.Content {
			out.Content[i] = a.canon(d)
		}
	}
	return out
}

// Format prints e with the table's symbol names ("?" when unknown).
func (a *Analysis) Format(e expr.Expr) string {
	if !known(e) {
		return "?"
	}
	return a.tab.Format(a.canon(e))
}

// FormatDims prints dims as "(batch, 8)".
func (a *Analysis) FormatDims(dims []expr.Expr) string {
	if dims == nil {
		return "*"
	}
	parts := make([]string, len(dims))
	for i, d := range dims {
		parts[i] = a.Format(d)
	}
	return "(" + strings.Join(parts, ", ") + ")"
}

func (a *Analysis) canon(e expr.Expr) expr.Expr {
	if !known(e) {
		return e
	}
	return a.tab.Canon(e)
}

// Infer runs the analysis over the ops of b (a graph region: ops are
// visited in topological order of their data operands).
func Infer(b *textir.Block) *Analysis {
	a := &Analysis{tab: expr.NewTable(), info: map[*textir.Value]*Info{}, bind: map[expr.Sym]binding{}}
	a.order = topoOrder(b)
	for _, op := range a.order {
		a.infer(op)
	}
	return a
}

// topoOrder orders the ops of b so that each comes after the producers
// of its operands in b; ops on cycles keep program order at the end.
func topoOrder(b *textir.Block) []*textir.Operation {
	var ops []*textir.Operation
	idx := map[*textir.Operation]int{}
	for op := range b.Ops() {
		idx[op] = len(ops)
		ops = append(ops, op)
	}
	indeg := make([]int, len(ops))
	users := make([][]int, len(ops))
	for i, op := range ops {
		for _, v := range op.Operands() {
			d := v.DefiningOp()
			if d == nil {
				continue
			}
			j, ok := idx[d]
			if !ok || j == i {
				continue
			}
			indeg[i]++
			users[j] = append(users[j], i)
		}
	}
	var queue []int
	for i := range ops {
		if indeg[i] == 0 {
			queue = append(queue, i)
		}
	}
	done := make([]bool, len(ops))
	out := make([]*textir.Operation, 0, len(ops))
	for len(queue) > 0 {
		i := queue[0]
		queue = queue[1:]
		done[i] = true
		out = append(out, ops[i])
		for _, u := range users[i] {
			if indeg[u]--; indeg[u] == 0 {
				queue = append(queue, u)
			}
		}
	}
	for i, op := range ops {
		if !done[i] {
			out = append(out, op)
		}
	}
	return out
}

// fresh creates a symbol named after name (made a valid, unique
// identifier) and records how to compute it.
func (a *Analysis) fresh(name string, kind expr.SymKind, bd binding) expr.Expr {
	base := sanitize(name)
	n := base
	for i := 1; ; i++ {
		s, err := a.tab.New(n, kind)
		if err == nil {
			a.Created++
			if bd.v != nil {
				a.bind[s] = bd
			}
			return expr.Var(s)
		}
		n = base + "_" + strconv.Itoa(i)
	}
}

// sanitize turns a TensorFlow name into a symbol identifier.
func sanitize(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '_' || ('a' <= c && c <= 'z') || ('A' <= c && c <= 'Z'):
			b.WriteByte(c)
		case i > 0 && (('0' <= c && c <= '9') || c == '.'):
			b.WriteByte(c)
		default:
			b.WriteByte('_')
		}
	}
	n := b.String()
	if n == "" || n[0] == 's' && len(n) > 1 && strings.Trim(n[1:], "0123456789") == "" {
		n = "_" + n
	}
	if n == "floordiv" || n == "ceildiv" || n == "mod" || n == "min" || n == "max" {
		n = "_" + n
	}
	return n
}

// equate records x == y (when both are known); it reports a merge.
func (a *Analysis) equate(x, y expr.Expr) {
	if !known(x) || !known(y) {
		return
	}
	cx, cy := a.tab.Canon(x), a.tab.Canon(y)
	if cx.Equal(cy) {
		return
	}
	if ok, err := a.tab.Equate(cx, cy); ok && err == nil {
		a.Merged++
	}
}

func (a *Analysis) same(x, y expr.Expr) bool {
	return known(x) && known(y) && a.tab.Canon(x).Equal(a.tab.Canon(y))
}

// typeInfo is what v's type says.
func typeInfo(v *textir.Value) *Info {
	tt, ok := v.Type().(*textir.TensorType)
	if !ok {
		return nil
	}
	in := &Info{Dims: make([]expr.Expr, len(tt.Shape))}
	for i, d := range tt.Shape {
		if d == textir.Dynamic {
			in.Dims[i] = unk
		} else {
			in.Dims[i] = expr.Const(d)
		}
	}
	return in
}

func (a *Analysis) get(v *textir.Value) *Info {
	if v == nil {
		return nil
	}
	if in, ok := a.info[v]; ok {
		return in
	}
	return typeInfo(v)
}

func (a *Analysis) dims(v *textir.Value) []expr.Expr {
	if in := a.get(v); in != nil {
		return in.Dims
	}
	return nil
}

func (a *Analysis) content(v *textir.Value) []expr.Expr {
	if in := a.get(v); in != nil {
		return in.Content
	}
	return nil
}

// consts returns v's content when every element is a constant.
func (a *Analysis) consts(v *textir.Value) ([]int64, bool) {
	c := a.content(v)
	if c == nil {
		return nil, false
	}
	out := make([]int64, len(c))
	for i, e := range c {
		k, ok := a.canon(e).IsConst()
		if !ok {
			return nil, false
		}
		out[i] = k
	}
	return out, true
}

func (a *Analysis) scalarConst(v *textir.Value) (int64, bool) {
	c, ok := a.consts(v)
	if !ok || len(c) != 1 {
		return 0, false
	}
	return c[0], true
}

// set records dims and content of v, reconciled with v's static type.
func (a *Analysis) set(v *textir.Value, dims, content []expr.Expr) {
	ti := typeInfo(v)
	if ti != nil {
		if dims == nil || len(dims) != len(ti.Dims) {
			dims = ti.Dims
			content = nil
		} else {
			dims = append([]expr.Expr(nil), dims...)
			for i, d := range ti.Dims {
				if known(d) {
					a.equate(dims[i], d)
					dims[i] = d
				}
			}
		}
	}
	for i, d := range dims {
		dims[i] = a.canon(d)
	}
	if content != nil {
		n, ok := numelConst(dims)
		if dims == nil || len(dims) > 1 || !ok || n != int64(len(content)) || !isIntTensor(v) {
			content = nil
		}
	}
	a.info[v] = &Info{Dims: dims, Content: content}
}

func isIntTensor(v *textir.Value) bool {
	switch textir.ElementType(v.Type()) {
	case textir.I8(), textir.I16(), textir.I32(), textir.I64(), textir.Index():
		return true
	}
	return false
}

func numelConst(dims []expr.Expr) (int64, bool) {
	n := int64(1)
	for _, d := range dims {
		c, ok := d.IsConst()
		if !ok {
			return 0, false
		}
		n *= c
	}
	return n, true
}

func numel(dims []expr.Expr) expr.Expr {
	if dims == nil {
		return unk
	}
	n := expr.Const(1)
	for _, d := range dims {
		n = expr.Mul(n, d)
	}
	return n
}

func unknownDims(n int) []expr.Expr {
	d := make([]expr.Expr, n)
	for i := range d {
		d[i] = unk
	}
	return d
}

// ---- attribute helpers ----

func intAttr(op *textir.Operation, name string) (int64, bool) {
	switch x := op.Attr(name).(type) {
	case textir.IntegerAttr:
		return x.Value, true
	case textir.BoolAttr:
		if x.Value {
			return 1, true
		}
		return 0, true
	}
	return 0, false
}

func boolAttr(op *textir.Operation, name string) bool {
	v, _ := intAttr(op, name)
	return v != 0
}

func intListAttr(op *textir.Operation, name string) []int64 {
	arr, ok := op.Attr(name).(textir.ArrayAttr)
	if !ok {
		return nil
	}
	var out []int64
	for _, e := range arr.Elems {
		if i, ok := e.(textir.IntegerAttr); ok {
			out = append(out, i.Value)
		}
	}
	return out
}

// tfName is the short name of a tfg op ("Reshape"), or "".
func tfName(op *textir.Operation) string {
	if op == nil || op.Dialect() != tfg.Name {
		return ""
	}
	return strings.TrimPrefix(op.Name(), "tfg.")
}

// shapeAttrDims reads a #tfg.shape attribute as dims, creating fresh
// input symbols for unknown dims (bound to dims of v).
func (a *Analysis) shapeAttrDims(op *textir.Operation, attr string, v *textir.Value, fresh bool) []expr.Expr {
	s, ok := tfg.ShapeOf(op.Attr(attr))
	if !ok || s.UnknownRank {
		return nil
	}
	dims := make([]expr.Expr, len(s.Dims))
	for i, d := range s.Dims {
		if d >= 0 {
			dims[i] = expr.Const(d)
			continue
		}
		if !fresh {
			dims[i] = unk
			continue
		}
		name := tfg.NodeName(op) + ".d" + strconv.Itoa(i)
		if i == 0 && !a.hasBatch {
			name = BatchSymbol
		}
		dims[i] = a.fresh(name, expr.InputDim, binding{v: v, dim: i})
		if i == 0 && !a.hasBatch {
			a.batch, _ = dims[i].AsSym()
			a.hasBatch = true
		}
	}
	return dims
}

// constContent reads a small integer constant.
func constContent(d *textir.DenseElementsAttr) []expr.Expr {
	if d == nil || d.IsString() || len(d.Type.Shape) > 1 || textir.IsFloat(d.Type.Elem) {
		return nil
	}
	n := d.NumElements()
	if n < 0 || n > MaxContent {
		return nil
	}
	out := make([]expr.Expr, n)
	for i := range n {
		out[i] = expr.Const(d.IntAt(i))
	}
	return out
}

func normAxis(ax int64, rank int) (int, bool) {
	if ax < 0 {
		ax += int64(rank)
	}
	if ax < 0 || ax >= int64(rank) {
		return 0, false
	}
	return int(ax), true
}

// broadcast combines two shapes by NumPy broadcasting, merging symbolic
// dims that must be equal.
func (a *Analysis) broadcast(x, y []expr.Expr) []expr.Expr {
	if x == nil || y == nil {
		return nil
	}
	if len(x) < len(y) {
		x, y = y, x
	}
	out := append([]expr.Expr{}, x...)
	off := len(x) - len(y)
	for i, d := range y {
		e := x[off+i]
		c1, ok1 := e.IsConst()
		c2, ok2 := d.IsConst()
		switch {
		case ok1 && c1 == 1:
			out[off+i] = d
		case ok2 && c2 == 1:
			out[off+i] = e
		case known(e) && known(d):
			a.equate(e, d)
			out[off+i] = e
		case known(e):
			out[off+i] = e
		default:
			out[off+i] = d
		}
	}
	return out
}

// binaryContent applies an integer op elementwise to two contents
// (equal lengths, or one of length 1).
func binaryContent(x, y []expr.Expr, f func(p, q expr.Expr) expr.Expr) []expr.Expr {
	if x == nil || y == nil {
		return nil
	}
	n := max(len(x), len(y))
	if (len(x) != n && len(x) != 1) || (len(y) != n && len(y) != 1) {
		return nil
	}
	out := make([]expr.Expr, n)
	for i := range n {
		p, q := x[min(i, len(x)-1)], y[min(i, len(y)-1)]
		out[i] = f(p, q)
	}
	return out
}

func tfFloorDiv(p, q expr.Expr) expr.Expr {
	if c, ok := q.IsConst(); ok && c == 0 {
		return unk
	}
	return expr.FloorDiv(p, q)
}

func tfFloorMod(p, q expr.Expr) expr.Expr {
	if c, ok := q.IsConst(); ok && c == 0 {
		return unk
	}
	return expr.Mod(p, q)
}

var unaryElementwise = map[string]bool{
	"Identity": true, "Snapshot": true, "StopGradient": true, "PreventGradient": true,
	"Relu": true, "Relu6": true, "Elu": true, "Selu": true, "Sigmoid": true, "Tanh": true, "Softplus": true,
	"Neg": true, "Abs": true, "Exp": true, "Log": true, "Log1p": true, "Sqrt": true, "Rsqrt": true,
	"Square": true, "Floor": true, "Ceil": true, "Round": true, "Sign": true, "Reciprocal": true,
	"ZerosLike": true, "OnesLike": true, "LogicalNot": true, "IsNan": true, "IsFinite": true,
	"Cast": true, "Bucketize": true, "StringToHashBucketFast": true, "StringToHashBucket": true,
	"StringToHashBucketStrong": true, "AsString": true, "Softmax": true, "LeakyRelu": true,
	"CheckNumerics": true, "Erf": true,
}

var binaryElementwise = map[string]bool{
	"Add": true, "AddV2": true, "Sub": true, "Mul": true, "RealDiv": true, "Div": true, "DivNoNan": true,
	"FloorDiv": true, "FloorMod": true, "TruncateDiv": true, "Maximum": true, "Minimum": true, "Pow": true,
	"Equal": true, "NotEqual": true, "Less": true, "LessEqual": true, "Greater": true, "GreaterEqual": true,
	"LogicalAnd": true, "LogicalOr": true, "SquaredDifference": true, "BitwiseAnd": true, "BitwiseOr": true,
}

// infer computes the infos of op's results.
func (a *Analysis) infer(op *textir.Operation) {
	if op.Dialect() == emb.Name {
		a.inferEmb(op)
		return
	}
	name := tfName(op)
	if name == "" {
		return
	}
	args := tfg.DataOperands(op)
	res := tfg.DataResults(op)
	if len(res) == 0 {
		return
	}
	arg := func(i int) *textir.Value {
		if i < len(args) {
			return args[i]
		}
		return nil
	}
	r := res[0]
	switch {
	case name == "Placeholder":
		a.set(r, a.shapeAttrDims(op, "shape", r, true), nil)
	case name == "PlaceholderWithDefault":
		a.set(r, a.dims(arg(0)), a.content(arg(0)))
	case name == "VariableV2" || name == "VarHandleOp" || name == "Variable":
		if name != "VarHandleOp" {
			a.set(r, a.shapeAttrDims(op, "shape", r, false), nil)
		}
	case name == "ReadVariableOp":
		if h := arg(0).DefiningOp(); tfName(h) == "VarHandleOp" {
			a.set(r, a.shapeAttrDims(h, "shape", nil, false), nil)
		}
	case name == "Const":
		d, _ := op.Attr("value").(*textir.DenseElementsAttr)
		if d != nil {
			dims := make([]expr.Expr, len(d.Type.Shape))
			for i, x := range d.Type.Shape {
				dims[i] = expr.Const(x)
			}
			a.set(r, dims, constContent(d))
		}
	case name == "Shape" || name == "ShapeN":
		for i, x := range res {
			xd := a.dims(arg(i))
			if xd == nil {
				a.set(x, []expr.Expr{unk}, nil)
				continue
			}
			a.set(x, []expr.Expr{expr.Const(int64(len(xd)))}, xd)
		}
	case name == "Size":
		a.set(r, []expr.Expr{}, []expr.Expr{numel(a.dims(arg(0)))})
	case name == "Rank":
		var c []expr.Expr
		if xd := a.dims(arg(0)); xd != nil {
			c = []expr.Expr{expr.Const(int64(len(xd)))}
		}
		a.set(r, []expr.Expr{}, c)
	case name == "Cast":
		var c []expr.Expr
		if isIntTensor(arg(0)) && isIntTensor(r) {
			c = a.content(arg(0))
		}
		a.set(r, a.dims(arg(0)), c)
	case name == "Identity" || name == "Snapshot" || name == "StopGradient":
		a.set(r, a.dims(arg(0)), a.content(arg(0)))
	case unaryElementwise[name]:
		a.set(r, a.dims(arg(0)), nil)
	case name == "BiasAdd":
		xd := a.dims(arg(0))
		if bd := a.dims(arg(1)); xd != nil && len(bd) == 1 && len(xd) >= 2 {
			ch := len(xd) - 1
			if s, ok := op.Attr("data_format").(textir.StringAttr); ok && strings.HasPrefix(s.Value, "NC") {
				ch = 1
			}
			a.equate(xd[ch], bd[0])
		}
		a.set(r, xd, nil)
	case binaryElementwise[name]:
		xd, yd := a.dims(arg(0)), a.dims(arg(1))
		var c []expr.Expr
		if isIntTensor(r) {
			x, y := a.content(arg(0)), a.content(arg(1))
			switch name {
			case "Add", "AddV2":
				c = binaryContent(x, y, expr.Add)
			case "Sub":
				c = binaryContent(x, y, expr.Sub)
			case "Mul":
				c = binaryContent(x, y, expr.Mul)
			case "FloorDiv":
				c = binaryContent(x, y, tfFloorDiv)
			case "FloorMod":
				c = binaryContent(x, y, tfFloorMod)
			case "Maximum":
				c = binaryContent(x, y, func(p, q expr.Expr) expr.Expr { return expr.Max(p, q) })
			case "Minimum":
				c = binaryContent(x, y, func(p, q expr.Expr) expr.Expr { return expr.Min(p, q) })
			}
		}
		a.set(r, a.broadcast(xd, yd), c)
	case name == "Select":
		td, ed, cd := a.dims(arg(1)), a.dims(arg(2)), a.dims(arg(0))
		if td != nil && ed != nil && len(td) == len(ed) {
			for i := range td {
				a.equate(td[i], ed[i])
			}
		}
		if td == nil {
			td = ed
		}
		if cd != nil && td != nil {
			if len(cd) == 1 && len(td) > 1 {
				a.equate(cd[0], td[0])
			} else if len(cd) == len(td) {
				for i := range td {
					a.equate(cd[i], td[i])
				}
			}
		}
		a.set(r, td, nil)
	case name == "SelectV2":
		a.set(r, a.broadcast(a.broadcast(a.dims(arg(0)), a.dims(arg(1))), a.dims(arg(2))), nil)
	case name == "MatMul":
		xd, yd := a.dims(arg(0)), a.dims(arg(1))
		if len(xd) != 2 || len(yd) != 2 {
			a.set(r, nil, nil)
			break
		}
		m, k1 := xd[0], xd[1]
		if boolAttr(op, "transpose_a") {
			m, k1 = k1, m
		}
		k2, n := yd[0], yd[1]
		if boolAttr(op, "transpose_b") {
			k2, n = n, k2
		}
		a.equate(k1, k2)
		a.set(r, []expr.Expr{m, n}, nil)
	case name == "Pack":
		a.inferPack(op, args, r)
	case name == "Unpack":
		xd := a.dims(arg(0))
		ax, _ := intAttr(op, "axis")
		if xd == nil {
			break
		}
		axis, ok := normAxis(ax, len(xd))
		if !ok {
			break
		}
		od := append(append([]expr.Expr{}, xd[:axis]...), xd[axis+1:]...)
		xc := a.content(arg(0))
		for i, x := range res {
			var c []expr.Expr
			if len(xd) == 1 && xc != nil && i < len(xc) {
				c = []expr.Expr{xc[i]}
			}
			a.set(x, od, c)
		}
	case name == "Prod" || name == "Sum" || name == "Max" || name == "Min" || name == "Mean" || name == "All" || name == "Any":
		a.inferReduce(op, name, arg(0), arg(1), r)
	case name == "StridedSlice":
		a.inferStridedSlice(op, args, r)
	case name == "Slice":
		a.inferSlice(arg(0), arg(1), arg(2), r)
	case name == "GatherV2" || name == "Gather" || name == "ResourceGather":
		a.inferGather(name, args, op, r)
	case name == "ConcatV2" || name == "Concat":
		a.inferConcat(name, args, r)
	case name == "Reshape":
		a.inferReshape(arg(0), arg(1), r)
	case name == "ExpandDims":
		xd := a.dims(arg(0))
		ax, ok := a.scalarConst(arg(1))
		if xd == nil || !ok {
			a.set(r, nil, nil)
			break
		}
		axis, ok := normAxis(ax, len(xd)+1)
		if !ok {
			break
		}
		od := append(append(append([]expr.Expr(nil), xd[:axis]...), expr.Const(1)), xd[axis:]...)
		a.set(r, od, a.content(arg(0)))
	case name == "Squeeze":
		xd := a.dims(arg(0))
		if xd == nil {
			break
		}
		drop := map[int]bool{}
		sq := intListAttr(op, "squeeze_dims")
		if sq == nil {
			sq = intListAttr(op, "axis")
		}
		for _, s := range sq {
			if ax, ok := normAxis(s, len(xd)); ok {
				drop[ax] = true
			}
		}
		if len(sq) == 0 {
			for i, d := range xd {
				c, ok := d.IsConst()
				if !ok {
					a.set(r, nil, nil)
					return
				}
				if c == 1 {
					drop[i] = true
				}
			}
		}
		var od []expr.Expr
		for i, d := range xd {
			if !drop[i] {
				od = append(od, d)
			}
		}
		if od == nil {
			od = []expr.Expr{}
		}
		a.set(r, od, a.content(arg(0)))
	case name == "Fill":
		dc := a.content(arg(0))
		if dc == nil {
			break
		}
		var c []expr.Expr
		if vc := a.content(arg(1)); len(vc) == 1 {
			if n, ok := numelConst(dc); ok && n <= MaxContent {
				c = make([]expr.Expr, n)
				for i := range c {
					c[i] = vc[0]
				}
			}
		}
		a.set(r, dc, c)
	case name == "Tile":
		xd, mc := a.dims(arg(0)), a.content(arg(1))
		if xd == nil || len(mc) != len(xd) {
			break
		}
		od := make([]expr.Expr, len(xd))
		for i := range xd {
			od[i] = expr.Mul(xd[i], mc[i])
		}
		var c []expr.Expr
		if xc := a.content(arg(0)); len(xd) == 1 && xc != nil {
			if m, ok := mc[0].IsConst(); ok && int64(len(xc))*m <= MaxContent {
				for range m {
					c = append(c, xc...)
				}
			}
		}
		a.set(r, od, c)
	case name == "Transpose":
		xd := a.dims(arg(0))
		perm, ok := a.consts(arg(1))
		if xd == nil || !ok || len(perm) != len(xd) {
			break
		}
		od := make([]expr.Expr, len(xd))
		for i, p := range perm {
			if p < 0 || int(p) >= len(xd) {
				return
			}
			od[i] = xd[p]
		}
		a.set(r, od, nil)
	case name == "Range":
		a.inferRange(arg(0), arg(1), arg(2), r)
	case name == "Unique" || name == "UniqueV2":
		n := a.fresh(tfg.NodeName(op)+".n", expr.DataCount, binding{v: r, dim: -1})
		a.set(r, []expr.Expr{n}, nil)
		if len(res) > 1 {
			a.set(res[1], a.dims(arg(0)), nil)
		}
	case name == "Where":
		xd := a.dims(arg(0))
		n := a.fresh(tfg.NodeName(op)+".n", expr.DataCount, binding{v: r, dim: 0})
		rank := unk
		if xd != nil {
			rank = expr.Const(int64(len(xd)))
		}
		a.set(r, []expr.Expr{n, rank}, nil)
	case name == "StringSplitV2" || name == "StringSplit":
		if len(res) < 3 {
			break
		}
		n := a.fresh(tfg.NodeName(op)+".n", expr.DataCount, binding{v: res[1], dim: -1})
		a.set(res[0], []expr.Expr{n, expr.Const(2)}, nil)
		a.set(res[1], []expr.Expr{n}, nil)
		rows := unk
		if xd := a.dims(arg(0)); len(xd) >= 1 {
			rows = xd[0]
		}
		m := a.fresh(tfg.NodeName(op)+".max", expr.DataCount, binding{})
		a.set(res[2], []expr.Expr{expr.Const(2)}, []expr.Expr{rows, m})
	default:
		for _, x := range res {
			a.set(x, nil, nil)
		}
	}
	if _, ok := a.info[r]; !ok {
		a.set(r, nil, nil)
	}
}

func (a *Analysis) inferPack(op *textir.Operation, args []*textir.Value, r *textir.Value) {
	if len(args) == 0 {
		return
	}
	first := a.dims(args[0])
	for _, x := range args[1:] {
		d := a.dims(x)
		if first == nil {
			first = d
			continue
		}
		if d != nil && len(d) == len(first) {
			for i := range d {
				a.equate(first[i], d[i])
			}
		}
	}
	if first == nil {
		a.set(r, nil, nil)
		return
	}
	ax, _ := intAttr(op, "axis")
	axis, ok := normAxis(ax, len(first)+1)
	if !ok {
		return
	}
	od := append(append(append([]expr.Expr(nil), first[:axis]...), expr.Const(int64(len(args)))), first[axis:]...)
	var c []expr.Expr
	if len(first) == 0 {
		for _, x := range args {
			xc := a.content(x)
			if len(xc) != 1 {
				c = nil
				break
			}
			c = append(c, xc[0])
		}
	}
	a.set(r, od, c)
}

func (a *Analysis) inferReduce(op *textir.Operation, name string, x, axes, r *textir.Value) {
	xd := a.dims(x)
	ax, ok := a.consts(axes)
	if xd == nil || !ok {
		a.set(r, nil, nil)
		return
	}
	red := map[int]bool{}
	for _, v := range ax {
		i, ok := normAxis(v, len(xd))
		if !ok {
			return
		}
		red[i] = true
	}
	keep := boolAttr(op, "keep_dims")
	var od []expr.Expr
	for i, d := range xd {
		switch {
		case !red[i]:
			od = append(od, d)
		case keep:
			od = append(od, expr.Const(1))
		}
	}
	if od == nil {
		od = []expr.Expr{}
	}
	var c []expr.Expr
	if xc := a.content(x); len(xd) == 1 && red[0] && xc != nil {
		var acc expr.Expr
		switch name {
		case "Prod":
			acc = expr.Const(1)
			for _, e := range xc {
				acc = expr.Mul(acc, e)
			}
		case "Sum":
			acc = expr.Const(0)
			for _, e := range xc {
				acc = expr.Add(acc, e)
			}
		case "Max":
			if len(xc) > 0 {
				acc = expr.Max(xc...)
			}
		case "Min":
			if len(xc) > 0 {
				acc = expr.Min(xc...)
			}
		}
		if acc.Err() == nil && (name == "Prod" || name == "Sum" || len(xc) > 0) {
			c = []expr.Expr{acc}
		}
	}
	a.set(r, od, c)
}

// sliceRange computes the TensorFlow strided-slice indices of a dim of
// constant size n: the selected indices, or (shrink) the one index.
func sliceIndices(n, b, e, s int64, bm, em bool) []int64 {
	if s == 0 {
		return nil
	}
	clamp := func(x, lo, hi int64) int64 { return max(lo, min(x, hi)) }
	if s > 0 {
		if bm {
			b = 0
		} else if b < 0 {
			b += n
		}
		if em {
			e = n
		} else if e < 0 {
			e += n
		}
		b, e = clamp(b, 0, n), clamp(e, 0, n)
	} else {
		if bm {
			b = n - 1
		} else if b < 0 {
			b += n
		}
		if em {
			e = -1
		} else if e < 0 {
			e += n
		}
		b, e = clamp(b, -1, n-1), clamp(e, -1, n-1)
	}
	out := []int64{}
	for i := b; (s > 0 && i < e) || (s < 0 && i > e); i += s {
		out = append(out, i)
		if len(out) > 1<<20 {
			return nil
		}
	}
	return out
}

func (a *Analysis) inferStridedSlice(op *textir.Operation, args []*textir.Value, r *textir.Value) {
	if len(args) < 4 {
		return
	}
	xd := a.dims(args[0])
	bs, ok1 := a.consts(args[1])
	es, ok2 := a.consts(args[2])
	ss, ok3 := a.consts(args[3])
	ell, _ := intAttr(op, "ellipsis_mask")
	nam, _ := intAttr(op, "new_axis_mask")
	if xd == nil || !ok1 || !ok2 || !ok3 || len(bs) != len(es) || len(bs) != len(ss) || len(bs) > len(xd) || ell != 0 || nam != 0 {
		a.set(r, nil, nil)
		return
	}
	bmask, _ := intAttr(op, "begin_mask")
	emask, _ := intAttr(op, "end_mask")
	smask, _ := intAttr(op, "shrink_axis_mask")
	var od []expr.Expr
	var picks [][]int64 // for rank-1 content
	for i, d := range xd {
		if i >= len(bs) {
			od = append(od, d)
			continue
		}
		b, e, s := bs[i], es[i], ss[i]
		bm, em, sh := bmask&(1<<i) != 0, emask&(1<<i) != 0, smask&(1<<i) != 0
		n, isC := d.IsConst()
		if sh {
			if isC {
				idx := b
				if idx < 0 {
					idx += n
				}
				if idx < 0 || idx >= n {
					a.set(r, nil, nil)
					return
				}
				picks = append(picks, []int64{idx})
			} else {
				picks = append(picks, nil)
			}
			continue
		}
		switch {
		case isC:
			ix := sliceIndices(n, b, e, s, bm, em)
			if ix == nil && s == 0 {
				a.set(r, nil, nil)
				return
			}
			picks = append(picks, ix)
			od = append(od, expr.Const(int64(len(ix))))
		case s == 1 && (bm || b == 0) && em:
			picks = append(picks, nil)
			od = append(od, d)
		case s == 1 && (bm || b >= 0) && !em && e >= 0:
			lo := b
			if bm {
				lo = 0
			}
			picks = append(picks, nil)
			od = append(od, expr.Max(expr.Const(0), expr.Sub(expr.Min(expr.Const(e), d), expr.Min(expr.Const(lo), d))))
		default:
			picks = append(picks, nil)
			od = append(od, unk)
		}
	}
	if od == nil {
		od = []expr.Expr{}
	}
	var c []expr.Expr
	if xc := a.content(args[0]); len(xd) == 1 && xc != nil && picks[0] != nil {
		for _, i := range picks[0] {
			c = append(c, xc[i])
		}
		if c == nil {
			c = []expr.Expr{}
		}
	}
	a.set(r, od, c)
}

func (a *Analysis) inferSlice(x, begin, size, r *textir.Value) {
	xd := a.dims(x)
	bs, ok1 := a.consts(begin)
	sz := a.content(size)
	if xd == nil || !ok1 || len(bs) != len(xd) || len(sz) != len(xd) {
		a.set(r, nil, nil)
		return
	}
	od := make([]expr.Expr, len(xd))
	for i := range xd {
		if c, ok := sz[i].IsConst(); ok && c == -1 {
			od[i] = expr.Sub(xd[i], expr.Const(bs[i]))
		} else {
			od[i] = sz[i]
		}
	}
	var c []expr.Expr
	if xc := a.content(x); len(xd) == 1 && xc != nil {
		if n, ok := od[0].IsConst(); ok && bs[0] >= 0 && bs[0]+n <= int64(len(xc)) {
			c = append([]expr.Expr{}, xc[bs[0]:bs[0]+n]...)
		}
	}
	a.set(r, od, c)
}

func (a *Analysis) inferGather(name string, args []*textir.Value, op *textir.Operation, r *textir.Value) {
	if len(args) < 2 {
		return
	}
	pd, id := a.dims(args[0]), a.dims(args[1])
	axis := int64(0)
	if name == "GatherV2" {
		ax, ok := a.scalarConst(args[2])
		if !ok {
			a.set(r, nil, nil)
			return
		}
		axis = ax
	}
	if bd, _ := intAttr(op, "batch_dims"); bd != 0 || pd == nil || id == nil {
		a.set(r, nil, nil)
		return
	}
	ax, ok := normAxis(axis, len(pd))
	if !ok {
		a.set(r, nil, nil)
		return
	}
	od := append(append(append([]expr.Expr{}, pd[:ax]...), id...), pd[ax+1:]...)
	var c []expr.Expr
	if pc := a.content(args[0]); len(pd) == 1 && pc != nil {
		if ix, ok := a.consts(args[1]); ok {
			for _, i := range ix {
				if i < 0 || i >= int64(len(pc)) {
					c = nil
					break
				}
				c = append(c, pc[i])
			}
		}
	}
	a.set(r, od, c)
}

func (a *Analysis) inferConcat(name string, args []*textir.Value, r *textir.Value) {
	if len(args) < 2 {
		return
	}
	axv, xs := args[len(args)-1], args[:len(args)-1]
	if name == "Concat" {
		axv, xs = args[0], args[1:]
	}
	ax, ok := a.scalarConst(axv)
	var first []expr.Expr
	for _, x := range xs {
		if d := a.dims(x); d != nil {
			first = d
			break
		}
	}
	if !ok || first == nil {
		a.set(r, nil, nil)
		return
	}
	axis, ok := normAxis(ax, len(first))
	if !ok {
		return
	}
	od := append([]expr.Expr(nil), first...)
	sum := expr.Const(0)
	var c []expr.Expr
	contentOK := len(first) == 1
	for _, x := range xs {
		d := a.dims(x)
		if d == nil || len(d) != len(first) {
			sum = unk
			contentOK = false
			continue
		}
		for i := range d {
			if i == axis {
				continue
			}
			a.equate(od[i], d[i])
			if !known(od[i]) {
				od[i] = d[i]
			}
		}
		sum = expr.Add(sum, d[axis])
		if xc := a.content(x); contentOK && xc != nil {
			c = append(c, xc...)
		} else {
			contentOK = false
		}
	}
	od[axis] = sum
	if !contentOK {
		c = nil
	}
	a.set(r, od, c)
}

func (a *Analysis) inferReshape(x, shape, r *textir.Value) {
	sc := a.content(shape)
	if sc == nil {
		if sd := a.dims(shape); len(sd) == 1 {
			if n, ok := sd[0].IsConst(); ok {
				a.set(r, unknownDims(int(n)), nil)
				return
			}
		}
		a.set(r, nil, nil)
		return
	}
	od := append([]expr.Expr(nil), sc...)
	infer := -1
	rest := expr.Const(1)
	for i, e := range od {
		if c, ok := e.IsConst(); ok && c == -1 {
			infer = i
			continue
		}
		rest = expr.Mul(rest, e)
	}
	total := numel(a.dims(x))
	if infer >= 0 {
		if c, ok := rest.IsConst(); ok && c == 0 {
			od[infer] = unk
		} else {
			od[infer] = expr.FloorDiv(total, rest)
		}
	} else {
		a.equate(total, rest)
		// Same rank and one differing dim: that dim is equal too (sizes
		// are nonzero), which Equate cannot solve from the products.
		if xd := a.dims(x); len(xd) == len(od) {
			diff := -1
			for i := range xd {
				if !a.same(xd[i], od[i]) {
					if diff >= 0 {
						diff = -2
						break
					}
					diff = i
				}
			}
			if diff >= 0 {
				a.equate(xd[diff], od[diff])
			}
		}
	}
	var c []expr.Expr
	if len(od) <= 1 {
		c = a.content(x)
	}
	a.set(r, od, c)
}

func (a *Analysis) inferRange(start, limit, delta, r *textir.Value) {
	s, l, d := a.content(start), a.content(limit), a.content(delta)
	if len(s) != 1 || len(l) != 1 || len(d) != 1 {
		a.set(r, []expr.Expr{unk}, nil)
		return
	}
	dc, ok := d[0].IsConst()
	if !ok || dc == 0 {
		a.set(r, []expr.Expr{unk}, nil)
		return
	}
	var n expr.Expr
	if dc > 0 {
		n = expr.Max(expr.Const(0), expr.CeilDiv(expr.Sub(l[0], s[0]), expr.Const(dc)))
	} else {
		n = expr.Max(expr.Const(0), expr.CeilDiv(expr.Sub(s[0], l[0]), expr.Const(-dc)))
	}
	var c []expr.Expr
	if k, ok := n.IsConst(); ok && k <= MaxContent {
		if sc, ok := s[0].IsConst(); ok {
			for i := range k {
				c = append(c, expr.Const(sc+i*dc))
			}
		}
		if c == nil {
			c = []expr.Expr{}
		}
	}
	a.set(r, []expr.Expr{n}, c)
}

// nameOf names the column of an emb source: the TensorFlow name of its
// input (a placeholder, usually).
func nameOf(v *textir.Value) string {
	for i := 0; i < 16 && v != nil; i++ {
		d := v.DefiningOp()
		if d == nil {
			return "v"
		}
		if n := tfg.NodeName(d); n != "" {
			return n
		}
		if d.NumOperands() == 0 {
			break
		}
		v = d.Operand(0)
	}
	return "v"
}

// inferEmb handles the emb ops: ragged (values, row_splits) pairs, id
// transforms, tables and pooled lookups.
func (a *Analysis) inferEmb(op *textir.Operation) {
	rows := func(splits *textir.Value) expr.Expr {
		if d := a.dims(splits); len(d) == 1 {
			return expr.Sub(d[0], expr.Const(1))
		}
		return unk
	}
	width := func(table *textir.Value) expr.Expr {
		if d := a.dims(table); len(d) == 2 {
			return d[1]
		}
		return unk
	}
	switch op.Name() {
	case emb.FromDenseOp:
		x := op.Operand(0)
		xd := a.dims(x)
		b := unk
		if len(xd) >= 1 {
			b = xd[0]
		}
		var n expr.Expr
		if op.Attr(emb.AttrIgnore) == nil {
			n = numel(xd)
		}
		if n.Err() != nil || op.Attr(emb.AttrIgnore) != nil {
			n = a.fresh("nnz."+nameOf(x), expr.DataCount, binding{v: op.Result(0), dim: -1})
		}
		a.set(op.Result(0), []expr.Expr{n}, nil)
		a.set(op.Result(1), []expr.Expr{expr.Add(b, expr.Const(1))}, nil)
	case emb.FromSparseOp:
		vd := a.dims(op.Operand(1))
		n := unk
		if len(vd) == 1 {
			n = vd[0]
		}
		if !known(n) {
			n = a.fresh("nnz."+nameOf(op.Operand(1)), expr.DataCount, binding{v: op.Result(0), dim: -1})
		}
		b := unk
		if c := a.content(op.Operand(2)); len(c) >= 1 {
			b = c[0]
		}
		a.set(op.Result(0), []expr.Expr{n}, nil)
		a.set(op.Result(1), []expr.Expr{expr.Add(b, expr.Const(1))}, nil)
	case emb.SplitStringsOp:
		x := op.Operand(0)
		b := unk
		if xd := a.dims(x); len(xd) >= 1 {
			b = xd[0]
		}
		n := a.fresh("nnz."+nameOf(x), expr.DataCount, binding{v: op.Result(0), dim: -1})
		a.set(op.Result(0), []expr.Expr{n}, nil)
		a.set(op.Result(1), []expr.Expr{expr.Add(b, expr.Const(1))}, nil)
	case emb.HashOp, emb.AsStringOp, emb.BucketizeOp, emb.VocabLookupOp, emb.CheckRangeOp, emb.CastOp:
		a.set(op.Result(0), a.dims(op.Operand(0)), nil)
	case emb.AddOffsetOp:
		a.set(op.Result(0), a.dims(op.Operand(0)), nil)
	case emb.FilterOp:
		n := a.fresh("nnz."+nameOf(op.Operand(0))+".kept", expr.DataCount, binding{v: op.Result(0), dim: -1})
		a.set(op.Result(0), []expr.Expr{n}, nil)
		a.set(op.Result(1), a.dims(op.Operand(1)), nil)
		if op.NumResults() > 2 {
			if wd := a.dims(op.Operand(2)); len(wd) == 1 {
				a.equate(wd[0], a.dims(op.Operand(0))[0])
			}
			a.set(op.Result(2), []expr.Expr{n}, nil)
		}
	case emb.TableOp:
		a.set(op.Result(0), nil, nil)
	case emb.LookupOp, emb.GatherScatterOp:
		if op.NumOperands() > 3 {
			vd, wd := a.dims(op.Operand(1)), a.dims(op.Operand(3))
			if len(vd) == 1 && len(wd) == 1 {
				a.equate(vd[0], wd[0])
			}
		}
		a.set(op.Result(0), []expr.Expr{rows(op.Operand(2)), width(op.Operand(0))}, nil)
	case emb.GatherOp:
		n := unk
		if d := a.dims(op.Operand(1)); len(d) == 1 {
			n = d[0]
		}
		a.set(op.Result(0), []expr.Expr{n, width(op.Operand(0))}, nil)
	case emb.ConcatOp:
		var b expr.Expr = unk
		sum := expr.Const(0)
		for _, x := range op.Operands() {
			d := a.dims(x)
			if len(d) != 2 {
				sum = unk
				continue
			}
			if known(b) {
				a.equate(b, d[0])
			} else {
				b = d[0]
			}
			sum = expr.Add(sum, d[1])
		}
		a.set(op.Result(0), []expr.Expr{b, sum}, nil)
	default:
		for _, r := range op.Results() {
			a.set(r, nil, nil)
		}
	}
}
