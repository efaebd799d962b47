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
