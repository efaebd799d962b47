package serve

import (
	"fmt"
	"slices"
	"strconv"

	"github.com/recom-compiler/recom/interp"
)

// concatRows concatenates tensors of one dtype and equal trailing shape
// along their first dimension, then repeats the last row pad more times
// (the padding of a batch to an allowed batch size: a copy of a real row
// is a valid input wherever the real one is): one allocation and one copy
// per part.
func concatRows(parts []*interp.Tensor, pad int) (*interp.Tensor, error) {
	if len(parts) == 0 {
		return nil, fmt.Errorf("no tensors to concatenate")
	}
	first := parts[0]
	if first.Rank() == 0 {
		return nil, fmt.Errorf("cannot concatenate scalars along their first dimension")
	}
	rows := int64(0)
	for _, p := range parts {
		if p.DType() != first.DType() {
			return nil, fmt.Errorf("cannot concatenate %v and %v tensors", first.DType(), p.DType())
		}
		if !sameTrailing(p, first) {
			return nil, fmt.Errorf("cannot concatenate shapes %s and %s along the first dimension", interp.ShapeString(first.Shape()), interp.ShapeString(p.Shape()))
		}
		rows += p.Dim(0)
	}
	if pad > 0 && rows == 0 {
		return nil, fmt.Errorf("cannot pad a batch of no rows")
	}
	shape := first.Shape()
	row := int64(1)
	for _, d := range shape[1:] {
		row *= d
	}
	shape[0] = rows + int64(pad)
	switch first.DType() {
	case interp.Float32:
		return interp.New(shape, concatData[float32](parts, pad, row))
	case interp.Float64:
		return interp.New(shape, concatData[float64](parts, pad, row))
	case interp.Int8:
		return interp.New(shape, concatData[int8](parts, pad, row))
	case interp.Int16:
		return interp.New(shape, concatData[int16](parts, pad, row))
	case interp.Int32:
		return interp.New(shape, concatData[int32](parts, pad, row))
	case interp.Int64:
		return interp.New(shape, concatData[int64](parts, pad, row))
	case interp.Uint8:
		return interp.New(shape, concatData[uint8](parts, pad, row))
	case interp.Bool:
		return interp.New(shape, concatData[bool](parts, pad, row))
	case interp.String:
		return interp.New(shape, concatData[string](parts, pad, row))
	}
	return nil, fmt.Errorf("cannot concatenate %v tensors", first.DType())
}

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

// concatData is the parts' elements one after another, then the last row
// (of row elements) pad more times.
func concatData[T interp.Elem](parts []*interp.Tensor, pad int, row int64) []T {
	n := 0
	for _, p := range parts {
		n += p.Len()
	}
	out := make([]T, 0, n+pad*int(row))
	for _, p := range parts {
		out = append(out, p.Data().([]T)...)
	}
	for range pad {
		out = append(out, out[n-int(row):n]...)
	}
	return out
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
