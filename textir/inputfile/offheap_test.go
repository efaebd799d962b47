package inputfile

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
)

// ReadOffHeap reads what Read reads, refuses what Read refuses, and its
// release may be called twice.
func TestReadOffHeap(t *testing.T) {
	dir := t.TempDir()
	want := bytes.Repeat([]byte("node { name: \"a\" }\n"), 1000)
	path := filepath.Join(dir, "g.pbtxt")
	if err := os.WriteFile(path, want, 0o644); err != nil {
		t.Fatal(err)
	}
	data, release, err := ReadOffHeap(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(data, want) || cap(data) != len(want) {
		t.Errorf("read %d bytes (cap %d), want %d", len(data), cap(data), len(want))
	}
	release()
	release()

	empty := filepath.Join(dir, "empty")
	os.WriteFile(empty, nil, 0o644)
	if data, release, err := ReadOffHeap(empty); err != nil || len(data) != 0 {
		t.Errorf("empty file: %q, %v", data, err)
	} else {
		release()
	}
	if _, _, err := ReadOffHeap(filepath.Join(dir, "missing")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("missing file: %v", err)
	}
	defer func(n int64) { MaxBytes = n }(MaxBytes)
	MaxBytes = 100
	var tl *TooLargeError
	if _, _, err := ReadOffHeap(path); !errors.As(err, &tl) || tl.Name != path {
		t.Errorf("too large: %v", err)
	}
}

// A named pipe is read from the one open (a second open would wait for a
// writer that has gone).
func TestReadOffHeapFIFO(t *testing.T) {
	path := filepath.Join(t.TempDir(), "fifo")
	if err := mkfifo(path); err != nil {
		t.Skip("no named pipes here:", err)
	}
	go func() {
		f, err := os.OpenFile(path, os.O_WRONLY, 0)
		if err == nil {
			f.Write([]byte("node {}\n"))
			f.Close()
		}
	}()
	data, release, err := ReadOffHeap(path)
	if err != nil || string(data) != "node {}\n" {
		t.Fatalf("%q, %v", data, err)
	}
	release()
}
