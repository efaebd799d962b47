package densetogpu

import (
	"bytes"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/recom-compiler/recom/dialects/all"
	"github.com/recom-compiler/recom/dialects/builtin"
	"github.com/recom-compiler/recom/dialects/fused/abi"
	"github.com/recom-compiler/recom/dialects/gpu"
	"github.com/recom-compiler/recom/interp"
	"github.com/recom-compiler/recom/interp/tfops"
	"github.com/recom-compiler/recom/textir"
)

// kernelModule builds a module holding gpu.module @dense with d's kernel
// (and its reduce kernel when d splits K).
func kernelModule(t testing.TB, ctx *textir.Context, d *abi.Dense) (*textir.Operation, *textir.Operation) {
	m, fn, _ := kernelModule2(t, ctx, d)
	return m, fn
}

func kernelModule2(t testing.TB, ctx *textir.Context, d *abi.Dense) (m, fn, reduce *textir.Operation) {
	t.Helper()
	m = builtin.NewModule(ctx, textir.UnknownLoc{})
	gm := gpu.NewModule(ctx, textir.UnknownLoc{}, ModuleName)
	m.Region(0).Front().Append(gm)
	fn = BuildKernel(ctx, textir.NameLoc{Name: "layer"}, "layer", d)
	gm.Region(0).Front().Append(fn)
	if d.Split() {
		reduce = BuildReduceKernel(ctx, textir.NameLoc{Name: "layer"}, "layer_reduce", d)
		gm.Region(0).Front().Append(reduce)
	}
	if err := textir.Verify(ctx, m); err != nil {
		t.Fatal(err)
	}
	return m, fn, reduce
}

// compileLayer compiles d's kernels for the simulator.
func compileLayer(t testing.TB, d *abi.Dense) (k, r *gpu.Kernel) {
	t.Helper()
	_, fn, rfn := kernelModule2(t, all.NewContext(), d)
	k, err := gpu.Compile(fn)
	if err != nil {
		t.Fatal(err)
	}
	if rfn != nil {
		if r, err = gpu.Compile(rfn); err != nil {
			t.Fatal(err)
		}
	}
	return k, r
}

func randFloats(r *rand.Rand, n int64) []float32 {
	v := make([]float32, n)
	for i := range v {
		v[i] = float32(r.NormFloat64())
		if r.IntN(10) == 0 {
			v[i] = 0 // the interpreter skips zero products: they must add nothing here either
		}
	}
	return v
}

// reference computes the layer with the interpreter's ops.
func reference(t testing.TB, d *abi.Dense, in *abi.DenseInputs) []float32 {
	t.Helper()
	var parts []*interp.Tensor
	for i, x := range in.X {
		shape := []int64{in.B, d.Ks[i]}
		if d.TransposeA {
			shape = []int64{d.Ks[i], in.B}
		}
		parts = append(parts, interp.Must(interp.New(shape, x)))
	}
	x := parts[0]
	var err error
	if len(parts) > 1 {
		if x, err = tfops.ConcatV2(parts, interp.Scalar(int32(1))); err != nil {
			t.Fatal(err)
		}
	}
	ws := []int64{d.K(), d.N}
	if d.TransposeB {
		ws = []int64{d.N, d.K()}
	}
	y, err := tfops.MatMul(x, interp.Must(interp.New(ws, in.W)), d.TransposeA, d.TransposeB)
	if err != nil {
		t.Fatal(err)
	}
	if d.Bias {
		if y, err = tfops.BiasAdd(y, interp.Must(interp.New([]int64{d.N}, in.Bias)), "NHWC"); err != nil {
			t.Fatal(err)
		}
	}
	switch d.Activation {
	case abi.ActRelu:
		y, err = tfops.Relu(y)
	case abi.ActSigmoid:
		y, err = tfops.Sigmoid(y)
	case abi.ActTanh:
		y, err = tfops.Tanh(y)
	}
	if err != nil {
		t.Fatal(err)
	}
	return y.Float32s()
}

type kcase struct {
	ks     []int64
	n      int64
	ta, tb bool
	bias   bool
	act    string
	acc    string
	batch  []int64
	opts   Options
}

