package splitinput

import (
	"reflect"
	"strings"
	"testing"
)

func TestSplit(t *testing.T) {
	tests := []struct {
		name string
		src  string
		want []Chunk
	}{
		{"no marker", "a\nb\n", []Chunk{{"a\nb\n", 1}}},
		{"empty", "", []Chunk{{"", 1}}},
		{"two chunks", "a\n// -----\nb\nc\n", []Chunk{{"a\n", 1}, {"b\nc\n", 3}}},
		{"three chunks, trailing text on marker", "a\n// ----- x\nb\n// -----\nc", []Chunk{{"a\n", 1}, {"b\n", 3}, {"c", 5}}},
		{"marker first and last", "// -----\na\n// -----\n", []Chunk{{"", 1}, {"a\n", 2}, {"", 4}}},
		{"marker at end without newline", "a\n// -----", []Chunk{{"a\n", 1}, {"", 3}}},
		{"indented marker is text", "a\n  // -----\nb\n", []Chunk{{"a\n  // -----\nb\n", 1}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := Split(tc.src); !reflect.DeepEqual(got, tc.want) {
				t.Fatalf("Split(%q) = %+v, want %+v", tc.src, got, tc.want)
			}
		})
	}
}

func TestPaddedKeepsLineNumbers(t *testing.T) {
	src := "a\n// -----\nb\nc\n// -----\nd\n"
	orig := strings.Split(src, "\n")
	for _, c := range Split(src) {
		lines := strings.Split(c.Padded(), "\n")
		for i, l := range lines {
			if l != "" && l != orig[i] {
				t.Errorf("chunk at %d: padded line %d = %q, original %q", c.FirstLine, i+1, l, orig[i])
			}
		}
	}
}
