// RUN: recom-opt --split-input-file --verify-diagnostics %s

// The verifiers of the sharded layer's ops: each error names what is wrong.

func.func @slice_range(%t: tensor<10x4xf32>) -> tensor<4x4xf32> {
  // expected-error@+1 {{rows [8, 12) are not a non-empty range of the table's 10 rows}}
  %s = fused.table_slice %t {lo = 8, hi = 12} : tensor<10x4xf32> -> tensor<4x4xf32>
  func.return %s : tensor<4x4xf32>
}

// -----

func.func @slice_result(%t: tensor<10x4xf32>) -> tensor<3x4xf32> {
  // expected-error@+1 {{result must be tensor<4x4xf32>, got tensor<3x4xf32>}}
  %s = fused.table_slice %t {lo = 2, hi = 6} : tensor<10x4xf32> -> tensor<3x4xf32>
  func.return %s : tensor<3x4xf32>
}

// -----

func.func @slice_dynamic(%t: tensor<?x4xf32>) -> tensor<4x4xf32> {
  // expected-error@+1 {{table must be a static tensor<RxDxf32>, got tensor<?x4xf32>}}
  %s = fused.table_slice %t {lo = 2, hi = 6} : tensor<?x4xf32> -> tensor<4x4xf32>
  func.return %s : tensor<4x4xf32>
}

// -----

func.func @route_bounds(%v: tensor<?xi64>, %s: tensor<?xi64>) {
  // expected-error@+1 {{attribute 'bounds' must go from 0 to the table's 10 rows, got [0 3 9]}}
  %r:5 = "fused.route"(%v, %s) {bounds = [0 : i64, 3 : i64, 9 : i64], column = {combiner = "mean", kind = "lookup", name = "c", rows = 10 : i64, weighted = false, width = 4 : i64}} : (tensor<?xi64>, tensor<?xi64>) -> (tensor<?xi64>, tensor<?xi64>, tensor<?xi64>, tensor<?xi64>, tensor<?xf32>)
  func.return
}

// -----

func.func @route_increase(%v: tensor<?xi64>, %s: tensor<?xi64>) {
  // expected-error@+1 {{attribute 'bounds' must increase, got [0 5 5 10]}}
  %r:7 = "fused.route"(%v, %s) {bounds = [0 : i64, 5 : i64, 5 : i64, 10 : i64], column = {combiner = "mean", kind = "lookup", name = "c", rows = 10 : i64, weighted = false, width = 4 : i64}} : (tensor<?xi64>, tensor<?xi64>) -> (tensor<?xi64>, tensor<?xi64>, tensor<?xi64>, tensor<?xi64>, tensor<?xi64>, tensor<?xi64>, tensor<?xf32>)
  func.return
}

// -----

func.func @route_operands(%v: tensor<?xi64>, %s: tensor<?xi64>, %w: tensor<?xf32>) {
  // expected-error@+1 {{column "c" takes 2 operands (its inputs less the table), got 3}}
  %r:5 = "fused.route"(%v, %s, %w) {bounds = [0 : i64, 3 : i64, 10 : i64], column = {combiner = "mean", kind = "lookup", name = "c", rows = 10 : i64, weighted = false, width = 4 : i64}} : (tensor<?xi64>, tensor<?xi64>, tensor<?xf32>) -> (tensor<?xi64>, tensor<?xi64>, tensor<?xi64>, tensor<?xi64>, tensor<?xf32>)
  func.return
}

// -----

func.func @route_results(%v: tensor<?xi64>, %s: tensor<?xi64>) {
  // expected-error@+1 {{2 row ranges give 5 results, got 4}}
  %r:4 = "fused.route"(%v, %s) {bounds = [0 : i64, 3 : i64, 10 : i64], column = {combiner = "mean", kind = "lookup", name = "c", rows = 10 : i64, weighted = false, width = 4 : i64}} : (tensor<?xi64>, tensor<?xi64>) -> (tensor<?xi64>, tensor<?xi64>, tensor<?xi64>, tensor<?xi64>)
  func.return
}

// -----

func.func @route_gather_weighted(%g: tensor<?xi32>) {
  // expected-error@+1 {{column: a gather column cannot be weighted}}
  %r:4 = "fused.route"(%g) {bounds = [0 : i64, 5 : i64, 11 : i64], column = {combiner = "mean", kind = "gather", name = "g", rows = 11 : i64, weighted = true, width = 4 : i64}} : (tensor<?xi32>) -> (tensor<?xi64>, tensor<?xi64>, tensor<?xi64>, tensor<?xi64>)
  func.return
}

// -----

func.func @exchange_cover(%p0: tensor<?x8xf32>, %p1: tensor<?x4xf32>) -> tensor<?x12xf32> {
  // expected-error@+1 {{the segments cover 8 of the result's 12 floats}}
  %r = fused.exchange %p0, %p1 {device = 0, devices = [0, 1], kernel = @emb::@combine, segments = [[0, 8, -1, 0, 0]]} : tensor<?x8xf32>, tensor<?x4xf32> -> tensor<?x12xf32>
  func.return %r : tensor<?x12xf32>
}

