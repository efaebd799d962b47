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
// is a valid input wherever the real one is).
func concatRows(parts []*interp.Tensor, pad int) (*interp.Tensor, error) {
	if len(parts) == 0 {
		return nil, fmt.Errorf("no tensors to concatenate")
	}
	first := parts[0]
	if first.Rank() == 0 {
		return nil, fmt.Errorf("cannot concatenate scalars")
	}
	rows := int64(0)
	for _, p := range parts {
		if p.DType() != first.DType() || p.Rank() != first.Rank() {
			return nil, fmt.Errorf("cannot concatenate %v%s and %v%s", first.DType(), interp.ShapeString(first.Shape()), p.DType(), interp.ShapeString(p.Shape()))
		}
		for d := 1; d < p.Rank(); d++ {
			if p.Dim(d) != first.Dim(d) {
				return nil, fmt.Errorf("cannot concatenate shapes %s and %s", interp.ShapeString(first.Shape()), interp.ShapeString(p.Shape()))
			}
		}
		rows += p.Dim(0)
	}
	if rows == 0 && pad > 0 {
		return nil, fmt.Errorf("cannot pad a batch of no rows")
	}
	shape := first.Shape()
	shape[0] = rows + int64(pad)
	switch first.DType() {
	case interp.Float32:
		return concatT[float32](parts, shape, pad)
	case interp.Float64:
		return concatT[float64](parts, shape, pad)
	case interp.Int8:
		return concatT[int8](parts, shape, pad)
	case interp.Int16:
		return concatT[int16](parts, shape, pad)
	case interp.Int32:
		return concatT[int32](parts, shape, pad)
	case interp.Int64:
		return concatT[int64](parts, shape, pad)
	case interp.Uint8:
		return concatT[uint8](parts, shape, pad)
	case interp.Bool:
		return concatT[bool](parts, shape, pad)
	case interp.String:
		return concatT[string](parts, shape, pad)
	}
	return nil, fmt.Errorf("cannot concatenate %v tensors", first.DType())
}

func concatT[T interp.Elem](parts []*interp.Tensor, shape []int64, pad int) (*interp.Tensor, error) {
	n, err := interp.NumElements(shape)
	if err != nil {
		return nil, err
	}
	out := make([]T, 0, n)
	for _, p := range parts {
		d, _ := interp.Values[T](p)
		out = append(out, d...)
	}
	if pad > 0 {
		row := int(n) / int(shape[0])
		last := out[len(out)-row:]
		for range pad {
			out = append(out, last...)
		}
	}
	return interp.New(shape, out)
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
