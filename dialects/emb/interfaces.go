package emb

import "github.com/recom-compiler/recom/textir"

// Op interfaces: what several emb ops have in common, as MLIR's op
// interfaces say it, over the generated views (views_gen.go). The views of
// the ops listed implement each interface.

// IDTransform is the interface of the id transforms, which map ragged
// values to values of the same bags, one for one: emb.hash, emb.as_string,
// emb.bucketize, emb.vocab_lookup, emb.check_range and emb.cast.
type IDTransform interface {
	// Op returns the op.
	Op() *textir.Operation
	// Input returns the values transformed.
	Input() *textir.Value
	// Result returns the transformed values.
	Result() *textir.Value
}

// AsIDTransform returns the view of op when op is an id transform;
// otherwise ok is false.
func AsIDTransform(op *textir.Operation) (t IDTransform, ok bool) {
	if op == nil {
		return nil, false
	}
	switch op.Name() {
	case HashOp:
		t, ok = AsHash(op)
	case AsStringOp:
		t, ok = AsAsString(op)
	case BucketizeOp:
		t, ok = AsBucketize(op)
	case VocabLookupOp:
		t, ok = AsVocabLookup(op)
	case CheckRangeOp:
		t, ok = AsCheckRange(op)
	case CastOp:
		t, ok = AsCast(op)
	}
	return t, ok
}

// TableLookup is the interface of the lookups, which read rows of a table
// by id: emb.lookup, emb.gather_scatter and emb.gather.
type TableLookup interface {
	// Op returns the op.
	Op() *textir.Operation
	// Table returns the table the rows come from.
	Table() *textir.Value
	// IDs returns the ids: the rows of Table to read.
	IDs() *textir.Value
	// Result returns the rows read (pooled, for a PooledLookup).
	Result() *textir.Value
}

// AsTableLookup returns the view of op when op is a lookup; otherwise ok
// is false.
func AsTableLookup(op *textir.Operation) (l TableLookup, ok bool) {
	if op == nil {
		return nil, false
	}
	if op.Name() == GatherOp {
		return AsGather(op)
	}
	return AsPooledLookup(op)
}

// PooledLookup is the interface of the lookups that pool the rows of each
// bag: emb.lookup and emb.gather_scatter.
type PooledLookup interface {
	TableLookup
	// RowSplits returns the row splits of IDs: the bags.
	RowSplits() *textir.Value
	// Weights returns the weight of each id, or nil.
	Weights() *textir.Value
}

// AsPooledLookup returns the view of op when op is emb.lookup or
// emb.gather_scatter; otherwise ok is false.
func AsPooledLookup(op *textir.Operation) (l PooledLookup, ok bool) {
	if op == nil {
		return nil, false
	}
	switch op.Name() {
	case LookupOp:
		l, ok = AsLookup(op)
	case GatherScatterOp:
		l, ok = AsGatherScatter(op)
	}
	return l, ok
}
