// RUN: recom-opt --split-input-file --fuse-dense %s | FileCheck %s
// RUN: recom-opt --split-input-file --fuse-dense='accumulate=f32' %s | FileCheck %s --check-prefix=F32
// RUN: recom-opt --split-input-file --fuse-dense='split-k=3' %s | FileCheck %s --check-prefix=S3
// RUN: recom-opt --split-input-file --fuse-dense='split-k=1' %s | FileCheck %s --check-prefix=S1
// RUN: not recom-opt --fuse-dense='split-k=lots' %s 2>&1 | FileCheck %s --check-prefix=BAD

// A DLRM dense part: the bottom MLP (MatMul, BiasAdd, Relu) on the dense
// features, its output joined with the embeddings by a ConcatV2, the top
// MLP ending in a Sigmoid. Each layer becomes one fused.dense calling its
// kernel in gpu.module @dense; the concatenation is fused into the top
// product (ks = [8, 16]: two ranges of K); the fused op keeps the name of
// the chain's last node ("prediction").

// CHECK-LABEL: "tfg.graph"
// CHECK-NOT:     tfg.MatMul
// CHECK-NOT:     tfg.BiasAdd
// CHECK-NOT:     tfg.Relu
// CHECK-DAG:     %[[X:.*]]:2 = "tfg.Placeholder"() {_mlir_name = "dense_features"
// CHECK-DAG:     %[[E:.*]]:2 = "tfg.Placeholder"() {_mlir_name = "embeddings"
// CHECK-DAG:     %[[W0:.*]]:2 = "tfg.Identity"({{.*}}) {T = f32, _mlir_name = "bottom/kernel/read"}
// CHECK-DAG:     %[[B0:.*]]:2 = "tfg.Identity"({{.*}}) {T = f32, _mlir_name = "bottom/bias/read"}
// CHECK:         %[[H:.*]] = "fused.dense"(%[[X]]#0, %[[W0]]#0, %[[B0]]#0) {_mlir_name = "bottom/Relu", accumulate = "f64", activation = "relu", bias, block_k = 16 : i64, block_m = 64 : i64, block_n = 16 : i64, kernel = @dense::@bottom, ks = [13 : i64], n = 16 : i64, thread_m = 4 : i64, thread_n = 4 : i64, transpose_a = false, transpose_b = false} : (tensor<*xf32>, tensor<*xf32>, tensor<*xf32>) -> tensor<?x16xf32>
// CHECK-NOT:     tfg.ConcatV2
// CHECK:         "fused.dense"(%[[E]]#0, %[[H]], %{{.*}}#0, %{{.*}}#0) {_mlir_name = "prediction", accumulate = "f64", activation = "sigmoid", bias, {{.*}}kernel = @dense::@top, ks = [8 : i64, 16 : i64], n = 1 : i64, {{.*}}} : (tensor<*xf32>, tensor<?x16xf32>, tensor<*xf32>, tensor<*xf32>) -> tensor<?x1xf32>
// CHECK-NOT:     tfg.Sigmoid
// CHECK:       gpu.module @dense {
// CHECK:         gpu.func @bottom(%{{.*}}: !gpu.ptr<f32, global>, %{{.*}}: !gpu.ptr<f32, global>, %{{.*}}: !gpu.ptr<f32, global>, %{{.*}}: !gpu.ptr<f32, global>, %{{.*}}: i64) kernel attributes {max_threads = 64 : i64, min_blocks = 1 : i64} {
// CHECK-DAG:       gpu.shared_alloc {count = 1024 : i64} : !gpu.ptr<f64, shared>
// CHECK-DAG:       gpu.shared_alloc {count = 256 : i64} : !gpu.ptr<f64, shared>
// CHECK:           gpu.for
// CHECK:             gpu.barrier
// CHECK:             gpu.load %{{.*}} {width = 2} : !gpu.ptr<f64, shared> -> f64, f64
// CHECK:             gpu.fma %{{.*}}, %{{.*}}, %{{.*}} : f64
// CHECK:             gpu.barrier
// CHECK:           arith.truncf %{{.*}} : f64 to f32
// CHECK:           arith.addf
// CHECK:           arith.cmpf ugt
// CHECK:           gpu.store %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}[%{{.*}}] {width = 4} : f32, f32, f32, f32, !gpu.ptr<f32, global>
// CHECK:           gpu.return
// CHECK:         gpu.func @top(
// CHECK:           gpu.for
// CHECK:           arith.divf

