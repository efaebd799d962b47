package tfops

import (
	"math"
	"runtime"
	"sort"
	"strconv"
	"sync"
	"sync/atomic"

	"github.com/recom-compiler/recom/interp"
)

type binOp int

const (
	opAdd binOp = iota
	opSub
	opMul
	opRealDiv
	opDiv
	opFloorDiv
	opFloorMod
	opMaximum
	opMinimum
	opEqual
	opNotEqual
	opLess
	opLessEqual
	opGreater
	opGreaterEqual
	opLogicalAnd
	opLogicalOr
	opPow
)

// Add returns x + y with broadcasting; for strings it concatenates.
func Add(x, y *interp.Tensor) (*interp.Tensor, error) { return binary("Add", opAdd, x, y) }

// AddV2 returns x + y with broadcasting (numeric only).
func AddV2(x, y *interp.Tensor) (*interp.Tensor, error) { return binary("AddV2", opAdd, x, y) }

// Sub returns x - y with broadcasting.
func Sub(x, y *interp.Tensor) (*interp.Tensor, error) { return binary("Sub", opSub, x, y) }

// Mul returns x * y with broadcasting.
func Mul(x, y *interp.Tensor) (*interp.Tensor, error) { return binary("Mul", opMul, x, y) }

// RealDiv returns x / y for floating-point tensors.
func RealDiv(x, y *interp.Tensor) (*interp.Tensor, error) {
	return binary("RealDiv", opRealDiv, x, y)
}

// Div returns x / y; integer division truncates toward zero and division
// by zero is an error.
func Div(x, y *interp.Tensor) (*interp.Tensor, error) { return binary("Div", opDiv, x, y) }

// FloorDiv returns floor(x / y); integer division by zero is an error.
func FloorDiv(x, y *interp.Tensor) (*interp.Tensor, error) {
	return binary("FloorDiv", opFloorDiv, x, y)
}

// FloorMod returns x - floor(x/y)*y (the result has the sign of y);
// integer division by zero is an error.
func FloorMod(x, y *interp.Tensor) (*interp.Tensor, error) {
	return binary("FloorMod", opFloorMod, x, y)
}

// Maximum returns the elementwise maximum; NaN propagates.
func Maximum(x, y *interp.Tensor) (*interp.Tensor, error) {
	return binary("Maximum", opMaximum, x, y)
}

// Minimum returns the elementwise minimum; NaN propagates.
func Minimum(x, y *interp.Tensor) (*interp.Tensor, error) {
	return binary("Minimum", opMinimum, x, y)
}

// Equal returns x == y as bool (numeric, bool and string inputs).
func Equal(x, y *interp.Tensor) (*interp.Tensor, error) { return binary("Equal", opEqual, x, y) }

// NotEqual returns x != y as bool (numeric, bool and string inputs).
func NotEqual(x, y *interp.Tensor) (*interp.Tensor, error) {
	return binary("NotEqual", opNotEqual, x, y)
}

// Less returns x < y as bool.
func Less(x, y *interp.Tensor) (*interp.Tensor, error) { return binary("Less", opLess, x, y) }

// LessEqual returns x <= y as bool.
func LessEqual(x, y *interp.Tensor) (*interp.Tensor, error) {
	return binary("LessEqual", opLessEqual, x, y)
}

// Greater returns x > y as bool.
func Greater(x, y *interp.Tensor) (*interp.Tensor, error) {
	return binary("Greater", opGreater, x, y)
}

// GreaterEqual returns x >= y as bool.
func GreaterEqual(x, y *interp.Tensor) (*interp.Tensor, error) {
	return binary("GreaterEqual", opGreaterEqual, x, y)
}

// LogicalAnd returns x && y for bool tensors.
func LogicalAnd(x, y *interp.Tensor) (*interp.Tensor, error) {
	return binary("LogicalAnd", opLogicalAnd, x, y)
}

// LogicalOr returns x || y for bool tensors.
func LogicalOr(x, y *interp.Tensor) (*interp.Tensor, error) {
	return binary("LogicalOr", opLogicalOr, x, y)
}

// Pow returns x^y with broadcasting, as TensorFlow's CPU kernel: float32
// and float64 use pow(3) (so a negative base to a non-integer power is
// NaN); int32 and int64 raise by repeated squaring, wrapping on overflow,
// and a negative integer exponent is an error.
func Pow(x, y *interp.Tensor) (*interp.Tensor, error) { return binary("Pow", opPow, x, y) }

func binaryAccepts(name string, op binOp, dt interp.DType) bool {
	switch op {
	case opPow:
		return dt == interp.Float32 || dt == interp.Float64 || dt == interp.Int32 || dt == interp.Int64
	case opLogicalAnd, opLogicalOr:
		return dt == interp.Bool
	case opEqual, opNotEqual:
		return true
	case opRealDiv:
		return dt.IsFloat()
	case opAdd:
		return dt.IsNumeric() || (name == "Add" && dt == interp.String)
	}
	return dt.IsNumeric()
}

