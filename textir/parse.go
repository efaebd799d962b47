package textir

import "strconv"

// This file is the contract between the parser (parser.go) and dialects'
// custom forms.

// OpParser parses the custom form of one op, after its name. It resolves
// value names in the current scope; errors carry the source position.
type OpParser struct {
	impl     *parser
	isolated bool // the op is IsolatedFromAbove: its regions open a new name scope
}

// UnresolvedOperand is a value use read before its type is known.
type UnresolvedOperand struct {
	Name   string // "%0" without result number
	Number int    // result number for %x#n, else 0
	Loc    Location
	pos    int
}

// Argument is a region entry argument read in a custom form: %arg0: type {attrs} loc(...).
type Argument struct {
	Name   string // "%arg0"; "" for a type-only entry as in a declaration's signature
	Type   Type
	Attrs  DictAttr
	Loc    Location
	srcPos int // 1 + byte offset of the name, 0 if unknown
}

// Context returns the IR context.
func (p *OpParser) Context() *Context { return p.impl.ctx }

// Loc returns the position of the next token.
func (p *OpParser) Loc() Location { return p.impl.locAt(p.impl.tok.start) }

// Errorf returns an error at the next token.
func (p *OpParser) Errorf(format string, args ...any) error {
	return p.impl.errorf(format, args...)
}

// ParseOperand reads %name or %name#n.
func (p *OpParser) ParseOperand() (UnresolvedOperand, error) {
	u, err := p.impl.parseUse()
	if err != nil {
		return UnresolvedOperand{}, err
	}
	return UnresolvedOperand{Name: u.name, Number: u.num, Loc: p.impl.locAt(u.pos), pos: u.pos}, nil
}

// ParseOptionalOperand reads an operand if the next token is a value name.
func (p *OpParser) ParseOptionalOperand() (UnresolvedOperand, bool, error) {
	if p.impl.tok.kind != tPercent {
		return UnresolvedOperand{}, false, nil
	}
	u, err := p.ParseOperand()
	return u, err == nil, err
}

// ParseOperandList reads a possibly empty comma-separated list of operands.
func (p *OpParser) ParseOperandList() ([]UnresolvedOperand, error) {
	var us []UnresolvedOperand
	if p.impl.tok.kind != tPercent {
		return nil, nil
	}
	for {
		u, err := p.ParseOperand()
		if err != nil {
			return nil, err
		}
		us = append(us, u)
		if !p.impl.consume(tComma) {
			return us, nil
		}
	}
}

// ResolveOperands resolves operands with their types and appends the values
// to out. With a single type, every operand gets that type.
func (p *OpParser) ResolveOperands(ops []UnresolvedOperand, types []Type, out *[]*Value) error {
	if len(types) != len(ops) && !(len(types) == 1 && len(ops) > 0) {
		pos := p.impl.tok.start
		if len(ops) > 0 {
			pos = ops[0].pos
		}
		return p.impl.errAt(pos, "%d operands present, but expected %d", len(ops), len(types))
	}
	for i, o := range ops {
		t := types[0]
		if len(types) == len(ops) {
			t = types[i]
		}
		v, err := p.impl.resolve(useRef{name: o.Name, num: o.Number, pos: o.pos}, t)
		if err != nil {
			return err
		}
		*out = append(*out, v)
	}
	return nil
}

// ParseType reads a type.
func (p *OpParser) ParseType() (Type, error) { return p.impl.parseType() }

// ParseColonType reads ": type".
func (p *OpParser) ParseColonType() (Type, error) {
	if err := p.impl.expect(tColon, "':'"); err != nil {
		return nil, err
	}
	return p.impl.parseType()
}

// ParseColonTypeList reads ": t1, t2" (the colon is required, the list has
// at least one type).
func (p *OpParser) ParseColonTypeList() ([]Type, error) {
	if err := p.impl.expect(tColon, "':'"); err != nil {
		return nil, err
	}
	return p.ParseTypeList()
}

// ParseTypeList reads a comma-separated list of types (at least one).
func (p *OpParser) ParseTypeList() ([]Type, error) {
	var ts []Type
	for {
		t, err := p.impl.parseType()
		if err != nil {
			return nil, err
		}
		ts = append(ts, t)
		if !p.impl.consume(tComma) {
			return ts, nil
		}
	}
}

