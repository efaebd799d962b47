package shape

import (
	"github.com/recom-compiler/recom/dialects/shape/expr"
	"github.com/recom-compiler/recom/textir"
)

func verifySymbolName(op *textir.Operation) error {
	a := op.LookupAttr(SymbolAttr)
	if a == nil {
		return nil
	}
	s, _ := a.(textir.StringAttr)
	if s.Value == "" {
		return op.Errorf("attribute '%s' must not be empty", SymbolAttr)
	}
	if _, err := expr.NewTable().New(s.Value, expr.InputDim); err != nil {
		return op.Errorf("attribute '%s': %v", SymbolAttr, err)
	}
	return nil
}

func verifyDim(op *textir.Operation) error {
	if err := verifySymbolName(op); err != nil {
		return err
	}
	i := op.LookupAttr(IndexAttr).(textir.IntegerAttr).Value
	if i < 0 {
		return op.Errorf("dimension index %d is negative", i)
	}
	if tt, ok := op.Operand(0).Type().(*textir.TensorType); ok && i >= int64(len(tt.Shape)) {
		return op.Errorf("dimension index %d is out of range for a tensor of rank %d", i, len(tt.Shape))
	}
	return nil
}

// verifyMap checks the map of op against its count of index operands and,
// when want ≥ 0, its number of results.
func verifyMap(op *textir.Operation, operands, want int) (expr.Map, error) {
	m, err := OpMap(op)
	if err != nil {
		return expr.Map{}, op.Errorf("%v", err)
	}
	if len(m.Params) != operands {
		return expr.Map{}, op.Errorf("expression map has %d parameters, but the op has %d index operands", len(m.Params), operands)
	}
	if want >= 0 && len(m.Results) != want {
		return expr.Map{}, op.Errorf("expression map must have %d result(s), but has %d", want, len(m.Results))
	}
	return m, nil
}

func verifyApply(op *textir.Operation) error {
	_, err := verifyMap(op, op.NumOperands(), 1)
	return err
}

func verifyAssertShape(op *textir.Operation) error {
	t := op.Operand(0).Type()
	tt, ranked := t.(*textir.TensorType)
	if !ranked {
		_, err := verifyMap(op, op.NumOperands()-1, -1)
		return err
	}
	m, err := verifyMap(op, op.NumOperands()-1, len(tt.Shape))
	if err != nil {
		return err
	}
	for i, r := range m.Results {
		c, ok := r.IsConst()
		if !ok {
			continue
		}
		if c < 0 {
			return op.Errorf("asserted dim %d is %d, a negative size", i, c)
		}
		if d := tt.Shape[i]; d >= 0 && d != c {
			return op.Errorf("asserted dim %d is %d, but the tensor type %s has %d", i, c, t, d)
		}
	}
	return nil
}

func verifyFromExtents(op *textir.Operation) error {
	tt := op.Result(0).Type().(*textir.TensorType)
	if n := int64(op.NumOperands()); tt.Shape[0] != n {
		return op.Errorf("result type %s must have %d elements, one per operand", tt, n)
	}
	return nil
}

func verifyIndexCast(op *textir.Operation) error {
	in, out := op.Operand(0).Type(), op.Result(0).Type()
	if indexType.Pred(in) == indexType.Pred(out) {
		return op.Errorf("operand type '%s' and result type '%s' are cast incompatible: exactly one must be index", in, out)
	}
	return nil
}
