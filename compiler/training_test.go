package compiler

import (
	"bytes"
	"context"
	"errors"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/recom-compiler/recom/dialects/all"
	"github.com/recom-compiler/recom/dialects/shape/expr"
	"github.com/recom-compiler/recom/dialects/tfg"
	"github.com/recom-compiler/recom/frontend/graphdef"
	"github.com/recom-compiler/recom/frontend/importer"
	"github.com/recom-compiler/recom/internal/realgraphs"
	"github.com/recom-compiler/recom/internal/tfgfeeds"
	"github.com/recom-compiler/recom/interp/exec"
	"github.com/recom-compiler/recom/lowering/simplifyshapes"
	"github.com/recom-compiler/recom/textir"
)

// trainingCuts are the real training graphs cut where AnalyzeTraining says:
// at every output of the node that reads their batches, and at the
// candidate outputs. The interpreter runs some of those (it lacks Softmax
// and ArgMax). The TF2 graph's queue dequeued batches of 128.
var trainingCuts = []struct {
	file       string
	feed       string
	outputs    []string
	run        []string
	trainBatch int64 // the batch of the queue or iterator, when it was fixed
}{
	{"census_wide_deep_tf1.pbtxt", "IteratorGetNext",
		[]string{"head/predictions/logits", "head/predictions/logistic", "head/predictions/probabilities", "head/predictions/str_classes"},
		[]string{"head/predictions/logits", "head/predictions/logistic"}, 0},
	{"census_wide_deep_tf2_resource.pbtxt", "fifo_queue_DequeueMany",
		[]string{"linear/linear_model/linear/linear_model/linear/linear_model/weighted_sum", "head/predictions/logistic",
			"head/predictions/probabilities", "head/predictions/str_classes"},
		[]string{"linear/linear_model/linear/linear_model/linear/linear_model/weighted_sum", "head/predictions/logistic"}, 128},
	{"criteo_bucketized_tiles.pbtxt", "IteratorGetNext", []string{"dense/Sigmoid"}, []string{"dense/Sigmoid"}, 0},
}

