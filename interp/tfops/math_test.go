package tfops

import (
	"math"
	"testing"

	"github.com/recom-compiler/recom/interp"
)

func TestBinaryBroadcast(t *testing.T) {
	type fn func(x, y *interp.Tensor) (*interp.Tensor, error)
	col := tn[int32](sh(2, 1), 10, 20)
	row := vec[int32](1, 2, 3)
	tests := []struct {
		name string
		f    fn
		x, y *interp.Tensor
		want *interp.Tensor
		err  string
	}{
		{"Add [2,1]+[3]", Add, col, row, tn[int32](sh(2, 3), 11, 12, 13, 21, 22, 23), ""},
		{"Sub scalar", Sub, row, sc[int32](1), vec[int32](0, 1, 2), ""},
		{"Mul [2,3]*[1,3]", Mul, tn[float32](sh(2, 3), 1, 2, 3, 4, 5, 6), tn[float32](sh(1, 3), 2, 0, -1),
			tn[float32](sh(2, 3), 2, 0, -3, 8, 0, -6), ""},
		{"AddV2 rank 3", AddV2, tn[int64](sh(2, 1, 1), 100, 200), tn[int64](sh(1, 2), 1, 2),
			tn[int64](sh(2, 1, 2), 101, 102, 201, 202), ""},
		{"Add empty dim", Add, tn[int32](sh(0, 3)), row, tn[int32](sh(0, 3)), ""},
		{"Add strings", Add, vec("a", "b"), sc("!"), vec("a!", "b!"), ""},
		{"AddV2 strings", AddV2, vec("a"), vec("b"), nil, "unsupported dtype"},
		{"incompatible", Add, arange(sh(2, 3)), vec[int32](1, 2), nil, "incompatible shapes: [2,3] vs. [2]"},
		{"dtype mismatch", Add, row, vec[int64](1), nil, "int64"},
		{"RealDiv", RealDiv, vec[float32](1, -1, 0), sc[float32](0), vec(float32(math.Inf(1)), float32(math.Inf(-1)), float32(math.NaN())), ""},
		{"RealDiv int", RealDiv, vec[int32](1), vec[int32](1), nil, "unsupported dtype"},
		{"Div int truncates", Div, vec[int32](-7, 7), sc[int32](2), vec[int32](-3, 3), ""},
		{"Div by zero", Div, vec[int64](1), sc[int64](0), nil, "division by zero"},
		{"FloorDiv int", FloorDiv, vec[int32](-7, 7, -7, 7), vec[int32](2, 2, -2, -2), vec[int32](-4, 3, 3, -4), ""},
		{"FloorDiv float", FloorDiv, vec(-7.5, 7.5), sc(2.0), vec(-4.0, 3.0), ""},
		{"FloorMod int", FloorMod, vec[int64](-7, 7, -7, 7), vec[int64](2, 2, -2, -2), vec[int64](1, 1, -1, -1), ""},
		{"FloorMod float", FloorMod, vec[float32](-7.5, 7.5), vec[float32](2, -2), vec[float32](0.5, -0.5), ""},
		{"FloorMod by zero", FloorMod, vec[int32](1), sc[int32](0), nil, "division by zero"},
		{"Maximum NaN", Maximum, vec(1.0, math.NaN(), 3), vec(2.0, 0, math.NaN()), vec(2.0, math.NaN(), math.NaN()), ""},
		{"Minimum", Minimum, col, row, tn[int32](sh(2, 3), 1, 2, 3, 1, 2, 3), ""},
		{"Equal broadcast", Equal, col, tn[int32](sh(1, 2), 10, 20), tn(sh(2, 2), true, false, false, true), ""},
		{"Equal strings", Equal, vec("", "a"), sc(""), vec(true, false), ""},
		{"NotEqual ints", NotEqual, vec[int64](-1, 3), sc[int64](-1), vec(false, true), ""},
		{"NotEqual bools", NotEqual, vec(true, false), sc(true), vec(false, true), ""},
		{"Less", Less, row, sc[int32](2), vec(true, false, false), ""},
		{"LessEqual", LessEqual, row, sc[int32](2), vec(true, true, false), ""},
		{"Greater", Greater, row, sc[int32](2), vec(false, false, true), ""},
		{"GreaterEqual", GreaterEqual, vec[int64](-1, 0, 5), sc[int64](0), vec(false, true, true), ""},
		{"GreaterEqual NaN", GreaterEqual, vec(math.NaN()), sc(0.0), vec(false), ""},
		{"LogicalAnd", LogicalAnd, vec(true, true, false), vec(true, false, false), vec(true, false, false), ""},
		{"LogicalOr broadcast", LogicalOr, tn(sh(2, 1), true, false), vec(false, true), tn(sh(2, 2), true, true, false, true), ""},
		{"LogicalOr ints", LogicalOr, row, row, nil, "unsupported dtype"},
		{"Less strings", Less, vec("a"), vec("b"), nil, "unsupported dtype"},
	}
	for _, tc := range tests {
		got, err := tc.f(tc.x, tc.y)
		check(t, tc.name, got, err, tc.want, tc.err)
	}
}

