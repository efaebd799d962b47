package serve

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"sync"

	"github.com/recom-compiler/recom/interp"
)

// The Open Inference Protocol's (KServe V2) JSON inference request:
//
//	{"id": ..., "parameters": {...},
//	 "inputs": [{"name": ..., "shape": [...], "datatype": "FP32", "parameters": {...}, "data": [...]}, ...],
//	 "outputs": [{"name": ..., "parameters": {...}}, ...]}
//
// "data" is row-major, flat or nested; BYTES elements are strings. With
// the binary tensor data extension the JSON is the first
// Inference-Header-Content-Length bytes of the body, and an input whose
// parameters have "binary_data_size": N takes the next N bytes after it
// (raw row-major little-endian values; a BYTES element is a 4-byte
// little-endian length and its bytes), as raw_input_contents does over
// gRPC.

// inferRequest is a decoded inference request.
type inferRequest struct {
	id      string
	feeds   []*interp.Tensor // by Signature.Inputs
	outputs []int            // the outputs asked for (Signature.Outputs indices); nil: all
}

// oipInput is one input as read, before its data is converted.
type oipInput struct {
	name, datatype string
	shape          []int64
	haveShape      bool
	data           []byte // the "data" value's JSON
	dataAt         int
	binSize        int64 // binary_data_size; -1: none
	// read: data's elements, of datatype, read with the header (the fast
	// reader's lists: readData); hasRead says they are.
	read    tbuf
	hasRead bool
}

// oipInputs pools decodeInfer's scratch of inputs as read (*[]oipInput).
var oipInputs sync.Pool

// decodeInfer reads an inference request body: JSON, followed by binary
// tensor data when jsonLen (Inference-Header-Content-Length) is given
// (>= 0).
func decodeInfer(body []byte, jsonLen int, sig *Signature) (*inferRequest, error) {
	return decodeInferWith(body, jsonLen, sig, true)
}

// decodeInferWith is decodeInfer with the inputs read by oipInputFast
// where they are plain (fast), or by the general reader alone (the
// reference its fuzz test compares it with).
func decodeInferWith(body []byte, jsonLen int, sig *Signature, fast bool) (*inferRequest, error) {
	var bin []byte
	if jsonLen >= 0 {
		if jsonLen > len(body) {
			return nil, badRequest("Inference-Header-Content-Length is %d, the body has %d bytes", jsonLen, len(body))
		}
		body, bin = body[:jsonLen], body[jsonLen:]
	}
	var arena dataArena
	s := &scanner{buf: body, general: !fast}
	if fast {
		s.arena = &arena
	}
	req := &inferRequest{}
	// Most requests give every input: a pooled scratch of that many.
	insp, _ := oipInputs.Get().(*[]oipInput)
	if insp == nil || cap(*insp) < len(sig.Inputs) {
		insp = &[]oipInput{}
		*insp = make([]oipInput, 0, len(sig.Inputs))
	}
	ins := (*insp)[:0]
	defer func() {
		if cap(ins) == cap(*insp) { // not grown out of it
			clear(ins) // it keeps no views of the body
			oipInputs.Put(insp)
		}
	}()
	// The inputs' shapes share one backing array: no allocation per input.
	shapes := make([]int64, 0, 2*len(sig.Inputs)+8)
	var outNames []string
	err := s.inferHeader(req, &outNames, func() error {
		return s.array(func(i int) error {
			ins = append(ins, oipInput{binSize: -1})
			return s.oipInput(i, &ins[len(ins)-1], &shapes)
		})
	})
	if err != nil {
		return nil, err
	}
	if len(ins) == 0 {
		return nil, badRequest("the request has no \"inputs\"")
	}
	req.feeds = make([]*interp.Tensor, len(sig.Inputs))
	var xs []interp.Tensor // the rest of the "data" inputs' tensors, made at the first
	for i, in := range ins {
		k, ok := sig.inputAt(in.name, i)
		if !ok {
			return nil, badRequest("inputs[%d]: %q is not an input of the model (%s)", i, in.name, inputList(sig))
		}
		if req.feeds[k] != nil {
			return nil, badRequest("inputs[%d]: input %q given twice", i, in.name)
		}
		spec := &sig.Inputs[k]
		if err := checkOIPType(spec, in.datatype, in.shape); err != nil {
			return nil, prefixError(fmt.Sprintf("inputs[%d] (%q)", i, in.name), err)
		}
		var t *interp.Tensor
		switch {
		case in.binSize >= 0:
			if in.data != nil {
				return nil, badRequest("inputs[%d] (%q) has both \"data\" and binary_data_size", i, in.name)
			}
			if in.binSize > int64(len(bin)) {
				return nil, badRequest("inputs[%d] (%q): binary_data_size %d is past the end of the binary data (%d bytes left)", i, in.name, in.binSize, len(bin))
			}
			t, err = decodeRaw(spec.DType, in.shape, bin[:in.binSize])
			bin = bin[in.binSize:]
		case in.data == nil:
			return nil, badRequest("inputs[%d] (%q) has no \"data\"", i, in.name)
		default:
			if len(xs) == 0 {
				xs = make([]interp.Tensor, len(ins)-i)
			}
			t = &xs[0]
			xs = xs[1:]
			if in.hasRead { // of in.datatype: the spec's, checkOIPType says
				err = dataTensor(&in.read, in.shape, t)
			} else {
				err = decodeData(spec.DType, in.shape, in.data, in.dataAt, &arena, t)
			}
		}
		if err != nil {
			return nil, prefixError(fmt.Sprintf("inputs[%d] (%q)", i, in.name), err)
		}
		req.feeds[k] = t
	}
	if len(bin) > 0 {
		return nil, badRequest("%d bytes of binary data after the inputs' binary_data_size", len(bin))
	}
	for k, t := range req.feeds {
		if t == nil {
			return nil, badRequest("input %q is missing", sig.Inputs[k].Key)
		}
	}
	if req.outputs, err = requestedOutputs(outNames, sig); err != nil {
		return nil, err
	}
	return req, nil
}

