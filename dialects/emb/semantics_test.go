package emb_test

import (
	"context"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/recom-compiler/recom/dialects/emb"
	"github.com/recom-compiler/recom/interp"
	"github.com/recom-compiler/recom/interp/exec"
	"github.com/recom-compiler/recom/interp/tfops"
	"github.com/recom-compiler/recom/textir"
)

func i64s(v ...int64) *interp.Tensor   { return interp.Vector(v...) }
func i32s(v ...int32) *interp.Tensor   { return interp.Vector(v...) }
func f32s(v ...float32) *interp.Tensor { return interp.Vector(v...) }
func strs(v ...string) *interp.Tensor  { return interp.Vector(v...) }
func mat[T interp.Elem](rows, cols int64, v ...T) *interp.Tensor {
	return interp.Must(interp.New([]int64{rows, cols}, v))
}

// feed declares an input named name of type ty.
func feed(name, ty string) string {
	return `%` + name + ` = "test.feed"() : () -> ` + ty + ` loc("` + name + `")` + "\n"
}

// run runs body (ops named by their locations; inputs made with feed) and
// returns the requested tensors.
func run(t *testing.T, body string, feeds map[string]*interp.Tensor, outputs []string, opts *exec.Options) (map[string]*interp.Tensor, error) {
	t.Helper()
	ctx := newCtx()
	ctx.AllowUnregistered = true
	m := parse(t, ctx, "func.func @f() {\n"+body+"func.return\n}\n")
	if err := textir.Verify(ctx, m); err != nil {
		t.Fatalf("verify: %v\n%s", err, body)
	}
	return exec.Run(context.Background(), m, feeds, outputs, opts)
}

// expect compares the outputs with want: integers and strings exactly,
// floats within rtol 1e-5.
func expect(t *testing.T, got map[string]*interp.Tensor, err error, want map[string]*interp.Tensor) {
	t.Helper()
	if err != nil {
		t.Fatalf("run: %v", err)
	}
	for k, w := range want {
		if e := got[k].AllClose(w, 1e-5, 1e-6); e != nil {
			t.Errorf("%s: %v\n got  %v\n want %v", k, e, got[k], w)
		}
	}
}

func expectErr(t *testing.T, err error, want string) {
	t.Helper()
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("error %v, want one containing %q", err, want)
	}
}

