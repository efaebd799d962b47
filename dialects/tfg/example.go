package tfg

import (
	"fmt"

	"github.com/recom-compiler/recom/dialects/tfg/optab"
	"github.com/recom-compiler/recom/interp"
	"github.com/recom-compiler/recom/interp/tfops"
	"github.com/recom-compiler/recom/textir"
)

// What the lowerings and the runtime read of a ParseExample or
// ParseExampleV2 op: which of its results a value is (ExampleResult),
// and the features it parses with their dtypes, shapes and dense defaults
// when they are constants of the graph (ExampleSpecOf).

// The output arguments of the parse ops, as optab names them.
const (
	ExampleSparseIndices = "sparse_indices"
	ExampleSparseValues  = "sparse_values"
	ExampleSparseShapes  = "sparse_shapes"
	ExampleDenseValues   = "dense_values"
	ExampleRaggedValues  = "ragged_values"
	ExampleRaggedSplits  = "ragged_row_splits"
)

// IsExampleParse reports whether op is a tfg.ParseExample or
// tfg.ParseExampleV2.
func IsExampleParse(op *textir.Operation) bool {
	return op != nil && (op.Name() == Name+".ParseExample" || op.Name() == Name+".ParseExampleV2")
}

// ExampleResult returns the parse op whose result v is, the output
// argument it belongs to (ExampleSparseIndices, ...) and its index among
// that argument's tensors: the feature's index among the features of its
// kind. ok is false for any other value.
func ExampleResult(v *textir.Value) (op *textir.Operation, arg string, k int, ok bool) {
	op = v.DefiningOp()
	if !IsExampleParse(op) {
		return nil, "", 0, false
	}
	o, found := optab.Of(op.Name())
	if !found {
		return nil, "", 0, false
	}
	for _, a := range []string{ExampleSparseIndices, ExampleSparseValues, ExampleSparseShapes, ExampleDenseValues, ExampleRaggedValues, ExampleRaggedSplits} {
		lo, hi, has := o.OutputRange(op, a)
		if has && v.Index() >= lo && v.Index() < hi {
			return op, a, v.Index() - lo, true
		}
	}
	return nil, "", 0, false
}

// ExampleFeature is one feature a parse op reads.
type ExampleFeature struct {
	Key   string
	DType interp.DType // of the values: Int64, Float32 or String
	// Dense features: the shape of one example's values (the batch
	// dimension not included), VarLen when its first dimension is -1
	// (rows of Stride elements, padded with the default's one element),
	// Stride the elements of a row (of the whole shape when fixed), and
	// Default the default's values, nil when the feature is required.
	Shape   []int64
	VarLen  bool
	Stride  int64
	Default *interp.Tensor
	// SplitType is a ragged feature's row-splits dtype (Int32 or Int64).
	SplitType interp.DType
}

// ExampleSpec is what a parse op parses: its features by kind, each list
// in the order of the op's results.
type ExampleSpec struct {
	Op                    *textir.Operation
	Version               int // 1: ParseExample, 2: ParseExampleV2
	Sparse, Dense, Ragged []ExampleFeature
}

