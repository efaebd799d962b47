// Package expr is the symbolic integer algebra of recom's shape dialect:
// expressions over symbols (input dimensions such as the batch size, and
// data-dependent counts such as the number of values of a column) with +,
// -, *, floordiv, ceildiv, mod, min and max, always kept in one canonical
// simplified form, so that two expressions the rules can prove equal are
// structurally equal (Equal, Compare).
//
// # Canonical form
//
// An Expr is a sum of terms plus an integer constant. A term is a nonzero
// integer coefficient times a product of atoms (with powers); an atom is a
// symbol, a floordiv, a mod, a min or a max, whose arguments are themselves
// canonical. Terms are sorted (higher degree first, then by atoms; symbols
// by id) and equal products are merged, so polynomial identities such as
// (a + b) * (a - b) == a*a - b*b are decided exactly.
//
// Every constructor simplifies as it builds:
//   - constants fold everywhere, with int64 overflow checks;
//   - floordiv and mod follow floor semantics (the result of mod has the sign
//     of the divisor): -7 floordiv 2 = -4, -7 mod 2 = 1, 7 mod -2 = -1;
//   - x floordiv 1 = x, x mod 1 = 0, (c·q·x + r) floordiv c = q·x + r floordiv c
//     (every coefficient of a floordiv or mod numerator by a constant c ends
//     up in [0, c)), a common factor of the numerator's coefficients and
//     the divisor is cancelled ((8·x) floordiv 4 = 2·x, (4x + 2) floordiv 8 =
//     (2x + 1) floordiv 4), nested divisions merge ((x floordiv a + k)
//     floordiv b = (x + k·a) floordiv (a·b)), and terms divisible by a
//     monomial divisor leave the atom ((x·n + y) floordiv n = x + y floordiv n);
//   - x ceildiv c is (x + c - 1) floordiv c (and prints back as ceildiv);
//     with a symbolic divisor, x ceildiv d = -((-x) floordiv d);
//   - min and max flatten, drop duplicates and arguments another argument
//     dominates, and factor out what all arguments share (min(x + 2, y + 2)
//     = min(x, y) + 2, max(2x, 2y) = 2·max(x, y), min(-x, -y) = -max(x, y)).
//
// Dominance and the other proofs use interval bounds (Bounds) in which every
// symbol is a size: symbols are ≥ 0. So max(batch, 2·batch) = 2·batch,
// min(x, 0) = 0 and (x mod 4) floordiv 4 = 0. A symbolic divisor is
// assumed nonzero (division by zero is undefined; simplifications may
// remove it).
//
// Arithmetic that overflows int64, division by a constant zero, and
// expressions beyond MaxTerms terms give a poisoned Expr: Err reports why,
// and every expression built from it is poisoned too.
//
// # Symbols and text
//
// A Sym is a small integer. What it stands for is up to its user: in a
// Table it is a global symbol with a name and a kind (an input dimension or
// a data-dependent count) and equality classes (union-find, with
// definitions of symbols by expressions); in a Map it is the index of a
// parameter. Expressions print as "s0 * 8 + 2" (String) or with names
// (Format, Table.Format: "batch * 8 + 2"), and Parse reads that syntax back.
package expr

import (
	"errors"
	"fmt"
	"math"
	"slices"
)

// Sym is a symbol: an index into a Table, or a parameter of a Map.
type Sym int32

// MaxTerms bounds the number of terms of one sum (products of large sums
// grow quickly); larger expressions are poisoned.
const MaxTerms = 4096

// ErrOverflow is reported (wrapped) when constant arithmetic overflows int64.
var ErrOverflow = errors.New("integer overflow")

// ErrDivByZero is reported (wrapped) for a division or mod by zero.
var ErrDivByZero = errors.New("division by zero")

// Kind is the kind of an atom.
type Kind uint8

// Atom kinds, in their canonical order.
const (
	KindSym Kind = iota
	KindFloorDiv
	KindMod
	KindMin
	KindMax
)

func (k Kind) String() string {
	return [...]string{"sym", "floordiv", "mod", "min", "max"}[k]
}

// atom is an indivisible factor: a symbol, a floordiv or mod (args: num,
// den), or a min or max (two or more sorted args).
type atom struct {
	kind Kind
	sym  Sym
	args []Expr
}

type factor struct {
	a   *atom
	pow int
}

// term is coef · Π factors; fs is non-empty and sorted.
type term struct {
	coef int64
	fs   []factor
}