// requestedOutputs resolves requested output names.
func requestedOutputs(names []string, sig *Signature) ([]int, error) {
	if len(names) == 0 {
		return nil, nil
	}
	var out []int
	seen := map[int]bool{}
	for i, n := range names {
		k, ok := sig.output(n)
		if !ok {
			return nil, badRequest("outputs[%d]: %q is not an output of the model", i, n)
		}
		if !seen[k] {
			seen[k] = true
			out = append(out, k)
		}
	}
	return out, nil
}

// inferHeader reads the request's JSON object (the whole of it): its id
// into req, the names of the outputs asked for into outNames, and its
// "inputs" list by readInputs (called at the list's '[').
func (s *scanner) inferHeader(req *inferRequest, outNames *[]string, readInputs func() error) error {
	if s.peek() != '{' {
		return badRequest("the request body must be a JSON object, found %s", s.found())
	}
	err := s.object(func(key string) error {
		switch key {
		case "id":
			if s.peek() != '"' {
				return badRequest("\"id\" must be a string, found %s", s.found())
			}
			var err error
			req.id, err = s.str()
			return err
		case "inputs":
			if s.peek() != '[' {
				return badRequest("\"inputs\" must be a list, found %s", s.found())
			}
			return readInputs()
		case "outputs":
			if s.peek() != '[' {
				return badRequest("\"outputs\" must be a list, found %s", s.found())
			}
			return s.array(func(i int) error {
				if s.peek() != '{' {
					return badRequest("outputs[%d] must be an object, found %s", i, s.found())
				}
				name := ""
				err := s.object(func(key string) error {
					if key != "name" {
						return s.skip()
					}
					if s.peek() != '"' {
						return badRequest("outputs[%d].name must be a string, found %s", i, s.found())
					}
					var err error
					name, err = s.str()
					return err
				})
				if err == nil && name == "" {
					err = badRequest("outputs[%d] has no \"name\"", i)
				}
				*outNames = append(*outNames, name)
				return err
			})
		}
		return s.skip()
	})
	if err != nil {
		return err
	}
	return s.end()
}

