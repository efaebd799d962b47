package serve

import (
	"encoding/binary"
	"math"
	"slices"
	"sync"

	"github.com/recom-compiler/recom/interp"
)

// The row format's rows of one request are written alike: every row an
// object of the same keys in the same order, each input's value of one
// shape (encoding/json writes a map's keys sorted; recom loadtest's
// requests are written so). Once a row has been read by instanceRow, its
// keys and the kinds of its values are the plan of the rows after it:
// planRow reads a row that follows it by comparing each key's bytes with
// the planned key and reading its value straight into the input's buffer
// (no lookups, no order or seen-input bookkeeping, no shape tracking); a
// value its fast readers do not take (NaN, a long mantissa, an escape) is
// read by instanceValue, as instanceRow reads it. A row that departs from
// the plan (another key or order, a value of another shape, malformed
// JSON, any error) is read again from its start by instanceRow, the
// buffers cut back to where they were, so that every result and error is
// instanceRow's, which are the general reader's (FuzzInstanceRow and
// FuzzRowPlan compare them).

// rowReader reads the rows (objects of the inputs by name) of one run of
// the row format into a buffer per input. Readers are reused (getRowReader,
// done): a request's plan is the first plan the next request of the
// signature tries, on its first row too.
type rowReader struct {
	sig      *Signature
	bufs     []tbuf
	rowShape [][]int64 // each input's row shape; nil until its first row
	seen     []bool
	order    []int // the inputs by position in the last row instanceRow read
	plan     []rowSlot
	planned  bool    // plan is order's (false: made again after the next row)
	lists    []int64 // the row shapes of plan's lists (rowShape's, before a first row)
	// planShape is the plan's row shapes by input (planShapes), made once
	// a plan (shaped).
	planShape [][]int64
	shaped    bool
	rows      int                    // the rows read
	capRows   int                    // the rows the buffers have room for (room)
	rowCap    []int                  // each input's elements a row by the signature (rowElems)
	rowTotal  [interp.String + 1]int // rowCap's sum by dtype
	clean     bool                   // the buffers hold nothing (done dropped them)
	// planRows counts the rows planRow read (for the tests).
	planRows int
}

// rowReaders holds *rowReader (each of its last signature).
var rowReaders sync.Pool

// getRowReader returns a reader of sig's rows, with no rows read.
func getRowReader(sig *Signature) *rowReader {
	r, _ := rowReaders.Get().(*rowReader)
	if r == nil || r.sig != sig || len(r.bufs) != len(sig.Inputs) {
		r = newRowReader(sig)
	}
	r.reset()
	return r
}

// newRowReader is a reader of sig's rows (reset before use).
func newRowReader(sig *Signature) *rowReader {
	r := &rowReader{
		sig:       sig,
		bufs:      make([]tbuf, len(sig.Inputs)),
		rowShape:  make([][]int64, len(sig.Inputs)),
		planShape: make([][]int64, len(sig.Inputs)),
		seen:      make([]bool, len(sig.Inputs)),
		order:     make([]int, 0, len(sig.Inputs)),
		plan:      make([]rowSlot, 0, len(sig.Inputs)),
	}
	r.rowCap = make([]int, len(sig.Inputs))
	for i := range sig.Inputs {
		dt := sig.Inputs[i].DType
		r.bufs[i].dt = dt
		r.rowCap[i] = rowElems(&sig.Inputs[i])
		if dt.Valid() {
			r.rowTotal[dt] += r.rowCap[i]
		}
	}
	r.clean = true
	return r
}

// reset makes r a reader of a request's rows, none read yet (it keeps its
// plan).
func (r *rowReader) reset() {
	if !r.clean {
		for k := range r.bufs {
			r.bufs[k].drop()
		}
	}
	r.clean = false
	r.rows, r.planRows, r.capRows = 0, 0, 1
	r.order = r.order[:0]
	clear(r.rowShape)
	// Room for a row of each input: its elements by the signature, from
	// an array per dtype (the buffers are empty).
	var arena tbuf
	for dt, n := range r.rowTotal {
		if n > 0 {
			arena.makeArray(interp.DType(dt), n)
		}
	}
	for k := range r.bufs {
		r.bufs[k].carve(&arena, r.rowCap[k])
	}
}

