package simplifyshapes

import (
	"strconv"
	"strings"

	"github.com/recom-compiler/recom/dialects/arith"
	"github.com/recom-compiler/recom/dialects/emb"
	"github.com/recom-compiler/recom/dialects/shape"
	"github.com/recom-compiler/recom/dialects/shape/expr"
	"github.com/recom-compiler/recom/dialects/tfg"
	"github.com/recom-compiler/recom/dialects/tfg/optab"
	"github.com/recom-compiler/recom/lowering/pass"
	"github.com/recom-compiler/recom/lowering/rewrite"
	"github.com/recom-compiler/recom/textir"
)

// removable lists the side-effect-free tfg ops that a dead shape chain
// may contain.
var removable = func() map[string]bool {
	m := map[string]bool{}
	for _, n := range []string{"Const", "Shape", "ShapeN", "Size", "Rank", "StridedSlice", "Slice", "Pack",
		"Unpack", "Prod", "Sum", "Max", "Min", "Cast", "GatherV2", "Gather", "ConcatV2", "Concat", "Reshape",
		"ExpandDims", "Squeeze", "Fill", "Tile", "Transpose", "Identity", "Range", "Select", "SelectV2",
		"StringSplitV2", "StringSplit", "Where", "GatherNd", "Unique", "BiasAdd", "MatMul", "NotEqual"} {
		m[n] = true
	}
	for _, o := range optab.All() {
		if o.Class != optab.Opaque {
			m[o.Name] = true // elementwise and shape-preserving ops
		}
	}
	return m
}()

// tfName is the short name of a tfg op ("Reshape"), or "".
func tfName(op *textir.Operation) string {
	if op == nil || op.Dialect() != tfg.Name {
		return ""
	}
	return strings.TrimPrefix(op.Name(), "tfg.")
}

// chainOps are the ops whose survival the statistics report.
var chainOps = map[string]bool{"Shape": true, "StridedSlice": true, "Pack": true, "Prod": true, "Slice": true}

// listener counts the tfg ops erased.
type listener struct{ erased *pass.Statistic }

func (l *listener) OpInserted(*textir.Operation)                  {}
func (l *listener) OpModified(*textir.Operation)                  {}
func (l *listener) OpReplaced(*textir.Operation, []*textir.Value) {}
func (l *listener) OpErased(op *textir.Operation) {
	if op.Dialect() == tfg.Name && l.erased != nil {
		l.erased.Inc()
	}
}

type rewriter struct {
	a       *Analysis
	rw      *rewrite.Rewriter
	b       *textir.Block
	s       *stats
	l       *listener
	members map[expr.Sym][]expr.Sym // class representative -> symbols with a binding
	values  map[expr.Sym]*textir.Value
	consts  map[int64]*textir.Value
	names   map[string]int
}

// loc derives the location of a new op from base: a node name (which the
// interpreter takes as the op's name) becomes "name/what" (made unique),
// so that a new op never takes the name of an existing node.
func (r *rewriter) loc(base textir.Location, what string) textir.Location {
	n, ok := textir.LocName(base)
	if !ok {
		return base
	}
	name := n + "/" + what
	if k := r.names[name]; k > 0 {
		r.names[name] = k + 1
		name += "_" + strconv.Itoa(k)
	} else {
		r.names[name] = 1
	}
	var child textir.Location
	if fl, ok := textir.FileLineCol(base); ok {
		child = fl
	}
	return textir.NameLoc{Name: name, Child: child}
}

func (p *Pass) runBlock(st *pass.State, b *textir.Block, s *stats) (bool, error) {
	a := Infer(b)
	s.symbols.Add(int64(a.Created))
	s.merged.Add(int64(a.Merged))
	l := &listener{}
	r := &rewriter{a: a, rw: rewrite.NewRewriter(st.Context(), l), b: b, s: s, l: l,
		members: map[expr.Sym][]expr.Sym{}, values: map[expr.Sym]*textir.Value{},
		consts: map[int64]*textir.Value{}, names: map[string]int{}}
	for i := 0; i < a.tab.Len(); i++ {
		sym := expr.Sym(i)
		if _, ok := a.bind[sym]; ok {
			rep := a.tab.Find(sym)
			r.members[rep] = append(r.members[rep], sym)
		}
	}
	if !*p.noReshape {
		r.removeReshapes()
	}
	if !*p.noRebuild {
		r.rebuildOperands()
	}
	if !*p.noRebuild {
		r.eraseDeadChains()
	}
	if !*p.noAssertions {
		r.assertSizes()
	}
	for op := range b.Ops() {
		if chainOps[tfName(op)] {
			s.left.Inc()
		}
	}
	if err := r.rw.Err(); err != nil {
		return true, err
	}
	return r.rw.Changes() > 0, nil
}