// oipInput reads inputs[i] into in.
// oipInput reads inputs[i]. Its name and datatype are views of the body
// where they have no escapes; its shape goes into *shapes while that has
// room (the slice is cut to its length, so nothing appends past it).
func (s *scanner) oipInput(i int, in *oipInput, shapes *[]int64) error {
	if s.peek() != '{' {
		return badRequest("inputs[%d] must be an object, found %s", i, s.found())
	}
	if !s.general {
		at, used := s.pos, len(*shapes)
		if s.oipInputFast(in, shapes) {
			return nil
		}
		// The general reader, from the start: its result or its error.
		s.pos, *shapes = at, (*shapes)[:used]
		*in = oipInput{binSize: -1}
	}
	err := s.object(func(key string) error {
		var err error
		switch key {
		case "name", "datatype":
			if s.peek() != '"' {
				return badRequest("inputs[%d].%s must be a string, found %s", i, key, s.found())
			}
			raw, escaped, err := s.rawStr()
			if err != nil {
				return err
			}
			v := bytesString(raw) // a view: the body is never written
			if escaped {
				if v, err = unescape(raw); err != nil {
					return err
				}
			}
			if key == "name" {
				in.name = v
			} else {
				in.datatype = v
			}
			return nil
		case "shape":
			in.haveShape = true
			in.shape = []int64{}
			if s.peek() != '[' {
				return badRequest("inputs[%d].shape must be a list, found %s", i, s.found())
			}
			base := len(*shapes)
			t := tbuf{dt: interp.Int64, i64: (*shapes)[base:base:cap(*shapes)]}
			err := s.array(func(int) error {
				if err := s.scalar(&t); err != nil {
					return prefixError(fmt.Sprintf("inputs[%d].shape", i), err)
				}
				if d := t.i64[len(t.i64)-1]; d < 0 {
					return badRequest("inputs[%d].shape has a negative dimension %d", i, d)
				}
				return nil
			})
			n := len(t.i64)
			in.shape = t.i64[:n:n]
			if n <= cap(*shapes)-base { // in the shared array, not grown out of it
				*shapes = (*shapes)[:base+n]
			}
			return err
		case "data":
			in.dataAt = s.base + s.skipWS()
			in.data, err = s.span()
			return err
		case "parameters":
			if s.peek() != '{' {
				return badRequest("inputs[%d].parameters must be an object, found %s", i, s.found())
			}
			return s.object(func(p string) error {
				if p != "binary_data_size" {
					return s.skip()
				}
				base := len(*shapes) // scratch: the value is copied out
				t := tbuf{dt: interp.Int64, i64: (*shapes)[base:base:cap(*shapes)]}
				if err := s.scalar(&t); err != nil {
					return prefixError(fmt.Sprintf("inputs[%d].parameters.binary_data_size", i), err)
				}
				if t.i64[0] < 0 {
					return badRequest("inputs[%d].parameters.binary_data_size is negative", i)
				}
				in.binSize = t.i64[0]
				return nil
			})
		}
		return s.skip()
	})
	if err != nil {
		return err
	}
	switch {
	case in.name == "":
		return badRequest("inputs[%d] has no \"name\"", i)
	case in.datatype == "":
		return badRequest("inputs[%d] (%q) has no \"datatype\"", i, in.name)
	case !in.haveShape:
		return badRequest("inputs[%d] (%q) has no \"shape\"", i, in.name)
	}
	return nil
}

// oipInputFast reads an input written plainly, as clients write it: keys
// among name, datatype, shape, parameters and data, each once, without
// escapes; name and datatype ASCII strings without escapes; shape plain
// non-negative integers; binary_data_size a plain integer; the other
// parameters and data as the general reader skips and spans them. It
// reports false for anything else (an error included), and oipInput then
// reads the input again with the general reader, whose results and
// errors are the reference (FuzzDecodeInfer compares them).
func (s *scanner) oipInputFast(in *oipInput, shapes *[]int64) bool {
	b := s.buf
	if s.depth+3 > MaxJSONDepth || s.pos >= len(b) || b[s.pos] != '{' {
		return false
	}
	s.pos++
	var seen [5]bool
	for {
		s.ws()
		key, ok := s.plainString()
		if !ok {
			return false
		}
		s.ws()
		if s.pos >= len(b) || b[s.pos] != ':' {
			return false
		}
		s.pos++
		s.ws()
		k := -1
		switch string(key) {
		case "name":
			k = 0
			v, ok := s.plainString()
			if !ok || len(v) == 0 {
				return false
			}
			in.name = bytesString(v)
		case "datatype":
			k = 1
			v, ok := s.plainString()
			if !ok || len(v) == 0 {
				return false
			}
			in.datatype = bytesString(v)
		case "shape":
			k = 2
			if s.pos >= len(b) || b[s.pos] != '[' {
				return false
			}
			s.pos++
			base := len(*shapes)
			s.ws()
			if s.pos < len(b) && b[s.pos] == ']' {
				s.pos++
			} else {
				for {
					d, ok := s.plainInt()
					if !ok {
						return false
					}
					*shapes = append(*shapes, d)
					s.ws()
					if s.pos >= len(b) {
						return false
					}
					s.pos++
					if b[s.pos-1] == ']' {
						break
					}
					if b[s.pos-1] != ',' {
						return false
					}
					s.ws()
				}
			}
			n := len(*shapes) - base
			in.shape = (*shapes)[base : base+n : base+n]
			in.haveShape = true
		case "parameters":
			k = 3
			if s.pos >= len(b) || b[s.pos] != '{' {
				return false
			}
			var err error
			in.binSize, err = s.binarySize()
			if err != nil {
				return false
			}
		case "data":
			k = 4
			in.dataAt = s.base + s.pos
			if start := s.pos; s.arena != nil && seen[1] && seen[2] && s.readData(in) {
				in.data = b[start:s.pos]
			} else {
				var err error
				if in.data, err = s.span(); err != nil {
					return false
				}
			}
		}
		if k < 0 || seen[k] {
			return false
		}
		seen[k] = true
		s.ws()
		if s.pos >= len(b) {
			return false
		}
		s.pos++
		switch b[s.pos-1] {
		case ',':
			continue
		case '}':
			return seen[0] && seen[1] && seen[2]
		}
		return false
	}
}