// ExampleSpecOf reads the features of a parse op from its attributes and
// from its key and default operands, which must be constants of the graph
// (a Const, through Identity, and for a default through Reshape): what
// TensorFlow's parsing code writes. The configuration is checked as the
// op's kernel checks it (tfops.ParseExample on no examples), so that a
// spec that reads is one the interpreter accepts. The error names the op.
func ExampleSpecOf(op *textir.Operation) (*ExampleSpec, error) {
	if !IsExampleParse(op) {
		return nil, fmt.Errorf("not a ParseExample or ParseExampleV2: %s", op.Name())
	}
	s := &ExampleSpec{Op: op, Version: 1}
	if op.Name() == Name+".ParseExampleV2" {
		s.Version = 2
	}
	a := tfops.ParseExampleAttrs{Version: s.Version}
	var err error
	if a.SparseTypes, err = attrTypes(op, "sparse_types"); err != nil {
		return nil, err
	}
	if a.DenseTypes, err = attrTypes(op, "Tdense"); err != nil {
		return nil, err
	}
	if a.DenseShapes, err = attrShapes(op, "dense_shapes"); err != nil {
		return nil, err
	}
	if s.Version == 1 {
		a.NumSparse, a.NumDense = attrInt(op, "Nsparse", 0), attrInt(op, "Ndense", 0)
	} else {
		a.NumSparse = attrInt(op, "num_sparse", 0)
		if a.RaggedValueTypes, err = attrTypes(op, "ragged_value_types"); err != nil {
			return nil, err
		}
		if a.RaggedSplitTypes, err = attrTypes(op, "ragged_split_types"); err != nil {
			return nil, err
		}
	}
	if a.NumSparse < 0 || a.NumSparse > maxExampleFeatures || a.NumDense < 0 || a.NumDense > maxExampleFeatures {
		return nil, op.Errorf("the feature counts (%d sparse, %d dense) must be in [0, %d]", a.NumSparse, a.NumDense, maxExampleFeatures)
	}
	constant := func(what string, v *textir.Value, reshape bool) (*interp.Tensor, error) {
		for range 32 {
			d := v.DefiningOp()
			switch {
			case d == nil:
			case d.Name() == Name+".Identity" && d.NumOperands() > 0:
				v = d.Operand(0)
				continue
			case reshape && d.Name() == Name+".Reshape" && d.NumOperands() > 0:
				v = d.Operand(0)
				continue
			case d.Name() == Name+".Const":
				if c, ok := d.Attr("value").(*textir.DenseElementsAttr); ok {
					return TensorFromAttr(c)
				}
			}
			break
		}
		return nil, op.Errorf("the %s is not a constant of the graph", what)
	}
	in := tfops.ParseExampleInputs{Serialized: interp.Vector[string](), Names: interp.Vector[string]()}
	keys := func(arg string) ([]*interp.Tensor, error) {
		var out []*interp.Tensor
		for i, v := range optab.Operands(op, arg) {
			t, err := constant(fmt.Sprintf("%s[%d]", arg, i), v, false)
			if err != nil {
				return nil, err
			}
			out = append(out, t)
		}
		return out, nil
	}
	if in.SparseKeys, err = keys("sparse_keys"); err != nil {
		return nil, err
	}
	if in.DenseKeys, err = keys("dense_keys"); err != nil {
		return nil, err
	}
	if s.Version == 2 {
		if in.RaggedKeys, err = keys("ragged_keys"); err != nil {
			return nil, err
		}
	}
	for i, v := range optab.Operands(op, "dense_defaults") {
		t, err := constant(fmt.Sprintf("dense default #%d", i), v, true)
		if err != nil {
			return nil, err
		}
		in.DenseDefaults = append(in.DenseDefaults, t)
	}
	// The kernel's checks, on no examples; the defaults it checks are the
	// constants reshaped to the dense shapes where they hold a whole row.
	for d, def := range in.DenseDefaults {
		if d < len(a.DenseShapes) && !a.DenseShapes[d].UnknownRank && def.Len() > 1 {
			if r, err := def.Reshaped(a.DenseShapes[d].Dims); err == nil {
				in.DenseDefaults[d] = r
			}
		}
	}
	if _, err := tfops.ParseExample(a, in); err != nil {
		return nil, op.Errorf("%v", err)
	}
	strs := func(ts []*interp.Tensor) []string {
		var out []string
		for _, t := range ts {
			out = append(out, t.Strings()...)
		}
		return out
	}
	for k, key := range strs(in.SparseKeys) {
		s.Sparse = append(s.Sparse, ExampleFeature{Key: key, DType: a.SparseTypes[k]})
	}
	for k, key := range strs(in.DenseKeys) {
		dims := a.DenseShapes[k].Dims
		f := ExampleFeature{Key: key, DType: a.DenseTypes[k], Shape: append([]int64{}, dims...), Stride: 1}
		inner := dims
		if len(dims) > 0 && dims[0] == -1 {
			f.VarLen, inner = true, dims[1:]
		}
		for _, d := range inner {
			f.Stride *= d
		}
		if def := in.DenseDefaults[k]; def.Len() > 0 {
			f.Default = def
		}
		s.Dense = append(s.Dense, f)
	}
	for k, key := range strs(in.RaggedKeys) {
		s.Ragged = append(s.Ragged, ExampleFeature{Key: key, DType: a.RaggedValueTypes[k], SplitType: a.RaggedSplitTypes[k]})
	}
	return s, nil
}

// Serialized returns the op's serialized input.
func (s *ExampleSpec) Serialized() *textir.Value { return optab.Operand(s.Op, "serialized") }

// ExampleDims returns the dims of result v of a parse op (-1 unknown)
// from the op's attributes and the rank of its serialized input (a vector:
// a batch; a scalar, ParseExampleV2 only: one example), without the
// configuration's constants; ok is false when they do not say.
func ExampleDims(v *textir.Value, serializedRank int) ([]int64, bool) {
	op, arg, k, found := ExampleResult(v)
	if !found || serializedRank < 0 || serializedRank > 1 {
		return nil, false
	}
	batch := serializedRank == 1
	switch arg {
	case ExampleSparseIndices:
		if batch {
			return []int64{-1, 2}, true
		}
		return []int64{-1, 1}, true
	case ExampleSparseValues, ExampleRaggedValues:
		return []int64{-1}, true
	case ExampleSparseShapes:
		if batch {
			return []int64{2}, true
		}
		return []int64{1}, true
	case ExampleRaggedSplits:
		if batch {
			return []int64{-1}, true
		}
		return []int64{0}, true
	}
	// Only shape k is read: a lowering asks for every result's dims, and
	// a serving parse has a feature per column.
	arr, ok := op.Attr("dense_shapes").(textir.ArrayAttr)
	if !ok || k >= len(arr.Elems) {
		return nil, false
	}
	sh, ok := ShapeOf(arr.Elems[k])
	if !ok || sh.UnknownRank {
		return nil, false
	}
	var dims []int64
	if batch {
		dims = append(dims, -1)
	}
	return append(dims, sh.Dims...), true
}
