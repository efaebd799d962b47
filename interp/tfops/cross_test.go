package tfops

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/recom-compiler/recom/interp"
)

// crossRows is a SparseTensor of rows of features (TensorFlow's
// sparse_cross_op_test _sparse_tensor): row b's features at [b, 0..].
func crossRows[T interp.Elem](batch int64, rows ...[]T) (ind, vals, shape *interp.Tensor) {
	var idx []int64
	var vs []T
	width := int64(0)
	for b, r := range rows {
		for k, v := range r {
			idx = append(idx, int64(b), int64(k))
			vs = append(vs, v)
		}
		width = max(width, int64(len(r)))
	}
	if batch < 0 {
		batch = int64(len(rows))
	}
	return tn(sh(int64(len(vs)), 2), idx...), tn(sh(int64(len(vs))), vs...), vec(batch, width)
}

type sparseIn struct{ ind, vals, shape *interp.Tensor }

func sp[T interp.Elem](batch int64, rows ...[]T) sparseIn {
	i, v, s := crossRows(batch, rows...)
	return sparseIn{i, v, s}
}

func runCross(t *testing.T, sparse []sparseIn, dense []*interp.Tensor, s CrossSpec) (splits []int64, vals *interp.Tensor, maxCount int64, err error) {
	t.Helper()
	var ind, vs, shp []*interp.Tensor
	for _, x := range sparse {
		ind, vs, shp = append(ind, x.ind), append(vs, x.vals), append(shp, x.shape)
	}
	in, batch, err := SparseCrossInputs("SparseCross", ind, vs, shp, dense)
	if err != nil {
		return nil, nil, 0, err
	}
	return Cross("SparseCross", in, batch, s)
}

// The default hash_key of tf.sparse.cross_hashed (sparse_ops._DEFAULT_HASH_KEY).
const defaultHashKey = 0xDECAFCAFFE

// TestCrossGolden checks the outputs TensorFlow's own tests pin
// (tensorflow/python/kernel_tests/sparse_ops/sparse_cross_op_test.py,
// tensorflow/tensorflow@02dd752).
func TestCrossGolden(t *testing.T) {
	three := []sparseIn{sp(-1, []string{"batch1-FC1-F1"}), sp(-1, []string{"batch1-FC2-F1"}), sp(-1, []string{"batch1-FC3-F1"})}
	for _, c := range []struct {
		name string
		s    CrossSpec
		want int64
	}{
		{"hashed_zero_bucket_no_hash_key", CrossSpec{Mode: CrossHashKey, HashKey: defaultHashKey}, 1971693436396284976},
		{"hashed_zero_bucket", CrossSpec{Mode: CrossHashKey, HashKey: defaultHashKey + 1}, 4847552627144134031},
		{"hashed_no_hash_key", CrossSpec{Mode: CrossHashKey, HashKey: defaultHashKey, NumBuckets: 100}, 83},
		{"hashed_output", CrossSpec{Mode: CrossHashKey, HashKey: defaultHashKey + 1, NumBuckets: 100}, 31},
		{"SparseCrossHashed zero bucket", CrossSpec{Mode: CrossHashedV2, Salt: [2]uint64{1, 1}}, 9186962005966787372},
		// The salt is not used without strong_hash.
		{"SparseCrossHashed zero bucket salt", CrossSpec{Mode: CrossHashedV2, Salt: [2]uint64{137, 173}}, 9186962005966787372},
		{"SparseCrossHashed output", CrossSpec{Mode: CrossHashedV2, NumBuckets: 100, Salt: [2]uint64{137, 173}}, 79},
	} {
		splits, vals, maxCount, err := runCross(t, three, nil, c.s)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if !slices.Equal(splits, []int64{0, 1}) || maxCount != 1 || !slices.Equal(vals.Int64s(), []int64{c.want}) {
			t.Errorf("%s: splits %v values %v max %d, want one cross %d", c.name, splits, vals, maxCount, c.want)
		}
	}
}

