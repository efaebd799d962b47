package tfgtoemb

import (
	"path"
	"slices"

	"github.com/recom-compiler/recom/dialects/emb"
	"github.com/recom-compiler/recom/dialects/tfg"
	"github.com/recom-compiler/recom/dialects/tfg/optab"
	"github.com/recom-compiler/recom/textir"
)

// Column is one embedding column found in a tfg graph.
type Column struct {
	// Name is the column's name scope (the node name of its output
	// without the last component): "input_layer/city_embedding".
	Name string
	// Table is the table op: a VariableV2, a VarHandleOp or a Const.
	Table *textir.Operation
	// Output is the column's pooled result, the value that flows into the
	// boundary.
	Output *textir.Value
	// Boundary is the op where two or more tables meet (the input_layer's
	// ConcatV2), or nil when the column was found without one (a model of
	// a single table).
	Boundary *textir.Operation
	// Ops is the column's backward closure from Output, placeholders and
	// constants included, in no particular order.
	Ops []*textir.Operation
	// Root is the op that pools the column's rows, where the lower-emb
	// patterns match it (one of PoolingOps: the SparseSegment* combiner of
	// safe_embedding_lookup_sparse, or a weighted column's SegmentSum or
	// division), or nil when the output leads to none.
	Root *textir.Operation
	// Kind is set by the lowering: the column kind it recognised
	// (hashed_string, bucketized, ...), or unmatched; "" while the column
	// is pending.
	Kind emb.ColumnKind
	// Err says why the column stays in tfg when its kind is unmatched.
	Err error
	// Lowered reports whether the column was replaced by emb ops.
	Lowered bool

	// What the lowering made of it: its emb.table, the first emb op after
	// the table (its ids' source), the emb.filter and emb.check_range ops
	// the value-range analysis may remove (in the order they were made)
	// and its emb.lookup.
	table, first *textir.Operation
	ranged       []*textir.Operation
	lookup       *textir.Operation
	// named, when set, is the value before the output's final Reshape
	// (finalReshape), which names the column and its lookup as the
	// column would be named without it.
	named *textir.Value
	// parts are the shards of a partitioned table (Table is the first),
	// nil for a table of one op.
	parts []*textir.Operation
	// The result of lookupChain, computed once for every pattern that
	// tries the column.
	chain    *plan
	chainErr error
	chainGen int
}

// tableOf returns the table op behind a gather's params (or resource)
// operand: a VariableV2 read through Identity, a VarHandleOp (directly or
// through ReadVariableOp), or a rank-2 float Const.
func tableOf(v *textir.Value) *textir.Operation {
	v = strip(v)
	d := def(v)
	switch {
	case d == nil:
		return nil
	case isOp(d, "VariableV2", "Variable", "VarHandleOp"):
		return d
	case isOp(d, "ReadVariableOp"):
		if h := is(optab.Operand(d, "resource"), "VarHandleOp"); h != nil {
			return h
		}
	case isOp(d, "Const"):
		if a, ok := d.Attr("value").(*textir.DenseElementsAttr); ok && len(a.Type.Shape) == 2 && textir.IsFloat(a.Type.Elem) {
			return d
		}
	}
	return nil
}

// readTable returns the table a gather reads, or that a sparse segment
// reduction pools directly (TF 2.16's embedding_lookup_sparse), or nil.
func readTable(op *textir.Operation) *textir.Operation {
	if t := gatherTable(op); t != nil {
		return t
	}
	if _, ok := combiners[opName(op)]; ok {
		return tableOf(optab.Operand(op, "data"))
	}
	return nil
}

// gatherTable returns the table a gather op reads, or nil.
func gatherTable(op *textir.Operation) *textir.Operation {
	switch {
	case isOp(op, "GatherV2", "Gather"):
		return tableOf(optab.Operand(op, "params"))
	case isOp(op, "ResourceGather"):
		return tableOf(optab.Operand(op, "resource"))
	}
	return nil
}

const many = -1

