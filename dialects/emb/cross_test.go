package emb_test

import (
	"slices"
	"testing"

	"github.com/recom-compiler/recom/interp"
	"github.com/recom-compiler/recom/interp/tfops"
)

// TestCross runs emb.cross over a ragged int64 input and a dense string
// one, hashed and joined, against TensorFlow's SparseCross semantics
// (tfops) on the same features, and with the pinned output of
// TensorFlow's sparse_cross_op_test (tensorflow/tensorflow@02dd752).
func TestCross(t *testing.T) {
	body := feed("a", "tensor<?xi64>") + feed("as", "tensor<?xi64>") + feed("x", "tensor<?x2x!tfg.string>") +
		`%b, %bs = emb.from_dense %x : tensor<?x2x!tfg.string> -> tensor<?x!tfg.string> loc("d")
%h, %hs = emb.cross %a, %as, %b, %bs {hash_key = 956888297470 : i64, num_buckets = 1000 : i64} : tensor<?xi64>, tensor<?x!tfg.string> -> tensor<?xi64> loc("h")
%j, %js = emb.cross %a, %as, %b, %bs {sep = "_X_"} : tensor<?xi64>, tensor<?x!tfg.string> -> tensor<?x!tfg.string> loc("j")
`
	feeds := map[string]*interp.Tensor{"a": i64s(11, 333, 5555), "as": i64s(0, 1, 1, 3),
		"x": mat[string](3, 2, "p", "q", "r", "s", "t", "u")}
	got, err := run(t, body, feeds, []string{"h:0", "h:1", "j:0", "j:1"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	expect(t, got, err, map[string]*interp.Tensor{
		"h:1": i64s(0, 2, 2, 6),
		"j:0": strs("11_X_p", "11_X_q", "333_X_t", "333_X_u", "5555_X_t", "5555_X_u"),
		"j:1": i64s(0, 2, 2, 6)})
	s := tfops.CrossSpec{Mode: tfops.CrossHashKey, HashKey: 956888297470, NumBuckets: 1000}
	_, want, _, err := tfops.Cross("SparseCross", []tfops.CrossInput{{Values: feeds["a"], Starts: []int64{0, 1, 1, 3}}, {Values: feeds["x"]}}, 3, s)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(got["h:0"].Int64s(), want.Int64s()) {
		t.Errorf("hashed crosses %v, want %v", got["h:0"], want)
	}

	// testHashedOutput: three strings crossed into 100 buckets give 83.
	three := feed("p", "tensor<?x!tfg.string>") + feed("q", "tensor<?x!tfg.string>") + feed("r", "tensor<?x!tfg.string>") + feed("s", "tensor<?xi64>") +
		`%h, %hs = emb.cross %p, %s, %q, %s, %r, %s {hash_key = 956888297470 : i64, num_buckets = 100 : i64} : tensor<?x!tfg.string>, tensor<?x!tfg.string>, tensor<?x!tfg.string> -> tensor<?xi64> loc("h")` + "\n"
	got, err = run(t, three, map[string]*interp.Tensor{"p": strs("batch1-FC1-F1"), "q": strs("batch1-FC2-F1"), "r": strs("batch1-FC3-F1"), "s": i64s(0, 1)},
		[]string{"h:0"}, nil)
	expect(t, got, err, map[string]*interp.Tensor{"h:0": i64s(83)})

	// Inputs of different batches are an error.
	_, err = run(t, body, map[string]*interp.Tensor{"a": i64s(11), "as": i64s(0, 1), "x": feeds["x"]}, []string{"h:0"}, nil)
	expectErr(t, err, "input #1 has 3 bags, but input #0 has 1")
}