func TestUnary(t *testing.T) {
	type fn func(x *interp.Tensor) (*interp.Tensor, error)
	tests := []struct {
		name string
		f    fn
		x    *interp.Tensor
		want *interp.Tensor
		err  string
	}{
		{"Neg int wraps", Neg, vec[int32](1, -2, math.MinInt32), vec[int32](-1, 2, math.MinInt32), ""},
		{"Abs", Abs, vec[float32](-1.5, 2), vec[float32](1.5, 2), ""},
		{"Square", Square, vec[int64](-3), vec[int64](9), ""},
		{"Sqrt", Sqrt, vec[float32](4, -1), vec(float32(2), float32(math.NaN())), ""},
		{"Sqrt int", Sqrt, vec[int32](4), nil, "unsupported dtype"},
		{"Rsqrt", Rsqrt, vec(4.0), vec(0.5), ""},
		{"Exp", Exp, vec(0.0, 1), vec(1.0, math.E), ""},
		{"Log", Log, vec(1.0, 0), vec(0.0, math.Inf(-1)), ""},
		{"Sigmoid", Sigmoid, vec[float32](0, 100, -100), vec[float32](0.5, 1, 0), ""},
		{"Tanh", Tanh, vec(0.0), vec(0.0), ""},
		{"Relu", Relu, vec[float32](-1, 0, 2), vec[float32](0, 0, 2), ""},
		{"Relu int", Relu, vec[int32](-1, 3), vec[int32](0, 3), ""},
		{"LogicalNot", LogicalNot, vec(true, false), vec(false, true), ""},
		{"LogicalNot int", LogicalNot, vec[int32](1), nil, "dtype"},
	}
	for _, tc := range tests {
		got, err := tc.f(tc.x)
		check(t, tc.name, got, err, tc.want, tc.err)
	}
}

func TestCast(t *testing.T) {
	nan := float32(math.NaN())
	tests := []struct {
		name string
		x    *interp.Tensor
		to   interp.DType
		want *interp.Tensor
		err  string
	}{
		{"float32->int32 truncates", vec[float32](1.9, -1.9, 0.5, nan, 3e9), interp.Int32,
			vec[int32](1, -1, 0, math.MinInt32, math.MinInt32), ""},
		{"float64->int64", vec(-2.7, 1e19), interp.Int64, vec[int64](-2, math.MinInt64), ""},
		{"float->uint8 via int32", vec[float32](300, -1), interp.Uint8, vec[uint8](44, 255), ""},
		{"int64->int32 wraps", vec[int64](1<<32+5, -1), interp.Int32, vec[int32](5, -1), ""},
		{"int32->float32", vec[int32](16777217), interp.Float32, vec[float32](16777216), ""},
		{"bool->float", vec(true, false), interp.Float32, vec[float32](1, 0), ""},
		{"bool->int64", vec(true), interp.Int64, vec[int64](1), ""},
		{"float->bool", vec[float32](0, -0.5, nan), interp.Bool, vec(false, true, true), ""},
		{"int->bool", vec[int64](0, 7), interp.Bool, vec(false, true), ""},
		{"float64->float32", vec(0.1), interp.Float32, vec[float32](0.1), ""},
		{"same dtype", vec[int32](3), interp.Int32, vec[int32](3), ""},
		{"string", vec("1"), interp.Int64, nil, "not supported"},
	}
	for _, tc := range tests {
		got, err := Cast(tc.x, tc.to)
		check(t, tc.name, got, err, tc.want, tc.err)
	}
}

func TestBucketize(t *testing.T) {
	b := []float32{0, 10, 100}
	got, err := Bucketize(tn[int32](sh(3, 2), -5, 10000, 150, 10, 5, 100), b)
	check(t, "doc example", got, err, tn[int32](sh(3, 2), 0, 3, 3, 2, 1, 3), "")
	got, err = Bucketize(vec[float32](-1e30, -0.0001, 0, 9.999, 10, 100, 100.5, float32(math.Inf(1))), b)
	check(t, "boundaries and both ends", got, err, vec[int32](0, 0, 1, 1, 2, 3, 3, 3), "")
	got, err = Bucketize(vec(0.1, 1e300), []float32{0.1})
	check(t, "float64 vs float32 boundary", got, err, vec[int32](0, 1), "")
	got, err = Bucketize(vec[int64](-1, 0, 1), nil)
	check(t, "no boundaries", got, err, vec[int32](0, 0, 0), "")
	_, err = Bucketize(vec[int64](1), []float32{2, 1})
	check(t, "unsorted", nil, err, nil, "sorted")
	_, err = Bucketize(vec("a"), b)
	check(t, "string", nil, err, nil, "dtype")
}

