// RUN: recom-opt %s --lower-emb | FileCheck %s
// RUN: recom-opt %s --lower-emb | FileCheck %s --check-prefix=GONE

// tf.nn.embedding_lookup_sparse and safe_embedding_lookup_sparse on sparse
// ids fed as three placeholders (recom gen --lookups, TF 2.16): mean over
// the table itself at the ids (no Unique: TF 2.16's unweighted lookup),
// a weighted sum (Unique, gather, Mul by the weights' values, SegmentSum),
// and safe_ with sqrtn on a resource variable. embedding_lookup_sparse has
// max(segment)+1 rows: the bags' dense shape is computed from the segment
// ids (tfg ops named <pooling>/bags) for emb.from_sparse; the weights
// take the ids' indices.

// CHECK: %[[SEG:.*]]:2 = "tfg.StridedSlice"(%[[IND:[0-9]+]]#0,
// CHECK: %[[MAX:.*]]:2 = "tfg.Max"(%[[SEG]]#0,
// CHECK: "tfg.AddV2"(%[[MAX]]#0,
// CHECK: %[[BAGS:.*]]:2 = "tfg.Pack"({{.*}}_mlir_name = "embedding_lookup_sparse/bags"
// CHECK: emb.from_sparse %[[IND]]#0, %{{.*}}, %[[BAGS]]#0 : tensor<?x2xi64>, tensor<?xi64>, tensor<2xi64> -> tensor<?xi64>
// CHECK: emb.lookup {{.*}} {combiner = "mean"}
// CHECK: %[[BAGS1:.*]]:2 = "tfg.Pack"({{.*}}_mlir_name = "embedding_lookup_sparse_1/bags"
// CHECK: %[[V:.*]], %[[S:.*]] = emb.from_sparse %[[IND1:[0-9]+]]#0, %{{.*}}, %[[BAGS1]]#0 : {{.*}} -> tensor<?xi64>
// CHECK: %[[W:.*]], %{{.*}} = emb.from_sparse %[[IND1]]#0, %{{.*}}, %[[BAGS1]]#0 : {{.*}} -> tensor<?xf32>
// CHECK: emb.lookup %{{.*}}, %[[V]], %[[S]], %[[W]] {combiner = "sum"}
// CHECK: emb.table {name = "emb_2"}
// CHECK: emb.filter {{.*}} {min = 0 : i64}
// CHECK: emb.lookup {{.*}} {combiner = "sqrtn"}

// GONE-NOT: tfg.SparseSegment
// GONE-NOT: tfg.SegmentSum
// GONE-NOT: tfg.Unique
// GONE-NOT: tfg.SparseFillEmptyRows
// GONE-NOT: tfg.ReadVariableOp

