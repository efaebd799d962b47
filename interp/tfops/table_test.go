package tfops

import (
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/recom-compiler/recom/interp"
	"github.com/recom-compiler/recom/textir/inputfile"
)

func TestHashTable(t *testing.T) {
	h, err := NewHashTable(interp.String, interp.Int64)
	if err != nil {
		t.Fatal(err)
	}
	_, err = h.Find(vec("a"), sc[int64](-1))
	check(t, "find before init", nil, err, nil, "not initialized")
	if err := h.Import(vec("emerson", "lake", "palmer", "lake"), vec[int64](0, 1, 2, 1)); err != nil {
		t.Fatal(err)
	}
	if h.Size() != 3 {
		t.Errorf("Size = %d, want 3", h.Size())
	}
	got, err := h.Find(tn(sh(2, 2), "lake", "tarkus", "palmer", ""), sc[int64](-1))
	check(t, "find", got, err, tn[int64](sh(2, 2), 1, -1, 2, -1), "")
	_, err = h.Find(vec("a"), vec[int64](-1))
	check(t, "non-scalar default", nil, err, nil, "default value")
	_, err = h.Find(vec[int64](1), sc[int64](-1))
	check(t, "key dtype", nil, err, nil, "keys")
	if err := h.Initialize(vec("palmer", "lake", "emerson"), vec[int64](2, 1, 0)); err != nil {
		t.Errorf("re-initialize with the same data: %v", err)
	}
	err = h.Initialize(vec("emerson"), vec[int64](0))
	check(t, "re-initialize with different data", nil, err, nil, "already initialized")

	h2, _ := NewHashTable(interp.Int64, interp.Int64)
	err = h2.Initialize(vec[int64](1, 1), vec[int64](2, 3))
	check(t, "conflicting duplicate", nil, err, nil, "different value for same key")
	if err := h2.Initialize(vec[int64](10, 20), vec[int64](0, 1)); err != nil {
		t.Fatal(err)
	}
	got, err = h2.Find(vec[int64](20, 30, 10), sc[int64](7))
	check(t, "int keys", got, err, vec[int64](1, 7, 0), "")
	err = h2.Initialize(vec[int64](1), vec[int64](2, 3))
	check(t, "shape mismatch", nil, err, nil, "expected shape")

	h3, _ := NewHashTable(interp.Int64, interp.String)
	h3.Import(vec[int64](0, 1), vec("zero", "one"))
	got, err = h3.Find(vec[int64](1, 2), sc("UNK"))
	check(t, "index to string", got, err, vec("one", "UNK"), "")
	if _, err := NewHashTable(interp.Float32, interp.Int64); err == nil {
		t.Error("float keys: want error")
	}
}

