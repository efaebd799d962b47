package tfops

import (
	"math"

	"github.com/recom-compiler/recom/interp"
)

type segKind int

const (
	segSum segKind = iota
	segMean
	segSqrtN
)

// SparseSegmentSum returns, for each segment s, the sum of the rows
// data[indices[j]] over the j with segmentIDs[j] == s. segmentIDs must be
// sorted and non-negative; the output has last id + 1 rows, empty segments
// being zero. An index outside [0, data.shape[0]) is an error.
func SparseSegmentSum(data, indices, segmentIDs *interp.Tensor) (*interp.Tensor, error) {
	return sparseSegment("SparseSegmentSum", segSum, data, indices, segmentIDs, nil)
}

// SparseSegmentMean is SparseSegmentSum divided by each segment's size.
func SparseSegmentMean(data, indices, segmentIDs *interp.Tensor) (*interp.Tensor, error) {
	return sparseSegment("SparseSegmentMean", segMean, data, indices, segmentIDs, nil)
}

// SparseSegmentSqrtN is SparseSegmentSum divided by the square root of
// each segment's size.
func SparseSegmentSqrtN(data, indices, segmentIDs *interp.Tensor) (*interp.Tensor, error) {
	return sparseSegment("SparseSegmentSqrtN", segSqrtN, data, indices, segmentIDs, nil)
}

// SparseSegmentSumWithNumSegments is SparseSegmentSum with numSegments
// output rows; every segment id must be below it.
func SparseSegmentSumWithNumSegments(data, indices, segmentIDs, numSegments *interp.Tensor) (*interp.Tensor, error) {
	return sparseSegment("SparseSegmentSumWithNumSegments", segSum, data, indices, segmentIDs, numSegments)
}

// SparseSegmentMeanWithNumSegments is SparseSegmentMean with numSegments
// output rows.
func SparseSegmentMeanWithNumSegments(data, indices, segmentIDs, numSegments *interp.Tensor) (*interp.Tensor, error) {
	return sparseSegment("SparseSegmentMeanWithNumSegments", segMean, data, indices, segmentIDs, numSegments)
}

// SparseSegmentSqrtNWithNumSegments is SparseSegmentSqrtN with numSegments
// output rows.
func SparseSegmentSqrtNWithNumSegments(data, indices, segmentIDs, numSegments *interp.Tensor) (*interp.Tensor, error) {
	return sparseSegment("SparseSegmentSqrtNWithNumSegments", segSqrtN, data, indices, segmentIDs, numSegments)
}

func sparseSegment(op string, kind segKind, data, indices, segmentIDs, numSegments *interp.Tensor) (*interp.Tensor, error) {
	if kind == segSum {
		if err := checkDType(op, "data", data, realTypes()...); err != nil {
			return nil, err
		}
	} else if err := checkDType(op, "data", data, floatTypes()...); err != nil {
		return nil, err
	}
	if data.Rank() < 1 {
		return nil, errorf(op, "data must be at least 1-D, got shape %s", shapeStr(data.Shape()))
	}
	ind, err := intVector(op, "indices", indices)
	if err != nil {
		return nil, err
	}
	ids, err := intVector(op, "segment_ids", segmentIDs)
	if err != nil {
		return nil, err
	}
	if len(ind) != len(ids) {
		return nil, errorf(op, "segment_ids and indices should have same size, got %d and %d", len(ids), len(ind))
	}
	rows := int64(0)
	if len(ids) > 0 {
		rows = ids[len(ids)-1] + 1
	}
	if numSegments != nil {
		ns, err := intScalar(op, "num_segments", numSegments)
		if err != nil {
			return nil, err
		}
		if ns < 0 {
			return nil, errorf(op, "num_segments must be >= 0, got %d", ns)
		}
		if rows > ns {
			return nil, errorf(op, "segment ids must be < num_segments: last segment id %d, num_segments %d", rows-1, ns)
		}
		rows = ns
	}
	for j, s := range ids {
		if s < 0 {
			return nil, errorf(op, "segment id %d at position %d is negative", s, j)
		}
		if j > 0 && s < ids[j-1] {
			return nil, errorf(op, "segment ids are not increasing: segment_ids[%d] = %d < segment_ids[%d] = %d", j, s, j-1, ids[j-1])
		}
	}
	limit := data.Dim(0)
	for j, v := range ind {
		if v < 0 || v >= limit {
			return nil, errorf(op, "bad: indices[%d] == %d out of range [0, %d)", j, v, limit)
		}
	}
	ds := data.Shape()
	out := append([]int64{rows}, ds[1:]...)
	if _, err := numElements(op, out); err != nil {
		return nil, err
	}
	inner := 1
	for _, d := range ds[1:] {
		inner *= int(d)
	}
	switch d := data.Data().(type) {
	case []float32:
		return interp.New(out, segmentFloat(kind, d, ind, ids, int(rows), inner))
	case []float64:
		return interp.New(out, segmentFloat(kind, d, ind, ids, int(rows), inner))
	case []int8:
		return interp.New(out, segmentInt(d, ind, ids, int(rows), inner))
	case []int16:
		return interp.New(out, segmentInt(d, ind, ids, int(rows), inner))
	case []int32:
		return interp.New(out, segmentInt(d, ind, ids, int(rows), inner))
	case []int64:
		return interp.New(out, segmentInt(d, ind, ids, int(rows), inner))
	case []uint8:
		return interp.New(out, segmentInt(d, ind, ids, int(rows), inner))
	}
	return nil, errorf(op, "unsupported dtype %v", data.DType())
}

