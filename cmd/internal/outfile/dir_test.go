package outfile

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/recom-compiler/recom/cmd/internal/outfile/outfiletest"
)

// ours are the names the tool of these tests writes.
func ours(name string) bool { return strings.HasSuffix(name, ".out") }

func writeDir(t *testing.T, path string, files ...string) *Dir {
	t.Helper()
	d, err := CreateDir(path, ours)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		if err := d.WriteFile(f, []byte("new "+f)); err != nil {
			t.Fatal(err)
		}
	}
	return d
}

// A folder is replaced whole: the new run's files, none of the old run's.
func TestDirReplaces(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "out")
	d := writeDir(t, out, "a.out", "b.out")
	if err := d.Commit(); err != nil {
		t.Fatal(err)
	}
	d = writeDir(t, out, "a.out")
	if err := d.Commit(); err != nil {
		t.Fatal(err)
	}
	if got := outfiletest.Names(t, out); !slices.Equal(got, []string{"a.out"}) {
		t.Errorf("after the second run: %v", got)
	}
	if got := outfiletest.Names(t, dir); !slices.Equal(got, []string{"out"}) {
		t.Errorf("beside it: %v", got)
	}
	// An aborted run leaves the folder as it was.
	d = writeDir(t, out, "c.out")
	d.Abort()
	if got := outfiletest.Names(t, out); !slices.Equal(got, []string{"a.out"}) {
		t.Errorf("after an aborted run: %v", got)
	}
}

// A file someone else writes into the folder while the tool runs is kept:
// the commit moves it into the new folder instead of deleting it with the
// old one. A file of the tool's own names that appeared during the run is
// kept too (the tool did not write it).
func TestDirKeepsOthersFiles(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "out")
	d := writeDir(t, out, "a.out")
	if err := d.Commit(); err != nil {
		t.Fatal(err)
	}
	d = writeDir(t, out, "a.out")
	os.WriteFile(filepath.Join(out, "notes.txt"), []byte("mine"), 0o644)
	os.WriteFile(filepath.Join(out, "z.out"), []byte("mine too"), 0o644)
	if err := d.Commit(); err != nil {
		t.Fatal(err)
	}
	if got := outfiletest.Names(t, out); !slices.Equal(got, []string{"a.out", "notes.txt", "z.out"}) {
		t.Errorf("after the run: %v", got)
	}
	if !slices.Equal(d.Kept, []string{"notes.txt", "z.out"}) {
		t.Errorf("Kept = %v", d.Kept)
	}
	if b, _ := os.ReadFile(filepath.Join(out, "notes.txt")); string(b) != "mine" {
		t.Errorf("notes.txt = %q", b)
	}
}

// A folder holding anything but the tool's files, or a read-only one of
// them, is refused before anything is written; the refusal names it.
func TestDirRefuses(t *testing.T) {
	dir := t.TempDir()
	mine := filepath.Join(dir, "mine")
	os.Mkdir(mine, 0o755)
	os.WriteFile(filepath.Join(mine, "notes.txt"), nil, 0o644)
	ro := filepath.Join(dir, "ro")
	os.Mkdir(ro, 0o755)
	os.WriteFile(filepath.Join(ro, "a.out"), nil, 0o444)
	file := filepath.Join(dir, "file")
	os.WriteFile(file, nil, 0o644)
	for _, c := range []struct{ path, want string }{
		{mine, "cannot write " + mine + ": it holds notes.txt, which is not an output of this tool"},
		{ro, "cannot write " + filepath.Join(ro, "a.out") + ": it is read-only (mode 0444)"},
		{file, "cannot write " + file + ": it exists and is not a directory"},
		{"", "the output directory name is empty"},
		{filepath.Join(dir, "no", "out"), "the directory " + filepath.Join(dir, "no") + " does not exist"},
	} {
		if _, err := CreateDir(c.path, ours); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("CreateDir(%q): %v, want %q", c.path, err, c.want)
		}
	}
	if got := outfiletest.Names(t, dir); !slices.Equal(got, []string{"file", "mine", "ro"}) {
		t.Errorf("left behind: %v", got)
	}
}

// A link to a folder is written through; Within knows the folder's files
// by any of its names.
func TestDirSymlink(t *testing.T) {
	dir := t.TempDir()
	real := filepath.Join(dir, "real")
	link := filepath.Join(dir, "link")
	os.Symlink("real", link)
	d := writeDir(t, link, "a.out")
	for _, c := range []struct {
		path string
		name string
		ok   bool
	}{
		{filepath.Join(link, "cols.dot"), "cols.dot", true},
		{filepath.Join(real, "cols.dot"), "cols.dot", true},
		{filepath.Join(dir, "cols.dot"), "", false},
		{"-", "", false},
	} {
		if name, ok := Within(link, c.path); name != c.name || ok != c.ok {
			t.Errorf("Within(%q) = %q, %v", c.path, name, ok)
		}
	}
	if err := d.Commit(); err != nil {
		t.Fatal(err)
	}
	if st, err := os.Lstat(link); err != nil || st.Mode()&os.ModeSymlink == 0 {
		t.Errorf("the link is gone")
	}
	if got := outfiletest.Names(t, real); !slices.Equal(got, []string{"a.out"}) {
		t.Errorf("in the folder: %v", got)
	}
}
