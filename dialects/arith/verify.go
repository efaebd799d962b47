package arith

import (
	"slices"

	"github.com/recom-compiler/recom/textir"
)

// Predicate is an arith.cmpi predicate, stored as an integer attribute.
type Predicate int64

// The cmpi predicates, numbered as in MLIR.
const (
	EQ Predicate = iota
	NE
	SLT
	SLE
	SGT
	SGE
	ULT
	ULE
	UGT
	UGE
)

var predicateNames = [...]string{"eq", "ne", "slt", "sle", "sgt", "sge", "ult", "ule", "ugt", "uge"}

func (p Predicate) String() string {
	if p < 0 || int(p) >= len(predicateNames) {
		return "<invalid predicate>"
	}
	return predicateNames[p]
}

// ParsePredicate returns the predicate with MLIR's name s.
func ParsePredicate(s string) (Predicate, bool) {
	i := slices.Index(predicateNames[:], s)
	return Predicate(i), i >= 0
}

// sameShape reports whether two types have the same shape: both scalars,
// ranked tensors of equal shape, or both unranked tensors.
func sameShape(a, b textir.Type) bool {
	switch a := a.(type) {
	case *textir.TensorType:
		bt, ok := b.(*textir.TensorType)
		return ok && slices.Equal(a.Shape, bt.Shape)
	case *textir.UnrankedTensorType:
		_, ok := b.(*textir.UnrankedTensorType)
		return ok
	}
	return textir.ElementType(b) == b
}

// withElem returns t with its element type replaced by e (scalars: e).
func withElem(t, e textir.Type) textir.Type {
	switch t := t.(type) {
	case *textir.TensorType:
		return textir.TensorOf(t.Shape, e)
	case *textir.UnrankedTensorType:
		return textir.UnrankedTensorOf(e)
	}
	return e
}

func verifySameOperandsAndResultType(op *textir.Operation) error {
	t := op.Result(0).Type()
	for _, v := range op.Operands() {
		if v.Type() != t {
			return op.Errorf("requires the same type for all operands and results")
		}
	}
	return nil
}

func verifyConstant(op *textir.Operation) error {
	t := op.Result(0).Type()
	var vt textir.Type
	switch a := op.LookupAttr("value").(type) {
	case textir.IntegerAttr:
		vt = a.Type
		if it, ok := t.(*textir.IntType); ok && it.Signedness != textir.Signless {
			return op.Errorf("integer return type must be signless")
		}
		if !textir.IsIntOrIndex(t) {
			return op.Errorf("value type %s must match return type: %s", typeName(vt), t)
		}
	case textir.FloatAttr:
		vt = a.Type
	case *textir.DenseElementsAttr:
		vt = a.Type
	default:
		return op.Errorf("value must be an integer, float, or elements attribute")
	}
	if vt != t {
		return op.Errorf("value type %s must match return type: %s", typeName(vt), t)
	}
	return nil
}

func typeName(t textir.Type) string {
	if t == nil {
		return "none"
	}
	return t.String()
}

func verifyCmpI(op *textir.Operation) error { return verifyCmp(op, predicateNames[:]) }

// verifyCmp verifies arith.cmpi and arith.cmpf, whose predicate numbers
// index names.
func verifyCmp(op *textir.Operation, names []string) error {
	p, _ := op.LookupAttr("predicate").(textir.IntegerAttr)
	if p.Value < 0 || p.Value >= int64(len(names)) {
		return op.Errorf("predicate attribute value %d is not a valid %s predicate", p.Value, op.Name())
	}
	lt := op.Operand(0).Type()
	if op.Operand(1).Type() != lt {
		return op.Errorf("requires all operands to have the same type")
	}
	if rt := op.Result(0).Type(); rt != withElem(lt, textir.I1()) {
		return op.Errorf("failed to verify that result type has i1 element type and same shape as operands (expected '%s', but got '%s')",
			withElem(lt, textir.I1()), rt)
	}
	return nil
}

func verifySelect(op *textir.Operation) error {
	t := op.Result(0).Type()
	if op.Operand(1).Type() != t || op.Operand(2).Type() != t {
		return op.Errorf("failed to verify that all of {true_value, false_value, result} have same type")
	}
	if ct := op.Operand(0).Type(); ct != textir.I1() && ct != withElem(t, textir.I1()) {
		return op.Errorf("failed to verify that condition is signless i1 or has matching shape")
	}
	return nil
}

func castIncompatible(op *textir.Operation) error {
	return op.Errorf("operand type '%s' and result type '%s' are cast incompatible", op.Operand(0).Type(), op.Result(0).Type())
}

func verifyCastShape(op *textir.Operation) error {
	if !sameShape(op.Operand(0).Type(), op.Result(0).Type()) {
		return op.Errorf("requires the same shape for all operands and results")
	}
	return nil
}

func verifyIndexCast(op *textir.Operation) error {
	if err := verifyCastShape(op); err != nil {
		return err
	}
	_, inIdx := textir.ElementType(op.Operand(0).Type()).(*textir.IndexType)
	_, outIdx := textir.ElementType(op.Result(0).Type()).(*textir.IndexType)
	if inIdx == outIdx {
		return castIncompatible(op)
	}
	return nil
}

func widths(op *textir.Operation) (int, int) {
	return textir.BitWidth(textir.ElementType(op.Operand(0).Type())), textir.BitWidth(textir.ElementType(op.Result(0).Type()))
}

func verifyExtSI(op *textir.Operation) error {
	if err := verifyCastShape(op); err != nil {
		return err
	}
	if in, out := widths(op); out <= in {
		return op.Errorf("result type '%s' must be wider than operand type '%s'", op.Result(0).Type(), op.Operand(0).Type())
	}
	return nil
}

func verifyTruncI(op *textir.Operation) error {
	if err := verifyCastShape(op); err != nil {
		return err
	}
	if in, out := widths(op); out >= in {
		return op.Errorf("result type '%s' must be shorter than operand type '%s'", op.Result(0).Type(), op.Operand(0).Type())
	}
	return nil
}

func verifySIToFP(op *textir.Operation) error { return verifyCastShape(op) }
