package serve

import (
	"encoding/binary"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/recom-compiler/recom/interp"
)

// A binary inference request (the binary tensor data extension) written
// plainly, as clients write it, is read without making a tensor of any
// input: decodeInferRaw checks the JSON header against the signature and
// keeps, per input, its shape and a view of its bytes in the body
// (rawFeeds); the batch copies those bytes straight into its arenas
// (typedArena.fillRaw). A request of model E (1001 inputs) is then one
// pass over the header and no allocation per input, where decodeInfer
// makes 1001 tensors that the batch copies again.
//
// decodeInferRaw takes a request only when it is valid as a whole (what
// decodeInfer reads and Server.run accepts); for anything else (JSON
// "data", escapes, a repeated or unknown key, a bad value, a wrong size)
// it says no and decodeInfer reads the request: its result, or its error,
// is the reference (FuzzDecodeInferRaw compares them).

// rawFeeds are a binary request's inputs, by Signature.Inputs: each one's
// shape and its bytes in the body (row-major, little-endian; BYTES
// elements a 4-byte little-endian length and the bytes), checked.
type rawFeeds struct {
	shapes [][]int64
	data   [][]byte
	dims   []int64 // the shapes' backing array
	rows   int64
	// strIn are the BYTES inputs' elements as strings (views of the
	// body, in strs), when checkRawStrings made them (hasStrs): the join
	// then takes them instead of walking the elements again.
	strIn   [][]string
	strs    []string
	hasStrs bool
	// wire and wireIn are a gRPC request's raw_input_contents and its
	// inputs' messages in the message's order (views of its buffer),
	// while decodeGRPCRaw reads it.
	wire, wireIn [][]byte
}

// rawPool pools rawFeeds (*rawFeeds), each sized for its signature.
var rawPool sync.Pool

func getRawFeeds(n int) *rawFeeds {
	f, _ := rawPool.Get().(*rawFeeds)
	if f == nil || cap(f.shapes) < n {
		f = &rawFeeds{shapes: make([][]int64, n), data: make([][]byte, n), dims: make([]int64, 0, 2*n+8), strIn: make([][]string, n)}
	}
	f.shapes, f.data, f.dims, f.rows = f.shapes[:n], f.data[:n], f.dims[:0], 0
	f.strIn, f.strs, f.hasStrs = f.strIn[:n], f.strs[:0], false
	return f
}

// putRawFeeds gives f back once no batch reads it (it keeps no views).
func putRawFeeds(f *rawFeeds) {
	if f == nil {
		return
	}
	clear(f.shapes)
	clear(f.data)
	clear(f.wire)
	clear(f.wireIn)
	f.wire, f.wireIn = f.wire[:0], f.wireIn[:0]
	rawPool.Put(f)
}

// oipTypeNames is oipTypeName by dtype, for a compare per input without
// a map lookup.
var oipTypeNames = func() (a [interp.String + 1]string) {
	for dt, n := range oipTypeName {
		a[dt] = n
	}
	return a
}()

// decodeInferRaw reads a binary request (jsonLen >= 0) whose every input
// is binary and written plainly, of at most maxRows rows (the batch
// dimension: a model whose requests run alone is read by decodeInfer);
// false for anything else. With cache, its inputs list is first matched
// against the template of an earlier request (rawTemplate), instantiated
// for its rows (rawInst), and a request read without one may leave its
// own there.
func decodeInferRaw(body []byte, jsonLen int, sig *Signature, maxRows int, cache *rawCache) (*inferRequest, *rawFeeds, bool) {
	return decodeRawHeader(body, jsonLen, sig, maxRows, cache, false)
}

