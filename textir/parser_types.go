package textir

import (
	"strconv"
	"strings"
)

// parseType reads a type. Builtin types whose spelling was seen before are
// found in typeCache by their source text without re-parsing.
func (p *parser) parseType() (Type, error) {
	switch p.tok.kind {
	case tBare:
		return p.parseBareType()
	case tLParen:
		return p.parseFunctionType()
	case tBang:
		return p.parseDialectType()
	}
	return nil, p.expected("type")
}

func (p *parser) parseBareType() (Type, error) {
	s := p.spell()
	if t, ok := p.typeCache[s]; ok && s != "tensor" {
		p.advance()
		return t, nil
	}
	var t Type
	switch s {
	case "index":
		t = Index()
	case "none":
		t = None()
	case "f16":
		t = F16()
	case "bf16":
		t = BF16()
	case "f32":
		t = F32()
	case "f64":
		t = F64()
	case "tensor":
		return p.parseTensorType()
	default:
		sign, digits := Signless, ""
		switch {
		case strings.HasPrefix(s, "si"):
			sign, digits = Signed, s[2:]
		case strings.HasPrefix(s, "ui"):
			sign, digits = Unsigned, s[2:]
		case strings.HasPrefix(s, "i"):
			digits = s[1:]
		}
		if digits == "" || !allDigits(digits) {
			return nil, p.expected("type")
		}
		w, err := strconv.ParseUint(digits, 10, 32)
		if err != nil || w > MaxIntWidth {
			return nil, p.errorf("integer bitwidth is limited to %d bits", MaxIntWidth)
		}
		t = IntegerTypeOf(int(w), sign)
	}
	p.typeCache[s] = t
	p.advance()
	return t, nil
}

func allDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if !isDigit(s[i]) {
			return false
		}
	}
	return s != ""
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

// parseTensorType reads tensor<dims x elem> or tensor<*xelem>. The
// dimension list is scanned on bytes (2x?x3xf32 is not a token sequence).
func (p *parser) parseTensorType() (Type, error) {
	start := p.tok.start
	src := p.src
	i := p.tok.end
	// Fast path: the whole spelling seen before.
	if j := strings.IndexByte(src[i:], '>'); j > 0 && src[i] == '<' {
		if t, ok := p.typeCache[src[start:i+j+1]]; ok {
			p.resetTo(i + j + 1)
			return t, nil
		}
	}
	p.advance()
	if p.tok.kind != tLess || p.tok.start != i {
		return nil, p.expected("'<' in tensor type")
	}
	if err := p.enter(); err != nil {
		return nil, err
	}
	defer p.leave()
	i = p.tok.end
	var dimsBuf [8]int64
	dims := dimsBuf[:0]
	unranked := false
	for i < len(src) && isSpace(src[i]) {
		i++
	}
	if i < len(src) && src[i] == '*' {
		unranked = true
		i++
		for i < len(src) && isSpace(src[i]) {
			i++
		}
		if i >= len(src) || src[i] != 'x' {
			p.resetTo(i)
			return nil, p.expected("'x' in unranked tensor type")
		}
		i++
	} else {
		for i < len(src) {
			ds := i
			var d int64
			if src[i] == '?' {
				d = Dynamic
				i++
			} else if isDigit(src[i]) {
				for i < len(src) && isDigit(src[i]) {
					i++
				}
				v, err := strconv.ParseInt(src[ds:i], 10, 64)
				if err != nil {
					p.resetTo(ds)
					return nil, p.errorf("dimension is too large")
				}
				d = v
			} else {
				break
			}
			j := i
			for j < len(src) && isSpace(src[j]) {
				j++
			}
			if j >= len(src) || src[j] != 'x' {
				p.resetTo(j)
				return nil, p.expected("'x' in dimension list")
			}
			dims = append(dims, d)
			i = j + 1
			for i < len(src) && isSpace(src[i]) {
				i++
			}
		}
	}
	p.resetTo(i)
	elem, err := p.parseType()
	if err != nil {
		return nil, err
	}
	switch elem.(type) {
	case *TensorType, *UnrankedTensorType, *FunctionType, *NoneType:
		return nil, p.errAt(i, "invalid tensor element type %s", quoteType(elem))
	}
	if p.tok.kind != tGreater {
		return nil, p.expected("'>' in tensor type")
	}
	end := p.tok.end
	p.advance()
	key := src[start:end]
	if t, ok := p.typeCache[key]; ok {
		return t, nil
	}
	var t Type
	if unranked {
		t = UnrankedTensorOf(elem)
	} else {
		t = TensorOf(dims, elem)
	}
	p.typeCache[key] = t
	return t, nil
}

