// RUN: recom-opt --split-input-file --verify-diagnostics %s
// RUN: recom-opt --split-input-file --verify-diagnostics %s | FileCheck %s

// fused.embedding_layer's id computation attributes (source, transforms,
// params_offset, sep): a good column round-trips; bad ones name the column
// and the transform.

// CHECK-LABEL: func.func @ok
// CHECK: source = "str", {{.*}}transforms = [{num_buckets = 10 : i64, op = "hash"}]
func.func @ok(%t: tensor<10x4xf32>, %v: tensor<?x!tfg.string>, %s: tensor<?xi64>) -> tensor<?x4xf32> {
  %r = "fused.embedding_layer"(%t, %v, %s) {block = 256 : i64, columns = [{bags_per_task = 8 : i64, class = 0 : i64, combiner = "sum", cost = 1.0 : f64, kind = "lookup", lanes = 1 : i64, name = "c", out_offset = 0 : i64, params_offset = 64 : i64, pooling = 1.0 : f64, rows = 10 : i64, rows_in_flight = 1 : i64, segments = 1 : i64, source = "str", store_width = 4 : i64, table_offset = 0 : i64, transforms = [{num_buckets = 10 : i64, op = "hash"}], vector = 4 : i64, weighted = false, width = 4 : i64}], kernel = @emb::@layer, min_tasks = 0 : i64, schedule = "tuned", table_floats = 128 : i64, width = 4 : i64} : (tensor<10x4xf32>, tensor<?x!tfg.string>, tensor<?xi64>) -> tensor<?x4xf32>
  func.return %r : tensor<?x4xf32>
}

// -----

func.func @unknown_op(%t: tensor<10x4xf32>, %v: tensor<?x!tfg.string>, %s: tensor<?xi64>) -> tensor<?x4xf32> {
  // expected-error@+1 {{column #0: transform #0: unknown transform "rot13"}}
  %r = "fused.embedding_layer"(%t, %v, %s) {block = 256 : i64, columns = [{bags_per_task = 8 : i64, class = 0 : i64, combiner = "sum", cost = 1.0 : f64, kind = "lookup", lanes = 1 : i64, name = "c", out_offset = 0 : i64, params_offset = 64 : i64, pooling = 1.0 : f64, rows = 10 : i64, rows_in_flight = 1 : i64, segments = 1 : i64, source = "str", store_width = 4 : i64, table_offset = 0 : i64, transforms = [{op = "rot13"}], vector = 4 : i64, weighted = false, width = 4 : i64}], kernel = @emb::@layer, min_tasks = 0 : i64, schedule = "tuned", table_floats = 128 : i64, width = 4 : i64} : (tensor<10x4xf32>, tensor<?x!tfg.string>, tensor<?xi64>) -> tensor<?x4xf32>
  func.return %r : tensor<?x4xf32>
}

// -----

func.func @bad_chain(%t: tensor<10x4xf32>, %v: tensor<?x!tfg.string>, %s: tensor<?xi64>) -> tensor<?x4xf32> {
  // expected-error@+1 {{column #0: transform #0 (bucketize) does not apply to a str value}}
  %r = "fused.embedding_layer"(%t, %v, %s) {block = 256 : i64, columns = [{bags_per_task = 8 : i64, class = 0 : i64, combiner = "sum", cost = 1.0 : f64, kind = "lookup", lanes = 1 : i64, name = "c", out_offset = 0 : i64, params_offset = 64 : i64, pooling = 1.0 : f64, rows = 10 : i64, rows_in_flight = 1 : i64, segments = 1 : i64, source = "str", store_width = 4 : i64, table_offset = 0 : i64, transforms = [{boundaries = [1.0 : f32], op = "bucketize"}], vector = 4 : i64, weighted = false, width = 4 : i64}], kernel = @emb::@layer, min_tasks = 0 : i64, schedule = "tuned", table_floats = 128 : i64, width = 4 : i64} : (tensor<10x4xf32>, tensor<?x!tfg.string>, tensor<?xi64>) -> tensor<?x4xf32>
  func.return %r : tensor<?x4xf32>
}

// -----

func.func @split_sep(%t: tensor<10x4xf32>, %v: tensor<?x!tfg.string>, %s: tensor<?xi64>) -> tensor<?x4xf32> {
  // expected-error@+1 {{needs a one-byte separator, got ";;"}}
  %r = "fused.embedding_layer"(%t, %v, %s) {block = 256 : i64, columns = [{bags_per_task = 8 : i64, class = 0 : i64, combiner = "sum", cost = 1.0 : f64, kind = "lookup", lanes = 1 : i64, name = "c", out_offset = 0 : i64, params_offset = 64 : i64, pooling = 1.0 : f64, rows = 10 : i64, rows_in_flight = 1 : i64, segments = 1 : i64, sep = ";;", source = "split", store_width = 4 : i64, table_offset = 0 : i64, transforms = [{num_buckets = 10 : i64, op = "hash"}], vector = 4 : i64, weighted = false, width = 4 : i64}], kernel = @emb::@layer, min_tasks = 0 : i64, schedule = "tuned", table_floats = 128 : i64, width = 4 : i64} : (tensor<10x4xf32>, tensor<?x!tfg.string>, tensor<?xi64>) -> tensor<?x4xf32>
  func.return %r : tensor<?x4xf32>
}

