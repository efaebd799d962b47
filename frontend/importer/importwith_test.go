package importer

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/recom-compiler/recom/frontend/graphdef"
	"github.com/recom-compiler/recom/frontend/graphdef/tfpb"
	"github.com/recom-compiler/recom/textir"
	"google.golang.org/protobuf/proto"
)

// sequentialImport is Import as it was before the nodes were converted in
// parallel (one converter going through the nodes in order, after the
// names and inputs): the reference ImportWith must equal, module and
// first error.
func sequentialImport(ctx *textir.Context, g *tfpb.GraphDef) (*textir.Operation, error) {
	ops := graphdef.NewOps(g.GetLibrary())
	byName := make(map[string]int, len(g.Node))
	for i, n := range g.Node {
		if n.Name == "" {
			return nil, nodeErr(fmt.Sprintf("#%d", i), "node has no name")
		}
		if _, dup := byName[n.Name]; dup {
			return nil, nodeErr(n.Name, "duplicate node name")
		}
		byName[n.Name] = i
	}
	// Parse inputs once; find how many outputs unknown ops must have.
	// Each input is kept with its producer's index, so that the name map
	// (large, and slow to probe in a graph of a million nodes) is read once
	// per edge.
	inputs := make([][]seqInput, len(g.Node))
	maxUse := make([]int, len(g.Node))
	for i, n := range g.Node {
		seenControl := false
		if len(n.Input) > 0 {
			inputs[i] = make([]seqInput, 0, len(n.Input))
		}
		for _, s := range n.Input {
			r, err := graphdef.ParseInput(s)
			if err != nil {
				return nil, nodeErr(n.Name, "%v", err)
			}
			p, ok := byName[r.Node]
			if !ok {
				return nil, nodeErr(n.Name, "input %q names a missing node", s)
			}
			if r.Control {
				seenControl = true
			} else if seenControl {
				return nil, nodeErr(n.Name, "data input %q after a control input", s)
			}
			if !r.Control && r.Index+1 > maxUse[p] {
				maxUse[p] = r.Index + 1
			}
			inputs[i] = append(inputs[i], seqInput{TensorRef: r, node: p})
		}
	}

	graph := ctx.Create(&textir.OperationState{Name: "tfg.graph", NumRegions: 1, Loc: textir.UnknownLoc{}})
	if err := setGraphAttrs(graph, g); err != nil {
		return nil, err
	}
	body := textir.NewBlock()
	graph.Region(0).AppendBlock(body)

	created := make([]*textir.Operation, len(g.Node))
	// One budget for the elements all the graph's tensors expand to; each
	// node converted as the importer converts one (nodeImporter.convert),
	// in node order, its outputs known.
	conv := new(converter)
	im := &nodeImporter{ops: ops, ctx: ctx, nodes: g.Node, created: created}
	for i := range g.Node {
		if err := im.convert(i, conv, maxUse[i]); err != nil {
			return nil, err
		}
		body.Append(created[i])
	}
	for i, n := range g.Node {
		vals := make([]*textir.Value, len(inputs[i]))
		for j, r := range inputs[i] {
			p := created[r.node]
			if r.Control {
				vals[j] = p.Result(p.NumResults() - 1)
				continue
			}
			if r.Index >= p.NumResults()-1 {
				return nil, nodeErr(n.Name, "input %q: node %q has %d outputs", n.Input[j], r.Node, p.NumResults()-1)
			}
			vals[j] = p.Result(r.Index)
		}
		created[i].SetOperands(vals)
	}

	module := ctx.Create(&textir.OperationState{Name: "builtin.module", NumRegions: 1, Loc: textir.UnknownLoc{}})
	mb := textir.NewBlock()
	module.Region(0).AppendBlock(mb)
	mb.Append(graph)
	return module, nil
}

type seqInput struct {
	graphdef.TensorRef
	node int
}