// rowElems is the elements of a row of in by the signature's shape (a
// dimension of any size taken as 1), at most firstRowCap.
func rowElems(in *TensorSpec) int {
	n := 1
	if !in.UnknownRank && len(in.Shape) > 0 {
		for _, d := range in.Shape[1:] {
			n *= max(int(min(d, firstRowCap)), 1)
			n = min(n, firstRowCap)
		}
	}
	return n
}

// done gives r back for reuse: its buffers (the tensors' elements now)
// are dropped, not kept.
func (r *rowReader) done() {
	for k := range r.bufs {
		r.bufs[k].drop()
	}
	r.clean = true
	rowReaders.Put(r)
}

// rowSlot is an input at its position in the plan: its key and how its
// value is read.
type rowSlot struct {
	key string
	// pre is `"key":` as little-endian words (zero past its end), last
	// the bytes of it the last word has, words how many words (0 where
	// it takes more than 3: the key is compared as a string).
	pre   [3]uint64
	last  uint64
	words int8
	// f32 says the value is a float32 scalar (fastF32).
	f32 bool
	k   int32
	t   *tbuf // the input's buffer
	// n is the values a row: 0 a scalar (fastValue), n > 0 a list of n
	// (fastList), -1 any other value (instanceValue, which checks its
	// shape against the first row's).
	n int32
}

// setKey sets the slot's key and its words.
func (sl *rowSlot) setKey(key string) {
	sl.key = key
	sl.pre, sl.last, sl.words = [3]uint64{}, 0, 0
	size := len(key) + 3
	if size > 24 {
		return
	}
	for j := range size {
		c := byte('"')
		switch {
		case j >= 1 && j <= len(key):
			c = key[j-1]
		case j == len(key)+2:
			c = ':'
		}
		sl.pre[j/8] |= uint64(c) << (8 * (j % 8))
	}
	sl.words = int8((size + 7) / 8)
	sl.last = ^uint64(0) >> (8 * (8*int(sl.words) - size))
}

// row reads row i (s at its '{').
func (r *rowReader) row(s *scanner, i int) error {
	if r.planned {
		// The first row by the last request's plan: its shapes the
		// plan's (instanceValue checks a value it reads against them).
		first := r.rows == 0
		if first {
			r.planShapes()
		}
		if s.planRow(r, i) {
			r.rows++
			r.planRows++
			return nil
		}
		if first {
			clear(r.rowShape)
		}
	}
	clear(r.seen)
	var err error
	if r.order, err = s.instanceRow(r.sig, r.bufs, r.rowShape, r.seen, r.order, i); err != nil {
		return err
	}
	for k, ok := range r.seen {
		if !ok {
			return badRequest("instances[%d]: input %q is missing", i, r.sig.Inputs[k].Key)
		}
	}
	r.rows++
	r.makePlan()
	return nil
}

// planShapes sets the row shapes of the plan's scalars and lists: the
// first row's if it is read by the plan (its other values' shapes are
// the shapes instanceValue reads, as for any first row).
func (r *rowReader) planShapes() {
	if !r.shaped {
		l := 0
		for _, sl := range r.plan {
			switch {
			case sl.n > 0:
				r.planShape[sl.k] = r.lists[l : l+1 : l+1]
				l++
			case sl.n == 0:
				r.planShape[sl.k] = scalarRow
			default:
				r.planShape[sl.k] = nil
			}
		}
		r.shaped = true
	}
	copy(r.rowShape, r.planShape)
}

// scalarRow is the row shape of a scalar input (never written).
var scalarRow = []int64{}

// makePlan makes the plan of the row instanceRow last read (every input
// seen, once: r.order is its keys in order). No plan is made for a
// signature with a key that JSON writes with escapes.
func (r *rowReader) makePlan() {
	r.planned, r.shaped = false, false
	r.plan, r.lists = r.plan[:0], r.lists[:0]
	if len(r.order) == 0 || len(r.order) != len(r.sig.Inputs) {
		return
	}
	for _, k := range r.order {
		if k < len(r.sig.plainKey) && !r.sig.plainKey[k] || k >= len(r.sig.plainKey) && !plainKey(r.sig.Inputs[k].Key) {
			return
		}
		n := -1
		switch sh := r.rowShape[k]; {
		case !fastDType(r.bufs[k].dt):
		case len(sh) == 0:
			n = 0
		case len(sh) == 1 && sh[0] > 0 && sh[0] <= math.MaxInt32:
			n = int(sh[0])
			r.lists = append(r.lists, sh[0])
		}
		r.plan = append(r.plan, rowSlot{k: int32(k), t: &r.bufs[k], n: int32(n), f32: n == 0 && r.bufs[k].dt == interp.Float32})
		r.plan[len(r.plan)-1].setKey(r.sig.Inputs[k].Key)
	}
	r.planned = true
}

