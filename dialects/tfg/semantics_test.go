package tfg_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/recom-compiler/recom/frontend/graphdef"
	"github.com/recom-compiler/recom/frontend/importer"
	"github.com/recom-compiler/recom/interp"
	"github.com/recom-compiler/recom/interp/exec"
	"github.com/recom-compiler/recom/textir"
)

// A tiny DSL for GraphDefs in text form.

func nd(name, op string, inputs []string, attrs ...string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "node { name: %q op: %q ", name, op)
	for _, in := range inputs {
		fmt.Fprintf(&b, "input: %q ", in)
	}
	for _, a := range attrs {
		b.WriteString(a + " ")
	}
	b.WriteString("}\n")
	return b.String()
}

func attr(k, v string) string     { return fmt.Sprintf("attr { key: %q value { %s } }", k, v) }
func ty(k, dt string) string      { return attr(k, "type: "+dt) }
func ai(k string, v int64) string { return attr(k, fmt.Sprintf("i: %d", v)) }
func ab(k string, v bool) string  { return attr(k, fmt.Sprintf("b: %v", v)) }
func ph(name, dt string) string   { return nd(name, "Placeholder", nil, ty("dtype", dt)) }
func ins(s ...string) []string    { return s }
func tT(dt string) string         { return ty("T", dt) }
func shapeText(dims ...int64) string {
	var b strings.Builder
	b.WriteString("tensor_shape { ")
	for _, d := range dims {
		fmt.Fprintf(&b, "dim { size: %d } ", d)
	}
	b.WriteString("}")
	return b.String()
}

// cst is a Const node: vals is the *_val field text, e.g. "int_val: 1 int_val: 2".
func cst(name, dt string, dims []int64, vals string) string {
	return nd(name, "Const", nil, ty("dtype", dt),
		attr("value", fmt.Sprintf("tensor { dtype: %s %s %s }", dt, shapeText(dims...), vals)))
}

func vals(field string, vs ...any) string {
	var b strings.Builder
	for _, v := range vs {
		if s, ok := v.(string); ok {
			fmt.Fprintf(&b, "%s: %q ", field, s)
		} else {
			fmt.Fprintf(&b, "%s: %v ", field, v)
		}
	}
	return b.String()
}

func importText(t *testing.T, text string) *textir.Operation {
	t.Helper()
	f, err := graphdef.Parse([]byte(text), "test.pbtxt")
	if err != nil {
		t.Fatalf("parse: %v\n%s", err, text)
	}
	m, err := importer.Import(newCtx(), f.Graph)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func f32(shape []int64, v ...float32) *interp.Tensor { return interp.Must(interp.New(shape, v)) }
func i64(shape []int64, v ...int64) *interp.Tensor   { return interp.Must(interp.New(shape, v)) }
func i32(shape []int64, v ...int32) *interp.Tensor   { return interp.Must(interp.New(shape, v)) }
func strs(shape []int64, v ...string) *interp.Tensor { return interp.Must(interp.New(shape, v)) }
func bools(shape []int64, v ...bool) *interp.Tensor  { return interp.Must(interp.New(shape, v)) }
func sh(d ...int64) []int64                          { return d }

type kernelCase struct {
	name    string
	graph   string
	feeds   map[string]*interp.Tensor
	opts    *exec.Options
	want    map[string]*interp.Tensor // by output name
	wantErr string                    // substring of the error
}

func runCases(t *testing.T, cases []kernelCase) {
	t.Helper()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			m := importText(t, c.graph)
			var outs []string
			for k := range c.want {
				outs = append(outs, k)
			}
			if len(outs) == 0 {
				outs = []string{"out"}
			}
			got, err := exec.Run(context.Background(), m, c.feeds, outs, c.opts)
			if c.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), c.wantErr) {
					t.Fatalf("got error %v, want one containing %q", err, c.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			for k, w := range c.want {
				if err := got[k].AllClose(w, 1e-6, 1e-6); err != nil {
					t.Errorf("%s: %v\n got %v\nwant %v", k, err, got[k], w)
				}
			}
		})
	}
}

