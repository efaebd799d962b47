// gpu.if with results, arith comparisons, casts and selects, the math ops,
// idx/up shuffles, and a call to a device function returning a value.
module {
  gpu.module @kernels {
    gpu.func @scale(%x: f32, %y: f32) -> f32 {
      %cst = arith.constant 1.000000e+00 : f32
      %0 = gpu.fma %x, %y, %cst : f32
      gpu.return %0 : f32
    }
    gpu.func @math(%p: !gpu.ptr<f32, global>, %q: !gpu.ptr<i32, global>) kernel {
      %0 = gpu.thread_id x
      %1 = arith.extsi %0 : i32 to i64
      %2 = arith.sitofp %0 : i32 to f32
      %3 = gpu.sqrt %2 : f32
      %4 = gpu.rsqrt %2 : f32
      %5 = arith.negf %3 : f32
      %6 = gpu.fabs %5 : f32
      %7 = gpu.min %6, %4 : f32
      %8 = gpu.max %6, %4 : f32
      %c16_i32 = arith.constant 16 : i32
      %c7_i32 = arith.constant 7 : i32
      %9 = arith.cmpi slt, %0, %c16_i32 : i32
      %10:2 = gpu.if %9 -> (f32, i32) {
        gpu.yield %7, %0 : f32, i32
      } else {
        %15 = arith.divf %8, %2 : f32
        gpu.yield %15, %c7_i32 : f32, i32
      }
      %11 = arith.select %9, %7, %8 : f32
      %12 = gpu.call @scale(%10#0, %11) : (f32, f32) -> f32
      %c32_i32 = arith.constant 32 : i32
      %c0_i32 = arith.constant 0 : i32
      %c1_i32 = arith.constant 1 : i32
      %13 = gpu.shuffle idx %12, %c0_i32, %c32_i32 : f32
      %14 = gpu.shuffle up %10#1, %c1_i32, %c32_i32 : i32
      gpu.store %13, %p[%1] : f32, !gpu.ptr<f32, global>
      gpu.store %14, %q[%1] : i32, !gpu.ptr<i32, global>
      gpu.return
    }
  }
}