// ParseOptionalArrowTypeList reads "-> t" or "-> (t1, t2)"; nothing if no
// arrow follows.
func (p *OpParser) ParseOptionalArrowTypeList() ([]Type, error) {
	if !p.impl.consume(tArrow) {
		return nil, nil
	}
	return p.parseResults()
}

func (p *OpParser) parseResults() ([]Type, error) {
	q := p.impl
	base := len(q.typeBuf)
	defer func() { q.typeBuf = q.typeBuf[:base] }()
	if err := q.parseFunctionResults(); err != nil {
		return nil, err
	}
	return append([]Type{}, q.typeBuf[base:]...), nil
}

// ParseFunctionalType reads "(t1, t2) -> results" and returns both lists.
func (p *OpParser) ParseFunctionalType() ([]Type, []Type, error) {
	q := p.impl
	if q.tok.kind != tLParen {
		return nil, nil, q.expected("'(' in function type")
	}
	base := len(q.typeBuf)
	if err := q.parseTypeListParens(); err != nil {
		q.typeBuf = q.typeBuf[:base]
		return nil, nil, err
	}
	ins := append([]Type{}, q.typeBuf[base:]...)
	q.typeBuf = q.typeBuf[:base]
	if err := q.expect(tArrow, "'->' in function type"); err != nil {
		return nil, nil, err
	}
	outs, err := p.parseResults()
	if err != nil {
		return nil, nil, err
	}
	return ins, outs, nil
}

// ParseAttribute reads an attribute value (with its ": type" suffix where the syntax has one).
func (p *OpParser) ParseAttribute() (Attribute, error) { return p.impl.parseAttribute() }

// ParseOptionalAttrDict reads "{...}" if present and appends its entries to st.Attrs.
func (p *OpParser) ParseOptionalAttrDict(st *OperationState) error {
	q := p.impl
	if q.tok.kind != tLBrace {
		return nil
	}
	base := len(q.attrBuf)
	defer func() { q.attrBuf = q.attrBuf[:base] }()
	if err := q.parseAttrDictInto(); err != nil {
		return err
	}
	st.Attrs = append(st.Attrs, q.attrBuf[base:]...)
	return nil
}

// ParseOptionalAttrDictWithKeyword reads "attributes {...}" if present.
func (p *OpParser) ParseOptionalAttrDictWithKeyword(st *OperationState) error {
	if !p.ParseOptionalKeyword("attributes") {
		return nil
	}
	if p.impl.tok.kind != tLBrace {
		return p.impl.expected("'{' after 'attributes'")
	}
	return p.ParseOptionalAttrDict(st)
}

// ParseSymbolName reads @name.
func (p *OpParser) ParseSymbolName() (string, error) {
	q := p.impl
	if q.tok.kind != tAt {
		return "", q.expected("symbol name")
	}
	s := q.symName()
	q.advance()
	return s, nil
}

// ParseKeyword reads the bare identifier kw.
func (p *OpParser) ParseKeyword(kw string) error {
	if !p.ParseOptionalKeyword(kw) {
		return p.impl.expected("'" + kw + "'")
	}
	return nil
}

// ParseOptionalKeyword reads kw if it is next.
func (p *OpParser) ParseOptionalKeyword(kw string) bool {
	if p.impl.isKeyword(kw) {
		p.impl.advance()
		return true
	}
	return false
}

// ParsePunct reads one punctuation token: "(" ")" "[" "]" "{" "}" "<" ">"
// "," ":" "=" "->" "::" "?" "*" "+".
func (p *OpParser) ParsePunct(tok string) error {
	if !p.ParseOptionalPunct(tok) {
		return p.impl.expected("'" + tok + "'")
	}
	return nil
}

// ParseOptionalPunct reads tok if it is next.
func (p *OpParser) ParseOptionalPunct(tok string) bool {
	k, ok := punctSpelling[tok]
	if !ok {
		return false
	}
	return p.impl.consume(k)
}

