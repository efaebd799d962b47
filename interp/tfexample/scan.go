package tfexample

import (
	"encoding/binary"
	"iter"
	"math"
)

// Reading without allocating: Entries walks a serialized Example's
// feature-map entries and ListOf checks and counts a Feature's list,
// whose values its methods then read in place. They follow exactly the
// rules of Parse and of the Decode functions (Parse is Entries collecting
// the entries; ListOf fails where Decode fails and reads the same
// values), for readers that parse many records straight into buffers of
// their own, such as a runtime's packer.

// Entries calls fn with the key and the serialized Feature of every
// feature-map entry of the serialized Example b, in wire order, by
// Parse's rules; both share b. It returns ErrMalformed where Parse fails
// (fn has then seen the entries before the malformed bytes).
func Entries(b []byte, fn func(key, value []byte)) error {
	for len(b) > 0 {
		if b[0] != tagLen1 {
			n := skipField(b)
			if n < 0 {
				return ErrMalformed
			}
			b = b[n:]
			continue
		}
		l, n, ok := length(b[1:])
		if !ok {
			return ErrMalformed
		}
		features := b[1+n : 1+n+l]
		b = b[1+n+l:]
		for len(features) > 0 {
			if features[0] != tagLen1 {
				return ErrMalformed
			}
			// The entry's length is a limit nested in the Features
			// message's: one beyond it is cut there.
			v, n := varint(features[1:])
			if n == 0 {
				return ErrMalformed
			}
			body := features[1+n:]
			if l := uint64(uint32(v)); l < uint64(len(body)) {
				body = body[:l]
			}
			key, value, ok := entryOf(body)
			if !ok {
				return ErrMalformed
			}
			fn(key, value)
			features = features[1+n+len(body):]
		}
	}
	return nil
}

// entryOf reads one map entry (its body): exactly two length-delimited
// fields, each the key (1) or the value (2); a missing key is empty.
func entryOf(b []byte) (key, value []byte, ok bool) {
	for range 2 {
		tag, n := varint(b)
		if n == 0 || tag != tagLen1 && tag != tagLen2 {
			return nil, nil, false
		}
		l, m, ok := length(b[n:])
		if !ok {
			return nil, nil, false
		}
		v := b[n+m : n+m+l]
		if tag == tagLen1 {
			key = v
		} else {
			value = v
		}
		b = b[n+m+l:]
	}
	return key, value, len(b) == 0
}

// List is the list of a serialized Feature, checked and counted by
// ListOf, its values not yet decoded.
type List struct {
	Kind Kind
	// N is the number of values; Bytes, for a bytes_list, the bytes of
	// all of them.
	N, Bytes int
	body     []byte // bytes_list: its fields; float_list packed: the N*4 bytes of the run
	packed   bool
}

// ListOf reads the list of the serialized Feature f, of kind KindOf(f):
// it fails exactly where Decode fails, with the same error, and its
// values are the ones Decode returns.
func ListOf(f []byte) (List, error) {
	k, err := KindOf(f)
	if err != nil {
		return List{}, err
	}
	l := List{Kind: k}
	if k == None {
		return l, nil
	}
	b, ok := list(f)
	if !ok {
		return List{}, ErrMalformed
	}
	switch k {
	case BytesList:
		l.body = b
		for len(b) > 0 {
			if b[0] != tagLen1 {
				return List{}, ErrMalformed
			}
			n, m, ok := length(b[1:])
			if !ok {
				return List{}, ErrMalformed
			}
			l.N++
			l.Bytes += n
			b = b[1+m+n:]
		}
	case FloatList:
		if len(b) == 0 {
			return l, nil
		}
		switch b[0] {
		case tagLen1:
			v, n := varint(b[1:])
			if n == 0 {
				return List{}, ErrMalformed
			}
			run := b[1+n:]
			k := uint64(uint32(v)) / 4
			if k > uint64(len(run)/4) {
				return List{}, ErrMalformed
			}
			l.N, l.body, l.packed = int(k), run[:4*k], true
		case tagFixed32s:
			if len(b)%5 != 0 {
				return List{}, ErrMalformed
			}
			for i := 0; i < len(b); i += 5 {
				if b[i] != tagFixed32s {
					return List{}, ErrMalformed
				}
			}
			l.N, l.body = len(b)/5, b
		default:
			return List{}, ErrMalformed
		}
	case Int64List:
		if len(b) == 0 {
			return l, nil
		}
		switch b[0] {
		case tagLen1:
			v, n := varint(b[1:])
			if n == 0 {
				return List{}, ErrMalformed
			}
			run := b[1+n:]
			if l := uint64(uint32(v)); l < uint64(len(run)) {
				run = run[:l]
			}
			cnt := 0
			for i := 0; i < len(run); {
				_, m := varint(run[i:])
				if m == 0 {
					return List{}, ErrMalformed
				}
				cnt++
				i += m
			}
			l.N, l.body, l.packed = cnt, run, true
		case tagVarint1:
			cnt := 0
			for i := 0; i < len(b); {
				if b[i] != tagVarint1 {
					return List{}, ErrMalformed
				}
				_, m := varint(b[i+1:])
				if m == 0 {
					return List{}, ErrMalformed
				}
				cnt++
				i += 1 + m
			}
			l.N, l.body = cnt, b
		default:
			return List{}, ErrMalformed
		}
	}
	return l, nil
}

