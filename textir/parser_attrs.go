package textir

import (
	"encoding/hex"
	"fmt"
	"math"
	"strconv"
	"strings"
)

// parseAttribute reads an attribute value.
func (p *parser) parseAttribute() (Attribute, error) {
	switch p.tok.kind {
	case tInt, tFloat, tMinus:
		return p.parseNumberAttr()
	case tString:
		s := unquote(p.spell())
		p.advance()
		var t Type
		if p.tok.kind == tColon {
			p.advance()
			var err error
			if t, err = p.parseType(); err != nil {
				return nil, err
			}
		}
		return StringAttr{Value: s, Type: t}, nil
	case tLBracket:
		return p.parseArrayAttr()
	case tLBrace:
		if err := p.enter(); err != nil {
			return nil, err
		}
		defer p.leave()
		base := len(p.attrBuf)
		defer func() { p.attrBuf = p.attrBuf[:base] }()
		if err := p.parseAttrDictInto(); err != nil {
			return nil, err
		}
		return NewDictAttr(p.attrBuf[base:]), nil
	case tAt:
		return p.parseSymbolRef()
	case tHash:
		return p.parseHashAttr()
	case tBare:
		switch p.spell() {
		case "true", "false":
			v := p.spell() == "true"
			p.advance()
			return BoolAttr{Value: v}, nil
		case "unit":
			p.advance()
			return UnitAttr{}, nil
		case "dense":
			return p.parseDenseAttr()
		}
	}
	switch p.tok.kind {
	case tBare, tBang, tLParen:
		t, err := p.parseType()
		if err != nil {
			return nil, err
		}
		return TypeAttr{Type: t}, nil
	}
	return nil, p.expected("attribute value")
}

func (p *parser) parseArrayAttr() (Attribute, error) {
	if err := p.enter(); err != nil {
		return nil, err
	}
	defer p.leave()
	p.advance()
	var elems []Attribute
	if p.tok.kind != tRBracket {
		for {
			a, err := p.parseAttribute()
			if err != nil {
				return nil, err
			}
			elems = append(elems, a)
			if !p.consume(tComma) {
				break
			}
		}
	}
	if err := p.expect(tRBracket, "']' to end array attribute"); err != nil {
		return nil, err
	}
	return ArrayAttr{Elems: elems}, nil
}

// parseAttrDictInto reads "{a = 1, b}" and appends the entries to p.attrBuf.
func (p *parser) parseAttrDictInto() error {
	base := len(p.attrBuf)
	var seen map[string]bool
	p.advance() // {
	if p.tok.kind != tRBrace {
		for {
			var name string
			pos := p.tok.start
			switch p.tok.kind {
			case tBare:
				name = p.spell()
			case tString:
				name = unquote(p.spell())
				if name == "" {
					return p.errorf("expected valid attribute name")
				}
			default:
				return p.expected("attribute name")
			}
			p.advance()
			dup := false
			if n := len(p.attrBuf) - base; n < 32 {
				for _, e := range p.attrBuf[base:] {
					dup = dup || e.Name == name
				}
			} else {
				if seen == nil {
					seen = map[string]bool{}
					for _, e := range p.attrBuf[base:] {
						seen[e.Name] = true
					}
				}
				dup = seen[name]
				seen[name] = true
			}
			if dup {
				return p.errAt(pos, "duplicate key '%s' in dictionary attribute", name)
			}
			var val Attribute = UnitAttr{}
			if p.consume(tEqual) {
				a, err := p.parseAttribute()
				if err != nil {
					return err
				}
				val = a
			}
			p.attrBuf = append(p.attrBuf, NamedAttribute{Name: name, Value: val})
			if !p.consume(tComma) {
				break
			}
		}
	}
	return p.expect(tRBrace, "'}' in attribute dictionary")
}

func (p *parser) parseSymbolRef() (Attribute, error) {
	ref := SymbolRefAttr{Root: p.symName()}
	p.advance()
	for p.tok.kind == tColonColon {
		p.advance()
		if p.tok.kind != tAt {
			return nil, p.expected("nested symbol reference identifier")
		}
		ref.Nested = append(ref.Nested, p.symName())
		p.advance()
	}
	return ref, nil
}

