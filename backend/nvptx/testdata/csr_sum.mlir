// Segmented (CSR) sum of 4-wide embedding rows: thread r pools bag r,
// out[r, 0:4] = sum over k in [offsets[r], offsets[r+1]) of table[ids[k], 0:4],
// with the four partial sums carried by a gpu.for.
"gpu.module"() ({
  "gpu.func"() ({
  ^bb0(%offsets: !gpu.ptr<i64, global>, %ids: !gpu.ptr<i64, global>, %table: !gpu.ptr<f32, global>, %out: !gpu.ptr<f32, global>, %nbags: i64):
    %tid = "gpu.thread_id"() {dimension = "x"} : () -> i32
    %bid = "gpu.block_id"() {dimension = "x"} : () -> i32
    %bdim = "gpu.block_dim"() {dimension = "x"} : () -> i32
    %0 = "arith.muli"(%bid, %bdim) : (i32, i32) -> i32
    %1 = "arith.addi"(%0, %tid) : (i32, i32) -> i32
    %row = "arith.extsi"(%1) : (i32) -> i64
    %inb = "arith.cmpi"(%row, %nbags) {predicate = 2 : i64} : (i64, i64) -> i1
    "gpu.if"(%inb) ({
      %c1 = "arith.constant"() {value = 1 : i64} : () -> i64
      %c4 = "arith.constant"() {value = 4 : i64} : () -> i64
      %zero = "arith.constant"() {value = 0.0 : f32} : () -> f32
      %next = "arith.addi"(%row, %c1) : (i64, i64) -> i64
      %start = "gpu.load"(%offsets, %row) {readonly} : (!gpu.ptr<i64, global>, i64) -> i64
      %end = "gpu.load"(%offsets, %next) {readonly} : (!gpu.ptr<i64, global>, i64) -> i64
      %s:4 = "gpu.for"(%start, %end, %c1, %zero, %zero, %zero, %zero) ({
      ^bb0(%k: i64, %a0: f32, %a1: f32, %a2: f32, %a3: f32):
        %id = "gpu.load"(%ids, %k) {readonly} : (!gpu.ptr<i64, global>, i64) -> i64
        %at = "arith.muli"(%id, %c4) : (i64, i64) -> i64
        %t0, %t1, %t2, %t3 = "gpu.load"(%table, %at) {readonly, width = 4 : i64} : (!gpu.ptr<f32, global>, i64) -> (f32, f32, f32, f32)
        %b0 = "arith.addf"(%a0, %t0) : (f32, f32) -> f32
        %b1 = "arith.addf"(%a1, %t1) : (f32, f32) -> f32
        %b2 = "arith.addf"(%a2, %t2) : (f32, f32) -> f32
        %b3 = "arith.addf"(%a3, %t3) : (f32, f32) -> f32
        "gpu.yield"(%b0, %b1, %b2, %b3) : (f32, f32, f32, f32) -> ()
      }) : (i64, i64, i64, f32, f32, f32, f32) -> (f32, f32, f32, f32)
      %o = "arith.muli"(%row, %c4) : (i64, i64) -> i64
      "gpu.store"(%s#0, %s#1, %s#2, %s#3, %out, %o) {width = 4 : i64} : (f32, f32, f32, f32, !gpu.ptr<f32, global>, i64) -> ()
      "gpu.yield"() : () -> ()
    }, {
    }) : (i1) -> ()
    "gpu.return"() : () -> ()
  }) {function_type = (!gpu.ptr<i64, global>, !gpu.ptr<i64, global>, !gpu.ptr<f32, global>, !gpu.ptr<f32, global>, i64) -> (), kernel, max_threads = 128 : i64, sym_name = "csr_sum"} : () -> ()
}) {sym_name = "kernels"} : () -> ()
