// Custom forms of every emb op: printing, printing what was printed (same
// text), and parsing the generic form back.
// RUN: recom-opt %s | FileCheck %s
// RUN: recom-opt %s | recom-opt | FileCheck %s
// RUN: recom-opt %s --mlir-print-op-generic | recom-opt | FileCheck %s
// RUN: recom-opt %s -o %t.1.mlir && recom-opt %t.1.mlir -o %t.2.mlir && diff %t.1.mlir %t.2.mlir
// RUN: recom-opt %s --mlir-print-op-generic | FileCheck %s --check-prefix=GENERIC

// CHECK-LABEL: func.func @sources
// CHECK-SAME:    (%[[X:.*]]: tensor<?x1xi64>, %[[F:.*]]: tensor<?x3xf32>, %[[S:.*]]: tensor<?x!tfg.string>, %[[I:.*]]: tensor<?x2xi64>, %[[V:.*]]: tensor<?xi64>, %[[SH:.*]]: tensor<2xi64>)
// CHECK-NEXT:    %[[V0:.*]], %[[S0:.*]] = emb.from_dense %[[X]] {ignore = -1 : i64} : tensor<?x1xi64> -> tensor<?xi64>
// CHECK-NEXT:    %[[V1:.*]], %[[S1:.*]] = emb.from_dense %[[F]] : tensor<?x3xf32> -> tensor<?xf32>
// CHECK-NEXT:    %[[V2:.*]], %[[S2:.*]] = emb.split_strings %[[S]] {sep = ";"} : tensor<?x!tfg.string> -> tensor<?x!tfg.string>
// CHECK-NEXT:    %[[V3:.*]], %[[S3:.*]] = emb.from_sparse %[[I]], %[[V]], %[[SH]] : tensor<?x2xi64>, tensor<?xi64>, tensor<2xi64> -> tensor<?xi64>
// CHECK-NEXT:    {{(func\.)?}}return %[[V0]], %[[S0]], %[[V1]], %[[V2]], %[[S3]]
// GENERIC:       "func.func"
// GENERIC:       "emb.from_dense"(%{{.*}}) {ignore = -1 : i64} : (tensor<?x1xi64>) -> (tensor<?xi64>, tensor<?xi64>)
// GENERIC:       "emb.from_dense"(%{{.*}}) : (tensor<?x3xf32>) -> (tensor<?xf32>, tensor<?xi64>)
// GENERIC:       "emb.split_strings"(%{{.*}}) {sep = ";"} : (tensor<?x!tfg.string>) -> (tensor<?x!tfg.string>, tensor<?xi64>)
// GENERIC:       "emb.from_sparse"(%{{.*}}, %{{.*}}, %{{.*}}) : (tensor<?x2xi64>, tensor<?xi64>, tensor<2xi64>) -> (tensor<?xi64>, tensor<?xi64>)
func.func @sources(%x: tensor<?x1xi64>, %f: tensor<?x3xf32>, %s: tensor<?x!tfg.string>, %i: tensor<?x2xi64>, %v: tensor<?xi64>, %sh: tensor<2xi64>)
    -> (tensor<?xi64>, tensor<?xi64>, tensor<?xf32>, tensor<?x!tfg.string>, tensor<?xi64>) {
  %v0, %s0 = emb.from_dense %x {ignore = -1 : i64} : tensor<?x1xi64> -> tensor<?xi64>
  %v1, %s1 = emb.from_dense %f : tensor<?x3xf32> -> tensor<?xf32>
  %v2, %s2 = emb.split_strings %s {sep = ";"} : tensor<?x!tfg.string> -> tensor<?x!tfg.string>
  %v3, %s3 = emb.from_sparse %i, %v, %sh : tensor<?x2xi64>, tensor<?xi64>, tensor<2xi64> -> tensor<?xi64>
  func.return %v0, %s0, %v1, %v2, %s3 : tensor<?xi64>, tensor<?xi64>, tensor<?xf32>, tensor<?x!tfg.string>, tensor<?xi64>
}