// plainKey says whether JSON writes key as it is (no '"', '\\' or control
// characters): Signature.check's plainKey, for a signature not checked.
func plainKey(key string) bool {
	for i := 0; i < len(key); i++ {
		if c := key[i]; c == '"' || c == '\\' || c < 0x20 {
			return false
		}
	}
	return true
}

// fastDType says whether fastValue reads values of dt.
func fastDType(dt interp.DType) bool {
	switch dt {
	case interp.Float32, interp.Float64, interp.Int32, interp.Int64, interp.String:
		return true
	}
	return false
}

// planRow reads row i (s at its '{') by the plan and reports whether it
// did; where the row departs from the plan, s and the buffers are left as
// they were and it reports false.
func (s *scanner) planRow(r *rowReader, i int) bool {
	if s.depth+2 > MaxJSONDepth {
		return false // the general reader's error, or its lists' depth
	}
	b := s.buf
	at, depth := s.pos, s.depth
	s.depth++ // in the row's object
	p := at + 1
	n := 0 // the slots whose values were read
	for n < len(r.plan) {
		sl := &r.plan[n]
		// `"key":` compared a word at a time where it is written so, else
		// "key", space, ':', space.
		if w := int(sl.words); w > 0 && len(b)-p >= 8*w && keyWords(b[p:], sl, w) {
			p += len(sl.key) + 3
		} else {
			for p < len(b) && isSpace(b[p]) {
				p++
			}
			e := p + 1 + len(sl.key)
			if e >= len(b) || b[p] != '"' || b[e] != '"' || string(b[p+1:e]) != sl.key {
				break
			}
			p = e + 1
			for p < len(b) && isSpace(b[p]) {
				p++
			}
			if p >= len(b) || b[p] != ':' {
				break
			}
			p++
		}
		if p < len(b) && b[p] <= ' ' {
			p = skipSpace(b, p)
		}
		// The value: by fastValue or fastList where it can, else by
		// instanceValue (as instanceRow reads it).
		t := sl.t
		v, ok := p, false
		switch {
		case sl.f32:
			p, ok = fastF32(t, b, v)
		case sl.n == 0:
			p, ok = fastValue(t, b, v) // nothing appended unless ok
		case sl.n > 0:
			before := t.len()
			if p, ok = fastList(t, b, v, int(sl.n)); !ok {
				t.truncate(before)
			}
		}
		if !ok {
			before := t.len()
			s.pos = v
			if err := s.instanceValue(t, &r.rowShape[sl.k], &r.sig.Inputs[sl.k], i, sl.key); err != nil {
				t.truncate(before)
				break
			}
			p = s.pos
		}
		n++
		if p < len(b) && b[p] <= ' ' {
			p = skipSpace(b, p)
		}
		if p < len(b) {
			if b[p] == ',' && n < len(r.plan) {
				p++
				continue
			}
			if b[p] == '}' && n == len(r.plan) {
				s.pos, s.depth = p+1, depth
				return true
			}
		}
		break
	}
	// Not as planned: the slots read so far each took one row's values.
	for _, sl := range r.plan[:n] {
		t := &r.bufs[sl.k]
		per := 1
		switch {
		case sl.n > 0:
			per = int(sl.n)
		case sl.n < 0:
			c, _ := interp.NumElements(r.rowShape[sl.k])
			per = int(c)
		}
		t.truncate(t.len() - per)
	}
	s.pos, s.depth = at, depth
	r.planned = false // made again from the row instanceRow reads now
	return false
}

// skipSpace returns the offset of the first byte at or after p that is
// not JSON's space.
func skipSpace(b []byte, p int) int {
	for p < len(b) && isSpace(b[p]) {
		p++
	}
	return p
}

