// out[blockIdx.x] = sum of the block's 256 elements of in: a tree
// reduction in shared memory with a barrier after each step.
"gpu.module"() ({
  "gpu.func"() ({
  ^bb0(%in: !gpu.ptr<f32, global>, %out: !gpu.ptr<f32, global>):
    %smem = "gpu.shared_alloc"() {count = 256 : i64} : () -> !gpu.ptr<f32, shared>
    %tid = "gpu.thread_id"() {dimension = "x"} : () -> i32
    %bid = "gpu.block_id"() {dimension = "x"} : () -> i32
    %tid64 = "arith.extsi"(%tid) : (i32) -> i64
    %bid64 = "arith.extsi"(%bid) : (i32) -> i64
    %c256 = "arith.constant"() {value = 256 : i64} : () -> i64
    %base = "arith.muli"(%bid64, %c256) : (i64, i64) -> i64
    %g = "arith.addi"(%base, %tid64) : (i64, i64) -> i64
    %v = "gpu.load"(%in, %g) {readonly} : (!gpu.ptr<f32, global>, i64) -> f32
    "gpu.store"(%v, %smem, %tid64) : (f32, !gpu.ptr<f32, shared>, i64) -> ()
    "gpu.barrier"() : () -> ()
    %c0 = "arith.constant"() {value = 0 : i32} : () -> i32
    %c1 = "arith.constant"() {value = 1 : i32} : () -> i32
    %c8 = "arith.constant"() {value = 8 : i32} : () -> i32
    %c128 = "arith.constant"() {value = 128 : i32} : () -> i32
    "gpu.for"(%c0, %c8, %c1) ({
    ^bb0(%s: i32):
      %stride = "arith.shrui"(%c128, %s) : (i32, i32) -> i32
      %active = "arith.cmpi"(%tid, %stride) {predicate = 6 : i64} : (i32, i32) -> i1
      "gpu.if"(%active) ({
        %stride64 = "arith.extsi"(%stride) : (i32) -> i64
        %j = "arith.addi"(%tid64, %stride64) : (i64, i64) -> i64
        %a = "gpu.load"(%smem, %tid64) : (!gpu.ptr<f32, shared>, i64) -> f32
        %b = "gpu.load"(%smem, %j) : (!gpu.ptr<f32, shared>, i64) -> f32
        %sum = "arith.addf"(%a, %b) : (f32, f32) -> f32
        "gpu.store"(%sum, %smem, %tid64) : (f32, !gpu.ptr<f32, shared>, i64) -> ()
        "gpu.yield"() : () -> ()
      }, {
      }) : (i1) -> ()
      "gpu.barrier"() : () -> ()
      "gpu.yield"() : () -> ()
    }) : (i32, i32, i32) -> ()
    %first = "arith.cmpi"(%tid, %c0) {predicate = 0 : i64} : (i32, i32) -> i1
    "gpu.if"(%first) ({
      %z = "arith.constant"() {value = 0 : i64} : () -> i64
      %r = "gpu.load"(%smem, %z) : (!gpu.ptr<f32, shared>, i64) -> f32
      "gpu.store"(%r, %out, %bid64) : (f32, !gpu.ptr<f32, global>, i64) -> ()
      "gpu.yield"() : () -> ()
    }, {
    }) : (i1) -> ()
    "gpu.return"() : () -> ()
  }) {function_type = (!gpu.ptr<f32, global>, !gpu.ptr<f32, global>) -> (), kernel, max_threads = 256 : i64, sym_name = "block_sum"} : () -> ()
}) {sym_name = "kernels"} : () -> ()
