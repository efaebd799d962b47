package tfexample

import (
	"bytes"
	"errors"
	"math"
	"reflect"
	"testing"
)

// hx joins byte pieces written as strings of raw bytes.
func hx(parts ...string) []byte {
	var b []byte
	for _, p := range parts {
		b = append(b, p...)
	}
	return b
}

// TestMarshalBytes pins the encoding against bytes written by hand from
// the field numbers of example.proto and feature.proto.
func TestMarshalBytes(t *testing.T) {
	for _, c := range []struct {
		name string
		ex   Example
		opts MarshalOptions
		want []byte
	}{
		{"int64 packed", Example{{"a", Int64s(1)}}, MarshalOptions{},
			// Example.features { feature { key "a" value { int64_list { value: [1] } } } }
			hx("\x0a\x0c", "\x0a\x0a", "\x0a\x01a", "\x12\x05", "\x1a\x03", "\x0a\x01\x01")},
		{"int64 unpacked", Example{{"a", Int64s(1, 2)}}, MarshalOptions{Unpacked: true},
			hx("\x0a\x0d", "\x0a\x0b", "\x0a\x01a", "\x12\x06", "\x1a\x04", "\x08\x01\x08\x02")},
		{"float packed", Example{{"f", Floats(1)}}, MarshalOptions{},
			hx("\x0a\x0f", "\x0a\x0d", "\x0a\x01f", "\x12\x08", "\x12\x06", "\x0a\x04\x00\x00\x80\x3f")},
		{"float unpacked", Example{{"f", Floats(1)}}, MarshalOptions{Unpacked: true},
			hx("\x0a\x0e", "\x0a\x0c", "\x0a\x01f", "\x12\x07", "\x12\x05", "\x0d\x00\x00\x80\x3f")},
		{"bytes", Example{{"s", Bytes("xy", "")}}, MarshalOptions{},
			hx("\x0a\x0f", "\x0a\x0d", "\x0a\x01s", "\x12\x08", "\x0a\x06", "\x0a\x02xy\x0a\x00")},
		{"empty feature", Example{{"e", Feature{}}}, MarshalOptions{},
			hx("\x0a\x07", "\x0a\x05", "\x0a\x01e", "\x12\x00")},
		{"empty list", Example{{"e", Int64s()}}, MarshalOptions{},
			hx("\x0a\x09", "\x0a\x07", "\x0a\x01e", "\x12\x02", "\x1a\x00")},
		{"no features", Example{}, MarshalOptions{}, hx("\x0a\x00")},
	} {
		if got := c.opts.Marshal(c.ex); !bytes.Equal(got, c.want) {
			t.Errorf("%s: got % x, want % x", c.name, got, c.want)
		}
	}
}

func TestRoundTrip(t *testing.T) {
	ex := Example{
		{"s", Bytes("a", "", "\x00\xff")},
		{"f", Floats(1.5, float32(math.Inf(-1)), -0)},
		{"i", Int64s(0, -1, math.MinInt64, math.MaxInt64, 300)},
		{"e", Feature{}},
		{"empty", Floats()},
		{"s", Bytes("last")},
	}
	for _, opts := range []MarshalOptions{{}, {Unpacked: true}} {
		got, err := Unmarshal(opts.Marshal(ex))
		if err != nil {
			t.Fatalf("%+v: %v", opts, err)
		}
		want := append(Example{}, ex...)
		want[4].Feature = Feature{Kind: FloatList} // no values decode as nil
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%+v: got %+v, want %+v", opts, got, want)
		}
	}
	m := FromMap(map[string]Feature{"b": Int64s(2), "a": Int64s(1)})
	if m[0].Key != "a" || m[1].Key != "b" {
		t.Errorf("FromMap order: %+v", m)
	}
}

