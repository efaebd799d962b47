package main

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	allpasses "github.com/recom-compiler/recom/lowering/all"
	"github.com/recom-compiler/recom/lowering/pass"
	"github.com/recom-compiler/recom/lowering/tfgtoemb"
)

var update = flag.Bool("update", false, "rewrite README.md's pass table and docs/PASSES.md (as go generate ./lowering/all does)")

// root is the repository root, from this package's folder.
const root = "../../.."

// TestUpToDate fails while README.md's pass table or docs/PASSES.md differs
// from what the pass declarations generate.
func TestUpToDate(t *testing.T) {
	files, err := generate(root, allpasses.Decls())
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		path := filepath.Join(root, f.path)
		if *update {
			if err := os.WriteFile(path, f.text, 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		old, err := os.ReadFile(path)
		if err != nil {
			t.Errorf("%v (run go generate ./lowering/all)", err)
			continue
		}
		if !bytes.Equal(old, f.text) {
			t.Errorf("%s is out of date: run go generate ./lowering/all\n%s", f.path, firstDiff(old, f.text))
		}
	}
}

// firstDiff shows the first line where have and want differ.
func firstDiff(have, want []byte) string {
	h, w := strings.Split(string(have), "\n"), strings.Split(string(want), "\n")
	for i := 0; i < max(len(h), len(w)); i++ {
		var a, b string
		if i < len(h) {
			a = h[i]
		}
		if i < len(w) {
			b = w[i]
		}
		if a != b || i >= len(h) || i >= len(w) {
			return fmt.Sprintf("line %d:\n  file:      %q\n  generated: %q", i+1, a, b)
		}
	}
	return ""
}

func TestSplice(t *testing.T) {
	gen := []byte("| new |\n")
	for _, tc := range []struct{ in, want, err string }{
		{"a\n" + beginMarker + "| old |\n" + endMarker + "b\n", "a\n" + beginMarker + "| new |\n" + endMarker + "b\n", ""},
		{beginMarker + endMarker, beginMarker + "| new |\n" + endMarker, ""},
		{"a\n", "", "want one line"},
		{endMarker + beginMarker, "", "want one line"},
		{beginMarker + endMarker + beginMarker + endMarker, "", "want one line"},
	} {
		got, err := splice([]byte(tc.in), gen)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("splice(%q): %v, want %q", tc.in, err, tc.err)
			}
			continue
		}
		if err != nil || string(got) != tc.want {
			t.Errorf("splice(%q) = %q, %v; want %q", tc.in, got, err, tc.want)
		}
	}
}

func TestRender(t *testing.T) {
	d := &pass.Decl{
		Flag: "demo", Name: "Demo", Summary: "Show a | and x*1 in <cells>", Anchor: "func.func",
		Options: []pass.OptDecl{
			{Name: "n", Kind: pass.IntOption, Default: 3, Help: "a number"},
			{Name: "names", Kind: pass.StringListOption, Help: "names"},
			{Name: "s", Kind: pass.StringOption, Help: "text"},
		},
		Statistics: []pass.StatDecl{{Name: "num-x", Help: "Xs seen"}},
		New:        tfgtoemb.Decl.New, // declared in lowering/tfgtoemb
	}
	wantTable := "| pass | summary | options (default) |\n|---|---|---|\n" +
		"| [`--demo`](docs/PASSES.md#--demo) | Show a \\| and x\\*1 in &lt;cells> | `n=3` `names` `s=\"\"` |\n"
	if got := table([]*pass.Decl{d}); got != wantTable {
		t.Errorf("table:\n%s\nwant\n%s", got, wantTable)
	}
	wantDoc := "\n## `--demo`\n\nShow a \\| and x\\*1 in &lt;cells>.\n\n" +
		"Display name `Demo`; runs on `func.func` ops; declared in [`lowering/tfgtoemb`](../lowering/tfgtoemb).\n\n" +
		"| option | type | default | meaning |\n|---|---|---|---|\n" +
		"| `n` | `int` | `3` | a number |\n" +
		"| `names` | `list<string>` |  | names |\n" +
		"| `s` | `string` | `\"\"` | text |\n\n" +
		"| statistic | meaning |\n|---|---|\n| `num-x` | Xs seen |\n"
	if got := doc([]*pass.Decl{d}); !strings.HasSuffix(got, wantDoc) {
		t.Errorf("doc:\n%s\nwant it to end with\n%s", got, wantDoc)
	}
	bare := &pass.Decl{Flag: "bare", Summary: "Nothing.", New: d.New}
	if got := doc([]*pass.Decl{bare}); !strings.HasSuffix(got, "\n## `--bare`\n\nNothing.\n\n"+
		"Display name `bare`; runs on any op; declared in [`lowering/tfgtoemb`](../lowering/tfgtoemb).\n\nNo options.\n\nNo statistics.\n") {
		t.Errorf("doc of a pass without options:\n%s", got)
	}
}