// decodeRawHeader is decodeInferRaw that, when lazy, reads no binary
// data: only the JSON header must be in body, the binary data's bytes
// (its length is len(body) - jsonLen) may still be arriving. The
// elements of BYTES inputs are then unchecked until checkRawStrings,
// once they are in: the server decodes a body's header while the rest
// of it is on its way (Server.readBody's early).
func decodeRawHeader(body []byte, jsonLen int, sig *Signature, maxRows int, cache *rawCache, lazy bool) (*inferRequest, *rawFeeds, bool) {
	if !littleEndian || jsonLen < 0 || jsonLen > len(body) || len(sig.Inputs) == 0 {
		return nil, nil, false
	}
	d := rawReader{s: scanner{buf: body[:jsonLen]}, sig: sig, bin: body[jsonLen:], bin0: body[jsonLen:], f: getRawFeeds(len(sig.Inputs)), rows: -1, maxRows: maxRows, cache: cache, lazy: lazy}
	req := &inferRequest{}
	var outNames []string
	err := d.s.inferHeader(req, &outNames, d.inputs)
	ok := err == nil && d.n == len(sig.Inputs) && len(d.bin) == 0 && d.rows > 0 && d.rows <= int64(maxRows)
	if ok {
		req.outputs, err = requestedOutputs(outNames, sig)
		ok = err == nil
	}
	if !ok {
		putRawFeeds(d.f)
		return nil, nil, false
	}
	if d.learn != nil {
		cache.store(d.learn.template(d.s.buf))
	}
	d.f.rows = d.rows
	return req, d.f, true
}

// rawReader reads the "inputs" list of a binary request into f.
type rawReader struct {
	s    scanner
	sig  *Signature
	bin  []byte // the binary data not yet taken by an input
	bin0 []byte // all of it
	f    *rawFeeds
	n    int   // inputs read
	rows int64 // their first dimension; -1 before the first
	read bool  // the list was read (a second "inputs" is not plain)
	// maxRows bounds the row counts instantiated (rawCache.inst).
	maxRows int
	// lazy leaves BYTES elements unchecked (decodeRawHeader).
	lazy bool
	// cache holds the template tried first; learn, when set, records
	// the list being read for a new one.
	cache *rawCache
	learn *rawLearner
}

// inputs reads the list, from its '['.
func (d *rawReader) inputs() error {
	s := &d.s
	if d.read {
		return errNotPlain
	}
	d.read = true
	if t := d.cache.load(); t != nil {
		// By the instantiation of the request's rows when there is one
		// (a request that misses it misses t too), else by t.
		in := d.cache.inst(t, d.sig, t.rowsAt(s.buf, s.pos), d.maxRows)
		if in != nil && d.matchInst(in) || in == nil && d.matchTemplate(t) {
			d.cache.hit()
			return nil
		}
		d.restart()
		if d.cache.miss() {
			d.learn = newRawLearner(s.pos, len(d.sig.Inputs))
		}
	} else if d.cache != nil {
		d.learn = newRawLearner(s.pos, len(d.sig.Inputs))
	}
	s.pos++ // '['
	s.depth++
	for i := 0; ; i++ {
		s.ws()
		if !d.input(i) {
			return errNotPlain
		}
		s.ws()
		if s.pos >= len(s.buf) {
			return errNotPlain
		}
		s.pos++
		switch s.buf[s.pos-1] {
		case ',':
			continue
		case ']':
			s.depth--
			if d.learn != nil {
				d.learn.end = s.pos
			}
			return nil
		}
		return errNotPlain
	}
}

// Keys of an input, as bits.
const (
	rawName = 1 << iota
	rawDatatype
	rawShape
	rawParameters
	rawAll = rawName | rawDatatype | rawShape | rawParameters
)

// The input reader keeps the body and its position in locals (b, p),
// stepped by small functions the compiler inlines: a request of E is
// 90 KB of header, 1001 inputs.

// space skips JSON white space from p.
func space(b []byte, p int) int {
	for p < len(b) && b[p] <= ' ' && (b[p] == ' ' || b[p] == '\n' || b[p] == '\t' || b[p] == '\r') {
		p++
	}
	return p
}

