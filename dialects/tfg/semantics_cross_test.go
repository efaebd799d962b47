package tfg_test

import (
	"testing"

	"github.com/recom-compiler/recom/interp"
)

// TestCrossKernels runs SparseCross, SparseCrossV2 and SparseCrossHashed
// from GraphDef nodes on the cases of TensorFlow's sparse_cross_op_test
// (tensorflow/tensorflow@02dd752), with their pinned outputs.
func TestCrossKernels(t *testing.T) {
	sparse3 := ph("ai", "DT_INT64") + ph("av", "DT_STRING") + ph("as", "DT_INT64") +
		ph("bi", "DT_INT64") + ph("bv", "DT_STRING") + ph("bs", "DT_INT64") +
		ph("ci", "DT_INT64") + ph("cv", "DT_STRING") + ph("cs", "DT_INT64")
	types3 := []string{ai("N", 3), attr("sparse_types", "list { type: DT_STRING type: DT_STRING type: DT_STRING }"), attr("dense_types", "list { }")}
	three := map[string]*interp.Tensor{}
	sparseFeeds("a", three, []int64{0, 0}, strs(sh(1), "batch1-FC1-F1"), 1, 1)
	sparseFeeds("b", three, []int64{0, 0}, strs(sh(1), "batch1-FC2-F1"), 1, 1)
	sparseFeeds("c", three, []int64{0, 0}, strs(sh(1), "batch1-FC3-F1"), 1, 1)
	in3 := ins("ai", "bi", "ci", "av", "bv", "cv", "as", "bs", "cs")
	hashed := func(nb int64, salt ...int64) string {
		return sparse3 + cst("nb", "DT_INT64", nil, vals("int64_val", nb)) + cst("strong", "DT_BOOL", nil, vals("bool_val", false)) +
			cst("salt", "DT_INT64", sh(2), vals("int64_val", salt[0], salt[1])) +
			nd("out", "SparseCrossHashed", append(in3, "nb", "strong", "salt"), types3...)
	}
	// A sparse int64 input and a dense string one, joined with a separator.
	mixed := ph("xi", "DT_INT64") + ph("xv", "DT_INT64") + ph("xs", "DT_INT64") + ph("d", "DT_STRING") +
		cst("sep", "DT_STRING", nil, vals("string_val", "_Y_"))
	mixedFeeds := map[string]*interp.Tensor{"d": strs(sh(2, 2), "p", "q", "r", "s")}
	sparseFeeds("x", mixedFeeds, []int64{0, 0, 1, 0, 1, 1}, i64(sh(3), 11, 333, 5555), 2, 2)
	mixedTypes := []string{ai("N", 1), attr("sparse_types", "list { type: DT_INT64 }"), attr("dense_types", "list { type: DT_STRING }")}
	runCases(t, []kernelCase{
		{name: "SparseCross hashed_output key+1", graph: sparse3 + nd("out", "SparseCross", in3, append(types3, ab("hashed_output", true),
			ai("num_buckets", 100), ai("hash_key", 0xDECAFCAFFE+1), ty("out_type", "DT_INT64"), ty("internal_type", "DT_STRING"))...),
			feeds: three, want: map[string]*interp.Tensor{"out:1": i64(sh(1), 31)}},
		{name: "SparseCrossHashed zero bucket", graph: hashed(0, 1, 1), feeds: three,
			want: map[string]*interp.Tensor{"out": i64(sh(1, 2), 0, 0), "out:1": i64(sh(1), 9186962005966787372), "out:2": i64(sh(2), 1, 1)}},
		{name: "SparseCrossHashed output", graph: hashed(100, 137, 173), feeds: three,
			want: map[string]*interp.Tensor{"out:1": i64(sh(1), 79)}},
		{name: "SparseCrossV2", graph: mixed + nd("out", "SparseCrossV2", ins("xi", "xv", "xs", "d", "sep"), mixedTypes...), feeds: mixedFeeds,
			want: map[string]*interp.Tensor{
				"out":   i64(sh(6, 2), 0, 0, 0, 1, 1, 0, 1, 1, 1, 2, 1, 3),
				"out:1": strs(sh(6), "11_Y_p", "11_Y_q", "333_Y_r", "333_Y_s", "5555_Y_r", "5555_Y_s"),
				"out:2": i64(sh(2), 2, 4)}},
		// out_type, not hashed_output, picks TensorFlow's kernel.
		{name: "SparseCross strings from ints", graph: mixed + nd("out", "SparseCross", ins("xi", "xv", "xs", "d"), append(mixedTypes,
			ab("hashed_output", true), ai("num_buckets", 0), ai("hash_key", 0), ty("out_type", "DT_STRING"), ty("internal_type", "DT_INT64"))...),
			feeds: mixedFeeds, want: map[string]*interp.Tensor{"out:1": strs(sh(6), "11_X_p", "11_X_q", "333_X_r", "333_X_s", "5555_X_r", "5555_X_s")}},
		{name: "SparseCross internal string refuses ints", graph: mixed + nd("out", "SparseCross", ins("xi", "xv", "xs", "d"), append(mixedTypes,
			ab("hashed_output", false), ai("num_buckets", 0), ai("hash_key", 0), ty("out_type", "DT_STRING"), ty("internal_type", "DT_STRING"))...),
			feeds: mixedFeeds, wantErr: "internal type string"},
		{name: "SparseCrossV2 separator not a scalar", graph: mixed + cst("seps", "DT_STRING", sh(2), vals("string_val", "a", "b")) +
			nd("out", "SparseCrossV2", ins("xi", "xv", "xs", "d", "seps"), mixedTypes...), feeds: mixedFeeds, wantErr: "separator should be a scalar"},
		{name: "SparseCrossHashed short salt", graph: sparse3 + cst("nb", "DT_INT64", nil, vals("int64_val", 5)) + cst("strong", "DT_BOOL", nil, vals("bool_val", false)) +
			cst("salt", "DT_INT64", sh(1), vals("int64_val", 1)) + nd("out", "SparseCrossHashed", append(in3, "nb", "strong", "salt"), types3...),
			feeds: three, wantErr: `"salt" must be int64 of length 2`},
	})
}