func binary(name string, op binOp, x, y *interp.Tensor) (*interp.Tensor, error) {
	if x == nil || y == nil {
		return nil, errorf(name, "nil input")
	}
	if x.DType() != y.DType() {
		return nil, errorf(name, "input #1 was expected to be a %v tensor but is a %v tensor", x.DType(), y.DType())
	}
	if !binaryAccepts(name, op, x.DType()) {
		return nil, errorf(name, "unsupported dtype %v", x.DType())
	}
	out, err := broadcastShape(name, x.Shape(), y.Shape())
	if err != nil {
		return nil, err
	}
	if _, err := numElements(name, out); err != nil {
		return nil, err
	}
	// An operand of the output's shape reads element i for output i: no
	// index array (arithT's nil); the other paths want one anyway.
	n, _ := interp.NumElements(out)
	var xi, yi []int
	if !equalShape(x.Shape(), out) {
		xi = broadcastIndex(out, x.Shape())
	}
	if !equalShape(y.Shape(), out) {
		yi = broadcastIndex(out, y.Shape())
	}
	if x.DType().IsNumeric() && (op < opEqual || op > opGreaterEqual) {
		switch xd := x.Data().(type) {
		case []float32:
			return arithT(name, op, out, xd, y.Float32s(), xi, yi, int(n))
		case []float64:
			return arithT(name, op, out, xd, y.Float64s(), xi, yi, int(n))
		case []int8:
			return arithT(name, op, out, xd, y.Data().([]int8), xi, yi, int(n))
		case []int16:
			return arithT(name, op, out, xd, y.Data().([]int16), xi, yi, int(n))
		case []int32:
			return arithT(name, op, out, xd, y.Int32s(), xi, yi, int(n))
		case []int64:
			return arithT(name, op, out, xd, y.Int64s(), xi, yi, int(n))
		case []uint8:
			return arithT(name, op, out, xd, y.Data().([]uint8), xi, yi, int(n))
		}
	}
	xi, yi = identity(xi, int(n)), identity(yi, int(n))
	if op >= opEqual && op <= opGreaterEqual {
		var r []bool
		switch xd := x.Data().(type) {
		case []float32:
			r = compareT(op, xd, y.Float32s(), xi, yi)
		case []float64:
			r = compareT(op, xd, y.Float64s(), xi, yi)
		case []int8:
			r = compareT(op, xd, y.Data().([]int8), xi, yi)
		case []int16:
			r = compareT(op, xd, y.Data().([]int16), xi, yi)
		case []int32:
			r = compareT(op, xd, y.Int32s(), xi, yi)
		case []int64:
			r = compareT(op, xd, y.Int64s(), xi, yi)
		case []uint8:
			r = compareT(op, xd, y.Data().([]uint8), xi, yi)
		case []string:
			r = compareT(op, xd, y.Strings(), xi, yi)
		case []bool:
			yd := y.Bools()
			r = make([]bool, len(xi))
			for i := range r {
				r[i] = (xd[xi[i]] == yd[yi[i]]) == (op == opEqual)
			}
		}
		return interp.New(out, r)
	}
	switch xd := x.Data().(type) {
	case []bool:
		yd := y.Bools()
		r := make([]bool, len(xi))
		for i := range r {
			if op == opLogicalAnd {
				r[i] = xd[xi[i]] && yd[yi[i]]
			} else {
				r[i] = xd[xi[i]] || yd[yi[i]]
			}
		}
		return interp.New(out, r)
	case []string:
		yd := y.Strings()
		r := make([]string, len(xi))
		for i := range r {
			r[i] = xd[xi[i]] + yd[yi[i]]
		}
		return interp.New(out, r)
	}
	return nil, errorf(name, "unsupported dtype %v", x.DType())
}

type ordered interface {
	number | string
}

func compareT[T ordered](op binOp, x, y []T, xi, yi []int) []bool {
	r := make([]bool, len(xi))
	for i := range r {
		a, b := x[xi[i]], y[yi[i]]
		switch op {
		case opEqual:
			r[i] = a == b
		case opNotEqual:
			r[i] = a != b
		case opLess:
			r[i] = a < b
		case opLessEqual:
			r[i] = a <= b
		case opGreater:
			r[i] = a > b
		case opGreaterEqual:
			r[i] = a >= b
		}
	}
	return r
}

// identity returns idx, or when it is nil the n indices 0..n-1.
func identity(idx []int, n int) []int {
	if idx != nil {
		return idx
	}
	idx = make([]int, n)
	for i := range idx {
		idx[i] = i
	}
	return idx
}

// gatherT returns x read at idx (x itself when idx is nil: element i).
func gatherT[T number](x []T, idx []int) []T {
	if idx == nil {
		return x
	}
	r := make([]T, len(idx))
	for i, k := range idx {
		r[i] = x[k]
	}
	return r
}

