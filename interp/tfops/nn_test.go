package tfops

import (
	"math"
	"testing"

	"github.com/recom-compiler/recom/interp"
)

func TestSoftmax(t *testing.T) {
	inf, nan := float32(math.Inf(1)), float32(math.NaN())
	for _, c := range []struct {
		name      string
		in        *interp.Tensor
		soft, log *interp.Tensor
		err       string
	}{
		// exp(-2), exp(-1), 1 over their sum 1.5032147.
		{"row", vec[float32](1, 2, 3), vec[float32](0.09003057, 0.24472847, 0.66524096),
			vec[float32](-2.40760596, -1.40760596, -0.40760596), ""},
		{"rows are independent", tn(sh(2, 2), float32(0), 0, 1, 0), tn(sh(2, 2), float32(0.5), 0.5, 0.7310586, 0.26894143),
			tn(sh(2, 2), float32(-0.6931472), -0.6931472, -0.31326166, -1.3132616), ""},
		{"large logits do not overflow", vec[float32](1000, 1000), vec[float32](0.5, 0.5), vec[float32](-0.6931472, -0.6931472), ""},
		{"a far smaller logit underflows to 0", vec[float32](1000, 0), vec[float32](1, 0), vec[float32](0, -1000), ""},
		{"-inf gets 0 (log: -inf)", vec(-inf, 0), vec[float32](0, 1), vec(-inf, 0), ""},
		{"NaN poisons the row", tn(sh(2, 2), nan, 1, 0, 0), tn(sh(2, 2), nan, nan, 0.5, 0.5), tn(sh(2, 2), nan, nan, -0.6931472, -0.6931472), ""},
		{"+inf: inf - inf is NaN", vec(inf, 1), vec(nan, nan), vec(nan, nan), ""},
		{"a row of -inf is NaN", vec(-inf, -inf), vec(nan, nan), vec(nan, nan), ""},
		{"one column", tn(sh(3, 1), float32(5), -7, 0), tn(sh(3, 1), float32(1), 1, 1), tn(sh(3, 1), float32(0), 0, 0), ""},
		{"no columns", tn[float32](sh(2, 0)), tn[float32](sh(2, 0)), tn[float32](sh(2, 0)), ""},
		{"no rows", tn[float32](sh(0, 3)), tn[float32](sh(0, 3)), tn[float32](sh(0, 3)), ""},
		{"rank 3: the last axis", tn(sh(1, 2, 2), float32(0), 0, 2, 2), tn(sh(1, 2, 2), float32(0.5), 0.5, 0.5, 0.5),
			tn(sh(1, 2, 2), float32(-0.6931472), -0.6931472, -0.6931472, -0.6931472), ""},
		{"float64", vec(0, math.Log(3)), vec(0.25, 0.75), vec(math.Log(0.25), math.Log(0.75)), ""},
		{"scalar", sc[float32](1), nil, nil, "logits must have >= 1 dimension, got []"},
		{"int", vec[int32](1, 2), nil, nil, "unsupported dtype int32"},
	} {
		got, err := Softmax(c.in)
		check(t, "Softmax/"+c.name, got, err, c.soft, c.err)
		got, err = LogSoftmax(c.in)
		check(t, "LogSoftmax/"+c.name, got, err, c.log, c.err)
	}
}

