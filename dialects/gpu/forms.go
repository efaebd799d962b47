package gpu

import (
	"slices"

	"github.com/recom-compiler/recom/textir"
)

// The custom forms, as doc.go shows them. Attribute dictionaries print
// sorted; a load's or store's width prints without its i64 type
// ({width = 4}).

// forms prints the shared custom forms (textir/forms.go), with widths
// untyped.
var forms = textir.FormPrinter{UntypedInts: []string{"width"}}

func resolve(p *textir.OpParser, st *textir.OperationState, ops []textir.UnresolvedOperand, types ...textir.Type) error {
	return p.ResolveOperands(ops, types, &st.Operands)
}

// parseChoice reads one of the keywords choices and adds it as the string
// attribute name; what names the choices in the error.
func parseChoice(p *textir.OpParser, st *textir.OperationState, name string, choices []string, what string) error {
	i := slices.IndexFunc(choices, p.ParseOptionalKeyword)
	if i < 0 {
		return p.Errorf("expected %s", what)
	}
	st.AddAttr(name, textir.Str(choices[i]))
	return nil
}

// gpu.module @name [attributes {...}] { ... }
func printModule(p *textir.OpPrinter, op *textir.Operation) {
	name, _ := textir.SymbolName(op)
	p.Print(" ")
	p.PrintSymbolName(name)
	p.PrintOptionalAttrDictWithKeyword(textir.AllAttrs(op), "sym_name")
	p.Print(" ")
	p.PrintRegion(op.Region(0), false, false)
}

func parseModule(p *textir.OpParser, st *textir.OperationState) error {
	if _, err := textir.ParseSymbolNameAttr(p, st); err != nil {
		return err
	}
	if err := p.ParseOptionalAttrDictWithKeyword(st); err != nil {
		return err
	}
	r := &textir.Region{}
	st.Regions = append(st.Regions, r)
	if err := p.ParseRegion(r, nil); err != nil {
		return err
	}
	if r.Empty() {
		r.AppendBlock(textir.NewBlock())
	}
	return nil
}

// gpu.func @name(%a: t {attrs}, ...) [-> results] [kernel] [attributes {...}] { body }
func printFunc(p *textir.OpPrinter, op *textir.Operation) {
	ft := FuncType(op)
	body := op.Region(0).Front()
	textir.RequireCustom(ft != nil && body != nil && body.NumArgs() == len(ft.Inputs))
	name, _ := textir.SymbolName(op)
	p.Print(" ")
	p.PrintSymbolName(name)
	textir.PrintFunctionSignature(p, op, ft, false)
	if IsKernel(op) {
		p.Print(" kernel")
	}
	p.PrintOptionalAttrDictWithKeyword(textir.AllAttrs(op), "sym_name", "function_type", "kernel", "arg_attrs")
	p.Print(" ")
	p.PrintRegion(op.Region(0), false, true)
}

