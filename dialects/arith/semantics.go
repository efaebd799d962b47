package arith

// The interpreter semantics of arith ops, elementwise on tensors and on
// scalars (rank-0 tensors), as the host side of a gpu program computes its
// sizes. Importing this package registers them; index values are int64.

import (
	"fmt"

	"github.com/recom-compiler/recom/interp"
	"github.com/recom-compiler/recom/interp/exec"
	"github.com/recom-compiler/recom/textir"
)

func init() {
	exec.RegisterElemType(textir.Index(), interp.Int64)
	exec.Register(ConstantOp, constantKernel)
	for _, n := range []string{AddIOp, SubIOp, MulIOp, DivSIOp, RemSIOp, DivUIOp, RemUIOp, AndIOp, OrIOp, XOrIOp,
		MaxSIOp, MinSIOp, ShLIOp, ShRSIOp, ShRUIOp} {
		exec.Register(n, intBinaryKernel)
	}
	for _, n := range []string{AddFOp, SubFOp, MulFOp, DivFOp, MaximumFOp, MinimumFOp} {
		exec.Register(n, floatBinaryKernel)
	}
	exec.Register(CmpIOp, cmpKernel)
	exec.Register(CmpFOp, cmpKernel)
	exec.Register(SelectOp, selectKernel)
	for _, n := range []string{IndexCastOp, ExtSIOp, ExtUIOp, TruncIOp, SIToFPOp, UIToFPOp, FPToSIOp, NegFOp} {
		exec.Register(n, castKernel)
	}
}

// build returns a tensor of op's result dtype holding ints or floats.
func build(op *textir.Operation, shape []int64, ints []int64, floats []float64) (*interp.Tensor, error) {
	t := op.Result(0).Type()
	dt, ok := exec.DTypeOf(t)
	if !ok {
		return nil, op.Errorf("result type %s is not supported by the interpreter", t)
	}
	n := len(ints)
	if floats != nil {
		n = len(floats)
	}
	data, err := interp.MakeSlice(dt, n)
	if err != nil {
		return nil, err
	}
	for i := range n {
		switch d := data.(type) {
		case []float32:
			d[i] = float32(floats[i])
		case []float64:
			d[i] = floats[i]
		case []int8:
			d[i] = int8(ints[i])
		case []int16:
			d[i] = int16(ints[i])
		case []int32:
			d[i] = int32(ints[i])
		case []int64:
			d[i] = ints[i]
		case []uint8:
			d[i] = uint8(ints[i])
		case []bool:
			d[i] = ints[i]&1 != 0
		default:
			return nil, op.Errorf("result type %s is not supported by the interpreter", t)
		}
	}
	return interp.FromSlice(shape, data)
}

func one(t *interp.Tensor, err error) ([]*interp.Tensor, error) {
	if err != nil {
		return nil, err
	}
	return []*interp.Tensor{t}, nil
}

func constantKernel(op *textir.Operation, _ []*interp.Tensor, _ *exec.State) ([]*interp.Tensor, error) {
	switch a := op.LookupAttr("value").(type) {
	case textir.IntegerAttr:
		return one(build(op, nil, []int64{Normalize(a.Value, a.Type)}, nil))
	case textir.FloatAttr:
		return one(build(op, nil, nil, []float64{RoundFloat(a.Value, a.Type)}))
	case *textir.DenseElementsAttr:
		if a.IsString() {
			return nil, op.Errorf("string constants are not supported")
		}
		n := a.NumElements()
		if n < 0 || n > interp.MaxElements {
			return nil, op.Errorf("constant of %d elements is too large", n)
		}
		if textir.IsFloat(a.Type.Elem) {
			fs := make([]float64, n)
			for i := range fs {
				fs[i] = a.FloatAt(int64(i))
			}
			return one(build(op, a.Type.Shape, nil, fs))
		}
		is := make([]int64, n)
		for i := range is {
			is[i] = a.IntAt(int64(i))
		}
		return one(build(op, a.Type.Shape, is, nil))
	}
	return nil, op.Errorf("unsupported constant")
}

// sameShapes checks that tensors have equal shapes and returns it.
func sameShapes(op *textir.Operation, in []*interp.Tensor) ([]int64, error) {
	s := in[0].Shape()
	for _, t := range in[1:] {
		if fmt.Sprint(t.Shape()) != fmt.Sprint(s) {
			return nil, op.Errorf("operands have different shapes %s and %s", interp.ShapeString(s), interp.ShapeString(t.Shape()))
		}
	}
	return s, nil
}

