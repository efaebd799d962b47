package tfops

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/recom-compiler/recom/interp"
)

func arange(shape []int64) *interp.Tensor {
	n, _ := interp.NumElements(shape)
	v := make([]int32, n)
	for i := range v {
		v[i] = int32(i)
	}
	return tn(shape, v...)
}

func TestStridedSlice(t *testing.T) {
	x := arange(sh(2, 3, 4)) // x[i,j,k] = 12i + 4j + k
	type A = StridedSliceAttrs
	tests := []struct {
		name            string
		begin, end, str []int64
		a               A
		want            *interp.Tensor
		err             string
	}{
		{"x[1, :, ::2] shrink+begin/end masks", sh(1, 0, 0), sh(2, 0, 0), sh(1, 1, 2),
			A{BeginMask: 6, EndMask: 6, ShrinkAxisMask: 1}, tn[int32](sh(3, 2), 12, 14, 16, 18, 20, 22), ""},
		{"x[..., 1] ellipsis", sh(0, 1), sh(0, 2), sh(1, 1),
			A{EllipsisMask: 1, ShrinkAxisMask: 2}, tn[int32](sh(2, 3), 1, 5, 9, 13, 17, 21), ""},
		{"x[:, newaxis, -1] new axis, negative shrink", sh(0, 0, -1), sh(0, 0, 0), sh(1, 1, 1),
			A{BeginMask: 1, EndMask: 1, NewAxisMask: 2, ShrinkAxisMask: 4},
			tn[int32](sh(2, 1, 4), 8, 9, 10, 11, 20, 21, 22, 23), ""},
		{"x[::-1, -1:0:-2] negative strides", sh(0, -1), sh(0, 0), sh(-1, -2),
			A{BeginMask: 1, EndMask: 1}, tn[int32](sh(2, 1, 4), 20, 21, 22, 23, 8, 9, 10, 11), ""},
		{"x[newaxis, ..., 0]", sh(0, 0, 0), sh(0, 0, 1), sh(1, 1, 1),
			A{NewAxisMask: 1, EllipsisMask: 2, ShrinkAxisMask: 4}, tn[int32](sh(1, 2, 3), 0, 4, 8, 12, 16, 20), ""},
		{"x[0, 0, ::-1]", sh(0, 0, 0), sh(1, 1, 0), sh(1, 1, -1),
			A{BeginMask: 4, EndMask: 4, ShrinkAxisMask: 3}, vec[int32](3, 2, 1, 0), ""},
		{"x[0, 0, 3:0:-1] no masks", sh(0, 0, 3), sh(1, 1, 0), sh(1, 1, -1),
			A{ShrinkAxisMask: 3}, vec[int32](3, 2, 1), ""},
		{"x[0, 0, -2:] negative begin", sh(0, 0, -2), sh(1, 1, 0), sh(1, 1, 1),
			A{EndMask: 4, ShrinkAxisMask: 3}, vec[int32](2, 3), ""},
		{"x[0:100, 5:] clamped to empty", sh(0, 5), sh(100, 0), sh(1, 1),
			A{EndMask: 2}, tn[int32](sh(2, 0, 4)), ""},
		{"x[-100:1] clamped begin", sh(-100), sh(1), sh(1), A{},
			interp.Must(arange(sh(2, 3, 4)).Reshaped(sh(2, 3, 4))), "#first"},
		{"x[1:0] empty interval", sh(1), sh(0), sh(1), A{}, tn[int32](sh(0, 3, 4)), ""},
		{"x[..., newaxis] trailing new axis", sh(0, 0), sh(0, 0), sh(1, 1),
			A{EllipsisMask: 1, NewAxisMask: 2}, interp.Must(arange(sh(2, 3, 4)).Reshaped(sh(2, 3, 4, 1))), ""},
		{"x[1, 2, 3] scalar", sh(1, 2, 3), sh(2, 3, 4), sh(1, 1, 1), A{ShrinkAxisMask: 7}, sc[int32](23), ""},
		{"shrink out of range", sh(2), sh(3), sh(1), A{ShrinkAxisMask: 1}, nil, "out of bounds"},
		{"shrink -3 out of range", sh(-3), sh(-2), sh(1), A{ShrinkAxisMask: 1}, nil, "out of bounds"},
		{"zero stride", sh(0), sh(1), sh(0), A{}, nil, "non-zero"},
		{"two ellipses", sh(0, 0), sh(0, 0), sh(1, 1), A{EllipsisMask: 3}, nil, "multiple ellipses"},
		{"too many indices", sh(0, 0, 0, 0), sh(1, 1, 1, 1), sh(1, 1, 1, 1), A{}, nil, "index out of range"},
		{"length mismatch", sh(0, 0), sh(1), sh(1), A{}, nil, "equal size"},
	}
	for _, tc := range tests {
		got, err := StridedSlice(x, vec(tc.begin...), vec(tc.end...), vec(tc.str...), tc.a)
		want := tc.want
		if tc.err == "#first" {
			want = interp.Must(StridedSlice(x, vec[int64](0), vec[int64](1), vec[int64](1), A{}))
			tc.err = ""
		}
		check(t, tc.name, got, err, want, tc.err)
	}
	// int32 begin/end/strides work too.
	got, err := StridedSlice(x, vec[int32](1), vec[int32](2), vec[int32](1), A{ShrinkAxisMask: 1})
	check(t, "int32 spec", got, err, tn[int32](sh(3, 4), 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23), "")
}