// A training graph cut at its batch source (--inputs NODE: all its outputs)
// and its head compiles without a word about training, with placeholders of
// an unknown batch and one batch symbol for --simplify-shapes; and every IR
// stage, run in the interpreter (the kernels in the gpu simulator), computes
// what the cut GraphDef computes, at batches other than the training one.
func TestTrainingGraphsCutDynamicBatch(t *testing.T) {
	dir := realgraphs.Dir(t)
	for _, c := range trainingCuts {
		t.Run(c.file, func(t *testing.T) {
			path := filepath.Join(dir, c.file)
			r, err := Compile(context.Background(), path, Options{Inputs: []string{c.feed}, Outputs: c.outputs,
				Dense: true, StopAfter: StageFuseDense, KeepIR: true})
			if err != nil {
				t.Fatal(err)
			}
			for _, d := range r.Diagnostics {
				if d.Severity == textir.SevWarning {
					t.Errorf("warning: %s", d.Message)
				}
			}
			if slices.ContainsFunc(r.Notes, func(n string) bool { return strings.Contains(n, "training") }) {
				t.Errorf("notes %q", r.Notes)
			}
			if len(r.Placeholders) < 2 {
				t.Errorf("placeholders %v: want one per output of %s", r.Placeholders, c.feed)
			}

			// The reference: the cut GraphDef in the interpreter.
			f, err := graphdef.Load(path)
			if err != nil {
				t.Fatal(err)
			}
			x, err := graphdef.Extract(f.Graph, []string{c.feed}, c.run)
			if err != nil {
				t.Fatal(err)
			}
			ctx := all.NewContext()
			ref, err := importer.Import(ctx, x)
			if err != nil {
				t.Fatal(err)
			}
			phs := 0
			ref.Walk(func(op *textir.Operation) bool {
				if op.Name() == "tfg.Placeholder" {
					phs++
					if ty, ok := op.Result(0).Type().(*textir.TensorType); !ok || len(ty.Shape) == 0 || ty.Shape[0] != textir.Dynamic {
						t.Errorf("placeholder %s: %s, want an unknown batch", tfg.NodeName(op), op.Result(0).Type())
					}
				}
				return true
			})
			if phs == 0 {
				t.Fatal("no placeholders")
			}
			full, err := importer.Import(ctx, f.Graph)
			if err != nil {
				t.Fatal(err)
			}
			tables, err := tfg.TableInitData(context.Background(), full, nil)
			if err != nil {
				t.Fatal(err)
			}

			// The stages, from their printed IR.
			var stages []*textir.Operation
			for _, s := range r.Stages {
				m, err := textir.Parse(all.NewContext(), s.Name+".mlir", s.Output)
				if err != nil {
					t.Fatalf("stage %s: %v", s.Name, err)
				}
				stages = append(stages, m)
			}
			// The shape analysis of --simplify-shapes, on its input (lower-emb's
			// output), sees a symbolic batch: symbols for the placeholders'
			// dimension 0, and the training batch nowhere.
			emb := stages[slices.IndexFunc(r.Stages, func(s *StageResult) bool { return s.Name == StageLowerEmb })]
			if n := batchDims(t, emb, c.trainBatch); n != 0 {
				t.Errorf("the shape analysis finds %d dimensions of the training batch %d", n, c.trainBatch)
			}
			if c.trainBatch > 0 {
				// The test can tell: with the batch static, it is everywhere.
				rs, err := Compile(context.Background(), path, Options{Inputs: []string{c.feed}, Outputs: c.outputs,
					DynamicBatch: graphdef.BatchStatic, StopAfter: StageLowerEmb})
				if err != nil {
					t.Fatal(err)
				}
				if n := batchDims(nil, rs.Module, c.trainBatch); n == 0 {
					t.Error("with a static batch, the shape analysis finds no dimension of the training batch")
				}
			}

			vocab := tfgfeeds.Vocab([]string{"", "a", "unknown"}, tables)
			opts := &exec.Options{RandomTables: true, Seed: 42, Tables: tables}
			for _, batch := range []int64{1, 37, 200} {
				feeds := realFeeds(t, ref, batch, vocab, uint64(batch))
				want := runProgram(t, ref, feeds, c.run, opts)
				for _, o := range c.run {
					if d := want[o].Shape(); len(d) == 0 || d[0] != batch {
						t.Errorf("batch %d: reference output %s of shape %v", batch, o, d)
					}
				}
				for i, m := range stages {
					got := runProgram(t, m, feeds, c.run, opts)
					for _, o := range c.run {
						if err := closeTo(want[o], got[o]); err != nil {
							t.Errorf("batch %d, stage %s: output %s: %v", batch, r.Stages[i].Name, o, err)
						}
					}
				}
			}
		})
	}
}

// batchDims runs the shape analysis of --simplify-shapes on m's graph and
// counts the dimensions of the training batch it finds (0 when the batch is
// unknown). With tb set, it fails tb unless the dimension 0 of every
// placeholder is a symbol.
func batchDims(tb testing.TB, m *textir.Operation, batch int64) int {
	var body *textir.Block
	m.Walk(func(op *textir.Operation) bool {
		if op.Name() == "tfg.graph" {
			body = op.Region(0).Front()
		}
		return body == nil
	})
	a := simplifyshapes.Infer(body)
	n := 0
	for op := range body.Ops() {
		if op.Name() == "tfg.Placeholder" && tb != nil {
			dims := a.Of(op.Result(0)).Dims
			if _, ok := firstDim(dims).AsSym(); !ok {
				tb.Errorf("placeholder %s: dims %s, want a batch symbol first", tfg.NodeName(op), a.FormatDims(dims))
			}
		}
		for _, v := range op.Results() {
			for _, d := range a.Of(v).Dims {
				if k, ok := d.IsConst(); ok && k == batch {
					n++
				}
			}
		}
	}
	return n
}