// CHECK-LABEL: func.func @string_sources
// CHECK-NEXT:    emb.from_dense %{{.*}} {ignore = ""} : tensor<?x!tfg.string> -> tensor<?x!tfg.string>
// CHECK-NEXT:    emb.split_strings %{{.*}} {sep = ""} : tensor<?x1x!tfg.string> -> tensor<?x!tfg.string>
func.func @string_sources(%x: tensor<?x!tfg.string>, %y: tensor<?x1x!tfg.string>) -> (tensor<?x!tfg.string>, tensor<?x!tfg.string>) {
  %v0, %s0 = emb.from_dense %x {ignore = ""} : tensor<?x!tfg.string> -> tensor<?x!tfg.string>
  %v1, %s1 = emb.split_strings %y {sep = ""} : tensor<?x1x!tfg.string> -> tensor<?x!tfg.string>
  func.return %v0, %v1 : tensor<?x!tfg.string>, tensor<?x!tfg.string>
}

// CHECK-LABEL: func.func @transforms
// CHECK-SAME:    (%[[S:.*]]: tensor<?x!tfg.string>, %[[I:.*]]: tensor<?xi64>, %[[F:.*]]: tensor<?xf32>, %[[SP:.*]]: tensor<?xi64>)
// CHECK-NEXT:    %[[H:.*]] = emb.hash %[[S]] {num_buckets = 100 : i64} : tensor<?x!tfg.string> -> tensor<?xi64>
// CHECK-NEXT:    %[[A:.*]] = emb.as_string %[[I]] : tensor<?xi64> -> tensor<?x!tfg.string>
// CHECK-NEXT:    %[[B:.*]] = emb.bucketize %[[F]] {boundaries = [0.000000e+00 : f32, 5.000000e-01 : f32, 1.000000e+00 : f32]} : tensor<?xf32> -> tensor<?xi64>
// CHECK-NEXT:    %[[O:.*]] = emb.add_offset %[[B]], %[[SP]] {stride = 4 : i64} : tensor<?xi64>
// CHECK-NEXT:    %[[VS:.*]] = emb.vocab_lookup %[[S]] {default = -1 : i64, keys = dense<["a", "b", "c"]> : tensor<3x!tfg.string>} : tensor<?x!tfg.string> -> tensor<?xi64>
// CHECK-NEXT:    %[[VI:.*]] = emb.vocab_lookup %[[I]] {keys = dense<[7, 9]> : tensor<2xi64>, num_oov_buckets = 3 : i64} : tensor<?xi64> -> tensor<?xi64>
// CHECK-NEXT:    %[[C:.*]] = emb.check_range %[[I]] {default = 0 : i64, num_buckets = 10 : i64} : tensor<?xi64> -> tensor<?xi64>
// CHECK-NEXT:    %[[C2:.*]] = emb.check_range %[[I]] {num_buckets = 10 : i64} : tensor<?xi64> -> tensor<?xi64>
// CHECK-NEXT:    %[[T:.*]] = emb.cast %[[C]] : tensor<?xi64> -> tensor<?xi32>
func.func @transforms(%s: tensor<?x!tfg.string>, %i: tensor<?xi64>, %f: tensor<?xf32>, %splits: tensor<?xi64>)
    -> (tensor<?xi64>, tensor<?x!tfg.string>, tensor<?xi64>, tensor<?xi64>, tensor<?xi64>, tensor<?xi64>, tensor<?xi32>) {
  %h = emb.hash %s {num_buckets = 100 : i64} : tensor<?x!tfg.string> -> tensor<?xi64>
  %a = emb.as_string %i : tensor<?xi64> -> tensor<?x!tfg.string>
  %b = emb.bucketize %f {boundaries = [0.0 : f32, 0.5 : f32, 1.0 : f32]} : tensor<?xf32> -> tensor<?xi64>
  %o = emb.add_offset %b, %splits {stride = 4 : i64} : tensor<?xi64>
  %vs = emb.vocab_lookup %s {keys = dense<["a", "b", "c"]> : tensor<3x!tfg.string>, default = -1 : i64} : tensor<?x!tfg.string> -> tensor<?xi64>
  %vi = emb.vocab_lookup %i {keys = dense<[7, 9]> : tensor<2xi64>, num_oov_buckets = 3 : i64} : tensor<?xi64> -> tensor<?xi64>
  %c = emb.check_range %i {num_buckets = 10 : i64, default = 0 : i64} : tensor<?xi64> -> tensor<?xi64>
  %c2 = emb.check_range %i {num_buckets = 10 : i64} : tensor<?xi64> -> tensor<?xi64>
  %t = emb.cast %c : tensor<?xi64> -> tensor<?xi32>
  func.return %h, %a, %o, %vs, %vi, %c2, %t : tensor<?xi64>, tensor<?x!tfg.string>, tensor<?xi64>, tensor<?xi64>, tensor<?xi64>, tensor<?xi64>, tensor<?xi32>
}

