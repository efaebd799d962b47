package arith

import (
	"github.com/recom-compiler/recom/textir"
)

// ConstantValue returns the value attribute of v's defining op when that op
// is ConstantLike, else nil.
func ConstantValue(v *textir.Value) textir.Attribute {
	def := v.DefiningOp()
	if def == nil || !def.HasTrait(textir.ConstantLike) {
		return nil
	}
	return def.LookupAttr("value")
}

// Constant creates an arith.constant of value a (whose type is the result
// type) at b's insertion point.
func Constant(b *textir.Builder, loc textir.Location, a textir.Attribute) *textir.Operation {
	t := attrType(a)
	if t == nil {
		return nil
	}
	return b.Create(&textir.OperationState{Name: ConstantOp, Loc: loc, ResultTypes: []textir.Type{t},
		Attrs: []textir.NamedAttribute{{Name: "value", Value: a}}})
}

func attrType(a textir.Attribute) textir.Type {
	switch a := a.(type) {
	case textir.IntegerAttr:
		return a.Type
	case textir.FloatAttr:
		return a.Type
	case *textir.DenseElementsAttr:
		return a.Type
	}
	return nil
}

// materializeConstant builds an arith.constant producing attr as a value of
// type t (the dialect's MaterializeConstant hook).
func materializeConstant(b *textir.Builder, a textir.Attribute, t textir.Type, loc textir.Location) *textir.Operation {
	switch x := a.(type) {
	case textir.IntegerAttr:
		if !isSignlessIntOrIndex(t) {
			return nil
		}
		a = IntAttr(x.Value, t)
	case textir.BoolAttr:
		if t != textir.I1() {
			return nil
		}
		v := int64(0)
		if x.Value {
			v = 1
		}
		a = textir.IntegerAttr{Value: v, Type: t}
	case textir.FloatAttr:
		if !textir.IsFloat(t) {
			return nil
		}
		a = textir.FloatAttr{Value: RoundFloat(x.Value, t), Type: t}
	case *textir.DenseElementsAttr:
		if x.Type != t {
			return nil
		}
	default:
		return nil
	}
	return Constant(b, loc, a)
}

// constantToRight moves a constant left operand of a commutative op to the
// right, so that folders and patterns only look at the right operand.
func constantToRight(name string) textir.RewritePattern {
	return &textir.Pattern{RootName: name, PatternName: name + "-constant-to-right", Weight: 10,
		Fn: func(op *textir.Operation, rw textir.PatternRewriter) bool {
			l, r := op.Operand(0), op.Operand(1)
			if ConstantValue(l) == nil || ConstantValue(r) != nil {
				return false
			}
			rw.ModifyOpInPlace(op, func() { op.SetOperands([]*textir.Value{r, l}) })
			return true
		}}
}

// reassociate rewrites op(op(x, c1), c2) into op(x, c1 op c2) for scalar
// integer constants (op is addi or muli).
func reassociate(name string) textir.RewritePattern {
	combine := func(a, b int64) int64 { return a + b }
	if name == MulIOp {
		combine = func(a, b int64) int64 { return a * b }
	}
	return &textir.Pattern{RootName: name, PatternName: name + "-reassociate-constants", Weight: 1,
		Fn: func(op *textir.Operation, rw textir.PatternRewriter) bool {
			inner, c2 := splitConstant(op)
			if inner == nil {
				return false
			}
			in := inner.DefiningOp()
			if in == nil || in.Name() != name {
				return false
			}
			x, c1 := splitConstant(in)
			if x == nil {
				return false
			}
			t := op.Result(0).Type()
			b := rw.Builder()
			b.SetInsertionPoint(op)
			cst := Constant(b, op.Loc(), IntAttr(combine(c1, c2), t))
			if cst == nil {
				return false
			}
			n := rw.Create(&textir.OperationState{Name: name, Loc: op.Loc(),
				Operands: []*textir.Value{x, cst.Result(0)}, ResultTypes: []textir.Type{t}})
			rw.ReplaceOp(op, n.Results())
			return true
		}}
}

// splitConstant returns the non-constant operand of a binary op and the
// value of its scalar integer constant operand, or nil.
func splitConstant(op *textir.Operation) (*textir.Value, int64) {
	for i := range 2 {
		if c, ok := scalarInt(ConstantValue(op.Operand(1 - i))); ok {
			if ConstantValue(op.Operand(i)) != nil {
				return nil, 0 // both constant: the folder handles it
			}
			return op.Operand(i), c
		}
	}
	return nil, 0
}

// subOfAddPattern rewrites subi(addi(x, y), y) to x and subi(addi(x, y), x) to y.
func subOfAddPattern() textir.RewritePattern {
	return &textir.Pattern{RootName: SubIOp, PatternName: "arith.subi-of-addi", Weight: 1,
		Fn: func(op *textir.Operation, rw textir.PatternRewriter) bool {
			add := op.Operand(0).DefiningOp()
			if add == nil || add.Name() != AddIOp {
				return false
			}
			y := op.Operand(1)
			switch y {
			case add.Operand(1):
				rw.ReplaceOp(op, []*textir.Value{add.Operand(0)})
			case add.Operand(0):
				rw.ReplaceOp(op, []*textir.Value{add.Operand(1)})
			default:
				return false
			}
			return true
		}}
}

// addOfSubPattern rewrites addi(subi(x, y), y) and addi(y, subi(x, y)) to x.
func addOfSubPattern() textir.RewritePattern {
	return &textir.Pattern{RootName: AddIOp, PatternName: "arith.addi-of-subi", Weight: 1,
		Fn: func(op *textir.Operation, rw textir.PatternRewriter) bool {
			for i := range 2 {
				sub := op.Operand(i).DefiningOp()
				if sub != nil && sub.Name() == SubIOp && sub.Operand(1) == op.Operand(1-i) {
					rw.ReplaceOp(op, []*textir.Value{sub.Operand(0)})
					return true
				}
			}
			return false
		}}
}
