package compiler

import (
	"context"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"strings"
	"testing"

	"github.com/recom-compiler/recom/dialects/all"
	"github.com/recom-compiler/recom/dialects/fused"
	"github.com/recom-compiler/recom/dialects/fused/abi"
	"github.com/recom-compiler/recom/dialects/tfg"
	"github.com/recom-compiler/recom/frontend/graphdef"
	"github.com/recom-compiler/recom/frontend/importer"
	"github.com/recom-compiler/recom/internal/realgraphs"
	"github.com/recom-compiler/recom/internal/tfgfeeds"
	"github.com/recom-compiler/recom/interp"
	"github.com/recom-compiler/recom/interp/exec"
	"github.com/recom-compiler/recom/textir"
)

// realGraph is how a real graph is compiled for inference: the tensors fed
// (the node whose outputs are the inputs, all of them, or a list) and the
// predictions, and what the compiler must find in it. bench/real-graphs.sh
// holds the same table.
type realGraph struct {
	file    string
	feed    string   // every output of this node is an input
	inputs  []string // or these
	outputs []string
	columns int64 // embedding columns lower-emb finds, all fused
	kinds   map[string]int64
	// inKernel are the columns whose ids the kernel computes, hostIDs
	// those whose ids are computed before the layer (each with a remark
	// that the summary prints); the rest are raw ids.
	inKernel, hostIDs int64
	// indicators are the indicator (one-hot) columns of the input layer:
	// no table, not embedding columns; they stay in the dense part.
	indicators int
}

var realGraphs = []realGraph{
	{file: "census_wide_deep_tf1.pbtxt", feed: "IteratorGetNext",
		outputs: []string{"head/predictions/logistic", "dnn/input_from_feature_columns/input_layer/concat"},
		columns: 9, kinds: map[string]int64{"hashed_string": 2, "vocabulary": 4, "bucketized": 1, "crossed": 2}, indicators: 4,
		// Every column with its ids in the kernel: the vocabularies
		// (default_value = -1), the linear model's bucketized ids and
		// the crossed columns (their SparseCross computed in the kernel).
		inKernel: 9},
	{file: "census_wide_deep_tf2_resource.pbtxt", inputs: fifo(1, 16),
		outputs: []string{"head/predictions/logistic"},
		columns: 8, kinds: map[string]int64{"hashed_string": 8}, inKernel: 8},
	{file: "criteo_bucketized_tiles.pbtxt", feed: "IteratorGetNext",
		outputs: []string{"dense/BiasAdd"}, indicators: 11},
}

func fifo(lo, hi int) []string {
	var ins []string
	for i := lo; i <= hi; i++ {
		ins = append(ins, fmt.Sprintf("fifo_queue_DequeueMany:%d", i))
	}
	return ins
}

// inputsOf returns the graph's inference inputs.
func (c *realGraph) inputsOf(t *testing.T, f *graphdef.File) []string {
	if c.feed == "" {
		return c.inputs
	}
	for _, n := range f.Graph.GetNode() {
		if n.GetName() == c.feed {
			k, err := graphdef.NumOutputs(n)
			if err != nil {
				t.Fatal(err)
			}
			var ins []string
			for i := range k {
				ins = append(ins, fmt.Sprintf("%s:%d", c.feed, i))
			}
			return ins
		}
	}
	t.Fatalf("%s: no node %s", c.file, c.feed)
	return nil
}

