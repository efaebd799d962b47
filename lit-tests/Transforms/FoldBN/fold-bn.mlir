// RUN: recom-opt --split-input-file --fold-bn %s | FileCheck %s
// RUN: recom-opt --split-input-file --fold-bn='disable=true' %s | FileCheck %s --check-prefix=OFF
// RUN: recom-opt --split-input-file --fuse-dense %s | FileCheck %s --check-prefix=DENSE
// RUN: recom-opt --split-input-file --fuse-dense='no-fold-bn=true' %s | FileCheck %s --check-prefix=NOFOLD

// tf.layers.batch_normalization at inference after a Relu (TF1's
// expanded form: Rsqrt(var+eps)*gamma, mul_1, mul_2, sub, add_1), then the
// dropout's Identity, then a dense layer: --fold-bn makes the MatMul read
// the Relu and writes the folded weight s[k]*W[k,n] and bias b + t·W as f64
// ops on the variables, cast to f32; --fuse-dense folds it first and takes
// them as the second layer's weight and bias, so both layers are fused.

// CHECK-LABEL: "tfg.graph"
// CHECK-NOT:     batchnorm/add_1"
// CHECK:         %[[W:.*]]:2 = "tfg.Cast"({{.*}}) {DstT = f32, SrcT = f64, Truncate = false, _mlir_name = "bn/batchnorm/add_1/folded/kernel"} : (tensor<4x3xf64>) -> (tensor<4x3xf32>, !tfg.control)
// CHECK:         %[[B:.*]]:2 = "tfg.Cast"({{.*}}) {DstT = f32, SrcT = f64, Truncate = false, _mlir_name = "bn/batchnorm/add_1/folded/bias_out"} : (tensor<3xf64>) -> (tensor<3xf32>, !tfg.control)
// CHECK:         %[[M:.*]]:2 = "tfg.MatMul"(%[[R:.*]]#0, %[[W]]#0) {T = f32, _mlir_name = "l2/MatMul"
// CHECK:         "tfg.BiasAdd"(%[[M]]#0, %[[B]]#0)

// OFF-LABEL: "tfg.graph"
// OFF:         "tfg.AddV2"({{.*}}) {T = f32, _mlir_name = "bn/batchnorm/add_1"}
// OFF-NOT:     folded

// DENSE-LABEL: "tfg.graph"
// DENSE:         %[[H:.*]] = "fused.dense"({{.*}}) {_mlir_name = "l1/Relu", {{.*}}activation = "relu", bias,
// DENSE:         "fused.dense"(%[[H]], %{{.*}}#0, %{{.*}}#0) {_mlir_name = "l2/BiasAdd", {{.*}}activation = "none", bias,
// DENSE-NOT:     batchnorm/add_1"

