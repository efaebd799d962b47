// RUN: recom-opt %s | recom-opt | FileCheck %s
// RUN: recom-opt %s --mlir-print-op-generic | FileCheck %s --check-prefix=GENERIC
// RUN: recom-opt %s --mlir-print-op-generic | recom-opt | FileCheck %s

// The ops of a sharded layer round-trip through their custom forms and
// the generic form; integers print without their i64 type.

// CHECK-LABEL: func.func @slice
// CHECK:         %[[S:.*]] = fused.table_slice %{{.*}} {hi = 6, lo = 2} : tensor<10x4xf32> -> tensor<4x4xf32>
// CHECK:         return %[[S]]
// GENERIC:       "fused.table_slice"(%{{.*}}) {hi = 6 : i64, lo = 2 : i64} : (tensor<10x4xf32>) -> tensor<4x4xf32>
func.func @slice(%t: tensor<10x4xf32>) -> tensor<4x4xf32> {
  %s = fused.table_slice %t {lo = 2, hi = 6} : tensor<10x4xf32> -> tensor<4x4xf32>
  func.return %s : tensor<4x4xf32>
}

// CHECK-LABEL: func.func @route
// CHECK:         %[[R:.*]]:7 = fused.route %{{.*}}, %{{.*}}, %{{.*}} {bounds = [0, 3, 10], column = {combiner = "mean", kind = "lookup", name = "c", rows = 10, source = "str", transforms = [{num_buckets = 10, op = "hash"}], weighted = true, width = 4}} : tensor<?x!tfg.string>, tensor<?xi64>, tensor<?xf32>
// CHECK:         return %[[R]]#0, %[[R]]#5, %[[R]]#6 : tensor<?xi64>, tensor<?xf32>, tensor<?xf32>
// GENERIC:       "fused.route"(%{{.*}}, %{{.*}}, %{{.*}}) {bounds = [0 : i64, 3 : i64, 10 : i64], {{.*}} : (tensor<?x!tfg.string>, tensor<?xi64>, tensor<?xf32>) -> (tensor<?xi64>, tensor<?xi64>, tensor<?xf32>, tensor<?xi64>, tensor<?xi64>, tensor<?xf32>, tensor<?xf32>)
func.func @route(%v: tensor<?x!tfg.string>, %s: tensor<?xi64>, %w: tensor<?xf32>) -> (tensor<?xi64>, tensor<?xf32>, tensor<?xf32>) {
  %r:7 = fused.route %v, %s, %w {bounds = [0, 3, 10], column = {combiner = "mean", kind = "lookup", name = "c", rows = 10, source = "str", transforms = [{num_buckets = 10, op = "hash"}], weighted = true, width = 4}} : tensor<?x!tfg.string>, tensor<?xi64>, tensor<?xf32>
  func.return %r#0, %r#5, %r#6 : tensor<?xi64>, tensor<?xf32>, tensor<?xf32>
}

// A gather column's route has no denominators.
// CHECK-LABEL: func.func @route_gather
// CHECK:         fused.route %{{.*}} {bounds = [0, 5, 11], column = {combiner = "mean", kind = "gather", name = "g", rows = 11, weighted = false, width = 4}} : tensor<?xi32>
func.func @route_gather(%g: tensor<?xi32>) -> tensor<?xi64> {
  %r:4 = fused.route %g {bounds = [0, 5, 11], column = {combiner = "mean", kind = "gather", name = "g", rows = 11, weighted = false, width = 4}} : tensor<?xi32>
  func.return %r#3 : tensor<?xi64>
}

