// RUN: recom-opt --fuse --verify-diagnostics --split-input-file %s | FileCheck %s

// A TF1 Estimator two-tower export (hallucination11/serving's DSSM): each
// column is an input_layer of its own, whose one-column concatenation is an
// Identity ("input_layer/concat/concat"); the user tower concatenates its
// columns ("user"), the item tower has one column and no ConcatV2 at all
// ("item/item" is an Identity). safe_embedding_lookup_sparse's Reshape_2
// keeps its shape ConcatV2(Slice(Cast(dense_shape), [0], [1]), [D]) with
// only the width rebuilt by --simplify-shapes (shape.from_extents(D)):
// with D the lookup's width it keeps the rows. Each tower becomes a layer
// and a kernel of its own (@layer, @layer_1); the item layer takes the
// name of its chain's end, and the chain (Reshape_2, the input_layer's
// Reshape and Identity) goes with the lookup.

// CHECK-LABEL: func.func @towers
// CHECK-NOT:     emb.lookup
// CHECK-NOT:     emb.gather
// CHECK-NOT:     tfg.Reshape
// CHECK-NOT:     tfg.Identity
// CHECK-DAG:     %[[U:.*]] = "fused.embedding_layer"(%{{.*}}) {_mlir_name = "user", {{.*}}kernel = @emb::@layer, {{.*}} -> tensor<?x10xf32>
// CHECK-DAG:     %[[I:.*]] = "fused.embedding_layer"(%{{.*}}) {_mlir_name = "item/item", {{.*}}kernel = @emb::@layer_1, {{.*}} -> tensor<?x3xf32>
// CHECK:         "tfg.MatMul"(%[[I]], %{{.*}})
// CHECK:         func.return %[[U]], %{{.*}}
func.func @towers(%u: tensor<?xi64>, %g: tensor<?xi64>, %i: tensor<?xi64>, %w: tensor<3x8xf32>) -> (tensor<?x10xf32>, tensor<?x8xf32>) {
  %zero:2 = "tfg.Const"() {_mlir_name = "axis0", dtype = i32, value = dense<0> : tensor<i32>} : () -> (tensor<i32>, !tfg.control)
  %one:2 = "tfg.Const"() {_mlir_name = "axis1", dtype = i32, value = dense<1> : tensor<i32>} : () -> (tensor<i32>, !tfg.control)
  %b0:2 = "tfg.Const"() {_mlir_name = "begin", dtype = i32, value = dense<[0]> : tensor<1xi32>} : () -> (tensor<1xi32>, !tfg.control)
  %s1:2 = "tfg.Const"() {_mlir_name = "size", dtype = i32, value = dense<[1]> : tensor<1xi32>} : () -> (tensor<1xi32>, !tfg.control)
  %m1:2 = "tfg.Const"() {_mlir_name = "dim", dtype = i32, value = dense<-1> : tensor<i32>} : () -> (tensor<i32>, !tfg.control)
  %c6 = arith.constant 6 : index
  %c4 = arith.constant 4 : index
  %c3 = arith.constant 3 : index

  // uid: hashed, 6 wide, through Reshape_2 and an Identity.
  %ue:2 = "tfg.ExpandDims"(%u, %m1#0) {T = i64, Tdim = i32, _mlir_name = "input_layer/uid_embedding/ExpandDims"} : (tensor<?xi64>, tensor<i32>) -> (tensor<?x1xi64>, !tfg.control)
  %ud:2 = "tfg.Shape"(%ue#0) {T = i64, out_type = i64, _mlir_name = "input_layer/uid_embedding/to_sparse_input/dense_shape"} : (tensor<?x1xi64>) -> (tensor<2xi64>, !tfg.control)
  %t0 = emb.table {name = "uid"} : tensor<20x6xf32>
  %v0, %sp0 = emb.from_dense %u {ignore = -1 : i64} : tensor<?xi64> -> tensor<?xi64>
  %a0 = emb.as_string %v0 : tensor<?xi64> -> tensor<?x!tfg.string>
  %h0 = emb.hash %a0 {num_buckets = 20 : i64} : tensor<?x!tfg.string> -> tensor<?xi64>
  %l0 = emb.gather_scatter %t0, %h0, %sp0 {combiner = "mean"} : tensor<20x6xf32>, tensor<?xi64> -> tensor<?x6xf32> loc("input_layer/uid_embedding/uid_embedding_weights")
  %uc:2 = "tfg.Cast"(%ud#0) {DstT = i32, SrcT = i64, _mlir_name = "input_layer/uid_embedding/uid_embedding_weights/Cast_1"} : (tensor<2xi64>) -> (tensor<2xi32>, !tfg.control)
  %us:2 = "tfg.Slice"(%uc#0, %b0#0, %s1#0) {Index = i32, T = i32, _mlir_name = "input_layer/uid_embedding/uid_embedding_weights/Slice_1"} : (tensor<2xi32>, tensor<1xi32>, tensor<1xi32>) -> (tensor<1xi32>, !tfg.control)
  %uw = shape.from_extents %c6 : tensor<1xi32>
  %ush:2 = "tfg.ConcatV2"(%us#0, %uw, %zero#0) {N = 2 : i64, T = i32, _mlir_name = "input_layer/uid_embedding/uid_embedding_weights/concat"} : (tensor<1xi32>, tensor<1xi32>, tensor<i32>) -> (tensor<2xi32>, !tfg.control)
  %ur:2 = "tfg.Reshape"(%l0, %ush#0) {T = f32, _mlir_name = "input_layer/uid_embedding/uid_embedding_weights/Reshape_2"} : (tensor<?x6xf32>, tensor<2xi32>) -> (tensor<?x6xf32>, !tfg.control)
  %ui:2 = "tfg.Identity"(%ur#0) {T = f32, _mlir_name = "input_layer/concat/concat"} : (tensor<?x6xf32>) -> (tensor<?x6xf32>, !tfg.control)

  // gender: bucketized-like gather, 4 wide.
  %gd:2 = "tfg.Shape"(%g) {T = i64, out_type = i64, _mlir_name = "input_layer_2/gender_embedding/to_sparse_input/dense_shape"} : (tensor<?xi64>) -> (tensor<1xi64>, !tfg.control)
  %t1 = emb.table {name = "gender"} : tensor<12x4xf32>
  %r1 = emb.check_range %g {default = 0 : i64, num_buckets = 12 : i64} : tensor<?xi64> -> tensor<?xi64>
  %l1 = emb.gather %t1, %r1 : tensor<12x4xf32>, tensor<?xi64> -> tensor<?x4xf32> loc("input_layer_2/gender_embedding/gender_embedding_weights")
  %gc:2 = "tfg.Cast"(%gd#0) {DstT = i32, SrcT = i64, _mlir_name = "input_layer_2/gender_embedding/gender_embedding_weights/Cast_1"} : (tensor<1xi64>) -> (tensor<1xi32>, !tfg.control)
  %gs:2 = "tfg.Slice"(%gc#0, %b0#0, %s1#0) {Index = i32, T = i32, _mlir_name = "input_layer_2/gender_embedding/gender_embedding_weights/Slice_1"} : (tensor<1xi32>, tensor<1xi32>, tensor<1xi32>) -> (tensor<1xi32>, !tfg.control)
  %gw = shape.from_extents %c4 : tensor<1xi32>
  %gsh:2 = "tfg.ConcatV2"(%gs#0, %gw, %zero#0) {N = 2 : i64, T = i32, _mlir_name = "input_layer_2/gender_embedding/gender_embedding_weights/concat"} : (tensor<1xi32>, tensor<1xi32>, tensor<i32>) -> (tensor<2xi32>, !tfg.control)
  %gr:2 = "tfg.Reshape"(%l1, %gsh#0) {T = f32, _mlir_name = "input_layer_2/gender_embedding/gender_embedding_weights/Reshape_2"} : (tensor<?x4xf32>, tensor<2xi32>) -> (tensor<?x4xf32>, !tfg.control)
  %gi:2 = "tfg.Identity"(%gr#0) {T = f32, _mlir_name = "input_layer_2/concat/concat"} : (tensor<?x4xf32>) -> (tensor<?x4xf32>, !tfg.control)

  %user:2 = "tfg.ConcatV2"(%ui#0, %gi#0, %one#0) {N = 2 : i64, T = f32, _mlir_name = "user"} : (tensor<?x6xf32>, tensor<?x4xf32>, tensor<i32>) -> (tensor<?x10xf32>, !tfg.control)

  // item: one column, 3 wide, no ConcatV2: Reshape_2, the input_layer's
  // Reshape(Pack(rows, 3)), its Identity, the tower's Identity, a MatMul.
  %ie:2 = "tfg.ExpandDims"(%i, %m1#0) {T = i64, Tdim = i32, _mlir_name = "input_layer_1/item_embedding/ExpandDims"} : (tensor<?xi64>, tensor<i32>) -> (tensor<?x1xi64>, !tfg.control)
  %id:2 = "tfg.Shape"(%ie#0) {T = i64, out_type = i64, _mlir_name = "input_layer_1/item_embedding/to_sparse_input/dense_shape"} : (tensor<?x1xi64>) -> (tensor<2xi64>, !tfg.control)
  %t2 = emb.table {name = "item"} : tensor<10x3xf32>
  %v2, %sp2 = emb.from_dense %i {ignore = -1 : i64} : tensor<?xi64> -> tensor<?xi64>
  %a2 = emb.as_string %v2 : tensor<?xi64> -> tensor<?x!tfg.string>
  %h2 = emb.hash %a2 {num_buckets = 10 : i64} : tensor<?x!tfg.string> -> tensor<?xi64>
  %l2 = emb.gather_scatter %t2, %h2, %sp2 {combiner = "mean"} : tensor<10x3xf32>, tensor<?xi64> -> tensor<?x3xf32> loc("input_layer_1/item_embedding/item_embedding_weights")
  %ic:2 = "tfg.Cast"(%id#0) {DstT = i32, SrcT = i64, _mlir_name = "input_layer_1/item_embedding/item_embedding_weights/Cast_1"} : (tensor<2xi64>) -> (tensor<2xi32>, !tfg.control)
  %is:2 = "tfg.Slice"(%ic#0, %b0#0, %s1#0) {Index = i32, T = i32, _mlir_name = "input_layer_1/item_embedding/item_embedding_weights/Slice_1"} : (tensor<2xi32>, tensor<1xi32>, tensor<1xi32>) -> (tensor<1xi32>, !tfg.control)
  %iw = shape.from_extents %c3 : tensor<1xi32>
  %ish:2 = "tfg.ConcatV2"(%is#0, %iw, %zero#0) {N = 2 : i64, T = i32, _mlir_name = "input_layer_1/item_embedding/item_embedding_weights/concat"} : (tensor<1xi32>, tensor<1xi32>, tensor<i32>) -> (tensor<2xi32>, !tfg.control)
  %ir:2 = "tfg.Reshape"(%l2, %ish#0) {T = f32, _mlir_name = "input_layer_1/item_embedding/item_embedding_weights/Reshape_2"} : (tensor<?x3xf32>, tensor<2xi32>) -> (tensor<?x3xf32>, !tfg.control)
  %rows:2 = "tfg.Const"() {_mlir_name = "rows", dtype = i32, value = dense<-1> : tensor<i32>} : () -> (tensor<i32>, !tfg.control)
  %w3:2 = "tfg.Const"() {_mlir_name = "input_layer_1/item_embedding/Reshape/shape/1", dtype = i32, value = dense<3> : tensor<i32>} : () -> (tensor<i32>, !tfg.control)
  %ip:2 = "tfg.Pack"(%rows#0, %w3#0) {N = 2 : i64, T = i32, _mlir_name = "input_layer_1/item_embedding/Reshape/shape"} : (tensor<i32>, tensor<i32>) -> (tensor<2xi32>, !tfg.control)
  %ir2:2 = "tfg.Reshape"(%ir#0, %ip#0) {T = f32, _mlir_name = "input_layer_1/item_embedding/Reshape"} : (tensor<?x3xf32>, tensor<2xi32>) -> (tensor<?x3xf32>, !tfg.control)
  %ii:2 = "tfg.Identity"(%ir2#0) {T = f32, _mlir_name = "input_layer_1/concat/concat"} : (tensor<?x3xf32>) -> (tensor<?x3xf32>, !tfg.control)
  %item:2 = "tfg.Identity"(%ii#0) {T = f32, _mlir_name = "item/item"} : (tensor<?x3xf32>) -> (tensor<?x3xf32>, !tfg.control)
  %mm:2 = "tfg.MatMul"(%item#0, %w) {T = f32, _mlir_name = "dense_2/MatMul"} : (tensor<?x3xf32>, tensor<3x8xf32>) -> (tensor<?x8xf32>, !tfg.control)
  func.return %user#0, %mm#0 : tensor<?x10xf32>, tensor<?x8xf32>
}

// CHECK:       gpu.module @emb
// CHECK:         gpu.func @layer(
// CHECK:         gpu.func @layer_1(

// -----

// A lone column whose chain value has two users: the layer's output
// replaces that value, and both users read it (the Identity after it
// stays). A lookup read directly by a MatMul is a layer too.

// CHECK-LABEL: func.func @two_users
// CHECK-NOT:     emb.lookup
// CHECK:         %[[L:.*]] = "fused.embedding_layer"({{.*}}) {_mlir_name = "c/concat", {{.*}}kernel = @emb::@layer,
// CHECK:         "tfg.Identity"(%[[L]])
// CHECK:         "tfg.MatMul"(%[[L]], %{{.*}})
// CHECK:         %[[M:.*]] = "fused.embedding_layer"({{.*}}) {_mlir_name = "d/lookup", {{.*}}kernel = @emb::@layer_1,
// CHECK:         "tfg.MatMul"(%[[M]], %{{.*}})
func.func @two_users(%a: tensor<?x4xi64>, %w: tensor<8x2xf32>) -> (tensor<?x8xf32>, tensor<?x2xf32>, tensor<?x2xf32>) {
  %t = emb.table {name = "t8"} : tensor<100x8xf32>
  %v, %s = emb.from_dense %a {ignore = -1 : i64} : tensor<?x4xi64> -> tensor<?xi64>
  %h = emb.check_range %v {default = 0 : i64, num_buckets = 100 : i64} : tensor<?xi64> -> tensor<?xi64>
  %l = emb.lookup %t, %h, %s {combiner = "sum"} : tensor<100x8xf32>, tensor<?xi64> -> tensor<?x8xf32> loc("c/lookup")
  %c:2 = "tfg.Identity"(%l) {T = f32, _mlir_name = "c/concat"} : (tensor<?x8xf32>) -> (tensor<?x8xf32>, !tfg.control)
  %o:2 = "tfg.Identity"(%c#0) {T = f32, _mlir_name = "out"} : (tensor<?x8xf32>) -> (tensor<?x8xf32>, !tfg.control)
  %m:2 = "tfg.MatMul"(%c#0, %w) {T = f32, _mlir_name = "mm"} : (tensor<?x8xf32>, tensor<8x2xf32>) -> (tensor<?x2xf32>, !tfg.control)
  %t2 = emb.table {name = "t8b"} : tensor<100x8xf32>
  %l2 = emb.lookup %t2, %h, %s {combiner = "mean"} : tensor<100x8xf32>, tensor<?xi64> -> tensor<?x8xf32> loc("d/lookup")
  %m2:2 = "tfg.MatMul"(%l2, %w) {T = f32, _mlir_name = "mm2"} : (tensor<?x8xf32>, tensor<8x2xf32>) -> (tensor<?x2xf32>, !tfg.control)
  func.return %o#0, %m#0, %m2#0 : tensor<?x8xf32>, tensor<?x2xf32>, tensor<?x2xf32>
}

// Reshape_2's shape operand with the wrong width, or a first extent that is
// not the dense shape's first (Slice from 1): not known to keep the rows.

// CHECK-LABEL: func.func @not_rows
// CHECK-COUNT-2: emb.lookup
// CHECK-NOT:     fused.embedding_layer
// CHECK:         gpu.module @emb
func.func @not_rows(%a: tensor<?x4xi64>, %d: tensor<2xi32>) -> tensor<?x16xf32> {
  %zero:2 = "tfg.Const"() {_mlir_name = "axis0", dtype = i32, value = dense<0> : tensor<i32>} : () -> (tensor<i32>, !tfg.control)
  %one:2 = "tfg.Const"() {_mlir_name = "axis1", dtype = i32, value = dense<1> : tensor<i32>} : () -> (tensor<i32>, !tfg.control)
  %b0:2 = "tfg.Const"() {_mlir_name = "begin0", dtype = i32, value = dense<[0]> : tensor<1xi32>} : () -> (tensor<1xi32>, !tfg.control)
  %b1:2 = "tfg.Const"() {_mlir_name = "begin1", dtype = i32, value = dense<[1]> : tensor<1xi32>} : () -> (tensor<1xi32>, !tfg.control)
  %s1:2 = "tfg.Const"() {_mlir_name = "size", dtype = i32, value = dense<[1]> : tensor<1xi32>} : () -> (tensor<1xi32>, !tfg.control)
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  %t = emb.table {name = "t8"} : tensor<100x8xf32>
  %v, %s = emb.from_dense %a {ignore = -1 : i64} : tensor<?x4xi64> -> tensor<?xi64>
  %h = emb.check_range %v {default = 0 : i64, num_buckets = 100 : i64} : tensor<?xi64> -> tensor<?xi64>
  // expected-remark@+1 {{not fused: it reaches 'tfg.ConcatV2' (node "concat") through 'tfg.Reshape' (node "a/Reshape_2"), whose shape operand is not one known to keep the rows}}
  %l = emb.lookup %t, %h, %s {combiner = "sum"} : tensor<100x8xf32>, tensor<?xi64> -> tensor<?x8xf32> loc("a/lookup")
  %hd:2 = "tfg.Slice"(%d, %b0#0, %s1#0) {Index = i32, T = i32, _mlir_name = "a/Slice_1"} : (tensor<2xi32>, tensor<1xi32>, tensor<1xi32>) -> (tensor<1xi32>, !tfg.control)
  %w4 = shape.from_extents %c4 : tensor<1xi32>
  %sh:2 = "tfg.ConcatV2"(%hd#0, %w4, %zero#0) {N = 2 : i64, T = i32, _mlir_name = "a/concat"} : (tensor<1xi32>, tensor<1xi32>, tensor<i32>) -> (tensor<2xi32>, !tfg.control)
  %r:2 = "tfg.Reshape"(%l, %sh#0) {T = f32, _mlir_name = "a/Reshape_2"} : (tensor<?x8xf32>, tensor<2xi32>) -> (tensor<*xf32>, !tfg.control)
  // expected-remark@+1 {{not fused: it reaches 'tfg.ConcatV2' (node "concat") through 'tfg.Reshape' (node "b/Reshape_2"), whose shape operand is not one known to keep the rows}}
  %l2 = emb.lookup %t, %h, %s {combiner = "mean"} : tensor<100x8xf32>, tensor<?xi64> -> tensor<?x8xf32> loc("b/lookup")
  %hd2:2 = "tfg.Slice"(%d, %b1#0, %s1#0) {Index = i32, T = i32, _mlir_name = "b/Slice_1"} : (tensor<2xi32>, tensor<1xi32>, tensor<1xi32>) -> (tensor<1xi32>, !tfg.control)
  %w8 = shape.from_extents %c8 : tensor<1xi32>
  %sh2:2 = "tfg.ConcatV2"(%hd2#0, %w8, %zero#0) {N = 2 : i64, T = i32, _mlir_name = "b/concat"} : (tensor<1xi32>, tensor<1xi32>, tensor<i32>) -> (tensor<2xi32>, !tfg.control)
  %r2:2 = "tfg.Reshape"(%l2, %sh2#0) {T = f32, _mlir_name = "b/Reshape_2"} : (tensor<?x8xf32>, tensor<2xi32>) -> (tensor<*xf32>, !tfg.control)
  %c:2 = "tfg.ConcatV2"(%r#0, %r2#0, %one#0) {N = 2 : i64, T = f32, _mlir_name = "concat"} : (tensor<*xf32>, tensor<*xf32>, tensor<i32>) -> (tensor<?x16xf32>, !tfg.control)
  func.return %c#0 : tensor<?x16xf32>
}
