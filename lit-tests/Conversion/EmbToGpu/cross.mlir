// REQUIRES: llc
// RUN: recom-opt --fuse %s | FileCheck %s
// RUN: recom-opt --fuse='ids-in-kernel=false' %s | FileCheck %s --check-prefix=HOST
// RUN: recom-opt --fuse %s | recom-translate --emit-llvm - | FileCheck %s --check-prefix=LLVM
// RUN: recom-opt --fuse %s | recom-translate --emit-llvm - | llc-19 -march=nvptx64 -mcpu=sm_90 | FileCheck %s --check-prefix=PTX

// Crossed columns move into the kernel (source "cross"): the fused op takes
// each input's raw values and row splits, the column lists its inputs
// (their sources and how many of its transforms are theirs: bucketize and
// cast of the f32 input) and ends with the cross transform. The kernel
// hashes strings with Fingerprint64 and combines the features with
// FingerprintCat64 (multiplier 0xc6a4a7935bd1e995) from hash_key, mod
// num_buckets. Left on the host, emb.cross stays before the layer.
// The simulator checks of the same lowering are in
// lowering/embtogpu/cross_test.go.

// CHECK-LABEL: func.func @layer
// CHECK-NOT:     emb.cross
// CHECK-NOT:     emb.bucketize
// CHECK:         "fused.embedding_layer"(%{{.*}}) {block = 256 : i64, columns = [
// CHECK-SAME:      cross = [{source = "str", transforms = 0 : i64}, {source = "i64", transforms = 0 : i64}], kind = "lookup",{{[^}]*}}name = "x0",{{[^}]*}}source = "cross",{{[^}]*}}transforms = [{hash_key = 956888297470 : i64, num_buckets = 1000 : i64, op = "cross"}]
// CHECK-SAME:      cross = [{source = "f32", transforms = 2 : i64}, {source = "str", transforms = 0 : i64}], kind = "lookup",{{[^}]*}}name = "x1",{{[^}]*}}source = "cross",{{[^}]*}}transforms = [{boundaries = [0.000000e+00 : f32, 1.000000e+00 : f32, 1.000000e+01 : f32], op = "bucketize"}, {bits = 64 : i64, op = "cast"}, {hash_key = 1 : i64, num_buckets = 37 : i64, op = "cross"}]
// CHECK-SAME:    : (tensor<1000x8xf32>, tensor<?x!tfg.string>, tensor<?xi64>, tensor<?xi64>, tensor<?xi64>, tensor<37x4xf32>, tensor<?xf32>, tensor<?xi64>, tensor<?x!tfg.string>, tensor<?xi64>) -> tensor<?x12xf32>
// CHECK:       gpu.module @emb

// HOST-LABEL: func.func @layer
// HOST-COUNT-2: emb.cross
// HOST:         "fused.embedding_layer"
// HOST-NOT:       source = "cross"

// LLVM-LABEL: define void @layer
// LLVM:         xor i64 {{.*}}, -4132994306676758123
// LLVM:         mul i64 {{.*}}, -4132994306676758123
// LLVM:         urem i64

// PTX:         .visible .entry layer(
// PTX:         mul.lo.s64
// PTX:         {{rem|div}}.u{{32|64}}
func.func @layer(%s: tensor<?x!tfg.string>, %ss: tensor<?xi64>, %i: tensor<?x2xi64>, %x: tensor<?xf32>) -> tensor<?x12xf32> {
  %t0 = emb.table {name = "x0"} : tensor<1000x8xf32>
  %t1 = emb.table {name = "x1"} : tensor<37x4xf32>
  %a, %as = emb.from_dense %i : tensor<?x2xi64> -> tensor<?xi64>
  %c0, %cs0 = emb.cross %s, %ss, %a, %as {hash_key = 956888297470 : i64, num_buckets = 1000 : i64} : tensor<?x!tfg.string>, tensor<?xi64> -> tensor<?xi64>
  %l0 = emb.lookup %t0, %c0, %cs0 {combiner = "sum"} : tensor<1000x8xf32>, tensor<?xi64> -> tensor<?x8xf32>
  %xv, %xs = emb.from_dense %x : tensor<?xf32> -> tensor<?xf32>
  %xb = emb.bucketize %xv {boundaries = [0.0 : f32, 1.0 : f32, 10.0 : f32]} : tensor<?xf32> -> tensor<?xi32>
  %xc = emb.cast %xb : tensor<?xi32> -> tensor<?xi64>
  %c1, %cs1 = emb.cross %xc, %xs, %s, %ss {hash_key = 1 : i64, num_buckets = 37 : i64} : tensor<?xi64>, tensor<?x!tfg.string> -> tensor<?xi64>
  %l1 = emb.lookup %t1, %c1, %cs1 {combiner = "mean"} : tensor<37x4xf32>, tensor<?xi64> -> tensor<?x4xf32>
  %r = emb.concat %l0, %l1 : (tensor<?x8xf32>, tensor<?x4xf32>) -> tensor<?x12xf32>
  func.return %r : tensor<?x12xf32>
}