// CHECK-LABEL: func.func @filters
// CHECK-SAME:    (%[[V:.*]]: tensor<?xi64>, %[[S:.*]]: tensor<?xi64>, %[[W:.*]]: tensor<?xf32>)
// CHECK-NEXT:    %[[V0:.*]], %[[S0:.*]] = emb.filter %[[V]], %[[S]] {min = 0 : i64} : tensor<?xi64>
// CHECK-NEXT:    %[[V1:.*]], %[[S1:.*]], %[[W1:.*]] = emb.filter %[[V]], %[[S]], %[[W]] {max = 99 : i64, min = 0 : i64, positive_weights} : tensor<?xi64>, tensor<?xf32>
// GENERIC:       "func.func"
// GENERIC:       "emb.filter"(%{{.*}}, %{{.*}}) {min = 0 : i64} : (tensor<?xi64>, tensor<?xi64>) -> (tensor<?xi64>, tensor<?xi64>)
func.func @filters(%v: tensor<?xi64>, %s: tensor<?xi64>, %w: tensor<?xf32>) -> (tensor<?xi64>, tensor<?xi64>, tensor<?xf32>) {
  %v0, %s0 = emb.filter %v, %s {min = 0 : i64} : tensor<?xi64>
  %v1, %s1, %w1 = emb.filter %v, %s, %w {min = 0 : i64, max = 99 : i64, positive_weights} : tensor<?xi64>, tensor<?xf32>
  func.return %v0, %s1, %w1 : tensor<?xi64>, tensor<?xi64>, tensor<?xf32>
}

