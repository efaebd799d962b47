// RUN: recom-opt --split-input-file --fuse %s | FileCheck %s

// A narrow column (D = 8): 16-byte loads, 2 lanes per bag (16 bags per warp
// pass), 4 rows in flight for bags of up to 4 ids; the lookup and the
// concatenation become one fused.embedding_layer calling @emb::@layer.

// CHECK-LABEL: func.func @narrow
// CHECK-NOT:     emb.lookup
// CHECK-NOT:     emb.concat
// CHECK:         %[[R:.*]] = "fused.embedding_layer"(%{{[^,)]*}}, %{{[^,)]*}}, %{{[^,)]*}}) {block = 256 : i64, columns = [{bags_per_task = 16 : i64, class = 0 : i64, combiner = "mean", {{.*}}kind = "lookup", lanes = 2 : i64, name = "t8", out_offset = 0 : i64, pooling = 4.000000e+00 : f64, rows = 100000 : i64, rows_in_flight = 4 : i64, segments = 1 : i64, store_width = 4 : i64, table_offset = 0 : i64, vector = 4 : i64, weighted = false, width = 8 : i64}], kernel = @emb::@layer, min_tasks = 6336 : i64, schedule = "tuned", table_floats = 800000 : i64, width = 8 : i64} : (tensor<100000x8xf32>, tensor<?xi64>, tensor<?xi64>) -> tensor<?x8xf32>
// CHECK:         return %[[R]]
// CHECK:       gpu.module @emb
// CHECK:         gpu.func @layer(%{{.*}}: !gpu.ptr<f32, global>, %{{.*}}: !gpu.ptr<i32, global>, %{{.*}}: !gpu.ptr<f32, global>, %{{.*}}: i64, %{{.*}}: i64) kernel attributes {max_threads = 256 : i64, min_blocks = 3 : i64}
// CHECK:           gpu.thread_id x
// CHECK:           gpu.block_id x
// CHECK:           gpu.for
// CHECK-COUNT-4:   gpu.load %{{.*}} {readonly, width = 4} : !gpu.ptr<f32, global> -> f32, f32, f32, f32
// CHECK:           arith.divf
// CHECK:           gpu.store %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}[%{{.*}}] {width = 4} : f32, f32, f32, f32, !gpu.ptr<f32, global>
// CHECK:           gpu.return
func.func @narrow(%a: tensor<?x4xi64>) -> tensor<?x8xf32> {
  %t = emb.table {name = "t8"} : tensor<100000x8xf32>
  %v, %s = emb.from_dense %a {ignore = -1 : i64} : tensor<?x4xi64> -> tensor<?xi64>
  %l = emb.lookup %t, %v, %s {combiner = "mean"} : tensor<100000x8xf32>, tensor<?xi64> -> tensor<?x8xf32>
  %r = emb.concat %l : (tensor<?x8xf32>) -> tensor<?x8xf32>
  func.return %r : tensor<?x8xf32>
}

// -----

// A wide column (D = 128): a whole warp per bag (32 lanes x 4 floats), one
// bag per warp pass; D = 256 makes the lanes loop over two segments.

// CHECK-LABEL: func.func @wide
// CHECK:         "fused.embedding_layer"
// CHECK-SAME:      lanes = 32 : i64, name = "t128", {{[^}]*}}segments = 1 : i64, {{[^}]*}}vector = 4 : i64, weighted = false, width = 128 : i64}
// CHECK-SAME:      lanes = 32 : i64, name = "t256", {{[^}]*}}segments = 2 : i64, {{[^}]*}}vector = 4 : i64, weighted = false, width = 256 : i64}
// CHECK-SAME:      width = 384 : i64}
func.func @wide(%a: tensor<?x4xi64>) -> tensor<?x384xf32> {
  %t = emb.table {name = "t128"} : tensor<100000x128xf32>
  %u = emb.table {name = "t256"} : tensor<100000x256xf32>
  %v, %s = emb.from_dense %a {ignore = -1 : i64} : tensor<?x4xi64> -> tensor<?xi64>
  %l = emb.lookup %t, %v, %s {combiner = "sum"} : tensor<100000x128xf32>, tensor<?xi64> -> tensor<?x128xf32>
  %m = emb.lookup %u, %v, %s {combiner = "sum"} : tensor<100000x256xf32>, tensor<?xi64> -> tensor<?x256xf32>
  %r = emb.concat %l, %m : (tensor<?x128xf32>, tensor<?x256xf32>) -> tensor<?x384xf32>
  func.return %r : tensor<?x384xf32>
}

// -----

// Long bags (up to 64 ids): twice the rows in flight (8); bags of up to 2
// ids of the same width: 2. Each its own class.

