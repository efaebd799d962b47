package embtogpu

import (
	"github.com/recom-compiler/recom/dialects/tfg"
	"github.com/recom-compiler/recom/textir"
)

// Named data operands of the tfg ops the input layer's chains are made of
// (TensorFlow's input order). They are local helpers until the tfg
// dialect's op table declares accessors.

// identityInput is the tensor a tfg.Identity forwards.
func identityInput(op *textir.Operation) *textir.Value { return op.Operand(0) }

// reshapeTensor is the tensor a tfg.Reshape reshapes.
func reshapeTensor(op *textir.Operation) *textir.Value { return op.Operand(0) }

// reshapeShape is the shape operand of a tfg.Reshape, or nil.
func reshapeShape(op *textir.Operation) *textir.Value {
	if in := tfg.DataOperands(op); len(in) >= 2 {
		return in[1]
	}
	return nil
}

// shapeInput is the tensor whose shape tfg.Shape returns.
func shapeInput(op *textir.Operation) *textir.Value { return op.Operand(0) }

// concatV2Operands splits a tfg.ConcatV2's data operands into the tensors
// it concatenates and its axis; ok is false without an axis and a tensor.
func concatV2Operands(op *textir.Operation) (values []*textir.Value, axis *textir.Value, ok bool) {
	in := tfg.DataOperands(op)
	if len(in) < 2 {
		return nil, nil, false
	}
	return in[:len(in)-1], in[len(in)-1], true
}

// sliceOperands returns a tfg.Slice's input, begin and size.
func sliceOperands(op *textir.Operation) (input, begin, size *textir.Value, ok bool) {
	in := tfg.DataOperands(op)
	if len(in) != 3 {
		return nil, nil, nil, false
	}
	return in[0], in[1], in[2], true
}

// packValues returns the tensors a tfg.Pack stacks.
func packValues(op *textir.Operation) []*textir.Value { return tfg.DataOperands(op) }
