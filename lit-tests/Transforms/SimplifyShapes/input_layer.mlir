// RUN: recom-opt %s --simplify-shapes | FileCheck %s
// RUN: recom-opt %s --simplify-shapes --mlir-pass-statistics 2>&1 | FileCheck %s --check-prefix=STATS

// The input_layer reshapes Reshape(t, Pack(StridedSlice(Shape(t))[0], D)) of
// [batch, D] lookup results are no-ops: they go, with their chains. The
// two columns' batches (the rows of their ragged ids) are merged by the
// layer's ConcatV2; each column's slice, the layer output and each
// lookup's ids get their sizes in the batch symbol and per-column counts.

// CHECK-LABEL: "tfg.graph"
// CHECK-DAG: %[[A:.*]]:2 = "tfg.Placeholder"() {_mlir_name = "a"
// CHECK-DAG: %[[BATCH:.*]] = shape.dim %[[A]]#0, 0 {symbol = "batch"} : tensor<?xi64> -> index
// CHECK-DAG: %[[NA:.*]] = shape.count %[[VA:.*]] {symbol = "nnz.a"} : tensor<?xi64> -> index
// CHECK-DAG: %[[NB:.*]] = shape.count %[[VB:.*]] {symbol = "nnz.b"} : tensor<?x!tfg.string> -> index
// CHECK-DAG: %[[HB:.*]] = emb.hash %[[VB]]
// CHECK-DAG: shape.assert_shape %[[HB]], #shape.expr<(nnz.b) -> nnz.b>(%[[NB]]) : tensor<?xi64>
// CHECK-DAG: %[[TA:.*]] = emb.gather_scatter %{{.*}}, %[[VA]], %{{.*}} {combiner = "mean"}
// CHECK-DAG: %[[TB:.*]] = emb.lookup %{{.*}}, %[[HB]], %{{.*}} {combiner = "sum"}
// CHECK-DAG: shape.assert_shape %[[VA]], #shape.expr<(nnz.a) -> nnz.a>(%[[NA]]) : tensor<?xi64>
// CHECK-DAG: shape.assert_shape %[[TA]], #shape.expr<(batch) -> (batch, 8)>(%[[BATCH]]) : tensor<?x8xf32>
// CHECK-DAG: shape.assert_shape %[[TB]], #shape.expr<(batch) -> (batch, 4)>(%[[BATCH]]) : tensor<?x4xf32>
// CHECK-DAG: shape.assert_shape %[[L:.*]]#0, #shape.expr<(batch) -> (batch, 12)>(%[[BATCH]]) : tensor<*xf32>
// CHECK: %[[L]]:2 = "tfg.ConcatV2"(%[[TA]], %[[TB]], %{{.*}}) {{.*}}_mlir_name = "input_layer/concat"
// CHECK-NOT: tfg.Reshape
// CHECK-NOT: tfg.Shape
// CHECK-NOT: tfg.StridedSlice
// CHECK-NOT: tfg.Pack

// STATS: SimplifyShapes
// STATS: 5 assertions
// STATS: 1 classes-merged
// STATS: 2 reshapes-removed
// STATS: 0 shape-chain-ops-left
// STATS: 12 shape-ops-removed
// STATS: 4 symbols-created