func TestMathKernels(t *testing.T) {
	x := ph("x", "DT_FLOAT") + ph("y", "DT_FLOAT") // every case is fed both
	y := ""
	fx := map[string]*interp.Tensor{"x": f32(sh(2, 2), 1, -2, 3, -4), "y": f32(sh(2), 10, 20)}
	runCases(t, []kernelCase{
		{name: "AddV2 broadcast", graph: x + y + nd("out", "AddV2", ins("x", "y"), tT("DT_FLOAT")), feeds: fx,
			want: map[string]*interp.Tensor{"out": f32(sh(2, 2), 11, 18, 13, 16)}},
		{name: "Mul Sub chain with control edge", graph: x + y + nd("m", "Mul", ins("x", "y"), tT("DT_FLOAT")) +
			nd("n", "NoOp", nil) + nd("out", "Sub", ins("m", "x", "^n"), tT("DT_FLOAT")), feeds: fx,
			want: map[string]*interp.Tensor{"out": f32(sh(2, 2), 9, -38, 27, -76)}},
		{name: "Relu Sigmoid", graph: x + nd("r", "Relu", ins("x"), tT("DT_FLOAT")) + nd("out", "Sigmoid", ins("r"), tT("DT_FLOAT")), feeds: fx,
			want: map[string]*interp.Tensor{"out": f32(sh(2, 2), 0.7310586, 0.5, 0.95257413, 0.5)}},
		{name: "Sum keep_dims", graph: x + cst("a", "DT_INT32", sh(1), vals("int_val", 1)) +
			nd("out", "Sum", ins("x", "a"), tT("DT_FLOAT"), ty("Tidx", "DT_INT32"), ab("keep_dims", true)), feeds: fx,
			want: map[string]*interp.Tensor{"out": f32(sh(2, 1), -1, -1)}},
		{name: "Cast", graph: x + nd("out", "Cast", ins("x"), ty("SrcT", "DT_FLOAT"), ty("DstT", "DT_INT64")), feeds: fx,
			want: map[string]*interp.Tensor{"out": i64(sh(2, 2), 1, -2, 3, -4)}},
		{name: "MatMul transpose_b BiasAdd", graph: x + cst("w", "DT_FLOAT", sh(1, 2), vals("float_val", 1, 1)) +
			cst("b", "DT_FLOAT", sh(1), vals("float_val", 0.5)) +
			nd("mm", "MatMul", ins("x", "w"), tT("DT_FLOAT"), ab("transpose_b", true)) +
			nd("out", "BiasAdd", ins("mm", "b"), tT("DT_FLOAT")), feeds: fx,
			want: map[string]*interp.Tensor{"out": f32(sh(2, 1), -0.5, -0.5)}},
		{name: "Bucketize", graph: x + nd("out", "Bucketize", ins("x"), tT("DT_FLOAT"), attr("boundaries", "list { f: -3 f: 0 f: 2 }")), feeds: fx,
			want: map[string]*interp.Tensor{"out": i32(sh(2, 2), 2, 1, 3, 0)}},
		{name: "AddN", graph: x + nd("out", "AddN", ins("x", "x", "x"), tT("DT_FLOAT"), ai("N", 3)), feeds: fx,
			want: map[string]*interp.Tensor{"out": f32(sh(2, 2), 3, -6, 9, -12)}},
		{name: "StringToHashBucketFast", graph: ph("s", "DT_STRING") + nd("out", "StringToHashBucketFast", ins("s"), ai("num_buckets", 1000)),
			feeds: map[string]*interp.Tensor{"s": strs(sh(2), "", "a")},
			// Fingerprint64 mod 1000, as interp/tfops computes it.
			want: map[string]*interp.Tensor{"out": i64(sh(2), 263, 939)}},
	})
}