// withParallel runs f with the nodes converted by workers goroutines, a
// chunk nodes at a time, in graphs of any size.
func withParallel(workers, chunk int, f func()) {
	defer func(w, c, m int) { importWorkers, convertChunk, parallelMinNodes = w, c, m }(importWorkers, convertChunk, parallelMinNodes)
	importWorkers, convertChunk, parallelMinNodes = workers, chunk, 0
	f()
}

// importText imports a text GraphDef as the compiler does (checks, attributes
// consumed) and returns the printed module or the error.
func importResult(t *testing.T, g *tfpb.GraphDef, o Options) string {
	t.Helper()
	m, err := ImportWith(newCtx(), g, o)
	if err != nil {
		return "error: " + err.Error()
	}
	return printIR(t, m)
}

// referenceResult is what the compiler reported before: Validate's errors,
// else the sequential import's.
func referenceResult(t *testing.T, g *tfpb.GraphDef, check bool) string {
	t.Helper()
	if check {
		if err := graphdef.Validate(g); err != nil {
			return "error: " + err.Error()
		}
	}
	m, err := sequentialImport(newCtx(), g)
	if err != nil {
		return "error: " + err.Error()
	}
	return printIR(t, m)
}

// The parallel import gives the module and the first error of the
// sequential one, whatever the number of goroutines and the chunk size, on
// the lit tests' GraphDefs (good and bad) and on graphs built to fail at
// several nodes at once.
func TestImportWithEqualsSequential(t *testing.T) {
	var graphs []*tfpb.GraphDef
	var names []string
	for _, dir := range []string{"../../lit-tests/Translate/Inputs", "../../lit-tests/Robustness/Inputs"} {
		files, _ := filepath.Glob(filepath.Join(dir, "*.pbtxt"))
		for _, name := range files {
			b, err := os.ReadFile(name)
			if err != nil {
				t.Fatal(err)
			}
			file, err := graphdef.Parse(b, name)
			if err != nil || file.Graph == nil {
				continue
			}
			graphs = append(graphs, file.Graph)
			names = append(names, filepath.Base(name))
		}
	}
	if len(graphs) < 10 {
		t.Fatalf("only %d GraphDefs found", len(graphs))
	}
	for name, text := range manyErrorGraphs() {
		file, err := graphdef.Parse([]byte(text), name)
		if err != nil {
			t.Fatal(err)
		}
		graphs = append(graphs, file.Graph)
		names = append(names, name)
	}
	for i, g := range graphs {
		for _, check := range []bool{false, true} {
			want := referenceResult(t, g, check)
			for _, p := range [][2]int{{1, 1}, {2, 1}, {4, 3}, {3, 2048}} {
				withParallel(p[0], p[1], func() {
					c := cloneGraph(g)
					if got := importResult(t, c, Options{Check: check, Consume: true}); got != want {
						t.Errorf("%s (check %v, %d workers, chunks of %d):\n got %s\nwant %s", names[i], check, p[0], p[1], clip(got), clip(want))
					}
				})
			}
		}
	}
}

func clip(s string) string {
	if len(s) > 400 {
		return s[:400] + "..."
	}
	return s
}

func cloneGraph(g *tfpb.GraphDef) *tfpb.GraphDef { return proto.Clone(g).(*tfpb.GraphDef) }

