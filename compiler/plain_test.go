package compiler

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/recom-compiler/recom/dialects/all"
	"github.com/recom-compiler/recom/dialects/fused"
	"github.com/recom-compiler/recom/dialects/fused/abi"
	"github.com/recom-compiler/recom/frontend/gen"
	"github.com/recom-compiler/recom/frontend/graphdef"
	"github.com/recom-compiler/recom/frontend/importer"
	"github.com/recom-compiler/recom/interp"
	"github.com/recom-compiler/recom/interp/exec"
	"github.com/recom-compiler/recom/textir"
)

// plainModels are models built from tf.nn's lookups without feature
// columns (recom gen --lookups): every form, on every table style, whole
// and partitioned by both strategies, in three TensorFlow versions' graphs.
var plainModels = map[string]string{
	"tf1.15-variable-mod": `{"tf": "1.15", "lookups": [
		{"count": 1, "api": "embedding_lookup", "rows": 13, "dim": 4, "partitions": 3},
		{"count": 1, "api": "embedding_lookup", "rows": 13, "dim": 8, "bag": 3, "combiner": "mean", "partitions": 3},
		{"count": 1, "api": "embedding_lookup_sparse", "rows": 20, "dim": 4, "combiner": "sqrtn", "partitions": 2},
		{"count": 1, "api": "embedding_lookup_sparse", "rows": 20, "dim": 4, "combiner": "mean", "weighted": true, "partitions": 2},
		{"count": 1, "api": "safe_embedding_lookup_sparse", "rows": 20, "dim": 8, "combiner": "sum", "partitions": 4}]}`,
	"tf2.6-resource-div": `{"tf": "2.6", "lookups": [
		{"count": 1, "api": "embedding_lookup", "rows": 17, "dim": 4, "tables": "resource", "partitions": 3, "partition_strategy": "div"},
		{"count": 2, "api": "embedding_lookup", "rows": 11, "dim": 4, "bag": 2, "combiner": "sum", "ids": "int32", "tables": "resource"},
		{"count": 1, "api": "embedding_lookup_sparse", "rows": 20, "dim": 16, "combiner": "sum", "weighted": true, "tables": "resource", "partitions": 2, "partition_strategy": "div"},
		{"count": 1, "api": "safe_embedding_lookup_sparse", "rows": 20, "dim": 4, "combiner": "mean", "weighted": true, "tables": "resource", "partitions": 3, "partition_strategy": "div"}]}`,
	"tf2.16-mixed": `{"tf": "2.16", "lookups": [
		{"count": 1, "api": "embedding_lookup", "rows": 9, "dim": 4, "tables": "const"},
		{"count": 1, "api": "embedding_lookup_sparse", "rows": 20, "dim": 4, "combiner": "mean"},
		{"count": 1, "api": "embedding_lookup_sparse", "rows": 20, "dim": 4, "combiner": "sqrtn", "tables": "resource"},
		{"count": 1, "api": "embedding_lookup_sparse", "rows": 20, "dim": 4, "combiner": "sum", "weighted": true, "tables": "const", "partitions": 2},
		{"count": 1, "api": "embedding_lookup_sparse", "rows": 20, "dim": 8, "combiner": "mean", "weighted": true, "partitions": 3},
		{"count": 1, "api": "safe_embedding_lookup_sparse", "rows": 20, "dim": 4, "combiner": "sqrtn", "tables": "resource"}]}`,
}

