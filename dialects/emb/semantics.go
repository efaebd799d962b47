package emb

// The interpreter semantics of emb ops: one exec.Kernel per op, computing
// bit for bit what the TensorFlow chain the op replaces computes (pooled
// sums may differ in summation order: compare them with a tolerance).
// Importing this package registers them.
//
// emb.table reads its parameter from exec.Options.Variables by its 'name'
// (the name of the TensorFlow variable node, as the tfg kernels of
// VariableV2 and VarHandleOp do), or else, with RandomTables, makes the
// same random values as the tfg variable of that name (exec.RandomTensor);
// a partitioned table reads its shards' variables so (partitions.go).
// A large random table read only by lookups is never materialized: the
// lookups make the rows they need.

import (
	"fmt"

	"math"

	"github.com/recom-compiler/recom/dialects/tfg"
	"github.com/recom-compiler/recom/interp"
	"github.com/recom-compiler/recom/interp/exec"
	"github.com/recom-compiler/recom/interp/tfops"
	"github.com/recom-compiler/recom/textir"
)

func init() {
	exec.Register(FromDenseOp, fromDenseKernel)
	exec.Register(FromSparseOp, fromSparseKernel)
	exec.Register(SplitStringsOp, splitStringsKernel)
	exec.Register(HashOp, hashKernel)
	exec.Register(AsStringOp, asStringKernel)
	exec.Register(BucketizeOp, bucketizeKernel)
	exec.Register(VocabLookupOp, vocabLookupKernel)
	exec.Register(CheckRangeOp, checkRangeKernel)
	exec.Register(CastOp, castKernel)
	exec.Register(AddOffsetOp, addOffsetKernel)
	exec.Register(FilterOp, filterKernel)
	exec.Register(TableOp, tableKernel)
	exec.Register(LookupOp, lookupKernel)
	exec.Register(GatherScatterOp, lookupKernel)
	exec.Register(GatherOp, gatherKernel)
	exec.Register(ConcatOp, concatKernel)
}

// LazyTableElements is the size (in elements) above which a random table
// read only by lookups is not materialized.
var LazyTableElements int64 = 1 << 22

func one(t *interp.Tensor, err error) ([]*interp.Tensor, error) {
	if err != nil {
		return nil, err
	}
	return []*interp.Tensor{t}, nil
}

// resultDType returns the dtype of op's result i.
func resultDType(op *textir.Operation, i int) (interp.DType, error) {
	dt, ok := exec.DTypeOf(op.Result(i).Type())
	if !ok {
		return interp.Invalid, op.Errorf("result #%d type %s is not supported by the interpreter", i, op.Result(i).Type())
	}
	return dt, nil
}

// asDType converts an integer tensor to dtype dt (wrapping, as Cast).
func asDType(t *interp.Tensor, dt interp.DType) (*interp.Tensor, error) {
	if t.DType() == dt {
		return t, nil
	}
	return tfops.Cast(t, dt)
}

// intsOf returns the elements of an integer tensor as int64.
func intsOf(op *textir.Operation, what string, t *interp.Tensor) ([]int64, error) {
	if d := t.Int64s(); d != nil {
		return d, nil
	}
	if !t.DType().IsInteger() {
		return nil, op.Errorf("%s must be integers, got %v", what, t.DType())
	}
	v := make([]int64, t.Len())
	for i := range v {
		v[i], _ = t.Int64At(i)
	}
	return v, nil
}

func vector(op *textir.Operation, what string, t *interp.Tensor) error {
	if t.Rank() != 1 {
		return op.Errorf("%s must be a vector, got shape %s", what, interp.ShapeString(t.Shape()))
	}
	return nil
}

// checkSplits validates row splits for n values and returns them.
func checkSplits(op *textir.Operation, t *interp.Tensor, n int) ([]int64, error) {
	s := t.Int64s()
	if s == nil || t.Rank() != 1 || len(s) == 0 {
		return nil, op.Errorf("row splits must be a non-empty int64 vector, got %v of shape %s", t.DType(), interp.ShapeString(t.Shape()))
	}
	if s[0] != 0 {
		return nil, op.Errorf("row splits must start at 0, got %d", s[0])
	}
	for i := 1; i < len(s); i++ {
		if s[i] < s[i-1] {
			return nil, op.Errorf("row splits must be non-decreasing, but splits[%d] = %d < splits[%d] = %d", i, s[i], i-1, s[i-1])
		}
	}
	if last := s[len(s)-1]; last != int64(n) {
		return nil, op.Errorf("row splits end at %d, but there are %d values", last, n)
	}
	return s, nil
}