func (c kcase) String() string {
	return fmt.Sprintf("ks%v-n%d-ta%v-tb%v-bias%v-%s-%s-%+v", c.ks, c.n, c.ta, c.tb, c.bias, c.act, c.acc, c.opts)
}

// The generated kernel, run on the simulator, gives the interpreter's
// MatMul + BiasAdd + activation: bit for bit with float64 accumulation
// (sigmoid and tanh within 1 ulp), within rtol 1e-5 with float32.
func TestKernelMatchesInterpreter(t *testing.T) {
	b := []int64{1, 7, 64, 65}
	cases := []kcase{
		{ks: []int64{32}, n: 32, bias: true, act: abi.ActRelu, batch: b},
		{ks: []int64{32, 32}, n: 96, bias: true, act: abi.ActRelu, batch: b},
		{ks: []int64{13}, n: 7, bias: true, act: abi.ActNone, batch: b},
		{ks: []int64{24, 13, 1}, n: 64, bias: true, act: abi.ActTanh, batch: []int64{1, 9}},
		{ks: []int64{128}, n: 1, bias: true, act: abi.ActSigmoid, batch: []int64{1, 7, 300}},
		{ks: []int64{40}, n: 2, act: abi.ActSigmoid, batch: []int64{3}},
		{ks: []int64{33}, n: 70, ta: true, bias: true, act: abi.ActRelu, batch: []int64{1, 5, 70}},
		{ks: []int64{36}, n: 20, tb: true, act: abi.ActNone, batch: []int64{1, 17}},
		{ks: []int64{17}, n: 9, ta: true, tb: true, bias: true, act: abi.ActTanh, batch: []int64{4}},
		{ks: []int64{64}, n: 128, bias: true, act: abi.ActRelu, acc: abi.AccF32, batch: []int64{1, 64}},
		{ks: []int64{20, 44}, n: 48, bias: true, act: abi.ActRelu, batch: []int64{50},
			opts: Options{BlockM: 32, BlockN: 16, BlockK: 8, ThreadM: 2, ThreadN: 2}},
		{ks: []int64{64}, n: 64, bias: true, act: abi.ActRelu, batch: []int64{64, 100},
			opts: Options{BlockM: 128, BlockN: 64, BlockK: 32, ThreadM: 8, ThreadN: 8}},
		// Split-K: fixed slice counts (uneven slices, slices across the
		// inputs of a concatenation, a ragged last step), and auto.
		{ks: []int64{40, 24, 7}, n: 36, bias: true, act: abi.ActRelu, batch: []int64{1, 13, 64, 70}, opts: Options{SplitK: "3"}},
		{ks: []int64{100}, n: 70, tb: true, bias: true, act: abi.ActTanh, batch: []int64{5}, opts: Options{SplitK: "5"}},
		{ks: []int64{64}, n: 3, ta: true, act: abi.ActSigmoid, batch: []int64{9}, opts: Options{SplitK: "4", BlockK: 8}},
		{ks: []int64{300, 20}, n: 128, bias: true, act: abi.ActRelu, acc: abi.AccF32, batch: []int64{2, 40}},
		{ks: []int64{500, 13}, n: 64, bias: true, act: abi.ActRelu, batch: []int64{1, 33}},
		{ks: []int64{0}, n: 4, batch: nil},                                // rejected
		{ks: []int64{8}, n: 4, batch: nil, opts: Options{SplitK: "many"}}, // rejected
	}
	r0 := rand.New(rand.NewPCG(1, 2))
	for _, c := range cases {
		t.Run(c.String(), func(t *testing.T) {
			d := &abi.Dense{Ks: c.ks, N: c.n, TransposeA: c.ta, TransposeB: c.tb, Bias: c.bias, Activation: c.act}
			if d.Activation == "" {
				d.Activation = abi.ActNone
			}
			o := c.opts
			o.Accumulate = c.acc
			if err := Plan(d, o); err != nil {
				if c.batch == nil {
					return
				}
				t.Fatal(err)
			}
			if c.batch == nil {
				t.Fatal("Plan accepted an invalid layer")
			}
			k, r := compileLayer(t, d)
			for _, batch := range c.batch {
				in := &abi.DenseInputs{B: batch}
				for _, ki := range d.Ks {
					in.X = append(in.X, randFloats(r0, batch*ki))
				}
				in.W = randFloats(r0, d.K()*d.N)
				if d.Bias {
					in.Bias = randFloats(r0, d.N)
				}
				want := reference(t, d, in)
				splits := []int64{1}
				if d.Split() {
					splits = append(splits, d.Splits(batch), d.SplitK, 2)
				}
				for _, s := range splits {
					got, err := d.RunSplit(k, r, in, s)
					if err != nil {
						t.Fatal(err)
					}
					checkLayer(t, d, fmt.Sprintf("batch %d, %d slices", batch, s), want, got, s > 1)
				}
			}
		})
	}
}

