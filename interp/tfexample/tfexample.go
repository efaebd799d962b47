// Package tfexample encodes and decodes TensorFlow's tf.Example records on
// the protobuf wire format, for the interpreter's ParseExample and
// ParseExampleV2 (interp/tfops) and for tools and tests that need serialized
// examples.
//
// The messages, with the field numbers of TensorFlow's
// tensorflow/core/example/example.proto and feature.proto:
//
//	Example   { Features features = 1; }
//	Features  { map<string, Feature> feature = 1; }   // entry: key = 1, value = 2
//	Feature   { oneof kind { BytesList bytes_list = 1; FloatList float_list = 2; Int64List int64_list = 3; } }
//	BytesList { repeated bytes value = 1; }
//	FloatList { repeated float value = 1 [packed = true]; }
//	Int64List { repeated int64 value = 1 [packed = true]; }
//
// Encoding (Example.Marshal) writes what protobuf writes: numeric lists
// packed (MarshalOptions.Unpacked writes one tagged field per value, which
// readers must accept too).
//
// Decoding follows TensorFlow's fast Example parser
// (tensorflow/core/util/example_proto_fast_parsing.cc), which the
// ParseExample kernels use and which differs from a general protobuf
// decoder: Parse splits an Example into its feature-map entries in wire
// order (several features fields are concatenated, and unknown fields of
// the Example are skipped; a key may repeat, and the parser's user keeps
// the last); a Feature's kind is read from its first byte only (KindOf);
// and a numeric list is either one packed run (the bytes after it are
// ignored) or all unpacked values. Those rules are written out on the
// functions below.
//
// Decoding is bounded by its input: every length prefix is checked against
// the bytes that remain before anything is allocated, and the number of
// values of a list follows from its bytes (a float takes at least 4 bytes,
// an int64 and a string at least 1), so decoding n bytes allocates O(n).
package tfexample

import (
	"errors"
	"math"
	"sort"

	"google.golang.org/protobuf/encoding/protowire"
)

// Kind says which list a Feature holds.
type Kind uint8

// The kinds of a Feature, as feature.proto's oneof kind. None is a Feature
// with no list set (an empty message).
const (
	None Kind = iota
	BytesList
	FloatList
	Int64List
)

// String returns the name of the list field ("int64_list"), or "none".
func (k Kind) String() string {
	switch k {
	case BytesList:
		return "bytes_list"
	case FloatList:
		return "float_list"
	case Int64List:
		return "int64_list"
	}
	return "none"
}

// Feature is the value of one feature: the list that Kind names.
type Feature struct {
	Kind   Kind
	Bytes  []string
	Floats []float32
	Int64s []int64
}

// Bytes returns a bytes_list Feature of v.
func Bytes(v ...string) Feature { return Feature{Kind: BytesList, Bytes: v} }

// Floats returns a float_list Feature of v.
func Floats(v ...float32) Feature { return Feature{Kind: FloatList, Floats: v} }

// Int64s returns an int64_list Feature of v.
func Int64s(v ...int64) Feature { return Feature{Kind: Int64List, Int64s: v} }

// Len returns the number of values of the feature's list.
func (f Feature) Len() int {
	switch f.Kind {
	case BytesList:
		return len(f.Bytes)
	case FloatList:
		return len(f.Floats)
	case Int64List:
		return len(f.Int64s)
	}
	return 0
}

// Entry is one entry of an Example's feature map.
type Entry struct {
	Key     string
	Feature Feature
}

// Pair returns the entry of key and f.
func Pair(key string, f Feature) Entry { return Entry{Key: key, Feature: f} }

// Example is a tf.Example as the entries of its feature map in wire order.
// A key may appear more than once: TensorFlow's parser, like protobuf's map
// semantics, keeps the last.
type Example []Entry

// FromMap returns the entries of m sorted by key, the order of protobuf's
// deterministic marshaling.
func FromMap(m map[string]Feature) Example {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	ex := make(Example, len(keys))
	for i, k := range keys {
		ex[i] = Entry{Key: k, Feature: m[k]}
	}
	return ex
}

// MarshalOptions controls encoding.
type MarshalOptions struct {
	// Unpacked writes every float and int64 value as its own field
	// instead of one packed run.
	Unpacked bool
}

