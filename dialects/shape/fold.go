package shape

import (
	"math"

	"github.com/recom-compiler/recom/dialects/shape/expr"
	"github.com/recom-compiler/recom/textir"
)

func indexAttr(v int64) textir.IntegerAttr { return textir.IntegerAttr{Value: v, Type: textir.Index()} }

func constAttr(a textir.Attribute) []textir.FoldResult {
	return []textir.FoldResult{{Attr: a}}
}

// intConst returns the value of an integer constant attribute (an index
// or integer, or a one-element dense integer tensor).
func intConst(a textir.Attribute) (int64, bool) {
	switch x := a.(type) {
	case textir.IntegerAttr:
		return x.Value, true
	case *textir.DenseElementsAttr:
		if x.NumElements() == 1 && textir.IsIntOrIndex(x.Type.Elem) {
			return x.IntAt(0), true
		}
	}
	return 0, false
}

func foldDim(op *textir.Operation, _ []textir.Attribute) []textir.FoldResult {
	tt, ok := op.Operand(0).Type().(*textir.TensorType)
	i := op.LookupAttr(IndexAttr).(textir.IntegerAttr).Value
	if !ok || i < 0 || i >= int64(len(tt.Shape)) || tt.Shape[i] < 0 {
		return nil
	}
	return constAttr(indexAttr(tt.Shape[i]))
}

func foldCount(op *textir.Operation, _ []textir.Attribute) []textir.FoldResult {
	tt, ok := op.Operand(0).Type().(*textir.TensorType)
	if !ok || !tt.HasStaticShape() {
		return nil
	}
	return constAttr(indexAttr(tt.NumElements()))
}

// foldApply: a constant expression (after substituting constant operands)
// folds to its value, and an expression that is one parameter to that
// operand.
func foldApply(op *textir.Operation, operands []textir.Attribute) []textir.FoldResult {
	m, err := OpMap(op)
	if err != nil || len(m.Results) != 1 || len(m.Params) != len(operands) {
		return nil
	}
	r := m.Results[0].Subst(func(s expr.Sym) (expr.Expr, bool) {
		if v, ok := intConst(operands[s]); ok {
			return expr.Const(v), true
		}
		return expr.Expr{}, false
	})
	if r.Err() != nil {
		return nil // e.g. a division by zero: left for run time to report
	}
	if c, ok := r.IsConst(); ok {
		return constAttr(indexAttr(c))
	}
	if s, ok := r.AsSym(); ok {
		return []textir.FoldResult{{Value: op.Operand(int(s))}}
	}
	return nil
}

func foldFromExtents(op *textir.Operation, operands []textir.Attribute) []textir.FoldResult {
	tt := op.Result(0).Type().(*textir.TensorType)
	vals := make([]int64, len(operands))
	for i, a := range operands {
		v, ok := intConst(a)
		if !ok || !fits(v, tt.Elem) {
			return nil
		}
		vals[i] = v
	}
	return constAttr(textir.DenseInts(tt, vals))
}

func fits(v int64, t textir.Type) bool {
	return t != textir.I32() || (v >= math.MinInt32 && v <= math.MaxInt32)
}

// foldIndexCast folds constants and round trips:
// index_cast(index_cast(x : T to index) : index to T) = x, and the reverse.
func foldIndexCast(op *textir.Operation, operands []textir.Attribute) []textir.FoldResult {
	out := op.Result(0).Type()
	if v, ok := intConst(operands[0]); ok {
		if indexType.Pred(out) {
			return constAttr(indexAttr(v))
		}
		tt := out.(*textir.TensorType)
		if fits(v, tt.Elem) {
			return constAttr(textir.DenseInts(tt, []int64{v}))
		}
		return nil
	}
	if def := op.Operand(0).DefiningOp(); def != nil && def.Name() == IndexCastOp && def.Operand(0).Type() == out {
		return []textir.FoldResult{{Value: def.Operand(0)}}
	}
	return nil
}
