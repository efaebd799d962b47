package pass_test

import (
	"testing"

	"github.com/recom-compiler/recom/lowering/pass"
	"github.com/recom-compiler/recom/lowering/transforms"
)

func init() {
	for _, d := range []*pass.Decl{&transforms.CanonicalizeDecl, &transforms.CSEDecl, &transforms.SymbolDCEDecl} {
		pass.Register(d)
	}
}

// FuzzPipeline checks that ParsePipeline never panics, and that a pipeline
// that parses prints (String) to text that parses to a pipeline printing the
// same text. Passes: the generic transforms and the test passes of this
// package. Seeds: testdata/fuzz/FuzzPipeline and the cases below.
func FuzzPipeline(f *testing.F) {
	for _, s := range []string{
		"builtin.module(cse,func.func(canonicalize))",
		"builtin.module(canonicalize{max-iterations=3 top-down=false enable-patterns=a,b})",
		`any(canonicalize{disable-patterns="x,y" test-convergence}, symbol-dce)`,
		"cse , canonicalize",
		"builtin.module(func.func())",
		"builtin.module(canonicalize{max-iterations=",
		"builtin.module(cse))",
		"",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		pm, err := pass.ParsePipeline(text)
		if err != nil {
			if _, ok := err.(*pass.PipelineError); !ok {
				t.Fatalf("error %T is not a *PipelineError: %v", err, err)
			}
			return
		}
		s1 := pm.String()
		pm2, err := pass.ParsePipeline(s1)
		if err != nil {
			t.Fatalf("%q parsed and printed as %q, which does not parse: %v", text, s1, err)
		}
		if s2 := pm2.String(); s2 != s1 {
			t.Fatalf("%q printed as %q, which prints back as %q", text, s1, s2)
		}
	})
}
