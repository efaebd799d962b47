// The kernels of `recom gpu-smoke`, emitted by backend/nvptx and llc-19.
//
// @vadd4: c[i:i+4] = a[i:i+4] + b[i:i+4] for i = 4 * global thread id,
// i < n (n a multiple of 4): 16-byte loads and stores.
//
// @bag_sum: a CSR segmented sum, an embedding bag with the sum combiner.
// Bag r pools the rows table[ids[k]] for k in [offsets[r], offsets[r+1]);
// a row has 4 * d4 floats, and d4 threads share a bag, each summing one
// float4 of the row: thread t = r * d4 + lane writes out[4t : 4t+4].
// Empty bags write zeros.
module {
  gpu.module @smoke {
    gpu.func @vadd4(%a: !gpu.ptr<f32, global>, %b: !gpu.ptr<f32, global>, %c: !gpu.ptr<f32, global>, %n: i64) kernel attributes {max_threads = 256 : i64} {
      %0 = gpu.thread_id x
      %1 = gpu.block_id x
      %2 = gpu.block_dim x
      %3 = arith.extui %0 : i32 to i64
      %4 = arith.extui %1 : i32 to i64
      %5 = arith.extui %2 : i32 to i64
      %6 = arith.muli %4, %5 : i64
      %7 = arith.addi %6, %3 : i64
      %c4 = arith.constant 4 : i64
      %8 = arith.muli %7, %c4 : i64
      %9 = arith.cmpi slt, %8, %n : i64
      gpu.if %9 {
        %10:4 = gpu.load %a[%8] {readonly, width = 4} : !gpu.ptr<f32, global> -> f32, f32, f32, f32
        %11:4 = gpu.load %b[%8] {readonly, width = 4} : !gpu.ptr<f32, global> -> f32, f32, f32, f32
        %12 = arith.addf %10#0, %11#0 : f32
        %13 = arith.addf %10#1, %11#1 : f32
        %14 = arith.addf %10#2, %11#2 : f32
        %15 = arith.addf %10#3, %11#3 : f32
        gpu.store %12, %13, %14, %15, %c[%8] {width = 4} : f32, f32, f32, f32, !gpu.ptr<f32, global>
        gpu.yield
      }
      gpu.return
    }
    gpu.func @bag_sum(%offsets: !gpu.ptr<i64, global>, %ids: !gpu.ptr<i64, global>, %table: !gpu.ptr<f32, global>, %out: !gpu.ptr<f32, global>, %nbags: i64, %d4: i64) kernel attributes {max_threads = 256 : i64} {
      %0 = gpu.thread_id x
      %1 = gpu.block_id x
      %2 = gpu.block_dim x
      %3 = arith.extui %0 : i32 to i64
      %4 = arith.extui %1 : i32 to i64
      %5 = arith.extui %2 : i32 to i64
      %6 = arith.muli %4, %5 : i64
      %t = arith.addi %6, %3 : i64
      %bag = arith.divui %t, %d4 : i64
      %lane = arith.remui %t, %d4 : i64
      %7 = arith.cmpi slt, %bag, %nbags : i64
      gpu.if %7 {
        %c1 = arith.constant 1 : i64
        %c4 = arith.constant 4 : i64
        %zero = arith.constant 0.000000e+00 : f32
        %8 = arith.addi %bag, %c1 : i64
        %lo = gpu.load %offsets[%bag] {readonly} : !gpu.ptr<i64, global> -> i64
        %hi = gpu.load %offsets[%8] {readonly} : !gpu.ptr<i64, global> -> i64
        %sum:4 = gpu.for %k = %lo to %hi step %c1 iter_args(%s0 = %zero, %s1 = %zero, %s2 = %zero, %s3 = %zero) -> (f32, f32, f32, f32) {
          %id = gpu.load %ids[%k] {readonly} : !gpu.ptr<i64, global> -> i64
          %9 = arith.muli %id, %d4 : i64
          %10 = arith.addi %9, %lane : i64
          %11 = arith.muli %10, %c4 : i64
          %r:4 = gpu.load %table[%11] {readonly, width = 4} : !gpu.ptr<f32, global> -> f32, f32, f32, f32
          %12 = arith.addf %s0, %r#0 : f32
          %13 = arith.addf %s1, %r#1 : f32
          %14 = arith.addf %s2, %r#2 : f32
          %15 = arith.addf %s3, %r#3 : f32
          gpu.yield %12, %13, %14, %15 : f32, f32, f32, f32
        }
        %16 = arith.muli %t, %c4 : i64
        gpu.store %sum#0, %sum#1, %sum#2, %sum#3, %out[%16] {width = 4} : f32, f32, f32, f32, !gpu.ptr<f32, global>
        gpu.yield
      }
      gpu.return
    }
  }
}