// plainAt is the string at p, printable ASCII without escapes (its bytes
// between the quotes), and the position after it; ok false for anything
// else.
func plainAt(b []byte, p int) (v []byte, next int, ok bool) {
	if p >= len(b) || b[p] != '"' {
		return nil, p, false
	}
	for i := p + 1; i < len(b); i++ {
		switch c := b[i]; {
		case c == '"':
			return b[p+1 : i], i + 1, true
		case c == '\\' || c < 0x20 || c >= 0x80:
			return nil, p, false
		}
	}
	return nil, p, false
}

// intAt is scanner.plainInt at p.
func intAt(b []byte, p int) (v int64, next int, ok bool) {
	i := p
	for i < len(b) && b[i] >= '0' && b[i] <= '9' && i-p < 18 {
		v = v*10 + int64(b[i]-'0')
		i++
	}
	n := i - p
	if n == 0 || (n > 1 && b[p] == '0') || i >= len(b) {
		return 0, p, false
	}
	switch b[i] {
	case ',', ']', '}', ' ', '\t', '\n', '\r':
		return v, i, true
	}
	return 0, p, false
}

// keyAt is the key at p ("name" and so on, with its quotes and the colon
// after it, space around) as a bit, and the position of its value.
func keyAt(b []byte, p int) (bit, next int) {
	if p+2 >= len(b) || b[p] != '"' {
		return 0, p
	}
	// Compares with constants: the compiler makes them a few word loads.
	r := b[p:]
	switch {
	case len(r) > 6 && string(r[:6]) == `"name"`:
		bit, p = rawName, p+6
	case len(r) > 10 && string(r[:10]) == `"datatype"`:
		bit, p = rawDatatype, p+10
	case len(r) > 7 && string(r[:7]) == `"shape"`:
		bit, p = rawShape, p+7
	case len(r) > 12 && string(r[:12]) == `"parameters"`:
		bit, p = rawParameters, p+12
	default:
		return 0, p
	}
	p = space(b, p)
	if p >= len(b) || b[p] != ':' {
		return 0, p
	}
	return bit, space(b, p+1)
}

// input reads inputs[i]: keys name, datatype, shape and parameters, each
// once, in any order, plain (oipInputFast's rules), binary_data_size
// given; then checks it against its spec and takes its bytes.
func (d *rawReader) input(i int) bool {
	sig := d.sig
	b, p := d.s.buf, d.s.pos
	if p >= len(b) || b[p] != '{' {
		return false
	}
	p++
	k, at, rank, size := -1, len(d.f.dims), 0, int64(-1)
	var dt []byte
	seen := 0
	for {
		bit, q := keyAt(b, space(b, p))
		if bit == 0 || seen&bit != 0 {
			return false
		}
		seen |= bit
		ok := false
		switch bit {
		case rawName:
			if k, p = d.expected(i, q); k < 0 {
				var v []byte
				if v, p, ok = plainAt(b, q); !ok {
					return false
				}
				if k, ok = sig.inputAt(bytesString(v), -1); !ok {
					return false
				}
			}
		case rawDatatype:
			if dt, p, ok = plainAt(b, q); !ok {
				return false
			}
		case rawShape:
			if rank, p, ok = d.shape(q); !ok {
				return false
			}
		case rawParameters:
			d.s.pos = q
			if size, ok = d.parameters(); !ok {
				return false
			}
			p = d.s.pos
			if d.learn != nil {
				d.learn.sizeFirst = seen&rawShape == 0
			}
		}
		p = space(b, p)
		if p >= len(b) {
			return false
		}
		p++
		if b[p-1] == '}' {
			break
		}
		if b[p-1] != ',' {
			return false
		}
	}
	d.s.pos = p
	if seen != rawAll || size < 0 {
		return false
	}
	if k < 0 || string(dt) != oipTypeNames[sig.Inputs[k].DType] {
		return false
	}
	if d.learn != nil {
		d.learn.input(k, rank)
	}
	return d.take(k, d.f.dims[at:at+rank:at+rank], size)
}

