// Package tfexample writes TensorFlow's tf.Example records on the protobuf
// wire format, for the feeds recom gen draws for a string input that a
// ParseExample or ParseExampleV2 op parses.
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
// Marshal writes what protobuf's deterministic marshaling writes: map
// entries in the order given (FromMap sorts them by key), numeric lists
// packed, and a Feature's list field even when the list is empty. Only the
// encoder is here; the API is the encoding half of the interpreter's
// tf.Example package (branch interpgaps), which replaces this one when it
// lands.
package tfexample

import (
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

// Entry is one entry of an Example's feature map.
type Entry struct {
	Key     string
	Feature Feature
}

// Example is a tf.Example as the entries of its feature map, in the order
// they are written.
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

// Marshal returns the serialized Example. An Example without entries is
// the empty message (every feature missing).
func (e Example) Marshal() []byte {
	var features []byte
	for _, en := range e {
		var entry []byte
		entry = protowire.AppendTag(entry, 1, protowire.BytesType)
		entry = protowire.AppendString(entry, en.Key)
		entry = protowire.AppendTag(entry, 2, protowire.BytesType)
		entry = protowire.AppendBytes(entry, marshalFeature(en.Feature))
		features = protowire.AppendTag(features, 1, protowire.BytesType)
		features = protowire.AppendBytes(features, entry)
	}
	if len(e) == 0 {
		return nil
	}
	out := protowire.AppendTag(nil, 1, protowire.BytesType)
	return protowire.AppendBytes(out, features)
}

// marshalFeature returns the serialized Feature.
func marshalFeature(f Feature) []byte {
	var list []byte
	switch f.Kind {
	case BytesList:
		for _, s := range f.Bytes {
			list = protowire.AppendTag(list, 1, protowire.BytesType)
			list = protowire.AppendString(list, s)
		}
	case FloatList:
		if len(f.Floats) > 0 {
			packed := make([]byte, 0, 4*len(f.Floats))
			for _, v := range f.Floats {
				packed = protowire.AppendFixed32(packed, math.Float32bits(v))
			}
			list = protowire.AppendTag(list, 1, protowire.BytesType)
			list = protowire.AppendBytes(list, packed)
		}
	case Int64List:
		if len(f.Int64s) > 0 {
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
