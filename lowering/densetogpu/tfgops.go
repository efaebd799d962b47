package densetogpu

import (
	"github.com/recom-compiler/recom/dialects/tfg"
	"github.com/recom-compiler/recom/textir"
)

// Named data operands of the tfg ops of a dense chain (TensorFlow's input
// order). They are local helpers until the tfg dialect's op table declares
// accessors.

// matmulOperands returns a tfg.MatMul's two matrices: the input a and the
// weight b.
func matmulOperands(op *textir.Operation) (a, b *textir.Value, ok bool) {
	in := tfg.DataOperands(op)
	if len(in) != 2 {
		return nil, nil, false
	}
	return in[0], in[1], true
}

// binaryOperands returns the two tensors of a binary op (tfg.BiasAdd's
// value and bias, tfg.Add's and tfg.AddV2's terms).
func binaryOperands(op *textir.Operation) (x, y *textir.Value, ok bool) {
	in := tfg.DataOperands(op)
	if len(in) != 2 {
		return nil, nil, false
	}
	return in[0], in[1], true
}

// unaryInput returns the one tensor of a unary op (tfg.Relu, tfg.Sigmoid,
// tfg.Tanh, tfg.Identity, tfg.Snapshot, tfg.ReadVariableOp).
func unaryInput(op *textir.Operation) (*textir.Value, bool) {
	in := tfg.DataOperands(op)
	if len(in) != 1 {
		return nil, false
	}
	return in[0], true
}

// firstInput is a tfg op's data operand #0 whatever its arity: the tensor
// an elementwise op (tfg.Relu, tfg.BiasAdd, ...) keeps the shape of.
func firstInput(op *textir.Operation) *textir.Value { return op.Operand(0) }

// concatV2Operands splits a tfg.ConcatV2's data operands into the tensors
// it concatenates and its axis; ok is false without an axis and a tensor.
func concatV2Operands(op *textir.Operation) (values []*textir.Value, axis *textir.Value, ok bool) {
	in := tfg.DataOperands(op)
	if len(in) < 2 {
		return nil, nil, false
	}
	return in[:len(in)-1], in[len(in)-1], true
}