// take checks input k, of shape and size bytes of binary data, against
// its spec and the inputs taken before, and takes its bytes.
func (d *rawReader) take(k int, shape []int64, size int64) bool {
	if k < 0 || d.f.shapes[k] != nil || len(shape) == 0 {
		return false
	}
	spec := &d.sig.Inputs[k]
	n, ok := d.sig.elements(k, shape)
	if !ok || (d.rows >= 0 && shape[0] != d.rows) || size > int64(len(d.bin)) {
		return false
	}
	raw := d.bin[:size:size]
	if spec.DType == interp.String {
		if !d.lazy && !rawStrings(raw, n) {
			return false
		}
	} else if it := rawItemSize(spec.DType); it == 0 || size != n*it {
		return false
	}
	d.bin = d.bin[size:]
	d.rows = shape[0]
	d.f.shapes[k], d.f.data[k] = shape, raw
	d.n++
	return true
}

// expected is input i of the signature when the name at p is its key
// (clients send the inputs in the signature's order, mostly: a compare
// of the key's bytes), and the position after the name; -1 and p else.
func (d *rawReader) expected(i, p int) (int, int) {
	sig := d.sig
	if i >= len(sig.Inputs) || i >= len(sig.plainKey) || !sig.plainKey[i] {
		return -1, p
	}
	key := sig.Inputs[i].Key
	b := d.s.buf
	if len(b)-p < len(key)+2 || b[p] != '"' || b[p+len(key)+1] != '"' || string(b[p+1:p+len(key)+1]) != key {
		return -1, p
	}
	return i, p + len(key) + 2
}

// shape reads a list of plain non-negative integers at p into the
// shapes' array: its length, and the position after it.
func (d *rawReader) shape(p int) (int, int, bool) {
	b := d.s.buf
	if p >= len(b) || b[p] != '[' {
		return 0, p, false
	}
	p = space(b, p+1)
	if p < len(b) && b[p] == ']' {
		return 0, p + 1, true
	}
	for n := 1; n <= interp.MaxRank; n++ {
		v, q, ok := intAt(b, p)
		if !ok {
			return 0, p, false
		}
		d.f.dims = append(d.f.dims, v)
		if d.learn != nil {
			d.learn.ints = append(d.learn.ints, p, q)
		}
		p = space(b, q)
		if p >= len(b) {
			return 0, p, false
		}
		p++
		switch b[p-1] {
		case ']':
			return n, p, true
		case ',':
			p = space(b, p)
			continue
		}
		return 0, p, false
	}
	return 0, p, false
}

// binarySizeKey is how a client writes the parameters of a binary input.
const binarySizeKey = `{"binary_data_size":`

// parameters reads an input's parameters: its binary_data_size (the
// last one given, as the general reader takes it), -1 for none.
func (d *rawReader) parameters() (int64, bool) {
	s := &d.s
	b, p := s.buf, s.pos
	if len(b)-p > len(binarySizeKey) && string(b[p:p+len(binarySizeKey)]) == binarySizeKey {
		at := space(b, p+len(binarySizeKey))
		if v, q, ok := intAt(b, at); ok {
			if e := space(b, q); e < len(b) && b[e] == '}' {
				s.pos = e + 1
				if d.learn != nil {
					d.learn.ints = append(d.learn.ints, at, q)
				}
				return v, true
			}
		}
	}
	if d.learn != nil {
		d.learn.bad = true // the general form: no template of it
	}
	s.depth++ // the input's object (binarySize enters the parameters')
	size, err := s.binarySize()
	s.depth--
	return size, err == nil
}

// rawItemSize is the bytes of one raw element of dt (0: not sent raw as
// fixed-size elements).
func rawItemSize(dt interp.DType) int64 {
	switch dt {
	case interp.Bool:
		return 1
	case interp.String:
		return 0
	}
	return dt.ItemSize()
}

