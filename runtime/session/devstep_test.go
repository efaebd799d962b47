package session

import (
	"fmt"
	"math"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/recom-compiler/recom/interp"
	"github.com/recom-compiler/recom/interp/exec"
)

// deviceStepOutputs are device_steps.pbtxt's outputs: every form of
// device step, and the host steps after the graph (zeros and sum_keep are
// not, so that cat's producers may write them in its columns; prod_use
// and cat read them).
var deviceStepOutputs = []string{
	"d4", "add_full", "sub_col", "mul_col", "add_row", "max_s", "min_2d", "div", "col_row", "col_one", "bias",
	"sigmoid", "tanh", "relu", "neg", "abs", "square", "exp", "addn3", "addn1", "mean_vec", "max_r", "min_r",
	"prod_r", "sm", "lsm", "ones", "cat", "sm_cat", "castf", "neg_cast", "vec_s", "vec_vec", "lg", "batch_sum", "addn1_plus", "prod_use",
}

// loadDeviceSteps compiles device_steps.pbtxt.
func loadDeviceSteps(t *testing.T) *compiled {
	path := filepath.Join("testdata", "device_steps.pbtxt")
	m := compileModel(t, path, readFile(t, path), &exec.Options{}, nil)
	m.outputs = deviceStepOutputs
	return m
}

// deviceFeeds draws x: normal values, with a NaN, infinities, zeros of
// either sign and large values in the first rows when specials.
func deviceFeeds(b int64, seed uint64, specials bool) map[string]*interp.Tensor {
	r := rand.New(rand.NewPCG(seed, 9))
	x := make([]float32, 4*b)
	for i := range x {
		x[i] = float32(r.NormFloat64() * 2)
	}
	if specials {
		sp := []float32{float32(math.NaN()), float32(math.Inf(1)), float32(math.Inf(-1)), 0, float32(math.Copysign(0, -1)), 60, -60, 1e-20}
		for i, v := range sp {
			if i < len(x) {
				x[i*3%len(x)] = v
			}
		}
	}
	return map[string]*interp.Tensor{"x": interp.Must(interp.New([]int64{b, 4}, x))}
}

// checkNaN compares as check does (rtol 1e-5, atol 1e-6; with cuBLASLt's
// float32 products rtol 1e-4, atol 1e-5), NaN where the interpreter has
// NaN allowed (the special rows).
func checkNaN(t *testing.T, what string, got, want map[string]*interp.Tensor, lt bool) {
	rtol, atol := 1e-5, 1e-6
	if lt {
		rtol, atol = 1e-4, 1e-5
	}
	t.Helper()
	for name, w := range want {
		g := got[name]
		if g == nil {
			t.Errorf("%s: output %q missing", what, name)
			continue
		}
		if !slices.Equal(g.Shape(), w.Shape()) {
			t.Errorf("%s: output %q of shape %v, want %v", what, name, g.Shape(), w.Shape())
			continue
		}
		gf, wf := g.Float32s(), w.Float32s()
		for i := range wf {
			a, b := float64(gf[i]), float64(wf[i])
			switch {
			case math.IsNaN(b) || math.IsNaN(a):
				if math.IsNaN(a) != math.IsNaN(b) {
					t.Errorf("%s: output %q element %d = %v, want %v", what, name, i, a, b)
				}
			case math.IsInf(b, 0) || math.IsInf(a, 0):
				if a != b {
					t.Errorf("%s: output %q element %d = %v, want %v", what, name, i, a, b)
				}
			case math.Abs(a-b) > atol+rtol*math.Abs(b):
				t.Errorf("%s: output %q element %d = %v, want %v", what, name, i, a, b)
			}
		}
	}
}