// bindable reports whether e is known and every symbol of it (after
// canonicalization) can be computed.
func (r *rewriter) bindable(e expr.Expr) bool {
	if !known(e) {
		return false
	}
	for _, s := range r.a.canon(e).Syms() {
		if len(r.members[r.a.tab.Find(s)]) == 0 {
			return false
		}
	}
	return true
}

func (r *rewriter) allBindable(es []expr.Expr) bool {
	if es == nil {
		return false
	}
	for _, e := range es {
		if !r.bindable(e) {
			return false
		}
	}
	return true
}

// symValue returns the index value of symbol s's class, binding it with
// shape.dim or shape.count the first time.
func (r *rewriter) symValue(s expr.Sym) *textir.Value {
	rep := r.a.tab.Find(s)
	if v, ok := r.values[rep]; ok {
		return v
	}
	ms := r.members[rep]
	if len(ms) == 0 {
		return nil
	}
	pick := ms[0]
	for _, m := range ms {
		if m == rep {
			pick = m
			break
		}
	}
	bd := r.a.bind[pick]
	repInfo := r.a.tab.Info(rep)
	name := ""
	b := r.rw.Builder()
	if d := bd.v.DefiningOp(); d != nil {
		b.SetInsertionPointAfter(d)
	} else {
		b.SetInsertionPointToStart(r.b)
	}
	loc := r.loc(bd.v.Loc(), "shape")
	var op *textir.Operation
	if bd.dim >= 0 {
		if tfName(bd.v.DefiningOp()) == "Placeholder" && repInfo.Kind == expr.InputDim {
			name = r.a.tab.Name(rep)
		}
		op = shape.BuildDim(b, loc, bd.v, int64(bd.dim), name)
	} else {
		if repInfo.Kind == expr.DataCount {
			name = r.a.tab.Name(rep)
		}
		op = shape.BuildCount(b, loc, bd.v, name)
	}
	r.values[rep] = op.Result(0)
	return op.Result(0)
}

// index returns an index value computing e (known and bindable) before
// the insertion point pos.
func (r *rewriter) index(e expr.Expr, pos *textir.Operation) (*textir.Value, error) {
	e = r.a.canon(e)
	if s, ok := e.AsSym(); ok {
		v := r.symValue(s)
		r.rw.SetInsertionPoint(pos)
		return v, nil
	}
	// Bind every symbol first (binding moves the insertion point).
	for _, s := range e.Syms() {
		r.symValue(s)
	}
	r.rw.SetInsertionPoint(pos)
	b := r.rw.Builder()
	if c, ok := e.IsConst(); ok {
		if v, ok := r.consts[c]; ok {
			return v, nil
		}
		v := arith.Constant(b, r.loc(pos.Loc(), "shape"), textir.IntegerAttr{Value: c, Type: textir.Index()}).Result(0)
		r.consts[c] = v
		return v, nil
	}
	op, err := shape.BuildApply(b, r.loc(pos.Loc(), "shape"), e, r.symValue, r.a.tab.Name)
	if err != nil {
		return nil, err
	}
	return op.Result(0), nil
}

// isShapeElem reports whether t's element type can hold a rebuilt shape.
func isShapeElem(t textir.Type) bool {
	et := textir.ElementType(t)
	return et == textir.I32() || et == textir.I64()
}

// fullContent returns v's content when it is small, known and bindable.
func (r *rewriter) fullContent(v *textir.Value) (Info, bool) {
	in := r.a.Of(v)
	if in.Content == nil || len(in.Dims) > 1 || !isShapeElem(v.Type()) || !r.allBindable(in.Content) {
		return in, false
	}
	return in, true
}