// ParseInteger reads an integer literal (optionally negative).
func (p *OpParser) ParseInteger() (int64, error) {
	q := p.impl
	neg := false
	pos := q.tok.start
	if q.tok.kind == tMinus {
		neg = true
		q.advance()
	}
	if q.tok.kind != tInt {
		return 0, q.expected("integer value")
	}
	mag, err := strconv.ParseUint(q.spell(), 0, 64)
	if err != nil || (!neg && mag > 1<<63-1) || (neg && mag > 1<<63) {
		return 0, q.errAt(pos, "integer value too large")
	}
	q.advance()
	if neg {
		return -int64(mag), nil
	}
	return int64(mag), nil
}

// ParseString reads a string literal.
func (p *OpParser) ParseString() (string, error) {
	q := p.impl
	if q.tok.kind != tString {
		return "", q.expected("string")
	}
	s := unquote(q.spell())
	q.advance()
	return s, nil
}

// ParseArgumentList reads "(%a: t {attrs} loc(..), ...)" as in func.func's
// signature; with allowAttrs false, attribute dictionaries are rejected.
// Entries may also be bare types ("(i32, f32)", as in a declaration); their
// Name is then "".
func (p *OpParser) ParseArgumentList(allowAttrs bool) ([]Argument, error) {
	q := p.impl
	if err := q.expect(tLParen, "'(' to start argument list"); err != nil {
		return nil, err
	}
	args := []Argument{}
	if q.consume(tRParen) {
		return args, nil
	}
	for {
		var a Argument
		pos := q.tok.start
		if q.tok.kind == tPercent {
			a.Name = q.spell()
			a.srcPos = pos + 1
			q.advance()
			if err := q.expect(tColon, "':' after argument name"); err != nil {
				return nil, err
			}
		}
		t, err := q.parseType()
		if err != nil {
			return nil, err
		}
		a.Type = t
		if q.tok.kind == tLBrace {
			if !allowAttrs {
				return nil, q.errorf("expected no attributes on argument")
			}
			base := len(q.attrBuf)
			if err := q.parseAttrDictInto(); err != nil {
				return nil, err
			}
			a.Attrs = NewDictAttr(q.attrBuf[base:])
			q.attrBuf = q.attrBuf[:base]
		}
		l, ok, err := q.parseOptionalLoc()
		if err != nil {
			return nil, err
		}
		if ok {
			a.Loc = l
		} else {
			a.Loc = q.locAt(pos)
		}
		args = append(args, a)
		if !q.consume(tComma) {
			break
		}
	}
	if err := q.expect(tRParen, "')' to end argument list"); err != nil {
		return nil, err
	}
	return args, nil
}

// ParseRegion reads a region in braces into r. args, when non-nil, are the
// entry block's arguments (declared by the custom form, e.g. a function
// signature); the region then must not repeat the entry block header.
func (p *OpParser) ParseRegion(r *Region, args []Argument) error {
	return p.impl.parseRegion(r, args, p.isolated)
}

// ParseOptionalRegion reads a region if "{" is next.
func (p *OpParser) ParseOptionalRegion(r *Region, args []Argument) (bool, error) {
	if p.impl.tok.kind != tLBrace {
		return false, nil
	}
	return true, p.ParseRegion(r, args)
}

// ParseSuccessor reads ^label.
func (p *OpParser) ParseSuccessor() (*Block, error) { return p.impl.parseSuccessor() }

// ParseSuccessorAndOperands reads ^label or ^label(%a, %b : t1, t2).
func (p *OpParser) ParseSuccessorAndOperands() (*Block, []*Value, error) {
	q := p.impl
	b, err := q.parseSuccessor()
	if err != nil {
		return nil, nil, err
	}
	base := len(q.valBuf)
	defer func() { q.valBuf = q.valBuf[:base] }()
	if err := q.parseSuccessorOperands(); err != nil {
		return nil, nil, err
	}
	var vs []*Value
	if len(q.valBuf) > base {
		vs = append(vs, q.valBuf[base:]...)
	}
	return b, vs, nil
}

// ParseOptionalLocation reads "loc(...)" if present.
func (p *OpParser) ParseOptionalLocation() (Location, bool, error) {
	return p.impl.parseOptionalLoc()
}