// pick returns the elements idx of the vector t.
func pick(t *interp.Tensor, idx []int) (*interp.Tensor, error) {
	return tfops.Take(t, idx, []int64{int64(len(idx))})
}

// emb.from_dense: NotEqual(x, ignore) + Where + GatherNd, row-major.
func fromDenseKernel(op *textir.Operation, in []*interp.Tensor, st *exec.State) ([]*interp.Tensor, error) {
	x := in[0]
	if x.Rank() != 1 && x.Rank() != 2 {
		return nil, op.Errorf("input must have rank 1 or 2, got shape %s", interp.ShapeString(x.Shape()))
	}
	b, k := x.Dim(0), int64(1)
	if x.Rank() == 2 {
		k = x.Dim(1)
	}
	n := x.Len()
	splits := make([]int64, b+1)
	ign := op.LookupAttr(AttrIgnore)
	if ign == nil {
		for i := range splits {
			splits[i] = int64(i) * k
		}
		vals, err := x.Reshaped([]int64{int64(n)})
		if err != nil {
			return nil, op.Errorf("%v", err)
		}
		return []*interp.Tensor{vals, interp.Vector(splits...)}, nil
	}
	keep := make([]int, 0, n)
	var drop func(i int) bool
	switch a := ign.(type) {
	case textir.IntegerAttr:
		if x.DType().IsInteger() {
			drop = func(i int) bool { v, _ := x.Int64At(i); return v == a.Value }
		}
	case textir.StringAttr:
		if s := x.Strings(); s != nil {
			drop = func(i int) bool { return s[i] == a.Value }
		}
	case textir.FloatAttr:
		if f := x.Float32s(); f != nil {
			c := float32(a.Value)
			drop = func(i int) bool { return f[i] == c }
		} else if f := x.Float64s(); f != nil {
			drop = func(i int) bool { return f[i] == a.Value }
		}
	}
	if drop == nil {
		return nil, op.Errorf("attribute 'ignore' does not match the input dtype %v", x.DType())
	}
	for r := int64(0); r < b; r++ {
		for c := int64(0); c < k; c++ {
			if i := int(r*k + c); !drop(i) {
				keep = append(keep, i)
			}
		}
		splits[r+1] = int64(len(keep))
	}
	vals, err := pick(x, keep)
	if err != nil {
		return nil, op.Errorf("%v", err)
	}
	return []*interp.Tensor{vals, interp.Vector(splits...)}, nil
}

// emb.from_sparse: entries grouped stably by row (indices[:, 0]), as
// SparseFillEmptyRows regroups them; dense_shape[0] rows.
func fromSparseKernel(op *textir.Operation, in []*interp.Tensor, st *exec.State) ([]*interp.Tensor, error) {
	ind, vals, shape := in[0], in[1], in[2]
	if ind.DType() != interp.Int64 || ind.Rank() != 2 || ind.Dim(1) != 2 {
		return nil, op.Errorf("indices must be an int64 matrix [N, 2], got %v of shape %s", ind.DType(), interp.ShapeString(ind.Shape()))
	}
	if err := vector(op, "values", vals); err != nil {
		return nil, err
	}
	n := int(ind.Dim(0))
	if vals.Len() != n {
		return nil, op.Errorf("values must have indices.shape[0] = %d elements, got %d", n, vals.Len())
	}
	ds := shape.Int64s()
	if ds == nil || shape.Rank() != 1 || len(ds) != 2 {
		return nil, op.Errorf("dense_shape must be an int64 vector of 2 elements, got %v of shape %s", shape.DType(), interp.ShapeString(shape.Shape()))
	}
	rows := ds[0]
	if rows < 0 || rows > interp.MaxElements {
		return nil, op.Errorf("dense_shape[0] = %d is out of range", rows)
	}
	idx := ind.Int64s()
	counts := make([]int64, rows+1)
	for i := 0; i < n; i++ {
		r := idx[2*i]
		if r < 0 || r >= rows {
			return nil, op.Errorf("indices(%d, 0) is invalid: %d not in [0, %d)", i, r, rows)
		}
		counts[r+1]++
	}
	for r := int64(1); r <= rows; r++ {
		counts[r] += counts[r-1]
	}
	splits := append([]int64(nil), counts...)
	order := make([]int, n)
	for i := 0; i < n; i++ {
		r := idx[2*i]
		order[counts[r]] = i
		counts[r]++
	}
	out, err := pick(vals, order)
	if err != nil {
		return nil, op.Errorf("%v", err)
	}
	return []*interp.Tensor{out, interp.Vector(splits...)}, nil
}

