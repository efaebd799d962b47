// RUN: recom-opt %s --lower-emb --verify-diagnostics | FileCheck %s

// A plain form that stays tfg, with a remark: reduce_mean over ids whose
// bag length is unknown (the placeholder ids_1 is [?, ?]; hand edit of a
// recom gen --lookups model): TensorFlow's mean of an empty bag is NaN, an
// emb.lookup's 0. The gather column beside it is lowered.

// CHECK: emb.gather
// CHECK: "tfg.Mean"

module {
  "tfg.graph"() ({
    %0:2 = "tfg.VariableV2"() {_mlir_name = "emb_0", container = "", dtype = f32, shape = #tfg.shape<10x4>, shared_name = ""} : () -> (tensor<*x!tfg.ref<f32>>, !tfg.control)
    %1:2 = "tfg.Identity"(%0#0) {T = f32, _mlir_name = "emb_0/read"} : (tensor<*x!tfg.ref<f32>>) -> (tensor<*xf32>, !tfg.control)
    %2:2 = "tfg.Placeholder"() {_mlir_name = "ids_0", dtype = i32, shape = #tfg.shape<?>} : () -> (tensor<*xi32>, !tfg.control)
    %3:2 = "tfg.Const"() {_mlir_name = "embedding_lookup/axis", dtype = i32, value = dense<0> : tensor<i32>} : () -> (tensor<*xi32>, !tfg.control)
    %4:2 = "tfg.GatherV2"(%1#0, %2#0, %3#0) {Taxis = i32, Tindices = i32, Tparams = f32, _mlir_name = "embedding_lookup", batch_dims = 0 : i64} : (tensor<*xf32>, tensor<*xi32>, tensor<*xi32>) -> (tensor<*xf32>, !tfg.control)
    %5:2 = "tfg.Identity"(%4#0) {T = f32, _mlir_name = "embedding_lookup/Identity"} : (tensor<*xf32>) -> (tensor<*xf32>, !tfg.control)
    %6:2 = "tfg.VarHandleOp"() {_mlir_name = "emb_1", allowed_devices = [], container = "", dtype = f32, shape = #tfg.shape<11x8>, shared_name = "emb_1"} : () -> (tensor<*x!tfg.resource>, !tfg.control)
    %7:2 = "tfg.Placeholder"() {_mlir_name = "ids_1", dtype = i64, shape = #tfg.shape<?x?>} : () -> (tensor<*xi64>, !tfg.control)
    %8:2 = "tfg.ResourceGather"(%6#0, %7#0) {Tindices = i64, _mlir_name = "embedding_lookup_1", batch_dims = 0 : i64, dtype = f32, validate_indices = true} : (tensor<*x!tfg.resource>, tensor<*xi64>) -> (tensor<*xf32>, !tfg.control)
    %9:2 = "tfg.Identity"(%8#0) {T = f32, _mlir_name = "embedding_lookup_1/Identity"} : (tensor<*xf32>) -> (tensor<*xf32>, !tfg.control)
    %10:2 = "tfg.Const"() {_mlir_name = "Mean/reduction_indices", dtype = i32, value = dense<1> : tensor<i32>} : () -> (tensor<*xi32>, !tfg.control)
    // expected-remark@+1 {{column "Mean" (table "emb_1") stays in tfg: tfg.Mean "Mean" averages bags of ids tensor<*xi64> whose length is not known to be positive}}
    %11:2 = "tfg.Mean"(%9#0, %10#0) {T = f32, Tidx = i32, _mlir_name = "Mean", keep_dims = false} : (tensor<*xf32>, tensor<*xi32>) -> (tensor<*xf32>, !tfg.control)
    %12:2 = "tfg.Const"() {_mlir_name = "concat/axis", dtype = i32, value = dense<1> : tensor<i32>} : () -> (tensor<*xi32>, !tfg.control)
    %13:2 = "tfg.ConcatV2"(%5#0, %11#0, %12#0) {N = 2 : i64, T = f32, Tidx = i32, _mlir_name = "concat"} : (tensor<*xf32>, tensor<*xf32>, tensor<*xi32>) -> (tensor<*xf32>, !tfg.control)
  }) {versions = {min_consumer = 0 : i32, producer = 808 : i32}} : () -> ()
}
