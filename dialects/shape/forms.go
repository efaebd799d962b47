package shape

import (
	"github.com/recom-compiler/recom/textir"
)

// The custom forms (see the package documentation for examples). A custom
// printer gives up (textir.RequireCustom) on an op its form cannot express
// (an invalid op); the printer then uses the generic form.

// forms prints the shared custom forms (textir/forms.go).
var forms textir.FormPrinter

// symbolResultName names a bound symbol's value after the symbol.
func symbolResultName(op *textir.Operation) []string {
	if s, ok := op.LookupAttr(SymbolAttr).(textir.StringAttr); ok && s.Value != "" {
		return []string{s.Value}
	}
	return nil
}

// parseOptionalArrowIndex reads an optional "-> index".
func parseOptionalArrowIndex(p *textir.OpParser) error {
	loc := p.Loc()
	ts, err := p.ParseOptionalArrowTypeList()
	if err != nil {
		return err
	}
	if ts != nil && (len(ts) != 1 || ts[0] != textir.Index()) {
		return textir.Errorf(loc, "expected '-> index'")
	}
	return nil
}

// %b = shape.dim %x, 0 {symbol = "batch"} : tensor<?x1xi64> -> index
func printDim(p *textir.OpPrinter, op *textir.Operation) {
	i, ok := op.LookupAttr(IndexAttr).(textir.IntegerAttr)
	textir.RequireCustom(ok && i.Type == textir.I64())
	p.Print(" ")
	p.PrintOperand(op.Operand(0))
	p.Print(", ")
	p.PrintAttrWithoutType(i)
	printIndexResult(p, op, IndexAttr)
}

func parseDim(p *textir.OpParser, st *textir.OperationState) error {
	x, err := p.ParseOperand()
	if err != nil {
		return err
	}
	if err := p.ParsePunct(","); err != nil {
		return err
	}
	i, err := p.ParseInteger()
	if err != nil {
		return err
	}
	st.AddAttr(IndexAttr, textir.I64Attr(i))
	return parseIndexResult(p, st, x)
}

// %n = shape.count %v {symbol = "nnz.age"} : tensor<?xi64> -> index
func printCount(p *textir.OpPrinter, op *textir.Operation) {
	p.Print(" ")
	p.PrintOperand(op.Operand(0))
	printIndexResult(p, op)
}

func parseCount(p *textir.OpParser, st *textir.OperationState) error {
	x, err := p.ParseOperand()
	if err != nil {
		return err
	}
	return parseIndexResult(p, st, x)
}

// printIndexResult writes the end of shape.dim and shape.count:
// " {attrs} : T -> index", T the type of operand 0.
func printIndexResult(p *textir.OpPrinter, op *textir.Operation, elided ...string) {
	p.PrintOptionalAttrDict(textir.AllAttrs(op), elided...)
	p.Print(" : ")
	p.PrintType(op.Operand(0).Type())
	p.Print(" -> index")
}

// parseIndexResult reads "{attrs} : T [-> index]", the rest of shape.dim
// and shape.count after their operand x, of type T.
func parseIndexResult(p *textir.OpParser, st *textir.OperationState, x textir.UnresolvedOperand) error {
	if err := p.ParseOptionalAttrDict(st); err != nil {
		return err
	}
	t, err := p.ParseColonType()
	if err != nil {
		return err
	}
	if err := parseOptionalArrowIndex(p); err != nil {
		return err
	}
	st.ResultTypes = append(st.ResultTypes, textir.Index())
	return p.ResolveOperands([]textir.UnresolvedOperand{x}, []textir.Type{t}, &st.Operands)
}

// printMapOperands writes " #shape.expr<...>(%a, %b)".
func printMapOperands(p *textir.OpPrinter, op *textir.Operation, operands []*textir.Value) {
	a := op.LookupAttr(MapAttr)
	_, err := ParseExprAttr(a)
	textir.RequireCustom(err == nil)
	p.Print(" ")
	p.PrintAttr(a)
	p.Print("(")
	p.PrintOperands(operands)
	p.Print(")")
}

