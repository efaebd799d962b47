package textir

// This file is the contract between the printer (printer.go) and dialects'
// custom forms.

// OpPrinter prints the custom form of one op. The printer has already
// written the result list ("%0, %1 = ") and the op name; Print writes the
// rest, starting with a space where one is needed. Values print with the
// names the printer assigned.
type OpPrinter struct{ impl *printer }

// Print writes raw text.
func (p *OpPrinter) Print(s string) { p.impl.buf = append(p.impl.buf, s...) }

// PrintOperand writes a value's name (%0, %arg1, %3#1).
func (p *OpPrinter) PrintOperand(v *Value) { p.impl.appendValue(v, true) }

// PrintOperands writes names separated by ", ".
func (p *OpPrinter) PrintOperands(vs []*Value) {
	for i, v := range vs {
		if i > 0 {
			p.impl.buf = append(p.impl.buf, ", "...)
		}
		p.impl.appendValue(v, true)
	}
}

// PrintType writes a type.
func (p *OpPrinter) PrintType(t Type) { p.impl.appendType(t) }

// PrintTypes writes types separated by ", ".
func (p *OpPrinter) PrintTypes(ts []Type) {
	for i, t := range ts {
		if i > 0 {
			p.impl.buf = append(p.impl.buf, ", "...)
		}
		p.impl.appendType(t)
	}
}

// PrintFunctionalType writes "(operand types) -> result types" of op.
func (p *OpPrinter) PrintFunctionalType(op *Operation) { p.impl.appendFunctionalType(op) }

// PrintOptionalArrowTypeList writes " -> t" or " -> (t1, t2)" (a single
// function type is parenthesised), or nothing when ts is empty; it is what
// OpParser.ParseOptionalArrowTypeList reads.
func (p *OpPrinter) PrintOptionalArrowTypeList(ts []Type) {
	if len(ts) == 0 {
		return
	}
	p.impl.buf = append(p.impl.buf, " -> "...)
	wrap := len(ts) != 1
	if !wrap {
		_, wrap = ts[0].(*FunctionType)
	}
	if wrap {
		p.impl.buf = append(p.impl.buf, '(')
	}
	p.PrintTypes(ts)
	if wrap {
		p.impl.buf = append(p.impl.buf, ')')
	}
}

// PrintAttr writes an attribute.
func (p *OpPrinter) PrintAttr(a Attribute) { p.impl.appendAttr(a) }

// PrintAttrWithoutType writes an attribute without the ": type" suffix of
// integers, floats and strings (for forms that print the type elsewhere).
func (p *OpPrinter) PrintAttrWithoutType(a Attribute) { p.impl.appendAttrElide(a, true) }

// PrintSymbolName writes @name (quoted when needed).
func (p *OpPrinter) PrintSymbolName(name string) { p.impl.appendSymbol(name) }

// PrintKeywordOrString writes s bare when it is an identifier, else as a
// quoted string.
func (p *OpPrinter) PrintKeywordOrString(s string) { p.impl.appendKeywordOrString(s) }

// PrintString writes s as a quoted string literal with MLIR escapes.
func (p *OpPrinter) PrintString(s string) { p.impl.appendQuoted(s) }

// PrintOptionalAttrDict writes " {a = 1, b}" for attrs not in elided, or nothing.
func (p *OpPrinter) PrintOptionalAttrDict(attrs []NamedAttribute, elided ...string) {
	p.impl.appendAttrDict(attrs, elided)
}

// PrintOptionalAttrDictWithKeyword is PrintOptionalAttrDict with
// " attributes" before the dictionary.
func (p *OpPrinter) PrintOptionalAttrDictWithKeyword(attrs []NamedAttribute, elided ...string) {
	for _, a := range attrs {
		if !isElided(a.Name, elided) {
			p.impl.buf = append(p.impl.buf, " attributes"...)
			p.impl.appendAttrDict(attrs, elided)
			return
		}
	}
}

// PrintRegion writes a region in braces. With printEntryArgs the entry
// block's header (^bb0(%arg0: t):) is printed; without it the caller has
// printed the arguments already (as func.func does). printEmptyBlock prints
// an empty entry block's header too.
func (p *OpPrinter) PrintRegion(r *Region, printEntryArgs, printEmptyBlock bool) {
	p.impl.printRegion(r, printEntryArgs, printEmptyBlock)
}

// PrintSuccessor writes a block label (^bb1).
func (p *OpPrinter) PrintSuccessor(b *Block) { p.impl.appendBlockName(b) }

// PrintSuccessorAndOperands writes ^bb1(%0, %1 : t0, t1).
func (p *OpPrinter) PrintSuccessorAndOperands(b *Block, args []*Value) {
	p.impl.appendBlockName(b)
	if len(args) == 0 {
		return
	}
	p.impl.buf = append(p.impl.buf, '(')
	p.PrintOperands(args)
	p.impl.buf = append(p.impl.buf, " : "...)
	for i, v := range args {
		if i > 0 {
			p.impl.buf = append(p.impl.buf, ", "...)
		}
		if v == nil {
			p.impl.appendType(nil)
		} else {
			p.impl.appendType(v.typ)
		}
	}
	p.impl.buf = append(p.impl.buf, ')')
}

// PrintArgument writes a block argument declaration: %arg0: type, plus the
// argument's location with --mlir-print-debuginfo.
func (p *OpPrinter) PrintArgument(v *Value) { p.impl.appendArgument(v, nil) }

// PrintArgumentWithAttrs writes %arg0: type {attrs} loc(...) as in a
// function signature (the dictionary only when attrs is not empty).
func (p *OpPrinter) PrintArgumentWithAttrs(v *Value, attrs []NamedAttribute) {
	p.impl.appendArgument(v, attrs)
}

// PrintNewline starts a new line at the current indentation.
func (p *OpPrinter) PrintNewline() {
	p.impl.buf = append(p.impl.buf, '\n')
	p.impl.appendIndent()
}

// Generic reports whether the generic form was requested (custom printers
// are then not called; exposed for nested decisions).
func (p *OpPrinter) Generic() bool { return p.impl.opts.Generic }

// DebugInfo reports whether locations are printed.
func (p *OpPrinter) DebugInfo() bool { return p.impl.opts.DebugInfo }