// Plain-lookup models compile into one fused layer holding every lookup,
// and the fused program (the kernel in the simulator) computes what the
// graph computes on feeds that recom gen --feeds draws for the graph.
func TestPlainLookupModels(t *testing.T) {
	for name, spec := range plainModels {
		t.Run(name, func(t *testing.T) {
			s, err := gen.ParseLookupSpec([]byte(spec), name)
			if err != nil {
				t.Fatal(err)
			}
			m, err := gen.GenerateLookups(s, gen.Options{Seed: 2})
			if err != nil {
				t.Fatal(err)
			}
			path := filepath.Join(t.TempDir(), "m.pbtxt")
			if err := graphdef.Write(path, m.Graph, false); err != nil {
				t.Fatal(err)
			}
			want := 0
			for _, l := range s.Lookups {
				want += l.Count
			}
			r, err := Compile(context.Background(), path, Options{Outputs: []string{m.Output}, StopAfter: StageFuse})
			if err != nil {
				t.Fatal(err)
			}
			_, total := r.ColumnKinds()
			cols := 0
			r.Module.Walk(func(op *textir.Operation) bool {
				if op.Name() == fused.EmbeddingLayerOp {
					l, err := abi.LayerOf(op)
					if err != nil {
						t.Fatal(err)
					}
					cols += len(l.Columns)
				}
				return true
			})
			var sum strings.Builder
			r.WriteSummary(&sum)
			if total != int64(want) || cols != want || len(r.Kernels) != 1 {
				t.Fatalf("%d columns found, %d fused, %d kernels; want %d in one:\n%s", total, cols, len(r.Kernels), want, sum.String())
			}
			ctx := all.NewContext()
			x, err := graphdef.Extract(m.Graph, nil, []string{m.Output})
			if err != nil {
				t.Fatal(err)
			}
			ref, err := importer.Import(ctx, x)
			if err != nil {
				t.Fatal(err)
			}
			vars := map[string]*interp.Tensor{}
			for _, a := range m.Tables {
				vars[a.Name] = a.Tensor
			}
			opts := &exec.Options{Variables: vars}
			for _, batch := range []int{1, 5, 40} {
				arrays, _, err := gen.GraphFeeds(context.Background(), ref, gen.GraphFeedOptions{Batch: batch, Seed: uint64(batch)})
				if err != nil {
					t.Fatal(err)
				}
				feeds := map[string]*interp.Tensor{}
				for _, a := range arrays {
					feeds[a.Name] = a.Tensor
				}
				w := runProgram(t, ref, feeds, []string{m.Output}, opts)
				g := runProgram(t, r.Module, feeds, []string{m.Output}, opts)
				if err := closeTo(w[m.Output], g[m.Output]); err != nil {
					t.Errorf("batch %d: %v", batch, err)
				}
			}
		})
	}
}

// A single embedding_lookup_sparse has the rows of its last id, as
// TensorFlow's: a batch whose last rows have no ids gives fewer rows.
func TestPlainTrailingEmptyRows(t *testing.T) {
	for _, tf := range []string{"1.15", "2.16"} {
		t.Run(tf, func(t *testing.T) {
			s, err := gen.ParseLookupSpec([]byte(fmt.Sprintf(`{"tf": %q, "lookups": [
				{"count": 1, "api": "embedding_lookup_sparse", "rows": 20, "dim": 4, "combiner": "mean"}]}`, tf)), "spec")
			if err != nil {
				t.Fatal(err)
			}
			m, err := gen.GenerateLookups(s, gen.Options{Seed: 2})
			if err != nil {
				t.Fatal(err)
			}
			dir := t.TempDir()
			path := filepath.Join(dir, "m.pbtxt")
			if err := graphdef.Write(path, m.Graph, false); err != nil {
				t.Fatal(err)
			}
			r, err := Compile(context.Background(), path, Options{Outputs: []string{m.Output}, StopAfter: StageLowerEmb})
			if err != nil {
				t.Fatal(err)
			}
			ctx := all.NewContext()
			ref, err := importer.Import(ctx, m.Graph)
			if err != nil {
				t.Fatal(err)
			}
			vars := map[string]*interp.Tensor{m.Tables[0].Name: m.Tables[0].Tensor}
			opts := &exec.Options{Variables: vars}
			for _, c := range []struct {
				rows []int64 // the row of each id
				want int64   // rows of the result
			}{{[]int64{0, 0, 1, 3}, 4}, {[]int64{0, 2}, 3}, {[]int64{1}, 2}, {nil, 0}} {
				var ind, vals []int64
				for j, row := range c.rows {
					ind = append(ind, row, int64(j))
					vals = append(vals, int64(3*j%20))
				}
				feeds := map[string]*interp.Tensor{
					"sp_ids_0/indices": interp.Must(interp.New([]int64{int64(len(c.rows)), 2}, ind)),
					"sp_ids_0/values":  interp.Must(interp.New([]int64{int64(len(vals))}, vals)),
				}
				w := runProgram(t, ref, feeds, []string{m.Output}, opts)
				g := runProgram(t, r.Module, feeds, []string{m.Output}, opts)
				if got := g[m.Output].Dim(0); got != c.want || w[m.Output].Dim(0) != c.want {
					t.Errorf("ids in rows %v: %d rows (TensorFlow %d), want %d", c.rows, got, w[m.Output].Dim(0), c.want)
				}
				if err := closeTo(w[m.Output], g[m.Output]); err != nil {
					t.Errorf("ids in rows %v: %v", c.rows, err)
				}
			}
		})
	}
}