// FindColumns identifies the embedding columns of a tfg graph block: the
// tables are the variables and rank-2 constants read by gathers; walking
// forward from each table while an op depends on at most one table, the
// ops where two or more tables meet are the boundary, and each boundary
// operand that depends on one table is a column's output. A table whose
// walk meets no other table (a model of one table) gets its columns from
// its empty-row fix-ups (Select(Tile, ZerosLike, ...)) instead. Columns are
// returned in the order of their boundary operands.
func FindColumns(b *textir.Block) []*Column {
	// The shards that a partitioned lookup's stitch joins are one table,
	// which its first shard stands for.
	alias := map[*textir.Operation]*textir.Operation{}
	shards := map[*textir.Operation][]*textir.Operation{}
	for op := range b.Ops() {
		if !isOp(op, "ParallelDynamicStitch", "DynamicStitch") {
			continue
		}
		sh := stitchShards(op)
		if sh == nil || sh[0].Block() != b {
			continue
		}
		if prev, ok := shards[alias[sh[0]]]; ok {
			if !slices.Equal(prev, sh) {
				continue // shards of a table in two groupings: left as they are
			}
		}
		fresh := true
		for _, t := range sh {
			if _, ok := alias[t]; ok && !slices.Equal(shards[alias[t]], sh) {
				fresh = false
			}
		}
		if fresh {
			for _, t := range sh {
				alias[t] = sh[0]
			}
			shards[sh[0]] = sh
		}
	}
	var tables []*textir.Operation
	index := map[*textir.Operation]int{}
	for op := range b.Ops() {
		if t := readTable(op); t != nil && t.Block() == b {
			if r, ok := alias[t]; ok {
				t = r
			}
			if _, ok := index[t]; !ok {
				index[t] = len(tables)
				tables = append(tables, t)
			}
		}
	}
	if len(tables) == 0 {
		return nil
	}
	// label[op] is the table op depends on, or many.
	label := make(map[*textir.Operation]int, len(tables)*64)
	var work []*textir.Operation
	for ti, t := range tables {
		work = work[:0]
		for _, x := range append([]*textir.Operation{t}, shards[t]...) {
			label[x] = ti
			work = append(work, x)
		}
		for len(work) > 0 {
			op := work[len(work)-1]
			work = work[:len(work)-1]
			l := label[op]
			for _, r := range tfg.DataResults(op) {
				for u := range r.Users() {
					if u.Block() != b {
						continue
					}
					ul, seen := label[u]
					switch {
					case !seen:
						label[u] = l
					case ul == l || ul == many:
						continue
					default:
						label[u] = many
					}
					work = append(work, u)
				}
			}
		}
	}
	// The empty-row fix-ups of each table's lookups, followed to the
	// column's shape: where an input layer mixes embedding columns with
	// columns of no table (indicator, numeric), the first meeting point
	// lies past the column, and these are its outputs.
	fixups := make([][]*textir.Value, len(tables))
	// So are the results of plain lookups (plain.go).
	for op := range b.Ops() {
		l, ok := label[op]
		if !ok || l == many {
			continue
		}
		if isFixup(op) {
			fixups[l] = append(fixups[l], forwardEnd(optab.Result(op, "output"), widthOf(tables[l], shards)))
		} else if v := plainEnd(op); v != nil {
			fixups[l] = append(fixups[l], forwardEnd(v, widthOf(tables[l], shards)))
		}
	}
	var cols []*Column
	seen := map[*textir.Value]bool{}
	add := func(t *textir.Operation, v *textir.Value, boundary *textir.Operation) {
		if !seen[v] {
			seen[v] = true
			cols = append(cols, &Column{Table: t, Output: v, Boundary: boundary})
		}
	}
	found := make([]bool, len(tables))
	for op := range b.Ops() {
		if l, ok := label[op]; !ok || l != many {
			continue
		}
		for _, v := range tfg.DataOperands(op) {
			d := def(v)
			if d == nil || seen[v] {
				continue
			}
			l, ok := label[d]
			if !ok || l == many {
				continue
			}
			found[l] = true
			if len(fixups[l]) == 0 || slices.Contains(fixups[l], v) {
				add(tables[l], v, op)
				continue
			}
			if finalReshape(v, fixups[l], widthOf(tables[l], shards)) {
				add(tables[l], v, op)
				cols[len(cols)-1].named = optab.Operand(def(v), "tensor")
				continue
			}
			for _, f := range fixups[l] {
				add(tables[l], f, op)
			}
		}
	}
	// Tables that meet no other table: one column per empty-row fix-up.
	for ti, t := range tables {
		if !found[ti] {
			for _, f := range fixups[ti] {
				add(t, f, nil)
			}
		}
	}
	for _, c := range cols {
		c.parts = shards[c.Table]
		c.Name = columnName(c.Output)
		if c.named != nil {
			c.Name = columnName(c.named)
		}
		c.Ops = closure(c.Output)
		c.Root = poolingRoot(c.Output)
	}
	return cols
}

