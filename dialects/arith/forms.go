package arith

import (
	"strconv"

	"github.com/recom-compiler/recom/textir"
)

// allAttrs merges properties (when a dictionary) and discardable attributes.
func allAttrs(op *textir.Operation) []textir.NamedAttribute {
	props, ok := op.Props().(textir.DictAttr)
	if !ok || len(props.Entries) == 0 {
		return op.Attrs()
	}
	return textir.NewDictAttr(append(append([]textir.NamedAttribute(nil), props.Entries...), op.Attrs()...)).Entries
}

// %c = arith.constant [{attrs}] 5 : i32
func printConstant(p *textir.OpPrinter, op *textir.Operation) {
	p.PrintOptionalAttrDict(allAttrs(op), "value")
	p.Print(" ")
	v := op.LookupAttr("value")
	if ia, ok := v.(textir.IntegerAttr); ok && ia.Type == textir.I1() {
		if ia.Value != 0 {
			p.Print("true")
		} else {
			p.Print("false")
		}
		return
	}
	p.PrintAttr(v)
}

func parseConstant(p *textir.OpParser, st *textir.OperationState) error {
	if err := p.ParseOptionalAttrDict(st); err != nil {
		return err
	}
	loc := p.Loc()
	a, err := p.ParseAttribute()
	if err != nil {
		return err
	}
	switch x := a.(type) {
	case textir.BoolAttr:
		v := int64(0)
		if x.Value {
			v = 1
		}
		a = textir.IntegerAttr{Value: v, Type: textir.I1()}
	case textir.IntegerAttr:
		if x.Type == nil {
			a = IntAttr(x.Value, textir.I64())
		}
	case textir.FloatAttr:
		if x.Type == nil {
			a = textir.FloatAttr{Value: x.Value, Type: textir.F64()}
		}
	case *textir.DenseElementsAttr:
	default:
		return textir.Errorf(loc, "expected an integer, float or dense constant")
	}
	st.AddAttr("value", a)
	st.ResultTypes = append(st.ResultTypes, attrType(a))
	return nil
}

// constantNames suggests MLIR's result names: %c5_i32, %c0 (index),
// %true, %false, %cst.
func constantNames(op *textir.Operation) []string {
	switch a := op.LookupAttr("value").(type) {
	case textir.IntegerAttr:
		if a.Type == textir.I1() {
			if a.Value != 0 {
				return []string{"true"}
			}
			return []string{"false"}
		}
		name := "c" + strconv.FormatInt(a.Value, 10)
		if _, isIndex := a.Type.(*textir.IndexType); !isIndex && a.Type != nil {
			name += "_" + a.Type.String()
		}
		return []string{name}
	}
	return []string{"cst"}
}

// %r = arith.addi %a, %b [{attrs}] : t
func printBinary(p *textir.OpPrinter, op *textir.Operation) {
	p.Print(" ")
	p.PrintOperands(op.Operands())
	p.PrintOptionalAttrDict(allAttrs(op))
	p.Print(" : ")
	p.PrintType(op.Result(0).Type())
}

func parseOperands(p *textir.OpParser, n int) ([]textir.UnresolvedOperand, error) {
	ops := make([]textir.UnresolvedOperand, 0, n)
	for i := range n {
		if i > 0 {
			if err := p.ParsePunct(","); err != nil {
				return nil, err
			}
		}
		o, err := p.ParseOperand()
		if err != nil {
			return nil, err
		}
		ops = append(ops, o)
	}
	return ops, nil
}

func parseBinary(p *textir.OpParser, st *textir.OperationState) error {
	ops, err := parseOperands(p, 2)
	if err != nil {
		return err
	}
	if err := p.ParseOptionalAttrDict(st); err != nil {
		return err
	}
	t, err := p.ParseColonType()
	if err != nil {
		return err
	}
	st.ResultTypes = append(st.ResultTypes, t)
	return p.ResolveOperands(ops, []textir.Type{t, t}, &st.Operands)
}

