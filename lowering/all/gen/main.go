// Command gen writes the documentation of recom's passes generated from
// their declarations (lowering/all.Decls), as mlir-tblgen -gen-pass-doc
// does from MLIR's Passes.td: the pass table of README.md (between its
// "passes" marker comments) and docs/PASSES.md (every pass with its
// options and statistics).
//
//	go generate ./lowering/all      # runs: go run ./gen -root ../..
//
// Its test fails while either file differs from what it would write.
package main

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"strings"

	allpasses "github.com/recom-compiler/recom/lowering/all"
	"github.com/recom-compiler/recom/lowering/pass"
)

// The files written, relative to the repository root.
const (
	readmePath = "README.md"
	docPath    = "docs/PASSES.md"
)

// The marker comments around the generated table in the README.
const (
	beginMarker = "<!-- passes:begin (generated from the pass declarations by `go generate ./lowering/all`; do not edit) -->\n"
	endMarker   = "<!-- passes:end -->\n"
)

// modulePrefix is stripped from package paths.
const modulePrefix = "github.com/recom-compiler/recom/"

func main() {
	root := flag.String("root", ".", "the repository root")
	flag.Parse()
	files, err := generate(*root, allpasses.Decls())
	if err == nil {
		for _, f := range files {
			if err = os.WriteFile(filepath.Join(*root, f.path), f.text, 0o644); err != nil {
				break
			}
		}
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "gen:", err)
		os.Exit(1)
	}
}

// file is one generated file: its path under the root and its content.
type file struct {
	path string
	text []byte
}

// generate returns the README with its pass table replaced and
// docs/PASSES.md, for the passes decls.
func generate(root string, decls []*pass.Decl) ([]file, error) {
	readme, err := os.ReadFile(filepath.Join(root, readmePath))
	if err != nil {
		return nil, err
	}
	readme, err = splice(readme, []byte(table(decls)))
	if err != nil {
		return nil, fmt.Errorf("%s: %v", readmePath, err)
	}
	return []file{{readmePath, readme}, {docPath, []byte(doc(decls))}}, nil
}

// splice replaces the text between the marker lines of doc by gen.
func splice(doc, gen []byte) ([]byte, error) {
	b := bytes.Index(doc, []byte(beginMarker))
	e := bytes.Index(doc, []byte(endMarker))
	if b < 0 || e < b || bytes.Count(doc, []byte(beginMarker)) != 1 || bytes.Count(doc, []byte(endMarker)) != 1 {
		return nil, errors.New("want one line " + strings.TrimSpace(beginMarker) + " and, after it, one line " + strings.TrimSpace(endMarker))
	}
	b += len(beginMarker)
	out := append([]byte(nil), doc[:b]...)
	out = append(out, gen...)
	return append(out, doc[e:]...), nil
}

// table is the README's pass table: flag, summary, options with their
// defaults; one row per pass, in the order of decls.
func table(decls []*pass.Decl) string {
	var b strings.Builder
	b.WriteString("| pass | summary | options (default) |\n|---|---|---|\n")
	for _, d := range decls {
		var opts []string
		for _, o := range d.OptionList() {
			s := o.Name
			if def := o.DefaultText(); def != "" {
				s += "=" + def
			}
			opts = append(opts, code(s))
		}
		fmt.Fprintf(&b, "| [%s](%s#%s) | %s | %s |\n", code("--"+d.Flag), docPath, anchor(d), escape(d.Summary), strings.Join(opts, " "))
	}
	return b.String()
}

// doc is docs/PASSES.md: every pass of decls with its options and
// statistics.
func doc(decls []*pass.Decl) string {
	var b strings.Builder
	b.WriteString("# Passes\n\n")
	b.WriteString("<!-- generated from the pass declarations by `go generate ./lowering/all`; do not edit -->\n\n")
	b.WriteString("Every pass of recom, from its declaration: a `pass.Decl` in its package, listed by\n" +
		"`lowering/all`. A pass is a flag of `recom-opt` (`--cse`, in command-line order) and a name in\n" +
		"`--pass-pipeline`; options are given as `--fuse='max-threads=128 schedule=recom'` or\n" +
		"`fuse{max-threads=128}`, and a bare boolean option means `true`. `--mlir-pass-statistics`\n" +
		"prints the statistics; IR dumps, timing and statistics reports name a pass by its display\n" +
		"name. `recom-opt --help` lists the same flags, summaries and options.\n")
	for _, d := range decls {
		fmt.Fprintf(&b, "\n## %s\n\n%s.\n\n", code("--"+d.Flag), escape(strings.TrimSuffix(d.Summary, ".")))
		anchor := d.Anchor
		if anchor == "" {
			anchor = "any op"
		} else {
			anchor = code(anchor) + " ops"
		}
		fmt.Fprintf(&b, "Display name %s; runs on %s; declared in %s.\n", code(d.DisplayName()), anchor, declaredIn(d))
		if opts := d.OptionList(); len(opts) > 0 {
			b.WriteString("\n| option | type | default | meaning |\n|---|---|---|---|\n")
			for _, o := range opts {
				def := ""
				if t := o.DefaultText(); t != "" {
					def = code(t)
				}
				fmt.Fprintf(&b, "| %s | %s | %s | %s |\n", code(o.Name), code(o.Kind.String()), def, escape(o.Help))
			}
		} else {
			b.WriteString("\nNo options.\n")
		}
		if stats := d.StatisticList(); len(stats) > 0 {
			b.WriteString("\n| statistic | meaning |\n|---|---|\n")
			for _, s := range stats {
				fmt.Fprintf(&b, "| %s | %s |\n", code(s.Name), escape(s.Help))
			}
		} else {
			b.WriteString("\nNo statistics.\n")
		}
	}
	return b.String()
}

// anchor is the GitHub anchor of d's heading in docs/PASSES.md.
func anchor(d *pass.Decl) string { return "--" + strings.ToLower(d.Flag) }

// declaredIn names the package that declares d (the package of its New
// func) as a link relative to docs/.
func declaredIn(d *pass.Decl) string {
	fn := runtime.FuncForPC(reflect.ValueOf(d.New).Pointer()).Name()
	slash := strings.LastIndexByte(fn, '/')
	dot := strings.IndexByte(fn[slash+1:], '.')
	if dot < 0 {
		return code(fn)
	}
	pkg := fn[:slash+1+dot]
	rel, ok := strings.CutPrefix(pkg, modulePrefix)
	if !ok {
		return code(pkg)
	}
	return fmt.Sprintf("[%s](../%s)", code(rel), rel)
}

// code is s as a Markdown code span.
func code(s string) string {
	if strings.Contains(s, "`") {
		return "`` " + s + " ``"
	}
	return "`" + s + "`"
}

// escape makes s plain text in a Markdown table cell.
func escape(s string) string {
	return strings.NewReplacer(`\`, `\\`, "|", `\|`, "*", `\*`, "`", "\\`", "<", "&lt;").Replace(s)
}