// unregisteredDialect is MLIR's message for a type or attribute of a
// dialect that is not registered, which only --allow-unregistered-dialect
// lets through (as an opaque type or attribute kept as text).
func unregisteredDialect(kind, sigil, ident, params string, hasBody bool) string {
	spelling := sigil + ident
	if hasBody {
		if len(params) > 40 {
			params = params[:40] + "..."
		}
		spelling += "<" + params + ">"
	}
	dialect, _, _ := strings.Cut(ident, ".")
	return fmt.Sprintf("`%s` %s created with unregistered dialect '%s'; use --allow-unregistered-dialect to accept it", spelling, kind, dialect)
}

// parseHashAttr reads #alias, #dialect.name, #dialect.name<...> or #dialect<...>.
func (p *parser) parseHashAttr() (Attribute, error) {
	ident := p.src[p.tok.start+1 : p.tok.end]
	if isDigit(ident[0]) {
		return nil, p.expected("attribute value")
	}
	bodyEnd, err := p.scanOptionalBody()
	if err != nil {
		return nil, err
	}
	dialect, name, hasDot := strings.Cut(ident, ".")
	if !hasDot && bodyEnd < 0 {
		a, ok := p.attrAliases[ident]
		if !ok {
			return nil, p.errorf("undefined symbol alias id '%s'", ident)
		}
		p.advance()
		return a, nil
	}
	a := OpaqueAttr{Dialect: dialect, Name: name}
	if bodyEnd >= 0 {
		a.Params = p.src[p.tok.end+1 : bodyEnd-1]
	}
	if !p.ctx.AllowUnregistered && !p.ctx.IsRegisteredDialect(dialect) {
		return nil, p.errorf("%s", unregisteredDialect("attribute", "#", ident, a.Params, bodyEnd >= 0))
	}
	if bodyEnd >= 0 {
		p.resetTo(bodyEnd)
	} else {
		p.advance()
	}
	return a, nil
}

// number is a numeric literal as read: sign, spelling, kind.
type number struct {
	neg   bool
	text  string
	float bool
	pos   int
}

func (p *parser) parseNumber() (number, error) {
	n := number{pos: p.tok.start}
	if p.tok.kind == tMinus {
		n.neg = true
		p.advance()
	}
	switch p.tok.kind {
	case tInt:
	case tFloat:
		n.float = true
	default:
		return n, p.expected("integer or floating point literal")
	}
	n.text = p.spell()
	p.advance()
	return n, nil
}

func (n number) isHex() bool { return strings.HasPrefix(n.text, "0x") }

func (p *parser) parseNumberAttr() (Attribute, error) {
	n, err := p.parseNumber()
	if err != nil {
		return nil, err
	}
	var t Type
	if p.tok.kind == tColon {
		p.advance()
		if t, err = p.parseType(); err != nil {
			return nil, err
		}
	}
	if n.float {
		if t == nil {
			t = F64()
		}
		ft, ok := t.(*FloatType)
		if !ok {
			return nil, p.errAt(n.pos, "floating point value not valid for specified type")
		}
		v, err := p.floatValue(n, ft)
		if err != nil {
			return nil, err
		}
		return FloatAttr{Value: v, Type: t}, nil
	}
	if t == nil {
		t = I64()
	}
	if ft, ok := t.(*FloatType); ok {
		if !n.isHex() {
			return nil, p.errAt(n.pos, "unexpected decimal integer literal for a floating point value").
				AttachNote(nil, "add a trailing dot to make the literal a float")
		}
		v, err := p.floatValue(n, ft)
		if err != nil {
			return nil, err
		}
		return FloatAttr{Value: v, Type: t}, nil
	}
	if !IsIntOrIndex(t) {
		return nil, p.errAt(n.pos, "integer literal not valid for specified type")
	}
	v, err := p.intValue(n, t)
	if err != nil {
		return nil, err
	}
	return IntegerAttr{Value: v, Type: t}, nil
}