// arithT computes op elementwise over n outputs, x and y read at xi and yi
// (nil: at i). Add, Sub and Mul, the common ones, run in loops of their
// own.
func arithT[T number](name string, op binOp, shape []int64, x, y []T, xi, yi []int, n int) (*interp.Tensor, error) {
	fl := isFloat[T]()
	r := make([]T, n)
	x, y = gatherT(x, xi), gatherT(y, yi)
	switch op {
	case opAdd:
		for i := range r {
			r[i] = x[i] + y[i]
		}
		return interp.New(shape, r)
	case opSub:
		for i := range r {
			r[i] = x[i] - y[i]
		}
		return interp.New(shape, r)
	case opMul:
		for i := range r {
			r[i] = x[i] * y[i]
		}
		return interp.New(shape, r)
	}
	for i := range r {
		a, b := x[i], y[i]
		switch op {
		case opAdd:
			r[i] = a + b
		case opSub:
			r[i] = a - b
		case opMul:
			r[i] = a * b
		case opMaximum:
			switch {
			case a != a:
				r[i] = a
			case b != b || b > a:
				r[i] = b
			default:
				r[i] = a
			}
		case opMinimum:
			switch {
			case a != a:
				r[i] = a
			case b != b || b < a:
				r[i] = b
			default:
				r[i] = a
			}
		case opPow:
			if fl {
				r[i] = T(math.Pow(float64(a), float64(b)))
				break
			}
			if b < 0 {
				return nil, errorf(name, "Integers to negative integer powers are not allowed")
			}
			r[i] = ipow(a, b)
		case opRealDiv, opDiv, opFloorDiv, opFloorMod:
			if !fl && b == 0 {
				return nil, errorf(name, "integer division by zero")
			}
			switch {
			case op == opRealDiv || op == opDiv:
				r[i] = a / b
			case fl && op == opFloorDiv:
				r[i] = T(math.Floor(float64(a / b)))
			case fl: // FloorMod
				m := T(math.Mod(float64(a), float64(b)))
				if m != 0 && (b < 0) != (m < 0) {
					m += b
				}
				r[i] = m
			case op == opFloorDiv:
				x, y := int64(a), int64(b)
				q := x / y
				if x%y != 0 && (x < 0) != (y < 0) {
					q--
				}
				r[i] = T(q)
			default:
				x, y := int64(a), int64(b)
				m := x % y
				if m != 0 && (m < 0) != (y < 0) {
					m += y
				}
				r[i] = T(m)
			}
		}
	}
	return interp.New(shape, r)
}

// ipow is a^e for e >= 0 by repeated squaring, wrapping as T does.
func ipow[T number](a, e T) T {
	r := T(1)
	for n := uint64(e); n > 0; n >>= 1 {
		if n&1 == 1 {
			r *= a
		}
		a *= a
	}
	return r
}

type unOp int

const (
	opNeg unOp = iota
	opAbs
	opSquare
	opSqrt
	opRsqrt
	opExp
	opLog
	opSigmoid
	opTanh
	opRelu
)

// Neg returns -x (integers wrap).
func Neg(x *interp.Tensor) (*interp.Tensor, error) { return unary("Neg", opNeg, x) }

// Abs returns |x|.
func Abs(x *interp.Tensor) (*interp.Tensor, error) { return unary("Abs", opAbs, x) }

// Square returns x*x.
func Square(x *interp.Tensor) (*interp.Tensor, error) { return unary("Square", opSquare, x) }

// Sqrt returns the square root of a floating-point tensor.
func Sqrt(x *interp.Tensor) (*interp.Tensor, error) { return unary("Sqrt", opSqrt, x) }

// Rsqrt returns 1/sqrt(x).
func Rsqrt(x *interp.Tensor) (*interp.Tensor, error) { return unary("Rsqrt", opRsqrt, x) }

// Exp returns e^x.
func Exp(x *interp.Tensor) (*interp.Tensor, error) { return unary("Exp", opExp, x) }

// Log returns the natural logarithm.
func Log(x *interp.Tensor) (*interp.Tensor, error) { return unary("Log", opLog, x) }

// Sigmoid returns 1/(1+e^-x).
func Sigmoid(x *interp.Tensor) (*interp.Tensor, error) { return unary("Sigmoid", opSigmoid, x) }

// Tanh returns the hyperbolic tangent.
func Tanh(x *interp.Tensor) (*interp.Tensor, error) { return unary("Tanh", opTanh, x) }

// Relu returns max(x, 0).
func Relu(x *interp.Tensor) (*interp.Tensor, error) { return unary("Relu", opRelu, x) }

// LogicalNot returns !x for a bool tensor.
func LogicalNot(x *interp.Tensor) (*interp.Tensor, error) {
	if err := checkDType("LogicalNot", "x", x, interp.Bool); err != nil {
		return nil, err
	}
	b := x.Bools()
	r := make([]bool, len(b))
	for i, v := range b {
		r[i] = !v
	}
	return interp.New(x.Shape(), r)
}

