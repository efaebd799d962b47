package textir

// This file holds the custom forms that several dialects share, written
// once: what MLIR's declarative assembly formats give its dialects, as
// plain functions. Each printer writes what its parser reads.
//
//	cast:        %r = op %x {attrs} : T to U        (or : T -> U)
//	same type:   %r = op %a, %b {attrs} : T         (operand types follow from T)
//	return-like: op {attrs} %a, %b : T1, T2
//	call:        %r = op @f(%a, %b) {attrs} : (T1, T2) -> R
//	function:    @name(%a: T {attrs}, ...) -> (R {attrs}, ...)
//
// The printers are methods of FormPrinter, which says how attribute
// dictionaries print; the parsers are functions.

// notCustom is the panic value of RequireCustom.
type notCustom struct{}

// RequireCustom makes a custom printer give up unless ok: the printer
// recovers and prints the op in the generic form instead. Use it for ops
// the custom form cannot express (invalid ones) before writing anything.
func RequireCustom(ok bool) {
	if !ok {
		panic(notCustom{})
	}
}

// AllAttrs returns op's properties (when they are a dictionary) and its
// discardable attributes as one list sorted by name, for custom forms that
// print them in one dictionary.
func AllAttrs(op *Operation) []NamedAttribute {
	props, ok := op.Props().(DictAttr)
	if !ok || len(props.Entries) == 0 {
		return op.Attrs()
	}
	return NewDictAttr(append(append([]NamedAttribute(nil), props.Entries...), op.Attrs()...)).Entries
}

// FormPrinter prints the shared custom forms. Its zero value prints
// attribute dictionaries as OpPrinter.PrintOptionalAttrDict does.
type FormPrinter struct {
	// UntypedInts names attributes whose i64 integer values print without
	// ": i64" ({width = 4}); they read back as i64, the default.
	UntypedInts []string
}

// PrintAttrDict writes " {a = 1, b}" for the attributes not elided, or
// nothing.
func (f FormPrinter) PrintAttrDict(p *OpPrinter, attrs []NamedAttribute, elided ...string) {
	if len(f.UntypedInts) == 0 {
		p.PrintOptionalAttrDict(attrs, elided...)
		return
	}
	q := p.impl
	first := true
	for _, a := range attrs {
		if isElided(a.Name, elided) {
			continue
		}
		if first {
			q.buf = append(q.buf, " {"...)
			first = false
		} else {
			q.buf = append(q.buf, ", "...)
		}
		ia, isInt := a.Value.(IntegerAttr)
		if !isInt || ia.Type != I64() || !isElided(a.Name, f.UntypedInts) {
			q.appendNamedAttr(a)
			continue
		}
		q.appendKeywordOrString(a.Name)
		q.buf = append(q.buf, " = "...)
		q.appendAttrElide(ia, true)
	}
	if !first {
		q.buf = append(q.buf, '}')
	}
}

// PrintCast writes " %x {attrs} : T sep U" for an op with one operand of
// type T and one result of type U; sep is "to" (arith.extsi,
// gpu.ptr_cast, shape.index_cast) or "->". ParseCastForm reads it.
func (f FormPrinter) PrintCast(p *OpPrinter, op *Operation, sep string) {
	p.Print(" ")
	p.PrintOperand(op.Operand(0))
	f.PrintAttrDict(p, AllAttrs(op))
	p.Print(" : ")
	p.PrintType(op.Operand(0).Type())
	p.Print(" " + sep + " ")
	p.PrintType(op.Result(0).Type())
}

// ParseCastForm reads "%x {attrs} : T sep U" (sep "to" or "->"): one
// operand of type T, one result of type U.
func ParseCastForm(p *OpParser, st *OperationState, sep string) error {
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
	if sep == "->" {
		err = p.ParsePunct(sep)
	} else {
		err = p.ParseKeyword(sep)
	}
	if err != nil {
		return err
	}
	out, err := p.ParseType()
	if err != nil {
		return err
	}
	st.ResultTypes = append(st.ResultTypes, out)
	return p.ResolveOperands([]UnresolvedOperand{o}, []Type{in}, &st.Operands)
}

// PrintSameType writes " %a, %b {attrs} : T" with T the type of the one
// result (the operand list and its space only when there are operands).
// It is the form of ops whose operand types follow from the result type:
// all equal to it (arith.addi, gpu.sqrt; ParseSameTypeForm) or fixed by
// the op (gpu.alloc; ParseResultTypeForm).
func (f FormPrinter) PrintSameType(p *OpPrinter, op *Operation) {
	if op.NumOperands() > 0 {
		p.Print(" ")
		p.PrintOperands(op.Operands())
	}
	f.PrintAttrDict(p, AllAttrs(op))
	p.Print(" : ")
	p.PrintType(op.Result(0).Type())
}

