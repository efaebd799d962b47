package tfg_test

import (
	"context"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/recom-compiler/recom/interp"
	"github.com/recom-compiler/recom/interp/exec"
	ex "github.com/recom-compiler/recom/interp/tfexample"
)

func TestNNKernels(t *testing.T) {
	x := ph("x", "DT_FLOAT")
	fx := map[string]*interp.Tensor{"x": f32(sh(2, 2), 1, 3, 0, float32(math.Inf(-1)))}
	runCases(t, []kernelCase{
		{name: "Softmax", graph: x + nd("out", "Softmax", ins("x"), tT("DT_FLOAT")), feeds: fx,
			want: map[string]*interp.Tensor{"out": f32(sh(2, 2), 0.11920292, 0.880797, 1, 0)}},
		{name: "LogSoftmax", graph: x + nd("out", "LogSoftmax", ins("x"), tT("DT_FLOAT")), feeds: fx,
			want: map[string]*interp.Tensor{"out": f32(sh(2, 2), -2.126928, -0.126928, 0, float32(math.Inf(-1)))}},
		{name: "Softmax of a scalar", graph: ph("s", "DT_FLOAT") + nd("out", "Softmax", ins("s"), tT("DT_FLOAT")),
			feeds: map[string]*interp.Tensor{"s": f32(nil, 1)}, wantErr: `(node "out") Softmax: logits must have >= 1 dimension, got []`},
		{name: "ArgMax (output_type int64 by default)", graph: x + cst("d", "DT_INT32", nil, vals("int_val", 1)) +
			nd("out", "ArgMax", ins("x", "d"), tT("DT_FLOAT"), ty("Tidx", "DT_INT32")), feeds: fx,
			want: map[string]*interp.Tensor{"out": i64(sh(2), 1, 0)}},
		{name: "ArgMin int32", graph: x + cst("d", "DT_INT64", nil, vals("int64_val", 0)) +
			nd("out", "ArgMin", ins("x", "d"), tT("DT_FLOAT"), ty("Tidx", "DT_INT64"), ty("output_type", "DT_INT32")), feeds: fx,
			want: map[string]*interp.Tensor{"out": i32(sh(2), 1, 1)}},
		{name: "BroadcastTo", graph: ph("v", "DT_INT64") + cst("s", "DT_INT32", sh(2), vals("int_val", 2, 3)) +
			nd("out", "BroadcastTo", ins("v", "s"), tT("DT_INT64"), ty("Tidx", "DT_INT32")),
			feeds: map[string]*interp.Tensor{"v": i64(sh(3), 1, 2, 3)},
			want:  map[string]*interp.Tensor{"out": i64(sh(2, 3), 1, 2, 3, 1, 2, 3)}},
		{name: "BroadcastTo incompatible", graph: ph("v", "DT_INT64") + cst("s", "DT_INT32", sh(1), vals("int_val", 4)) +
			nd("out", "BroadcastTo", ins("v", "s"), tT("DT_INT64"), ty("Tidx", "DT_INT32")),
			feeds:   map[string]*interp.Tensor{"v": i64(sh(3), 1, 2, 3)},
			wantErr: `(node "out") BroadcastTo: Incompatible shapes: [3] vs. [4]`},
	})
}

// parseGraph is an Estimator serving input: serialized examples fed to
// ParseExample (v1) of a sparse string "s", a dense int64 "age" [1]
// defaulting to 0 and a required dense float "x" [2].
var parseGraph = ph("serialized", "DT_STRING") + cst("names", "DT_STRING", sh(0), "") +
	cst("k_s", "DT_STRING", nil, vals("string_val", "s")) + cst("k_age", "DT_STRING", nil, vals("string_val", "age")) +
	cst("k_x", "DT_STRING", nil, vals("string_val", "x")) +
	cst("d_age", "DT_INT64", sh(1), vals("int64_val", 0)) + cst("d_x", "DT_FLOAT", sh(0), "") +
	nd("out", "ParseExample", ins("serialized", "names", "k_s", "k_age", "k_x", "d_age", "d_x"),
		ai("Nsparse", 1), ai("Ndense", 2), attr("sparse_types", "list { type: DT_STRING }"),
		attr("Tdense", "list { type: DT_INT64 type: DT_FLOAT }"),
		attr("dense_shapes", "list { shape { dim { size: 1 } } shape { dim { size: 2 } } }"))

// parseV2Graph is ParseExampleV2 of a dense float "x" [2] and a ragged
// int64 "r" with int32 splits.
var parseV2Graph = ph("serialized", "DT_STRING") + cst("names", "DT_STRING", sh(0), "") +
	cst("none", "DT_STRING", sh(0), "") + cst("dk", "DT_STRING", sh(1), vals("string_val", "x")) +
	cst("rk", "DT_STRING", sh(1), vals("string_val", "r")) + cst("d_x", "DT_FLOAT", sh(2), vals("float_val", -1, -1)) +
	nd("out", "ParseExampleV2", ins("serialized", "names", "none", "dk", "rk", "d_x"),
		ai("num_sparse", 0), attr("sparse_types", "list { }"), attr("Tdense", "list { type: DT_FLOAT }"),
		attr("dense_shapes", "list { shape { dim { size: 2 } } }"),
		attr("ragged_value_types", "list { type: DT_INT64 }"), attr("ragged_split_types", "list { type: DT_INT32 }"))

