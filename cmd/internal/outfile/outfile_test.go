package outfile

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/recom-compiler/recom/cmd/internal/outfile/outfiletest"
)

func TestCommit(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "out.mlir")
	f, err := Create(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Abort()
	f.WriteString("module {\n}\n")
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Fatalf("target exists before commit: %v", err)
	}
	if err := f.Commit(); err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(path)
	if err != nil || string(got) != "module {\n}\n" {
		t.Fatalf("read %q, %v", got, err)
	}
	if names := outfiletest.Names(t, dir); len(names) != 1 {
		t.Fatalf("directory holds %v, want only out.mlir", names)
	}
	if st, _ := os.Stat(path); st.Mode().Perm() != 0o644 {
		t.Errorf("mode %v, want 0644", st.Mode().Perm())
	}
}

func TestAbortLeavesNothing(t *testing.T) {
	dir := t.TempDir()
	f, err := Create(filepath.Join(dir, "out.mlir"), nil)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString("partial")
	f.Abort()
	if names := outfiletest.Names(t, dir); len(names) != 0 {
		t.Fatalf("directory holds %v after abort", names)
	}
}

func TestAbortKeepsOldContents(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "out.mlir")
	if err := os.WriteFile(path, []byte("old"), 0o600); err != nil {
		t.Fatal(err)
	}
	f, err := Create(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString("new")
	f.Abort()
	if got, _ := os.ReadFile(path); string(got) != "old" {
		t.Fatalf("target = %q after abort, want old", got)
	}
	f, _ = Create(path, nil)
	f.WriteString("new")
	if err := f.Commit(); err != nil {
		t.Fatal(err)
	}
	st, _ := os.Stat(path)
	if got, _ := os.ReadFile(path); string(got) != "new" || st.Mode().Perm() != 0o600 {
		t.Fatalf("target = %q mode %v, want new with the old mode 0600", got, st.Mode().Perm())
	}
}

func TestStdout(t *testing.T) {
	var buf bytes.Buffer
	f, err := Create("-", &buf)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString("text")
	if err := f.Commit(); err != nil {
		t.Fatal(err)
	}
	if buf.String() != "text" {
		t.Fatalf("stdout = %q", buf.String())
	}
	f.Abort() // no effect after commit
}

func TestCreateErrors(t *testing.T) {
	dir := t.TempDir()
	if _, err := Create(filepath.Join(dir, "missing", "out.mlir"), nil); err == nil {
		t.Error("no error for a missing directory")
	}
	if _, err := Create(dir, nil); err == nil {
		t.Error("no error for a directory target")
	}
}

func TestDevice(t *testing.T) {
	f, err := Create(os.DevNull, nil)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString("discarded")
	if err := f.Commit(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(os.DevNull); err != nil {
		t.Fatalf("%s is gone: %v", os.DevNull, err)
	}
}
