package tfgtoemb

import (
	"fmt"
	"slices"
	"strings"

	"github.com/recom-compiler/recom/dialects/emb"
	"github.com/recom-compiler/recom/dialects/tfg"
	"github.com/recom-compiler/recom/dialects/tfg/optab"
	"github.com/recom-compiler/recom/lowering/rewrite"
	"github.com/recom-compiler/recom/textir"
)

// Plain lookups: tables read by tf.nn's lookups directly, without feature
// columns (embedding_ops.py):
//
//   - embedding_lookup(params, ids): a gather of the table (GatherV2 of a
//     VariableV2's read or a Const, ResourceGather of a VarHandleOp) and an
//     Identity; over a table in shards (a partitioned variable, params a
//     list), the flattened ids split by shard with DynamicPartition
//     (shard and row by partition_strategy: "mod" FloorMod/FloorDiv,
//     "div" the Maximum/Select arithmetic over the shards' total rows), a
//     gather per shard, ParallelDynamicStitch, and a Reshape back to
//     shape(ids) + [D]. Ids [B] give a [B, D] column as they are; ids
//     [B, K] pooled by Sum or Mean over axis 1 give one.
//   - embedding_lookup_sparse(params, sp_ids, sp_weights, combiner): the
//     segment ids sp_ids.indices[:, 0] (Cast to int32 but in TF 2.16
//     without weights), the rows of Unique(sp_ids.values) looked up, and
//     SparseSegment{Sum,Mean,SqrtN}(rows, Unique:1, segments); TF 2.16
//     without weights over one table pools the table itself at the ids
//     (no Unique). With weights: SegmentSum(rows[idx] * w) divided by
//     SegmentSum(w) (mean) or Sqrt(SegmentSum(w^2)) (sqrtn), RealDiv, or
//     DivNoNan in TF 2.16. Its result has max(segment)+1 rows (TensorFlow
//     assumes every row has an id and the indices are ordered): the
//     lowered column computes that count from the segment ids (tfg ops
//     before emb.from_sparse's dense shape), so that a batch whose last
//     rows are empty gives what TensorFlow gives (fewer rows).
//     (Indices out of row order, which TensorFlow's segment reductions
//     refuse, are grouped by row, as emb.from_sparse groups any sparse
//     ids: the lowered column answers where TensorFlow fails.)
//   - safe_embedding_lookup_sparse: the feature columns' chain (match.go),
//     over any of these tables.
//
// rowsOf recognises the tables' reads; lookupChain and denseChain use it.

// rowsRead is a read of a table's rows.
type rowsRead struct {
	// table is the table op (the first shard of a partitioned table).
	table *textir.Operation
	// parts are the shards of a partitioned table, in order; strategy is
	// embedding_lookup's partition_strategy.
	parts    []*textir.Operation
	strategy string
	// ids are the ids read, nil when the value is the table itself (a
	// pooling op then reads it at its own indices).
	ids *textir.Value
	// root is the op whose result the rows are: the gather, or the Reshape
	// after the stitch of a partitioned table.
	root *textir.Operation
}

// gatherOf returns a gather op's table and ids when it reads a whole
// table on axis 0 without batch dims.
func gatherOf(op *textir.Operation) (*textir.Operation, *textir.Value, error) {
	t := gatherTable(op)
	if t == nil {
		return nil, nil, fail("%s does not gather a table", opDesc(op))
	}
	if isOp(op, "GatherV2") && !constIntsEq(optab.Operand(op, "axis"), 0) {
		return nil, nil, fail("the table gather %q is not on axis 0", tfg.NodeName(op))
	}
	if isOp(op, "GatherV2", "ResourceGather") && !intAttrIs(op, "batch_dims", 0) {
		return nil, nil, fail("the table gather %q has batch dims", tfg.NodeName(op))
	}
	return t, optab.Operand(op, "indices"), nil
}

// rowsOf recognises v as rows of a table: a gather (through Identity), the
// Reshape of a partitioned lookup's stitch, or the table itself. ok is
// false when v is none of them; err says why a read that looks like one
// cannot be lowered.
func rowsOf(v *textir.Value) (r *rowsRead, ok bool, err error) {
	v = strip(v)
	d := def(v)
	switch {
	case d == nil:
		return nil, false, nil
	case isOp(d, "GatherV2", "Gather", "ResourceGather") && gatherTable(d) != nil:
		t, ids, err := gatherOf(d)
		if err != nil {
			return nil, true, err
		}
		return &rowsRead{table: t, ids: ids, root: d}, true, nil
	case isOp(d, "Reshape") && is(strip(optab.Operand(d, "tensor")), "ParallelDynamicStitch", "DynamicStitch") != nil:
		r, err := partitionedRows(d)
		return r, true, err
	}
	if t := tableOf(v); t != nil {
		return &rowsRead{table: t}, true, nil
	}
	return nil, false, nil
}

