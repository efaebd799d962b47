package simplifyshapes

import (
	"testing"

	"github.com/recom-compiler/recom/dialects/all"
	"github.com/recom-compiler/recom/textir"
)

// A scalar constant typed tensor<i32> (what a GraphDef's _output_shapes
// gives) keeps its content as one typed tensor<*xi32> does: its dims are
// the empty list, not unknown. Before, the reconciliation with the static
// type made them nil and dropped the content, so ExpandDims(x, -1) and
// Sum(x, -1) of TF1 Estimator graphs lost their shapes and their columns'
// reshapes could not be proved no-ops.
func TestTypedScalarContent(t *testing.T) {
	src := `"tfg.graph"() ({
  %x:2 = "tfg.Placeholder"() {_mlir_name = "x", dtype = i64, shape = #tfg.shape<?>} : () -> (tensor<?xi64>, !tfg.control)
  %typed:2 = "tfg.Const"() {_mlir_name = "typed", dtype = i32, value = dense<-1> : tensor<i32>} : () -> (tensor<i32>, !tfg.control)
  %unranked:2 = "tfg.Const"() {_mlir_name = "unranked", dtype = i32, value = dense<-1> : tensor<i32>} : () -> (tensor<*xi32>, !tfg.control)
  %e:2 = "tfg.ExpandDims"(%x#0, %typed#0) {T = i64, Tdim = i32, _mlir_name = "e"} : (tensor<?xi64>, tensor<i32>) -> (tensor<?x1xi64>, !tfg.control)
  %s:2 = "tfg.Shape"(%e#0) {T = i64, _mlir_name = "s", out_type = i32} : (tensor<?x1xi64>) -> (tensor<2xi32>, !tfg.control)
}) : () -> ()`
	ctx := all.NewContext()
	m, err := textir.Parse(ctx, "t.mlir", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	var g *textir.Block
	m.Walk(func(op *textir.Operation) bool {
		if op.Name() == "tfg.graph" {
			g = op.Region(0).Front()
		}
		return true
	})
	a := Infer(g)
	byName := map[string]*textir.Value{}
	for op := range g.Ops() {
		if n, ok := op.Attr("_mlir_name").(textir.StringAttr); ok {
			byName[n.Value] = op.Result(0)
		}
	}
	for _, n := range []string{"typed", "unranked"} {
		in := a.Of(byName[n])
		if in.Dims == nil || len(in.Dims) != 0 || len(in.Content) != 1 || a.Format(in.Content[0]) != "-1" {
			t.Errorf("%s: dims %s content %s, want () and (-1)", n, a.FormatDims(in.Dims), a.FormatDims(in.Content))
		}
	}
	if got := a.FormatDims(a.Of(byName["e"]).Dims); got != "(batch, 1)" {
		t.Errorf("ExpandDims: dims %s, want (batch, 1)", got)
	}
	if got := a.FormatDims(a.Of(byName["s"]).Content); got != "(batch, 1)" {
		t.Errorf("Shape: content %s, want (batch, 1)", got)
	}
}