// emb.split_strings: StringSplitV2(x, sep, maxsplit = -1).
func splitStringsKernel(op *textir.Operation, in []*interp.Tensor, st *exec.State) ([]*interp.Tensor, error) {
	x := in[0]
	if x.Rank() == 2 && x.Dim(1) == 1 {
		var err error
		if x, err = x.Reshaped([]int64{x.Dim(0)}); err != nil {
			return nil, op.Errorf("%v", err)
		}
	}
	sep, _ := op.LookupAttr(AttrSep).(textir.StringAttr)
	ind, vals, _, err := tfops.StringSplitV2(x, interp.Scalar(sep.Value), -1)
	if err != nil {
		return nil, op.Errorf("%v", err)
	}
	b := x.Dim(0)
	splits := make([]int64, b+1)
	idx := ind.Int64s()
	for i := 0; i < vals.Len(); i++ {
		splits[idx[2*i]+1]++
	}
	for r := int64(1); r <= b; r++ {
		splits[r] += splits[r-1]
	}
	return []*interp.Tensor{vals, interp.Vector(splits...)}, nil
}

// emb.hash: StringToHashBucketFast.
func hashKernel(op *textir.Operation, in []*interp.Tensor, st *exec.State) ([]*interp.Tensor, error) {
	n, _ := intAttr(op, AttrNumBuckets)
	h, err := tfops.StringToHashBucketFast(in[0], n)
	if err != nil {
		return nil, op.Errorf("%v", err)
	}
	dt, err := resultDType(op, 0)
	if err != nil {
		return nil, err
	}
	return one(asDType(h, dt))
}

// emb.as_string: AsString with default attributes.
func asStringKernel(op *textir.Operation, in []*interp.Tensor, st *exec.State) ([]*interp.Tensor, error) {
	s, err := tfops.AsString(in[0])
	if err != nil {
		return nil, op.Errorf("%v", err)
	}
	return []*interp.Tensor{s}, nil
}

// emb.bucketize: Bucketize, whose int32 buckets are widened to the result.
func bucketizeKernel(op *textir.Operation, in []*interp.Tensor, st *exec.State) ([]*interp.Tensor, error) {
	bs, ok := Boundaries(op)
	if !ok {
		return nil, op.Errorf("attribute 'boundaries' must be an array of f32 floats")
	}
	b, err := tfops.Bucketize(in[0], bs)
	if err != nil {
		return nil, op.Errorf("%v", err)
	}
	dt, err := resultDType(op, 0)
	if err != nil {
		return nil, err
	}
	return one(asDType(b, dt))
}

// Vocab is an emb.vocab_lookup's table (built once per program by the
// interpreter; package abi (dialects/fused/abi) uses it for the ids it hands benchmarks).
type Vocab struct {
	str map[string]int64
	num map[int64]int64
}

// NewVocab builds the table of keys (strings or integers): a key's index
// is its position, the last one for a repeated key.
func NewVocab(keys *textir.DenseElementsAttr) *Vocab {
	n := keys.NumElements()
	v := &Vocab{}
	if keys.IsString() {
		v.str = make(map[string]int64, n)
		for i := int64(0); i < n; i++ {
			v.str[keys.StringAt(i)] = i
		}
	} else {
		v.num = make(map[int64]int64, n)
		for i := int64(0); i < n; i++ {
			v.num[keys.IntAt(i)] = i
		}
	}
	return v
}