// segmentFloat sums in float64 per segment and rounds once.
func segmentFloat[T float32 | float64](kind segKind, d []T, ind, ids []int64, rows, inner int) []T {
	out := make([]T, rows*inner)
	acc := make([]float64, inner)
	for j := 0; j < len(ids); {
		s := ids[j]
		clear(acc)
		k := j
		for ; k < len(ids) && ids[k] == s; k++ {
			row := d[int(ind[k])*inner : int(ind[k]+1)*inner]
			for c, v := range row {
				acc[c] += float64(v)
			}
		}
		n := float64(k - j)
		scale := 1.0
		switch kind {
		case segMean:
			scale = n
		case segSqrtN:
			scale = math.Sqrt(n)
		}
		dst := out[int(s)*inner : int(s+1)*inner]
		for c, a := range acc {
			dst[c] = T(a / scale)
		}
		j = k
	}
	return out
}

func segmentInt[T integer](d []T, ind, ids []int64, rows, inner int) []T {
	out := make([]T, rows*inner)
	for j, s := range ids {
		dst := out[int(s)*inner : int(s+1)*inner]
		src := d[int(ind[j])*inner : int(ind[j]+1)*inner]
		for c, v := range src {
			dst[c] += v
		}
	}
	return out
}

// SegmentSum sums the rows of data per segment: row j goes to
// segmentIDs[j]. segmentIDs must be sorted, non-negative and as long as
// data's first dimension; the output has last id + 1 rows.
func SegmentSum(data, segmentIDs *interp.Tensor) (*interp.Tensor, error) {
	const op = "SegmentSum"
	if err := checkDType(op, "data", data, realTypes()...); err != nil {
		return nil, err
	}
	ids, err := intVector(op, "segment_ids", segmentIDs)
	if err != nil {
		return nil, err
	}
	if data.Rank() < 1 || int64(len(ids)) != data.Dim(0) {
		return nil, errorf(op, "segment_ids should be the same size as dimension 0 of input: %d vs. shape %s", len(ids), shapeStr(data.Shape()))
	}
	for j, s := range ids {
		if s < 0 {
			return nil, errorf(op, "segment id %d at position %d is negative", s, j)
		}
		if j > 0 && s < ids[j-1] {
			return nil, errorf(op, "segment ids are not increasing: segment_ids[%d] = %d < segment_ids[%d] = %d", j, s, j-1, ids[j-1])
		}
	}
	rows := int64(0)
	if len(ids) > 0 {
		rows = ids[len(ids)-1] + 1
	}
	return unsortedSegment(op, data, ids, 1, rows)
}

// UnsortedSegmentSum sums the slices of data per segment id in any order.
// segmentIDs' shape must be a prefix of data's; negative ids are dropped;
// ids >= numSegments are an error.
func UnsortedSegmentSum(data, segmentIDs, numSegments *interp.Tensor) (*interp.Tensor, error) {
	const op = "UnsortedSegmentSum"
	if err := checkDType(op, "data", data, realTypes()...); err != nil {
		return nil, err
	}
	ids, err := ints(op, "segment_ids", segmentIDs)
	if err != nil {
		return nil, err
	}
	ns, err := intScalar(op, "num_segments", numSegments)
	if err != nil {
		return nil, err
	}
	if ns < 0 {
		return nil, errorf(op, "num_segments must be >= 0, got %d", ns)
	}
	ds, is := data.Shape(), segmentIDs.Shape()
	if len(is) > len(ds) || !equalShape(ds[:len(is)], is) {
		return nil, errorf(op, "data.shape = %s does not start with segment_ids.shape = %s", shapeStr(ds), shapeStr(is))
	}
	for j, s := range ids {
		if s >= ns {
			return nil, errorf(op, "segment_ids[%s] = %d is out of range [0, %d)", coordString(interp.Unravel(int64(j), is)), s, ns)
		}
	}
	return unsortedSegment(op, data, ids, len(is), ns)
}