// -----

func.func @float_keys(%t: tensor<10x4xf32>, %v: tensor<?xi64>, %s: tensor<?xi64>) -> tensor<?x4xf32> {
  // expected-error@+1 {{vocabulary: keys must be strings or integers}}
  %r = "fused.embedding_layer"(%t, %v, %s) {block = 256 : i64, columns = [{bags_per_task = 8 : i64, class = 0 : i64, combiner = "sum", cost = 1.0 : f64, kind = "lookup", lanes = 1 : i64, name = "c", out_offset = 0 : i64, params_offset = 64 : i64, pooling = 1.0 : f64, rows = 10 : i64, rows_in_flight = 1 : i64, segments = 1 : i64, source = "i64", store_width = 4 : i64, table_offset = 0 : i64, transforms = [{default = 0 : i64, keys = dense<[1.0, 2.0]> : tensor<2xf32>, num_oov_buckets = 0 : i64, op = "vocab"}], vector = 4 : i64, weighted = false, width = 4 : i64}], kernel = @emb::@layer, min_tasks = 0 : i64, schedule = "tuned", table_floats = 128 : i64, width = 4 : i64} : (tensor<10x4xf32>, tensor<?xi64>, tensor<?xi64>) -> tensor<?x4xf32>
  func.return %r : tensor<?x4xf32>
}

// -----

func.func @params_out(%t: tensor<10x4xf32>, %v: tensor<?x!tfg.string>, %s: tensor<?xi64>) -> tensor<?x4xf32> {
  // expected-error@+1 {{params_offset 128 (+64 floats) is not a multiple of 64 inside the 128-float arena}}
  %r = "fused.embedding_layer"(%t, %v, %s) {block = 256 : i64, columns = [{bags_per_task = 8 : i64, class = 0 : i64, combiner = "sum", cost = 1.0 : f64, kind = "lookup", lanes = 1 : i64, name = "c", out_offset = 0 : i64, params_offset = 128 : i64, pooling = 1.0 : f64, rows = 10 : i64, rows_in_flight = 1 : i64, segments = 1 : i64, source = "str", store_width = 4 : i64, table_offset = 0 : i64, transforms = [{num_buckets = 10 : i64, op = "hash"}], vector = 4 : i64, weighted = false, width = 4 : i64}], kernel = @emb::@layer, min_tasks = 0 : i64, schedule = "tuned", table_floats = 128 : i64, width = 4 : i64} : (tensor<10x4xf32>, tensor<?x!tfg.string>, tensor<?xi64>) -> tensor<?x4xf32>
  func.return %r : tensor<?x4xf32>
}

// -----

func.func @no_ids(%t: tensor<10x4xf32>, %v: tensor<?xi64>, %s: tensor<?xi64>) -> tensor<?x4xf32> {
  // expected-error@+1 {{transform #0 (hash) does not apply to a int value}}
  %r = "fused.embedding_layer"(%t, %v, %s) {block = 256 : i64, columns = [{bags_per_task = 8 : i64, class = 0 : i64, combiner = "sum", cost = 1.0 : f64, kind = "lookup", lanes = 1 : i64, name = "c", out_offset = 0 : i64, params_offset = 64 : i64, pooling = 1.0 : f64, rows = 10 : i64, rows_in_flight = 1 : i64, segments = 1 : i64, source = "i64", store_width = 4 : i64, table_offset = 0 : i64, transforms = [{num_buckets = 10 : i64, op = "hash"}], vector = 4 : i64, weighted = false, width = 4 : i64}], kernel = @emb::@layer, min_tasks = 0 : i64, schedule = "tuned", table_floats = 128 : i64, width = 4 : i64} : (tensor<10x4xf32>, tensor<?xi64>, tensor<?xi64>) -> tensor<?x4xf32>
  func.return %r : tensor<?x4xf32>
}

// -----

func.func @unsorted(%t: tensor<10x4xf32>, %v: tensor<?xf32>, %s: tensor<?xi64>) -> tensor<?x4xf32> {
  // expected-error@+1 {{bucketize: boundaries must be sorted}}
  %r = "fused.embedding_layer"(%t, %v, %s) {block = 256 : i64, columns = [{bags_per_task = 8 : i64, class = 0 : i64, combiner = "sum", cost = 1.0 : f64, kind = "lookup", lanes = 1 : i64, name = "c", out_offset = 0 : i64, params_offset = 64 : i64, pooling = 1.0 : f64, rows = 10 : i64, rows_in_flight = 1 : i64, segments = 1 : i64, source = "f32", store_width = 4 : i64, table_offset = 0 : i64, transforms = [{boundaries = [2.0 : f32, 1.0 : f32], op = "bucketize"}], vector = 4 : i64, weighted = false, width = 4 : i64}], kernel = @emb::@layer, min_tasks = 0 : i64, schedule = "tuned", table_floats = 128 : i64, width = 4 : i64} : (tensor<10x4xf32>, tensor<?xf32>, tensor<?xi64>) -> tensor<?x4xf32>
  func.return %r : tensor<?x4xf32>
}

