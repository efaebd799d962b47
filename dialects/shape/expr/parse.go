package expr

import (
	"fmt"
	"strconv"
)

// SyntaxError is an error in expression text, at byte offset Offset.
type SyntaxError struct {
	Offset int
	Msg    string
}

func (e *SyntaxError) Error() string { return fmt.Sprintf("column %d: %s", e.Offset+1, e.Msg) }

// MaxDepth bounds the nesting of parentheses and calls in parsed text.
const MaxDepth = 200

// Parse reads an expression:
//
//	expr    := term (('+' | '-') term)*
//	term    := unary (('*' | 'floordiv' | 'ceildiv' | 'mod') unary)*
//	unary   := '-' unary | primary
//	primary := integer | name | '(' expr ')' | ('min' | 'max') '(' expr (',' expr)* ')'
//	name    := [A-Za-z_][A-Za-z0-9_.$]* | "quoted"
//
// lookup resolves names to symbols; when lookup is nil, names are s0, s1, ...
// (DefaultName). Errors are *SyntaxError with the offset of the problem
// (arithmetic errors such as a division by zero are reported at their
// operator).
func Parse(src string, lookup func(name string) (Sym, bool)) (Expr, error) {
	p := newParser(src, lookup)
	e, err := p.expr()
	if err != nil {
		return Expr{}, err
	}
	if p.tok.kind != tEOF {
		return Expr{}, p.errorf("unexpected %s after expression", p.tok.desc())
	}
	return e, nil
}

// lookupDefault resolves s<digits>.
func lookupDefault(name string) (Sym, bool) {
	if len(name) < 2 || name[0] != 's' || (name[1] == '0' && len(name) > 2) {
		return 0, false
	}
	n, err := strconv.ParseInt(name[1:], 10, 32)
	if err != nil || n < 0 {
		return 0, false
	}
	return Sym(n), true
}

type tokKind uint8

const (
	tEOF tokKind = iota
	tInt
	tIdent
	tString
	tPunct // ( ) , + - * ->
	tError
)

type token struct {
	kind  tokKind
	start int
	text  string // identifier, unquoted string, punctuation, digits
}

func (t token) desc() string {
	switch t.kind {
	case tEOF:
		return "end of expression"
	case tInt:
		return "integer " + t.text
	case tIdent:
		return "'" + t.text + "'"
	case tString:
		return "name " + Quote(t.text)
	}
	return "'" + t.text + "'"
}

type parser struct {
	src    string
	pos    int
	tok    token
	lookup func(string) (Sym, bool)
	depth  int
	err    error // lexer error
}

func newParser(src string, lookup func(string) (Sym, bool)) *parser {
	if lookup == nil {
		lookup = lookupDefault
	}
	p := &parser{src: src, lookup: lookup}
	p.next()
	return p
}

func (p *parser) errorf(format string, args ...any) error {
	if p.err != nil {
		return p.err
	}
	return &SyntaxError{Offset: p.tok.start, Msg: fmt.Sprintf(format, args...)}
}

func (p *parser) errAt(off int, format string, args ...any) error {
	return &SyntaxError{Offset: off, Msg: fmt.Sprintf(format, args...)}
}

func isIdentStart(c byte) bool { return c == '_' || ('a' <= c && c <= 'z') || ('A' <= c && c <= 'Z') }
func isIdentChar(c byte) bool {
	return isIdentStart(c) || ('0' <= c && c <= '9') || c == '.' || c == '$'
}

func unhex(c byte) (byte, bool) {
	switch {
	case '0' <= c && c <= '9':
		return c - '0', true
	case 'a' <= c && c <= 'f':
		return c - 'a' + 10, true
	case 'A' <= c && c <= 'F':
		return c - 'A' + 10, true
	}
	return 0, false
}

func (p *parser) next() {
	s := p.src
	for p.pos < len(s) && (s[p.pos] == ' ' || s[p.pos] == '\t' || s[p.pos] == '\n' || s[p.pos] == '\r') {
		p.pos++
	}
	start := p.pos
	if p.pos >= len(s) {
		p.tok = token{kind: tEOF, start: start}
		return
	}
	c := s[p.pos]
	switch {
	case '0' <= c && c <= '9':
		for p.pos < len(s) && '0' <= s[p.pos] && s[p.pos] <= '9' {
			p.pos++
		}
		p.tok = token{kind: tInt, start: start, text: s[start:p.pos]}
	case isIdentStart(c):
		for p.pos < len(s) && isIdentChar(s[p.pos]) {
			p.pos++
		}
		p.tok = token{kind: tIdent, start: start, text: s[start:p.pos]}
	case c == '"':
		p.pos++
		var buf []byte
		for {
			if p.pos >= len(s) {
				p.fail(start, "unterminated quoted name")
				return
			}
			c := s[p.pos]
			if c == '"' {
				p.pos++
				break
			}
			if c == '\\' {
				if p.pos+1 < len(s) && (s[p.pos+1] == '"' || s[p.pos+1] == '\\') {
					buf = append(buf, s[p.pos+1])
					p.pos += 2
					continue
				}
				if p.pos+2 < len(s) {
					h, ok1 := unhex(s[p.pos+1])
					l, ok2 := unhex(s[p.pos+2])
					if ok1 && ok2 {
						buf = append(buf, h<<4|l)
						p.pos += 3
						continue
					}
				}
				p.fail(p.pos, "invalid escape in quoted name")
				return
			}
			if c == '\n' {
				p.fail(p.pos, "newline in quoted name")
				return
			}
			buf = append(buf, c)
			p.pos++
		}
		p.tok = token{kind: tString, start: start, text: string(buf)}
	case c == '-' && p.pos+1 < len(s) && s[p.pos+1] == '>':
		p.pos += 2
		p.tok = token{kind: tPunct, start: start, text: "->"}
	case c == '(' || c == ')' || c == ',' || c == '+' || c == '-' || c == '*':
		p.pos++
		p.tok = token{kind: tPunct, start: start, text: s[start:p.pos]}
	default:
		p.fail(start, "unexpected character %q", rune(c))
	}
}

