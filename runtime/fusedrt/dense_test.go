package fusedrt

import (
	"testing"

	"github.com/recom-compiler/recom/dialects/all"
	"github.com/recom-compiler/recom/dialects/fused"
	"github.com/recom-compiler/recom/interp/exec"
	"github.com/recom-compiler/recom/textir"
)

const denseSrc = `module {
  "tfg.graph"() ({
    %x:2 = "tfg.Placeholder"() {_mlir_name = "x", dtype = f32, shape = #tfg.shape<?x4>} : () -> (tensor<*xf32>, !tfg.control)
    %w:2 = "tfg.Const"() {_mlir_name = "w", dtype = f32, value = dense<1.0> : tensor<4x4xf32>} : () -> (tensor<4x4xf32>, !tfg.control)
    %a = "fused.dense"(%x#0, %w#0) {_mlir_name = "a", accumulate = "f64", activation = "relu", block_k = 16 : i64, block_m = 64 : i64, block_n = 4 : i64, kernel = @dense::@a, ks = [4], n = 4 : i64, thread_m = 4 : i64, thread_n = 4 : i64, transpose_a = false, transpose_b = false} : (tensor<*xf32>, tensor<4x4xf32>) -> tensor<?x4xf32>
    %b = "fused.dense"(%a, %w#0) {_mlir_name = "b", accumulate = "f64", activation = "none", block_k = 16 : i64, block_m = 64 : i64, block_n = 4 : i64, kernel = @dense::@b, ks = [4], n = 4 : i64, thread_m = 4 : i64, thread_n = 4 : i64, transpose_a = false, transpose_b = false} : (tensor<?x4xf32>, tensor<4x4xf32>) -> tensor<?x4xf32>
    %c = "fused.dense"(%b, %w#0) {_mlir_name = "c", accumulate = "f64", activation = "none", block_k = 16 : i64, block_m = 64 : i64, block_n = 4 : i64, kernel = @dense::@c, ks = [4], n = 4 : i64, thread_m = 4 : i64, thread_n = 4 : i64, transpose_a = false, transpose_b = false} : (tensor<?x4xf32>, tensor<4x4xf32>) -> tensor<?x4xf32>
    %r:2 = "tfg.Relu"(%b) {T = f32, _mlir_name = "r"} : (tensor<?x4xf32>) -> (tensor<*xf32>, !tfg.control)
  }) : () -> ()
}
`

// An output is copied back only when it is fetched or read by an op of
// the interpreter; nil Fetch copies every output back.
func TestNeedsHost(t *testing.T) {
	ctx := all.NewContext()
	ctx.AllowUnregistered = true
	m, err := textir.Parse(ctx, "d.mlir", []byte(denseSrc))
	if err != nil {
		t.Fatal(err)
	}
	ops := map[string]*textir.Operation{}
	m.Walk(func(op *textir.Operation) bool {
		if op.Name() == fused.DenseOp {
			ops[exec.OpName(op)] = op
		}
		return true
	})
	d := NewDense(nil)
	for _, c := range []struct {
		fetch map[string]bool
		op    string
		want  bool
	}{
		{nil, "a", true},
		{map[string]bool{"c": true}, "a", false}, // read by b only
		{map[string]bool{"c": true}, "b", true},  // read by the interpreter's Relu
		{map[string]bool{"c": true}, "c", true},  // fetched
		{map[string]bool{"a": true}, "a", true},  // fetched
		{map[string]bool{}, "c", false},          // no user
	} {
		d.Fetch = c.fetch
		if got := d.needsHost(ops[c.op]); got != c.want {
			t.Errorf("fetch %v: needsHost(%s) = %v, want %v", c.fetch, c.op, got, c.want)
		}
	}
	opts := &exec.Options{}
	d.Install(opts)
	if opts.Kernels[fused.DenseOp] == nil || opts.Kernels[fused.EmbeddingLayerOp] == nil {
		t.Error("Install must set the kernels of fused.dense and fused.embedding_layer")
	}
}