func parseFunc(p *textir.OpParser, st *textir.OperationState) error {
	name, err := textir.ParseSymbolNameAttr(p, st)
	if err != nil {
		return err
	}
	sig, err := textir.ParseFunctionSignature(p, false, func(loc textir.Location, args []textir.Argument) error {
		for _, a := range args {
			if a.Name == "" {
				return textir.Errorf(loc, "expected named arguments for @%s", name)
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	sig.AddAttrs(st)
	if p.ParseOptionalKeyword("kernel") {
		st.AddAttr("kernel", textir.UnitAttr{})
	}
	if err := p.ParseOptionalAttrDictWithKeyword(st); err != nil {
		return err
	}
	r := &textir.Region{}
	st.Regions = append(st.Regions, r)
	return p.ParseRegion(r, sig.Args)
}

// gpu.return / gpu.yield [{attrs}] [%a, %b : t1, t2]
func printTerminator(p *textir.OpPrinter, op *textir.Operation) { forms.PrintReturn(p, op) }

func parseTerminator(p *textir.OpParser, st *textir.OperationState) error {
	return textir.ParseReturnForm(p, st)
}

// gpu.call @f(%a, %b) [{attrs}] : (t1, t2) -> t3
func printCall(p *textir.OpPrinter, op *textir.Operation) { forms.PrintCall(p, op) }

func parseCall(p *textir.OpParser, st *textir.OperationState) error {
	return textir.ParseCallForm(p, st)
}

// gpu.thread_id x [{attrs}]
func printDimOp(p *textir.OpPrinter, op *textir.Operation) {
	d := Dimension(op)
	textir.RequireCustom(d == "x" || d == "y" || d == "z")
	p.Print(" " + d)
	forms.PrintAttrDict(p, textir.AllAttrs(op), "dimension")
}

func parseDimOp(p *textir.OpParser, st *textir.OperationState) error {
	if err := parseChoice(p, st, "dimension", []string{"x", "y", "z"}, "a dimension (x, y or z)"); err != nil {
		return err
	}
	st.ResultTypes = append(st.ResultTypes, textir.I32())
	return p.ParseOptionalAttrDict(st)
}

// gpu.lane_id [{attrs}], gpu.barrier [{attrs}]
func printNullary(p *textir.OpPrinter, op *textir.Operation) {
	forms.PrintAttrDict(p, textir.AllAttrs(op))
}

func parseNullary(result textir.Type) func(p *textir.OpParser, st *textir.OperationState) error {
	return func(p *textir.OpParser, st *textir.OperationState) error {
		if result != nil {
			st.ResultTypes = append(st.ResultTypes, result)
		}
		return p.ParseOptionalAttrDict(st)
	}
}

// gpu.shuffle xor %v, %offset, %width [{attrs}] : t
func printShuffle(p *textir.OpPrinter, op *textir.Operation) {
	m := ShuffleMode(op)
	textir.RequireCustom(m == "xor" || m == "down" || m == "up" || m == "idx")
	p.Print(" " + m + " ")
	p.PrintOperands(op.Operands())
	forms.PrintAttrDict(p, textir.AllAttrs(op), "mode")
	p.Print(" : ")
	p.PrintType(op.Result(0).Type())
}

func parseShuffle(p *textir.OpParser, st *textir.OperationState) error {
	if err := parseChoice(p, st, "mode", []string{"xor", "down", "up", "idx"}, "a shuffle mode (xor, down, up or idx)"); err != nil {
		return err
	}
	ops, err := textir.ParseOperands(p, 3)
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
	return resolve(p, st, ops, t, textir.I32(), textir.I32())
}

// %p[%i]
func printAccess(p *textir.OpPrinter, ptr, idx *textir.Value) {
	p.PrintOperand(ptr)
	p.Print("[")
	p.PrintOperand(idx)
	p.Print("]")
}

func parseAccess(p *textir.OpParser) (ptr, idx textir.UnresolvedOperand, err error) {
	if ptr, err = p.ParseOperand(); err != nil {
		return
	}
	if err = p.ParsePunct("["); err != nil {
		return
	}
	if idx, err = p.ParseOperand(); err != nil {
		return
	}
	err = p.ParsePunct("]")
	return
}

// %a, ... = gpu.load %p[%i] [{attrs}] : !gpu.ptr<T, s> -> T, ...
func printLoad(p *textir.OpPrinter, op *textir.Operation) {
	p.Print(" ")
	printAccess(p, op.Operand(0), op.Operand(1))
	forms.PrintAttrDict(p, textir.AllAttrs(op))
	p.Print(" : ")
	p.PrintType(op.Operand(0).Type())
	p.Print(" -> ")
	p.PrintTypes(op.ResultTypes())
}

func parseLoad(p *textir.OpParser, st *textir.OperationState) error {
	ptr, idx, err := parseAccess(p)
	if err != nil {
		return err
	}
	if err := p.ParseOptionalAttrDict(st); err != nil {
		return err
	}
	pt, err := p.ParseColonType()
	if err != nil {
		return err
	}
	if err := p.ParsePunct("->"); err != nil {
		return err
	}
	ts, err := p.ParseTypeList()
	if err != nil {
		return err
	}
	st.ResultTypes = append(st.ResultTypes, ts...)
	return resolve(p, st, []textir.UnresolvedOperand{ptr, idx}, pt, textir.I64())
}

// gpu.store %a, ..., %p[%i] [{attrs}] : T, ..., !gpu.ptr<T, s>
func printStore(p *textir.OpPrinter, op *textir.Operation) {
	p.Print(" ")
	vals := StoredValues(op)
	p.PrintOperands(vals)
	p.Print(", ")
	printAccess(p, MemPtr(op), MemIndex(op))
	forms.PrintAttrDict(p, textir.AllAttrs(op))
	p.Print(" : ")
	for _, v := range vals {
		p.PrintType(v.Type())
		p.Print(", ")
	}
	p.PrintType(MemPtr(op).Type())
}

func parseStore(p *textir.OpParser, st *textir.OperationState) error {
	ops, err := p.ParseOperandList()
	if err != nil {
		return err
	}
	if len(ops) < 2 {
		return p.Errorf("expected the stored values and a pointer")
	}
	if err := p.ParsePunct("["); err != nil {
		return err
	}
	idx, err := p.ParseOperand()
	if err != nil {
		return err
	}
	if err := p.ParsePunct("]"); err != nil {
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
	if len(ts) != len(ops) {
		return textir.Errorf(loc, "expected %d types (the values' and the pointer's), but found %d", len(ops), len(ts))
	}
	return resolve(p, st, append(ops, idx), append(ts, textir.I64())...)
}

// gpu.ptr_offset %p, %i [{attrs}] : !gpu.ptr<T, s>
func printPtrOffset(p *textir.OpPrinter, op *textir.Operation) { forms.PrintSameType(p, op) }

func parsePtrOffset(p *textir.OpParser, st *textir.OperationState) error {
	ops, t, err := textir.ParseResultTypeForm(p, st, 2)
	if err != nil {
		return err
	}
	return resolve(p, st, ops, t, textir.I64())
}

// gpu.ptr_cast %p [{attrs}] : !gpu.ptr<A, s> to !gpu.ptr<B, s>
func printPtrCast(p *textir.OpPrinter, op *textir.Operation) { forms.PrintCast(p, op, "to") }

func parsePtrCast(p *textir.OpParser, st *textir.OperationState) error {
	return textir.ParseCastForm(p, st, "to")
}

// gpu.shared_alloc {count = N : i64} : !gpu.ptr<T, shared>
func printSharedAlloc(p *textir.OpPrinter, op *textir.Operation) { forms.PrintSameType(p, op) }

func parseSharedAlloc(p *textir.OpParser, st *textir.OperationState) error {
	_, _, err := textir.ParseResultTypeForm(p, st, 0)
	return err
}

// gpu.atomic_add %p[%i], %v [{attrs}] : !gpu.ptr<T, s>, T
func printAtomicAdd(p *textir.OpPrinter, op *textir.Operation) {
	p.Print(" ")
	printAccess(p, op.Operand(0), op.Operand(1))
	p.Print(", ")
	p.PrintOperand(op.Operand(2))
	forms.PrintAttrDict(p, textir.AllAttrs(op))
	p.Print(" : ")
	p.PrintType(op.Operand(0).Type())
	p.Print(", ")
	p.PrintType(op.Operand(2).Type())
}

func parseAtomicAdd(p *textir.OpParser, st *textir.OperationState) error {
	ptr, idx, err := parseAccess(p)
	if err != nil {
		return err
	}
	if err := p.ParsePunct(","); err != nil {
		return err
	}
	v, err := p.ParseOperand()
	if err != nil {
		return err
	}
	if err := p.ParseOptionalAttrDict(st); err != nil {
		return err
	}
	pt, err := p.ParseColonType()
	if err != nil {
		return err
	}
	if err := p.ParsePunct(","); err != nil {
		return err
	}
	vt, err := p.ParseType()
	if err != nil {
		return err
	}
	st.ResultTypes = append(st.ResultTypes, vt)
	return resolve(p, st, []textir.UnresolvedOperand{ptr, idx, v}, pt, textir.I64(), vt)
}

// printResultList prints " -> (t1, t2)" (always parenthesised, as scf does),
// or nothing.
func printResultList(p *textir.OpPrinter, ts []textir.Type) {
	if len(ts) == 0 {
		return
	}
	p.Print(" -> (")
	p.PrintTypes(ts)
	p.Print(")")
}

// %r:n = gpu.for %i = %lb to %ub step %st [iter_args(%x = %x0, ...) -> (t, ...)] [: i32] { ... } [{attrs}]
func printFor(p *textir.OpPrinter, op *textir.Operation) {
	body := ForBody(op)
	textir.RequireCustom(body != nil && body.NumArgs() == op.NumOperands()-2)
	p.Print(" ")
	p.PrintOperand(body.Arg(0))
	p.Print(" = ")
	p.PrintOperand(op.Operand(0))
	p.Print(" to ")
	p.PrintOperand(op.Operand(1))
	p.Print(" step ")
	p.PrintOperand(op.Operand(2))
	if inits := ForInits(op); len(inits) > 0 {
		p.Print(" iter_args(")
		for i, v := range inits {
			if i > 0 {
				p.Print(", ")
			}
			p.PrintOperand(body.Arg(i + 1))
			p.Print(" = ")
			p.PrintOperand(v)
		}
		p.Print(")")
		printResultList(p, op.ResultTypes())
	}
	if t := op.Operand(0).Type(); t != textir.I64() {
		p.Print(" : ")
		p.PrintType(t)
	}
	p.Print(" ")
	p.PrintRegion(op.Region(0), false, true)
	forms.PrintAttrDict(p, textir.AllAttrs(op))
}

func parseFor(p *textir.OpParser, st *textir.OperationState) error {
	iv, err := p.ParseOperand()
	if err != nil {
		return err
	}
	if err := p.ParsePunct("="); err != nil {
		return err
	}
	lb, err := p.ParseOperand()
	if err != nil {
		return err
	}
	if err := p.ParseKeyword("to"); err != nil {
		return err
	}
	ub, err := p.ParseOperand()
	if err != nil {
		return err
	}
	if err := p.ParseKeyword("step"); err != nil {
		return err
	}
	step, err := p.ParseOperand()
	if err != nil {
		return err
	}
	var argNames, inits []textir.UnresolvedOperand
	var types []textir.Type
	if p.ParseOptionalKeyword("iter_args") {
		if err := p.ParsePunct("("); err != nil {
			return err
		}
		for {
			a, err := p.ParseOperand()
			if err != nil {
				return err
			}
			if err := p.ParsePunct("="); err != nil {
				return err
			}
			v, err := p.ParseOperand()
			if err != nil {
				return err
			}
			argNames, inits = append(argNames, a), append(inits, v)
			if !p.ParseOptionalPunct(",") {
				break
			}
		}
		if err := p.ParsePunct(")"); err != nil {
			return err
		}
		loc := p.Loc()
		if types, err = p.ParseOptionalArrowTypeList(); err != nil {
			return err
		}
		if len(types) != len(inits) {
			return textir.Errorf(loc, "expected %d result types (one per iter_arg), but found %d", len(inits), len(types))
		}
	}
	t := textir.I64()
	if p.ParseOptionalPunct(":") {
		if t, err = p.ParseType(); err != nil {
			return err
		}
	}
	if err := resolve(p, st, []textir.UnresolvedOperand{lb, ub, step}, t, t, t); err != nil {
		return err
	}
	if len(inits) > 0 {
		if err := resolve(p, st, inits, types...); err != nil {
			return err
		}
	}
	st.ResultTypes = append(st.ResultTypes, types...)
	args := []textir.Argument{{Name: iv.Name, Type: t, Loc: iv.Loc}}
	for i, a := range argNames {
		args = append(args, textir.Argument{Name: a.Name, Type: types[i], Loc: a.Loc})
	}
	r := &textir.Region{}
	st.Regions = append(st.Regions, r)
	if err := p.ParseRegion(r, args); err != nil {
		return err
	}
	return p.ParseOptionalAttrDict(st)
}

// %r = gpu.if %c [-> (t, ...)] { ... } [else { ... }] [{attrs}]
func printIf(p *textir.OpPrinter, op *textir.Operation) {
	p.Print(" ")
	p.PrintOperand(op.Operand(0))
	printResultList(p, op.ResultTypes())
	p.Print(" ")
	p.PrintRegion(op.Region(0), false, true)
	if !op.Region(1).Empty() {
		p.Print(" else ")
		p.PrintRegion(op.Region(1), false, true)
	}
	forms.PrintAttrDict(p, textir.AllAttrs(op))
}

func parseIf(p *textir.OpParser, st *textir.OperationState) error {
	c, err := p.ParseOperand()
	if err != nil {
		return err
	}
	if err := resolve(p, st, []textir.UnresolvedOperand{c}, textir.I1()); err != nil {
		return err
	}
	ts, err := p.ParseOptionalArrowTypeList()
	if err != nil {
		return err
	}
	st.ResultTypes = append(st.ResultTypes, ts...)
	then, els := &textir.Region{}, &textir.Region{}
	st.Regions = append(st.Regions, then, els)
	if err := p.ParseRegion(then, nil); err != nil {
		return err
	}
	if p.ParseOptionalKeyword("else") {
		if err := p.ParseRegion(els, nil); err != nil {
			return err
		}
	}
	return p.ParseOptionalAttrDict(st)
}

// %r = gpu.sqrt %a [{attrs}] : t (likewise min, max with two operands, fma with three)
func printMath(p *textir.OpPrinter, op *textir.Operation) { forms.PrintSameType(p, op) }

func parseMath(p *textir.OpParser, st *textir.OperationState) error {
	return textir.ParseSameTypeForm(p, st, -1)
}

// gpu.launch @m::@k blocks(%g) threads(%b) [args(%a, ...)] [{attrs}] [: t, ...]
func printLaunch(p *textir.OpPrinter, op *textir.Operation) {
	ref, ok := op.LookupAttr("kernel").(textir.SymbolRefAttr)
	textir.RequireCustom(ok)
	p.Print(" ")
	p.PrintAttr(ref)
	p.Print(" blocks(")
	p.PrintOperand(op.Operand(0))
	p.Print(") threads(")
	p.PrintOperand(op.Operand(1))
	p.Print(")")
	args := LaunchArgs(op)
	if len(args) > 0 {
		p.Print(" args(")
		p.PrintOperands(args)
		p.Print(")")
	}
	forms.PrintAttrDict(p, textir.AllAttrs(op), "kernel")
	if len(args) > 0 {
		p.Print(" : ")
		for i, v := range args {
			if i > 0 {
				p.Print(", ")
			}
			p.PrintType(v.Type())
		}
	}
}

func parseLaunch(p *textir.OpParser, st *textir.OperationState) error {
	loc := p.Loc()
	a, err := p.ParseAttribute()
	if err != nil {
		return err
	}
	ref, ok := a.(textir.SymbolRefAttr)
	if !ok {
		return textir.Errorf(loc, "expected a kernel symbol reference (@module::@kernel)")
	}
	st.AddAttr("kernel", ref)
	paren := func(kw string) ([]textir.UnresolvedOperand, error) {
		if err := p.ParseKeyword(kw); err != nil {
			return nil, err
		}
		if err := p.ParsePunct("("); err != nil {
			return nil, err
		}
		ops, err := p.ParseOperandList()
		if err != nil {
			return nil, err
		}
		return ops, p.ParsePunct(")")
	}
	grid, err := paren("blocks")
	if err != nil {
		return err
	}
	block, err := paren("threads")
	if err != nil {
		return err
	}
	if len(grid) != 1 || len(block) != 1 {
		return p.Errorf("expected one grid size and one block size")
	}
	var args []textir.UnresolvedOperand
	if p.ParseOptionalKeyword("args") {
		if err := p.ParsePunct("("); err != nil {
			return err
		}
		if args, err = p.ParseOperandList(); err != nil {
			return err
		}
		if err := p.ParsePunct(")"); err != nil {
			return err
		}
	}
	if err := p.ParseOptionalAttrDict(st); err != nil {
		return err
	}
	if err := resolve(p, st, append(grid, block...), textir.I64(), textir.I64()); err != nil {
		return err
	}
	if len(args) == 0 {
		return nil
	}
	tloc := p.Loc()
	ts, err := p.ParseColonTypeList()
	if err != nil {
		return err
	}
	if len(ts) != len(args) {
		return textir.Errorf(tloc, "%d arguments present, but %d types", len(args), len(ts))
	}
	return resolve(p, st, args, ts...)
}

// gpu.buffer_view %buf[%off] [{attrs}] : !gpu.buffer -> !gpu.buffer
func printBufferView(p *textir.OpPrinter, op *textir.Operation) {
	p.Print(" ")
	printAccess(p, op.Operand(0), op.Operand(1))
	forms.PrintAttrDict(p, textir.AllAttrs(op))
	p.Print(" : ")
	p.PrintType(op.Operand(0).Type())
	p.Print(" -> ")
	p.PrintType(op.Result(0).Type())
}

func parseBufferView(p *textir.OpParser, st *textir.OperationState) error {
	buf, off, err := parseAccess(p)
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
	if err := p.ParsePunct("->"); err != nil {
		return err
	}
	out, err := p.ParseType()
	if err != nil {
		return err
	}
	st.ResultTypes = append(st.ResultTypes, out)
	return resolve(p, st, []textir.UnresolvedOperand{buf, off}, in, textir.I64())
}

// gpu.alloc %bytes [{attrs}] : !gpu.buffer
func printAlloc(p *textir.OpPrinter, op *textir.Operation) { forms.PrintSameType(p, op) }

func parseAlloc(p *textir.OpParser, st *textir.OperationState) error {
	ops, _, err := textir.ParseResultTypeForm(p, st, 1)
	if err != nil {
		return err
	}
	return resolve(p, st, ops, textir.I64())
}
