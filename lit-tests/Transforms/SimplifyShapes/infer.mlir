// RUN: recom-opt %s --split-input-file --simplify-shapes | FileCheck %s

// Flattening [batch, 4]: the shape operand Pack(StridedSlice(Shape(x))[0] * 4)
// is rebuilt from the batch symbol; the chain is gone.
// CHECK-LABEL: "tfg.graph"
// CHECK-DAG: %[[X:.*]]:2 = "tfg.Placeholder"() {_mlir_name = "x"
// CHECK-DAG: %[[B:.*]] = shape.dim %[[X]]#0, 0 {symbol = "batch"}
// CHECK-DAG: %[[N:.*]] = shape.apply #shape.expr<(batch) -> batch * 4>(%[[B]])
// CHECK-DAG: %[[S:.*]] = shape.from_extents %[[N]] : tensor<1xi32>
// CHECK: "tfg.Reshape"(%[[X]]#0, %[[S]])
// CHECK-NOT: tfg.Shape
// CHECK-NOT: tfg.StridedSlice
// CHECK-NOT: tfg.Pack
// CHECK-NOT: tfg.Mul
module {
  "tfg.graph"() ({
    %x:2 = "tfg.Placeholder"() {_mlir_name = "x", dtype = f32, shape = #tfg.shape<?x4>} : () -> (tensor<*xf32>, !tfg.control)
    %s:2 = "tfg.Shape"(%x#0) {T = f32, _mlir_name = "s", out_type = i32} : (tensor<*xf32>) -> (tensor<*xi32>, !tfg.control)
    %c0:2 = "tfg.Const"() {_mlir_name = "c0", dtype = i32, value = dense<[0]> : tensor<1xi32>} : () -> (tensor<*xi32>, !tfg.control)
    %c1:2 = "tfg.Const"() {_mlir_name = "c1", dtype = i32, value = dense<[1]> : tensor<1xi32>} : () -> (tensor<*xi32>, !tfg.control)
    %b:2 = "tfg.StridedSlice"(%s#0, %c0#0, %c1#0, %c1#0) {Index = i32, T = i32, _mlir_name = "b", begin_mask = 0 : i64, ellipsis_mask = 0 : i64, end_mask = 0 : i64, new_axis_mask = 0 : i64, shrink_axis_mask = 1 : i64} : (tensor<*xi32>, tensor<*xi32>, tensor<*xi32>, tensor<*xi32>) -> (tensor<*xi32>, !tfg.control)
    %four:2 = "tfg.Const"() {_mlir_name = "four", dtype = i32, value = dense<4> : tensor<i32>} : () -> (tensor<*xi32>, !tfg.control)
    %n:2 = "tfg.Mul"(%b#0, %four#0) {T = i32, _mlir_name = "n"} : (tensor<*xi32>, tensor<*xi32>) -> (tensor<*xi32>, !tfg.control)
    %p:2 = "tfg.Pack"(%n#0) {N = 1 : i64, T = i32, _mlir_name = "p", axis = 0 : i64} : (tensor<*xi32>) -> (tensor<*xi32>, !tfg.control)
    %r:2 = "tfg.Reshape"(%x#0, %p#0) {T = f32, Tshape = i32, _mlir_name = "r"} : (tensor<*xf32>, tensor<*xi32>) -> (tensor<*xf32>, !tfg.control)
  }) {versions = {min_consumer = 0 : i32, producer = 808 : i32}} : () -> ()
}

// -----

// Reshape(y, [dim 0 of x, 4]) keeps the size: y's dim 0 is the batch, the
// reshape is a no-op and goes, with its chain (ConcatV2 then merges nothing new).
// Prod of the shape gives the size of the concatenation: batch * 7.
// CHECK-LABEL: "tfg.graph"
// CHECK-DAG: %[[X:.*]]:2 = "tfg.Placeholder"() {_mlir_name = "x"
// CHECK-DAG: %[[Y:.*]]:2 = "tfg.Placeholder"() {_mlir_name = "y"
// CHECK-DAG: %[[B:.*]] = shape.dim %[[X]]#0, 0 {symbol = "batch"}
// CHECK: "tfg.ConcatV2"(%[[X]]#0, %[[Y]]#0,
// CHECK: %[[N:.*]] = shape.apply #shape.expr<(batch) -> batch * 7>(%[[B]])
// CHECK: %[[S:.*]] = shape.from_extents %[[N]] : tensor<1xi64>
// CHECK: "tfg.Reshape"(%{{.*}}, %[[S]])
// CHECK-NOT: tfg.Shape
// CHECK-NOT: tfg.Prod
module {
  "tfg.graph"() ({
    %x:2 = "tfg.Placeholder"() {_mlir_name = "x", dtype = f32, shape = #tfg.shape<?x3>} : () -> (tensor<*xf32>, !tfg.control)
    %y:2 = "tfg.Placeholder"() {_mlir_name = "y", dtype = f32, shape = #tfg.shape<?x4>} : () -> (tensor<*xf32>, !tfg.control)
    %s:2 = "tfg.Shape"(%x#0) {T = f32, _mlir_name = "s", out_type = i32} : (tensor<*xf32>) -> (tensor<*xi32>, !tfg.control)
    %c0:2 = "tfg.Const"() {_mlir_name = "c0", dtype = i32, value = dense<[0]> : tensor<1xi32>} : () -> (tensor<*xi32>, !tfg.control)
    %c1:2 = "tfg.Const"() {_mlir_name = "c1", dtype = i32, value = dense<[1]> : tensor<1xi32>} : () -> (tensor<*xi32>, !tfg.control)
    %b:2 = "tfg.StridedSlice"(%s#0, %c0#0, %c1#0, %c1#0) {Index = i32, T = i32, _mlir_name = "b", begin_mask = 0 : i64, ellipsis_mask = 0 : i64, end_mask = 0 : i64, new_axis_mask = 0 : i64, shrink_axis_mask = 1 : i64} : (tensor<*xi32>, tensor<*xi32>, tensor<*xi32>, tensor<*xi32>) -> (tensor<*xi32>, !tfg.control)
    %four:2 = "tfg.Const"() {_mlir_name = "four", dtype = i32, value = dense<4> : tensor<i32>} : () -> (tensor<*xi32>, !tfg.control)
    %p:2 = "tfg.Pack"(%b#0, %four#0) {N = 2 : i64, T = i32, _mlir_name = "p", axis = 0 : i64} : (tensor<*xi32>, tensor<*xi32>) -> (tensor<*xi32>, !tfg.control)
    %ry:2 = "tfg.Reshape"(%y#0, %p#0) {T = f32, Tshape = i32, _mlir_name = "ry"} : (tensor<*xf32>, tensor<*xi32>) -> (tensor<*xf32>, !tfg.control)
    %ax:2 = "tfg.Const"() {_mlir_name = "ax", dtype = i32, value = dense<1> : tensor<i32>} : () -> (tensor<*xi32>, !tfg.control)
    %cat:2 = "tfg.ConcatV2"(%x#0, %ry#0, %ax#0) {N = 2 : i64, T = f32, Tidx = i32, _mlir_name = "cat"} : (tensor<*xf32>, tensor<*xf32>, tensor<*xi32>) -> (tensor<*xf32>, !tfg.control)
    %sc:2 = "tfg.Shape"(%cat#0) {T = f32, _mlir_name = "sc", out_type = i64} : (tensor<*xf32>) -> (tensor<*xi64>, !tfg.control)
    %z:2 = "tfg.Const"() {_mlir_name = "z", dtype = i32, value = dense<0> : tensor<i32>} : () -> (tensor<*xi32>, !tfg.control)
    %size:2 = "tfg.Prod"(%sc#0, %z#0) {T = i64, Tidx = i32, _mlir_name = "size", keep_dims = false} : (tensor<*xi64>, tensor<*xi32>) -> (tensor<*xi64>, !tfg.control)
    %one:2 = "tfg.Const"() {_mlir_name = "one", dtype = i32, value = dense<[1]> : tensor<1xi32>} : () -> (tensor<*xi32>, !tfg.control)
    %size1:2 = "tfg.Reshape"(%size#0, %one#0) {T = i64, Tshape = i32, _mlir_name = "size1"} : (tensor<*xi64>, tensor<*xi32>) -> (tensor<*xi64>, !tfg.control)
    %flat:2 = "tfg.Reshape"(%cat#0, %size1#0) {T = f32, Tshape = i64, _mlir_name = "flat"} : (tensor<*xf32>, tensor<*xi64>) -> (tensor<*xf32>, !tfg.control)
  }) {versions = {min_consumer = 0 : i32, producer = 808 : i32}} : () -> ()
}

// -----

// MatMul's inner dims and BiasAdd's channel are merged; the output
// [batch, 16] already has the shape Pack(Shape(x)[0], 16): the Reshape
// goes. Slice and GatherV2 of the shape, Cast and ConcatV2 of shapes.
// CHECK-LABEL: "tfg.graph"
// CHECK: %[[M:.*]]:2 = "tfg.MatMul"
// CHECK: %[[BA:.*]]:2 = "tfg.BiasAdd"(%[[M]]#0
// CHECK: "tfg.Relu"(%[[BA]]#0)
// CHECK-NOT: tfg.Reshape
// CHECK-NOT: tfg.Slice
// CHECK-NOT: tfg.GatherV2
module {
  "tfg.graph"() ({
    %x:2 = "tfg.Placeholder"() {_mlir_name = "x", dtype = f32, shape = #tfg.shape<?x?>} : () -> (tensor<*xf32>, !tfg.control)
    %w:2 = "tfg.VariableV2"() {_mlir_name = "w", container = "", dtype = f32, shape = #tfg.shape<8x16>, shared_name = ""} : () -> (tensor<*x!tfg.ref<f32>>, !tfg.control)
    %wr:2 = "tfg.Identity"(%w#0) {T = f32, _mlir_name = "wr"} : (tensor<*x!tfg.ref<f32>>) -> (tensor<*xf32>, !tfg.control)
    %bias:2 = "tfg.VariableV2"() {_mlir_name = "bias", container = "", dtype = f32, shape = #tfg.shape<16>, shared_name = ""} : () -> (tensor<*x!tfg.ref<f32>>, !tfg.control)
    %br:2 = "tfg.Identity"(%bias#0) {T = f32, _mlir_name = "br"} : (tensor<*x!tfg.ref<f32>>) -> (tensor<*xf32>, !tfg.control)
    %m:2 = "tfg.MatMul"(%x#0, %wr#0) {T = f32, _mlir_name = "m", transpose_a = false, transpose_b = false} : (tensor<*xf32>, tensor<*xf32>) -> (tensor<*xf32>, !tfg.control)
    %ba:2 = "tfg.BiasAdd"(%m#0, %br#0) {T = f32, _mlir_name = "ba", data_format = "NHWC"} : (tensor<*xf32>, tensor<*xf32>) -> (tensor<*xf32>, !tfg.control)
    %s:2 = "tfg.Shape"(%x#0) {T = f32, _mlir_name = "s", out_type = i64} : (tensor<*xf32>) -> (tensor<*xi64>, !tfg.control)
    %c:2 = "tfg.Cast"(%s#0) {DstT = i32, SrcT = i64, Truncate = false, _mlir_name = "c"} : (tensor<*xi64>) -> (tensor<*xi32>, !tfg.control)
    %b0:2 = "tfg.Const"() {_mlir_name = "b0", dtype = i32, value = dense<[0]> : tensor<1xi32>} : () -> (tensor<*xi32>, !tfg.control)
    %sz:2 = "tfg.Const"() {_mlir_name = "sz", dtype = i32, value = dense<[1]> : tensor<1xi32>} : () -> (tensor<*xi32>, !tfg.control)
    %head:2 = "tfg.Slice"(%c#0, %b0#0, %sz#0) {Index = i32, T = i32, _mlir_name = "head"} : (tensor<*xi32>, tensor<*xi32>, tensor<*xi32>) -> (tensor<*xi32>, !tfg.control)
    %sb:2 = "tfg.Shape"(%br#0) {T = f32, _mlir_name = "sb", out_type = i32} : (tensor<*xf32>) -> (tensor<*xi32>, !tfg.control)
    %gi:2 = "tfg.Const"() {_mlir_name = "gi", dtype = i32, value = dense<[0]> : tensor<1xi32>} : () -> (tensor<*xi32>, !tfg.control)
    %ga:2 = "tfg.Const"() {_mlir_name = "ga", dtype = i32, value = dense<0> : tensor<i32>} : () -> (tensor<*xi32>, !tfg.control)
    %d:2 = "tfg.GatherV2"(%sb#0, %gi#0, %ga#0) {Taxis = i32, Tindices = i32, Tparams = i32, _mlir_name = "d", batch_dims = 0 : i64} : (tensor<*xi32>, tensor<*xi32>, tensor<*xi32>) -> (tensor<*xi32>, !tfg.control)
    %cax:2 = "tfg.Const"() {_mlir_name = "cax", dtype = i32, value = dense<0> : tensor<i32>} : () -> (tensor<*xi32>, !tfg.control)
    %shp:2 = "tfg.ConcatV2"(%head#0, %d#0, %cax#0) {N = 2 : i64, T = i32, Tidx = i32, _mlir_name = "shp"} : (tensor<*xi32>, tensor<*xi32>, tensor<*xi32>) -> (tensor<*xi32>, !tfg.control)
    %r:2 = "tfg.Reshape"(%ba#0, %shp#0) {T = f32, Tshape = i32, _mlir_name = "r"} : (tensor<*xf32>, tensor<*xi32>) -> (tensor<*xf32>, !tfg.control)
    %relu:2 = "tfg.Relu"(%r#0) {T = f32, _mlir_name = "relu"} : (tensor<*xf32>) -> (tensor<*xf32>, !tfg.control)
  }) {versions = {min_consumer = 0 : i32, producer = 808 : i32}} : () -> ()
}

// -----

// The same with the types a GraphDef's _output_shapes gives (TF1 Estimator
// exports): a scalar is tensor<i32>, not tensor<*xi32>, and keeps its
// content, so ExpandDims(x, -1) is [batch, 1] and the column's
// Reshape(t, [Shape(ExpandDims(x))[0], 4]) of a [batch, 4] tensor is a no-op.
// CHECK-LABEL: "tfg.graph"
// CHECK-DAG: %[[X:.*]]:2 = "tfg.Placeholder"() {_mlir_name = "x"
// CHECK-DAG: "tfg.Identity"(%[[X]]#0)
// CHECK-NOT: tfg.Reshape
// CHECK-NOT: tfg.ExpandDims
// CHECK-NOT: tfg.Shape
module {
  "tfg.graph"() ({
    %x:2 = "tfg.Placeholder"() {_mlir_name = "x", dtype = f32, shape = #tfg.shape<?x4>, _output_shapes = [#tfg.shape<?x4>]} : () -> (tensor<?x4xf32>, !tfg.control)
    %m1:2 = "tfg.Const"() {_mlir_name = "m1", dtype = i32, value = dense<-1> : tensor<i32>, _output_shapes = [#tfg.shape]} : () -> (tensor<i32>, !tfg.control)
    %d:2 = "tfg.Sum"(%x#0, %m1#0) {T = f32, Tidx = i32, _mlir_name = "d", keep_dims = false, _output_shapes = [#tfg.shape<?>]} : (tensor<?x4xf32>, tensor<i32>) -> (tensor<?xf32>, !tfg.control)
    %e:2 = "tfg.ExpandDims"(%d#0, %m1#0) {T = f32, Tdim = i32, _mlir_name = "e", _output_shapes = [#tfg.shape<?x1>]} : (tensor<?xf32>, tensor<i32>) -> (tensor<?x1xf32>, !tfg.control)
    %s:2 = "tfg.Shape"(%e#0) {T = f32, _mlir_name = "s", out_type = i32, _output_shapes = [#tfg.shape<2>]} : (tensor<?x1xf32>) -> (tensor<2xi32>, !tfg.control)
    %c0:2 = "tfg.Const"() {_mlir_name = "c0", dtype = i32, value = dense<[0]> : tensor<1xi32>} : () -> (tensor<1xi32>, !tfg.control)
    %c1:2 = "tfg.Const"() {_mlir_name = "c1", dtype = i32, value = dense<[1]> : tensor<1xi32>} : () -> (tensor<1xi32>, !tfg.control)
    %b:2 = "tfg.StridedSlice"(%s#0, %c0#0, %c1#0, %c1#0) {Index = i32, T = i32, _mlir_name = "b", begin_mask = 0 : i64, ellipsis_mask = 0 : i64, end_mask = 0 : i64, new_axis_mask = 0 : i64, shrink_axis_mask = 1 : i64, _output_shapes = [#tfg.shape]} : (tensor<2xi32>, tensor<1xi32>, tensor<1xi32>, tensor<1xi32>) -> (tensor<i32>, !tfg.control)
    %four:2 = "tfg.Const"() {_mlir_name = "four", dtype = i32, value = dense<4> : tensor<i32>, _output_shapes = [#tfg.shape]} : () -> (tensor<i32>, !tfg.control)
    %p:2 = "tfg.Pack"(%b#0, %four#0) {N = 2 : i64, T = i32, _mlir_name = "p", axis = 0 : i64, _output_shapes = [#tfg.shape<2>]} : (tensor<i32>, tensor<i32>) -> (tensor<2xi32>, !tfg.control)
    %r:2 = "tfg.Reshape"(%x#0, %p#0) {T = f32, Tshape = i32, _mlir_name = "r", _output_shapes = [#tfg.shape<?x4>]} : (tensor<?x4xf32>, tensor<2xi32>) -> (tensor<?x4xf32>, !tfg.control)
    %o:2 = "tfg.Identity"(%r#0) {T = f32, _mlir_name = "o", _output_shapes = [#tfg.shape<?x4>]} : (tensor<?x4xf32>) -> (tensor<?x4xf32>, !tfg.control)
  }) {versions = {min_consumer = 0 : i32, producer = 808 : i32}} : () -> ()
}