// checkRawStrings checks what decodeRawHeader left unchecked when lazy:
// that each BYTES input of f is exactly its shape's elements; and keeps
// them as strings (f.strIn), for the join. Four inputs are walked at a
// time (viewStrings4).
func checkRawStrings(f *rawFeeds, sig *Signature) bool {
	total := int64(0)
	for k := range sig.Inputs {
		if sig.Inputs[k].DType != interp.String {
			continue
		}
		n, ok := sig.elements(k, f.shapes[k])
		if !ok || n > int64(len(f.data[k]))/4 {
			return false // each element takes 4 bytes at least
		}
		total += n
	}
	strs := slices.Grow(f.strs[:0], int(total))[:total]
	var dst [4][]string
	var raw [4][]byte
	at, l := int64(0), 0
	for k := range sig.Inputs {
		if sig.Inputs[k].DType != interp.String {
			continue
		}
		n, _ := sig.elements(k, f.shapes[k])
		f.strIn[k] = strs[at : at+n : at+n]
		at += n
		dst[l], raw[l] = f.strIn[k], f.data[k]
		if l++; l == 4 {
			if !viewStrings4(&dst, &raw) {
				return false
			}
			l = 0
		}
	}
	for i := range l {
		if !viewStrings(dst[i], raw[i]) {
			return false
		}
	}
	f.strs, f.hasStrs = strs, true
	return true
}

// viewStrings fills dst with raw's BYTES elements as strings (views of
// raw): false unless raw is exactly len(dst) elements.
func viewStrings(dst []string, raw []byte) bool {
	e, p := uint64(len(raw)), uint64(0)
	for i := range dst {
		if p+4 > e {
			return false
		}
		l := uint64(binary.LittleEndian.Uint32(raw[p : p+4]))
		p += 4
		if l > e-p {
			return false
		}
		dst[i] = bytesString(raw[p : p+l])
		p += l
	}
	return p == e
}

// viewStrings4 is viewStrings of four inputs at once: each is a chain of
// loads (an element's length says where the next one is), and four
// chains take little longer than one (as rawStrings4).
func viewStrings4(dst *[4][]string, raw *[4][]byte) bool {
	d0, d1, d2, d3 := dst[0], dst[1], dst[2], dst[3]
	r0, r1, r2, r3 := raw[0], raw[1], raw[2], raw[3]
	e0, e1, e2, e3 := uint64(len(r0)), uint64(len(r1)), uint64(len(r2)), uint64(len(r3))
	var a0, a1, a2, a3 uint64
	m := min(len(d0), len(d1), len(d2), len(d3))
	for i := range m {
		// Each a+4 <= e, in one branch (the offsets are far below 2^63:
		// one past its end wraps to a negative difference).
		if int64((e0-a0-4)|(e1-a1-4)|(e2-a2-4)|(e3-a3-4)) < 0 {
			return false
		}
		l0 := uint64(binary.LittleEndian.Uint32(r0[a0 : a0+4]))
		l1 := uint64(binary.LittleEndian.Uint32(r1[a1 : a1+4]))
		l2 := uint64(binary.LittleEndian.Uint32(r2[a2 : a2+4]))
		l3 := uint64(binary.LittleEndian.Uint32(r3[a3 : a3+4]))
		a0, a1, a2, a3 = a0+4, a1+4, a2+4, a3+4
		if int64((e0-a0-l0)|(e1-a1-l1)|(e2-a2-l2)|(e3-a3-l3)) < 0 {
			return false
		}
		d0[i], d1[i] = bytesString(r0[a0:a0+l0]), bytesString(r1[a1:a1+l1])
		d2[i], d3[i] = bytesString(r2[a2:a2+l2]), bytesString(r3[a3:a3+l3])
		a0, a1, a2, a3 = a0+l0, a1+l1, a2+l2, a3+l3
	}
	return viewStrings(d0[m:], r0[a0:]) && viewStrings(d1[m:], r1[a1:]) && viewStrings(d2[m:], r2[a2:]) && viewStrings(d3[m:], r3[a3:])
}

