package simplifyshapes

import (
	"errors"
	"strconv"
	"strings"

	"github.com/recom-compiler/recom/dialects/emb"
	"github.com/recom-compiler/recom/dialects/shape/expr"
	"github.com/recom-compiler/recom/dialects/tfg"
	"github.com/recom-compiler/recom/dialects/tfg/optab"
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

// ex is the expression of a dim made by the analysis.
func ex(d optab.Dim) expr.Expr {
	if e, ok := d.(expr.Expr); ok {
		return e
	}
	return unk
}

// Info is what the analysis knows of one tensor value: its dims (nil: the
// rank is unknown; an unknown dim is a poisoned expression) and, for small
// integer tensors (rank ≤ 1, at most MaxContent elements), its content
// (nil: unknown; an unknown element is poisoned).
type Info struct {
	Dims    []expr.Expr
	Content []expr.Expr
}

// dimInfo is what the analysis records of a value: dims and content as the
// shape functions handed them over (the slices may be shared between
// values, as a result takes an operand's dims), canonicalized when set.
type dimInfo struct {
	dims, content []optab.Dim
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
	info     map[*textir.Value]*dimInfo
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
	if in.dims != nil {
		out.Dims = make([]expr.Expr, len(in.dims))
		for i, d := range in.dims {
			out.Dims[i] = a.canon(ex(d))
		}
	}
	if in.content != nil {
		out.Content = make([]expr.Expr, len(in.content))
		for i, d := range in.content {
			out.Content[i] = a.canon(ex(d))
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
// visited in topological order of their data operands). A tfg op's
// results follow from its shape function in the op table (package optab),
// an emb op's from embShapes; the results of other ops, and of ops without
// a shape function, are what their types say.
func Infer(b *textir.Block) *Analysis {
	a := &Analysis{tab: expr.NewTable(), info: map[*textir.Value]*dimInfo{}, bind: map[expr.Sym]binding{}}
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
func typeInfo(v *textir.Value) *dimInfo {
	tt, ok := v.Type().(*textir.TensorType)
	if !ok {
		return nil
	}
	in := &dimInfo{dims: make([]optab.Dim, len(tt.Shape))}
	for i, d := range tt.Shape {
		if d == textir.Dynamic {
			in.dims[i] = unk
		} else {
			in.dims[i] = expr.Const(d)
		}
	}
	return in
}

func (a *Analysis) get(v *textir.Value) *dimInfo {
	if v == nil {
		return nil
	}
	if in, ok := a.info[v]; ok {
		return in
	}
	return typeInfo(v)
}

func (a *Analysis) dims(v *textir.Value) []optab.Dim {
	if in := a.get(v); in != nil {
		return in.dims
	}
	return nil
}

func (a *Analysis) content(v *textir.Value) []optab.Dim {
	if in := a.get(v); in != nil {
		return in.content
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
		k, ok := a.canon(ex(e)).IsConst()
		if !ok {
			return nil, false
		}
		out[i] = k
	}
	return out, true
}

// set records dims and content of v, reconciled with v's static type:
// dims are canonicalized in place (a shape function hands them over), and
// content is kept only for an integer tensor of rank ≤ 1 whose constant
// number of elements it matches.
func (a *Analysis) set(v *textir.Value, dims, content []optab.Dim) {
	ti := typeInfo(v)
	if ti != nil {
		if dims == nil || len(dims) != len(ti.dims) {
			dims = ti.dims
			content = nil
		} else {
			// A copy that stays non-nil for a scalar: nil dims mean
			// unknown rank, which would drop the content below.
			dims = append(make([]optab.Dim, 0, len(dims)), dims...)
			for i, d := range ti.dims {
				if known(ex(d)) {
					a.equate(ex(dims[i]), ex(d))
					dims[i] = d
				}
			}
		}
	}
	for i, d := range dims {
		dims[i] = a.canon(ex(d))
	}
	if content != nil {
		n, ok := numelConst(dims)
		if dims == nil || len(dims) > 1 || !ok || n != int64(len(content)) || !optab.IsIntTensor(v) {
			content = nil
		}
	}
	a.info[v] = &dimInfo{dims: dims, content: content}
}

func numelConst(dims []optab.Dim) (int64, bool) {
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

// shapeAttrDims reads a #tfg.shape attribute as dims, creating fresh
// input symbols for unknown dims (bound to dims of v).
func (a *Analysis) shapeAttrDims(op *textir.Operation, attr string, v *textir.Value, fresh bool) []optab.Dim {
	s, ok := tfg.ShapeOf(op.Attr(attr))
	if !ok || s.UnknownRank {
		return nil
	}
	dims := make([]optab.Dim, len(s.Dims))
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
		e := a.fresh(name, expr.InputDim, binding{v: v, dim: i})
		dims[i] = e
		if i == 0 && !a.hasBatch {
			a.batch, _ = e.AsSym()
			a.hasBatch = true
		}
	}
	return dims
}

// infer computes the infos of op's results.
func (a *Analysis) infer(op *textir.Operation) {
	c := shapeCtx{a}
	switch op.Dialect() {
	case emb.Name:
		if fn, ok := embShapes[op.Name()]; ok {
			fn(c, op)
			return
		}
		for _, r := range op.Results() {
			a.set(r, nil, nil)
		}
	case tfg.Name:
		res := tfg.DataResults(op)
		if len(res) == 0 {
			return
		}
		row, ok := optab.Of(op.Name())
		if !ok || row.Shape == nil {
			for _, x := range res {
				a.set(x, nil, nil)
			}
			return
		}
		row.Shape(c, op)
		if _, ok := a.info[res[0]]; !ok {
			a.set(res[0], nil, nil)
		}
	}
}

// shapeCtx is the analysis as the optab.ShapeContext of shape functions:
// dims are canonical expressions (expr.Expr) over the analysis's symbols.
type shapeCtx struct{ a *Analysis }

func (c shapeCtx) Dims(v *textir.Value) []optab.Dim       { return c.a.dims(v) }
func (c shapeCtx) Content(v *textir.Value) []optab.Dim    { return c.a.content(v) }
func (c shapeCtx) Consts(v *textir.Value) ([]int64, bool) { return c.a.consts(v) }
func (c shapeCtx) Set(v *textir.Value, dims, content []optab.Dim) {
	if v != nil {
		c.a.set(v, dims, content)
	}
}
func (c shapeCtx) MaxContent() int                   { return MaxContent }
func (c shapeCtx) Const(k int64) optab.Dim           { return expr.Const(k) }
func (c shapeCtx) Unknown() optab.Dim                { return unk }
func (c shapeCtx) Add(x, y optab.Dim) optab.Dim      { return expr.Add(ex(x), ex(y)) }
func (c shapeCtx) Sub(x, y optab.Dim) optab.Dim      { return expr.Sub(ex(x), ex(y)) }
func (c shapeCtx) Mul(x, y optab.Dim) optab.Dim      { return expr.Mul(ex(x), ex(y)) }
func (c shapeCtx) FloorDiv(x, y optab.Dim) optab.Dim { return expr.FloorDiv(ex(x), ex(y)) }
func (c shapeCtx) CeilDiv(x, y optab.Dim) optab.Dim  { return expr.CeilDiv(ex(x), ex(y)) }
func (c shapeCtx) Mod(x, y optab.Dim) optab.Dim      { return expr.Mod(ex(x), ex(y)) }
func (c shapeCtx) Max(xs ...optab.Dim) optab.Dim     { return expr.Max(exs(xs)...) }
func (c shapeCtx) Min(xs ...optab.Dim) optab.Dim     { return expr.Min(exs(xs)...) }
func (c shapeCtx) Equate(x, y optab.Dim)             { c.a.equate(ex(x), ex(y)) }
func (c shapeCtx) Same(x, y optab.Dim) bool          { return c.a.same(ex(x), ex(y)) }

func (c shapeCtx) AttrDims(op *textir.Operation, attr string, bind *textir.Value) []optab.Dim {
	return c.a.shapeAttrDims(op, attr, bind, bind != nil)
}

func (c shapeCtx) Count(op *textir.Operation, suffix string, v *textir.Value, dim int) optab.Dim {
	return c.a.fresh(tfg.NodeName(op)+suffix, expr.DataCount, binding{v: v, dim: dim})
}

func exs(ds []optab.Dim) []expr.Expr {
	out := make([]expr.Expr, len(ds))
	for i, d := range ds {
		out[i] = ex(d)
	}
	return out
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