// parseMapOperands reads "#shape.expr<...>(%a, %b)" and checks the map.
func parseMapOperands(p *textir.OpParser, st *textir.OperationState) ([]textir.UnresolvedOperand, error) {
	loc := p.Loc()
	a, err := p.ParseAttribute()
	if err != nil {
		return nil, err
	}
	m, err := ParseExprAttr(a)
	if err != nil {
		return nil, textir.Errorf(loc, "%v", err)
	}
	// The custom form stores the map's canonical text (as MLIR simplifies
	// affine maps when it parses them); the generic form keeps it verbatim.
	st.AddAttr(MapAttr, ExprAttr(m))
	if err := p.ParsePunct("("); err != nil {
		return nil, err
	}
	ops, err := p.ParseOperandList()
	if err != nil {
		return nil, err
	}
	if err := p.ParsePunct(")"); err != nil {
		return nil, err
	}
	return ops, nil
}

// %e = shape.apply #shape.expr<(b) -> b * 8>(%b) : index
func printApply(p *textir.OpPrinter, op *textir.Operation) {
	printMapOperands(p, op, op.Operands())
	p.PrintOptionalAttrDict(textir.AllAttrs(op), MapAttr)
	p.Print(" : index")
}

func parseApply(p *textir.OpParser, st *textir.OperationState) error {
	ops, err := parseMapOperands(p, st)
	if err != nil {
		return err
	}
	if err := p.ParseOptionalAttrDict(st); err != nil {
		return err
	}
	if p.ParseOptionalPunct(":") {
		loc := p.Loc()
		t, err := p.ParseType()
		if err != nil {
			return err
		}
		if t != textir.Index() {
			return textir.Errorf(loc, "expected 'index', found '%s'", t)
		}
	}
	st.ResultTypes = append(st.ResultTypes, textir.Index())
	return p.ResolveOperands(ops, index(len(ops)), &st.Operands)
}

func index(n int) []textir.Type {
	ts := make([]textir.Type, n)
	for i := range ts {
		ts[i] = textir.Index()
	}
	return ts
}

// shape.assert_shape %y, #shape.expr<(b) -> (b, 8)>(%b) : tensor<?x8xf32>
func printAssertShape(p *textir.OpPrinter, op *textir.Operation) {
	p.Print(" ")
	p.PrintOperand(op.Operand(0))
	p.Print(",")
	printMapOperands(p, op, op.Operands()[1:])
	p.PrintOptionalAttrDict(textir.AllAttrs(op), MapAttr)
	p.Print(" : ")
	p.PrintType(op.Operand(0).Type())
}

func parseAssertShape(p *textir.OpParser, st *textir.OperationState) error {
	x, err := p.ParseOperand()
	if err != nil {
		return err
	}
	if err := p.ParsePunct(","); err != nil {
		return err
	}
	ops, err := parseMapOperands(p, st)
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
	if err := p.ResolveOperands([]textir.UnresolvedOperand{x}, []textir.Type{t}, &st.Operands); err != nil {
		return err
	}
	return p.ResolveOperands(ops, index(len(ops)), &st.Operands)
}

// %s = shape.from_extents %a, %b : tensor<2xi64>
func printFromExtents(p *textir.OpPrinter, op *textir.Operation) { forms.PrintSameType(p, op) }

func parseFromExtents(p *textir.OpParser, st *textir.OperationState) error {
	ops, _, err := textir.ParseResultTypeForm(p, st, -1)
	if err != nil || len(ops) == 0 {
		return err
	}
	return p.ResolveOperands(ops, index(len(ops)), &st.Operands)
}

// %t = shape.index_cast %e : index to tensor<i32>
func printIndexCast(p *textir.OpPrinter, op *textir.Operation) { forms.PrintCast(p, op, "to") }

func parseIndexCast(p *textir.OpParser, st *textir.OperationState) error {
	return textir.ParseCastForm(p, st, "to")
}
