// Kernels are marked in !nvvm.annotations with their launch bounds; device
// functions are internal and called; the host program is not emitted.
// RUN: recom-translate --emit-llvm --allow-unregistered-dialect %s | FileCheck %s
// RUN: recom-translate --emit-llvm --allow-unregistered-dialect %s | FileCheck --check-prefix=HOST %s

// HOST-NOT: host
// CHECK-LABEL: define internal float @axpy(float %arg0, float %arg1, float %arg2)
// CHECK: %[[R:[0-9]+]] = call float @llvm.fma.f32(float %arg0, float %arg1, float %arg2)
// CHECK: ret float %[[R]]
// CHECK-LABEL: define internal { float, i32 } @pair(float %arg0, i32 %arg1)
// CHECK: %[[A:[0-9]+]] = insertvalue { float, i32 } undef, float %arg0, 0
// CHECK: %[[B:[0-9]+]] = insertvalue { float, i32 } %[[A]], i32 %arg1, 1
// CHECK: ret { float, i32 } %[[B]]
// CHECK-LABEL: define void @first(float addrspace(1)* %arg0)
// CHECK: call float @axpy(
// CHECK: %[[P:[0-9]+]] = call { float, i32 } @pair(
// CHECK: extractvalue { float, i32 } %[[P]], 0
// CHECK: extractvalue { float, i32 } %[[P]], 1
// CHECK-LABEL: define void @second()
// CHECK: !nvvm.annotations = !{![[K1:[0-9]+]], ![[B1:[0-9]+]], ![[M1:[0-9]+]], ![[K2:[0-9]+]]}
// CHECK-DAG: ![[K1]] = !{void (float addrspace(1)*)* @first, !"kernel", i32 1}
// CHECK-DAG: ![[B1]] = !{void (float addrspace(1)*)* @first, !"maxntidx", i32 128}
// CHECK-DAG: ![[M1]] = !{void (float addrspace(1)*)* @first, !"minctasm", i32 4}
// CHECK-DAG: ![[K2]] = !{void ()* @second, !"kernel", i32 1}
"gpu.module"() ({
  "gpu.func"() ({
  ^bb0(%a: f32, %x: f32, %y: f32):
    %r = "gpu.fma"(%a, %x, %y) : (f32, f32, f32) -> f32
    "gpu.return"(%r) : (f32) -> ()
  }) {function_type = (f32, f32, f32) -> f32, sym_name = "axpy"} : () -> ()
  "gpu.func"() ({
  ^bb0(%a: f32, %b: i32):
    "gpu.return"(%a, %b) : (f32, i32) -> ()
  }) {function_type = (f32, i32) -> (f32, i32), sym_name = "pair"} : () -> ()
  "gpu.func"() ({
  ^bb0(%p: !gpu.ptr<f32, global>):
    %c0 = "arith.constant"() {value = 0 : i64} : () -> i64
    %c1 = "arith.constant"() {value = 1 : i32} : () -> i32
    %v = "gpu.load"(%p, %c0) : (!gpu.ptr<f32, global>, i64) -> f32
    %r = "gpu.call"(%v, %v, %v) {callee = @axpy} : (f32, f32, f32) -> f32
    %f, %i = "gpu.call"(%r, %c1) {callee = @pair} : (f32, i32) -> (f32, i32)
    %g = "arith.sitofp"(%i) : (i32) -> f32
    %s = "arith.addf"(%f, %g) : (f32, f32) -> f32
    "gpu.store"(%s, %p, %c0) : (f32, !gpu.ptr<f32, global>, i64) -> ()
    "gpu.return"() : () -> ()
  }) {function_type = (!gpu.ptr<f32, global>) -> (), kernel, max_threads = 128 : i64, min_blocks = 4 : i64, sym_name = "first"} : () -> ()
  "gpu.func"() ({
    "gpu.return"() : () -> ()
  }) {function_type = () -> (), kernel, sym_name = "second"} : () -> ()
}) {sym_name = "kernels"} : () -> ()
func.func @host(%n: i64) {
  func.return
}
