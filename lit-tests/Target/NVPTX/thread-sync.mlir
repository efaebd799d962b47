// The thread hierarchy, barriers and warp shuffles become NVVM intrinsics.
// RUN: recom-translate --emit-llvm %s | FileCheck %s

// CHECK: target datalayout = "e-i64:64-i128:128-v16:16-v32:32-n16:32:64"
// CHECK: target triple = "nvptx64-nvidia-cuda"
// CHECK-LABEL: define void @ids(i32 addrspace(1)* %arg0)
// CHECK: call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
// CHECK: call i32 @llvm.nvvm.read.ptx.sreg.tid.y()
// CHECK: call i32 @llvm.nvvm.read.ptx.sreg.ctaid.z()
// CHECK: call i32 @llvm.nvvm.read.ptx.sreg.ntid.x()
// CHECK: call i32 @llvm.nvvm.read.ptx.sreg.nctaid.y()
// CHECK: call i32 @llvm.nvvm.read.ptx.sreg.laneid()
// CHECK: call void @llvm.nvvm.barrier0()
// CHECK: call void @llvm.nvvm.bar.warp.sync(i32 -1)
// The clamp operand packs the segment mask ((32 - width) << 8) and the lane
// bound (31; 0 for up).
// CHECK: %[[X:[0-9]+]] = call float @llvm.nvvm.shfl.sync.bfly.f32(i32 -1, float %{{[0-9]+}}, i32 16, i32 31)
// CHECK: call float @llvm.nvvm.shfl.sync.down.f32(i32 -1, float %[[X]], i32 1, i32 4127)
// CHECK: call i32 @llvm.nvvm.shfl.sync.up.i32(i32 -1, i32 %{{[0-9]+}}, i32 1, i32 0)
// CHECK: call i32 @llvm.nvvm.shfl.sync.idx.i32(i32 -1, i32 %{{[0-9]+}}, i32 0, i32 31)
// A 64-bit value is shuffled as two 32-bit halves.
// CHECK: trunc i64 %{{[0-9]+}} to i32
// CHECK: call i32 @llvm.nvvm.shfl.sync.bfly.i32
// CHECK: lshr i64 %{{[0-9]+}}, 32
// CHECK: call i32 @llvm.nvvm.shfl.sync.bfly.i32
// CHECK: ret void
// CHECK: declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()
// CHECK: declare void @llvm.nvvm.barrier0()
module {
  gpu.module @kernels {
    gpu.func @ids(%out: !gpu.ptr<i32, global>) kernel {
      %0 = gpu.thread_id x
      %1 = gpu.thread_id y
      %2 = gpu.block_id z
      %3 = gpu.block_dim x
      %4 = gpu.grid_dim y
      %5 = gpu.lane_id
      gpu.barrier
      gpu.warp_sync
      %6 = arith.sitofp %0 : i32 to f32
      %c0_i32 = arith.constant 0 : i32
      %c1_i32 = arith.constant 1 : i32
      %c16_i32 = arith.constant 16 : i32
      %c32_i32 = arith.constant 32 : i32
      %7 = gpu.shuffle xor %6, %c16_i32, %c32_i32 : f32
      %8 = gpu.shuffle down %7, %c1_i32, %c16_i32 : f32
      %9 = gpu.shuffle up %1, %c1_i32, %c32_i32 : i32
      %10 = gpu.shuffle idx %5, %c0_i32, %c32_i32 : i32
      %11 = arith.extsi %2 : i32 to i64
      %12 = gpu.shuffle xor %11, %c1_i32, %c32_i32 : i64
      %13 = arith.extsi %3 : i32 to i64
      gpu.store %4, %out[%13] : i32, !gpu.ptr<i32, global>
      gpu.return
    }
  }
}
