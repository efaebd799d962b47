// Attribute values of the fused and gpu ops that the interpreter, the simulator,
// the runtime or the backend cannot honour are refused by the verifier
// (block = 0 and lanes = 2^31 divided by zero in the interpreter, width at
// its maximum overflowed an allocation, 2^31 table floats asked for 8 GiB,
// split_k = 0 and tiles of 2^62 went through; offsets and sizes near 2^63
// wrapped around in the checks).
// RUN: recom-opt --split-input-file --verify-diagnostics %s

func.func @block_zero(%t: tensor<10x4xf32>, %v: tensor<?xi64>, %s: tensor<?xi64>) -> tensor<?x4xf32> {
  // expected-error@+1 {{attribute 'block' must be a multiple of 32 in [32, 1024], got 0}}
  %r = "fused.embedding_layer"(%t, %v, %s) {block = 0 : i64, columns = [{bags_per_task = 8 : i64, class = 0 : i64, combiner = "sum", cost = 1.0 : f64, kind = "lookup", lanes = 1 : i64, name = "c", out_offset = 0 : i64, pooling = 1.0 : f64, rows = 10 : i64, rows_in_flight = 1 : i64, segments = 1 : i64, store_width = 4 : i64, table_offset = 0 : i64, vector = 4 : i64, weighted = false, width = 4 : i64}], kernel = @emb::@layer, min_tasks = 0 : i64, schedule = "tuned", table_floats = 128 : i64, width = 4 : i64} : (tensor<10x4xf32>, tensor<?xi64>, tensor<?xi64>) -> tensor<?x4xf32>
  func.return %r : tensor<?x4xf32>
}

// -----

func.func @block_odd(%t: tensor<10x4xf32>, %v: tensor<?xi64>, %s: tensor<?xi64>) -> tensor<?x4xf32> {
  // expected-error@+1 {{attribute 'block' must be a multiple of 32 in [32, 1024], got 48}}
  %r = "fused.embedding_layer"(%t, %v, %s) {block = 48 : i64, columns = [{bags_per_task = 8 : i64, class = 0 : i64, combiner = "sum", cost = 1.0 : f64, kind = "lookup", lanes = 1 : i64, name = "c", out_offset = 0 : i64, pooling = 1.0 : f64, rows = 10 : i64, rows_in_flight = 1 : i64, segments = 1 : i64, store_width = 4 : i64, table_offset = 0 : i64, vector = 4 : i64, weighted = false, width = 4 : i64}], kernel = @emb::@layer, min_tasks = 0 : i64, schedule = "tuned", table_floats = 128 : i64, width = 4 : i64} : (tensor<10x4xf32>, tensor<?xi64>, tensor<?xi64>) -> tensor<?x4xf32>
  func.return %r : tensor<?x4xf32>
}

// -----

func.func @block_huge(%t: tensor<10x4xf32>, %v: tensor<?xi64>, %s: tensor<?xi64>) -> tensor<?x4xf32> {
  // expected-error@+1 {{attribute 'block' must be a multiple of 32 in [32, 1024], got 2048}}
  %r = "fused.embedding_layer"(%t, %v, %s) {block = 2048 : i64, columns = [{bags_per_task = 8 : i64, class = 0 : i64, combiner = "sum", cost = 1.0 : f64, kind = "lookup", lanes = 1 : i64, name = "c", out_offset = 0 : i64, pooling = 1.0 : f64, rows = 10 : i64, rows_in_flight = 1 : i64, segments = 1 : i64, store_width = 4 : i64, table_offset = 0 : i64, vector = 4 : i64, weighted = false, width = 4 : i64}], kernel = @emb::@layer, min_tasks = 0 : i64, schedule = "tuned", table_floats = 128 : i64, width = 4 : i64} : (tensor<10x4xf32>, tensor<?xi64>, tensor<?xi64>) -> tensor<?x4xf32>
  func.return %r : tensor<?x4xf32>
}

// -----

