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

var robustCases = []struct {
	name, input string
	args        []string
	want        string
}{
	{"parse", "func.func @f( {\n", nil, ".in:1:"},
	{"verify", "func.func @f() -> i32 {\n  func.return\n}\n", nil, ".in:2:3: error:"},
	{"pipeline", "func.func @f() {\n  func.return\n}\n", []string{"--pass-pipeline=builtin.module(nope)"}, "'nope' does not refer to a registered pass"},
	{"second-chunk", "func.func @f() {\n  func.return\n}\n// -----\nfunc.func @g() -> i32 {\n  func.return\n}\n", []string{"--split-input-file"}, ".in:6:3: error:"},
	{"emb-verify", "func.func @f(%x: tensor<?x!tfg.string>) {\n  %v = \"emb.hash\"(%x) {num_buckets = 0 : i64} : (tensor<?x!tfg.string>) -> tensor<?xi64>\n  func.return\n}\n", []string{"--lower-emb"}, ".in:2:3: error: 'emb.hash' op requires num_buckets >= 1"},
}