// CHECK-LABEL: func.func @lookups
// CHECK-SAME:    (%[[V:.*]]: tensor<?xi64>, %[[S:.*]]: tensor<?xi64>, %[[W:.*]]: tensor<?xf32>, %[[I:.*]]: tensor<?xi32>)
// CHECK-NEXT:    %[[T:.*]] = emb.table {name = "input_layer/x_embedding/embedding_weights"} : tensor<100x8xf32>
// CHECK-NEXT:    %[[C:.*]] = emb.table {name = "c", value = dense<{{.*}}> : tensor<2x4xf32>} : tensor<2x4xf32>
// CHECK-NEXT:    %[[L0:.*]] = emb.lookup %[[T]], %[[V]], %[[S]] {combiner = "mean"} : tensor<100x8xf32>, tensor<?xi64> -> tensor<?x8xf32>
// CHECK-NEXT:    %[[L1:.*]] = emb.lookup %[[T]], %[[V]], %[[S]], %[[W]] {combiner = "sqrtn"} : tensor<100x8xf32>, tensor<?xi64>, tensor<?xf32> -> tensor<?x8xf32>
// CHECK-NEXT:    %[[G:.*]] = emb.gather %[[C]], %[[I]] : tensor<2x4xf32>, tensor<?xi32> -> tensor<?x4xf32>
// CHECK-NEXT:    %[[GS:.*]] = emb.gather_scatter %[[T]], %[[V]], %[[S]] {combiner = "sum"} : tensor<100x8xf32>, tensor<?xi64> -> tensor<?x8xf32>
// CHECK-NEXT:    %[[GW:.*]] = emb.gather_scatter %[[T]], %[[V]], %[[S]], %[[W]] {combiner = "mean"} : tensor<100x8xf32>, tensor<?xi64>, tensor<?xf32> -> tensor<?x8xf32>
// CHECK-NEXT:    %[[R:.*]] = emb.concat %[[L0]], %[[L1]], %[[G]], %[[GS]], %[[GW]] : (tensor<?x8xf32>, tensor<?x8xf32>, tensor<?x4xf32>, tensor<?x8xf32>, tensor<?x8xf32>) -> tensor<?x36xf32>
// CHECK-NEXT:    {{(func\.)?}}return %[[R]] : tensor<?x36xf32>
// GENERIC:       "func.func"
// GENERIC:       "emb.table"() {name = "input_layer/x_embedding/embedding_weights"} : () -> tensor<100x8xf32>
// GENERIC:       "emb.lookup"(%{{.*}}, %{{.*}}, %{{.*}}) {combiner = "mean"} : (tensor<100x8xf32>, tensor<?xi64>, tensor<?xi64>) -> tensor<?x8xf32>
// GENERIC:       "emb.concat"
func.func @lookups(%v: tensor<?xi64>, %s: tensor<?xi64>, %w: tensor<?xf32>, %i: tensor<?xi32>) -> tensor<?x36xf32> {
  %t = emb.table {name = "input_layer/x_embedding/embedding_weights"} : tensor<100x8xf32>
  %c = emb.table {name = "c", value = dense<[[1.0, 2.0, 3.0, 4.0], [5.0, 6.0, 7.0, 8.0]]> : tensor<2x4xf32>} : tensor<2x4xf32>
  %l0 = emb.lookup %t, %v, %s {combiner = "mean"} : tensor<100x8xf32>, tensor<?xi64> -> tensor<?x8xf32>
  %l1 = emb.lookup %t, %v, %s, %w {combiner = "sqrtn"} : tensor<100x8xf32>, tensor<?xi64>, tensor<?xf32> -> tensor<?x8xf32>
  %g = emb.gather %c, %i : tensor<2x4xf32>, tensor<?xi32> -> tensor<?x4xf32>
  %gs = emb.gather_scatter %t, %v, %s {combiner = "sum"} : tensor<100x8xf32>, tensor<?xi64> -> tensor<?x8xf32>
  %gw = emb.gather_scatter %t, %v, %s, %w {combiner = "mean"} : tensor<100x8xf32>, tensor<?xi64>, tensor<?xf32> -> tensor<?x8xf32>
  %r = emb.concat %l0, %l1, %g, %gs, %gw : (tensor<?x8xf32>, tensor<?x8xf32>, tensor<?x4xf32>, tensor<?x8xf32>, tensor<?x8xf32>) -> tensor<?x36xf32>
  func.return %r : tensor<?x36xf32>
}