// F32-LABEL: "tfg.graph"
// F32:         "fused.dense"({{.*}}accumulate = "f32"
// F32:       gpu.func @bottom(
// F32:           gpu.fma %{{.*}}, %{{.*}}, %{{.*}} : f32
// F32-NOT:       arith.truncf
// F32:           gpu.return
module {
  "tfg.graph"() ({
    %x:2 = "tfg.Placeholder"() {_mlir_name = "dense_features", dtype = f32, shape = #tfg.shape<?x13>} : () -> (tensor<*xf32>, !tfg.control)
    %e:2 = "tfg.Placeholder"() {_mlir_name = "embeddings", dtype = f32, shape = #tfg.shape<?x8>} : () -> (tensor<*xf32>, !tfg.control)
    %w0:2 = "tfg.VariableV2"() {_mlir_name = "bottom/kernel", container = "", dtype = f32, shape = #tfg.shape<13x16>, shared_name = ""} : () -> (tensor<*x!tfg.ref<f32>>, !tfg.control)
    %w0r:2 = "tfg.Identity"(%w0#0) {T = f32, _mlir_name = "bottom/kernel/read"} : (tensor<*x!tfg.ref<f32>>) -> (tensor<*xf32>, !tfg.control)
    %b0:2 = "tfg.VariableV2"() {_mlir_name = "bottom/bias", container = "", dtype = f32, shape = #tfg.shape<16>, shared_name = ""} : () -> (tensor<*x!tfg.ref<f32>>, !tfg.control)
    %b0r:2 = "tfg.Identity"(%b0#0) {T = f32, _mlir_name = "bottom/bias/read"} : (tensor<*x!tfg.ref<f32>>) -> (tensor<*xf32>, !tfg.control)
    %m0:2 = "tfg.MatMul"(%x#0, %w0r#0) {T = f32, _mlir_name = "bottom/MatMul", transpose_a = false, transpose_b = false} : (tensor<*xf32>, tensor<*xf32>) -> (tensor<*xf32>, !tfg.control)
    %a0:2 = "tfg.BiasAdd"(%m0#0, %b0r#0) {T = f32, _mlir_name = "bottom/BiasAdd", data_format = "NHWC"} : (tensor<*xf32>, tensor<*xf32>) -> (tensor<*xf32>, !tfg.control)
    %r0:2 = "tfg.Relu"(%a0#0) {T = f32, _mlir_name = "bottom/Relu"} : (tensor<*xf32>) -> (tensor<*xf32>, !tfg.control)
    %ax:2 = "tfg.Const"() {_mlir_name = "concat/axis", dtype = i32, value = dense<1> : tensor<i32>} : () -> (tensor<i32>, !tfg.control)
    %c:2 = "tfg.ConcatV2"(%e#0, %r0#0, %ax#0) {N = 2 : i64, T = f32, Tidx = i32, _mlir_name = "concat"} : (tensor<*xf32>, tensor<*xf32>, tensor<i32>) -> (tensor<*xf32>, !tfg.control)
    %w1:2 = "tfg.VariableV2"() {_mlir_name = "top/kernel", container = "", dtype = f32, shape = #tfg.shape<24x1>, shared_name = ""} : () -> (tensor<*x!tfg.ref<f32>>, !tfg.control)
    %w1r:2 = "tfg.Identity"(%w1#0) {T = f32, _mlir_name = "top/kernel/read"} : (tensor<*x!tfg.ref<f32>>) -> (tensor<*xf32>, !tfg.control)
    %b1:2 = "tfg.VariableV2"() {_mlir_name = "top/bias", container = "", dtype = f32, shape = #tfg.shape<1>, shared_name = ""} : () -> (tensor<*x!tfg.ref<f32>>, !tfg.control)
    %b1r:2 = "tfg.Identity"(%b1#0) {T = f32, _mlir_name = "top/bias/read"} : (tensor<*x!tfg.ref<f32>>) -> (tensor<*xf32>, !tfg.control)
    %m1:2 = "tfg.MatMul"(%c#0, %w1r#0) {T = f32, _mlir_name = "top/MatMul", transpose_a = false, transpose_b = false} : (tensor<*xf32>, tensor<*xf32>) -> (tensor<*xf32>, !tfg.control)
    %a1:2 = "tfg.BiasAdd"(%m1#0, %b1r#0) {T = f32, _mlir_name = "top/BiasAdd", data_format = "NHWC"} : (tensor<*xf32>, tensor<*xf32>) -> (tensor<*xf32>, !tfg.control)
    %p:2 = "tfg.Sigmoid"(%a1#0) {T = f32, _mlir_name = "prediction"} : (tensor<*xf32>) -> (tensor<*xf32>, !tfg.control)
  }) : () -> ()
}

// -----

// An AddV2 of a constant bias (either operand order), a transposed weight,
// Tanh; a transposed input, without bias or activation.

// CHECK-LABEL: "tfg.graph"
// CHECK:         "fused.dense"({{.*}}) {_mlir_name = "l1/Tanh", accumulate = "f64", activation = "tanh", bias, {{.*}}ks = [6 : i64], n = 5 : i64, {{.*}}transpose_a = false, transpose_b = true}
// CHECK:         "fused.dense"({{.*}}) {_mlir_name = "l2/MatMul", accumulate = "f64", activation = "none", {{.*}}ks = [5 : i64], n = 3 : i64, {{.*}}transpose_a = true, transpose_b = false} : (tensor<*xf32>, tensor<*xf32>) -> tensor<?x3xf32>
// CHECK-NOT:     tfg.AddV2
// CHECK-NOT:     tfg.Tanh
// CHECK:       gpu.module @dense
// CHECK:         gpu.func @l1(
// CHECK:           arith.extf %{{.*}} : f32 to f64
// CHECK:           gpu.fabs
// CHECK:         gpu.func @l2(
module {
  "tfg.graph"() ({
    %x:2 = "tfg.Placeholder"() {_mlir_name = "x", dtype = f32, shape = #tfg.shape<?x6>} : () -> (tensor<*xf32>, !tfg.control)
    %z:2 = "tfg.Placeholder"() {_mlir_name = "xt", dtype = f32, shape = #tfg.shape<5x?>} : () -> (tensor<*xf32>, !tfg.control)
    %w:2 = "tfg.VariableV2"() {_mlir_name = "l1/kernel", container = "", dtype = f32, shape = #tfg.shape<5x6>, shared_name = ""} : () -> (tensor<*x!tfg.ref<f32>>, !tfg.control)
    %wr:2 = "tfg.Identity"(%w#0) {T = f32, _mlir_name = "l1/kernel/read"} : (tensor<*x!tfg.ref<f32>>) -> (tensor<*xf32>, !tfg.control)
    %b:2 = "tfg.Const"() {_mlir_name = "l1/bias", dtype = f32, value = dense<[1.0, 2.0, 3.0, 4.0, 5.0]> : tensor<5xf32>} : () -> (tensor<5xf32>, !tfg.control)
    %m:2 = "tfg.MatMul"(%x#0, %wr#0) {T = f32, _mlir_name = "l1/MatMul", transpose_a = false, transpose_b = true} : (tensor<*xf32>, tensor<*xf32>) -> (tensor<*xf32>, !tfg.control)
    %a:2 = "tfg.AddV2"(%b#0, %m#0) {T = f32, _mlir_name = "l1/add"} : (tensor<5xf32>, tensor<*xf32>) -> (tensor<*xf32>, !tfg.control)
    %t:2 = "tfg.Tanh"(%a#0) {T = f32, _mlir_name = "l1/Tanh"} : (tensor<*xf32>) -> (tensor<*xf32>, !tfg.control)
    %v:2 = "tfg.VariableV2"() {_mlir_name = "l2/kernel", container = "", dtype = f32, shape = #tfg.shape<5x3>, shared_name = ""} : () -> (tensor<*x!tfg.ref<f32>>, !tfg.control)
    %vr:2 = "tfg.Identity"(%v#0) {T = f32, _mlir_name = "l2/kernel/read"} : (tensor<*x!tfg.ref<f32>>) -> (tensor<*xf32>, !tfg.control)
    %n:2 = "tfg.MatMul"(%z#0, %vr#0) {T = f32, _mlir_name = "l2/MatMul", transpose_a = true, transpose_b = false} : (tensor<*xf32>, tensor<*xf32>) -> (tensor<*xf32>, !tfg.control)
  }) : () -> ()
}

// -----

// Not dense chains: a MatMul of a computed matrix stays, and so does the
// Relu of a product that has another user (the product is fused alone).

// CHECK-LABEL: "tfg.graph"
// CHECK:         "tfg.MatMul"{{.*}}_mlir_name = "free"
// CHECK:         %[[D:.*]] = "fused.dense"({{.*}}) {_mlir_name = "dense", accumulate = "f64", activation = "none",
// CHECK:         "tfg.Relu"(%[[D]])
// CHECK:         "tfg.Sigmoid"(%[[D]])
module {
  "tfg.graph"() ({
    %x:2 = "tfg.Placeholder"() {_mlir_name = "x", dtype = f32, shape = #tfg.shape<?x4>} : () -> (tensor<*xf32>, !tfg.control)
    %y:2 = "tfg.Placeholder"() {_mlir_name = "y", dtype = f32, shape = #tfg.shape<4x3>} : () -> (tensor<*xf32>, !tfg.control)
    %w:2 = "tfg.VariableV2"() {_mlir_name = "w", container = "", dtype = f32, shape = #tfg.shape<4x3>, shared_name = ""} : () -> (tensor<*x!tfg.ref<f32>>, !tfg.control)
    %wr:2 = "tfg.Identity"(%w#0) {T = f32, _mlir_name = "w/read"} : (tensor<*x!tfg.ref<f32>>) -> (tensor<*xf32>, !tfg.control)
    %m:2 = "tfg.MatMul"(%x#0, %y#0) {T = f32, _mlir_name = "free", transpose_a = false, transpose_b = false} : (tensor<*xf32>, tensor<*xf32>) -> (tensor<*xf32>, !tfg.control)
    %n:2 = "tfg.MatMul"(%x#0, %wr#0) {T = f32, _mlir_name = "dense", transpose_a = false, transpose_b = false} : (tensor<*xf32>, tensor<*xf32>) -> (tensor<*xf32>, !tfg.control)
    %r:2 = "tfg.Relu"(%n#0) {T = f32, _mlir_name = "relu"} : (tensor<*xf32>) -> (tensor<*xf32>, !tfg.control)
    %s:2 = "tfg.Sigmoid"(%n#0) {T = f32, _mlir_name = "sig"} : (tensor<*xf32>) -> (tensor<*xf32>, !tfg.control)
  }) : () -> ()
}

// -----

// A long K (512 = 32 steps of block_k, two inputs of a ConcatV2): with
// split-k=auto the kernel may cut K into up to 32/4 = 8 slices, chosen per
// launch (split_auto); it takes the f64 workspace and the slice count
// after y and B, clamps each input's steps to its slice, has the threads
// past the batch skip the products, and writes y itself only in one
// slice. The reduce kernel sums the slices in order in f64, rounds once,
// adds the bias and applies the activation. split-k=3 fixes the count
// (clamped to the steps: 2 for the first case's top layer, K = 24);
// split-k=1 (and with auto a K under 16 steps) leaves the plain kernel.

// CHECK-LABEL: "tfg.graph"
// CHECK:         "fused.dense"({{.*}}) {_mlir_name = "long/Relu", {{.*}}kernel = @dense::@long, ks = [500 : i64, 12 : i64], n = 64 : i64, reduce_kernel = @dense::@long_reduce, split_auto, split_k = 8 : i64, thread_m
// CHECK:       gpu.module @dense {
// CHECK:         gpu.func @long(%{{.*}}: !gpu.ptr<f32, global>, %{{.*}}: !gpu.ptr<f32, global>, %{{.*}}: !gpu.ptr<f32, global>, %{{.*}}: !gpu.ptr<f32, global>, %[[Y:.*]]: !gpu.ptr<f32, global>, %[[WS:.*]]: !gpu.ptr<f64, global>, %[[B:.*]]: i64, %[[S:.*]]: i64) kernel
// CHECK:           %[[TILE:.*]] = arith.divui %{{.*}}, %[[S]] : i64
// CHECK:           arith.maxsi
// CHECK:           arith.minsi
// CHECK:           gpu.for %{{.*}} = %{{.*}} to %{{.*}} step %{{.*}} iter_args
// CHECK:             gpu.barrier
// CHECK:             gpu.if %{{.*}} -> (f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64) {
// CHECK:               gpu.fma %{{.*}}, %{{.*}}, %{{.*}} : f64
// CHECK:             gpu.barrier
// CHECK:           gpu.for
// CHECK:           %[[ONE:.*]] = arith.cmpi eq, %[[S]], %{{.*}} : i64
// CHECK:           gpu.if %[[ONE]] {
// CHECK:             arith.truncf
// CHECK:             gpu.store {{.*}}, %[[Y]][%{{.*}}] {width = 4} : f32, f32, f32, f32, !gpu.ptr<f32, global>
// CHECK:           } else {
// CHECK-NOT:         arith.truncf
// CHECK:             gpu.store {{.*}}, %[[WS]][%{{.*}}] {width = 2} : f64, f64, !gpu.ptr<f64, global>
// CHECK:           gpu.return
// CHECK:         gpu.func @long_reduce(%[[RWS:.*]]: !gpu.ptr<f64, global>, %[[RB:.*]]: !gpu.ptr<f32, global>, %[[RY:.*]]: !gpu.ptr<f32, global>, %{{.*}}: i64, %[[RS:.*]]: i64) kernel attributes {max_threads = 256 : i64} {
// CHECK:           gpu.for %{{.*}} = %{{.*}} to %[[RS]] step %{{.*}} iter_args(
// CHECK:             gpu.load %[[RWS]][%{{.*}}] {width = 2} : !gpu.ptr<f64, global> -> f64, f64
// CHECK:             arith.addf %{{.*}} : f64
// CHECK:           gpu.load %[[RB]]
// CHECK:           arith.truncf %{{.*}} : f64 to f32
// CHECK:           arith.cmpf ugt
// CHECK:           gpu.store {{.*}}, %[[RY]][%{{.*}}] {width = 4}
// CHECK:           gpu.return

// S3: "fused.dense"({{.*}}_mlir_name = "bottom/Relu"
// S3-NOT: split_k
// S3: "fused.dense"({{.*}}_mlir_name = "prediction", {{.*}}reduce_kernel = @dense::@top_reduce, split_k = 2 : i64, thread_m
// S3: "fused.dense"({{.*}}_mlir_name = "long/Relu", {{.*}}reduce_kernel = @dense::@long_reduce, split_k = 3 : i64, thread_m
// S3: gpu.func @long_reduce(

// S1: "fused.dense"({{.*}}_mlir_name = "long/Relu"
// S1-NOT: split_k
// S1-NOT: gpu.func @long_reduce

// BAD: split-k must be auto or a number in [1, 256], got "lots"
module {
  "tfg.graph"() ({
    %x:2 = "tfg.Placeholder"() {_mlir_name = "emb", dtype = f32, shape = #tfg.shape<?x500>} : () -> (tensor<*xf32>, !tfg.control)
    %z:2 = "tfg.Placeholder"() {_mlir_name = "dense_features", dtype = f32, shape = #tfg.shape<?x12>} : () -> (tensor<*xf32>, !tfg.control)
    %ax:2 = "tfg.Const"() {_mlir_name = "concat/axis", dtype = i32, value = dense<1> : tensor<i32>} : () -> (tensor<i32>, !tfg.control)
    %c:2 = "tfg.ConcatV2"(%x#0, %z#0, %ax#0) {N = 2 : i64, T = f32, Tidx = i32, _mlir_name = "concat"} : (tensor<*xf32>, tensor<*xf32>, tensor<i32>) -> (tensor<*xf32>, !tfg.control)
    %w:2 = "tfg.VariableV2"() {_mlir_name = "long/kernel", container = "", dtype = f32, shape = #tfg.shape<512x64>, shared_name = ""} : () -> (tensor<*x!tfg.ref<f32>>, !tfg.control)
    %wr:2 = "tfg.Identity"(%w#0) {T = f32, _mlir_name = "long/kernel/read"} : (tensor<*x!tfg.ref<f32>>) -> (tensor<*xf32>, !tfg.control)
    %b:2 = "tfg.VariableV2"() {_mlir_name = "long/bias", container = "", dtype = f32, shape = #tfg.shape<64>, shared_name = ""} : () -> (tensor<*x!tfg.ref<f32>>, !tfg.control)
    %br:2 = "tfg.Identity"(%b#0) {T = f32, _mlir_name = "long/bias/read"} : (tensor<*x!tfg.ref<f32>>) -> (tensor<*xf32>, !tfg.control)
    %m:2 = "tfg.MatMul"(%c#0, %wr#0) {T = f32, _mlir_name = "long/MatMul", transpose_a = false, transpose_b = false} : (tensor<*xf32>, tensor<*xf32>) -> (tensor<*xf32>, !tfg.control)
    %a:2 = "tfg.BiasAdd"(%m#0, %br#0) {T = f32, _mlir_name = "long/BiasAdd", data_format = "NHWC"} : (tensor<*xf32>, tensor<*xf32>) -> (tensor<*xf32>, !tfg.control)
    %r:2 = "tfg.Relu"(%a#0) {T = f32, _mlir_name = "long/Relu"} : (tensor<*xf32>) -> (tensor<*xf32>, !tfg.control)
  }) : () -> ()
}
