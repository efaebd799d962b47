// REQUIRES: llc
// RUN: recom-opt --fuse %s | recom-translate --emit-llvm - | FileCheck %s --check-prefix=LLVM
// RUN: recom-opt --fuse %s | recom-translate --emit-llvm - | llc-19 -march=nvptx64 -mcpu=sm_90 | FileCheck %s --check-prefix=PTX
// RUN: recom-opt --fuse='schedule=RECom' %s | recom-translate --emit-llvm - | llc-19 -march=nvptx64 -mcpu=sm_90 | FileCheck %s --check-prefix=PTX

// The fused kernel is one NVPTX entry with a launch bound, 16-byte
// non-coherent row loads (D % 4 == 0) and narrower loads for D = 6.

// LLVM: define void @layer(
// LLVM: !"kernel", i32 1}
// LLVM: !"maxntidx"

// PTX:     .entry layer(
// PTX-NOT: .entry
// PTX:     ld.global.nc.v4.f32
// PTX-NOT: .entry
func.func @layer(%a: tensor<?x4xi64>, %b: tensor<?x2xi64>, %g: tensor<?xi32>) -> tensor<?x30xf32> {
  %t = emb.table {name = "a"} : tensor<1000x16xf32>
  %u = emb.table {name = "b"} : tensor<1000x6xf32>
  %c = emb.table {name = "c"} : tensor<11x8xf32>
  %v, %s = emb.from_dense %a {ignore = -1 : i64} : tensor<?x4xi64> -> tensor<?xi64>
  %w, %z = emb.from_dense %b {ignore = -1 : i64} : tensor<?x2xi64> -> tensor<?xi64>
  %l = emb.lookup %t, %v, %s {combiner = "mean"} : tensor<1000x16xf32>, tensor<?xi64> -> tensor<?x16xf32>
  %m = emb.lookup %u, %w, %z {combiner = "sqrtn"} : tensor<1000x6xf32>, tensor<?xi64> -> tensor<?x6xf32>
  %n = emb.gather %c, %g : tensor<11x8xf32>, tensor<?xi32> -> tensor<?x8xf32>
  %r = emb.concat %l, %m, %n : (tensor<?x16xf32>, tensor<?x6xf32>, tensor<?x8xf32>) -> tensor<?x30xf32>
  func.return %r : tensor<?x30xf32>
}