// CHECK-LABEL: func.func @long_bags
// CHECK:         "fused.embedding_layer"
// CHECK-SAME:      {bags_per_task = 16 : i64, class = 0 : i64, {{[^}]*}}name = "long", {{[^}]*}}pooling = 6.400000e+01 : f64, {{[^}]*}}rows_in_flight = 8 : i64
// CHECK-SAME:      {bags_per_task = 16 : i64, class = 1 : i64, {{[^}]*}}name = "short", {{[^}]*}}pooling = 2.000000e+00 : f64, {{[^}]*}}rows_in_flight = 2 : i64
func.func @long_bags(%a: tensor<?x64xi64>, %b: tensor<?x2xi64>) -> tensor<?x16xf32> {
  %t = emb.table {name = "long"} : tensor<100000x8xf32>
  %u = emb.table {name = "short"} : tensor<100000x8xf32>
  %v, %s = emb.from_dense %a {ignore = -1 : i64} : tensor<?x64xi64> -> tensor<?xi64>
  %w, %z = emb.from_dense %b {ignore = -1 : i64} : tensor<?x2xi64> -> tensor<?xi64>
  %l = emb.lookup %t, %v, %s {combiner = "sum"} : tensor<100000x8xf32>, tensor<?xi64> -> tensor<?x8xf32>
  %m = emb.lookup %u, %w, %z {combiner = "sum"} : tensor<100000x8xf32>, tensor<?xi64> -> tensor<?x8xf32>
  %r = emb.concat %l, %m : (tensor<?x8xf32>, tensor<?x8xf32>) -> tensor<?x16xf32>
  func.return %r : tensor<?x16xf32>
}

// -----

// A tiny table (a bucketized column's 11 rows, an i32 gather) stays in L2:
// its rows are cheap, so a task takes more bags than for a big table of
// the same width. Gathers have no row splits and one row in flight.

// CHECK-LABEL: func.func @tiny_table
// CHECK:         "fused.embedding_layer"(%{{[^,)]*}}, %{{[^,)]*}}, %{{[^,)]*}}, %{{[^,)]*}})
// CHECK-SAME:      {bags_per_task = 160 : i64, class = 0 : i64, combiner = "sum", cost = 2.800000e+01 : f64, kind = "gather", lanes = 1 : i64, name = "tiny", {{[^}]*}}rows_in_flight = 1 : i64
// CHECK-SAME:      {bags_per_task = 32 : i64, class = 1 : i64, combiner = "sum", cost = 8.800000e+01 : f64, kind = "gather", lanes = 1 : i64, name = "big", {{[^}]*}}rows_in_flight = 1 : i64
// CHECK-SAME:      : (tensor<11x4xf32>, tensor<?xi32>, tensor<1000000x4xf32>, tensor<?xi32>) -> tensor<?x8xf32>
func.func @tiny_table(%a: tensor<?xi32>, %b: tensor<?xi32>) -> tensor<?x8xf32> {
  %t = emb.table {name = "tiny"} : tensor<11x4xf32>
  %u = emb.table {name = "big"} : tensor<1000000x4xf32>
  %l = emb.gather %t, %a : tensor<11x4xf32>, tensor<?xi32> -> tensor<?x4xf32>
  %m = emb.gather %u, %b : tensor<1000000x4xf32>, tensor<?xi32> -> tensor<?x4xf32>
  %r = emb.concat %l, %m : (tensor<?x4xf32>, tensor<?x4xf32>) -> tensor<?x8xf32>
  func.return %r : tensor<?x8xf32>
}

// -----

// Shared tables are stored once; weighted columns take their weights.

// CHECK-LABEL: func.func @shared_weighted
// CHECK:         "fused.embedding_layer"(%[[T:[^,]*]], %{{[^,)]*}}, %{{[^,)]*}}, %{{[^,)]*}}, %[[T]], %{{[^,)]*}}, %{{[^,)]*}}, %{{[^,)]*}})
// CHECK-SAME:      name = "shared", {{[^}]*}}table_offset = 0 : i64, {{[^}]*}}weighted = true
// CHECK-SAME:      name = "shared", {{[^}]*}}table_offset = 0 : i64, {{[^}]*}}weighted = true
// CHECK-SAME:      table_floats = 1600 : i64
func.func @shared_weighted(%a: tensor<?x3xi64>, %w: tensor<?x3xf32>) -> tensor<?x32xf32> {
  %t = emb.table {name = "shared"} : tensor<100x16xf32>
  %v, %s = emb.from_dense %a : tensor<?x3xi64> -> tensor<?xi64>
  %x, %y = emb.from_dense %w : tensor<?x3xf32> -> tensor<?xf32>
  %l = emb.lookup %t, %v, %s, %x {combiner = "mean"} : tensor<100x16xf32>, tensor<?xi64>, tensor<?xf32> -> tensor<?x16xf32>
  %m = emb.lookup %t, %v, %s, %x {combiner = "sqrtn"} : tensor<100x16xf32>, tensor<?xi64>, tensor<?xf32> -> tensor<?x16xf32>
  %r = emb.concat %l, %m : (tensor<?x16xf32>, tensor<?x16xf32>) -> tensor<?x32xf32>
  func.return %r : tensor<?x32xf32>
}