// stitchShards returns the table op each data input of a
// (Parallel)DynamicStitch gathers, or nil when one is not a table gather:
// the shards of a partitioned lookup, for column identification.
func stitchShards(st *textir.Operation) []*textir.Operation {
	data := optab.Operands(st, "data")
	if len(data) < 2 {
		return nil
	}
	var out []*textir.Operation
	for _, x := range data {
		t := gatherTable(def(strip(x)))
		if t == nil || slices.Contains(out, t) {
			return nil
		}
		out = append(out, t)
	}
	return out
}

// partitionedRows matches embedding_lookup over a table in shards, from
// its last op: Reshape(ParallelDynamicStitch(positions, rows),
// ConcatV2(Shape(ids), [D])).
func partitionedRows(rs *textir.Operation) (*rowsRead, error) {
	st := is(strip(optab.Operand(rs, "tensor")), "ParallelDynamicStitch", "DynamicStitch")
	indices, data := optab.Operands(st, "indices"), optab.Operands(st, "data")
	n := len(indices)
	if n < 2 || len(data) != n {
		return nil, fail("the stitch %q does not join two or more shards", tfg.NodeName(st))
	}
	// The result's shape: shape(ids) + [D].
	cc := is(optab.Operand(rs, "shape"), "ConcatV2")
	if cc == nil || len(optab.Operands(cc, "values")) != 2 || !constIntsEq(optab.Operand(cc, "axis"), 0) {
		return nil, fail("the partitioned lookup %q is not reshaped to shape(ids) + [dim]", tfg.NodeName(st))
	}
	sh := is(optab.Operands(cc, "values")[0], "Shape")
	el, ok := constInts(optab.Operands(cc, "values")[1])
	if sh == nil || !ok || len(el) != 1 {
		return nil, fail("the partitioned lookup %q is not reshaped to shape(ids) + [dim]", tfg.NodeName(st))
	}
	ids := optab.Operand(sh, "input")
	// The shards' gathers at the ids that DynamicPartition gives each, and
	// the positions it gives each.
	var posDP, idsDP *textir.Operation
	r := &rowsRead{root: rs}
	for p := range n {
		dp := is(indices[p], "DynamicPartition")
		if dp == nil || (posDP != nil && dp != posDP) || slices.Index(optab.Results(dp, "outputs"), indices[p]) != p {
			return nil, fail("the stitch %q does not put shard %d's rows at the positions DynamicPartition gives shard %d", tfg.NodeName(st), p, p)
		}
		posDP = dp
		g := def(strip(data[p]))
		t, gids, err := gatherOf(g)
		if err != nil {
			return nil, fail("shard %d of %q: %v (a transform_fn or max_norm is not supported)", p, tfg.NodeName(st), err)
		}
		dp = is(gids, "DynamicPartition")
		if dp == nil || (idsDP != nil && dp != idsDP) || slices.Index(optab.Results(dp, "outputs"), gids) != p {
			return nil, fail("shard %d of %q is not gathered at the ids DynamicPartition gives it", p, tfg.NodeName(st))
		}
		idsDP = dp
		r.parts = append(r.parts, t)
	}
	if posDP == idsDP || !intAttrIs(posDP, "num_partitions", int64(n)) || !intAttrIs(idsDP, "num_partitions", int64(n)) ||
		!same(optab.Operand(posDP, "partitions"), optab.Operand(idsDP, "partitions")) {
		return nil, fail("the shards of %q are not split by one DynamicPartition of the ids and one of their positions", tfg.NodeName(st))
	}
	r.table = r.parts[0]
	// flat = Reshape(ids, [-1]); positions = Range(0, Size(flat), 1).
	rg := is(optab.Operand(posDP, "data"), "Range")
	var frs *textir.Operation
	if rg != nil {
		if sz := is(optab.Operand(rg, "limit"), "Size"); sz != nil {
			frs = is(optab.Operand(sz, "input"), "Reshape")
		}
	}
	if frs == nil || !constIntsEq(optab.Operand(frs, "shape"), -1) || !same(optab.Operand(frs, "tensor"), ids) ||
		!constIntsEq(optab.Operand(rg, "start"), 0) || !constIntsEq(optab.Operand(rg, "delta"), 1) {
		return nil, fail("the positions of %q are not range(size(reshape(ids, [-1])))", tfg.NodeName(st))
	}
	// Shard sizes, and the strategy's arithmetic over them.
	var rows []int64
	var total int64
	var tt *textir.TensorType
	for p, t := range r.parts {
		pt, err := tableTypeOf(t)
		if err != nil {
			return nil, err
		}
		if tt != nil && (pt.Shape[1] != tt.Shape[1] || pt.Elem != tt.Elem || t.Name() != r.parts[0].Name()) {
			return nil, fail("shard %d (%s) does not match shard 0 (%s)", p, opDesc(t), opDesc(r.parts[0]))
		}
		tt = pt
		rows = append(rows, pt.Shape[0])
		total += pt.Shape[0]
	}
	if el[0] != tt.Shape[1] {
		return nil, fail("the partitioned lookup %q is reshaped to width %d, but its shards have %d", tfg.NodeName(st), el[0], tt.Shape[1])
	}
	fv := optab.Result(frs, "output")
	assign := optab.Operand(posDP, "partitions")
	if c := is(strip(assign), "Cast"); c != nil {
		assign = optab.Operand(c, "x")
	}
	var err error
	if r.strategy, err = strategyOf(strip(assign), strip(optab.Operand(idsDP, "data")), fv, int64(n), total); err != nil {
		return nil, fail("the partitioned lookup %q: %v", tfg.NodeName(st), err)
	}
	for p, got := range rows {
		if want := emb.ShardRows(total, int64(n), int64(p)); got != want || want == 0 {
			return nil, fail("the shards of %q have %v rows: partition_strategy %q needs %d rows in %d shards to be split as a partitioner splits them (shard %d: %d)",
				tfg.NodeName(st), rows, r.strategy, total, n, p, want)
		}
	}
	r.ids = ids
	return r, nil
}