// Every form of device step (devstep.go) runs on the device in the batch's
// graph and equals the interpreter, at B = 1 and more (a grid-stride
// batch among them), on random feeds and on feeds with NaN, infinities
// and signed zeros; Log and a Sum over the batch stay host steps after the
// graph, and a device step between dense layers keeps the GPU part whole.
func TestSimDeviceSteps(t *testing.T) {
	m := loadDeviceSteps(t)
	s, sim := simSession(t, m, Options{Slots: 1})
	p := s.plan
	var dev, host []string
	for _, st := range p.devSteps {
		dev = append(dev, st.node)
	}
	for _, hs := range p.post {
		host = append(host, hs.node)
	}
	if fmt.Sprint(host) != "[lg batch_sum]" || len(p.pre) != 0 {
		t.Errorf("host steps after the graph %v (want [lg batch_sum]), %d before", host, len(p.pre))
	}
	for _, want := range []string{"mid", "add_full", "sub_col", "mul_col", "add_row", "max_s", "min_2d", "div", "col_row", "col_one", "bias",
		"sigmoid", "tanh", "relu", "neg", "abs", "square", "exp", "addn3", "sum_keep", "mean_vec", "max_r", "min_r", "prod_r",
		"sm", "lsm", "zeros", "ones", "cat", "sm_cat", "neg_cast", "vec_s", "vec_vec", "addn1_plus", "prod_use"} {
		if !slices.Contains(dev, want) {
			t.Errorf("%q is no device step (device steps: %v)", want, dev)
		}
	}
	for _, alias := range []string{"addn1", "castf"} {
		if slices.Contains(dev, alias) || slices.Contains(host, alias) {
			t.Errorf("%q is a step, not an alias", alias)
		}
	}
	// The concatenation's inputs made by device steps are written in its
	// columns; the dense layer's output is copied there.
	var cat *devStep
	for _, st := range p.devSteps {
		if st.node == "cat" {
			cat = st
		}
	}
	for i, in := range cat.concat {
		placed := in.base().place != nil && in.base().place.in == cat.out
		if want := i == 0 || i == 2; placed != want {
			t.Errorf("cat's input #%d (%s) placed %v, want %v", i, in.name, placed, want)
		}
	}
	for i, b := range []int64{1, 5, 300} {
		for _, sp := range []bool{false, true} {
			f := deviceFeeds(b, uint64(10+i), sp)
			got, err := s.Run(f)
			if err != nil {
				t.Fatalf("B=%d: %v", b, simErr(sim, err))
			}
			want := m.reference(t, f)
			if sp {
				checkNaN(t, fmt.Sprintf("B=%d, specials", b), got, want, false)
			} else {
				check(t, fmt.Sprintf("B=%d", b), got, want)
			}
		}
	}
	if err := s.Profile(deviceFeeds(3, 1, false), 1); err != nil {
		t.Fatal(simErr(sim, err))
	}
	sum := s.Summary()
	text := sum.String()
	for _, want := range []string{`device step: tfg.Softmax (node "sm") in the batch's graph: rows_f32`,
		`device step: tfg.AddN (node "addn3") in the batch's graph: map_f32, map_f32`,
		`device step: tfg.ConcatV2 (node "cat") in the batch's graph: map_f32, map_f32; 2 of its inputs written in its columns by their producers`,
		`tfg.Log (node "lg") after the graph`, `tfg.Sum (node "batch_sum") after the graph`,
		`kernel rows_f32 1 x 256 (tfg.Sum (node "sum_keep"))`, `GPU, step alone: batch 3: kernel map_f32 1 x 256 (tfg.AddV2 (node "mid"))`} {
		if !strings.Contains(text, want) {
			t.Errorf("the summary lacks %q:\n%s", want, text)
		}
	}
	// cat's launches: the two copies of d2 and d1; zeros and sum_keep
	// write there themselves.
	if n := strings.Count(strings.Join(sum.Graphs, "\n"), `(tfg.ConcatV2 (node "cat"))`); n != 2*len(sum.Graphs) || n == 0 {
		t.Errorf("%d launches of cat in %d graphs, want 2 in each", n, len(sum.Graphs))
	}
}

// The device steps are exported in DensePlan (Device set) after the dense
// layers and before the host steps, with their constant operands, and the
// plan evaluated as a peer does equals the session; the dense layer that
// reads a device step's result gets an operand a peer cannot have.
func TestDensePlanDeviceSteps(t *testing.T) {
	m := loadDeviceSteps(t)
	m.outputs = []string{"sm_cat", "bias", "vec_vec", "lg"}
	s, sim := simSession(t, m, Options{Slots: 1})
	dp, err := s.DensePlan()
	if err != nil {
		t.Fatal(err)
	}
	var ops []string
	for _, h := range dp.Host {
		ops = append(ops, fmt.Sprintf("%s/%v", h.Op, h.Device))
	}
	want := "[ZerosLike/true Sum/true ConcatV2/true Softmax/true Sub/true BiasAdd/true Mean/true Min/true Mul/true OnesLike/true Log/false]"
	if fmt.Sprint(ops) != want {
		t.Errorf("steps %v, want %s", ops, want)
	}
	f := deviceFeeds(4, 3, false)
	got, err := s.Run(f)
	if err != nil {
		t.Fatal(simErr(sim, err))
	}
	vals := map[string]*interp.Tensor{}
	for _, in := range dp.Inputs {
		vals[in.Name] = f[in.Feed]
	}
	outs := evalDensePlan(t, dp, 4, vals)
	wantOut := map[string]*interp.Tensor{}
	for i, n := range dp.Names {
		wantOut[n] = outs[i]
	}
	check(t, "the session against the plan", got, wantOut)

	m2 := loadDeviceSteps(t)
	m2.outputs = []string{"d4"}
	s2, _ := simSession(t, m2, Options{Slots: 1})
	dp2, err := s2.DensePlan()
	if err != nil {
		t.Fatal(err)
	}
	r := dp2.Dense[len(dp2.Dense)-1].Inputs[0]
	if r.Kind != "other" || !strings.Contains(r.What, `tfg.AddV2 (node "mid")`) {
		t.Errorf("d4's input exported as %+v", r)
	}
}