func unary(name string, op unOp, x *interp.Tensor) (*interp.Tensor, error) {
	if x == nil {
		return nil, errorf(name, "input is nil")
	}
	floatOnly := op >= opSqrt && op <= opTanh
	if !x.DType().IsNumeric() || (floatOnly && !x.DType().IsFloat()) {
		return nil, errorf(name, "unsupported dtype %v", x.DType())
	}
	switch d := x.Data().(type) {
	case []float32:
		return interp.New(x.Shape(), unaryT(op, d))
	case []float64:
		return interp.New(x.Shape(), unaryT(op, d))
	case []int8:
		return interp.New(x.Shape(), unaryT(op, d))
	case []int16:
		return interp.New(x.Shape(), unaryT(op, d))
	case []int32:
		return interp.New(x.Shape(), unaryT(op, d))
	case []int64:
		return interp.New(x.Shape(), unaryT(op, d))
	case []uint8:
		return interp.New(x.Shape(), unaryT(op, d))
	}
	return nil, errorf(name, "unsupported dtype %v", x.DType())
}

// unaryT applies op; transcendental functions are evaluated in float64 and
// rounded to T once.
func unaryT[T number](op unOp, d []T) []T {
	r := make([]T, len(d))
	for i, v := range d {
		f := float64(v)
		switch op {
		case opNeg:
			r[i] = -v
		case opAbs:
			if v < 0 {
				r[i] = -v
			} else {
				r[i] = v
			}
		case opSquare:
			r[i] = v * v
		case opRelu:
			if v > 0 || v != v {
				r[i] = v
			}
		case opSqrt:
			r[i] = T(math.Sqrt(f))
		case opRsqrt:
			r[i] = T(1 / math.Sqrt(f))
		case opExp:
			r[i] = T(math.Exp(f))
		case opLog:
			r[i] = T(math.Log(f))
		case opSigmoid:
			r[i] = T(1 / (1 + math.Exp(-f)))
		case opTanh:
			r[i] = T(math.Tanh(f))
		}
	}
	return r
}

// Cast converts x to dtype to. Floating-point to integer conversion
// truncates toward zero; NaN and out-of-range values give the x86 result
// (the minimum int32, or int64, then wrapped to narrower types). Conversions
// to bool test for non-zero; bool converts to 0 or 1. Strings cannot be
// cast.
func Cast(x *interp.Tensor, to interp.DType) (*interp.Tensor, error) {
	const op = "Cast"
	if x == nil {
		return nil, errorf(op, "input is nil")
	}
	from := x.DType()
	if from == to {
		return x, nil
	}
	if from == interp.String || to == interp.String || !to.Valid() {
		return nil, errorf(op, "cast %v to %v is not supported", from, to)
	}
	n := x.Len()
	shape := x.Shape()
	if to == interp.Bool {
		b, err := truthy(op, x)
		if err != nil {
			return nil, err
		}
		return interp.New(shape, b)
	}
	if from.IsFloat() && to.IsInteger() {
		v := make([]int64, n)
		for i := range v {
			f := x.Float64At(i)
			if to == interp.Int64 {
				v[i] = truncToInt64(f)
			} else {
				v[i] = int64(truncToInt32(f))
			}
		}
		return intsAs(to, shape, v)
	}
	if from.IsInteger() || from == interp.Bool {
		v := make([]int64, n)
		for i := range v {
			v[i], _ = x.Int64At(i)
		}
		if to.IsInteger() {
			return intsAs(to, shape, v)
		}
		if to == interp.Float32 {
			f := make([]float32, n)
			for i, e := range v {
				f[i] = float32(e)
			}
			return interp.New(shape, f)
		}
		f := make([]float64, n)
		for i, e := range v {
			f[i] = float64(e)
		}
		return interp.New(shape, f)
	}
	// float to float
	if to == interp.Float32 {
		f := make([]float32, n)
		for i, e := range x.Float64s() {
			f[i] = float32(e)
		}
		return interp.New(shape, f)
	}
	f := make([]float64, n)
	for i, e := range x.Float32s() {
		f[i] = float64(e)
	}
	return interp.New(shape, f)
}

func truncToInt32(f float64) int32 {
	if f != f || f <= -2147483649 || f >= 2147483648 {
		return math.MinInt32
	}
	return int32(f)
}

func truncToInt64(f float64) int64 {
	if f != f || f < -9223372036854775808 || f >= 9223372036854775808 {
		return math.MinInt64
	}
	return int64(f)
}

// intsAs narrows int64 values (wrapping) to an integer dtype.
func intsAs(to interp.DType, shape []int64, v []int64) (*interp.Tensor, error) {
	switch to {
	case interp.Int64:
		return interp.New(shape, v)
	case interp.Int32:
		return interp.New(shape, convertT[int32](v))
	case interp.Int16:
		return interp.New(shape, convertT[int16](v))
	case interp.Int8:
		return interp.New(shape, convertT[int8](v))
	case interp.Uint8:
		return interp.New(shape, convertT[uint8](v))
	}
	return nil, errorf("Cast", "unsupported target dtype %v", to)
}

func convertT[T integer](v []int64) []T {
	r := make([]T, len(v))
	for i, e := range v {
		r[i] = T(e)
	}
	return r
}