// keyWords compares the w words of sl's `"key":` with b's first bytes
// (b has 8w of them).
func keyWords(b []byte, sl *rowSlot, w int) bool {
	le := binary.LittleEndian
	switch w {
	case 1:
		return le.Uint64(b)&sl.last == sl.pre[0]
	case 2:
		return le.Uint64(b) == sl.pre[0] && le.Uint64(b[8:])&sl.last == sl.pre[1]
	}
	return le.Uint64(b) == sl.pre[0] && le.Uint64(b[8:]) == sl.pre[1] && le.Uint64(b[16:])&sl.last == sl.pre[2]
}

// fastF32 is fastValue for a float32 buffer, with the common value, a
// decimal without exponent of at most 19 digits (leading zeros counted),
// read here in one pass and converted as floatOf converts it (fastValue
// reads anything else); what follows the token is for the caller to
// check (its ',', ']' or '}' after space).
func fastF32(t *tbuf, b []byte, i int) (int, bool) {
	j := i
	neg := j < len(b) && b[j] == '-'
	if neg {
		j++
	}
	start := j
	var m uint64
	for ; j < len(b); j++ {
		c := b[j] - '0'
		if c > 9 {
			break
		}
		m = m*10 + uint64(c)
	}
	n, frac := j-start, 0
	if j < len(b) && b[j] == '.' {
		j++
		f := j
		for ; j < len(b); j++ {
			c := b[j] - '0'
			if c > 9 {
				break
			}
			m = m*10 + uint64(c)
		}
		if frac = j - f; frac == 0 {
			return fastValue(t, b, i)
		}
	}
	if n == 0 || n > 1 && b[start] == '0' || n+frac > 19 || j < len(b) && b[j]|0x20 == 'e' {
		return fastValue(t, b, i)
	}
	var f float32
	if m <= 1<<24 && frac <= 10 {
		if f = float32(m) / pow10f32[frac]; neg {
			f = -f
		}
	} else if v, ok := float32Of(neg, m, -frac); ok {
		f = float32(v) // floatOf's way for a longer mantissa
	} else {
		return fastValue(t, b, i)
	}
	t.f32 = append(t.f32, f)
	return j, true
}

// fastList reads a list of n values by fastValue at b[i] (no space before
// it) into t and returns the offset past its ']'; it reports false for
// anything else (t may then hold some of the values: the caller cuts it
// back).
func fastList(t *tbuf, b []byte, i, n int) (int, bool) {
	if i >= len(b) || b[i] != '[' {
		return i, false
	}
	i++
	for c := 0; ; {
		for i < len(b) && isSpace(b[i]) {
			i++
		}
		var ok bool
		if t.dt == interp.Float32 {
			i, ok = fastF32(t, b, i)
		} else {
			i, ok = fastValue(t, b, i)
		}
		if !ok {
			return i, false
		}
		c++
		for i < len(b) && isSpace(b[i]) {
			i++
		}
		if i >= len(b) {
			return i, false
		}
		switch {
		case b[i] == ',' && c < n:
			i++
		case b[i] == ']' && c == n:
			return i + 1, true
		default:
			return i, false
		}
	}
}

// fastNested is nested for lists of values fastValue reads, every list of
// a level of one length and none empty (s at the first '['); it reports
// false, with s and t as they were, for anything else, and nested's
// general reader then reads the value. The shape is the next elements of
// *shapes where it has room for them (*shapes then takes them in),
// else a slice of its own.
func (s *scanner) fastNested(t *tbuf, shapes *[]int64) ([]int64, bool) {
	b := s.buf
	i := s.pos
	for i < len(b) && isSpace(b[i]) {
		i++
	}
	rank := 0
	for j := i; j < len(b) && b[j] == '['; rank++ {
		for j++; j < len(b) && isSpace(b[j]); j++ {
		}
	}
	if rank == 0 || s.depth+rank > MaxJSONDepth || rank > interp.MaxRank {
		return nil, false
	}
	var dims []int64
	if shapes != nil && cap(*shapes)-len(*shapes) >= rank {
		at := len(*shapes)
		dims = (*shapes)[at : at+rank : at+rank]
	} else {
		dims = make([]int64, rank)
	}
	for l := range dims {
		dims[l] = -1
	}
	before := t.len()
	end, ok := fastLists(t, b, i, dims)
	if ok {
		_, err := interp.NumElements(dims)
		ok = err == nil
	}
	if !ok {
		t.truncate(before)
		return nil, false
	}
	if shapes != nil && cap(*shapes)-len(*shapes) >= rank {
		*shapes = (*shapes)[:len(*shapes)+rank]
	}
	s.pos = end
	return dims, true
}

