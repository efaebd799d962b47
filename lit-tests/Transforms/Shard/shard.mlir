// REQUIRES: llc
// RUN: recom-opt --fuse --shard='devices=2 row-threshold=10000' %s 2>/dev/null | FileCheck %s
// RUN: recom-opt --fuse --shard-plan='devices=2 row-threshold=10000' --shard %s 2>/dev/null | FileCheck %s
// RUN: recom-opt --fuse --shard='devices=2 row-threshold=10000' %s 2>/dev/null | recom-opt --mlir-print-op-generic | recom-opt | FileCheck %s
// RUN: recom-opt --fuse --shard='devices=2 row-threshold=10000' %s 2>/dev/null | recom-translate --emit-llvm - | llc-19 -march=nvptx64 -mcpu=sm_90 | FileCheck %s --check-prefix=PTX
// RUN: recom-opt --fuse --shard='devices=1' %s | FileCheck %s --check-prefix=ONE

// --shard splits the layer by its plan (made with the options, or the one
// --shard-plan wrote): the row-wise tables (big: mean; weighted: sqrtn)
// get a fused.route of their ids and a fused.table_slice per row range;
// each device gets a layer of its tables and ranges with a kernel of its
// own; fused.exchange assembles the output on device 0, a segment per
// column in output order: [out, width, den, partial, offset, ...]. The
// unsharded kernel goes; the devices' kernels and the combine kernel are
// NVPTX entries.

// CHECK-LABEL: func.func @layer
// CHECK:         %[[BIG:.*]] = emb.table {name = "big"} : tensor<1000x8xf32>
// CHECK:         %[[W:.*]] = emb.table {name = "weighted"} : tensor<500x8xf32>
// CHECK:         %[[RB:.*]]:5 = fused.route %{{.*}}, %{{.*}} {bounds = [0, 500, 1000], column = {combiner = "mean", kind = "lookup", name = "big", rows = 1000, weighted = false, width = 8}} : tensor<?xi64>, tensor<?xi64>
// CHECK-DAG:     %[[B0:.*]] = fused.table_slice %[[BIG]] {hi = 500, lo = 0} : tensor<1000x8xf32> -> tensor<500x8xf32>
// CHECK-DAG:     %[[B1:.*]] = fused.table_slice %[[BIG]] {hi = 1000, lo = 500} : tensor<1000x8xf32> -> tensor<500x8xf32>
// CHECK:         %[[RW:.*]]:7 = fused.route %{{.*}}, %{{.*}}, %{{.*}} {bounds = [0, 250, 500], column = {combiner = "sqrtn", kind = "lookup", name = "weighted", rows = 500, weighted = true, width = 8}} : tensor<?xi64>, tensor<?xi64>, tensor<?xf32>
// CHECK:         %[[P0:.*]] = "fused.embedding_layer"(%[[B0]], %[[RB]]#0, %[[RB]]#1, %{{.*}}, %[[RW]]#0, %[[RW]]#1, %[[RW]]#2,
// CHECK-SAME:      name = "big[0:500]"
// CHECK-SAME:      device = 0 : i64
// CHECK-SAME:      kernel = @emb::@layer_d0
// CHECK-SAME:      -> tensor<?x32xf32>
// CHECK:         %[[P1:.*]] = "fused.embedding_layer"(%[[B1]], %[[RB]]#2, %[[RB]]#3,
// CHECK-SAME:      device = 1 : i64
// CHECK-SAME:      kernel = @emb::@layer_d1
// CHECK-SAME:      -> tensor<?x24xf32>
// CHECK:         %[[X:.*]] = fused.exchange %[[P0]], %[[P1]], %[[RB]]#4, %[[RW]]#6 {device = 0, devices = [0, 1], kernel = @emb::@combine,
// CHECK-SAME:      segments = {{\[}}[0, 8, 0, 0, 0, 1, 0], [8, 4, -1, 1, 8], [12, 8, 1, 0, 8, 1, 12], [20, 8, -1, 0, 16], [28, 8, -1, 0, 24], [36, 4, -1, 1, 20]]}
// CHECK-SAME:      : tensor<?x32xf32>, tensor<?x24xf32>, tensor<?xf32>, tensor<?xf32> -> tensor<?x40xf32>
// CHECK:         return %[[X]] : tensor<?x40xf32>
// CHECK:       gpu.module @emb
// CHECK-NOT:     gpu.func @layer(
// CHECK:         gpu.func @layer_d0(
// CHECK:         gpu.func @layer_d1(
// CHECK:         gpu.func @combine(%{{.*}}: !gpu.ptr<i32, global>, %{{.*}}: !gpu.ptr<f32, global>, %{{.*}}: !gpu.ptr<f32, global>, %{{.*}}: !gpu.ptr<f32, global>, %{{.*}}: i64, %{{.*}}: i64) kernel