// TestParseFastParserRules covers the rules of TensorFlow's fast parser
// on hand-written bytes.
func TestParseFastParserRules(t *testing.T) {
	entryA := hx("\x0a\x0a", "\x0a\x01a", "\x12\x05", "\x1a\x03", "\x0a\x01\x01")  // a: [1]
	entryA2 := hx("\x0a\x0a", "\x0a\x01a", "\x12\x05", "\x1a\x03", "\x0a\x01\x02") // a: [2]
	features := func(entries ...[]byte) []byte {
		body := hx(func() []string {
			var s []string
			for _, e := range entries {
				s = append(s, string(e))
			}
			return s
		}()...)
		return append([]byte{0x0a, byte(len(body))}, body...)
	}
	type want struct {
		keys []string
		err  error
	}
	for _, c := range []struct {
		name string
		in   []byte
		want want
	}{
		{"empty input", nil, want{nil, nil}},
		{"two entries", features(entryA, entryA2), want{[]string{"a", "a"}, nil}},
		{"concatenated examples merge", hx(string(features(entryA)), string(features(entryA2))), want{[]string{"a", "a"}, nil}},
		{"unknown varint field skipped", hx("\x10\x96\x01", string(features(entryA))), want{[]string{"a"}, nil}},
		{"unknown fixed64 and fixed32 skipped", hx("\x19\x01\x02\x03\x04\x05\x06\x07\x08\x25\x01\x02\x03\x04", string(features(entryA))), want{[]string{"a"}, nil}},
		{"unknown bytes field skipped", hx("\x1a\x02xy", string(features(entryA))), want{[]string{"a"}, nil}},
		{"unknown bytes field past the end ends the example", hx(string(features(entryA)), "\x1a\x09xy"), want{[]string{"a"}, nil}},
		{"group", hx("\x1b", string(features(entryA))), want{nil, ErrMalformed}},
		{"truncated fixed64", hx("\x19\x01\x02"), want{nil, ErrMalformed}},
		{"features past the end", hx("\x0a\x20", string(entryA)), want{nil, ErrMalformed}},
		{"non-entry field in features", hx("\x0a\x02", "\x10\x01"), want{nil, ErrMalformed}},
		{"value before key", features(hx("\x0a\x07", "\x12\x02\x1a\x00", "\x0a\x01b")), want{[]string{"b"}, nil}},
		{"no key", features(hx("\x0a\x08", "\x12\x02\x1a\x00", "\x12\x02\x1a\x00")), want{[]string{""}, nil}},
		{"one field only", features(hx("\x0a\x03", "\x0a\x01b")), want{nil, ErrMalformed}},
		{"three fields", features(hx("\x0a\x0a", "\x0a\x01b", "\x12\x02\x1a\x00", "\x0a\x01c")), want{nil, ErrMalformed}},
		{"entry length cut at the features' end", hx("\x0a\x09", "\x0a\x7f", "\x0a\x01b", "\x12\x02\x1a\x00"), want{[]string{"b"}, nil}},
		{"key past the entry", features(hx("\x0a\x04", "\x0a\x05b", "\x12\x00")), want{nil, ErrMalformed}},
		{"truncated varint", hx("\x0a\x80"), want{nil, ErrMalformed}},
		{"11-byte varint", hx("\x10\x80\x80\x80\x80\x80\x80\x80\x80\x80\x80\x01"), want{nil, ErrMalformed}},
	} {
		got, err := Parse(c.in)
		if !errors.Is(err, c.want.err) {
			t.Errorf("%s: error %v, want %v", c.name, err, c.want.err)
			continue
		}
		var keys []string
		for _, e := range got {
			keys = append(keys, e.Key)
		}
		if !reflect.DeepEqual(keys, c.want.keys) {
			t.Errorf("%s: keys %q, want %q", c.name, keys, c.want.keys)
		}
	}
}

