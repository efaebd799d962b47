package serve

import (
	"encoding/base64"
	"fmt"
	"math"
	"slices"
	"strconv"
	"unicode/utf16"
	"unicode/utf8"
	"unsafe"

	"github.com/recom-compiler/recom/interp"
)

// The request bodies are read by a small JSON scanner of our own rather
// than encoding/json: it reads tensors straight into typed slices (no
// tree of interface values: memory stays a small multiple of the body),
// accepts the NaN, Infinity and -Infinity tokens TensorFlow Serving's
// REST API allows, bounds nesting, and says where a bad value is.

// MaxJSONDepth bounds the nesting of arrays and objects in a request body.
const MaxJSONDepth = 64

// scanner reads one JSON document.
type scanner struct {
	buf   []byte
	pos   int
	base  int // the offset of buf in the body, for errors
	depth int
	// general turns the fast paths off (the row plan, instanceRow, the
	// parallel row reader, fastScalar, fastNested): the reference their
	// fuzz tests compare them with.
	general bool
	// arena, when set, is where an Open Inference Protocol input's "data"
	// is read to at once by the fast input reader, when its datatype and
	// shape came before it (oipInputFast): one pass over its numbers.
	arena *dataArena
}

// errAt is a malformed-JSON error at the scanner's position.
func (s *scanner) errAt(format string, args ...any) *Error {
	return badRequest("at byte %d of the body: %s", s.base+s.pos, fmt.Sprintf(format, args...))
}

func (s *scanner) ws() {
	for s.pos < len(s.buf) {
		switch s.buf[s.pos] {
		case ' ', '\t', '\n', '\r':
			s.pos++
		default:
			return
		}
	}
}

// skipWS skips space and returns the position.
func (s *scanner) skipWS() int {
	s.ws()
	return s.pos
}

// peek returns the next non-space byte (0 at the end).
func (s *scanner) peek() byte {
	s.ws()
	if s.pos >= len(s.buf) {
		return 0
	}
	return s.buf[s.pos]
}

// eat consumes c when it is next.
func (s *scanner) eat(c byte) bool {
	if s.peek() == c {
		s.pos++
		return true
	}
	return false
}

func (s *scanner) expect(c byte) error {
	if s.eat(c) {
		return nil
	}
	return s.errAt("expected %q, found %s", c, s.found())
}

// found describes what is at the position, for errors.
func (s *scanner) found() string {
	switch c := s.peek(); {
	case c == 0:
		return "the end of the body"
	case c == '"':
		return "a string"
	case c == '{':
		return "an object"
	case c == '[':
		return "a list"
	case c == 't' || c == 'f':
		return "a boolean"
	case c == 'n':
		return "null"
	case c == '-' || c == 'N' || c == 'I' || (c >= '0' && c <= '9'):
		return "a number"
	default:
		return strconv.QuoteRune(rune(c))
	}
}

// end checks that nothing but space follows the document.
func (s *scanner) end() error {
	if s.peek() != 0 {
		return s.errAt("unexpected %s after the JSON value", s.found())
	}
	return nil
}

func (s *scanner) enter() error {
	s.depth++
	if s.depth > MaxJSONDepth {
		return s.errAt("nested more than %d levels deep", MaxJSONDepth)
	}
	return nil
}

// The body a scanner reads is never written once read: the strings it
// returns without escapes, and the raw tensors of the binary extension,
// are views of it (bytesString), not copies.

// bytesString is the string of b's bytes without a copy (b is never
// written after).
func bytesString(b []byte) string {
	if len(b) == 0 {
		return ""
	}
	return unsafe.String(&b[0], len(b))
}

// object reads an object, calling f with each key; f reads the value.
func (s *scanner) object(f func(key string) error) error {
	return s.objectRaw(func(key []byte, escaped bool) error {
		if !escaped {
			return f(bytesString(key))
		}
		k, err := unescape(key)
		if err != nil {
			return err
		}
		return f(k)
	})
}

// unescape decodes a string's bytes between its quotes.
func unescape(b []byte) (string, error) {
	q := make([]byte, 0, len(b)+2)
	q = append(append(append(q, '"'), b...), '"')
	s := &scanner{buf: q}
	return s.str()
}

