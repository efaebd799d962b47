package textir

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// FuzzParse checks that the parser never panics or hangs: any input either
// parses or yields a *Diagnostic, with unregistered dialects allowed or not,
// and the expected-* designators it holds name lines of the text. Seeds:
// testdata/fuzz/FuzzParse, the files in testdata/parse and hostile inputs.
func FuzzParse(f *testing.F) {
	f.Add([]byte(`%0:2 = "a.b"(%x#1) [^bb1(%y : i32)] <{p = 1}> ({^bb0(%a: i32): "t.y"() : () -> ()}) {d = dense<[1, 2]> : tensor<2xi8>} : (i32) -> (f32, i1) loc(fused["a", "f":1:2])`))
	f.Add([]byte("ptest.func @f(%a: i32) -> i32 {\n  %s = ptest.add %a, %a : i32\n  ptest.ret %s : i32\n}\n#l = loc(\"x\")"))
	// Hostile seeds: ops on one long line (locations far into a line),
	// call-site locations, types and attributes of unregistered dialects,
	// expected-* designators far out of range, deep regions.
	f.Add([]byte(strings.Repeat(`"t.a"() : () -> () `, 2000) + `"t.b"(%v) : (i32) -> ()`))
	f.Add([]byte(`"t.a"() : () -> () loc(callsite("f"("a.py":1:2) at callsite("g" at "b.py":3:4)))`))
	f.Add([]byte("%0 = \"t.a\"() {a = #nosuch.a<1>, b = [#other<\"x\">]} : () -> tensor<2x!nosuch.t<3>>\n!x = !nosuch.t"))
	f.Add([]byte("\"t.a\"() : () -> ()\n// expected-error@+99999999999999999999 {{x}}\n// expected-error@-9223372036854775808 {{y}}"))
	f.Add([]byte(strings.Repeat(`"t.a"() ({`, 300) + strings.Repeat(`}) : () -> ()`, 300)))
	files, _ := filepath.Glob("testdata/parse/*.mlir")
	for _, name := range files {
		if b, err := os.ReadFile(name); err == nil {
			f.Add(b)
		}
	}
	ctx := parserTestCtx()
	strict := NewContext(parserTestDialect()) // unregistered dialects refused
	f.Fuzz(func(t *testing.T, src []byte) {
		// Without unregistered dialects, and as a chunk further down its
		// file, the input parses or fails with a *Diagnostic too.
		if _, err := ParseAtLine(strict, "fuzz.mlir", string(src), 1+len(src)%1000); err != nil {
			if _, ok := err.(*Diagnostic); !ok {
				t.Fatalf("strict context: error %T is not a *Diagnostic: %v", err, err)
			}
		}
		// --verify-diagnostics' designators never name a line outside the text.
		exps, _ := ParseExpectedDiags("fuzz.mlir", string(src), 1)
		for _, e := range exps {
			if !e.Unknown && e.Line != 0 && (e.Line < 1 || e.Line > 1+strings.Count(string(src), "\n")) {
				t.Fatalf("expectation at %v names line %d, outside the text", e.At, e.Line)
			}
		}
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
