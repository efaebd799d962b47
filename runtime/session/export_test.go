package session

import (
	"fmt"
	"path/filepath"
	"testing"

	"github.com/recom-compiler/recom/interp"
	"github.com/recom-compiler/recom/interp/exec"
	"github.com/recom-compiler/recom/interp/tfops"
)

// evalDensePlan computes the plan's outputs from the layers' outputs and
// the dense inputs (by plan name), as a peer does: every dense layer as
// concat, MatMul, BiasAdd and its activation, every host step by its op.
func evalDensePlan(t *testing.T, dp *DensePlan, b int64, vals map[string]*interp.Tensor) []*interp.Tensor {
	t.Helper()
	get := func(r PlanRef) *interp.Tensor {
		t.Helper()
		switch r.Kind {
		case "device":
			v := vals[r.Name]
			if v == nil {
				t.Fatalf("device value %q unknown", r.Name)
			}
			v, err := v.Reshaped(append([]int64{b}, r.Rest...))
			if err != nil {
				t.Fatal(err)
			}
			return v
		case "host":
			if v := vals[r.Name]; v != nil {
				return v
			}
			t.Fatalf("host value %q used before it is computed", r.Name)
		case "const":
			return r.Const
		}
		t.Fatalf("operand %+v: no value for a peer", r)
		return nil
	}
	must := func(x *interp.Tensor, err error) *interp.Tensor {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		return x
	}
	for _, d := range dp.Dense {
		var xs []*interp.Tensor
		for i, r := range d.Inputs {
			xs = append(xs, must(get(r).Reshaped([]int64{b, d.Ks[i]})))
		}
		x := xs[0]
		if len(xs) > 1 {
			x = must(tfops.ConcatV2(xs, interp.Scalar[int32](1)))
		}
		if sh := d.Weight.Shape(); len(sh) != 2 || sh[1] != d.N {
			t.Fatalf("%s: weight of shape %v, want K×%d", d.Node, sh, d.N)
		}
		y := must(tfops.MatMul(x, d.Weight, false, false))
		if d.Bias != nil {
			y = must(tfops.BiasAdd(y, d.Bias, "NHWC"))
		}
		switch d.Activation {
		case "relu":
			y = must(tfops.Relu(y))
		case "sigmoid":
			y = must(tfops.Sigmoid(y))
		case "tanh":
			y = must(tfops.Tanh(y))
		case "none":
		default:
			t.Fatalf("%s: activation %q", d.Node, d.Activation)
		}
		vals[d.Output] = y
	}
	for _, h := range dp.Host {
		var in []*interp.Tensor
		for _, r := range h.Inputs {
			in = append(in, get(r))
		}
		var y *interp.Tensor
		keep, _ := h.Attrs["keep_dims"].(bool)
		bin := map[string]func(x, y *interp.Tensor) (*interp.Tensor, error){"AddV2": tfops.AddV2, "Add": tfops.Add, "Sub": tfops.Sub,
			"Mul": tfops.Mul, "RealDiv": tfops.RealDiv, "Maximum": tfops.Maximum, "Minimum": tfops.Minimum}
		un := map[string]func(x *interp.Tensor) (*interp.Tensor, error){"Relu": tfops.Relu, "Tanh": tfops.Tanh, "Neg": tfops.Neg,
			"Abs": tfops.Abs, "Square": tfops.Square, "Exp": tfops.Exp, "Log": tfops.Log, "ZerosLike": tfops.ZerosLike, "OnesLike": tfops.OnesLike}
		red := map[string]func(x, a *interp.Tensor, keep bool) (*interp.Tensor, error){"Mean": tfops.Mean, "Max": tfops.Max,
			"Min": tfops.Min, "Prod": tfops.Prod}
		switch {
		case bin[h.Op] != nil:
			y = must(bin[h.Op](in[0], in[1]))
		case un[h.Op] != nil:
			y = must(un[h.Op](in[0]))
		case red[h.Op] != nil:
			y = must(red[h.Op](in[0], in[1], keep))
		case h.Op == "BiasAdd":
			y = must(tfops.BiasAdd(in[0], in[1], "NHWC"))
		case h.Op == "ConcatV2":
			y = must(tfops.ConcatV2(in[:len(in)-1], in[len(in)-1]))
		}
		switch h.Op {
		case "AddN":
			y = in[0]
			for _, z := range in[1:] {
				y = must(tfops.Add(y, z))
			}
		case "Softmax":
			y = must(tfops.Softmax(in[0]))
		case "Sigmoid":
			y = must(tfops.Sigmoid(in[0]))
		case "Identity":
			y = in[0]
		case "Sum":
			y = must(tfops.Sum(in[0], in[1], keep))
		case "ArgMax":
			y = must(tfops.ArgMax(in[0], in[1], interp.Int64))
		default:
			if y == nil {
				t.Fatalf("host step %s (node %q): not in this test's evaluator", h.Op, h.Node)
			}
		}
		vals[h.Outputs[0]] = y
	}
	var out []*interp.Tensor
	for _, r := range dp.Outputs {
		out = append(out, get(r))
	}
	return out
}

