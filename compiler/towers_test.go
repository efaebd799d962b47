package compiler

import (
	"context"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/recom-compiler/recom/backend/llc/llctest"
	"github.com/recom-compiler/recom/dialects/all"
	"github.com/recom-compiler/recom/dialects/fused"
	"github.com/recom-compiler/recom/dialects/fused/abi"
	"github.com/recom-compiler/recom/dialects/tfg"
	"github.com/recom-compiler/recom/frontend/gen"
	"github.com/recom-compiler/recom/frontend/importer"
	"github.com/recom-compiler/recom/interp"
	"github.com/recom-compiler/recom/interp/exec"
	"github.com/recom-compiler/recom/textir"
)

// A two-tower (DSSM) model fuses each tower's embedding layer into a
// kernel of its own, every column with its ids in the kernel, whether
// --simplify-shapes removes the columns' reshapes or leaves them with
// their shape operands rebuilt as shape.from_extents (what it does when it
// cannot prove them no-ops, as in real TF2 two-tower exports), and the
// compiled program (the kernels in the gpu simulator) computes what the
// GraphDef computes, at batch 1 and 17.
func TestTwoTowers(t *testing.T) {
	s, err := gen.Preset("dssm")
	if err != nil {
		t.Fatal(err)
	}
	for i := range s.Groups {
		// Empty rows and misses in every column that can have them.
		if s.Groups[i].Kind != gen.Bucketized {
			cov := 0.8
			s.Groups[i].Feed.Coverage = &cov
		}
	}
	m, err := gen.Generate(s, gen.Options{Seed: 5})
	if err != nil {
		t.Fatal(err)
	}
	text, err := gen.MarshalGraph(m.Graph)
	if err != nil {
		t.Fatal(err)
	}
	vars := map[string]*interp.Tensor{}
	for _, a := range m.Tables {
		vars[a.Name] = a.Tensor
	}
	outputs := []string{gen.PredictionNode, gen.TowerEmbeddingNode("user"), gen.TowerEmbeddingNode("item")}
	ctx := all.NewContext()
	ref, err := importer.Import(ctx, m.Graph)
	if err != nil {
		t.Fatal(err)
	}
	for _, simplify := range []string{"", "no-reshape-removal=true"} {
		t.Run("simplify-shapes="+simplify, func(t *testing.T) {
			r, err := CompileBytes(context.Background(), "dssm.pbtxt", text, Options{Outputs: outputs, StopAfter: StageFuse,
				PassOptions: map[string]string{"simplify-shapes": simplify}})
			if err != nil {
				t.Fatal(err)
			}
			removed := int64(-1)
			for _, st := range r.Stage(StageSimplifyShapes).Stats {
				if st.Name == "reshapes-removed" {
					removed = st.Value
				}
			}
			if (simplify == "") != (removed > 0) {
				t.Fatalf("simplify-shapes removed %d reshapes", removed)
			}
			layers, cols, inKernel := 0, 0, 0
			r.Module.Walk(func(op *textir.Operation) bool {
				switch op.Name() {
				case fused.EmbeddingLayerOp:
					l, err := abi.LayerOf(op)
					if err != nil {
						t.Fatal(err)
					}
					layers++
					cols += len(l.Columns)
					for _, c := range l.Columns {
						if len(c.Transforms) > 0 {
							inKernel++
						}
					}
				case "emb.lookup", "emb.gather", "emb.gather_scatter":
					t.Errorf("lookup %s not fused", op.Loc())
				}
				return true
			})
			// The identity columns' raw ids are checked on the host
			// (nothing proves them inside their tables).
			identity := 0
			for _, g := range s.Groups {
				if g.Kind == gen.Identity {
					identity += g.Count
				}
			}
			if layers != 2 || cols != s.NumColumns() || inKernel != cols-identity {
				t.Errorf("%d layers, %d columns fused (%d with their ids in the kernel), want 2, %d (%d)", layers, cols, inKernel, s.NumColumns(), s.NumColumns()-identity)
			}
			var sum strings.Builder
			if err := r.WriteSummary(&sum); err != nil {
				t.Fatal(err)
			}
			want := fmt.Sprintf("  fused            %6d of %d (into 2 embedding kernels)", s.NumColumns(), s.NumColumns())
			if !strings.Contains(sum.String(), want) {
				t.Errorf("summary lacks %q:\n%s", want, sum.String())
			}
			for _, batch := range []int{1, 17} {
				arrays, err := gen.Feeds(s, batch, uint64(batch))
				if err != nil {
					t.Fatal(err)
				}
				feeds := map[string]*interp.Tensor{}
				for _, a := range arrays {
					feeds[a.Name] = a.Tensor
				}
				opts := &exec.Options{Variables: vars}
				want := runProgram(t, ref, feeds, outputs, opts)
				got := runProgram(t, r.Module, feeds, outputs, opts)
				for _, o := range outputs {
					if err := closeTo(want[o], got[o]); err != nil {
						t.Errorf("batch %d: output %s: %v", batch, o, err)
					}
				}
			}
		})
	}
	// The whole compilation: two embedding kernels and the towers'
	// dense layers, and no note that the embedding layer is not one
	// kernel (a model may have several).
	llctest.Need(t)
	r, err := CompileBytes(context.Background(), "dssm.pbtxt", text, Options{Dense: true, NoCubin: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Kernels) != 6 || slices.ContainsFunc(r.Notes, func(n string) bool { return strings.HasPrefix(n, "fuse made") }) {
		t.Errorf("kernels %v, notes %q", r.Kernels, r.Notes)
	}
}

// dssmTF1Spec is the spec of the lit tests' two-tower model written as a
// TF1 Estimator DSSM export is (every column an input_layer of its own,
// towers of dense + batch normalization, tf.Example serving).
const dssmTF1Spec = "../lit-tests/Conversion/EmbToGpu/Inputs/dssm_tf1.json"

// A two-tower model written as hallucination11/serving's DSSM Estimator
// export is: the user tower concatenates three one-column input_layers
// ("user"), the item tower's one column reaches no ConcatV2 ("item/item"
// is an Identity). Each tower is a layer and a kernel of its own, every
// column with its ids in the kernel, with --simplify-shapes removing the
// reshapes, leaving them with rebuilt shapes, or keeping TensorFlow's
// shape chains; the compiled program computes what the GraphDef computes
// (the towers' layers and the prediction, at batch 1 and 23). The whole
// compilation emits both embedding kernels and the four dense layers.
func TestTwoTowersTF1(t *testing.T) {
	data, err := os.ReadFile(dssmTF1Spec)
	if err != nil {
		t.Fatal(err)
	}
	s, err := gen.ParseSpec(data, dssmTF1Spec)
	if err != nil {
		t.Fatal(err)
	}
	m, err := gen.Generate(s, gen.Options{Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	text, err := gen.MarshalGraph(m.Graph)
	if err != nil {
		t.Fatal(err)
	}
	vars := map[string]*interp.Tensor{}
	for _, a := range m.Tables {
		vars[a.Name] = a.Tensor
	}
	outputs := []string{gen.PredictionNode, "user", "item/item"}
	ref, err := importer.Import(all.NewContext(), m.Graph)
	if err != nil {
		t.Fatal(err)
	}
	for _, simplify := range []string{"", "no-reshape-removal=true", "no-operand-rebuild=true"} {
		t.Run("simplify-shapes="+simplify, func(t *testing.T) {
			r, err := CompileBytes(context.Background(), "dssm_tf1.pbtxt", text, Options{Outputs: outputs, StopAfter: StageFuse,
				PassOptions: map[string]string{"simplify-shapes": simplify}})
			if err != nil {
				t.Fatal(err)
			}
			var names []string
			cols, inKernel := 0, 0
			r.Module.Walk(func(op *textir.Operation) bool {
				switch op.Name() {
				case fused.EmbeddingLayerOp:
					l, err := abi.LayerOf(op)
					if err != nil {
						t.Fatal(err)
					}
					names = append(names, fmt.Sprintf("%s:%d", tfg.NodeName(op), len(l.Columns)))
					cols += len(l.Columns)
					for _, c := range l.Columns {
						if len(c.Transforms) > 0 {
							inKernel++
						}
					}
				case "emb.lookup", "emb.gather", "emb.gather_scatter":
					t.Errorf("lookup %s not fused", op.Loc())
				}
				return true
			})
			if !slices.Equal(names, []string{"user:3", "item/item:1"}) || cols != 4 || inKernel != 4 {
				t.Errorf("layers %v, %d columns (%d with their ids in the kernel), want [user:3 item/item:1], 4 (4)", names, cols, inKernel)
			}
			var sum strings.Builder
			if err := r.WriteSummary(&sum); err != nil {
				t.Fatal(err)
			}
			if want := "  fused                 4 of 4 (into 2 embedding kernels)"; !strings.Contains(sum.String(), want) {
				t.Errorf("summary lacks %q:\n%s", want, sum.String())
			}
			for _, batch := range []int{1, 23} {
				arrays, err := gen.Feeds(s, batch, uint64(batch))
				if err != nil {
					t.Fatal(err)
				}
				feeds := map[string]*interp.Tensor{}
				for _, a := range arrays {
					feeds[a.Name] = a.Tensor
				}
				opts := &exec.Options{Variables: vars}
				want := runProgram(t, ref, feeds, outputs, opts)
				got := runProgram(t, r.Module, feeds, outputs, opts)
				for _, o := range outputs {
					if err := closeTo(want[o], got[o]); err != nil {
						t.Errorf("batch %d: output %s: %v", batch, o, err)
					}
				}
			}
		})
	}
	llctest.Need(t)
	r, err := CompileBytes(context.Background(), "dssm_tf1.pbtxt", text, Options{Dense: true, NoCubin: true})
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"layer", "layer_1", "dense", "dense_1", "dense_2", "dense_3"}; !slices.Equal(r.Kernels, want) ||
		slices.ContainsFunc(r.Notes, func(n string) bool { return strings.HasPrefix(n, "fuse made") }) {
		t.Errorf("kernels %v (want %v), notes %q", r.Kernels, want, r.Notes)
	}
}
