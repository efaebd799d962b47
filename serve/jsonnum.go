package serve

import "math"

// Fast paths of number parsing for the common tokens of a request body
// (short decimals): a token whose digits fit the float's mantissa and whose
// power of ten is exactly representable is the correctly rounded quotient
// or product of two exact floats (Clinger's fast path), which IEEE
// arithmetic gives; anything else goes to strconv.

var (
	pow10f32 = [...]float32{1, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10}
	pow10f64 = [...]float64{1, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11,
		1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22}
)

// decimal splits a plain number token (JSON's grammar, as scanner.number
// reads it) into its sign, its digits as an integer and the power of ten
// to scale them by; ok is false when the digits do not fit 19 decimal
// places or the token is not plain (NaN, Infinity).
func decimal(tok []byte) (neg bool, mant uint64, exp int, ok bool) {
	i := 0
	if i < len(tok) && tok[i] == '-' {
		neg = true
		i++
	}
	nd := 0 // significant digits taken into mant
	digits := func(frac bool) bool {
		start := i
		for i < len(tok) && tok[i] >= '0' && tok[i] <= '9' {
			d := uint64(tok[i] - '0')
			if mant != 0 || d != 0 {
				if nd == 19 {
					return false
				}
				nd++
			}
			mant = mant*10 + d
			if frac {
				exp--
			}
			i++
		}
		return i > start
	}
	if !digits(false) {
		return false, 0, 0, false
	}
	if i < len(tok) && tok[i] == '.' {
		i++
		if !digits(true) {
			return false, 0, 0, false
		}
	}
	if i < len(tok) && (tok[i] == 'e' || tok[i] == 'E') {
		i++
		eneg := false
		if i < len(tok) && (tok[i] == '+' || tok[i] == '-') {
			eneg = tok[i] == '-'
			i++
		}
		e := 0
		start := i
		for i < len(tok) && tok[i] >= '0' && tok[i] <= '9' {
			if e < 10000 {
				e = e*10 + int(tok[i]-'0')
			}
			i++
		}
		if i == start {
			return false, 0, 0, false
		}
		if eneg {
			e = -e
		}
		exp += e
	}
	return neg, mant, exp, i == len(tok)
}

// fastFloat parses tok as a float of bits (32 or 64) when the fast path
// applies; ok is false otherwise.
func fastFloat(tok []byte, bits int) (float64, bool) {
	neg, mant, exp, ok := decimal(tok)
	if !ok {
		return 0, false
	}
	return floatOf(neg, mant, exp, bits)
}

// floatOf is ±mant x 10^exp as a float of bits when the fast path applies.
func floatOf(neg bool, mant uint64, exp int, bits int) (float64, bool) {
	if bits == 32 {
		if mant > 1<<24 || exp < -10 || exp > 10 {
			return float32Of(neg, mant, exp)
		}
		f := float32(mant)
		if exp < 0 {
			f /= pow10f32[-exp]
		} else {
			f *= pow10f32[exp]
		}
		if neg {
			f = -f
		}
		return float64(f), true
	}
	if mant > 1<<53 || exp < -22 || exp > 22 {
		return 0, false
	}
	f := float64(mant)
	if exp < 0 {
		f /= pow10f64[-exp]
	} else {
		f *= pow10f64[exp]
	}
	if neg {
		f = -f
	}
	return f, true
}

// float32Of is ±mant x 10^exp as a float32 by way of the float64 fast
// path (the float32 one does not apply: more than 24 bits of digits, as
// the shortest decimal of most float32 values has), when that gives the
// float32 nearest the decimal. The float64 q is the float64 nearest the
// decimal x; rounding q to float32 gives the float32 nearest x unless a
// float32 midpoint (a float64 value: 25 significant bits) lies between x
// and q, which only q itself can be (any other would be nearer x than
// q): q is declined when it is a float32 midpoint, the 29 bits below a
// float32's mantissa a one and zeros. (The float64 fast path's values,
// 0 and 1e-22 to 2^53 x 1e22, are within float32's normal range, where
// that is a midpoint's pattern, and round to no infinity.)
func float32Of(neg bool, mant uint64, exp int) (float64, bool) {
	q, ok := floatOf(neg, mant, exp, 64)
	if !ok || math.Float64bits(q)&(1<<29-1) == 1<<28 {
		return 0, false
	}
	return float64(float32(q)), true
}

// fastInt parses an integer token of at most 18 digits (no fraction or
// exponent) within the range of a signed integer of bits; ok is false
// otherwise (strconv then says why).
func fastInt(tok []byte, bits int) (int64, bool) {
	i := 0
	neg := false
	if len(tok) > 0 && tok[0] == '-' {
		neg = true
		i++
	}
	if i == len(tok) || len(tok)-i > 18 {
		return 0, false
	}
	var v int64
	for ; i < len(tok); i++ {
		c := tok[i]
		if c < '0' || c > '9' {
			return 0, false
		}
		v = v*10 + int64(c-'0')
	}
	if neg {
		v = -v
	}
	if bits < 64 && (v < -1<<(bits-1) || v > 1<<(bits-1)-1) {
		return 0, false
	}
	return v, true
}