// TestDecodeFeature covers the decoding of one Feature's list.
func TestDecodeFeature(t *testing.T) {
	f1 := math.Float32bits(1)
	le := func(v uint32) string { return string([]byte{byte(v), byte(v >> 8), byte(v >> 16), byte(v >> 24)}) }
	for _, c := range []struct {
		name string
		in   []byte
		want Feature
		err  error
	}{
		{"empty feature", nil, Feature{}, nil},
		{"unsupported first field", hx("\x22\x00"), Feature{}, ErrUnsupportedKind},
		{"varint first field", hx("\x08\x01"), Feature{}, ErrUnsupportedKind},
		{"two lists: the first wins", hx("\x1a\x03\x0a\x01\x05", "\x0a\x03\x0a\x01x"), Int64s(5), nil},
		{"bytes past the end of the feature", hx("\x0a\x05\x0a\x01x"), Feature{}, ErrMalformed},
		{"bytes with an unpacked-style field", hx("\x0a\x02\x08\x01"), Feature{}, ErrMalformed},
		{"empty bytes value", hx("\x0a\x02\x0a\x00"), Bytes(""), nil},
		{"packed floats", hx("\x12\x0a\x0a\x08", le(f1), le(math.Float32bits(-2))), Floats(1, -2), nil},
		{"packed floats, partial last value dropped", hx("\x12\x07\x0a\x05", le(f1), "\x00"), Floats(1), nil},
		{"packed floats, run length past the list by less than a value", hx("\x12\x06\x0a\x05", le(f1)), Floats(1), nil},
		{"packed floats, run past the list", hx("\x12\x06\x0a\x08", le(f1)), Feature{}, ErrMalformed},
		{"packed floats, bytes after the run ignored", hx("\x12\x09\x0a\x04", le(f1), "\x0d\x00\x00\x00"), Floats(1), nil},
		{"unpacked floats", hx("\x12\x0a\x0d", le(f1), "\x0d", le(f1)), Floats(1, 1), nil},
		{"unpacked floats then packed", hx("\x12\x0b\x0d", le(f1), "\x0a\x04", le(f1)), Feature{}, ErrMalformed},
		{"unpacked float truncated", hx("\x12\x03\x0d\x00\x00"), Feature{}, ErrMalformed},
		{"float list of a wrong field", hx("\x12\x02\x10\x01"), Feature{}, ErrMalformed},
		{"empty float list", hx("\x12\x00"), Feature{Kind: FloatList}, nil},
		{"NaN bits kept", hx("\x12\x06\x0a\x04", le(0x7fc00001)), Floats(math.Float32frombits(0x7fc00001)), nil},
		{"packed ints", hx("\x1a\x05\x0a\x03\x01\x96\x01"), Int64s(1, 150), nil},
		{"packed ints, run cut at the list's end", hx("\x1a\x04\x0a\x7f\x01\x02"), Int64s(1, 2), nil},
		{"packed ints, bytes after the run ignored", hx("\x1a\x05\x0a\x01\x01\x08\x02"), Int64s(1), nil},
		{"unpacked ints", hx("\x1a\x04\x08\x01\x08\x02"), Int64s(1, 2), nil},
		{"unpacked ints then packed", hx("\x1a\x05\x08\x01\x0a\x01\x02"), Feature{}, ErrMalformed},
		{"negative int: 10-byte varint", hx("\x1a\x0c\x0a\x0a\xff\xff\xff\xff\xff\xff\xff\xff\xff\x01"), Int64s(-1), nil},
		{"10th varint byte above 1: high bits dropped", hx("\x1a\x0c\x0a\x0a\xff\xff\xff\xff\xff\xff\xff\xff\xff\x7f"), Int64s(-1), nil},
		{"11-byte varint", hx("\x1a\x0d\x0a\x0b\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\x01"), Feature{}, ErrMalformed},
		{"truncated packed int", hx("\x1a\x03\x0a\x01\x80"), Feature{}, ErrMalformed},
		{"list length past the feature", hx("\x1a\x09\x0a\x01\x01"), Feature{}, ErrMalformed},
	} {
		got, err := Decode(c.in)
		if !errors.Is(err, c.err) {
			t.Errorf("%s: error %v, want %v", c.name, err, c.err)
			continue
		}
		if err != nil {
			continue
		}
		if !sameFeature(got, c.want) {
			t.Errorf("%s: got %+v, want %+v", c.name, got, c.want)
		}
	}
}

// FuzzDecode checks that no input makes the decoder panic or allocate
// values out of proportion to the input, and that what decodes encodes
// back to bytes that decode to the same features.
func FuzzDecode(f *testing.F) {
	f.Add([]byte{})
	f.Add(Example{{"a", Int64s(1, -1)}, {"b", Floats(1, 2)}, {"c", Bytes("x")}}.Marshal())
	f.Add(MarshalOptions{Unpacked: true}.Marshal(Example{{"a", Int64s(1, -1)}, {"b", Floats(1, 2)}}))
	f.Add([]byte("\x0a\x09\x0a\x7f\x0a\x01b\x12\x02\x1a\x00"))
	f.Add([]byte("\x10\x96\x01\x1a\x02xy\x0a\x00"))
	f.Fuzz(func(t *testing.T, b []byte) {
		raw, err := Parse(b)
		if err != nil {
			return
		}
		if len(raw) > len(b)/2 {
			t.Fatalf("%d entries from %d bytes", len(raw), len(b))
		}
		var ex Example
		for _, r := range raw {
			ft, err := Decode(r.Value)
			if err != nil {
				continue
			}
			if ft.Len() > len(r.Value) {
				t.Fatalf("%d values from a %d-byte feature", ft.Len(), len(r.Value))
			}
			ex = append(ex, Entry{Key: r.Key, Feature: ft})
		}
		for _, opts := range []MarshalOptions{{}, {Unpacked: true}} {
			back, err := Unmarshal(opts.Marshal(ex))
			if err != nil {
				t.Fatalf("re-encoded example does not parse: %v", err)
			}
			if len(back) != len(ex) {
				t.Fatalf("re-encoded example has %d entries, want %d", len(back), len(ex))
			}
			for i := range ex {
				if !sameFeature(back[i].Feature, ex[i].Feature) || back[i].Key != ex[i].Key {
					t.Fatalf("entry %d: got %+v, want %+v", i, back[i], ex[i])
				}
			}
		}
	})
}

// sameFeature compares features, floats by their bits (NaN payloads too).
func sameFeature(a, b Feature) bool {
	if a.Kind != b.Kind || a.Len() != b.Len() {
		return false
	}
	for i := range a.Floats {
		if math.Float32bits(a.Floats[i]) != math.Float32bits(b.Floats[i]) {
			return false
		}
	}
	for i := range a.Int64s {
		if a.Int64s[i] != b.Int64s[i] {
			return false
		}
	}
	for i := range a.Bytes {
		if a.Bytes[i] != b.Bytes[i] {
			return false
		}
	}
	return true
}