func TestSources(t *testing.T) {
	t.Run("from_dense ignore", func(t *testing.T) {
		body := feed("x", "tensor<?x3xi64>") + `%v, %s = emb.from_dense %x {ignore = -1 : i64} : tensor<?x3xi64> -> tensor<?xi64> loc("d")` + "\n"
		x := mat[int64](3, 3, 4, -1, 5, -1, -1, -1, 7, 8, -1)
		got, err := run(t, body, map[string]*interp.Tensor{"x": x}, []string{"d:0", "d:1"}, nil)
		expect(t, got, err, map[string]*interp.Tensor{"d:0": i64s(4, 5, 7, 8), "d:1": i64s(0, 2, 2, 4)})
		// The TensorFlow chain: NotEqual + Where + GatherNd, rows from indices[:, 0].
		ne, _ := tfops.NotEqual(x, interp.Scalar(int64(-1)))
		idx, _ := tfops.Where(ne)
		vals, _ := tfops.GatherNd(x, idx)
		if e := got["d:0"].Equal(vals); e != nil {
			t.Errorf("values differ from NotEqual+Where+GatherNd: %v", e)
		}
	})
	t.Run("from_dense keeps all", func(t *testing.T) {
		body := feed("x", "tensor<?xf32>") + `%v, %s = emb.from_dense %x : tensor<?xf32> -> tensor<?xf32> loc("d")` + "\n"
		got, err := run(t, body, map[string]*interp.Tensor{"x": f32s(1.5, -1, 0)}, []string{"d:0", "d:1"}, nil)
		expect(t, got, err, map[string]*interp.Tensor{"d:0": f32s(1.5, -1, 0), "d:1": i64s(0, 1, 2, 3)})
	})
	t.Run("from_dense strings", func(t *testing.T) {
		body := feed("x", "tensor<?x2x!tfg.string>") + `%v, %s = emb.from_dense %x {ignore = ""} : tensor<?x2x!tfg.string> -> tensor<?x!tfg.string> loc("d")` + "\n"
		got, err := run(t, body, map[string]*interp.Tensor{"x": mat(2, 2, "a", "", "", "")}, []string{"d:0", "d:1"}, nil)
		expect(t, got, err, map[string]*interp.Tensor{"d:0": strs("a"), "d:1": i64s(0, 1, 1)})
	})
	t.Run("from_sparse regroups by row", func(t *testing.T) {
		body := feed("i", "tensor<?x2xi64>") + feed("v", "tensor<?xi64>") + feed("sh", "tensor<2xi64>") +
			`%a, %b = emb.from_sparse %i, %v, %sh : tensor<?x2xi64>, tensor<?xi64>, tensor<2xi64> -> tensor<?xi64> loc("sp")` + "\n"
		ind := mat[int64](4, 2, 2, 0, 0, 0, 2, 1, 0, 1)
		got, err := run(t, body, map[string]*interp.Tensor{"i": ind, "v": i64s(10, 11, 12, 13), "sh": i64s(4, 3)}, []string{"sp:0", "sp:1"}, nil)
		expect(t, got, err, map[string]*interp.Tensor{"sp:0": i64s(11, 13, 10, 12), "sp:1": i64s(0, 2, 2, 4, 4)})
		// SparseFillEmptyRows orders the same (its default entries aside).
		r, _ := tfops.SparseFillEmptyRows(ind, i64s(10, 11, 12, 13), i64s(4, 3), interp.Scalar(int64(-9)))
		if e := r.Values.Equal(i64s(11, 13, -9, 10, 12, -9)); e != nil {
			t.Errorf("SparseFillEmptyRows: %v", e)
		}
		_, err = run(t, body, map[string]*interp.Tensor{"i": ind, "v": i64s(10, 11, 12, 13), "sh": i64s(2, 3)}, []string{"sp:0"}, nil)
		expectErr(t, err, `'emb.from_sparse' op (node "sp") indices(0, 0) is invalid: 2 not in [0, 2)`)
	})
	t.Run("split_strings", func(t *testing.T) {
		body := feed("x", "tensor<?x!tfg.string>") + `%v, %s = emb.split_strings %x {sep = ";"} : tensor<?x!tfg.string> -> tensor<?x!tfg.string> loc("sp")` + "\n"
		x := strs("a;b;;c", "", ";", "dd")
		got, err := run(t, body, map[string]*interp.Tensor{"x": x}, []string{"sp:0", "sp:1"}, nil)
		expect(t, got, err, map[string]*interp.Tensor{"sp:0": strs("a", "b", "", "c", "", "", "", "dd"), "sp:1": i64s(0, 4, 5, 7, 8)})
		_, vals, _, _ := tfops.StringSplitV2(x, interp.Scalar(";"), -1)
		if e := got["sp:0"].Equal(vals); e != nil {
			t.Errorf("differs from StringSplitV2: %v", e)
		}
	})
	t.Run("split_strings whitespace", func(t *testing.T) {
		body := feed("x", "tensor<?x1x!tfg.string>") + `%v, %s = emb.split_strings %x {sep = ""} : tensor<?x1x!tfg.string> -> tensor<?x!tfg.string> loc("sp")` + "\n"
		got, err := run(t, body, map[string]*interp.Tensor{"x": mat(3, 1, " a  b ", "", "c")}, []string{"sp:0", "sp:1"}, nil)
		expect(t, got, err, map[string]*interp.Tensor{"sp:0": strs("a", "b", "c"), "sp:1": i64s(0, 2, 2, 3)})
	})
}