func TestSliceAndShape(t *testing.T) {
	x := arange(sh(3, 4))
	got, err := Slice(x, vec[int64](1, 1), vec[int64](-1, 2))
	check(t, "Slice size -1", got, err, tn[int32](sh(2, 2), 5, 6, 9, 10), "")
	_, err = Slice(x, vec[int64](1, 3), vec[int64](1, 2))
	check(t, "Slice too big", nil, err, nil, "size[1]")
	_, err = Slice(x, vec[int64](4, 0), vec[int64](0, 0))
	check(t, "Slice begin", nil, err, nil, "begin[0]")

	got, err = Reshape(x, vec[int32](2, -1))
	check(t, "Reshape -1", got, err, tn[int32](sh(2, 6), 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11), "")
	_, err = Reshape(x, vec[int32](5, -1))
	check(t, "Reshape bad", nil, err, nil, "multiple of 5")
	_, err = Reshape(tn[int32](sh(0, 2)), vec[int32](0, -1))
	check(t, "Reshape empty -1", nil, err, nil, "empty tensor")
	got, err = ExpandDims(vec[int32](1, 2), sc[int32](-1))
	check(t, "ExpandDims -1", got, err, tn[int32](sh(2, 1), 1, 2), "")
	_, err = ExpandDims(vec[int32](1, 2), sc[int32](3))
	check(t, "ExpandDims range", nil, err, nil, "expand dim")
	got, err = Squeeze(tn[int32](sh(1, 2, 1), 1, 2), nil)
	check(t, "Squeeze all", got, err, vec[int32](1, 2), "")
	got, err = Squeeze(tn[int32](sh(1, 2, 1), 1, 2), []int64{-1})
	check(t, "Squeeze axis", got, err, tn[int32](sh(1, 2), 1, 2), "")
	_, err = Squeeze(tn[int32](sh(1, 2, 1), 1, 2), []int64{1})
	check(t, "Squeeze non-1", nil, err, nil, "can not squeeze")
	got, err = Shape(x, interp.Int64)
	check(t, "Shape int64", got, err, vec[int64](3, 4), "")
	got, err = Shape(x, interp.Int32)
	check(t, "Shape int32", got, err, vec[int32](3, 4), "")
	got, err = Size(x, interp.Int32)
	check(t, "Size", got, err, sc[int32](12), "")
	got, err = Rank(x)
	check(t, "Rank", got, err, sc[int32](2), "")
	got, err = Fill(vec[int32](2, 2), sc[int64](7))
	check(t, "Fill", got, err, tn[int64](sh(2, 2), 7, 7, 7, 7), "")
	got, err = ZerosLike(vec(true))
	check(t, "ZerosLike", got, err, vec(false), "")
	got, err = OnesLike(vec[float32](5, 6))
	check(t, "OnesLike", got, err, vec[float32](1, 1), "")
	got, err = Identity(x)
	check(t, "Identity", got, err, x, "")
}