// TF 2.16's weighted means divide with DivNoNan: the fused kernel gives 0
// for a bag whose weights sum to 0, as the graph does.
func TestPlainDivNoNaN(t *testing.T) {
	s, err := gen.ParseLookupSpec([]byte(`{"tf": "2.16", "lookups": [
		{"count": 1, "api": "embedding_lookup_sparse", "rows": 20, "dim": 4, "combiner": "mean", "weighted": true},
		{"count": 1, "api": "embedding_lookup_sparse", "rows": 20, "dim": 8, "combiner": "sqrtn", "weighted": true, "tables": "resource"}]}`), "spec")
	if err != nil {
		t.Fatal(err)
	}
	m, err := gen.GenerateLookups(s, gen.Options{Seed: 2})
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "m.pbtxt")
	if err := graphdef.Write(path, m.Graph, false); err != nil {
		t.Fatal(err)
	}
	r, err := Compile(context.Background(), path, Options{Outputs: []string{m.Output}, StopAfter: StageFuse})
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Kernels) != 1 {
		t.Fatalf("kernels %v", r.Kernels)
	}
	ref, err := importer.Import(all.NewContext(), m.Graph)
	if err != nil {
		t.Fatal(err)
	}
	vars := map[string]*interp.Tensor{}
	for _, a := range m.Tables {
		vars[a.Name] = a.Tensor
	}
	// Rows 0 and 2: weights that sum to 0 (mean) and that are all 0
	// (sqrtn); row 1 ordinary.
	ind := []int64{0, 0, 0, 1, 1, 0, 1, 1, 2, 0, 2, 1}
	feeds := map[string]*interp.Tensor{}
	for k, w := range [][]float32{{1.5, -1.5, 2, 0.5, 0.25, -0.25}, {3, 4, 2, 0.5, 0, 0}} {
		sp := fmt.Sprintf("sp_ids_%d", k)
		feeds[sp+"/indices"] = interp.Must(interp.New([]int64{6, 2}, ind))
		feeds[sp+"/values"] = interp.Vector[int64](3, 7, 7, 19, 0, 5)
		feeds[fmt.Sprintf("sp_weights_%d/values", k)] = interp.Vector(w...)
	}
	opts := &exec.Options{Variables: vars}
	want := runProgram(t, ref, feeds, []string{m.Output}, opts)
	got := runProgram(t, r.Module, feeds, []string{m.Output}, opts)
	if err := closeTo(want[m.Output], got[m.Output]); err != nil {
		t.Fatal(err)
	}
	o := got[m.Output].Float32s()
	if o[0] != 0 || o[2*12+4] != 0 {
		t.Errorf("rows whose weights sum to 0: %v, %v, want zeros", o[:4], o[2*12+4:2*12+12])
	}
}
