package tfgtoemb_test

import (
	"fmt"
	"testing"

	"github.com/recom-compiler/recom/dialects/all"
	"github.com/recom-compiler/recom/dialects/emb"
	"github.com/recom-compiler/recom/frontend/gen"
	"github.com/recom-compiler/recom/frontend/importer"
	"github.com/recom-compiler/recom/interp"
	"github.com/recom-compiler/recom/interp/exec"
	"github.com/recom-compiler/recom/textir"
)

// TestParsedModels: a model served from tf.Example records (ParseExampleV2
// and TF1's ParseExample) lowers every column with the kind and the id
// transforms of the same model fed feature by feature (the transforms as
// emb ops after the parse's emb.from_sparse), and computes what the tfg
// program computes.
func TestParsedModels(t *testing.T) {
	for _, preset := range []string{"small", "E"} {
		for _, serving := range []string{gen.ServingTFExample, gen.ServingTFExampleV1} {
			t.Run(preset+"/"+serving, func(t *testing.T) {
				c := genCase{preset: preset}
				if preset == "E" {
					c.columns = 20
				}
				s, plain := genModel(t, c)
				ctx := all.NewContext()
				ref0, err := importer.Import(ctx, plain.Graph)
				if err != nil {
					t.Fatal(err)
				}
				_, want, _ := lower(t, ctx, ref0, "")
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
				low, stats, remarks := lower(t, ctx, ref, "")
				if err := textir.Verify(ctx, low); err != nil {
					t.Fatal(err)
				}
				for _, k := range emb.ColumnKinds {
					key := "columns-" + string(k)
					if stats[key] != want[key] {
						t.Errorf("%s = %d, want %d as for placeholders (remarks %v)", key, stats[key], want[key], remarks)
					}
				}
				if stats["columns-lowered"] != int64(s.NumColumns()) {
					t.Errorf("%d of %d columns lowered: %v", stats["columns-lowered"], s.NumColumns(), remarks)
				}
				structural(t, low)
				low.Walk(func(op *textir.Operation) bool {
					switch op.Name() {
					case "tfg.StringToHashBucketFast", "tfg.AsString", "tfg.LookupTableFindV2", "tfg.SelectV2":
						t.Errorf("id transform %s stays in tfg", op.Name())
					}
					return true
				})
				vars := map[string]*interp.Tensor{}
				for _, a := range m.Tables {
					vars[a.Name] = a.Tensor
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
					compare(t, fmt.Sprintf("batch %d", batch), ref, low, feeds, []string{gen.EmbeddingNode, m.Output}, &exec.Options{Variables: vars})
				}
			})
		}
	}
}