// The plan after the layers, evaluated from the interpreter's layer output
// (or dense input) with the exported weights and host steps, gives the
// session's outputs: nothing of the dense part is missing or misnamed.
func TestDensePlan(t *testing.T) {
	for _, tc := range []struct {
		name  string
		model func(t *testing.T) *compiled
		// inputs: the interpreter's outputs that give the plan's layer
		// outputs and inputs, by plan name.
		layer string
		feeds func(m *compiled, b int64) map[string]*interp.Tensor
		steps []string
	}{
		{"small", func(t *testing.T) *compiled {
			m := loadSmall(t)
			m.outputs = []string{"prediction", "input_layer/concat"}
			return m
		}, "input_layer/concat", func(m *compiled, b int64) map[string]*interp.Tensor { return m.feeds(t, int(b), 7+uint64(b)) }, nil},
		{"host_steps_shape", func(t *testing.T) *compiled {
			path := filepath.Join("testdata", "host_steps_shape.pbtxt")
			m := compileModel(t, path, readFile(t, path), &exec.Options{}, nil)
			m.outputs = []string{"sm", "total", "cls"}
			return m
		}, "", func(_ *compiled, b int64) map[string]*interp.Tensor {
			x := make([]int64, 4*b)
			for i := range x {
				x[i] = int64(i%5) - 2
			}
			return map[string]*interp.Tensor{"x": interp.Must(interp.New([]int64{b, 4}, x))}
		}, []string{"AddN", "Softmax", "Sum", "ArgMax"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := tc.model(t)
			s, sim := simSession(t, m, Options{Slots: 1})
			dp, err := s.DensePlan()
			if err != nil {
				t.Fatal(err)
			}
			if len(dp.Dense) == 0 {
				t.Fatal("no dense layers in the plan")
			}
			var ops []string
			for _, h := range dp.Host {
				ops = append(ops, h.Op)
			}
			if fmt.Sprint(ops) != fmt.Sprint(tc.steps) && !(len(ops) == 0 && tc.steps == nil) {
				t.Errorf("host steps %v, want %v", ops, tc.steps)
			}
			for _, b := range []int64{1, 6} {
				f := tc.feeds(m, b)
				got, err := s.Run(f)
				if err != nil {
					t.Fatal(simErr(sim, err))
				}
				// The interpreter's values of the plan's sources.
				need := append([]string(nil), m.outputs...)
				for _, in := range dp.Inputs {
					if in.Feed == "" {
						need = append(need, in.Node)
					}
				}
				ref, err := exec.Run(t.Context(), m.ref, f, need, m.opts)
				if err != nil {
					t.Fatal(err)
				}
				vals := map[string]*interp.Tensor{}
				if dp.Layers > 0 {
					vals["layer0"] = ref[tc.layer]
				}
				for _, in := range dp.Inputs {
					if in.Feed != "" {
						vals[in.Name] = must32(t, f[in.Feed])
					} else {
						vals[in.Name] = ref[in.Node]
					}
				}
				outs := evalDensePlan(t, dp, b, vals)
				if len(outs) != len(dp.Names) {
					t.Fatalf("%d outputs for %d names", len(outs), len(dp.Names))
				}
				want := map[string]*interp.Tensor{}
				for i, n := range dp.Names {
					want[n] = outs[i]
				}
				check(t, fmt.Sprintf("B=%d: the session against the plan", b), got, want)
			}
		})
	}
}

func must32(t *testing.T, x *interp.Tensor) *interp.Tensor {
	t.Helper()
	if x.DType() == interp.Float32 {
		return x
	}
	y, err := tfops.Cast(x, interp.Float32)
	if err != nil {
		t.Fatal(err)
	}
	return y
}