// Lookup is LookupTableFindV2 on the vocabulary, and with oov > 0
// out-of-vocabulary buckets StringToHashBucketFast(AsString(x)) + size
// where the key is missing (IdTableWithHashBuckets); else def.
func (voc *Vocab) Lookup(x *interp.Tensor, oov, def int64) ([]int64, error) {
	size := int64(len(voc.str) + len(voc.num))
	var buckets []int64
	if oov > 0 {
		s := x
		var err error
		if x.DType() != interp.String {
			if s, err = tfops.AsString(x); err != nil {
				return nil, err
			}
		}
		h, err := tfops.StringToHashBucketFast(s, oov)
		if err != nil {
			return nil, err
		}
		buckets = h.Int64s()
	}
	out := make([]int64, x.Len())
	strs := x.Strings()
	if (strs != nil) != (voc.str != nil) && x.Len() > 0 {
		return nil, fmt.Errorf("input dtype %v does not match the keys", x.DType())
	}
	for i := range out {
		var id int64
		var found bool
		if strs != nil {
			id, found = voc.str[strs[i]]
		} else {
			k, _ := x.Int64At(i)
			id, found = voc.num[k]
		}
		switch {
		case found:
			out[i] = id
		case oov > 0:
			out[i] = size + buckets[i]
		default:
			out[i] = def
		}
	}
	return out, nil
}

// emb.vocab_lookup: Vocab.Lookup, the table built once per program.
func vocabLookupKernel(op *textir.Operation, in []*interp.Tensor, st *exec.State) ([]*interp.Tensor, error) {
	m, err := st.Memo(func() (any, error) {
		keys := VocabKeys(op)
		if keys == nil {
			return nil, op.Errorf("requires attribute 'keys'")
		}
		return NewVocab(keys), nil
	})
	if err != nil {
		return nil, err
	}
	oov, def := vocabAttrs(op)
	out, err := m.(*Vocab).Lookup(in[0], oov, def)
	if err != nil {
		return nil, op.Errorf("%v", err)
	}
	dt, err := resultDType(op, 0)
	if err != nil {
		return nil, err
	}
	return one(asDType(interp.Vector(out...), dt))
}

// emb.check_range: SelectV2(v < 0 || v >= N, default, v); without a
// default, an id out of range is an error (the column's assertions).
func checkRangeKernel(op *textir.Operation, in []*interp.Tensor, st *exec.State) ([]*interp.Tensor, error) {
	n, _ := intAttr(op, AttrNumBuckets)
	def, hasDef := intAttr(op, AttrDefault)
	v, err := intsOf(op, "ids", in[0])
	if err != nil {
		return nil, err
	}
	out := make([]int64, len(v))
	for i, x := range v {
		if x >= 0 && x < n {
			out[i] = x
			continue
		}
		if !hasDef {
			return nil, op.Errorf("id %d at position %d is not in [0, %d)", x, i, n)
		}
		out[i] = def
	}
	return one(asDType(interp.Vector(out...), in[0].DType()))
}

// emb.cast: Cast between integer types.
func castKernel(op *textir.Operation, in []*interp.Tensor, st *exec.State) ([]*interp.Tensor, error) {
	dt, err := resultDType(op, 0)
	if err != nil {
		return nil, err
	}
	t, err := tfops.Cast(in[0], dt)
	if err != nil {
		return nil, op.Errorf("%v", err)
	}
	return []*interp.Tensor{t}, nil
}

// emb.add_offset: v + stride * (position of v in its bag), wrapping in the
// element type.
func addOffsetKernel(op *textir.Operation, in []*interp.Tensor, st *exec.State) ([]*interp.Tensor, error) {
	v, err := intsOf(op, "ids", in[0])
	if err != nil {
		return nil, err
	}
	splits, err := checkSplits(op, in[1], len(v))
	if err != nil {
		return nil, err
	}
	s, _ := intAttr(op, AttrStride)
	out := make([]int64, len(v))
	for b := 0; b+1 < len(splits); b++ {
		for j := splits[b]; j < splits[b+1]; j++ {
			out[j] = v[j] + s*(j-splits[b])
		}
	}
	return one(asDType(interp.Vector(out...), in[0].DType()))
}