func (p *parser) fail(off int, format string, args ...any) {
	p.err = p.errAt(off, format, args...)
	p.tok = token{kind: tError, start: off}
	p.pos = len(p.src)
}

func (p *parser) isPunct(s string) bool { return p.tok.kind == tPunct && p.tok.text == s }
func (p *parser) isKeyword(s string) bool {
	return p.tok.kind == tIdent && p.tok.text == s
}

func (p *parser) expect(s string) error {
	if !p.isPunct(s) {
		return p.errorf("expected '%s', found %s", s, p.tok.desc())
	}
	p.next()
	return nil
}

// check turns a poisoned result into an error at off.
func (p *parser) check(e Expr, off int) (Expr, error) {
	if e.err != nil {
		return Expr{}, p.errAt(off, "%v", e.err)
	}
	return e, nil
}

func (p *parser) enter() error {
	p.depth++
	if p.depth > MaxDepth {
		return p.errorf("expression nested too deeply (more than %d levels)", MaxDepth)
	}
	return nil
}

func (p *parser) expr() (Expr, error) {
	if err := p.enter(); err != nil {
		return Expr{}, err
	}
	defer func() { p.depth-- }()
	e, err := p.term()
	if err != nil {
		return Expr{}, err
	}
	for p.isPunct("+") || p.isPunct("-") {
		op, off := p.tok.text, p.tok.start
		p.next()
		r, err := p.term()
		if err != nil {
			return Expr{}, err
		}
		if op == "+" {
			e = Add(e, r)
		} else {
			e = Sub(e, r)
		}
		if e, err = p.check(e, off); err != nil {
			return Expr{}, err
		}
	}
	return e, nil
}

func (p *parser) term() (Expr, error) {
	e, err := p.unary()
	if err != nil {
		return Expr{}, err
	}
	for {
		var op string
		switch {
		case p.isPunct("*"):
			op = "*"
		case p.isKeyword("floordiv"), p.isKeyword("ceildiv"), p.isKeyword("mod"):
			op = p.tok.text
		default:
			return e, nil
		}
		off := p.tok.start
		p.next()
		r, err := p.unary()
		if err != nil {
			return Expr{}, err
		}
		switch op {
		case "*":
			e = Mul(e, r)
		case "floordiv":
			e = FloorDiv(e, r)
		case "ceildiv":
			e = CeilDiv(e, r)
		case "mod":
			e = Mod(e, r)
		}
		if e, err = p.check(e, off); err != nil {
			return Expr{}, err
		}
	}
}

func (p *parser) unary() (Expr, error) {
	if !p.isPunct("-") {
		return p.primary()
	}
	off := p.tok.start
	p.next()
	if p.tok.kind == tInt { // a negative literal: -9223372036854775808 fits
		u, err := strconv.ParseUint(p.tok.text, 10, 64)
		if err != nil || u > 1<<63 {
			return Expr{}, p.errorf("integer %s out of range", p.tok.text)
		}
		p.next()
		return Const(-int64(u)), nil
	}
	if err := p.enter(); err != nil {
		return Expr{}, err
	}
	defer func() { p.depth-- }()
	e, err := p.unary()
	if err != nil {
		return Expr{}, err
	}
	return p.check(Neg(e), off)
}

func (p *parser) primary() (Expr, error) {
	t := p.tok
	switch t.kind {
	case tInt:
		v, err := strconv.ParseInt(t.text, 10, 64)
		if err != nil {
			return Expr{}, p.errorf("integer %s out of range", t.text)
		}
		p.next()
		return Const(v), nil
	case tString:
		return p.name(t)
	case tIdent:
		if t.text == "min" || t.text == "max" {
			return p.call(t)
		}
		if keywords[t.text] {
			return Expr{}, p.errorf("expected an expression, found keyword '%s'", t.text)
		}
		return p.name(t)
	case tPunct:
		if t.text == "(" {
			p.next()
			e, err := p.expr()
			if err != nil {
				return Expr{}, err
			}
			if err := p.expect(")"); err != nil {
				return Expr{}, err
			}
			return e, nil
		}
	}
	return Expr{}, p.errorf("expected an expression, found %s", t.desc())
}

func (p *parser) name(t token) (Expr, error) {
	s, ok := p.lookup(t.text)
	if !ok {
		return Expr{}, p.errorf("unknown symbol %s", nameDesc(t.text))
	}
	p.next()
	return Var(s), nil
}

func nameDesc(s string) string {
	if IsIdent(s) {
		return "'" + s + "'"
	}
	return Quote(s)
}

func (p *parser) call(t token) (Expr, error) {
	p.next()
	if err := p.expect("("); err != nil {
		return Expr{}, err
	}
	var args []Expr
	for {
		e, err := p.expr()
		if err != nil {
			return Expr{}, err
		}
		args = append(args, e)
		if p.isPunct(",") {
			p.next()
			continue
		}
		if err := p.expect(")"); err != nil {
			return Expr{}, err
		}
		break
	}
	if t.text == "min" {
		return p.check(Min(args...), t.start)
	}
	return p.check(Max(args...), t.start)
}
