package emb

import "github.com/recom-compiler/recom/textir"

// Named accessors for the operands and results of the emb ops, in the
// order Dialect declares them, so that passes read lookup.Table() rather
// than op.Operand(0). There is one function per op (FromDense, Lookup,
// ...); ops of the same shape share a view type (the six id transforms
// share Transform). A function given an op of another name returns the
// zero view, whose accessors all return nil, so a view may be asked of any
// op. (Written by hand for now; a mechanism generated from the op
// definitions of every dialect is to replace this file.)

// view is an op and the positions of its operands and results.
type view struct{ op *textir.Operation }

func viewOf(op *textir.Operation, names ...string) view {
	if op == nil {
		return view{}
	}
	for _, n := range names {
		if op.Name() == n {
			return view{op}
		}
	}
	return view{}
}

func (v view) operand(i int) *textir.Value {
	if v.op == nil || i >= v.op.NumOperands() {
		return nil
	}
	return v.op.Operand(i)
}

func (v view) result(i int) *textir.Value {
	if v.op == nil || i >= v.op.NumResults() {
		return nil
	}
	return v.op.Result(i)
}

// Op returns the op the view names, or nil for the zero view.
func (v view) Op() *textir.Operation { return v.op }

// Source names the operand and results of emb.from_dense and
// emb.split_strings: the dense input x and the ragged (values,
// row_splits) made of it.
type Source struct{ view }

// FromDense returns the view of an emb.from_dense op.
func FromDense(op *textir.Operation) Source { return Source{viewOf(op, FromDenseOp)} }

// SplitStrings returns the view of an emb.split_strings op.
func SplitStrings(op *textir.Operation) Source { return Source{viewOf(op, SplitStringsOp)} }

// Input is the dense tensor the bags are made of.
func (s Source) Input() *textir.Value { return s.operand(0) }

// Values is the ragged values result.
func (s Source) Values() *textir.Value { return s.result(0) }

// RowSplits is the row splits result.
func (s Source) RowSplits() *textir.Value { return s.result(1) }

// SparseSource names the operands and results of emb.from_sparse: a 2-D
// SparseTensor in, the ragged (values, row_splits) out.
type SparseSource struct{ view }

// FromSparse returns the view of an emb.from_sparse op.
func FromSparse(op *textir.Operation) SparseSource {
	return SparseSource{viewOf(op, FromSparseOp)}
}

// Indices is the SparseTensor's [n, 2] indices.
func (s SparseSource) Indices() *textir.Value { return s.operand(0) }

// SparseValues is the SparseTensor's values.
func (s SparseSource) SparseValues() *textir.Value { return s.operand(1) }

// DenseShape is the SparseTensor's dense shape.
func (s SparseSource) DenseShape() *textir.Value { return s.operand(2) }

// Values is the ragged values result.
func (s SparseSource) Values() *textir.Value { return s.result(0) }

// RowSplits is the row splits result.
func (s SparseSource) RowSplits() *textir.Value { return s.result(1) }

// Transform names the operand and result of the id transforms, which map
// ragged values to ragged values of the same bags: emb.hash,
// emb.as_string, emb.bucketize, emb.vocab_lookup, emb.check_range and
// emb.cast.
type Transform struct{ view }

// Hash returns the view of an emb.hash op.
func Hash(op *textir.Operation) Transform { return Transform{viewOf(op, HashOp)} }

// AsString returns the view of an emb.as_string op.
func AsString(op *textir.Operation) Transform { return Transform{viewOf(op, AsStringOp)} }

// Bucketize returns the view of an emb.bucketize op.
func Bucketize(op *textir.Operation) Transform { return Transform{viewOf(op, BucketizeOp)} }

// VocabLookup returns the view of an emb.vocab_lookup op.
func VocabLookup(op *textir.Operation) Transform { return Transform{viewOf(op, VocabLookupOp)} }

// CheckRange returns the view of an emb.check_range op.
func CheckRange(op *textir.Operation) Transform { return Transform{viewOf(op, CheckRangeOp)} }

// Cast returns the view of an emb.cast op.
func Cast(op *textir.Operation) Transform { return Transform{viewOf(op, CastOp)} }

// Input is the ragged values transformed.
func (t Transform) Input() *textir.Value { return t.operand(0) }