type redOp int

const (
	redSum redOp = iota
	redProd
	redMean
	redMax
	redMin
	redAll
	redAny
)

// Sum reduces x by addition over axes (int32/int64, scalar or vector;
// negative axes count from the end; an empty list reduces nothing).
func Sum(x, axes *interp.Tensor, keepDims bool) (*interp.Tensor, error) {
	return reduce("Sum", redSum, x, axes, keepDims)
}

// Prod reduces x by multiplication over axes.
func Prod(x, axes *interp.Tensor, keepDims bool) (*interp.Tensor, error) {
	return reduce("Prod", redProd, x, axes, keepDims)
}

// Mean reduces x by averaging over axes; integer means truncate.
func Mean(x, axes *interp.Tensor, keepDims bool) (*interp.Tensor, error) {
	return reduce("Mean", redMean, x, axes, keepDims)
}

// Max reduces x by maximum over axes (the lowest value for empty
// reductions; NaN propagates).
func Max(x, axes *interp.Tensor, keepDims bool) (*interp.Tensor, error) {
	return reduce("Max", redMax, x, axes, keepDims)
}

// Min reduces x by minimum over axes.
func Min(x, axes *interp.Tensor, keepDims bool) (*interp.Tensor, error) {
	return reduce("Min", redMin, x, axes, keepDims)
}

// All reduces a bool tensor by logical and.
func All(x, axes *interp.Tensor, keepDims bool) (*interp.Tensor, error) {
	return reduce("All", redAll, x, axes, keepDims)
}

// Any reduces a bool tensor by logical or.
func Any(x, axes *interp.Tensor, keepDims bool) (*interp.Tensor, error) {
	return reduce("Any", redAny, x, axes, keepDims)
}

func reduce(name string, op redOp, x, axes *interp.Tensor, keepDims bool) (*interp.Tensor, error) {
	if x == nil {
		return nil, errorf(name, "input is nil")
	}
	if op == redAll || op == redAny {
		if x.DType() != interp.Bool {
			return nil, errorf(name, "unsupported dtype %v (want bool)", x.DType())
		}
	} else if !x.DType().IsNumeric() {
		return nil, errorf(name, "unsupported dtype %v", x.DType())
	}
	ax, err := ints(name, "reduction_indices", axes)
	if err != nil {
		return nil, err
	}
	if axes.Rank() > 1 {
		return nil, errorf(name, "reduction_indices must be a scalar or vector, got shape %s", shapeStr(axes.Shape()))
	}
	shape := x.Shape()
	red := make([]bool, len(shape))
	for _, a := range ax {
		if a < -int64(len(shape)) || a >= int64(len(shape)) {
			return nil, errorf(name, "invalid reduction dimension (%d for input with %d dimension(s))", a, len(shape))
		}
		if a < 0 {
			a += int64(len(shape))
		}
		red[a] = true
	}
	var out, kept []int64
	for i, d := range shape {
		if red[i] {
			kept = append(kept, 1)
			continue
		}
		out = append(out, d)
		kept = append(kept, d)
	}
	if keepDims {
		out = kept
	}
	if out == nil {
		out = []int64{}
	}
	nOut, _ := interp.NumElements(out)
	ost := strides(kept)
	for i := range red {
		if red[i] {
			ost[i] = 0
		}
	}
	count := 1
	if nOut > 0 {
		count = x.Len() / int(nOut)
	} else if x.Len() == 0 {
		count = 0
	}
	// dst is nil when the reduced axes are the innermost: output o is then
	// the count elements from o*count on (reduceT reads it so).
	var dst []int
	if !trailing(red) || x.DType() == interp.Bool {
		dst = offsets(shape, ost, int64(x.Len()))
	}
	switch d := x.Data().(type) {
	case []float32:
		return reduceT(name, op, out, d, dst, int(nOut), count)
	case []float64:
		return reduceT(name, op, out, d, dst, int(nOut), count)
	case []int8:
		return reduceT(name, op, out, d, dst, int(nOut), count)
	case []int16:
		return reduceT(name, op, out, d, dst, int(nOut), count)
	case []int32:
		return reduceT(name, op, out, d, dst, int(nOut), count)
	case []int64:
		return reduceT(name, op, out, d, dst, int(nOut), count)
	case []uint8:
		return reduceT(name, op, out, d, dst, int(nOut), count)
	case []bool:
		r := make([]bool, nOut)
		for i := range r {
			r[i] = op == redAll
		}
		for i, v := range d {
			if op == redAll {
				r[dst[i]] = r[dst[i]] && v
			} else {
				r[dst[i]] = r[dst[i]] || v
			}
		}
		return interp.New(out, r)
	}
	return nil, errorf(name, "unsupported dtype %v", x.DType())
}

// trailing reports whether the reduced axes (red[i]) all come after the
// kept ones.
func trailing(red []bool) bool {
	for i := 1; i < len(red); i++ {
		if red[i-1] && !red[i] {
			return false
		}
	}
	return true
}

