package tfg

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/recom-compiler/recom/interp"
	"github.com/recom-compiler/recom/interp/exec"
	"github.com/recom-compiler/recom/interp/tfops"
	"github.com/recom-compiler/recom/textir"
)

func registerSparse() {
	seg3 := map[string]func(a, b, c *interp.Tensor) (*interp.Tensor, error){
		"SparseSegmentSum": tfops.SparseSegmentSum, "SparseSegmentMean": tfops.SparseSegmentMean,
		"SparseSegmentSqrtN": tfops.SparseSegmentSqrtN,
	}
	for name, f := range seg3 {
		reg(name, func(op *textir.Operation, in []*interp.Tensor, st *exec.State) ([]*interp.Tensor, error) {
			d, err := nIn(op, in, 3)
			if err != nil {
				return nil, err
			}
			return one(f(d[0], d[1], d[2]))
		})
	}
	seg4 := map[string]func(a, b, c, n *interp.Tensor) (*interp.Tensor, error){
		"SparseSegmentSumWithNumSegments":   tfops.SparseSegmentSumWithNumSegments,
		"SparseSegmentMeanWithNumSegments":  tfops.SparseSegmentMeanWithNumSegments,
		"SparseSegmentSqrtNWithNumSegments": tfops.SparseSegmentSqrtNWithNumSegments,
	}
	for name, f := range seg4 {
		reg(name, func(op *textir.Operation, in []*interp.Tensor, st *exec.State) ([]*interp.Tensor, error) {
			d, err := nIn(op, in, 4)
			if err != nil {
				return nil, err
			}
			return one(f(d[0], d[1], d[2], d[3]))
		})
	}
	reg("SegmentSum", binary(tfops.SegmentSum))
	reg("UnsortedSegmentSum", func(op *textir.Operation, in []*interp.Tensor, st *exec.State) ([]*interp.Tensor, error) {
		d, err := nIn(op, in, 3)
		if err != nil {
			return nil, err
		}
		return one(tfops.UnsortedSegmentSum(d[0], d[1], d[2]))
	})
	reg("SparseFillEmptyRows", func(op *textir.Operation, in []*interp.Tensor, st *exec.State) ([]*interp.Tensor, error) {
		d, err := nIn(op, in, 4)
		if err != nil {
			return nil, err
		}
		r, err := tfops.SparseFillEmptyRows(d[0], d[1], d[2], d[3])
		if err != nil {
			return nil, err
		}
		return []*interp.Tensor{r.Indices, r.Values, r.EmptyRowIndices, r.ReverseIndexMap}, nil
	})
	reg("SparseReshape", func(op *textir.Operation, in []*interp.Tensor, st *exec.State) ([]*interp.Tensor, error) {
		d, err := nIn(op, in, 3)
		if err != nil {
			return nil, err
		}
		i, s, err := tfops.SparseReshape(d[0], d[1], d[2])
		if err != nil {
			return nil, err
		}
		return []*interp.Tensor{i, s}, nil
	})
	registerCross()
}