// Result is the transformed values.
func (t Transform) Result() *textir.Value { return t.result(0) }

// AddOffsetView names the operands and result of emb.add_offset.
type AddOffsetView struct{ view }

// AddOffset returns the view of an emb.add_offset op.
func AddOffset(op *textir.Operation) AddOffsetView { return AddOffsetView{viewOf(op, AddOffsetOp)} }

// Values is the ragged values offset.
func (a AddOffsetView) Values() *textir.Value { return a.operand(0) }

// RowSplits is the row splits that give each id its position in its bag.
func (a AddOffsetView) RowSplits() *textir.Value { return a.operand(1) }

// Result is the offset values.
func (a AddOffsetView) Result() *textir.Value { return a.result(0) }

// FilterView names the operands and results of emb.filter: the ragged
// values, row splits and optional weights in, the same filtered out.
type FilterView struct{ view }

// Filter returns the view of an emb.filter op.
func Filter(op *textir.Operation) FilterView { return FilterView{viewOf(op, FilterOp)} }

// Values is the ragged values filtered.
func (f FilterView) Values() *textir.Value { return f.operand(0) }

// RowSplits is the row splits of Values.
func (f FilterView) RowSplits() *textir.Value { return f.operand(1) }

// Weights is the weights filtered with the values, or nil.
func (f FilterView) Weights() *textir.Value { return f.operand(2) }

// FilteredValues is the values kept.
func (f FilterView) FilteredValues() *textir.Value { return f.result(0) }

// FilteredRowSplits is the row splits of FilteredValues.
func (f FilterView) FilteredRowSplits() *textir.Value { return f.result(1) }

// FilteredWeights is the weights kept, or nil.
func (f FilterView) FilteredWeights() *textir.Value { return f.result(2) }

// TableView names the result of emb.table.
type TableView struct{ view }

// Table returns the view of an emb.table op.
func Table(op *textir.Operation) TableView { return TableView{viewOf(op, TableOp)} }

// Result is the table, a [rows, dim] tensor.
func (t TableView) Result() *textir.Value { return t.result(0) }

// LookupView names the operands and result of emb.lookup and
// emb.gather_scatter: a table, the ragged ids with their row splits and
// optional weights, and the pooled rows.
type LookupView struct{ view }

// Lookup returns the view of an emb.lookup op.
func Lookup(op *textir.Operation) LookupView { return LookupView{viewOf(op, LookupOp)} }

// GatherScatter returns the view of an emb.gather_scatter op.
func GatherScatter(op *textir.Operation) LookupView {
	return LookupView{viewOf(op, GatherScatterOp)}
}

// Table is the table the rows come from.
func (l LookupView) Table() *textir.Value { return l.operand(0) }

// IDs is the ragged ids: the rows of Table to pool.
func (l LookupView) IDs() *textir.Value { return l.operand(1) }

// RowSplits is the row splits of IDs.
func (l LookupView) RowSplits() *textir.Value { return l.operand(2) }

// Weights is the weight of each id, or nil.
func (l LookupView) Weights() *textir.Value { return l.operand(3) }

// Result is the pooled rows, one per bag.
func (l LookupView) Result() *textir.Value { return l.result(0) }

// GatherView names the operands and result of emb.gather.
type GatherView struct{ view }

// Gather returns the view of an emb.gather op.
func Gather(op *textir.Operation) GatherView { return GatherView{viewOf(op, GatherOp)} }

// Table is the table the rows come from.
func (g GatherView) Table() *textir.Value { return g.operand(0) }

// IDs is the row of Table for each bag.
func (g GatherView) IDs() *textir.Value { return g.operand(1) }

// Result is the gathered rows.
func (g GatherView) Result() *textir.Value { return g.result(0) }

// ConcatView names the operands and result of emb.concat.
type ConcatView struct{ view }

// Concat returns the view of an emb.concat op.
func Concat(op *textir.Operation) ConcatView { return ConcatView{viewOf(op, ConcatOp)} }

// Inputs is the pooled embeddings concatenated, in order.
func (c ConcatView) Inputs() []*textir.Value {
	if c.op == nil {
		return nil
	}
	return c.op.Operands()
}

// Result is the concatenation.
func (c ConcatView) Result() *textir.Value { return c.result(0) }
