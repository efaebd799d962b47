package inputfile

import (
	"bytes"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// endless is a stream that never ends and counts what was read from it.
type endless struct{ n int64 }

func (e *endless) Read(b []byte) (int, error) {
	e.n += int64(len(b))
	return len(b), nil
}

func withLimit(t *testing.T, n int64) {
	t.Helper()
	saved := MaxBytes
	MaxBytes = n
	t.Cleanup(func() { MaxBytes = saved })
}

func TestRead(t *testing.T) {
	withLimit(t, 1000)
	dir := t.TempDir()
	write := func(name string, n int) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, bytes.Repeat([]byte("x"), n), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	for _, n := range []int{0, 1, 999, 1000} {
		p := write("ok", n)
		b, err := Read(p)
		if err != nil || len(b) != n {
			t.Errorf("%d bytes: got %d, %v", n, len(b), err)
		}
	}
	p := write("big", 1001)
	_, err := Read(p)
	var tl *TooLargeError
	if !errors.As(err, &tl) || tl.Size != 1001 || tl.Name != p {
		t.Fatalf("1001 bytes: got %v, want a TooLargeError naming the file and its size", err)
	}
	want := p + ": input of 1001 bytes is too large: more than 1000 bytes (set RECOM_MAX_INPUT_BYTES to raise the limit; see docs/LIMITS.md)"
	if err.Error() != want {
		t.Errorf("message:\n got  %s\n want %s", err, want)
	}
	if _, err := Read(filepath.Join(dir, "missing")); !errors.Is(err, fs.ErrNotExist) || !strings.Contains(err.Error(), "missing") {
		t.Errorf("missing file: %v", err)
	}
	if _, err := Read(dir); err == nil || err.Error() != "read "+dir+": is a directory, not a file" {
		t.Errorf("a directory: got %v, want one error naming it once and saying it is a directory", err)
	}
}

// A device that never ends is refused after MaxBytes+1 bytes, however it is
// read: by path (/dev/zero) or as a stream.
func TestEndless(t *testing.T) {
	withLimit(t, 3<<20)
	if _, err := os.Stat("/dev/zero"); err == nil {
		_, err := Read("/dev/zero")
		var tl *TooLargeError
		if !errors.As(err, &tl) || tl.Size != -1 || !strings.HasPrefix(err.Error(), "/dev/zero: input is too large: more than 3145728 bytes (set RECOM_MAX_INPUT_BYTES") {
			t.Errorf("/dev/zero: got %v", err)
		}
	}
	e := &endless{}
	_, err := ReadFrom(e, "<stdin>")
	if err == nil || !strings.HasPrefix(err.Error(), "<stdin>: input is too large: more than 3145728 bytes") {
		t.Errorf("endless stream: got %v", err)
	}
	if e.n > 3<<20+64<<20 {
		t.Errorf("read %d bytes of an endless stream, want about the limit", e.n)
	}
}

// Streams of every size up to the limit come back whole, across the
// pieces they are read in.
func TestReadFromSizes(t *testing.T) {
	withLimit(t, 1<<20)
	src := make([]byte, 1<<20)
	for i := range src {
		src[i] = byte(i * 7)
	}
	for _, n := range []int{0, 1, 64<<10 - 1, 64 << 10, 64<<10 + 1, 200000, 1 << 20} {
		b, err := ReadFrom(io.MultiReader(bytes.NewReader(src[:n/2]), bytes.NewReader(src[n/2:n])), "s")
		if err != nil || !bytes.Equal(b, src[:n]) {
			t.Errorf("%d bytes: got %d bytes, %v", n, len(b), err)
		}
	}
	if _, err := ReadFrom(bytes.NewReader(make([]byte, 1<<20+1)), "s"); err == nil {
		t.Errorf("a stream one byte over the limit was accepted")
	}
}

type failing struct{}

func (failing) Read([]byte) (int, error) { return 0, errors.New("boom") }

func TestReadFromError(t *testing.T) {
	if _, err := ReadFrom(failing{}, "<stdin>"); err == nil || err.Error() != "<stdin>: boom" {
		t.Errorf("got %v, want <stdin>: boom", err)
	}
}