// oneHot is OneHot(indices, depth, on_value, off_value) with attribute
// axis: out[..., i, ...] is on_value where indices[...] == i, else
// off_value; indices outside [0, depth) give a row of off_value.
func oneHot(op *textir.Operation, in []*interp.Tensor, st *exec.State) ([]*interp.Tensor, error) {
	d, err := nIn(op, in, 4)
	if err != nil {
		return nil, err
	}
	idx, depthT, on, off := d[0], d[1], d[2], d[3]
	if depthT.DType() != interp.Int32 || depthT.Rank() != 0 {
		return nil, op.Errorf("depth must be a scalar int32, got %v%s", depthT.DType(), interp.ShapeString(depthT.Shape()))
	}
	depth := int64(depthT.Int32s()[0])
	if depth < 0 {
		return nil, op.Errorf("depth must be non-negative, got: %d", depth)
	}
	if on.Rank() != 0 || off.Rank() != 0 || on.DType() != off.DType() {
		return nil, op.Errorf("on_value and off_value must be scalars of the same dtype")
	}
	rank := idx.Rank()
	axis := attrInt(op, "axis", -1)
	if axis < -1 || axis > int64(rank) {
		return nil, op.Errorf("expected axis to be -1 or between [0, %d), but got %d", rank+1, axis)
	}
	if axis == -1 {
		axis = int64(rank)
	}
	ish := idx.Shape()
	outer := int64(1)
	for _, s := range ish[:axis] {
		outer *= s
	}
	inner := int64(1)
	for _, s := range ish[axis:] {
		inner *= s
	}
	shape := append(append(append([]int64{}, ish[:axis]...), depth), ish[axis:]...)
	n, err := interp.NumElements(shape)
	if err != nil {
		return nil, op.Errorf("%v", err)
	}
	// Start from off everywhere (a broadcast), then set the on positions.
	pos := make([]int, 0, idx.Len())
	for o := int64(0); o < outer; o++ {
		for i := int64(0); i < inner; i++ {
			k, ok := idx.Int64At(int(o*inner + i))
			if !ok {
				return nil, op.Errorf("indices must be an integer tensor, got %v", idx.DType())
			}
			if k >= 0 && k < depth {
				pos = append(pos, int((o*depth+k)*inner+i))
			}
		}
	}
	return one(fillWith(off, on, shape, n, pos))
}

// fillWith makes a tensor of shape (n elements) equal to the scalar base
// except at the flat positions pos, which get the scalar at.
func fillWith(base, at *interp.Tensor, shape []int64, n int64, pos []int) (*interp.Tensor, error) {
	switch b := base.Data().(type) {
	case []float32:
		return fillT(shape, n, b[0], at.Float32s()[0], pos)
	case []float64:
		return fillT(shape, n, b[0], at.Float64s()[0], pos)
	case []int8:
		a, _ := interp.Values[int8](at)
		return fillT(shape, n, b[0], a[0], pos)
	case []int16:
		a, _ := interp.Values[int16](at)
		return fillT(shape, n, b[0], a[0], pos)
	case []int32:
		return fillT(shape, n, b[0], at.Int32s()[0], pos)
	case []int64:
		return fillT(shape, n, b[0], at.Int64s()[0], pos)
	case []uint8:
		a, _ := interp.Values[uint8](at)
		return fillT(shape, n, b[0], a[0], pos)
	case []bool:
		return fillT(shape, n, b[0], at.Bools()[0], pos)
	case []string:
		return fillT(shape, n, b[0], at.Strings()[0], pos)
	}
	return nil, fmt.Errorf("unsupported dtype %v", base.DType())
}

func fillT[T interp.Elem](shape []int64, n int64, base, at T, pos []int) (*interp.Tensor, error) {
	out := make([]T, n)
	var zero T
	if base != zero {
		for i := range out {
			out[i] = base
		}
	}
	for _, p := range pos {
		out[p] = at
	}
	return interp.New(shape, out)
}