func TestPackConcatTileTranspose(t *testing.T) {
	a, b := vec[int32](1, 2), vec[int32](3, 4)
	got, err := Pack([]*interp.Tensor{a, b}, 0)
	check(t, "Pack 0", got, err, tn[int32](sh(2, 2), 1, 2, 3, 4), "")
	got, err = Pack([]*interp.Tensor{a, b}, -1)
	check(t, "Pack -1", got, err, tn[int32](sh(2, 2), 1, 3, 2, 4), "")
	got, err = Pack([]*interp.Tensor{sc[int64](1), sc[int64](8)}, 0)
	check(t, "Pack scalars", got, err, vec[int64](1, 8), "")
	_, err = Pack([]*interp.Tensor{a, vec[int32](1)}, 0)
	check(t, "Pack mismatch", nil, err, nil, "shapes")

	m := tn[int32](sh(2, 2), 1, 2, 3, 4)
	parts, err := Unpack(m, 2, 1)
	if err != nil || len(parts) != 2 {
		t.Fatalf("Unpack: %v", err)
	}
	check(t, "Unpack[0]", parts[0], nil, vec[int32](1, 3), "")
	check(t, "Unpack[1]", parts[1], nil, vec[int32](2, 4), "")
	_, err = Unpack(m, 3, 0)
	check(t, "Unpack num", nil, err, nil, "must equal 3")

	got, err = ConcatV2([]*interp.Tensor{m, tn[int32](sh(2, 1), 9, 8)}, sc[int32](1))
	check(t, "ConcatV2 axis 1", got, err, tn[int32](sh(2, 3), 1, 2, 9, 3, 4, 8), "")
	got, err = ConcatV2([]*interp.Tensor{m, tn[int32](sh(0, 2))}, sc[int32](-2))
	check(t, "ConcatV2 empty part", got, err, m, "")
	_, err = ConcatV2([]*interp.Tensor{m, tn[int32](sh(2, 1), 9, 8)}, sc[int32](0))
	check(t, "ConcatV2 mismatch", nil, err, nil, "dimensions")
	_, err = ConcatV2([]*interp.Tensor{m, tn[int64](sh(2, 2), 1, 2, 3, 4)}, sc[int32](0))
	check(t, "ConcatV2 dtype", nil, err, nil, "dtype")

	got, err = Tile(tn(sh(2, 1), true, false), vec[int32](1, 3))
	check(t, "Tile", got, err, tn(sh(2, 3), true, true, true, false, false, false), "")
	got, err = Tile(vec[int32](1, 2), vec[int64](2))
	check(t, "Tile 1-D", got, err, vec[int32](1, 2, 1, 2), "")
	_, err = Tile(vec[int32](1, 2), vec[int64](-1))
	check(t, "Tile negative", nil, err, nil, "multiples[0] >= 0")

	x := arange(sh(2, 3, 4))
	got, err = Transpose(x, vec[int32](2, 0, 1))
	if err == nil && (got.Dim(0) != 4 || got.Dim(1) != 2 || got.Dim(2) != 3) {
		t.Errorf("Transpose shape %v", got.Shape())
	}
	got, err = Transpose(m, vec[int64](1, 0))
	check(t, "Transpose 2-D", got, err, tn[int32](sh(2, 2), 1, 3, 2, 4), "")
	_, err = Transpose(m, vec[int64](0, 0))
	check(t, "Transpose duplicate", nil, err, nil, "duplicated")
}

func TestGather(t *testing.T) {
	p := tn[float32](sh(3, 2), 1, 2, 3, 4, 5, 6)
	got, err := GatherV2(p, vec[int64](2, 0, 2), sc[int32](0), 0)
	check(t, "GatherV2 axis 0", got, err, tn[float32](sh(3, 2), 5, 6, 1, 2, 5, 6), "")
	got, err = GatherV2(p, tn[int32](sh(2, 1), 1, 0), sc[int32](1), 0)
	check(t, "GatherV2 axis 1", got, err, tn[float32](sh(3, 2, 1), 2, 1, 4, 3, 6, 5), "")
	got, err = GatherV2(p, sc[int32](1), sc[int32](0), 0)
	check(t, "GatherV2 scalar index", got, err, vec[float32](3, 4), "")
	got, err = GatherV2(tn[int32](sh(2, 3), 1, 2, 3, 4, 5, 6), tn[int32](sh(2, 2), 2, 0, 1, 1), sc[int32](1), 1)
	check(t, "GatherV2 batch_dims", got, err, tn[int32](sh(2, 2), 3, 1, 5, 5), "")
	_, err = GatherV2(p, vec[int64](3), sc[int32](0), 0)
	check(t, "GatherV2 out of range", nil, err, nil, "indices[0] = 3 is not in [0, 3)")
	_, err = GatherV2(p, vec[int64](-1), sc[int32](0), 0)
	check(t, "GatherV2 negative", nil, err, nil, "not in [0, 3)")
	_, err = GatherV2(p, vec[int64](0), sc[int32](2), 0)
	check(t, "GatherV2 axis range", nil, err, nil, "axis")

	s := tn(sh(2, 2), "a", "b", "c", "d")
	got, err = GatherNd(s, tn[int64](sh(2, 2), 1, 0, 0, 1))
	check(t, "GatherNd elements", got, err, vec("c", "b"), "")
	got, err = GatherNd(s, tn[int32](sh(1, 1), 1))
	check(t, "GatherNd rows", got, err, tn(sh(1, 2), "c", "d"), "")
	_, err = GatherNd(s, tn[int32](sh(1, 2), 1, 2))
	check(t, "GatherNd range", nil, err, nil, "does not index into param shape")
}