// checkLayer compares got with the interpreter's want: bit for bit with
// float64 accumulation in one slice (sigmoid and tanh within 1 ulp), 1 ulp
// with float64 over several slices, rtol 1e-5 with float32.
func checkLayer(t *testing.T, d *abi.Dense, what string, want, got []float32, split bool) {
	t.Helper()
	for i := range want {
		x, y := float64(want[i]), float64(got[i])
		exact := !split && d.Accumulate == abi.AccF64 && (d.Activation == abi.ActNone || d.Activation == abi.ActRelu)
		var bad bool
		switch {
		case exact:
			bad = math.Float32bits(want[i]) != math.Float32bits(got[i]) && !(x == 0 && y == 0)
		case d.Accumulate == abi.AccF64:
			bad = math.Abs(x-y) > 1.2e-7*math.Abs(x)+1e-30 // 1 ulp
		default:
			bad = math.Abs(x-y) > 1e-5*math.Abs(x)+1e-5
		}
		if bad || math.IsNaN(y) {
			t.Fatalf("%s: element %d (row %d, col %d): got %v, want %v", what, i, int64(i)/d.N, int64(i)%d.N, y, x)
		}
	}
}

// The kernel prints and parses back to the same text.
func TestKernelRoundTrip(t *testing.T) {
	ctx := all.NewContext()
	d := &abi.Dense{Ks: []int64{32, 8}, N: 64, Bias: true, Activation: abi.ActSigmoid}
	if err := Plan(d, Options{}); err != nil {
		t.Fatal(err)
	}
	m, _ := kernelModule(t, ctx, d)
	var a bytes.Buffer
	if err := textir.Print(&a, m, textir.PrintOptions{}); err != nil {
		t.Fatal(err)
	}
	m2, err := textir.Parse(ctx, "k.mlir", a.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	if err := textir.Verify(ctx, m2); err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := textir.Print(&b, m2, textir.PrintOptions{}); err != nil {
		t.Fatal(err)
	}
	if a.String() != b.String() {
		t.Fatal("the kernel does not print the same after a round trip")
	}
}

// Activations on special values: NaN stays NaN, huge inputs saturate, and
// zeros keep the interpreter's sign (a -0 input sums to +0, as TensorFlow's).
func TestActivationsSpecialValues(t *testing.T) {
	xs := []float32{0, float32(math.Copysign(0, -1)), 1e-30, -1e-7, 3e-5, 0.5, -2, 9, -17, 40, -90, 104, -200, 1e30, float32(math.Inf(1)), float32(math.Inf(-1)), float32(math.NaN())}
	for _, act := range []string{abi.ActNone, abi.ActRelu, abi.ActSigmoid, abi.ActTanh} {
		d := &abi.Dense{Ks: []int64{1}, N: 1, Activation: act}
		if err := Plan(d, Options{}); err != nil {
			t.Fatal(err)
		}
		ctx := all.NewContext()
		_, fn := kernelModule(t, ctx, d)
		k, err := gpu.Compile(fn)
		if err != nil {
			t.Fatal(err)
		}
		in := &abi.DenseInputs{B: int64(len(xs)), X: [][]float32{xs}, W: []float32{1}}
		got, err := d.Run(k, nil, in)
		if err != nil {
			t.Fatal(err)
		}
		want := reference(t, d, in)
		for i := range xs {
			x, y := float64(want[i]), float64(got[i])
			if math.IsNaN(x) != math.IsNaN(y) || math.Abs(x-y) > 1.2e-7*math.Abs(x)+1e-38 || (x == 0 && y == 0 && math.Signbit(x) != math.Signbit(y)) {
				t.Errorf("%s(%v) = %v, want %v", act, xs[i], y, x)
			}
		}
	}
}
