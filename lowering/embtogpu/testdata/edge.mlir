// Edge cases of --fuse (edge_test.go): empty bags, long bags, every
// combiner, weights, widths that are not multiples of 4, wide rows, an i32
// gather and a gather-scatter.
func.func @f(%a: tensor<?x4xi64>, %b: tensor<?x64xi64>, %c: tensor<?x3xi64>, %cw: tensor<?x3xf32>, %d: tensor<?x2xi64>, %e: tensor<?xi32>, %g: tensor<?x1xi64>) -> tensor<?x429xf32> {
  %t8 = emb.table {name = "t8"} : tensor<1000x8xf32>
  %tl = emb.table {name = "tl"} : tensor<50000x8xf32>
  %t3 = emb.table {name = "t3"} : tensor<100x3xf32>
  %t6 = emb.table {name = "t6"} : tensor<100x6xf32>
  %t128 = emb.table {name = "t128"} : tensor<100x128xf32>
  %t256 = emb.table {name = "t256"} : tensor<100x256xf32>
  %t4 = emb.table {name = "t4"} : tensor<11x4xf32>
  %t16 = emb.table {name = "t16"} : tensor<100x16xf32>
  %va, %sa = emb.from_dense %a {ignore = -1 : i64} : tensor<?x4xi64> -> tensor<?xi64>
  %vb, %sb = emb.from_dense %b {ignore = -1 : i64} : tensor<?x64xi64> -> tensor<?xi64>
  %vc, %sc = emb.from_dense %c : tensor<?x3xi64> -> tensor<?xi64>
  %wc, %swc = emb.from_dense %cw : tensor<?x3xf32> -> tensor<?xf32>
  %vd, %sd = emb.from_dense %d {ignore = -1 : i64} : tensor<?x2xi64> -> tensor<?xi64>
  %vg, %sg = emb.from_dense %g {ignore = -1 : i64} : tensor<?x1xi64> -> tensor<?xi64>
  %l0 = emb.lookup %t8, %va, %sa {combiner = "mean"} : tensor<1000x8xf32>, tensor<?xi64> -> tensor<?x8xf32>
  %l1 = emb.lookup %tl, %vb, %sb {combiner = "sum"} : tensor<50000x8xf32>, tensor<?xi64> -> tensor<?x8xf32>
  %l2 = emb.lookup %t3, %vd, %sd {combiner = "sqrtn"} : tensor<100x3xf32>, tensor<?xi64> -> tensor<?x3xf32>
  %l3 = emb.lookup %t6, %vc, %sc, %wc {combiner = "mean"} : tensor<100x6xf32>, tensor<?xi64>, tensor<?xf32> -> tensor<?x6xf32>
  %l4 = emb.lookup %t128, %vc, %sc, %wc {combiner = "sqrtn"} : tensor<100x128xf32>, tensor<?xi64>, tensor<?xf32> -> tensor<?x128xf32>
  %l5 = emb.lookup %t256, %vd, %sd {combiner = "sum"} : tensor<100x256xf32>, tensor<?xi64> -> tensor<?x256xf32>
  %l6 = emb.gather %t4, %e : tensor<11x4xf32>, tensor<?xi32> -> tensor<?x4xf32>
  %l7 = emb.gather_scatter %t16, %vg, %sg {combiner = "mean"} : tensor<100x16xf32>, tensor<?xi64> -> tensor<?x16xf32>
  %r = emb.concat %l0, %l1, %l2, %l3, %l4, %l5, %l6, %l7 : (tensor<?x8xf32>, tensor<?x8xf32>, tensor<?x3xf32>, tensor<?x6xf32>, tensor<?x128xf32>, tensor<?x256xf32>, tensor<?x4xf32>, tensor<?x16xf32>) -> tensor<?x429xf32> loc("out")
  func.return %r : tensor<?x429xf32>
}
