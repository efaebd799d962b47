package graphdef

import (
	"slices"
	"strings"
	"testing"

	"github.com/recom-compiler/recom/frontend/graphdef/tfpb"
)

// trainingSmall is a logistic regression as tf.train writes it: features x
// and labels y fed, a variable w, the predictions, a loss with its
// gradients, an optimizer, a saver and a summary.
func trainingSmall() *tfpb.GraphDef {
	f := tfpb.DataType_DT_FLOAT
	s := tfpb.DataType_DT_STRING
	i32 := tfpb.DataType_DT_INT32
	return &tfpb.GraphDef{Node: []*tfpb.NodeDef{
		node("x", "Placeholder", nil, "dtype", f),
		node("y", "Placeholder", nil, "dtype", f),
		node("w", "VariableV2", nil, "dtype", f),
		node("w/read", "Identity", []string{"w"}, "T", f),
		node("logits", "MatMul", []string{"x", "w/read"}, "T", f),
		node("pred", "Sigmoid", []string{"logits"}, "T", f),
		node("pred/shape", "Shape", []string{"pred"}, "T", f, "out_type", i32), // a shape, not a prediction
		node("xent", "SigmoidCrossEntropyWithLogits", []string{"logits", "y"}, "T", f),
		node("axes", "Const", nil, "dtype", i32),
		node("loss", "Mean", []string{"xent", "axes"}, "T", f, "Tidx", i32),
		node("gradients/Fill", "Fill", []string{"axes", "axes"}, "T", f, "index_type", i32),
		node("gradients/loss_grad/Tile", "Tile", []string{"gradients/Fill", "axes"}, "T", f, "Tmultiples", i32),
		node("gradients/xent_grad/mul", "Mul", []string{"gradients/loss_grad/Tile", "xent"}, "T", f),
		node("gradients/logits_grad/MatMul", "MatMul", []string{"x", "gradients/xent_grad/mul"}, "T", f),
		node("lr", "Const", nil, "dtype", f),
		node("GradientDescent/update_w/ApplyGradientDescent", "ApplyGradientDescent", []string{"w", "lr", "gradients/logits_grad/MatMul"}, "T", f),
		node("save/filename", "PlaceholderWithDefault", []string{"save/Const"}, "dtype", s),
		node("save/Const", "Const", nil, "dtype", s),
		node("save/path", "StringJoin", []string{"save/filename"}, "N", 1),
		node("save/SaveV2", "SaveV2", []string{"save/path", "save/Const", "save/Const", "w"}, "dtypes", []tfpb.DataType{f}),
		node("loss_summary", "ScalarSummary", []string{"save/Const", "loss"}, "T", f),
	}}
}

func TestAnalyzeTrainingSmall(t *testing.T) {
	r := AnalyzeTraining(trainingSmall())
	if !r.Found() {
		t.Fatal("nothing of training found")
	}
	for _, c := range []struct {
		what      string
		got, want []string
	}{
		{"gradients", r.Gradients, []string{"gradients/Fill", "gradients/loss_grad/Tile", "gradients/xent_grad/mul", "gradients/logits_grad/MatMul"}},
		{"gradient scopes", r.GradientScopes, []string{"gradients"}},
		{"savers", r.Savers, []string{"save"}},
		{"summaries", r.Summaries, []string{"loss_summary"}},
		{"losses", r.Losses, []string{"loss"}},
		// y, the labels, is not an input of the inference graph.
		{"inputs", r.Inputs, []string{"x"}},
		// logits feeds the loss; pred is computed from it. The shape of pred
		// is no prediction.
		{"outputs", r.Outputs, []string{"logits", "pred"}},
	} {
		if !slices.Equal(c.got, c.want) {
			t.Errorf("%s: %q, want %q", c.what, c.got, c.want)
		}
	}
	if len(r.Optimizers) != 1 || r.Optimizers[0].Kind != "GradientDescent" || r.Optimizers[0].Scope != "GradientDescent" {
		t.Errorf("optimizers %+v", r.Optimizers)
	}
	const describe = "4 gradient nodes (gradients/...), an optimizer (GradientDescent/...), a saver (save/...), a summary (loss_summary)"
	if got := r.Describe(); got != describe {
		t.Errorf("Describe: %q, want %q", got, describe)
	}
	msg, notes := r.Warning()
	if want := "training graph: it holds " + describe; !strings.HasPrefix(msg, want) {
		t.Errorf("Warning: %q, want it to start with %q", msg, want)
	}
	wantNotes := []string{"candidate inputs (a node stands for all its outputs): x", "candidate outputs: logits, pred", "the loss: loss"}
	if !slices.Equal(notes, wantNotes) {
		t.Errorf("notes %q, want %q", notes, wantNotes)
	}
	// The candidates cut the graph for inference.
	x, err := Extract(trainingSmall(), r.Inputs, r.Outputs)
	if err != nil {
		t.Fatal(err)
	}
	if AnalyzeTraining(x).Found() {
		t.Errorf("the cut graph still holds training: %s", AnalyzeTraining(x).Describe())
	}
}

