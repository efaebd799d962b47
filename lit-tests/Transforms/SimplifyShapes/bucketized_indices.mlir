// RUN: recom-opt %s --simplify-shapes | FileCheck %s

// The bucketized column's index construction (what feature columns emit
// before SparseTensor: Range, Tile, Pack, Transpose, Cast over the shape of
// the [batch, 1] buckets; --lower-emb replaces it, so it is written by
// hand): Range's limit and Tile's multiples are rebuilt from the batch
// symbol; Range(0, width = 1) is known to be [0]; Shape and StridedSlice
// go. The index tensor itself [batch, 2] is data and stays.

// CHECK-LABEL: "tfg.graph"
// CHECK-DAG: %[[X:.*]]:2 = "tfg.Placeholder"() {_mlir_name = "num"
// CHECK-DAG: %[[B:.*]] = shape.dim %[[X]]#0, 0 {symbol = "batch"}
// CHECK-DAG: %[[LIM:.*]] = shape.index_cast %[[B]] : index to tensor<i32>
// CHECK-DAG: %[[C1:.*]] = arith.constant 1 : index
// CHECK-DAG: %[[M1:.*]] = shape.from_extents %[[C1]], %[[C1]] : tensor<2xi32>
// CHECK-DAG: %[[M2:.*]] = shape.from_extents %[[B]] : tensor<1xi32>
// CHECK-DAG: %[[R:.*]]:2 = "tfg.Range"(%{{.*}}, %[[LIM]], %{{.*}})
// CHECK-DAG: "tfg.Tile"(%{{.*}}, %[[M1]])
// CHECK-DAG: %[[C0:.*]] = arith.constant 0 : index
// CHECK-DAG: %[[ZEROS:.*]] = shape.from_extents %[[C0]] : tensor<1xi32>
// CHECK-DAG: "tfg.Tile"(%[[ZEROS]], %[[M2]])
// CHECK-DAG: "tfg.Transpose"
// CHECK-NOT: tfg.Shape
// CHECK-NOT: tfg.StridedSlice