func TestTransforms(t *testing.T) {
	one := func(t *testing.T, in, inTy, op string, x *interp.Tensor) (*interp.Tensor, error) {
		t.Helper()
		got, err := run(t, feed("x", inTy)+op+` loc("out")`+"\n", map[string]*interp.Tensor{"x": x}, []string{"out"}, nil)
		return got["out"], err
	}
	tests := []struct {
		name, inTy, op string
		x, want        *interp.Tensor
		wantErr        string
	}{
		{"hash (TensorFlow's documented example)", "tensor<?x!tfg.string>", `%r = emb.hash %x {num_buckets = 3 : i64} : tensor<?x!tfg.string> -> tensor<?xi64>`,
			strs("Hello", "TensorFlow", "2.x"), i64s(0, 2, 2), ""},
		{"hash to i32", "tensor<?x!tfg.string>", `%r = emb.hash %x {num_buckets = 3 : i64} : tensor<?x!tfg.string> -> tensor<?xi32>`,
			strs("Hello", "TensorFlow", "2.x"), i32s(0, 2, 2), ""},
		{"as_string", "tensor<?xi64>", `%r = emb.as_string %x : tensor<?xi64> -> tensor<?x!tfg.string>`,
			i64s(-3, 0, 42), strs("-3", "0", "42"), ""},
		{"bucketize [0, n]", "tensor<?xf32>", `%r = emb.bucketize %x {boundaries = [0.0 : f32, 1.0 : f32, 2.0 : f32]} : tensor<?xf32> -> tensor<?xi64>`,
			f32s(-1, 0, 0.5, 1, 2, 3), i64s(0, 1, 1, 2, 3, 3), ""},
		{"bucketize ints", "tensor<?xi64>", `%r = emb.bucketize %x {boundaries = [10.0 : f32]} : tensor<?xi64> -> tensor<?xi32>`,
			i64s(9, 10, 11), i32s(0, 1, 1), ""},
		{"vocab default", "tensor<?x!tfg.string>", `%r = emb.vocab_lookup %x {keys = dense<["a", "b", "c"]> : tensor<3x!tfg.string>, default = -1 : i64} : tensor<?x!tfg.string> -> tensor<?xi64>`,
			strs("c", "z", "a"), i64s(2, -1, 0), ""},
		{"vocab oov strings", "tensor<?x!tfg.string>", `%r = emb.vocab_lookup %x {keys = dense<["x", "y"]> : tensor<2x!tfg.string>, num_oov_buckets = 3 : i64} : tensor<?x!tfg.string> -> tensor<?xi64>`,
			strs("Hello", "y", "TensorFlow", "2.x"), i64s(2+0, 1, 2+2, 2+2), ""},
		{"vocab oov ints hash their decimal form", "tensor<?xi64>", `%r = emb.vocab_lookup %x {keys = dense<[7, 9]> : tensor<2xi64>, num_oov_buckets = 1000 : i64} : tensor<?xi64> -> tensor<?xi64>`,
			i64s(9, 12345), nil, ""},
		{"check_range default", "tensor<?xi64>", `%r = emb.check_range %x {num_buckets = 5 : i64, default = 0 : i64} : tensor<?xi64> -> tensor<?xi64>`,
			i64s(-1, 0, 4, 5, 3), i64s(0, 0, 4, 0, 3), ""},
		{"check_range i32", "tensor<?xi32>", `%r = emb.check_range %x {num_buckets = 5 : i64, default = 2 : i64} : tensor<?xi32> -> tensor<?xi32>`,
			i32s(-1, 7, 1), i32s(2, 2, 1), ""},
		{"check_range without default", "tensor<?xi64>", `%r = emb.check_range %x {num_buckets = 5 : i64} : tensor<?xi64> -> tensor<?xi64>`,
			i64s(1, 5), nil, `'emb.check_range' op (node "out") id 5 at position 1 is not in [0, 5)`},
		{"cast wraps", "tensor<?xi64>", `%r = emb.cast %x : tensor<?xi64> -> tensor<?xi32>`,
			i64s(1, 1<<32+5, -1), i32s(1, 5, -1), ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := one(t, "x", tc.inTy, tc.op, tc.x)
			if tc.wantErr != "" {
				expectErr(t, err, tc.wantErr)
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			want := tc.want
			if want == nil { // vocab oov ints: AsString + StringToHashBucketFast + 2
				s, _ := tfops.AsString(i64s(12345))
				h, _ := tfops.StringToHashBucketFast(s, 1000)
				want = i64s(1, 2+h.Int64s()[0])
			}
			if e := got.Equal(want); e != nil {
				t.Errorf("%v\n got  %v\n want %v", e, got, want)
			}
		})
	}
}

func TestAddOffset(t *testing.T) {
	// The bucketized column's bucket + (n+1)·i on a [B, 2] input: i is the
	// column, which is the position in the bag.
	body := feed("x", "tensor<?x2xf32>") +
		`%v, %s = emb.from_dense %x : tensor<?x2xf32> -> tensor<?xf32>` + "\n" +
		`%b = emb.bucketize %v {boundaries = [0.0 : f32, 1.0 : f32]} : tensor<?xf32> -> tensor<?xi32>` + "\n" +
		`%o = emb.add_offset %b, %s {stride = 3 : i64} : tensor<?xi32> loc("out")` + "\n"
	got, err := run(t, body, map[string]*interp.Tensor{"x": mat[float32](2, 2, -1, 5, 0.5, 0.5)}, []string{"out"}, nil)
	expect(t, got, err, map[string]*interp.Tensor{"out": i32s(0, 2+3, 1, 1+3)})

	body = feed("v", "tensor<?xi64>") + feed("s", "tensor<?xi64>") + `%o = emb.add_offset %v, %s {stride = 10 : i64} : tensor<?xi64> loc("out")` + "\n"
	got, err = run(t, body, map[string]*interp.Tensor{"v": i64s(1, 2, 3, 4), "s": i64s(0, 3, 3, 4)}, []string{"out"}, nil)
	expect(t, got, err, map[string]*interp.Tensor{"out": i64s(1, 12, 23, 4)})
	_, err = run(t, body, map[string]*interp.Tensor{"v": i64s(1, 2), "s": i64s(0, 3)}, []string{"out"}, nil)
	expectErr(t, err, "row splits end at 3, but there are 2 values")
	_, err = run(t, body, map[string]*interp.Tensor{"v": i64s(1, 2), "s": i64s(0, 2, 1, 2)}, []string{"out"}, nil)
	expectErr(t, err, "row splits must be non-decreasing")
}

