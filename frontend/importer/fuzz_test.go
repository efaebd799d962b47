package importer

import (
	"bytes"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"testing"
	"time"

	"google.golang.org/protobuf/proto"

	"github.com/recom-compiler/recom/frontend/graphdef"
	"github.com/recom-compiler/recom/textir"
)

// FuzzImportGraphDef drives the whole GraphDef front end with arbitrary
// bytes: graphdef.Parse, graphdef.Validate, Import, textir.Verify, Print,
// textir.Parse of the printed text, Print again (the same text) and Export.
// Each stage may refuse its input with an error, never panic; IR that
// verifies must print to text that parses back to the same text, and export.
// ImportWith as the compiler calls it must equal Validate then the
// sequential Import. Seeds: testdata/fuzz/FuzzImportGraphDef, the GraphDefs of the lit tests
// (lit-tests/Translate/Inputs, lit-tests/Robustness/Inputs) and each of them
// in binary form.
func FuzzImportGraphDef(f *testing.F) {
	for _, dir := range []string{"../../lit-tests/Translate/Inputs", "../../lit-tests/Robustness/Inputs"} {
		for _, pat := range []string{"*.pbtxt", "*.pb"} {
			files, _ := filepath.Glob(filepath.Join(dir, pat))
			for _, name := range files {
				b, err := os.ReadFile(name)
				if err != nil {
					continue
				}
				f.Add(b)
				if file, err := graphdef.Parse(b, name); err == nil {
					if bin, err := proto.Marshal(file.Graph); err == nil {
						f.Add(bin)
					}
				}
			}
		}
	}
	ctx := newCtx()
	// Partial tensors of up to 16M elements are legal but take seconds each
	// to expand, print and parse: keep the fuzzer on small ones.
	defer func(n int64) { textir.MaxDenseElements = n }(textir.MaxDenseElements)
	textir.MaxDenseElements = 1 << 12
	fuzzing := flag.Lookup("test.fuzz").Value.String() != ""
	f.Fuzz(func(t *testing.T, data []byte) {
		if fuzzing {
			// A hang is a finding: crash the worker so that the fuzzer keeps
			// the input (it has no per-input deadline of its own).
			w := time.AfterFunc(20*time.Second, func() { panic("FuzzImportGraphDef: input took more than 20s") })
			defer w.Stop()
		}
		file, err := graphdef.Parse(data, "fuzz.pbtxt")
		if err != nil {
			return
		}
		// The compiler's import (checks, parallel, attributes consumed)
		// equals the checks and the sequential import.
		want := referenceResult(t, file.Graph, true)
		withParallel(3, 1, func() {
			if got := importResult(t, cloneGraph(file.Graph), Options{Check: true, Consume: true}); got != want {
				t.Fatalf("parallel import:\n got %s\nwant %s", clip(got), clip(want))
			}
		})
		if err := graphdef.Validate(file.Graph); err != nil {
			return
		}
		m, err := Import(ctx, file.Graph)
		if err != nil {
			return
		}
		if err := textir.Verify(ctx, m); err != nil {
			var d *textir.Diagnostic
			if !errors.As(err, &d) {
				t.Fatalf("verifier error %T is not a *Diagnostic: %v", err, err)
			}
			return
		}
		var b1 bytes.Buffer
		if err := textir.Print(&b1, m, textir.PrintOptions{}); err != nil {
			t.Fatalf("print: %v", err)
		}
		m2, err := textir.Parse(ctx, "printed.mlir", b1.Bytes())
		if err != nil {
			t.Fatalf("printed IR does not parse: %v\n%s", err, b1.String())
		}
		var b2 bytes.Buffer
		if err := textir.Print(&b2, m2, textir.PrintOptions{}); err != nil {
			t.Fatalf("print again: %v", err)
		}
		if b1.String() != b2.String() {
			t.Fatalf("print → parse → print changed the text:\n%s\nvs\n%s", b1.String(), b2.String())
		}
		if _, err := Export(ctx, m2); err != nil {
			t.Fatalf("verified IR does not export: %v\n%s", err, b1.String())
		}
	})
}
