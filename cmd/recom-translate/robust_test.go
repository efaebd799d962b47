package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/recom-compiler/recom/cmd/internal/outfile/outfiletest"
)

// Every failing run leaves its -o path as it was: no new file, no
// temporary file beside it, an existing file unchanged; exit status 1 and a
// located message.
func TestFailedRunsLeaveNoOutput(t *testing.T) {
	dir := t.TempDir()
	for _, c := range robustCases {
		t.Run(c.name, func(t *testing.T) {
			in := filepath.Join(dir, c.name+".in")
			if err := os.WriteFile(in, []byte(c.input), 0o644); err != nil {
				t.Fatal(err)
			}
			out := filepath.Join(dir, c.name+".out")
			args := append(append([]string{}, c.args...), in, "-o", out)
			outfiletest.CheckFailedRun(t, out, c.want, func() (int, string) {
				var so, se bytes.Buffer
				status := run(args, strings.NewReader(""), &so, &se)
				return status, se.String()
			})
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
