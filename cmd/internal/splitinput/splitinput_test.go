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

// Each chunk's lines are the file's lines from FirstLine on, and the chunks
// together are no larger than the source (no chunk is padded or copied with
// the lines before it).
func TestChunkLines(t *testing.T) {
	src := "a\n// -----\nb\nc\n// -----\nd\n" + strings.Repeat("e\n// -----\n", 1000)
	orig := strings.Split(src, "\n")
	total := 0
	for _, c := range Split(src) {
		for i, l := range strings.Split(c.Text, "\n") {
			if l != "" && l != orig[c.FirstLine-1+i] {
				t.Errorf("chunk at %d: line %d = %q, original %q", c.FirstLine, c.FirstLine+i, l, orig[c.FirstLine-1+i])
			}
		}
		total += len(c.Text)
	}
	if total > len(src) {
		t.Errorf("the chunks hold %d bytes, the source %d", total, len(src))
	}
}
