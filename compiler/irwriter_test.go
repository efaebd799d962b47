package compiler

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/recom-compiler/recom/backend/llc/llctest"
)

// bufCloser is a buffer that records its Close.
type bufCloser struct {
	bytes.Buffer
	closed bool
}

func (b *bufCloser) Close() error { b.closed = true; return nil }

// Options.IRWriter receives each IR stage's module, printed as KeepIR
// keeps it, and closed; the IR stages then keep no Output (the backend
// stages still do).
func TestIRWriter(t *testing.T) {
	llctest.Need(t)
	kept := compileSmall(t, Options{KeepIR: true, NoCubin: true})
	got := map[string]*bufCloser{}
	streamed := compileSmall(t, Options{KeepIR: true, NoCubin: true, IRWriter: func(stage string) (io.WriteCloser, error) {
		b := &bufCloser{}
		got[stage] = b
		return b, nil
	}})
	for i, s := range streamed.Stages {
		k := kept.Stages[i]
		st, _ := LookupStage(s.Name)
		if !st.Kind.IR() {
			if !bytes.Equal(s.Output, k.Output) || len(s.Output) == 0 {
				t.Errorf("%s: output %d bytes, want the %d kept without IRWriter", s.Name, len(s.Output), len(k.Output))
			}
			continue
		}
		b := got[s.Name]
		switch {
		case b == nil:
			t.Errorf("%s: IRWriter not called", s.Name)
		case !b.closed:
			t.Errorf("%s: writer not closed", s.Name)
		case !bytes.Equal(b.Bytes(), k.Output):
			t.Errorf("%s: %d bytes written, want the %d bytes KeepIR keeps", s.Name, b.Len(), len(k.Output))
		}
		if s.Output != nil {
			t.Errorf("%s: Output kept beside IRWriter", s.Name)
		}
	}

	// A writer that cannot be made fails the stage.
	_, err := CompileBytes(t.Context(), "small.pbtxt", small(t), Options{NoCubin: true, IRWriter: func(string) (io.WriteCloser, error) {
		return nil, errors.New("disk full")
	}})
	var se *StageError
	if !errors.As(err, &se) || se.Stage != StageImport || err.Error() != "disk full" {
		t.Errorf("got %v, want the import stage failing with disk full", err)
	}
}

// Nothing the compilation keeps shares the graph file's memory, which the
// import stage gives back once the file is parsed (readGraphFile reads it
// outside the Go heap): with the bytes overwritten at their release, the
// IR is what it is from a copy of the file, and the release comes before
// the import's conversion.
func TestGraphFileReleased(t *testing.T) {
	llctest.Need(t)
	path := filepath.Join(t.TempDir(), "small.pbtxt")
	if err := os.WriteFile(path, small(t), 0o644); err != nil {
		t.Fatal(err)
	}
	want := compileSmall(t, Options{KeepIR: true, NoCubin: true})
	released := 0
	defer func(f func(string) ([]byte, func(), error)) { readGraphFile = f }(readGraphFile)
	readGraphFile = func(p string) ([]byte, func(), error) {
		data, err := os.ReadFile(p)
		return data, func() {
			released++
			for i := range data {
				data[i] = 0xff
			}
		}, err
	}
	steps := []string{}
	got, err := Compile(t.Context(), path, Options{KeepIR: true, NoCubin: true, Step: func(stage, step string, _ time.Duration, _ string) {
		steps = append(steps, fmt.Sprintf("%s released %d", step, released))
	}})
	if err != nil {
		t.Fatal(err)
	}
	if released != 1 {
		t.Errorf("released %d times, want once", released)
	}
	if s := strings.Join(steps, ", "); s != "read released 0, parse released 1, check and import released 1, verify released 1" {
		t.Errorf("steps: %s", s)
	}
	for i, s := range got.Stages {
		if !bytes.Equal(s.Output, want.Stages[i].Output) {
			t.Errorf("%s: output differs from the compilation of the file's copy", s.Name)
		}
	}
}
