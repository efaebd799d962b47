package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/recom-compiler/recom/dialects/all"
	"github.com/recom-compiler/recom/frontend/graphdef"
	"github.com/recom-compiler/recom/frontend/importer"
	"github.com/recom-compiler/recom/internal/realgraphs"
	"github.com/recom-compiler/recom/interp"
	"github.com/recom-compiler/recom/interp/npz"
	"github.com/recom-compiler/recom/textir"
)

// runTool runs recom in-process.
func runTool(args ...string) (status int, stdout, stderr string) {
	var o, e bytes.Buffer
	status = run(args, strings.NewReader(""), &o, &e)
	return status, o.String(), e.String()
}

const smallGraph = `
node { name: "x" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } } }
node { name: "ids" op: "Placeholder" attr { key: "dtype" value { type: DT_INT64 } } }
node { name: "w" op: "VariableV2" attr { key: "dtype" value { type: DT_FLOAT } } attr { key: "shape" value { shape { dim { size: 3 } } } } }
node { name: "g" op: "Gather" input: "w" input: "ids" attr { key: "Tparams" value { type: DT_FLOAT } } attr { key: "Tindices" value { type: DT_INT64 } } }
node { name: "sum" op: "AddV2" input: "x" input: "g" attr { key: "T" value { type: DT_FLOAT } } }
node { name: "split" op: "Unpack" input: "sum" attr { key: "T" value { type: DT_FLOAT } } attr { key: "num" value { i: 2 } } }
node { name: "out" op: "Neg" input: "split:1" attr { key: "T" value { type: DT_FLOAT } } }
`

func writeNPZ(t *testing.T, path string, arrays ...npz.Array) {
	t.Helper()
	if err := npz.WriteFile(path, arrays); err != nil {
		t.Fatal(err)
	}
}

func readNPZ(t *testing.T, path string) map[string]*interp.Tensor {
	t.Helper()
	arrays, err := npz.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	m := map[string]*interp.Tensor{}
	for _, a := range arrays {
		m[a.Name] = a.Tensor
	}
	return m
}

