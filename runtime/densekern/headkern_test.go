package densekern

import (
	"encoding/binary"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/recom-compiler/recom/dialects/gpu"
	"github.com/recom-compiler/recom/interp"
	"github.com/recom-compiler/recom/interp/tfops"
)

// headSpecials are inputs whose results are delicate.
var headSpecials = []float32{0, float32(math.Copysign(0, -1)), 1, -1, float32(math.Inf(1)), float32(math.Inf(-1)),
	float32(math.NaN()), 1e-8, -1e-8, 30, -30, 100, -100, 1000, -1000, math.Float32frombits(1), 3.4e38, -3.4e38}

func f32buf(v []float32) []byte {
	b := make([]byte, 4*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(x))
	}
	return b
}

func bufF32(b []byte) []float32 {
	v := make([]float32, len(b)/4)
	for i := range v {
		v[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:]))
	}
	return v
}

// sameF32 reports whether got equals want: bit for bit, any NaN for a NaN,
// or within ulps units in the last place.
func sameF32(got, want float32, ulps int64) bool {
	if want != want {
		return got != got
	}
	if got == want {
		return math.Signbit(float64(got)) == math.Signbit(float64(want)) || got != 0
	}
	d := int64(math.Float32bits(got)) - int64(math.Float32bits(want))
	return math.Signbit(float64(got)) == math.Signbit(float64(want)) && d <= ulps && d >= -ulps
}

// The map kernel in the simulator against interp/tfops, every op code and
// every broadcast of its operands (full, a column, a shared row, a scalar)
// at padded pitches, the padding untouched.
func TestMapSim(t *testing.T) {
	ks := kernels(t)
	r := rand.New(rand.NewPCG(5, 6))
	const rows, cols, ld = 5, 7, 9
	draw := func(n int) []float32 {
		v := make([]float32, n)
		for i := range v {
			v[i] = float32(r.NormFloat64() * 3)
			if r.IntN(4) == 0 {
				v[i] = headSpecials[r.IntN(len(headSpecials))]
			}
		}
		return v
	}
	type form struct {
		name   string
		rs, cs int64
		shape  []int64 // as a tensor for tfops, the batch dim included
	}
	forms := []form{{"full", ld, 1, []int64{rows, cols}}, {"column", ld, 0, []int64{rows, 1}},
		{"row", 0, 1, []int64{cols}}, {"scalar", 0, 0, []int64{}}}
	// operand as a tensor for tfops.
	tensor := func(data []float32, f form) *interp.Tensor {
		var v []float32
		switch f.name {
		case "full":
			for i := range rows {
				v = append(v, data[i*ld:i*ld+cols]...)
			}
		case "column":
			for i := range rows {
				v = append(v, data[i*ld])
			}
		case "row":
			v = data[:cols]
		case "scalar":
			v = data[:1]
		}
		return interp.Must(interp.New(f.shape, append([]float32(nil), v...)))
	}
	bin := map[int64]func(x, y *interp.Tensor) (*interp.Tensor, error){
		MapAdd: tfops.AddV2, MapSub: tfops.Sub, MapMul: tfops.Mul, MapDiv: tfops.RealDiv, MapMax: tfops.Maximum, MapMin: tfops.Minimum,
	}
	un := map[int64]func(x *interp.Tensor) (*interp.Tensor, error){
		MapCopy: func(x *interp.Tensor) (*interp.Tensor, error) { return x, nil }, MapNeg: tfops.Neg, MapAbs: tfops.Abs,
		MapSquare: tfops.Square, MapRelu: tfops.Relu, MapSigmoid: tfops.Sigmoid, MapTanh: tfops.Tanh, MapExp: tfops.Exp,
		MapZero: tfops.ZerosLike, MapOne: tfops.OnesLike,
	}
	run := func(op int64, a, b []float32, fa, fb form) []float32 {
		y := make([]float32, rows*ld)
		for i := range y {
			y[i] = 12345
		}
		yb := f32buf(y)
		args := []any{op, gpu.Buf{Data: f32buf(a)}, gpu.Buf{Data: f32buf(b)}, gpu.Buf{Data: yb},
			int64(rows), int64(cols), fa.rs, fa.cs, fb.rs, fb.cs, int64(ld)}
		if err := ks[MapKernel].Launch(2, 16, args, nil); err != nil {
			t.Fatalf("op %d: %v", op, err)
		}
		return bufF32(yb)
	}
	compare := func(what string, op int64, got []float32, want *interp.Tensor) {
		t.Helper()
		w := want.Float32s()
		for i := range rows {
			for j := range cols {
				g := got[i*ld+j]
				var x float32
				switch len(w) {
				case rows * cols:
					x = w[i*cols+j]
				case rows:
					x = w[i]
				default:
					t.Fatalf("%s: want of %d elements", what, len(w))
				}
				ulps := int64(0)
				if op == MapSigmoid || op == MapTanh || op == MapExp {
					ulps = 1
				}
				if !sameF32(g, x, ulps) {
					t.Errorf("%s: [%d,%d] = %v, want %v", what, i, j, g, x)
				}
			}
			for j := cols; j < ld; j++ {
				if got[i*ld+j] != 12345 {
					t.Errorf("%s: padding [%d,%d] written", what, i, j)
				}
			}
		}
	}
	for op, f := range bin {
		for _, fa := range forms {
			for _, fb := range forms {
				if fa.name != "full" && fb.name != "full" {
					continue
				}
				a, b := draw(rows*ld), draw(rows*ld)
				want, err := f(tensor(a, fa), tensor(b, fb))
				if err != nil {
					t.Fatal(err)
				}
				compare(fa.name+" op "+fb.name, op, run(op, a, b, fa, fb), want)
			}
		}
	}
	for op, f := range un {
		a := draw(rows * ld)
		copy(a, headSpecials)
		want, err := f(tensor(a, forms[0]))
		if err != nil {
			t.Fatal(err)
		}
		compare(fmt.Sprintf("unary %d", op), op, run(op, a, a, forms[0], forms[0]), want)
	}
}