// binarySize reads an input's parameters object at the scanner, plain:
// the last binary_data_size given, a plain integer (-1: none), the other
// parameters skipped; errNotPlain (or a malformed-JSON error) for a key
// with escapes (it may spell binary_data_size) or a size that is not
// plain: the fast readers then leave the input to the general one.
func (s *scanner) binarySize() (int64, error) {
	if s.pos >= len(s.buf) || s.buf[s.pos] != '{' {
		return 0, errNotPlain
	}
	size := int64(-1)
	err := s.objectRaw(func(p []byte, escaped bool) error {
		if escaped {
			return errNotPlain
		}
		if string(p) != "binary_data_size" {
			return s.skip()
		}
		s.ws()
		v, ok := s.plainInt()
		if !ok {
			return errNotPlain
		}
		size = v
		return nil
	})
	return size, err
}

// errNotPlain stops a fast reader that found what it leaves to the
// general one.
var errNotPlain = errors.New("not plain")

// plainString reads a string of printable ASCII without escapes (its
// bytes between the quotes); false (nothing consumed that matters: the
// caller falls back) for anything else.
func (s *scanner) plainString() ([]byte, bool) {
	b := s.buf
	if s.pos >= len(b) || b[s.pos] != '"' {
		return nil, false
	}
	start := s.pos + 1
	for i := start; i < len(b); i++ {
		switch c := b[i]; {
		case c == '"':
			s.pos = i + 1
			return b[start:i], true
		case c == '\\' || c < 0x20 || c >= 0x80:
			return nil, false
		}
	}
	return nil, false
}

// plainInt reads a non-negative integer of at most 18 digits, without a
// leading zero (but 0), followed by a delimiter.
func (s *scanner) plainInt() (int64, bool) {
	b := s.buf
	i := s.pos
	v := int64(0)
	for i < len(b) && b[i] >= '0' && b[i] <= '9' && i-s.pos < 18 {
		v = v*10 + int64(b[i]-'0')
		i++
	}
	n := i - s.pos
	if n == 0 || (n > 1 && b[s.pos] == '0') || i >= len(b) {
		return 0, false
	}
	switch b[i] {
	case ',', ']', '}', ' ', '\t', '\n', '\r':
	default:
		return 0, false
	}
	s.pos = i
	return v, true
}

// checkOIPType checks an input's datatype and shape against its spec and
// that the shape's element count is within the interpreter's limit.
func checkOIPType(spec *TensorSpec, datatype string, shape []int64) error {
	want := oipTypeName[spec.DType]
	if datatype != want {
		if _, known := oipTypes[datatype]; !known && datatype != "FP16" && datatype != "BF16" && datatype != "UINT16" && datatype != "UINT32" && datatype != "UINT64" {
			return badRequest("datatype %q is not a datatype of the protocol", datatype)
		}
		return badRequest("input %q has datatype %s, the model wants %s", spec.Key, datatype, want)
	}
	if _, err := interp.NumElements(shape); err != nil {
		return badRequest("%v", err)
	}
	if err := spec.checkShape(shape); err != nil {
		return badRequest("%v", err)
	}
	return nil
}