// -----

func.func @drop_not_last(%t: tensor<10x4xf32>, %v: tensor<?xi64>, %s: tensor<?xi64>) -> tensor<?x4xf32> {
  // expected-error@+1 {{column #0: transform #0 (drop) must be the last}}
  %r = "fused.embedding_layer"(%t, %v, %s) {block = 256 : i64, columns = [{bags_per_task = 8 : i64, class = 0 : i64, combiner = "sum", cost = 1.0 : f64, kind = "lookup", lanes = 1 : i64, name = "c", out_offset = 0 : i64, params_offset = 64 : i64, pooling = 1.0 : f64, rows = 10 : i64, rows_in_flight = 1 : i64, segments = 1 : i64, source = "i64", store_width = 4 : i64, table_offset = 0 : i64, transforms = [{max = 9 : i64, min = 0 : i64, op = "drop"}, {bits = 32 : i64, op = "cast"}], vector = 4 : i64, weighted = false, width = 4 : i64}], kernel = @emb::@layer, min_tasks = 0 : i64, schedule = "tuned", table_floats = 128 : i64, width = 4 : i64} : (tensor<10x4xf32>, tensor<?xi64>, tensor<?xi64>) -> tensor<?x4xf32>
  func.return %r : tensor<?x4xf32>
}

// -----

func.func @drop_empty(%t: tensor<10x4xf32>, %v: tensor<?xi64>, %s: tensor<?xi64>) -> tensor<?x4xf32> {
  // expected-error@+1 {{column #0: transform #0: drop: min 5 is above max 4}}
  %r = "fused.embedding_layer"(%t, %v, %s) {block = 256 : i64, columns = [{bags_per_task = 8 : i64, class = 0 : i64, combiner = "sum", cost = 1.0 : f64, kind = "lookup", lanes = 1 : i64, name = "c", out_offset = 0 : i64, params_offset = 64 : i64, pooling = 1.0 : f64, rows = 10 : i64, rows_in_flight = 1 : i64, segments = 1 : i64, source = "i64", store_width = 4 : i64, table_offset = 0 : i64, transforms = [{max = 4 : i64, min = 5 : i64, op = "drop"}], vector = 4 : i64, weighted = false, width = 4 : i64}], kernel = @emb::@layer, min_tasks = 0 : i64, schedule = "tuned", table_floats = 128 : i64, width = 4 : i64} : (tensor<10x4xf32>, tensor<?xi64>, tensor<?xi64>) -> tensor<?x4xf32>
  func.return %r : tensor<?x4xf32>
}

// -----

func.func @drop_bounds(%t: tensor<10x4xf32>, %v: tensor<?xi64>, %s: tensor<?xi64>) -> tensor<?x4xf32> {
  // expected-error@+1 {{column #0: transform #0: column attribute 'max' must be an integer}}
  %r = "fused.embedding_layer"(%t, %v, %s) {block = 256 : i64, columns = [{bags_per_task = 8 : i64, class = 0 : i64, combiner = "sum", cost = 1.0 : f64, kind = "lookup", lanes = 1 : i64, name = "c", out_offset = 0 : i64, params_offset = 64 : i64, pooling = 1.0 : f64, rows = 10 : i64, rows_in_flight = 1 : i64, segments = 1 : i64, source = "i64", store_width = 4 : i64, table_offset = 0 : i64, transforms = [{min = 0 : i64, op = "drop"}], vector = 4 : i64, weighted = false, width = 4 : i64}], kernel = @emb::@layer, min_tasks = 0 : i64, schedule = "tuned", table_floats = 128 : i64, width = 4 : i64} : (tensor<10x4xf32>, tensor<?xi64>, tensor<?xi64>) -> tensor<?x4xf32>
  func.return %r : tensor<?x4xf32>
}

// -----

func.func @drop_gather(%t: tensor<10x4xf32>, %v: tensor<?xi64>) -> tensor<?x4xf32> {
  // expected-error@+1 {{column #0: drop needs bags: a gather column has exactly one id per row}}
  %r = "fused.embedding_layer"(%t, %v) {block = 256 : i64, columns = [{bags_per_task = 8 : i64, class = 0 : i64, combiner = "sum", cost = 1.0 : f64, kind = "gather", lanes = 1 : i64, name = "c", out_offset = 0 : i64, params_offset = 64 : i64, pooling = 1.0 : f64, rows = 10 : i64, rows_in_flight = 1 : i64, segments = 1 : i64, source = "i64", store_width = 4 : i64, table_offset = 0 : i64, transforms = [{max = 9 : i64, min = 0 : i64, op = "drop"}], vector = 4 : i64, weighted = false, width = 4 : i64}], kernel = @emb::@layer, min_tasks = 0 : i64, schedule = "tuned", table_floats = 128 : i64, width = 4 : i64} : (tensor<10x4xf32>, tensor<?xi64>) -> tensor<?x4xf32>
  func.return %r : tensor<?x4xf32>
}
