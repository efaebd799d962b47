// Package realgraphs locates the real TensorFlow GraphDefs that tests run on.
// They live outside the repository, in ../shared/testdata/graphdefs beside
// the repository root (CI lays a copy of shared/ there too). Tests fail, never
// skip, when the directory is missing.
package realgraphs

import (
	"os"
	"path/filepath"
	"sort"
	"testing"
)

// Dir returns the directory of real graphs, failing tb if it is absent.
func Dir(tb testing.TB) string {
	tb.Helper()
	if d := os.Getenv("RECOM_GRAPHDEFS"); d != "" {
		return d
	}
	wd, err := os.Getwd()
	if err != nil {
		tb.Fatal(err)
	}
	for dir := wd; ; dir = filepath.Dir(dir) {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			d := filepath.Join(dir, "..", "shared", "testdata", "graphdefs")
			if _, err := os.Stat(d); err != nil {
				tb.Fatalf("real graphs not found at %s (set RECOM_GRAPHDEFS): %v", d, err)
			}
			return d
		}
		if filepath.Dir(dir) == dir {
			tb.Fatal("go.mod not found above the test directory")
		}
	}
}

// Files returns the paths of all .pbtxt and .pb graphs in Dir, sorted.
func Files(tb testing.TB) []string {
	tb.Helper()
	d := Dir(tb)
	var out []string
	for _, pat := range []string{"*.pbtxt", "*.pb"} {
		m, err := filepath.Glob(filepath.Join(d, pat))
		if err != nil {
			tb.Fatal(err)
		}
		out = append(out, m...)
	}
	sort.Strings(out)
	if len(out) == 0 {
		tb.Fatalf("no graphs in %s", d)
	}
	return out
}
