package tfgtoemb

import (
	"github.com/recom-compiler/recom/dialects/tfg"
	"github.com/recom-compiler/recom/dialects/tfg/optab"
	"github.com/recom-compiler/recom/textir"
)

// Features parsed from tf.Example records: the outputs of a ParseExample
// or ParseExampleV2 (a TensorFlow Estimator export's serving signature
// starts with one) are the sources of the columns behind them, per
// feature key, as placeholders are in a graph fed feature by feature. A
// VarLenFeature is the SparseTensor of its key's indices, values and
// dense_shape, which the feature columns take as it is; a FixedLenFeature
// a dense tensor, which the dense id forms (categorical, bucketized,
// split strings) read as they read a placeholder. The parse's results
// have no types in a graph without _output_shapes: their dims come from
// its attributes (parsedDims), and their types are refined as a
// placeholder's are (checkTypes).

// parsedIDs recognises the ids of a VarLenFeature: indices, values and
// dense shape the same key's results of one parse, the column's id
// transforms over the values. The transforms move into emb ops after
// emb.from_sparse (they are elementwise, and from_sparse only groups the
// values by row), where --fuse can take them into the kernel.
func parsedIDs(p *plan) (source, []xform, bool) {
	if !parsedSparse(p.src.ind, p.base, p.src.shape) {
		return source{}, nil, false
	}
	src := p.src
	src.vals = p.base
	if op := def(p.base); op != nil {
		src.loc = op.Loc()
	}
	return src, append([]xform(nil), p.xs...), true
}

// parsedSparse reports whether ind, vals and shape are the sparse
// indices, values and dense shape of one key of one parse op.
func parsedSparse(ind, vals, shape *textir.Value) bool {
	if ind == nil || vals == nil || shape == nil {
		return false
	}
	op, arg, k, ok := tfg.ExampleResult(strip(vals))
	if !ok || arg != tfg.ExampleSparseValues {
		return false
	}
	iop, iarg, ik, ok1 := tfg.ExampleResult(strip(ind))
	sop, sarg, sk, ok2 := tfg.ExampleResult(strip(shape))
	return ok1 && ok2 && iop == op && sop == op && iarg == tfg.ExampleSparseIndices && sarg == tfg.ExampleSparseShapes && ik == k && sk == k
}

// parsedDims returns the dims of a parse op's result v (dimsOf's rule for
// them): from the op's attributes, batched when its serialized input is
// a vector.
func parsedDims(v *textir.Value) ([]int64, bool) {
	op, _, _, ok := tfg.ExampleResult(v)
	if !ok {
		return nil, false
	}
	return tfg.ExampleDims(v, rankOf(optab.Operand(op, "serialized")))
}

// refinable reports whether the unranked results of op may take the type
// their dims say (checkTypes): a placeholder's shape attribute, a
// SparseReshape's new shape, or a
// parse op's attributes.
func refinable(op *textir.Operation) bool {
	return isOp(op, "Placeholder", "SparseReshape") || tfg.IsExampleParse(op)
}
