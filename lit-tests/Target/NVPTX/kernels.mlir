// Kernels are marked in !nvvm.annotations with their launch bounds; device
// functions are internal and called; the host program is not emitted.
// RUN: recom-translate --emit-llvm %s | FileCheck %s
// RUN: recom-translate --emit-llvm %s | FileCheck --check-prefix=HOST %s

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
module {
  gpu.module @kernels {
    gpu.func @axpy(%a: f32, %x: f32, %y: f32) -> f32 {
      %0 = gpu.fma %a, %x, %y : f32
      gpu.return %0 : f32
    }
    gpu.func @pair(%a: f32, %b: i32) -> (f32, i32) {
      gpu.return %a, %b : f32, i32
    }
    gpu.func @first(%p: !gpu.ptr<f32, global>) kernel attributes {max_threads = 128 : i64, min_blocks = 4 : i64} {
      %c0_i64 = arith.constant 0 : i64
      %c1_i32 = arith.constant 1 : i32
      %0 = gpu.load %p[%c0_i64] : !gpu.ptr<f32, global> -> f32
      %1 = gpu.call @axpy(%0, %0, %0) : (f32, f32, f32) -> f32
      %2:2 = gpu.call @pair(%1, %c1_i32) : (f32, i32) -> (f32, i32)
      %3 = arith.sitofp %2#1 : i32 to f32
      %4 = arith.addf %2#0, %3 : f32
      gpu.store %4, %p[%c0_i64] : f32, !gpu.ptr<f32, global>
      gpu.return
    }
    gpu.func @second() kernel {
      gpu.return
    }
  }
  func.func @host(%n: i64) {
    func.return
  }
}