// Expr is a canonical symbolic integer expression. The zero value is the
// constant 0. Exprs are immutable values.
type Expr struct {
	ts  []term
	c   int64
	err error
}

// Const returns the constant c.
func Const(c int64) Expr { return Expr{c: c} }

// Var returns the symbol s.
func Var(s Sym) Expr {
	return Expr{ts: []term{{coef: 1, fs: []factor{{a: &atom{kind: KindSym, sym: s}, pow: 1}}}}}
}

// Poison returns an expression poisoned with err.
func Poison(err error) Expr {
	if err == nil {
		err = errors.New("poisoned expression")
	}
	return Expr{err: err}
}

// Err returns why e is poisoned, or nil.
func (e Expr) Err() error { return e.err }

// IsConst reports whether e is a constant, and its value.
func (e Expr) IsConst() (int64, bool) { return e.c, e.err == nil && len(e.ts) == 0 }

// AsSym reports whether e is exactly one symbol, and which.
func (e Expr) AsSym() (Sym, bool) {
	if a, ok := e.bareAtom(); ok && a.kind == KindSym {
		return a.sym, true
	}
	return 0, false
}

// bareAtom reports whether e is exactly one atom (coefficient 1, power 1, no constant).
func (e Expr) bareAtom() (*atom, bool) {
	if e.err != nil || e.c != 0 || len(e.ts) != 1 || e.ts[0].coef != 1 || len(e.ts[0].fs) != 1 || e.ts[0].fs[0].pow != 1 {
		return nil, false
	}
	return e.ts[0].fs[0].a, true
}

// Equal reports whether a and b are structurally equal (poisoned
// expressions are equal to nothing).
func (a Expr) Equal(b Expr) bool {
	return a.err == nil && b.err == nil && Compare(a, b) == 0
}

// Compare orders canonical expressions totally (poisoned expressions first).
func Compare(a, b Expr) int {
	if (a.err != nil) != (b.err != nil) {
		if a.err != nil {
			return -1
		}
		return 1
	}
	for i := 0; i < len(a.ts) && i < len(b.ts); i++ {
		if c := compareTerm(a.ts[i], b.ts[i]); c != 0 {
			return c
		}
		if c := cmpInt(a.ts[i].coef, b.ts[i].coef); c != 0 {
			return c
		}
	}
	// More terms first, so that constants sort last: min(x, 3).
	if c := cmpInt(int64(len(b.ts)), int64(len(a.ts))); c != 0 {
		return c
	}
	return cmpInt(a.c, b.c)
}

