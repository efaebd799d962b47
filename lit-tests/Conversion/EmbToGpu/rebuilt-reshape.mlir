// RUN: recom-opt --fuse --verify-diagnostics %s | FileCheck %s

// A reshape that --simplify-shapes could not prove a no-op keeps its shape
// operand rebuilt from symbols, shape.from_extents(rows, D): with D the
// lookup's width it keeps the rows, so --fuse looks through it as through
// the input_layer's Pack(StridedSlice(Shape(t))[0], D) (TF2-style
// "..._embedding_weights/Reshape_2" of two-tower models). Two layers of one
// function (the towers) are each fused, into kernels @layer and @layer_1;
// the reshapes and their dead shape operands go with the lookups. A width
// that is not the lookup's is not looked through.

// CHECK-LABEL: func.func @towers
// CHECK-NOT:     emb.lookup
// CHECK-NOT:     shape.from_extents
// CHECK-NOT:     tfg.Reshape
// CHECK:         "fused.embedding_layer"(%{{.*}}) {_mlir_name = "user/concat", {{.*}}kernel = @emb::@layer,
// CHECK:         "fused.embedding_layer"(%{{.*}}) {_mlir_name = "item/concat", {{.*}}kernel = @emb::@layer_1,
func.func @towers(%u: tensor<?x2xi64>, %i: tensor<?x3xi64>) -> (tensor<?x12xf32>, tensor<?x8xf32>) {
  %b = shape.dim %u, 0 {symbol = "batch"} : tensor<?x2xi64> -> index
  %c8 = arith.constant 8 : index
  %c4 = arith.constant 4 : index
  %t0 = emb.table {name = "user0"} : tensor<10x8xf32>
  %v0, %s0 = emb.from_dense %u {ignore = -1 : i64} : tensor<?x2xi64> -> tensor<?xi64>
  %h0 = emb.check_range %v0 {default = 0 : i64, num_buckets = 10 : i64} : tensor<?xi64> -> tensor<?xi64>
  %l0 = emb.lookup %t0, %h0, %s0 {combiner = "mean"} : tensor<10x8xf32>, tensor<?xi64> -> tensor<?x8xf32> loc("user0")
  %e0 = shape.from_extents %b, %c8 : tensor<2xi32>
  %r0:2 = "tfg.Reshape"(%l0, %e0) {T = f32, Tshape = i32, _mlir_name = "user0/Reshape_2"} : (tensor<?x8xf32>, tensor<2xi32>) -> (tensor<*xf32>, !tfg.control)
  %t1 = emb.table {name = "user1"} : tensor<10x4xf32>
  %l1 = emb.lookup %t1, %h0, %s0 {combiner = "sum"} : tensor<10x4xf32>, tensor<?xi64> -> tensor<?x4xf32> loc("user1")
  %e1 = shape.from_extents %b, %c4 : tensor<2xi32>
  %r1:2 = "tfg.Reshape"(%l1, %e1) {T = f32, Tshape = i32, _mlir_name = "user1/Reshape_2"} : (tensor<?x4xf32>, tensor<2xi32>) -> (tensor<*xf32>, !tfg.control)
  %ax:2 = "tfg.Const"() {_mlir_name = "user/concat/axis", dtype = i32, value = dense<1> : tensor<i32>} : () -> (tensor<i32>, !tfg.control)
  %cu:2 = "tfg.ConcatV2"(%r0#0, %r1#0, %ax#0) {N = 2 : i64, T = f32, Tidx = i32, _mlir_name = "user/concat"} : (tensor<*xf32>, tensor<*xf32>, tensor<i32>) -> (tensor<?x12xf32>, !tfg.control)

  %bi = shape.dim %i, 0 {symbol = "batch_1"} : tensor<?x3xi64> -> index
  %t2 = emb.table {name = "item0"} : tensor<20x8xf32>
  %v2, %s2 = emb.from_dense %i {ignore = -1 : i64} : tensor<?x3xi64> -> tensor<?xi64>
  %h2 = emb.check_range %v2 {default = 0 : i64, num_buckets = 20 : i64} : tensor<?xi64> -> tensor<?xi64>
  %l2 = emb.lookup %t2, %h2, %s2 {combiner = "sqrtn"} : tensor<20x8xf32>, tensor<?xi64> -> tensor<?x8xf32> loc("item0")
  %e2 = shape.from_extents %bi, %c8 : tensor<2xi32>
  %r2:2 = "tfg.Reshape"(%l2, %e2) {T = f32, Tshape = i32, _mlir_name = "item0/Reshape_2"} : (tensor<?x8xf32>, tensor<2xi32>) -> (tensor<?x8xf32>, !tfg.control)
  %ci = emb.concat %r2#0 : (tensor<?x8xf32>) -> tensor<?x8xf32> loc("item/concat")
  func.return %cu#0, %ci : tensor<?x12xf32>, tensor<?x8xf32>
}

// CHECK-LABEL: func.func @wrong_width
// CHECK:         emb.lookup
// CHECK-NOT:     fused.embedding_layer
func.func @wrong_width(%u: tensor<?x2xi64>) -> tensor<*xf32> {
  %b = shape.dim %u, 0 {symbol = "batch"} : tensor<?x2xi64> -> index
  %b2 = shape.apply #shape.expr<(batch) -> batch * 2>(%b) : index
  %c4 = arith.constant 4 : index
  %t0 = emb.table {name = "user0"} : tensor<10x8xf32>
  %v0, %s0 = emb.from_dense %u {ignore = -1 : i64} : tensor<?x2xi64> -> tensor<?xi64>
  %h0 = emb.check_range %v0 {default = 0 : i64, num_buckets = 10 : i64} : tensor<?xi64> -> tensor<?xi64>
  // expected-remark@+1 {{not fused: it reaches 'tfg.ConcatV2' (node "concat") through 'tfg.Reshape' (node "user0/Reshape_2"), whose shape operand is not one known to keep the rows}}
  %l0 = emb.lookup %t0, %h0, %s0 {combiner = "mean"} : tensor<10x8xf32>, tensor<?xi64> -> tensor<?x8xf32> loc("user0")
  %e0 = shape.from_extents %b2, %c4 : tensor<2xi32>
  %r0:2 = "tfg.Reshape"(%l0, %e0) {T = f32, Tshape = i32, _mlir_name = "user0/Reshape_2"} : (tensor<?x8xf32>, tensor<2xi32>) -> (tensor<*xf32>, !tfg.control)
  %ax:2 = "tfg.Const"() {_mlir_name = "concat/axis", dtype = i32, value = dense<1> : tensor<i32>} : () -> (tensor<i32>, !tfg.control)
  %c:2 = "tfg.ConcatV2"(%r0#0, %r0#0, %ax#0) {N = 2 : i64, T = f32, Tidx = i32, _mlir_name = "concat"} : (tensor<*xf32>, tensor<*xf32>, tensor<i32>) -> (tensor<*xf32>, !tfg.control)
  func.return %c#0 : tensor<*xf32>
}

// CHECK:       gpu.module @emb
// CHECK:         gpu.func @layer(
// CHECK:         gpu.func @layer_1(
