// RUN: recom-opt %s --simplify-shapes | FileCheck %s --check-prefix=ALL
// RUN: recom-opt %s --simplify-shapes='disable' | FileCheck %s --check-prefix=OFF
// RUN: recom-opt %s --simplify-shapes='no-reshape-removal no-operand-rebuild no-assertions' | FileCheck %s --check-prefix=OFF
// RUN: recom-opt %s --simplify-shapes='no-reshape-removal' | FileCheck %s --check-prefix=REBUILD
// RUN: recom-opt %s --simplify-shapes='no-reshape-removal no-operand-rebuild' | FileCheck %s --check-prefix=KEEP
// RUN: recom-opt %s --simplify-shapes='no-assertions' | FileCheck %s --check-prefix=NOASSERT
// RUN: not recom-opt %s --simplify-shapes='bogus' 2>&1 | FileCheck %s --check-prefix=BAD

// ALL-NOT: tfg.Reshape
// ALL-NOT: tfg.Shape
// ALL: shape.assert_shape %{{.*}}, #shape.expr<(batch) -> (batch, 8)>

// OFF: "tfg.Shape"
// OFF: "tfg.StridedSlice"
// OFF: "tfg.Pack"
// OFF: "tfg.Reshape"
// OFF-NOT: shape.

// REBUILD: %[[B:.*]] = shape.dim %{{.*}}, 0 {symbol = "batch"}
// REBUILD: %[[C8:.*]] = arith.constant 8 : index
// REBUILD: %[[S:.*]] = shape.from_extents %[[B]], %[[C8]] : tensor<2xi32>
// REBUILD: "tfg.Reshape"(%{{.*}}, %[[S]])
// REBUILD-NOT: tfg.Shape

// KEEP: "tfg.Shape"
// KEEP: "tfg.Reshape"
// KEEP: shape.assert_shape

// NOASSERT-NOT: shape.assert_shape
// NOASSERT-NOT: tfg.Reshape

// BAD: error: {{.*}}bogus

module {
  "tfg.graph"() ({
    %a:2 = "tfg.Placeholder"() {_mlir_name = "a", dtype = i64, shape = #tfg.shape<?>} : () -> (tensor<?xi64>, !tfg.control)
    %ta = emb.table {name = "ta"} : tensor<50x8xf32>
    %va, %sa = emb.from_dense %a#0 {ignore = -1 : i64} : tensor<?xi64> -> tensor<?xi64>
    %ea = emb.gather_scatter %ta, %va, %sa {combiner = "mean"} : tensor<50x8xf32>, tensor<?xi64> -> tensor<?x8xf32>
    %s:2 = "tfg.Shape"(%ea) {T = f32, _mlir_name = "Shape", out_type = i32} : (tensor<?x8xf32>) -> (tensor<*xi32>, !tfg.control)
    %c0:2 = "tfg.Const"() {_mlir_name = "stack", dtype = i32, value = dense<[0]> : tensor<1xi32>} : () -> (tensor<*xi32>, !tfg.control)
    %c1:2 = "tfg.Const"() {_mlir_name = "stack_1", dtype = i32, value = dense<[1]> : tensor<1xi32>} : () -> (tensor<*xi32>, !tfg.control)
    %ss:2 = "tfg.StridedSlice"(%s#0, %c0#0, %c1#0, %c1#0) {Index = i32, T = i32, _mlir_name = "strided_slice", begin_mask = 0 : i64, ellipsis_mask = 0 : i64, end_mask = 0 : i64, new_axis_mask = 0 : i64, shrink_axis_mask = 1 : i64} : (tensor<*xi32>, tensor<*xi32>, tensor<*xi32>, tensor<*xi32>) -> (tensor<*xi32>, !tfg.control)
    %d:2 = "tfg.Const"() {_mlir_name = "Reshape/shape/1", dtype = i32, value = dense<8> : tensor<i32>} : () -> (tensor<*xi32>, !tfg.control)
    %p:2 = "tfg.Pack"(%ss#0, %d#0) {N = 2 : i64, T = i32, _mlir_name = "Reshape/shape", axis = 0 : i64} : (tensor<*xi32>, tensor<*xi32>) -> (tensor<*xi32>, !tfg.control)
    %ra:2 = "tfg.Reshape"(%ea, %p#0) {T = f32, Tshape = i32, _mlir_name = "Reshape"} : (tensor<?x8xf32>, tensor<*xi32>) -> (tensor<*xf32>, !tfg.control)
    %ax:2 = "tfg.Const"() {_mlir_name = "input_layer/concat/axis", dtype = i32, value = dense<1> : tensor<i32>} : () -> (tensor<*xi32>, !tfg.control)
    %l:2 = "tfg.ConcatV2"(%ra#0, %ea, %ax#0) {N = 2 : i64, T = f32, Tidx = i32, _mlir_name = "input_layer/concat"} : (tensor<*xf32>, tensor<?x8xf32>, tensor<*xi32>) -> (tensor<*xf32>, !tfg.control)
  }) {versions = {min_consumer = 0 : i32, producer = 808 : i32}} : () -> ()
}