// decodeData reads an input's JSON "data" (flat or nested, row-major)
// into a tensor of shape.
func decodeData(dt interp.DType, shape []int64, data []byte, at int, a *dataArena, x *interp.Tensor) error {
	n, _ := interp.NumElements(shape)
	// The arena's scanner and buffer, reused input after input.
	s, t := &a.s, &a.t
	*s, *t = scanner{buf: data, base: at, depth: 3}, tbuf{dt: dt}
	// Room for the shape's elements at once, as many as data can hold
	// (each is at least a byte and a separator): no regrowth.
	a.room(t, int(min(n, int64(len(data)/2+1))))
	if _, err := s.nested(t); err != nil {
		return prefixError("data", err)
	}
	return dataTensor(t, shape, x)
}

// dataTensor makes *x of an input's elements as read, which must be as
// many as its shape has.
func dataTensor(t *tbuf, shape []int64, x *interp.Tensor) error {
	n, _ := interp.NumElements(shape)
	if got := t.len(); int64(got) != n {
		return badRequest("data has %d elements, shape %s has %d", got, shapeString(shape), n)
	}
	return t.sharedTensorIn(x, shape)
}

// readData reads the "data" at the scanner, of in's datatype and shape
// (read before it), into s.arena's arrays by the fast lists reader
// (fastNested), as decodeData would read it, and reports whether it did;
// when not, nothing is read (the input's data is then spanned and left
// to decodeData).
func (s *scanner) readData(in *oipInput) bool {
	dt, ok := oipTypes[in.datatype]
	if !ok {
		return false
	}
	n, err := interp.NumElements(in.shape)
	if err != nil {
		return false
	}
	// decodeData's scanner, over the rest of the body.
	sub := scanner{buf: s.buf, pos: s.pos, base: s.base, depth: 3}
	t := tbuf{dt: dt}
	s.arena.room(&t, int(min(n, int64(len(s.buf)-s.pos)/2+1)))
	if _, ok := sub.fastNested(&t, nil); !ok {
		return false
	}
	in.read, in.hasRead = t, true
	s.pos = sub.pos
	return true
}

// dataArena hands out the element arrays of a request's JSON "data"
// inputs, carved from a chunk per dtype: a request of many small inputs
// (E's 1001) allocates a few arrays, not one per input. A chunk is the
// larger of dataChunk elements and what was carved of its dtype before
// (so the chunks of a dtype double), at most dataChunkMax; an input larger
// than a quarter of that gets an array of its own.
type dataArena struct {
	a      tbuf                   // a chunk's rest of each dtype (a.dt is the last asked for)
	carved [interp.String + 1]int // elements carved so far, by dtype
	s      scanner                // decodeData's, an input at a time
	t      tbuf
}

const (
	dataChunk    = 4096
	dataChunkMax = 1 << 20
)

// room gives the empty t a capacity of n elements of its dtype.
func (d *dataArena) room(t *tbuf, n int) {
	if n > dataChunkMax/4 {
		t.grow(n)
		return
	}
	if d.a.dt = t.dt; d.a.capacity() < n {
		d.a.makeArray(t.dt, min(max(dataChunk, d.carved[t.dt], n), dataChunkMax))
	}
	t.carve(&d.a, n)
	d.carved[t.dt] += n
}

// decodeRaw reads a tensor of dtype and shape from raw bytes: row-major,
// little-endian; strings as a 4-byte little-endian length and the bytes.
// The tensor keeps shape (no copy): callers never write it again.
func decodeRaw(dt interp.DType, shape []int64, raw []byte) (*interp.Tensor, error) {
	n64, err := interp.NumElements(shape)
	if err != nil {
		return nil, badRequest("shape %s: %v", shapeString(shape), err)
	}
	n := int(n64)
	if dt == interp.String {
		vals := make([]string, 0, min(n, len(raw)/4))
		for i := 0; i < n; i++ {
			elem, rest, ok := nextBytes(raw)
			if !ok {
				if len(raw) < 4 {
					return nil, badRequest("the raw BYTES data ends in element %d of %d", i, n)
				}
				return nil, badRequest("BYTES element %d has length %d, only %d bytes are left", i, binary.LittleEndian.Uint32(raw), len(raw)-4)
			}
			vals = append(vals, bytesString(elem)) // a view: raw is never written
			raw = rest
		}
		if len(raw) > 0 {
			return nil, badRequest("%d bytes left after the %d BYTES elements", len(raw), n)
		}
		return interp.NewShared(shape, vals)
	}
	size := int(dt.ItemSize())
	if dt == interp.Bool {
		size = 1
	}
	if size <= 0 || int64(len(raw)) != n64*int64(size) {
		return nil, badRequest("the raw data has %d bytes, shape %s of %s needs %d", len(raw), shapeString(shape), oipTypeName[dt], n64*int64(size))
	}
	switch dt {
	case interp.Float32:
		return interp.NewShared(shape, rawAs[float32](raw, n))
	case interp.Float64:
		return interp.NewShared(shape, rawAs[float64](raw, n))
	case interp.Int8:
		return interp.NewShared(shape, rawAs[int8](raw, n))
	case interp.Int16:
		return interp.NewShared(shape, rawAs[int16](raw, n))
	case interp.Int32:
		return interp.NewShared(shape, rawAs[int32](raw, n))
	case interp.Int64:
		return interp.NewShared(shape, rawAs[int64](raw, n))
	case interp.Uint8:
		return interp.NewShared(shape, rawAs[uint8](raw, n))
	case interp.Bool:
		v := make([]bool, n)
		for i := range v {
			v[i] = raw[i] != 0
		}
		return interp.NewShared(shape, v)
	}
	return nil, badRequest("datatype %s cannot be sent raw", oipTypeName[dt])
}