// emb.filter: the GreaterEqual + Where + Gather pruning (and, with
// positive_weights, Greater(weights, 0) + sparse_retain), keeping order.
func filterKernel(op *textir.Operation, in []*interp.Tensor, st *exec.State) ([]*interp.Tensor, error) {
	lo, hasLo := intAttr(op, AttrMin)
	hi, hasHi := intAttr(op, AttrMax)
	var v []int64
	if hasLo || hasHi {
		var err error
		if v, err = intsOf(op, "ids", in[0]); err != nil {
			return nil, err
		}
	} else if err := vector(op, "values", in[0]); err != nil {
		return nil, err
	} else {
		v = make([]int64, in[0].Len())
	}
	splits, err := checkSplits(op, in[1], len(v))
	if err != nil {
		return nil, err
	}
	var w *interp.Tensor
	if len(in) > 2 {
		w = in[2]
		if err := vector(op, "weights", w); err != nil {
			return nil, err
		}
		if w.Len() != len(v) || !w.DType().IsFloat() {
			return nil, op.Errorf("weights must be %d floats, got %d of %v", len(v), w.Len(), w.DType())
		}
	}
	positive := op.LookupAttr(AttrPositiveWeights) != nil && w != nil
	keep := make([]int, 0, len(v))
	out := make([]int64, len(splits))
	for b := 0; b+1 < len(splits); b++ {
		for j := splits[b]; j < splits[b+1]; j++ {
			x := v[j]
			if (hasLo && x < lo) || (hasHi && x > hi) || (positive && !(w.Float64At(int(j)) > 0)) {
				continue
			}
			keep = append(keep, int(j))
		}
		out[b+1] = int64(len(keep))
	}
	vals, err := pick(in[0], keep)
	if err != nil {
		return nil, op.Errorf("%v", err)
	}
	res := []*interp.Tensor{vals, interp.Vector(out...)}
	if w != nil {
		ws, err := pick(w, keep)
		if err != nil {
			return nil, op.Errorf("%v", err)
		}
		res = append(res, ws)
	}
	return res, nil
}

// table is a run's embedding table: materialized, or random and lazy.
type table struct {
	value *interp.Tensor // nil while lazy
	key   uint64
	rows  int64
	width int64
	// A partitioned table (partitions.go): its shards and strategy.
	parts    []*table
	strategy string
}

// lazyTables maps the stub tensors that stand for lazy tables to them.
type lazyTables map[*interp.Tensor]*table

func lazyOf(st *exec.State) lazyTables {
	if l, ok := st.Resource("emb.lazy-tables").(lazyTables); ok {
		return l
	}
	l := lazyTables{}
	st.SetResource("emb.lazy-tables", l)
	return l
}

// onlyLookups reports whether every use of v is the table operand of an
// emb lookup.
func onlyLookups(v *textir.Value) bool {
	for u := range v.Uses() {
		switch u.Owner().Name() {
		case LookupOp, GatherOp, GatherScatterOp:
			if u.Index() != 0 {
				return false
			}
		default:
			return false
		}
	}
	return true
}

// emb.table: the constant 'value', or the variable 'name' of the run.
func tableKernel(op *textir.Operation, in []*interp.Tensor, st *exec.State) ([]*interp.Tensor, error) {
	tt, ok := op.Result(0).Type().(*textir.TensorType)
	if !ok || len(tt.Shape) != 2 || !tt.HasStaticShape() {
		return nil, op.Errorf("table type %s must be a static 2-D tensor", op.Result(0).Type())
	}
	dt, err := resultDType(op, 0)
	if err != nil {
		return nil, err
	}
	if parts, strategy := Partitions(op); parts != nil {
		return partitionedTable(op, st, tt, dt, parts, strategy)
	}
	if d, ok := op.LookupAttr(AttrValue).(*textir.DenseElementsAttr); ok {
		v, err := st.Memo(func() (any, error) {
			t, err := tfg.TensorFromAttr(d)
			if err != nil {
				return nil, op.Errorf("attribute 'value': %v", err)
			}
			return t, nil
		})
		if err != nil {
			return nil, err
		}
		return []*interp.Tensor{v.(*interp.Tensor)}, nil
	}
	name, _ := op.LookupAttr(AttrName).(textir.StringAttr)
	opts := st.Options()
	if t, ok := opts.Variables[name.Value]; ok {
		if t.DType() != dt {
			return nil, op.Errorf("variable %q is given as %v, but the table holds %v", name.Value, t.DType(), dt)
		}
		if t.Rank() != 2 || t.Dim(0) != tt.Shape[0] || t.Dim(1) != tt.Shape[1] {
			return nil, op.Errorf("variable %q is given with shape %s, but the table type is %s", name.Value, interp.ShapeString(t.Shape()), tt)
		}
		return []*interp.Tensor{t}, nil
	}
	if !opts.RandomTables {
		return nil, op.Errorf("no value for variable %q (give it, or use random tables)", name.Value)
	}
	n := tt.Shape[0] * tt.Shape[1]
	if n > LazyTableElements && onlyLookups(op.Result(0)) {
		stub, err := interp.Zeros(dt, []int64{0, tt.Shape[1]})
		if err != nil {
			return nil, op.Errorf("%v", err)
		}
		lazyOf(st)[stub] = &table{key: exec.RandomKey(opts.Seed, name.Value), rows: tt.Shape[0], width: tt.Shape[1]}
		st.MarkLazy()
		return []*interp.Tensor{stub}, nil
	}
	t, err := exec.RandomTensor(dt, tt.Shape, opts.Seed, name.Value)
	if err != nil {
		return nil, op.Errorf("variable %q: %v", name.Value, err)
	}
	return []*interp.Tensor{t}, nil
}

