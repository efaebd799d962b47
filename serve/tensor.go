package serve

import (
	"fmt"
	"slices"
	"strconv"

	"github.com/recom-compiler/recom/interp"
)

// sameTrailingShape reports whether shapes a and b are equal but for the
// first dimension.
func sameTrailingShape(a, b []int64) bool {
	return len(a) == len(b) && len(a) > 0 && slices.Equal(a[1:], b[1:])
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
		b = appendShapeKey(b, t.ShapeView())
	}
	return string(b)
}

// appendShapeKey appends one input's part of a key: its dimensions past
// the first.
func appendShapeKey(b []byte, shape []int64) []byte {
	for i := 1; i < len(shape); i++ {
		b = strconv.AppendInt(b, shape[i], 10)
		b = append(b, ',')
	}
	return append(b, ';')
}

// rawShapeKey is shapeKey of a binary request's inputs.
func rawShapeKey(f *rawFeeds) string {
	b := make([]byte, 0, 8*len(f.shapes))
	for _, s := range f.shapes {
		b = appendShapeKey(b, s)
	}
	return string(b)
}

// staticKey is the key of every request that fits sig when each input's
// dimensions past the first are fixed by it, or "".
func staticKey(sig *Signature) string {
	if sig == nil {
		return ""
	}
	var b []byte
	for _, in := range sig.Inputs {
		if in.UnknownRank || len(in.Shape) == 0 || slices.ContainsFunc(in.Shape[1:], func(d int64) bool { return d < 0 }) {
			return ""
		}
		b = appendShapeKey(b, in.Shape)
	}
	return string(b)
}

// sameShape reports whether a and b are equal.
func sameShape(a, b []int64) bool { return slices.Equal(a, b) }