func TestFilter(t *testing.T) {
	body := feed("v", "tensor<?xi64>") + feed("s", "tensor<?xi64>") + feed("w", "tensor<?xf32>") +
		`%a, %b = emb.filter %v, %s {min = 0 : i64} : tensor<?xi64> loc("f")` + "\n" +
		`%c, %d, %e = emb.filter %v, %s, %w {min = 0 : i64, max = 5 : i64, positive_weights} : tensor<?xi64>, tensor<?xf32> loc("g")` + "\n"
	feeds := map[string]*interp.Tensor{"v": i64s(-1, 3, 9, -5, 2, 4), "s": i64s(0, 3, 3, 4, 6), "w": f32s(1, 2, 3, 4, 0, float32(math.NaN()))}
	got, err := run(t, body, feeds, []string{"f:0", "f:1", "g:0", "g:1", "g:2"}, nil)
	expect(t, got, err, map[string]*interp.Tensor{
		"f:0": i64s(3, 9, 2, 4), "f:1": i64s(0, 2, 2, 2, 4),
		"g:0": i64s(3), "g:1": i64s(0, 1, 1, 1, 1), "g:2": f32s(2),
	})
}

func TestTables(t *testing.T) {
	body := `%t = emb.table {name = "layer/w"} : tensor<3x2xf32> loc("t")` + "\n"
	w := mat[float32](3, 2, 1, 2, 3, 4, 5, 6)
	got, err := run(t, body, nil, []string{"t"}, &exec.Options{Variables: map[string]*interp.Tensor{"layer/w": w}})
	expect(t, got, err, map[string]*interp.Tensor{"t": w})

	got, err = run(t, body, nil, []string{"t"}, &exec.Options{RandomTables: true, Seed: 5})
	want, _ := exec.RandomTensor(interp.Float32, []int64{3, 2}, 5, "layer/w")
	if err != nil || got["t"].Equal(want) != nil {
		t.Errorf("random table %v (%v), want exec.RandomTensor's %v", got["t"], err, want)
	}

	_, err = run(t, body, nil, []string{"t"}, nil)
	expectErr(t, err, `no value for variable "layer/w"`)
	_, err = run(t, body, nil, []string{"t"}, &exec.Options{Variables: map[string]*interp.Tensor{"layer/w": mat[float32](2, 3, 1, 2, 3, 4, 5, 6)}})
	expectErr(t, err, `variable "layer/w" is given with shape [2,3], but the table type is tensor<3x2xf32>`)

	body = `%t = emb.table {name = "c", value = dense<[[1.0, 2.0], [3.0, 4.0]]> : tensor<2x2xf32>} : tensor<2x2xf32> loc("t")` + "\n"
	got, err = run(t, body, nil, []string{"t"}, nil)
	expect(t, got, err, map[string]*interp.Tensor{"t": mat[float32](2, 2, 1, 2, 3, 4)})
}

// A large random table read only by lookups is made row by row, with the
// values of the whole table.
func TestLazyTable(t *testing.T) {
	old := emb.LazyTableElements
	emb.LazyTableElements = 10
	defer func() { emb.LazyTableElements = old }()
	body := feed("v", "tensor<?xi64>") + feed("s", "tensor<?xi64>") +
		`%t = emb.table {name = "big"} : tensor<50x4xf32> loc("t")` + "\n" +
		`%r = emb.lookup %t, %v, %s {combiner = "sum"} : tensor<50x4xf32>, tensor<?xi64> -> tensor<?x4xf32> loc("out")` + "\n" +
		`%g = emb.gather %t, %v : tensor<50x4xf32>, tensor<?xi64> -> tensor<?x4xf32> loc("g")` + "\n"
	feeds := map[string]*interp.Tensor{"v": i64s(49, 0, 7), "s": i64s(0, 1, 3)}
	opts := &exec.Options{RandomTables: true, Seed: 3}
	got, err := run(t, body, feeds, []string{"out", "g"}, opts)
	if err != nil {
		t.Fatal(err)
	}
	full, _ := exec.RandomTensor(interp.Float32, []int64{50, 4}, 3, "big")
	f := full.Float32s()
	want := make([]float32, 8)
	for c := range 4 {
		want[c] = f[49*4+c]
		want[4+c] = float32(float64(f[c]) + float64(f[7*4+c]))
	}
	expect(t, got, nil, map[string]*interp.Tensor{"out": mat(2, 4, want...)})
	rows, _ := tfops.GatherV2(full, i64s(49, 0, 7), interp.Scalar(int32(0)), 0)
	expect(t, got, nil, map[string]*interp.Tensor{"g": rows})
}