// unsortedSegment sums the slices data[j, ...] (j over the first idRank
// dimensions, flattened) into output row ids[j]; negative ids are dropped.
func unsortedSegment(op string, data *interp.Tensor, ids []int64, idRank int, rows int64) (*interp.Tensor, error) {
	ds := data.Shape()
	out := append([]int64{rows}, ds[idRank:]...)
	if _, err := numElements(op, out); err != nil {
		return nil, err
	}
	inner := 1
	for _, d := range ds[idRank:] {
		inner *= int(d)
	}
	switch d := data.Data().(type) {
	case []float32:
		return interp.New(out, unsortedFloat(d, ids, int(rows), inner))
	case []float64:
		return interp.New(out, unsortedFloat(d, ids, int(rows), inner))
	case []int8:
		return interp.New(out, unsortedInt(d, ids, int(rows), inner))
	case []int16:
		return interp.New(out, unsortedInt(d, ids, int(rows), inner))
	case []int32:
		return interp.New(out, unsortedInt(d, ids, int(rows), inner))
	case []int64:
		return interp.New(out, unsortedInt(d, ids, int(rows), inner))
	case []uint8:
		return interp.New(out, unsortedInt(d, ids, int(rows), inner))
	}
	return nil, errorf(op, "unsupported dtype %v", data.DType())
}

func unsortedFloat[T float32 | float64](d []T, ids []int64, rows, inner int) []T {
	acc := make([]float64, rows*inner)
	for j, s := range ids {
		if s < 0 {
			continue
		}
		dst := acc[int(s)*inner : int(s+1)*inner]
		for c, v := range d[j*inner : (j+1)*inner] {
			dst[c] += float64(v)
		}
	}
	out := make([]T, len(acc))
	for i, a := range acc {
		out[i] = T(a)
	}
	return out
}

func unsortedInt[T integer](d []T, ids []int64, rows, inner int) []T {
	out := make([]T, rows*inner)
	for j, s := range ids {
		if s < 0 {
			continue
		}
		dst := out[int(s)*inner : int(s+1)*inner]
		for c, v := range d[j*inner : (j+1)*inner] {
			dst[c] += v
		}
	}
	return out
}

// SparseFillEmptyRowsResult holds SparseFillEmptyRows' four outputs.
type SparseFillEmptyRowsResult struct {
	Indices         *interp.Tensor // [N', rank] int64
	Values          *interp.Tensor // [N'] of values' dtype
	EmptyRowIndices *interp.Tensor // empty_row_indicator: [dense_shape[0]] bool
	ReverseIndexMap *interp.Tensor // [N] int64: output position of each input entry
}

