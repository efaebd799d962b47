// Package tfops implements TensorFlow CPU kernel semantics as plain Go
// functions on *interp.Tensor, for recom's reference interpreter.
//
// Each op is a function named after the TensorFlow op that takes its inputs
// as tensors and its attributes as Go values and returns its outputs and an
// error. The error is returned where TensorFlow's CPU kernel raises one
// (out-of-range indices, unsorted segment ids, incompatible shapes, ...), and
// names the op and the offending value. Inputs are never modified; outputs
// may share storage with inputs when TensorFlow forwards them (Identity,
// Reshape, ...).
//
// Floating-point reductions (Sum, Mean, segment sums, MatMul) accumulate in
// float64 and round once, so results match TensorFlow's blocked summation
// order only to within a tolerance: compare them with AllClose.
package tfops

import (
	"fmt"
	"math"

	"github.com/recom-compiler/recom/interp"
)

// number is the set of numeric element types.
type number interface {
	float32 | float64 | int8 | int16 | int32 | int64 | uint8
}

// integer is the set of integer element types.
type integer interface {
	int8 | int16 | int32 | int64 | uint8
}

func errorf(op, format string, args ...any) error {
	return fmt.Errorf("%s: "+format, append([]any{op}, args...)...)
}

func isFloat[T number]() bool {
	var z T
	switch any(z).(type) {
	case float32, float64:
		return true
	}
	return false
}

func shapeStr(s []int64) string { return interp.ShapeString(s) }

// checkDType returns an error unless t's dtype is one of allowed.
func checkDType(op, what string, t *interp.Tensor, allowed ...interp.DType) error {
	if t == nil {
		return errorf(op, "%s is nil", what)
	}
	for _, d := range allowed {
		if t.DType() == d {
			return nil
		}
	}
	return errorf(op, "%s has unsupported dtype %v (want one of %v)", what, t.DType(), allowed)
}

func indexTypes() []interp.DType { return []interp.DType{interp.Int32, interp.Int64} }

func floatTypes() []interp.DType { return []interp.DType{interp.Float32, interp.Float64} }

func realTypes() []interp.DType {
	return []interp.DType{interp.Float32, interp.Float64, interp.Int8, interp.Int16, interp.Int32, interp.Int64, interp.Uint8}
}

// ints returns the elements of an int32 or int64 tensor as int64.
func ints(op, what string, t *interp.Tensor) ([]int64, error) {
	if err := checkDType(op, what, t, indexTypes()...); err != nil {
		return nil, err
	}
	if d := t.Int64s(); d != nil {
		return d, nil
	}
	d32 := t.Int32s()
	out := make([]int64, len(d32))
	for i, v := range d32 {
		out[i] = int64(v)
	}
	return out, nil
}

// intVector is ints for a rank-1 tensor.
func intVector(op, what string, t *interp.Tensor) ([]int64, error) {
	if t != nil && t.Rank() != 1 {
		return nil, errorf(op, "%s must be a vector, got shape %s", what, shapeStr(t.Shape()))
	}
	return ints(op, what, t)
}

// intScalar is ints for a tensor of exactly one element (rank 0 or [1]).
func intScalar(op, what string, t *interp.Tensor) (int64, error) {
	v, err := ints(op, what, t)
	if err != nil {
		return 0, err
	}
	if len(v) != 1 || t.Rank() > 1 {
		return 0, errorf(op, "%s must be a scalar, got shape %s", what, shapeStr(t.Shape()))
	}
	return v[0], nil
}

// newInts builds an int32 or int64 tensor from int64 values, failing if a
// value does not fit int32.
func newInts(op string, dt interp.DType, shape []int64, v []int64) (*interp.Tensor, error) {
	if dt == interp.Int64 {
		return interp.New(shape, v)
	}
	if dt != interp.Int32 {
		return nil, errorf(op, "out_type must be int32 or int64, got %v", dt)
	}
	d := make([]int32, len(v))
	for i, x := range v {
		if x < math.MinInt32 || x > math.MaxInt32 {
			return nil, errorf(op, "value %d does not fit out_type int32", x)
		}
		d[i] = int32(x)
	}
	return interp.New(shape, d)
}

func numElements(op string, shape []int64) (int, error) {
	n, err := interp.NumElements(shape)
	if err != nil {
		return 0, errorf(op, "%v", err)
	}
	return int(n), nil
}

// strides returns row-major element strides of shape.
func strides(shape []int64) []int64 {
	s := make([]int64, len(shape))
	acc := int64(1)
	for i := len(shape) - 1; i >= 0; i-- {
		s[i] = acc
		acc *= shape[i]
	}
	return s
}

// normAxis maps axis in [-rank, rank) to [0, rank).
func normAxis(op string, axis int64, rank int) (int, error) {
	if axis < -int64(rank) || axis >= int64(rank) {
		return 0, errorf(op, "axis %d out of range [%d, %d)", axis, -rank, rank)
	}
	if axis < 0 {
		axis += int64(rank)
	}
	return int(axis), nil
}

func takeT[T interp.Elem](src []T, idx []int) []T {
	out := make([]T, len(idx))
	for i, j := range idx {
		out[i] = src[j]
	}
	return out
}

// Take builds a tensor of the given shape whose element i is t's flat
// element idx[i].
func Take(t *interp.Tensor, idx []int, shape []int64) (*interp.Tensor, error) {
	switch d := t.Data().(type) {
	case []float32:
		return interp.New(shape, takeT(d, idx))
	case []float64:
		return interp.New(shape, takeT(d, idx))
	case []int8:
		return interp.New(shape, takeT(d, idx))
	case []int16:
		return interp.New(shape, takeT(d, idx))
	case []int32:
		return interp.New(shape, takeT(d, idx))
	case []int64:
		return interp.New(shape, takeT(d, idx))
	case []uint8:
		return interp.New(shape, takeT(d, idx))
	case []bool:
		return interp.New(shape, takeT(d, idx))
	case []string:
		return interp.New(shape, takeT(d, idx))
	}
	return nil, fmt.Errorf("unsupported tensor %v", t)
}

// takeOr is take where idx[i] < 0 selects element 0 of fill (a scalar of
// t's dtype).
func takeOr(t, fill *interp.Tensor, idx []int, shape []int64) (*interp.Tensor, error) {
	switch d := t.Data().(type) {
	case []float32:
		return interp.New(shape, takeOrT(d, fill.Float32s(), idx))
	case []float64:
		return interp.New(shape, takeOrT(d, fill.Float64s(), idx))
	case []int8:
		f, _ := interp.Values[int8](fill)
		return interp.New(shape, takeOrT(d, f, idx))
	case []int16:
		f, _ := interp.Values[int16](fill)
		return interp.New(shape, takeOrT(d, f, idx))
	case []int32:
		return interp.New(shape, takeOrT(d, fill.Int32s(), idx))
	case []int64:
		return interp.New(shape, takeOrT(d, fill.Int64s(), idx))
	case []uint8:
		f, _ := interp.Values[uint8](fill)
		return interp.New(shape, takeOrT(d, f, idx))
	case []bool:
		return interp.New(shape, takeOrT(d, fill.Bools(), idx))
	case []string:
		return interp.New(shape, takeOrT(d, fill.Strings(), idx))
	}
	return nil, fmt.Errorf("unsupported tensor %v", t)
}

func takeOrT[T interp.Elem](src, fill []T, idx []int) []T {
	out := make([]T, len(idx))
	for i, j := range idx {
		if j < 0 {
			out[i] = fill[0]
		} else {
			out[i] = src[j]
		}
	}
	return out
}