func serialized(shape []int64, exs ...ex.Example) *interp.Tensor {
	s := make([]string, len(exs))
	for i, e := range exs {
		s[i] = string(e.Marshal())
	}
	return strs(shape, s...)
}

func TestParseExampleKernels(t *testing.T) {
	e0 := ex.Example{ex.Pair("x", ex.Floats(1, 2)), ex.Pair("s", ex.Bytes("a", "b")), ex.Pair("age", ex.Int64s(42)), ex.Pair("r", ex.Int64s(7))}
	e1 := ex.Example{ex.Pair("x", ex.Floats(3, 4))}
	runCases(t, []kernelCase{
		{name: "ParseExample", graph: parseGraph, feeds: map[string]*interp.Tensor{"serialized": serialized(sh(2), e0, e1)},
			want: map[string]*interp.Tensor{
				"out:0": i64(sh(2, 2), 0, 0, 0, 1), "out:1": strs(sh(2), "a", "b"), "out:2": i64(sh(2), 2, 2),
				"out:3": i64(sh(2, 1), 42, 0), "out:4": f32(sh(2, 2), 1, 2, 3, 4)}},
		{name: "ParseExample of no examples", graph: parseGraph, feeds: map[string]*interp.Tensor{"serialized": strs(sh(0))},
			want: map[string]*interp.Tensor{"out:0": i64(sh(0, 2)), "out:2": i64(sh(2), 0, 0), "out:4": f32(sh(0, 2))}},
		{name: "ParseExample required feature missing", graph: parseGraph,
			feeds:   map[string]*interp.Tensor{"serialized": serialized(sh(2), e0, ex.Example{ex.Pair("age", ex.Int64s(1))})},
			wantErr: `(node "out") ParseExample: Name: <unknown>, Feature: x (data type: float) is required but could not be found.`},
		{name: "ParseExampleV2", graph: parseV2Graph, feeds: map[string]*interp.Tensor{"serialized": serialized(sh(2), e1, e0)},
			want: map[string]*interp.Tensor{"out:0": f32(sh(2, 2), 3, 4, 1, 2), "out:1": i64(sh(1), 7), "out:2": i32(sh(3), 0, 0, 1)}},
		{name: "ParseExampleV2 of one example", graph: parseV2Graph, feeds: map[string]*interp.Tensor{"serialized": serialized(nil, ex.Example{})},
			want: map[string]*interp.Tensor{"out:0": f32(sh(2), -1, -1), "out:1": i64(sh(0)), "out:2": i32(sh(0))}},
	})
}

// tableGraph looks keys up in a table that InitializeTableFromTextFileV2
// fills from the file named by the Const "file".
func tableGraph(file string, attrs ...string) string {
	return nd("tab", "HashTableV2", nil, ty("key_dtype", "DT_STRING"), ty("value_dtype", "DT_INT64")) +
		cst("file", "DT_STRING", nil, vals("string_val", file)) +
		nd("init", "InitializeTableFromTextFileV2", ins("tab", "file"), append([]string{ai("key_index", -2), ai("value_index", -1)}, attrs...)...) +
		ph("q", "DT_STRING") + cst("dflt", "DT_INT64", nil, vals("int64_val", -1)) +
		nd("tabid", "Identity", ins("tab"), tT("DT_RESOURCE")) +
		nd("out", "LookupTableFindV2", ins("tabid", "q", "dflt"), ty("Tin", "DT_STRING"), ty("Tout", "DT_INT64"))
}