func TestCrossStrings(t *testing.T) {
	join := CrossSpec{Mode: CrossJoin, Sep: "_X_"}
	cases := []struct {
		name       string
		sparse     []sparseIn
		dense      []*interp.Tensor
		s          CrossSpec
		wantSplits []int64
		want       []string
	}{
		{"simple", []sparseIn{sp(-1, []string{"batch1-FC1-F1"}, []string{"batch2-FC1-F1", "batch2-FC1-F2"}),
			sp(-1, []string{"batch1-FC2-F1"}, []string{"batch2-FC2-F1", "batch2-FC2-F2"})}, nil, join,
			[]int64{0, 1, 5}, []string{"batch1-FC1-F1_X_batch1-FC2-F1",
				"batch2-FC1-F1_X_batch2-FC2-F1", "batch2-FC1-F1_X_batch2-FC2-F2", "batch2-FC1-F2_X_batch2-FC2-F1", "batch2-FC1-F2_X_batch2-FC2-F2"}},
		{"integer_mixed_string_dense", nil, []*interp.Tensor{tn(sh(2, 2), int64(11), 333, 55555, 999999),
			tn(sh(2, 2), "batch1-FC2-F1", "batch1-FC2-F2", "batch2-FC2-F1", "batch2-FC2-F2")}, join,
			[]int64{0, 4, 8}, []string{"11_X_batch1-FC2-F1", "11_X_batch1-FC2-F2", "333_X_batch1-FC2-F1", "333_X_batch1-FC2-F2",
				"55555_X_batch2-FC2-F1", "55555_X_batch2-FC2-F2", "999999_X_batch2-FC2-F1", "999999_X_batch2-FC2-F2"}},
		// Sparse inputs come before dense ones whatever the order given.
		{"integer_sparse_input", []sparseIn{sp(-1, []int64{11}, []int64{333, 5555})},
			[]*interp.Tensor{tn(sh(2, 2), "batch1-FC2-F1", "batch1-FC2-F2", "batch2-FC2-F1", "batch2-FC2-F2")}, join,
			[]int64{0, 2, 6}, []string{"11_X_batch1-FC2-F1", "11_X_batch1-FC2-F2", "333_X_batch2-FC2-F1", "333_X_batch2-FC2-F2",
				"5555_X_batch2-FC2-F1", "5555_X_batch2-FC2-F2"}},
		{"permutation_3x1x2", []sparseIn{sp(-1, []string{"a1", "a2", "a3"}), sp(-1, []string{"b1"}), sp(-1, []string{"c1", "c2"})}, nil, join,
			[]int64{0, 6}, []string{"a1_X_b1_X_c1", "a1_X_b1_X_c2", "a2_X_b1_X_c1", "a2_X_b1_X_c2", "a3_X_b1_X_c1", "a3_X_b1_X_c2"}},
		{"some_columns_empty", []sparseIn{sp(2, []string{"a1", "a2"}), sp(2, []string{"b1"}, []string{"b2"}), sp(2, []string{"c1", "c2"})}, nil, join,
			[]int64{0, 4, 4}, []string{"a1_X_b1_X_c1", "a1_X_b1_X_c2", "a2_X_b1_X_c1", "a2_X_b1_X_c2"}},
		{"one_column_empty", []sparseIn{sp(-1, []string{"a1", "a2"}), sp[string](1), sp(-1, []string{"c1"})}, nil, join,
			[]int64{0, 0}, []string{}},
		{"SparseCrossV2 sep", []sparseIn{sp(-1, []string{"a"}, []string{"b", "c"})},
			[]*interp.Tensor{tn(sh(2, 1), "x", "y")}, CrossSpec{Mode: CrossJoin, Sep: "_Y_"},
			[]int64{0, 1, 3}, []string{"a_Y_x", "b_Y_y", "c_Y_y"}},
	}
	for _, c := range cases {
		splits, vals, _, err := runCross(t, c.sparse, c.dense, c.s)
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		if !slices.Equal(splits, c.wantSplits) || !slices.Equal(vals.Strings(), c.want) {
			t.Errorf("%s: got %v %q, want %v %q", c.name, splits, vals.Strings(), c.wantSplits, c.want)
		}
	}
}

