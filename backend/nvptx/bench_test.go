package nvptx_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/recom-compiler/recom/backend/nvptx"
)

// fusedKernel returns one kernel with n columns, each a branch on the block
// id that pools a CSR bag with a gpu.for and 4-wide loads, the shape of the
// fused embedding kernel.
func fusedKernel(n int) string {
	var b strings.Builder
	b.WriteString(`gpu.module @emb {
  gpu.func @layer(%offsets: !gpu.ptr<i64, global>, %ids: !gpu.ptr<i64, global>, %table: !gpu.ptr<f32, global>, %out: !gpu.ptr<f32, global>) kernel attributes {max_threads = 256 : i64} {
    %bid = gpu.block_id x
    %tid = gpu.thread_id x
    %row = arith.extsi %tid : i32 to i64
    %c1 = arith.constant 1 : i64
    %c4 = arith.constant 4 : i64
    %zero = arith.constant 0.0 : f32
`)
	for i := 0; i < n; i++ {
		fmt.Fprintf(&b, `    %%col%[1]d = arith.constant %[1]d : i32
    %%is%[1]d = arith.cmpi eq, %%bid, %%col%[1]d : i32
    gpu.if %%is%[1]d {
      %%next = arith.addi %%row, %%c1 : i64
      %%start = gpu.load %%offsets[%%row] {readonly} : !gpu.ptr<i64, global> -> i64
      %%end = gpu.load %%offsets[%%next] {readonly} : !gpu.ptr<i64, global> -> i64
      %%s:4 = gpu.for %%k = %%start to %%end step %%c1 iter_args(%%a0 = %%zero, %%a1 = %%zero, %%a2 = %%zero, %%a3 = %%zero) -> (f32, f32, f32, f32) {
        %%id = gpu.load %%ids[%%k] {readonly} : !gpu.ptr<i64, global> -> i64
        %%at = arith.muli %%id, %%c4 : i64
        %%t:4 = gpu.load %%table[%%at] {readonly, width = 4} : !gpu.ptr<f32, global> -> f32, f32, f32, f32
        %%b0 = arith.addf %%a0, %%t#0 : f32
        %%b1 = arith.addf %%a1, %%t#1 : f32
        %%b2 = arith.addf %%a2, %%t#2 : f32
        %%b3 = arith.addf %%a3, %%t#3 : f32
        gpu.yield %%b0, %%b1, %%b2, %%b3 : f32, f32, f32, f32
      }
      %%o = arith.muli %%row, %%c4 : i64
      gpu.store %%s#0, %%s#1, %%s#2, %%s#3, %%out[%%o] {width = 4} : f32, f32, f32, f32, !gpu.ptr<f32, global>
      gpu.yield
    }
`, i)
	}
	b.WriteString("    gpu.return\n  }\n}\n")
	return b.String()
}

// BenchmarkEmit emits and prints a 1,000-column fused kernel.
func BenchmarkEmit(b *testing.B) {
	src := fusedKernel(1000)
	m := parse(b, "fused.mlir", []byte(src))
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		ll, err := nvptx.EmitText(m)
		if err != nil {
			b.Fatal(err)
		}
		b.SetBytes(int64(len(ll)))
	}
}
