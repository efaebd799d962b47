package serve

import "github.com/recom-compiler/recom/interp"

// instanceRow reads row i of the row format, an object of the inputs by
// name (s at its '{'), as decodeInstances' general reader does, in one
// loop: a key is matched against the previous row's key at its position
// (order, updated), and a number for an input whose rows so far were
// scalars is parsed as it is scanned. Anything else (escaped keys, lists,
// strings with escapes, numbers off the fast path, malformed JSON) goes to
// the general code at the same place, so that results and errors are the
// general reader's.
func (s *scanner) instanceRow(sig *Signature, bufs []tbuf, rowShape [][]int64, seen []bool, order []int, i int) ([]int, error) {
	if err := s.expect('{'); err != nil {
		return order, err
	}
	if err := s.enter(); err != nil {
		return order, err
	}
	defer func() { s.depth-- }()
	if s.eat('}') {
		return order, nil
	}
	b := s.buf
	for pos := 0; ; pos++ {
		s.ws()
		if s.pos >= len(b) || b[s.pos] != '"' {
			return order, s.errAt("expected an object key, found %s", s.found())
		}
		// The key, up to its closing quote: first as the previous row's
		// key at this position, else scanned.
		start := s.pos + 1
		j := start
		if pos < len(order) && order[pos] >= 0 && order[pos] < len(sig.plainKey) && sig.plainKey[order[pos]] {
			if want := sig.Inputs[order[pos]].Key; len(b)-start > len(want) && b[start+len(want)] == '"' && string(b[start:start+len(want)]) == want {
				j = start + len(want)
			}
		}
		for j < len(b) && b[j] != '"' && b[j] != '\\' && b[j] >= 0x20 {
			j++
		}
		var raw []byte
		escaped := false
		if j < len(b) && b[j] == '"' {
			raw = b[start:j]
			s.pos = j + 1
		} else {
			var err error
			if raw, escaped, err = s.rawStr(); err != nil {
				return order, err
			}
		}
		if err := s.expect(':'); err != nil {
			return order, err
		}
		k := -1
		var key string
		if !escaped && pos < len(order) && order[pos] >= 0 && string(raw) == sig.Inputs[order[pos]].Key {
			k = order[pos]
			key = sig.Inputs[k].Key
		} else {
			var ok bool
			if k, key, ok = sig.inputRaw(raw, escaped); !ok {
				return order, badRequest("instances[%d]: %q is not an input of the signature (%s)", i, key, inputList(sig))
			}
		}
		if pos < len(order) {
			order[pos] = k
		} else {
			order = append(order, k)
		}
		if seen[k] {
			return order, badRequest("instances[%d]: input %q given twice", i, key)
		}
		seen[k] = true
		if !(rowShape[k] != nil && len(rowShape[k]) == 0 && s.fastScalar(&bufs[k])) {
			if err := s.instanceValue(&bufs[k], &rowShape[k], &sig.Inputs[k], i, key); err != nil {
				return order, err
			}
		}
		s.ws()
		if s.pos < len(b) {
			switch b[s.pos] {
			case ',':
				s.pos++
				continue
			case '}':
				s.pos++
				return order, nil
			}
		}
		return order, s.errAt("expected %q, found %s", '}', s.found())
	}
}

// fastScalar reads a plain number into a numeric tbuf, or a string without
// escapes into a string one, when the value next is one of those and the
// number is on fastFloat's or fastInt's path; it reports whether it did
// (else nothing was consumed but space).
func (s *scanner) fastScalar(t *tbuf) bool {
	s.ws()
	end, ok := fastValue(t, s.buf, s.pos)
	if ok {
		s.pos = end
	}
	return ok
}