// strategyOf recognises the shard (assign, before its Cast) and the row
// in it (newIDs) that embedding_lookup computes from the flat ids, as
// partition_strategy "mod" or "div" over n shards of total rows.
func strategyOf(assign, newIDs, flat *textir.Value, n, total int64) (string, error) {
	is2 := func(v *textir.Value, name string, x *textir.Value, y int64) bool {
		d := is(strip(v), name)
		k, ok := constScalar(optab.Operand(d, "y"), 8)
		return d != nil && same(optab.Operand(d, "x"), x) && ok && k == y
	}
	if is(assign, "FloorMod") != nil {
		if !is2(assign, "FloorMod", flat, n) || !is2(newIDs, "FloorDiv", flat, n) {
			return "", fmt.Errorf("the shard is not ids mod %d and the row ids div %d", n, n)
		}
		return emb.StrategyMod, nil
	}
	ipp, extras := total/n, total%n
	if ipp == 0 {
		return "", fmt.Errorf("%d rows in %d shards", total, n)
	}
	mx := is(assign, "Maximum")
	if mx == nil {
		return "", fmt.Errorf("the shard is neither ids mod n nor the Maximum of partition_strategy \"div\"")
	}
	// max(ids // (ipp+1), (ids - extras) // ipp), in either order.
	a, b := strip(optab.Operand(mx, "x")), strip(optab.Operand(mx, "y"))
	byBig := func(v *textir.Value) bool { return is2(v, "FloorDiv", flat, ipp+1) }
	bySmall := func(v *textir.Value) bool {
		d := is(v, "FloorDiv")
		k, ok := constScalar(optab.Operand(d, "y"), 8)
		return d != nil && ok && k == ipp && is2(optab.Operand(d, "x"), "Sub", flat, extras)
	}
	if !(byBig(a) && bySmall(b) || byBig(b) && bySmall(a)) {
		return "", fmt.Errorf("the shard is not max(ids // %d, (ids - %d) // %d) (partition_strategy \"div\")", ipp+1, extras, ipp)
	}
	// where(assign < extras, ids % (ipp+1), (ids - extras) % ipp).
	sel := is(newIDs, "Select", "SelectV2")
	less := is(optab.Operand(sel, "condition"), "Less")
	k, ok := constScalar(optab.Operand(less, "y"), 8)
	if sel == nil || less == nil || !same(optab.Operand(less, "x"), assign) || !ok || k != extras || !is2(optab.Operand(sel, "t"), "FloorMod", flat, ipp+1) {
		return "", fmt.Errorf("the row is not where(shard < %d, ids %% %d, ...) (partition_strategy \"div\")", extras, ipp+1)
	}
	e := is(strip(optab.Operand(sel, "e")), "FloorMod")
	k, ok = constScalar(optab.Operand(e, "y"), 8)
	if e == nil || !ok || k != ipp || !is2(optab.Operand(e, "x"), "Sub", flat, extras) {
		return "", fmt.Errorf("the row is not where(..., (ids - %d) %% %d) (partition_strategy \"div\")", extras, ipp)
	}
	return emb.StrategyDiv, nil
}