// tableOf returns the table behind a table operand.
func tableOf(op *textir.Operation, st *exec.State, t *interp.Tensor) (*table, error) {
	if l, ok := lazyOf(st)[t]; ok {
		return l, nil
	}
	if t.Rank() != 2 || !t.DType().IsFloat() {
		return nil, op.Errorf("table must be a float matrix, got %v of shape %s", t.DType(), interp.ShapeString(t.Shape()))
	}
	return &table{value: t, rows: t.Dim(0), width: t.Dim(1)}, nil
}

// row returns table row i, in buf when the table is lazy.
func row[T float32 | float64](t *table, i int64, buf []T) []T {
	if t.parts != nil {
		p, r := ShardOf(t.strategy, t.rows, int64(len(t.parts)), i)
		return row(t.parts[p], r, buf)
	}
	if t.value != nil {
		d, _ := interp.Values[T](t.value)
		return d[i*t.width : (i+1)*t.width]
	}
	exec.FillRandom(buf, t.key, i*t.width)
	return buf
}

// emb.lookup and emb.gather_scatter.
func lookupKernel(op *textir.Operation, in []*interp.Tensor, st *exec.State) ([]*interp.Tensor, error) {
	tab, err := tableOf(op, st, in[0])
	if err != nil {
		return nil, err
	}
	ids, err := intsOf(op, "ids", in[1])
	if err != nil {
		return nil, err
	}
	splits, err := checkSplits(op, in[2], len(ids))
	if err != nil {
		return nil, err
	}
	var w *interp.Tensor
	if len(in) > 3 {
		w = in[3]
		if err := vector(op, "weights", w); err != nil {
			return nil, err
		}
		if w.Len() != len(ids) {
			return nil, op.Errorf("weights must have one element per id (%d), got %d", len(ids), w.Len())
		}
	}
	if op.Name() == GatherScatterOp {
		for b := 0; b+1 < len(splits); b++ {
			if n := splits[b+1] - splits[b]; n > 1 {
				return nil, op.Errorf("bag %d holds %d ids, but emb.gather_scatter takes at most one", b, n)
			}
		}
	}
	for j, id := range ids {
		if id < 0 || id >= tab.rows {
			return nil, op.Errorf("id %d (value %d) is not in [0, %d)", id, j, tab.rows)
		}
	}
	comb := Combiner(op)
	if !validCombiner(comb) {
		return nil, op.Errorf("unknown combiner %q", comb)
	}
	dt, err := resultDType(op, 0)
	if err != nil {
		return nil, err
	}
	shape := []int64{int64(len(splits) - 1), tab.width}
	switch dt {
	case interp.Float32:
		var ws []float32
		if w != nil {
			if ws = w.Float32s(); ws == nil {
				return nil, op.Errorf("weights must be float32, got %v", w.DType())
			}
		}
		return one(interp.New(shape, pool(tab, ids, splits, ws, comb, DivNoNaN(op))))
	case interp.Float64:
		var ws []float64
		if w != nil {
			if ws = w.Float64s(); ws == nil {
				return nil, op.Errorf("weights must be float64, got %v", w.DType())
			}
		}
		return one(interp.New(shape, pool(tab, ids, splits, ws, comb, DivNoNaN(op))))
	}
	return nil, op.Errorf("unsupported result dtype %v", dt)
}

