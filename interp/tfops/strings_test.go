package tfops

import (
	"math"
	"testing"

	"github.com/recom-compiler/recom/interp"
)

func TestStringToHashBucketFast(t *testing.T) {
	// TensorFlow's documentation example.
	got, err := StringToHashBucketFast(vec("Hello", "TensorFlow", "2.x"), 3)
	check(t, "doc example", got, err, vec[int64](0, 2, 2), "")
	got, err = StringToHashBucketFast(tn(sh(2, 1), "a", ""), 1)
	check(t, "one bucket", got, err, tn[int64](sh(2, 1), 0, 0), "")
	_, err = StringToHashBucketFast(vec("a"), 0)
	check(t, "zero buckets", nil, err, nil, "num_buckets")
	_, err = StringToHashBucketFast(vec[int64](1), 3)
	check(t, "int input", nil, err, nil, "dtype")
}

func TestAsString(t *testing.T) {
	nan := float32(math.NaN())
	tests := []struct {
		name string
		in   *interp.Tensor
		a    AsStringAttrs
		want *interp.Tensor
		err  string
	}{
		{"int32 negatives", vec[int32](-1, 0, 42, -7, math.MinInt32), DefaultAsStringAttrs(),
			vec("-1", "0", "42", "-7", "-2147483648"), ""},
		{"int64 extremes", vec[int64](math.MinInt64, math.MaxInt64), DefaultAsStringAttrs(),
			vec("-9223372036854775808", "9223372036854775807"), ""},
		{"int8", vec[int8](-128), DefaultAsStringAttrs(), vec("-128"), ""},
		{"float default %f", vec[float32](3.5, -0.1, 1e10), DefaultAsStringAttrs(),
			vec("3.500000", "-0.100000", "10000000000.000000"), ""},
		{"float non-finite", vec(nan, float32(math.Inf(-1)), float32(math.Inf(1))), DefaultAsStringAttrs(),
			vec("nan", "-inf", "inf"), ""},
		{"bool", vec(true, false), DefaultAsStringAttrs(), vec("true", "false"), ""},
		{"width zero fill", vec[int64](-42, 7), AsStringAttrs{Precision: -1, Width: 5, Fill: "0"}, vec("-0042", "00007"), ""},
		{"width space", vec[int32](7), AsStringAttrs{Precision: -1, Width: 3}, vec("  7"), ""},
		{"left", vec[int32](7), AsStringAttrs{Precision: -1, Width: 3, Fill: "-"}, vec("7  "), ""},
		{"scientific", vec(0.5), AsStringAttrs{Precision: 2, Scientific: true, Width: -1}, vec("5.00e-01"), ""},
		{"shortest", vec(100000.0, 1e6, 0.5), AsStringAttrs{Precision: -1, Shortest: true, Width: -1}, vec("100000", "1e+06", "0.5"), ""},
		{"precision int", vec[int32](1), AsStringAttrs{Precision: 2, Width: -1}, nil, "precision not supported"},
		{"bad fill", vec[int32](1), AsStringAttrs{Precision: -1, Width: 3, Fill: "x"}, nil, "fill"},
		{"string input", vec("a"), DefaultAsStringAttrs(), nil, "unsupported dtype"},
	}
	for _, tc := range tests {
		got, err := AsStringWith(tc.in, tc.a)
		check(t, tc.name, got, err, tc.want, tc.err)
	}
	got, err := AsString(vec[int32](-3))
	check(t, "AsString default", got, err, vec("-3"), "")
}

func TestStringSplitV2(t *testing.T) {
	tests := []struct {
		name     string
		in       []string
		sep      string
		maxsplit int64
		ind      []int64
		vals     []string
		shape    []int64
	}{
		{"semicolon", []string{"a;b;c", "d", ""}, ";", -1,
			[]int64{0, 0, 0, 1, 0, 2, 1, 0, 2, 0}, []string{"a", "b", "c", "d", ""}, []int64{3, 3}},
		{"empty tokens kept", []string{"1<>2<><>3"}, "<>", -1,
			[]int64{0, 0, 0, 1, 0, 2, 0, 3}, []string{"1", "2", "", "3"}, []int64{1, 4}},
		{"whitespace", []string{"  hello \t world\n", "   ", "a b c"}, "", -1,
			[]int64{0, 0, 0, 1, 2, 0, 2, 1, 2, 2}, []string{"hello", "world", "a", "b", "c"}, []int64{3, 3}},
		{"maxsplit", []string{"a,b,c,d"}, ",", 2,
			[]int64{0, 0, 0, 1, 0, 2}, []string{"a", "b", "c,d"}, []int64{1, 3}},
		{"maxsplit whitespace keeps empty rest", []string{"a  "}, "", 1,
			[]int64{0, 0, 0, 1}, []string{"a", ""}, []int64{1, 2}},
		{"maxsplit zero", []string{"a b"}, " ", 0,
			[]int64{0, 0}, []string{"a b"}, []int64{1, 1}},
		{"no input", []string{}, ",", -1, []int64{}, []string{}, []int64{0, 0}},
	}
	for _, tc := range tests {
		ind, vals, shape, err := StringSplitV2(vec(tc.in...), sc(tc.sep), tc.maxsplit)
		if err != nil {
			t.Errorf("%s: %v", tc.name, err)
			continue
		}
		n := int64(len(tc.vals))
		check(t, tc.name+" indices", ind, nil, tn(sh(n, 2), tc.ind...), "")
		check(t, tc.name+" values", vals, nil, tn(sh(n), tc.vals...), "")
		check(t, tc.name+" shape", shape, nil, vec(tc.shape...), "")
	}
	_, _, _, err := StringSplitV2(tn(sh(1, 1), "a"), sc(","), -1)
	check(t, "matrix input", nil, err, nil, "vector")
}
