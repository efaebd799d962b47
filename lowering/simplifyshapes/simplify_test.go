package simplifyshapes_test

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/recom-compiler/recom/dialects/all"
	"github.com/recom-compiler/recom/dialects/shape"
	"github.com/recom-compiler/recom/dialects/tfg"
	"github.com/recom-compiler/recom/frontend/gen"
	"github.com/recom-compiler/recom/frontend/importer"
	"github.com/recom-compiler/recom/interp"
	"github.com/recom-compiler/recom/interp/exec"
	"github.com/recom-compiler/recom/lowering/pass"
	"github.com/recom-compiler/recom/lowering/simplifyshapes"
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
	return out, pm.Statistics()
}

func run(m *textir.Operation, feeds map[string]*interp.Tensor, outputs []string, opts *exec.Options) (map[string]*interp.Tensor, error) {
	return exec.Run(context.Background(), m, feeds, outputs, opts)
}

// noShapeChains checks that no TensorFlow shape chain op is left.
func noShapeChains(t *testing.T, m *textir.Operation) {
	t.Helper()
	m.Walk(func(op *textir.Operation) bool {
		switch op.Name() {
		case "tfg.Shape", "tfg.StridedSlice", "tfg.Pack", "tfg.Prod", "tfg.Slice", "tfg.ShapeN", "tfg.Size":
			t.Errorf("%s %q remains", op.Name(), tfg.NodeName(op))
		}
		return true
	})
}

// layerSizes returns the printed maps of the assertions on the layer
// output and on its inputs (the column slices).
func layerSizes(t *testing.T, m *textir.Operation) (out string, cols []string) {
	t.Helper()
	var layer *textir.Operation
	m.Walk(func(op *textir.Operation) bool {
		if tfg.NodeName(op) == gen.EmbeddingNode {
			layer = op
		}
		return true
	})
	if layer == nil {
		t.Fatal("no layer output")
	}
	asserted := map[*textir.Value]string{}
	m.Walk(func(op *textir.Operation) bool {
		if op.Name() == shape.AssertShapeOp {
			mp, err := shape.OpMap(op)
			if err != nil {
				t.Fatal(err)
			}
			asserted[op.Operand(0)] = mp.String()
		}
		return true
	})
	out = asserted[layer.Result(0)]
	args := tfg.DataOperands(layer)
	for _, x := range args[:len(args)-1] {
		cols = append(cols, asserted[x])
	}
	return out, cols
}

type genCase struct {
	preset  string
	columns int
}

func TestGeneratedModels(t *testing.T) {
	for _, c := range []genCase{{"small", 0}, {"micro", 6}, {"probe", 8}, {"E", 12}, {"F", 12}} {
		t.Run(fmt.Sprintf("%s-%d", c.preset, c.columns), func(t *testing.T) {
			s, err := gen.Preset(c.preset)
			if err != nil {
				t.Fatal(err)
			}
			if c.columns > 0 {
				if s, err = s.Scale(c.columns); err != nil {
					t.Fatal(err)
				}
			}
			m, err := gen.Generate(s, gen.Options{Seed: 3})
			if err != nil {
				t.Fatal(err)
			}
			ctx := all.NewContext()
			ref, err := importer.Import(ctx, m.Graph)
			if err != nil {
				t.Fatal(err)
			}
			low, stats := runPipeline(t, ctx, ref, "builtin.module(lower-emb, simplify-shapes)")
			if err := textir.Verify(ctx, low); err != nil {
				t.Fatal(err)
			}
			noShapeChains(t, low)
			st := stats[simplifyshapes.Flag]
			if st["reshapes-removed"] == 0 || st["symbols-created"] == 0 || st["classes-merged"] == 0 {
				t.Errorf("statistics %v", st)
			}
			out, cols := layerSizes(t, low)
			if !strings.HasPrefix(out, "(batch) -> (batch, ") {
				t.Errorf("layer output size %q: want (batch) -> (batch, N)", out)
			}
			width := 0
			for i, c := range cols {
				var d int
				if _, err := fmt.Sscanf(c, "(batch) -> (batch, %d)", &d); err != nil {
					t.Errorf("column %d size %q: want (batch) -> (batch, D)", i, c)
				}
				width += d
			}
			if want := fmt.Sprintf("(batch) -> (batch, %d)", width); out != want {
				t.Errorf("layer output size %q, want %q (the sum of the columns)", out, want)
			}
			vars := map[string]*interp.Tensor{}
			for _, a := range m.Tables {
				vars[a.Name] = a.Tensor
			}
			outputs := []string{gen.EmbeddingNode}
			if m.Output != gen.EmbeddingNode {
				outputs = append(outputs, m.Output)
			}
			// The assertions run too: request them by the op's effect.
			for _, batch := range []int{1, 7, 32} {
				arrays, err := gen.Feeds(s, batch, uint64(batch))
				if err != nil {
					t.Fatal(err)
				}
				feeds := map[string]*interp.Tensor{}
				for _, a := range arrays {
					feeds[a.Name] = a.Tensor
				}
				opts := &exec.Options{Variables: vars}
				want, err := run(ref, feeds, outputs, opts)
				if err != nil {
					t.Fatalf("batch %d: reference: %v", batch, err)
				}
				got, err := run(low, feeds, outputs, opts)
				if err != nil {
					t.Fatalf("batch %d: simplified: %v", batch, err)
				}
				for _, o := range outputs {
					if err := got[o].AllClose(want[o], 1e-5, 1e-6); err != nil {
						t.Fatalf("batch %d: output %s: %v", batch, o, err)
					}
				}
				if err := checkAssertions(low, feeds, opts); err != nil {
					t.Fatalf("batch %d: %v", batch, err)
				}
			}
		})
	}
}