module {
  "tfg.graph"() ({
    %0:2 = "tfg.VariableV2"() {_mlir_name = "emb_0", container = "", dtype = f32, shape = #tfg.shape<10x4>, shared_name = ""} : () -> (tensor<*x!tfg.ref<f32>>, !tfg.control)
    %1:2 = "tfg.Identity"(%0#0) {T = f32, _mlir_name = "emb_0/read"} : (tensor<*x!tfg.ref<f32>>) -> (tensor<*xf32>, !tfg.control)
    %2:2 = "tfg.Placeholder"() {_mlir_name = "sp_ids_0/indices", dtype = i64, shape = #tfg.shape<?x2>} : () -> (tensor<*xi64>, !tfg.control)
    %3:2 = "tfg.Placeholder"() {_mlir_name = "sp_ids_0/values", dtype = i64, shape = #tfg.shape<?>} : () -> (tensor<*xi64>, !tfg.control)
    %4:2 = "tfg.Const"() {_mlir_name = "embedding_lookup_sparse/strided_slice/stack", dtype = i32, value = dense<[0, 0]> : tensor<2xi32>} : () -> (tensor<*xi32>, !tfg.control)
    %5:2 = "tfg.Const"() {_mlir_name = "embedding_lookup_sparse/strided_slice/stack_1", dtype = i32, value = dense<[0, 1]> : tensor<2xi32>} : () -> (tensor<*xi32>, !tfg.control)
    %6:2 = "tfg.Const"() {_mlir_name = "embedding_lookup_sparse/strided_slice/stack_2", dtype = i32, value = dense<[1, 1]> : tensor<2xi32>} : () -> (tensor<*xi32>, !tfg.control)
    %7:2 = "tfg.StridedSlice"(%2#0, %4#0, %5#0, %6#0) {Index = i32, T = i64, _mlir_name = "embedding_lookup_sparse/strided_slice", begin_mask = 1 : i64, ellipsis_mask = 0 : i64, end_mask = 1 : i64, new_axis_mask = 0 : i64, shrink_axis_mask = 2 : i64} : (tensor<*xi64>, tensor<*xi32>, tensor<*xi32>, tensor<*xi32>) -> (tensor<*xi64>, !tfg.control)
    %8:2 = "tfg.SparseSegmentMean"(%1#0, %3#0, %7#0) {T = f32, Tidx = i64, Tsegmentids = i64, _mlir_name = "embedding_lookup_sparse", sparse_gradient = true} : (tensor<*xf32>, tensor<*xi64>, tensor<*xi64>) -> (tensor<*xf32>, !tfg.control)
    %9:2 = "tfg.VariableV2"() {_mlir_name = "emb_1", container = "", dtype = f32, shape = #tfg.shape<11x4>, shared_name = ""} : () -> (tensor<*x!tfg.ref<f32>>, !tfg.control)
    %10:2 = "tfg.Identity"(%9#0) {T = f32, _mlir_name = "emb_1/read"} : (tensor<*x!tfg.ref<f32>>) -> (tensor<*xf32>, !tfg.control)
    %11:2 = "tfg.Placeholder"() {_mlir_name = "sp_ids_1/indices", dtype = i64, shape = #tfg.shape<?x2>} : () -> (tensor<*xi64>, !tfg.control)
    %12:2 = "tfg.Placeholder"() {_mlir_name = "sp_ids_1/values", dtype = i64, shape = #tfg.shape<?>} : () -> (tensor<*xi64>, !tfg.control)
    %13:2 = "tfg.Placeholder"() {_mlir_name = "sp_weights_1/values", dtype = f32, shape = #tfg.shape<?>} : () -> (tensor<*xf32>, !tfg.control)
    %14:2 = "tfg.Const"() {_mlir_name = "embedding_lookup_sparse_1/strided_slice/stack", dtype = i32, value = dense<[0, 0]> : tensor<2xi32>} : () -> (tensor<*xi32>, !tfg.control)
    %15:2 = "tfg.Const"() {_mlir_name = "embedding_lookup_sparse_1/strided_slice/stack_1", dtype = i32, value = dense<[0, 1]> : tensor<2xi32>} : () -> (tensor<*xi32>, !tfg.control)
    %16:2 = "tfg.Const"() {_mlir_name = "embedding_lookup_sparse_1/strided_slice/stack_2", dtype = i32, value = dense<[1, 1]> : tensor<2xi32>} : () -> (tensor<*xi32>, !tfg.control)
    %17:2 = "tfg.StridedSlice"(%11#0, %14#0, %15#0, %16#0) {Index = i32, T = i64, _mlir_name = "embedding_lookup_sparse_1/strided_slice", begin_mask = 1 : i64, ellipsis_mask = 0 : i64, end_mask = 1 : i64, new_axis_mask = 0 : i64, shrink_axis_mask = 2 : i64} : (tensor<*xi64>, tensor<*xi32>, tensor<*xi32>, tensor<*xi32>) -> (tensor<*xi64>, !tfg.control)
    %18:2 = "tfg.Cast"(%17#0) {DstT = i32, SrcT = i64, Truncate = false, _mlir_name = "embedding_lookup_sparse_1/Cast"} : (tensor<*xi64>) -> (tensor<*xi32>, !tfg.control)
    %19:3 = "tfg.Unique"(%12#0) {T = i64, _mlir_name = "embedding_lookup_sparse_1/Unique", out_idx = i32} : (tensor<*xi64>) -> (tensor<*xi64>, tensor<*xi32>, !tfg.control)
    %20:2 = "tfg.Const"() {_mlir_name = "embedding_lookup_sparse_1/embedding_lookup/axis", dtype = i32, value = dense<0> : tensor<i32>} : () -> (tensor<*xi32>, !tfg.control)
    %21:2 = "tfg.GatherV2"(%10#0, %19#0, %20#0) {Taxis = i32, Tindices = i64, Tparams = f32, _mlir_name = "embedding_lookup_sparse_1/embedding_lookup", batch_dims = 0 : i64} : (tensor<*xf32>, tensor<*xi64>, tensor<*xi32>) -> (tensor<*xf32>, !tfg.control)
    %22:2 = "tfg.Identity"(%21#0) {T = f32, _mlir_name = "embedding_lookup_sparse_1/embedding_lookup/Identity"} : (tensor<*xf32>) -> (tensor<*xf32>, !tfg.control)
    %23:2 = "tfg.Const"() {_mlir_name = "embedding_lookup_sparse_1/GatherV2/axis", dtype = i32, value = dense<0> : tensor<i32>} : () -> (tensor<*xi32>, !tfg.control)
    %24:2 = "tfg.GatherV2"(%22#0, %19#1, %23#0) {Taxis = i32, Tindices = i32, Tparams = f32, _mlir_name = "embedding_lookup_sparse_1/GatherV2", batch_dims = 0 : i64} : (tensor<*xf32>, tensor<*xi32>, tensor<*xi32>) -> (tensor<*xf32>, !tfg.control)
    %25:2 = "tfg.Const"() {_mlir_name = "embedding_lookup_sparse_1/Rank", dtype = i32, value = dense<2> : tensor<i32>} : () -> (tensor<*xi32>, !tfg.control)
    %26:2 = "tfg.Const"() {_mlir_name = "embedding_lookup_sparse_1/sub/y", dtype = i32, value = dense<1> : tensor<i32>} : () -> (tensor<*xi32>, !tfg.control)
    %27:2 = "tfg.Sub"(%25#0, %26#0) {T = i32, _mlir_name = "embedding_lookup_sparse_1/sub"} : (tensor<*xi32>, tensor<*xi32>) -> (tensor<*xi32>, !tfg.control)
    %28:2 = "tfg.Const"() {_mlir_name = "embedding_lookup_sparse_1/ExpandDims/dim", dtype = i32, value = dense<0> : tensor<i32>} : () -> (tensor<*xi32>, !tfg.control)
    %29:2 = "tfg.ExpandDims"(%27#0, %28#0) {T = i32, Tdim = i32, _mlir_name = "embedding_lookup_sparse_1/ExpandDims"} : (tensor<*xi32>, tensor<*xi32>) -> (tensor<*xi32>, !tfg.control)
    %30:2 = "tfg.Const"() {_mlir_name = "embedding_lookup_sparse_1/ones/Const", dtype = i32, value = dense<1> : tensor<i32>} : () -> (tensor<*xi32>, !tfg.control)
    %31:2 = "tfg.Fill"(%29#0, %30#0) {T = i32, _mlir_name = "embedding_lookup_sparse_1/ones", index_type = i32} : (tensor<*xi32>, tensor<*xi32>) -> (tensor<*xi32>, !tfg.control)
    %32:2 = "tfg.Shape"(%13#0) {T = f32, _mlir_name = "embedding_lookup_sparse_1/Shape", out_type = i32} : (tensor<*xf32>) -> (tensor<*xi32>, !tfg.control)
    %33:2 = "tfg.Const"() {_mlir_name = "embedding_lookup_sparse_1/concat/axis", dtype = i32, value = dense<0> : tensor<i32>} : () -> (tensor<*xi32>, !tfg.control)
    %34:2 = "tfg.ConcatV2"(%32#0, %31#0, %33#0) {N = 2 : i64, T = i32, Tidx = i32, _mlir_name = "embedding_lookup_sparse_1/concat"} : (tensor<*xi32>, tensor<*xi32>, tensor<*xi32>) -> (tensor<*xi32>, !tfg.control)
    %35:2 = "tfg.Reshape"(%13#0, %34#0) {T = f32, Tshape = i32, _mlir_name = "embedding_lookup_sparse_1/Reshape"} : (tensor<*xf32>, tensor<*xi32>) -> (tensor<*xf32>, !tfg.control)
    %36:2 = "tfg.Mul"(%24#0, %35#0) {T = f32, _mlir_name = "embedding_lookup_sparse_1/mul"} : (tensor<*xf32>, tensor<*xf32>) -> (tensor<*xf32>, !tfg.control)
    %37:2 = "tfg.SegmentSum"(%36#0, %18#0) {T = f32, Tindices = i32, _mlir_name = "embedding_lookup_sparse_1"} : (tensor<*xf32>, tensor<*xi32>) -> (tensor<*xf32>, !tfg.control)
    %38:2 = "tfg.VarHandleOp"() {_mlir_name = "emb_2", allowed_devices = [], container = "", dtype = f32, shape = #tfg.shape<12x4>, shared_name = "emb_2"} : () -> (tensor<*x!tfg.resource>, !tfg.control)
    %39:2 = "tfg.Placeholder"() {_mlir_name = "sp_ids_2/indices", dtype = i64, shape = #tfg.shape<?x2>} : () -> (tensor<*xi64>, !tfg.control)
    %40:2 = "tfg.Placeholder"() {_mlir_name = "sp_ids_2/values", dtype = i64, shape = #tfg.shape<?>} : () -> (tensor<*xi64>, !tfg.control)
    %41:2 = "tfg.Placeholder"() {_mlir_name = "sp_ids_2/shape", dtype = i64, shape = #tfg.shape<2>} : () -> (tensor<*xi64>, !tfg.control)
    %42:2 = "tfg.Const"() {_mlir_name = "embedding_lookup/Slice/begin", dtype = i32, value = dense<[0]> : tensor<1xi32>} : () -> (tensor<*xi32>, !tfg.control)
    %43:2 = "tfg.Const"() {_mlir_name = "embedding_lookup/Slice/size", dtype = i32, value = dense<[1]> : tensor<1xi32>} : () -> (tensor<*xi32>, !tfg.control)
    %44:2 = "tfg.Slice"(%41#0, %42#0, %43#0) {Index = i32, T = i64, _mlir_name = "embedding_lookup/Slice"} : (tensor<*xi64>, tensor<*xi32>, tensor<*xi32>) -> (tensor<*xi64>, !tfg.control)
    %45:2 = "tfg.Const"() {_mlir_name = "embedding_lookup/Const", dtype = i32, value = dense<[0]> : tensor<1xi32>} : () -> (tensor<*xi32>, !tfg.control)
    %46:2 = "tfg.Prod"(%44#0, %45#0) {T = i64, Tidx = i32, _mlir_name = "embedding_lookup/Prod", keep_dims = false} : (tensor<*xi64>, tensor<*xi32>) -> (tensor<*xi64>, !tfg.control)
    %47:2 = "tfg.Const"() {_mlir_name = "embedding_lookup/GatherV2/indices", dtype = i32, value = dense<1> : tensor<i32>} : () -> (tensor<*xi32>, !tfg.control)
    %48:2 = "tfg.Const"() {_mlir_name = "embedding_lookup/GatherV2/axis", dtype = i32, value = dense<0> : tensor<i32>} : () -> (tensor<*xi32>, !tfg.control)
    %49:2 = "tfg.GatherV2"(%41#0, %47#0, %48#0) {Taxis = i32, Tindices = i32, Tparams = i64, _mlir_name = "embedding_lookup/GatherV2", batch_dims = 0 : i64} : (tensor<*xi64>, tensor<*xi32>, tensor<*xi32>) -> (tensor<*xi64>, !tfg.control)
    %50:2 = "tfg.Pack"(%46#0, %49#0) {N = 2 : i64, T = i64, _mlir_name = "embedding_lookup/Cast/x", axis = 0 : i64} : (tensor<*xi64>, tensor<*xi64>) -> (tensor<*xi64>, !tfg.control)
    %51:3 = "tfg.SparseReshape"(%39#0, %41#0, %50#0) {_mlir_name = "embedding_lookup/SparseReshape"} : (tensor<*xi64>, tensor<*xi64>, tensor<*xi64>) -> (tensor<*xi64>, tensor<*xi64>, !tfg.control)
    %52:2 = "tfg.Identity"(%40#0) {T = i64, _mlir_name = "embedding_lookup/SparseReshape/Identity"} : (tensor<*xi64>) -> (tensor<*xi64>, !tfg.control)
    %53:2 = "tfg.Const"() {_mlir_name = "embedding_lookup/GreaterEqual/y", dtype = i64, value = dense<0> : tensor<i64>} : () -> (tensor<*xi64>, !tfg.control)
    %54:2 = "tfg.GreaterEqual"(%52#0, %53#0) {T = i64, _mlir_name = "embedding_lookup/GreaterEqual"} : (tensor<*xi64>, tensor<*xi64>) -> (tensor<*xi1>, !tfg.control)
    %55:2 = "tfg.Where"(%54#0) {T = i1, _mlir_name = "embedding_lookup/Where"} : (tensor<*xi1>) -> (tensor<*xi64>, !tfg.control)
    %56:2 = "tfg.Const"() {_mlir_name = "embedding_lookup/Reshape/shape", dtype = i32, value = dense<[-1]> : tensor<1xi32>} : () -> (tensor<*xi32>, !tfg.control)
    %57:2 = "tfg.Reshape"(%55#0, %56#0) {T = i64, Tshape = i32, _mlir_name = "embedding_lookup/Reshape"} : (tensor<*xi64>, tensor<*xi32>) -> (tensor<*xi64>, !tfg.control)
    %58:2 = "tfg.Const"() {_mlir_name = "embedding_lookup/GatherV2_1/axis", dtype = i32, value = dense<0> : tensor<i32>} : () -> (tensor<*xi32>, !tfg.control)
    %59:2 = "tfg.GatherV2"(%51#0, %57#0, %58#0) {Taxis = i32, Tindices = i64, Tparams = i64, _mlir_name = "embedding_lookup/GatherV2_1", batch_dims = 0 : i64} : (tensor<*xi64>, tensor<*xi64>, tensor<*xi32>) -> (tensor<*xi64>, !tfg.control)
    %60:2 = "tfg.Const"() {_mlir_name = "embedding_lookup/GatherV2_2/axis", dtype = i32, value = dense<0> : tensor<i32>} : () -> (tensor<*xi32>, !tfg.control)
    %61:2 = "tfg.GatherV2"(%52#0, %57#0, %60#0) {Taxis = i32, Tindices = i64, Tparams = i64, _mlir_name = "embedding_lookup/GatherV2_2", batch_dims = 0 : i64} : (tensor<*xi64>, tensor<*xi64>, tensor<*xi32>) -> (tensor<*xi64>, !tfg.control)
    %62:2 = "tfg.Identity"(%51#1) {T = i64, _mlir_name = "embedding_lookup/Identity"} : (tensor<*xi64>) -> (tensor<*xi64>, !tfg.control)
    %63:2 = "tfg.Const"() {_mlir_name = "embedding_lookup/SparseFillEmptyRows/Const", dtype = i64, value = dense<0> : tensor<i64>} : () -> (tensor<*xi64>, !tfg.control)
    %64:5 = "tfg.SparseFillEmptyRows"(%59#0, %61#0, %62#0, %63#0) {T = i64, _mlir_name = "embedding_lookup/SparseFillEmptyRows/SparseFillEmptyRows"} : (tensor<*xi64>, tensor<*xi64>, tensor<*xi64>, tensor<*xi64>) -> (tensor<*xi64>, tensor<*xi64>, tensor<*xi1>, tensor<*xi64>, !tfg.control)
    %65:2 = "tfg.Const"() {_mlir_name = "embedding_lookup/embedding_lookup_sparse/strided_slice/stack", dtype = i32, value = dense<[0, 0]> : tensor<2xi32>} : () -> (tensor<*xi32>, !tfg.control)
    %66:2 = "tfg.Const"() {_mlir_name = "embedding_lookup/embedding_lookup_sparse/strided_slice/stack_1", dtype = i32, value = dense<[0, 1]> : tensor<2xi32>} : () -> (tensor<*xi32>, !tfg.control)
    %67:2 = "tfg.Const"() {_mlir_name = "embedding_lookup/embedding_lookup_sparse/strided_slice/stack_2", dtype = i32, value = dense<[1, 1]> : tensor<2xi32>} : () -> (tensor<*xi32>, !tfg.control)
    %68:2 = "tfg.StridedSlice"(%64#0, %65#0, %66#0, %67#0) {Index = i32, T = i64, _mlir_name = "embedding_lookup/embedding_lookup_sparse/strided_slice", begin_mask = 1 : i64, ellipsis_mask = 0 : i64, end_mask = 1 : i64, new_axis_mask = 0 : i64, shrink_axis_mask = 2 : i64} : (tensor<*xi64>, tensor<*xi32>, tensor<*xi32>, tensor<*xi32>) -> (tensor<*xi64>, !tfg.control)
    %69:2 = "tfg.ReadVariableOp"(%38#0) {_mlir_name = "embedding_lookup/embedding_lookup_sparse/Read/ReadVariableOp", dtype = f32} : (tensor<*x!tfg.resource>) -> (tensor<*xf32>, !tfg.control)
    %70:2 = "tfg.Identity"(%69#0) {T = f32, _mlir_name = "embedding_lookup/embedding_lookup_sparse/Identity"} : (tensor<*xf32>) -> (tensor<*xf32>, !tfg.control)
    %71:2 = "tfg.SparseSegmentSqrtN"(%70#0, %64#1, %68#0) {T = f32, Tidx = i64, Tsegmentids = i64, _mlir_name = "embedding_lookup/embedding_lookup_sparse", sparse_gradient = true} : (tensor<*xf32>, tensor<*xi64>, tensor<*xi64>) -> (tensor<*xf32>, !tfg.control)
    %72:2 = "tfg.Const"() {_mlir_name = "embedding_lookup/Reshape_1/shape", dtype = i32, value = dense<[-1, 1]> : tensor<2xi32>} : () -> (tensor<*xi32>, !tfg.control)
    %73:2 = "tfg.Reshape"(%64#2, %72#0) {T = i1, Tshape = i32, _mlir_name = "embedding_lookup/Reshape_1"} : (tensor<*xi1>, tensor<*xi32>) -> (tensor<*xi1>, !tfg.control)
    %74:2 = "tfg.Shape"(%71#0) {T = f32, _mlir_name = "embedding_lookup/Shape", out_type = i32} : (tensor<*xf32>) -> (tensor<*xi32>, !tfg.control)
    %75:2 = "tfg.Const"() {_mlir_name = "embedding_lookup/strided_slice/stack", dtype = i32, value = dense<[1]> : tensor<1xi32>} : () -> (tensor<*xi32>, !tfg.control)
    %76:2 = "tfg.Const"() {_mlir_name = "embedding_lookup/strided_slice/stack_1", dtype = i32, value = dense<[2]> : tensor<1xi32>} : () -> (tensor<*xi32>, !tfg.control)
    %77:2 = "tfg.Const"() {_mlir_name = "embedding_lookup/strided_slice/stack_2", dtype = i32, value = dense<[1]> : tensor<1xi32>} : () -> (tensor<*xi32>, !tfg.control)
    %78:2 = "tfg.StridedSlice"(%74#0, %75#0, %76#0, %77#0) {Index = i32, T = i32, _mlir_name = "embedding_lookup/strided_slice", begin_mask = 0 : i64, ellipsis_mask = 0 : i64, end_mask = 0 : i64, new_axis_mask = 0 : i64, shrink_axis_mask = 1 : i64} : (tensor<*xi32>, tensor<*xi32>, tensor<*xi32>, tensor<*xi32>) -> (tensor<*xi32>, !tfg.control)
    %79:2 = "tfg.Const"() {_mlir_name = "embedding_lookup/stack/0", dtype = i32, value = dense<1> : tensor<i32>} : () -> (tensor<*xi32>, !tfg.control)
    %80:2 = "tfg.Pack"(%79#0, %78#0) {N = 2 : i64, T = i32, _mlir_name = "embedding_lookup/stack", axis = 0 : i64} : (tensor<*xi32>, tensor<*xi32>) -> (tensor<*xi32>, !tfg.control)
    %81:2 = "tfg.Tile"(%73#0, %80#0) {T = i1, Tmultiples = i32, _mlir_name = "embedding_lookup/Tile"} : (tensor<*xi1>, tensor<*xi32>) -> (tensor<*xi1>, !tfg.control)
    %82:2 = "tfg.ZerosLike"(%71#0) {T = f32, _mlir_name = "embedding_lookup/zeros_like"} : (tensor<*xf32>) -> (tensor<*xf32>, !tfg.control)
    %83:2 = "tfg.Select"(%81#0, %82#0, %71#0) {T = f32, _mlir_name = "embedding_lookup"} : (tensor<*xi1>, tensor<*xf32>, tensor<*xf32>) -> (tensor<*xf32>, !tfg.control)
    %84:2 = "tfg.Cast"(%41#0) {DstT = i32, SrcT = i64, Truncate = false, _mlir_name = "embedding_lookup/Cast_1"} : (tensor<*xi64>) -> (tensor<*xi32>, !tfg.control)
    %85:2 = "tfg.Const"() {_mlir_name = "embedding_lookup/Slice_1/begin", dtype = i32, value = dense<[0]> : tensor<1xi32>} : () -> (tensor<*xi32>, !tfg.control)
    %86:2 = "tfg.Const"() {_mlir_name = "embedding_lookup/Slice_1/size", dtype = i32, value = dense<[1]> : tensor<1xi32>} : () -> (tensor<*xi32>, !tfg.control)
    %87:2 = "tfg.Slice"(%84#0, %85#0, %86#0) {Index = i32, T = i32, _mlir_name = "embedding_lookup/Slice_1"} : (tensor<*xi32>, tensor<*xi32>, tensor<*xi32>) -> (tensor<*xi32>, !tfg.control)
    %88:2 = "tfg.Shape"(%83#0) {T = f32, _mlir_name = "embedding_lookup/Shape_1", out_type = i32} : (tensor<*xf32>) -> (tensor<*xi32>, !tfg.control)
    %89:2 = "tfg.Const"() {_mlir_name = "embedding_lookup/Slice_2/begin", dtype = i32, value = dense<[1]> : tensor<1xi32>} : () -> (tensor<*xi32>, !tfg.control)
    %90:2 = "tfg.Const"() {_mlir_name = "embedding_lookup/Slice_2/size", dtype = i32, value = dense<[-1]> : tensor<1xi32>} : () -> (tensor<*xi32>, !tfg.control)
    %91:2 = "tfg.Slice"(%88#0, %89#0, %90#0) {Index = i32, T = i32, _mlir_name = "embedding_lookup/Slice_2"} : (tensor<*xi32>, tensor<*xi32>, tensor<*xi32>) -> (tensor<*xi32>, !tfg.control)
    %92:2 = "tfg.Const"() {_mlir_name = "embedding_lookup/concat/axis", dtype = i32, value = dense<0> : tensor<i32>} : () -> (tensor<*xi32>, !tfg.control)
    %93:2 = "tfg.ConcatV2"(%87#0, %91#0, %92#0) {N = 2 : i64, T = i32, Tidx = i32, _mlir_name = "embedding_lookup/concat"} : (tensor<*xi32>, tensor<*xi32>, tensor<*xi32>) -> (tensor<*xi32>, !tfg.control)
    %94:2 = "tfg.Reshape"(%83#0, %93#0) {T = f32, Tshape = i32, _mlir_name = "embedding_lookup/Reshape_2"} : (tensor<*xf32>, tensor<*xi32>) -> (tensor<*xf32>, !tfg.control)
    %95:2 = "tfg.Const"() {_mlir_name = "concat/axis", dtype = i32, value = dense<1> : tensor<i32>} : () -> (tensor<*xi32>, !tfg.control)
    %96:2 = "tfg.ConcatV2"(%8#0, %37#0, %94#0, %95#0) {N = 3 : i64, T = f32, Tidx = i32, _mlir_name = "concat"} : (tensor<*xf32>, tensor<*xf32>, tensor<*xf32>, tensor<*xi32>) -> (tensor<*xf32>, !tfg.control)
  }) {versions = {min_consumer = 0 : i32, producer = 808 : i32}} : () -> ()
}
