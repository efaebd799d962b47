package exec_test

import (
	"context"
	"strings"
	"testing"

	"github.com/recom-compiler/recom/dialects/builtin"
	"github.com/recom-compiler/recom/dialects/tfg"
	"github.com/recom-compiler/recom/frontend/graphdef"
	"github.com/recom-compiler/recom/frontend/importer"
	"github.com/recom-compiler/recom/interp"
	"github.com/recom-compiler/recom/interp/exec"
	"github.com/recom-compiler/recom/textir"
)

// graph is a small GraphDef: x (fed) → two = x + x → sq = two * two; bad
// (a cast to string, which fails) hangs off x; cyc1 and cyc2 form a cycle;
// unk is an op without semantics.
const graph = `
node { name: "x" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } } }
node { name: "two" op: "AddV2" input: "x" input: "x" attr { key: "T" value { type: DT_FLOAT } } }
node { name: "sq" op: "Mul" input: "two" input: "two" attr { key: "T" value { type: DT_FLOAT } } }
node { name: "bad" op: "Cast" input: "x" attr { key: "SrcT" value { type: DT_FLOAT } } attr { key: "DstT" value { type: DT_STRING } } }
node { name: "cyc1" op: "Identity" input: "cyc2" attr { key: "T" value { type: DT_FLOAT } } }
node { name: "cyc2" op: "Identity" input: "cyc1" attr { key: "T" value { type: DT_FLOAT } } }
node { name: "unk" op: "FancyOp" input: "x" }
node { name: "split" op: "Unpack" input: "x" attr { key: "T" value { type: DT_FLOAT } } attr { key: "num" value { i: 2 } } }
node { name: "neg" op: "Neg" input: "split:1" input: "^sq" attr { key: "T" value { type: DT_FLOAT } } }
node { name: "wrong" op: "Cast" input: "x" attr { key: "SrcT" value { type: DT_FLOAT } } attr { key: "DstT" value { type: DT_INT32 } } attr { key: "_output_shapes" value { list { shape { dim { size: 2 } } } } } }
`

func load(t testing.TB) *textir.Operation {
	t.Helper()
	f, err := graphdef.Parse([]byte(graph), "g.pbtxt")
	if err != nil {
		t.Fatal(err)
	}
	m, err := importer.Import(textir.NewContext(builtin.Dialect(), tfg.Dialect()), f.Graph)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func TestRun(t *testing.T) {
	m := load(t)
	x := interp.Vector[float32](1, 2)
	ctx := context.Background()
	cases := []struct {
		name    string
		feeds   map[string]*interp.Tensor
		outputs []string
		want    map[string]*interp.Tensor
		wantErr string
	}{
		{name: "closure only", feeds: map[string]*interp.Tensor{"x": x}, outputs: []string{"sq"},
			want: map[string]*interp.Tensor{"sq": interp.Vector[float32](4, 16)}},
		{name: "node:idx and node__idx", feeds: map[string]*interp.Tensor{"x": x}, outputs: []string{"split:1", "split__0", "two:0"},
			want: map[string]*interp.Tensor{"split:1": interp.Scalar[float32](2), "split__0": interp.Scalar[float32](1), "two:0": interp.Vector[float32](2, 4)}},
		{name: "control output and control edge", feeds: map[string]*interp.Tensor{"x": x}, outputs: []string{"^neg", "neg"},
			want: map[string]*interp.Tensor{"neg": interp.Scalar[float32](-2)}},
		{name: "a fed intermediate cuts its producers", feeds: map[string]*interp.Tensor{"two": interp.Vector[float32](3, 3)},
			outputs: []string{"sq"}, want: map[string]*interp.Tensor{"sq": interp.Vector[float32](9, 9)}},
		{name: "missing feed names the placeholder", outputs: []string{"sq"}, wantErr: `(node "x") is not fed`},
		{name: "kernel error names the node", feeds: map[string]*interp.Tensor{"x": x}, outputs: []string{"bad"}, wantErr: `(node "bad") Cast:`},
		{name: "cycle", outputs: []string{"cyc1"}, wantErr: "dependency cycle"},
		{name: "no semantics", feeds: map[string]*interp.Tensor{"x": x}, outputs: []string{"^unk"}, wantErr: `'tfg.FancyOp' op (node "unk") has no semantics`},
		{name: "unknown output", outputs: []string{"nope"}, wantErr: `no op named "nope"`},
		{name: "result index out of range", outputs: []string{"sq:3"}, wantErr: `tensor "sq:3" does not exist`},
		{name: "feed of the wrong dtype", feeds: map[string]*interp.Tensor{"x": interp.Vector[int32](1)}, outputs: []string{"sq"},
			wantErr: `feed "x" has dtype int32, but the tensor is float32`},
		{name: "feed of the wrong shape", feeds: map[string]*interp.Tensor{"x": interp.Vector[float32](1, 2, 3)}, outputs: []string{"wrong"},
			wantErr: `(node "wrong") result #0: shape [3] is incompatible with the tensor type tensor<2xi32>`},
		{name: "no outputs", wantErr: "no outputs"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := exec.Run(ctx, m, c.feeds, c.outputs, nil)
			if c.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), c.wantErr) {
					t.Fatalf("got %v, want an error containing %q", err, c.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != len(c.want) {
				t.Errorf("got %d outputs, want %d", len(got), len(c.want))
			}
			for k, w := range c.want {
				if err := got[k].Equal(w); err != nil {
					t.Errorf("%s: %v", k, err)
				}
			}
		})
	}
}

