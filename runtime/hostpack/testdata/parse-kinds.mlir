// A parse of every kind of feature (sparse, fixed dense with and without a
// default, variable-length dense, ragged) and emb columns over them, for
// example_test.go: made from a hand-written GraphDef imported by
// recom-translate, the parse's result types and the emb ops written in.
module {
  "tfg.graph"() ({
    %0:2 = "tfg.Placeholder"() {_mlir_name = "records", dtype = !tfg.string, shape = #tfg.shape<?>} : () -> (tensor<*x!tfg.string>, !tfg.control)
    %1:2 = "tfg.Const"() {_mlir_name = "names", dtype = !tfg.string, value = dense<> : tensor<0x!tfg.string>} : () -> (tensor<*x!tfg.string>, !tfg.control)
    %2:2 = "tfg.Const"() {_mlir_name = "sk", dtype = !tfg.string, value = dense<["s", "i"]> : tensor<2x!tfg.string>} : () -> (tensor<*x!tfg.string>, !tfg.control)
    %3:2 = "tfg.Const"() {_mlir_name = "dk", dtype = !tfg.string, value = dense<["d_i", "d_f", "d_s", "v_f", "v_s"]> : tensor<5x!tfg.string>} : () -> (tensor<*x!tfg.string>, !tfg.control)
    %4:2 = "tfg.Const"() {_mlir_name = "rk", dtype = !tfg.string, value = dense<["r_i", "r_s"]> : tensor<2x!tfg.string>} : () -> (tensor<*x!tfg.string>, !tfg.control)
    %5:2 = "tfg.Const"() {_mlir_name = "def_i", dtype = i64, value = dense<[7, 8]> : tensor<2xi64>} : () -> (tensor<*xi64>, !tfg.control)
    %6:2 = "tfg.Const"() {_mlir_name = "def_f", dtype = f32, value = dense<> : tensor<0xf32>} : () -> (tensor<*xf32>, !tfg.control)
    %7:2 = "tfg.Const"() {_mlir_name = "def_s", dtype = !tfg.string, value = dense<["a default longer than a slot"]> : tensor<1x!tfg.string>} : () -> (tensor<*x!tfg.string>, !tfg.control)
    %8:2 = "tfg.Const"() {_mlir_name = "pad_f", dtype = f32, value = dense<5.000000e-01> : tensor<f32>} : () -> (tensor<*xf32>, !tfg.control)
    %9:2 = "tfg.Const"() {_mlir_name = "pad_s", dtype = !tfg.string, value = dense<"p"> : tensor<!tfg.string>} : () -> (tensor<*x!tfg.string>, !tfg.control)
    %10:16 = "tfg.ParseExampleV2"(%0#0, %1#0, %2#0, %3#0, %4#0, %5#0, %6#0, %7#0, %8#0, %9#0) {Tdense = [i64, f32, !tfg.string, f32, !tfg.string], _mlir_name = "parse", dense_shapes = [#tfg.shape<2>, #tfg.shape, #tfg.shape<1>, #tfg.shape<?x2>, #tfg.shape<?>], num_sparse = 2 : i64, ragged_split_types = [i32, i64], ragged_value_types = [i64, !tfg.string], sparse_types = [!tfg.string, i64]} : (tensor<*x!tfg.string>, tensor<*x!tfg.string>, tensor<*x!tfg.string>, tensor<*x!tfg.string>, tensor<*x!tfg.string>, tensor<*xi64>, tensor<*xf32>, tensor<*x!tfg.string>, tensor<*xf32>, tensor<*x!tfg.string>) -> (tensor<?x2xi64>, tensor<?x2xi64>, tensor<?x!tfg.string>, tensor<?xi64>, tensor<2xi64>, tensor<2xi64>, tensor<?x2xi64>, tensor<?xf32>, tensor<?x1x!tfg.string>, tensor<?x?x2xf32>, tensor<?x?x!tfg.string>, tensor<?xi64>, tensor<?x!tfg.string>, tensor<?xi32>, tensor<?xi64>, !tfg.control)
    %t0 = emb.table {name = "s"} : tensor<100x8xf32>
    %v0, %s0 = emb.from_sparse %10#0, %10#2, %10#4 : tensor<?x2xi64>, tensor<?x!tfg.string>, tensor<2xi64> -> tensor<?x!tfg.string>
    %h0 = emb.hash %v0 {num_buckets = 100 : i64} : tensor<?x!tfg.string> -> tensor<?xi64>
    %l0 = emb.lookup %t0, %h0, %s0 {combiner = "mean"} : tensor<100x8xf32>, tensor<?xi64> -> tensor<?x8xf32>
    %t1 = emb.table {name = "i"} : tensor<50x8xf32>
    %v1, %s1 = emb.from_sparse %10#1, %10#3, %10#5 : tensor<?x2xi64>, tensor<?xi64>, tensor<2xi64> -> tensor<?xi64>
    %c1 = emb.check_range %v1 {default = 0 : i64, num_buckets = 50 : i64} : tensor<?xi64> -> tensor<?xi64>
    %l1 = emb.lookup %t1, %c1, %s1 {combiner = "sum"} : tensor<50x8xf32>, tensor<?xi64> -> tensor<?x8xf32>
    %t2 = emb.table {name = "d_i"} : tensor<50x8xf32>
    %v2, %s2 = emb.from_dense %10#6 : tensor<?x2xi64> -> tensor<?xi64>
    %c2 = emb.check_range %v2 {default = 0 : i64, num_buckets = 50 : i64} : tensor<?xi64> -> tensor<?xi64>
    %l2 = emb.lookup %t2, %c2, %s2 {combiner = "mean"} : tensor<50x8xf32>, tensor<?xi64> -> tensor<?x8xf32>
    %t3 = emb.table {name = "d_s"} : tensor<100x8xf32>
    %v3, %s3 = emb.from_dense %10#8 : tensor<?x1x!tfg.string> -> tensor<?x!tfg.string>
    %h3 = emb.hash %v3 {num_buckets = 100 : i64} : tensor<?x!tfg.string> -> tensor<?xi64>
    %l3 = emb.lookup %t3, %h3, %s3 {combiner = "sum"} : tensor<100x8xf32>, tensor<?xi64> -> tensor<?x8xf32>
    %t4 = emb.table {name = "v_s"} : tensor<100x8xf32>
    %v4, %s4 = emb.from_dense %10#10 : tensor<?x?x!tfg.string> -> tensor<?x!tfg.string>
    %h4 = emb.hash %v4 {num_buckets = 100 : i64} : tensor<?x!tfg.string> -> tensor<?xi64>
    %l4 = emb.lookup %t4, %h4, %s4 {combiner = "sqrtn"} : tensor<100x8xf32>, tensor<?xi64> -> tensor<?x8xf32>
    %t5 = emb.table {name = "d_f"} : tensor<4x8xf32>
    %v5, %s5 = emb.from_dense %10#7 : tensor<?xf32> -> tensor<?xf32>
    %b5 = emb.bucketize %v5 {boundaries = [0.0 : f32, 1.0 : f32, 10.0 : f32]} : tensor<?xf32> -> tensor<?xi64>
    %l5 = emb.lookup %t5, %b5, %s5 {combiner = "sum"} : tensor<4x8xf32>, tensor<?xi64> -> tensor<?x8xf32>
    %r = emb.concat %l0, %l1, %l2, %l3, %l4, %l5 : (tensor<?x8xf32>, tensor<?x8xf32>, tensor<?x8xf32>, tensor<?x8xf32>, tensor<?x8xf32>, tensor<?x8xf32>) -> tensor<?x48xf32> loc("layer")
  }) {versions = {min_consumer = 0 : i32, producer = 808 : i32}} : () -> ()
}
