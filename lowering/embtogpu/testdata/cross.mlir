// Crossed columns computed in the kernel (cross_test.go): ragged string
// inputs with empty bags and several features a bag (products of up to
// 3 x 2 x 3 crosses), dense int64 inputs of every edge value, strings of
// every length class of the fingerprint, inputs through transforms
// (bucketize of f32 and f64 values with a cast, a vocabulary, a hash, a
// range check, add_offset by position in the input's bag), a four-input
// cross, a gather (one cross a row), and two columns of one class with
// other bucket counts and hash keys.
func.func @f(%s: tensor<?x!tfg.string>, %ss: tensor<?xi64>, %i: tensor<?x2xi64>, %d: tensor<?x!tfg.string>, %x: tensor<?xf32>,
             %xd: tensor<?xf64>, %vs: tensor<?x!tfg.string>, %n: tensor<?x3xi64>, %ls: tensor<?x3x!tfg.string>) -> tensor<?x40xf32> {
  %t0 = emb.table {name = "x0"} : tensor<1000x8xf32>
  %t1 = emb.table {name = "x1"} : tensor<37x4xf32>
  %t2 = emb.table {name = "x2"} : tensor<50x4xf32>
  %t3 = emb.table {name = "x3"} : tensor<97x8xf32>
  %t4 = emb.table {name = "x4"} : tensor<1000x8xf32>
  %t5 = emb.table {name = "x5"} : tensor<999x8xf32>

  // Ragged strings x [B, 2] int64 x [B] strings: bags of 0..3 x 2 x 1.
  %a, %as = emb.from_dense %i : tensor<?x2xi64> -> tensor<?xi64>
  %b, %bs = emb.from_dense %d : tensor<?x!tfg.string> -> tensor<?x!tfg.string>
  %c0, %cs0 = emb.cross %s, %ss, %a, %as, %b, %bs {hash_key = 956888297470 : i64, num_buckets = 1000 : i64} : tensor<?x!tfg.string>, tensor<?xi64>, tensor<?x!tfg.string> -> tensor<?xi64>
  %l0 = emb.lookup %t0, %c0, %cs0 {combiner = "sum"} : tensor<1000x8xf32>, tensor<?xi64> -> tensor<?x8xf32>

  // Bucketized f32 (cast to int64) x strings with "" dropped (0 or 1 a bag).
  %xv, %xs = emb.from_dense %x : tensor<?xf32> -> tensor<?xf32>
  %xb = emb.bucketize %xv {boundaries = [0.0 : f32, 1.0 : f32, 10.0 : f32]} : tensor<?xf32> -> tensor<?xi32>
  %xc = emb.cast %xb : tensor<?xi32> -> tensor<?xi64>
  %dv, %ds = emb.from_dense %d {ignore = ""} : tensor<?x!tfg.string> -> tensor<?x!tfg.string>
  %c1, %cs1 = emb.cross %xc, %xs, %dv, %ds {hash_key = 1 : i64, num_buckets = 37 : i64} : tensor<?xi64>, tensor<?x!tfg.string> -> tensor<?xi64>
  %l1 = emb.lookup %t1, %c1, %cs1 {combiner = "mean"} : tensor<37x4xf32>, tensor<?xi64> -> tensor<?x4xf32>

  // One cross a row: a gather of f64 buckets x strings.
  %yv, %ys = emb.from_dense %xd : tensor<?xf64> -> tensor<?xf64>
  %yb = emb.bucketize %yv {boundaries = [0.1 : f32, 0.2 : f32, 0.3 : f32]} : tensor<?xf64> -> tensor<?xi64>
  %c2, %cs2 = emb.cross %yb, %ys, %b, %bs {hash_key = -5 : i64, num_buckets = 50 : i64} : tensor<?xi64>, tensor<?x!tfg.string> -> tensor<?xi64>
  %l2 = emb.gather %t2, %c2 : tensor<50x4xf32>, tensor<?xi64> -> tensor<?x4xf32>

  // Four inputs: a vocabulary, a hash, a range check with add_offset by
  // position in its bag, strings of every length (3 a row).
  %vv, %vss = emb.from_dense %vs {ignore = ""} : tensor<?x!tfg.string> -> tensor<?x!tfg.string>
  %vk = emb.vocab_lookup %vv {keys = dense<["a", "bb", "", "a long key of more than sixteen bytes"]> : tensor<4x!tfg.string>, num_oov_buckets = 2 : i64} : tensor<?x!tfg.string> -> tensor<?xi64>
  %hh = emb.hash %s {num_buckets = 7 : i64} : tensor<?x!tfg.string> -> tensor<?xi64>
  %nv, %ns = emb.from_dense %n {ignore = -1 : i64} : tensor<?x3xi64> -> tensor<?xi64>
  %nc = emb.check_range %nv {default = 0 : i64, num_buckets = 10 : i64} : tensor<?xi64> -> tensor<?xi64>
  %no = emb.add_offset %nc, %ns {stride = 10 : i64} : tensor<?xi64>
  %lv, %lss = emb.from_dense %ls : tensor<?x3x!tfg.string> -> tensor<?x!tfg.string>
  %c3, %cs3 = emb.cross %vk, %vss, %hh, %ss, %no, %ns, %lv, %lss {hash_key = 956888297470 : i64, num_buckets = 97 : i64} : tensor<?xi64>, tensor<?xi64>, tensor<?xi64>, tensor<?x!tfg.string> -> tensor<?xi64>
  %l3 = emb.lookup %t3, %c3, %cs3 {combiner = "sqrtn"} : tensor<97x8xf32>, tensor<?xi64> -> tensor<?x8xf32>

  // The class of %l0 with other buckets and hash keys.
  %c4, %cs4 = emb.cross %s, %ss, %a, %as, %b, %bs {hash_key = 12345 : i64, num_buckets = 1000 : i64} : tensor<?x!tfg.string>, tensor<?xi64>, tensor<?x!tfg.string> -> tensor<?xi64>
  %l4 = emb.lookup %t4, %c4, %cs4 {combiner = "sum"} : tensor<1000x8xf32>, tensor<?xi64> -> tensor<?x8xf32>
  %c5, %cs5 = emb.cross %s, %ss, %a, %as, %b, %bs {hash_key = 956888297470 : i64, num_buckets = 999 : i64} : tensor<?x!tfg.string>, tensor<?xi64>, tensor<?x!tfg.string> -> tensor<?xi64>
  %l5 = emb.lookup %t5, %c5, %cs5 {combiner = "sum"} : tensor<999x8xf32>, tensor<?xi64> -> tensor<?x8xf32>

  %r = emb.concat %l0, %l1, %l2, %l3, %l4, %l5 : (tensor<?x8xf32>, tensor<?x4xf32>, tensor<?x4xf32>, tensor<?x8xf32>, tensor<?x8xf32>, tensor<?x8xf32>) -> tensor<?x40xf32> loc("out")
  func.return %r : tensor<?x40xf32>
}
