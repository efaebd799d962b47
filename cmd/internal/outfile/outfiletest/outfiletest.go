// Package outfiletest checks, in the tests of recom's commands, package
// outfile's promise as a command keeps it: a failing run leaves its -o path
// as it was.
package outfiletest

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// CheckFailedRun calls run twice: first with out absent, then with out
// holding "old". Each time run must return status 1 and a stderr that
// contains want and no "internal error"; the directory of out must hold the
// same names after the run as before (no new file, no temporary file beside
// it); and an existing out must keep its contents. out is removed at the
// end.
func CheckFailedRun(t testing.TB, out, want string, run func() (status int, stderr string)) {
	t.Helper()
	dir := filepath.Dir(out)
	for _, existing := range []bool{false, true} {
		if existing {
			if err := os.WriteFile(out, []byte("old"), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		before := list(t, dir)
		status, stderr := run()
		if status != 1 {
			t.Fatalf("status %d, want 1; stderr:\n%s", status, stderr)
		}
		if !strings.Contains(stderr, want) || strings.Contains(stderr, "internal error") {
			t.Errorf("stderr does not say %q:\n%s", want, stderr)
		}
		if after := list(t, dir); after != before {
			t.Errorf("files changed:\nbefore %s\nafter  %s", before, after)
		}
		if existing {
			if b, err := os.ReadFile(out); err != nil || string(b) != "old" {
				t.Errorf("existing output changed: %q, %v", b, err)
			}
			os.Remove(out)
		}
	}
}

// Names returns the names in dir, hidden temporaries included, sorted.
func Names(t testing.TB, dir string) []string {
	t.Helper()
	es, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range es {
		names = append(names, e.Name())
	}
	slices.Sort(names)
	return names
}

// list returns Names joined by spaces.
func list(t testing.TB, dir string) string {
	t.Helper()
	return strings.Join(Names(t, dir), " ")
}