// PoolingOps are the ops that pool a column's rows, where the lower-emb
// patterns are rooted: (safe_)embedding_lookup_sparse's combiners and, for
// a weighted column, its SegmentSum (sum) and the division of the mean and
// sqrtn combiners; the Sum or Mean over the rows of a plain
// embedding_lookup, and for ids [batch] the lookup's own last op (its
// gather, or the Reshape after a partitioned lookup's stitch).
var PoolingOps = []string{"tfg.SparseSegmentSum", "tfg.SparseSegmentMean", "tfg.SparseSegmentSqrtN",
	"tfg.SegmentSum", "tfg.RealDiv", "tfg.Div", "tfg.DivNoNan", "tfg.Sum", "tfg.Mean",
	"tfg.GatherV2", "tfg.Gather", "tfg.ResourceGather", "tfg.Reshape"}

// poolingRoot follows a column's output back through the reshapes that
// restore its shape and the empty-row Select(empty, zeros, pooled) (if
// any) to the op that pools its rows, and returns it when it is one of
// PoolingOps; the rows of a plain embedding_lookup are their own root.
func poolingRoot(out *textir.Value) *textir.Operation {
	if r, ok, _ := rowsOf(out); ok {
		if r != nil {
			return r.root
		}
		return def(strip(out))
	}
	v, _, ok := pooledSelect(out)
	d := def(v)
	if !ok {
		return nil
	}
	if isOp(d, "Select", "SelectV2") && numArgs(d) == 3 {
		d = def(optab.Operand(d, "e"))
	}
	if d != nil && slices.Contains(PoolingOps, d.Name()) {
		return d
	}
	return nil
}

// isFixup reports whether op is safe_embedding_lookup_sparse's empty-row
// Select(empty, ZerosLike(pooled), pooled).
func isFixup(op *textir.Operation) bool {
	return isOp(op, "Select", "SelectV2") && numArgs(op) == 3 && is(optab.Operand(op, "t"), "ZerosLike") != nil
}

// forwardEnd follows v, [batch, d] rows, through the single-use Reshapes
// (and Identities) that restore the column's shape: of a rank-2 result,
// or (d > 0, graphs without output shapes) whose shape operand is
// [x, d], as lookupChain checks it (checkReshapes).
func forwardEnd(v *textir.Value, d int64) *textir.Value {
	known := widths{v: d}
	for i := 0; i < 8; i++ {
		if !v.HasOneUse() {
			return v
		}
		var u *textir.Operation
		for x := range v.Users() {
			u = x
		}
		if !isOp(u, "Reshape", "Identity") || reshaped(u) != v {
			return v
		}
		out := optab.Result(u, "output")
		if rank(out) != 2 {
			if d <= 0 || !isOp(u, "Reshape") {
				return v
			}
			sh, ok := known.vecTerms(optab.Operand(u, "shape"), 0)
			if !ok || len(sh) != 2 || !sh[1].eq(cterm(d)) {
				return v
			}
		}
		known[out] = d
		v = out
	}
	return v
}

// finalReshape reports whether v is the Reshape back to [batch, d] of one
// of ends (a plain safe_embedding_lookup_sparse's last op, whose result
// is also read by the Shape its shape operand takes): the column ends at
// v, as lookupChain checks (checkReshapes).
func finalReshape(v *textir.Value, ends []*textir.Value, d int64) bool {
	rs := is(v, "Reshape")
	if rs == nil || d <= 0 || !slices.Contains(ends, optab.Operand(rs, "tensor")) {
		return false
	}
	known := widths{optab.Operand(rs, "tensor"): d}
	sh, ok := known.vecTerms(optab.Operand(rs, "shape"), 0)
	return ok && len(sh) == 2 && sh[1].eq(cterm(d))
}

// widthOf returns the width of table t (the first shard of shards[t],
// when partitioned), or 0 when it is not known.
func widthOf(t *textir.Operation, shards map[*textir.Operation][]*textir.Operation) int64 {
	tt, err := tableTypeOf(t)
	if err != nil {
		return 0
	}
	return tt.Shape[1]
}

// columnName is the name scope of a column output's node.
func columnName(v *textir.Value) string {
	n := tfg.NodeName(v.DefiningOp())
	if d := path.Dir(n); d != "." && d != "" {
		return d
	}
	return n
}

// closure returns the backward closure of v (data and control operands).
func closure(v *textir.Value) []*textir.Operation {
	d := def(v)
	if d == nil {
		return nil
	}
	seen := map[*textir.Operation]bool{d: true}
	out := []*textir.Operation{d}
	for i := 0; i < len(out); i++ {
		for _, x := range out[i].Operands() {
			if p := def(x); p != nil && !seen[p] && p.Block() == d.Block() {
				seen[p] = true
				out = append(out, p)
			}
		}
	}
	return out
}
