package tfgtoemb_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"strings"
	"testing"

	"github.com/recom-compiler/recom/dialects/all"
	"github.com/recom-compiler/recom/dialects/tfg"
	"github.com/recom-compiler/recom/frontend/gen"
	"github.com/recom-compiler/recom/frontend/graphdef"
	"github.com/recom-compiler/recom/frontend/importer"
	"github.com/recom-compiler/recom/internal/realgraphs"
	"github.com/recom-compiler/recom/internal/tfgfeeds"
	"github.com/recom-compiler/recom/interp"
	"github.com/recom-compiler/recom/interp/exec"
	"github.com/recom-compiler/recom/lowering/pass"
	"github.com/recom-compiler/recom/textir"
)

// lower runs --lower-emb (with options) on a clone of m and returns the
// result, the statistics and the remarks.
func lower(tb testing.TB, ctx *textir.Context, m *textir.Operation, opts string) (*textir.Operation, map[string]int64, []string) {
	tb.Helper()
	text := "lower-emb"
	if opts != "" {
		text += "{" + opts + "}"
	}
	pm, err := pass.ParsePipeline(text)
	if err != nil {
		tb.Fatal(err)
	}
	var remarks []string
	pm.Config.Diag = func(d *textir.Diagnostic) { remarks = append(remarks, d.Error()) }
	out := ctx.Clone(m, nil)
	if err := pm.Run(ctx, out); err != nil {
		tb.Fatal(err)
	}
	return out, pm.Statistics()["lower-emb"], remarks
}

// run runs a program, returning its outputs or its error.
func run(m *textir.Operation, feeds map[string]*interp.Tensor, outputs []string, opts *exec.Options) (map[string]*interp.Tensor, error) {
	return exec.Run(context.Background(), m, feeds, outputs, opts)
}

// compare checks that the lowered program computes what the tfg program
// computes: the same outputs within rtol 1e-5, or both an error.
func compare(t *testing.T, what string, ref, low *textir.Operation, feeds map[string]*interp.Tensor, outputs []string, opts *exec.Options) {
	t.Helper()
	want, err1 := run(ref, feeds, outputs, opts)
	got, err2 := run(low, feeds, outputs, opts)
	if err1 != nil || err2 != nil {
		if (err1 == nil) != (err2 == nil) {
			t.Fatalf("%s: tfg program error %v, lowered program error %v", what, err1, err2)
		}
		return
	}
	for _, o := range outputs {
		if err := got[o].AllClose(want[o], 1e-5, 1e-6); err != nil {
			t.Fatalf("%s: output %s: %v", what, o, err)
		}
	}
}

// structural checks what must be gone from the lowered columns.
func structural(t *testing.T, m *textir.Operation) {
	t.Helper()
	m.Walk(func(op *textir.Operation) bool {
		switch n := op.Name(); {
		case n == "tfg.Unique", n == "tfg.SparseFillEmptyRows", strings.HasPrefix(n, "tfg.SparseSegment"), n == "tfg.Select",
			n == "tfg.ResourceGather":
			t.Errorf("%s %q remains", n, tfg.NodeName(op))
		case n == "tfg.GatherV2" || n == "tfg.Gather":
			if p := op.Operand(0).DefiningOp(); p != nil {
				for p.Name() == "tfg.Identity" && p.Operand(0).DefiningOp() != nil {
					p = p.Operand(0).DefiningOp()
				}
				if p.Name() == "tfg.VariableV2" || p.Name() == "tfg.VarHandleOp" || p.Name() == "tfg.ReadVariableOp" {
					t.Errorf("%s %q of a table remains", n, tfg.NodeName(op))
				}
			}
		}
		return true
	})
}

type genCase struct {
	preset  string
	columns int    // scale to this many columns (0: as is)
	tables  string // table style override
}

func genCases() []genCase {
	cs := []genCase{{preset: "small"}, {preset: "micro", columns: 6}, {preset: "probe", columns: 8}, {preset: "E", columns: 12}, {preset: "F", columns: 12}}
	for _, st := range []string{"variable", "resource", "const"} {
		cs = append(cs, genCase{preset: "small", tables: st})
	}
	return cs
}