func TestTextFileTables(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "vocab.txt"), []byte("emerson\nlake\npalmer\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	q := map[string]*interp.Tensor{"q": strs(sh(3), "palmer", "tarkus", "emerson")}
	abs := filepath.Join(dir, "vocab.txt")
	runCases(t, []kernelCase{
		{name: "absolute file name", graph: tableGraph(abs), feeds: q, want: map[string]*interp.Tensor{"out": i64(sh(3), 2, -1, 0)}},
		{name: "absolute file name, asset dir ignored", graph: tableGraph(abs), feeds: q, opts: &exec.Options{AssetDir: "/nonexistent"},
			want: map[string]*interp.Tensor{"out": i64(sh(3), 2, -1, 0)}},
		{name: "relative to the asset dir", graph: tableGraph("vocab.txt"), feeds: q, opts: &exec.Options{AssetDir: dir},
			want: map[string]*interp.Tensor{"out": i64(sh(3), 2, -1, 0)}},
		{name: "offset and vocab_size", graph: tableGraph(abs, ai("offset", 100), ai("vocab_size", 2)), feeds: q,
			want: map[string]*interp.Tensor{"out": i64(sh(3), -1, -1, 100)}},
		{name: "vocab_size larger than the file", graph: tableGraph(abs, ai("vocab_size", 5)), feeds: q,
			wantErr: `(node "init") InitializeTableFromTextFileV2: Invalid vocab_size in ` + abs + `: expected 5 but got 3`},
		{name: "missing file", graph: tableGraph("nosuch.txt"), feeds: q, opts: &exec.Options{AssetDir: dir},
			wantErr: `(node "init") InitializeTableFromTextFileV2: stat ` + filepath.Join(dir, "nosuch.txt")},
		{name: "two-byte delimiter", graph: tableGraph(abs, attr("delimiter", `s: "ab"`)), feeds: q,
			wantErr: `delimiter should be only 1 char`},
		{name: "table from the options: the file is not read", graph: tableGraph("nosuch.txt"), feeds: q,
			opts: &exec.Options{Tables: map[string]exec.TableData{"tab": {Keys: strs(sh(1), "tarkus"), Values: i64(sh(1), 9)}}},
			want: map[string]*interp.Tensor{"out": i64(sh(3), -1, 9, -1)}},
	})
}

// A lookup in a table whose initializer the interpreter cannot run names
// that initializer; without one, the error says so.
func TestUninitializedTableErrors(t *testing.T) {
	lookup := nd("tab", "HashTableV2", nil, ty("key_dtype", "DT_STRING"), ty("value_dtype", "DT_INT64")) +
		ph("q", "DT_STRING") + cst("dflt", "DT_INT64", nil, vals("int64_val", -1)) +
		nd("out", "LookupTableFindV2", ins("tab", "q", "dflt"), ty("Tin", "DT_STRING"), ty("Tout", "DT_INT64"))
	q := map[string]*interp.Tensor{"q": strs(sh(1), "a")}
	runCases(t, []kernelCase{
		{name: "no initializer", graph: lookup, feeds: q,
			wantErr: `table "tab" is not initialized: its initializer is not in the program (give its contents as a table)`},
		{name: "an initializer without semantics", graph: lookup + ph("ds", "DT_VARIANT") + nd("init", "InitializeTableFromDataset", ins("tab", "ds")), feeds: q,
			wantErr: `table "tab" is not initialized: its initializer tfg.InitializeTableFromDataset (node "init") has no semantics in the interpreter`},
	})
}

// The interpreter runs the heads of the real Estimator graphs: the
// binary classifier's probabilities are the softmax of [0, logit], so
// their second column is the logistic output, and the class is the
// argmax.
func TestRealGraphHeads(t *testing.T) {
	for _, c := range []struct {
		realCase
		classIDs string
	}{
		{realCase{file: "census_wide_deep_tf1.pbtxt", iterator: "IteratorGetNext",
			outputs: []string{"head/predictions/logistic", "head/predictions/probabilities", "head/predictions/classes", "head/predictions/str_classes"}},
			"head/predictions/classes"},
		{realCase{file: "census_wide_deep_tf2_resource.pbtxt", inputs: fifoInputs(),
			outputs: []string{"head/predictions/logistic", "head/predictions/probabilities", "head/predictions/ExpandDims", "head/predictions/str_classes"}},
			"head/predictions/ExpandDims"},
	} {
		t.Run(c.file, func(t *testing.T) {
			p := loadRealProgram(t, c.realCase)
			feeds := randomFeeds(t, p.module, 6, p.vocab, 3)
			got, err := exec.Run(context.Background(), p.module, feeds, c.outputs, &exec.Options{RandomTables: true, Seed: 5, Tables: p.tables})
			if err != nil {
				t.Fatal(err)
			}
			logistic, probs := got[c.outputs[0]], got[c.outputs[1]]
			ids, str := got[c.classIDs], got[c.outputs[3]]
			rows := logistic.Dim(0)
			if probs.Dim(0) != rows || probs.Dim(1) != 2 || ids.Len() != int(rows) || str.Len() != int(rows) {
				t.Fatalf("shapes: logistic %v, probabilities %v, class ids %v, classes %v", logistic, probs, ids, str)
			}
			for i := range int(rows) {
				p0, p1, l := probs.Float64At(2*i), probs.Float64At(2*i+1), logistic.Float64At(i)
				if math.Abs(p0+p1-1) > 1e-6 || math.Abs(p1-l) > 1e-6 {
					t.Errorf("row %d: probabilities [%v %v], logistic %v", i, p0, p1, l)
				}
				id, _ := ids.Int64At(i)
				if want := map[bool]int64{true: 1, false: 0}[p1 > p0]; id != want {
					t.Errorf("row %d: class %d, probabilities [%v %v]", i, id, p0, p1)
				}
				if s := str.Strings()[i]; s != map[int64]string{0: "0", 1: "1"}[id] {
					t.Errorf("row %d: class string %q for class %d", i, s, id)
				}
			}
			t.Logf("probabilities %v, classes %v", probs, str)
		})
	}
}