// objectRaw is object with each key's bytes as they are in the body
// (between the quotes, not copied; escaped says whether they hold
// escapes), so that a key is looked up without a copy.
func (s *scanner) objectRaw(f func(key []byte, escaped bool) error) error {
	if err := s.expect('{'); err != nil {
		return err
	}
	if err := s.enter(); err != nil {
		return err
	}
	if !s.eat('}') {
		for {
			if s.peek() != '"' {
				return s.errAt("expected an object key, found %s", s.found())
			}
			raw, escaped, err := s.rawStr()
			if err != nil {
				return err
			}
			if err := s.expect(':'); err != nil {
				return err
			}
			if err := f(raw, escaped); err != nil {
				return err
			}
			if s.eat(',') {
				continue
			}
			if err := s.expect('}'); err != nil {
				return err
			}
			break
		}
	}
	s.depth--
	return nil
}

// array reads a list, calling f for each element; f reads it.
func (s *scanner) array(f func(i int) error) error {
	if err := s.expect('['); err != nil {
		return err
	}
	if err := s.enter(); err != nil {
		return err
	}
	if !s.eat(']') {
		for i := 0; ; i++ {
			if err := f(i); err != nil {
				return err
			}
			if s.eat(',') {
				continue
			}
			if err := s.expect(']'); err != nil {
				return err
			}
			break
		}
	}
	s.depth--
	return nil
}

// str reads a string.
func (s *scanner) str() (string, error) {
	raw, esc, err := s.rawStr()
	if err != nil || !esc {
		return bytesString(raw), err
	}
	end := s.pos
	start := end - 1 - len(raw)
	v, err := s.escaped(start)
	if err == nil && s.pos != end {
		return "", s.errAt("bad string")
	}
	return v, err
}

// rawStr reads a string and returns its bytes between the quotes (not
// copied) and whether they hold escapes.
func (s *scanner) rawStr() (raw []byte, escaped bool, err error) {
	if err := s.expect('"'); err != nil {
		return nil, false, err
	}
	start := s.pos
	for i := start; i < len(s.buf); i++ {
		switch c := s.buf[i]; {
		case c == '"':
			s.pos = i + 1
			return s.buf[start:i], escaped, nil
		case c == '\\':
			escaped = true
			i++ // the escaped byte
		case c < 0x20:
			s.pos = i
			return nil, false, s.errAt("control character %#02x in a string", c)
		}
	}
	s.pos = len(s.buf)
	return nil, false, s.errAt("unterminated string")
}

// escaped reads the rest of a string that has escapes, from start.
func (s *scanner) escaped(start int) (string, error) {
	out := make([]byte, 0, 32)
	i := start
	for i < len(s.buf) {
		c := s.buf[i]
		switch {
		case c == '"':
			s.pos = i + 1
			return string(out), nil
		case c < 0x20:
			s.pos = i
			return "", s.errAt("control character %#02x in a string", c)
		case c != '\\':
			out = append(out, c)
			i++
			continue
		}
		if i+1 >= len(s.buf) {
			break
		}
		e := s.buf[i+1]
		i += 2
		switch e {
		case '"', '\\', '/':
			out = append(out, e)
		case 'b':
			out = append(out, '\b')
		case 'f':
			out = append(out, '\f')
		case 'n':
			out = append(out, '\n')
		case 'r':
			out = append(out, '\r')
		case 't':
			out = append(out, '\t')
		case 'u':
			r, ok := hex4(s.buf, i)
			if !ok {
				s.pos = i
				return "", s.errAt("bad \\u escape")
			}
			i += 4
			if utf16.IsSurrogate(r) {
				r2, ok := rune(-1), false
				if i+6 <= len(s.buf) && s.buf[i] == '\\' && s.buf[i+1] == 'u' {
					r2, ok = hex4(s.buf, i+2)
				}
				if dec := utf16.DecodeRune(r, r2); ok && dec != utf8.RuneError {
					r = dec
					i += 6
				} else {
					r = utf8.RuneError
				}
			}
			out = utf8.AppendRune(out, r)
		default:
			s.pos = i - 1
			return "", s.errAt("bad escape \\%c", e)
		}
	}
	s.pos = len(s.buf)
	return "", s.errAt("unterminated string")
}

func hex4(b []byte, i int) (rune, bool) {
	if i+4 > len(b) {
		return 0, false
	}
	var r rune
	for _, c := range b[i : i+4] {
		switch {
		case c >= '0' && c <= '9':
			r = r<<4 | rune(c-'0')
		case c >= 'a' && c <= 'f':
			r = r<<4 | rune(c-'a'+10)
		case c >= 'A' && c <= 'F':
			r = r<<4 | rune(c-'A'+10)
		default:
			return 0, false
		}
	}
	return r, true
}

