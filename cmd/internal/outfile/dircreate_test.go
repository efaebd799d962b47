package outfile

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/recom-compiler/recom/cmd/internal/outfile/outfiletest"
)

// A file written piece by piece with Create is part of the folder
// committed, beside WriteFile's; an aborted run leaves none of it.
func TestDirCreate(t *testing.T) {
	out := filepath.Join(t.TempDir(), "out")
	d := writeDir(t, out, "a.out")
	f, err := d.Create("big.out")
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{"one ", "two ", "three"} {
		if _, err := f.Write([]byte(s)); err != nil {
			t.Fatal(err)
		}
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := d.Create("big.out"); err == nil {
		t.Error("a second Create of the same name: no error")
	}
	if err := d.Commit(); err != nil {
		t.Fatal(err)
	}
	if got := outfiletest.Names(t, out); !slices.Equal(got, []string{"a.out", "big.out"}) {
		t.Errorf("files %v", got)
	}
	if b, err := os.ReadFile(filepath.Join(out, "big.out")); err != nil || string(b) != "one two three" {
		t.Errorf("big.out = %q, %v", b, err)
	}
	if _, err := d.Create("late.out"); err == nil {
		t.Error("Create after Commit: no error")
	}

	// An aborted run leaves the folder as it was.
	d = writeDir(t, out)
	f, err = d.Create("c.out")
	if err != nil {
		t.Fatal(err)
	}
	f.Write([]byte("partial"))
	d.Abort()
	if got := outfiletest.Names(t, out); !slices.Equal(got, []string{"a.out", "big.out"}) {
		t.Errorf("after an aborted run: %v", got)
	}
}