func TestInterpSmallGraph(t *testing.T) {
	dir := t.TempDir()
	model := filepath.Join(dir, "g.pbtxt")
	if err := os.WriteFile(model, []byte(smallGraph), 0o644); err != nil {
		t.Fatal(err)
	}
	feeds := filepath.Join(dir, "feeds.npz")
	writeNPZ(t, feeds, npz.Array{Name: "x", Tensor: interp.Vector[float32](1, 2)}, npz.Array{Name: "ids__0", Tensor: interp.Vector[int64](2, 0)})
	tables := filepath.Join(dir, "tables.npz")
	writeNPZ(t, tables, npz.Array{Name: "w", Tensor: interp.Vector[float32](10, 20, 30)})
	out := filepath.Join(dir, "out.npz")

	// Named outputs, both spellings of an index.
	st, so, se := runTool("interp", model, "--feeds", feeds, "--tables", tables, "--outputs", "out,split:0,sum__0", "-o", out)
	if st != 0 {
		t.Fatalf("status %d: %s%s", st, so, se)
	}
	got := readNPZ(t, out)
	want := map[string]*interp.Tensor{"out": interp.Scalar[float32](-12), "split:0": interp.Scalar[float32](31), "sum__0": interp.Vector[float32](31, 12)}
	for k, w := range want {
		if got[k] == nil || got[k].Equal(w) != nil {
			t.Errorf("%s = %v, want %v", k, got[k], w)
		}
	}
	// The sole sink is the default output.
	if st, so, se := runTool("interp", model, "--feeds", feeds, "--tables", tables, "-o", out); st != 0 {
		t.Fatalf("status %d: %s%s", st, so, se)
	}
	if got := readNPZ(t, out); len(got) != 1 || got["out"] == nil {
		t.Errorf("default outputs: %v", got)
	}
	// Random variables by seed: deterministic.
	runSeed := func(seed string) *interp.Tensor {
		if st, so, se := runTool("interp", model, "--feeds", feeds, "--seed", seed, "-o", out); st != 0 {
			t.Fatalf("status %d: %s%s", st, so, se)
		}
		return readNPZ(t, out)["out"]
	}
	if a, b, c := runSeed("3"), runSeed("3"), runSeed("4"); a.Equal(b) != nil || a.Equal(c) == nil {
		t.Errorf("seeded runs: %v %v %v", a, b, c)
	}

	// The same program as textual IR.
	f, err := graphdef.Parse([]byte(smallGraph), "g.pbtxt")
	if err != nil {
		t.Fatal(err)
	}
	m, err := importer.Import(all.NewContext(), f.Graph)
	if err != nil {
		t.Fatal(err)
	}
	var ir bytes.Buffer
	if err := textir.Print(&ir, m, textir.PrintOptions{}); err != nil {
		t.Fatal(err)
	}
	mlir := filepath.Join(dir, "g.mlir")
	if err := os.WriteFile(mlir, ir.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	out2 := filepath.Join(dir, "out2.npz")
	if st, so, se := runTool("interp", mlir, "--feeds", feeds, "--tables", tables, "--outputs", "out", "-o", out2); st != 0 {
		t.Fatalf(".mlir: status %d: %s%s", st, so, se)
	}
	if st, so, _ := runTool("compare", out, out2); st != 1 { // out has seed-4 values
		t.Errorf("compare of different runs: status %d: %s", st, so)
	}

	// Errors.
	nope := filepath.Join(dir, "nope.npz")
	writeNPZ(t, nope, npz.Array{Name: "nope", Tensor: interp.Vector[float32](1, 2)})
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"interp", model, "--tables", tables, "--outputs", "out", "-o", out}, `(node "x") is not fed`},
		{[]string{"interp", model, "--feeds", feeds, "--tables", tables, "--outputs", "nope", "-o", out}, `no op named "nope"`},
		{[]string{"interp", model, "--feeds", feeds, "--outputs", "out"}, "-o is required"},
		// Errors about the contents of an input file name it.
		{[]string{"interp", model, "--feeds", tables, "--tables", tables, "--outputs", "out", "-o", out}, `note: --feeds ` + tables + ` has no array named "x"`},
		{[]string{"interp", model, "--feeds", nope, "--tables", tables, "--outputs", "out", "-o", out}, "--feeds " + nope + `: feed "nope": no op named "nope"`},
		{[]string{"interp", model, "--feeds", feeds, "--tables", feeds, "--outputs", "out", "-o", out}, `note: --tables ` + feeds + ` has no array named "w"`},
	} {
		st, _, se := runTool(c.args...)
		if st != 1 || !strings.Contains(se, c.want) {
			t.Errorf("%v: status %d, stderr %q; want 1 and %q", c.args, st, se, c.want)
		}
	}
	bad := filepath.Join(dir, "bad.npz")
	writeNPZ(t, bad, npz.Array{Name: "x", Tensor: interp.Vector[float32](1, 2)}, npz.Array{Name: "ids", Tensor: interp.Vector[int64](3, 0)})
	st, _, se = runTool("interp", model, "--feeds", bad, "--tables", tables, "--outputs", "out", "-o", out)
	if st != 1 || !strings.Contains(se, `(node "g")`) || !strings.Contains(se, "not in [0, 3)") {
		t.Errorf("id out of range: status %d, stderr %q", st, se)
	}
}

// A real graph cut at its iterator, with its tables carried over.
func TestInterpRealGraph(t *testing.T) {
	dir := t.TempDir()
	model := filepath.Join(realgraphs.Dir(t), "criteo_bucketized_tiles.pbtxt")
	var inputs []string
	var arrays []npz.Array
	for i := range 11 {
		name := fmt.Sprintf("IteratorGetNext:%d", i)
		inputs = append(inputs, name)
		arrays = append(arrays, npz.Array{Name: name, Tensor: interp.Vector[float32](float32(i), -float32(i), 0.5)})
	}
	feeds := filepath.Join(dir, "feeds.npz")
	writeNPZ(t, feeds, arrays...)
	a, b := filepath.Join(dir, "a.npz"), filepath.Join(dir, "b.npz")
	for _, o := range []string{a, b} {
		st, so, se := runTool("interp", model, "--feeds", feeds, "--inputs", strings.Join(inputs, ","),
			"--outputs", "dense/BiasAdd", "--seed", "5", "-o", o)
		if st != 0 {
			t.Fatalf("status %d: %s%s", st, so, se)
		}
	}
	out := readNPZ(t, a)["dense/BiasAdd"]
	if out == nil || out.Dim(0) != 3 {
		t.Fatalf("dense/BiasAdd = %v", out)
	}
	st, so, _ := runTool("compare", a, b)
	if st != 0 || !strings.HasPrefix(so, "match: 1 arrays") {
		t.Errorf("compare: status %d: %q", st, so)
	}
}