func lowest[T number]() T {
	var z T
	switch p := any(&z).(type) {
	case *float32:
		*p = float32(math.Inf(-1))
	case *float64:
		*p = math.Inf(-1)
	case *int8:
		*p = math.MinInt8
	case *int16:
		*p = math.MinInt16
	case *int32:
		*p = math.MinInt32
	case *int64:
		*p = math.MinInt64
	}
	return z
}

func highest[T number]() T {
	var z T
	switch p := any(&z).(type) {
	case *float32:
		*p = float32(math.Inf(1))
	case *float64:
		*p = math.Inf(1)
	case *int8:
		*p = math.MaxInt8
	case *int16:
		*p = math.MaxInt16
	case *int32:
		*p = math.MaxInt32
	case *int64:
		*p = math.MaxInt64
	case *uint8:
		*p = math.MaxUint8
	}
	return z
}

func reduceT[T number](name string, op redOp, shape []int64, d []T, dst []int, nOut, count int) (*interp.Tensor, error) {
	r := make([]T, nOut)
	fl := isFloat[T]()
	if dst == nil {
		if fl && (op == redSum || op == redMean) {
			// Contiguous groups, summed in element order in float64 as below.
			for o := range r {
				a := 0.0
				for _, v := range d[o*count : (o+1)*count] {
					a += float64(v)
				}
				if op == redMean {
					a /= float64(count)
				}
				r[o] = T(a)
			}
			return interp.New(shape, r)
		}
		dst = make([]int, len(d))
		for o, i := 0, 0; i < len(dst); o++ {
			for end := i + count; i < end; i++ {
				dst[i] = o
			}
		}
	}
	switch op {
	case redSum, redMean, redProd:
		if fl {
			acc := make([]float64, nOut)
			if op == redProd {
				for i := range acc {
					acc[i] = 1
				}
			}
			for i, v := range d {
				if op == redProd {
					acc[dst[i]] *= float64(v)
				} else {
					acc[dst[i]] += float64(v)
				}
			}
			for i, a := range acc {
				if op == redMean {
					a /= float64(count)
				}
				r[i] = T(a)
			}
			break
		}
		if op == redProd {
			for i := range r {
				r[i] = 1
			}
		}
		for i, v := range d {
			if op == redProd {
				r[dst[i]] *= v
			} else {
				r[dst[i]] += v
			}
		}
		if op == redMean {
			if count == 0 && nOut > 0 {
				return nil, errorf(name, "mean of an empty integer reduction is undefined (division by zero)")
			}
			for i := range r {
				r[i] /= T(count)
			}
		}
	case redMax, redMin:
		init := lowest[T]()
		if op == redMin {
			init = highest[T]()
		}
		for i := range r {
			r[i] = init
		}
		for i, v := range d {
			cur := r[dst[i]]
			switch {
			case cur != cur:
			case v != v, op == redMax && v > cur, op == redMin && v < cur:
				r[dst[i]] = v
			}
		}
	}
	return interp.New(shape, r)
}

// MatMul multiplies two matrices, optionally transposing either first.
func MatMul(a, b *interp.Tensor, transposeA, transposeB bool) (*interp.Tensor, error) {
	const op = "MatMul"
	if err := checkDType(op, "a", a, interp.Float32, interp.Float64, interp.Int32, interp.Int64); err != nil {
		return nil, err
	}
	if b == nil || b.DType() != a.DType() {
		return nil, errorf(op, "b must have a's dtype %v", a.DType())
	}
	if a.Rank() != 2 || b.Rank() != 2 {
		return nil, errorf(op, "in[0] and in[1] must be matrices, got shapes %s and %s", shapeStr(a.Shape()), shapeStr(b.Shape()))
	}
	m, k := a.Dim(0), a.Dim(1)
	if transposeA {
		m, k = k, m
	}
	k2, n := b.Dim(0), b.Dim(1)
	if transposeB {
		k2, n = n, k2
	}
	if k != k2 {
		return nil, errorf(op, "matrix size-incompatible: In[0]: %s, In[1]: %s", shapeStr(a.Shape()), shapeStr(b.Shape()))
	}
	out := []int64{m, n}
	if _, err := numElements(op, out); err != nil {
		return nil, err
	}
	// Both operands row-major and untransposed: a is m×k, b is k×n.
	if transposeA {
		a = transpose2(a)
	}
	if transposeB {
		b = transpose2(b)
	}
	switch ad := a.Data().(type) {
	case []float32:
		return interp.New(out, matmulFloat(ad, b.Float32s(), int(m), int(n), int(k)))
	case []float64:
		return interp.New(out, matmulFloat(ad, b.Float64s(), int(m), int(n), int(k)))
	case []int32:
		return interp.New(out, matmulInt(ad, b.Int32s(), int(m), int(n), int(k)))
	case []int64:
		return interp.New(out, matmulInt(ad, b.Int64s(), int(m), int(n), int(k)))
	}
	return nil, errorf(op, "unsupported dtype %v", a.DType())
}

