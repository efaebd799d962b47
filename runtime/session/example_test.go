package session

import (
	"fmt"
	"strings"
	"testing"

	"github.com/recom-compiler/recom/frontend/gen"
	"github.com/recom-compiler/recom/frontend/graphdef"
	"github.com/recom-compiler/recom/interp"
	"github.com/recom-compiler/recom/interp/exec"
)

// servedSmall compiles the small preset served from tf.Example records.
func servedSmall(t testing.TB, serving string) *compiled {
	t.Helper()
	s, err := gen.Preset("small")
	if err != nil {
		t.Fatal(err)
	}
	s.Serving = serving
	m, err := gen.Generate(s, gen.Options{Seed: 4})
	if err != nil {
		t.Fatal(err)
	}
	opts := &exec.Options{Variables: map[string]*interp.Tensor{}}
	for _, a := range m.Tables {
		opts.Variables[a.Name] = a.Tensor
	}
	return compileModel(t, "served.pbtxt", graphdef.MarshalText(m.Graph), opts, s)
}

// A model served from tf.Example records runs natively: its layer's
// packer parses the records (no input by the interpreter), a host step
// parses only the dense features for the MLP, and the outputs are the
// interpreter's on the GraphDef; a faulty record fails the batch with an
// error naming it.
func TestSimExamples(t *testing.T) {
	for _, serving := range []string{gen.ServingTFExample, gen.ServingTFExampleV1} {
		t.Run(serving, func(t *testing.T) {
			m := servedSmall(t, serving)
			s, sim := simSession(t, m, Options{Slots: 2})
			for i, b := range []int{1, 37, 64} {
				f := m.feeds(t, b, uint64(300+i))
				got, err := s.Run(f)
				if err != nil {
					t.Fatalf("B=%d: %v", b, simErr(sim, err))
				}
				check(t, fmt.Sprintf("B=%d", b), got, m.reference(t, f))
			}
			text := s.Summary().String()
			t.Logf("\n%s", text)
			for _, want := range []string{"hostpack (", "ParseExample"} {
				if !strings.Contains(text, want) {
					t.Errorf("the summary lacks %q:\n%s", want, text)
				}
			}
			if strings.Contains(text, "by the interpreter first") || strings.Contains(text, "fallback") {
				t.Errorf("the interpreter computes some of the layer's inputs:\n%s", text)
			}
			f := m.feeds(t, 5, 9)
			recs := f[gen.ExampleInput].Strings()
			recs[3] = "\x0a\x05\x0a\x03\x0a\x01x" // an entry without its value
			bad := map[string]*interp.Tensor{gen.ExampleInput: interp.Vector(recs...)}
			if _, err := s.Run(bad); err == nil || !strings.Contains(err.Error(), "record 3") {
				t.Errorf("a malformed record: %v, want an error naming record 3", err)
			}
		})
	}
}
