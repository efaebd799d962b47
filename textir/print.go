package textir

// This file is the contract between the printer (printer.go) and dialects'
// custom forms. Its bodies are placeholders until the printer lands.

// OpPrinter prints the custom form of one op. The printer has already
// written the result list ("%0, %1 = ") and the op name; Print writes the
// rest, starting with a space where one is needed. Values print with the
// names the printer assigned.
type OpPrinter struct{ impl *printer }

type printer struct{}

// AttrString prints an attribute in MLIR syntax.
func AttrString(a Attribute) string { return "<attr>" }

// Print writes raw text.
func (p *OpPrinter) Print(s string) {}

// PrintOperand writes a value's name (%0, %arg1, %3#1).
func (p *OpPrinter) PrintOperand(v *Value) {}

// PrintOperands writes names separated by ", ".
func (p *OpPrinter) PrintOperands(vs []*Value) {}

// PrintType writes a type.
func (p *OpPrinter) PrintType(t Type) {}

// PrintTypes writes types separated by ", ".
func (p *OpPrinter) PrintTypes(ts []Type) {}

// PrintFunctionalType writes "(operand types) -> result types" of op.
func (p *OpPrinter) PrintFunctionalType(op *Operation) {}

// PrintAttr writes an attribute.
func (p *OpPrinter) PrintAttr(a Attribute) {}

// PrintSymbolName writes @name (quoted when needed).
func (p *OpPrinter) PrintSymbolName(name string) {}

// PrintOptionalAttrDict writes " {a = 1, b}" for attrs not in elided, or nothing.
func (p *OpPrinter) PrintOptionalAttrDict(attrs []NamedAttribute, elided ...string) {}

// PrintOptionalAttrDictWithKeyword is PrintOptionalAttrDict with
// " attributes" before the dictionary.
func (p *OpPrinter) PrintOptionalAttrDictWithKeyword(attrs []NamedAttribute, elided ...string) {}

// PrintRegion writes a region in braces. With printEntryArgs the entry
// block's header (^bb0(%arg0: t):) is printed; without it the caller has
// printed the arguments already (as func.func does). printEmptyBlock prints
// an empty entry block's header too.
func (p *OpPrinter) PrintRegion(r *Region, printEntryArgs, printEmptyBlock bool) {}

// PrintSuccessor writes a block label (^bb1).
func (p *OpPrinter) PrintSuccessor(b *Block) {}

// PrintSuccessorAndOperands writes ^bb1(%0, %1 : t0, t1).
func (p *OpPrinter) PrintSuccessorAndOperands(b *Block, args []*Value) {}

// PrintArgument writes a block argument declaration: %arg0: type, plus the
// argument's location with --mlir-print-debuginfo.
func (p *OpPrinter) PrintArgument(v *Value) {}

// PrintNewline starts a new line at the current indentation.
func (p *OpPrinter) PrintNewline() {}

// Generic reports whether the generic form was requested (custom printers
// are then not called; exposed for nested decisions).
func (p *OpPrinter) Generic() bool { return false }