// A kernel returning the wrong dtype for its op's result type is caught.
func TestResultDTypeChecked(t *testing.T) {
	k, _ := exec.Lookup("tfg.Neg")
	defer exec.Register("tfg.Neg", k)
	exec.Register("tfg.Neg", func(op *textir.Operation, in []*interp.Tensor, st *exec.State) ([]*interp.Tensor, error) {
		return []*interp.Tensor{interp.Scalar[int64](1)}, nil
	})
	_, err := exec.Run(context.Background(), load(t), map[string]*interp.Tensor{"x": interp.Vector[float32](1, 2)}, []string{"neg"}, nil)
	if err == nil || !strings.Contains(err.Error(), "result #0 has dtype int64, but the op's result type") {
		t.Errorf("got %v", err)
	}
}

func TestCanceled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := exec.Run(ctx, load(t), map[string]*interp.Tensor{"x": interp.Vector[float32](1, 2)}, []string{"sq"}, nil)
	if err == nil {
		t.Error("a canceled run succeeded")
	}
}

func TestRandomTensorDeterministic(t *testing.T) {
	a, err := exec.RandomTensor(interp.Float32, []int64{3, 4}, 7, "emb")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := exec.RandomTensor(interp.Float32, []int64{3, 4}, 7, "emb")
	c, _ := exec.RandomTensor(interp.Float32, []int64{3, 4}, 8, "emb")
	if a.Equal(b) != nil || a.Equal(c) == nil {
		t.Errorf("random tensors: same seed %v, other seed %v", a.Equal(b), a.Equal(c))
	}
	rows, _ := exec.RandomRows(interp.Float32, []int64{4}, exec.RandomKey(7, "emb"), 8, 4)
	for i, v := range rows.Float32s() {
		if v != a.Float32s()[8+i] || v < -0.1 || v >= 0.1 {
			t.Errorf("row 2 elem %d = %v, table has %v", i, v, a.Float32s()[8+i])
		}
	}
}

// Evaluate takes the values themselves: results by op, several results of
// one op, a fed value, and values that are not the program's.
func TestEvaluate(t *testing.T) {
	m := load(t)
	p, err := exec.Compile(m)
	if err != nil {
		t.Fatal(err)
	}
	ops := map[string]*textir.Operation{}
	m.Walk(func(op *textir.Operation) bool {
		if n := exec.OpName(op); n != "" {
			ops[n] = op
		}
		return true
	})
	ctx := context.Background()
	x := map[string]*interp.Tensor{"x": interp.Vector[float32](1, 2)}
	got, err := p.Evaluate(ctx, x, []*textir.Value{ops["sq"].Result(0), ops["split"].Result(1), ops["two"].Result(0), ops["x"].Result(0)}, nil)
	if err != nil {
		t.Fatal(err)
	}
	for i, w := range []*interp.Tensor{interp.Vector[float32](4, 16), interp.Scalar[float32](2), interp.Vector[float32](2, 4), interp.Vector[float32](1, 2)} {
		if err := got[i].Equal(w); err != nil {
			t.Errorf("value %d: %v", i, err)
		}
	}
	// A fed intermediate cuts its producers: x need not be fed.
	got, err = p.Evaluate(ctx, map[string]*interp.Tensor{"two": interp.Vector[float32](3)}, []*textir.Value{ops["sq"].Result(0)}, nil)
	if err != nil || got[0].Equal(interp.Vector[float32](9)) != nil {
		t.Errorf("fed intermediate: %v, %v", got, err)
	}
	var foreign *textir.Value
	load(t).Walk(func(op *textir.Operation) bool {
		if exec.OpName(op) == "sq" {
			foreign = op.Result(0)
		}
		return true
	})
	for _, c := range []struct {
		name    string
		values  []*textir.Value
		wantErr string
	}{
		{"not the program's", []*textir.Value{foreign}, "value #0 is not a result or function argument of the program"},
		{"nil", []*textir.Value{nil}, "value #0 is not a result"},
		{"none", nil, "no values requested"},
		{"kernel error names the node", []*textir.Value{ops["bad"].Result(0)}, `(node "bad") Cast:`},
	} {
		if _, err := p.Evaluate(ctx, x, c.values, nil); err == nil || !strings.Contains(err.Error(), c.wantErr) {
			t.Errorf("%s: got %v, want an error containing %q", c.name, err, c.wantErr)
		}
	}
}