func TestArrayKernels(t *testing.T) {
	x := ph("x", "DT_INT64")
	fx := map[string]*interp.Tensor{"x": i64(sh(2, 3), 1, 2, 3, 4, 5, 6)}
	c := func(name string, v ...any) string {
		return cst(name, "DT_INT32", sh(int64(len(v))), vals("int_val", v...))
	}
	runCases(t, []kernelCase{
		{name: "StridedSlice shrink", graph: x + c("b", 0, 1) + c("e", 0, 2) + c("s", 1, 1) +
			nd("out", "StridedSlice", ins("x", "b", "e", "s"), tT("DT_INT64"), ty("Index", "DT_INT32"),
				ai("begin_mask", 1), ai("end_mask", 1), ai("shrink_axis_mask", 2)), feeds: fx,
			want: map[string]*interp.Tensor{"out": i64(sh(2), 2, 5)}},
		{name: "ConcatV2 Pack Unpack", graph: x + cst("ax", "DT_INT32", nil, vals("int_val", 0)) +
			nd("cc", "ConcatV2", ins("x", "x", "ax"), tT("DT_INT64"), ai("N", 2), ty("Tidx", "DT_INT32")) +
			nd("u", "Unpack", ins("x"), tT("DT_INT64"), ai("num", 2), ai("axis", 0)) +
			nd("out", "Pack", ins("u:1", "u:0"), tT("DT_INT64"), ai("N", 2), ai("axis", 1)), feeds: fx,
			want: map[string]*interp.Tensor{"out": i64(sh(3, 2), 4, 1, 5, 2, 6, 3), "cc": i64(sh(4, 3), 1, 2, 3, 4, 5, 6, 1, 2, 3, 4, 5, 6)}},
		{name: "GatherV2 axis 1", graph: x + c("i", 2, 0) + cst("ax", "DT_INT32", nil, vals("int_val", 1)) +
			nd("out", "GatherV2", ins("x", "i", "ax"), ty("Tparams", "DT_INT64"), ty("Tindices", "DT_INT32"), ty("Taxis", "DT_INT32")), feeds: fx,
			want: map[string]*interp.Tensor{"out": i64(sh(2, 2), 3, 1, 6, 4)}},
		{name: "Shape Reshape Where", graph: x + nd("shape", "Shape", ins("x"), tT("DT_INT64"), ty("out_type", "DT_INT64")) +
			cst("m1", "DT_INT64", sh(1), vals("int64_val", -1)) +
			nd("flat", "Reshape", ins("x", "m1"), tT("DT_INT64"), ty("Tshape", "DT_INT64")) +
			cst("three", "DT_INT64", nil, vals("int64_val", 3)) +
			nd("gt", "Greater", ins("flat", "three"), tT("DT_INT64")) +
			nd("out", "Where", ins("gt"), tT("DT_BOOL")), feeds: fx,
			want: map[string]*interp.Tensor{"out": i64(sh(3, 1), 3, 4, 5), "shape": i64(sh(2), 2, 3)}},
		{name: "Unique", graph: ph("v", "DT_STRING") + nd("out", "Unique", ins("v"), tT("DT_STRING"), ty("out_idx", "DT_INT64")),
			feeds: map[string]*interp.Tensor{"v": strs(sh(4), "b", "a", "b", "c")},
			want:  map[string]*interp.Tensor{"out": strs(sh(3), "b", "a", "c"), "out:1": i64(sh(4), 0, 1, 0, 2)}},
		{name: "OneHot", graph: ph("i", "DT_INT64") + cst("d", "DT_INT32", nil, vals("int_val", 3)) +
			cst("on", "DT_FLOAT", nil, vals("float_val", 1)) + cst("off", "DT_FLOAT", nil, vals("float_val", 0)) +
			nd("out", "OneHot", ins("i", "d", "on", "off"), tT("DT_FLOAT"), ty("TI", "DT_INT64"), ai("axis", -1)),
			feeds: map[string]*interp.Tensor{"i": i64(sh(3), 2, -1, 0)},
			want:  map[string]*interp.Tensor{"out": f32(sh(3, 3), 0, 0, 1, 0, 0, 0, 1, 0, 0)}},
		{name: "OneHot axis 0", graph: ph("i", "DT_INT64") + cst("d", "DT_INT32", nil, vals("int_val", 2)) +
			cst("on", "DT_INT32", nil, vals("int_val", 5)) + cst("off", "DT_INT32", nil, vals("int_val", -1)) +
			nd("out", "OneHot", ins("i", "d", "on", "off"), tT("DT_INT32"), ty("TI", "DT_INT64"), ai("axis", 0)),
			feeds: map[string]*interp.Tensor{"i": i64(sh(3), 1, 0, 7)},
			want:  map[string]*interp.Tensor{"out": i32(sh(2, 3), -1, 5, -1, 5, -1, -1)}},
		{name: "SparseToDense", graph: ph("i", "DT_INT64") + cst("s", "DT_INT64", sh(2), vals("int64_val", 2, 3)) +
			ph("v", "DT_FLOAT") + cst("d", "DT_FLOAT", nil, vals("float_val", -1)) +
			nd("out", "SparseToDense", ins("i", "s", "v", "d"), tT("DT_FLOAT"), ty("Tindices", "DT_INT64"), ab("validate_indices", true)),
			feeds: map[string]*interp.Tensor{"i": i64(sh(2, 2), 0, 1, 1, 2), "v": f32(sh(2), 7, 8)},
			want:  map[string]*interp.Tensor{"out": f32(sh(2, 3), -1, 7, -1, -1, -1, 8)}},
		{name: "SparseToDense out of order", graph: ph("i", "DT_INT64") + cst("s", "DT_INT64", sh(2), vals("int64_val", 2, 3)) +
			ph("v", "DT_FLOAT") + cst("d", "DT_FLOAT", nil, vals("float_val", -1)) +
			nd("out", "SparseToDense", ins("i", "s", "v", "d"), tT("DT_FLOAT"), ty("Tindices", "DT_INT64")),
			feeds:   map[string]*interp.Tensor{"i": i64(sh(2, 2), 1, 2, 0, 1), "v": f32(sh(2), 7, 8)},
			wantErr: `(node "out") indices[1] = [0,1] is out of order`},
		{name: "SparseToDense out of bounds", graph: ph("i", "DT_INT64") + cst("s", "DT_INT64", sh(2), vals("int64_val", 2, 3)) +
			ph("v", "DT_FLOAT") + cst("d", "DT_FLOAT", nil, vals("float_val", -1)) +
			nd("out", "SparseToDense", ins("i", "s", "v", "d"), tT("DT_FLOAT"), ty("Tindices", "DT_INT64")),
			feeds:   map[string]*interp.Tensor{"i": i64(sh(1, 2), 0, 3), "v": f32(sh(1), 7)},
			wantErr: `indices[0] = [0,3] is out of bounds`},
	})
}

