package emb

import (
	"github.com/recom-compiler/recom/textir"
)

// The custom forms. Row splits are always tensor<?xi64> and never printed;
// the other operand types are, and result types where they do not follow
// from the operands:
//
//	%values, %splits = emb.from_dense %x {ignore = -1 : i64} : tensor<?x1xi64> -> tensor<?xi64>
//	%values, %splits = emb.from_sparse %i, %v, %shape : tensor<?x2xi64>, tensor<?xi64>, tensor<2xi64> -> tensor<?xi64>
//	%values, %splits = emb.split_strings %x {sep = ";"} : tensor<?x!tfg.string> -> tensor<?x!tfg.string>
//	%h = emb.hash %v {num_buckets = 100 : i64} : tensor<?x!tfg.string> -> tensor<?xi64>
//	%o = emb.add_offset %v, %splits {stride = 101 : i64} : tensor<?xi64>
//	%values, %splits, %weights = emb.filter %v, %s, %w {min = 0 : i64} : tensor<?xi64>, tensor<?xf32>
//	%t = emb.table {name = "w"} : tensor<100x8xf32>
//	%r = emb.lookup %t, %v, %s {combiner = "mean"} : tensor<100x8xf32>, tensor<?xi64> -> tensor<?x8xf32>
//	%r = emb.gather %t, %ids : tensor<100x8xf32>, tensor<?xi64> -> tensor<?x8xf32>
//	%r = emb.concat %a, %b : (tensor<?x8xf32>, tensor<?x4xf32>) -> tensor<?x12xf32>
//
// A custom printer gives up (textir.RequireCustom) on an op its form
// cannot express (an invalid op, such as row splits of another type); the
// printer then uses the generic form.

// forms prints the shared custom forms (textir/forms.go).
var forms textir.FormPrinter

// raggedNames names the results of ops that make ragged values.
func raggedNames(op *textir.Operation) []string {
	names := []string{"values", "splits", "weights"}
	if op.NumResults() > len(names) {
		return nil
	}
	return names[:op.NumResults()]
}

func parseOperands(p *textir.OpParser) ([]textir.UnresolvedOperand, error) {
	ops, err := p.ParseOperandList()
	if err != nil {
		return nil, err
	}
	if len(ops) == 0 {
		return nil, p.Errorf("expected an operand")
	}
	return ops, nil
}

func printOperandsAndAttrs(p *textir.OpPrinter, op *textir.Operation) {
	p.Print(" ")
	p.PrintOperands(op.Operands())
	p.PrintOptionalAttrDict(textir.AllAttrs(op))
}

// parseColonTypes reads "{attrs} : t1, t2" and returns the types with the
// position of the first.
func parseColonTypes(p *textir.OpParser, st *textir.OperationState) (textir.Location, []textir.Type, error) {
	if err := p.ParseOptionalAttrDict(st); err != nil {
		return nil, nil, err
	}
	loc := p.Loc()
	ts, err := p.ParseColonTypeList()
	return loc, ts, err
}

// sources: %values, %splits = op operands {attrs} : operand types -> values type
func printSource(p *textir.OpPrinter, op *textir.Operation) {
	textir.RequireCustom(op.NumResults() == 2 && op.Result(1).Type() == SplitsType())
	printOperandsAndAttrs(p, op)
	p.Print(" : ")
	p.PrintTypes(op.OperandTypes())
	p.Print(" -> ")
	p.PrintType(op.Result(0).Type())
}

func parseSource(n int) func(p *textir.OpParser, st *textir.OperationState) error {
	return func(p *textir.OpParser, st *textir.OperationState) error {
		ops, err := parseOperands(p)
		if err != nil {
			return err
		}
		if len(ops) != n {
			return textir.Errorf(ops[0].Loc, "expected %d operands, but found %d", n, len(ops))
		}
		loc, ts, err := parseColonTypes(p, st)
		if err != nil {
			return err
		}
		if len(ts) != n {
			return textir.Errorf(loc, "expected %d operand types, but found %d", n, len(ts))
		}
		if err := p.ParsePunct("->"); err != nil {
			return err
		}
		vt, err := p.ParseType()
		if err != nil {
			return err
		}
		st.ResultTypes = append(st.ResultTypes, vt, SplitsType())
		return p.ResolveOperands(ops, ts, &st.Operands)
	}
}

// transforms: %r = op %v {attrs} : in -> out
func printTransform(p *textir.OpPrinter, op *textir.Operation) { forms.PrintCast(p, op, "->") }

func parseTransform(p *textir.OpParser, st *textir.OperationState) error {
	return textir.ParseCastForm(p, st, "->")
}

// %r = emb.add_offset %v, %splits {stride = S} : values type
func printAddOffset(p *textir.OpPrinter, op *textir.Operation) {
	textir.RequireCustom(op.NumOperands() == 2 && op.Operand(1).Type() == SplitsType() && op.Result(0).Type() == op.Operand(0).Type())
	forms.PrintSameType(p, op)
}

