// RUN: recom-opt --fuse='schedule=RECom' %s | FileCheck %s

// RECom's design for comparison: one 64-thread block per column (the block
// index is the column), a thread per bag (a loop over the bags from the
// thread index in steps of 64), 8 floats of the row per pass with 16-byte
// loads, one id at a time (no unrolled accumulators).

// CHECK-LABEL: func.func @layer
// CHECK:         "fused.embedding_layer"
// CHECK-SAME:      {bags_per_task = 64 : i64, class = 0 : i64, {{[^}]*}}lanes = 1 : i64, name = "a", {{[^}]*}}rows_in_flight = 1 : i64, segments = 2 : i64, {{[^}]*}}vector = 4 : i64, weighted = false, width = 16 : i64}
// CHECK-SAME:      schedule = "recom"
// CHECK:       gpu.module @emb
// CHECK:         gpu.func @layer({{.*}}) kernel attributes {max_threads = 64 : i64, min_blocks = 1 : i64}
// CHECK:           %[[TID:.*]] = arith.extsi %{{.*}} : i32 to i64
// CHECK:           %[[BID:.*]] = gpu.block_id x
// CHECK:           gpu.for %{{[^ ]*}} = %[[TID]] to %{{[^ ]*}} step %{{[^ ]*}} {
// CHECK:             gpu.for %{{.*}} = %{{.*}} to %{{.*}} step %{{.*}} iter_args
// CHECK-COUNT-2:       gpu.load %{{.*}} {readonly, width = 4} : !gpu.ptr<f32, global> -> f32, f32, f32, f32
// CHECK-NOT:           gpu.load %{{.*}} {readonly, width = 4}
// CHECK:               gpu.yield
func.func @layer(%a: tensor<?x4xi64>) -> tensor<?x16xf32> {
  %t = emb.table {name = "a"} : tensor<1000x16xf32>
  %v, %s = emb.from_dense %a {ignore = -1 : i64} : tensor<?x4xi64> -> tensor<?xi64>
  %l = emb.lookup %t, %v, %s {combiner = "mean"} : tensor<1000x16xf32>, tensor<?xi64> -> tensor<?x16xf32>
  %r = emb.concat %l : (tensor<?x16xf32>) -> tensor<?x16xf32>
  func.return %r : tensor<?x16xf32>
}
