package expr

import "math"

// Bound is an endpoint of an Interval: an integer or an infinity.
type Bound struct {
	V   int64
	Inf int8 // -1: -∞, +1: +∞, 0: V
}

// Interval is a closed range [Lo, Hi] of integers (possibly unbounded).
type Interval struct{ Lo, Hi Bound }

func fin(v int64) Bound { return Bound{V: v} }

var (
	negInf = Bound{Inf: -1}
	posInf = Bound{Inf: 1}
)

// ge reports whether b ≥ v.
func (b Bound) ge(v int64) bool { return b.Inf > 0 || (b.Inf == 0 && b.V >= v) }

// le reports whether b ≤ v.
func (b Bound) le(v int64) bool { return b.Inf < 0 || (b.Inf == 0 && b.V <= v) }

func (b Bound) sign() int {
	if b.Inf != 0 {
		return int(b.Inf)
	}
	switch {
	case b.V > 0:
		return 1
	case b.V < 0:
		return -1
	}
	return 0
}

func (b Bound) less(c Bound) bool {
	if b.Inf != c.Inf {
		return b.Inf < c.Inf
	}
	return b.Inf == 0 && b.V < c.V
}

func minB(a, b Bound) Bound {
	if b.less(a) {
		return b
	}
	return a
}

func maxB(a, b Bound) Bound {
	if a.less(b) {
		return b
	}
	return a
}

// addB adds bounds, rounding overflow up (for an upper bound) or down.
func addB(a, b Bound, up bool) Bound {
	if a.Inf != 0 {
		return a
	}
	if b.Inf != 0 {
		return b
	}
	s, ov := add64(a.V, b.V)
	if !ov {
		return fin(s)
	}
	if a.V > 0 { // positive overflow
		if up {
			return posInf
		}
		return fin(math.MaxInt64)
	}
	if up {
		return fin(math.MinInt64)
	}
	return negInf
}

func mulB(a, b Bound, up bool) Bound {
	sa, sb := a.sign(), b.sign()
	if sa == 0 || sb == 0 {
		return fin(0)
	}
	if a.Inf != 0 || b.Inf != 0 {
		return Bound{Inf: int8(sa * sb)}
	}
	p, ov := mul64(a.V, b.V)
	if !ov {
		return fin(p)
	}
	if sa*sb > 0 {
		if up {
			return posInf
		}
		return fin(math.MaxInt64)
	}
	if up {
		return fin(math.MinInt64)
	}
	return negInf
}

func addI(a, b Interval) Interval {
	return Interval{addB(a.Lo, b.Lo, false), addB(a.Hi, b.Hi, true)}
}

func mulI(a, b Interval) Interval {
	lo, hi := posInf, negInf
	for _, x := range []Bound{a.Lo, a.Hi} {
		for _, y := range []Bound{b.Lo, b.Hi} {
			lo = minB(lo, mulB(x, y, false))
			hi = maxB(hi, mulB(x, y, true))
		}
	}
	return Interval{lo, hi}
}

// divB is floor(b / c) for c > 0.
func divB(b Bound, c int64) Bound {
	if b.Inf != 0 {
		return b
	}
	q, _ := floorDiv64(b.V, c)
	return fin(q)
}

var unbounded = Interval{negInf, posInf}

// Bounds returns an interval containing every value e takes when every
// symbol is ≥ 0 (and symbolic divisors are nonzero). Poisoned expressions
// are unbounded.
func Bounds(e Expr) Interval {
	if e.err != nil {
		return unbounded
	}
	r := Interval{fin(e.c), fin(e.c)}
	for _, t := range e.ts {
		p := Interval{fin(t.coef), fin(t.coef)}
		for _, f := range t.fs {
			ab := atomBounds(f.a)
			for range f.pow {
				p = mulI(p, ab)
			}
		}
		r = addI(r, p)
	}
	return r
}

func atomBounds(a *atom) Interval {
	switch a.kind {
	case KindSym:
		return Interval{fin(0), posInf}
	case KindFloorDiv:
		n := Bounds(a.args[0])
		if c, ok := a.args[1].IsConst(); ok && c > 0 {
			return Interval{divB(n.Lo, c), divB(n.Hi, c)}
		}
		if Bounds(a.args[1]).Lo.ge(0) { // d ≥ 1
			if n.Lo.ge(0) {
				return Interval{fin(0), n.Hi}
			}
			return Interval{n.Lo, maxB(n.Hi, fin(0))}
		}
	case KindMod:
		n := Bounds(a.args[0])
		var r Interval
		if c, ok := a.args[1].IsConst(); ok && c > 0 {
			r = Interval{fin(0), fin(c - 1)}
		} else if d := Bounds(a.args[1]); d.Lo.ge(0) {
			r = Interval{fin(0), addB(d.Hi, fin(-1), true)}
		} else {
			return unbounded
		}
		if n.Lo.ge(0) {
			r.Hi = minB(r.Hi, n.Hi)
		}
		return r
	case KindMin, KindMax:
		r := Bounds(a.args[0])
		for _, x := range a.args[1:] {
			b := Bounds(x)
			if a.kind == KindMin {
				r = Interval{minB(r.Lo, b.Lo), minB(r.Hi, b.Hi)}
			} else {
				r = Interval{maxB(r.Lo, b.Lo), maxB(r.Hi, b.Hi)}
			}
		}
		return r
	}
	return unbounded
}
