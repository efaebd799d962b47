// The ops the plan computes (hostpack_test.go, TestPackTransforms): every
// source and id transform of the emb dialect, with the dtypes and
// attributes the kernel does not take (multi-byte and empty separators,
// int32 and int8 ids, sparse inputs, range checks without a default,
// ids filtered by range, a standalone as_string), fed as function
// arguments.
func.func @f(%s: tensor<?x!tfg.string>, %tok: tensor<?x!tfg.string>, %ws: tensor<?x!tfg.string>, %i32: tensor<?x3xi32>,
             %n: tensor<?xi64>, %ids: tensor<?xi64>, %ind: tensor<?x2xi64>, %spv: tensor<?xi64>, %shape: tensor<2xi64>,
             %sps: tensor<?x!tfg.string>, %x: tensor<?xi32>, %vs: tensor<?xi64>, %b1: tensor<?x1x!tfg.string>,
             %wv: tensor<?x4xi64>, %ww: tensor<?x4xf32>, %xd: tensor<?xf64>, %spf: tensor<?xf32>) -> tensor<?x108xf32> {
  %t0 = emb.table {name = "strs"} : tensor<1000x8xf32>
  %v0, %s0 = emb.from_dense %s {ignore = ""} : tensor<?x!tfg.string> -> tensor<?x!tfg.string>
  %h0 = emb.hash %v0 {num_buckets = 1000 : i64} : tensor<?x!tfg.string> -> tensor<?xi64>
  %l0 = emb.lookup %t0, %h0, %s0 {combiner = "mean"} : tensor<1000x8xf32>, tensor<?xi64> -> tensor<?x8xf32>

  // A separator of two bytes: split on the host.
  %t1 = emb.table {name = "toks"} : tensor<500x8xf32>
  %v1, %s1 = emb.split_strings %tok {sep = "ab"} : tensor<?x!tfg.string> -> tensor<?x!tfg.string>
  %h1 = emb.hash %v1 {num_buckets = 500 : i64} : tensor<?x!tfg.string> -> tensor<?xi64>
  %l1 = emb.lookup %t1, %h1, %s1 {combiner = "sqrtn"} : tensor<500x8xf32>, tensor<?xi64> -> tensor<?x8xf32>

  // The empty separator: runs of whitespace, no empty tokens.
  %t2 = emb.table {name = "words"} : tensor<300x8xf32>
  %v2, %s2 = emb.split_strings %ws {sep = ""} : tensor<?x!tfg.string> -> tensor<?x!tfg.string>
  %h2 = emb.hash %v2 {num_buckets = 300 : i64} : tensor<?x!tfg.string> -> tensor<?xi32>
  %l2 = emb.lookup %t2, %h2, %s2 {combiner = "sum"} : tensor<300x8xf32>, tensor<?xi32> -> tensor<?x8xf32>

  // int32 ids, -1 dropped, hashed as decimal strings.
  %t3 = emb.table {name = "i32s"} : tensor<100x8xf32>
  %v3, %s3 = emb.from_dense %i32 {ignore = -1 : i32} : tensor<?x3xi32> -> tensor<?xi32>
  %a3 = emb.as_string %v3 : tensor<?xi32> -> tensor<?x!tfg.string>
  %h3 = emb.hash %a3 {num_buckets = 100 : i64} : tensor<?x!tfg.string> -> tensor<?xi64>
  %l3 = emb.lookup %t3, %h3, %s3 {combiner = "sum"} : tensor<100x8xf32>, tensor<?xi64> -> tensor<?x8xf32>

  // A range check with a default, cast to int8.
  %t4 = emb.table {name = "small"} : tensor<64x8xf32>
  %v4, %s4 = emb.from_dense %n : tensor<?xi64> -> tensor<?xi64>
  %c4 = emb.check_range %v4 {default = 3 : i64, num_buckets = 64 : i64} : tensor<?xi64> -> tensor<?xi64>
  %n4 = emb.cast %c4 : tensor<?xi64> -> tensor<?xi8>
  %l4 = emb.lookup %t4, %n4, %s4 {combiner = "sum"} : tensor<64x8xf32>, tensor<?xi8> -> tensor<?x8xf32>

  // Ids fed as they are, one per row.
  %t5 = emb.table {name = "direct"} : tensor<50x4xf32>
  %l5 = emb.gather %t5, %ids : tensor<50x4xf32>, tensor<?xi64> -> tensor<?x4xf32>

  // A SparseTensor of ids, filtered to [0, 49].
  %t6 = emb.table {name = "sparse"} : tensor<50x8xf32>
  %v6, %s6 = emb.from_sparse %ind, %spv, %shape : tensor<?x2xi64>, tensor<?xi64>, tensor<2xi64> -> tensor<?xi64>
  %f6, %fs6 = emb.filter %v6, %s6 {max = 49 : i64, min = 0 : i64} : tensor<?xi64>
  %l6 = emb.lookup %t6, %f6, %fs6 {combiner = "mean"} : tensor<50x8xf32>, tensor<?xi64> -> tensor<?x8xf32>

  // A SparseTensor of strings, hashed.
  %t7 = emb.table {name = "sparse_strs"} : tensor<200x8xf32>
  %v7, %s7 = emb.from_sparse %ind, %sps, %shape : tensor<?x2xi64>, tensor<?x!tfg.string>, tensor<2xi64> -> tensor<?x!tfg.string>
  %h7 = emb.hash %v7 {num_buckets = 200 : i64} : tensor<?x!tfg.string> -> tensor<?xi64>
  %l7 = emb.lookup %t7, %h7, %s7 {combiner = "sum"} : tensor<200x8xf32>, tensor<?xi64> -> tensor<?x8xf32>

  // int32 values bucketized.
  %t8 = emb.table {name = "b32"} : tensor<5x4xf32>
  %v8, %s8 = emb.from_dense %x : tensor<?xi32> -> tensor<?xi32>
  %b8 = emb.bucketize %v8 {boundaries = [-10.0 : f32, 0.0 : f32, 10.0 : f32, 100.0 : f32]} : tensor<?xi32> -> tensor<?xi64>
  %l8 = emb.lookup %t8, %b8, %s8 {combiner = "sum"} : tensor<5x4xf32>, tensor<?xi64> -> tensor<?x4xf32>

  // Integers as strings looked up in a vocabulary of strings.
  %t9 = emb.table {name = "voc"} : tensor<7x8xf32>
  %v9, %s9 = emb.from_dense %vs {ignore = -1 : i64} : tensor<?xi64> -> tensor<?xi64>
  %a9 = emb.as_string %v9 : tensor<?xi64> -> tensor<?x!tfg.string>
  %k9 = emb.vocab_lookup %a9 {keys = dense<["1", "22", "-3", "7"]> : tensor<4x!tfg.string>, num_oov_buckets = 3 : i64} : tensor<?x!tfg.string> -> tensor<?xi64>
  %l9 = emb.lookup %t9, %k9, %s9 {combiner = "mean"} : tensor<7x8xf32>, tensor<?xi64> -> tensor<?x8xf32>

  // StringSplitV2's [B, 1] input with a one-byte separator.
  %t10 = emb.table {name = "split1"} : tensor<100x8xf32>
  %v10, %s10 = emb.split_strings %b1 {sep = ";"} : tensor<?x1x!tfg.string> -> tensor<?x!tfg.string>
  %h10 = emb.hash %v10 {num_buckets = 100 : i64} : tensor<?x!tfg.string> -> tensor<?xi64>
  %l10 = emb.lookup %t10, %h10, %s10 {combiner = "sum"} : tensor<100x8xf32>, tensor<?xi64> -> tensor<?x8xf32>

  // Weighted ids: values and weights of two dense tensors, the ids in
  // range and the weights positive kept, then offset by their position.
  %t11 = emb.table {name = "weighted"} : tensor<40x8xf32>
  %v11, %s11 = emb.from_dense %wv {ignore = -1 : i64} : tensor<?x4xi64> -> tensor<?xi64>
  %w11, %z11 = emb.from_dense %ww {ignore = 0.0 : f32} : tensor<?x4xf32> -> tensor<?xf32>
  %c11 = emb.check_range %v11 {default = 0 : i64, num_buckets = 10 : i64} : tensor<?xi64> -> tensor<?xi64>
  %n11 = emb.cast %c11 : tensor<?xi64> -> tensor<?xi32>
  %f11, %fs11, %fw11 = emb.filter %n11, %s11, %w11 {min = 0 : i64, positive_weights} : tensor<?xi32>, tensor<?xf32>
  %o11 = emb.add_offset %f11, %fs11 {stride = 10 : i64} : tensor<?xi32>
  %l11 = emb.lookup %t11, %o11, %fs11, %fw11 {combiner = "sqrtn"} : tensor<40x8xf32>, tensor<?xi32>, tensor<?xf32> -> tensor<?x8xf32>

  // Doubles bucketized, and float32 values of a SparseTensor.
  %t12 = emb.table {name = "dbl"} : tensor<5x4xf32>
  %v12, %s12 = emb.from_dense %xd : tensor<?xf64> -> tensor<?xf64>
  %b12 = emb.bucketize %v12 {boundaries = [0.1 : f32, 0.2 : f32, 0.3 : f32, 0.4 : f32]} : tensor<?xf64> -> tensor<?xi64>
  %l12 = emb.lookup %t12, %b12, %s12 {combiner = "sum"} : tensor<5x4xf32>, tensor<?xi64> -> tensor<?x4xf32>
  %t13 = emb.table {name = "spf"} : tensor<4x8xf32>
  %v13, %s13 = emb.from_sparse %ind, %spf, %shape : tensor<?x2xi64>, tensor<?xf32>, tensor<2xi64> -> tensor<?xf32>
  %b13 = emb.bucketize %v13 {boundaries = [0.0 : f32, 1.0 : f32, 2.0 : f32]} : tensor<?xf32> -> tensor<?xi64>
  %l13 = emb.lookup %t13, %b13, %s13 {combiner = "mean"} : tensor<4x8xf32>, tensor<?xi64> -> tensor<?x8xf32>

  // A range check without a default: an id out of range is an error.
  %t14 = emb.table {name = "strict"} : tensor<50x8xf32>
  %c14 = emb.check_range %v4 {num_buckets = 50 : i64} : tensor<?xi64> -> tensor<?xi64>
  %l14 = emb.lookup %t14, %c14, %s4 {combiner = "sum"} : tensor<50x8xf32>, tensor<?xi64> -> tensor<?x8xf32>

  %r = emb.concat %l0, %l1, %l2, %l3, %l4, %l5, %l6, %l7, %l8, %l9, %l10, %l11, %l12, %l13, %l14 : (tensor<?x8xf32>, tensor<?x8xf32>, tensor<?x8xf32>, tensor<?x8xf32>, tensor<?x8xf32>, tensor<?x4xf32>, tensor<?x8xf32>, tensor<?x8xf32>, tensor<?x4xf32>, tensor<?x8xf32>, tensor<?x8xf32>, tensor<?x8xf32>, tensor<?x4xf32>, tensor<?x8xf32>, tensor<?x8xf32>) -> tensor<?x108xf32> loc("out")
  func.return %r : tensor<?x108xf32>
}
