package textir

import "strings"

// tokKind is the kind of a token of MLIR's textual format.
type tokKind uint8

const (
	tEOF     tokKind = iota
	tError           // a lexical error; the lexer's errMsg says why
	tBare            // bare identifier: foo, i32, func.func
	tPercent         // %name
	tCaret           // ^bb0
	tHash            // #alias, #dialect.attr, #2 (result number)
	tBang            // !alias, !dialect.type
	tAt              // @sym or @"quoted sym"
	tInt             // 42, 0x1F
	tFloat           // 1.5, 2.0e-3
	tString          // "text"
	tLParen
	tRParen
	tLBracket
	tRBracket
	tLBrace
	tRBrace
	tLess
	tGreater
	tComma
	tColon
	tColonColon
	tEqual
	tArrow
	tMinus
	tPlus
	tQuestion
	tStar
	tFileMetaOpen // {-#
)

var punctSpelling = map[string]tokKind{
	"(": tLParen, ")": tRParen, "[": tLBracket, "]": tRBracket, "{": tLBrace, "}": tRBrace,
	"<": tLess, ">": tGreater, ",": tComma, ":": tColon, "::": tColonColon, "=": tEqual,
	"->": tArrow, "-": tMinus, "+": tPlus, "?": tQuestion, "*": tStar,
}

// token is one lexed token: its kind and its byte span in the source.
type token struct {
	kind       tokKind
	start, end int
}

// lexer is a hand-written on-demand lexer over the whole source text. It
// keeps no token list: the parser asks for one token at a time and may move
// the position back (to re-lex a dimension list or an opaque body).
type lexer struct {
	src    string
	pos    int
	errMsg string
	errPos int
}

func isLetter(c byte) bool { return c|0x20 >= 'a' && c|0x20 <= 'z' }
func isDigit(c byte) bool  { return c >= '0' && c <= '9' }
func isHex(c byte) bool    { return isDigit(c) || (c|0x20 >= 'a' && c|0x20 <= 'f') }

// isBareChar reports whether c may continue a bare identifier.
func isBareChar(c byte) bool { return isLetter(c) || isDigit(c) || c == '_' || c == '$' || c == '.' }

// isSuffixChar reports whether c may appear in a suffix id (%name, ^bb).
func isSuffixChar(c byte) bool {
	return isLetter(c) || isDigit(c) || c == '_' || c == '$' || c == '.' || c == '-'
}

// skipSpace skips whitespace and // comments.
func (lx *lexer) skipSpace() {
	for lx.pos < len(lx.src) {
		switch lx.src[lx.pos] {
		case ' ', '\t', '\n', '\r':
			lx.pos++
		case '/':
			if lx.pos+1 < len(lx.src) && lx.src[lx.pos+1] == '/' {
				if i := strings.IndexByte(lx.src[lx.pos:], '\n'); i >= 0 {
					lx.pos += i + 1
				} else {
					lx.pos = len(lx.src)
				}
				continue
			}
			return
		default:
			return
		}
	}
}

func (lx *lexer) fail(pos int, msg string) token {
	lx.errMsg, lx.errPos = msg, pos
	lx.pos = len(lx.src)
	return token{tError, pos, pos}
}

// next lexes the token at the current position.
func (lx *lexer) next() token {
	lx.skipSpace()
	s := lx.src
	start := lx.pos
	if start >= len(s) {
		return token{tEOF, start, start}
	}
	c := s[start]
	tok := func(k tokKind, n int) token {
		lx.pos = start + n
		return token{k, start, start + n}
	}
	switch c {
	case '(':
		return tok(tLParen, 1)
	case ')':
		return tok(tRParen, 1)
	case '[':
		return tok(tLBracket, 1)
	case ']':
		return tok(tRBracket, 1)
	case '{':
		if strings.HasPrefix(s[start:], "{-#") {
			return tok(tFileMetaOpen, 3)
		}
		return tok(tLBrace, 1)
	case '}':
		return tok(tRBrace, 1)
	case '<':
		return tok(tLess, 1)
	case '>':
		return tok(tGreater, 1)
	case ',':
		return tok(tComma, 1)
	case '=':
		return tok(tEqual, 1)
	case '+':
		return tok(tPlus, 1)
	case '?':
		return tok(tQuestion, 1)
	case '*':
		return tok(tStar, 1)
	case ':':
		if start+1 < len(s) && s[start+1] == ':' {
			return tok(tColonColon, 2)
		}
		return tok(tColon, 1)
	case '-':
		if start+1 < len(s) && s[start+1] == '>' {
			return tok(tArrow, 2)
		}
		return tok(tMinus, 1)
	case '"':
		return lx.lexString(start)
	case '%', '^':
		k := tPercent
		if c == '^' {
			k = tCaret
		}
		i := start + 1
		for i < len(s) && isSuffixChar(s[i]) {
			i++
		}
		if i == start+1 {
			if c == '%' {
				return lx.fail(start, "invalid SSA name")
			}
			return lx.fail(start, "invalid block name")
		}
		lx.pos = i
		return token{k, start, i}
	case '#', '!':
		k := tHash
		if c == '!' {
			k = tBang
		}
		i := start + 1
		if i < len(s) && (isLetter(s[i]) || s[i] == '_') {
			for i < len(s) && isBareChar(s[i]) {
				i++
			}
		} else if c == '#' && i < len(s) && isDigit(s[i]) {
			for i < len(s) && isDigit(s[i]) {
				i++
			}
		} else {
			if c == '#' {
				return lx.fail(start, "invalid attribute name")
			}
			return lx.fail(start, "invalid type identifier")
		}
		lx.pos = i
		return token{k, start, i}
	case '@':
		i := start + 1
		if i < len(s) && s[i] == '"' {
			t := lx.lexString(i)
			if t.kind == tError {
				return t
			}
			return token{tAt, start, t.end}
		}
		if i < len(s) && (isLetter(s[i]) || s[i] == '_') {
			for i < len(s) && isSuffixChar(s[i]) {
				i++
			}
			lx.pos = i
			return token{tAt, start, i}
		}
		return lx.fail(start, "invalid symbol reference, expected identifier or string after '@'")
	}
	if isDigit(c) {
		return lx.lexNumber(start)
	}
	if isLetter(c) || c == '_' {
		i := start + 1
		for i < len(s) && isBareChar(s[i]) {
			i++
		}
		lx.pos = i
		return token{tBare, start, i}
	}
	return lx.fail(start, "unexpected character '"+printableByte(c)+"'")
}

