package tfops

import (
	"github.com/recom-compiler/recom/interp"
)

// DynamicPartition splits data into n tensors by partitions, as
// TensorFlow's DynamicPartition: partitions' shape is a prefix of data's,
// every partition number is in [0, n), and output p holds the slices
// data[i...] with partitions[i...] == p, in row-major order, with shape
// [count_p] + data.shape[rank(partitions):]. embedding_lookup splits the
// ids of a partitioned table by shard with it.
func DynamicPartition(data, partitions *interp.Tensor, n int64) ([]*interp.Tensor, error) {
	const op = "DynamicPartition"
	if data == nil || partitions == nil {
		return nil, errorf(op, "nil input")
	}
	if n < 1 {
		return nil, errorf(op, "num_partitions must be at least 1, got %d", n)
	}
	if n > int64(interp.MaxElements) {
		return nil, errorf(op, "num_partitions = %d is over the limit of %d elements", n, interp.MaxElements)
	}
	if partitions.DType() != interp.Int32 {
		return nil, errorf(op, "partitions must be int32, got %v", partitions.DType())
	}
	ds, ps := data.Shape(), partitions.Shape()
	if len(ps) > len(ds) || !equalShape(ds[:len(ps)], ps) {
		return nil, errorf(op, "data.shape must start with partitions.shape, got data.shape = %s, partitions.shape = %s", shapeStr(ds), shapeStr(ps))
	}
	inner := int64(1)
	for _, d := range ds[len(ps):] {
		inner *= d
	}
	part := partitions.Int32s()
	counts := make([]int64, n)
	for i, p := range part {
		if p < 0 || int64(p) >= n {
			return nil, errorf(op, "partitions[%s] = %d is not in [0, %d)", coordString(interp.Unravel(int64(i), ps)), p, n)
		}
		counts[p]++
	}
	idx := make([][]int, n)
	for p, c := range counts {
		idx[p] = make([]int, 0, c*inner)
	}
	for i, p := range part {
		for k := int64(0); k < inner; k++ {
			idx[p] = append(idx[p], int(int64(i)*inner+k))
		}
	}
	out := make([]*interp.Tensor, n)
	for p := range out {
		shape := append([]int64{counts[p]}, ds[len(ps):]...)
		t, err := Take(data, idx[p], shape)
		if err != nil {
			return nil, errorf(op, "%v", err)
		}
		out[p] = t
	}
	return out, nil
}

// DynamicStitch interleaves data into one tensor by indices, as
// TensorFlow's DynamicStitch and ParallelDynamicStitch: each data[m]'s
// shape is indices[m]'s followed by one shape shared by all, the result
// has max(indices)+1 rows of that shape, and merged[indices[m][i...]] =
// data[m][i...]; where an index repeats, the later (m, i) wins (as
// DynamicStitch; ParallelDynamicStitch leaves it unspecified), and rows no
// index names are zero. An index below zero is an error.
func DynamicStitch(indices, data []*interp.Tensor) (*interp.Tensor, error) {
	const op = "DynamicStitch"
	if len(indices) == 0 || len(indices) != len(data) {
		return nil, errorf(op, "needs as many indices as data tensors (at least one), got %d and %d", len(indices), len(data))
	}
	for m := range indices {
		if indices[m] == nil || data[m] == nil {
			return nil, errorf(op, "input %d is nil", m)
		}
		if data[m].DType() != data[0].DType() {
			return nil, errorf(op, "data[%d] is %v, but data[0] is %v", m, data[m].DType(), data[0].DType())
		}
	}
	is0, ds0 := indices[0].Shape(), data[0].Shape()
	if len(is0) > len(ds0) || !equalShape(ds0[:len(is0)], is0) {
		return nil, errorf(op, "data[0].shape = %s does not start with indices[0].shape = %s", shapeStr(ds0), shapeStr(is0))
	}
	constant := ds0[len(is0):]
	inner := int64(1)
	for _, d := range constant {
		inner *= d
	}
	rows := int64(0)
	idx := make([][]int64, len(indices))
	for m := range indices {
		is, ds := indices[m].Shape(), data[m].Shape()
		want := append(append([]int64{}, is...), constant...)
		if !equalShape(ds, want) {
			return nil, errorf(op, "data[%d].shape = %s does not equal indices[%d].shape + %s", m, shapeStr(ds), m, shapeStr(constant))
		}
		v, err := ints(op, "indices", indices[m])
		if err != nil {
			return nil, err
		}
		for i, x := range v {
			if x < 0 {
				return nil, errorf(op, "indices[%d][%s] = %d is out of range", m, coordString(interp.Unravel(int64(i), is)), x)
			}
			rows = max(rows, x+1)
		}
		idx[m] = v
	}
	shape := append([]int64{rows}, constant...)
	n, err := numElements(op, shape)
	if err != nil {
		return nil, err
	}
	// Stitch through one concatenation of the data: src[k] is the element
	// of the concatenation that element k of the result takes, or -1.
	flat := make([]*interp.Tensor, len(data))
	var off int64
	src := make([]int, n)
	for k := range src {
		src[k] = -1
	}
	for m := range data {
		t, err := data[m].Reshaped([]int64{int64(data[m].Len())})
		if err != nil {
			return nil, errorf(op, "%v", err)
		}
		flat[m] = t
		for i, x := range idx[m] {
			for k := int64(0); k < inner; k++ {
				src[x*inner+k] = int(off + int64(i)*inner + k)
			}
		}
		off += int64(data[m].Len())
	}
	all, err := joinFlat(op, flat)
	if err != nil {
		return nil, err
	}
	zero, err := interp.Zeros(data[0].DType(), nil)
	if err != nil {
		return nil, errorf(op, "%v", err)
	}
	return takeOr(all, zero, src, shape)
}

// DivNoNan returns x / y for floating-point tensors, and 0 where y is 0
// (even where x is 0, infinite or NaN), as TensorFlow's DivNoNan.
func DivNoNan(x, y *interp.Tensor) (*interp.Tensor, error) {
	const op = "DivNoNan"
	if x == nil || y == nil {
		return nil, errorf(op, "nil input")
	}
	if !x.DType().IsFloat() {
		return nil, errorf(op, "unsupported dtype %v", x.DType())
	}
	q, err := binary(op, opRealDiv, x, y)
	if err != nil {
		return nil, err
	}
	zero, err := binary(op, opEqual, y, interp.Must(interp.Zeros(y.DType(), nil)))
	if err != nil {
		return nil, err
	}
	z, err := SelectV2(zero, interp.Must(interp.Zeros(q.DType(), nil)), q)
	if err != nil {
		return nil, errorf(op, "%v", err)
	}
	return z, nil
}