// An inference graph holds nothing of training; its candidates are its
// placeholders and sinks.
func TestAnalyzeTrainingInference(t *testing.T) {
	r := AnalyzeTraining(small())
	if r.Found() || r.Describe() != "" {
		t.Errorf("found %q in an inference graph", r.Describe())
	}
	if !slices.Equal(r.Inputs, []string{"x", "w", "b"}) || !slices.Equal(r.Outputs, []string{"out"}) || len(r.Losses) != 0 {
		t.Errorf("inputs %q, outputs %q, losses %q", r.Inputs, r.Outputs, r.Losses)
	}
	g, err := Load("../../examples/small.pbtxt")
	if err != nil {
		t.Fatal(err)
	}
	if r := AnalyzeTraining(g.Graph); r.Found() || !slices.Equal(r.Outputs, []string{"prediction"}) {
		t.Errorf("examples/small.pbtxt: found %q, outputs %q", r.Describe(), r.Outputs)
	}
}

// The kinds of training parts, each alone, and how Describe counts them.
func TestAnalyzeTrainingParts(t *testing.T) {
	f := tfpb.DataType_DT_FLOAT
	for _, c := range []struct {
		nodes []*tfpb.NodeDef
		want  string
	}{
		{[]*tfpb.NodeDef{node("it", "OneShotIterator", nil), node("next", "IteratorGetNext", []string{"it"}, "output_types", []tfpb.DataType{f})},
			"an iterator (next)"},
		{[]*tfpb.NodeDef{node("it", "OneShotIterator", nil)}, "an iterator (it)"},
		{[]*tfpb.NodeDef{node("q", "FIFOQueueV2", nil, "component_types", []tfpb.DataType{f}),
			node("n", "Const", nil, "dtype", tfpb.DataType_DT_INT32),
			node("deq", "QueueDequeueManyV2", []string{"q", "n"}, "component_types", []tfpb.DataType{f}),
			node("deq_1", "QueueDequeueManyV2", []string{"q", "n"}, "component_types", []tfpb.DataType{f})},
			"2 queues (deq, deq_1)"},
		{[]*tfpb.NodeDef{node("x", "Placeholder", nil, "dtype", f), node("g", "ReluGrad", []string{"x", "x"}, "T", f)},
			"a gradient node (g)"},
		{[]*tfpb.NodeDef{node("v", "VariableV2", nil, "dtype", f), node("x", "Placeholder", nil, "dtype", f),
			node("training/Adam/update_v/ResourceApplyAdam", "ResourceApplyAdam", []string{"v", "x"}, "T", f),
			node("training/Adam/update_u/ResourceApplyAdam", "ResourceApplyAdam", []string{"v", "x"}, "T", f),
			node("Ftrl/update_v/ApplyFtrlV2", "ApplyFtrlV2", []string{"v", "x"}, "T", f)},
			"2 optimizers (training/Adam/..., Ftrl/...)"},
		{[]*tfpb.NodeDef{node("a/save/RestoreV2", "RestoreV2", nil), node("b/SaveV2", "SaveV2", nil), node("b/sharded/SaveV2", "SaveV2", nil)},
			"2 savers (a/save/..., b/...)"},
		{[]*tfpb.NodeDef{node("s1", "ScalarSummary", nil), node("s2", "ScalarSummary", nil), node("s3", "HistogramSummary", nil),
			node("s4", "MergeSummary", nil)}, "4 summaries (s1, s2, s3, ...)"},
	} {
		got := AnalyzeTraining(&tfpb.GraphDef{Node: c.nodes}).Describe()
		if got != c.want {
			t.Errorf("%s...: Describe %q, want %q", c.nodes[0].GetName(), got, c.want)
		}
	}
}