func printableByte(c byte) string {
	if c >= 0x20 && c < 0x7f {
		return string(c)
	}
	const hx = "0123456789ABCDEF"
	return `\` + string(hx[c>>4]) + string(hx[c&15])
}

func (lx *lexer) lexNumber(start int) token {
	s := lx.src
	i := start
	if s[i] == '0' && i+2 < len(s) && s[i+1] == 'x' && isHex(s[i+2]) {
		i += 2
		for i < len(s) && isHex(s[i]) {
			i++
		}
		lx.pos = i
		return token{tInt, start, i}
	}
	for i < len(s) && isDigit(s[i]) {
		i++
	}
	if i >= len(s) || s[i] != '.' {
		lx.pos = i
		return token{tInt, start, i}
	}
	i++
	for i < len(s) && isDigit(s[i]) {
		i++
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		j := i + 1
		if j < len(s) && (s[j] == '+' || s[j] == '-') {
			j++
		}
		if j < len(s) && isDigit(s[j]) {
			for j < len(s) && isDigit(s[j]) {
				j++
			}
			i = j
		}
	}
	lx.pos = i
	return token{tFloat, start, i}
}

// lexString lexes a string literal starting at the quote at start.
func (lx *lexer) lexString(start int) token {
	s := lx.src
	i := start + 1
	for i < len(s) {
		switch s[i] {
		case '"':
			lx.pos = i + 1
			return token{tString, start, i + 1}
		case '\n', '\r':
			return lx.fail(start, "expected '\"' in string literal")
		case '\\':
			if i+1 >= len(s) {
				return lx.fail(i, "unknown escape in string literal")
			}
			switch c := s[i+1]; {
			case c == '"' || c == '\\' || c == 'n' || c == 't':
				i += 2
			case i+2 < len(s) && isHex(c) && isHex(s[i+2]):
				i += 3
			default:
				return lx.fail(i, "unknown escape in string literal")
			}
			continue
		}
		i++
	}
	return lx.fail(start, "expected '\"' in string literal")
}

// unquote decodes a lexed string literal (with its quotes). The common case
// without escapes returns a substring of the source and does not allocate.
func unquote(lit string) string {
	body := lit[1 : len(lit)-1]
	if strings.IndexByte(body, '\\') < 0 {
		return body
	}
	var b strings.Builder
	b.Grow(len(body))
	for i := 0; i < len(body); i++ {
		c := body[i]
		if c != '\\' {
			b.WriteByte(c)
			continue
		}
		i++
		switch body[i] {
		case 'n':
			b.WriteByte('\n')
		case 't':
			b.WriteByte('\t')
		case '"', '\\':
			b.WriteByte(body[i])
		default:
			b.WriteByte(hexVal(body[i])<<4 | hexVal(body[i+1]))
			i++
		}
	}
	return b.String()
}

func hexVal(c byte) byte {
	switch {
	case isDigit(c):
		return c - '0'
	case c >= 'a' && c <= 'f':
		return c - 'a' + 10
	}
	return c - 'A' + 10
}

// describe renders a token for "expected X, got Y" messages.
func (lx *lexer) describe(t token) string {
	switch t.kind {
	case tEOF:
		return "end of file"
	case tError:
		return "invalid token"
	}
	sp := lx.src[t.start:t.end]
	if len(sp) > 40 {
		sp = sp[:37] + "..."
	}
	return "'" + sp + "'"
}