// constScalar evaluates an integer scalar computed from constants by the
// arithmetic embedding_lookup writes (FloorDiv, FloorMod, Add, Sub, Mul,
// Cast); depth bounds the walk.
func constScalar(v *textir.Value, depth int) (int64, bool) {
	if v == nil || depth < 0 {
		return 0, false
	}
	if k, ok := constInt(v); ok {
		return k, true
	}
	d := def(strip(v))
	if isOp(d, "Cast") {
		return constScalar(optab.Operand(d, "x"), depth-1)
	}
	if !isOp(d, "FloorDiv", "FloorMod", "Add", "AddV2", "Sub", "Mul") {
		return 0, false
	}
	x, ok1 := constScalar(optab.Operand(d, "x"), depth-1)
	y, ok2 := constScalar(optab.Operand(d, "y"), depth-1)
	if !ok1 || !ok2 {
		return 0, false
	}
	switch {
	case isOp(d, "Add", "AddV2"):
		return x + y, true
	case isOp(d, "Sub"):
		return x - y, true
	case isOp(d, "Mul"):
		return x * y, true
	case y == 0:
		return 0, false
	case isOp(d, "FloorDiv"):
		q := x / y
		if x%y != 0 && (x < 0) != (y < 0) {
			q--
		}
		return q, true
	}
	m := x % y
	if m != 0 && (m < 0) != (y < 0) {
		m += y
	}
	return m, true
}

// partsType returns the [R, D] type of a table in shards.
func partsType(parts []*textir.Operation) (*textir.TensorType, error) {
	var rows int64
	var tt *textir.TensorType
	for _, t := range parts {
		pt, err := tableTypeOf(t)
		if err != nil {
			return nil, err
		}
		tt = pt
		rows += pt.Shape[0]
	}
	return textir.TensorOf([]int64{rows, tt.Shape[1]}, tt.Elem), nil
}

// partitionedName is the name of a partitioned variable: its shards'
// names without "/part_<i>", or the first shard's name when they are not
// named so.
func partitionedName(parts []*textir.Operation) string {
	first := tfg.NodeName(parts[0])
	base, ok := strings.CutSuffix(first, "/part_0")
	if !ok {
		return first
	}
	for i, t := range parts {
		if tfg.NodeName(t) != fmt.Sprintf("%s/part_%d", base, i) {
			return first
		}
	}
	return base
}

// wholeConst returns the value of a table in constant shards, put
// together by the strategy.
func wholeConst(parts []*textir.Operation, strategy string, tt *textir.TensorType) *textir.DenseElementsAttr {
	rows, d := tt.Shape[0], tt.Shape[1]
	n := int64(len(parts))
	vals := make([]float64, rows*d)
	for r := range rows {
		p, q := emb.ShardOf(strategy, rows, n, r)
		a := parts[p].Attr("value").(*textir.DenseElementsAttr)
		for c := range d {
			vals[r*d+c] = a.FloatAt(q*d + c)
		}
	}
	return textir.DenseFloats(tt, vals)
}

// columnTableType returns the [R, D] type of a column's table: its
// table op's, or its shards' together.
func columnTableType(c *Column) (*textir.TensorType, error) {
	if c.parts != nil {
		return partsType(c.parts)
	}
	return tableTypeOf(c.Table)
}

// sameTable checks that a read of rows is of the column's table, and
// takes the partition strategy of a partitioned one.
func (p *plan) sameTable(r *rowsRead) error {
	if r.table != p.table || !slices.Equal(r.parts, p.parts) {
		return fail("the rows are not a gather of the table")
	}
	p.strategy = r.strategy
	return nil
}