func TestReadTextFileTable(t *testing.T) {
	dir := t.TempDir()
	file := func(name, content string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	lines := TextFileInit{KeyIndex: WholeLine, ValueIndex: LineNumber, VocabSize: -1, Delimiter: "\t"}
	cols := TextFileInit{KeyIndex: 0, ValueIndex: 1, VocabSize: -1, Delimiter: "\t"}
	with := func(c TextFileInit, f func(*TextFileInit)) TextFileInit { f(&c); return c }
	for _, c := range []struct {
		name, content string
		init          TextFileInit
		kt, vt        interp.DType
		keys, values  *interp.Tensor
		err           string
	}{
		{"lines and numbers", "a\nb\nc\n", lines, interp.String, interp.Int64, vec("a", "b", "c"), vec[int64](0, 1, 2), ""},
		{"offset", "a\nb\n", with(lines, func(c *TextFileInit) { c.Offset = 10 }), interp.String, interp.Int64, vec("a", "b"), vec[int64](10, 11), ""},
		{"no final newline", "a\nb", lines, interp.String, interp.Int64, vec("a", "b"), vec[int64](0, 1), ""},
		{"CRLF", "a\r\nb\r\n", lines, interp.String, interp.Int64, vec("a", "b"), vec[int64](0, 1), ""},
		{"a final lone CR ends the file", "a\n\r", lines, interp.String, interp.Int64, vec("a"), vec[int64](0), ""},
		{"numbers as keys, lines as values", "x\ny\n", TextFileInit{KeyIndex: LineNumber, ValueIndex: WholeLine, VocabSize: -1, Delimiter: "\t"},
			interp.Int64, interp.String, vec[int64](0, 1), vec("x", "y"), ""},
		{"whole line as an int", "7\n-3\n", lines, interp.Int64, interp.Int64, vec[int64](7, -3), vec[int64](0, 1), ""},
		{"columns", "k1\t5\nk2\t7\n", cols, interp.String, interp.Int64, vec("k1", "k2"), vec[int64](5, 7), ""},
		{"int32 fields get the offset", "k\t5\n", with(cols, func(c *TextFileInit) { c.Offset = 3 }), interp.String, interp.Int32, vec("k"), vec[int32](8), ""},
		{"int64 fields do not", "k\t5\n", with(cols, func(c *TextFileInit) { c.Offset = 3 }), interp.String, interp.Int64, vec("k"), vec[int64](5), ""},
		{"white space around numbers", "k\t 5 \n", cols, interp.String, interp.Int64, vec("k"), vec[int64](5), ""},
		{"floats", "k\t1.5\nj\t-inf\n", cols, interp.String, interp.Float32, vec("k", "j"), vec(float32(1.5), float32(math.Inf(-1))), ""},
		{"doubles", "k\t0.1\n", cols, interp.String, interp.Float64, vec("k"), vec(0.1), ""},
		{"empty fields are kept", "a\t\tb\n", with(cols, func(c *TextFileInit) { c.ValueIndex = 2 }), interp.String, interp.String, vec("a"), vec("b"), ""},
		{"other delimiter", "a,1\n", with(cols, func(c *TextFileInit) { c.Delimiter = "," }), interp.String, interp.Int64, vec("a"), vec[int64](1), ""},
		{"vocab_size stops early", "a\nb\nc\n", with(lines, func(c *TextFileInit) { c.VocabSize = 2 }), interp.String, interp.Int64, vec("a", "b"), vec[int64](0, 1), ""},
		{"vocab_size too large", "a\nb\nc\n", with(lines, func(c *TextFileInit) { c.VocabSize = 4 }), interp.String, interp.Int64, nil, nil,
			"Invalid vocab_size in FILE: expected 4 but got 3"},
		{"vocab_size 0", "a\n", with(lines, func(c *TextFileInit) { c.VocabSize = 0 }), interp.String, interp.Int64, nil, nil, "Finished reading 0 of lines from FILE"},
		{"empty line", "a\n\nb\n", lines, interp.String, interp.Int64, nil, nil, "Invalid content in FILE: empty line found at position 3."},
		{"empty last line", "a\n\n", lines, interp.String, interp.Int64, nil, nil, "Invalid content in FILE: empty line found at position 3."},
		{"empty file", "", lines, interp.String, interp.Int64, nil, nil, "FILE has no lines"},
		{"too few columns", "k1\n", cols, interp.String, interp.Int64, nil, nil, "Invalid number of columns in FILE line 0 (k1) : expected at least 2 got 1"},
		{"bad int64", "a\t1\nb\tx\n", cols, interp.String, interp.Int64, nil, nil, "Field x in line 1 is not a valid int64."},
		{"int32 out of range", "a\t3000000000\n", cols, interp.String, interp.Int32, nil, nil, "Field 3000000000 in line 0 is not a valid int32."},
		{"bad float", "a\tx\n", cols, interp.String, interp.Float32, nil, nil, "Field x in line 0 is not a valid float."},
		{"line number key needs int64", "a\n", TextFileInit{KeyIndex: LineNumber, ValueIndex: WholeLine, VocabSize: -1, Delimiter: "\t"},
			interp.String, interp.String, nil, nil, "Key index for line number requires table key dtype of int64, got string"},
		{"whole line value needs an integer or string", "a\n", with(lines, func(c *TextFileInit) { c.ValueIndex = WholeLine }), interp.String, interp.Float32,
			nil, nil, "Value index for whole line requires table value dtype of integer or string, got float"},
		{"value of an unsupported type", "a\tb\n", cols, interp.String, interp.Bool, nil, nil, "Data type bool not supported."},
		{"two-byte delimiter", "a\n", with(lines, func(c *TextFileInit) { c.Delimiter = "ab" }), interp.String, interp.Int64, nil, nil, "delimiter should be only 1 char"},
	} {
		path := file(strings.ReplaceAll(c.name, " ", "_"), c.content)
		keys, values, err := ReadTextFileTable(path, c.init, c.kt, c.vt)
		wantErr := strings.ReplaceAll(c.err, "FILE", path)
		check(t, c.name+"/keys", keys, err, c.keys, wantErr)
		check(t, c.name+"/values", values, err, c.values, wantErr)
	}

	_, _, err := ReadTextFileTable(filepath.Join(dir, "missing"), lines, interp.String, interp.Int64)
	check(t, "missing file", nil, err, nil, "no such file")
	_, _, err = ReadTextFileTable(dir, lines, interp.String, interp.Int64)
	check(t, "directory", nil, err, nil, "is not a regular file")
	_, _, err = ReadTextFileTable("", lines, interp.String, interp.Int64)
	check(t, "no file name", nil, err, nil, "filename cannot be empty.")

	defer func(n int64) { inputfile.MaxBytes = n }(inputfile.MaxBytes)
	inputfile.MaxBytes = 4
	_, _, err = ReadTextFileTable(file("big", "abcde"), lines, interp.String, interp.Int64)
	check(t, "over the size limit", nil, err, nil, "input of 5 bytes is too large: more than 4 bytes (set RECOM_MAX_INPUT_BYTES to raise the limit")
	keys, _, err := ReadTextFileTable(file("four", "abc\n"), lines, interp.String, interp.Int64)
	check(t, "at the size limit", keys, err, vec("abc"), "")
}

func TestHashTableFromTextFile(t *testing.T) {
	dir := t.TempDir()
	vocab := filepath.Join(dir, "vocab.txt")
	os.WriteFile(vocab, []byte("emerson\nlake\npalmer\n"), 0o644)
	dup := filepath.Join(dir, "dup.txt")
	os.WriteFile(dup, []byte("a\na\n"), 0o644)
	init := TextFileInit{KeyIndex: WholeLine, ValueIndex: LineNumber, VocabSize: -1, Delimiter: "\t"}

	h, _ := NewHashTable(interp.String, interp.Int64)
	if err := h.InitializeFromTextFile(vocab, init); err != nil {
		t.Fatal(err)
	}
	got, err := h.Find(vec("palmer", "tarkus", "emerson"), sc[int64](-1))
	check(t, "find", got, err, vec[int64](2, -1, 0), "")
	// An initialized table stays as it is, whatever the file says.
	if err := h.InitializeFromTextFile(dup, init); err != nil {
		t.Errorf("initialized table: %v", err)
	}
	if h.Size() != 3 {
		t.Errorf("Size = %d after a second initializer, want 3", h.Size())
	}
	h2, _ := NewHashTable(interp.String, interp.Int64)
	err = h2.InitializeFromTextFile(dup, init)
	check(t, "duplicate key", nil, err, nil, `HashTable has different value for same key. Key "a" has 0 and trying to add value 1`)
}
