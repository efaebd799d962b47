package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/recom-compiler/recom/cmd/internal/outfile/outfiletest"
	"github.com/recom-compiler/recom/interp"
	"github.com/recom-compiler/recom/interp/npz"
)

// Every failing recom command leaves its -o paths as they were: no new
// file, no temporary file beside them, and an existing file unchanged. Each
// fails with a message that names what is wrong, and exit status 1.
func TestFailedRunsLeaveNoOutput(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	model := write("g.pbtxt", smallGraph)
	x := interp.Must(interp.New([]int64{2}, []float32{1, 2}))
	ids := interp.Must(interp.New([]int64{2}, []int64{0, 2}))
	w := interp.Must(interp.New([]int64{3}, []float32{10, 20, 30}))
	feeds := filepath.Join(dir, "feeds.npz")
	writeNPZ(t, feeds, npz.Array{Name: "x", Tensor: x}, npz.Array{Name: "ids", Tensor: ids})
	noIDs := filepath.Join(dir, "noids.npz")
	writeNPZ(t, noIDs, npz.Array{Name: "x", Tensor: x})
	badDType := filepath.Join(dir, "baddtype.npz")
	writeNPZ(t, badDType, npz.Array{Name: "x", Tensor: x}, npz.Array{Name: "ids", Tensor: interp.Must(interp.New([]int64{2}, []float32{0, 1}))})
	badShape := filepath.Join(dir, "badshape.npz")
	writeNPZ(t, badShape, npz.Array{Name: "x", Tensor: x}, npz.Array{Name: "ids", Tensor: interp.Must(interp.New([]int64{3}, []int64{0, 1, 2}))})
	tables := filepath.Join(dir, "tables.npz")
	writeNPZ(t, tables, npz.Array{Name: "w", Tensor: w})
	badSpec := write("bad.json", `{"groups": [{"kind": "hashed_string", "count": 2, "buckets": -5, "dim": 4, "combiner": "mean"}]}`)
	notJSON := write("notjson.json", `{"groups": [`)
	// A directory where the side file of a model would go: the model's own
	// write succeeds, the side file's fails, and neither may be left.
	if err := os.Mkdir(filepath.Join(dir, "sidefails.tables.npz"), 0o755); err != nil {
		t.Fatal(err)
	}
	micro := filepath.Join(dir, "micro.pbtxt")
	if status, _, stderr := runTool("gen", "--preset", "micro", "--no-tables", "-o", micro); status != 0 {
		t.Fatal(stderr)
	}
	a1 := filepath.Join(dir, "a1.npz")
	writeNPZ(t, a1, npz.Array{Name: "out", Tensor: x})
	a2 := filepath.Join(dir, "a2.npz")
	writeNPZ(t, a2, npz.Array{Name: "out", Tensor: interp.Must(interp.New([]int64{3}, []float32{1, 2, 3}))})
	for _, c := range []struct {
		name string
		args []string
		out  string // the -o path (relative to dir)
		want string // in stderr
	}{
		{"interp missing feed", []string{"interp", model, "--feeds", noIDs, "--tables", tables, "--outputs", "out"}, "o1.npz", `"ids"`},
		{"interp wrong dtype", []string{"interp", model, "--feeds", badDType, "--tables", tables, "--outputs", "out"}, "o2.npz", "ids"},
		{"interp wrong shape", []string{"interp", model, "--feeds", badShape, "--tables", tables, "--outputs", "sum"}, "o3.npz", "sum"},
		{"interp missing table", []string{"interp", model, "--feeds", feeds, "--tables", feeds, "--outputs", "out"}, "o4.npz", `no value for variable "w"`},
		{"interp missing model", []string{"interp", filepath.Join(dir, "nope.pbtxt"), "--feeds", feeds}, "o5.npz", "nope.pbtxt"},
		{"interp bad output name", []string{"interp", model, "--feeds", feeds, "--tables", tables, "--outputs", "nosuch"}, "o6.npz", "nosuch"},
		{"gen bad spec", []string{"gen", "--spec", badSpec}, "m1.pbtxt", "buckets"},
		{"gen spec not JSON", []string{"gen", "--spec", notJSON}, "m2.pbtxt", "notjson.json"},
		{"gen bad preset", []string{"gen", "--preset", "nosuch"}, "m3.pb", "nosuch"},
		{"gen side file fails", []string{"gen", "--preset", "micro"}, "sidefails.pbtxt", "sidefails.tables.npz"},
		{"gen feeds of a missing model", []string{"gen", "--feeds", "--batch", "4", filepath.Join(dir, "nope.pbtxt")}, "f1.npz", "nope.pbtxt"},
		{"gen feeds bad batch", []string{"gen", "--feeds", "--batch", "-3", micro}, "f2.npz", "batch"},
	} {
		t.Run(c.name, func(t *testing.T) {
			out := filepath.Join(dir, c.out)
			outfiletest.CheckFailedRun(t, out, c.want, func() (int, string) {
				status, _, stderr := runTool(append(c.args, "-o", out)...)
				return status, stderr
			})
		})
	}
	// compare has no -o: mismatched arrays fail with status 1, naming the array.
	status, stdout, stderr := runTool("compare", a1, a2)
	if status != 1 || !strings.Contains(stdout+stderr, "out") {
		t.Errorf("compare of mismatched arrays: status %d\n%s%s", status, stdout, stderr)
	}
}