// denseChain matches embedding_lookup of dense ids: ids [batch] whose
// rows r are the column (pool nil), or ids [batch, k] whose rows are
// pooled over the ids by pool, reduce_sum or reduce_mean over axis 1
// (then reshapes, output first, back to [batch, D]). The ids are the
// column's dense source (denseIDs).
func denseChain(p *plan, c *Column, r *rowsRead, pool *textir.Operation, reshapes []*textir.Operation) (*plan, error) {
	if err := p.sameTable(r); err != nil {
		return nil, err
	}
	if r.ids == nil {
		return nil, fail("%s reads the table itself, not its rows at ids", opDesc(def(c.Output)))
	}
	ids := r.ids
	rank := 1
	p.combiner = emb.CombinerSum
	if pool != nil {
		rank = 2
		axis, ok := constInts(optab.Operand(pool, "reduction_indices"))
		if kd, _ := pool.Attr("keep_dims").(textir.BoolAttr); !ok || len(axis) != 1 || (axis[0] != 1 && axis[0] != -2) || kd.Value {
			return nil, fail("%s does not reduce the ids' axis 1 (without keep_dims)", opDesc(pool))
		}
		if isOp(pool, "Mean") {
			p.combiner = emb.CombinerMean
			// The mean of no rows is NaN in TensorFlow, 0 in emb.lookup.
			if dims, ok := dimsOf(ids); !ok || len(dims) != 2 || dims[1] < 1 {
				return nil, fail("%s averages bags of ids %s whose length is not known to be positive", opDesc(pool), ids.Type())
			}
		}
		if err := checkReshapes(optab.Result(pool, "output"), reshapes, p.tableType.Shape[1]); err != nil {
			return nil, err
		}
	}
	if got := rankOf(ids); got != rank {
		want := "[batch]"
		if rank == 2 {
			want = "[batch, k]"
		}
		return nil, fail("the ids %s of %s are not %s", ids.Type(), opDesc(r.root), want)
	}
	p.dense = true
	p.src = source{kind: srcDense, x: ids, loc: r.root.Loc()}
	p.base, p.xs = parseTransforms(ids)
	return p, nil
}

// denseIDs recognises the dense ids of a plain embedding_lookup, with the
// id transforms that made them (a hash, a cast, ...).
func denseIDs(p *plan) (source, []xform, bool) {
	if !p.dense {
		return source{}, nil, false
	}
	if rankOf(p.base) != rankOf(p.src.x) {
		return p.src, nil, true
	}
	return source{kind: srcDense, x: p.base, loc: p.src.loc}, append([]xform(nil), p.xs...), true
}

// plain reports whether a plan is of a plain lookup whose ids only
// denseIDs and sparseIDs take: dense ids, or the sparse ids of an
// embedding_lookup_sparse (whose bags are counted from the ids, so no
// feature column's dense source may stand for them).
func (p *plan) plain() bool { return p.dense || p.segments != nil }

// plainEnd returns the result of op when op ends a plain lookup: the
// pooling of an embedding_lookup_sparse that no empty-row Select follows,
// the Sum or Mean over embedding_lookup rows, or embedding_lookup rows of
// ids [batch] that no other op of a lookup reads. FindColumns takes these
// as columns where a table meets no other table.
func plainEnd(op *textir.Operation) *textir.Value {
	res := optab.SoleResult(op)
	if res == nil || fixedUp(res) {
		return nil
	}
	switch {
	case numArgs(op) == 3 && combiners[op.Name()] != "":
		return res
	case isOp(op, "SegmentSum"):
		if is(optab.Operand(op, "data"), "Mul") == nil {
			return nil
		}
		for u := range res.Users() {
			if isOp(u, "RealDiv", "Div", "DivNoNan") && optab.Operand(u, "x") == res {
				return nil
			}
		}
		return res
	case isOp(op, "RealDiv", "Div", "DivNoNan"):
		if n := is(optab.Operand(op, "x"), "SegmentSum"); n != nil && is(optab.Operand(n, "data"), "Mul") != nil {
			return res
		}
	case isOp(op, "Sum", "Mean"):
		if r, ok, _ := rowsOf(optab.Operand(op, "input")); ok && (r == nil || r.ids != nil) {
			return res
		}
	case isOp(op, "GatherV2", "Gather", "ResourceGather", "Reshape"):
		r, ok, _ := rowsOf(res)
		if !ok || r == nil || r.root != op || r.ids == nil || rankOf(r.ids) != 1 || is(r.ids, "Unique", "DynamicPartition") != nil {
			return nil
		}
		out := res
		if id := soleIdentity(res); id != nil {
			out = id
		}
		if readFurther(out) {
			return nil
		}
		return out
	}
	return nil
}

