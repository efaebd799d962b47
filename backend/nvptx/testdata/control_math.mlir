// gpu.if with results, arith comparisons, casts and selects, the math ops,
// idx/up shuffles, and a call to a device function returning a value.
"gpu.module"() ({
  "gpu.func"() ({
  ^bb0(%x: f32, %y: f32):
    %one = "arith.constant"() {value = 1.0 : f32} : () -> f32
    %r = "gpu.fma"(%x, %y, %one) : (f32, f32, f32) -> f32
    "gpu.return"(%r) : (f32) -> ()
  }) {function_type = (f32, f32) -> f32, sym_name = "scale"} : () -> ()
  "gpu.func"() ({
  ^bb0(%p: !gpu.ptr<f32, global>, %q: !gpu.ptr<i32, global>):
    %tid = "gpu.thread_id"() {dimension = "x"} : () -> i32
    %tid64 = "arith.extsi"(%tid) : (i32) -> i64
    %tf = "arith.sitofp"(%tid) : (i32) -> f32
    %sq = "gpu.sqrt"(%tf) : (f32) -> f32
    %rs = "gpu.rsqrt"(%tf) : (f32) -> f32
    %neg = "arith.negf"(%sq) : (f32) -> f32
    %ab = "gpu.fabs"(%neg) : (f32) -> f32
    %mn = "gpu.min"(%ab, %rs) : (f32, f32) -> f32
    %mx = "gpu.max"(%ab, %rs) : (f32, f32) -> f32
    %c16 = "arith.constant"() {value = 16 : i32} : () -> i32
    %c7 = "arith.constant"() {value = 7 : i32} : () -> i32
    %low = "arith.cmpi"(%tid, %c16) {predicate = 2 : i64} : (i32, i32) -> i1
    %f, %i = "gpu.if"(%low) ({
      "gpu.yield"(%mn, %tid) : (f32, i32) -> ()
    }, {
      %d = "arith.divf"(%mx, %tf) : (f32, f32) -> f32
      "gpu.yield"(%d, %c7) : (f32, i32) -> ()
    }) : (i1) -> (f32, i32)
    %sel = "arith.select"(%low, %mn, %mx) : (i1, f32, f32) -> f32
    %call = "gpu.call"(%f, %sel) {callee = @scale} : (f32, f32) -> f32
    %w = "arith.constant"() {value = 32 : i32} : () -> i32
    %c0 = "arith.constant"() {value = 0 : i32} : () -> i32
    %c1 = "arith.constant"() {value = 1 : i32} : () -> i32
    %bc = "gpu.shuffle"(%call, %c0, %w) {mode = "idx"} : (f32, i32, i32) -> f32
    %up = "gpu.shuffle"(%i, %c1, %w) {mode = "up"} : (i32, i32, i32) -> i32
    "gpu.store"(%bc, %p, %tid64) : (f32, !gpu.ptr<f32, global>, i64) -> ()
    "gpu.store"(%up, %q, %tid64) : (i32, !gpu.ptr<i32, global>, i64) -> ()
    "gpu.return"() : () -> ()
  }) {function_type = (!gpu.ptr<f32, global>, !gpu.ptr<i32, global>) -> (), kernel, sym_name = "math"} : () -> ()
}) {sym_name = "kernels"} : () -> ()
