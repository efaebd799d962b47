// The verifiers of the emb ops reject invalid IR with a diagnostic on the op.
// RUN: recom-opt %s --split-input-file --verify-diagnostics

func.func @from_dense_rank3(%x: tensor<?x2x2xi64>) {
  // expected-error@+1 {{'emb.from_dense' op operand #0 must be ranked tensor of rank 1 or 2 of integers, floats or strings, but got 'tensor<?x2x2xi64>'}}
  %v, %s = "emb.from_dense"(%x) : (tensor<?x2x2xi64>) -> (tensor<?xi64>, tensor<?xi64>)
  func.return
}

// -----

func.func @from_dense_ignore_type(%x: tensor<?x1xi64>) {
  // expected-error@+1 {{'emb.from_dense' op attribute 'ignore' must be a value of the input element type i64}}
  %v, %s = emb.from_dense %x {ignore = -1 : i32} : tensor<?x1xi64> -> tensor<?xi64>
  func.return
}

// -----

func.func @from_dense_ignore_string(%x: tensor<?x!tfg.string>) {
  // expected-error@+1 {{'emb.from_dense' op attribute 'ignore' must be a value of the input element type !tfg.string}}
  %v, %s = emb.from_dense %x {ignore = -1 : i64} : tensor<?x!tfg.string> -> tensor<?x!tfg.string>
  func.return
}

// -----

func.func @from_dense_elem(%x: tensor<?x1xi64>) {
  // expected-error@+1 {{'emb.from_dense' op values element type i32 does not match the input element type i64}}
  %v, %s = emb.from_dense %x : tensor<?x1xi64> -> tensor<?xi32>
  func.return
}

// -----

func.func @static_values(%x: tensor<4x1xi64>) {
  // expected-error@+1 {{'emb.from_dense' op result #0 must be ragged values tensor<?xT> of integers, floats or strings, but got 'tensor<4xi64>'}}
  %v, %s = emb.from_dense %x : tensor<4x1xi64> -> tensor<4xi64>
  func.return
}

// -----

func.func @splits_type(%x: tensor<?x1xi64>) {
  // expected-error@+1 {{'emb.from_dense' op result #1 must be row splits tensor<?xi64>, but got 'tensor<?xi32>'}}
  %v:2 = "emb.from_dense"(%x) : (tensor<?x1xi64>) -> (tensor<?xi64>, tensor<?xi32>)
  func.return
}

// -----

func.func @from_sparse_indices(%i: tensor<?x3xi64>, %v: tensor<?xi64>, %sh: tensor<2xi64>) {
  // expected-error@+1 {{'emb.from_sparse' op operand #0 must be tensor<?x2xi64> of sparse indices, but got 'tensor<?x3xi64>'}}
  %r, %s = emb.from_sparse %i, %v, %sh : tensor<?x3xi64>, tensor<?xi64>, tensor<2xi64> -> tensor<?xi64>
  func.return
}

// -----

func.func @split_strings_no_sep(%x: tensor<?x!tfg.string>) {
  // expected-error@+1 {{'emb.split_strings' op requires attribute 'sep'}}
  %v, %s = emb.split_strings %x : tensor<?x!tfg.string> -> tensor<?x!tfg.string>
  func.return
}

// -----

func.func @hash_buckets(%x: tensor<?x!tfg.string>) {
  // expected-error@+1 {{'emb.hash' op requires num_buckets >= 1, but got 0}}
  %h = emb.hash %x {num_buckets = 0 : i64} : tensor<?x!tfg.string> -> tensor<?xi64>
  func.return
}

// -----

func.func @hash_of_ints(%x: tensor<?xi64>) {
  // expected-error@+1 {{'emb.hash' op operand #0 must be ragged values tensor<?x!tfg.string>, but got 'tensor<?xi64>'}}
  %h = emb.hash %x {num_buckets = 10 : i64} : tensor<?xi64> -> tensor<?xi64>
  func.return
}

// -----