// The real training graphs: what they hold and where to cut them. The
// candidates are a cut that Extract accepts and that leaves nothing of
// training.
func TestAnalyzeTrainingRealGraphs(t *testing.T) {
	for _, c := range []struct {
		file                           string
		describe                       string
		losses, inputs, outputs, kinds []string
	}{
		{"census_wide_deep_tf1.pbtxt",
			"503 gradient nodes (gradients/..., gradients_1/...), 2 optimizers (Adagrad/..., Ftrl/...), a saver (save/...), " +
				"an iterator (IteratorGetNext), 15 summaries (dnn/dnn/hiddenlayer_0/fraction_of_zero_values, dnn/dnn/hiddenlayer_0/activation, dnn/dnn/hiddenlayer_1/fraction_of_zero_values, ...)",
			[]string{"head/weighted_loss/Sum"},
			[]string{"IteratorGetNext"},
			[]string{"head/predictions/logits", "head/predictions/logistic", "head/predictions/probabilities", "head/predictions/str_classes"},
			[]string{"Adagrad", "Ftrl"}},
		{"census_wide_deep_tf2_resource.pbtxt",
			"241 gradient nodes (training/Ftrl/gradients/...), an optimizer (training/Ftrl/Ftrl/...), a saver (save/...), " +
				"a queue (fifo_queue_DequeueMany), 5 summaries (enqueue_input/queue/enqueue_input/fifo_queuefraction_over_0_of_1000_full, bias, fraction_of_zero_weights, ...)",
			[]string{"head/losses/weighted_loss/value"},
			[]string{"fifo_queue_DequeueMany"},
			[]string{"linear/linear_model/linear/linear_model/linear/linear_model/weighted_sum", "head/predictions/logistic",
				"head/predictions/probabilities", "head/predictions/str_classes"},
			[]string{"Ftrl"}},
		{"criteo_bucketized_tiles.pbtxt",
			"53 gradient nodes (gradients/...), an optimizer (Adagrad/...), a saver (save/...), an iterator (IteratorGetNext), 2 summaries (loss, Merge/MergeSummary)",
			[]string{"sparse_softmax_cross_entropy_loss/value"},
			[]string{"IteratorGetNext"},
			[]string{"dense/Sigmoid"},
			[]string{"Adagrad"}},
	} {
		t.Run(c.file, func(t *testing.T) {
			g := loadReal(t, c.file).Graph
			r := AnalyzeTraining(g)
			if got := r.Describe(); got != c.describe {
				t.Errorf("Describe:\n  %s\nwant\n  %s", got, c.describe)
			}
			var kinds []string
			for _, o := range r.Optimizers {
				kinds = append(kinds, o.Kind)
			}
			for _, l := range []struct {
				what      string
				got, want []string
			}{{"losses", r.Losses, c.losses}, {"inputs", r.Inputs, c.inputs}, {"outputs", r.Outputs, c.outputs}, {"optimizers", kinds, c.kinds}} {
				if !slices.Equal(l.got, l.want) {
					t.Errorf("%s: %q, want %q", l.what, l.got, l.want)
				}
			}
			x, err := Extract(g, r.Inputs, r.Outputs)
			if err != nil {
				t.Fatalf("the candidates do not cut the graph: %v", err)
			}
			checkInferenceOnly(t, c.file, x)
			if rx := AnalyzeTraining(x); rx.Found() {
				t.Errorf("the cut graph holds %s", rx.Describe())
			}
		})
	}
}
