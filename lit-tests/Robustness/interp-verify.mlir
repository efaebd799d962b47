// recom interp verifies a .mlir program after parsing it, as recom-opt does:
// an attribute the verifier refuses never reaches the interpreter's
// semantics. The diagnostic is file:line:col: error, exit status 1, no -o.
// RUN: not recom interp %s -o %t.npz 2>&1 | FileCheck %s --implicit-check-not="internal error"
// RUN: test ! -e %t.npz
// RUN: not recom-opt %s 2>&1 | FileCheck %s
// CHECK: interp-verify.mlir:[[@LINE+3]]:3: error: 'emb.hash' op attribute 'num_buckets' failed to satisfy constraint: integer attribute
// CHECK-NOT: error:
func.func @main(%x: tensor<?x!tfg.string>) -> tensor<?xi64> {
  %v = "emb.hash"(%x) {num_buckets = "ten"} : (tensor<?x!tfg.string>) -> tensor<?xi64>
  func.return %v : tensor<?xi64>
}
