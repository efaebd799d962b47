package main

import (
	"bytes"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// Every failing run leaves its -o path as it was: no new file, no
// temporary file beside it, an existing file unchanged; exit status 1 and a
// located message.
func TestFailedRunsLeaveNoOutput(t *testing.T) {
	dir := t.TempDir()
	list := func() string {
		es, err := os.ReadDir(dir)
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, e := range es {
			names = append(names, e.Name())
		}
		sort.Strings(names)
		return strings.Join(names, " ")
	}
	for _, c := range robustCases {
		t.Run(c.name, func(t *testing.T) {
			in := filepath.Join(dir, c.name+".in")
			if err := os.WriteFile(in, []byte(c.input), 0o644); err != nil {
				t.Fatal(err)
			}
			for _, existing := range []bool{false, true} {
				out := filepath.Join(dir, c.name+".out")
				if existing {
					if err := os.WriteFile(out, []byte("old"), 0o644); err != nil {
						t.Fatal(err)
					}
				}
				before := list()
				var so, se bytes.Buffer
				args := append(append([]string{}, c.args...), in, "-o", out)
				if status := run(args, strings.NewReader(""), &so, &se); status != 1 {
					t.Fatalf("status %d, want 1:\n%s", status, se.String())
				}
				if !strings.Contains(se.String(), c.want) || strings.Contains(se.String(), "internal error") {
					t.Errorf("stderr does not say %q:\n%s", c.want, se.String())
				}
				if after := list(); after != before {
					t.Errorf("files changed:\nbefore %s\nafter  %s", before, after)
				}
				if existing {
					if b, err := os.ReadFile(out); err != nil || string(b) != "old" {
						t.Errorf("existing output changed: %q, %v", b, err)
					}
					os.Remove(out)
				}
			}
		})
	}
}

const nanKernel = `"gpu.module"() ({
  "gpu.func"() ({
  ^bb0(%p: !gpu.ptr<f32, global>, %i: i64):
    %c = "arith.constant"() {value = 0x7FC00000 : f32} : () -> f32
    "gpu.store"(%c, %p, %i) : (f32, !gpu.ptr<f32, global>, i64) -> ()
    "gpu.return"() : () -> ()
  }) {function_type = (!gpu.ptr<f32, global>, i64) -> (), kernel, sym_name = "nan"} : () -> ()
}) {sym_name = "m"} : () -> ()
`

var robustCases = []struct {
	name, input string
	args        []string
	want        string
}{
	{"emit-llvm", nanKernel, []string{"--emit-llvm"}, ".in:4:5: error: 'arith.constant' op NaN and infinite constants cannot be emitted"},
	{"emit-ptx", nanKernel, []string{"--emit-ptx"}, ".in:4:5: error: 'arith.constant' op NaN and infinite constants cannot be emitted"},
	{"emit-llvm-parse", "gpu.module @m {\n  gpu.func @k(\n", []string{"--emit-llvm"}, ".in:"},
	{"import", "node { name: \"a\" op: \"Identity\" input: \"missing\" attr { key: \"T\" value { type: DT_FLOAT } } }\n", []string{"--import-graphdef"}, "missing"},
	{"import-syntax", "node { name: \n", []string{"--import-graphdef"}, ".in:"},
	{"export", "func.func @f() {\n  func.return\n}\n", []string{"--export-graphdef"}, ".in:"},
}
