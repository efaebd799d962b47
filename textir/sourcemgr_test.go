package textir

import (
	"errors"
	"fmt"
	"strings"
	"testing"
)

func TestSourceMgrFormat(t *testing.T) {
	var m SourceMgr
	m.Add("in.mlir", "func.func @f() {\n  %0 = foo.bar\n\treturn\r\n}")
	long := strings.Repeat("a", 300) + "X" + strings.Repeat("b", 300)
	m.Add("long.mlir", long)
	at := func(file string, line, col int) Location { return FileLineColLoc{File: file, Line: line, Col: col} }
	for _, c := range []struct {
		d    *Diagnostic
		want string
	}{
		{Errorf(at("in.mlir", 2, 8), "custom op 'foo.bar' is unknown"),
			"in.mlir:2:8: error: custom op 'foo.bar' is unknown\n  %0 = foo.bar\n       ^"},
		// A tab is expanded to the next multiple of 8, under the caret too;
		// the carriage return of a CRLF line is not shown.
		{Errorf(at("in.mlir", 3, 2), "custom op 'return' is unknown"),
			"in.mlir:3:2: error: custom op 'return' is unknown\n        return\n        ^"},
		// Past the end of the line: the caret follows it.
		{Errorf(at("in.mlir", 4, 9), "expected op"), "in.mlir:4:9: error: expected op\n}\n ^"},
		// Notes get their lines too; a line that does not exist, a file
		// not held and a location without a file position print alone.
		{Errorf(at("in.mlir", 1, 1), "first").AttachNote(at("in.mlir", 2, 3), "see %s", "here"),
			"in.mlir:1:1: error: first\nfunc.func @f() {\n^\nin.mlir:2:3: note: see here\n  %0 = foo.bar\n  ^"},
		// A note at the position just shown does not show it again.
		{Errorf(at("in.mlir", 2, 3), "first").AttachNote(nil, "again"),
			"in.mlir:2:3: error: first\n  %0 = foo.bar\n  ^\nin.mlir:2:3: note: again"},
		{Errorf(at("in.mlir", 9, 1), "beyond"), "in.mlir:9:1: error: beyond"},
		{Errorf(at("other.mlir", 1, 1), "elsewhere"), "other.mlir:1:1: error: elsewhere"},
		{Errorf(NameLoc{Name: "node"}, "named"), `loc("node"): error: named`},
		// A long line is shown as a window around the column.
		{Errorf(at("long.mlir", 1, 301), "here"),
			"long.mlir:1:301: error: here\n..." + strings.Repeat("a", 80) + "X" + strings.Repeat("b", 79) + "...\n" + strings.Repeat(" ", 83) + "^"},
	} {
		if got := m.Format(c.d); got != c.want {
			t.Errorf("got\n%s\nwant\n%s", got, c.want)
		}
	}
}

func TestSourceMgrLoadAndErrors(t *testing.T) {
	loads := 0
	m := SourceMgr{Load: func(name string) (string, bool) {
		loads++
		return "x\ny\n", name == "disk.mlir"
	}}
	d1 := Errorf(FileLineColLoc{File: "disk.mlir", Line: 2, Col: 1}, "one")
	d2 := Errorf(FileLineColLoc{File: "gone.mlir", Line: 1, Col: 1}, "two")
	got := m.FormatError(errors.Join(d1, d2, errors.New("plain")))
	want := "disk.mlir:2:1: error: one\ny\n^\ngone.mlir:1:1: error: two\nplain"
	if got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
	m.FormatError(d1)
	m.FormatError(d2)
	if loads != 2 {
		t.Errorf("%d loads, want one per file", loads)
	}
	// An error that wraps a diagnostic with more words prints as it is.
	if got := m.FormatError(fmt.Errorf("stage x: %w", d1)); got != "stage x: "+d1.Error() {
		t.Errorf("wrapped: %q", got)
	}
}

// FuzzSourceMgr checks that any source text and any position, in range or
// not, format without a panic: the diagnostic's line first, at most one
// source line and one caret line after it, and the caret line nothing but
// spaces and one ^.
func FuzzSourceMgr(f *testing.F) {
	f.Add("a\n\tb\r\nc", 2, 3)
	f.Add(strings.Repeat("é\t", 500), 1, 700)
	f.Add("x", -5, 1<<30)
	f.Add("\xff\xfe\x00\n", 1, 2)
	f.Fuzz(func(t *testing.T, text string, line, col int) {
		var m SourceMgr
		m.Add("f.mlir", text)
		d := Errorf(FileLineColLoc{File: "f.mlir", Line: line, Col: col}, "m")
		out := strings.Split(m.Format(d), "\n")
		if out[0] != d.Error() || len(out) != 1 && len(out) != 3 {
			t.Fatalf("formatted as %q", out)
		}
		if len(out) == 3 && strings.Trim(out[2], " ") != "^" {
			t.Fatalf("caret line %q", out[2])
		}
	})
}