// -----

func.func @exchange_order(%p0: tensor<?x8xf32>, %p1: tensor<?x4xf32>) -> tensor<?x12xf32> {
  // expected-error@+1 {{segment #1 starts at 4, but the segments before it end at 8 (they must tile the row in order)}}
  %r = fused.exchange %p0, %p1 {device = 0, devices = [0, 1], kernel = @emb::@combine, segments = [[0, 8, -1, 0, 0], [4, 4, -1, 1, 0]]} : tensor<?x8xf32>, tensor<?x4xf32> -> tensor<?x12xf32>
  func.return %r : tensor<?x12xf32>
}

// -----

func.func @exchange_partial(%p0: tensor<?x8xf32>, %p1: tensor<?x4xf32>) -> tensor<?x12xf32> {
  // expected-error@+1 {{segment #1: floats [2, 6) of partial #1 exceed its width 4}}
  %r = fused.exchange %p0, %p1 {device = 0, devices = [0, 1], kernel = @emb::@combine, segments = [[0, 8, -1, 0, 0], [8, 4, -1, 1, 2]]} : tensor<?x8xf32>, tensor<?x4xf32> -> tensor<?x12xf32>
  func.return %r : tensor<?x12xf32>
}

// -----

func.func @exchange_den(%p0: tensor<?x8xf32>, %p1: tensor<?x4xf32>) -> tensor<?x12xf32> {
  // expected-error@+1 {{segment #0: den 0 is not -1 or one of the 0 den operands}}
  %r = fused.exchange %p0, %p1 {device = 0, devices = [0, 1], kernel = @emb::@combine, segments = [[0, 8, 0, 0, 0], [8, 4, -1, 1, 0]]} : tensor<?x8xf32>, tensor<?x4xf32> -> tensor<?x12xf32>
  func.return %r : tensor<?x12xf32>
}

// -----

func.func @exchange_device(%p0: tensor<?x8xf32>) -> tensor<?x8xf32> {
  // expected-error@+1 {{attribute 'device' must be in [0, 64), got 99}}
  %r = fused.exchange %p0 {device = 99, devices = [0], kernel = @emb::@combine, segments = [[0, 8, -1, 0, 0]]} : tensor<?x8xf32> -> tensor<?x8xf32>
  func.return %r : tensor<?x8xf32>
}

// -----

func.func @layer_plan_and_device(%t: tensor<10x4xf32>, %v: tensor<?xi64>, %s: tensor<?xi64>) -> tensor<?x4xf32> {
  // expected-error@+1 {{a layer of one device (attribute 'device') cannot have a shard plan}}
  %r = "fused.embedding_layer"(%t, %v, %s) {block = 256 : i64, columns = [{bags_per_task = 32 : i64, class = 0 : i64, combiner = "sum", cost = 1.0 : f64, kind = "lookup", lanes = 1 : i64, name = "c", out_offset = 0 : i64, pooling = 1.0 : f64, rows = 10 : i64, rows_in_flight = 1 : i64, segments = 1 : i64, store_width = 4 : i64, table_offset = 0 : i64, vector = 4 : i64, weighted = false, width = 4 : i64}], device = 1 : i64, kernel = @emb::@layer, min_tasks = 0 : i64, schedule = "tuned", shard_plan = #fused.shard_plan<devices = 2, dense = 1, columns = [0]>, table_floats = 64 : i64, width = 4 : i64} : (tensor<10x4xf32>, tensor<?xi64>, tensor<?xi64>) -> tensor<?x4xf32>
  func.return %r : tensor<?x4xf32>
}

// -----

func.func @layer_bad_plan(%t: tensor<10x4xf32>, %v: tensor<?xi64>, %s: tensor<?xi64>) -> tensor<?x4xf32> {
  // expected-error@+1 {{invalid shard plan at column 36: device 2 is not below devices = 2}}
  %r = "fused.embedding_layer"(%t, %v, %s) {block = 256 : i64, columns = [{bags_per_task = 32 : i64, class = 0 : i64, combiner = "sum", cost = 1.0 : f64, kind = "lookup", lanes = 1 : i64, name = "c", out_offset = 0 : i64, pooling = 1.0 : f64, rows = 10 : i64, rows_in_flight = 1 : i64, segments = 1 : i64, store_width = 4 : i64, table_offset = 0 : i64, vector = 4 : i64, weighted = false, width = 4 : i64}], kernel = @emb::@layer, min_tasks = 0 : i64, schedule = "tuned", shard_plan = #fused.shard_plan<devices = 2, dense = 0, columns = [2]>, table_floats = 64 : i64, width = 4 : i64} : (tensor<10x4xf32>, tensor<?xi64>, tensor<?xi64>) -> tensor<?x4xf32>
  func.return %r : tensor<?x4xf32>
}
