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

// The rewrite is four sets of patterns, each applied by one top-down sweep
// of the greedy driver (rewrite.ApplyPatternsGreedily, no folding, no
// dead-code removal): the analysis is computed once before them and not
// updated, so a second sweep would match against stale facts.
//
//   - remove-noop-reshape, rooted at tfg.Reshape;
//   - rebuild-shape-operands, rooted at any op: the op's small integer
//     operands computed by tfg ops are rebuilt with shape ops. The
//     producers this leaves dead are erased after the sweep, not by the
//     pattern: a later rebuild may still bind a symbol to one of their
//     values;
//   - erase-dead-shape-chain, rooted at each shape-chain op (chainRoots);
//   - assert-layer-sizes and assert-lookup-ids, rooted at the layer's
//     concatenation and at the emb lookups.

// removable lists the side-effect-free tfg ops that a dead shape chain
// may contain: the ops of the table with an elementwise or shape-
// preserving class, and these.
var removable = func() map[string]bool {
	m := map[string]bool{}
	for _, n := range []string{"Const", "Shape", "ShapeN", "Size", "Rank", "StridedSlice", "Slice", "Pack",
		"Unpack", "Prod", "Sum", "Max", "Min", "Cast", "GatherV2", "Gather", "ConcatV2", "Concat", "Reshape",
		"ExpandDims", "Squeeze", "Fill", "Tile", "Transpose", "Identity", "Range", "Select", "SelectV2",
		"StringSplitV2", "StringSplit", "Where", "GatherNd", "Unique", "BiasAdd", "MatMul", "NotEqual",
		"SparseReshape", "SparseCross", "SparseCrossV2", "SparseCrossHashed"} {
		m[n] = true
	}
	for _, o := range optab.All() {
		if o.Class != optab.Opaque {
			m[o.Name] = true
		}
	}
	return m
}()

// chainRoots are the shape-chain ops that erase-dead-shape-chain starts
// from (--lower-emb leaves some dead: a weighted column's dense_shape, a
// crossed column's SparseReshape).
var chainRoots = []string{"Shape", "ShapeN", "Size", "Rank", "StridedSlice", "Slice", "Pack", "Prod", "SparseReshape"}

// chainOps are the ops whose survival the statistics report.
var chainOps = map[string]bool{"Shape": true, "StridedSlice": true, "Pack": true, "Prod": true, "Slice": true}

// tfName is the short name of a tfg op ("Reshape"), or "".
func tfName(op *textir.Operation) string {
	if op == nil || op.Dialect() != tfg.Name {
		return ""
	}
	return strings.TrimPrefix(op.Name(), "tfg.")
}

// simplifier is what the patterns of one graph block share: the analysis,
// the values computing each symbol class and constant, the names of the
// locations made, and the statistics.
type simplifier struct {
	a       *Analysis
	b       *textir.Block
	s       *stats
	members map[expr.Sym][]expr.Sym // class representative -> symbols with a binding
	values  map[expr.Sym]*textir.Value
	consts  map[int64]*textir.Value
	names   map[string]int
	// created counts the ops the patterns made, so that a pattern knows
	// whether it changed the IR.
	created int
	// rebuilt marks the ops whose operands were rebuilt; dead lists the
	// producers of rebuilt operands, erased after the sweep.
	rebuilt map[*textir.Operation]bool
	dead    []*textir.Operation
	// asserted marks the ops whose sizes are asserted.
	asserted map[*textir.Operation]bool
}

func newSimplifier(a *Analysis, b *textir.Block, s *stats) *simplifier {
	sp := &simplifier{a: a, b: b, s: s, members: map[expr.Sym][]expr.Sym{}, values: map[expr.Sym]*textir.Value{},
		consts: map[int64]*textir.Value{}, names: map[string]int{},
		rebuilt: map[*textir.Operation]bool{}, asserted: map[*textir.Operation]bool{}}
	for i := 0; i < a.tab.Len(); i++ {
		sym := expr.Sym(i)
		if _, ok := a.bind[sym]; ok {
			rep := a.tab.Find(sym)
			sp.members[rep] = append(sp.members[rep], sym)
		}
	}
	return sp
}