// number reads a number token: JSON's grammar, and NaN, Infinity and
// -Infinity. It returns the token's text.
func (s *scanner) number() ([]byte, error) {
	s.ws()
	start := s.pos
	b := s.buf
	i := start
	if i < len(b) && b[i] == '-' {
		i++
	}
	if i < len(b) && (b[i] == 'N' || b[i] == 'I') {
		for _, w := range []string{"NaN", "Infinity"} {
			if len(b)-i >= len(w) && string(b[i:i+len(w)]) == w && (w == "Infinity" || i == start) {
				s.pos = i + len(w)
				return b[start:s.pos], nil
			}
		}
	}
	digits := func() int {
		n := 0
		for i < len(b) && b[i] >= '0' && b[i] <= '9' {
			i++
			n++
		}
		return n
	}
	switch {
	case i < len(b) && b[i] == '0':
		i++
	case digits() == 0:
		s.pos = i
		return nil, s.errAt("expected a number, found %s", s.found())
	}
	if i < len(b) && b[i] == '.' {
		i++
		if digits() == 0 {
			s.pos = i
			return nil, s.errAt("no digits after a decimal point")
		}
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		if digits() == 0 {
			s.pos = i
			return nil, s.errAt("no digits in an exponent")
		}
	}
	s.pos = i
	return b[start:i], nil
}

// literal consumes the word w (true, false, null) when it is next.
func (s *scanner) literal(w string) bool {
	s.ws()
	if len(s.buf)-s.pos >= len(w) && string(s.buf[s.pos:s.pos+len(w)]) == w {
		s.pos += len(w)
		return true
	}
	return false
}

// skip reads any value and drops it.
func (s *scanner) skip() error {
	switch c := s.peek(); {
	case c == '{':
		return s.objectRaw(func([]byte, bool) error { return s.skip() })
	case c == '[':
		if s.skipNumbers() {
			return nil
		}
		return s.array(func(int) error { return s.skip() })
	case c == '"':
		_, _, err := s.rawStr()
		return err
	case c == 't':
		if s.literal("true") {
			return nil
		}
	case c == 'f':
		if s.literal("false") {
			return nil
		}
	case c == 'n':
		if s.literal("null") {
			return nil
		}
	default:
		_, err := s.number()
		return err
	}
	return s.errAt("unexpected %s", s.found())
}

// skipNumbers skips a list of plain numbers (s at its '['), the common
// value skipped (an OIP input's "data", read once its datatype is known),
// and reports whether it did; on anything else s stays where it was and
// the general reader takes it (and reports errors as it does).
func (s *scanner) skipNumbers() bool {
	if s.depth+1 > MaxJSONDepth {
		return false
	}
	b := s.buf
	i := s.pos + 1
	space := func() {
		for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
			i++
		}
	}
	space()
	if i < len(b) && b[i] == ']' {
		s.pos = i + 1
		return true
	}
	for {
		space()
		j := i
		for j < len(b) && ((b[j] >= '0' && b[j] <= '9') || b[j] == '-' || b[j] == '+' || b[j] == '.' || b[j] == 'e' || b[j] == 'E') {
			j++
		}
		if j == i || !plainNumber(b[i:j]) {
			return false
		}
		i = j
		space()
		if i >= len(b) {
			return false
		}
		switch b[i] {
		case ',':
			i++
		case ']':
			s.pos = i + 1
			return true
		default:
			return false
		}
	}
}

// span reads any value and returns its bytes.
func (s *scanner) span() ([]byte, error) {
	s.ws()
	start := s.pos
	if err := s.skip(); err != nil {
		return nil, err
	}
	return s.buf[start:s.pos], nil
}

// tbuf accumulates a tensor's elements of one dtype.
type tbuf struct {
	dt  interp.DType
	f32 []float32
	f64 []float64
	i8  []int8
	i16 []int16
	i32 []int32
	i64 []int64
	u8  []uint8
	b   []bool
	s   []string
}

// grow makes room for n more elements.
func (t *tbuf) grow(n int) {
	switch t.dt {
	case interp.Float32:
		t.f32 = slices.Grow(t.f32, n)
	case interp.Float64:
		t.f64 = slices.Grow(t.f64, n)
	case interp.Int8:
		t.i8 = slices.Grow(t.i8, n)
	case interp.Int16:
		t.i16 = slices.Grow(t.i16, n)
	case interp.Int32:
		t.i32 = slices.Grow(t.i32, n)
	case interp.Int64:
		t.i64 = slices.Grow(t.i64, n)
	case interp.Uint8:
		t.u8 = slices.Grow(t.u8, n)
	case interp.Bool:
		t.b = slices.Grow(t.b, n)
	case interp.String:
		t.s = slices.Grow(t.s, n)
	}
}