// %r = arith.cmpi slt, %a, %b [{attrs}] : t
func printCmpI(p *textir.OpPrinter, op *textir.Operation) {
	pa, ok := op.LookupAttr("predicate").(textir.IntegerAttr)
	if !ok || Predicate(pa.Value).String() == "<invalid predicate>" {
		panic("arith.cmpi without a valid predicate") // printed in the generic form
	}
	p.Print(" " + Predicate(pa.Value).String() + ", ")
	p.PrintOperands(op.Operands())
	p.PrintOptionalAttrDict(allAttrs(op), "predicate")
	p.Print(" : ")
	p.PrintType(op.Operand(0).Type())
}

func parseCmpI(p *textir.OpParser, st *textir.OperationState) error {
	pred := Predicate(-1)
	for i, n := range predicateNames {
		if p.ParseOptionalKeyword(n) {
			pred = Predicate(i)
			break
		}
	}
	if pred < 0 {
		return p.Errorf("expected a comparison predicate (eq, ne, slt, sle, sgt, sge, ult, ule, ugt, uge)")
	}
	if err := p.ParsePunct(","); err != nil {
		return err
	}
	ops, err := parseOperands(p, 2)
	if err != nil {
		return err
	}
	if err := p.ParseOptionalAttrDict(st); err != nil {
		return err
	}
	t, err := p.ParseColonType()
	if err != nil {
		return err
	}
	st.AddAttr("predicate", textir.I64Attr(int64(pred)))
	st.ResultTypes = append(st.ResultTypes, withElem(t, textir.I1()))
	return p.ResolveOperands(ops, []textir.Type{t, t}, &st.Operands)
}

// %r = arith.select %c, %a, %b [{attrs}] : [cond type,] t
func printSelect(p *textir.OpPrinter, op *textir.Operation) {
	p.Print(" ")
	p.PrintOperands(op.Operands())
	p.PrintOptionalAttrDict(allAttrs(op))
	p.Print(" : ")
	if ct := op.Operand(0).Type(); ct != textir.I1() {
		p.PrintType(ct)
		p.Print(", ")
	}
	p.PrintType(op.Result(0).Type())
}

func parseSelect(p *textir.OpParser, st *textir.OperationState) error {
	ops, err := parseOperands(p, 3)
	if err != nil {
		return err
	}
	if err := p.ParseOptionalAttrDict(st); err != nil {
		return err
	}
	loc := p.Loc()
	ts, err := p.ParseColonTypeList()
	if err != nil {
		return err
	}
	var ct, t textir.Type
	switch len(ts) {
	case 1:
		ct, t = textir.I1(), ts[0]
	case 2:
		ct, t = ts[0], ts[1]
	default:
		return textir.Errorf(loc, "expected one or two types (condition type, result type), but found %d", len(ts))
	}
	st.ResultTypes = append(st.ResultTypes, t)
	return p.ResolveOperands(ops, []textir.Type{ct, t, t}, &st.Operands)
}

// %r = arith.extsi %a [{attrs}] : i32 to i64
func printCast(p *textir.OpPrinter, op *textir.Operation) {
	p.Print(" ")
	p.PrintOperand(op.Operand(0))
	p.PrintOptionalAttrDict(allAttrs(op))
	p.Print(" : ")
	p.PrintType(op.Operand(0).Type())
	p.Print(" to ")
	p.PrintType(op.Result(0).Type())
}

func parseCast(p *textir.OpParser, st *textir.OperationState) error {
	o, err := p.ParseOperand()
	if err != nil {
		return err
	}
	if err := p.ParseOptionalAttrDict(st); err != nil {
		return err
	}
	in, err := p.ParseColonType()
	if err != nil {
		return err
	}
	if err := p.ParseKeyword("to"); err != nil {
		return err
	}
	out, err := p.ParseType()
	if err != nil {
		return err
	}
	st.ResultTypes = append(st.ResultTypes, out)
	return p.ResolveOperands([]textir.UnresolvedOperand{o}, []textir.Type{in}, &st.Operands)
}