// loc derives the location of a new op from base: a node name (which the
// interpreter takes as the op's name) becomes "name/what" (made unique),
// so that a new op never takes the name of an existing node.
func (sp *simplifier) loc(base textir.Location, what string) textir.Location {
	n, ok := textir.LocName(base)
	if !ok {
		return base
	}
	name := n + "/" + what
	if k := sp.names[name]; k > 0 {
		sp.names[name] = k + 1
		name += "_" + strconv.Itoa(k)
	} else {
		sp.names[name] = 1
	}
	var child textir.Location
	if fl, ok := textir.FileLineCol(base); ok {
		child = fl
	}
	return textir.NameLoc{Name: name, Child: child}
}

// runBlock simplifies the shape computations of one graph block, whose
// parent is the tfg.graph op g.
func (p *Pass) runBlock(st *pass.State, g *textir.Operation, b *textir.Block, s *stats) (bool, error) {
	a := Infer(b)
	s.symbols.Add(int64(a.Created))
	s.merged.Add(int64(a.Merged))
	sp := newSimplifier(a, b, s)
	var sets [][]textir.RewritePattern
	if !*p.noReshape {
		sets = append(sets, sp.reshapePatterns())
	}
	changed := false
	if !*p.noRebuild {
		sets = append(sets, sp.rebuildPatterns(), sp.deadChainPatterns())
	}
	if !*p.noAssertions {
		sets = append(sets, sp.assertionPatterns())
	}
	for _, ps := range sets {
		c, err := sp.apply(st.Context(), g, ps)
		if err != nil {
			return true, err
		}
		changed = changed || c
	}
	for op := range b.Ops() {
		if chainOps[tfName(op)] {
			s.left.Inc()
		}
	}
	return changed, nil
}

// apply applies one set of patterns to the ops of g's block: one top-down
// sweep of the greedy driver, then the erasure of the producers that
// rebuilt operands left dead. It reports whether the IR changed.
func (sp *simplifier) apply(ctx *textir.Context, g *textir.Operation, ps []textir.RewritePattern) (bool, error) {
	res, err := rewrite.ApplyPatternsGreedily(g, rewrite.NewPatternSet(ctx, ps),
		rewrite.GreedyConfig{MaxIterations: 1, UseTopDownTraversal: true})
	if err != nil {
		return true, err
	}
	changed := res.Changed
	if len(sp.dead) > 0 {
		rw := rewrite.NewRewriter(ctx, nil)
		for _, d := range sp.dead {
			sp.eraseDead(rw, d)
		}
		sp.dead = nil
		if err := rw.Err(); err != nil {
			return true, err
		}
		changed = changed || rw.Changes() > 0
	}
	return changed, nil
}

// ---- symbols as values ----

// bindable reports whether e is known and every symbol of it (after
// canonicalization) can be computed.
func (sp *simplifier) bindable(e expr.Expr) bool {
	if !known(e) {
		return false
	}
	for _, s := range sp.a.canon(e).Syms() {
		if len(sp.members[sp.a.tab.Find(s)]) == 0 {
			return false
		}
	}
	return true
}

func (sp *simplifier) allBindable(es []expr.Expr) bool {
	if es == nil {
		return false
	}
	for _, e := range es {
		if !sp.bindable(e) {
			return false
		}
	}
	return true
}

// symValue returns the index value of symbol s's class, binding it with
// shape.dim or shape.count (after the op defining what it measures) the
// first time.
func (sp *simplifier) symValue(rw textir.PatternRewriter, s expr.Sym) *textir.Value {
	rep := sp.a.tab.Find(s)
	if v, ok := sp.values[rep]; ok {
		return v
	}
	ms := sp.members[rep]
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
	bd := sp.a.bind[pick]
	repInfo := sp.a.tab.Info(rep)
	name := ""
	b := rw.Builder()
	if d := bd.v.DefiningOp(); d != nil {
		b.SetInsertionPointAfter(d)
	} else {
		b.SetInsertionPointToStart(sp.b)
	}
	loc := sp.loc(bd.v.Loc(), "shape")
	var v *textir.Value
	if bd.dim >= 0 {
		if tfName(bd.v.DefiningOp()) == "Placeholder" && repInfo.Kind == expr.InputDim {
			name = sp.a.tab.Name(rep)
		}
		dim, _ := shape.AsDim(shape.BuildDim(b, loc, bd.v, int64(bd.dim), name))
		v = dim.Result()
	} else {
		if repInfo.Kind == expr.DataCount {
			name = sp.a.tab.Name(rep)
		}
		count, _ := shape.AsCount(shape.BuildCount(b, loc, bd.v, name))
		v = count.Result()
	}
	sp.created++
	sp.values[rep] = v
	return v
}