// refLookup computes what TensorFlow's safe_embedding_lookup_sparse graph
// computes for a 2-D id SparseTensor, with tfops: SparseFillEmptyRows,
// Unique, GatherV2, SparseSegment{Sum,Mean,SqrtN} (or, with weights, Mul,
// SegmentSum and RealDiv), and the Select that zeroes empty rows.
func refLookup(t *testing.T, table *interp.Tensor, ids, splits []int64, w []float32, comb string) *interp.Tensor {
	t.Helper()
	must := func(x *interp.Tensor, err error) *interp.Tensor {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		return x
	}
	b := int64(len(splits) - 1)
	d := table.Dim(1)
	var ind []int64
	maxLen := int64(1)
	for r := int64(0); r < b; r++ {
		for j := splits[r]; j < splits[r+1]; j++ {
			ind = append(ind, r, j-splits[r])
		}
		maxLen = max(maxLen, splits[r+1]-splits[r])
	}
	n := int64(len(ids))
	indices := must(interp.New([]int64{n, 2}, append([]int64{}, ind...)))
	shape := i64s(b, maxLen)
	f := must1(tfops.SparseFillEmptyRows(indices, i64s(ids...), shape, interp.Scalar(int64(0))))
	fi := f.Indices.Int64s()
	seg := make([]int32, len(fi)/2)
	for i := range seg {
		seg[i] = int32(fi[2*i])
	}
	segIDs := i32s(seg...)
	uniq, idx, err := tfops.Unique(f.Values, interp.Int32)
	if err != nil {
		t.Fatal(err)
	}
	rows := must(tfops.GatherV2(table, uniq, interp.Scalar(int32(0)), 0))
	var res *interp.Tensor
	if w == nil {
		switch comb {
		case emb.CombinerSum:
			res = must(tfops.SparseSegmentSum(rows, idx, segIDs))
		case emb.CombinerMean:
			res = must(tfops.SparseSegmentMean(rows, idx, segIDs))
		default:
			res = must(tfops.SparseSegmentSqrtN(rows, idx, segIDs))
		}
	} else {
		fw := must1(tfops.SparseFillEmptyRows(indices, f32s(w...), shape, interp.Scalar(float32(1))))
		embs := must(tfops.GatherV2(rows, idx, interp.Scalar(int32(0)), 0))
		wcol := must(tfops.Reshape(fw.Values, i64s(-1, 1)))
		embs = must(tfops.Mul(embs, wcol))
		res = must(tfops.SegmentSum(embs, segIDs))
		switch comb {
		case emb.CombinerMean:
			ws := must(tfops.SegmentSum(fw.Values, segIDs))
			res = must(tfops.RealDiv(res, must(tfops.Reshape(ws, i64s(-1, 1)))))
		case emb.CombinerSqrtN:
			ws := must(tfops.SegmentSum(must(tfops.Mul(fw.Values, fw.Values)), segIDs))
			res = must(tfops.RealDiv(res, must(tfops.Reshape(must(tfops.Sqrt(ws)), i64s(-1, 1)))))
		}
	}
	empty := must(tfops.Tile(must(tfops.Reshape(f.EmptyRowIndices, i64s(-1, 1))), i64s(1, d)))
	return must(tfops.Select(empty, must(tfops.ZerosLike(res)), res))
}

func must1[T any](x T, err error) T {
	if err != nil {
		panic(err)
	}
	return x
}

// randomBags returns B bags of 0 to maxLen ids in [0, rows), positive
// weights, and a random table.
func randomBags(rng *rand.Rand, b, maxLen int, rows, d int64) (ids, splits []int64, w []float32, table *interp.Tensor) {
	splits = []int64{0}
	for range b {
		k := rng.IntN(maxLen + 1)
		for range k {
			ids = append(ids, rng.Int64N(rows))
			w = append(w, 0.1+rng.Float32()*2)
		}
		splits = append(splits, int64(len(ids)))
	}
	tv := make([]float32, rows*d)
	for i := range tv {
		tv[i] = rng.Float32()*2 - 1
	}
	return ids, splits, w, mat(rows, d, tv...)
}