// sparse is the three inputs of a SparseTensor as nodes <p>i, <p>v, <p>s.
func sparseFeeds(p string, feeds map[string]*interp.Tensor, idx []int64, values *interp.Tensor, shape ...int64) {
	feeds[p+"i"] = i64(sh(int64(len(idx)/2), 2), idx...)
	feeds[p+"v"] = values
	feeds[p+"s"] = i64(sh(int64(len(shape))), shape...)
}

func TestSparseKernels(t *testing.T) {
	seg := ph("data", "DT_FLOAT") + ph("idx", "DT_INT32") + ph("ids", "DT_INT64")
	segFeeds := map[string]*interp.Tensor{"data": f32(sh(3, 2), 1, 2, 3, 4, 5, 6), "idx": i32(sh(3), 0, 2, 1), "ids": i64(sh(3), 0, 0, 2)}
	cross := func(attrs ...string) string {
		g := ph("ai", "DT_INT64") + ph("av", "DT_STRING") + ph("as", "DT_INT64") +
			ph("bi", "DT_INT64") + ph("bv", "DT_STRING") + ph("bs", "DT_INT64") +
			ph("ci", "DT_INT64") + ph("cv", "DT_STRING") + ph("cs", "DT_INT64")
		base := []string{ai("N", 3), attr("sparse_types", "list { type: DT_STRING type: DT_STRING type: DT_STRING }"),
			attr("dense_types", "list { }"), ty("internal_type", "DT_STRING")}
		return g + nd("out", "SparseCross", ins("ai", "bi", "ci", "av", "bv", "cv", "as", "bs", "cs"), append(base, attrs...)...)
	}
	crossFeeds := map[string]*interp.Tensor{}
	sparseFeeds("a", crossFeeds, []int64{0, 0}, strs(sh(1), "batch1-FC1-F1"), 1, 1)
	sparseFeeds("b", crossFeeds, []int64{0, 0}, strs(sh(1), "batch1-FC2-F1"), 1, 1)
	sparseFeeds("c", crossFeeds, []int64{0, 0}, strs(sh(1), "batch1-FC3-F1"), 1, 1)
	crossStr := map[string]*interp.Tensor{}
	sparseFeeds("a", crossStr, []int64{0, 0, 1, 0, 1, 1}, strs(sh(3), "a1", "a2", "a3"), 3, 2)
	sparseFeeds("b", crossStr, []int64{1, 0}, strs(sh(1), "b1"), 3, 1)
	sparseFeeds("c", crossStr, []int64{0, 0, 1, 0}, strs(sh(2), "c1", "c2"), 3, 1)
	runCases(t, []kernelCase{
		{name: "SparseSegmentSum", graph: seg + nd("out", "SparseSegmentSum", ins("data", "idx", "ids"), tT("DT_FLOAT"), ty("Tidx", "DT_INT32"), ty("Tsegmentids", "DT_INT64")),
			feeds: segFeeds, want: map[string]*interp.Tensor{"out": f32(sh(3, 2), 6, 8, 0, 0, 3, 4)}},
		{name: "SparseSegmentMean", graph: seg + nd("out", "SparseSegmentMean", ins("data", "idx", "ids"), tT("DT_FLOAT"), ty("Tidx", "DT_INT32"), ty("Tsegmentids", "DT_INT64")),
			feeds: segFeeds, want: map[string]*interp.Tensor{"out": f32(sh(3, 2), 3, 4, 0, 0, 3, 4)}},
		{name: "SparseSegmentSum id out of range", graph: seg + nd("out", "SparseSegmentSum", ins("data", "idx", "ids"), tT("DT_FLOAT"), ty("Tidx", "DT_INT32"), ty("Tsegmentids", "DT_INT64")),
			feeds:   map[string]*interp.Tensor{"data": f32(sh(3, 2), 1, 2, 3, 4, 5, 6), "idx": i32(sh(3), 0, 7, 1), "ids": i64(sh(3), 0, 0, 2)},
			wantErr: `'tfg.SparseSegmentSum' op (node "out")`},
		{name: "SparseFillEmptyRows", graph: ph("i", "DT_INT64") + ph("v", "DT_INT64") + ph("s", "DT_INT64") + cst("d", "DT_INT64", nil, vals("int64_val", -1)) +
			nd("out", "SparseFillEmptyRows", ins("i", "v", "s", "d"), tT("DT_INT64")),
			feeds: map[string]*interp.Tensor{"i": i64(sh(1, 2), 1, 0), "v": i64(sh(1), 9), "s": i64(sh(2), 2, 1)},
			want: map[string]*interp.Tensor{"out": i64(sh(2, 2), 0, 0, 1, 0), "out:1": i64(sh(2), -1, 9),
				"out:2": bools(sh(2), true, false), "out:3": i64(sh(1), 1)}},
		// TensorFlow's sparse_cross_op_test: testHashedOutput and
		// testHashedZeroBucketNoHashKey.
		{name: "SparseCross hashed", graph: cross(ab("hashed_output", true), ai("num_buckets", 100), ai("hash_key", 0xDECAFCAFFE), ty("out_type", "DT_INT64")),
			feeds: crossFeeds, want: map[string]*interp.Tensor{"out": i64(sh(1, 2), 0, 0), "out:1": i64(sh(1), 83), "out:2": i64(sh(2), 1, 1)}},
		{name: "SparseCross hashed no buckets", graph: cross(ab("hashed_output", true), ai("num_buckets", 0), ai("hash_key", 0xDECAFCAFFE), ty("out_type", "DT_INT64")),
			feeds: crossFeeds, want: map[string]*interp.Tensor{"out:1": i64(sh(1), 1971693436396284976)}},
		{name: "SparseCross strings", graph: cross(ab("hashed_output", false), ai("num_buckets", 0), ai("hash_key", 0), ty("out_type", "DT_STRING")),
			feeds: crossStr, want: map[string]*interp.Tensor{
				"out":   i64(sh(2, 2), 1, 0, 1, 1),
				"out:1": strs(sh(2), "a2_X_b1_X_c2", "a3_X_b1_X_c2"),
				"out:2": i64(sh(2), 3, 2)}},
	})
}