func parseAddOffset(p *textir.OpParser, st *textir.OperationState) error {
	ops, err := parseOperands(p)
	if err != nil {
		return err
	}
	if len(ops) != 2 {
		return textir.Errorf(ops[0].Loc, "expected 2 operands (values, row splits), but found %d", len(ops))
	}
	if err := p.ParseOptionalAttrDict(st); err != nil {
		return err
	}
	t, err := p.ParseColonType()
	if err != nil {
		return err
	}
	st.ResultTypes = append(st.ResultTypes, t)
	return p.ResolveOperands(ops, []textir.Type{t, SplitsType()}, &st.Operands)
}

// %values, %splits[, %weights] = emb.filter %v, %s[, %w] {attrs} : values type[, weights type]
func printFilter(p *textir.OpPrinter, op *textir.Operation) {
	n := op.NumOperands()
	textir.RequireCustom((n == 2 || n == 3) && op.NumResults() == n && op.Operand(1).Type() == SplitsType())
	for i := range n {
		textir.RequireCustom(op.Result(i).Type() == op.Operand(i).Type())
	}
	printOperandsAndAttrs(p, op)
	p.Print(" : ")
	p.PrintType(op.Operand(0).Type())
	if n == 3 {
		p.Print(", ")
		p.PrintType(op.Operand(2).Type())
	}
}

func parseFilter(p *textir.OpParser, st *textir.OperationState) error {
	ops, err := parseOperands(p)
	if err != nil {
		return err
	}
	if len(ops) != 2 && len(ops) != 3 {
		return textir.Errorf(ops[0].Loc, "expected 2 or 3 operands (values, row splits[, weights]), but found %d", len(ops))
	}
	loc, ts, err := parseColonTypes(p, st)
	if err != nil {
		return err
	}
	if len(ts) != len(ops)-1 {
		return textir.Errorf(loc, "expected %d types (values[, weights]), but found %d", len(ops)-1, len(ts))
	}
	types := []textir.Type{ts[0], SplitsType()}
	if len(ts) == 2 {
		types = append(types, ts[1])
	}
	st.ResultTypes = append(st.ResultTypes, types...)
	return p.ResolveOperands(ops, types, &st.Operands)
}

// %t = emb.table {name = "...", value = dense<...>} : type
func printTable(p *textir.OpPrinter, op *textir.Operation) { forms.PrintSameType(p, op) }

func parseTable(p *textir.OpParser, st *textir.OperationState) error {
	_, _, err := textir.ParseResultTypeForm(p, st, 0)
	return err
}

// usesSplits reports whether operand 2 of a lookup-like op is row splits.
func usesSplits(name string) bool { return name == LookupOp || name == GatherScatterOp }

// %r = emb.lookup %t, %v, %s[, %w] {attrs} : table type, values type[, weights type] -> result type
// %r = emb.gather %t, %ids {attrs} : table type, ids type -> result type
func printLookup(p *textir.OpPrinter, op *textir.Operation) {
	ts := op.OperandTypes()
	if usesSplits(op.Name()) {
		textir.RequireCustom(len(ts) >= 3 && ts[2] == SplitsType())
		ts = append(ts[:2:2], ts[3:]...)
	}
	printOperandsAndAttrs(p, op)
	p.Print(" : ")
	p.PrintTypes(ts)
	p.Print(" -> ")
	p.PrintType(op.Result(0).Type())
}

func parseLookup(p *textir.OpParser, st *textir.OperationState) error {
	ops, err := parseOperands(p)
	if err != nil {
		return err
	}
	loc, ts, err := parseColonTypes(p, st)
	if err != nil {
		return err
	}
	if usesSplits(st.Name) {
		if len(ops) != 3 && len(ops) != 4 {
			return textir.Errorf(ops[0].Loc, "expected 3 or 4 operands (table, values, row splits[, weights]), but found %d", len(ops))
		}
		if len(ts) != len(ops)-1 {
			return textir.Errorf(loc, "expected %d types (table, values[, weights]), but found %d", len(ops)-1, len(ts))
		}
		ts = append(ts[:2:2], append([]textir.Type{SplitsType()}, ts[2:]...)...)
	} else if len(ts) != len(ops) {
		return textir.Errorf(loc, "expected %d types, but found %d", len(ops), len(ts))
	}
	if err := p.ParsePunct("->"); err != nil {
		return err
	}
	rt, err := p.ParseType()
	if err != nil {
		return err
	}
	st.ResultTypes = append(st.ResultTypes, rt)
	return p.ResolveOperands(ops, ts, &st.Operands)
}

// %r = emb.concat %a, %b {attrs} : (ta, tb) -> result type
func printConcat(p *textir.OpPrinter, op *textir.Operation) {
	printOperandsAndAttrs(p, op)
	p.Print(" : ")
	p.PrintFunctionalType(op)
}

func parseConcat(p *textir.OpParser, st *textir.OperationState) error {
	ops, err := parseOperands(p)
	if err != nil {
		return err
	}
	if err := p.ParseOptionalAttrDict(st); err != nil {
		return err
	}
	if err := p.ParsePunct(":"); err != nil {
		return err
	}
	loc := p.Loc()
	ins, outs, err := p.ParseFunctionalType()
	if err != nil {
		return err
	}
	if len(ins) != len(ops) {
		return textir.Errorf(loc, "expected %d operand types, but found %d", len(ops), len(ins))
	}
	st.ResultTypes = append(st.ResultTypes, outs...)
	return p.ResolveOperands(ops, ins, &st.Operands)
}