// AppendRaw appends t's elements to b as the Open Inference Protocol's raw
// (binary tensor data) bytes: decodeRaw's layout. Clients (recom loadtest)
// build binary requests with it.
func AppendRaw(b []byte, t *interp.Tensor) []byte {
	le := binary.LittleEndian
	switch d := t.Data().(type) {
	case []float32:
		for _, v := range d {
			b = le.AppendUint32(b, math.Float32bits(v))
		}
	case []float64:
		for _, v := range d {
			b = le.AppendUint64(b, math.Float64bits(v))
		}
	case []int8:
		for _, v := range d {
			b = append(b, byte(v))
		}
	case []int16:
		for _, v := range d {
			b = le.AppendUint16(b, uint16(v))
		}
	case []int32:
		for _, v := range d {
			b = le.AppendUint32(b, uint32(v))
		}
	case []int64:
		for _, v := range d {
			b = le.AppendUint64(b, uint64(v))
		}
	case []uint8:
		b = append(b, d...)
	case []bool:
		for _, v := range d {
			if v {
				b = append(b, 1)
			} else {
				b = append(b, 0)
			}
		}
	case []string:
		for _, v := range d {
			b = le.AppendUint32(b, uint32(len(v)))
			b = append(b, v...)
		}
	}
	return b
}

// InferInputJSON is an Open Inference Protocol request input in its JSON
// form for clients of the server (recom loadtest, the tests), its keys in
// the order Triton's and KServe's clients write them (name, shape,
// datatype, parameters, data), not encoding/json's sorted map keys: the
// server reads an input's data as it comes only once it knows the
// datatype and shape (readData). Data nil: none (the binary extension's
// inputs).
type InferInputJSON struct {
	Name       string         `json:"name"`
	Shape      []int64        `json:"shape"`
	Datatype   string         `json:"datatype"`
	Parameters map[string]any `json:"parameters,omitempty"`
	Data       any            `json:"data,omitempty"`
}

// OIPDatatype is the Open Inference Protocol's name of dt ("FP32", "BYTES",
// ...; "" for a type the protocol has no name for).
func OIPDatatype(dt interp.DType) string { return oipTypeName[dt] }

// encodeInfer writes the inference response.
func encodeInfer(b []byte, model, version, id string, sig *Signature, outs []*interp.Tensor, which []int) []byte {
	b = append(b, `{"model_name":`...)
	b = appendString(b, model)
	b = append(b, `,"model_version":`...)
	b = appendString(b, version)
	if id != "" {
		b = append(b, `,"id":`...)
		b = appendString(b, id)
	}
	b = append(b, `,"outputs":[`...)
	for j, k := range which {
		if j > 0 {
			b = append(b, ',')
		}
		t := outs[k]
		b = append(b, `{"name":`...)
		b = appendString(b, sig.Outputs[k].Key)
		b = append(b, `,"datatype":"`...)
		b = append(b, oipTypeName[t.DType()]...)
		b = append(b, `","shape":[`...)
		for i, d := range t.Shape() {
			if i > 0 {
				b = append(b, ',')
			}
			b = fmt.Appendf(b, "%d", d)
		}
		b = append(b, `],"data":`...)
		b = appendFlat(b, t)
		b = append(b, '}')
	}
	return append(b, "]}\n"...)
}