// appendRawStrings appends raw's BYTES elements to strs as strings (views
// of raw): false unless raw is exactly n elements.
func appendRawStrings(strs []string, raw []byte, n int64) ([]string, bool) {
	if n < 0 || n > int64(len(raw))/4 {
		return strs, false // each element takes 4 bytes at least
	}
	strs = slices.Grow(strs, int(n))
	at := len(strs)
	strs = strs[:at+int(n)]
	if !viewStrings(strs[at:], raw) {
		return strs[:at], false
	}
	return strs, true
}

// rawStrings reports whether raw is exactly n BYTES elements (nextBytes
// n times, as offsets).
func rawStrings(raw []byte, n int64) bool {
	if n > int64(len(raw)/4) {
		return false // each takes 4 bytes at least
	}
	at, end := uint64(0), uint64(len(raw))
	for ; n > 0; n-- {
		if end-at < 4 {
			return false
		}
		at += 4 + uint64(binary.LittleEndian.Uint32(raw[at:]))
		if at > end {
			return false
		}
	}
	return at == end
}

// nextBytes is the first BYTES element of raw (a 4-byte little-endian
// length and the bytes) and the rest; false when raw is shorter.
func nextBytes(raw []byte) (elem, rest []byte, ok bool) {
	if len(raw) < 4 {
		return nil, raw, false
	}
	l := binary.LittleEndian.Uint32(raw)
	if uint64(l) > uint64(len(raw)-4) {
		return nil, raw, false
	}
	return raw[4 : 4+l], raw[4+l:], true
}

// tensor is input k as a tensor sharing the body's bytes where it can
// (decodeRaw's), for a request run as it is and for tests.
func (f *rawFeeds) tensor(sig *Signature, k int) (*interp.Tensor, error) {
	return decodeRaw(sig.Inputs[k].DType, f.shapes[k], f.data[k])
}

// A client writes its requests' inputs lists alike, but for the numbers
// (the rows in each shape, and so each binary_data_size): E's list is
// 1001 objects such as
//
//	{"name":"C17","datatype":"INT64","shape":[31,1],"parameters":{"binary_data_size":248}}
//
// A rawTemplate is such a list read once (rawLearner), as its text
// between the integers. A later list that matches it (each piece of text
// byte for byte, each integer plain: scanner.plainInt's rules) has the
// same inputs, names, datatypes and keys, so it is read by comparing the
// pieces and taking the integers, and only what depends on the integers
// (the shapes against the specs, the sizes against the shapes, the
// binary data) is checked again (rawReader.take). Anything else falls back
// to the input reader.

// rawTemplate is an inputs list as its text between the integers.
type rawTemplate struct {
	// lits are the text from the list's '[' to its first integer, between
	// each two, and from the last to the list's ']' included.
	lits []string
	ins  []tmplInput // the inputs, in the list's order
	// slots is how many instantiations of it a server keeps (rawInsts,
	// fewer for a list so long that they would pass rawInstBytes).
	slots int
}

// tmplInput is one input of a template: its signature index, rank, and
// whether its binary_data_size comes before its shape's dimensions.
type tmplInput struct {
	k, rank   int
	sizeFirst bool
}

// rawRelearn is how many requests in a row may miss the template before
// one that misses it leaves its own (a client that changed its form).
const rawRelearn = 8

// rawCache is a server's template and its instantiations (rawInst) for
// the row counts its requests have.
type rawCache struct {
	t      atomic.Pointer[rawTemplate]
	misses atomic.Int32
	// insts are t's instantiations (one of an older template is a free
	// slot); instMiss counts the requests that found none since one was
	// last replaced, instNext picks the one to replace.
	insts    [rawInsts]atomic.Pointer[rawInst]
	instMiss atomic.Int32
	instNext atomic.Uint32
	noInst   bool // read by the template alone (tests compare the two)
}

