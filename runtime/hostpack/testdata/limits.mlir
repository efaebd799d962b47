// Two columns fed [B, k] tensors of any shape (hostpack_test.go,
// TestPackLimits): sizes beyond the layer's limits are refused before
// memory is taken.
func.func @f(%a: tensor<?x?xi64>, %b: tensor<?x?x!tfg.string>) -> tensor<?x12xf32> {
  %t0 = emb.table {name = "a"} : tensor<10x8xf32>
  %v0, %s0 = emb.from_dense %a {ignore = -1 : i64} : tensor<?x?xi64> -> tensor<?xi64>
  %c0 = emb.check_range %v0 {default = 0 : i64, num_buckets = 10 : i64} : tensor<?xi64> -> tensor<?xi64>
  %l0 = emb.lookup %t0, %c0, %s0 {combiner = "sum"} : tensor<10x8xf32>, tensor<?xi64> -> tensor<?x8xf32>
  %t1 = emb.table {name = "b"} : tensor<10x4xf32>
  %v1, %s1 = emb.from_dense %b {ignore = ""} : tensor<?x?x!tfg.string> -> tensor<?x!tfg.string>
  %h1 = emb.hash %v1 {num_buckets = 10 : i64} : tensor<?x!tfg.string> -> tensor<?xi64>
  %l1 = emb.lookup %t1, %h1, %s1 {combiner = "sum"} : tensor<10x4xf32>, tensor<?xi64> -> tensor<?x4xf32>
  %r = emb.concat %l0, %l1 : (tensor<?x8xf32>, tensor<?x4xf32>) -> tensor<?x12xf32> loc("out")
  func.return %r : tensor<?x12xf32>
}