func.func @bucketize_unsorted(%x: tensor<?xf32>) {
  // expected-error@+1 {{'emb.bucketize' op boundaries must be sorted, but boundaries[0] = 2 > boundaries[1] = 1}}
  %b = emb.bucketize %x {boundaries = [2.0 : f32, 1.0 : f32]} : tensor<?xf32> -> tensor<?xi64>
  func.return
}

// -----

func.func @bucketize_f64_boundaries(%x: tensor<?xf32>) {
  // expected-error@+1 {{'emb.bucketize' op attribute 'boundaries' must be an array of f32 floats}}
  %b = emb.bucketize %x {boundaries = [1.0 : f64]} : tensor<?xf32> -> tensor<?xi64>
  func.return
}

// -----

func.func @vocab_duplicate(%x: tensor<?x!tfg.string>) {
  // expected-error@+1 {{'emb.vocab_lookup' op keys[0] and keys[2] are both "a": vocabulary keys must be unique}}
  %r = emb.vocab_lookup %x {keys = dense<["a", "b", "a"]> : tensor<3x!tfg.string>} : tensor<?x!tfg.string> -> tensor<?xi64>
  func.return
}

// -----

func.func @vocab_key_type(%x: tensor<?xi32>) {
  // expected-error@+1 {{'emb.vocab_lookup' op attribute 'keys' must be a 1-D tensor of the input element type i32, but got tensor<2xi64>}}
  %r = emb.vocab_lookup %x {keys = dense<[1, 2]> : tensor<2xi64>} : tensor<?xi32> -> tensor<?xi64>
  func.return
}

// -----

func.func @vocab_oov(%x: tensor<?xi64>) {
  // expected-error@+1 {{'emb.vocab_lookup' op requires num_oov_buckets >= 0, but got -1}}
  %r = emb.vocab_lookup %x {keys = dense<[1, 2]> : tensor<2xi64>, num_oov_buckets = -1 : i64} : tensor<?xi64> -> tensor<?xi64>
  func.return
}

// -----

func.func @check_range_buckets(%x: tensor<?xi64>) {
  // expected-error@+1 {{'emb.check_range' op requires num_buckets >= 1, but got 0}}
  %r = emb.check_range %x {num_buckets = 0 : i64} : tensor<?xi64> -> tensor<?xi64>
  func.return
}

// -----

func.func @check_range_type(%x: tensor<?xi64>) {
  // expected-error@+1 {{'emb.check_range' op result type tensor<?xi32> does not match the values type tensor<?xi64>}}
  %r = emb.check_range %x {num_buckets = 4 : i64} : tensor<?xi64> -> tensor<?xi32>
  func.return
}

// -----

func.func @cast_float(%x: tensor<?xf32>) {
  // expected-error@+1 {{'emb.cast' op operand #0 must be ragged values tensor<?xiN> of signless integers, but got 'tensor<?xf32>'}}
  %r = emb.cast %x : tensor<?xf32> -> tensor<?xi64>
  func.return
}

// -----

func.func @add_offset_no_stride(%x: tensor<?xi64>, %s: tensor<?xi64>) {
  // expected-error@+1 {{'emb.add_offset' op requires attribute 'stride'}}
  %r = emb.add_offset %x, %s : tensor<?xi64>
  func.return
}

// -----

func.func @filter_bounds(%x: tensor<?xi64>, %s: tensor<?xi64>) {
  // expected-error@+1 {{'emb.filter' op requires min <= max, but got min = 5 and max = 1}}
  %v, %t = emb.filter %x, %s {min = 5 : i64, max = 1 : i64} : tensor<?xi64>
  func.return
}

// -----

func.func @filter_positive_weights(%x: tensor<?xi64>, %s: tensor<?xi64>) {
  // expected-error@+1 {{'emb.filter' op 'positive_weights' requires a weights operand}}
  %v, %t = emb.filter %x, %s {positive_weights} : tensor<?xi64>
  func.return
}

// -----