// A device step's operand of the wrong kind keeps the op a host step:
// shapes that would move the batch dim or break a row, an axis that is not
// the last, an op outside DeviceOps.
func TestPlanDeviceRefused(t *testing.T) {
	for _, c := range []struct {
		name, graph, out string
	}{
		{"a reduction over the batch", planX + planW + planMM + planAx("0") +
			`node { name: "r" op: "Sum" input: "mm" input: "ax" attr { key: "T" value { type: DT_FLOAT } } attr { key: "Tidx" value { type: DT_INT32 } } }`, "r"},
		{"a constant with a dim where the batch is", planX + planW + planMM +
			`node { name: "c" op: "Const" attr { key: "dtype" value { type: DT_FLOAT } } attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape { dim { size: 3 } dim { size: 2 } } float_val: 1 } } } }` +
			`node { name: "r" op: "Mul" input: "mm" input: "c" attr { key: "T" value { type: DT_FLOAT } } }`, "r"},
		{"a [B] value against a [B, 2] one", planX + planW + planMM + planAx("1") +
			`node { name: "v" op: "Sum" input: "mm" input: "ax" attr { key: "T" value { type: DT_FLOAT } } attr { key: "Tidx" value { type: DT_INT32 } } }` +
			`node { name: "r" op: "AddV2" input: "mm" input: "v" attr { key: "T" value { type: DT_FLOAT } } }`, "r"},
		{"an op outside DeviceOps", planX + planW + planMM +
			`node { name: "r" op: "Rsqrt" input: "mm" attr { key: "T" value { type: DT_FLOAT } } }`, "r"},
	} {
		t.Run(c.name, func(t *testing.T) {
			p, err := planOf(t, c.graph, c.out)
			if err != nil {
				t.Fatal(err)
			}
			for _, st := range p.devSteps {
				if st.node == "r" {
					t.Errorf("r is a device step")
				}
			}
			if len(p.post) != 1 || p.post[0].node != "r" {
				t.Errorf("%d host steps after the graph, want r", len(p.post))
			}
		})
	}
}

func planAx(v string) string {
	return `node { name: "ax" op: "Const" attr { key: "dtype" value { type: DT_INT32 } } attr { key: "value" value { tensor { dtype: DT_INT32 tensor_shape { dim { size: 1 } } int_val: ` + v + ` } } } }` + "\n"
}

// With cuBLASLt's products (simulated) the device steps read float32
// whatever the precision: in bf16 a dense layer's output that a device
// step reads stays float32 (converted for the next product by a move),
// and the outputs equal the interpreter's within the precision's
// tolerance (looser in bf16, where the head's differences cancel).
func TestSimCublasLtDeviceSteps(t *testing.T) {
	m := loadDeviceSteps(t)
	// Not batch_sum: its host step would copy d1 back (float32 then).
	m.outputs = slices.DeleteFunc(slices.Clone(m.outputs), func(s string) bool { return s == "batch_sum" })
	for _, prec := range []string{"fp32", "bf16"} {
		t.Run(prec, func(t *testing.T) {
			s, sim, lt := simSessionLt(t, m, Options{Slots: 1, Dense: DenseCublasLt, Precision: prec}, nil)
			if d1 := s.plan.dense[0]; d1.node != "d1" || d1.out.toHost {
				t.Fatalf("dense step %s copied back %v", d1.node, d1.out.toHost)
			}
			for _, st := range s.plan.devSteps {
				for _, d := range st.reads {
					if d.base().format != F32 {
						t.Errorf("%s reads %s in %v", st.node, d.name, d.base().format)
					}
				}
			}
			for i, b := range []int64{1, 7} {
				f := deviceFeeds(b, uint64(40+i), false)
				got, err := s.Run(f)
				if err != nil {
					t.Fatalf("B=%d: %v", b, simErr(sim, err))
				}
				want := m.reference(t, f)
				if prec == "fp32" {
					checkPrec(t, fmt.Sprintf("%s B=%d", prec, b), DenseCublasLt, prec, got, want)
					continue
				}
				// bf16: the head's differences (sub_col, col_one) cancel
				// bf16's rounding of the dense outputs beyond the usual
				// tolerance; the bound is looser, not absent.
				for name, w := range want {
					if err := got[name].AllClose(w, 0.1, 0.02); err != nil {
						t.Errorf("bf16 B=%d: output %q: %v", b, name, err)
					}
				}
			}
			if lt.Matmuls() == 0 {
				t.Error("no cuBLASLt product ran")
			}
		})
	}
}