func cmpInt(a, b int64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

func degree(t term) int {
	d := 0
	for _, f := range t.fs {
		d += f.pow
	}
	return d
}

// compareTerm orders products (ignoring coefficients): higher degree first,
// then lexicographically by factors.
func compareTerm(a, b term) int {
	if da, db := degree(a), degree(b); da != db {
		if da > db {
			return -1
		}
		return 1
	}
	for i := 0; i < len(a.fs) && i < len(b.fs); i++ {
		if c := compareAtom(a.fs[i].a, b.fs[i].a); c != 0 {
			return c
		}
		if a.fs[i].pow != b.fs[i].pow {
			if a.fs[i].pow > b.fs[i].pow {
				return -1
			}
			return 1
		}
	}
	return cmpInt(int64(len(a.fs)), int64(len(b.fs)))
}

func compareAtom(a, b *atom) int {
	if a == b {
		return 0
	}
	if a.kind != b.kind {
		return cmpInt(int64(a.kind), int64(b.kind))
	}
	if a.kind == KindSym {
		return cmpInt(int64(a.sym), int64(b.sym))
	}
	if c := cmpInt(int64(len(a.args)), int64(len(b.args))); c != 0 {
		return c
	}
	for i := range a.args {
		if c := Compare(a.args[i], b.args[i]); c != 0 {
			return c
		}
	}
	return 0
}

// ---- checked integer arithmetic ----

func add64(a, b int64) (int64, bool) {
	s := a + b
	return s, (a >= 0) == (b >= 0) && (s >= 0) != (a >= 0)
}

func mul64(a, b int64) (int64, bool) {
	if a == 0 || b == 0 {
		return 0, false
	}
	p := a * b
	if (a == -1 && b == math.MinInt64) || (b == -1 && a == math.MinInt64) || p/b != a {
		return p, true
	}
	return p, false
}

// floorDiv64 is floor(a / b); b != 0. The only overflow is MinInt64 / -1.
func floorDiv64(a, b int64) (int64, bool) {
	if b == -1 {
		if a == math.MinInt64 {
			return 0, true
		}
		return -a, false
	}
	q := a / b
	if (a%b != 0) && ((a < 0) != (b < 0)) {
		q--
	}
	return q, false
}

// floorMod64 is a - b·floor(a/b), with the sign of b; b != 0.
func floorMod64(a, b int64) int64 {
	if b == -1 {
		return 0
	}
	m := a % b
	if m != 0 && ((m < 0) != (b < 0)) {
		m += b
	}
	return m
}

func gcd(a, b int64) int64 {
	if a < 0 {
		a = -a
	}
	if b < 0 {
		b = -b
	}
	for b != 0 {
		a, b = b, a%b
	}
	return a
}

func overflow(op string) Expr { return Poison(fmt.Errorf("%w in %s", ErrOverflow, op)) }

// firstErr returns the first poisoned expression among es.
func firstErr(es ...Expr) (Expr, bool) {
	for _, e := range es {
		if e.err != nil {
			return e, true
		}
	}
	return Expr{}, false
}

// ---- sums ----

// Add returns a + b.
func Add(a, b Expr) Expr {
	if p, bad := firstErr(a, b); bad {
		return p
	}
	c, ov := add64(a.c, b.c)
	if ov {
		return overflow("addition")
	}
	if len(a.ts) == 0 {
		return Expr{ts: b.ts, c: c}
	}
	if len(b.ts) == 0 {
		return Expr{ts: a.ts, c: c}
	}
	ts := make([]term, 0, len(a.ts)+len(b.ts))
	i, j := 0, 0
	for i < len(a.ts) && j < len(b.ts) {
		switch x := compareTerm(a.ts[i], b.ts[j]); {
		case x < 0:
			ts = append(ts, a.ts[i])
			i++
		case x > 0:
			ts = append(ts, b.ts[j])
			j++
		default:
			k, ov := add64(a.ts[i].coef, b.ts[j].coef)
			if ov {
				return overflow("addition")
			}
			if k != 0 {
				ts = append(ts, term{coef: k, fs: a.ts[i].fs})
			}
			i++
			j++
		}
	}
	ts = append(ts, a.ts[i:]...)
	ts = append(ts, b.ts[j:]...)
	if len(ts) > MaxTerms {
		return tooLarge()
	}
	return Expr{ts: ts, c: c}
}

func tooLarge() Expr {
	return Poison(fmt.Errorf("expression too large (more than %d terms)", MaxTerms))
}

// Sub returns a - b.
func Sub(a, b Expr) Expr { return Add(a, Neg(b)) }

// Neg returns -a.
func Neg(a Expr) Expr { return Scale(a, -1) }

// Scale returns k·a.
func Scale(a Expr, k int64) Expr {
	if a.err != nil || k == 1 {
		return a
	}
	if k == 0 {
		return Expr{}
	}
	c, ov := mul64(a.c, k)
	if ov {
		return overflow("multiplication")
	}
	ts := make([]term, len(a.ts))
	for i, t := range a.ts {
		x, ov := mul64(t.coef, k)
		if ov {
			return overflow("multiplication")
		}
		ts[i] = term{coef: x, fs: t.fs}
	}
	return Expr{ts: ts, c: c}
}

// Sum returns the sum of es.
func Sum(es ...Expr) Expr {
	var s Expr
	for _, e := range es {
		s = Add(s, e)
	}
	return s
}

// mulFactors multiplies two sorted factor lists.
func mulFactors(a, b []factor) []factor {
	fs := make([]factor, 0, len(a)+len(b))
	i, j := 0, 0
	for i < len(a) && j < len(b) {
		switch c := compareAtom(a[i].a, b[j].a); {
		case c < 0:
			fs = append(fs, a[i])
			i++
		case c > 0:
			fs = append(fs, b[j])
			j++
		default:
			fs = append(fs, factor{a: a[i].a, pow: a[i].pow + b[j].pow})
			i++
			j++
		}
	}
	fs = append(fs, a[i:]...)
	return append(fs, b[j:]...)
}

// Mul returns a · b (distributed).
func Mul(a, b Expr) Expr {
	if p, bad := firstErr(a, b); bad {
		return p
	}
	if k, ok := a.IsConst(); ok {
		return Scale(b, k)
	}
	if k, ok := b.IsConst(); ok {
		return Scale(a, k)
	}
	if (len(a.ts)+1)*(len(b.ts)+1) > 4*MaxTerms {
		return tooLarge()
	}
	var parts []term
	addTerm := func(coef int64, fs []factor) bool {
		if coef == 0 {
			return true
		}
		parts = append(parts, term{coef: coef, fs: fs})
		return true
	}
	for _, x := range a.ts {
		for _, y := range b.ts {
			k, ov := mul64(x.coef, y.coef)
			if ov {
				return overflow("multiplication")
			}
			addTerm(k, mulFactors(x.fs, y.fs))
		}
		k, ov := mul64(x.coef, b.c)
		if ov {
			return overflow("multiplication")
		}
		addTerm(k, x.fs)
	}
	for _, y := range b.ts {
		k, ov := mul64(y.coef, a.c)
		if ov {
			return overflow("multiplication")
		}
		addTerm(k, y.fs)
	}
	c, ov := mul64(a.c, b.c)
	if ov {
		return overflow("multiplication")
	}
	return collect(parts, c)
}

// collect sorts and merges terms into a canonical sum.
func collect(parts []term, c int64) Expr {
	slices.SortStableFunc(parts, compareTerm)
	ts := parts[:0]
	for _, t := range parts {
		if n := len(ts); n > 0 && compareTerm(ts[n-1], t) == 0 {
			k, ov := add64(ts[n-1].coef, t.coef)
			if ov {
				return overflow("addition")
			}
			ts[n-1].coef = k
			continue
		}
		ts = append(ts, t)
	}
	out := ts[:0]
	for _, t := range ts {
		if t.coef != 0 {
			out = append(out, t)
		}
	}
	if len(out) > MaxTerms {
		return tooLarge()
	}
	if len(out) == 0 {
		out = nil
	}
	return Expr{ts: out, c: c}
}

func atomExpr(a *atom) Expr {
	return Expr{ts: []term{{coef: 1, fs: []factor{{a: a, pow: 1}}}}}
}

// lead returns the coefficient of e's first term (0 when e is a constant).
func (e Expr) lead() int64 {
	if len(e.ts) == 0 {
		return 0
	}
	return e.ts[0].coef
}

// monomial reports whether e is one term without a constant.
func (e Expr) monomial() (term, bool) {
	if len(e.ts) == 1 && e.c == 0 {
		return e.ts[0], true
	}
	return term{}, false
}

// divTerm divides term t by the monomial m exactly, if it can.
func divTerm(t, m term) (term, bool) {
	if t.coef%m.coef != 0 {
		return term{}, false
	}
	var fs []factor
	j := 0
	for _, f := range t.fs {
		if j < len(m.fs) && compareAtom(f.a, m.fs[j].a) == 0 {
			if f.pow < m.fs[j].pow {
				return term{}, false
			}
			if f.pow > m.fs[j].pow {
				fs = append(fs, factor{a: f.a, pow: f.pow - m.fs[j].pow})
			}
			j++
			continue
		}
		fs = append(fs, f)
	}
	if j < len(m.fs) {
		return term{}, false
	}
	return term{coef: t.coef / m.coef, fs: fs}, true
}

// splitByMonomial splits n into q·m + r where r has no term divisible by m.
func splitByMonomial(n Expr, m term) (q, r Expr) {
	var qs, rs []term
	for _, t := range n.ts {
		if d, ok := divTerm(t, m); ok {
			qs = append(qs, d)
		} else {
			rs = append(rs, t)
		}
	}
	qc := int64(0)
	rc := n.c
	// A constant is divisible only by a constant monomial, which is not a term.
	q = Expr{}
	for _, t := range qs {
		if len(t.fs) == 0 {
			var ov bool
			if qc, ov = add64(qc, t.coef); ov {
				return Expr{}, n
			}
			continue
		}
		q = Add(q, Expr{ts: []term{t}})
	}
	q = Add(q, Const(qc))
	return q, Expr{ts: rs, c: rc}
}

// ---- floordiv, ceildiv, mod ----

// FloorDiv returns floor(n / d).
func FloorDiv(n, d Expr) Expr {
	if p, bad := firstErr(n, d); bad {
		return p
	}
	if c, ok := d.IsConst(); ok {
		switch {
		case c == 0:
			return Poison(fmt.Errorf("%w in floordiv", ErrDivByZero))
		case c < 0:
			if c == math.MinInt64 {
				return overflow("floordiv")
			}
			return floorDivConst(Neg(n), -c)
		}
		return floorDivConst(n, c)
	}
	if d.lead() < 0 {
		n, d = Neg(n), Neg(d)
		if p, bad := firstErr(n, d); bad {
			return p
		}
	}
	if len(n.ts) == 0 && n.c == 0 {
		return Expr{}
	}
	if n.Equal(d) {
		return Const(1)
	}
	if m, ok := d.monomial(); ok {
		if q, r := splitByMonomial(n, m); len(q.ts) > 0 || q.c != 0 {
			return Add(q, FloorDiv(r, d))
		}
	}
	bn, bd := Bounds(n), Bounds(d)
	if bd.Lo.ge(0) {
		// d > 0 (nonzero assumed).
		if bn.Lo.ge(0) && Bounds(Sub(d, n)).Lo.ge(1) {
			return Expr{}
		}
		if a, ok := n.bareAtom(); ok && a.kind == KindFloorDiv && Bounds(a.args[1]).Lo.ge(0) {
			return FloorDiv(a.args[0], Mul(a.args[1], d))
		}
	}
	return atomExpr(&atom{kind: KindFloorDiv, args: []Expr{n, d}})
}

// reduceConst splits n into q·c + r where every coefficient of r and its
// constant are in [0, c); c > 0.
func reduceConst(n Expr, c int64) (q, r Expr, ok bool) {
	var qs, rs []term
	for _, t := range n.ts {
		qc, _ := floorDiv64(t.coef, c)
		rc := floorMod64(t.coef, c)
		if qc != 0 {
			qs = append(qs, term{coef: qc, fs: t.fs})
		}
		if rc != 0 {
			rs = append(rs, term{coef: rc, fs: t.fs})
		}
	}
	qc, _ := floorDiv64(n.c, c)
	rc := floorMod64(n.c, c)
	return Expr{ts: qs, c: qc}, Expr{ts: rs, c: rc}, true
}

// floorDivConst is floor(n / c) for c > 0.
func floorDivConst(n Expr, c int64) Expr {
	if n.err != nil || c == 1 {
		return n
	}
	if v, ok := n.IsConst(); ok {
		q, _ := floorDiv64(v, c)
		return Const(q)
	}
	q, r, _ := reduceConst(n, c)
	// Cancel the common factor of r's coefficients and c:
	// floor((g·m + k) / (g·c')) = floor((m + floor(k/g)) / c').
	g := c
	for _, t := range r.ts {
		g = gcd(g, t.coef)
	}
	if g > 1 {
		ts := make([]term, len(r.ts))
		for i, t := range r.ts {
			ts[i] = term{coef: t.coef / g, fs: t.fs}
		}
		r = Expr{ts: ts, c: r.c / g}
		c /= g
	}
	if len(r.ts) == 0 || c == 1 {
		if c == 1 {
			return Add(q, r)
		}
		k, _ := floorDiv64(r.c, c)
		return Add(q, Const(k))
	}
	b := Bounds(r)
	if b.Lo.ge(0) && b.Hi.le(c-1) {
		return q
	}
	// (x floordiv a + k) floordiv c = (x + k·a) floordiv (a·c).
	if len(r.ts) == 1 && r.ts[0].coef == 1 && len(r.ts[0].fs) == 1 && r.ts[0].fs[0].pow == 1 {
		if a := r.ts[0].fs[0].a; a.kind == KindFloorDiv {
			if ac, ok := a.args[1].IsConst(); ok {
				if ka, ov := mul64(r.c, ac); !ov {
					if prod, ov := mul64(ac, c); !ov {
						inner := Add(a.args[0], Const(ka))
						if inner.err == nil {
							return Add(q, floorDivConst(inner, prod))
						}
					}
				}
			}
		}
	}
	return Add(q, atomExpr(&atom{kind: KindFloorDiv, args: []Expr{r, Const(c)}}))
}

// CeilDiv returns ceil(n / d).
func CeilDiv(n, d Expr) Expr {
	if p, bad := firstErr(n, d); bad {
		return p
	}
	if c, ok := d.IsConst(); ok {
		switch {
		case c == 0:
			return Poison(fmt.Errorf("%w in ceildiv", ErrDivByZero))
		case c < 0:
			if c == math.MinInt64 {
				return overflow("ceildiv")
			}
			return CeilDiv(Neg(n), Const(-c))
		}
		return FloorDiv(Add(n, Const(c-1)), d)
	}
	return Neg(FloorDiv(Neg(n), d))
}

// Mod returns n - d·floor(n / d) (the sign of d).
func Mod(n, d Expr) Expr {
	if p, bad := firstErr(n, d); bad {
		return p
	}
	if c, ok := d.IsConst(); ok {
		switch {
		case c == 0:
			return Poison(fmt.Errorf("%w in mod", ErrDivByZero))
		case c < 0:
			if c == math.MinInt64 {
				return overflow("mod")
			}
			return Neg(modConst(Neg(n), -c))
		}
		return modConst(n, c)
	}
	if d.lead() < 0 {
		return Neg(Mod(Neg(n), Neg(d)))
	}
	if (len(n.ts) == 0 && n.c == 0) || n.Equal(d) {
		return Expr{}
	}
	if a, ok := n.bareAtom(); ok && a.kind == KindMod && a.args[1].Equal(d) {
		return n // (x mod d) mod d
	}
	if m, ok := d.monomial(); ok {
		if q, r := splitByMonomial(n, m); len(q.ts) > 0 || q.c != 0 {
			return Mod(r, d)
		}
	}
	if Bounds(d).Lo.ge(0) && Bounds(n).Lo.ge(0) && Bounds(Sub(d, n)).Lo.ge(1) {
		return n
	}
	return atomExpr(&atom{kind: KindMod, args: []Expr{n, d}})
}

// modConst is n mod c for c > 0.
func modConst(n Expr, c int64) Expr {
	if n.err != nil {
		return n
	}
	if c == 1 {
		return Expr{}
	}
	if v, ok := n.IsConst(); ok {
		return Const(floorMod64(v, c))
	}
	_, r, _ := reduceConst(n, c)
	if len(r.ts) == 0 {
		return Const(r.c)
	}
	// (g·m + k) mod (g·c') = g·((m + k/g) mod c') + k mod g.
	g := c
	for _, t := range r.ts {
		g = gcd(g, t.coef)
	}
	if g > 1 {
		ts := make([]term, len(r.ts))
		for i, t := range r.ts {
			ts[i] = term{coef: t.coef / g, fs: t.fs}
		}
		m := Expr{ts: ts, c: r.c / g}
		return Add(Scale(modConst(m, c/g), g), Const(r.c%g))
	}
	b := Bounds(r)
	if b.Lo.ge(0) && b.Hi.le(c-1) {
		return r
	}
	// (x mod a) mod c = x mod c when c divides a.
	if a, ok := r.bareAtom(); ok && a.kind == KindMod {
		if ac, ok := a.args[1].IsConst(); ok && ac%c == 0 {
			return modConst(a.args[0], c)
		}
	}
	return atomExpr(&atom{kind: KindMod, args: []Expr{r, Const(c)}})
}

// ---- min, max ----

// Min returns the minimum of es (at least one).
func Min(es ...Expr) Expr { return minMax(KindMin, es) }

// Max returns the maximum of es (at least one).
func Max(es ...Expr) Expr { return minMax(KindMax, es) }

func minMax(kind Kind, es []Expr) Expr {
	if len(es) == 0 {
		return Poison(fmt.Errorf("%s of no arguments", kind))
	}
	if p, bad := firstErr(es...); bad {
		return p
	}
	// Flatten nested atoms of the same kind.
	var args []Expr
	for _, e := range es {
		if a, ok := e.bareAtom(); ok && a.kind == kind {
			args = append(args, a.args...)
			continue
		}
		args = append(args, e)
	}
	slices.SortFunc(args, Compare)
	args = slices.CompactFunc(args, func(a, b Expr) bool { return Compare(a, b) == 0 })
	// Drop dominated arguments: for min, b is redundant if some a ≤ b.
	keep := args[:0:0]
	for j, b := range args {
		dominated := false
		for i, a := range args {
			if i == j {
				continue
			}
			d := Sub(a, b)
			if d.err != nil {
				continue
			}
			bd := Bounds(d)
			if (kind == KindMin && bd.Hi.le(0)) || (kind == KindMax && bd.Lo.ge(0)) {
				// a dominates b; among mutually dominating (equal) arguments keep the first.
				if bd.Lo.ge(0) && bd.Hi.le(0) && i > j {
					continue
				}
				dominated = true
				break
			}
		}
		if !dominated {
			keep = append(keep, b)
		}
	}
	args = keep
	if len(args) == 1 {
		return args[0]
	}
	// Factor out the common part: shared terms, the smallest constant, and
	// the gcd of the coefficients.
	common := Expr{}
	for _, t := range args[0].ts {
		shared := true
		for _, a := range args[1:] {
			i, found := slices.BinarySearchFunc(a.ts, t, compareTerm)
			if !found || a.ts[i].coef != t.coef {
				shared = false
				break
			}
		}
		if shared {
			common.ts = append(common.ts, t)
		}
	}
	common.c = args[0].c
	for _, a := range args[1:] {
		common.c = min(common.c, a.c)
	}
	g := int64(0)
	allNeg := true
	rest := make([]Expr, len(args))
	for i, a := range args {
		r := Sub(a, common)
		if r.err != nil {
			return atomExpr(&atom{kind: kind, args: args})
		}
		rest[i] = r
		for _, t := range r.ts {
			g = gcd(g, t.coef)
			if t.coef > 0 {
				allNeg = false
			}
		}
		g = gcd(g, r.c)
	}
	if g == 0 {
		g = 1
	}
	if len(common.ts) > 0 || common.c != 0 || g > 1 {
		for i := range rest {
			rest[i] = divExact(rest[i], g)
		}
		return Add(common, Scale(minMax(kind, rest), g))
	}
	if allNeg {
		other := KindMax
		if kind == KindMax {
			other = KindMin
		}
		for i := range rest {
			rest[i] = Neg(rest[i])
		}
		return Neg(minMax(other, rest))
	}
	return atomExpr(&atom{kind: kind, args: args})
}

// divExact divides every coefficient of e by g, which divides them all.
func divExact(e Expr, g int64) Expr {
	if g == 1 {
		return e
	}
	ts := make([]term, len(e.ts))
	for i, t := range e.ts {
		ts[i] = term{coef: t.coef / g, fs: t.fs}
	}
	return Expr{ts: ts, c: e.c / g}
}

// ---- inspection and substitution ----

// Syms returns the symbols e uses, sorted, without duplicates.
func (e Expr) Syms() []Sym {
	var out []Sym
	e.visitAtoms(func(a *atom) {
		if a.kind == KindSym {
			out = append(out, a.sym)
		}
	})
	slices.Sort(out)
	return slices.Compact(out)
}

// Uses reports whether e uses symbol s.
func (e Expr) Uses(s Sym) bool { return slices.Contains(e.Syms(), s) }

func (e Expr) visitAtoms(fn func(*atom)) {
	for _, t := range e.ts {
		for _, f := range t.fs {
			fn(f.a)
			for _, a := range f.a.args {
				a.visitAtoms(fn)
			}
		}
	}
}

// occurrences counts how many times s appears in e (inside atoms too).
func (e Expr) occurrences(s Sym) int {
	n := 0
	e.visitAtoms(func(a *atom) {
		if a.kind == KindSym && a.sym == s {
			n++
		}
	})
	return n
}

// Subst replaces every symbol s for which f returns (x, true) by x, and
// simplifies.
func (e Expr) Subst(f func(Sym) (Expr, bool)) Expr {
	if e.err != nil {
		return e
	}
	out := Const(e.c)
	for _, t := range e.ts {
		p := Const(t.coef)
		for _, fc := range t.fs {
			x := fc.a.subst(f)
			for range fc.pow {
				p = Mul(p, x)
			}
		}
		out = Add(out, p)
		if out.err != nil {
			return out
		}
	}
	return out
}

func (a *atom) subst(f func(Sym) (Expr, bool)) Expr {
	switch a.kind {
	case KindSym:
		if x, ok := f(a.sym); ok {
			return x
		}
		return atomExpr(a)
	case KindFloorDiv:
		return FloorDiv(a.args[0].Subst(f), a.args[1].Subst(f))
	case KindMod:
		return Mod(a.args[0].Subst(f), a.args[1].Subst(f))
	}
	args := make([]Expr, len(a.args))
	for i, x := range a.args {
		args[i] = x.Subst(f)
	}
	return minMax(a.kind, args)
}

// Rename returns e with every symbol s replaced by f(s).
func (e Expr) Rename(f func(Sym) Sym) Expr {
	return e.Subst(func(s Sym) (Expr, bool) { return Var(f(s)), true })
}