// firstDim is dims[0], or an unknown dimension for a scalar or unranked
// tensor.
func firstDim(dims []expr.Expr) expr.Expr {
	if len(dims) == 0 {
		return expr.Poison(errors.New("no dimension 0"))
	}
	return dims[0]
}

// Compiling a whole training graph, or a cut that still needs its training
// parts, warns with what it holds and where to cut it: a warning with
// notes, and notes in the summary.
func TestTrainingGraphWarning(t *testing.T) {
	dir := realgraphs.Dir(t)
	path := filepath.Join(dir, "census_wide_deep_tf1.pbtxt")
	const (
		holds   = "training graph: it holds 503 gradient nodes (gradients/..., gradients_1/...), 2 optimizers (Adagrad/..., Ftrl/...), a saver (save/...), an iterator (IteratorGetNext), 15 summaries ("
		inputs  = "candidate inputs (a node stands for all its outputs): IteratorGetNext"
		outputs = "candidate outputs: head/predictions/logits, head/predictions/logistic, head/predictions/probabilities, head/predictions/str_classes"
		loss    = "the loss: head/weighted_loss/Sum"
	)
	check := func(t *testing.T, r *Result, wantHolds string) {
		t.Helper()
		var warn []*textir.Diagnostic
		for _, d := range r.Diagnostics {
			if d.Severity == textir.SevWarning {
				warn = append(warn, d)
			}
		}
		if len(warn) != 1 {
			t.Fatalf("warnings %v, want one", warn)
		}
		w := warn[0]
		if !strings.HasPrefix(w.Message, wantHolds) || !strings.HasSuffix(w.Message, "; cut it for inference with --inputs and --outputs") {
			t.Errorf("warning %q", w.Message)
		}
		if loc, ok := w.Loc.(textir.NameLoc); !ok || loc.Name != path {
			t.Errorf("warning at %v, want the model", w.Loc)
		}
		var notes []string
		for _, n := range w.Notes {
			notes = append(notes, n.Message)
		}
		if want := []string{inputs, outputs, loss}; !slices.Equal(notes, want) {
			t.Errorf("notes %q, want %q", notes, want)
		}
		if len(r.Notes) < 4 || r.Notes[0] != w.Message || !slices.Equal(r.Notes[1:4], notes) {
			t.Errorf("result notes %q", r.Notes)
		}
	}
	t.Run("whole", func(t *testing.T) {
		r, err := Compile(context.Background(), path, Options{StopAfter: StageImport})
		if err != nil {
			t.Fatal(err)
		}
		check(t, r, holds)
		var b bytes.Buffer
		r.WriteSummary(&b)
		for _, want := range []string{"\nnote: " + holds, "\nnote: " + inputs + "\n", "\nnote: " + outputs + "\n", "diagnostics: 1 warning"} {
			if !strings.Contains(b.String(), want) {
				t.Errorf("summary lacks %q:\n%s", want, b.String())
			}
		}
	})
	t.Run("uncut iterator", func(t *testing.T) {
		r, err := Compile(context.Background(), path, Options{Outputs: []string{"head/predictions/logistic"}, StopAfter: StageImport})
		if !errors.Is(err, graphdef.ErrNotInference) {
			t.Fatalf("error %v, want ErrNotInference", err)
		}
		check(t, r, holds)
	})
	t.Run("gradients kept", func(t *testing.T) {
		// A cut that keeps gradient nodes (Extract accepts them: they are
		// ordinary ops) says what it keeps, and where to cut the graph.
		r, err := Compile(context.Background(), path, Options{Inputs: []string{"IteratorGetNext"},
			Outputs: []string{"gradients/head/weighted_loss/Mul_grad/mul"}, StopAfter: StageImport})
		if err != nil {
			t.Fatal(err)
		}
		check(t, r, "training graph: it holds 8 gradient nodes (gradients/...); ")
	})
	t.Run("inference graph", func(t *testing.T) {
		r := compileSmall(t, Options{StopAfter: StageImport})
		if len(r.Diagnostics) != 0 || len(r.Notes) != 0 {
			t.Errorf("diagnostics %v, notes %q", r.Diagnostics, r.Notes)
		}
	})
}