func genModel(tb testing.TB, c genCase) (*gen.Spec, *gen.Model) {
	tb.Helper()
	s, err := gen.Preset(c.preset)
	if err != nil {
		tb.Fatal(err)
	}
	if c.columns > 0 {
		if s, err = s.Scale(c.columns); err != nil {
			tb.Fatal(err)
		}
	}
	// Exercise empty rows and invalid (negative, out-of-range) ids in every group.
	for i := range s.Groups {
		f := &s.Groups[i].Feed
		if s.Groups[i].Kind != gen.Bucketized {
			cov := 0.8
			f.Coverage = &cov
		}
		if f.Invalid == 0 {
			f.Invalid = 0.1
		}
	}
	m, err := gen.Generate(s, gen.Options{Seed: 3, Tables: gen.TableStyle(c.tables)})
	if err != nil {
		tb.Fatal(err)
	}
	return s, m
}

func TestGeneratedModels(t *testing.T) {
	for _, c := range genCases() {
		t.Run(fmt.Sprintf("%s-%d-%s", c.preset, c.columns, c.tables), func(t *testing.T) {
			s, m := genModel(t, c)
			ctx := all.NewContext()
			ref, err := importer.Import(ctx, m.Graph)
			if err != nil {
				t.Fatal(err)
			}
			low, stats, remarks := lower(t, ctx, ref, "")
			if err := textir.Verify(ctx, low); err != nil {
				t.Fatal(err)
			}
			if got := stats["columns"]; got != int64(s.NumColumns()) {
				t.Errorf("columns = %d, want %d", got, s.NumColumns())
			}
			if stats["columns-unmatched"] != 0 {
				t.Errorf("unmatched columns: %v", remarks)
			}
			structural(t, low)
			vars := map[string]*interp.Tensor{}
			for _, a := range m.Tables {
				vars[a.Name] = a.Tensor
			}
			outputs := []string{gen.EmbeddingNode}
			if m.Output != gen.EmbeddingNode {
				outputs = append(outputs, m.Output)
			}
			for _, batch := range []int{1, 7, 32} {
				arrays, err := gen.Feeds(s, batch, uint64(batch))
				if err != nil {
					t.Fatal(err)
				}
				feeds := map[string]*interp.Tensor{}
				for _, a := range arrays {
					feeds[a.Name] = a.Tensor
				}
				compare(t, fmt.Sprintf("batch %d", batch), ref, low, feeds, outputs, &exec.Options{Variables: vars})
			}
		})
	}
}

// Every column kind and table style of the small bundled model lowers, and
// the kinds are reported.
func TestKinds(t *testing.T) {
	_, m := genModel(t, genCase{preset: "small"})
	ctx := all.NewContext()
	ref, err := importer.Import(ctx, m.Graph)
	if err != nil {
		t.Fatal(err)
	}
	_, stats, _ := lower(t, ctx, ref, "")
	want := map[string]int64{"columns-hashed_string": 4, "columns-hashed_int": 3, "columns-split_string": 3, "columns-identity": 4,
		"columns-vocabulary": 3, "columns-bucketized": 3, "columns-weighted": 2, "columns-shared": 2, "columns-unmatched": 0, "columns-lowered": 24,
		"lookups-to-gather": 3}
	for k, v := range want {
		if stats[k] != v {
			t.Errorf("%s = %d, want %d", k, stats[k], v)
		}
	}
	if stats["tfg-ops-after"] >= stats["tfg-ops-before"] || stats["removed-unique"] != 24 || stats["removed-by-range-analysis"] == 0 {
		t.Errorf("statistics: %v", stats)
	}
}

// Each option switches its simplification off and keeps the meaning.
func TestOptions(t *testing.T) {
	s, m := genModel(t, genCase{preset: "small"})
	ctx := all.NewContext()
	ref, err := importer.Import(ctx, m.Graph)
	if err != nil {
		t.Fatal(err)
	}
	vars := map[string]*interp.Tensor{}
	for _, a := range m.Tables {
		vars[a.Name] = a.Tensor
	}
	arrays, err := gen.Feeds(s, 9, 5)
	if err != nil {
		t.Fatal(err)
	}
	feeds := map[string]*interp.Tensor{}
	for _, a := range arrays {
		feeds[a.Name] = a.Tensor
	}
	for _, c := range []struct {
		opts string
		zero []string // statistics that must be 0
		pos  []string // statistics that must be > 0
	}{
		{"", nil, []string{"removed-by-range-analysis", "lookups-to-gather", "removed-unique"}},
		{"no-range-analysis", []string{"removed-by-range-analysis"}, []string{"lookups-to-gather-scatter"}},
		{"no-lookup-rewrite", []string{"lookups-to-gather", "lookups-to-gather-scatter"}, []string{"removed-by-range-analysis"}},
		{"no-unique-removal", []string{"removed-unique", "columns-lowered"}, []string{"columns"}},
		{"no-identity-removal", []string{"removed-by-identity-removal"}, []string{"columns-lowered"}},
		{"no-range-analysis no-lookup-rewrite no-unique-removal no-identity-removal", []string{"columns-lowered", "removed-by-range-analysis"}, []string{"columns"}},
	} {
		t.Run(c.opts, func(t *testing.T) {
			low, stats, _ := lower(t, ctx, ref, c.opts)
			for _, k := range c.zero {
				if stats[k] != 0 {
					t.Errorf("%s = %d, want 0", k, stats[k])
				}
			}
			for _, k := range c.pos {
				if stats[k] == 0 {
					t.Errorf("%s = 0, want > 0", k)
				}
			}
			compare(t, c.opts, ref, low, feeds, []string{m.Output}, &exec.Options{Variables: vars})
		})
	}
}