func TestTablesAndVariables(t *testing.T) {
	table := nd("tab", "HashTableV2", nil, ty("key_dtype", "DT_STRING"), ty("value_dtype", "DT_INT64")) +
		cst("k", "DT_STRING", sh(2), vals("string_val", "x", "y")) + cst("v", "DT_INT64", sh(2), vals("int64_val", 10, 20)) +
		// The initializer is connected to nothing the lookup needs.
		nd("init", "InitializeTableV2", ins("tab", "k", "v"), ty("Tkey", "DT_STRING"), ty("Tval", "DT_INT64")) +
		ph("q", "DT_STRING") + cst("dflt", "DT_INT64", nil, vals("int64_val", -1)) +
		nd("out", "LookupTableFindV2", ins("tab", "q", "dflt"), ty("Tin", "DT_STRING"), ty("Tout", "DT_INT64"))
	q := map[string]*interp.Tensor{"q": strs(sh(3), "y", "z", "x")}
	varGather := nd("w", "VariableV2", nil, ty("dtype", "DT_FLOAT"), attr("shape", "shape { dim { size: 4 } dim { size: 2 } }")) +
		nd("wr", "Identity", ins("w"), tT("DT_FLOAT")) + ph("ids", "DT_INT64") +
		nd("out", "Gather", ins("wr", "ids"), ty("Tparams", "DT_FLOAT"), ty("Tindices", "DT_INT64"))
	w := f32(sh(4, 2), 0, 1, 2, 3, 4, 5, 6, 7)
	resource := nd("h", "VarHandleOp", nil, ty("dtype", "DT_FLOAT"), attr("shape", "shape { dim { size: 4 } dim { size: 2 } }")) +
		ph("ids", "DT_INT64") +
		nd("out", "ResourceGather", ins("h", "ids"), ty("dtype", "DT_FLOAT"), ty("Tindices", "DT_INT64")) +
		nd("all", "ReadVariableOp", ins("h"), ty("dtype", "DT_FLOAT"))
	runCases(t, []kernelCase{
		{name: "lookup runs the initializer first", graph: table, feeds: q, want: map[string]*interp.Tensor{"out": i64(sh(3), 20, -1, 10)}},
		{name: "table from options", graph: strings.Replace(table, nd("init", "InitializeTableV2", ins("tab", "k", "v"), ty("Tkey", "DT_STRING"), ty("Tval", "DT_INT64")), "", 1), feeds: q,
			opts: &exec.Options{Tables: map[string]exec.TableData{"tab": {Keys: strs(sh(2), "x", "y"), Values: i64(sh(2), 10, 20)}}},
			want: map[string]*interp.Tensor{"out": i64(sh(3), 20, -1, 10)}},
		{name: "table given differs from initializer", graph: table, feeds: q,
			opts:    &exec.Options{Tables: map[string]exec.TableData{"tab": {Keys: strs(sh(1), "x"), Values: i64(sh(1), 5)}}},
			wantErr: `(node "init")`},
		{name: "Gather of a VariableV2", graph: varGather, feeds: map[string]*interp.Tensor{"ids": i64(sh(2), 3, 0)},
			opts: &exec.Options{Variables: map[string]*interp.Tensor{"w": w}}, want: map[string]*interp.Tensor{"out": f32(sh(2, 2), 6, 7, 0, 1)}},
		{name: "Gather id out of range names the node", graph: varGather, feeds: map[string]*interp.Tensor{"ids": i64(sh(2), 4, 0)},
			opts: &exec.Options{Variables: map[string]*interp.Tensor{"w": w}}, wantErr: `(node "out")`},
		{name: "lazy random Gather id out of range", graph: varGather, feeds: map[string]*interp.Tensor{"ids": i64(sh(2), 0, -1)},
			opts: &exec.Options{RandomTables: true}, wantErr: `(node "out") indices[1] = -1 is not in [0, 4)`},
		{name: "ResourceGather", graph: resource, feeds: map[string]*interp.Tensor{"ids": i64(sh(1), 2)},
			opts: &exec.Options{Variables: map[string]*interp.Tensor{"h": w}}, want: map[string]*interp.Tensor{"out": f32(sh(1, 2), 4, 5), "all": w}},
		{name: "variable of the wrong shape", graph: resource, feeds: map[string]*interp.Tensor{"ids": i64(sh(1), 2)},
			opts: &exec.Options{Variables: map[string]*interp.Tensor{"h": f32(sh(2), 1, 2)}}, wantErr: `variable "h" is given with shape [2]`},
	})
}