// intValue converts an integer literal to the storage of integer type t,
// checking that it fits.
func (p *parser) intValue(n number, t Type) (int64, error) {
	if n.float {
		return 0, p.errAt(n.pos, "expected integer elements, but parsed floating-point")
	}
	mag, err := strconv.ParseUint(n.text, 0, 64)
	if err != nil {
		return 0, p.errAt(n.pos, "integer constant out of range for attribute")
	}
	w, sign := 64, Signless
	if it, ok := t.(*IntType); ok {
		w, sign = it.Width, it.Signedness
	}
	outOfRange := func() (int64, error) {
		return 0, p.errAt(n.pos, "integer constant out of range for attribute")
	}
	if w == 0 {
		if mag != 0 {
			return outOfRange()
		}
		return 0, nil
	}
	switch sign {
	case Unsigned:
		if n.neg && mag != 0 {
			return 0, p.errAt(n.pos, "negative integer literal not valid for unsigned integer type")
		}
		if w < 64 && mag >= 1<<uint(w) {
			return outOfRange()
		}
		return int64(mag), nil
	case Signed:
		lim := uint64(1) << 63
		if w < 64 {
			lim = 1 << uint(w-1)
		}
		if (n.neg && mag > lim) || (!n.neg && mag >= lim) {
			return outOfRange()
		}
	default:
		if n.neg {
			lim := uint64(1) << 63
			if w < 64 {
				lim = 1 << uint(w-1)
			}
			if mag > lim {
				return outOfRange()
			}
		} else if w < 64 && mag >= 1<<uint(w) {
			return outOfRange()
		} else if w > 64 && mag > math.MaxInt64 {
			return outOfRange()
		}
	}
	v := int64(mag)
	if n.neg {
		v = -v
	}
	switch {
	case w == 1:
		v &= 1
	case w < 64:
		sh := uint(64 - w)
		v = v << sh >> sh
	}
	return v, nil
}

// floatValue converts a literal to a value of float type ft (rounded to it;
// hex integers are bit patterns).
func (p *parser) floatValue(n number, ft *FloatType) (float64, error) {
	if !n.float && n.isHex() {
		if n.neg {
			return 0, p.errAt(n.pos, "hexadecimal float literal should not have a leading minus")
		}
		bits, err := strconv.ParseUint(n.text, 0, 64)
		w := BitWidth(ft)
		if err != nil || (w < 64 && bits >= 1<<uint(w)) {
			return 0, p.errAt(n.pos, "hexadecimal float constant out of range for type")
		}
		switch ft.Kind {
		case KindF16:
			return float64(HalfToFloat32(uint16(bits))), nil
		case KindBF16:
			return float64(math.Float32frombits(uint32(bits) << 16)), nil
		case KindF32:
			return float64(math.Float32frombits(uint32(bits))), nil
		}
		return math.Float64frombits(bits), nil
	}
	v, err := strconv.ParseFloat(n.text, 64)
	if err != nil && !strings.Contains(err.Error(), "range") {
		return 0, p.errAt(n.pos, "invalid floating point literal")
	}
	if n.neg {
		v = -v
	}
	return roundFloat(v, ft), nil
}

func roundFloat(v float64, ft *FloatType) float64 {
	switch ft.Kind {
	case KindF16:
		return float64(HalfToFloat32(Float32ToHalf(float32(v))))
	case KindBF16:
		var b [2]byte
		PutFloat(b[:], ft, v)
		return float64(math.Float32frombits(uint32(b[0])<<16 | uint32(b[1])<<24))
	case KindF32:
		return float64(float32(v))
	}
	return v
}

// ---- dense elements ----

type denseElem struct {
	kind byte // 'n' number, 'b' bool, 's' string
	num  number
	b    bool
	s    string
	pos  int
}

func (p *parser) parseDenseElem() (denseElem, error) {
	pos := p.tok.start
	switch p.tok.kind {
	case tInt, tFloat, tMinus:
		n, err := p.parseNumber()
		return denseElem{kind: 'n', num: n, pos: pos}, err
	case tString:
		s := unquote(p.spell())
		p.advance()
		return denseElem{kind: 's', s: s, pos: pos}, nil
	case tBare:
		if sp := p.spell(); sp == "true" || sp == "false" {
			p.advance()
			return denseElem{kind: 'b', b: sp == "true", pos: pos}, nil
		}
	}
	return denseElem{}, p.expected("element literal")
}

