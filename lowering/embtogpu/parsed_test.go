package embtogpu_test

import (
	"fmt"
	"testing"

	"github.com/recom-compiler/recom/dialects/all"
	"github.com/recom-compiler/recom/dialects/fused/abi"
	"github.com/recom-compiler/recom/frontend/gen"
	"github.com/recom-compiler/recom/frontend/importer"
	"github.com/recom-compiler/recom/interp"
	"github.com/recom-compiler/recom/interp/exec"
)

// inKernel counts the columns of a layer whose ids the kernel computes
// from raw values (a source other than ids).
func inKernel(l *abi.Layer) int {
	n := 0
	for _, c := range l.Columns {
		if c.Source != "" && c.Source != abi.SourceIDs {
			n++
		}
	}
	return n
}

// TestParsedFused: every column of a model served from tf.Example records
// is fused with its id transforms in the kernel, as many as for the same
// model fed feature by feature, and the kernel (on the simulator)
// computes what the emb-level program computes.
func TestParsedFused(t *testing.T) {
	for _, serving := range []string{gen.ServingTFExample, gen.ServingTFExampleV1} {
		t.Run(serving, func(t *testing.T) {
			s, plain := genModel(t, modelCase{preset: "small"})
			ctx := all.NewContext()
			p0, err := importer.Import(ctx, plain.Graph)
			if err != nil {
				t.Fatal(err)
			}
			pf, _ := runPipeline(t, ctx, p0, "lower-emb,simplify-shapes,fuse")
			want := inKernel(layerOf(t, pf))
			s = s.Clone()
			s.Serving = serving
			m, err := gen.Generate(s, gen.Options{Seed: 3})
			if err != nil {
				t.Fatal(err)
			}
			ref, err := importer.Import(ctx, m.Graph)
			if err != nil {
				t.Fatal(err)
			}
			low, _ := runPipeline(t, ctx, ref, "lower-emb,simplify-shapes")
			fz, stats := runPipeline(t, ctx, low, "fuse")
			if got := stats["fuse"]["columns"]; got != int64(s.NumColumns()) {
				t.Errorf("fused %d columns, want %d", got, s.NumColumns())
			}
			l := layerOf(t, fz)
			if got := inKernel(l); got != want || want < s.NumColumns()-2 {
				t.Errorf("%d columns with their ids in the kernel, want %d as for placeholders", got, want)
			}
			vars := map[string]*interp.Tensor{}
			for _, a := range m.Tables {
				vars[a.Name] = a.Tensor
			}
			outputs := []string{gen.EmbeddingNode, m.Output}
			for _, batch := range []int{1, 33} {
				arrays, err := gen.Feeds(s, batch, uint64(batch))
				if err != nil {
					t.Fatal(err)
				}
				feeds := map[string]*interp.Tensor{}
				for _, a := range arrays {
					feeds[a.Name] = a.Tensor
				}
				opts := &exec.Options{Variables: vars}
				wantOut, err := run(ref, feeds, outputs, opts)
				if err != nil {
					t.Fatal(err)
				}
				got, err := run(fz, feeds, outputs, opts)
				if err != nil {
					t.Fatalf("batch %d: %v", batch, err)
				}
				for _, o := range outputs {
					if err := closeTo(wantOut[o], got[o], l.Columns); err != nil {
						t.Fatal(fmt.Errorf("batch %d: output %s: %v", batch, o, err))
					}
				}
			}
		})
	}
}