// parseFunctionType reads (inputs) -> results.
func (p *parser) parseFunctionType() (Type, error) {
	if err := p.enter(); err != nil {
		return nil, err
	}
	defer p.leave()
	base := len(p.typeBuf)
	defer func() { p.typeBuf = p.typeBuf[:base] }()
	if err := p.parseTypeListParens(); err != nil {
		return nil, err
	}
	nIn := len(p.typeBuf) - base
	if err := p.expect(tArrow, "'->' in function type"); err != nil {
		return nil, err
	}
	if err := p.parseFunctionResults(); err != nil {
		return nil, err
	}
	ins := p.typeBuf[base : base+nIn]
	outs := p.typeBuf[base+nIn:]
	return FunctionTypeOf(ins, outs), nil
}

// parseFunctionResults reads "(t1, t2)" or a single type, appending to typeBuf.
func (p *parser) parseFunctionResults() error {
	if p.tok.kind == tLParen {
		// "(t) -> ..." would be a function type result; MLIR requires those
		// to be parenthesised, so a parenthesised list is a result list.
		return p.parseTypeListParens()
	}
	t, err := p.parseType()
	if err != nil {
		return err
	}
	p.typeBuf = append(p.typeBuf, t)
	return nil
}

// scanOptionalBody scans the <...> body that directly follows the current
// token (a '#' or '!' symbol), returning the offset after its '>', or -1 when
// there is none.
func (p *parser) scanOptionalBody() (int, error) {
	if p.tok.end < len(p.src) && p.src[p.tok.end] == '<' {
		return p.scanBody(p.tok.end)
	}
	return -1, nil
}

// scanBody returns the end offset (after the closing '>') of the balanced
// <...> body whose '<' is at start.
func (p *parser) scanBody(start int) (int, error) {
	src := p.src
	var stack []byte
	for i := start; i < len(src); i++ {
		c := src[i]
		switch c {
		case '<', '(', '[', '{':
			stack = append(stack, c)
			if int64(len(stack)) > MaxNesting {
				return 0, p.errAt(i, "%v", nestingLimit())
			}
		case '>':
			if i > start && src[i-1] == '-' { // "->" inside a body
				continue
			}
			fallthrough
		case ')', ']', '}':
			open := map[byte]byte{'>': '<', ')': '(', ']': '[', '}': '{'}[c]
			if len(stack) == 0 || stack[len(stack)-1] != open {
				return 0, p.errAt(i, "unbalanced '%c' character in pretty dialect name", c)
			}
			stack = stack[:len(stack)-1]
			if len(stack) == 0 {
				return i + 1, nil
			}
		case '"':
			var lx lexer
			lx.src = src
			t := lx.lexString(i)
			if t.kind == tError {
				return 0, p.errAt(lx.errPos, "%s", lx.errMsg)
			}
			i = t.end - 1
		}
	}
	return 0, p.errAt(start, "unbalanced '<' character in pretty dialect name")
}

// parseDialectType reads !alias, !dialect.name, !dialect.name<...> or !dialect<...>.
func (p *parser) parseDialectType() (Type, error) {
	start := p.tok.start
	ident := p.src[start+1 : p.tok.end]
	bodyEnd, err := p.scanOptionalBody()
	if err != nil {
		return nil, err
	}
	dialect, name, hasDot := strings.Cut(ident, ".")
	if !hasDot && bodyEnd < 0 {
		t, ok := p.typeAliases[ident]
		if !ok {
			return nil, p.errorf("undefined symbol alias id '%s'", ident)
		}
		p.advance()
		return t, nil
	}
	end := p.tok.end
	params := ""
	if bodyEnd >= 0 {
		params = p.src[p.tok.end+1 : bodyEnd-1]
		end = bodyEnd
	}
	key := p.src[start:end]
	if t, ok := p.typeCache[key]; ok {
		p.resetTo(end)
		return t, nil
	}
	d := p.ctx.Dialect(dialect)
	if d == nil && !p.ctx.AllowUnregistered {
		return nil, p.errAt(start, "%s", unregisteredDialect("type", "!", ident, params, bodyEnd >= 0))
	}
	var t Type
	if d != nil && d.ParseType != nil {
		dt, err := d.ParseType(name, params)
		if err != nil {
			if dg, ok := err.(*Diagnostic); ok {
				return nil, dg
			}
			return nil, p.errorf("%s", err.Error())
		}
		t = dt
	}
	if t == nil {
		t = OpaqueTypeOf(dialect, name, params)
	}
	p.typeCache[key] = t
	p.resetTo(end)
	return t, nil
}