// The rows kernel in the simulator against interp/tfops: the reductions
// over the last axis, the softmax and the log-softmax, rows with specials, at padded
// pitches, the padding untouched.
func TestRowsSim(t *testing.T) {
	ks := kernels(t)
	r := rand.New(rand.NewPCG(7, 8))
	for _, cols := range []int64{1, 2, 9, 33, 1000} {
		const rows = 11
		xld, yld := cols+7, cols+8
		x := make([]float32, rows*xld)
		for i := range x {
			x[i] = float32(r.NormFloat64() * 5)
		}
		// Rows 0-3 get specials: a NaN, +inf, -inf, all -inf.
		x[0*xld+cols-1] = float32(math.NaN())
		x[1*xld] = float32(math.Inf(1))
		x[2*xld+cols/2] = float32(math.Inf(-1))
		for j := range cols {
			x[3*xld+j] = float32(math.Inf(-1))
		}
		var flat []float32
		for i := range rows {
			flat = append(flat, x[i*int(xld):i*int(xld)+int(cols)]...)
		}
		xt := interp.Must(interp.New([]int64{rows, cols}, flat))
		axis := interp.Scalar[int32](1)
		red := map[int64]func(x, a *interp.Tensor, keep bool) (*interp.Tensor, error){
			RowSum: tfops.Sum, RowMean: tfops.Mean, RowMax: tfops.Max, RowMin: tfops.Min, RowProd: tfops.Prod,
		}
		for op := RowSum; op <= RowLogSoftmax; op++ {
			var want *interp.Tensor
			var err error
			switch op {
			case RowSoftmax:
				want, err = tfops.Softmax(xt)
			case RowLogSoftmax:
				want, err = tfops.LogSoftmax(xt)
			default:
				want, err = red[op](xt, axis, true)
			}
			if err != nil {
				t.Fatal(err)
			}
			y := make([]float32, rows*yld)
			for i := range y {
				y[i] = 12345
			}
			yb := f32buf(y)
			if err := ks[RowsKernel].Launch(1, 4, []any{op, gpu.Buf{Data: f32buf(x)}, gpu.Buf{Data: yb}, int64(rows), cols, int64(xld), int64(yld)}, nil); err != nil {
				t.Fatal(err)
			}
			got := bufF32(yb)
			wc := want.Dim(1)
			w := want.Float32s()
			for i := range int64(rows) {
				for j := range int64(yld) {
					g := got[i*yld+j]
					if j >= wc {
						if g != 12345 {
							t.Errorf("op %d cols %d: [%d,%d] beyond the result written", op, cols, i, j)
						}
						continue
					}
					ulps := int64(0)
					if op >= RowSoftmax {
						ulps = 1
					}
					if !sameF32(g, w[i*wc+j], ulps) {
						t.Errorf("op %d cols %d: [%d,%d] = %v, want %v", op, cols, i, j, g, w[i*wc+j])
					}
				}
			}
		}
	}
	if RowGrid(0) != 1 || RowGrid(256) != 1 || RowGrid(257) != 2 || RowGrid(1<<40) != MaxGrid {
		t.Error("RowGrid")
	}
}
