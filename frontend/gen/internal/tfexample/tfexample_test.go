package tfexample

import (
	"bytes"
	"encoding/hex"
	"strings"
	"testing"
)

// unhex reads hex bytes written with spaces between them.
func unhex(t *testing.T, s string) []byte {
	t.Helper()
	b, err := hex.DecodeString(strings.ReplaceAll(s, " ", ""))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// Marshal writes what protobuf writes for the same message (the bytes
// below are worked out by hand from example.proto and feature.proto).
func TestMarshal(t *testing.T) {
	for _, c := range []struct {
		name string
		ex   Example
		want string
	}{
		{"no features", nil, ""},
		{"int64 list, negative value", Example{{"a", Int64s(1, -1)}},
			// Example.features { feature { key "a" value { int64_list { value: [1, -1] packed } } } }
			"0a 16  0a 14  0a 01 61  12 0f  1a 0d  0a 0b 01 ff ff ff ff ff ff ff ff ff 01"},
		{"float list", Example{{"x", Floats(1.5)}},
			"0a 0f  0a 0d  0a 01 78  12 08  12 06  0a 04 00 00 c0 3f"},
		{"bytes list with an empty string", Example{{"s", Bytes("ab", "")}},
			"0a 0f  0a 0d  0a 01 73  12 08  0a 06  0a 02 61 62  0a 00"},
		{"empty lists keep their kind", Example{{"e", Int64s()}, {"f", Floats()}},
			"0a 12  0a 07 0a 01 65 12 02 1a 00  0a 07 0a 01 66 12 02 12 00"},
	} {
		t.Run(c.name, func(t *testing.T) {
			got := c.ex.Marshal()
			if want := unhex(t, c.want); !bytes.Equal(got, want) {
				t.Errorf("Marshal = % x\nwant      % x", got, want)
			}
		})
	}
}

func TestFromMapSortsKeys(t *testing.T) {
	ex := FromMap(map[string]Feature{"b": Int64s(2), "a": Int64s(1), "c": Bytes("x")})
	var keys []string
	for _, e := range ex {
		keys = append(keys, e.Key)
	}
	if strings.Join(keys, ",") != "a,b,c" {
		t.Errorf("keys %v", keys)
	}
	if ex[2].Feature.Kind != BytesList || ex[2].Feature.Kind.String() != "bytes_list" {
		t.Errorf("feature c: %+v", ex[2].Feature)
	}
}