// Marshal returns the serialized Example, numeric lists packed.
func (e Example) Marshal() []byte { return MarshalOptions{}.Marshal(e) }

// Marshal returns the serialized Example.
func (o MarshalOptions) Marshal(e Example) []byte {
	var features []byte
	for _, en := range e {
		var entry []byte
		entry = protowire.AppendTag(entry, 1, protowire.BytesType)
		entry = protowire.AppendString(entry, en.Key)
		entry = protowire.AppendTag(entry, 2, protowire.BytesType)
		entry = protowire.AppendBytes(entry, o.marshalFeature(en.Feature))
		features = protowire.AppendTag(features, 1, protowire.BytesType)
		features = protowire.AppendBytes(features, entry)
	}
	var out []byte
	out = protowire.AppendTag(out, 1, protowire.BytesType)
	return protowire.AppendBytes(out, features)
}

// MarshalFeature returns the serialized Feature f.
func (o MarshalOptions) MarshalFeature(f Feature) []byte { return o.marshalFeature(f) }

func (o MarshalOptions) marshalFeature(f Feature) []byte {
	var list []byte
	switch f.Kind {
	case BytesList:
		for _, s := range f.Bytes {
			list = protowire.AppendTag(list, 1, protowire.BytesType)
			list = protowire.AppendString(list, s)
		}
	case FloatList:
		if o.Unpacked {
			for _, v := range f.Floats {
				list = protowire.AppendTag(list, 1, protowire.Fixed32Type)
				list = protowire.AppendFixed32(list, math.Float32bits(v))
			}
		} else if len(f.Floats) > 0 {
			var packed []byte
			for _, v := range f.Floats {
				packed = protowire.AppendFixed32(packed, math.Float32bits(v))
			}
			list = protowire.AppendTag(list, 1, protowire.BytesType)
			list = protowire.AppendBytes(list, packed)
		}
	case Int64List:
		if o.Unpacked {
			for _, v := range f.Int64s {
				list = protowire.AppendTag(list, 1, protowire.VarintType)
				list = protowire.AppendVarint(list, uint64(v))
			}
		} else if len(f.Int64s) > 0 {
			var packed []byte
			for _, v := range f.Int64s {
				packed = protowire.AppendVarint(packed, uint64(v))
			}
			list = protowire.AppendTag(list, 1, protowire.BytesType)
			list = protowire.AppendBytes(list, packed)
		}
	default:
		return nil
	}
	out := protowire.AppendTag(nil, protowire.Number(f.Kind), protowire.BytesType)
	return protowire.AppendBytes(out, list)
}

// ---- decoding ----

// ErrMalformed is the error of bytes that TensorFlow's fast parser cannot
// parse.
var ErrMalformed = errors.New("malformed tf.Example")

// ErrUnsupportedKind is KindOf's error for a Feature whose first field is
// not one of the three lists (TensorFlow's "Unsupported datatype.").
var ErrUnsupportedKind = errors.New("unsupported datatype: the feature's first field is not a bytes, float or int64 list")

// The one-byte tags the fast parser compares with the input: wire type 2
// (length-delimited) of fields 1, 2, 3, fixed32 and varint of field 1.
const (
	tagLen1     = 1<<3 | 2
	tagLen2     = 2<<3 | 2
	tagLen3     = 3<<3 | 2
	tagFixed32s = 1<<3 | 5
	tagVarint1  = 1 << 3 // wire type 0
)

// RawEntry is one feature-map entry of a serialized Example: its key and
// its serialized Feature, not yet decoded.
type RawEntry struct {
	Key   string
	Value []byte // shares the parsed bytes
}

// maxVarintBytes is the longest varint protobuf's C++ reader accepts.
const maxVarintBytes = 10

// varint reads a varint as protobuf's C++ CodedInputStream does: at most 10
// bytes, the bits beyond 64 dropped. n is 0 when b ends inside it or it is
// longer than 10 bytes. (protowire.ConsumeVarint refuses a 10th byte above
// 1, which the C++ reader accepts.)
func varint(b []byte) (v uint64, n int) {
	for i := 0; i < len(b) && i < maxVarintBytes; i++ {
		v |= uint64(b[i]&0x7f) << (7 * i)
		if b[i] < 0x80 {
			return v, i + 1
		}
	}
	return 0, 0
}