module {
  "tfg.graph"() ({
    %a:2 = "tfg.Placeholder"() {_mlir_name = "a", dtype = i64, shape = #tfg.shape<?>} : () -> (tensor<?xi64>, !tfg.control)
    %b:2 = "tfg.Placeholder"() {_mlir_name = "b", dtype = !tfg.string, shape = #tfg.shape<?>} : () -> (tensor<?x!tfg.string>, !tfg.control)
    %ta = emb.table {name = "ta"} : tensor<50x8xf32>
    %va, %sa = emb.from_dense %a#0 {ignore = -1 : i64} : tensor<?xi64> -> tensor<?xi64>
    %ea = emb.gather_scatter %ta, %va, %sa {combiner = "mean"} : tensor<50x8xf32>, tensor<?xi64> -> tensor<?x8xf32>
    %s:2 = "tfg.Shape"(%ea) {T = f32, _mlir_name = "input_layer/a_embedding/Shape", out_type = i32} : (tensor<?x8xf32>) -> (tensor<*xi32>, !tfg.control)
    %c0:2 = "tfg.Const"() {_mlir_name = "input_layer/a_embedding/stack", dtype = i32, value = dense<[0]> : tensor<1xi32>} : () -> (tensor<*xi32>, !tfg.control)
    %c1:2 = "tfg.Const"() {_mlir_name = "input_layer/a_embedding/stack_1", dtype = i32, value = dense<[1]> : tensor<1xi32>} : () -> (tensor<*xi32>, !tfg.control)
    %ss:2 = "tfg.StridedSlice"(%s#0, %c0#0, %c1#0, %c1#0) {Index = i32, T = i32, _mlir_name = "input_layer/a_embedding/strided_slice", begin_mask = 0 : i64, ellipsis_mask = 0 : i64, end_mask = 0 : i64, new_axis_mask = 0 : i64, shrink_axis_mask = 1 : i64} : (tensor<*xi32>, tensor<*xi32>, tensor<*xi32>, tensor<*xi32>) -> (tensor<*xi32>, !tfg.control)
    %d:2 = "tfg.Const"() {_mlir_name = "input_layer/a_embedding/Reshape/shape/1", dtype = i32, value = dense<8> : tensor<i32>} : () -> (tensor<*xi32>, !tfg.control)
    %p:2 = "tfg.Pack"(%ss#0, %d#0) {N = 2 : i64, T = i32, _mlir_name = "input_layer/a_embedding/Reshape/shape", axis = 0 : i64} : (tensor<*xi32>, tensor<*xi32>) -> (tensor<*xi32>, !tfg.control)
    %ra:2 = "tfg.Reshape"(%ea, %p#0) {T = f32, Tshape = i32, _mlir_name = "input_layer/a_embedding/Reshape"} : (tensor<?x8xf32>, tensor<*xi32>) -> (tensor<*xf32>, !tfg.control)
    %tb = emb.table {name = "tb"} : tensor<100x4xf32>
    %vb, %sb = emb.split_strings %b#0 {sep = ";"} : tensor<?x!tfg.string> -> tensor<?x!tfg.string>
    %hb = emb.hash %vb {num_buckets = 100 : i64} : tensor<?x!tfg.string> -> tensor<?xi64>
    %eb = emb.lookup %tb, %hb, %sb {combiner = "sum"} : tensor<100x4xf32>, tensor<?xi64> -> tensor<?x4xf32>
    %s2:2 = "tfg.Shape"(%eb) {T = f32, _mlir_name = "input_layer/b_embedding/Shape", out_type = i32} : (tensor<?x4xf32>) -> (tensor<*xi32>, !tfg.control)
    %c2:2 = "tfg.Const"() {_mlir_name = "input_layer/b_embedding/stack", dtype = i32, value = dense<[0]> : tensor<1xi32>} : () -> (tensor<*xi32>, !tfg.control)
    %c3:2 = "tfg.Const"() {_mlir_name = "input_layer/b_embedding/stack_1", dtype = i32, value = dense<[1]> : tensor<1xi32>} : () -> (tensor<*xi32>, !tfg.control)
    %ss2:2 = "tfg.StridedSlice"(%s2#0, %c2#0, %c3#0, %c3#0) {Index = i32, T = i32, _mlir_name = "input_layer/b_embedding/strided_slice", begin_mask = 0 : i64, ellipsis_mask = 0 : i64, end_mask = 0 : i64, new_axis_mask = 0 : i64, shrink_axis_mask = 1 : i64} : (tensor<*xi32>, tensor<*xi32>, tensor<*xi32>, tensor<*xi32>) -> (tensor<*xi32>, !tfg.control)
    %d2:2 = "tfg.Const"() {_mlir_name = "input_layer/b_embedding/Reshape/shape/1", dtype = i32, value = dense<4> : tensor<i32>} : () -> (tensor<*xi32>, !tfg.control)
    %p2:2 = "tfg.Pack"(%ss2#0, %d2#0) {N = 2 : i64, T = i32, _mlir_name = "input_layer/b_embedding/Reshape/shape", axis = 0 : i64} : (tensor<*xi32>, tensor<*xi32>) -> (tensor<*xi32>, !tfg.control)
    %rb:2 = "tfg.Reshape"(%eb, %p2#0) {T = f32, Tshape = i32, _mlir_name = "input_layer/b_embedding/Reshape"} : (tensor<?x4xf32>, tensor<*xi32>) -> (tensor<*xf32>, !tfg.control)
    %ax:2 = "tfg.Const"() {_mlir_name = "input_layer/concat/axis", dtype = i32, value = dense<1> : tensor<i32>} : () -> (tensor<*xi32>, !tfg.control)
    %l:2 = "tfg.ConcatV2"(%ra#0, %rb#0, %ax#0) {N = 2 : i64, T = f32, Tidx = i32, _mlir_name = "input_layer/concat"} : (tensor<*xf32>, tensor<*xf32>, tensor<*xi32>) -> (tensor<*xf32>, !tfg.control)
  }) {versions = {min_consumer = 0 : i32, producer = 808 : i32}} : () -> ()
}
