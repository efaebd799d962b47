package emb

import (
	"github.com/recom-compiler/recom/textir"
)

// Folders return existing values only; they never create ops.

func same(vs ...*textir.Value) []textir.FoldResult {
	rs := make([]textir.FoldResult, len(vs))
	for i, v := range vs {
		rs[i] = textir.FoldResult{Value: v}
	}
	return rs
}

// cast to the same type is the identity.
func foldCast(op *textir.Operation, _ []textir.Attribute) []textir.FoldResult {
	if op.Operand(0).Type() == op.Result(0).Type() {
		return same(op.Operand(0))
	}
	return nil
}

// add_offset with stride 0, or on bags of at most one id (every position
// is 0), is the identity.
func foldAddOffset(op *textir.Operation, _ []textir.Attribute) []textir.FoldResult {
	if op.Operand(0).Type() != op.Result(0).Type() {
		return nil
	}
	if s, ok := intAttr(op, AttrStride); ok && s == 0 {
		return same(op.Operand(0))
	}
	if _, hi, ok := BagSize(op.Operand(1)); ok && hi <= 1 {
		return same(op.Operand(0))
	}
	return nil
}

// A filter without bounds drops nothing.
func foldFilter(op *textir.Operation, _ []textir.Attribute) []textir.FoldResult {
	if op.LookupAttr(AttrMin) != nil || op.LookupAttr(AttrMax) != nil || op.LookupAttr(AttrPositiveWeights) != nil {
		return nil
	}
	if op.NumResults() != op.NumOperands() {
		return nil
	}
	for i := range op.NumOperands() {
		if op.Operand(i).Type() != op.Result(i).Type() {
			return nil
		}
	}
	return same(op.Operands()...)
}

// The concatenation of one tensor is that tensor.
func foldConcat(op *textir.Operation, _ []textir.Attribute) []textir.FoldResult {
	if op.NumOperands() == 1 && op.Operand(0).Type() == op.Result(0).Type() {
		return same(op.Operand(0))
	}
	return nil
}