func TestWhereUniqueSelect(t *testing.T) {
	got, err := Where(tn(sh(2, 3), true, false, true, false, false, true))
	check(t, "Where", got, err, tn[int64](sh(3, 2), 0, 0, 0, 2, 1, 2), "")
	got, err = Where(vec[float32](0, 2, 0))
	check(t, "Where numeric", got, err, tn[int64](sh(1, 1), 1), "")
	got, err = Where(vec(false))
	check(t, "Where none", got, err, tn[int64](sh(0, 1)), "")

	y, idx, err := Unique(vec[int64](1, 1, 2, 4, 4, 4, 7, 8, 8), interp.Int32)
	check(t, "Unique y", y, err, vec[int64](1, 2, 4, 7, 8), "")
	check(t, "Unique idx", idx, err, vec[int32](0, 0, 1, 2, 2, 2, 3, 4, 4), "")
	y, idx, err = Unique(vec("b", "a", "b", "c", "a"), interp.Int64)
	check(t, "Unique strings y", y, err, vec("b", "a", "c"), "")
	check(t, "Unique strings idx", idx, err, vec[int64](0, 1, 0, 2, 1), "")
	y, idx, err = Unique(vec[int32](), interp.Int64)
	check(t, "Unique empty", y, err, vec[int32](), "")
	check(t, "Unique empty idx", idx, err, vec[int64](), "")
	_, _, err = Unique(tn[int32](sh(1, 1), 1), interp.Int32)
	check(t, "Unique rank", nil, err, nil, "1D")

	th := tn[float32](sh(2, 2), 1, 2, 3, 4)
	el := tn[float32](sh(2, 2), -1, -2, -3, -4)
	got, err = Select(vec(true, false), th, el)
	check(t, "Select vector cond", got, err, tn[float32](sh(2, 2), 1, 2, -3, -4), "")
	got, err = Select(sc(false), th, el)
	check(t, "Select scalar cond", got, err, el, "")
	got, err = Select(tn(sh(2, 2), true, false, false, true), th, el)
	check(t, "Select same shape", got, err, tn[float32](sh(2, 2), 1, -2, -3, 4), "")
	_, err = Select(vec(true, false, true), th, el)
	check(t, "Select bad cond", nil, err, nil, "batches")
	_, err = Select(tn(sh(1, 2), true, false), th, el)
	check(t, "Select TF1 no broadcast", nil, err, nil, "same shape")
	got, err = SelectV2(tn(sh(1, 2), true, false), th, sc[float32](0))
	check(t, "SelectV2 broadcast", got, err, tn[float32](sh(2, 2), 1, 0, 3, 0), "")
	_, err = SelectV2(vec(true, false, true), th, el)
	check(t, "SelectV2 incompatible", nil, err, nil, "incompatible shapes")
}

// offsets, with its folding of unit and contiguous dimensions, gives the
// index forEachCoord's walk gives, on random shapes (zero and unit
// dimensions included) and strides (zero ones included: broadcasts and
// reductions).
func TestOffsetsMatchesWalk(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	for trial := 0; trial < 2000; trial++ {
		rank := r.IntN(5)
		shape, st := make([]int64, rank), make([]int64, rank)
		for i := range shape {
			shape[i] = int64(r.IntN(4))
			if r.IntN(5) > 0 {
				shape[i]++
			}
		}
		switch r.IntN(3) {
		case 0:
			st = strides(shape)
		case 1:
			st = strides(shape)
			for i := range st {
				if r.IntN(3) == 0 {
					st[i] = 0
				}
			}
		default:
			for i := range st {
				st[i] = int64(r.IntN(7))
			}
		}
		n, _ := interp.NumElements(shape)
		var want []int
		forEachCoord(shape, func(c []int64) {
			off := int64(0)
			for i, v := range c {
				off += v * st[i]
			}
			want = append(want, int(off))
		})
		got := offsets(shape, st, n)
		if len(got) != int(n) || (n > 0 && !slices.Equal(got, want)) {
			t.Fatalf("shape %v strides %v: got %v, want %v", shape, st, got, want)
		}
	}
}