// CHECK-LABEL: func.func @exchange
// CHECK:         fused.exchange %{{.*}}, %{{.*}}, %{{.*}} {device = 1, devices = [0, 1], kernel = @emb::@combine, segments = {{\[}}[0, 4, 0, 0, 0, 1, 0], [4, 4, -1, 0, 4]]} : tensor<?x8xf32>, tensor<?x4xf32>, tensor<?xf32> -> tensor<?x8xf32>
// GENERIC:       "fused.exchange"(%{{.*}}, %{{.*}}, %{{.*}}) {device = 1 : i64, devices = [0 : i64, 1 : i64], kernel = @emb::@combine, segments = {{\[}}[0 : i64, 4 : i64, 0 : i64, 0 : i64, 0 : i64, 1 : i64, 0 : i64], [4 : i64, 4 : i64, -1 : i64, 0 : i64, 4 : i64]]} : (tensor<?x8xf32>, tensor<?x4xf32>, tensor<?xf32>) -> tensor<?x8xf32>
func.func @exchange(%p0: tensor<?x8xf32>, %p1: tensor<?x4xf32>, %d: tensor<?xf32>) -> tensor<?x8xf32> {
  %r = fused.exchange %p0, %p1, %d {device = 1, devices = [0, 1], kernel = @emb::@combine, segments = [[0, 4, 0, 0, 0, 1, 0], [4, 4, -1, 0, 4]]} : tensor<?x8xf32>, tensor<?x4xf32>, tensor<?xf32> -> tensor<?x8xf32>
  func.return %r : tensor<?x8xf32>
}

// The plan of a layer and the device of a device's layer are attributes
// of fused.embedding_layer (generic form); a plan's text prints as written.
// CHECK-LABEL: func.func @layer_plan
// CHECK:         shard_plan = #fused.shard_plan<devices = 2, dense = 1, columns = [ rows(0:5@1,5:10@0) ]>
// CHECK-LABEL: func.func @layer_device
// CHECK:         device = 3 : i64
func.func @layer_plan(%t: tensor<10x4xf32>, %v: tensor<?xi64>, %s: tensor<?xi64>) -> tensor<?x4xf32> {
  %r = "fused.embedding_layer"(%t, %v, %s) {block = 256 : i64, columns = [{bags_per_task = 32 : i64, class = 0 : i64, combiner = "sum", cost = 1.0 : f64, kind = "lookup", lanes = 1 : i64, name = "c", out_offset = 0 : i64, pooling = 1.0 : f64, rows = 10 : i64, rows_in_flight = 1 : i64, segments = 1 : i64, store_width = 4 : i64, table_offset = 0 : i64, vector = 4 : i64, weighted = false, width = 4 : i64}], kernel = @emb::@layer, min_tasks = 0 : i64, schedule = "tuned", shard_plan = #fused.shard_plan<devices = 2, dense = 1, columns = [ rows(0:5@1,5:10@0) ]>, table_floats = 64 : i64, width = 4 : i64} : (tensor<10x4xf32>, tensor<?xi64>, tensor<?xi64>) -> tensor<?x4xf32>
  func.return %r : tensor<?x4xf32>
}
func.func @layer_device(%t: tensor<10x4xf32>, %v: tensor<?xi64>, %s: tensor<?xi64>) -> tensor<?x4xf32> {
  %r = "fused.embedding_layer"(%t, %v, %s) {block = 256 : i64, columns = [{bags_per_task = 32 : i64, class = 0 : i64, combiner = "sum", cost = 1.0 : f64, kind = "lookup", lanes = 1 : i64, name = "c", out_offset = 0 : i64, pooling = 1.0 : f64, rows = 10 : i64, rows_in_flight = 1 : i64, segments = 1 : i64, store_width = 4 : i64, table_offset = 0 : i64, vector = 4 : i64, weighted = false, width = 4 : i64}], device = 3 : i64, kernel = @emb::@layer, min_tasks = 0 : i64, schedule = "tuned", table_floats = 64 : i64, width = 4 : i64} : (tensor<10x4xf32>, tensor<?xi64>, tensor<?xi64>) -> tensor<?x4xf32>
  func.return %r : tensor<?x4xf32>
}
