package tfops

import (
	"github.com/recom-compiler/recom/interp"
)

// Identity returns its input.
func Identity(x *interp.Tensor) (*interp.Tensor, error) {
	if x == nil {
		return nil, errorf("Identity", "input is nil")
	}
	return x, nil
}

// Shape returns the shape of x as a vector of outType (int32 or int64).
func Shape(x *interp.Tensor, outType interp.DType) (*interp.Tensor, error) {
	if x == nil {
		return nil, errorf("Shape", "input is nil")
	}
	return newInts("Shape", outType, []int64{int64(x.Rank())}, x.Shape())
}

// Size returns the element count of x as a scalar of outType.
func Size(x *interp.Tensor, outType interp.DType) (*interp.Tensor, error) {
	if x == nil {
		return nil, errorf("Size", "input is nil")
	}
	return newInts("Size", outType, []int64{}, []int64{int64(x.Len())})
}

// Rank returns the rank of x as an int32 scalar.
func Rank(x *interp.Tensor) (*interp.Tensor, error) {
	if x == nil {
		return nil, errorf("Rank", "input is nil")
	}
	return interp.Scalar(int32(x.Rank())), nil
}

// Reshape returns x with a new shape; at most one dimension may be -1 and
// is inferred.
func Reshape(x, shape *interp.Tensor) (*interp.Tensor, error) {
	const op = "Reshape"
	if x == nil {
		return nil, errorf(op, "input is nil")
	}
	dims, err := intVector(op, "shape", shape)
	if err != nil {
		return nil, err
	}
	out, err := inferShape(op, int64(x.Len()), x.Shape(), dims)
	if err != nil {
		return nil, err
	}
	return x.Reshaped(out)
}

// inferShape resolves one -1 in dims for a tensor of n elements.
func inferShape(op string, n int64, inShape, dims []int64) ([]int64, error) {
	out := append([]int64{}, dims...)
	unknown := -1
	product := int64(1)
	for i, d := range dims {
		switch {
		case d == -1:
			if unknown >= 0 {
				return nil, errorf(op, "only one input size may be -1, not both %d and %d", unknown, i)
			}
			unknown = i
		case d < 0:
			return nil, errorf(op, "size %d must be non-negative, not %d", i, d)
		default:
			if d != 0 && product > interp.MaxElements/d {
				return nil, errorf(op, "requested shape %s has too many elements", shapeStr(dims))
			}
			product *= d
		}
	}
	if unknown >= 0 {
		if product == 0 {
			return nil, errorf(op, "cannot infer the missing input size for an empty tensor unless all specified input sizes are non-zero")
		}
		if n%product != 0 {
			return nil, errorf(op, "input to reshape is a tensor with %d values, but the requested shape requires a multiple of %d", n, product)
		}
		out[unknown] = n / product
		product = n
	}
	if product != n {
		return nil, errorf(op, "input to reshape is a tensor with %d values (shape %s), but the requested shape %s has %d",
			n, shapeStr(inShape), shapeStr(dims), product)
	}
	return out, nil
}

// ExpandDims inserts a dimension of size 1 at axis, in [-rank-1, rank].
func ExpandDims(x, axis *interp.Tensor) (*interp.Tensor, error) {
	const op = "ExpandDims"
	if x == nil {
		return nil, errorf(op, "input is nil")
	}
	a, err := intScalar(op, "axis", axis)
	if err != nil {
		return nil, err
	}
	r := int64(x.Rank())
	if a < -r-1 || a > r {
		return nil, errorf(op, "tried to expand dim index %d for tensor with %d dimensions", a, r)
	}
	if a < 0 {
		a += r + 1
	}
	s := x.Shape()
	s = append(s[:a], append([]int64{1}, s[a:]...)...)
	return x.Reshaped(s)
}

// Squeeze removes the listed size-1 dimensions, or all of them when axes is
// empty.
func Squeeze(x *interp.Tensor, axes []int64) (*interp.Tensor, error) {
	const op = "Squeeze"
	if x == nil {
		return nil, errorf(op, "input is nil")
	}
	s := x.Shape()
	drop := make([]bool, len(s))
	for _, a := range axes {
		i, err := normAxis(op, a, len(s))
		if err != nil {
			return nil, err
		}
		if s[i] != 1 {
			return nil, errorf(op, "can not squeeze dim[%d], expected a dimension of 1, got %d", i, s[i])
		}
		drop[i] = true
	}
	out := []int64{}
	for i, d := range s {
		if drop[i] || (len(axes) == 0 && d == 1) {
			continue
		}
		out = append(out, d)
	}
	return x.Reshaped(out)
}

// Fill returns a tensor of shape dims filled with the scalar value.
func Fill(dims, value *interp.Tensor) (*interp.Tensor, error) {
	const op = "Fill"
	shape, err := intVector(op, "dims", dims)
	if err != nil {
		return nil, err
	}
	if value == nil || value.Rank() != 0 {
		return nil, errorf(op, "value must be a scalar")
	}
	for i, d := range shape {
		if d < 0 {
			return nil, errorf(op, "dims[%d] = %d must be non-negative", i, d)
		}
	}
	n, err := numElements(op, shape)
	if err != nil {
		return nil, err
	}
	return Take(value, make([]int, n), shape)
}

// ZerosLike returns zeros (false, "") of x's shape and dtype.
func ZerosLike(x *interp.Tensor) (*interp.Tensor, error) {
	if x == nil {
		return nil, errorf("ZerosLike", "input is nil")
	}
	return interp.Zeros(x.DType(), x.Shape())
}

// OnesLike returns ones (true) of x's shape and dtype.
func OnesLike(x *interp.Tensor) (*interp.Tensor, error) {
	const op = "OnesLike"
	if x == nil {
		return nil, errorf(op, "input is nil")
	}
	one, err := scalarOf(op, x.DType(), 1)
	if err != nil {
		return nil, err
	}
	return Take(one, make([]int, x.Len()), x.Shape())
}

// scalarOf returns v as a scalar of dtype dt (bool: v != 0).
func scalarOf(op string, dt interp.DType, v float64) (*interp.Tensor, error) {
	switch dt {
	case interp.Float32:
		return interp.Scalar(float32(v)), nil
	case interp.Float64:
		return interp.Scalar(v), nil
	case interp.Int8:
		return interp.Scalar(int8(v)), nil
	case interp.Int16:
		return interp.Scalar(int16(v)), nil
	case interp.Int32:
		return interp.Scalar(int32(v)), nil
	case interp.Int64:
		return interp.Scalar(int64(v)), nil
	case interp.Uint8:
		return interp.Scalar(uint8(v)), nil
	case interp.Bool:
		return interp.Scalar(v != 0), nil
	}
	return nil, errorf(op, "unsupported dtype %v", dt)
}