// The generic form parses, and prints in the custom form.
// CHECK-LABEL: func.func @generic_in
// CHECK-NEXT:    emb.from_dense %{{.*}} : tensor<?x2xi64> -> tensor<?xi64>
// CHECK-NEXT:    emb.hash %{{.*}} {num_buckets = 5 : i64} : tensor<?x!tfg.string> -> tensor<?xi64>
// CHECK-NEXT:    emb.add_offset %{{.*}}, %{{.*}} {stride = 2 : i64} : tensor<?xi64>
func.func @generic_in(%x: tensor<?x2xi64>, %s: tensor<?x!tfg.string>) -> (tensor<?xi64>, tensor<?xi64>) {
  %0:2 = "emb.from_dense"(%x) : (tensor<?x2xi64>) -> (tensor<?xi64>, tensor<?xi64>)
  %1 = "emb.hash"(%s) {num_buckets = 5 : i64} : (tensor<?x!tfg.string>) -> tensor<?xi64>
  %2 = "emb.add_offset"(%0#0, %0#1) {stride = 2 : i64} : (tensor<?xi64>, tensor<?xi64>) -> tensor<?xi64>
  func.return %1, %2 : tensor<?xi64>, tensor<?xi64>
}

// A partitioned table: the shards' variables and the strategy that finds a row.
// CHECK-LABEL: func.func @partitioned
// CHECK-NEXT:    %[[T:.*]] = emb.table {name = "emb", partition_strategy = "mod", partitions = ["emb/part_0", "emb/part_1", "emb/part_2"]} : tensor<13x4xf32>
// CHECK-NEXT:    %[[G:.*]] = emb.gather %[[T]], %{{.*}} : tensor<13x4xf32>, tensor<?xi64> -> tensor<?x4xf32>
// GENERIC:       "emb.table"() {name = "emb", partition_strategy = "mod", partitions = ["emb/part_0", "emb/part_1", "emb/part_2"]} : () -> tensor<13x4xf32>
func.func @partitioned(%i: tensor<?xi64>) -> tensor<?x4xf32> {
  %t = emb.table {name = "emb", partitions = ["emb/part_0", "emb/part_1", "emb/part_2"], partition_strategy = "mod"} : tensor<13x4xf32>
  %g = emb.gather %t, %i : tensor<13x4xf32>, tensor<?xi64> -> tensor<?x4xf32>
  func.return %g : tensor<?x4xf32>
}

// A weighted mean that is 0 where the weights sum to 0 (DivNoNan).
// CHECK-LABEL: func.func @div_no_nan
// CHECK-NEXT:    %[[T:.*]] = emb.table {name = "t"} : tensor<10x4xf32>
// CHECK-NEXT:    %{{.*}} = emb.lookup %[[T]], %{{.*}}, %{{.*}}, %{{.*}} {combiner = "mean", div_no_nan} : tensor<10x4xf32>, tensor<?xi64>, tensor<?xf32> -> tensor<?x4xf32>
// GENERIC:       "emb.lookup"(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}) {combiner = "mean", div_no_nan}
func.func @div_no_nan(%v: tensor<?xi64>, %s: tensor<?xi64>, %w: tensor<?xf32>) -> tensor<?x4xf32> {
  %t = emb.table {name = "t"} : tensor<10x4xf32>
  %l = emb.lookup %t, %v, %s, %w {combiner = "mean", div_no_nan} : tensor<10x4xf32>, tensor<?xi64>, tensor<?xf32> -> tensor<?x4xf32>
  func.return %l : tensor<?x4xf32>
}

// emb.cross: the (values, row splits) pairs of its inputs; only the values
// types are printed.
// CHECK-LABEL: func.func @cross
// CHECK-SAME:    (%[[A:.*]]: tensor<?xi64>, %[[AS:.*]]: tensor<?xi64>, %[[B:.*]]: tensor<?x!tfg.string>, %[[BS:.*]]: tensor<?xi64>)
// CHECK-NEXT:    %[[H:.*]], %[[HS:.*]] = emb.cross %[[A]], %[[AS]], %[[B]], %[[BS]] {hash_key = 956888297470 : i64, num_buckets = 1000 : i64} : tensor<?xi64>, tensor<?x!tfg.string> -> tensor<?xi64>
// CHECK-NEXT:    %[[J:.*]], %[[JS:.*]] = emb.cross %[[B]], %[[BS]] {sep = "_X_"} : tensor<?x!tfg.string> -> tensor<?x!tfg.string>
// GENERIC:       "emb.cross"(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}) {hash_key = 956888297470 : i64, num_buckets = 1000 : i64} : (tensor<?xi64>, tensor<?xi64>, tensor<?x!tfg.string>, tensor<?xi64>) -> (tensor<?xi64>, tensor<?xi64>)
func.func @cross(%a: tensor<?xi64>, %as: tensor<?xi64>, %b: tensor<?x!tfg.string>, %bs: tensor<?xi64>) -> (tensor<?xi64>, tensor<?xi64>, tensor<?x!tfg.string>) {
  %h, %hs = emb.cross %a, %as, %b, %bs {hash_key = 956888297470 : i64, num_buckets = 1000 : i64} : tensor<?xi64>, tensor<?x!tfg.string> -> tensor<?xi64>
  %j, %js = emb.cross %b, %bs {sep = "_X_"} : tensor<?x!tfg.string> -> tensor<?x!tfg.string>
  func.return %h, %hs, %j : tensor<?xi64>, tensor<?xi64>, tensor<?x!tfg.string>
}