// NOFOLD-LABEL: "tfg.graph"
// NOFOLD:         "fused.dense"({{.*}}) {_mlir_name = "l1/Relu"
// NOFOLD:         "tfg.AddV2"({{.*}}) {T = f32, _mlir_name = "bn/batchnorm/add_1"}
// NOFOLD:         "fused.dense"({{.*}}) {_mlir_name = "l2/BiasAdd"
module {
  "tfg.graph"() ({
    %x:2 = "tfg.Placeholder"() {_mlir_name = "x", dtype = f32, shape = #tfg.shape<?x2>} : () -> (tensor<*xf32>, !tfg.control)
    %w:2 = "tfg.VariableV2"() {_mlir_name = "l1/kernel", container = "", dtype = f32, shape = #tfg.shape<2x4>, shared_name = ""} : () -> (tensor<*x!tfg.ref<f32>>, !tfg.control)
    %wr:2 = "tfg.Identity"(%w#0) {T = f32, _mlir_name = "l1/kernel/read"} : (tensor<*x!tfg.ref<f32>>) -> (tensor<*xf32>, !tfg.control)
    %b:2 = "tfg.Const"() {_mlir_name = "l1/bias", dtype = f32, value = dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf32>} : () -> (tensor<4xf32>, !tfg.control)
    %m:2 = "tfg.MatMul"(%x#0, %wr#0) {T = f32, _mlir_name = "l1/MatMul", transpose_a = false, transpose_b = false} : (tensor<*xf32>, tensor<*xf32>) -> (tensor<*xf32>, !tfg.control)
    %ba:2 = "tfg.BiasAdd"(%m#0, %b#0) {T = f32, _mlir_name = "l1/BiasAdd", data_format = "NHWC"} : (tensor<*xf32>, tensor<4xf32>) -> (tensor<*xf32>, !tfg.control)
    %r:2 = "tfg.Relu"(%ba#0) {T = f32, _mlir_name = "l1/Relu"} : (tensor<*xf32>) -> (tensor<*xf32>, !tfg.control)
    %g:2 = "tfg.VariableV2"() {_mlir_name = "bn/gamma", container = "", dtype = f32, shape = #tfg.shape<4>, shared_name = ""} : () -> (tensor<*x!tfg.ref<f32>>, !tfg.control)
    %gr:2 = "tfg.Identity"(%g#0) {T = f32, _mlir_name = "bn/gamma/read"} : (tensor<*x!tfg.ref<f32>>) -> (tensor<*xf32>, !tfg.control)
    %be:2 = "tfg.VariableV2"() {_mlir_name = "bn/beta", container = "", dtype = f32, shape = #tfg.shape<4>, shared_name = ""} : () -> (tensor<*x!tfg.ref<f32>>, !tfg.control)
    %ber:2 = "tfg.Identity"(%be#0) {T = f32, _mlir_name = "bn/beta/read"} : (tensor<*x!tfg.ref<f32>>) -> (tensor<*xf32>, !tfg.control)
    %mu:2 = "tfg.VariableV2"() {_mlir_name = "bn/moving_mean", container = "", dtype = f32, shape = #tfg.shape<4>, shared_name = ""} : () -> (tensor<*x!tfg.ref<f32>>, !tfg.control)
    %mur:2 = "tfg.Identity"(%mu#0) {T = f32, _mlir_name = "bn/moving_mean/read"} : (tensor<*x!tfg.ref<f32>>) -> (tensor<*xf32>, !tfg.control)
    %va:2 = "tfg.VariableV2"() {_mlir_name = "bn/moving_variance", container = "", dtype = f32, shape = #tfg.shape<4>, shared_name = ""} : () -> (tensor<*x!tfg.ref<f32>>, !tfg.control)
    %var:2 = "tfg.Identity"(%va#0) {T = f32, _mlir_name = "bn/moving_variance/read"} : (tensor<*x!tfg.ref<f32>>) -> (tensor<*xf32>, !tfg.control)
    %eps:2 = "tfg.Const"() {_mlir_name = "bn/batchnorm/add/y", dtype = f32, value = dense<1.000000e-03> : tensor<f32>} : () -> (tensor<*xf32>, !tfg.control)
    %ve:2 = "tfg.AddV2"(%var#0, %eps#0) {T = f32, _mlir_name = "bn/batchnorm/add"} : (tensor<*xf32>, tensor<*xf32>) -> (tensor<*xf32>, !tfg.control)
    %rs:2 = "tfg.Rsqrt"(%ve#0) {T = f32, _mlir_name = "bn/batchnorm/Rsqrt"} : (tensor<*xf32>) -> (tensor<*xf32>, !tfg.control)
    %s:2 = "tfg.Mul"(%rs#0, %gr#0) {T = f32, _mlir_name = "bn/batchnorm/mul"} : (tensor<*xf32>, tensor<*xf32>) -> (tensor<*xf32>, !tfg.control)
    %xs:2 = "tfg.Mul"(%r#0, %s#0) {T = f32, _mlir_name = "bn/batchnorm/mul_1"} : (tensor<*xf32>, tensor<*xf32>) -> (tensor<*xf32>, !tfg.control)
    %ms:2 = "tfg.Mul"(%mur#0, %s#0) {T = f32, _mlir_name = "bn/batchnorm/mul_2"} : (tensor<*xf32>, tensor<*xf32>) -> (tensor<*xf32>, !tfg.control)
    %t:2 = "tfg.Sub"(%ber#0, %ms#0) {T = f32, _mlir_name = "bn/batchnorm/sub"} : (tensor<*xf32>, tensor<*xf32>) -> (tensor<*xf32>, !tfg.control)
    %y:2 = "tfg.AddV2"(%xs#0, %t#0) {T = f32, _mlir_name = "bn/batchnorm/add_1"} : (tensor<*xf32>, tensor<*xf32>) -> (tensor<*xf32>, !tfg.control)
    %d:2 = "tfg.Identity"(%y#0) {T = f32, _mlir_name = "dropout/Identity"} : (tensor<*xf32>) -> (tensor<*xf32>, !tfg.control)
    %w2:2 = "tfg.VariableV2"() {_mlir_name = "l2/kernel", container = "", dtype = f32, shape = #tfg.shape<4x3>, shared_name = ""} : () -> (tensor<*x!tfg.ref<f32>>, !tfg.control)
    %w2r:2 = "tfg.Identity"(%w2#0) {T = f32, _mlir_name = "l2/kernel/read"} : (tensor<*x!tfg.ref<f32>>) -> (tensor<*xf32>, !tfg.control)
    %b2:2 = "tfg.Const"() {_mlir_name = "l2/bias", dtype = f32, value = dense<[1.0, 2.0, 3.0]> : tensor<3xf32>} : () -> (tensor<3xf32>, !tfg.control)
    %m2:2 = "tfg.MatMul"(%d#0, %w2r#0) {T = f32, _mlir_name = "l2/MatMul", transpose_a = false, transpose_b = false} : (tensor<*xf32>, tensor<*xf32>) -> (tensor<*xf32>, !tfg.control)
    %o:2 = "tfg.BiasAdd"(%m2#0, %b2#0) {T = f32, _mlir_name = "l2/BiasAdd", data_format = "NHWC"} : (tensor<*xf32>, tensor<3xf32>) -> (tensor<*xf32>, !tfg.control)
  }) : () -> ()
}

// -----

// A batch norm whose scale depends on the batch (x*x + t) is no inference
// batch norm: nothing is folded. Nor is one whose result has another user.

// CHECK-LABEL: "tfg.graph"
// CHECK-NOT:     folded
// CHECK:         "tfg.AddV2"({{.*}}) {T = f32, _mlir_name = "sq/add"}
// CHECK:         "tfg.AddV2"({{.*}}) {T = f32, _mlir_name = "two/add"}
module {
  "tfg.graph"() ({
    %x:2 = "tfg.Placeholder"() {_mlir_name = "x", dtype = f32, shape = #tfg.shape<?x2>} : () -> (tensor<*xf32>, !tfg.control)
    %t:2 = "tfg.Const"() {_mlir_name = "t", dtype = f32, value = dense<[1.0, 2.0]> : tensor<2xf32>} : () -> (tensor<2xf32>, !tfg.control)
    %xx:2 = "tfg.Mul"(%x#0, %x#0) {T = f32, _mlir_name = "sq/mul"} : (tensor<*xf32>, tensor<*xf32>) -> (tensor<*xf32>, !tfg.control)
    %y:2 = "tfg.AddV2"(%xx#0, %t#0) {T = f32, _mlir_name = "sq/add"} : (tensor<*xf32>, tensor<2xf32>) -> (tensor<*xf32>, !tfg.control)
    %w:2 = "tfg.Const"() {_mlir_name = "w", dtype = f32, value = dense<1.0> : tensor<2x2xf32>} : () -> (tensor<2x2xf32>, !tfg.control)
    %m:2 = "tfg.MatMul"(%y#0, %w#0) {T = f32, _mlir_name = "sq/MatMul", transpose_a = false, transpose_b = false} : (tensor<*xf32>, tensor<2x2xf32>) -> (tensor<*xf32>, !tfg.control)
    %o:2 = "tfg.BiasAdd"(%m#0, %t#0) {T = f32, _mlir_name = "sq/BiasAdd", data_format = "NHWC"} : (tensor<*xf32>, tensor<2xf32>) -> (tensor<*xf32>, !tfg.control)
    %s:2 = "tfg.Mul"(%x#0, %t#0) {T = f32, _mlir_name = "two/mul"} : (tensor<*xf32>, tensor<2xf32>) -> (tensor<*xf32>, !tfg.control)
    %z:2 = "tfg.AddV2"(%s#0, %t#0) {T = f32, _mlir_name = "two/add"} : (tensor<*xf32>, tensor<2xf32>) -> (tensor<*xf32>, !tfg.control)
    %m2:2 = "tfg.MatMul"(%z#0, %w#0) {T = f32, _mlir_name = "two/MatMul", transpose_a = false, transpose_b = false} : (tensor<*xf32>, tensor<2x2xf32>) -> (tensor<*xf32>, !tfg.control)
    %o2:2 = "tfg.BiasAdd"(%m2#0, %t#0) {T = f32, _mlir_name = "two/BiasAdd", data_format = "NHWC"} : (tensor<*xf32>, tensor<2xf32>) -> (tensor<*xf32>, !tfg.control)
    %u:2 = "tfg.Relu"(%z#0) {T = f32, _mlir_name = "two/other_user"} : (tensor<*xf32>) -> (tensor<*xf32>, !tfg.control)
  }) : () -> ()
}