func (t *tbuf) len() int {
	switch t.dt {
	case interp.Float32:
		return len(t.f32)
	case interp.Float64:
		return len(t.f64)
	case interp.Int8:
		return len(t.i8)
	case interp.Int16:
		return len(t.i16)
	case interp.Int32:
		return len(t.i32)
	case interp.Int64:
		return len(t.i64)
	case interp.Uint8:
		return len(t.u8)
	case interp.Bool:
		return len(t.b)
	case interp.String:
		return len(t.s)
	}
	return 0
}

// tensor makes the tensor of the elements read, of the given shape.
func (t *tbuf) tensor(shape []int64) (*interp.Tensor, error) {
	var data any
	switch t.dt {
	case interp.Float32:
		data = nonNil(t.f32)
	case interp.Float64:
		data = nonNil(t.f64)
	case interp.Int8:
		data = nonNil(t.i8)
	case interp.Int16:
		data = nonNil(t.i16)
	case interp.Int32:
		data = nonNil(t.i32)
	case interp.Int64:
		data = nonNil(t.i64)
	case interp.Uint8:
		data = nonNil(t.u8)
	case interp.Bool:
		data = nonNil(t.b)
	case interp.String:
		data = nonNil(t.s)
	default:
		return nil, fmt.Errorf("dtype %v is not served", t.dt)
	}
	return interp.FromSlice(shape, data)
}

func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}

// scalar reads one element of t's dtype: a number (NaN and ±Infinity for
// floats), true or false, a string, or for strings {"b64": "..."}.
func (s *scanner) scalar(t *tbuf) error {
	if !s.general && s.fastScalar(t) {
		return nil
	}
	if t.dt == interp.String {
		switch s.peek() {
		case '"':
			v, err := s.str()
			if err != nil {
				return err
			}
			t.s = append(t.s, v)
			return nil
		case '{':
			v, err := s.b64()
			if err != nil {
				return err
			}
			t.s = append(t.s, v)
			return nil
		}
		return s.errAt("expected a string or {\"b64\": ...} for a %s value, found %s", tfTypeName[t.dt], s.found())
	}
	if t.dt == interp.Bool {
		switch {
		case s.literal("true"):
			t.b = append(t.b, true)
		case s.literal("false"):
			t.b = append(t.b, false)
		default:
			return s.errAt("expected true or false for a DT_BOOL value, found %s", s.found())
		}
		return nil
	}
	switch c := s.peek(); {
	case c == '-' || c == 'N' || c == 'I' || (c >= '0' && c <= '9'):
	default:
		return s.errAt("expected a number for a %s value, found %s", tfTypeName[t.dt], s.found())
	}
	at := s.pos
	tok, err := s.number()
	if err != nil {
		return err
	}
	if err := t.appendNumber(tok); err != nil {
		s.pos = at
		return s.errAt("%v", err)
	}
	return nil
}

// appendNumber converts a number token to t's dtype.
func (t *tbuf) appendNumber(tok []byte) error {
	if t.dt.IsFloat() {
		bits := 64
		if t.dt == interp.Float32 {
			bits = 32
		}
		if v, ok := fastFloat(tok, bits); ok {
			if t.dt == interp.Float32 {
				t.f32 = append(t.f32, float32(v))
			} else {
				t.f64 = append(t.f64, v)
			}
			return nil
		}
		v, err := parseFloat(tok, bits)
		if err != nil {
			return err
		}
		if t.dt == interp.Float32 {
			t.f32 = append(t.f32, float32(v))
		} else {
			t.f64 = append(t.f64, v)
		}
		return nil
	}
	var bits int
	switch t.dt {
	case interp.Int8:
		bits = 8
	case interp.Int16:
		bits = 16
	case interp.Int32:
		bits = 32
	case interp.Int64:
		bits = 64
	case interp.Uint8:
		v, err := strconv.ParseUint(string(tok), 10, 8)
		if err != nil {
			return fmt.Errorf("%s is not a DT_UINT8 value", tok)
		}
		t.u8 = append(t.u8, uint8(v))
		return nil
	default:
		return fmt.Errorf("a number for a %v value", t.dt)
	}
	v, ok := fastInt(tok, bits)
	var err error
	if !ok {
		v, err = strconv.ParseInt(string(tok), 10, bits)
	}
	if err != nil {
		return fmt.Errorf("%s is not a %s value", tok, tfTypeName[t.dt])
	}
	switch t.dt {
	case interp.Int8:
		t.i8 = append(t.i8, int8(v))
	case interp.Int16:
		t.i16 = append(t.i16, int16(v))
	case interp.Int32:
		t.i32 = append(t.i32, int32(v))
	default:
		t.i64 = append(t.i64, v)
	}
	return nil
}

