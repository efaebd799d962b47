// out[0] += the sum of in[0:n], each warp reducing its 32 values with
// shuffles (butterfly, then down) and lane 0 adding atomically.
"gpu.module"() ({
  "gpu.func"() ({
  ^bb0(%in: !gpu.ptr<f32, global>, %out: !gpu.ptr<f32, global>, %n: i64):
    %tid = "gpu.thread_id"() {dimension = "x"} : () -> i32
    %bid = "gpu.block_id"() {dimension = "x"} : () -> i32
    %bdim = "gpu.block_dim"() {dimension = "x"} : () -> i32
    %0 = "arith.muli"(%bid, %bdim) : (i32, i32) -> i32
    %1 = "arith.addi"(%0, %tid) : (i32, i32) -> i32
    %gid = "arith.extsi"(%1) : (i32) -> i64
    %inb = "arith.cmpi"(%gid, %n) {predicate = 2 : i64} : (i64, i64) -> i1
    %v = "gpu.if"(%inb) ({
      %x = "gpu.load"(%in, %gid) {readonly} : (!gpu.ptr<f32, global>, i64) -> f32
      "gpu.yield"(%x) : (f32) -> ()
    }, {
      %zero = "arith.constant"() {value = 0.0 : f32} : () -> f32
      "gpu.yield"(%zero) : (f32) -> ()
    }) : (i1) -> f32
    %w = "arith.constant"() {value = 32 : i32} : () -> i32
    %o16 = "arith.constant"() {value = 16 : i32} : () -> i32
    %o8 = "arith.constant"() {value = 8 : i32} : () -> i32
    %o4 = "arith.constant"() {value = 4 : i32} : () -> i32
    %o2 = "arith.constant"() {value = 2 : i32} : () -> i32
    %o1 = "arith.constant"() {value = 1 : i32} : () -> i32
    %s16 = "gpu.shuffle"(%v, %o16, %w) {mode = "xor"} : (f32, i32, i32) -> f32
    %v16 = "arith.addf"(%v, %s16) : (f32, f32) -> f32
    %s8 = "gpu.shuffle"(%v16, %o8, %w) {mode = "xor"} : (f32, i32, i32) -> f32
    %v8 = "arith.addf"(%v16, %s8) : (f32, f32) -> f32
    %s4 = "gpu.shuffle"(%v8, %o4, %w) {mode = "down"} : (f32, i32, i32) -> f32
    %v4 = "arith.addf"(%v8, %s4) : (f32, f32) -> f32
    %s2 = "gpu.shuffle"(%v4, %o2, %w) {mode = "down"} : (f32, i32, i32) -> f32
    %v2 = "arith.addf"(%v4, %s2) : (f32, f32) -> f32
    %s1 = "gpu.shuffle"(%v2, %o1, %w) {mode = "down"} : (f32, i32, i32) -> f32
    %v1 = "arith.addf"(%v2, %s1) : (f32, f32) -> f32
    %lane = "gpu.lane_id"() : () -> i32
    %c0 = "arith.constant"() {value = 0 : i32} : () -> i32
    %leader = "arith.cmpi"(%lane, %c0) {predicate = 0 : i64} : (i32, i32) -> i1
    "gpu.if"(%leader) ({
      %z = "arith.constant"() {value = 0 : i64} : () -> i64
      %old = "gpu.atomic_add"(%out, %z, %v1) : (!gpu.ptr<f32, global>, i64, f32) -> f32
      "gpu.yield"() : () -> ()
    }, {
    }) : (i1) -> ()
    "gpu.return"() : () -> ()
  }) {function_type = (!gpu.ptr<f32, global>, !gpu.ptr<f32, global>, i64) -> (), kernel, max_threads = 1024 : i64, sym_name = "warp_sum"} : () -> ()
}) {sym_name = "kernels"} : () -> ()