func lookupBody(op string, weighted bool, comb string) string {
	body := feed("v", "tensor<?xi64>") + feed("s", "tensor<?xi64>") + feed("w", "tensor<?xf32>") +
		`%t = emb.table {name = "t"} : tensor<13x5xf32>` + "\n"
	if weighted {
		return body + `%r = emb.` + op + ` %t, %v, %s, %w {combiner = "` + comb + `"} : tensor<13x5xf32>, tensor<?xi64>, tensor<?xf32> -> tensor<?x5xf32> loc("out")` + "\n"
	}
	return body + `%r = emb.` + op + ` %t, %v, %s {combiner = "` + comb + `"} : tensor<13x5xf32>, tensor<?xi64> -> tensor<?x5xf32> loc("out")` + "\n"
}

// emb.lookup computes what the TensorFlow chain computes, for every
// combiner, weighted or not, with empty bags.
func TestLookupMatchesTensorFlowChain(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, comb := range []string{emb.CombinerSum, emb.CombinerMean, emb.CombinerSqrtN} {
		for _, weighted := range []bool{false, true} {
			name := comb
			if weighted {
				name += "/weighted"
			}
			t.Run(name, func(t *testing.T) {
				for trial := range 5 {
					ids, splits, w, table := randomBags(rng, 9, 4, 13, 5)
					if trial == 0 { // every bag empty
						ids, w, splits = nil, nil, make([]int64, 10)
					}
					var ws []float32
					if weighted {
						ws = w
					}
					want := refLookup(t, table, ids, splits, ws, comb)
					feeds := map[string]*interp.Tensor{"v": i64s(ids...), "s": i64s(splits...), "w": f32s(w...)}
					got, err := run(t, lookupBody("lookup", weighted, comb), feeds, []string{"out"},
						&exec.Options{Variables: map[string]*interp.Tensor{"t": table}})
					expect(t, got, err, map[string]*interp.Tensor{"out": want})
				}
			})
		}
	}
}

func TestLookupSmall(t *testing.T) {
	table := mat[float32](3, 2, 1, 2, 10, 20, 100, 200)
	opts := &exec.Options{Variables: map[string]*interp.Tensor{"t": table}}
	body := func(op, comb string, weighted bool) string {
		s := feed("v", "tensor<?xi64>") + feed("s", "tensor<?xi64>") + feed("w", "tensor<?xf32>") +
			`%t = emb.table {name = "t"} : tensor<3x2xf32>` + "\n"
		if weighted {
			return s + `%r = emb.` + op + ` %t, %v, %s, %w {combiner = "` + comb + `"} : tensor<3x2xf32>, tensor<?xi64>, tensor<?xf32> -> tensor<?x2xf32> loc("out")` + "\n"
		}
		return s + `%r = emb.` + op + ` %t, %v, %s {combiner = "` + comb + `"} : tensor<3x2xf32>, tensor<?xi64> -> tensor<?x2xf32> loc("out")` + "\n"
	}
	tests := []struct {
		name, op, comb string
		weighted       bool
		v, s           *interp.Tensor
		w              *interp.Tensor
		want           *interp.Tensor
		wantErr        string
	}{
		{"sum", "lookup", "sum", false, i64s(0, 1, 2), i64s(0, 2, 2, 3), nil, mat[float32](3, 2, 11, 22, 0, 0, 100, 200), ""},
		{"mean", "lookup", "mean", false, i64s(0, 1, 2), i64s(0, 2, 2, 3), nil, mat[float32](3, 2, 5.5, 11, 0, 0, 100, 200), ""},
		{"sqrtn", "lookup", "sqrtn", false, i64s(0, 1), i64s(0, 2), nil, mat(1, 2, float32(11/math.Sqrt2), float32(22/math.Sqrt2)), ""},
		{"weighted sum", "lookup", "sum", true, i64s(0, 1), i64s(0, 2), f32s(2, 0.5), mat[float32](1, 2, 7, 14), ""},
		{"weighted mean", "lookup", "mean", true, i64s(0, 1), i64s(0, 2), f32s(2, 0.5), mat[float32](1, 2, 7/2.5, 14/2.5), ""},
		{"weighted sqrtn", "lookup", "sqrtn", true, i64s(0, 1), i64s(0, 2), f32s(3, 4), mat[float32](1, 2, 43.0/5, 86.0/5), ""},
		{"id out of range", "lookup", "sum", false, i64s(0, 3), i64s(0, 2), nil, nil, `'emb.lookup' op (node "out") id 3 (value 1) is not in [0, 3)`},
		{"negative id", "lookup", "mean", false, i64s(-1), i64s(0, 1), nil, nil, `id -1 (value 0) is not in [0, 3)`},
		{"bad splits", "lookup", "sum", false, i64s(0), i64s(1, 1), nil, nil, "row splits must start at 0, got 1"},
		{"gather_scatter sum", "gather_scatter", "sum", true, i64s(2, 1), i64s(0, 1, 1, 2), f32s(-2, 3), mat[float32](3, 2, -200, -400, 0, 0, 30, 60), ""},
		{"gather_scatter mean", "gather_scatter", "mean", true, i64s(2, 1), i64s(0, 1, 1, 2), f32s(-2, 3), mat[float32](3, 2, 100, 200, 0, 0, 10, 20), ""},
		{"gather_scatter sqrtn", "gather_scatter", "sqrtn", true, i64s(2), i64s(0, 1), f32s(-2), mat[float32](1, 2, -100, -200), ""},
		{"gather_scatter two ids", "gather_scatter", "sum", false, i64s(2, 1), i64s(0, 2), nil, nil, "bag 0 holds 2 ids, but emb.gather_scatter takes at most one"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			feeds := map[string]*interp.Tensor{"v": tc.v, "s": tc.s, "w": tc.w}
			if tc.w == nil {
				feeds["w"] = f32s()
			}
			got, err := run(t, body(tc.op, tc.comb, tc.weighted), feeds, []string{"out"}, opts)
			if tc.wantErr != "" {
				expectErr(t, err, tc.wantErr)
				return
			}
			expect(t, got, err, map[string]*interp.Tensor{"out": tc.want})
		})
	}
}