// transpose2 returns the transpose of a matrix.
func transpose2(x *interp.Tensor) *interp.Tensor {
	t, err := Transpose(x, interp.Must(interp.New([]int64{2}, []int32{1, 0})))
	if err != nil {
		panic(err) // a rank-2 tensor always transposes
	}
	return t
}

// The tiles of matmulFloat: a tile of b (matTileP rows × matTileN columns)
// stays in the cache while every row of a uses it.
const (
	matTileN = 256
	matTileP = 128
)

// matmulFloat multiplies row-major a (m×k) by b (k×n). Each output is
// accumulated in float64 in the order p = 0, 1, ..., k-1 and rounded once,
// whatever the tiling and the number of workers, so results do not depend
// on the machine. Products a[i,p]·b[p,j] with a[i,p] == 0 are skipped when
// row p of b is finite (they add exactly zero).
func matmulFloat[T float32 | float64](a, b []T, m, n, k int) []T {
	finite := make([]bool, k)
	for p := range finite {
		finite[p] = true
		for _, v := range b[p*n : (p+1)*n] {
			if f := float64(v); math.IsInf(f, 0) || f != f {
				finite[p] = false
				break
			}
		}
	}
	acc := make([]float64, m*n)
	tiles := (n + matTileN - 1) / matTileN
	parallel(tiles, int64(m)*int64(n)*int64(k), func(t int) {
		j0 := t * matTileN
		j1 := min(j0+matTileN, n)
		nz := make([]int, 0, matTileP)
		for p0 := 0; p0 < k; p0 += matTileP {
			p1 := min(p0+matTileP, k)
			for i := 0; i < m; i++ {
				ar := a[i*k : (i+1)*k]
				nz = nz[:0]
				for p := p0; p < p1; p++ {
					if ar[p] != 0 || !finite[p] {
						nz = append(nz, p)
					}
				}
				ac := acc[i*n+j0 : i*n+j1]
				q := 0
				// Four rows of b at a time: one load and store of each
				// accumulator per four products, added in order.
				for ; q+4 <= len(nz); q += 4 {
					pa, pb, pc, pd := nz[q], nz[q+1], nz[q+2], nz[q+3]
					va, vb, vc, vd := float64(ar[pa]), float64(ar[pb]), float64(ar[pc]), float64(ar[pd])
					ba := b[pa*n+j0 : pa*n+j1][:len(ac)]
					bb := b[pb*n+j0 : pb*n+j1][:len(ac)]
					bc := b[pc*n+j0 : pc*n+j1][:len(ac)]
					bd := b[pd*n+j0 : pd*n+j1][:len(ac)]
					for j := range ac {
						s := ac[j]
						s += va * float64(ba[j])
						s += vb * float64(bb[j])
						s += vc * float64(bc[j])
						s += vd * float64(bd[j])
						ac[j] = s
					}
				}
				for ; q < len(nz); q++ {
					p := nz[q]
					av := float64(ar[p])
					br := b[p*n+j0 : p*n+j1][:len(ac)]
					for j, bv := range br {
						ac[j] += av * float64(bv)
					}
				}
			}
		}
	})
	r := make([]T, m*n)
	for i, v := range acc {
		r[i] = T(v)
	}
	return r
}

// matmulInt multiplies row-major integer matrices (wrapping).
func matmulInt[T int32 | int64](a, b []T, m, n, k int) []T {
	r := make([]T, m*n)
	for i := 0; i < m; i++ {
		rr := r[i*n : (i+1)*n]
		for p := 0; p < k; p++ {
			av := a[i*k+p]
			br := b[p*n : (p+1)*n]
			for j, bv := range br {
				rr[j] += av * bv
			}
		}
	}
	return r
}

// parallel runs f(0..n-1) on up to GOMAXPROCS goroutines when work (a
// count of inner steps) is large enough to pay for them; each f(i) must
// write disjoint memory.
func parallel(n int, work int64, f func(i int)) {
	w := runtime.GOMAXPROCS(0)
	if w > n {
		w = n
	}
	if w <= 1 || work < 1<<20 {
		for i := 0; i < n; i++ {
			f(i)
		}
		return
	}
	var next atomic.Int64
	var wg sync.WaitGroup
	for range w {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := int(next.Add(1) - 1)
				if i >= n {
					return
				}
				f(i)
			}
		}()
	}
	wg.Wait()
}