// fastValue is fastScalar on the value at b[i] (no space before it): it
// appends the value to t and returns the offset past it, or reports false
// with t as it was.
func fastValue(t *tbuf, b []byte, i int) (int, bool) {
	if i >= len(b) {
		return i, false
	}
	if t.dt == interp.String {
		if b[i] != '"' {
			return i, false
		}
		j := i + 1
		for j < len(b) && b[j] != '"' && b[j] != '\\' && b[j] >= 0x20 {
			j++
		}
		if j >= len(b) || b[j] != '"' {
			return i, false
		}
		t.s = append(t.s, bytesString(b[i+1:j]))
		return j + 1, true
	}
	// One pass over the token: JSON's grammar, the digits and the power
	// of ten; it must end at a delimiter.
	end, neg, mant, exp, isInt, ok := scanNumber(b, i)
	if !ok || end >= len(b) {
		return i, false
	}
	switch b[end] {
	case ',', '}', ']', ' ', '\t', '\n', '\r':
	default:
		return i, false
	}
	switch t.dt {
	case interp.Float32:
		v, ok := floatOf(neg, mant, exp, 32)
		if !ok {
			return i, false
		}
		t.f32 = append(t.f32, float32(v))
	case interp.Float64:
		v, ok := floatOf(neg, mant, exp, 64)
		if !ok {
			return i, false
		}
		t.f64 = append(t.f64, v)
	case interp.Int64, interp.Int32:
		if !isInt || mant > 1<<62 {
			return i, false
		}
		v := int64(mant)
		if neg {
			v = -v
		}
		if t.dt == interp.Int32 {
			if v < -1<<31 || v > 1<<31-1 {
				return i, false
			}
			t.i32 = append(t.i32, int32(v))
		} else {
			t.i64 = append(t.i64, v)
		}
	default:
		return i, false
	}
	return end, true
}

// scanNumber reads the number token at b[i:] by JSON's grammar
// (-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?) in one pass: its end,
// sign, digits as an integer (at most 19 significant ones, else ok is
// false) and power of ten, and whether it is an integer (no fraction or
// exponent). It does not look past the token.
func scanNumber(b []byte, i int) (end int, neg bool, mant uint64, exp int, isInt, ok bool) {
	if i < len(b) && b[i] == '-' {
		neg = true
		i++
	}
	if i >= len(b) {
		return
	}
	nd := 0
	switch c := b[i]; {
	case c == '0':
		i++
	case c >= '1' && c <= '9':
		for i < len(b) && b[i] >= '0' && b[i] <= '9' {
			if nd == 19 {
				return
			}
			mant = mant*10 + uint64(b[i]-'0')
			nd++
			i++
		}
	default:
		return
	}
	isInt = true
	if i < len(b) && b[i] == '.' {
		isInt = false
		i++
		start := i
		for i < len(b) && b[i] >= '0' && b[i] <= '9' {
			d := uint64(b[i] - '0')
			if mant != 0 || d != 0 {
				if nd == 19 {
					return
				}
				nd++
			}
			mant = mant*10 + d
			exp--
			i++
		}
		if i == start {
			return
		}
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		isInt = false
		i++
		eneg := false
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			eneg = b[i] == '-'
			i++
		}
		e, start := 0, i
		for i < len(b) && b[i] >= '0' && b[i] <= '9' {
			if e < 10000 {
				e = e*10 + int(b[i]-'0')
			}
			i++
		}
		if i == start {
			return
		}
		if eneg {
			e = -e
		}
		exp += e
	}
	return i, neg, mant, exp, isInt, true
}

// plainNumber reports whether tok is a number by JSON's grammar:
// -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?
func plainNumber(tok []byte) bool {
	i := 0
	if i < len(tok) && tok[i] == '-' {
		i++
	}
	digits := func() int {
		n := 0
		for i < len(tok) && tok[i] >= '0' && tok[i] <= '9' {
			i++
			n++
		}
		return n
	}
	switch {
	case i < len(tok) && tok[i] == '0':
		i++
	case digits() == 0:
		return false
	}
	if i < len(tok) && tok[i] == '.' {
		i++
		if digits() == 0 {
			return false
		}
	}
	if i < len(tok) && (tok[i] == 'e' || tok[i] == 'E') {
		i++
		if i < len(tok) && (tok[i] == '+' || tok[i] == '-') {
			i++
		}
		if digits() == 0 {
			return false
		}
	}
	return i == len(tok)
}
