package tfexample

import (
	"errors"
	"math"
	"slices"
	"testing"
)

// listValues reads l's values as a Feature, through its methods.
func listValues(l List) Feature {
	f := Feature{Kind: l.Kind}
	switch l.Kind {
	case BytesList:
		for s := range l.Strings() {
			f.Bytes = append(f.Bytes, string(s))
		}
	case FloatList:
		f.Floats = l.Floats(nil)
		bits := l.FloatBits(nil)
		for i, b := range bits {
			if math.Float32bits(f.Floats[i]) != b {
				panic("FloatBits differs from Floats")
			}
		}
	case Int64List:
		f.Int64s = l.Int64s(nil)
	}
	return f
}

// checkList checks that ListOf agrees with Decode on the feature bytes f:
// the same error, else the same values, counted.
func checkList(t *testing.T, f []byte) {
	t.Helper()
	want, werr := Decode(f)
	l, err := ListOf(f)
	if !errors.Is(err, werr) || (err == nil) != (werr == nil) {
		t.Fatalf("%q: ListOf error %v, Decode error %v", f, err, werr)
	}
	if err != nil {
		return
	}
	got := listValues(l)
	if l.N != want.Len() || !sameFeature(got, want) {
		t.Fatalf("%q: ListOf reads %d values %+v, Decode %+v", f, l.N, got, want)
	}
	if l.Kind == BytesList {
		n := 0
		for _, s := range want.Bytes {
			n += len(s)
		}
		if l.Bytes != n {
			t.Fatalf("%q: %d bytes counted, %d in the values", f, l.Bytes, n)
		}
	}
}

func TestListOf(t *testing.T) {
	o := MarshalOptions{}
	u := MarshalOptions{Unpacked: true}
	for _, f := range [][]byte{
		nil, {}, {0x0a, 0x00}, {0x12, 0x00}, {0x1a, 0x00}, {0x22, 0x00}, {0x0a},
		o.MarshalFeature(Bytes("a", "", "bcdefghij")), o.MarshalFeature(Floats(1, -2.5, float32(math.Inf(1)))),
		u.MarshalFeature(Floats(1, 2)), o.MarshalFeature(Int64s(0, -1, 1<<40)), u.MarshalFeature(Int64s(3, -7)),
		[]byte("\x12\x06\x0a\x05\x00\x00\x80\x3f\x01"),                 // a run of 5 bytes: one value
		[]byte("\x12\x06\x0a\x08\x00\x00\x80\x3f\x01"),                 // a run beyond the list
		[]byte("\x12\x07\x0d\x00\x00\x80\x3f\x0d\x00"),                 // an unpacked value cut short
		[]byte("\x1a\x04\x0a\x05\x01\x02"),                             // a run cut at the list's end
		[]byte("\x1a\x03\x0a\x01\x81"),                                 // a varint cut short
		[]byte("\x1a\x04\x08\x01\x10\x02"),                             // another field among unpacked values
		[]byte("\x0a\x04\x0a\x01x\x12"),                                // a bytes list with a stray byte
		[]byte("\x1a\x02\x0a\x00\x12\x00"),                             // a second list after the first: ignored
		[]byte("\x1a\x0c\x08\xff\xff\xff\xff\xff\xff\xff\xff\xff\x7f"), // a 10-byte varint above 1
	} {
		checkList(t, f)
	}
}

// TestEntries: Entries gives Parse's entries, sharing the bytes.
func TestEntries(t *testing.T) {
	b := Example{{"a", Int64s(1)}, {"b", Bytes("x")}, {"a", Floats(2)}}.Marshal()
	var keys []string
	if err := Entries(b, func(k, v []byte) { keys = append(keys, string(k)) }); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(keys, []string{"a", "b", "a"}) {
		t.Errorf("keys %v", keys)
	}
	if err := Entries(b[:len(b)-1], func(k, v []byte) {}); !errors.Is(err, ErrMalformed) {
		t.Errorf("a cut record: %v", err)
	}
}

// FuzzList: ListOf agrees with Decode on any feature bytes.
func FuzzList(f *testing.F) {
	f.Add([]byte{})
	f.Add(MarshalOptions{}.MarshalFeature(Int64s(1, -1)))
	f.Add(MarshalOptions{Unpacked: true}.MarshalFeature(Floats(1, 2)))
	f.Add(MarshalOptions{}.MarshalFeature(Bytes("x", "yz")))
	f.Add([]byte("\x12\x06\x0a\x05\x00\x00\x80\x3f\x01"))
	f.Fuzz(func(t *testing.T, b []byte) { checkList(t, b) })
}
