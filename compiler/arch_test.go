package compiler

import (
	"bufio"
	"fmt"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// The packages of the module are layered; a package imports only packages
// of its own layer or of lower ones:
//
//	textir < interp < dialects < frontend, lowering < backend < runtime < compiler < cmd
//
// frontend and lowering share a layer but do not import each other: the
// compiler (and the tools) put the two together. The test helpers of
// internal/ sit at the layer of what they import.
var layers = []struct {
	prefix string
	layer  int
}{
	{"textir", 0},
	{"examples", 0}, // bundled specs: data only
	{"internal/realgraphs", 0},
	{"internal/irdump", 0},
	{"interp", 1},
	{"dialects", 2},
	{"internal/tfgfeeds", 2},
	{"frontend", 3},
	{"internal/ckptwrite", 3},
	{"lowering", 3},
	{"backend", 4},
	{"runtime", 5},
	{"compiler", 6},
	{"serve", 6}, // the model server: the runtime behind the serving protocols
	{"cmd", 7},
}

// apart are the layer-mates that must not import each other.
var apart = [][2]string{{"lowering", "frontend"}, {"frontend", "lowering"}}

// exceptions are the upward imports allowed, each with its reason: by a
// package (path prefix) of a package (path prefix), in its tests only
// unless noted. An exception that no import needs any more fails the test.
var exceptions = []exception{
	{"dialects", "lowering/rewrite", true,
		"canonicalization patterns are tested by driving them with the greedy rewriter, as MLIR's tests run -canonicalize"},
	{"dialects/tfg", "frontend", true,
		"the tfg ops' semantics are tested on GraphDefs imported from real and generated graphs"},
	{"interp/exec", "dialects", true,
		"the engine is tested on programs of the real dialects"},
	{"interp/exec", "frontend", true,
		"the engine is tested on programs imported from GraphDefs"},
	{"lowering", "frontend", true,
		"the lowerings are tested end to end on models generated (frontend/gen) and imported from GraphDefs"},
	{"lowering", "backend", true,
		"the kernels the lowerings emit are checked through the NVPTX emitter and llc-19"},
}

// exception allows the imports of packages under to by packages under
// from (by their tests only when tests is set), for the reason why.
type exception struct {
	from, to string
	tests    bool
	why      string
}

// layerOf returns the layer of a package path inside the module (by its
// longest matching prefix) and the prefix.
func layerOf(pkg string) (layer int, prefix string, ok bool) {
	for _, l := range layers {
		if (pkg == l.prefix || strings.HasPrefix(pkg, l.prefix+"/")) && len(l.prefix) > len(prefix) {
			layer, prefix, ok = l.layer, l.prefix, true
		}
	}
	return layer, prefix, ok
}

func under(pkg, prefix string) bool { return pkg == prefix || strings.HasPrefix(pkg, prefix+"/") }

// importEdge is one import of a package of the module by a file.
type importEdge struct {
	from, to, file string
	test           bool
}

// moduleImports parses every Go file of the module under root (imports
// only) and returns its imports of the module's own packages.
func moduleImports(t *testing.T, root, module string) []importEdge {
	t.Helper()
	var edges []importEdge
	fset := token.NewFileSet()
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if d.IsDir() {
			if path != root && (strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_") || name == "testdata" || fileExists(filepath.Join(path, "go.mod"))) {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(name, ".go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, filepath.Dir(path))
		from := filepath.ToSlash(rel)
		for _, imp := range f.Imports {
			p, err := strconv.Unquote(imp.Path.Value)
			if err != nil {
				return err
			}
			if to, ok := strings.CutPrefix(p, module+"/"); ok {
				edges = append(edges, importEdge{from: from, to: to, file: filepath.ToSlash(filepath.Join(rel, name)), test: strings.HasSuffix(name, "_test.go")})
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return edges
}

func fileExists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

// modulePath reads the module path from root/go.mod.
func modulePath(t *testing.T, root string) string {
	t.Helper()
	f, err := os.Open(filepath.Join(root, "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if m, ok := strings.CutPrefix(strings.TrimSpace(sc.Text()), "module "); ok {
			return strings.TrimSpace(m)
		}
	}
	t.Fatal("go.mod has no module line")
	return ""
}

// upward says why the import breaks the layering ("" when it does not).
func upward(e importEdge) string {
	lf, pf, ok := layerOf(e.from)
	if !ok {
		return fmt.Sprintf("package %s has no layer (add it to the layers table)", e.from)
	}
	lt, pt, ok := layerOf(e.to)
	if !ok {
		return fmt.Sprintf("package %s has no layer (add it to the layers table)", e.to)
	}
	if lt > lf {
		return fmt.Sprintf("%s (layer %s) imports %s (layer %s, higher)", e.from, pf, e.to, pt)
	}
	for _, a := range apart {
		if under(e.from, a[0]) && under(e.to, a[1]) {
			return fmt.Sprintf("%s imports %s: %s and %s do not import each other", e.from, e.to, a[0], a[1])
		}
	}
	return ""
}

// No package imports a package of a higher layer, except as exceptions
// allow.
func TestLayers(t *testing.T) {
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	edges := moduleImports(t, root, modulePath(t, root))
	if len(edges) < 100 {
		t.Fatalf("found only %d imports of the module's packages under %s", len(edges), root)
	}
	used := make([]bool, len(exceptions))
	for _, e := range edges {
		why := upward(e)
		if why == "" {
			continue
		}
		i := slices.IndexFunc(exceptions, func(x exception) bool {
			return under(e.from, x.from) && under(e.to, x.to) && (e.test || !x.tests)
		})
		if i < 0 {
			t.Errorf("%s: %s", e.file, why)
			continue
		}
		used[i] = true
	}
	for i, u := range used {
		if !u {
			t.Errorf("exception %s -> %s is not needed any more: remove it", exceptions[i].from, exceptions[i].to)
		}
	}
}

// The check finds what it is for: the imports the layering forbids.
func TestUpward(t *testing.T) {
	for _, c := range []struct {
		e    importEdge
		want string
	}{
		{importEdge{from: "lowering/pipeline", to: "frontend/graphdef"}, "lowering and frontend do not import each other"},
		{importEdge{from: "lowering/pipeline", to: "backend/nvptx"}, "lowering/pipeline (layer lowering) imports backend/nvptx (layer backend, higher)"},
		{importEdge{from: "frontend/importer", to: "lowering/pass"}, "frontend and lowering do not import each other"},
		{importEdge{from: "textir", to: "interp"}, "textir (layer textir) imports interp (layer interp, higher)"},
		{importEdge{from: "runtime/fusedrt", to: "compiler"}, "higher"},
		{importEdge{from: "newfolder/x", to: "textir"}, "package newfolder/x has no layer"},
		{importEdge{from: "compiler", to: "lowering/pass"}, ""},
		{importEdge{from: "dialects/emb", to: "dialects/tfg"}, ""},
		{importEdge{from: "cmd/recom", to: "compiler"}, ""},
		{importEdge{from: "internal/tfgfeeds", to: "dialects/tfg"}, ""},
	} {
		got := upward(c.e)
		if (c.want == "") != (got == "") || !strings.Contains(got, c.want) {
			t.Errorf("%s -> %s: %q, want %q", c.e.from, c.e.to, got, c.want)
		}
	}
}
