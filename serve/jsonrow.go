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
		// The key, up to its closing quote.
		start := s.pos + 1
		j := start
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
	b := s.buf
	i := s.pos
	if i >= len(b) {
		return false
	}
	if t.dt == interp.String {
		if b[i] != '"' {
			return false
		}
		j := i + 1
		for j < len(b) && b[j] != '"' && b[j] != '\\' && b[j] >= 0x20 {
			j++
		}
		if j >= len(b) || b[j] != '"' {
			return false
		}
		t.s = append(t.s, bytesString(b[i+1:j]))
		s.pos = j + 1
		return true
	}
	// A number token ends at a delimiter: JSON's grammar is checked by
	// decimal (a token it rejects goes to the general reader).
	j := i
	for j < len(b) {
		c := b[j]
		if (c >= '0' && c <= '9') || c == '-' || c == '+' || c == '.' || c == 'e' || c == 'E' {
			j++
			continue
		}
		break
	}
	if j == i || j >= len(b) {
		return false
	}
	switch b[j] {
	case ',', '}', ']', ' ', '\t', '\n', '\r':
	default:
		return false
	}
	tok := b[i:j]
	if !plainNumber(tok) {
		return false
	}
	switch t.dt {
	case interp.Float32, interp.Float64:
		bits := 64
		if t.dt == interp.Float32 {
			bits = 32
		}
		v, ok := fastFloat(tok, bits)
		if !ok {
			return false
		}
		if t.dt == interp.Float32 {
			t.f32 = append(t.f32, float32(v))
		} else {
			t.f64 = append(t.f64, v)
		}
	case interp.Int64, interp.Int32:
		bits := 64
		if t.dt == interp.Int32 {
			bits = 32
		}
		v, ok := fastInt(tok, bits)
		if !ok {
			return false
		}
		if t.dt == interp.Int32 {
			t.i32 = append(t.i32, int32(v))
		} else {
			t.i64 = append(t.i64, v)
		}
	default:
		return false
	}
	s.pos = j
	return true
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
