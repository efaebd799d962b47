// RUN: recom-opt %s --split-input-file --simplify-shapes | FileCheck %s

// An integer Mean of a shape has no known content (it once folded to 0,
// and the reshape below became a reshape to [0]): the Pack stays, its
// Mean's operand is rebuilt.
// CHECK-LABEL: "tfg.graph"
// CHECK-DAG: %[[B:.*]] = shape.dim %{{.*}}#0, 0 {symbol = "batch"}
// CHECK-DAG: %[[C4:.*]] = arith.constant 4 : index
// CHECK-DAG: %[[S:.*]] = shape.from_extents %[[B]], %[[C4]] : tensor<2xi32>
// CHECK: %[[M:.*]]:2 = "tfg.Mean"(%[[S]],
// CHECK: %[[P:.*]]:2 = "tfg.Pack"(%[[M]]#0)
// CHECK: "tfg.Reshape"(%{{.*}}#0, %[[P]]#0)
// CHECK-NOT: arith.constant 0
module {
  "tfg.graph"() ({
    %x:2 = "tfg.Placeholder"() {_mlir_name = "x", dtype = f32, shape = #tfg.shape<?x4>} : () -> (tensor<*xf32>, !tfg.control)
    %s:2 = "tfg.Shape"(%x#0) {T = f32, _mlir_name = "s", out_type = i32} : (tensor<*xf32>) -> (tensor<*xi32>, !tfg.control)
    %z:2 = "tfg.Const"() {_mlir_name = "z", dtype = i32, value = dense<0> : tensor<i32>} : () -> (tensor<*xi32>, !tfg.control)
    %m:2 = "tfg.Mean"(%s#0, %z#0) {T = i32, Tidx = i32, _mlir_name = "m", keep_dims = false} : (tensor<*xi32>, tensor<*xi32>) -> (tensor<*xi32>, !tfg.control)
    %p:2 = "tfg.Pack"(%m#0) {N = 1 : i64, T = i32, _mlir_name = "p", axis = 0 : i64} : (tensor<*xi32>) -> (tensor<*xi32>, !tfg.control)
    %r:2 = "tfg.Reshape"(%x#0, %p#0) {T = f32, Tshape = i32, _mlir_name = "r"} : (tensor<*xf32>, tensor<*xi32>) -> (tensor<*xf32>, !tfg.control)
  }) {versions = {min_consumer = 0 : i32, producer = 808 : i32}} : () -> ()
}

// -----

// A StridedSlice of a rank-1 shape with empty begin, end and strides (an
// internal error once): its input is rebuilt, the slice is left.
// CHECK-LABEL: "tfg.graph"
// CHECK: %[[S:.*]] = shape.from_extents %batch, %c4 : tensor<2xi32>
// CHECK: "tfg.StridedSlice"(%[[S]],
module {
  "tfg.graph"() ({
    %x:2 = "tfg.Placeholder"() {_mlir_name = "x", dtype = f32, shape = #tfg.shape<?x4>} : () -> (tensor<*xf32>, !tfg.control)
    %s:2 = "tfg.Shape"(%x#0) {T = f32, _mlir_name = "s", out_type = i32} : (tensor<*xf32>) -> (tensor<*xi32>, !tfg.control)
    %e:2 = "tfg.Const"() {_mlir_name = "e", dtype = i32, value = dense<> : tensor<0xi32>} : () -> (tensor<*xi32>, !tfg.control)
    %b:2 = "tfg.StridedSlice"(%s#0, %e#0, %e#0, %e#0) {Index = i32, T = i32, _mlir_name = "b", begin_mask = 0 : i64, ellipsis_mask = 0 : i64, end_mask = 0 : i64, new_axis_mask = 0 : i64, shrink_axis_mask = 0 : i64} : (tensor<*xi32>, tensor<*xi32>, tensor<*xi32>, tensor<*xi32>) -> (tensor<*xi32>, !tfg.control)
    %r:2 = "tfg.Reshape"(%x#0, %b#0) {T = f32, Tshape = i32, _mlir_name = "r"} : (tensor<*xf32>, tensor<*xi32>) -> (tensor<*xf32>, !tfg.control)
  }) {versions = {min_consumer = 0 : i32, producer = 808 : i32}} : () -> ()
}

// -----

// Programs that would fail at run time do not stop the analysis (each was
// an internal error once): a Fill of negative dims, a Slice of negative
// size (its input is rebuilt), a Reshape to a billion dims (more than
// TensorFlow allows: the result's rank stays unknown).
// CHECK-LABEL: "tfg.graph"
// CHECK: "tfg.Fill"
// CHECK: %[[S:.*]] = shape.from_extents %batch, %c4 : tensor<2xi32>
// CHECK: "tfg.Slice"(%[[S]],
// CHECK: "tfg.Reshape"(%{{.*}}#0, %{{.*}}#0) {{.*}}_mlir_name = "r"
module {
  "tfg.graph"() ({
    %x:2 = "tfg.Placeholder"() {_mlir_name = "x", dtype = f32, shape = #tfg.shape<?x4>} : () -> (tensor<*xf32>, !tfg.control)
    %neg:2 = "tfg.Const"() {_mlir_name = "neg", dtype = i32, value = dense<[-2]> : tensor<1xi32>} : () -> (tensor<*xi32>, !tfg.control)
    %one:2 = "tfg.Const"() {_mlir_name = "one", dtype = i32, value = dense<1> : tensor<i32>} : () -> (tensor<*xi32>, !tfg.control)
    %f:2 = "tfg.Fill"(%neg#0, %one#0) {T = i32, _mlir_name = "f", index_type = i32} : (tensor<*xi32>, tensor<*xi32>) -> (tensor<*xi32>, !tfg.control)
    %s:2 = "tfg.Shape"(%x#0) {T = f32, _mlir_name = "s", out_type = i32} : (tensor<*xf32>) -> (tensor<*xi32>, !tfg.control)
    %b:2 = "tfg.Const"() {_mlir_name = "b", dtype = i32, value = dense<[1]> : tensor<1xi32>} : () -> (tensor<*xi32>, !tfg.control)
    %sl:2 = "tfg.Slice"(%s#0, %b#0, %neg#0) {Index = i32, T = i32, _mlir_name = "sl"} : (tensor<*xi32>, tensor<*xi32>, tensor<*xi32>) -> (tensor<*xi32>, !tfg.control)
    %i:2 = "tfg.Identity"(%sl#0) {T = i32, _mlir_name = "i"} : (tensor<*xi32>) -> (tensor<*xi32>, !tfg.control)
    %big:2 = "tfg.Placeholder"() {_mlir_name = "big", dtype = i32, shape = #tfg.shape<1000000000>} : () -> (tensor<1000000000xi32>, !tfg.control)
    %r:2 = "tfg.Reshape"(%x#0, %big#0) {T = f32, Tshape = i32, _mlir_name = "r"} : (tensor<*xf32>, tensor<1000000000xi32>) -> (tensor<*xf32>, !tfg.control)
  }) {versions = {min_consumer = 0 : i32, producer = 808 : i32}} : () -> ()
}
