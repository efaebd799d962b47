package foldbn_test

import (
	"context"
	"math"
	"os"
	"strings"
	"testing"

	"github.com/recom-compiler/recom/dialects/all"
	"github.com/recom-compiler/recom/frontend/gen"
	"github.com/recom-compiler/recom/frontend/importer"
	"github.com/recom-compiler/recom/interp"
	"github.com/recom-compiler/recom/interp/exec"
	"github.com/recom-compiler/recom/lowering/foldbn"
	"github.com/recom-compiler/recom/textir"
)

// The generated TF1 two-tower model with batch normalization after each
// hidden Relu (lit Inputs/dssm_tf1.json): Fold folds both towers' batch
// norms into the next dense layer, the batch norm's x*s+t is gone, and the
// folded program equals the GraphDef in the interpreter on random feeds
// and random trained-looking parameters (gamma, beta, moving statistics).
func TestFoldTwoTowersInterp(t *testing.T) {
	path := "../../lit-tests/Conversion/EmbToGpu/Inputs/dssm_tf1.json"
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	spec, err := gen.ParseSpec(data, path)
	if err != nil {
		t.Fatal(err)
	}
	for i := range spec.Towers {
		spec.Towers[i].BatchNorm = true
	}
	g, err := gen.Generate(spec, gen.Options{Seed: 11})
	if err != nil {
		t.Fatal(err)
	}
	opts := &exec.Options{Variables: map[string]*interp.Tensor{}}
	for _, a := range g.Tables {
		opts.Variables[a.Name] = a.Tensor
	}
	ref, err := importer.Import(all.NewContext(), g.Graph)
	if err != nil {
		t.Fatal(err)
	}
	ctx := all.NewContext()
	m, err := importer.Import(ctx, g.Graph)
	if err != nil {
		t.Fatal(err)
	}
	if n := foldbn.Fold(m, ctx); n != 2 {
		t.Fatalf("Fold folded %d batch norms, want 2 (one a tower)", n)
	}
	if err := textir.Verify(ctx, m); err != nil {
		t.Fatalf("the folded module does not verify: %v", err)
	}
	m.Walk(func(op *textir.Operation) bool {
		if n, ok := op.Attr("_mlir_name").(textir.StringAttr); ok && strings.HasSuffix(n.Value, "batchnorm/add_1") {
			t.Errorf("%s (node %q) is still in the folded program", op.Name(), n.Value)
		}
		return true
	})
	if n := foldbn.Fold(m, ctx); n != 0 {
		t.Errorf("a second Fold folded %d more", n)
	}
	outs := []string{gen.PredictionNode, "user", "item/item", "dense_1/BiasAdd"}
	for i, b := range []int{1, 7, 33} {
		arrays, err := gen.Feeds(spec, b, uint64(90+i))
		if err != nil {
			t.Fatal(err)
		}
		feeds := map[string]*interp.Tensor{}
		for _, a := range arrays {
			feeds[a.Name] = a.Tensor
		}
		want, err := exec.Run(context.Background(), ref, feeds, outs, opts)
		if err != nil {
			t.Fatal(err)
		}
		got, err := exec.Run(context.Background(), m, feeds, outs, opts)
		if err != nil {
			t.Fatalf("B=%d: the folded program: %v", b, err)
		}
		for _, name := range outs {
			w, g := want[name].Float32s(), got[name].Float32s()
			if len(w) == 0 || len(w) != len(g) {
				t.Fatalf("B=%d %s: %d values, want %d", b, name, len(g), len(w))
			}
			for j := range w {
				if d := math.Abs(float64(g[j] - w[j])); d > 1e-5+1e-5*math.Abs(float64(w[j])) {
					t.Errorf("B=%d %s[%d] = %g, want %g", b, name, j, g[j], w[j])
					break
				}
			}
		}
	}
}