// length reads a length prefix (a varint read as 32 bits, as
// ReadVarint32 does) and checks it against the bytes that follow it.
func length(b []byte) (l, n int, ok bool) {
	v, n := varint(b)
	if n == 0 {
		return 0, 0, false
	}
	v32 := uint64(uint32(v))
	if v32 > uint64(len(b)-n) {
		return 0, 0, false
	}
	return int(v32), n, true
}

// Parse splits a serialized Example into the entries of its feature map,
// in wire order, as the fast parser's ParseExample: the Example is read to
// its end, every field 1 (tag byte 0x0a) is a Features message whose
// entries are appended (concatenated Examples merge), and other fields are
// skipped by wire type (varint, fixed64, length-delimited, fixed32; a group
// is malformed). A Features message holds only map entries (tag 0x0a); an
// entry holds exactly two length-delimited fields, each the key (1) or the
// value (2), in either order (a missing key is ""). A length prefix beyond
// the bytes that remain is malformed, except an entry's, which the C++
// reader's nested limits cut at the end of its Features message. Parse
// fails with ErrMalformed.
func Parse(b []byte) ([]RawEntry, error) {
	var out []RawEntry
	err := Entries(b, func(key, value []byte) { out = append(out, RawEntry{Key: string(key), Value: value}) })
	if err != nil {
		return nil, err
	}
	return out, nil
}

// skipField returns the length of the unknown field at the start of b, as
// the fast parser's SkipExtraneousTag reads it, or -1. A length-delimited
// field longer than what remains is skipped to the end (the C++ Skip's
// failure is ignored there).
func skipField(b []byte) int {
	tag, n := varint(b)
	if n == 0 {
		return -1
	}
	rest := b[n:]
	switch tag & 7 {
	case 0:
		_, m := varint(rest)
		if m == 0 {
			return -1
		}
		return n + m
	case 1:
		if len(rest) < 8 {
			return -1
		}
		return n + 8
	case 2:
		v, m := varint(rest)
		if m == 0 {
			return -1
		}
		l := uint64(uint32(v))
		if l > uint64(len(rest)-m) {
			return len(b)
		}
		return n + m + int(l)
	case 5:
		if len(rest) < 4 {
			return -1
		}
		return n + 4
	}
	return -1
}

// KindOf returns the kind of a serialized Feature as the fast parser reads
// it: from its first byte alone (0x0a bytes_list, 0x12 float_list, 0x1a
// int64_list); None for an empty Feature, ErrUnsupportedKind for any other
// first byte. A Feature that holds more than one list has the kind of the
// first.
func KindOf(f []byte) (Kind, error) {
	if len(f) == 0 {
		return None, nil
	}
	switch f[0] {
	case tagLen1:
		return BytesList, nil
	case tagLen2:
		return FloatList, nil
	case tagLen3:
		return Int64List, nil
	}
	return None, ErrUnsupportedKind
}

// list returns the body of the list message that follows a Feature's kind
// byte; what follows the list in the Feature is ignored, as by the fast
// parser.
func list(f []byte) ([]byte, bool) {
	if len(f) == 0 {
		return nil, false
	}
	l, n, ok := length(f[1:])
	if !ok {
		return nil, false
	}
	return f[1+n : 1+n+l], true
}

// DecodeBytes decodes the bytes_list of a serialized Feature (whose KindOf
// is BytesList): every field of the list must be value (tag 0x0a).
func DecodeBytes(f []byte) ([]string, error) {
	b, ok := list(f)
	if !ok {
		return nil, ErrMalformed
	}
	var out []string
	for len(b) > 0 {
		if b[0] != tagLen1 {
			return nil, ErrMalformed
		}
		l, n, ok := length(b[1:])
		if !ok {
			return nil, ErrMalformed
		}
		out = append(out, string(b[1+n:1+n+l]))
		b = b[1+n+l:]
	}
	return out, nil
}