// BiasAdd adds the vector bias along the channel dimension of value: the
// last one for "NHWC" (or ""), dimension 1 for "NCHW".
func BiasAdd(value, bias *interp.Tensor, dataFormat string) (*interp.Tensor, error) {
	const op = "BiasAdd"
	if value == nil || bias == nil {
		return nil, errorf(op, "nil input")
	}
	if value.Rank() < 2 {
		return nil, errorf(op, "input tensor must be at least 2D: %s", shapeStr(value.Shape()))
	}
	if bias.Rank() != 1 {
		return nil, errorf(op, "biases must be 1D: %s", shapeStr(bias.Shape()))
	}
	ch := value.Rank() - 1
	switch dataFormat {
	case "", "NHWC":
	case "NCHW":
		ch = 1
	default:
		return nil, errorf(op, "invalid data_format %q", dataFormat)
	}
	if value.Dim(ch) != bias.Dim(0) {
		return nil, errorf(op, "must provide as many biases as the channel dimension of the input tensor: %s vs. %s",
			shapeStr(bias.Shape()), shapeStr(value.Shape()))
	}
	bs := make([]int64, value.Rank())
	for i := range bs {
		bs[i] = 1
	}
	bs[ch] = bias.Dim(0)
	b, err := bias.Reshaped(bs)
	if err != nil {
		return nil, err
	}
	return binary(op, opAdd, value, b)
}

// Range returns start, start+delta, ... up to but excluding limit. All
// three are scalars of one dtype (int32, int64, float32, float64), which is
// the output's dtype. Values are produced by repeated addition, as in
// TensorFlow.
func Range(start, limit, delta *interp.Tensor) (*interp.Tensor, error) {
	const op = "Range"
	for i, t := range []*interp.Tensor{start, limit, delta} {
		if err := checkDType(op, []string{"start", "limit", "delta"}[i], t, interp.Int32, interp.Int64, interp.Float32, interp.Float64); err != nil {
			return nil, err
		}
		if t.Len() != 1 || t.Rank() > 1 {
			return nil, errorf(op, "%s must be a scalar, not shape %s", []string{"start", "limit", "delta"}[i], shapeStr(t.Shape()))
		}
		if t.DType() != start.DType() {
			return nil, errorf(op, "start, limit and delta must have the same dtype")
		}
	}
	switch start.DType() {
	case interp.Int32:
		return rangeT(start.Int32s()[0], limit.Int32s()[0], delta.Int32s()[0])
	case interp.Int64:
		return rangeT(start.Int64s()[0], limit.Int64s()[0], delta.Int64s()[0])
	case interp.Float32:
		return rangeT(start.Float32s()[0], limit.Float32s()[0], delta.Float32s()[0])
	default:
		return rangeT(start.Float64s()[0], limit.Float64s()[0], delta.Float64s()[0])
	}
}

func rangeT[T number](start, limit, delta T) (*interp.Tensor, error) {
	const op = "Range"
	if delta == 0 {
		return nil, errorf(op, "requires delta != 0: %v", delta)
	}
	if delta > 0 && start > limit {
		return nil, errorf(op, "requires start <= limit when delta > 0: %v/%v", start, limit)
	}
	if delta < 0 && start < limit {
		return nil, errorf(op, "requires start >= limit when delta < 0: %v/%v", start, limit)
	}
	var size float64
	if isFloat[T]() {
		size = math.Ceil(math.Abs((float64(limit) - float64(start)) / float64(delta)))
	} else {
		// Unsigned arithmetic: |limit-start| and |delta| may not fit int64.
		diff := uint64(int64(limit) - int64(start))
		d := uint64(int64(delta))
		if delta < 0 {
			diff, d = -diff, -d
		}
		q := diff / d
		if diff%d != 0 {
			q++
		}
		size = float64(q)
	}
	if size > float64(interp.MaxElements) || size != size {
		return nil, errorf(op, "%w", &interp.TooLargeError{What: "the output size " + strconv.FormatFloat(size, 'g', -1, 64), Limit: interp.MaxElements})
	}
	r := make([]T, int(size))
	v := start
	for i := range r {
		r[i] = v
		v += delta
	}
	return interp.New([]int64{int64(len(r))}, r)
}

// Bucketize returns, for each element of x (int32, int64, float32 or
// float64), the number of boundaries less than or equal to it: a bucket in
// [0, len(boundaries)], as int32 of x's shape. Boundaries must be sorted.
// Integer inputs are compared as float32, as TensorFlow's kernel does.
func Bucketize(x *interp.Tensor, boundaries []float32) (*interp.Tensor, error) {
	const op = "Bucketize"
	if err := checkDType(op, "input", x, interp.Int32, interp.Int64, interp.Float32, interp.Float64); err != nil {
		return nil, err
	}
	if !sort.SliceIsSorted(boundaries, func(i, j int) bool { return boundaries[i] < boundaries[j] }) {
		return nil, errorf(op, "expected sorted boundaries, got %v", boundaries)
	}
	r := make([]int32, x.Len())
	f64 := x.Float64s()
	for i := range r {
		if f64 != nil {
			v := f64[i]
			r[i] = int32(sort.Search(len(boundaries), func(j int) bool { return v < float64(boundaries[j]) }))
			continue
		}
		v := float32(x.Float64At(i))
		if x.DType() == interp.Int64 {
			iv, _ := x.Int64At(i)
			v = float32(iv) // one rounding, int64 -> float32
		}
		r[i] = int32(sort.Search(len(boundaries), func(j int) bool { return v < boundaries[j] }))
	}
	return interp.New(x.Shape(), r)
}