// rebuildOperands replaces every small integer operand computed by a
// TensorFlow chain, whose content is known, by shape ops.
func (r *rewriter) rebuildOperands() {
	var ops []*textir.Operation
	for op := range r.b.Ops() {
		ops = append(ops, op)
	}
	var dead []*textir.Operation
	for _, op := range ops {
		if op.Block() == nil || op.Dialect() == shape.Name || op.Dialect() == arith.Name {
			continue
		}
		if tfName(op) != "" && r.producesOnlyContent(op) {
			continue // rebuilt at its own users
		}
		for i, v := range op.Operands() {
			d := v.DefiningOp()
			if d == nil || tfName(d) == "" || tfName(d) == "Const" || tfg.IsControl(v.Type()) {
				continue
			}
			if tfName(d) == "Placeholder" {
				continue
			}
			in, ok := r.fullContent(v)
			if !ok {
				continue
			}
			nv, err := r.build(op, v, in)
			if err != nil || nv == nil {
				continue
			}
			r.rw.ModifyOpInPlace(op, func() { op.SetOperand(i, nv) })
			r.s.rebuilt.Inc()
			dead = append(dead, d)
		}
	}
	r.l.erased = r.s.removed
	for _, d := range dead {
		r.eraseDead(d)
	}
	r.l.erased = nil
}

// producesOnlyContent reports whether every data result of a removable
// tfg op has full content (so its users rebuild it, and it dies).
func (r *rewriter) producesOnlyContent(op *textir.Operation) bool {
	if !removable[tfName(op)] {
		return false
	}
	res := tfg.DataResults(op)
	if len(res) == 0 {
		return false
	}
	for _, v := range res {
		if _, ok := r.fullContent(v); !ok {
			return false
		}
	}
	return true
}

// build makes the shape ops computing v's content, before user.
func (r *rewriter) build(user *textir.Operation, v *textir.Value, in Info) (*textir.Value, error) {
	elems := make([]*textir.Value, len(in.Content))
	for i, e := range in.Content {
		x, err := r.index(e, user)
		if err != nil {
			return nil, err
		}
		elems[i] = x
	}
	r.rw.SetInsertionPoint(user)
	et := textir.ElementType(v.Type())
	if len(in.Dims) == 0 {
		if len(elems) != 1 {
			return nil, nil
		}
		op := r.rw.Create(&textir.OperationState{Name: shape.IndexCastOp, Loc: r.loc(user.Loc(), "shape"),
			Operands: elems, ResultTypes: []textir.Type{textir.TensorOf(nil, et)}})
		return op.Result(0), nil
	}
	op := r.rw.Create(&textir.OperationState{Name: shape.FromExtentsOp, Loc: r.loc(user.Loc(), "shape"),
		Operands: elems, ResultTypes: []textir.Type{textir.TensorOf([]int64{int64(len(elems))}, et)}})
	return op.Result(0), nil
}

// eraseDead erases op if it is a removable tfg op none of whose results
// is used, then the producers of its operands that die with it.
func (r *rewriter) eraseDead(op *textir.Operation) {
	work := []*textir.Operation{op}
	for len(work) > 0 {
		op := work[len(work)-1]
		work = work[:len(work)-1]
		if op.Block() == nil || !removable[tfName(op)] {
			continue
		}
		used := false
		for _, v := range op.Results() {
			if v.HasUses() {
				used = true
				break
			}
		}
		if used {
			continue
		}
		var defs []*textir.Operation
		for _, v := range op.Operands() {
			if d := v.DefiningOp(); d != nil {
				defs = append(defs, d)
			}
		}
		r.rw.EraseOp(op)
		work = append(work, defs...)
	}
}

// eraseDeadChains erases the shape-chain ops (Shape, Size, Rank,
// StridedSlice, Slice, Pack, Prod) that nothing uses, and what dies with
// them: --lower-emb leaves some (a weighted column's dense_shape).
func (r *rewriter) eraseDeadChains() {
	var ops []*textir.Operation
	for op := range r.b.Ops() {
		switch tfName(op) {
		case "Shape", "ShapeN", "Size", "Rank", "StridedSlice", "Slice", "Pack", "Prod":
			ops = append(ops, op)
		}
	}
	r.l.erased = r.s.removed
	for _, op := range ops {
		r.eraseDead(op)
	}
	r.l.erased = nil
}

