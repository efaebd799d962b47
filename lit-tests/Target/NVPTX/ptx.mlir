// The emitted LLVM IR compiles with llc-19 to PTX with the kernel entry,
// 16-byte vector loads, shared memory, barriers, shuffles and launch bounds.
// (llc succeeds silently on an empty module: the .entry check matters.)
// REQUIRES: llc
// RUN: recom-translate --emit-llvm %s -o %t.ll
// RUN: llc-19 -march=nvptx64 -mcpu=sm_90 -O3 %t.ll -o - | FileCheck %s
// RUN: recom-translate --emit-ptx %s | FileCheck %s

// CHECK: .target sm_90
// CHECK-LABEL: .visible .entry pool(
// CHECK: .maxntid 32, 1, 1
// CHECK: .shared .align 16 .b8 pool_smem0[128];
// CHECK: mov.u32 %r{{[0-9]+}}, %tid.x;
// CHECK-DAG: ld.global.nc.v4.f32 {%f{{[0-9]+}}, %f{{[0-9]+}}, %f{{[0-9]+}}, %f{{[0-9]+}}}
// CHECK-DAG: ld.global.v4.f32 {%f{{[0-9]+}}, %f{{[0-9]+}}, %f{{[0-9]+}}, %f{{[0-9]+}}}
// CHECK: st.shared.f32
// CHECK: bar.sync 0;
// CHECK: ld.shared.f32
// CHECK: shfl.sync.bfly.b32 %f{{[0-9]+}}, %f{{[0-9]+}}, 16, 31, -1;
// CHECK: st.global.v4.f32
// CHECK: ret;
module {
  gpu.module @kernels {
    gpu.func @pool(%a: !gpu.ptr<f32, global>, %b: !gpu.ptr<f32, global>, %out: !gpu.ptr<f32, global>) kernel attributes {max_threads = 32 : i64} {
      %0 = gpu.shared_alloc {count = 32 : i64} : !gpu.ptr<f32, shared>
      %1 = gpu.thread_id x
      %2 = arith.extsi %1 : i32 to i64
      %c4_i64 = arith.constant 4 : i64
      %3 = arith.muli %2, %c4_i64 : i64
      %4:4 = gpu.load %a[%3] {readonly, width = 4} : !gpu.ptr<f32, global> -> f32, f32, f32, f32
      %5:4 = gpu.load %b[%3] {width = 4} : !gpu.ptr<f32, global> -> f32, f32, f32, f32
      %6 = arith.addf %4#0, %5#0 : f32
      %7 = arith.addf %4#1, %5#1 : f32
      %8 = arith.addf %4#2, %5#2 : f32
      %9 = arith.addf %4#3, %5#3 : f32
      gpu.store %6, %0[%2] : f32, !gpu.ptr<f32, shared>
      gpu.barrier
      %c31_i64 = arith.constant 31 : i64
      %10 = arith.subi %c31_i64, %2 : i64
      %11 = gpu.load %0[%10] : !gpu.ptr<f32, shared> -> f32
      %c16_i32 = arith.constant 16 : i32
      %c32_i32 = arith.constant 32 : i32
      %12 = gpu.shuffle xor %11, %c16_i32, %c32_i32 : f32
      %13 = arith.addf %12, %7 : f32
      gpu.store %13, %7, %8, %9, %out[%3] {width = 4} : f32, f32, f32, f32, !gpu.ptr<f32, global>
      gpu.return
    }
  }
}
