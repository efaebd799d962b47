package serve

import (
	"fmt"
	"slices"
	"strconv"

	"github.com/recom-compiler/recom/interp"
	"github.com/recom-compiler/recom/interp/tfops"
)

// concatRows concatenates tensors of one dtype and equal trailing shape
// along their first dimension, then repeats the last row pad more times
// (the padding of a batch to an allowed batch size: a copy of a real row
// is a valid input wherever the real one is).
func concatRows(parts []*interp.Tensor, pad int) (*interp.Tensor, error) {
	if len(parts) == 0 {
		return nil, fmt.Errorf("no tensors to concatenate")
	}
	if pad > 0 {
		// The last row of the concatenation: of the last part that has rows.
		var last *interp.Tensor
		for _, p := range slices.Backward(parts) {
			if p.Rank() > 0 && p.Dim(0) > 0 {
				last = p
				break
			}
		}
		if last == nil {
			return nil, fmt.Errorf("cannot pad a batch of no rows")
		}
		row, err := sliceRows(last, last.Dim(0)-1, last.Dim(0))
		if err != nil {
			return nil, err
		}
		parts = append(slices.Clip(parts), slices.Repeat([]*interp.Tensor{row}, pad)...)
	}
	return tfops.ConcatV2(parts, interp.Scalar(int32(0)))
}

// sliceRows returns rows [lo, hi) of t, sharing its memory (tensors are
// immutable).
func sliceRows(t *interp.Tensor, lo, hi int64) (*interp.Tensor, error) {
	if t.Rank() == 0 || lo < 0 || hi < lo || hi > t.Dim(0) {
		return nil, fmt.Errorf("rows [%d, %d) of a tensor of shape %s", lo, hi, interp.ShapeString(t.Shape()))
	}
	shape := t.Shape()
	row := int64(1)
	for _, d := range shape[1:] {
		row *= d
	}
	shape[0] = hi - lo
	a, b := lo*row, hi*row
	switch d := t.Data().(type) {
	case []float32:
		return interp.New(shape, d[a:b:b])
	case []float64:
		return interp.New(shape, d[a:b:b])
	case []int8:
		return interp.New(shape, d[a:b:b])
	case []int16:
		return interp.New(shape, d[a:b:b])
	case []int32:
		return interp.New(shape, d[a:b:b])
	case []int64:
		return interp.New(shape, d[a:b:b])
	case []uint8:
		return interp.New(shape, d[a:b:b])
	case []bool:
		return interp.New(shape, d[a:b:b])
	case []string:
		return interp.New(shape, d[a:b:b])
	}
	return nil, fmt.Errorf("cannot slice %v tensors", t.DType())
}

// shapeKey is the trailing shapes of a request's inputs, in signature
// order: requests with equal keys concatenate.
func shapeKey(feeds []*interp.Tensor) string {
	b := make([]byte, 0, 8*len(feeds))
	for _, t := range feeds {
		for i := 1; i < t.Rank(); i++ {
			b = strconv.AppendInt(b, t.Dim(i), 10)
			b = append(b, ',')
		}
		b = append(b, ';')
	}
	return string(b)
}

// sameShape reports whether a and b are equal.
func sameShape(a, b []int64) bool { return slices.Equal(a, b) }