// emb.gather_scatter equals emb.lookup on bags of at most one id, bit for
// bit, and emb.gather equals both on bags of exactly one id.
func TestRewritesAreExact(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for _, comb := range []string{emb.CombinerSum, emb.CombinerMean, emb.CombinerSqrtN} {
		for _, weighted := range []bool{false, true} {
			ids, splits, w, table := randomBags(rng, 40, 1, 13, 5)
			feeds := map[string]*interp.Tensor{"v": i64s(ids...), "s": i64s(splits...), "w": f32s(w...)}
			opts := &exec.Options{Variables: map[string]*interp.Tensor{"t": table}}
			a, err1 := run(t, lookupBody("lookup", weighted, comb), feeds, []string{"out"}, opts)
			b, err2 := run(t, lookupBody("gather_scatter", weighted, comb), feeds, []string{"out"}, opts)
			if err1 != nil || err2 != nil {
				t.Fatal(err1, err2)
			}
			if e := b["out"].Equal(a["out"]); e != nil {
				t.Errorf("%s weighted=%v: gather_scatter differs from lookup: %v", comb, weighted, e)
			}
		}
	}
	ids, _, _, table := randomBags(rng, 1, 0, 13, 5)
	for range 30 {
		ids = append(ids, rng.Int64N(13))
	}
	splits := make([]int64, len(ids)+1)
	for i := range splits {
		splits[i] = int64(i)
	}
	opts := &exec.Options{Variables: map[string]*interp.Tensor{"t": table}}
	g, err := run(t, feed("v", "tensor<?xi64>")+`%t = emb.table {name = "t"} : tensor<13x5xf32>`+"\n"+
		`%r = emb.gather %t, %v : tensor<13x5xf32>, tensor<?xi64> -> tensor<?x5xf32> loc("out")`+"\n",
		map[string]*interp.Tensor{"v": i64s(ids...)}, []string{"out"}, opts)
	if err != nil {
		t.Fatal(err)
	}
	for _, comb := range []string{emb.CombinerSum, emb.CombinerMean, emb.CombinerSqrtN} {
		l, err := run(t, lookupBody("lookup", false, comb), map[string]*interp.Tensor{"v": i64s(ids...), "s": i64s(splits...), "w": f32s()}, []string{"out"}, opts)
		if err != nil {
			t.Fatal(err)
		}
		if e := g["out"].Equal(l["out"]); e != nil {
			t.Errorf("%s: gather differs from lookup: %v", comb, e)
		}
	}
}

func TestGatherAndConcat(t *testing.T) {
	table := mat[float32](3, 2, 1, 2, 10, 20, 100, 200)
	opts := &exec.Options{Variables: map[string]*interp.Tensor{"t": table}}
	body := feed("v", "tensor<?xi32>") + feed("a", "tensor<?x1xf32>") +
		`%t = emb.table {name = "t"} : tensor<3x2xf32>` + "\n" +
		`%g = emb.gather %t, %v : tensor<3x2xf32>, tensor<?xi32> -> tensor<?x2xf32> loc("g")` + "\n" +
		`%c = emb.concat %g, %a : (tensor<?x2xf32>, tensor<?x1xf32>) -> tensor<?x3xf32> loc("c")` + "\n"
	got, err := run(t, body, map[string]*interp.Tensor{"v": i32s(2, 0), "a": mat[float32](2, 1, 7, 8)}, []string{"g", "c"}, opts)
	expect(t, got, err, map[string]*interp.Tensor{"g": mat[float32](2, 2, 100, 200, 1, 2), "c": mat[float32](2, 3, 100, 200, 7, 1, 2, 8)})
	_, err = run(t, body, map[string]*interp.Tensor{"v": i32s(3), "a": mat[float32](1, 1, 7)}, []string{"g"}, opts)
	expectErr(t, err, `'emb.gather' op (node "g") id 3 (value 0) is not in [0, 3)`)
}