// valueOf is symValue as the callback of shape.BuildApply and
// shape.BuildAssertShape.
func (sp *simplifier) valueOf(rw textir.PatternRewriter) func(expr.Sym) *textir.Value {
	return func(s expr.Sym) *textir.Value { return sp.symValue(rw, s) }
}

// index returns an index value computing e (known and bindable) before
// the insertion point pos.
func (sp *simplifier) index(rw textir.PatternRewriter, e expr.Expr, pos *textir.Operation) (*textir.Value, error) {
	e = sp.a.canon(e)
	if s, ok := e.AsSym(); ok {
		v := sp.symValue(rw, s)
		rw.Builder().SetInsertionPoint(pos)
		return v, nil
	}
	// Bind every symbol first (binding moves the insertion point).
	for _, s := range e.Syms() {
		sp.symValue(rw, s)
	}
	b := rw.Builder()
	b.SetInsertionPoint(pos)
	if c, ok := e.IsConst(); ok {
		if v, ok := sp.consts[c]; ok {
			return v, nil
		}
		k, _ := arith.AsConstant(arith.Constant(b, sp.loc(pos.Loc(), "shape"), textir.IntegerAttr{Value: c, Type: textir.Index()}))
		v := k.Result()
		sp.created++
		sp.consts[c] = v
		return v, nil
	}
	op, err := shape.BuildApply(b, sp.loc(pos.Loc(), "shape"), e, sp.valueOf(rw), sp.a.tab.Name)
	if err != nil {
		return nil, err
	}
	sp.created++
	apply, _ := shape.AsApply(op)
	return apply.Result(), nil
}

// ---- remove-noop-reshape ----

func (sp *simplifier) reshapePatterns() []textir.RewritePattern {
	return []textir.RewritePattern{&textir.Pattern{RootName: "tfg.Reshape", PatternName: "remove-noop-reshape", Fn: sp.removeNoOpReshape}}
}

// removeNoOpReshape removes a tfg.Reshape whose tensor already has the
// target dims (its users take the tensor), then the producers of its
// operands that die with it.
func (sp *simplifier) removeNoOpReshape(op *textir.Operation, rw textir.PatternRewriter) bool {
	x, res := optab.Operand(op, "tensor"), optab.Result(op, "output")
	if op.Block() != sp.b || x == nil || res == nil || optab.Operand(op, "shape") == nil || op.NumOperands() != 2 {
		return false // control operands: keep the dependency
	}
	if c := tfg.ControlResult(op); c != nil && c.HasUses() {
		return false
	}
	xd, rd := sp.a.Of(x).Dims, sp.a.Of(res).Dims
	if xd == nil || rd == nil || len(xd) != len(rd) {
		return false
	}
	for i := range xd {
		if !sp.a.same(xd[i], rd[i]) {
			return false
		}
	}
	if !typesFit(res, x) {
		return false
	}
	rw.ReplaceAllUsesWith(res, x)
	var defs []*textir.Operation
	for _, v := range op.Operands() {
		if d := v.DefiningOp(); d != nil {
			defs = append(defs, d)
		}
	}
	rw.EraseOp(op)
	sp.s.reshapes.Inc()
	for _, d := range defs {
		sp.eraseDead(rw, d)
	}
	return true
}

