package densetogpu_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/recom-compiler/recom/dialects/all"
	"github.com/recom-compiler/recom/lowering/pass"
	"github.com/recom-compiler/recom/textir"
)

// The pattern takes the MatMul of a variable weight; the target leaves the
// product of a placeholder (with a remark) and the one with a control edge
// (silently, as before), and the pass's statistics count what it fused.
func TestTargetAndRemarks(t *testing.T) {
	src := `module {
  "tfg.graph"() ({
    %x:2 = "tfg.Placeholder"() {_mlir_name = "x", dtype = f32, shape = #tfg.shape<?x4>} : () -> (tensor<*xf32>, !tfg.control)
    %y:2 = "tfg.Placeholder"() {_mlir_name = "y", dtype = f32, shape = #tfg.shape<4x3>} : () -> (tensor<*xf32>, !tfg.control)
    %w:2 = "tfg.VariableV2"() {_mlir_name = "w", container = "", dtype = f32, shape = #tfg.shape<4x3>, shared_name = ""} : () -> (tensor<*x!tfg.ref<f32>>, !tfg.control)
    %wr:2 = "tfg.Identity"(%w#0) {T = f32, _mlir_name = "w/read"} : (tensor<*x!tfg.ref<f32>>) -> (tensor<*xf32>, !tfg.control)
    %m:2 = "tfg.MatMul"(%x#0, %y#0) {T = f32, _mlir_name = "free", transpose_a = false, transpose_b = false} : (tensor<*xf32>, tensor<*xf32>) -> (tensor<*xf32>, !tfg.control)
    %c:2 = "tfg.MatMul"(%x#0, %wr#0, %y#1) {T = f32, _mlir_name = "ordered", transpose_a = false, transpose_b = false} : (tensor<*xf32>, tensor<*xf32>, !tfg.control) -> (tensor<*xf32>, !tfg.control)
    %n:2 = "tfg.MatMul"(%x#0, %wr#0) {T = f32, _mlir_name = "dense", transpose_a = false, transpose_b = false} : (tensor<*xf32>, tensor<*xf32>) -> (tensor<*xf32>, !tfg.control)
    %r:2 = "tfg.Relu"(%n#0) {T = f32, _mlir_name = "relu"} : (tensor<*xf32>) -> (tensor<*xf32>, !tfg.control)
  }) : () -> ()
}`
	ctx := all.NewContext()
	m, err := textir.Parse(ctx, "t.mlir", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	pm, err := pass.ParsePipeline("fuse-dense")
	if err != nil {
		t.Fatal(err)
	}
	var remarks []string
	pm.Config.Diag = func(d *textir.Diagnostic) { remarks = append(remarks, d.Error()) }
	if err := pm.Run(ctx, m); err != nil {
		t.Fatal(err)
	}
	want := []string{`t.mlir:7:5: remark: 'tfg.MatMul' op not fused: the weight is not a constant or variable of known 2-D shape`}
	if !slices.Equal(remarks, want) {
		t.Errorf("remarks:\n%s\nwant:\n%s", strings.Join(remarks, "\n"), strings.Join(want, "\n"))
	}
	if got := count(m, "tfg.MatMul"); got != 2 {
		t.Errorf("%d MatMuls left, want 2 (free, ordered)", got)
	}
	if got := count(m, "fused.dense"); got != 1 {
		t.Errorf("%d fused.dense ops, want 1", got)
	}
	if got := count(m, "tfg.Relu"); got != 0 {
		t.Errorf("the Relu was not fused into the product")
	}
	if st := pm.Statistics()["fuse-dense"]; st["layers"] != 1 || st["concats"] != 0 {
		t.Errorf("statistics %v, want 1 layer and 0 concats", st)
	}
}