// fastLists reads the list at b[i] of fastNested's lists, its level
// len(dims) from the values (dims: each level's length, -1 until a list
// of it ends).
func fastLists(t *tbuf, b []byte, i int, dims []int64) (int, bool) {
	if len(dims) == 1 && dims[0] > 0 {
		return fastList(t, b, i, int(dims[0]))
	}
	if i >= len(b) || b[i] != '[' {
		return i, false
	}
	i++
	count := int64(0)
	for {
		for i < len(b) && isSpace(b[i]) {
			i++
		}
		var ok bool
		switch {
		case len(dims) > 1:
			i, ok = fastLists(t, b, i, dims[1:])
		case t.dt == interp.Float32:
			i, ok = fastF32(t, b, i)
		default:
			i, ok = fastValue(t, b, i)
		}
		if !ok {
			return i, false
		}
		count++
		for i < len(b) && isSpace(b[i]) {
			i++
		}
		if i >= len(b) {
			return i, false
		}
		if b[i] == ',' && (dims[0] < 0 || count < dims[0]) {
			i++
			continue
		}
		if b[i] == ']' && (dims[0] < 0 || count == dims[0]) {
			dims[0] = count
			return i + 1, true
		}
		return i, false
	}
}

// room makes room in every buffer for the rows after the read rows so far
// (used bytes of the body), estimated from the left bytes, where the
// buffers have no room for another: the buffers of a dtype move to one
// new array, rather than each growing on its own.
func (r *rowReader) room(read, used, left int) {
	if read < r.capRows || read <= 0 {
		return
	}
	more := left / max(used/read, 1)
	more += more/16 + 1
	reserveBufs(r.bufs, func(k, l int) int { return l + l/read*more })
	r.capRows = read + more
}

// firstRowCap is the most elements per input newRowReader makes room for
// before the first row (a row's elements by the signature's shape).
const firstRowCap = 64

// reserveBufs gives each buffer room for size(k, len) elements (its
// elements kept) where that is more than it has: the buffers of a dtype
// get ranges of one new array rather than an array each (each range
// capped, so that a buffer that outgrows its range moves out of it).
func reserveBufs(bufs []tbuf, size func(k, l int) int) {
	var total [interp.String + 1]int
	more := false
	for k := range bufs {
		t := &bufs[k]
		if c := size(k, t.len()); c > t.capacity() && t.dt.Valid() {
			total[t.dt] += c
			more = true
		}
	}
	if !more {
		return
	}
	var arena tbuf // an array of each dtype
	for dt, n := range total {
		if n > 0 {
			arena.makeArray(interp.DType(dt), n)
		}
	}
	for k := range bufs {
		t := &bufs[k]
		if c := size(k, t.len()); c > t.capacity() && t.dt.Valid() {
			t.carve(&arena, c)
		}
	}
}

// makeArray sets t's slice of dt to a new array of n elements.
func (t *tbuf) makeArray(dt interp.DType, n int) {
	switch dt {
	case interp.Float32:
		t.f32 = make([]float32, n)
	case interp.Float64:
		t.f64 = make([]float64, n)
	case interp.Int8:
		t.i8 = make([]int8, n)
	case interp.Int16:
		t.i16 = make([]int16, n)
	case interp.Int32:
		t.i32 = make([]int32, n)
	case interp.Int64:
		t.i64 = make([]int64, n)
	case interp.Uint8:
		t.u8 = make([]uint8, n)
	case interp.Bool:
		t.b = make([]bool, n)
	case interp.String:
		t.s = make([]string, n)
	}
}

// carve moves t's elements to the first c elements of the arena's array
// of its dtype (t's capacity c), and takes them off the arena.
func (t *tbuf) carve(a *tbuf, c int) {
	switch t.dt {
	case interp.Float32:
		t.f32, a.f32 = append(a.f32[:0:c], t.f32...), a.f32[c:]
	case interp.Float64:
		t.f64, a.f64 = append(a.f64[:0:c], t.f64...), a.f64[c:]
	case interp.Int8:
		t.i8, a.i8 = append(a.i8[:0:c], t.i8...), a.i8[c:]
	case interp.Int16:
		t.i16, a.i16 = append(a.i16[:0:c], t.i16...), a.i16[c:]
	case interp.Int32:
		t.i32, a.i32 = append(a.i32[:0:c], t.i32...), a.i32[c:]
	case interp.Int64:
		t.i64, a.i64 = append(a.i64[:0:c], t.i64...), a.i64[c:]
	case interp.Uint8:
		t.u8, a.u8 = append(a.u8[:0:c], t.u8...), a.u8[c:]
	case interp.Bool:
		t.b, a.b = append(a.b[:0:c], t.b...), a.b[c:]
	case interp.String:
		t.s, a.s = append(a.s[:0:c], t.s...), a.s[c:]
	}
}