func TestArgMaxArgMin(t *testing.T) {
	nan, inf := float32(math.NaN()), float32(math.Inf(1))
	m := tn(sh(2, 3), float32(1), 5, 5, 7, 2, 7)
	for _, c := range []struct {
		name string
		f    func(in, dim *interp.Tensor, out interp.DType) (*interp.Tensor, error)
		in   *interp.Tensor
		dim  *interp.Tensor
		out  interp.DType
		want *interp.Tensor
		err  string
	}{
		{"rows: first of equal maxima", ArgMax, m, sc[int32](1), interp.Int64, vec[int64](1, 0), ""},
		{"columns", ArgMax, m, sc[int64](0), interp.Int64, vec[int64](1, 0, 1), ""},
		{"negative axis", ArgMax, m, sc[int32](-1), interp.Int32, vec[int32](1, 0), ""},
		{"int16 output", ArgMax, m, sc[int32](0), interp.Int16, vec[int16](1, 0, 1), ""},
		{"ArgMin: first of equal minima", ArgMin, vec[int32](3, 1, 1), sc[int32](0), interp.Int64, sc[int64](1), ""},
		{"ArgMin columns", ArgMin, m, sc[int32](0), interp.Int64, vec[int64](0, 1, 0), ""},
		{"NaN is never the maximum", ArgMax, vec(nan, 1, 3), sc[int32](0), interp.Int64, sc[int64](2), ""},
		{"NaN is never the minimum", ArgMin, vec(3, nan, 1), sc[int32](0), interp.Int64, sc[int64](2), ""},
		{"all NaN: 0", ArgMax, vec(nan, nan), sc[int32](0), interp.Int64, sc[int64](0), ""},
		{"all -inf: 0", ArgMax, vec(-inf, -inf, -inf), sc[int32](0), interp.Int64, sc[int64](0), ""},
		{"+inf wins", ArgMax, vec(1, inf, inf), sc[int32](0), interp.Int64, sc[int64](1), ""},
		{"uint8", ArgMax, vec[uint8](0, 0, 9), sc[int32](0), interp.Int64, sc[int64](2), ""},
		{"int64 lowest values", ArgMax, vec[int64](math.MinInt64, math.MinInt64), sc[int32](0), interp.Int64, sc[int64](0), ""},
		{"rank 3 middle axis", ArgMax, tn(sh(2, 2, 2), int32(0), 9, 1, 0, 5, 5, 6, 4), sc[int32](1), interp.Int64,
			tn(sh(2, 2), int64(1), 0, 1, 0), ""},
		{"empty other axis", ArgMax, tn[float32](sh(0, 3)), sc[int32](1), interp.Int64, tn[int64](sh(0)), ""},
		{"axis out of range", ArgMax, m, sc[int32](2), interp.Int64, nil, "Expected dimension in the range [-2, 2), but got 2"},
		{"scalar input", ArgMax, sc[float32](1), sc[int32](0), interp.Int64, nil, "Expected dimension in the range [0, 0), but got 0"},
		{"dimension not a scalar", ArgMax, m, vec[int32](0), interp.Int64, nil, "dim must be a scalar, but received tensor of shape: [1]"},
		{"empty axis", ArgMax, tn[float32](sh(0, 3)), sc[int32](0), interp.Int64, nil, "Reduction axis 0 is empty in shape [0,3]"},
		{"rank 8", ArgMax, tn[float32](sh(1, 1, 1, 1, 1, 1, 1, 1), 1), sc[int32](0), interp.Int64, nil, "Unhandled input dimensions: 8"},
		{"string input", ArgMax, vec("a"), sc[int32](0), interp.Int64, nil, "unsupported input"},
	} {
		got, err := c.f(c.in, c.dim, c.out)
		check(t, c.name, got, err, c.want, c.err)
	}
}

func TestBroadcastTo(t *testing.T) {
	row := vec[int32](1, 2, 3)
	same, err := BroadcastTo(row, vec[int32](3))
	if err != nil || same != row {
		t.Errorf("same shape: got %v, %v; want the input itself", same, err)
	}
	for _, c := range []struct {
		name  string
		in    *interp.Tensor
		shape *interp.Tensor
		want  *interp.Tensor
		err   string
	}{
		{"row to matrix", row, vec[int64](2, 3), tn(sh(2, 3), int32(1), 2, 3, 1, 2, 3), ""},
		{"column to matrix", tn(sh(2, 1), int32(1), 2), vec[int32](2, 3), tn(sh(2, 3), int32(1), 1, 1, 2, 2, 2), ""},
		{"ones in the middle", tn(sh(2, 1, 1), float32(1), 2), vec[int32](2, 2, 2), tn(sh(2, 2, 2), float32(1), 1, 1, 1, 2, 2, 2, 2), ""},
		{"scalar fills", sc("x"), vec[int32](2, 1), tn(sh(2, 1), "x", "x"), ""},
		{"scalar to scalar", sc[int32](4), tn[int32](sh(0)), sc[int32](4), ""},
		{"empty output without checks", row, vec[int32](0), tn[int32](sh(0)), ""},
		{"empty output of higher rank", row, vec[int32](2, 0), tn[int32](sh(2, 0)), ""},
		{"bool", vec(true, false), vec[int32](2, 2), tn(sh(2, 2), true, false, true, false), ""},
		{"would broadcast to another shape", row, vec[int32](1), nil, "Unable to broadcast tensor of shape [3] to tensor of shape [1]"},
		{"incompatible", vec[int32](1, 2), vec[int32](3), nil, "Incompatible shapes: [2] vs. [3]"},
		{"empty input to a non-empty shape", tn[int32](sh(0)), vec[int32](2), nil, "Incompatible shapes: [0] vs. [2]"},
		{"rank too high", tn(sh(1, 3), int32(1), 2, 3), vec[int32](3), nil, "Rank of input (2) must be no greater than rank of output shape (1)."},
		{"negative dim", row, vec[int32](-1, 3), nil, "Dimension -1 must be >= 0"},
		{"shape not a vector", row, tn(sh(1, 1), int32(3)), nil, "shape must be a vector of {int32,int64}, got shape [1,1]"},
		{"float shape", row, vec[float32](3), nil, "shape must be a vector of {int32,int64}"},
		{"too large", sc[int32](1), vec[int64](1<<20, 1<<20), nil, "too large to materialise"},
	} {
		got, err := BroadcastTo(c.in, c.shape)
		if c.want != nil && c.want.DType() != interp.Float32 && err == nil {
			if e := got.Equal(c.want); e != nil {
				t.Errorf("%s: %v", c.name, e)
			}
			continue
		}
		check(t, c.name, got, err, c.want, c.err)
	}
}
