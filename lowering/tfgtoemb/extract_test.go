package tfgtoemb_test

import (
	"fmt"
	"path/filepath"
	"testing"

	"github.com/recom-compiler/recom/dialects/all"
	"github.com/recom-compiler/recom/dialects/tfg"
	"github.com/recom-compiler/recom/frontend/gen"
	"github.com/recom-compiler/recom/frontend/graphdef"
	"github.com/recom-compiler/recom/frontend/importer"
	"github.com/recom-compiler/recom/interp"
	"github.com/recom-compiler/recom/interp/exec"
	"github.com/recom-compiler/recom/textir"
)

// The small model cut at its embedding layer (Outputs =
// input_layer/concat, as `recom compile --outputs` does) lowers exactly like
// the whole graph: extraction keeps the vocabulary tables' initializers, so
// all 24 columns, the vocabulary ones included, are recognised, and the
// lowered program computes what the extracted tfg program and the whole
// tfg program compute.
func TestExtractedSmall(t *testing.T) {
	s, m := genModel(t, genCase{preset: "small"})
	bundled, err := graphdef.Load(filepath.Join("..", "..", "examples", "small.pbtxt"))
	if err != nil {
		t.Fatal(err)
	}
	outputs := []string{gen.EmbeddingNode}
	for _, c := range []struct {
		name  string
		graph *graphdef.File
	}{
		{"generated", &graphdef.File{Graph: m.Graph}},
		{"examples/small.pbtxt", bundled},
	} {
		t.Run(c.name, func(t *testing.T) {
			x, err := graphdef.Extract(c.graph.Graph, nil, outputs)
			if err != nil {
				t.Fatal(err)
			}
			ctx := all.NewContext()
			whole, err := importer.Import(ctx, c.graph.Graph)
			if err != nil {
				t.Fatal(err)
			}
			ref, err := importer.Import(ctx, x)
			if err != nil {
				t.Fatal(err)
			}
			_, wholeStats, _ := lower(t, ctx, whole, "")
			low, stats, remarks := lower(t, ctx, ref, "")
			if err := textir.Verify(ctx, low); err != nil {
				t.Fatal(err)
			}
			for _, k := range []string{"columns", "columns-lowered", "columns-unmatched", "columns-vocabulary",
				"lookups-to-gather", "lookups-to-gather-scatter", "removed-unique", "removed-by-range-analysis"} {
				if stats[k] != wholeStats[k] {
					t.Errorf("%s = %d, want %d as for the whole graph", k, stats[k], wholeStats[k])
				}
			}
			if stats["columns-lowered"] != int64(s.NumColumns()) || stats["columns-unmatched"] != 0 || stats["columns-vocabulary"] != 3 {
				t.Errorf("columns lowered %d, unmatched %d, vocabulary %d; want %d, 0, 3: %v",
					stats["columns-lowered"], stats["columns-unmatched"], stats["columns-vocabulary"], s.NumColumns(), remarks)
			}
			structural(t, low)
			vars := map[string]*interp.Tensor{}
			for _, a := range m.Tables {
				vars[a.Name] = a.Tensor
			}
			fed := map[string]bool{}
			ref.Walk(func(op *textir.Operation) bool {
				if op.Name() == "tfg.Placeholder" {
					fed[tfg.NodeName(op)] = true
				}
				return true
			})
			for _, batch := range []int{1, 7, 32} {
				arrays, err := gen.Feeds(s, batch, uint64(batch))
				if err != nil {
					t.Fatal(err)
				}
				// Feed what the cut graph reads (not the dense features).
				feeds := map[string]*interp.Tensor{}
				for _, a := range arrays {
					if fed[a.Name] {
						feeds[a.Name] = a.Tensor
					}
				}
				if len(feeds) != len(fed) || len(feeds) < s.NumColumns() {
					t.Fatalf("%d feeds for %d placeholders and %d columns", len(feeds), len(fed), s.NumColumns())
				}
				what := fmt.Sprintf("batch %d", batch)
				opts := &exec.Options{Variables: vars}
				// compare accepts two errors; here both programs must run.
				if _, err := run(low, feeds, outputs, opts); err != nil {
					t.Fatalf("%s: lowered program: %v", what, err)
				}
				compare(t, what, ref, low, feeds, outputs, opts)
				compare(t, what+" (whole tfg program)", whole, low, feeds, outputs, opts)
			}
		})
	}
}
