package arith

import (
	"slices"
	"strconv"
	"strings"

	"github.com/recom-compiler/recom/textir"
)

// forms prints the shared custom forms (textir/forms.go).
var forms textir.FormPrinter

// %r = arith.addi %a, %b [{attrs}] : t
func printBinary(p *textir.OpPrinter, op *textir.Operation) { forms.PrintSameType(p, op) }

func parseBinary(p *textir.OpParser, st *textir.OperationState) error {
	return textir.ParseSameTypeForm(p, st, 2)
}

// %r = arith.negf %a [{attrs}] : t
func printUnary(p *textir.OpPrinter, op *textir.Operation) { forms.PrintSameType(p, op) }

func parseUnary(p *textir.OpParser, st *textir.OperationState) error {
	return textir.ParseSameTypeForm(p, st, 1)
}

// %r = arith.extsi %a [{attrs}] : i32 to i64
func printCast(p *textir.OpPrinter, op *textir.Operation) { forms.PrintCast(p, op, "to") }

func parseCast(p *textir.OpParser, st *textir.OperationState) error {
	return textir.ParseCastForm(p, st, "to")
}

// %c = arith.constant [{attrs}] 5 : i32
func printConstant(p *textir.OpPrinter, op *textir.Operation) {
	p.PrintOptionalAttrDict(textir.AllAttrs(op), "value")
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

// %r = arith.cmpi slt, %a, %b [{attrs}] : t
func printCmpI(p *textir.OpPrinter, op *textir.Operation) { printCmp(p, op, predicateNames[:]) }

func parseCmpI(p *textir.OpParser, st *textir.OperationState) error {
	return parseCmp(p, st, predicateNames[:])
}

// printCmp prints the form of arith.cmpi and arith.cmpf, whose predicate
// attribute indexes names; an invalid predicate prints in the generic form.
func printCmp(p *textir.OpPrinter, op *textir.Operation, names []string) {
	pa, ok := op.LookupAttr("predicate").(textir.IntegerAttr)
	textir.RequireCustom(ok && pa.Value >= 0 && pa.Value < int64(len(names)))
	p.Print(" " + names[pa.Value] + ", ")
	p.PrintOperands(op.Operands())
	p.PrintOptionalAttrDict(textir.AllAttrs(op), "predicate")
	p.Print(" : ")
	p.PrintType(op.Operand(0).Type())
}

func parseCmp(p *textir.OpParser, st *textir.OperationState, names []string) error {
	pred := slices.IndexFunc(names, p.ParseOptionalKeyword)
	if pred < 0 {
		return p.Errorf("expected a comparison predicate (%s)", strings.Join(names, ", "))
	}
	if err := p.ParsePunct(","); err != nil {
		return err
	}
	ops, t, err := textir.ParseResultTypeForm(p, st, 2)
	if err != nil {
		return err
	}
	st.AddAttr("predicate", textir.I64Attr(int64(pred)))
	st.ResultTypes[len(st.ResultTypes)-1] = withElem(t, textir.I1())
	return p.ResolveOperands(ops, []textir.Type{t, t}, &st.Operands)
}

// %r = arith.select %c, %a, %b [{attrs}] : [cond type,] t
func printSelect(p *textir.OpPrinter, op *textir.Operation) {
	p.Print(" ")
	p.PrintOperands(op.Operands())
	p.PrintOptionalAttrDict(textir.AllAttrs(op))
	p.Print(" : ")
	if ct := op.Operand(0).Type(); ct != textir.I1() {
		p.PrintType(ct)
		p.Print(", ")
	}
	p.PrintType(op.Result(0).Type())
}

func parseSelect(p *textir.OpParser, st *textir.OperationState) error {
	ops, err := textir.ParseOperands(p, 3)
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