// typesFit reports whether the uses of from may take to instead: tfg ops
// take any tensor type; other ops need the same type.
func typesFit(from, to *textir.Value) bool {
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

// ---- rebuild-shape-operands ----

func (sp *simplifier) rebuildPatterns() []textir.RewritePattern {
	return []textir.RewritePattern{&textir.Pattern{PatternName: "rebuild-shape-operands", Fn: sp.rebuildOperands}}
}

// isShapeElem reports whether t's element type can hold a rebuilt shape.
func isShapeElem(t textir.Type) bool {
	et := textir.ElementType(t)
	return et == textir.I32() || et == textir.I64()
}

// fullContent returns v's content when it is small, known and bindable.
func (sp *simplifier) fullContent(v *textir.Value) (Info, bool) {
	in := sp.a.Of(v)
	if in.Content == nil || len(in.Dims) > 1 || !isShapeElem(v.Type()) || !sp.allBindable(in.Content) {
		return in, false
	}
	return in, true
}

// rebuildOperands replaces every small integer operand of op that a tfg op
// computes and whose content is known by shape ops computing it from the
// symbols (once per op). An op whose own results are all such contents is
// left alone: its users rebuild them, and it dies.
func (sp *simplifier) rebuildOperands(op *textir.Operation, rw textir.PatternRewriter) bool {
	if op.Block() != sp.b || sp.rebuilt[op] || op.Dialect() == shape.Name || op.Dialect() == arith.Name {
		return false
	}
	if tfName(op) != "" && sp.producesOnlyContent(op) {
		return false
	}
	before := sp.created
	modified := false
	for i, v := range op.Operands() {
		d := v.DefiningOp()
		if d == nil || tfName(d) == "" || tfName(d) == "Const" || tfName(d) == "Placeholder" || tfg.IsControl(v.Type()) {
			continue
		}
		in, ok := sp.fullContent(v)
		if !ok {
			continue
		}
		nv, err := sp.build(rw, op, v, in)
		if err != nil || nv == nil {
			continue
		}
		rw.ModifyOpInPlace(op, func() { op.SetOperand(i, nv) })
		modified = true
		sp.s.rebuilt.Inc()
		sp.dead = append(sp.dead, d)
	}
	if !modified && sp.created == before {
		return false
	}
	sp.rebuilt[op] = true // the driver visits it again, modified
	return true
}

// producesOnlyContent reports whether every data result of a removable
// tfg op has full content (so its users rebuild it, and it dies).
func (sp *simplifier) producesOnlyContent(op *textir.Operation) bool {
	if !removable[tfName(op)] {
		return false
	}
	res := tfg.DataResults(op)
	if len(res) == 0 {
		return false
	}
	for _, v := range res {
		if _, ok := sp.fullContent(v); !ok {
			return false
		}
	}
	return true
}

// build makes the shape ops computing v's content, before user.
func (sp *simplifier) build(rw textir.PatternRewriter, user *textir.Operation, v *textir.Value, in Info) (*textir.Value, error) {
	elems := make([]*textir.Value, len(in.Content))
	for i, e := range in.Content {
		x, err := sp.index(rw, e, user)
		if err != nil {
			return nil, err
		}
		elems[i] = x
	}
	rw.Builder().SetInsertionPoint(user)
	et := textir.ElementType(v.Type())
	st := &textir.OperationState{Name: shape.FromExtentsOp, Operands: elems,
		ResultTypes: []textir.Type{textir.TensorOf([]int64{int64(len(elems))}, et)}}
	if len(in.Dims) == 0 {
		if len(elems) != 1 {
			return nil, nil
		}
		st.Name, st.ResultTypes = shape.IndexCastOp, []textir.Type{textir.TensorOf(nil, et)}
	}
	st.Loc = sp.loc(user.Loc(), "shape")
	sp.created++
	op := rw.Create(st)
	if cast, ok := shape.AsIndexCast(op); ok {
		return cast.Out(), nil
	}
	extents, _ := shape.AsFromExtents(op)
	return extents.Result(), nil
}

// eraseDead erases op if it is a removable tfg op none of whose results
// is used, then the producers of its operands that die with it; each op
// erased counts as a shape op removed.
func (sp *simplifier) eraseDead(rw textir.PatternRewriter, op *textir.Operation) {
	work := []*textir.Operation{op}
	for len(work) > 0 {
		op := work[len(work)-1]
		work = work[:len(work)-1]
		if op.Block() == nil || !removable[tfName(op)] || op.HasResultUses() {
			continue
		}
		var defs []*textir.Operation
		for _, v := range op.Operands() {
			if d := v.DefiningOp(); d != nil {
				defs = append(defs, d)
			}
		}
		rw.EraseOp(op)
		sp.s.removed.Inc()
		work = append(work, defs...)
	}
}

// ---- erase-dead-shape-chain ----

func (sp *simplifier) deadChainPatterns() []textir.RewritePattern {
	var ps []textir.RewritePattern
	for _, n := range chainRoots {
		ps = append(ps, &textir.Pattern{RootName: tfg.Name + "." + n, PatternName: "erase-dead-shape-chain", Fn: sp.eraseDeadChain})
	}
	return ps
}

// eraseDeadChain erases a shape-chain op that nothing uses, and what dies
// with it.
func (sp *simplifier) eraseDeadChain(op *textir.Operation, rw textir.PatternRewriter) bool {
	if op.Block() != sp.b || op.HasResultUses() {
		return false
	}
	sp.eraseDead(rw, op)
	return true
}

// ---- assert-layer-sizes, assert-lookup-ids ----

func (sp *simplifier) assertionPatterns() []textir.RewritePattern {
	ps := []textir.RewritePattern{
		&textir.Pattern{RootName: emb.ConcatOp, PatternName: "assert-layer-sizes", Fn: sp.assertEmbConcat},
		&textir.Pattern{RootName: tfg.Name + ".ConcatV2", PatternName: "assert-layer-sizes", Fn: sp.assertLayerConcat},
	}
	for _, n := range []string{emb.LookupOp, emb.GatherScatterOp, emb.GatherOp} {
		ps = append(ps, &textir.Pattern{RootName: n, PatternName: "assert-lookup-ids", Fn: sp.assertLookupIds})
	}
	return ps
}

// assertEmbConcat attaches to an emb.concat the sizes of its columns and
// of the layer.
func (sp *simplifier) assertEmbConcat(op *textir.Operation, rw textir.PatternRewriter) bool {
	if op.Block() != sp.b || sp.asserted[op] {
		return false
	}
	sp.asserted[op] = true
	before := sp.created
	cc, _ := emb.AsConcat(op)
	for _, x := range cc.Inputs() {
		sp.assert(rw, op, x)
	}
	sp.assert(rw, op, cc.Result())
	return sp.created != before
}

// assertLayerConcat does the same for a tfg.ConcatV2 that joins
// embedding columns.
func (sp *simplifier) assertLayerConcat(op *textir.Operation, rw textir.PatternRewriter) bool {
	if op.Block() != sp.b || sp.asserted[op] || !sp.isLayer(op) {
		return false
	}
	sp.asserted[op] = true
	before := sp.created
	for _, x := range optab.Operands(op, "values") {
		sp.assert(rw, op, x)
	}
	sp.assert(rw, op, optab.Result(op, "output"))
	return sp.created != before
}

// assertLookupIds attaches to an emb lookup the size of its ids.
func (sp *simplifier) assertLookupIds(op *textir.Operation, rw textir.PatternRewriter) bool {
	if op.Block() != sp.b || sp.asserted[op] {
		return false
	}
	sp.asserted[op] = true
	before := sp.created
	if lk, ok := emb.AsTableLookup(op); ok {
		sp.assert(rw, op, lk.IDs())
	}
	return sp.created != before
}

// passThrough names the data operand of the ops isLayer looks through.
var passThrough = map[string]string{"tfg.Reshape": "tensor", "tfg.Identity": "input"}

// isLayer reports whether a ConcatV2 joins embedding columns: rank 2 and
// a value made by an emb op (through Reshapes and Identities).
func (sp *simplifier) isLayer(op *textir.Operation) bool {
	r := optab.Result(op, "output")
	if r == nil || len(sp.a.Of(r).Dims) != 2 {
		return false
	}
	for _, x := range optab.Operands(op, "values") {
		d := x.DefiningOp()
		for i := 0; i < 8 && d != nil && passThrough[d.Name()] != ""; i++ {
			v := optab.Operand(d, passThrough[d.Name()])
			if v == nil {
				d = nil
				break
			}
			d = v.DefiningOp()
		}
		if d != nil && d.Dialect() == emb.Name {
			return true
		}
	}
	return false
}

// assert attaches a shape.assert_shape stating v's dims, before user.
func (sp *simplifier) assert(rw textir.PatternRewriter, user *textir.Operation, v *textir.Value) {
	if v == nil {
		return
	}
	dims := sp.a.Of(v).Dims
	if !sp.allBindable(dims) && len(dims) > 0 {
		return
	}
	if dims == nil {
		return
	}
	for _, e := range dims {
		for _, s := range e.Syms() {
			sp.symValue(rw, s)
		}
	}
	rw.Builder().SetInsertionPoint(user)
	if _, err := shape.BuildAssertShape(rw.Builder(), sp.loc(user.Loc(), "size"), v, dims, sp.valueOf(rw), sp.a.tab.Name); err == nil {
		sp.created++
		sp.s.asserts.Inc()
	}
}