// A whole column: a hashed, split string feature with a weighted sqrtn
// combiner next to a bucketized one, concatenated.
func TestColumnEndToEnd(t *testing.T) {
	body := feed("s", "tensor<?x!tfg.string>") + feed("x", "tensor<?x1xf32>") +
		`%v, %sp = emb.split_strings %s {sep = ";"} : tensor<?x!tfg.string> -> tensor<?x!tfg.string>` + "\n" +
		`%h = emb.hash %v {num_buckets = 4 : i64} : tensor<?x!tfg.string> -> tensor<?xi64>` + "\n" +
		`%fv, %fs = emb.filter %h, %sp {min = 0 : i64} : tensor<?xi64>` + "\n" +
		`%t1 = emb.table {name = "a", value = dense<[[1.0], [2.0], [3.0], [4.0]]> : tensor<4x1xf32>} : tensor<4x1xf32>` + "\n" +
		`%r1 = emb.lookup %t1, %fv, %fs {combiner = "sum"} : tensor<4x1xf32>, tensor<?xi64> -> tensor<?x1xf32>` + "\n" +
		`%dv, %ds = emb.from_dense %x : tensor<?x1xf32> -> tensor<?xf32>` + "\n" +
		`%b = emb.bucketize %dv {boundaries = [0.0 : f32]} : tensor<?xf32> -> tensor<?xi64>` + "\n" +
		`%t2 = emb.table {name = "b", value = dense<[[10.0, 11.0], [20.0, 21.0]]> : tensor<2x2xf32>} : tensor<2x2xf32>` + "\n" +
		`%r2 = emb.lookup %t2, %b, %ds {combiner = "mean"} : tensor<2x2xf32>, tensor<?xi64> -> tensor<?x2xf32>` + "\n" +
		`%c = emb.concat %r1, %r2 : (tensor<?x1xf32>, tensor<?x2xf32>) -> tensor<?x3xf32> loc("out")` + "\n"
	s := strs("Hello;TensorFlow", "2.x")
	x := mat[float32](2, 1, -1, 1)
	got, err := run(t, body, map[string]*interp.Tensor{"s": s, "x": x}, []string{"out"}, nil)
	// Hashes mod 4 of "Hello", "TensorFlow", "2.x".
	hs, _ := tfops.StringToHashBucketFast(strs("Hello", "TensorFlow", "2.x"), 4)
	h := hs.Int64s()
	want := mat(2, 3, float32(h[0]+1+h[1]+1), 10, 11, float32(h[2]+1), 20, 21)
	expect(t, got, err, map[string]*interp.Tensor{"out": want})
}

// BenchmarkLookup runs one split-string column's lookup (batch 2048, 0 to
// 10 ids per bag, a 10,000 x 8 table, sum) in the interpreter.
func BenchmarkLookup(b *testing.B) {
	rng := rand.New(rand.NewPCG(5, 6))
	ids, splits, _, table := randomBags(rng, 2048, 10, 10000, 8)
	ctx := newCtx()
	ctx.AllowUnregistered = true
	src := "func.func @f() {\n" + feed("v", "tensor<?xi64>") + feed("s", "tensor<?xi64>") +
		`%t = emb.table {name = "t"} : tensor<10000x8xf32>` + "\n" +
		`%r = emb.lookup %t, %v, %s {combiner = "sum"} : tensor<10000x8xf32>, tensor<?xi64> -> tensor<?x8xf32> loc("out")` + "\n" +
		"func.return\n}\n"
	m, err := textir.Parse(ctx, "bench.mlir", []byte(src))
	if err != nil {
		b.Fatal(err)
	}
	p, err := exec.Compile(m)
	if err != nil {
		b.Fatal(err)
	}
	feeds := map[string]*interp.Tensor{"v": i64s(ids...), "s": i64s(splits...)}
	opts := &exec.Options{Variables: map[string]*interp.Tensor{"t": table}}
	b.ReportMetric(float64(len(ids)), "ids/op")
	b.ResetTimer()
	for b.Loop() {
		if _, err := p.Run(context.Background(), feeds, []string{"out"}, opts); err != nil {
			b.Fatal(err)
		}
	}
}
