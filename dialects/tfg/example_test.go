package tfg_test

import (
	"strings"
	"testing"

	"github.com/recom-compiler/recom/dialects/tfg"
	"github.com/recom-compiler/recom/interp"
	"github.com/recom-compiler/recom/textir"
)

// findOp returns the op of node name in m.
func findOp(t *testing.T, m *textir.Operation, name string) *textir.Operation {
	t.Helper()
	var out *textir.Operation
	m.Walk(func(op *textir.Operation) bool {
		if tfg.NodeName(op) == name {
			out = op
		}
		return out == nil
	})
	if out == nil {
		t.Fatalf("no node %q", name)
	}
	return out
}

// TestExampleSpecOf: the features of both parse ops, their results by
// argument and index, their dims, and the errors of a configuration that
// is not constant or that the kernel refuses.
func TestExampleSpecOf(t *testing.T) {
	m := importText(t, parseGraph)
	op := findOp(t, m, "out")
	s, err := tfg.ExampleSpecOf(op)
	if err != nil {
		t.Fatal(err)
	}
	if s.Version != 1 || len(s.Sparse) != 1 || len(s.Dense) != 2 || len(s.Ragged) != 0 {
		t.Fatalf("spec %+v", s)
	}
	if f := s.Sparse[0]; f.Key != "s" || f.DType != interp.String {
		t.Errorf("sparse %+v", f)
	}
	if f := s.Dense[0]; f.Key != "age" || f.DType != interp.Int64 || f.Stride != 1 || f.VarLen || f.Default == nil || f.Default.Int64s()[0] != 0 {
		t.Errorf("dense age %+v", f)
	}
	if f := s.Dense[1]; f.Key != "x" || f.Stride != 2 || f.Default != nil {
		t.Errorf("dense x %+v (required: no default)", f)
	}
	if s.Serialized() != op.Operand(0) {
		t.Error("Serialized is not operand 0")
	}
	for i, want := range []struct {
		arg  string
		k    int
		dims []int64
	}{{tfg.ExampleSparseIndices, 0, sh(-1, 2)}, {tfg.ExampleSparseValues, 0, sh(-1)}, {tfg.ExampleSparseShapes, 0, sh(2)},
		{tfg.ExampleDenseValues, 0, sh(-1, 1)}, {tfg.ExampleDenseValues, 1, sh(-1, 2)}} {
		r := op.Result(i)
		p, arg, k, ok := tfg.ExampleResult(r)
		if !ok || p != op || arg != want.arg || k != want.k {
			t.Errorf("result %d: %s %d, want %s %d", i, arg, k, want.arg, want.k)
		}
		if d, ok := tfg.ExampleDims(r, 1); !ok || interp.ShapeString(d) != interp.ShapeString(want.dims) {
			t.Errorf("result %d: dims %v, want %v", i, d, want.dims)
		}
	}
	if _, _, _, ok := tfg.ExampleResult(op.Operand(0)); ok {
		t.Error("the serialized placeholder is a parse result")
	}

	v2 := findOp(t, importText(t, parseV2Graph), "out")
	s2, err := tfg.ExampleSpecOf(v2)
	if err != nil {
		t.Fatal(err)
	}
	if s2.Version != 2 || len(s2.Dense) != 1 || len(s2.Ragged) != 1 || s2.Ragged[0].Key != "r" || s2.Ragged[0].SplitType != interp.Int32 ||
		s2.Dense[0].Default.Len() != 2 {
		t.Errorf("v2 spec %+v", s2)
	}
	if d, ok := tfg.ExampleDims(v2.Result(2), 0); !ok || len(d) != 1 || d[0] != 0 {
		t.Errorf("the splits of one example: %v", d)
	}

	bad := map[string]struct{ graph, want string }{
		"key from a placeholder": {strings.Replace(parseGraph, cst("k_s", "DT_STRING", nil, vals("string_val", "s")), ph("k_s", "DT_STRING"), 1),
			"the sparse_keys[0] is not a constant"},
		"default of another size": {strings.Replace(parseGraph, cst("d_age", "DT_INT64", sh(1), vals("int64_val", 0)),
			cst("d_age", "DT_INT64", sh(3), vals("int64_val", 0, 1, 2)), 1), "is not compatible with dense_shapes_[0]"},
	}
	for name, c := range bad {
		_, err := tfg.ExampleSpecOf(findOp(t, importText(t, c.graph), "out"))
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), `"out"`) {
			t.Errorf("%s: error %v, want %q naming the node", name, err, c.want)
		}
	}
}
