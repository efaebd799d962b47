// Id transforms computed in the kernel (ids_test.go): hashed strings of
// every length (the fingerprint's four length classes), split tokens with
// empty bags, hashed integers (as_string, negatives, MinInt64), bucketized
// floats (NaN, infinities, boundaries), bucketized integers, vocabularies
// of strings and integers with and without out-of-vocabulary buckets,
// range checks with a default, casts, add_offset, and a weighted hashed
// column behind a weights-only filter; vocabularies whose missing words
// (default -1) are pruned from the bags; columns sharing a class differ in
// their parameters.
func.func @f(%s: tensor<?x!tfg.string>, %tok: tensor<?x!tfg.string>, %i: tensor<?x2xi64>, %x: tensor<?xf32>, %n: tensor<?xi64>,
             %vs: tensor<?x!tfg.string>, %vi: tensor<?x3xi64>, %ws: tensor<?x3x!tfg.string>, %ww: tensor<?x3xf32>, %xd: tensor<?xf64>,
             %vw: tensor<?x3xi64>, %vww: tensor<?x3xf32>) -> tensor<?x168xf32> {
  %t0 = emb.table {name = "strs"} : tensor<1000x8xf32>
  %t1 = emb.table {name = "strs2"} : tensor<77x4xf32>
  %t2 = emb.table {name = "toks"} : tensor<500x8xf32>
  %t3 = emb.table {name = "ints"} : tensor<100x8xf32>
  %t4 = emb.table {name = "nums"} : tensor<4x8xf32>
  %t5 = emb.table {name = "nums2"} : tensor<10x8xf32>
  %t6 = emb.table {name = "icnt"} : tensor<64x8xf32>
  %t7 = emb.table {name = "vstr"} : tensor<9x8xf32>
  %t8 = emb.table {name = "vint"} : tensor<6x8xf32>
  %t9 = emb.table {name = "vint0"} : tensor<4x8xf32>
  %t10 = emb.table {name = "wstrs"} : tensor<1000x8xf32>
  %t11 = emb.table {name = "offs"} : tensor<300x8xf32>
  %t12 = emb.table {name = "dbl"} : tensor<5x4xf32>

  %v0, %s0 = emb.from_dense %s {ignore = ""} : tensor<?x!tfg.string> -> tensor<?x!tfg.string>
  %h0 = emb.hash %v0 {num_buckets = 1000 : i64} : tensor<?x!tfg.string> -> tensor<?xi64>
  %l0 = emb.lookup %t0, %h0, %s0 {combiner = "mean"} : tensor<1000x8xf32>, tensor<?xi64> -> tensor<?x8xf32>
  %h1 = emb.hash %v0 {num_buckets = 77 : i64} : tensor<?x!tfg.string> -> tensor<?xi64>
  %l1 = emb.lookup %t1, %h1, %s0 {combiner = "sum"} : tensor<77x4xf32>, tensor<?xi64> -> tensor<?x4xf32>

  %v2, %s2 = emb.split_strings %tok {sep = ";"} : tensor<?x!tfg.string> -> tensor<?x!tfg.string>
  %h2 = emb.hash %v2 {num_buckets = 500 : i64} : tensor<?x!tfg.string> -> tensor<?xi64>
  %l2 = emb.lookup %t2, %h2, %s2 {combiner = "sqrtn"} : tensor<500x8xf32>, tensor<?xi64> -> tensor<?x8xf32>

  %v3, %s3 = emb.from_dense %i {ignore = 7 : i64} : tensor<?x2xi64> -> tensor<?xi64>
  %a3 = emb.as_string %v3 : tensor<?xi64> -> tensor<?x!tfg.string>
  %h3 = emb.hash %a3 {num_buckets = 100 : i64} : tensor<?x!tfg.string> -> tensor<?xi64>
  %l3 = emb.lookup %t3, %h3, %s3 {combiner = "sum"} : tensor<100x8xf32>, tensor<?xi64> -> tensor<?x8xf32>

  %v4, %s4 = emb.from_dense %x : tensor<?xf32> -> tensor<?xf32>
  %b4 = emb.bucketize %v4 {boundaries = [0.0 : f32, 1.0 : f32, 10.0 : f32]} : tensor<?xf32> -> tensor<?xi64>
  %l4 = emb.lookup %t4, %b4, %s4 {combiner = "sum"} : tensor<4x8xf32>, tensor<?xi64> -> tensor<?x8xf32>
  %b5 = emb.bucketize %v4 {boundaries = [-5.0 : f32, -1.0 : f32, -0.5 : f32, 0.0 : f32, 0.25 : f32, 0.5 : f32, 2.0 : f32, 3.0 : f32, 100.0 : f32]} : tensor<?xf32> -> tensor<?xi64>
  %l5 = emb.lookup %t5, %b5, %s4 {combiner = "sum"} : tensor<10x8xf32>, tensor<?xi64> -> tensor<?x8xf32>

  %v6, %s6 = emb.from_dense %n : tensor<?xi64> -> tensor<?xi64>
  %c6 = emb.check_range %v6 {default = 3 : i64, num_buckets = 64 : i64} : tensor<?xi64> -> tensor<?xi64>
  %n6 = emb.cast %c6 : tensor<?xi64> -> tensor<?xi32>
  %l6 = emb.lookup %t6, %n6, %s6 {combiner = "sum"} : tensor<64x8xf32>, tensor<?xi32> -> tensor<?x8xf32>

  %v7, %s7 = emb.from_dense %vs {ignore = ""} : tensor<?x!tfg.string> -> tensor<?x!tfg.string>
  %k7 = emb.vocab_lookup %v7 {keys = dense<["a", "bb", "", "a long key of more than sixteen bytes", "dup", "x;y"]> : tensor<6x!tfg.string>, num_oov_buckets = 3 : i64} : tensor<?x!tfg.string> -> tensor<?xi64>
  %l7 = emb.lookup %t7, %k7, %s7 {combiner = "mean"} : tensor<9x8xf32>, tensor<?xi64> -> tensor<?x8xf32>

  %v8, %s8 = emb.from_dense %vi {ignore = -1 : i64} : tensor<?x3xi64> -> tensor<?xi64>
  %k8 = emb.vocab_lookup %v8 {keys = dense<[5, -3, 1000000000000, 0]> : tensor<4xi64>, num_oov_buckets = 2 : i64} : tensor<?xi64> -> tensor<?xi64>
  %l8 = emb.lookup %t8, %k8, %s8 {combiner = "sum"} : tensor<6x8xf32>, tensor<?xi64> -> tensor<?x8xf32>
  %k9 = emb.vocab_lookup %v8 {keys = dense<[5, 9, 2]> : tensor<3xi64>, default = 3 : i64} : tensor<?xi64> -> tensor<?xi64>
  %l9 = emb.lookup %t9, %k9, %s8 {combiner = "sum"} : tensor<4x8xf32>, tensor<?xi64> -> tensor<?x8xf32>

  %v10, %s10 = emb.from_dense %ws : tensor<?x3x!tfg.string> -> tensor<?x!tfg.string>
  %w10, %z10 = emb.from_dense %ww : tensor<?x3xf32> -> tensor<?xf32>
  %h10 = emb.hash %v10 {num_buckets = 1000 : i64} : tensor<?x!tfg.string> -> tensor<?xi64>
  %f10, %fs10, %fw10 = emb.filter %h10, %s10, %w10 {positive_weights} : tensor<?xi64>, tensor<?xf32>
  %l10 = emb.lookup %t10, %f10, %fs10, %fw10 {combiner = "mean"} : tensor<1000x8xf32>, tensor<?xi64>, tensor<?xf32> -> tensor<?x8xf32>

  %h11 = emb.hash %v10 {num_buckets = 100 : i64} : tensor<?x!tfg.string> -> tensor<?xi64>
  %o11 = emb.add_offset %h11, %s10 {stride = 100 : i64} : tensor<?xi64>
  %l11 = emb.lookup %t11, %o11, %s10 {combiner = "sum"} : tensor<300x8xf32>, tensor<?xi64> -> tensor<?x8xf32>

  %v12, %s12 = emb.from_dense %xd : tensor<?xf64> -> tensor<?xf64>
  %b12 = emb.bucketize %v12 {boundaries = [0.1 : f32, 0.2 : f32, 0.3 : f32, 0.4 : f32]} : tensor<?xf64> -> tensor<?xi64>
  %l12 = emb.lookup %t12, %b12, %s12 {combiner = "sum"} : tensor<5x4xf32>, tensor<?xi64> -> tensor<?x4xf32>

  %t13 = emb.table {name = "uni"} : tensor<9x4xf32>
  %b13 = emb.bucketize %v4 {boundaries = [-3.0 : f32, -2.0 : f32, -1.0 : f32, 0.0 : f32, 1.0 : f32, 2.0 : f32, 3.0 : f32, 4.0 : f32]} : tensor<?xf32> -> tensor<?xi64>
  %l13 = emb.lookup %t13, %b13, %s4 {combiner = "sum"} : tensor<9x4xf32>, tensor<?xi64> -> tensor<?x4xf32>
  %t14 = emb.table {name = "uni_int"} : tensor<9x4xf32>
  %b14 = emb.bucketize %v6 {boundaries = [-3.0 : f32, -2.0 : f32, -1.0 : f32, 0.0 : f32, 10.0 : f32, 20.0 : f32, 30.0 : f32, 40.0 : f32]} : tensor<?xi64> -> tensor<?xi64>
  %l14 = emb.lookup %t14, %b14, %s6 {combiner = "sum"} : tensor<9x4xf32>, tensor<?xi64> -> tensor<?x4xf32>

  // Columns in the class of another one with other parameters (the
  // kernel makes a parameter word a constant only when the whole class
  // shares it): a bucket count (%l0), a boundary count (%l4), a default
  // (%l6).
  %t15 = emb.table {name = "strs3"} : tensor<999x8xf32>
  %h15 = emb.hash %v0 {num_buckets = 999 : i64} : tensor<?x!tfg.string> -> tensor<?xi64>
  %l15 = emb.lookup %t15, %h15, %s0 {combiner = "mean"} : tensor<999x8xf32>, tensor<?xi64> -> tensor<?x8xf32>
  %t16 = emb.table {name = "nums3"} : tensor<3x8xf32>
  %b16 = emb.bucketize %v4 {boundaries = [0.5 : f32, 3.0 : f32]} : tensor<?xf32> -> tensor<?xi64>
  %l16 = emb.lookup %t16, %b16, %s4 {combiner = "sum"} : tensor<3x8xf32>, tensor<?xi64> -> tensor<?x8xf32>
  %t17 = emb.table {name = "icnt2"} : tensor<64x8xf32>
  %c17 = emb.check_range %v6 {default = 5 : i64, num_buckets = 64 : i64} : tensor<?xi64> -> tensor<?xi64>
  %n17 = emb.cast %c17 : tensor<?xi64> -> tensor<?xi32>
  %l17 = emb.lookup %t17, %n17, %s6 {combiner = "sum"} : tensor<64x8xf32>, tensor<?xi32> -> tensor<?x8xf32>

  // Vocabularies with TensorFlow's default default_value = -1: the ids of
  // -1 (missing words) are pruned from the bags (emb.filter min = 0), which
  // the kernel does itself (transform "drop"): mean and sqrtn count the ids
  // kept, a bag left empty gives zeros; weighted, the pruning drops the
  // weights too, and a positive_weights filter before or with it is
  // rebuilt on the raw values; a gather_scatter (at most one id a row).
  %t18 = emb.table {name = "vdef"} : tensor<5x8xf32>
  %k18 = emb.vocab_lookup %v7 {keys = dense<["a", "bb", "", "dup", "zz"]> : tensor<5x!tfg.string>, default = -1 : i64} : tensor<?x!tfg.string> -> tensor<?xi64>
  %f18, %fs18 = emb.filter %k18, %s7 {min = 0 : i64} : tensor<?xi64>
  %l18 = emb.lookup %t18, %f18, %fs18 {combiner = "mean"} : tensor<5x8xf32>, tensor<?xi64> -> tensor<?x8xf32>
  %t19 = emb.table {name = "vdef_int"} : tensor<4x4xf32>
  %k19 = emb.vocab_lookup %v8 {keys = dense<[5, -3, 0, 9]> : tensor<4xi64>, default = -1 : i64} : tensor<?xi64> -> tensor<?xi64>
  %f19, %fs19 = emb.filter %k19, %s8 {min = 0 : i64} : tensor<?xi64>
  %l19 = emb.lookup %t19, %f19, %fs19 {combiner = "sqrtn"} : tensor<4x4xf32>, tensor<?xi64> -> tensor<?x4xf32>
  %t20 = emb.table {name = "vdef_range"} : tensor<4x8xf32>
  %k20 = emb.vocab_lookup %v8 {keys = dense<[42, 5, 0, 2, 1000000000000]> : tensor<5xi64>, default = -1 : i64} : tensor<?xi64> -> tensor<?xi64>
  %f20, %fs20 = emb.filter %k20, %s8 {min = 0 : i64, max = 3 : i64} : tensor<?xi64>
  %l20 = emb.lookup %t20, %f20, %fs20 {combiner = "mean"} : tensor<4x8xf32>, tensor<?xi64> -> tensor<?x8xf32>
  %v21, %s21 = emb.from_dense %vw : tensor<?x3xi64> -> tensor<?xi64>
  %w21, %z21 = emb.from_dense %vww : tensor<?x3xf32> -> tensor<?xf32>
  %t21 = emb.table {name = "vdef_w"} : tensor<4x8xf32>
  %k21 = emb.vocab_lookup %v21 {keys = dense<[5, 9, 2, 42]> : tensor<4xi64>, default = -1 : i64} : tensor<?xi64> -> tensor<?xi64>
  %f21, %fs21, %fw21 = emb.filter %k21, %s21, %w21 {min = 0 : i64} : tensor<?xi64>, tensor<?xf32>
  %g21, %gs21, %gw21 = emb.filter %f21, %fs21, %fw21 {positive_weights} : tensor<?xi64>, tensor<?xf32>
  %l21 = emb.lookup %t21, %g21, %gs21, %gw21 {combiner = "mean"} : tensor<4x8xf32>, tensor<?xi64>, tensor<?xf32> -> tensor<?x8xf32>
  %t22 = emb.table {name = "vdef_w2"} : tensor<4x4xf32>
  %f22, %fs22, %fw22 = emb.filter %k21, %s21, %w21 {min = 0 : i64, positive_weights} : tensor<?xi64>, tensor<?xf32>
  %l22 = emb.lookup %t22, %f22, %fs22, %fw22 {combiner = "sqrtn"} : tensor<4x4xf32>, tensor<?xi64>, tensor<?xf32> -> tensor<?x4xf32>
  %t23 = emb.table {name = "vdef_gs"} : tensor<5x8xf32>
  %l23 = emb.gather_scatter %t23, %f18, %fs18 {combiner = "sum"} : tensor<5x8xf32>, tensor<?xi64> -> tensor<?x8xf32>

  %r = emb.concat %l0, %l1, %l2, %l3, %l4, %l5, %l6, %l7, %l8, %l9, %l10, %l11, %l12, %l13, %l14, %l15, %l16, %l17, %l18, %l19, %l20, %l21, %l22, %l23 : (tensor<?x8xf32>, tensor<?x4xf32>, tensor<?x8xf32>, tensor<?x8xf32>, tensor<?x8xf32>, tensor<?x8xf32>, tensor<?x8xf32>, tensor<?x8xf32>, tensor<?x8xf32>, tensor<?x8xf32>, tensor<?x8xf32>, tensor<?x8xf32>, tensor<?x4xf32>, tensor<?x4xf32>, tensor<?x4xf32>, tensor<?x8xf32>, tensor<?x8xf32>, tensor<?x8xf32>, tensor<?x8xf32>, tensor<?x4xf32>, tensor<?x8xf32>, tensor<?x8xf32>, tensor<?x4xf32>, tensor<?x8xf32>) -> tensor<?x168xf32> loc("out")
  func.return %r : tensor<?x168xf32>
}