// DecodeFloats decodes the float_list of a serialized Feature (whose
// KindOf is FloatList). An empty list has no values; otherwise its first
// byte decides: 0x0a is one packed run of little-endian floats (a length
// that is not a multiple of 4 drops the last partial value, and anything
// after the run is ignored, as the fast parser's copy of the packed bytes
// does); 0x0d starts unpacked values, every field of the list being one.
func DecodeFloats(f []byte) ([]float32, error) {
	b, ok := list(f)
	if !ok {
		return nil, ErrMalformed
	}
	if len(b) == 0 {
		return nil, nil
	}
	switch b[0] {
	case tagLen1:
		v, n := varint(b[1:])
		if n == 0 {
			return nil, ErrMalformed
		}
		// The fast parser reads the whole 4-byte values of the run's
		// length, which must lie inside the list.
		run := b[1+n:]
		k := uint64(uint32(v)) / 4
		if k > uint64(len(run)/4) {
			return nil, ErrMalformed
		}
		out := make([]float32, k)
		for i := range out {
			v, _ := protowire.ConsumeFixed32(run[4*i:])
			out[i] = math.Float32frombits(v)
		}
		return out, nil
	case tagFixed32s:
		out := make([]float32, 0, len(b)/5)
		for len(b) > 0 {
			if b[0] != tagFixed32s {
				return nil, ErrMalformed
			}
			v, n := protowire.ConsumeFixed32(b[1:])
			if n < 0 {
				return nil, ErrMalformed
			}
			out = append(out, math.Float32frombits(v))
			b = b[1+n:]
		}
		return out, nil
	}
	return nil, ErrMalformed
}

// DecodeInt64s decodes the int64_list of a serialized Feature (whose
// KindOf is Int64List). An empty list has no values; otherwise its first
// byte decides: 0x0a is one packed run of varints (a run length beyond the
// list is cut at the list's end, as the C++ reader's nested limits do, and
// anything after the run is ignored); 0x08 starts unpacked values, every
// field of the list being one. Varints are read as the C++ reader reads
// them (at most 10 bytes) and converted to int64 by two's complement.
func DecodeInt64s(f []byte) ([]int64, error) {
	b, ok := list(f)
	if !ok {
		return nil, ErrMalformed
	}
	if len(b) == 0 {
		return nil, nil
	}
	var out []int64
	switch b[0] {
	case tagLen1:
		v, n := varint(b[1:])
		if n == 0 {
			return nil, ErrMalformed
		}
		run := b[1+n:]
		if l := uint64(uint32(v)); l < uint64(len(run)) {
			run = run[:l]
		}
		for len(run) > 0 {
			x, m := varint(run)
			if m == 0 {
				return nil, ErrMalformed
			}
			out = append(out, int64(x))
			run = run[m:]
		}
		return out, nil
	case tagVarint1:
		for len(b) > 0 {
			if b[0] != tagVarint1 {
				return nil, ErrMalformed
			}
			x, m := varint(b[1:])
			if m == 0 {
				return nil, ErrMalformed
			}
			out = append(out, int64(x))
			b = b[1+m:]
		}
		return out, nil
	}
	return nil, ErrMalformed
}

// Decode decodes a serialized Feature: its kind (KindOf) and its list.
func Decode(f []byte) (Feature, error) {
	k, err := KindOf(f)
	if err != nil {
		return Feature{}, err
	}
	out := Feature{Kind: k}
	switch k {
	case BytesList:
		out.Bytes, err = DecodeBytes(f)
	case FloatList:
		out.Floats, err = DecodeFloats(f)
	case Int64List:
		out.Int64s, err = DecodeInt64s(f)
	}
	if err != nil {
		return Feature{}, err
	}
	return out, nil
}

// Unmarshal parses a serialized Example into its entries, decoding every
// feature (Parse, then Decode of each value). Unlike the ParseExample
// kernels, which decode only the features they are asked for, it fails on
// any feature that does not decode.
func Unmarshal(b []byte) (Example, error) {
	raw, err := Parse(b)
	if err != nil {
		return nil, err
	}
	ex := make(Example, len(raw))
	for i, r := range raw {
		f, err := Decode(r.Value)
		if err != nil {
			return nil, err
		}
		ex[i] = Entry{Key: r.Key, Feature: f}
	}
	return ex, nil
}