func TestReductions(t *testing.T) {
	x := tn[float32](sh(2, 3), 1, 2, 3, 4, 5, 6)
	type fn func(x, a *interp.Tensor, keep bool) (*interp.Tensor, error)
	tests := []struct {
		name string
		f    fn
		x    *interp.Tensor
		axes *interp.Tensor
		keep bool
		want *interp.Tensor
		err  string
	}{
		{"Sum all", Sum, x, vec[int32](0, 1), false, sc[float32](21), ""},
		{"Sum axis 1 keep", Sum, x, vec[int32](1), true, tn[float32](sh(2, 1), 6, 15), ""},
		{"Sum scalar axis -2", Sum, x, sc[int64](-2), false, vec[float32](5, 7, 9), ""},
		{"Sum no axes", Sum, x, vec[int32](), false, x, ""},
		{"Prod", Prod, tn[int64](sh(2, 2), 1, 2, 3, 4), vec[int32](0), false, vec[int64](3, 8), ""},
		{"Prod shape-like", Prod, vec[int32](2, 3, 4), vec[int32](0), false, sc[int32](24), ""},
		{"Mean float", Mean, x, vec[int32](0), false, vec[float32](2.5, 3.5, 4.5), ""},
		{"Mean int truncates", Mean, vec[int32](1, 2), vec[int32](0), false, sc[int32](1), ""},
		{"Mean empty int", Mean, vec[int32](), vec[int32](0), false, nil, "empty"},
		{"Mean empty float", Mean, vec[float32](), vec[int32](0), false, sc(float32(math.NaN())), ""},
		{"Max", Max, x, vec[int32](1), false, vec[float32](3, 6), ""},
		{"Max empty", Max, tn[int32](sh(0)), vec[int32](0), false, sc[int32](math.MinInt32), ""},
		{"Min keep", Min, x, vec[int32](0, 1), true, tn[float32](sh(1, 1), 1), ""},
		{"All", All, tn(sh(2, 2), true, false, true, true), vec[int32](1), false, vec(false, true), ""},
		{"Any", Any, tn(sh(2, 2), true, false, false, false), vec[int32](1), false, vec(true, false), ""},
		{"All empty", All, tn[bool](sh(0)), vec[int32](0), false, sc(true), ""},
		{"All ints", All, x, vec[int32](0), false, nil, "bool"},
		{"bad axis", Sum, x, vec[int32](2), false, nil, "invalid reduction dimension (2 for input with 2 dimension(s))"},
	}
	for _, tc := range tests {
		got, err := tc.f(tc.x, tc.axes, tc.keep)
		check(t, tc.name, got, err, tc.want, tc.err)
	}
}

func TestMatMulBiasAddRange(t *testing.T) {
	a := tn[float32](sh(2, 3), 1, 2, 3, 4, 5, 6)
	b := tn[float32](sh(3, 2), 1, 0, 0, 1, 1, 1)
	got, err := MatMul(a, b, false, false)
	check(t, "MatMul", got, err, tn[float32](sh(2, 2), 4, 5, 10, 11), "")
	got, err = MatMul(a, a, false, true)
	check(t, "MatMul transpose_b", got, err, tn[float32](sh(2, 2), 14, 32, 32, 77), "")
	got, err = MatMul(a, a, true, false)
	check(t, "MatMul transpose_a", got, err, tn[float32](sh(3, 3), 17, 22, 27, 22, 29, 36, 27, 36, 45), "")
	_, err = MatMul(a, a, false, false)
	check(t, "MatMul incompatible", nil, err, nil, "size-incompatible")

	got, err = BiasAdd(a, vec[float32](10, 20, 30), "NHWC")
	check(t, "BiasAdd", got, err, tn[float32](sh(2, 3), 11, 22, 33, 14, 25, 36), "")
	got, err = BiasAdd(tn[float32](sh(1, 2, 2), 1, 2, 3, 4), vec[float32](10, 20), "NCHW")
	check(t, "BiasAdd NCHW", got, err, tn[float32](sh(1, 2, 2), 11, 12, 23, 24), "")
	_, err = BiasAdd(a, vec[float32](1, 2), "")
	check(t, "BiasAdd size", nil, err, nil, "as many biases")

	got, err = Range(sc[int32](0), sc[int32](5), sc[int32](2))
	check(t, "Range int", got, err, vec[int32](0, 2, 4), "")
	got, err = Range(sc[int64](5), sc[int64](0), sc[int64](-2))
	check(t, "Range negative delta", got, err, vec[int64](5, 3, 1), "")
	got, err = Range(sc[float32](0), sc[float32](1), sc[float32](0.25))
	check(t, "Range float", got, err, vec[float32](0, 0.25, 0.5, 0.75), "")
	got, err = Range(sc[int32](3), sc[int32](3), sc[int32](1))
	check(t, "Range empty", got, err, vec[int32](), "")
	_, err = Range(sc[int64](math.MinInt64), sc[int64](math.MaxInt64), sc[int64](1))
	check(t, "Range huge", nil, err, nil, "output size")
	got, err = Range(sc[int64](math.MaxInt64), sc[int64](math.MinInt64), sc[int64](math.MinInt64))
	check(t, "Range extreme delta", got, err, vec[int64](math.MaxInt64, -1), "")
	_, err = Range(sc[int32](0), sc[int32](5), sc[int32](0))
	check(t, "Range zero delta", nil, err, nil, "delta != 0")
	_, err = Range(sc[int32](5), sc[int32](0), sc[int32](1))
	check(t, "Range wrong direction", nil, err, nil, "start <= limit")
}