func TestCompare(t *testing.T) {
	dir := t.TempDir()
	p := func(name string, arrays ...npz.Array) string {
		path := filepath.Join(dir, name)
		writeNPZ(t, path, arrays...)
		return path
	}
	base := p("base.npz", npz.Array{Name: "a:0", Tensor: interp.Vector[float32](1, 2, 3)}, npz.Array{Name: "ids", Tensor: interp.Vector[int64](4, 5)})
	close := p("close.npz", npz.Array{Name: "a__0", Tensor: interp.Vector[float32](1, 2.000001, 3)}, npz.Array{Name: "ids", Tensor: interp.Vector[int64](4, 5)})
	far := p("far.npz", npz.Array{Name: "a:0", Tensor: interp.Vector[float32](1, 2.5, 3.1)}, npz.Array{Name: "ids", Tensor: interp.Vector[int64](4, 6)})
	dtype := p("dtype.npz", npz.Array{Name: "a:0", Tensor: interp.Vector[float64](1, 2, 3)}, npz.Array{Name: "ids", Tensor: interp.Vector[int64](4, 5)})
	fewer := p("fewer.npz", npz.Array{Name: "a:0", Tensor: interp.Vector[float32](1, 2, 3)})
	for _, c := range []struct {
		name   string
		args   []string
		status int
		want   []string
	}{
		{"match", []string{base, close}, 0, []string{"match: 2 arrays, 5 elements"}},
		{"values differ", []string{base, far}, 1, []string{
			"a:0: 2 of 3 elements differ; worst at index [1]: " + base + " = 2, " + far + " = 2.5",
			"ids: 1 of 2 elements differ; worst at index [1]: " + base + " = 5, " + far + " = 6",
			"2 of 2 arrays differ"}},
		{"loose tolerance", []string{base, far, "--atol", "1", "--rtol", "0"}, 1, []string{"ids: 1 of 2"}},
		{"dtype", []string{base, dtype}, 1, []string{"a:0: dtype mismatch: got float32, want float64"}},
		{"missing array", []string{base, fewer}, 1, []string{"ids: only in " + base}},
		{"unreadable", []string{base, filepath.Join(dir, "none.npz")}, 2, nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			st, so, se := runTool(append([]string{"compare"}, c.args...)...)
			if st != c.status {
				t.Fatalf("status %d, want %d: %s%s", st, c.status, so, se)
			}
			for _, w := range c.want {
				if !strings.Contains(so, w) {
					t.Errorf("stdout %q lacks %q", so, w)
				}
			}
		})
	}
}

// A model from recom gen runs without --outputs: the spec gen records in
// the graph (recom/spec, a Const used by nothing) is not a second sink.
func TestInterpGeneratedModelSink(t *testing.T) {
	dir := t.TempDir()
	model, feeds, out := filepath.Join(dir, "m.pbtxt"), filepath.Join(dir, "f.npz"), filepath.Join(dir, "o.npz")
	if code, msg := runGen(t, "--preset", "micro", "--columns", "2", "-o", model); code != 0 {
		t.Fatalf("gen: %s", msg)
	}
	if code, msg := runGen(t, "--feeds", "--batch", "2", model, "-o", feeds); code != 0 {
		t.Fatalf("gen --feeds: %s", msg)
	}
	if status, _, stderr := runTool("interp", model, "--feeds", feeds, "--tables", filepath.Join(dir, "m.tables.npz"), "-o", out); status != 0 {
		t.Fatalf("interp: %s", stderr)
	}
	arrays, err := npz.ReadFile(out)
	if err != nil || len(arrays) != 1 || arrays[0].Name != "input_layer/concat" {
		t.Fatalf("outputs %v, %v: want the model's one output", arrays, err)
	}
}