// Each real graph compiles through --fuse with every embedding column in
// one fused.embedding_layer, and the compiled program (the kernel run in
// the gpu simulator, the rest in the interpreter) computes what the
// GraphDef computes, with random tables, at batch 1 and 16.
func TestRealGraphsEndToEnd(t *testing.T) {
	dir := realgraphs.Dir(t)
	for _, c := range realGraphs {
		t.Run(c.file, func(t *testing.T) {
			path := filepath.Join(dir, c.file)
			f, err := graphdef.Load(path)
			if err != nil {
				t.Fatal(err)
			}
			inputs := c.inputsOf(t, f)
			r, err := Compile(context.Background(), path, Options{Inputs: inputs, Outputs: c.outputs, StopAfter: StageFuse})
			if err != nil {
				t.Fatal(err)
			}
			kinds, total := r.ColumnKinds()
			got := map[string]int64{}
			for _, k := range kinds {
				got[k.Name] = k.Value
			}
			if total != c.columns || len(got) != len(c.kinds) {
				t.Errorf("columns %d %v, want %d %v", total, got, c.columns, c.kinds)
			}
			for k, v := range c.kinds {
				if got[k] != v {
					t.Errorf("columns of kind %s: %d, want %d", k, got[k], v)
				}
			}
			fusedCols, layers := 0, 0
			r.Module.Walk(func(op *textir.Operation) bool {
				if op.Name() == fused.EmbeddingLayerOp {
					l, err := abi.LayerOf(op)
					if err != nil {
						t.Fatal(err)
					}
					layers++
					fusedCols += len(l.Columns)
				}
				if op.Name() == "emb.lookup" || op.Name() == "emb.gather" || op.Name() == "emb.gather_scatter" {
					t.Errorf("lookup %s not fused", op.Loc())
				}
				return true
			})
			if int64(fusedCols) != c.columns {
				t.Errorf("%d columns fused, want %d", fusedCols, c.columns)
			}
			if wantLayers := min(1, int(c.columns)); layers != wantLayers {
				t.Errorf("%d fused layers, want %d", layers, wantLayers)
			}
			if n := countIndicators(r.Module); n != c.indicators {
				t.Errorf("%d indicator columns left in the dense part, want %d", n, c.indicators)
			}
			if c.columns > 0 && (len(r.Kernels) != 1 || len(r.Notes) != 0) {
				t.Errorf("kernels %v, notes %v", r.Kernels, r.Notes)
			}
			var sum strings.Builder
			r.WriteSummary(&sum)
			for _, want := range []string{fmt.Sprintf("  fused            %6d of %d", c.columns, c.columns),
				fmt.Sprintf("  indicator        %6d", c.indicators)} {
				if (c.indicators > 0 || !strings.Contains(want, "indicator")) && !strings.Contains(sum.String(), want) {
					t.Errorf("summary lacks %q:\n%s", want, sum.String())
				}
			}
			if strings.Contains(sum.String(), "not fused:") {
				t.Errorf("summary:\n%s", sum.String())
			}
			if c.columns > 0 {
				fs := r.Stage(StageFuse)
				if got, host := fs.Stat("id-chains"), fs.Stat("host-id-chains"); got != c.inKernel || host != c.hostIDs {
					t.Errorf("ids of %d columns in the kernel and %d before the layer, want %d and %d", got, host, c.inKernel, c.hostIDs)
				}
				if n := int64(strings.Count(sum.String(), "\n  ids before the layer: ")); n != c.hostIDs {
					t.Errorf("the summary says why for %d columns' ids before the layer, want %d:\n%s", n, c.hostIDs, sum.String())
				}
			}

			// The reference: the GraphDef cut at the same tensors.
			x, err := graphdef.Extract(f.Graph, inputs, c.outputs)
			if err != nil {
				t.Fatal(err)
			}
			ctx := all.NewContext()
			ref, err := importer.Import(ctx, x)
			if err != nil {
				t.Fatal(err)
			}
			full, err := importer.Import(ctx, f.Graph)
			if err != nil {
				t.Fatal(err)
			}
			tables, err := tfg.TableInitData(context.Background(), full, nil)
			if err != nil {
				t.Fatal(err)
			}
			vocab := tfgfeeds.Vocab([]string{"", "a", "unknown"}, tables)
			opts := &exec.Options{RandomTables: true, Seed: 42, Tables: tables}
			for _, batch := range []int64{1, 16} {
				feeds := realFeeds(t, ref, batch, vocab, uint64(batch))
				want := runProgram(t, ref, feeds, c.outputs, opts)
				got := runProgram(t, r.Module, feeds, c.outputs, opts)
				for _, o := range c.outputs {
					if err := closeTo(want[o], got[o]); err != nil {
						t.Errorf("batch %d: output %s: %v", batch, o, err)
					}
				}
			}
		})
	}
}

// countIndicators counts the one-hot encodings (tfg.OneHot) left in m.
func countIndicators(m *textir.Operation) int {
	n := 0
	m.Walk(func(op *textir.Operation) bool {
		if op.Name() == "tfg.OneHot" {
			n++
		}
		return true
	})
	return n
}

func runProgram(t *testing.T, m *textir.Operation, feeds map[string]*interp.Tensor, outputs []string, opts *exec.Options) map[string]*interp.Tensor {
	t.Helper()
	out, err := exec.Run(context.Background(), m, feeds, outputs, opts)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// closeTo compares within rtol 1e-5, atol 1e-6 (integers exactly).
func closeTo(want, got *interp.Tensor) error {
	if want == nil || got == nil {
		return fmt.Errorf("missing: want %v, got %v", want, got)
	}
	return got.AllClose(want, 1e-5, 1e-6)
}

// realFeeds feeds every placeholder of m (tfgfeeds.Random): ints in
// [-5, 100) (negative ids).
func realFeeds(t *testing.T, m *textir.Operation, batch int64, vocab []string, seed uint64) map[string]*interp.Tensor {
	t.Helper()
	return tfgfeeds.Random(t, m, batch, vocab, rand.New(rand.NewPCG(seed, 9)), -5)
}