// PTX-DAG: .entry layer_d0(
// PTX-DAG: .entry layer_d1(
// PTX-DAG: .entry combine(

// ONE-NOT: fused.exchange
// ONE:     gpu.func @layer(

func.func @layer(%a: tensor<?x4xi64>, %s: tensor<?x!tfg.string>, %ws: tensor<?x3xi64>, %ww: tensor<?x3xf32>,
                 %x: tensor<?xi64>, %y: tensor<?xi64>, %g: tensor<?xi32>) -> tensor<?x40xf32> {
  %t0 = emb.table {name = "big"} : tensor<1000x8xf32>
  %v0, %s0 = emb.from_dense %a {ignore = -1 : i64} : tensor<?x4xi64> -> tensor<?xi64>
  %l0 = emb.lookup %t0, %v0, %s0 {combiner = "mean"} : tensor<1000x8xf32>, tensor<?xi64> -> tensor<?x8xf32>

  %t1 = emb.table {name = "strs"} : tensor<100x4xf32>
  %v1, %s1 = emb.from_dense %s {ignore = ""} : tensor<?x!tfg.string> -> tensor<?x!tfg.string>
  %h1 = emb.hash %v1 {num_buckets = 100 : i64} : tensor<?x!tfg.string> -> tensor<?xi64>
  %l1 = emb.lookup %t1, %h1, %s1 {combiner = "sum"} : tensor<100x4xf32>, tensor<?xi64> -> tensor<?x4xf32>

  %t2 = emb.table {name = "weighted"} : tensor<500x8xf32>
  %v2, %s2 = emb.from_dense %ws {ignore = -1 : i64} : tensor<?x3xi64> -> tensor<?xi64>
  %w2, %z2 = emb.from_dense %ww {ignore = -1.0 : f32} : tensor<?x3xf32> -> tensor<?xf32>
  %f2, %fs2, %fw2 = emb.filter %v2, %s2, %w2 {positive_weights} : tensor<?xi64>, tensor<?xf32>
  %l2 = emb.lookup %t2, %f2, %fs2, %fw2 {combiner = "sqrtn"} : tensor<500x8xf32>, tensor<?xi64>, tensor<?xf32> -> tensor<?x8xf32>

  %t3 = emb.table {name = "shared"} : tensor<200x8xf32>
  %v3, %s3 = emb.from_dense %x {ignore = -1 : i64} : tensor<?xi64> -> tensor<?xi64>
  %l3 = emb.lookup %t3, %v3, %s3 {combiner = "mean"} : tensor<200x8xf32>, tensor<?xi64> -> tensor<?x8xf32>
  %v4, %s4 = emb.from_dense %y {ignore = -1 : i64} : tensor<?xi64> -> tensor<?xi64>
  %l4 = emb.lookup %t3, %v4, %s4 {combiner = "mean"} : tensor<200x8xf32>, tensor<?xi64> -> tensor<?x8xf32>

  %t5 = emb.table {name = "gathered"} : tensor<11x4xf32>
  %l5 = emb.gather %t5, %g : tensor<11x4xf32>, tensor<?xi32> -> tensor<?x4xf32>

  %r = emb.concat %l0, %l1, %l2, %l3, %l4, %l5 : (tensor<?x8xf32>, tensor<?x4xf32>, tensor<?x8xf32>, tensor<?x8xf32>, tensor<?x8xf32>, tensor<?x4xf32>) -> tensor<?x40xf32>
  func.return %r : tensor<?x40xf32>
}