func ints(t *interp.Tensor, ty textir.Type) []int64 {
	v := make([]int64, t.Len())
	for i := range v {
		x, _ := t.Int64At(i)
		v[i] = Normalize(x, ty)
	}
	return v
}

func floats(t *interp.Tensor) []float64 {
	v := make([]float64, t.Len())
	for i := range v {
		v[i] = t.Float64At(i)
	}
	return v
}

func intBinaryKernel(op *textir.Operation, in []*interp.Tensor, _ *exec.State) ([]*interp.Tensor, error) {
	shape, err := sameShapes(op, in)
	if err != nil {
		return nil, err
	}
	t := op.Result(0).Type()
	a, b := ints(in[0], t), ints(in[1], t)
	for i := range a {
		r, ok := EvalIntBinary(op.Name(), a[i], b[i], t)
		if !ok {
			return nil, op.Errorf("undefined result for %d and %d (division by zero, overflow or shift too large)", a[i], b[i])
		}
		a[i] = r
	}
	return one(build(op, shape, a, nil))
}

func floatBinaryKernel(op *textir.Operation, in []*interp.Tensor, _ *exec.State) ([]*interp.Tensor, error) {
	shape, err := sameShapes(op, in)
	if err != nil {
		return nil, err
	}
	t := op.Result(0).Type()
	a, b := floats(in[0]), floats(in[1])
	for i := range a {
		a[i], _ = EvalFloatBinary(op.Name(), a[i], b[i], t)
	}
	return one(build(op, shape, nil, a))
}

func cmpKernel(op *textir.Operation, in []*interp.Tensor, _ *exec.State) ([]*interp.Tensor, error) {
	shape, err := sameShapes(op, in)
	if err != nil {
		return nil, err
	}
	p, _ := op.LookupAttr("predicate").(textir.IntegerAttr)
	t := op.Operand(0).Type()
	r := make([]int64, in[0].Len())
	if op.Name() == CmpFOp {
		a, b := floats(in[0]), floats(in[1])
		for i := range r {
			if EvalFPredicate(FPredicate(p.Value), a[i], b[i]) {
				r[i] = 1
			}
		}
	} else {
		a, b := ints(in[0], t), ints(in[1], t)
		for i := range r {
			if evalPredicate(Predicate(p.Value), a[i], b[i], t) {
				r[i] = 1
			}
		}
	}
	return one(build(op, shape, r, nil))
}

func selectKernel(op *textir.Operation, in []*interp.Tensor, _ *exec.State) ([]*interp.Tensor, error) {
	shape, err := sameShapes(op, in[1:])
	if err != nil {
		return nil, err
	}
	c := ints(in[0], textir.I1())
	pick := func(i int) int {
		if len(c) == 1 {
			return int(c[0])
		}
		return int(c[i])
	}
	if textir.IsFloat(textir.ElementType(op.Result(0).Type())) {
		a, b := floats(in[1]), floats(in[2])
		for i := range a {
			if pick(i) == 0 {
				a[i] = b[i]
			}
		}
		return one(build(op, shape, nil, a))
	}
	t := op.Result(0).Type()
	a, b := ints(in[1], t), ints(in[2], t)
	for i := range a {
		if pick(i) == 0 {
			a[i] = b[i]
		}
	}
	return one(build(op, shape, a, nil))
}

func castKernel(op *textir.Operation, in []*interp.Tensor, _ *exec.State) ([]*interp.Tensor, error) {
	shape := in[0].Shape()
	src, dst := op.Operand(0).Type(), op.Result(0).Type()
	switch op.Name() {
	case NegFOp:
		a := floats(in[0])
		for i := range a {
			a[i] = -a[i]
		}
		return one(build(op, shape, nil, a))
	case SIToFPOp, UIToFPOp:
		a := ints(in[0], src)
		fs := make([]float64, len(a))
		for i, v := range a {
			if op.Name() == UIToFPOp {
				fs[i] = UintToFloat(asUnsigned(v, src), dst)
			} else {
				fs[i] = IntToFloat(signed(v, src), dst)
			}
		}
		return one(build(op, shape, nil, fs))
	case FPToSIOp:
		a := floats(in[0])
		is := make([]int64, len(a))
		for i, v := range a {
			r, ok := FPToSI(v, dst)
			if !ok {
				return nil, op.Errorf("%g does not fit in %s", v, dst)
			}
			is[i] = r
		}
		return one(build(op, shape, is, nil))
	}
	a := ints(in[0], src)
	for i, v := range a {
		if op.Name() == ExtUIOp {
			a[i] = Normalize(int64(asUnsigned(v, src)), dst)
		} else {
			a[i] = Normalize(signed(v, src), dst)
		}
	}
	return one(build(op, shape, a, nil))
}