// ParseOperands reads exactly n comma-separated operands.
func ParseOperands(p *OpParser, n int) ([]UnresolvedOperand, error) {
	ops := make([]UnresolvedOperand, 0, n)
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

// ParseResultTypeForm reads "%a, %b {attrs} : T" (what PrintSameType
// writes) and adds T as the op's result type. n is the number of operands,
// or -1 for a possibly empty list. The operands are returned unresolved:
// their types are the caller's to give.
func ParseResultTypeForm(p *OpParser, st *OperationState, n int) ([]UnresolvedOperand, Type, error) {
	var ops []UnresolvedOperand
	var err error
	if n < 0 {
		ops, err = p.ParseOperandList()
	} else {
		ops, err = ParseOperands(p, n)
	}
	if err != nil {
		return nil, nil, err
	}
	if err := p.ParseOptionalAttrDict(st); err != nil {
		return nil, nil, err
	}
	t, err := p.ParseColonType()
	if err != nil {
		return nil, nil, err
	}
	st.ResultTypes = append(st.ResultTypes, t)
	return ops, t, nil
}

// ParseSameTypeForm reads "%a, %b {attrs} : T": n operands (n = -1: one or
// more) and one result, all of type T.
func ParseSameTypeForm(p *OpParser, st *OperationState, n int) error {
	ops, t, err := ParseResultTypeForm(p, st, n)
	if err != nil {
		return err
	}
	if len(ops) == 0 {
		if n == 0 {
			return nil
		}
		return p.Errorf("expected operands")
	}
	return p.ResolveOperands(ops, []Type{t}, &st.Operands)
}

// PrintReturn writes " {attrs} %a, %b : T1, T2" (the operands and types
// only when there are operands), the form of func.return and gpu.yield.
func (f FormPrinter) PrintReturn(p *OpPrinter, op *Operation) {
	f.PrintAttrDict(p, AllAttrs(op))
	if op.NumOperands() > 0 {
		p.Print(" ")
		p.PrintOperands(op.Operands())
		p.Print(" : ")
		p.PrintTypes(op.OperandTypes())
	}
}

// ParseReturnForm reads "{attrs} %a, %b : T1, T2" (all optional).
func ParseReturnForm(p *OpParser, st *OperationState) error {
	if err := p.ParseOptionalAttrDict(st); err != nil {
		return err
	}
	ops, err := p.ParseOperandList()
	if err != nil || len(ops) == 0 {
		return err
	}
	types, err := p.ParseColonTypeList()
	if err != nil {
		return err
	}
	if len(types) != len(ops) {
		return p.Errorf("%d operands present, but expected %d", len(ops), len(types))
	}
	return p.ResolveOperands(ops, types, &st.Operands)
}

// PrintCall writes " @f(%a, %b) {attrs} : (T1, T2) -> R" for an op whose
// "callee" attribute is a symbol reference (func.call, gpu.call).
func (f FormPrinter) PrintCall(p *OpPrinter, op *Operation) {
	ref, ok := op.LookupAttr("callee").(SymbolRefAttr)
	RequireCustom(ok)
	p.Print(" ")
	p.PrintAttr(ref)
	p.Print("(")
	p.PrintOperands(op.Operands())
	p.Print(")")
	f.PrintAttrDict(p, AllAttrs(op), "callee")
	p.Print(" : ")
	p.PrintFunctionalType(op)
}

// ParseCallForm reads "@f(%a, %b) {attrs} : (T1, T2) -> R" and sets the
// "callee" attribute.
func ParseCallForm(p *OpParser, st *OperationState) error {
	name, err := p.ParseSymbolName()
	if err != nil {
		return err
	}
	if err := p.ParsePunct("("); err != nil {
		return err
	}
	ops, err := p.ParseOperandList()
	if err != nil {
		return err
	}
	if err := p.ParsePunct(")"); err != nil {
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
		return Errorf(loc, "%d operands present, but expected %d", len(ops), len(ins))
	}
	st.AddAttr("callee", SymbolRefAttr{Root: name})
	st.ResultTypes = append(st.ResultTypes, outs...)
	return p.ResolveOperands(ops, ins, &st.Operands)
}

// ParseSymbolNameAttr reads @name and adds it as the "sym_name" attribute.
func ParseSymbolNameAttr(p *OpParser, st *OperationState) (string, error) {
	name, err := p.ParseSymbolName()
	if err != nil {
		return "", err
	}
	st.AddAttr("sym_name", Str(name))
	return name, nil
}

// FunctionSignature is a function-like op's signature as a custom form
// spells it: "(%a: T {attrs}, ...) -> (R {attrs}, ...)".
type FunctionSignature struct {
	Args        []Argument // named (%a: T) or, in a declaration, types only
	Results     []Type
	ResultAttrs []DictAttr // one per result; nil when results take no attributes
}

// ParseFunctionSignature reads "(args) [-> results]". checkArgs, when not
// nil, is called with the arguments and the position of their list before
// the results are read (a dialect's rule on named arguments). With
// resultAttrs, results may carry attribute dictionaries
// ("-> (i32 {a}, f32)"); without, the results are a plain arrow type list.
func ParseFunctionSignature(p *OpParser, resultAttrs bool, checkArgs func(loc Location, args []Argument) error) (FunctionSignature, error) {
	var sig FunctionSignature
	loc := p.Loc()
	args, err := p.ParseArgumentList(true)
	if err != nil {
		return sig, err
	}
	sig.Args = args
	if checkArgs != nil {
		if err := checkArgs(loc, args); err != nil {
			return sig, err
		}
	}
	if !resultAttrs {
		sig.Results, err = p.ParseOptionalArrowTypeList()
		return sig, err
	}
	if !p.ParseOptionalPunct("->") {
		return sig, nil
	}
	if !p.ParseOptionalPunct("(") {
		t, err := p.ParseType()
		if err != nil {
			return sig, err
		}
		sig.Results = append(sig.Results, t)
		sig.ResultAttrs = append(sig.ResultAttrs, DictAttr{})
		return sig, nil
	}
	if p.ParseOptionalPunct(")") {
		return sig, nil
	}
	for {
		t, err := p.ParseType()
		if err != nil {
			return sig, err
		}
		var tmp OperationState
		if err := p.ParseOptionalAttrDict(&tmp); err != nil {
			return sig, err
		}
		sig.Results = append(sig.Results, t)
		sig.ResultAttrs = append(sig.ResultAttrs, NewDictAttr(tmp.Attrs))
		if p.ParseOptionalPunct(")") {
			return sig, nil
		}
		if err := p.ParsePunct(","); err != nil {
			return sig, err
		}
	}
}

// AddAttrs adds the signature's attributes to st: "function_type", and
// "arg_attrs" and "res_attrs" when an argument or a result has attributes.
func (s FunctionSignature) AddAttrs(st *OperationState) {
	inputs := make([]Type, 0, len(s.Args))
	var argAttrs []Attribute
	anyArgAttrs := false
	for _, a := range s.Args {
		inputs = append(inputs, a.Type)
		argAttrs = append(argAttrs, a.Attrs)
		anyArgAttrs = anyArgAttrs || len(a.Attrs.Entries) > 0
	}
	var resAttrs []Attribute
	anyResAttrs := false
	for _, d := range s.ResultAttrs {
		resAttrs = append(resAttrs, d)
		anyResAttrs = anyResAttrs || len(d.Entries) > 0
	}
	st.AddAttr("function_type", TypeAttr{Type: FunctionTypeOf(inputs, s.Results)})
	if anyArgAttrs {
		st.AddAttr("arg_attrs", ArrayAttr{Elems: argAttrs})
	}
	if anyResAttrs {
		st.AddAttr("res_attrs", ArrayAttr{Elems: resAttrs})
	}
}

// PrintFunctionSignature writes "(args) [-> results]" of a function-like
// op with signature ft: the entry block's arguments with their
// "arg_attrs" when the op has a body, else the input types with theirs;
// with resultAttrs, results carry their "res_attrs" dictionaries. It is
// what ParseFunctionSignature reads. It gives up (RequireCustom) when the
// entry block does not match ft.
func PrintFunctionSignature(p *OpPrinter, op *Operation, ft *FunctionType, resultAttrs bool) {
	argAttrs := op.LookupAttr("arg_attrs")
	p.Print("(")
	if body := op.Region(0).Front(); body != nil {
		RequireCustom(body.NumArgs() == len(ft.Inputs))
		for i, a := range body.Args() {
			if i > 0 {
				p.Print(", ")
			}
			p.PrintArgumentWithAttrs(a, dictAt(argAttrs, i))
		}
	} else {
		for i, t := range ft.Inputs {
			if i > 0 {
				p.Print(", ")
			}
			p.PrintType(t)
			p.PrintOptionalAttrDict(dictAt(argAttrs, i))
		}
	}
	p.Print(")")
	var resAttrs Attribute
	if resultAttrs {
		resAttrs = op.LookupAttr("res_attrs")
	}
	if len(ft.Results) == 0 {
		return
	}
	if len(dictAt(resAttrs, 0)) == 0 && len(ft.Results) == 1 {
		p.PrintOptionalArrowTypeList(ft.Results)
		return
	}
	p.Print(" -> (")
	for i, t := range ft.Results {
		if i > 0 {
			p.Print(", ")
		}
		p.PrintType(t)
		p.PrintOptionalAttrDict(dictAt(resAttrs, i))
	}
	p.Print(")")
}

// dictAt returns the entries of dictionary i of an array attribute of
// dictionaries (arg_attrs, res_attrs), or nil.
func dictAt(a Attribute, i int) []NamedAttribute {
	arr, ok := a.(ArrayAttr)
	if !ok || i >= len(arr.Elems) {
		return nil
	}
	d, _ := arr.Elems[i].(DictAttr)
	return d.Entries
}