// pool computes the pooled rows. Unweighted: the sum of a bag's rows
// (accumulated in float64, rounded once), divided by the count for mean
// and by its square root for sqrtn, as SparseSegment{Sum,Mean,SqrtN}.
// Weighted, as embedding_lookup_sparse with weights: rows times weights in
// T, summed; mean divides by the sum of the weights, sqrtn by the square
// root of the sum of their squares (RealDiv, in T; with noNaN DivNoNan: 0
// where the divisor is 0). Empty bags are zero.
func pool[T float32 | float64](tab *table, ids, splits []int64, w []T, comb string, noNaN bool) []T {
	d := int(tab.width)
	bags := len(splits) - 1
	out := make([]T, bags*d)
	acc := make([]float64, d)
	buf := make([]T, d)
	for b := 0; b < bags; b++ {
		lo, hi := splits[b], splits[b+1]
		if lo == hi {
			continue
		}
		clear(acc)
		var ws, ws2 float64
		for j := lo; j < hi; j++ {
			r := row(tab, ids[j], buf)
			if w == nil {
				for c, x := range r {
					acc[c] += float64(x)
				}
				continue
			}
			wj := w[j]
			for c, x := range r {
				acc[c] += float64(x * wj)
			}
			ws += float64(wj)
			ws2 += float64(wj * wj)
		}
		dst := out[b*d : (b+1)*d]
		n := float64(hi - lo)
		switch {
		case w == nil && comb == CombinerMean:
			for c := range dst {
				dst[c] = T(acc[c] / n)
			}
		case w == nil && comb == CombinerSqrtN:
			s := math.Sqrt(n)
			for c := range dst {
				dst[c] = T(acc[c] / s)
			}
		case w != nil && comb == CombinerMean:
			den := T(ws)
			for c := range dst {
				dst[c] = divide(T(acc[c]), den, noNaN)
			}
		case w != nil && comb == CombinerSqrtN:
			den := T(math.Sqrt(float64(T(ws2))))
			for c := range dst {
				dst[c] = divide(T(acc[c]), den, noNaN)
			}
		default:
			for c := range dst {
				dst[c] = T(acc[c])
			}
		}
	}
	return out
}

// divide is x / y (RealDiv), or DivNoNan's 0 where y is 0 with noNaN.
func divide[T float32 | float64](x, y T, noNaN bool) T {
	if noNaN && y == 0 {
		return 0
	}
	return x / y
}

// emb.gather: row b is table[ids[b]] (GatherV2 on the CPU: an id out of
// range is an error).
func gatherKernel(op *textir.Operation, in []*interp.Tensor, st *exec.State) ([]*interp.Tensor, error) {
	tab, err := tableOf(op, st, in[0])
	if err != nil {
		return nil, err
	}
	ids, err := intsOf(op, "ids", in[1])
	if err != nil {
		return nil, err
	}
	if err := vector(op, "ids", in[1]); err != nil {
		return nil, err
	}
	for j, id := range ids {
		if id < 0 || id >= tab.rows {
			return nil, op.Errorf("id %d (value %d) is not in [0, %d)", id, j, tab.rows)
		}
	}
	shape := []int64{int64(len(ids)), tab.width}
	dt, err := resultDType(op, 0)
	if err != nil {
		return nil, err
	}
	switch dt {
	case interp.Float32:
		return one(interp.New(shape, gatherRows[float32](tab, ids)))
	case interp.Float64:
		return one(interp.New(shape, gatherRows[float64](tab, ids)))
	}
	return nil, op.Errorf("unsupported result dtype %v", dt)
}

func gatherRows[T float32 | float64](tab *table, ids []int64) []T {
	d := int(tab.width)
	out := make([]T, len(ids)*d)
	for j, id := range ids {
		copy(out[j*d:], row(tab, id, out[j*d:(j+1)*d]))
	}
	return out
}

// emb.concat: ConcatV2 on axis 1.
func concatKernel(op *textir.Operation, in []*interp.Tensor, st *exec.State) ([]*interp.Tensor, error) {
	t, err := tfops.ConcatV2(in, interp.Scalar(int32(1)))
	if err != nil {
		return nil, op.Errorf("%v", err)
	}
	return []*interp.Tensor{t}, nil
}
