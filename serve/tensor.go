package serve

import (
	"fmt"
	"slices"
	"strconv"

	"github.com/recom-compiler/recom/interp"
)

// sameTrailing reports whether a and b have equal shapes but for the
// first dimension (without copying their shapes).
func sameTrailing(a, b *interp.Tensor) bool {
	if a.Rank() != b.Rank() {
		return false
	}
	for i := 1; i < a.Rank(); i++ {
		if a.Dim(i) != b.Dim(i) {
			return false
		}
	}
	return true
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
