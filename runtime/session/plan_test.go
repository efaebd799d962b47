package session

import (
	"strings"
	"testing"
)

// Nodes of the plan tests' GraphDefs.
const (
	planX  = `node { name: "x" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } } attr { key: "shape" value { shape { dim { size: -1 } dim { size: 2 } } } } }` + "\n"
	planW  = `node { name: "w" op: "Const" attr { key: "dtype" value { type: DT_FLOAT } } attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape { dim { size: 2 } dim { size: 2 } } float_val: 1 float_val: 2 float_val: 3 float_val: 4 } } } }` + "\n"
	planMM = `node { name: "mm" op: "MatMul" input: "x" input: "w" attr { key: "T" value { type: DT_FLOAT } } }` + "\n"
)

func planOf(t *testing.T, graph string, outputs ...string) (*plan, error) {
	t.Helper()
	prog, err := compileProgram("g.pbtxt", []byte(graph))
	if err != nil {
		t.Fatal(err)
	}
	return planProgram(prog.Module, outputs)
}

// What a session cannot run natively is an error naming the op and its
// node.
func TestPlanErrors(t *testing.T) {
	for _, c := range []struct {
		name, graph string
		outputs     []string
		want        string
	}{
		{"an op without a host step", planX + planW + planMM +
			`node { name: "fl" op: "Floor" input: "mm" attr { key: "T" value { type: DT_FLOAT } } }`,
			[]string{"fl"}, `'tfg.Floor' op (node "fl") has no native step in a session`},
		{"a host step between GPU steps", planX + planW + planMM +
			`node { name: "lg" op: "Log" input: "mm" attr { key: "T" value { type: DT_FLOAT } } }` +
			`node { name: "mm2" op: "MatMul" input: "lg" input: "w" attr { key: "T" value { type: DT_FLOAT } } }`,
			[]string{"mm2"}, `(node "mm2") input #0 is computed on the host from device results; the session cannot leave the GPU between steps`},
		{"nothing on the GPU", planX + `node { name: "n" op: "Neg" input: "x" attr { key: "T" value { type: DT_FLOAT } } }`,
			[]string{"n"}, "nothing of the program runs on the GPU"},
		{"an unknown output", planX + planW + planMM, []string{"nope"}, `output "nope": no op named "nope" in the program`},
		{"a result index out of range", planX + planW + planMM, []string{"mm:1"}, `has 1 data results; tensor "mm:1" does not exist`},
		{"no outputs", planX + planW + planMM, nil, "no outputs requested"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := planOf(t, c.graph, c.outputs...)
			t.Logf("%v", err)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("got %v, want an error containing %q", err, c.want)
			}
		})
	}
}

// The bundled model's plan: one layer, its inputs left to the packer,
// five dense layers, the weights and biases constants, nothing on the
// host but the feeds.
func TestPlanSmall(t *testing.T) {
	m := loadSmall(t)
	p, err := planProgram(m.prog.Module, []string{"prediction", "input_layer/concat"})
	if err != nil {
		t.Fatal(err)
	}
	if len(p.layers) != 1 || len(p.dense) != 5 || len(p.pre) != 0 || len(p.post) != 0 || len(p.uploads) != 1 {
		t.Fatalf("%d layers, %d dense, %d host steps before and %d after, %d uploads", len(p.layers), len(p.dense), len(p.pre), len(p.post), len(p.uploads))
	}
	if n := len(p.consts); n != 10 {
		t.Errorf("%d constants evaluated, want the 5 weights and 5 biases", n)
	}
	if !p.layers[0].out.toHost || !p.dense[4].out.toHost || p.dense[0].out.toHost {
		t.Errorf("copied back: layer %v, prediction %v, bottom MLP %v; want the outputs only", p.layers[0].out.toHost, p.dense[4].out.toHost, p.dense[0].out.toHost)
	}
	if u := p.uploads[0]; u.fromHost.feed != "dense_features" || u.width != 8 {
		t.Errorf("upload %s of width %d", u.fromHost.feed, u.width)
	}
}
