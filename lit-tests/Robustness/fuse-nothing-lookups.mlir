// A lookup that --fuse cannot take (its table is f64) is left, with a
// remark saying why; the warning that no layer was fused points to it, and
// --emit-llvm says the lookup is not fused.
// RUN: recom-opt %s --fuse 2>&1 >/dev/null | FileCheck %s --check-prefix=WARN
// RUN: recom-opt %s --fuse 2>/dev/null -o %t.mlir
// RUN: not recom-translate --emit-llvm %t.mlir 2>&1 | FileCheck %s --check-prefix=NOKERNEL

// WARN:     remark: 'emb.lookup' op (node "c/lookup") not fused: it looks up a table of tensor<100x8xf64>
// WARN:     warning: --fuse fused no embedding layer: the remarks above say why each lookup was left
// NOKERNEL: error: no gpu kernel to emit: 1 embedding lookup is not fused into a kernel: run --fuse (its remarks say why a lookup is left)
func.func @f(%a: tensor<?x4xi64>) -> tensor<?x8xf64> {
  %t = emb.table {name = "t8"} : tensor<100x8xf64>
  %v, %s = emb.from_dense %a {ignore = -1 : i64} : tensor<?x4xi64> -> tensor<?xi64>
  %l = emb.lookup %t, %v, %s {combiner = "mean"} : tensor<100x8xf64>, tensor<?xi64> -> tensor<?x8xf64> loc("c/lookup")
  func.return %l : tensor<?x8xf64>
}