func.func @filter_results(%x: tensor<?xi64>, %s: tensor<?xi64>, %w: tensor<?xf32>) {
  // expected-error@+1 {{'emb.filter' op expects one result per operand (3), but got 2}}
  %r:2 = "emb.filter"(%x, %s, %w) : (tensor<?xi64>, tensor<?xi64>, tensor<?xf32>) -> (tensor<?xi64>, tensor<?xi64>)
  func.return
}

// -----

func.func @table_rank() {
  // expected-error@+1 {{'emb.table' op result #0 must be statically shaped 2-D tensor of f32 or f64, but got 'tensor<100xf32>'}}
  %t = emb.table {name = "t"} : tensor<100xf32>
  func.return
}

// -----

func.func @table_dynamic() {
  // expected-error@+1 {{'emb.table' op result #0 must be statically shaped 2-D tensor of f32 or f64, but got 'tensor<?x8xf32>'}}
  %t = emb.table {name = "t"} : tensor<?x8xf32>
  func.return
}

// -----

func.func @table_value_type() {
  // expected-error@+1 {{'emb.table' op value type tensor<2x2xf32> does not match the table type tensor<2x3xf32>}}
  %t = emb.table {name = "t", value = dense<1.0> : tensor<2x2xf32>} : tensor<2x3xf32>
  func.return
}

// -----

func.func @table_strategy_alone() {
  // expected-error@+1 {{'emb.table' op has a 'partition_strategy' but no 'partitions'}}
  %t = emb.table {name = "t", partition_strategy = "mod"} : tensor<10x4xf32>
  func.return
}

// -----

func.func @table_no_partitions() {
  // expected-error@+1 {{'emb.table' op requires 'partitions' to be a non-empty array of variable names}}
  %t = emb.table {name = "t", partitions = [], partition_strategy = "mod"} : tensor<10x4xf32>
  func.return
}

// -----

func.func @table_partition_name() {
  // expected-error@+1 {{'emb.table' op requires 'partitions' to hold non-empty strings, but #1 is 3 : i64}}
  %t = emb.table {name = "t", partitions = ["t/part_0", 3], partition_strategy = "mod"} : tensor<10x4xf32>
  func.return
}

// -----

func.func @table_partition_twice() {
  // expected-error@+1 {{'emb.table' op names the partition "t/part_0" twice}}
  %t = emb.table {name = "t", partitions = ["t/part_0", "t/part_0"], partition_strategy = "div"} : tensor<10x4xf32>
  func.return
}

// -----

func.func @table_partition_strategy() {
  // expected-error@+1 {{'emb.table' op requires 'partition_strategy' "mod" or "div", got "range"}}
  %t = emb.table {name = "t", partitions = ["t/part_0", "t/part_1"], partition_strategy = "range"} : tensor<10x4xf32>
  func.return
}

// -----

func.func @table_partition_no_strategy() {
  // expected-error@+1 {{'emb.table' op requires 'partition_strategy' "mod" or "div", got none}}
  %t = emb.table {name = "t", partitions = ["t/part_0", "t/part_1"]} : tensor<10x4xf32>
  func.return
}

// -----

func.func @table_partitions_and_value() {
  // expected-error@+1 {{'emb.table' op has both a 'value' and 'partitions'}}
  %t = emb.table {name = "t", partitions = ["t/part_0"], partition_strategy = "div", value = dense<1.0> : tensor<2x2xf32>} : tensor<2x2xf32>
  func.return
}

// -----

func.func @table_too_many_partitions() {
  // expected-error@+1 {{'emb.table' op has 3 partitions for 2 rows (every partition needs a row)}}
  %t = emb.table {name = "t", partitions = ["a", "b", "c"], partition_strategy = "div"} : tensor<2x2xf32>
  func.return
}

// -----

func.func @table_no_name() {
  // expected-error@+1 {{'emb.table' op requires attribute 'name'}}
  %t = emb.table : tensor<2x3xf32>
  func.return
}

// -----

func.func @lookup_div_no_nan_sum(%v: tensor<?xi64>, %s: tensor<?xi64>, %w: tensor<?xf32>) {
  %t = emb.table {name = "t"} : tensor<100x8xf32>
  // expected-error@+1 {{'emb.lookup' op div_no_nan is for weighted mean and sqrtn lookups}}
  %r = emb.lookup %t, %v, %s, %w {combiner = "sum", div_no_nan} : tensor<100x8xf32>, tensor<?xi64>, tensor<?xf32> -> tensor<?x8xf32>
  func.return
}