// Strings yields the values of a bytes_list, in order, as slices of the
// serialized Feature.
func (l List) Strings() iter.Seq[[]byte] {
	return func(yield func([]byte) bool) {
		if l.Kind != BytesList {
			return
		}
		b := l.body
		for len(b) > 0 {
			n, m, _ := length(b[1:])
			if !yield(b[1+m : 1+m+n]) {
				return
			}
			b = b[1+m+n:]
		}
	}
}

// Floats appends the values of a float_list to dst.
func (l List) Floats(dst []float32) []float32 {
	if l.Kind != FloatList {
		return dst
	}
	b := l.body
	if l.packed {
		for i := 0; i < len(b); i += 4 {
			dst = append(dst, math.Float32frombits(binary.LittleEndian.Uint32(b[i:])))
		}
		return dst
	}
	for i := 0; i < len(b); i += 5 {
		dst = append(dst, math.Float32frombits(binary.LittleEndian.Uint32(b[i+1:])))
	}
	return dst
}

// FloatBits appends the bits of the values of a float_list to dst.
func (l List) FloatBits(dst []uint32) []uint32 {
	for v := range l.FloatBitValues() {
		dst = append(dst, v)
	}
	return dst
}

// Int64s appends the values of an int64_list to dst.
func (l List) Int64s(dst []int64) []int64 {
	for v := range l.Int64Values() {
		dst = append(dst, v)
	}
	return dst
}

// Int64Values yields the values of an int64_list, in order.
func (l List) Int64Values() iter.Seq[int64] {
	return func(yield func(int64) bool) {
		if l.Kind != Int64List {
			return
		}
		b := l.body
		skip := 1
		if l.packed {
			skip = 0
		}
		for len(b) > 0 {
			x, m := varint(b[skip:])
			if !yield(int64(x)) {
				return
			}
			b = b[skip+m:]
		}
	}
}

// FloatBitValues yields the bits of the values of a float_list, in order.
func (l List) FloatBitValues() iter.Seq[uint32] {
	return func(yield func(uint32) bool) {
		if l.Kind != FloatList {
			return
		}
		b := l.body
		step, at := 5, 1
		if l.packed {
			step, at = 4, 0
		}
		for i := 0; i < len(b); i += step {
			if !yield(binary.LittleEndian.Uint32(b[i+at:])) {
				return
			}
		}
	}
}

// Raw returns where l's values lie: the bytes ListOf found them in (a
// slice of the Feature: a bytes_list's fields, a float_list's packed run
// or unpacked fields, an int64_list's packed run or unpacked fields) and
// whether they are one packed run. With RawList, a reader that keeps many
// lists as offsets into their records makes them again without reading
// them twice.
func (l List) Raw() (body []byte, packed bool) { return l.body, l.packed }

// RawList returns the List of kind k with n values (and, for a
// bytes_list, bytes bytes) in body, as Raw gave them; it checks nothing,
// so its arguments must come from Raw of a List that ListOf made.
func RawList(k Kind, n, bytes int, body []byte, packed bool) List {
	return List{Kind: k, N: n, Bytes: bytes, body: body, packed: packed}
}