// capacity is the elements t has room for.
func (t *tbuf) capacity() int {
	switch t.dt {
	case interp.Float32:
		return cap(t.f32)
	case interp.Float64:
		return cap(t.f64)
	case interp.Int8:
		return cap(t.i8)
	case interp.Int16:
		return cap(t.i16)
	case interp.Int32:
		return cap(t.i32)
	case interp.Int64:
		return cap(t.i64)
	case interp.Uint8:
		return cap(t.u8)
	case interp.Bool:
		return cap(t.b)
	case interp.String:
		return cap(t.s)
	}
	return 0
}

// drop forgets t's elements (t keeps its dtype; only its dtype's slice
// is ever set).
func (t *tbuf) drop() { *t = tbuf{dt: t.dt} }

// truncate cuts t to its first n elements.
func (t *tbuf) truncate(n int) {
	switch t.dt {
	case interp.Float32:
		t.f32 = t.f32[:n]
	case interp.Float64:
		t.f64 = t.f64[:n]
	case interp.Int8:
		t.i8 = t.i8[:n]
	case interp.Int16:
		t.i16 = t.i16[:n]
	case interp.Int32:
		t.i32 = t.i32[:n]
	case interp.Int64:
		t.i64 = t.i64[:n]
	case interp.Uint8:
		t.u8 = t.u8[:n]
	case interp.Bool:
		t.b = t.b[:n]
	case interp.String:
		t.s = t.s[:n]
	}
}

// sharedTensor is tensor of a shape the tensor keeps (never written after).
func (t *tbuf) sharedTensor(shape []int64) (*interp.Tensor, error) {
	x := &interp.Tensor{}
	return x, t.sharedTensorIn(x, shape)
}

// sharedTensorIn is sharedTensor into *x.
func (t *tbuf) sharedTensorIn(x *interp.Tensor, shape []int64) error {
	switch t.dt {
	case interp.Float32:
		return interp.NewSharedIn(x, shape, t.f32)
	case interp.Float64:
		return interp.NewSharedIn(x, shape, t.f64)
	case interp.Int8:
		return interp.NewSharedIn(x, shape, t.i8)
	case interp.Int16:
		return interp.NewSharedIn(x, shape, t.i16)
	case interp.Int32:
		return interp.NewSharedIn(x, shape, t.i32)
	case interp.Int64:
		return interp.NewSharedIn(x, shape, t.i64)
	case interp.Uint8:
		return interp.NewSharedIn(x, shape, t.u8)
	case interp.Bool:
		return interp.NewSharedIn(x, shape, t.b)
	case interp.String:
		return interp.NewSharedIn(x, shape, t.s)
	}
	_, err := t.tensor(shape) // its error
	return err
}

// feeds makes the inputs' tensors of rows rows: inputs of one row shape
// share their shape, and the tensors are one array.
func (r *rowReader) feeds(rows int) ([]*interp.Tensor, error) {
	feeds := make([]*interp.Tensor, len(r.sig.Inputs))
	all := make([]interp.Tensor, len(r.sig.Inputs)) // one allocation, not one each
	var shapes [][]int64
	for k, in := range r.sig.Inputs {
		var shape []int64
		for _, sh := range shapes {
			if len(sh) == 1+len(r.rowShape[k]) && slices.Equal(sh[1:], r.rowShape[k]) {
				shape = sh
				break
			}
		}
		if shape == nil {
			shape = append([]int64{int64(rows)}, r.rowShape[k]...)
			if len(shapes) < 8 {
				shapes = append(shapes, shape)
			}
		}
		if err := r.bufs[k].sharedTensorIn(&all[k], shape); err != nil {
			return nil, badRequest("input %q: %v", in.Key, err)
		}
		feeds[k] = &all[k]
	}
	return feeds, nil
}