func.func @width_max(%t: tensor<10x4xf32>, %v: tensor<?xi64>, %s: tensor<?xi64>) -> tensor<?x9223372036854775807xf32> {
  // expected-error@+1 {{attribute 'width' must be in [1, 2147483647], got 9223372036854775807}}
  %r = "fused.embedding_layer"(%t, %v, %s) {block = 256 : i64, columns = [{bags_per_task = 8 : i64, class = 0 : i64, combiner = "sum", cost = 1.0 : f64, kind = "lookup", lanes = 1 : i64, name = "c", out_offset = 0 : i64, pooling = 1.0 : f64, rows = 10 : i64, rows_in_flight = 1 : i64, segments = 1 : i64, store_width = 4 : i64, table_offset = 0 : i64, vector = 4 : i64, weighted = false, width = 4 : i64}], kernel = @emb::@layer, min_tasks = 0 : i64, schedule = "tuned", table_floats = 128 : i64, width = 9223372036854775807 : i64} : (tensor<10x4xf32>, tensor<?xi64>, tensor<?xi64>) -> tensor<?x9223372036854775807xf32>
  func.return %r : tensor<?x9223372036854775807xf32>
}

// -----

func.func @table_floats_over_descriptor_reach(%t: tensor<10x4xf32>, %v: tensor<?xi64>, %s: tensor<?xi64>) -> tensor<?x4xf32> {
  // expected-error@+1 {{attribute 'table_floats' must be in [0, 137438953408], got 137438953409}}
  %r = "fused.embedding_layer"(%t, %v, %s) {block = 256 : i64, columns = [{bags_per_task = 8 : i64, class = 0 : i64, combiner = "sum", cost = 1.0 : f64, kind = "lookup", lanes = 1 : i64, name = "c", out_offset = 0 : i64, pooling = 1.0 : f64, rows = 10 : i64, rows_in_flight = 1 : i64, segments = 1 : i64, store_width = 4 : i64, table_offset = 0 : i64, vector = 4 : i64, weighted = false, width = 4 : i64}], kernel = @emb::@layer, min_tasks = 0 : i64, schedule = "tuned", table_floats = 137438953409 : i64, width = 4 : i64} : (tensor<10x4xf32>, tensor<?xi64>, tensor<?xi64>) -> tensor<?x4xf32>
  func.return %r : tensor<?x4xf32>
}

// -----

func.func @lanes_2_31(%t: tensor<10x4xf32>, %v: tensor<?xi64>, %s: tensor<?xi64>) -> tensor<?x4xf32> {
  // expected-error@+1 {{column #0: lanes must be a power of two in [1, 32], got 2147483648}}
  %r = "fused.embedding_layer"(%t, %v, %s) {block = 256 : i64, columns = [{bags_per_task = 8 : i64, class = 0 : i64, combiner = "sum", cost = 1.0 : f64, kind = "lookup", lanes = 2147483648 : i64, name = "c", out_offset = 0 : i64, pooling = 1.0 : f64, rows = 10 : i64, rows_in_flight = 1 : i64, segments = 1 : i64, store_width = 4 : i64, table_offset = 0 : i64, vector = 4 : i64, weighted = false, width = 4 : i64}], kernel = @emb::@layer, min_tasks = 0 : i64, schedule = "tuned", table_floats = 128 : i64, width = 4 : i64} : (tensor<10x4xf32>, tensor<?xi64>, tensor<?xi64>) -> tensor<?x4xf32>
  func.return %r : tensor<?x4xf32>
}

// -----

func.func @lanes_3(%t: tensor<10x4xf32>, %v: tensor<?xi64>, %s: tensor<?xi64>) -> tensor<?x4xf32> {
  // expected-error@+1 {{column #0: lanes must be a power of two in [1, 32], got 3}}
  %r = "fused.embedding_layer"(%t, %v, %s) {block = 256 : i64, columns = [{bags_per_task = 8 : i64, class = 0 : i64, combiner = "sum", cost = 1.0 : f64, kind = "lookup", lanes = 3 : i64, name = "c", out_offset = 0 : i64, pooling = 1.0 : f64, rows = 10 : i64, rows_in_flight = 1 : i64, segments = 1 : i64, store_width = 4 : i64, table_offset = 0 : i64, vector = 4 : i64, weighted = false, width = 4 : i64}], kernel = @emb::@layer, min_tasks = 0 : i64, schedule = "tuned", table_floats = 128 : i64, width = 4 : i64} : (tensor<10x4xf32>, tensor<?xi64>, tensor<?xi64>) -> tensor<?x4xf32>
  func.return %r : tensor<?x4xf32>
}

// -----

