// The emitted LLVM IR compiles with llc-19 to PTX with the kernel entry,
// 16-byte vector loads, shared memory, barriers, shuffles and launch bounds.
// (llc succeeds silently on an empty module: the .entry check matters.)
// REQUIRES: llc
// RUN: recom-translate --emit-llvm --allow-unregistered-dialect %s -o %t.ll
// RUN: llc-19 -march=nvptx64 -mcpu=sm_90 -O3 %t.ll -o - | FileCheck %s
// RUN: recom-translate --emit-ptx --allow-unregistered-dialect %s | FileCheck %s

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
"gpu.module"() ({
  "gpu.func"() ({
  ^bb0(%a: !gpu.ptr<f32, global>, %b: !gpu.ptr<f32, global>, %out: !gpu.ptr<f32, global>):
    %smem = "gpu.shared_alloc"() {count = 32 : i64} : () -> !gpu.ptr<f32, shared>
    %tid = "gpu.thread_id"() {dimension = "x"} : () -> i32
    %t = "arith.extsi"(%tid) : (i32) -> i64
    %c4 = "arith.constant"() {value = 4 : i64} : () -> i64
    %i = "arith.muli"(%t, %c4) : (i64, i64) -> i64
    %a0, %a1, %a2, %a3 = "gpu.load"(%a, %i) {readonly, width = 4 : i64} : (!gpu.ptr<f32, global>, i64) -> (f32, f32, f32, f32)
    %b0, %b1, %b2, %b3 = "gpu.load"(%b, %i) {width = 4 : i64} : (!gpu.ptr<f32, global>, i64) -> (f32, f32, f32, f32)
    %s0 = "arith.addf"(%a0, %b0) : (f32, f32) -> f32
    %s1 = "arith.addf"(%a1, %b1) : (f32, f32) -> f32
    %s2 = "arith.addf"(%a2, %b2) : (f32, f32) -> f32
    %s3 = "arith.addf"(%a3, %b3) : (f32, f32) -> f32
    "gpu.store"(%s0, %smem, %t) : (f32, !gpu.ptr<f32, shared>, i64) -> ()
    "gpu.barrier"() : () -> ()
    %c31 = "arith.constant"() {value = 31 : i64} : () -> i64
    %j = "arith.subi"(%c31, %t) : (i64, i64) -> i64
    %m = "gpu.load"(%smem, %j) : (!gpu.ptr<f32, shared>, i64) -> f32
    %c16 = "arith.constant"() {value = 16 : i32} : () -> i32
    %c32 = "arith.constant"() {value = 32 : i32} : () -> i32
    %x = "gpu.shuffle"(%m, %c16, %c32) {mode = "xor"} : (f32, i32, i32) -> f32
    %y = "arith.addf"(%x, %s1) : (f32, f32) -> f32
    "gpu.store"(%y, %s1, %s2, %s3, %out, %i) {width = 4 : i64} : (f32, f32, f32, f32, !gpu.ptr<f32, global>, i64) -> ()
    "gpu.return"() : () -> ()
  }) {function_type = (!gpu.ptr<f32, global>, !gpu.ptr<f32, global>, !gpu.ptr<f32, global>) -> (), kernel, max_threads = 32 : i64, sym_name = "pool"} : () -> ()
}) {sym_name = "kernels"} : () -> ()