// sparseToDense is SparseToDense(sparse_indices, output_shape,
// sparse_values, default_value): indices [N, R], [N] (R = 1) or a scalar;
// values [N] or a scalar. Out-of-bounds indices are an error; with
// validate_indices (the default) indices must also be sorted
// lexicographically without repeats.
func sparseToDense(op *textir.Operation, in []*interp.Tensor, st *exec.State) ([]*interp.Tensor, error) {
	d, err := nIn(op, in, 4)
	if err != nil {
		return nil, err
	}
	idx, shapeT, vals, def := d[0], d[1], d[2], d[3]
	if idx.Rank() > 2 {
		return nil, op.Errorf("sparse_indices should be a scalar, vector, or matrix, got shape %s", interp.ShapeString(idx.Shape()))
	}
	if shapeT.Rank() > 1 {
		return nil, op.Errorf("output_shape should be a scalar or vector, got shape %s", interp.ShapeString(shapeT.Shape()))
	}
	shape := make([]int64, shapeT.Len())
	for i := range shape {
		v, ok := shapeT.Int64At(i)
		if !ok {
			return nil, op.Errorf("output_shape must be int32 or int64")
		}
		shape[i] = v
	}
	num, rank := int64(1), int64(1)
	if idx.Rank() > 0 {
		num = idx.Dim(0)
	}
	if idx.Rank() == 2 {
		rank = idx.Dim(1)
	}
	if rank != int64(len(shape)) {
		return nil, op.Errorf("sparse_indices has %d columns but output_shape has %d dims", rank, len(shape))
	}
	if vals.Rank() > 1 || (vals.Rank() == 1 && vals.Dim(0) != num) {
		return nil, op.Errorf("sparse_values has incorrect shape %s, should be [] or [%d]", interp.ShapeString(vals.Shape()), num)
	}
	if def.Rank() != 0 || def.DType() != vals.DType() {
		return nil, op.Errorf("default_value should be a scalar of the values' dtype")
	}
	n, err := interp.NumElements(shape)
	if err != nil {
		return nil, op.Errorf("%v", err)
	}
	validate := attrBool(op, "validate_indices", true)
	pos := make([]int, num)
	prev := make([]int64, rank)
	cur := make([]int64, rank)
	for i := int64(0); i < num; i++ {
		flat := int64(0)
		for j := int64(0); j < rank; j++ {
			v, ok := idx.Int64At(int(i*rank + j))
			if !ok {
				return nil, op.Errorf("sparse_indices must be int32 or int64")
			}
			if v < 0 || v >= shape[j] {
				return nil, op.Errorf("indices[%d] = [%s] is out of bounds: need 0 <= index < %s", i, joinInts(idx, i, rank), interp.ShapeString(shape))
			}
			cur[j] = v
			flat = flat*shape[j] + v
		}
		if validate && i > 0 {
			c := compareLex(prev, cur)
			if c > 0 {
				return nil, op.Errorf("indices[%d] = [%s] is out of order. Many sparse ops require sorted indices.", i, joinInts(idx, i, rank))
			}
			if c == 0 {
				return nil, op.Errorf("indices[%d] = [%s] is repeated", i, joinInts(idx, i, rank))
			}
		}
		copy(prev, cur)
		pos[i] = int(flat)
	}
	out, err := fillWith(def, def, shape, n, nil)
	if err != nil {
		return nil, err
	}
	scatter(out, vals, pos)
	return []*interp.Tensor{out}, nil
}

func compareLex(a, b []int64) int {
	for i := range a {
		if a[i] != b[i] {
			if a[i] < b[i] {
				return -1
			}
			return 1
		}
	}
	return 0
}

func joinInts(t *interp.Tensor, row, rank int64) string {
	parts := make([]string, rank)
	for j := range parts {
		v, _ := t.Int64At(int(row*rank + int64(j)))
		parts[j] = strconv.FormatInt(v, 10)
	}
	return strings.Join(parts, ",")
}

// scatter writes vals (a vector or a scalar) at the flat positions pos of
// out, which is freshly made and owned by the caller.
func scatter(out, vals *interp.Tensor, pos []int) {
	switch o := out.Data().(type) {
	case []float32:
		scatterT(o, vals.Float32s(), pos)
	case []float64:
		scatterT(o, vals.Float64s(), pos)
	case []int8:
		v, _ := interp.Values[int8](vals)
		scatterT(o, v, pos)
	case []int16:
		v, _ := interp.Values[int16](vals)
		scatterT(o, v, pos)
	case []int32:
		scatterT(o, vals.Int32s(), pos)
	case []int64:
		scatterT(o, vals.Int64s(), pos)
	case []uint8:
		v, _ := interp.Values[uint8](vals)
		scatterT(o, v, pos)
	case []bool:
		scatterT(o, vals.Bools(), pos)
	case []string:
		scatterT(o, vals.Strings(), pos)
	}
}

func scatterT[T interp.Elem](out, vals []T, pos []int) {
	for i, p := range pos {
		if len(vals) == 1 {
			out[p] = vals[0]
		} else {
			out[p] = vals[i]
		}
	}
}