func.func @lanes_zero(%t: tensor<10x4xf32>, %v: tensor<?xi64>, %s: tensor<?xi64>) -> tensor<?x4xf32> {
  // expected-error@+1 {{column #0: lanes must be a power of two in [1, 32], got 0}}
  %r = "fused.embedding_layer"(%t, %v, %s) {block = 256 : i64, columns = [{bags_per_task = 8 : i64, class = 0 : i64, combiner = "sum", cost = 1.0 : f64, kind = "lookup", lanes = 0 : i64, name = "c", out_offset = 0 : i64, pooling = 1.0 : f64, rows = 10 : i64, rows_in_flight = 1 : i64, segments = 1 : i64, store_width = 4 : i64, table_offset = 0 : i64, vector = 4 : i64, weighted = false, width = 4 : i64}], kernel = @emb::@layer, min_tasks = 0 : i64, schedule = "tuned", table_floats = 128 : i64, width = 4 : i64} : (tensor<10x4xf32>, tensor<?xi64>, tensor<?xi64>) -> tensor<?x4xf32>
  func.return %r : tensor<?x4xf32>
}

// -----

func.func @vector_3(%t: tensor<10x4xf32>, %v: tensor<?xi64>, %s: tensor<?xi64>) -> tensor<?x4xf32> {
  // expected-error@+1 {{column #0: vector must be 1, 2 or 4, got 3}}
  %r = "fused.embedding_layer"(%t, %v, %s) {block = 256 : i64, columns = [{bags_per_task = 8 : i64, class = 0 : i64, combiner = "sum", cost = 1.0 : f64, kind = "lookup", lanes = 1 : i64, name = "c", out_offset = 0 : i64, pooling = 1.0 : f64, rows = 10 : i64, rows_in_flight = 1 : i64, segments = 1 : i64, store_width = 4 : i64, table_offset = 0 : i64, vector = 3 : i64, weighted = false, width = 4 : i64}], kernel = @emb::@layer, min_tasks = 0 : i64, schedule = "tuned", table_floats = 128 : i64, width = 4 : i64} : (tensor<10x4xf32>, tensor<?xi64>, tensor<?xi64>) -> tensor<?x4xf32>
  func.return %r : tensor<?x4xf32>
}

// -----

func.func @store_width_8(%t: tensor<10x4xf32>, %v: tensor<?xi64>, %s: tensor<?xi64>) -> tensor<?x4xf32> {
  // expected-error@+1 {{column #0: store_width must be 1, 2 or 4, got 8}}
  %r = "fused.embedding_layer"(%t, %v, %s) {block = 256 : i64, columns = [{bags_per_task = 8 : i64, class = 0 : i64, combiner = "sum", cost = 1.0 : f64, kind = "lookup", lanes = 1 : i64, name = "c", out_offset = 0 : i64, pooling = 1.0 : f64, rows = 10 : i64, rows_in_flight = 1 : i64, segments = 1 : i64, store_width = 8 : i64, table_offset = 0 : i64, vector = 4 : i64, weighted = false, width = 4 : i64}], kernel = @emb::@layer, min_tasks = 0 : i64, schedule = "tuned", table_floats = 128 : i64, width = 4 : i64} : (tensor<10x4xf32>, tensor<?xi64>, tensor<?xi64>) -> tensor<?x4xf32>
  func.return %r : tensor<?x4xf32>
}

// -----

func.func @segments_zero(%t: tensor<10x4xf32>, %v: tensor<?xi64>, %s: tensor<?xi64>) -> tensor<?x4xf32> {
  // expected-error@+1 {{column #0: segments must be in [1, 4] (the width), got 0}}
  %r = "fused.embedding_layer"(%t, %v, %s) {block = 256 : i64, columns = [{bags_per_task = 8 : i64, class = 0 : i64, combiner = "sum", cost = 1.0 : f64, kind = "lookup", lanes = 1 : i64, name = "c", out_offset = 0 : i64, pooling = 1.0 : f64, rows = 10 : i64, rows_in_flight = 1 : i64, segments = 0 : i64, store_width = 4 : i64, table_offset = 0 : i64, vector = 4 : i64, weighted = false, width = 4 : i64}], kernel = @emb::@layer, min_tasks = 0 : i64, schedule = "tuned", table_floats = 128 : i64, width = 4 : i64} : (tensor<10x4xf32>, tensor<?xi64>, tensor<?xi64>) -> tensor<?x4xf32>
  func.return %r : tensor<?x4xf32>
}

// -----

