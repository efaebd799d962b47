package shape

// The interpreter semantics of shape ops. Index values are int64 scalar
// tensors (index is registered as an int64 element type). Importing the
// package registers them.

import (
	"fmt"
	"math"

	"github.com/recom-compiler/recom/interp"
	"github.com/recom-compiler/recom/interp/exec"
	"github.com/recom-compiler/recom/textir"
)

func init() {
	exec.RegisterElemType(textir.Index(), interp.Int64)
	exec.Register(DimOp, dimKernel)
	exec.Register(CountOp, countKernel)
	exec.Register(ApplyOp, applyKernel)
	exec.Register(FromExtentsOp, fromExtentsKernel)
	exec.Register(IndexCastOp, indexCastKernel)
	exec.Register(AssertShapeOp, assertShapeKernel)
	// The constants that shape folders materialize are arith.constant ops,
	// whose semantics the arith package registers.
}

func scalar(v int64) []*interp.Tensor { return []*interp.Tensor{interp.Scalar(v)} }

// indexValue reads an index operand: an int64 scalar.
func indexValue(op *textir.Operation, i int, t *interp.Tensor) (int64, error) {
	d := t.Int64s()
	if d == nil || len(d) != 1 || t.Rank() != 0 {
		return 0, op.Errorf("operand #%d must be an index (an int64 scalar), got %v of shape %s", i, t.DType(), interp.ShapeString(t.Shape()))
	}
	return d[0], nil
}

func dimKernel(op *textir.Operation, in []*interp.Tensor, _ *exec.State) ([]*interp.Tensor, error) {
	i := op.LookupAttr(IndexAttr).(textir.IntegerAttr).Value
	if i < 0 || i >= int64(in[0].Rank()) {
		return nil, op.Errorf("dimension index %d is out of range for a tensor of shape %s", i, interp.ShapeString(in[0].Shape()))
	}
	return scalar(in[0].Dim(int(i))), nil
}

func countKernel(_ *textir.Operation, in []*interp.Tensor, _ *exec.State) ([]*interp.Tensor, error) {
	return scalar(int64(in[0].Len())), nil
}

func operandValues(op *textir.Operation, in []*interp.Tensor, first int) ([]int64, error) {
	vals := make([]int64, 0, len(in)-first)
	for i := first; i < len(in); i++ {
		v, err := indexValue(op, i, in[i])
		if err != nil {
			return nil, err
		}
		vals = append(vals, v)
	}
	return vals, nil
}

func applyKernel(op *textir.Operation, in []*interp.Tensor, _ *exec.State) ([]*interp.Tensor, error) {
	m, err := OpMap(op)
	if err != nil {
		return nil, op.Errorf("%v", err)
	}
	vals, err := operandValues(op, in, 0)
	if err != nil {
		return nil, err
	}
	r, err := m.Eval(vals)
	if err != nil {
		return nil, op.Errorf("%v (with %s)", err, bindings(m.Params, vals))
	}
	if len(r) != 1 {
		return nil, op.Errorf("expression map must have 1 result, but has %d", len(r))
	}
	return scalar(r[0]), nil
}

func bindings(params []string, vals []int64) string {
	s := ""
	for i, p := range params {
		if i > 0 {
			s += ", "
		}
		if i < len(vals) {
			s += fmt.Sprintf("%s = %d", p, vals[i])
		}
	}
	return s
}

// intTensor makes a tensor of the integer element type of t (i32 or i64)
// from vals, failing when a value does not fit in i32.
func intTensor(op *textir.Operation, t textir.Type, shape []int64, vals []int64) (*interp.Tensor, error) {
	if textir.ElementType(t) == textir.I32() {
		d := make([]int32, len(vals))
		for i, v := range vals {
			if v < math.MinInt32 || v > math.MaxInt32 {
				return nil, op.Errorf("value %d does not fit in i32", v)
			}
			d[i] = int32(v)
		}
		return interp.New(shape, d)
	}
	return interp.New(shape, vals)
}

func fromExtentsKernel(op *textir.Operation, in []*interp.Tensor, _ *exec.State) ([]*interp.Tensor, error) {
	vals, err := operandValues(op, in, 0)
	if err != nil {
		return nil, err
	}
	t, err := intTensor(op, op.Result(0).Type(), []int64{int64(len(vals))}, vals)
	if err != nil {
		return nil, err
	}
	return []*interp.Tensor{t}, nil
}

func indexCastKernel(op *textir.Operation, in []*interp.Tensor, _ *exec.State) ([]*interp.Tensor, error) {
	x := in[0]
	if x.Len() != 1 || !x.DType().IsInteger() {
		return nil, op.Errorf("operand must be one integer, got %v of shape %s", x.DType(), interp.ShapeString(x.Shape()))
	}
	v, _ := x.Int64At(0)
	out := op.Result(0).Type()
	if indexType.Pred(out) {
		return scalar(v), nil
	}
	t, err := intTensor(op, out, nil, []int64{v})
	if err != nil {
		return nil, err
	}
	return []*interp.Tensor{t}, nil
}

func assertShapeKernel(op *textir.Operation, in []*interp.Tensor, _ *exec.State) ([]*interp.Tensor, error) {
	m, err := OpMap(op)
	if err != nil {
		return nil, op.Errorf("%v", err)
	}
	vals, err := operandValues(op, in, 1)
	if err != nil {
		return nil, err
	}
	want, err := m.Eval(vals)
	if err != nil {
		return nil, op.Errorf("%v (with %s)", err, bindings(m.Params, vals))
	}
	got := in[0].Shape()
	ok := len(got) == len(want)
	for i := 0; ok && i < len(got); i++ {
		ok = got[i] == want[i]
	}
	if !ok {
		return nil, op.Errorf("shape assertion failed: the tensor has shape %s, but %s with %s gives %s",
			interp.ShapeString(got), m, bindings(m.Params, vals), interp.ShapeString(want))
	}
	return nil, nil
}
