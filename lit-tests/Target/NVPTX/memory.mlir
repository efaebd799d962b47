// Loads and stores of width 1, 2 and 4, readonly and nontemporal loads,
// pointer arithmetic and casts, shared memory and atomics.
// RUN: recom-translate --emit-llvm %s | FileCheck %s

// Shared memory is an internal addrspace(3) global of the kernel.
// CHECK: @mem_smem0 = internal addrspace(3) global [64 x float] undef, align 16
// CHECK-LABEL: define void @mem(float addrspace(1)* %arg0, i8 addrspace(1)* %arg1, i64 %arg2)
// A width-4 readonly load: one 16-byte aligned <4 x float> load marked invariant.
// CHECK: %[[P4:[0-9]+]] = getelementptr inbounds float, float addrspace(1)* %arg0, i64 %arg2
// CHECK: %[[V4:[0-9]+]] = bitcast float addrspace(1)* %[[P4]] to <4 x float> addrspace(1)*
// CHECK: %[[L4:[0-9]+]] = load <4 x float>, <4 x float> addrspace(1)* %[[V4]], align 16, !invariant.load ![[EMPTY:[0-9]+]]
// CHECK-DAG: extractelement <4 x float> %[[L4]], i32 0
// CHECK-DAG: extractelement <4 x float> %[[L4]], i32 3
// CHECK: load <2 x float>, <2 x float> addrspace(1)* %{{[0-9]+}}, align 8, !nontemporal ![[NT:[0-9]+]]
// CHECK: insertelement <4 x float> undef, float %{{[0-9]+}}, i32 0
// CHECK: store <4 x float> %{{[0-9]+}}, <4 x float> addrspace(1)* %{{[0-9]+}}, align 16
// ptr_cast reinterprets the element type; ptr_offset is a getelementptr.
// CHECK: %[[I64P:[0-9]+]] = bitcast i8 addrspace(1)* %arg1 to i64 addrspace(1)*
// CHECK: %[[OFF:[0-9]+]] = getelementptr inbounds i64, i64 addrspace(1)* %[[I64P]], i64 %arg2
// CHECK: load i64, i64 addrspace(1)* %[[OFF]], align 8
// Element 0 needs no getelementptr.
// CHECK: store float %{{[0-9]+}}, float addrspace(3)* getelementptr inbounds ([64 x float], [64 x float] addrspace(3)* @mem_smem0, i64 0, i64 0), align 4
// CHECK: atomicrmw fadd float addrspace(1)* %{{[0-9]+}}, float %{{[0-9]+}} monotonic
// CHECK: atomicrmw add i64 addrspace(1)* %{{[0-9]+}}, i64 1 monotonic
// CHECK: ![[EMPTY]] = !{}
// CHECK: ![[NT]] = !{i32 1}
module {
  gpu.module @kernels {
    gpu.func @mem(%p: !gpu.ptr<f32, global>, %bytes: !gpu.ptr<i8, global>, %i: i64) kernel {
      %0:4 = gpu.load %p[%i] {readonly, width = 4} : !gpu.ptr<f32, global> -> f32, f32, f32, f32
      %1:2 = gpu.load %p[%i] {nontemporal, width = 2} : !gpu.ptr<f32, global> -> f32, f32
      %2 = arith.addf %0#0, %1#1 : f32
      gpu.store %2, %0#1, %0#2, %0#3, %p[%i] {width = 4} : f32, f32, f32, f32, !gpu.ptr<f32, global>
      %3 = gpu.ptr_cast %bytes : !gpu.ptr<i8, global> to !gpu.ptr<i64, global>
      %4 = gpu.ptr_offset %3, %i : !gpu.ptr<i64, global>
      %c0_i64 = arith.constant 0 : i64
      %5 = gpu.load %4[%c0_i64] : !gpu.ptr<i64, global> -> i64
      %6 = gpu.shared_alloc {count = 64 : i64} : !gpu.ptr<f32, shared>
      gpu.store %2, %6[%c0_i64] : f32, !gpu.ptr<f32, shared>
      %7 = gpu.atomic_add %p[%5], %2 : !gpu.ptr<f32, global>, f32
      %c1_i64 = arith.constant 1 : i64
      %8 = gpu.atomic_add %4[%c0_i64], %c1_i64 : !gpu.ptr<i64, global>, i64
      gpu.return
    }
  }
}
