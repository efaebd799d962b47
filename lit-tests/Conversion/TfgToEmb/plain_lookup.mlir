// RUN: recom-opt %s --lower-emb | FileCheck %s
// RUN: recom-opt %s --lower-emb | FileCheck %s --check-prefix=GONE

// Plain tf.nn.embedding_lookup, no feature columns (recom gen --lookups,
// TF 2.6): ids [batch] of int32 on a variable (its rows are the column: a
// gather), and ids [batch, 3] on a resource variable pooled by
// reduce_mean over the bag (emb.lookup mean over every id of the row).

// CHECK: %[[T0:.*]] = emb.table {name = "emb_0"} : tensor<10x4xf32>
// CHECK: %[[V0:.*]], %{{.*}} = emb.from_dense %{{.*}} : tensor<?xi32> -> tensor<?xi32>
// CHECK: %[[G:.*]] = emb.gather %[[T0]], %[[V0]] : tensor<10x4xf32>, tensor<?xi32> -> tensor<?x4xf32>
// CHECK: %[[T1:.*]] = emb.table {name = "emb_1"} : tensor<11x8xf32>
// CHECK: %[[V1:.*]], %[[S1:.*]] = emb.from_dense %{{.*}} : tensor<?x3xi64> -> tensor<?xi64>
// CHECK: %[[L:.*]] = emb.lookup %[[T1]], %[[V1]], %[[S1]] {combiner = "mean"} : tensor<11x8xf32>, tensor<?xi64> -> tensor<?x8xf32>
// CHECK: "tfg.ConcatV2"(%[[G]], %[[L]],

// GONE-NOT: tfg.GatherV2
// GONE-NOT: tfg.ResourceGather
// GONE-NOT: tfg.Mean
// GONE-NOT: tfg.VarHandleOp
// GONE-NOT: tfg.VariableV2

module {
  "tfg.graph"() ({
    %0:2 = "tfg.VariableV2"() {_mlir_name = "emb_0", container = "", dtype = f32, shape = #tfg.shape<10x4>, shared_name = ""} : () -> (tensor<*x!tfg.ref<f32>>, !tfg.control)
    %1:2 = "tfg.Identity"(%0#0) {T = f32, _mlir_name = "emb_0/read"} : (tensor<*x!tfg.ref<f32>>) -> (tensor<*xf32>, !tfg.control)
    %2:2 = "tfg.Placeholder"() {_mlir_name = "ids_0", dtype = i32, shape = #tfg.shape<?>} : () -> (tensor<*xi32>, !tfg.control)
    %3:2 = "tfg.Const"() {_mlir_name = "embedding_lookup/axis", dtype = i32, value = dense<0> : tensor<i32>} : () -> (tensor<*xi32>, !tfg.control)
    %4:2 = "tfg.GatherV2"(%1#0, %2#0, %3#0) {Taxis = i32, Tindices = i32, Tparams = f32, _mlir_name = "embedding_lookup", batch_dims = 0 : i64} : (tensor<*xf32>, tensor<*xi32>, tensor<*xi32>) -> (tensor<*xf32>, !tfg.control)
    %5:2 = "tfg.Identity"(%4#0) {T = f32, _mlir_name = "embedding_lookup/Identity"} : (tensor<*xf32>) -> (tensor<*xf32>, !tfg.control)
    %6:2 = "tfg.VarHandleOp"() {_mlir_name = "emb_1", allowed_devices = [], container = "", dtype = f32, shape = #tfg.shape<11x8>, shared_name = "emb_1"} : () -> (tensor<*x!tfg.resource>, !tfg.control)
    %7:2 = "tfg.Placeholder"() {_mlir_name = "ids_1", dtype = i64, shape = #tfg.shape<?x3>} : () -> (tensor<*xi64>, !tfg.control)
    %8:2 = "tfg.ResourceGather"(%6#0, %7#0) {Tindices = i64, _mlir_name = "embedding_lookup_1", batch_dims = 0 : i64, dtype = f32, validate_indices = true} : (tensor<*x!tfg.resource>, tensor<*xi64>) -> (tensor<*xf32>, !tfg.control)
    %9:2 = "tfg.Identity"(%8#0) {T = f32, _mlir_name = "embedding_lookup_1/Identity"} : (tensor<*xf32>) -> (tensor<*xf32>, !tfg.control)
    %10:2 = "tfg.Const"() {_mlir_name = "Mean/reduction_indices", dtype = i32, value = dense<1> : tensor<i32>} : () -> (tensor<*xi32>, !tfg.control)
    %11:2 = "tfg.Mean"(%9#0, %10#0) {T = f32, Tidx = i32, _mlir_name = "Mean", keep_dims = false} : (tensor<*xf32>, tensor<*xi32>) -> (tensor<*xf32>, !tfg.control)
    %12:2 = "tfg.Const"() {_mlir_name = "concat/axis", dtype = i32, value = dense<1> : tensor<i32>} : () -> (tensor<*xi32>, !tfg.control)
    %13:2 = "tfg.ConcatV2"(%5#0, %11#0, %12#0) {N = 2 : i64, T = f32, Tidx = i32, _mlir_name = "concat"} : (tensor<*xf32>, tensor<*xf32>, tensor<*xi32>) -> (tensor<*xf32>, !tfg.control)
  }) {versions = {min_consumer = 0 : i32, producer = 808 : i32}} : () -> ()
}
