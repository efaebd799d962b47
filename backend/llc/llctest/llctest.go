// Package llctest gives tests LLVM 19's llc as the project's CI rule
// wants: a test that needs it is skipped where it is missing, except under
// CI=true, where it fails (scripts/test.sh installs llvm-19 in CI).
package llctest

import (
	"context"
	"os"
	"testing"

	"github.com/recom-compiler/recom/backend/llc"
)

// Need returns llc-19's path, or skips t (fails it under CI=true).
func Need(t testing.TB) string {
	t.Helper()
	p, err := llc.FindLLC()
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("CI=true: %v", err)
		}
		t.Skip(err)
	}
	return p
}

// PTX compiles the LLVM IR ll with llc-19's default options (Need first)
// and returns the PTX; a failure fails t.
func PTX(t testing.TB, ll []byte) string {
	t.Helper()
	Need(t)
	ptx, err := llc.CompilePTX(context.Background(), ll, llc.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	return string(ptx)
}
