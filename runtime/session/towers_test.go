package session

import (
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/recom-compiler/recom/dialects/all"
	"github.com/recom-compiler/recom/frontend/gen"
	"github.com/recom-compiler/recom/frontend/graphdef"
	"github.com/recom-compiler/recom/frontend/importer"
	"github.com/recom-compiler/recom/interp"
	"github.com/recom-compiler/recom/interp/exec"
)

// dssmTF1 generates the lit tests' two-tower model written as a TF1
// Estimator DSSM export is (Inputs/dssm_tf1.json: every column an
// input_layer of its own, the one-column item tower without a ConcatV2,
// towers of dense layers with batch normalization when bn, tf.Example
// serving) and compiles it with the passes named.
func dssmTF1(t *testing.T, bn bool, passes ...string) *compiled {
	t.Helper()
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
		spec.Towers[i].BatchNorm = bn
	}
	g, err := gen.Generate(spec, gen.Options{Seed: 6})
	if err != nil {
		t.Fatal(err)
	}
	opts := &exec.Options{Variables: map[string]*interp.Tensor{}}
	for _, a := range g.Tables {
		opts.Variables[a.Name] = a.Tensor
	}
	text := graphdef.MarshalText(g.Graph)
	prog, err := compilePasses("dssm_tf1.pbtxt", text, passes...)
	if err != nil {
		t.Fatal(err)
	}
	ref, err := importer.Import(all.NewContext(), g.Graph)
	if err != nil {
		t.Fatal(err)
	}
	return &compiled{prog: prog, ref: ref, opts: opts, spec: spec, outputs: []string{gen.PredictionNode, "user", "item/item"}}
}

// A two-tower model with two embedding layers (the user tower's ConcatV2
// of three one-column input_layers, the item tower's lone column) runs
// natively: one packer per layer reads the tf.Example records, both
// layers run on the device, and the prediction and both towers'
// embeddings equal the interpreter's on the GraphDef. With --fuse-dense
// the towers' dense layers run on the device too; with batch
// normalization between them --fuse-dense folds it into the next layer's
// weight and bias (evaluated once from the variables), and all four dense
// layers run on the device. Unfolded (no-fold-bn) the batch norm is a
// host step between device steps, and the session refuses the program,
// naming the dense layer that reads a host result.
func TestSimTwoTowersTF1(t *testing.T) {
	for _, c := range []struct {
		name   string
		bn     bool
		passes []string
		dense  int
	}{
		{"dense on the GPU", false, []string{"lower-emb", "simplify-shapes", "fuse", "fuse-dense"}, 4},
		{"batch norm, dense on the host", true, []string{"lower-emb", "simplify-shapes", "fuse"}, 0},
		{"batch norm folded, dense on the GPU", true, []string{"lower-emb", "simplify-shapes", "fuse", "fuse-dense"}, 4},
	} {
		t.Run(c.name, func(t *testing.T) {
			m := dssmTF1(t, c.bn, c.passes...)
			s, sim := simSession(t, m, Options{Slots: 2})
			if len(s.plan.layers) != 2 || len(s.plan.dense) != c.dense {
				t.Fatalf("%d layers and %d dense layers planned, want 2 and %d", len(s.plan.layers), len(s.plan.dense), c.dense)
			}
			for i, b := range []int{1, 19, 64} {
				f := m.feeds(t, b, uint64(700+i))
				got, err := s.Run(f)
				if err != nil {
					t.Fatalf("B=%d: %v", b, simErr(sim, err))
				}
				check(t, fmt.Sprintf("B=%d", b), got, m.reference(t, f))
			}
			text := s.Summary().String()
			t.Logf("\n%s", text)
			for _, want := range []string{`fused.embedding_layer (node "user", 3 columns)`, `fused.embedding_layer (node "item/item", 1 columns)`} {
				if !strings.Contains(text, want) {
					t.Errorf("the summary lacks %q:\n%s", want, text)
				}
			}
			if strings.Contains(text, "by the interpreter first") {
				t.Errorf("the interpreter computes some of the layers' inputs:\n%s", text)
			}
		})
	}
	m := dssmTF1(t, true, "lower-emb", "simplify-shapes", "fuse", "fuse-dense=no-fold-bn=true")
	_, err := planProgram(m.prog.Module, m.outputs)
	if err == nil || !strings.Contains(err.Error(), `'fused.dense' op (node "dense_1/BiasAdd") input #0 is computed on the host from device results`) {
		t.Errorf("batch normalization between dense layers on the device, not folded: %v", err)
	}
}
