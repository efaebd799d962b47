package expr

import (
	"strconv"
	"strings"
)

// String prints e with symbols named s0, s1, ...: "s0 * 8 + 2".
func (e Expr) String() string { return e.Format(nil) }

// DefaultName is the name of symbol s when no other is given: "s3".
func DefaultName(s Sym) string { return "s" + strconv.Itoa(int(s)) }

// Format prints e, naming symbols with name (nil: DefaultName). Names that
// are not identifiers, or are keywords, print quoted. A poisoned
// expression prints as "<error: ...>".
func (e Expr) Format(name func(Sym) string) string {
	if name == nil {
		name = DefaultName
	}
	var b strings.Builder
	e.format(&b, name)
	return b.String()
}

func (e Expr) format(b *strings.Builder, name func(Sym) string) {
	if e.err != nil {
		b.WriteString("<error: " + e.err.Error() + ">")
		return
	}
	if len(e.ts) == 0 {
		b.WriteString(strconv.FormatInt(e.c, 10))
		return
	}
	for i, t := range e.ts {
		coef := t.coef
		switch {
		case i == 0 && coef < 0 && coef != minInt64:
			b.WriteString("-")
			coef = -coef
		case i > 0 && coef < 0 && coef != minInt64:
			b.WriteString(" - ")
			coef = -coef
		case i > 0:
			b.WriteString(" + ")
		}
		// A leading "-" binds tighter than floordiv: -(x floordiv 2).
		lone := len(t.fs) == 1 && t.fs[0].pow == 1 && coef == 1
		wrap := !(lone && (i > 0 || t.coef > 0))
		for j, f := range t.fs {
			for k := range f.pow {
				if j > 0 || k > 0 {
					b.WriteString(" * ")
				}
				f.a.format(b, name, wrap)
			}
		}
		if coef != 1 {
			b.WriteString(" * ")
			b.WriteString(strconv.FormatInt(coef, 10))
		}
	}
	switch {
	case e.c > 0:
		b.WriteString(" + ")
		b.WriteString(strconv.FormatInt(e.c, 10))
	case e.c < 0 && e.c != minInt64:
		b.WriteString(" - ")
		b.WriteString(strconv.FormatInt(-e.c, 10))
	case e.c == minInt64:
		b.WriteString(" + ")
		b.WriteString(strconv.FormatInt(e.c, 10))
	}
}

const minInt64 = -1 << 63

// formatOperand prints e as an operand of floordiv/mod: parenthesised
// unless it is a single symbol or a non-negative constant.
func (e Expr) formatOperand(b *strings.Builder, name func(Sym) string) {
	if _, ok := e.AsSym(); ok {
		e.format(b, name)
		return
	}
	if c, ok := e.IsConst(); ok && c >= 0 {
		e.format(b, name)
		return
	}
	if a, ok := e.bareAtom(); ok && (a.kind == KindMin || a.kind == KindMax) {
		e.format(b, name)
		return
	}
	b.WriteByte('(')
	e.format(b, name)
	b.WriteByte(')')
}

// format prints an atom; wrap parenthesises floordiv and mod (needed when
// the atom is one factor of a product).
func (a *atom) format(b *strings.Builder, name func(Sym) string, wrap bool) {
	switch a.kind {
	case KindSym:
		writeName(b, name(a.sym))
	case KindFloorDiv, KindMod:
		if wrap {
			b.WriteByte('(')
		}
		num, op := a.args[0], " "+a.kind.String()+" "
		// (m + c - 1) floordiv c prints as m ceildiv c.
		if c, ok := a.args[1].IsConst(); ok && a.kind == KindFloorDiv && c > 1 && num.c == c-1 && len(num.ts) > 0 {
			num = Expr{ts: num.ts}
			op = " ceildiv "
		}
		num.formatOperand(b, name)
		b.WriteString(op)
		a.args[1].formatOperand(b, name)
		if wrap {
			b.WriteByte(')')
		}
	case KindMin, KindMax:
		b.WriteString(a.kind.String())
		b.WriteByte('(')
		for i, x := range a.args {
			if i > 0 {
				b.WriteString(", ")
			}
			x.format(b, name)
		}
		b.WriteByte(')')
	}
}

var keywords = map[string]bool{"floordiv": true, "ceildiv": true, "mod": true, "min": true, "max": true}

// IsIdent reports whether s prints bare: an identifier
// ([A-Za-z_][A-Za-z0-9_.$]*) that is not a keyword.
func IsIdent(s string) bool {
	if s == "" || keywords[s] {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '_' || ('a' <= c && c <= 'z') || ('A' <= c && c <= 'Z'):
		case i > 0 && (('0' <= c && c <= '9') || c == '.' || c == '$'):
		default:
			return false
		}
	}
	return true
}

func writeName(b *strings.Builder, s string) {
	if IsIdent(s) {
		b.WriteString(s)
		return
	}
	b.WriteString(Quote(s))
}

// Quote quotes a name with MLIR's string escapes (\", \\, \XX for other
// bytes outside printable ASCII), so that it survives inside an attribute.
func Quote(s string) string {
	const hex = "0123456789ABCDEF"
	var b strings.Builder
	b.WriteByte('"')
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '"' || c == '\\':
			b.WriteByte('\\')
			b.WriteByte(c)
		case c < 0x20 || c >= 0x7f:
			b.WriteByte('\\')
			b.WriteByte(hex[c>>4])
			b.WriteByte(hex[c&15])
		default:
			b.WriteByte(c)
		}
	}
	b.WriteByte('"')
	return b.String()
}
