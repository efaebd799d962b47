// The thread hierarchy, barriers and warp shuffles become NVVM intrinsics.
// RUN: recom-translate --emit-llvm --allow-unregistered-dialect %s | FileCheck %s

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
"gpu.module"() ({
  "gpu.func"() ({
  ^bb0(%out: !gpu.ptr<i32, global>):
    %tx = "gpu.thread_id"() {dimension = "x"} : () -> i32
    %ty = "gpu.thread_id"() {dimension = "y"} : () -> i32
    %bz = "gpu.block_id"() {dimension = "z"} : () -> i32
    %nx = "gpu.block_dim"() {dimension = "x"} : () -> i32
    %gy = "gpu.grid_dim"() {dimension = "y"} : () -> i32
    %lane = "gpu.lane_id"() : () -> i32
    "gpu.barrier"() : () -> ()
    %f = "arith.sitofp"(%tx) : (i32) -> f32
    %c0 = "arith.constant"() {value = 0 : i32} : () -> i32
    %c1 = "arith.constant"() {value = 1 : i32} : () -> i32
    %c16 = "arith.constant"() {value = 16 : i32} : () -> i32
    %c32 = "arith.constant"() {value = 32 : i32} : () -> i32
    %x = "gpu.shuffle"(%f, %c16, %c32) {mode = "xor"} : (f32, i32, i32) -> f32
    %d = "gpu.shuffle"(%x, %c1, %c16) {mode = "down"} : (f32, i32, i32) -> f32
    %u = "gpu.shuffle"(%ty, %c1, %c32) {mode = "up"} : (i32, i32, i32) -> i32
    %i = "gpu.shuffle"(%lane, %c0, %c32) {mode = "idx"} : (i32, i32, i32) -> i32
    %w = "arith.extsi"(%bz) : (i32) -> i64
    %w2 = "gpu.shuffle"(%w, %c1, %c32) {mode = "xor"} : (i64, i32, i32) -> i64
    %k = "arith.extsi"(%nx) : (i32) -> i64
    "gpu.store"(%gy, %out, %k) : (i32, !gpu.ptr<i32, global>, i64) -> ()
    "gpu.return"() : () -> ()
  }) {function_type = (!gpu.ptr<i32, global>) -> (), kernel, sym_name = "ids"} : () -> ()
}) {sym_name = "kernels"} : () -> ()
