package tfops

import (
	"math"
	"testing"

	"github.com/recom-compiler/recom/interp"
)

func TestSparseSegment(t *testing.T) {
	data := tn[float32](sh(4, 2), 1, 2, 3, 4, 5, 6, 7, 8)
	r2 := float32(math.Sqrt2)
	type fn func(d, i, s *interp.Tensor) (*interp.Tensor, error)
	sum, mean, sqrtn := fn(SparseSegmentSum), fn(SparseSegmentMean), fn(SparseSegmentSqrtN)
	tests := []struct {
		name     string
		f        fn
		ind, ids *interp.Tensor
		want     *interp.Tensor
		err      string
	}{
		{"sum with empty segment", sum, vec[int32](0, 1, 3, 2), vec[int32](0, 0, 2, 3),
			tn[float32](sh(4, 2), 4, 6, 0, 0, 7, 8, 5, 6), ""},
		{"mean with empty segment", mean, vec[int32](0, 1, 3, 2), vec[int32](0, 0, 2, 3),
			tn[float32](sh(4, 2), 2, 3, 0, 0, 7, 8, 5, 6), ""},
		{"sqrtn", sqrtn, vec[int64](0, 1, 3), vec[int64](0, 0, 1),
			tn(sh(2, 2), 4/r2, 6/r2, 7, 8), ""},
		{"one-element segments", mean, vec[int32](3, 0, 2), vec[int32](0, 1, 2),
			tn[float32](sh(3, 2), 7, 8, 1, 2, 5, 6), ""},
		{"leading empty segments", sum, vec[int32](1), vec[int32](2),
			tn[float32](sh(3, 2), 0, 0, 0, 0, 3, 4), ""},
		{"repeated index", sum, vec[int32](1, 1), vec[int32](0, 0), tn[float32](sh(1, 2), 6, 8), ""},
		{"empty input", mean, vec[int32](), vec[int32](), tn[float32](sh(0, 2)), ""},
		{"unsorted ids", sum, vec[int32](0, 1), vec[int32](1, 0), nil, "not increasing"},
		{"negative id", sum, vec[int32](0), vec[int32](-1), nil, "negative"},
		{"index out of range", mean, vec[int32](0, 4), vec[int32](0, 0), nil, "indices[1] == 4 out of range [0, 4)"},
		{"negative index", mean, vec[int32](-1), vec[int32](0), nil, "out of range"},
		{"size mismatch", sum, vec[int32](0, 1), vec[int32](0), nil, "same size"},
	}
	for _, tc := range tests {
		got, err := tc.f(data, tc.ind, tc.ids)
		check(t, tc.name, got, err, tc.want, tc.err)
	}

	got, err := SparseSegmentMeanWithNumSegments(data, vec[int32](0, 1), vec[int32](0, 0), sc[int32](3))
	check(t, "mean num_segments", got, err, tn[float32](sh(3, 2), 2, 3, 0, 0, 0, 0), "")
	got, err = SparseSegmentSumWithNumSegments(data, vec[int32](2), vec[int32](1), sc[int64](2))
	check(t, "sum num_segments", got, err, tn[float32](sh(2, 2), 0, 0, 5, 6), "")
	got, err = SparseSegmentSqrtNWithNumSegments(data, vec[int32](), vec[int32](), sc[int32](2))
	check(t, "sqrtn no ids", got, err, tn[float32](sh(2, 2), 0, 0, 0, 0), "")
	_, err = SparseSegmentSumWithNumSegments(data, vec[int32](0), vec[int32](3), sc[int32](3))
	check(t, "id >= num_segments", nil, err, nil, "num_segments")
	_, err = SparseSegmentMean(tn[int32](sh(1), 1), vec[int32](0), vec[int32](0))
	check(t, "mean of ints", nil, err, nil, "dtype")
	got, err = SparseSegmentSum(tn[int64](sh(3), 1, 2, 3), vec[int32](0, 2, 1), vec[int32](0, 0, 1))
	check(t, "int sum, rank-1 data", got, err, vec[int64](4, 2), "")
}

func TestSegmentSum(t *testing.T) {
	data := tn[float32](sh(4, 2), 1, 2, 3, 4, 5, 6, 7, 8)
	got, err := SegmentSum(data, vec[int32](0, 0, 2, 2))
	check(t, "SegmentSum", got, err, tn[float32](sh(3, 2), 4, 6, 0, 0, 12, 14), "")
	_, err = SegmentSum(data, vec[int32](0, 1, 0, 2))
	check(t, "SegmentSum unsorted", nil, err, nil, "not increasing")
	_, err = SegmentSum(data, vec[int32](0, 1))
	check(t, "SegmentSum size", nil, err, nil, "dimension 0")

	got, err = UnsortedSegmentSum(data, vec[int32](2, 0, -1, 2), sc[int32](4))
	check(t, "UnsortedSegmentSum", got, err, tn[float32](sh(4, 2), 3, 4, 0, 0, 8, 10, 0, 0), "")
	got, err = UnsortedSegmentSum(data, tn[int64](sh(4, 2), 0, 1, 1, 1, 0, 0, 1, 0), sc[int64](2))
	check(t, "UnsortedSegmentSum rank-2 ids", got, err, vec[float32](1+5+6+8, 2+3+4+7), "")
	_, err = UnsortedSegmentSum(data, vec[int32](0, 4, 0, 0), sc[int32](4))
	check(t, "UnsortedSegmentSum out of range", nil, err, nil, "segment_ids[1] = 4 is out of range [0, 4)")
}