// SparseFillEmptyRows gives every empty row r of a sparse tensor the entry
// [r, 0, ...] = defaultValue. If rows are already ordered and none is
// empty, the inputs pass through unchanged; otherwise entries are regrouped
// by row, keeping their input order within a row.
func SparseFillEmptyRows(indices, values, denseShape, defaultValue *interp.Tensor) (*SparseFillEmptyRowsResult, error) {
	const op = "SparseFillEmptyRows"
	if err := checkDType(op, "indices", indices, interp.Int64); err != nil {
		return nil, err
	}
	if err := checkDType(op, "dense_shape", denseShape, interp.Int64); err != nil {
		return nil, err
	}
	if values == nil || defaultValue == nil {
		return nil, errorf(op, "nil input")
	}
	if indices.Rank() != 2 {
		return nil, errorf(op, "indices must be a matrix, got shape %s", shapeStr(indices.Shape()))
	}
	if values.Rank() != 1 || values.Dim(0) != indices.Dim(0) {
		return nil, errorf(op, "values must be a vector with indices.shape[0] = %d elements, got shape %s", indices.Dim(0), shapeStr(values.Shape()))
	}
	if denseShape.Rank() != 1 || denseShape.Dim(0) != indices.Dim(1) || denseShape.Dim(0) < 1 {
		return nil, errorf(op, "dense_shape must be a non-empty vector of length indices.shape[1] = %d, got shape %s", indices.Dim(1), shapeStr(denseShape.Shape()))
	}
	if defaultValue.Rank() != 0 || defaultValue.DType() != values.DType() {
		return nil, errorf(op, "default_value must be a scalar of dtype %v, got %v", values.DType(), defaultValue)
	}
	n := int(indices.Dim(0))
	rank := int(indices.Dim(1))
	ind := indices.Int64s()
	denseRows := denseShape.Int64s()[0]
	if denseRows < 0 {
		return nil, errorf(op, "dense_shape[0] = %d is negative", denseRows)
	}
	if n > 0 && denseRows == 0 {
		return nil, errorf(op, "received SparseTensor with dense_shape[0] = 0 but indices.shape[0] = %d", n)
	}
	if denseRows > interp.MaxElements {
		return nil, errorf(op, "dense_shape[0] = %d is too large", denseRows)
	}
	counts := make([]int64, denseRows)
	ordered := true
	last := int64(0)
	for i := 0; i < n; i++ {
		r := ind[i*rank]
		if r < 0 || r >= denseRows {
			return nil, errorf(op, "indices(%d, 0) is invalid: %d not in [0, %d)", i, r, denseRows)
		}
		counts[r]++
		if r < last {
			ordered = false
		}
		last = r
	}
	empty := make([]bool, denseRows)
	anyEmpty := false
	for r, c := range counts {
		if c == 0 {
			empty[r] = true
			anyEmpty = true
		}
	}
	emptyT, err := interp.New([]int64{denseRows}, empty)
	if err != nil {
		return nil, err
	}
	if ordered && !anyEmpty {
		rev := make([]int64, n)
		for i := range rev {
			rev[i] = int64(i)
		}
		return &SparseFillEmptyRowsResult{Indices: indices, Values: values, EmptyRowIndices: emptyT,
			ReverseIndexMap: interp.Vector(rev...)}, nil
	}
	// Row r starts at offset[r]; an empty row holds one default entry.
	offset := make([]int64, denseRows+1)
	for r, c := range counts {
		offset[r+1] = offset[r] + max(c, 1)
	}
	total := offset[denseRows]
	outInd := make([]int64, total*int64(rank))
	src := make([]int, total) // value source per output entry, -1 for default
	fill := make([]int64, denseRows)
	rev := make([]int64, n)
	for i := 0; i < n; i++ {
		r := ind[i*rank]
		p := offset[r] + fill[r]
		fill[r]++
		copy(outInd[p*int64(rank):], ind[i*rank:(i+1)*rank])
		src[p] = i
		rev[i] = p
	}
	for r, e := range empty {
		if e {
			p := offset[r]
			outInd[p*int64(rank)] = int64(r) // other coordinates stay 0
			src[p] = -1
		}
	}
	outIndT, err := interp.New([]int64{total, int64(rank)}, outInd)
	if err != nil {
		return nil, err
	}
	outVal, err := takeOr(values, defaultValue, src, []int64{total})
	if err != nil {
		return nil, err
	}
	return &SparseFillEmptyRowsResult{Indices: outIndT, Values: outVal, EmptyRowIndices: emptyT,
		ReverseIndexMap: interp.Vector(rev...)}, nil
}

// SparseReshape re-indexes a sparse tensor of shape inputShape for the
// dense shape newShape (at most one -1, inferred): each index is linearized
// row-major and unraveled in the new shape. Indices are not range-checked,
// as in TensorFlow.
func SparseReshape(inputIndices, inputShape, newShape *interp.Tensor) (outIndices, outShape *interp.Tensor, err error) {
	const op = "SparseReshape"
	if err := checkDType(op, "input_indices", inputIndices, interp.Int64); err != nil {
		return nil, nil, err
	}
	if err := checkDType(op, "input_shape", inputShape, interp.Int64); err != nil {
		return nil, nil, err
	}
	if err := checkDType(op, "new_shape", newShape, interp.Int64); err != nil {
		return nil, nil, err
	}
	if inputIndices.Rank() != 2 {
		return nil, nil, errorf(op, "input indices should be a matrix but received shape %s", shapeStr(inputIndices.Shape()))
	}
	if inputShape.Rank() != 1 {
		return nil, nil, errorf(op, "input shape should be a vector but received shape %s", shapeStr(inputShape.Shape()))
	}
	if newShape.Rank() != 1 {
		return nil, nil, errorf(op, "target shape should be a vector but received shape %s", shapeStr(newShape.Shape()))
	}
	in := inputShape.Int64s()
	if int64(len(in)) != inputIndices.Dim(1) {
		return nil, nil, errorf(op, "input tensor rank %d must match input indices dimension %d", len(in), inputIndices.Dim(1))
	}
	dense, err := interp.NumElements(in)
	if err != nil {
		return nil, nil, errorf(op, "input shape: %v", err)
	}
	target, err := inferShape(op, dense, in, newShape.Int64s())
	if err != nil {
		return nil, nil, err
	}
	n := int(inputIndices.Dim(0))
	r0, r1 := len(in), len(target)
	ist, ost := strides(in), strides(target)
	ind := inputIndices.Int64s()
	out := make([]int64, n*r1)
	for i := 0; i < n; i++ {
		lin := int64(0)
		for d := 0; d < r0; d++ {
			lin += ind[i*r0+d] * ist[d]
		}
		for d := 0; d < r1; d++ {
			if ost[d] != 0 {
				out[i*r1+d] = lin / ost[d]
				lin %= ost[d]
			}
		}
	}
	if outIndices, err = interp.New([]int64{int64(n), int64(r1)}, out); err != nil {
		return nil, nil, err
	}
	return outIndices, interp.Vector(target...), nil
}
