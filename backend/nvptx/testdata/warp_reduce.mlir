// out[0] += the sum of in[0:n], each warp reducing its 32 values with
// shuffles (butterfly, then down) and lane 0 adding atomically.
module {
  gpu.module @kernels {
    gpu.func @warp_sum(%in: !gpu.ptr<f32, global>, %out: !gpu.ptr<f32, global>, %n: i64) kernel attributes {max_threads = 1024 : i64} {
      %0 = gpu.thread_id x
      %1 = gpu.block_id x
      %2 = gpu.block_dim x
      %3 = arith.muli %1, %2 : i32
      %4 = arith.addi %3, %0 : i32
      %5 = arith.extsi %4 : i32 to i64
      %6 = arith.cmpi slt, %5, %n : i64
      %7 = gpu.if %6 -> (f32) {
        %20 = gpu.load %in[%5] {readonly} : !gpu.ptr<f32, global> -> f32
        gpu.yield %20 : f32
      } else {
        %cst = arith.constant 0.000000e+00 : f32
        gpu.yield %cst : f32
      }
      %c32_i32 = arith.constant 32 : i32
      %c16_i32 = arith.constant 16 : i32
      %c8_i32 = arith.constant 8 : i32
      %c4_i32 = arith.constant 4 : i32
      %c2_i32 = arith.constant 2 : i32
      %c1_i32 = arith.constant 1 : i32
      %8 = gpu.shuffle xor %7, %c16_i32, %c32_i32 : f32
      %9 = arith.addf %7, %8 : f32
      %10 = gpu.shuffle xor %9, %c8_i32, %c32_i32 : f32
      %11 = arith.addf %9, %10 : f32
      %12 = gpu.shuffle down %11, %c4_i32, %c32_i32 : f32
      %13 = arith.addf %11, %12 : f32
      %14 = gpu.shuffle down %13, %c2_i32, %c32_i32 : f32
      %15 = arith.addf %13, %14 : f32
      %16 = gpu.shuffle down %15, %c1_i32, %c32_i32 : f32
      %17 = arith.addf %15, %16 : f32
      %18 = gpu.lane_id
      %c0_i32 = arith.constant 0 : i32
      %19 = arith.cmpi eq, %18, %c0_i32 : i32
      gpu.if %19 {
        %c0_i64 = arith.constant 0 : i64
        %20 = gpu.atomic_add %out[%c0_i64], %17 : !gpu.ptr<f32, global>, f32
        gpu.yield
      }
      gpu.return
    }
  }
}