// -----

func.func @lookup_div_no_nan_unweighted(%v: tensor<?xi64>, %s: tensor<?xi64>) {
  %t = emb.table {name = "t"} : tensor<100x8xf32>
  // expected-error@+1 {{'emb.gather_scatter' op div_no_nan is for weighted mean and sqrtn lookups}}
  %r = emb.gather_scatter %t, %v, %s {combiner = "mean", div_no_nan} : tensor<100x8xf32>, tensor<?xi64> -> tensor<?x8xf32>
  func.return
}

// -----

func.func @lookup_combiner(%v: tensor<?xi64>, %s: tensor<?xi64>) {
  %t = emb.table {name = "t"} : tensor<100x8xf32>
  // expected-error@+1 {{'emb.lookup' op combiner must be "sum", "mean" or "sqrtn", but got "max"}}
  %r = emb.lookup %t, %v, %s {combiner = "max"} : tensor<100x8xf32>, tensor<?xi64> -> tensor<?x8xf32>
  func.return
}

// -----

func.func @lookup_width(%v: tensor<?xi64>, %s: tensor<?xi64>) {
  %t = emb.table {name = "t"} : tensor<100x8xf32>
  // expected-error@+1 {{'emb.lookup' op result width 4 does not match the table width 8}}
  %r = emb.lookup %t, %v, %s {combiner = "sum"} : tensor<100x8xf32>, tensor<?xi64> -> tensor<?x4xf32>
  func.return
}

// -----

func.func @lookup_string_ids(%v: tensor<?x!tfg.string>, %s: tensor<?xi64>) {
  %t = emb.table {name = "t"} : tensor<100x8xf32>
  // expected-error@+1 {{'emb.lookup' op operand #1 must be ragged values tensor<?xiN> of signless integers, but got 'tensor<?x!tfg.string>'}}
  %r = emb.lookup %t, %v, %s {combiner = "sum"} : tensor<100x8xf32>, tensor<?x!tfg.string> -> tensor<?x8xf32>
  func.return
}

// -----

func.func @lookup_weights(%v: tensor<?xi64>, %s: tensor<?xi64>, %w: tensor<?xf64>) {
  %t = emb.table {name = "t"} : tensor<100x8xf32>
  // expected-error@+1 {{'emb.gather_scatter' op weights element type f64 does not match the table element type f32}}
  %r = emb.gather_scatter %t, %v, %s, %w {combiner = "sum"} : tensor<100x8xf32>, tensor<?xi64>, tensor<?xf64> -> tensor<?x8xf32>
  func.return
}

// -----

func.func @lookup_splits(%v: tensor<?xi64>, %s: tensor<?xi32>) {
  %t = emb.table {name = "t"} : tensor<100x8xf32>
  // expected-error@+1 {{'emb.lookup' op operand #2 must be row splits tensor<?xi64>, but got 'tensor<?xi32>'}}
  %r = "emb.lookup"(%t, %v, %s) {combiner = "sum"} : (tensor<100x8xf32>, tensor<?xi64>, tensor<?xi32>) -> tensor<?x8xf32>
  func.return
}

// -----

func.func @gather_elem(%v: tensor<?xi64>) {
  %t = emb.table {name = "t"} : tensor<100x8xf32>
  // expected-error@+1 {{'emb.gather' op result element type f64 does not match the table element type f32}}
  %r = emb.gather %t, %v : tensor<100x8xf32>, tensor<?xi64> -> tensor<?x8xf64>
  func.return
}

// -----

func.func @concat_width(%a: tensor<?x8xf32>, %b: tensor<?x4xf32>) {
  // expected-error@+1 {{'emb.concat' op result width 16 is not the sum of the operand widths (12)}}
  %r = emb.concat %a, %b : (tensor<?x8xf32>, tensor<?x4xf32>) -> tensor<?x16xf32>
  func.return
}