func.func @rows_in_flight(%t: tensor<10x4xf32>, %v: tensor<?xi64>, %s: tensor<?xi64>) -> tensor<?x4xf32> {
  // expected-error@+1 {{column #0: rows_in_flight must be in [1, 16], got 1024}}
  %r = "fused.embedding_layer"(%t, %v, %s) {block = 256 : i64, columns = [{bags_per_task = 8 : i64, class = 0 : i64, combiner = "sum", cost = 1.0 : f64, kind = "lookup", lanes = 1 : i64, name = "c", out_offset = 0 : i64, pooling = 1.0 : f64, rows = 10 : i64, rows_in_flight = 1024 : i64, segments = 1 : i64, store_width = 4 : i64, table_offset = 0 : i64, vector = 4 : i64, weighted = false, width = 4 : i64}], kernel = @emb::@layer, min_tasks = 0 : i64, schedule = "tuned", table_floats = 128 : i64, width = 4 : i64} : (tensor<10x4xf32>, tensor<?xi64>, tensor<?xi64>) -> tensor<?x4xf32>
  func.return %r : tensor<?x4xf32>
}

// -----

func.func @class_negative(%t: tensor<10x4xf32>, %v: tensor<?xi64>, %s: tensor<?xi64>) -> tensor<?x4xf32> {
  // expected-error@+1 {{column #0: class must be in [0, 2147483647], got -1}}
  %r = "fused.embedding_layer"(%t, %v, %s) {block = 256 : i64, columns = [{bags_per_task = 8 : i64, class = -1 : i64, combiner = "sum", cost = 1.0 : f64, kind = "lookup", lanes = 1 : i64, name = "c", out_offset = 0 : i64, pooling = 1.0 : f64, rows = 10 : i64, rows_in_flight = 1 : i64, segments = 1 : i64, store_width = 4 : i64, table_offset = 0 : i64, vector = 4 : i64, weighted = false, width = 4 : i64}], kernel = @emb::@layer, min_tasks = 0 : i64, schedule = "tuned", table_floats = 128 : i64, width = 4 : i64} : (tensor<10x4xf32>, tensor<?xi64>, tensor<?xi64>) -> tensor<?x4xf32>
  func.return %r : tensor<?x4xf32>
}

// -----

func.func @rows_overflow(%t: tensor<4611686018427387904x4xf32>, %v: tensor<?xi64>, %s: tensor<?xi64>) -> tensor<?x4xf32> {
  // expected-error@+1 {{column #0: a 4611686018427387904x4 table does not fit the 128-float arena}}
  %r = "fused.embedding_layer"(%t, %v, %s) {block = 256 : i64, columns = [{bags_per_task = 8 : i64, class = 0 : i64, combiner = "sum", cost = 1.0 : f64, kind = "lookup", lanes = 1 : i64, name = "c", out_offset = 0 : i64, pooling = 1.0 : f64, rows = 4611686018427387904 : i64, rows_in_flight = 1 : i64, segments = 1 : i64, store_width = 4 : i64, table_offset = 0 : i64, vector = 4 : i64, weighted = false, width = 4 : i64}], kernel = @emb::@layer, min_tasks = 0 : i64, schedule = "tuned", table_floats = 128 : i64, width = 4 : i64} : (tensor<4611686018427387904x4xf32>, tensor<?xi64>, tensor<?xi64>) -> tensor<?x4xf32>
  func.return %r : tensor<?x4xf32>
}

// -----

func.func @out_offset_overflow(%t: tensor<10x4xf32>, %v: tensor<?xi64>, %s: tensor<?xi64>) -> tensor<?x4xf32> {
  // expected-error@+1 {{column #0: out_offset 9223372036854775807 + width 4 exceeds the output width 4}}
  %r = "fused.embedding_layer"(%t, %v, %s) {block = 256 : i64, columns = [{bags_per_task = 8 : i64, class = 0 : i64, combiner = "sum", cost = 1.0 : f64, kind = "lookup", lanes = 1 : i64, name = "c", out_offset = 9223372036854775807 : i64, pooling = 1.0 : f64, rows = 10 : i64, rows_in_flight = 1 : i64, segments = 1 : i64, store_width = 4 : i64, table_offset = 0 : i64, vector = 4 : i64, weighted = false, width = 4 : i64}], kernel = @emb::@layer, min_tasks = 0 : i64, schedule = "tuned", table_floats = 128 : i64, width = 4 : i64} : (tensor<10x4xf32>, tensor<?xi64>, tensor<?xi64>) -> tensor<?x4xf32>
  func.return %r : tensor<?x4xf32>
}

// -----