// Lazy random gathers read the same rows as the materialized table.
func TestRandomVariablesLazyMatchesMaterialized(t *testing.T) {
	m := importText(t, nd("h", "VarHandleOp", nil, ty("dtype", "DT_FLOAT"), attr("shape", "shape { dim { size: 50 } dim { size: 3 } }"))+
		ph("ids", "DT_INT64")+
		nd("g", "ResourceGather", ins("h", "ids"), ty("dtype", "DT_FLOAT"), ty("Tindices", "DT_INT64"))+
		nd("all", "ReadVariableOp", ins("h"), ty("dtype", "DT_FLOAT"))+
		nd("v", "VariableV2", nil, ty("dtype", "DT_FLOAT"), attr("shape", "shape { dim { size: 50 } dim { size: 3 } }"))+
		nd("vg", "Gather", ins("v", "ids"), ty("Tparams", "DT_FLOAT"), ty("Tindices", "DT_INT64")))
	ids := i64(sh(4), 49, 0, 7, 7)
	opts := &exec.Options{RandomTables: true, Seed: 9}
	got, err := exec.Run(context.Background(), m, map[string]*interp.Tensor{"ids": ids}, []string{"g", "all"}, opts)
	if err != nil {
		t.Fatal(err)
	}
	all := got["all"].Float32s()
	for i, r := range ids.Int64s() {
		for j := range 3 {
			if g := got["g"].Float32s()[i*3+j]; g != all[r*3+int64(j)] {
				t.Fatalf("row %d col %d: lazy %v, materialized %v", r, j, g, all[r*3+int64(j)])
			}
		}
	}
	want, _ := exec.RandomTensor(interp.Float32, sh(50, 3), 9, "v")
	vg, err := exec.Run(context.Background(), m, map[string]*interp.Tensor{"ids": ids}, []string{"vg"}, opts)
	if err != nil {
		t.Fatal(err)
	}
	if vg["vg"].Float32s()[0] != want.Float32s()[49*3] {
		t.Errorf("VariableV2 gather row 49 = %v, want %v", vg["vg"].Float32s()[0], want.Float32s()[49*3])
	}
}