// parseDenseList reads a nested list, appending elements to *out; it returns
// the shape of the list.
func (p *parser) parseDenseList(out *[]denseElem) ([]int64, error) {
	if err := p.enter(); err != nil {
		return nil, err
	}
	defer p.leave()
	p.advance() // [
	var shape []int64
	count := int64(0)
	first := true
	if p.tok.kind != tRBracket {
		for {
			pos := p.tok.start
			var sub []int64
			if p.tok.kind == tLBracket {
				s, err := p.parseDenseList(out)
				if err != nil {
					return nil, err
				}
				sub = s
			} else {
				e, err := p.parseDenseElem()
				if err != nil {
					return nil, err
				}
				*out = append(*out, e)
				sub = []int64{}
			}
			if first {
				shape, first = sub, false
			} else if len(sub) != len(shape) {
				return nil, p.errAt(pos, "tensor literal is invalid; ranks are not consistent between elements")
			} else {
				for i := range sub {
					if sub[i] != shape[i] {
						return nil, p.errAt(pos, "tensor literal is invalid; shapes are not consistent between elements")
					}
				}
			}
			count++
			if !p.consume(tComma) {
				break
			}
		}
	}
	if err := p.expect(tRBracket, "']' in element literal"); err != nil {
		return nil, err
	}
	return append([]int64{count}, shape...), nil
}

func shapeString(s []int64) string {
	var b strings.Builder
	b.WriteByte('[')
	for i, d := range s {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(strconv.FormatInt(d, 10))
	}
	b.WriteByte(']')
	return b.String()
}

// parseDenseAttr reads dense<...> : tensor<...>.
func (p *parser) parseDenseAttr() (Attribute, error) {
	start := p.tok.start
	p.advance()
	if err := p.expect(tLess, "'<' after 'dense'"); err != nil {
		return nil, err
	}
	var elems []denseElem
	var shape []int64 // nil: a scalar (splat)
	empty := false
	switch p.tok.kind {
	case tGreater:
		empty = true
	case tLBracket:
		s, err := p.parseDenseList(&elems)
		if err != nil {
			return nil, err
		}
		shape = s
	default:
		e, err := p.parseDenseElem()
		if err != nil {
			return nil, err
		}
		elems = append(elems, e)
	}
	if err := p.expect(tGreater, "'>' to close dense elements"); err != nil {
		return nil, err
	}
	if err := p.expect(tColon, "':' and tensor type after dense elements"); err != nil {
		return nil, err
	}
	typePos := p.tok.start
	t, err := p.parseType()
	if err != nil {
		return nil, err
	}
	tt, ok := t.(*TensorType)
	if !ok {
		return nil, p.errAt(typePos, "elements literal must be a ranked tensor type, got %s", quoteType(t))
	}
	if !tt.HasStaticShape() {
		return nil, p.errAt(typePos, "elements literal type must have static shape")
	}
	n := tt.NumElements()
	if n < 0 {
		return nil, p.errAt(typePos, "number of elements in %s overflows", quoteType(t))
	}
	eb := ElemBytes(tt.Elem)
	if eb == 0 && !isStringElemType(tt.Elem) {
		return nil, p.errAt(typePos, "invalid element type %s for dense elements", quoteType(tt.Elem))
	}
	if it, ok := tt.Elem.(*IntType); ok && it.Width > 64 {
		return nil, p.errAt(typePos, "dense integer elements wider than 64 bits are not supported")
	}
	if empty {
		if n != 0 {
			return nil, p.errAt(typePos, "parsed zero elements, but type (%s) expected at least 1", quoteType(t))
		}
		if eb == 0 {
			return &DenseElementsAttr{Type: tt, Strings: []string{}}, nil
		}
		return &DenseElementsAttr{Type: tt, Data: []byte{}}, nil
	}
	if shape != nil {
		if len(shape) != len(tt.Shape) || !equalShape(shape, tt.Shape) {
			return nil, p.errAt(start, "inferred shape of elements literal (%s) does not match type (%s)",
				shapeString(shape), shapeString(tt.Shape))
		}
	}
	splat := shape == nil && n != 1
	// A hex blob: raw little-endian data.
	if shape == nil && elems[0].kind == 's' && eb > 0 {
		s := elems[0].s
		if !strings.HasPrefix(s, "0x") {
			return nil, p.errAt(elems[0].pos, "expected string containing hex digits starting with `0x`")
		}
		data, err := hex.DecodeString(s[2:])
		if err != nil {
			return nil, p.errAt(elems[0].pos, "expected string containing hex digits starting with `0x`")
		}
		switch {
		case int64(len(data)) == int64(eb):
			return &DenseElementsAttr{Type: tt, Splat: n != 1, Data: data}, nil
		case int64(len(data)) == n*int64(eb):
			return &DenseElementsAttr{Type: tt, Data: data}, nil
		}
		return nil, p.errAt(elems[0].pos, "elements hex data size is invalid for provided type")
	}
	d := &DenseElementsAttr{Type: tt, Splat: splat}
	if eb == 0 {
		d.Strings = make([]string, len(elems))
		for i, e := range elems {
			if e.kind != 's' {
				return nil, p.errAt(e.pos, "expected string elements for element type %s", quoteType(tt.Elem))
			}
			d.Strings[i] = e.s
		}
		return d, nil
	}
	d.Data = make([]byte, len(elems)*eb)
	ft, isFloat := tt.Elem.(*FloatType)
	for i, e := range elems {
		switch e.kind {
		case 's':
			return nil, p.errAt(e.pos, "expected %s elements, but parsed string", elemKind(isFloat))
		case 'b':
			if it, ok := tt.Elem.(*IntType); !ok || it.Width != 1 {
				return nil, p.errAt(e.pos, "expected i1 type for 'true' or 'false' values")
			}
			if e.b {
				d.Data[i] = 1
			}
			continue
		}
		if isFloat {
			v, err := p.floatValue(e.num, ft)
			if err != nil {
				return nil, err
			}
			if !e.num.float && e.num.isHex() {
				bits, _ := strconv.ParseUint(e.num.text, 0, 64)
				putIntN(d.Data[i*eb:], eb, int64(bits))
				continue
			}
			PutFloat(d.Data[i*eb:], ft, v)
			continue
		}
		v, err := p.intValue(e.num, tt.Elem)
		if err != nil {
			return nil, err
		}
		putIntN(d.Data[i*eb:], eb, v)
	}
	return d, nil
}