// -----

func.func @concat_rows(%a: tensor<4x8xf32>, %b: tensor<?x4xf32>) {
  // expected-error@+1 {{'emb.concat' op operand #0 has 4 rows, but the result has 2}}
  %r = emb.concat %a, %b : (tensor<4x8xf32>, tensor<?x4xf32>) -> tensor<2x12xf32>
  func.return
}

// -----

func.func @concat_none() {
  // expected-error@+1 {{'emb.concat' op expected 1 or more operands, but found 0}}
  %r = "emb.concat"() : () -> tensor<?x16xf32>
  func.return
}

// -----

func.func @custom_form_arity(%x: tensor<?xi64>) {
  // expected-error@+1 {{expected 2 or 3 operands (values, row splits[, weights]), but found 1}}
  %v, %t = emb.filter %x {min = 0 : i64} : tensor<?xi64>
  func.return
}

// -----

func.func @cross_odd(%a: tensor<?xi64>, %s: tensor<?xi64>) {
  // expected-error@+1 {{'emb.cross' op expects (values, row splits) pairs, but has 3 operands}}
  %v, %r = "emb.cross"(%a, %s, %a) {hash_key = 1 : i64, num_buckets = 10 : i64} : (tensor<?xi64>, tensor<?xi64>, tensor<?xi64>) -> (tensor<?xi64>, tensor<?xi64>)
  func.return
}

// -----

func.func @cross_i32(%a: tensor<?xi32>, %s: tensor<?xi64>) {
  // expected-error@+1 {{'emb.cross' op input #0 must be ragged values tensor<?xi64> or tensor<?x!tfg.string>, but got tensor<?xi32>}}
  %v, %r = emb.cross %a, %s {hash_key = 1 : i64, num_buckets = 10 : i64} : tensor<?xi32> -> tensor<?xi64>
  func.return
}

// -----

func.func @cross_both(%a: tensor<?xi64>, %s: tensor<?xi64>) {
  // expected-error@+1 {{'emb.cross' op requires exactly one of 'hash_key' (hashed ids) and 'sep' (joined strings)}}
  %v, %r = emb.cross %a, %s {hash_key = 1 : i64, num_buckets = 10 : i64, sep = "_X_"} : tensor<?xi64> -> tensor<?xi64>
  func.return
}

// -----

func.func @cross_buckets(%a: tensor<?xi64>, %s: tensor<?xi64>) {
  // expected-error@+1 {{'emb.cross' op requires num_buckets >= 0 with 'hash_key', but got -3}}
  %v, %r = emb.cross %a, %s {hash_key = 1 : i64, num_buckets = -3 : i64} : tensor<?xi64> -> tensor<?xi64>
  func.return
}

// -----

func.func @cross_string_ids(%a: tensor<?xi64>, %s: tensor<?xi64>) {
  // expected-error@+1 {{'emb.cross' op hashed crosses are i64 ids, but the result is tensor<?x!tfg.string>}}
  %v, %r = emb.cross %a, %s {hash_key = 1 : i64, num_buckets = 10 : i64} : tensor<?xi64> -> tensor<?x!tfg.string>
  func.return
}

// -----

func.func @cross_joined_ints(%a: tensor<?xi64>, %s: tensor<?xi64>) {
  // expected-error@+1 {{'emb.cross' op joined crosses are strings, but the result is tensor<?xi64>}}
  %v, %r = emb.cross %a, %s {sep = "_X_"} : tensor<?xi64> -> tensor<?xi64>
  func.return
}

// -----

func.func @cross_splits(%a: tensor<?xi64>, %s: tensor<?xi32>) {
  // expected-error@+1 {{'emb.cross' op input #0's row splits must be tensor<?xi64>, but got tensor<?xi32>}}
  %v, %r = "emb.cross"(%a, %s) {hash_key = 1 : i64, num_buckets = 10 : i64} : (tensor<?xi64>, tensor<?xi32>) -> (tensor<?xi64>, tensor<?xi64>)
  func.return
}