// manyErrorGraphs are graphs with problems at several nodes: partial
// tensors that together exceed the expansion budget, an op without a
// signature whose outputs its users count, a bad attribute after them.
func manyErrorGraphs() map[string]string {
	var budget, late strings.Builder
	// Each Const expands 1000 elements from one stored value... of which
	// the values differ, so they are not splats: 5 of them exceed the
	// budget of 4096 set below.
	for i := range 8 {
		fmt.Fprintf(&budget, `node { name: "c%d" op: "Const" attr { key: "dtype" value { type: DT_INT32 } } attr { key: "value" value { tensor { dtype: DT_INT32 tensor_shape { dim { size: 1000 } } int_val: 1 int_val: %d } } } }
`, i, i+2)
	}
	fmt.Fprintf(&late, `node { name: "u" op: "MysteryOp" }
node { name: "v" op: "Identity" input: "u:3" attr { key: "T" value { type: DT_FLOAT } } }
node { name: "w" op: "Identity" input: "u:1" attr { key: "T" value { type: DT_FLOAT } } }
node { name: "x" op: "Const" attr { key: "dtype" value { type: DT_INT32 } } attr { key: "value" value { tensor { dtype: DT_INT32 tensor_shape { dim { size: 3 } } int_val: 1 int_val: 2 } } } }
node { name: "y" op: "Const" attr { key: "dtype" value { type: DT_INVALID } } attr { key: "value" value { tensor { dtype: DT_INT32 } } } }
`)
	return map[string]string{"budget.pbtxt": budget.String(), "late.pbtxt": budget.String() + late.String(),
		"early.pbtxt": late.String() + budget.String(), "unknown.pbtxt": late.String()}
}

// The budget of elements expanded is charged in node order however the
// nodes are shared: the error names the same tensor and total.
func TestImportWithBudgetDeterministic(t *testing.T) {
	defer func(n int64) { textir.MaxDenseElements = n }(textir.MaxDenseElements)
	textir.MaxDenseElements = 4096
	for name, wantErr := range map[string]string{
		"budget.pbtxt": `node "c4": attribute "value": tensor of shape 1000 with 2 values (the last repeated) is too large to materialise after 4000 elements expanded`,
		"late.pbtxt":   `node "c4": attribute "value": tensor of shape 1000 with 2 values (the last repeated) is too large to materialise after 4000 elements expanded`,
		"early.pbtxt":  `node "y": output type: unknown dtype 0`,
	} {
		file, err := graphdef.Parse([]byte(manyErrorGraphs()[name]), name)
		if err != nil {
			t.Fatal(err)
		}
		want := referenceResult(t, file.Graph, false)
		if !strings.Contains(want, wantErr) {
			t.Fatalf("%s: reference: %s", name, want)
		}
		for range 20 {
			withParallel(4, 1, func() {
				if got := importResult(t, cloneGraph(file.Graph), Options{Consume: true}); got != want {
					t.Fatalf("%s: got %s\nwant %s", name, got, want)
				}
			})
		}
	}
}

// Consume lets each node's attributes go; Progress reports each tenth of
// the nodes once, in order, however the goroutines share them.
func TestImportWithConsumeProgress(t *testing.T) {
	var b bytes.Buffer
	for i := range 300 {
		fmt.Fprintf(&b, "node { name: \"c%d\" op: \"Const\" attr { key: \"dtype\" value { type: DT_FLOAT } } attr { key: \"value\" value { tensor { dtype: DT_FLOAT float_val: %d } } } }\n", i, i)
	}
	file, err := graphdef.Parse(b.Bytes(), "consts.pbtxt")
	if err != nil {
		t.Fatal(err)
	}
	g := file.Graph
	want := referenceResult(t, cloneGraph(g), true)
	var calls [][2]int
	withParallel(2, 7, func() {
		got := importResult(t, g, Options{Check: true, Consume: true, Progress: func(done, total int) { calls = append(calls, [2]int{done, total}) }})
		if got != want {
			t.Errorf("got %s", clip(got))
		}
	})
	for _, n := range g.Node {
		if n.Attr != nil {
			t.Fatalf("node %s kept its attributes", n.Name)
		}
	}
	// Each tenth once, in order, then the end.
	want10 := [][2]int{{30, 300}, {60, 300}, {90, 300}, {120, 300}, {150, 300}, {180, 300}, {210, 300}, {240, 300}, {270, 300}, {300, 300}}
	if !slices.Equal(calls, want10) {
		t.Errorf("progress %v, want %v", calls, want10)
	}
}
