package textir

import (
	"bytes"
	"runtime"
	"testing"
)

// A block large enough to be printed by several goroutines prints the same
// text as one goroutine prints, in the custom and the generic form, with
// locations, to a writer and to a string.
func TestPrintParallelSameText(t *testing.T) {
	m := buildPrintBench(3 * parallelMinOps)
	for _, opts := range []PrintOptions{{}, {Generic: true}, {DebugInfo: true}} {
		prev := runtime.GOMAXPROCS(1)
		var want bytes.Buffer
		if err := Print(&want, m, opts); err != nil {
			t.Fatal(err)
		}
		wantString := OpString(m, opts)
		runtime.GOMAXPROCS(4)
		var got bytes.Buffer
		err := Print(&got, m, opts)
		gotString := OpString(m, opts)
		runtime.GOMAXPROCS(prev)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got.Bytes(), want.Bytes()) || gotString != wantString {
			t.Errorf("%+v: the text printed in parallel differs (%d bytes, want %d)", opts, got.Len(), want.Len())
		}
	}
}