// checkAssertions runs every shape.assert_shape of m: they are named (by a
// location) and asked for as effects.
func checkAssertions(m *textir.Operation, feeds map[string]*interp.Tensor, opts *exec.Options) error {
	n := 0
	var names []string
	m.Walk(func(op *textir.Operation) bool {
		if op.Name() == shape.AssertShapeOp {
			name := fmt.Sprintf("assert_%d", n)
			n++
			op.SetLoc(textir.NameLoc{Name: name})
			names = append(names, "^"+name)
		}
		return true
	})
	if len(names) == 0 {
		return fmt.Errorf("no shape.assert_shape")
	}
	_, err := run(m, feeds, names, opts)
	return err
}

// Without reshape removal, the shape operands of the reshapes are rebuilt
// from the symbols; with every part off, the IR is unchanged.
func TestOptions(t *testing.T) {
	s, err := gen.Preset("small")
	if err != nil {
		t.Fatal(err)
	}
	m, err := gen.Generate(s, gen.Options{Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	ctx := all.NewContext()
	ref, err := importer.Import(ctx, m.Graph)
	if err != nil {
		t.Fatal(err)
	}
	lowered, _ := runPipeline(t, ctx, ref, "builtin.module(lower-emb)")
	print := func(op *textir.Operation) string {
		var b bytes.Buffer
		if err := textir.Print(&b, op, textir.PrintOptions{}); err != nil {
			t.Fatal(err)
		}
		return b.String()
	}
	for _, c := range []struct {
		opts      string
		unchanged bool
		check     func(t *testing.T, st map[string]int64)
	}{
		{opts: "disable", unchanged: true},
		{opts: "no-reshape-removal no-operand-rebuild no-assertions", unchanged: true},
		{opts: "no-reshape-removal", check: func(t *testing.T, st map[string]int64) {
			if st["reshapes-removed"] != 0 || st["operands-rebuilt"] == 0 || st["shape-chain-ops-left"] != 0 {
				t.Errorf("statistics %v", st)
			}
		}},
		{opts: "no-operand-rebuild no-reshape-removal", check: func(t *testing.T, st map[string]int64) {
			if st["operands-rebuilt"] != 0 || st["shape-chain-ops-left"] == 0 {
				t.Errorf("statistics %v", st)
			}
		}},
		{opts: "no-assertions", check: func(t *testing.T, st map[string]int64) {
			if st["assertions"] != 0 || st["reshapes-removed"] == 0 {
				t.Errorf("statistics %v", st)
			}
		}},
	} {
		t.Run(c.opts, func(t *testing.T) {
			out, stats := runPipeline(t, ctx, lowered, "builtin.module(simplify-shapes{"+c.opts+"})")
			if err := textir.Verify(ctx, out); err != nil {
				t.Fatal(err)
			}
			if got := print(out) == print(lowered); got != c.unchanged {
				t.Errorf("unchanged = %v, want %v", got, c.unchanged)
			}
			if c.check != nil {
				c.check(t, stats[simplifyshapes.Flag])
			}
			vars := map[string]*interp.Tensor{}
			for _, a := range m.Tables {
				vars[a.Name] = a.Tensor
			}
			arrays, err := gen.Feeds(s, 5, 9)
			if err != nil {
				t.Fatal(err)
			}
			feeds := map[string]*interp.Tensor{}
			for _, a := range arrays {
				feeds[a.Name] = a.Tensor
			}
			outputs := []string{gen.EmbeddingNode, m.Output}
			opts := &exec.Options{Variables: vars}
			want, err := run(ref, feeds, outputs, opts)
			if err != nil {
				t.Fatal(err)
			}
			got, err := run(out, feeds, outputs, opts)
			if err != nil {
				t.Fatal(err)
			}
			for _, o := range outputs {
				if err := got[o].AllClose(want[o], 1e-5, 1e-6); err != nil {
					t.Fatalf("output %s: %v", o, err)
				}
			}
		})
	}
}