// TestCrossHashedFeatures: how each kind of input is hashed, checked
// against the definition (FingerprintCat64 of the features' hashes).
func TestCrossHashedFeatures(t *testing.T) {
	fp := func(s string) uint64 { return CrossFeatureHash(&CrossSpec{}, interp.Vector(s), 0, false) }
	// SparseCross: a string's Fingerprint64, an int64 itself.
	s := CrossSpec{Mode: CrossHashKey, HashKey: 7}
	_, vals, _, err := runCross(t, []sparseIn{sp(-1, []int64{-5})}, []*interp.Tensor{tn(sh(1, 1), "q")}, s)
	want := int64(FingerprintCat64(FingerprintCat64(7, uint64(1<<64-5)), fp("q")) % (1<<63 - 1))
	if err != nil || vals.Int64s()[0] != want {
		t.Errorf("SparseCross int and string: %v %v, want %d", vals, err, want)
	}
	// SparseCrossHashed: a sparse int64's first 4 bytes fingerprinted, a
	// dense int64 itself; the first feature starts the hash.
	v2 := CrossSpec{Mode: CrossHashedV2, NumBuckets: 1 << 40}
	_, vals, _, err = runCross(t, []sparseIn{sp(-1, []int64{0x1122334455667788})}, []*interp.Tensor{tn(sh(1, 1), int64(9))}, v2)
	want = int64(FingerprintCat64(fp("\x88\x77\x66\x55"), 9) % (1 << 40))
	if err != nil || vals.Int64s()[0] != want {
		t.Errorf("SparseCrossHashed ints: %v %v, want %d", vals, err, want)
	}
	// With strong_hash: SipHash keyed by the salt, of strings and of
	// every int64's first 4 bytes.
	v2.Strong, v2.Salt = true, [2]uint64{137, 173}
	_, vals, _, err = runCross(t, []sparseIn{sp(-1, []string{"ab"})}, []*interp.Tensor{tn(sh(1, 1), int64(0x0102030405))}, v2)
	want = int64(FingerprintCat64(SipHash24(137, 173, []byte("ab")), SipHash24(137, 173, []byte{5, 4, 3, 2})) % (1 << 40))
	if err != nil || vals.Int64s()[0] != want {
		t.Errorf("SparseCrossHashed strong: %v %v, want %d", vals, err, want)
	}
}

// TestSipHash24 checks the reference test vector of the SipHash paper
// (appendix A: key 00..0f, message 00..0e) and the empty message of the
// reference implementation's vectors.
func TestSipHash24(t *testing.T) {
	k0, k1 := uint64(0x0706050403020100), uint64(0x0f0e0d0c0b0a0908)
	msg := make([]byte, 15)
	for i := range msg {
		msg[i] = byte(i)
	}
	if got := SipHash24(k0, k1, msg); got != 0xa129ca6149be45e5 {
		t.Errorf("SipHash24(paper vector) = %#x, want 0xa129ca6149be45e5", got)
	}
	if got := SipHash24(k0, k1, nil); got != 0x726fdb47dd0e0e31 {
		t.Errorf("SipHash24(empty) = %#x, want 0x726fdb47dd0e0e31", got)
	}
}

func TestCrossErrors(t *testing.T) {
	join := CrossSpec{Mode: CrossJoin, Sep: "_X_"}
	a := sp(-1, []string{"x"}, []string{"y"})
	cases := []struct {
		name   string
		sparse []sparseIn
		dense  []*interp.Tensor
		want   string
	}{
		{"batch mismatch", []sparseIn{a, sp(3, []string{"z"})}, nil, "expected batch size 2 got 3"},
		{"dense batch mismatch", []sparseIn{a}, []*interp.Tensor{tn(sh(5, 1), "a", "b", "c", "d", "e")}, "expected batch size 2 got 5"},
		{"dense rank", nil, []*interp.Tensor{tn(sh(2), "a", "b")}, "dense inputs should be a matrix"},
		{"row outside", []sparseIn{{tn(sh(1, 2), int64(4), 0), vec("v"), vec(int64(2), 1)}}, nil, "outside [0, 2)"},
		{"unordered rows", []sparseIn{{tn(sh(2, 2), int64(1), 0, 0, 0), vec("v", "w"), vec(int64(2), 1)}}, nil, "not ordered by batch row"},
		{"index width", []sparseIn{{tn(sh(1, 3), int64(0), 0, 0), vec("v"), vec(int64(2), 1)}}, nil, "expected D2 of index to be 2"},
		{"float values", []sparseIn{{tn(sh(1, 2), int64(0), 0), vec(float32(1)), vec(int64(1), 1)}}, nil, "want int64 or string"},
	}
	for _, c := range cases {
		_, _, _, err := runCross(t, c.sparse, c.dense, join)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want one containing %q", c.name, err, c.want)
		}
	}
	// The product of the features is checked before anything is
	// allocated for it.
	old := interp.MaxElements
	interp.MaxElements = 1000
	defer func() { interp.MaxElements = old }()
	big := tn(sh(1, 40), make([]int64, 40)...)
	_, _, _, err := runCross(t, nil, []*interp.Tensor{big, big}, CrossSpec{Mode: CrossHashKey})
	var tl *interp.TooLargeError
	if !errors.As(err, &tl) {
		t.Errorf("40x40 crosses with a limit of 1000: error %v, want a TooLargeError", err)
	}
}