// parseFloat parses a number token, NaN and ±Infinity included; a finite
// token out of the type's range is an error.
func parseFloat(tok []byte, bits int) (float64, error) {
	switch string(tok) {
	case "NaN", "-NaN":
		return math.NaN(), nil
	case "Infinity":
		return math.Inf(1), nil
	case "-Infinity":
		return math.Inf(-1), nil
	}
	v, err := strconv.ParseFloat(string(tok), bits)
	if err != nil {
		return 0, fmt.Errorf("%s is out of the range of a %d-bit float", tok, bits)
	}
	return v, nil
}

// b64 reads {"b64": "<base64>"} and returns the decoded bytes.
func (s *scanner) b64() (string, error) {
	var val string
	seen := false
	err := s.object(func(key string) error {
		if key != "b64" || seen {
			return s.errAt("a binary value is {\"b64\": \"...\"}, found key %q", key)
		}
		seen = true
		at := s.pos
		enc, err := s.str()
		if err != nil {
			return err
		}
		b, err := decodeB64(enc)
		if err != nil {
			s.pos = at
			return s.errAt("bad base64 in \"b64\": %v", err)
		}
		val = string(b)
		return nil
	})
	if err == nil && !seen {
		return "", s.errAt("a binary value is {\"b64\": \"...\"}, found an empty object")
	}
	return val, err
}

// decodeB64 decodes standard base64, with or without padding (TensorFlow
// Serving's clients write both), and the URL-safe alphabet.
func decodeB64(s string) ([]byte, error) {
	for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.RawStdEncoding, base64.URLEncoding, base64.RawURLEncoding} {
		if b, err := enc.DecodeString(s); err == nil {
			return b, nil
		}
	}
	_, err := base64.StdEncoding.DecodeString(s)
	return nil, err
}

// nested reads a tensor written as nested lists (or a scalar) into t and
// returns its shape; every list of a level must have the same length.
func (s *scanner) nested(t *tbuf) ([]int64, error) {
	return s.nestedIn(t, nil)
}

// nestedIn is nested with the shape, where the fast reader reads the
// value, in *shapes (fastNested).
func (s *scanner) nestedIn(t *tbuf, shapes *[]int64) ([]int64, error) {
	if !s.general {
		if shape, ok := s.fastNested(t, shapes); ok {
			return shape, nil
		}
	}
	n := &nestState{rank: -1}
	before := t.len()
	if err := s.nestedAt(t, n, 0); err != nil {
		return nil, err
	}
	rank := n.rank
	if rank < 0 {
		rank = len(n.dims) // only empty lists
	}
	shape := n.dims[:rank]
	count, err := interp.NumElements(shape)
	if err != nil || count != int64(t.len()-before) {
		return nil, s.errAt("the lists do not form a tensor")
	}
	return shape, nil
}

type nestState struct {
	dims []int64 // the length of each level's lists; -1 until one ends
	rank int     // the level of the scalars; -1 until one is read
}

func (s *scanner) nestedAt(t *tbuf, n *nestState, level int) error {
	if s.peek() != '[' {
		if n.rank < 0 {
			if len(n.dims) > level {
				return s.errAt("ragged lists: a value where a list was before")
			}
			n.rank = level
		} else if level != n.rank {
			return s.errAt("ragged lists: a value at depth %d, others at depth %d", level, n.rank)
		}
		return s.scalar(t)
	}
	if n.rank >= 0 && level >= n.rank {
		return s.errAt("ragged lists: a list at depth %d, values at depth %d", level, n.rank)
	}
	for len(n.dims) <= level {
		n.dims = append(n.dims, -1)
	}
	count := 0
	err := s.array(func(int) error {
		count++
		return s.nestedAt(t, n, level+1)
	})
	if err != nil {
		return err
	}
	switch {
	case n.dims[level] < 0:
		n.dims[level] = int64(count)
	case n.dims[level] != int64(count):
		return s.errAt("ragged lists: a list of %d elements where others have %d", count, n.dims[level])
	}
	return nil
}
