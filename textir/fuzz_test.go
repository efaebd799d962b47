package textir

import (
	"os"
	"path/filepath"
	"testing"
)

// FuzzParse checks that the parser never panics or hangs: any input either
// parses or yields a *Diagnostic. Seeds: testdata/fuzz/FuzzParse and the
// files in testdata/parse.
func FuzzParse(f *testing.F) {
	f.Add([]byte(`%0:2 = "a.b"(%x#1) [^bb1(%y : i32)] <{p = 1}> ({^bb0(%a: i32): "t.y"() : () -> ()}) {d = dense<[1, 2]> : tensor<2xi8>} : (i32) -> (f32, i1) loc(fused["a", "f":1:2])`))
	f.Add([]byte("ptest.func @f(%a: i32) -> i32 {\n  %s = ptest.add %a, %a : i32\n  ptest.ret %s : i32\n}\n#l = loc(\"x\")"))
	files, _ := filepath.Glob("testdata/parse/*.mlir")
	for _, name := range files {
		if b, err := os.ReadFile(name); err == nil {
			f.Add(b)
		}
	}
	ctx := parserTestCtx()
	f.Fuzz(func(t *testing.T, src []byte) {
		m, err := Parse(ctx, "fuzz.mlir", src)
		if err != nil {
			if _, ok := err.(*Diagnostic); !ok {
				t.Fatalf("error %T is not a *Diagnostic: %v", err, err)
			}
			return
		}
		if m == nil {
			t.Fatal("nil module without error")
		}
	})
}
