package embtogpu_test

import (
	"context"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/recom-compiler/recom/dialects/all"
	"github.com/recom-compiler/recom/dialects/fused"
	"github.com/recom-compiler/recom/dialects/fused/abi"
	"github.com/recom-compiler/recom/frontend/gen"
	"github.com/recom-compiler/recom/frontend/importer"
	"github.com/recom-compiler/recom/interp"
	"github.com/recom-compiler/recom/interp/exec"
	"github.com/recom-compiler/recom/lowering/pass"
	"github.com/recom-compiler/recom/textir"
)

// runPipeline runs a textual pipeline on a clone of m.
func runPipeline(tb testing.TB, ctx *textir.Context, m *textir.Operation, text string) (*textir.Operation, map[string]map[string]int64) {
	tb.Helper()
	pm, err := pass.ParsePipeline(text)
	if err != nil {
		tb.Fatal(err)
	}
	out := ctx.Clone(m, nil)
	if err := pm.Run(ctx, out); err != nil {
		tb.Fatal(err)
	}
	if err := textir.Verify(ctx, out); err != nil {
		tb.Fatal(err)
	}
	return out, pm.Statistics()
}

func run(m *textir.Operation, feeds map[string]*interp.Tensor, outputs []string, opts *exec.Options) (map[string]*interp.Tensor, error) {
	prog, err := exec.Compile(m)
	if err != nil {
		return nil, err
	}
	return prog.Run(context.Background(), feeds, outputs, opts)
}

// closeTo compares float outputs within rtol 1e-5 (atol 1e-5: the kernel
// sums in float32, the interpreter in float64); it names the layer column
// of the first difference.
func closeTo(a, b *interp.Tensor, cols []abi.Column) error {
	if interp.ShapeString(a.Shape()) != interp.ShapeString(b.Shape()) {
		return fmt.Errorf("got shape %s, want %s", interp.ShapeString(b.Shape()), interp.ShapeString(a.Shape()))
	}
	for i := range a.Len() {
		x, y := a.Float64At(i), b.Float64At(i)
		if math.Abs(x-y) > 1e-5*math.Max(math.Abs(x), math.Abs(y))+1e-5 || math.IsNaN(y) != math.IsNaN(x) {
			where := ""
			if a.Rank() == 2 {
				w := a.Dim(1)
				row, e := int64(i)/w, int64(i)%w
				where = fmt.Sprintf(" (row %d, element %d", row, e)
				for _, c := range cols {
					if e >= c.OutOffset && e < c.OutOffset+c.Width {
						where += fmt.Sprintf(", column %q class %d", c.Name, c.Class)
					}
				}
				where += ")"
			}
			return fmt.Errorf("element %d%s: got %v, want %v", i, where, y, x)
		}
	}
	return nil
}

func layerOf(t *testing.T, m *textir.Operation) *abi.Layer {
	t.Helper()
	var l *abi.Layer
	m.Walk(func(op *textir.Operation) bool {
		if op.Name() == fused.EmbeddingLayerOp {
			var err error
			if l, err = abi.LayerOf(op); err != nil {
				t.Fatal(err)
			}
		}
		return true
	})
	if l == nil {
		t.Fatal("no fused.embedding_layer")
	}
	return l
}

type modelCase struct {
	preset  string
	columns int
}

func genModel(tb testing.TB, c modelCase) (*gen.Spec, *gen.Model) {
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
	// Empty rows in every group (invalid ids are pruned before the lookups).
	for i := range s.Groups {
		f := &s.Groups[i].Feed
		if s.Groups[i].Kind != gen.Bucketized {
			cov := 0.7
			f.Coverage = &cov
		}
	}
	m, err := gen.Generate(s, gen.Options{Seed: 3})
	if err != nil {
		tb.Fatal(err)
	}
	return s, m
}

// The fused program (kernel on the simulator) computes what the emb-level
// program computes, for both schedules, at batch 1 and 33.
func TestFusedMatchesInterpreter(t *testing.T) {
	cases := []modelCase{{preset: "small"}, {preset: "micro", columns: 6}, {preset: "probe", columns: 8},
		{preset: "E", columns: 12}, {preset: "F", columns: 12}}
	for _, c := range cases {
		for _, sched := range []string{"tuned", "recom"} {
			t.Run(fmt.Sprintf("%s-%d-%s", c.preset, c.columns, sched), func(t *testing.T) {
				s, m := genModel(t, c)
				ctx := all.NewContext()
				ref, err := importer.Import(ctx, m.Graph)
				if err != nil {
					t.Fatal(err)
				}
				low, _ := runPipeline(t, ctx, ref, "lower-emb")
				fz, stats := runPipeline(t, ctx, low, "fuse{schedule="+sched+"}")
				if got := stats["fuse"]["columns"]; got != int64(s.NumColumns()) {
					t.Errorf("fused %d columns, want %d", got, s.NumColumns())
				}
				l := layerOf(t, fz)
				fz.Walk(func(op *textir.Operation) bool {
					if strings.HasPrefix(op.Name(), "emb.lookup") || strings.HasPrefix(op.Name(), "emb.gather") {
						t.Errorf("%s remains", op.Name())
					}
					return true
				})
				vars := map[string]*interp.Tensor{}
				for _, a := range m.Tables {
					vars[a.Name] = a.Tensor
				}
				outputs := []string{gen.EmbeddingNode}
				if m.Output != gen.EmbeddingNode {
					outputs = append(outputs, m.Output)
				}
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
					want, err := run(low, feeds, outputs, opts)
					if err != nil {
						t.Fatal(err)
					}
					got, err := run(fz, feeds, outputs, opts)
					if err != nil {
						t.Fatalf("batch %d: %v", batch, err)
					}
					for _, o := range outputs {
						if err := closeTo(want[o], got[o], l.Columns); err != nil {
							t.Fatalf("batch %d: output %s: %v", batch, o, err)
						}
					}
				}
			})
		}
	}
}