func.func @bags_per_task_huge(%t: tensor<10x4xf32>, %v: tensor<?xi64>, %s: tensor<?xi64>) -> tensor<?x4xf32> {
  // expected-error@+1 {{column #0: bags_per_task must be in [1, 2147483647], got 4294967296}}
  %r = "fused.embedding_layer"(%t, %v, %s) {block = 256 : i64, columns = [{bags_per_task = 4294967296 : i64, class = 0 : i64, combiner = "sum", cost = 1.0 : f64, kind = "lookup", lanes = 1 : i64, name = "c", out_offset = 0 : i64, pooling = 1.0 : f64, rows = 10 : i64, rows_in_flight = 1 : i64, segments = 1 : i64, store_width = 4 : i64, table_offset = 0 : i64, vector = 4 : i64, weighted = false, width = 4 : i64}], kernel = @emb::@layer, min_tasks = 0 : i64, schedule = "tuned", table_floats = 128 : i64, width = 4 : i64} : (tensor<10x4xf32>, tensor<?xi64>, tensor<?xi64>) -> tensor<?x4xf32>
  func.return %r : tensor<?x4xf32>
}

// -----

func.func @split_k_zero(%x: tensor<?x8xf32>, %w: tensor<8x16xf32>, %b: tensor<16xf32>) -> tensor<?x16xf32> {
  // expected-error@+1 {{split_k must be in [1, 256], got 0}}
  %r = "fused.dense"(%x, %w, %b) {accumulate = "f64", activation = "relu", bias, block_k = 16 : i64, block_m = 64 : i64, block_n = 16 : i64, kernel = @dense::@d, ks = [8 : i64], n = 16 : i64, reduce_kernel = @dense::@r, split_k = 0 : i64, thread_m = 4 : i64, thread_n = 4 : i64, transpose_a = false, transpose_b = false} : (tensor<?x8xf32>, tensor<8x16xf32>, tensor<16xf32>) -> tensor<?x16xf32>
  func.return %r : tensor<?x16xf32>
}

// -----

func.func @block_m_2_62(%x: tensor<?x8xf32>, %w: tensor<8x16xf32>, %b: tensor<16xf32>) -> tensor<?x16xf32> {
  // expected-error@+1 {{block tile 4611686018427387904x16 (k step 16) must be at most 8192 in each dimension}}
  %r = "fused.dense"(%x, %w, %b) {accumulate = "f64", activation = "relu", bias, block_k = 16 : i64, block_m = 4611686018427387904 : i64, block_n = 16 : i64, kernel = @dense::@d, ks = [8 : i64], n = 16 : i64, thread_m = 4 : i64, thread_n = 4 : i64, transpose_a = false, transpose_b = false} : (tensor<?x8xf32>, tensor<8x16xf32>, tensor<16xf32>) -> tensor<?x16xf32>
  func.return %r : tensor<?x16xf32>
}

// -----

func.func @block_k_huge(%x: tensor<?x8xf32>, %w: tensor<8x16xf32>, %b: tensor<16xf32>) -> tensor<?x16xf32> {
  // expected-error@+1 {{block tile 64x16 (k step 1099511627776) must be at most 8192 in each dimension}}
  %r = "fused.dense"(%x, %w, %b) {accumulate = "f64", activation = "relu", bias, block_k = 1099511627776 : i64, block_m = 64 : i64, block_n = 16 : i64, kernel = @dense::@d, ks = [8 : i64], n = 16 : i64, thread_m = 4 : i64, thread_n = 4 : i64, transpose_a = false, transpose_b = false} : (tensor<?x8xf32>, tensor<8x16xf32>, tensor<16xf32>) -> tensor<?x16xf32>
  func.return %r : tensor<?x16xf32>
}

// -----

func.func @ks_huge(%x: tensor<?x8xf32>, %w: tensor<8x16xf32>, %b: tensor<16xf32>) -> tensor<?x16xf32> {
  // expected-error@+1 {{input widths must be in [1, 2147483647], got [9223372036854775807]}}
  %r = "fused.dense"(%x, %w, %b) {accumulate = "f64", activation = "relu", bias, block_k = 16 : i64, block_m = 64 : i64, block_n = 16 : i64, kernel = @dense::@d, ks = [9223372036854775807 : i64], n = 16 : i64, thread_m = 4 : i64, thread_n = 4 : i64, transpose_a = false, transpose_b = false} : (tensor<?x8xf32>, tensor<8x16xf32>, tensor<16xf32>) -> tensor<?x16xf32>
  func.return %r : tensor<?x16xf32>
}

// -----

// The backend writes min_blocks as a 32-bit launch bound.
gpu.module @m {
  // expected-error@+1 {{'gpu.func' op 'min_blocks' must be in [1, 2147483647], but is 1099511627776}}
  gpu.func @k() kernel attributes {min_blocks = 1099511627776 : i64} {
    gpu.return
  }
}
