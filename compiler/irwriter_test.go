package compiler

import (
	"bytes"
	"errors"
	"io"
	"testing"

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
