// RUN: recom-opt --fuse --shard-plan='devices=2 row-threshold=10000' --verify-diagnostics %s | FileCheck %s --check-prefix=ROWS
// RUN: recom-opt --fuse --shard-plan='devices=3 dense-device=2' %s 2>/dev/null | FileCheck %s --check-prefix=WHOLE
// RUN: recom-opt --fuse --shard-plan='devices=1 row-threshold=0' %s | FileCheck %s --check-prefix=ONE
// RUN: not recom-opt --fuse --shard-plan='devices=2 device-bytes=20000' %s 2>&1 | FileCheck %s --check-prefix=FIT
// RUN: not recom-opt --fuse --shard-plan='devices=2 dense-device=2' %s 2>&1 | FileCheck %s --check-prefix=OPTS

// --shard-plan writes where each table lives as a #fused.shard_plan on the
// layer, one entry per column in the layer's (kernel) order: tables over
// row-threshold bytes (big: 32000 bytes, weighted: 16000) cut into a row
// range per device, the others whole on the device that keeps bytes and
// lookups balanced; the two columns of the shared table have one entry.
// A remark gives each device's load.

// ROWS-LABEL: func.func @layer
// ROWS:         "fused.embedding_layer"
// ROWS-SAME:      shard_plan = #fused.shard_plan<devices = 2, dense = 0, columns = [rows(0:500@0, 500:1000@1), 1, rows(0:250@0, 250:500@1), 0, 0, 1]>

// WHOLE:        shard_plan = #fused.shard_plan<devices = 3, dense = 2, columns = [0, 2, 1, 2, 2, 2]>

// ONE-LABEL: func.func @layer
// ONE-NOT:     shard_plan

// FIT: error: 'fused.embedding_layer' op the plan puts 32176 bytes of tables on device 0, more than device-bytes = 20000 (more devices, or a lower row-threshold, spread them further)

// OPTS: error: {{.*}}dense-device must be in [0, 2) (devices = 2), got 2

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
  // expected-remark @below {{ids computed before the layer: its ids are filtered by 'emb.filter'}}
  %l2 = emb.lookup %t2, %f2, %fs2, %fw2 {combiner = "sqrtn"} : tensor<500x8xf32>, tensor<?xi64>, tensor<?xf32> -> tensor<?x8xf32>

  %t3 = emb.table {name = "shared"} : tensor<200x8xf32>
  %v3, %s3 = emb.from_dense %x {ignore = -1 : i64} : tensor<?xi64> -> tensor<?xi64>
  %l3 = emb.lookup %t3, %v3, %s3 {combiner = "mean"} : tensor<200x8xf32>, tensor<?xi64> -> tensor<?x8xf32>
  %v4, %s4 = emb.from_dense %y {ignore = -1 : i64} : tensor<?xi64> -> tensor<?xi64>
  %l4 = emb.lookup %t3, %v4, %s4 {combiner = "mean"} : tensor<200x8xf32>, tensor<?xi64> -> tensor<?x8xf32>

  %t5 = emb.table {name = "gathered"} : tensor<11x4xf32>
  %l5 = emb.gather %t5, %g : tensor<11x4xf32>, tensor<?xi32> -> tensor<?x4xf32>

  // expected-remark@+1 {{shard plan over 2 devices: device 0: 3 tables and row ranges, 30400 bytes, 5.5 lookups per row; device 1: 4 tables and row ranges, 25776 bytes, 5.5 lookups per row}}
  %r = emb.concat %l0, %l1, %l2, %l3, %l4, %l5 : (tensor<?x8xf32>, tensor<?x4xf32>, tensor<?x8xf32>, tensor<?x8xf32>, tensor<?x8xf32>, tensor<?x4xf32>) -> tensor<?x40xf32>
  func.return %r : tensor<?x40xf32>
}