func (c *rawCache) load() *rawTemplate {
	if c == nil {
		return nil
	}
	return c.t.Load()
}

func (c *rawCache) hit() {
	if c.misses.Load() != 0 {
		c.misses.Store(0)
	}
}

// miss counts a request that missed the template, and says whether it is
// to leave its own.
func (c *rawCache) miss() bool { return c.misses.Add(1) >= rawRelearn }

func (c *rawCache) store(t *rawTemplate) {
	if c != nil && t != nil {
		c.t.Store(t)
		c.misses.Store(0)
		for i := range c.insts {
			c.insts[i].Store(nil) // the old template's (inst checks too)
		}
	}
}

// rawLearner records an inputs list as the input reader reads it.
type rawLearner struct {
	start, end int   // the list's '[' and the position after its ']'
	ints       []int // each integer's start and end, in the text's order
	ins        []tmplInput
	sizeFirst  bool // of the input being read
	bad        bool // read in a form a template does not keep
}

func newRawLearner(start, n int) *rawLearner {
	return &rawLearner{start: start, ints: make([]int, 0, 6*n), ins: make([]tmplInput, 0, n)}
}

func (l *rawLearner) input(k, rank int) {
	l.ins = append(l.ins, tmplInput{k: k, rank: rank, sizeFirst: l.sizeFirst})
}

// template is the list recorded, in hdr, as a template (nil when it
// cannot be one).
func (l *rawLearner) template(hdr []byte) *rawTemplate {
	if l.bad || l.end <= l.start || len(l.ints) == 0 {
		return nil
	}
	text := string(hdr[l.start:l.end]) // one copy: the lits are its pieces
	t := &rawTemplate{lits: make([]string, 0, len(l.ints)/2+1), ins: l.ins}
	at := 0
	for j := 0; j < len(l.ints); j += 2 {
		t.lits = append(t.lits, text[at:l.ints[j]-l.start])
		at = l.ints[j+1] - l.start
	}
	t.lits = append(t.lits, text[at:])
	t.slots = instSlots(len(text), len(t.ins))
	return t
}

// instSlots is how many instantiations of a template of text bytes and
// inputs inputs fit rawInstBytes (an instantiation is about the text and
// 48 bytes an input), between 1 and rawInsts.
func instSlots(text, inputs int) int {
	return int(min(rawInsts, max(1, rawInstBytes/(int64(text)+48*int64(inputs)+1))))
}

// matchTemplate reads the inputs list at the scanner (its '[') by
// template t; false when it does not match or an input does not check
// (restart then undoes what was taken).
func (d *rawReader) matchTemplate(t *rawTemplate) bool {
	b, p := d.s.buf, d.s.pos
	last := len(t.lits) - 1
	for j, lit := range t.lits {
		if len(b)-p < len(lit) || string(b[p:p+len(lit)]) != lit {
			return false
		}
		p += len(lit)
		if j == last {
			break
		}
		v, q, ok := intAt(b, p)
		if !ok {
			return false
		}
		d.f.dims = append(d.f.dims, v)
		p = q
	}
	dims := d.f.dims
	at := 0
	for _, in := range t.ins {
		var shape []int64
		var size int64
		if in.sizeFirst {
			size, shape = dims[at], dims[at+1:at+1+in.rank:at+1+in.rank]
		} else {
			shape, size = dims[at:at+in.rank:at+in.rank], dims[at+in.rank]
		}
		at += in.rank + 1
		if !d.take(in.k, shape, size) {
			return false
		}
	}
	d.s.pos = p
	return true
}

// restart undoes a template's partial read: nothing taken, the scanner at
// the list's '[' again.
func (d *rawReader) restart() {
	clear(d.f.shapes)
	clear(d.f.data)
	d.f.dims = d.f.dims[:0]
	d.bin, d.n, d.rows = d.bin0, 0, -1
}
