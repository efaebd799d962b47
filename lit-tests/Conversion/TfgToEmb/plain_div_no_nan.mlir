// RUN: recom-opt %s --lower-emb | FileCheck %s

// TF 2.16's weighted embedding_lookup_sparse (mean) divides by the weights'
// sum with DivNoNan: 0 where they sum to 0. The lookup says so with
// div_no_nan (a RealDiv would give x / 0). The unweighted sqrtn column
// beside it pools the table itself at the ids (no Unique).

// CHECK: emb.lookup {{.*}} {combiner = "mean", div_no_nan} : tensor<10x4xf32>, tensor<?xi64>, tensor<?xf32> -> tensor<?x4xf32>
// CHECK: emb.lookup {{.*}} {combiner = "sqrtn"}
// CHECK-NOT: tfg.DivNoNan

module {
  "tfg.graph"() ({
    %0:2 = "tfg.VariableV2"() {_mlir_name = "emb_0", container = "", dtype = f32, shape = #tfg.shape<10x4>, shared_name = ""} : () -> (tensor<*x!tfg.ref<f32>>, !tfg.control)
    %1:2 = "tfg.Identity"(%0#0) {T = f32, _mlir_name = "emb_0/read"} : (tensor<*x!tfg.ref<f32>>) -> (tensor<*xf32>, !tfg.control)
    %2:2 = "tfg.Placeholder"() {_mlir_name = "sp_ids_0/indices", dtype = i64, shape = #tfg.shape<?x2>} : () -> (tensor<*xi64>, !tfg.control)
    %3:2 = "tfg.Placeholder"() {_mlir_name = "sp_ids_0/values", dtype = i64, shape = #tfg.shape<?>} : () -> (tensor<*xi64>, !tfg.control)
    %4:2 = "tfg.Placeholder"() {_mlir_name = "sp_weights_0/values", dtype = f32, shape = #tfg.shape<?>} : () -> (tensor<*xf32>, !tfg.control)
    %5:2 = "tfg.Const"() {_mlir_name = "embedding_lookup_sparse/strided_slice/stack", dtype = i32, value = dense<[0, 0]> : tensor<2xi32>} : () -> (tensor<*xi32>, !tfg.control)
    %6:2 = "tfg.Const"() {_mlir_name = "embedding_lookup_sparse/strided_slice/stack_1", dtype = i32, value = dense<[0, 1]> : tensor<2xi32>} : () -> (tensor<*xi32>, !tfg.control)
    %7:2 = "tfg.Const"() {_mlir_name = "embedding_lookup_sparse/strided_slice/stack_2", dtype = i32, value = dense<[1, 1]> : tensor<2xi32>} : () -> (tensor<*xi32>, !tfg.control)
    %8:2 = "tfg.StridedSlice"(%2#0, %5#0, %6#0, %7#0) {Index = i32, T = i64, _mlir_name = "embedding_lookup_sparse/strided_slice", begin_mask = 1 : i64, ellipsis_mask = 0 : i64, end_mask = 1 : i64, new_axis_mask = 0 : i64, shrink_axis_mask = 2 : i64} : (tensor<*xi64>, tensor<*xi32>, tensor<*xi32>, tensor<*xi32>) -> (tensor<*xi64>, !tfg.control)
    %9:2 = "tfg.Cast"(%8#0) {DstT = i32, SrcT = i64, Truncate = false, _mlir_name = "embedding_lookup_sparse/Cast"} : (tensor<*xi64>) -> (tensor<*xi32>, !tfg.control)
    %10:3 = "tfg.Unique"(%3#0) {T = i64, _mlir_name = "embedding_lookup_sparse/Unique", out_idx = i32} : (tensor<*xi64>) -> (tensor<*xi64>, tensor<*xi32>, !tfg.control)
    %11:2 = "tfg.Const"() {_mlir_name = "embedding_lookup_sparse/embedding_lookup/axis", dtype = i32, value = dense<0> : tensor<i32>} : () -> (tensor<*xi32>, !tfg.control)
    %12:2 = "tfg.GatherV2"(%1#0, %10#0, %11#0) {Taxis = i32, Tindices = i64, Tparams = f32, _mlir_name = "embedding_lookup_sparse/embedding_lookup", batch_dims = 0 : i64} : (tensor<*xf32>, tensor<*xi64>, tensor<*xi32>) -> (tensor<*xf32>, !tfg.control)
    %13:2 = "tfg.Identity"(%12#0) {T = f32, _mlir_name = "embedding_lookup_sparse/embedding_lookup/Identity"} : (tensor<*xf32>) -> (tensor<*xf32>, !tfg.control)
    %14:2 = "tfg.Const"() {_mlir_name = "embedding_lookup_sparse/GatherV2/axis", dtype = i32, value = dense<0> : tensor<i32>} : () -> (tensor<*xi32>, !tfg.control)
    %15:2 = "tfg.GatherV2"(%13#0, %10#1, %14#0) {Taxis = i32, Tindices = i32, Tparams = f32, _mlir_name = "embedding_lookup_sparse/GatherV2", batch_dims = 0 : i64} : (tensor<*xf32>, tensor<*xi32>, tensor<*xi32>) -> (tensor<*xf32>, !tfg.control)
    %16:2 = "tfg.Const"() {_mlir_name = "embedding_lookup_sparse/Rank", dtype = i32, value = dense<2> : tensor<i32>} : () -> (tensor<*xi32>, !tfg.control)
    %17:2 = "tfg.Const"() {_mlir_name = "embedding_lookup_sparse/sub/y", dtype = i32, value = dense<1> : tensor<i32>} : () -> (tensor<*xi32>, !tfg.control)
    %18:2 = "tfg.Sub"(%16#0, %17#0) {T = i32, _mlir_name = "embedding_lookup_sparse/sub"} : (tensor<*xi32>, tensor<*xi32>) -> (tensor<*xi32>, !tfg.control)
    %19:2 = "tfg.Const"() {_mlir_name = "embedding_lookup_sparse/ExpandDims/dim", dtype = i32, value = dense<0> : tensor<i32>} : () -> (tensor<*xi32>, !tfg.control)
    %20:2 = "tfg.ExpandDims"(%18#0, %19#0) {T = i32, Tdim = i32, _mlir_name = "embedding_lookup_sparse/ExpandDims"} : (tensor<*xi32>, tensor<*xi32>) -> (tensor<*xi32>, !tfg.control)
    %21:2 = "tfg.Const"() {_mlir_name = "embedding_lookup_sparse/ones/Const", dtype = i32, value = dense<1> : tensor<i32>} : () -> (tensor<*xi32>, !tfg.control)
    %22:2 = "tfg.Fill"(%20#0, %21#0) {T = i32, _mlir_name = "embedding_lookup_sparse/ones", index_type = i32} : (tensor<*xi32>, tensor<*xi32>) -> (tensor<*xi32>, !tfg.control)
    %23:2 = "tfg.Shape"(%4#0) {T = f32, _mlir_name = "embedding_lookup_sparse/Shape", out_type = i32} : (tensor<*xf32>) -> (tensor<*xi32>, !tfg.control)
    %24:2 = "tfg.Const"() {_mlir_name = "embedding_lookup_sparse/concat/axis", dtype = i32, value = dense<0> : tensor<i32>} : () -> (tensor<*xi32>, !tfg.control)
    %25:2 = "tfg.ConcatV2"(%23#0, %22#0, %24#0) {N = 2 : i64, T = i32, Tidx = i32, _mlir_name = "embedding_lookup_sparse/concat"} : (tensor<*xi32>, tensor<*xi32>, tensor<*xi32>) -> (tensor<*xi32>, !tfg.control)
    %26:2 = "tfg.Reshape"(%4#0, %25#0) {T = f32, Tshape = i32, _mlir_name = "embedding_lookup_sparse/Reshape"} : (tensor<*xf32>, tensor<*xi32>) -> (tensor<*xf32>, !tfg.control)
    %27:2 = "tfg.Mul"(%15#0, %26#0) {T = f32, _mlir_name = "embedding_lookup_sparse/mul"} : (tensor<*xf32>, tensor<*xf32>) -> (tensor<*xf32>, !tfg.control)
    %28:2 = "tfg.SegmentSum"(%27#0, %9#0) {T = f32, Tindices = i32, _mlir_name = "embedding_lookup_sparse/SegmentSum"} : (tensor<*xf32>, tensor<*xi32>) -> (tensor<*xf32>, !tfg.control)
    %29:2 = "tfg.SegmentSum"(%26#0, %9#0) {T = f32, Tindices = i32, _mlir_name = "embedding_lookup_sparse/SegmentSum_1"} : (tensor<*xf32>, tensor<*xi32>) -> (tensor<*xf32>, !tfg.control)
    %30:2 = "tfg.DivNoNan"(%28#0, %29#0) {T = f32, _mlir_name = "embedding_lookup_sparse"} : (tensor<*xf32>, tensor<*xf32>) -> (tensor<*xf32>, !tfg.control)
    %31:2 = "tfg.VariableV2"() {_mlir_name = "emb_1", container = "", dtype = f32, shape = #tfg.shape<11x4>, shared_name = ""} : () -> (tensor<*x!tfg.ref<f32>>, !tfg.control)
    %32:2 = "tfg.Identity"(%31#0) {T = f32, _mlir_name = "emb_1/read"} : (tensor<*x!tfg.ref<f32>>) -> (tensor<*xf32>, !tfg.control)
    %33:2 = "tfg.Placeholder"() {_mlir_name = "sp_ids_1/indices", dtype = i64, shape = #tfg.shape<?x2>} : () -> (tensor<*xi64>, !tfg.control)
    %34:2 = "tfg.Placeholder"() {_mlir_name = "sp_ids_1/values", dtype = i64, shape = #tfg.shape<?>} : () -> (tensor<*xi64>, !tfg.control)
    %35:2 = "tfg.Const"() {_mlir_name = "embedding_lookup_sparse_1/strided_slice/stack", dtype = i32, value = dense<[0, 0]> : tensor<2xi32>} : () -> (tensor<*xi32>, !tfg.control)
    %36:2 = "tfg.Const"() {_mlir_name = "embedding_lookup_sparse_1/strided_slice/stack_1", dtype = i32, value = dense<[0, 1]> : tensor<2xi32>} : () -> (tensor<*xi32>, !tfg.control)
    %37:2 = "tfg.Const"() {_mlir_name = "embedding_lookup_sparse_1/strided_slice/stack_2", dtype = i32, value = dense<[1, 1]> : tensor<2xi32>} : () -> (tensor<*xi32>, !tfg.control)
    %38:2 = "tfg.StridedSlice"(%33#0, %35#0, %36#0, %37#0) {Index = i32, T = i64, _mlir_name = "embedding_lookup_sparse_1/strided_slice", begin_mask = 1 : i64, ellipsis_mask = 0 : i64, end_mask = 1 : i64, new_axis_mask = 0 : i64, shrink_axis_mask = 2 : i64} : (tensor<*xi64>, tensor<*xi32>, tensor<*xi32>, tensor<*xi32>) -> (tensor<*xi64>, !tfg.control)
    %39:2 = "tfg.SparseSegmentSqrtN"(%32#0, %34#0, %38#0) {T = f32, Tidx = i64, Tsegmentids = i64, _mlir_name = "embedding_lookup_sparse_1", sparse_gradient = true} : (tensor<*xf32>, tensor<*xi64>, tensor<*xi64>) -> (tensor<*xf32>, !tfg.control)
    %40:2 = "tfg.Const"() {_mlir_name = "concat/axis", dtype = i32, value = dense<1> : tensor<i32>} : () -> (tensor<*xi32>, !tfg.control)
    %41:2 = "tfg.ConcatV2"(%30#0, %39#0, %40#0) {N = 2 : i64, T = f32, Tidx = i32, _mlir_name = "concat"} : (tensor<*xf32>, tensor<*xf32>, tensor<*xi32>) -> (tensor<*xf32>, !tfg.control)
  }) {versions = {min_consumer = 0 : i32, producer = 808 : i32}} : () -> ()
}