// fixedUp reports whether v is the pooled result that an empty-row
// Select chooses (or a Select of that shape that is not quite one, whose
// column lookupChain then names as unmatched).
func fixedUp(v *textir.Value) bool {
	for u := range v.Users() {
		if isOp(u, "Select", "SelectV2") && numArgs(u) == 3 && optab.Operand(u, "e") == v {
			return true
		}
	}
	return false
}

// soleIdentity returns the result of the Identity that is v's only user
// (embedding_lookup's last op for one table), or nil.
func soleIdentity(v *textir.Value) *textir.Value {
	if !v.HasOneUse() {
		return nil
	}
	for u := range v.Users() {
		if isOp(u, "Identity") {
			return optab.Result(u, "output")
		}
	}
	return nil
}

// readFurther reports whether an op of a lookup reads rows v further: a
// pooling, a gather of them, a stitch, or weights multiplied in.
func readFurther(v *textir.Value) bool {
	for u := range v.Users() {
		switch {
		case isOp(u, "Identity"):
			if readFurther(optab.Result(u, "output")) {
				return true
			}
		case isOp(u, "Sum", "Mean", "Mul", "ParallelDynamicStitch", "DynamicStitch") || combiners[u.Name()] != "":
			return true
		case isOp(u, "GatherV2", "Gather") && optab.Operand(u, "params") == v:
			return true
		}
	}
	return false
}

// partitionAttrs are the attributes of a partitioned table's emb.table:
// its shards' variables and the strategy, or for constant shards the
// whole value.
func partitionAttrs(p *plan) []textir.NamedAttribute {
	attrs := []textir.NamedAttribute{{Name: emb.AttrName, Value: textir.Str(partitionedName(p.parts))}}
	if isOp(p.parts[0], "Const") {
		return append(attrs, textir.NamedAttribute{Name: emb.AttrValue, Value: wholeConst(p.parts, p.strategy, p.tableType)})
	}
	names := make([]textir.Attribute, len(p.parts))
	for i, t := range p.parts {
		names[i] = textir.Str(tfg.NodeName(t))
	}
	return append(attrs, textir.NamedAttribute{Name: emb.AttrPartitions, Value: textir.ArrayAttr{Elems: names}},
		textir.NamedAttribute{Name: emb.AttrPartitionStrategy, Value: textir.Str(p.strategy)})
}

// segmentShape makes the dense shape [max(segments)+1, 1] of a plain
// embedding_lookup_sparse's ids (at least [0, 1]: no ids, no rows), as
// tfg ops named after the pooling op.
func segmentShape(rw *rewrite.Rewriter, p *plan) *textir.Value {
	name := tfg.NodeName(p.outDef) + "/bags"
	loc := textir.NameLoc{Name: name}
	i64 := textir.I64()
	scalar := textir.TensorOf(nil, i64)
	cst := func(n string, v int64) *textir.Value {
		c := tfgOp(rw, "Const", name+"/"+n, loc, nil, scalar, typeAttr("dtype", i64),
			textir.NamedAttribute{Name: "value", Value: textir.DenseInts(scalar, []int64{v})})
		return optab.Result(c, "output")
	}
	axis := constI32(rw, name+"/max/reduction_indices", loc, false, 0)
	mx := tfgOp(rw, "Max", name+"/max", loc, []*textir.Value{p.segments, axis}, scalar,
		typeAttr("T", i64), typeAttr("Tidx", textir.I32()), textir.NamedAttribute{Name: "keep_dims", Value: textir.BoolAttr{Value: false}})
	add := tfgOp(rw, "AddV2", name+"/add", loc, []*textir.Value{optab.Result(mx, "output"), cst("add/y", 1)}, scalar, typeAttr("T", i64))
	rows := tfgOp(rw, "Maximum", name+"/rows", loc, []*textir.Value{optab.Result(add, "z"), cst("rows/y", 0)}, scalar, typeAttr("T", i64))
	pk := tfgOp(rw, "Pack", name, loc, []*textir.Value{optab.Result(rows, "z"), cst("width", 1)}, textir.TensorOf([]int64{2}, i64),
		typeAttr("T", i64), textir.NamedAttribute{Name: "N", Value: textir.I64Attr(2)}, textir.NamedAttribute{Name: "axis", Value: textir.I64Attr(0)})
	return optab.Result(pk, "output")
}