// removeReshapes removes the Reshapes whose input already has the target
// dims.
func (r *rewriter) removeReshapes() {
	var ops []*textir.Operation
	for op := range r.b.Ops() {
		if tfName(op) == "Reshape" {
			ops = append(ops, op)
		}
	}
	for _, op := range ops {
		args := tfg.DataOperands(op)
		if len(args) != 2 || len(args) != op.NumOperands() {
			continue // control operands: keep the dependency
		}
		if c := tfg.ControlResult(op); c != nil && c.HasUses() {
			continue
		}
		x, res := args[0], op.Result(0)
		xd, rd := r.a.Of(x).Dims, r.a.Of(res).Dims
		if xd == nil || rd == nil || len(xd) != len(rd) {
			continue
		}
		same := true
		for i := range xd {
			if !r.a.same(xd[i], rd[i]) {
				same = false
				break
			}
		}
		if !same || !r.typesFit(res, x) {
			continue
		}
		r.rw.ReplaceAllUsesWith(res, x)
		defs := []*textir.Operation{}
		for _, v := range op.Operands() {
			if d := v.DefiningOp(); d != nil {
				defs = append(defs, d)
			}
		}
		r.rw.EraseOp(op)
		r.s.reshapes.Inc()
		r.l.erased = r.s.removed
		for _, d := range defs {
			r.eraseDead(d)
		}
		r.l.erased = nil
	}
}

// typesFit reports whether the uses of from may take to instead: tfg ops
// take any tensor type; other ops need the same type.
func (r *rewriter) typesFit(from, to *textir.Value) bool {
	if from.Type() == to.Type() {
		return true
	}
	for u := range from.Users() {
		if u.Dialect() != tfg.Name {
			return false
		}
	}
	return true
}

// assertSizes attaches shape.assert_shape ops giving the sizes --fuse
// plans with: the layer output and each column's slice of it (a ConcatV2
// or emb.concat with an emb input), and each lookup's ids.
func (r *rewriter) assertSizes() {
	var ops []*textir.Operation
	for op := range r.b.Ops() {
		ops = append(ops, op)
	}
	for _, op := range ops {
		switch {
		case op.Name() == emb.ConcatOp:
			for _, x := range op.Operands() {
				r.assert(op, x)
			}
			r.assert(op, op.Result(0))
		case tfName(op) == "ConcatV2" && r.isLayer(op):
			args := tfg.DataOperands(op)
			for _, x := range args[:len(args)-1] {
				r.assert(op, x)
			}
			r.assert(op, op.Result(0))
		case op.Name() == emb.LookupOp || op.Name() == emb.GatherScatterOp || op.Name() == emb.GatherOp:
			r.assert(op, op.Operand(1))
		}
	}
}

// isLayer reports whether a ConcatV2 joins embedding columns: rank 2 and
// an input made by an emb op.
func (r *rewriter) isLayer(op *textir.Operation) bool {
	if len(r.a.Of(op.Result(0)).Dims) != 2 {
		return false
	}
	args := tfg.DataOperands(op)
	for _, x := range args[:max(0, len(args)-1)] {
		d := x.DefiningOp()
		for i := 0; i < 8 && d != nil && (tfName(d) == "Reshape" || tfName(d) == "Identity"); i++ {
			d = d.Operand(0).DefiningOp()
		}
		if d != nil && d.Dialect() == emb.Name {
			return true
		}
	}
	return false
}

func (r *rewriter) assert(user *textir.Operation, v *textir.Value) {
	dims := r.a.Of(v).Dims
	if !r.allBindable(dims) && len(dims) > 0 {
		return
	}
	if dims == nil {
		return
	}
	for _, e := range dims {
		for _, s := range e.Syms() {
			r.symValue(s)
		}
	}
	r.rw.SetInsertionPoint(user)
	if _, err := shape.BuildAssertShape(r.rw.Builder(), r.loc(user.Loc(), "size"), v, dims, r.symValue, r.a.tab.Name); err == nil {
		r.s.asserts.Inc()
	}
}
