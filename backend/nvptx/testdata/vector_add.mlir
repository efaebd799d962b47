// c[i:i+4] = a[i:i+4] + b[i:i+4] for i = 4 * global thread id, i < n.
"gpu.module"() ({
  "gpu.func"() ({
  ^bb0(%a: !gpu.ptr<f32, global>, %b: !gpu.ptr<f32, global>, %c: !gpu.ptr<f32, global>, %n: i64):
    %tid = "gpu.thread_id"() {dimension = "x"} : () -> i32
    %bid = "gpu.block_id"() {dimension = "x"} : () -> i32
    %bdim = "gpu.block_dim"() {dimension = "x"} : () -> i32
    %0 = "arith.muli"(%bid, %bdim) : (i32, i32) -> i32
    %1 = "arith.addi"(%0, %tid) : (i32, i32) -> i32
    %2 = "arith.extsi"(%1) : (i32) -> i64
    %c4 = "arith.constant"() {value = 4 : i64} : () -> i64
    %i = "arith.muli"(%2, %c4) : (i64, i64) -> i64
    %in = "arith.cmpi"(%i, %n) {predicate = 2 : i64} : (i64, i64) -> i1
    "gpu.if"(%in) ({
      %a0, %a1, %a2, %a3 = "gpu.load"(%a, %i) {readonly, width = 4 : i64} : (!gpu.ptr<f32, global>, i64) -> (f32, f32, f32, f32)
      %b0, %b1, %b2, %b3 = "gpu.load"(%b, %i) {width = 4 : i64} : (!gpu.ptr<f32, global>, i64) -> (f32, f32, f32, f32)
      %s0 = "arith.addf"(%a0, %b0) : (f32, f32) -> f32
      %s1 = "arith.addf"(%a1, %b1) : (f32, f32) -> f32
      %s2 = "arith.addf"(%a2, %b2) : (f32, f32) -> f32
      %s3 = "arith.addf"(%a3, %b3) : (f32, f32) -> f32
      "gpu.store"(%s0, %s1, %s2, %s3, %c, %i) {width = 4 : i64} : (f32, f32, f32, f32, !gpu.ptr<f32, global>, i64) -> ()
      "gpu.yield"() : () -> ()
    }, {
    }) : (i1) -> ()
    "gpu.return"() : () -> ()
  }) {function_type = (!gpu.ptr<f32, global>, !gpu.ptr<f32, global>, !gpu.ptr<f32, global>, i64) -> (), kernel, max_threads = 256 : i64, min_blocks = 2 : i64, sym_name = "vadd"} : () -> ()
}) {sym_name = "kernels"} : () -> ()