func elemKind(isFloat bool) string {
	if isFloat {
		return "floating-point"
	}
	return "integer"
}

func isStringElemType(t Type) bool {
	_, ok := t.(*OpaqueType)
	return ok
}

func equalShape(a, b []int64) bool {
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// putIntN stores the low eb bytes of v little-endian.
func putIntN(b []byte, eb int, v int64) {
	for i := 0; i < eb; i++ {
		b[i] = byte(v >> (8 * uint(i)))
	}
}

// ---- locations ----

// locAliasRef is a use of a location alias not defined yet (MLIR prints
// location aliases at the end of the file); resolved after the file is read.
type locAliasRef struct {
	name string
	pos  int
}

func (locAliasRef) isLoc()           {}
func (l locAliasRef) String() string { return "#" + l.name }

// parseOptionalLoc reads "loc(...)" if it is next.
func (p *parser) parseOptionalLoc() (Location, bool, error) {
	if p.tok.kind != tBare || p.spell() != "loc" {
		return nil, false, nil
	}
	p.advance()
	if err := p.expect(tLParen, "'(' in location"); err != nil {
		return nil, false, err
	}
	l, err := p.parseLocInner()
	if err != nil {
		return nil, false, err
	}
	if err := p.expect(tRParen, "')' in location"); err != nil {
		return nil, false, err
	}
	return l, true, nil
}

// parseLocInner reads a location without the loc(...) wrapper.
func (p *parser) parseLocInner() (Location, error) {
	if err := p.enter(); err != nil {
		return nil, err
	}
	defer p.leave()
	switch p.tok.kind {
	case tHash:
		name := p.src[p.tok.start+1 : p.tok.end]
		pos := p.tok.start
		p.advance()
		if l, ok := p.locAliases[name]; ok {
			return l, nil
		}
		if _, ok := p.attrAliases[name]; ok {
			return nil, p.errAt(pos, "expected location, but alias '#%s' is an attribute", name)
		}
		p.deferredLocs = true
		return locAliasRef{name: name, pos: pos}, nil
	case tString:
		s := unquote(p.spell())
		p.advance()
		if p.tok.kind == tColon {
			p.advance()
			line, err := p.parseLocInt("line number")
			if err != nil {
				return nil, err
			}
			if err := p.expect(tColon, "':' and column number in location"); err != nil {
				return nil, err
			}
			col, err := p.parseLocInt("column number")
			if err != nil {
				return nil, err
			}
			return FileLineColLoc{File: s, Line: line, Col: col}, nil
		}
		if p.tok.kind == tLParen {
			p.advance()
			child, err := p.parseLocInner()
			if err != nil {
				return nil, err
			}
			if err := p.expect(tRParen, "')' after child location of NameLoc"); err != nil {
				return nil, err
			}
			return NameLoc{Name: s, Child: child}, nil
		}
		return NameLoc{Name: s}, nil
	case tBare:
		switch p.spell() {
		case "unknown":
			p.advance()
			return UnknownLoc{}, nil
		case "fused":
			p.advance()
			var fl FusedLoc
			if p.consume(tLess) {
				a, err := p.parseAttribute()
				if err != nil {
					return nil, err
				}
				fl.Metadata = a
				if err := p.expect(tGreater, "'>' after fused location metadata"); err != nil {
					return nil, err
				}
			}
			if err := p.expect(tLBracket, "'[' in fused location"); err != nil {
				return nil, err
			}
			if p.tok.kind != tRBracket {
				for {
					l, err := p.parseLocInner()
					if err != nil {
						return nil, err
					}
					fl.Locs = append(fl.Locs, l)
					if !p.consume(tComma) {
						break
					}
				}
			}
			if err := p.expect(tRBracket, "']' in fused location"); err != nil {
				return nil, err
			}
			return fl, nil
		case "callsite":
			// callsite(callee at caller), as MLIR writes a call site.
			p.advance()
			if err := p.expect(tLParen, "'(' in callsite location"); err != nil {
				return nil, err
			}
			callee, err := p.parseLocInner()
			if err != nil {
				return nil, err
			}
			if !p.isKeyword("at") {
				return nil, p.expected("'at' in callsite location")
			}
			p.advance()
			caller, err := p.parseLocInner()
			if err != nil {
				return nil, err
			}
			if err := p.expect(tRParen, "')' in callsite location"); err != nil {
				return nil, err
			}
			return CallSiteLoc{Callee: callee, Caller: caller}, nil
		}
	}
	return nil, p.expected("location instance")
}

func (p *parser) parseLocInt(what string) (int, error) {
	if p.tok.kind != tInt {
		return 0, p.expected(what)
	}
	v, err := strconv.ParseUint(p.spell(), 0, 31)
	if err != nil {
		return 0, p.errorf("%s is too large", what)
	}
	p.advance()
	return int(v), nil
}

// resolveDeferredLoc replaces uses of location aliases defined after use.
func (p *parser) resolveDeferredLoc(l Location) (Location, error) {
	switch l := l.(type) {
	case locAliasRef:
		r, ok := p.locAliases[l.name]
		if !ok {
			return nil, p.errAt(l.pos, "operation location alias was never defined")
		}
		return r, nil
	case NameLoc:
		if l.Child != nil {
			c, err := p.resolveDeferredLoc(l.Child)
			if err != nil {
				return nil, err
			}
			l.Child = c
		}
		return l, nil
	case CallSiteLoc:
		callee, err := p.resolveDeferredLoc(l.Callee)
		if err != nil {
			return nil, err
		}
		caller, err := p.resolveDeferredLoc(l.Caller)
		if err != nil {
			return nil, err
		}
		return CallSiteLoc{Callee: callee, Caller: caller}, nil
	case FusedLoc:
		locs := make([]Location, len(l.Locs))
		for i, c := range l.Locs {
			r, err := p.resolveDeferredLoc(c)
			if err != nil {
				return nil, err
			}
			locs[i] = r
		}
		l.Locs = locs
		return l, nil
	}
	return l, nil
}