func TestSparseFillEmptyRows(t *testing.T) {
	type want struct{ ind, vals, empty, rev *interp.Tensor }
	tests := []struct {
		name           string
		ind, vals, shp *interp.Tensor
		def            *interp.Tensor
		want           want
		err            string
	}{
		{"unordered with empty rows",
			tn[int64](sh(4, 2), 3, 1, 0, 2, 3, 0, 1, 1), vec[int64](10, 20, 30, 40), vec[int64](5, 3), sc[int64](-1),
			want{tn[int64](sh(6, 2), 0, 2, 1, 1, 2, 0, 3, 1, 3, 0, 4, 0), vec[int64](20, 40, -1, 10, 30, -1),
				vec(false, false, true, false, true), vec[int64](3, 0, 4, 1)}, ""},
		{"ordered, no empty rows: passthrough",
			tn[int64](sh(3, 2), 0, 1, 1, 0, 1, 1), vec[float32](1, 2, 3), vec[int64](2, 2), sc[float32](0),
			want{tn[int64](sh(3, 2), 0, 1, 1, 0, 1, 1), vec[float32](1, 2, 3), vec(false, false), vec[int64](0, 1, 2)}, ""},
		{"ordered, empty rows, rank 3",
			tn[int64](sh(2, 3), 0, 0, 1, 2, 1, 0), vec("a", "b"), vec[int64](4, 2, 2), sc("?"),
			want{tn[int64](sh(4, 3), 0, 0, 1, 1, 0, 0, 2, 1, 0, 3, 0, 0), vec("a", "?", "b", "?"),
				vec(false, true, false, true), vec[int64](0, 2)}, ""},
		{"unordered, no empty rows",
			tn[int64](sh(3, 2), 1, 0, 0, 5, 1, 1), vec[int32](7, 8, 9), vec[int64](2, 6), sc[int32](0),
			want{tn[int64](sh(3, 2), 0, 5, 1, 0, 1, 1), vec[int32](8, 7, 9), vec(false, false), vec[int64](1, 0, 2)}, ""},
		{"all empty",
			tn[int64](sh(0, 2)), vec[int64](), vec[int64](2, 3), sc[int64](9),
			want{tn[int64](sh(2, 2), 0, 0, 1, 0), vec[int64](9, 9), vec(true, true), vec[int64]()}, ""},
		{"row out of range",
			tn[int64](sh(1, 2), 2, 0), vec[int64](1), vec[int64](2, 3), sc[int64](0), want{}, "indices(0, 0) is invalid"},
		{"negative row",
			tn[int64](sh(1, 2), -1, 0), vec[int64](1), vec[int64](2, 3), sc[int64](0), want{}, "is invalid"},
		{"zero rows",
			tn[int64](sh(1, 2), 0, 0), vec[int64](1), vec[int64](0, 3), sc[int64](0), want{}, "dense_shape[0] = 0"},
		{"default dtype",
			tn[int64](sh(1, 2), 0, 0), vec[int64](1), vec[int64](1, 3), sc[int32](0), want{}, "default_value"},
	}
	for _, tc := range tests {
		r, err := SparseFillEmptyRows(tc.ind, tc.vals, tc.shp, tc.def)
		if tc.err != "" || err != nil {
			check(t, tc.name, nil, err, nil, tc.err)
			continue
		}
		check(t, tc.name+" indices", r.Indices, nil, tc.want.ind, "")
		check(t, tc.name+" values", r.Values, nil, tc.want.vals, "")
		check(t, tc.name+" empty_row_indicator", r.EmptyRowIndices, nil, tc.want.empty, "")
		check(t, tc.name+" reverse_index_map", r.ReverseIndexMap, nil, tc.want.rev, "")
	}
}

func TestSparseReshape(t *testing.T) {
	ind := tn[int64](sh(5, 3), 0, 0, 0, 0, 0, 1, 0, 1, 0, 1, 0, 0, 1, 2, 3)
	tests := []struct {
		name     string
		in, newS *interp.Tensor
		wantInd  *interp.Tensor
		wantS    *interp.Tensor
		err      string
	}{
		// TensorFlow's documentation example.
		{"infer -1", vec[int64](2, 3, 6), vec[int64](9, -1),
			tn[int64](sh(5, 2), 0, 0, 0, 1, 1, 2, 4, 2, 8, 1), vec[int64](9, 4), ""},
		{"flatten", vec[int64](2, 3, 6), vec[int64](-1),
			tn[int64](sh(5, 1), 0, 1, 6, 18, 33), vec[int64](36), ""},
		{"to rank 4", vec[int64](2, 3, 6), vec[int64](2, -1, 3, 2),
			tn[int64](sh(5, 4), 0, 0, 0, 0, 0, 0, 0, 1, 0, 1, 0, 0, 1, 0, 0, 0, 1, 2, 1, 1), vec[int64](2, 3, 3, 2), ""},
		{"two unknowns", vec[int64](2, 3, 6), vec[int64](-1, -1), nil, nil, "only one input size may be -1"},
		{"size mismatch", vec[int64](2, 3, 6), vec[int64](5, 7), nil, nil, "36 values"},
		{"not divisible", vec[int64](2, 3, 6), vec[int64](5, -1), nil, nil, "multiple of 5"},
		{"negative", vec[int64](2, 3, 6), vec[int64](-2, 18), nil, nil, "non-negative"},
		{"rank mismatch", vec[int64](6, 6), vec[int64](36), nil, nil, "rank"},
	}
	for _, tc := range tests {
		gi, gs, err := SparseReshape(ind, tc.in, tc.newS)
		if tc.err != "" || err != nil {
			check(t, tc.name, nil, err, nil, tc.err)
			continue
		}
		check(t, tc.name+" indices", gi, nil, tc.wantInd, "")
		check(t, tc.name+" shape", gs, nil, tc.wantS, "")
	}
}