module {
  "tfg.graph"() ({
    %x:2 = "tfg.Placeholder"() {_mlir_name = "num", dtype = f32, shape = #tfg.shape<?>} : () -> (tensor<?xf32>, !tfg.control)
    %m1:2 = "tfg.Const"() {_mlir_name = "m1", dtype = i32, value = dense<-1> : tensor<i32>} : () -> (tensor<*xi32>, !tfg.control)
    %e:2 = "tfg.ExpandDims"(%x#0, %m1#0) {T = f32, Tdim = i32, _mlir_name = "ExpandDims"} : (tensor<?xf32>, tensor<*xi32>) -> (tensor<*xf32>, !tfg.control)
    %bk:2 = "tfg.Bucketize"(%e#0) {T = f32, _mlir_name = "Bucketize", boundaries = [0.000000e+00 : f32, 1.000000e+00 : f32]} : (tensor<*xf32>) -> (tensor<*xi32>, !tfg.control)
    %s:2 = "tfg.Shape"(%bk#0) {T = i32, _mlir_name = "Shape", out_type = i32} : (tensor<*xi32>) -> (tensor<*xi32>, !tfg.control)
    %k0:2 = "tfg.Const"() {_mlir_name = "k0", dtype = i32, value = dense<[0]> : tensor<1xi32>} : () -> (tensor<*xi32>, !tfg.control)
    %k1:2 = "tfg.Const"() {_mlir_name = "k1", dtype = i32, value = dense<[1]> : tensor<1xi32>} : () -> (tensor<*xi32>, !tfg.control)
    %k2:2 = "tfg.Const"() {_mlir_name = "k2", dtype = i32, value = dense<[2]> : tensor<1xi32>} : () -> (tensor<*xi32>, !tfg.control)
    %b:2 = "tfg.StridedSlice"(%s#0, %k0#0, %k1#0, %k1#0) {Index = i32, T = i32, _mlir_name = "batch_size", begin_mask = 0 : i64, ellipsis_mask = 0 : i64, end_mask = 0 : i64, new_axis_mask = 0 : i64, shrink_axis_mask = 1 : i64} : (tensor<*xi32>, tensor<*xi32>, tensor<*xi32>, tensor<*xi32>) -> (tensor<*xi32>, !tfg.control)
    %w:2 = "tfg.StridedSlice"(%s#0, %k1#0, %k2#0, %k1#0) {Index = i32, T = i32, _mlir_name = "width", begin_mask = 0 : i64, ellipsis_mask = 0 : i64, end_mask = 0 : i64, new_axis_mask = 0 : i64, shrink_axis_mask = 1 : i64} : (tensor<*xi32>, tensor<*xi32>, tensor<*xi32>, tensor<*xi32>) -> (tensor<*xi32>, !tfg.control)
    %z:2 = "tfg.Const"() {_mlir_name = "z", dtype = i32, value = dense<0> : tensor<i32>} : () -> (tensor<*xi32>, !tfg.control)
    %one:2 = "tfg.Const"() {_mlir_name = "one", dtype = i32, value = dense<1> : tensor<i32>} : () -> (tensor<*xi32>, !tfg.control)
    %i1:2 = "tfg.Range"(%z#0, %b#0, %one#0) {Tidx = i32, _mlir_name = "range"} : (tensor<*xi32>, tensor<*xi32>, tensor<*xi32>) -> (tensor<*xi32>, !tfg.control)
    %i1e:2 = "tfg.ExpandDims"(%i1#0, %one#0) {T = i32, Tdim = i32, _mlir_name = "ExpandDims_1"} : (tensor<*xi32>, tensor<*xi32>) -> (tensor<*xi32>, !tfg.control)
    %mult:2 = "tfg.Pack"(%one#0, %w#0) {N = 2 : i64, T = i32, _mlir_name = "stack", axis = 0 : i64} : (tensor<*xi32>, tensor<*xi32>) -> (tensor<*xi32>, !tfg.control)
    %t1:2 = "tfg.Tile"(%i1e#0, %mult#0) {T = i32, Tmultiples = i32, _mlir_name = "Tile"} : (tensor<*xi32>, tensor<*xi32>) -> (tensor<*xi32>, !tfg.control)
    %flat:2 = "tfg.Const"() {_mlir_name = "flat", dtype = i32, value = dense<[-1]> : tensor<1xi32>} : () -> (tensor<*xi32>, !tfg.control)
    %i1f:2 = "tfg.Reshape"(%t1#0, %flat#0) {T = i32, Tshape = i32, _mlir_name = "Reshape"} : (tensor<*xi32>, tensor<*xi32>) -> (tensor<*xi32>, !tfg.control)
    %i2:2 = "tfg.Range"(%z#0, %w#0, %one#0) {Tidx = i32, _mlir_name = "range_1"} : (tensor<*xi32>, tensor<*xi32>, tensor<*xi32>) -> (tensor<*xi32>, !tfg.control)
    %mult2:2 = "tfg.Pack"(%b#0) {N = 1 : i64, T = i32, _mlir_name = "stack_1", axis = 0 : i64} : (tensor<*xi32>) -> (tensor<*xi32>, !tfg.control)
    %i2t:2 = "tfg.Tile"(%i2#0, %mult2#0) {T = i32, Tmultiples = i32, _mlir_name = "Tile_1"} : (tensor<*xi32>, tensor<*xi32>) -> (tensor<*xi32>, !tfg.control)
    %idx:2 = "tfg.Pack"(%i1f#0, %i2t#0) {N = 2 : i64, T = i32, _mlir_name = "stack_2", axis = 0 : i64} : (tensor<*xi32>, tensor<*xi32>) -> (tensor<*xi32>, !tfg.control)
    %perm:2 = "tfg.Const"() {_mlir_name = "perm", dtype = i32, value = dense<[1, 0]> : tensor<2xi32>} : () -> (tensor<*xi32>, !tfg.control)
    %tr:2 = "tfg.Transpose"(%idx#0, %perm#0) {T = i32, Tperm = i32, _mlir_name = "transpose"} : (tensor<*xi32>, tensor<*xi32>) -> (tensor<*xi32>, !tfg.control)
    %c:2 = "tfg.Cast"(%tr#0) {DstT = i64, SrcT = i32, Truncate = false, _mlir_name = "indices"} : (tensor<*xi32>) -> (tensor<*xi64>, !tfg.control)
  }) {versions = {min_consumer = 0 : i32, producer = 808 : i32}} : () -> ()
}
