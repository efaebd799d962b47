// A column whose ids come from a tfg.Cast (hostpack_test.go,
// TestPlanUnsupported): not computed by the plan.
func.func @f(%n: tensor<?xi32>, %s: tensor<?x!tfg.string>) -> tensor<?x12xf32> {
  %c:2 = "tfg.Cast"(%n) {DstT = i64, SrcT = i32, Truncate = false} : (tensor<?xi32>) -> (tensor<?xi64>, !tfg.control) loc("cast_ids")
  %t0 = emb.table {name = "a"} : tensor<10x8xf32>
  %v0, %s0 = emb.from_dense %c#0 {ignore = -1 : i64} : tensor<?xi64> -> tensor<?xi64>
  %c0 = emb.check_range %v0 {default = 0 : i64, num_buckets = 10 : i64} : tensor<?xi64> -> tensor<?xi64>
  %l0 = emb.lookup %t0, %c0, %s0 {combiner = "sum"} : tensor<10x8xf32>, tensor<?xi64> -> tensor<?x8xf32>
  %t1 = emb.table {name = "b"} : tensor<10x4xf32>
  %v1, %s1 = emb.from_dense %s {ignore = ""} : tensor<?x!tfg.string> -> tensor<?x!tfg.string>
  %h1 = emb.hash %v1 {num_buckets = 10 : i64} : tensor<?x!tfg.string> -> tensor<?xi64>
  %l1 = emb.lookup %t1, %h1, %s1 {combiner = "sum"} : tensor<10x4xf32>, tensor<?xi64> -> tensor<?x4xf32>
  %r = emb.concat %l0, %l1 : (tensor<?x8xf32>, tensor<?x4xf32>) -> tensor<?x12xf32> loc("out")
  func.return %r : tensor<?x12xf32>
}