// realCase is an inference extraction of a real graph.
type realCase struct {
	file     string
	iterator string
	inputs   []string
	outputs  []string
	columns  int64
}

var realCases = []realCase{
	{file: "census_wide_deep_tf1.pbtxt", iterator: "IteratorGetNext",
		outputs: []string{"dnn/input_from_feature_columns/input_layer/concat", "dnn/logits/BiasAdd", "head/predictions/logistic"}, columns: 9},
	{file: "census_wide_deep_tf2_resource.pbtxt", inputs: fifoInputs(), outputs: []string{"head/predictions/logistic"}, columns: 8},
	{file: "criteo_bucketized_tiles.pbtxt", iterator: "IteratorGetNext", outputs: []string{"input_layer/concat", "dense/BiasAdd"}, columns: 0},
}

func fifoInputs() []string {
	var ins []string
	for i := 1; i <= 16; i++ {
		ins = append(ins, fmt.Sprintf("fifo_queue_DequeueMany:%d", i))
	}
	return ins
}

func TestRealGraphs(t *testing.T) {
	for _, c := range realCases {
		t.Run(c.file, func(t *testing.T) {
			f, err := graphdef.Load(filepath.Join(realgraphs.Dir(t), c.file))
			if err != nil {
				t.Fatal(err)
			}
			ins := c.inputs
			if c.iterator != "" {
				for _, n := range f.Graph.GetNode() {
					if n.GetName() == c.iterator {
						k, err := graphdef.NumOutputs(n)
						if err != nil {
							t.Fatal(err)
						}
						for i := range k {
							ins = append(ins, fmt.Sprintf("%s:%d", c.iterator, i))
						}
					}
				}
			}
			x, err := graphdef.Extract(f.Graph, ins, c.outputs)
			if err != nil {
				t.Fatal(err)
			}
			ctx := all.NewContext()
			full, err := importer.Import(ctx, f.Graph)
			if err != nil {
				t.Fatal(err)
			}
			tables, err := tfg.TableInitData(context.Background(), full, nil)
			if err != nil {
				t.Fatal(err)
			}
			ref, err := importer.Import(ctx, x)
			if err != nil {
				t.Fatal(err)
			}
			low, stats, remarks := lower(t, ctx, ref, "")
			if err := textir.Verify(ctx, low); err != nil {
				t.Fatal(err)
			}
			if stats["columns"] != c.columns || stats["columns-unmatched"] != 0 {
				t.Errorf("columns = %d (unmatched %d), want %d: %v", stats["columns"], stats["columns-unmatched"], c.columns, remarks)
			}
			if c.columns > 0 {
				structural(t, low)
			}
			vocab := tfgfeeds.Vocab([]string{"", "a", "unknown"}, tables)
			for _, batch := range []int64{1, 5, 16} {
				feeds := randomFeeds(t, ref, batch, vocab, uint64(batch))
				compare(t, fmt.Sprintf("batch %d", batch), ref, low, feeds, c.outputs, &exec.Options{RandomTables: true, Seed: 42, Tables: tables})
			}
		})
	}
}

// randomFeeds feeds every placeholder (tfgfeeds.Random): ints in [-5, 100)
// (negative ids).
func randomFeeds(tb testing.TB, m *textir.Operation, batch int64, vocab []string, seed uint64) map[string]*interp.Tensor {
	tb.Helper()
	return tfgfeeds.Random(tb, m, batch, vocab, rand.New(rand.NewPCG(seed, 7)), -5)
}
