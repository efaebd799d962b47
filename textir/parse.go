package textir

// This file is the contract between the parser (parser.go) and dialects'
// custom forms. Its bodies are placeholders until the parser lands.

// OpParser parses the custom form of one op, after its name. It resolves
// value names in the current scope; errors carry the source position.
type OpParser struct{ impl *parser }

type parser struct{}

// UnresolvedOperand is a value use read before its type is known.
type UnresolvedOperand struct {
	Name   string // "%0" without result number
	Number int    // result number for %x#n, else 0
	Loc    Location
}

// Argument is a region entry argument read in a custom form: %arg0: type {attrs} loc(...).
type Argument struct {
	Name  string // "%arg0"
	Type  Type
	Attrs DictAttr
	Loc   Location
}

// Context returns the IR context.
func (p *OpParser) Context() *Context { return nil }

// Loc returns the position of the next token.
func (p *OpParser) Loc() Location { return UnknownLoc{} }

// Errorf returns an error at the next token.
func (p *OpParser) Errorf(format string, args ...any) error { return nil }

// ParseOperand reads %name or %name#n.
func (p *OpParser) ParseOperand() (UnresolvedOperand, error) { return UnresolvedOperand{}, nil }

// ParseOptionalOperand reads an operand if the next token is a value name.
func (p *OpParser) ParseOptionalOperand() (UnresolvedOperand, bool, error) {
	return UnresolvedOperand{}, false, nil
}

// ParseOperandList reads a possibly empty comma-separated list of operands.
func (p *OpParser) ParseOperandList() ([]UnresolvedOperand, error) { return nil, nil }

// ResolveOperands resolves operands with their types and appends the values to out.
func (p *OpParser) ResolveOperands(ops []UnresolvedOperand, types []Type, out *[]*Value) error {
	return nil
}

// ParseType reads a type.
func (p *OpParser) ParseType() (Type, error) { return nil, nil }

// ParseColonType reads ": type".
func (p *OpParser) ParseColonType() (Type, error) { return nil, nil }

// ParseColonTypeList reads ": t1, t2" (possibly empty if no colon follows? no: colon required).
func (p *OpParser) ParseColonTypeList() ([]Type, error) { return nil, nil }

// ParseTypeList reads a comma-separated list of types (at least one).
func (p *OpParser) ParseTypeList() ([]Type, error) { return nil, nil }

// ParseArrowTypeList reads "-> t" or "-> (t1, t2)".
func (p *OpParser) ParseOptionalArrowTypeList() ([]Type, error) { return nil, nil }

// ParseFunctionalType reads "(t1, t2) -> results" and returns both lists.
func (p *OpParser) ParseFunctionalType() ([]Type, []Type, error) { return nil, nil, nil }

// ParseAttribute reads an attribute value (with its ": type" suffix where the syntax has one).
func (p *OpParser) ParseAttribute() (Attribute, error) { return nil, nil }

// ParseOptionalAttrDict reads "{...}" if present and appends its entries to st.Attrs.
func (p *OpParser) ParseOptionalAttrDict(st *OperationState) error { return nil }

// ParseOptionalAttrDictWithKeyword reads "attributes {...}" if present.
func (p *OpParser) ParseOptionalAttrDictWithKeyword(st *OperationState) error { return nil }

// ParseSymbolName reads @name.
func (p *OpParser) ParseSymbolName() (string, error) { return "", nil }

// ParseKeyword reads the bare identifier kw.
func (p *OpParser) ParseKeyword(kw string) error { return nil }

// ParseOptionalKeyword reads kw if it is next.
func (p *OpParser) ParseOptionalKeyword(kw string) bool { return false }

// ParsePunct reads one punctuation token: "(" ")" "[" "]" "{" "}" "<" ">"
// "," ":" "=" "->" "::" "?" "*" "+".
func (p *OpParser) ParsePunct(tok string) error { return nil }

// ParseOptionalPunct reads tok if it is next.
func (p *OpParser) ParseOptionalPunct(tok string) bool { return false }

// ParseInteger reads an integer literal.
func (p *OpParser) ParseInteger() (int64, error) { return 0, nil }

// ParseString reads a string literal.
func (p *OpParser) ParseString() (string, error) { return "", nil }

// ParseArgumentList reads "(%a: t {attrs} loc(..), ...)" as in func.func's
// signature; with allowAttrs false, attribute dictionaries are rejected.
func (p *OpParser) ParseArgumentList(allowAttrs bool) ([]Argument, error) { return nil, nil }

// ParseRegion reads a region in braces into r. args, when non-nil, are the
// entry block's arguments (declared by the custom form, e.g. a function
// signature); the region then must not repeat the entry block header.
func (p *OpParser) ParseRegion(r *Region, args []Argument) error { return nil }

// ParseOptionalRegion reads a region if "{" is next.
func (p *OpParser) ParseOptionalRegion(r *Region, args []Argument) (bool, error) { return false, nil }

// ParseSuccessor reads ^label.
func (p *OpParser) ParseSuccessor() (*Block, error) { return nil, nil }

// ParseSuccessorAndOperands reads ^label or ^label(%a, %b : t1, t2).
func (p *OpParser) ParseSuccessorAndOperands() (*Block, []*Value, error) { return nil, nil, nil }

// ParseOptionalLocation reads "loc(...)" if present.
func (p *OpParser) ParseOptionalLocation() (Location, bool, error) { return nil, false, nil }
