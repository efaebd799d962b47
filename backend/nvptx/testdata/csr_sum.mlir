// Segmented (CSR) sum of 4-wide embedding rows: thread r pools bag r,
// out[r, 0:4] = sum over k in [offsets[r], offsets[r+1]) of table[ids[k], 0:4],
// with the four partial sums carried by a gpu.for.
module {
  gpu.module @kernels {
    gpu.func @csr_sum(%offsets: !gpu.ptr<i64, global>, %ids: !gpu.ptr<i64, global>, %table: !gpu.ptr<f32, global>, %out: !gpu.ptr<f32, global>, %nbags: i64) kernel attributes {max_threads = 128 : i64} {
      %0 = gpu.thread_id x
      %1 = gpu.block_id x
      %2 = gpu.block_dim x
      %3 = arith.muli %1, %2 : i32
      %4 = arith.addi %3, %0 : i32
      %5 = arith.extsi %4 : i32 to i64
      %6 = arith.cmpi slt, %5, %nbags : i64
      gpu.if %6 {
        %c1_i64 = arith.constant 1 : i64
        %c4_i64 = arith.constant 4 : i64
        %cst = arith.constant 0.000000e+00 : f32
        %7 = arith.addi %5, %c1_i64 : i64
        %8 = gpu.load %offsets[%5] {readonly} : !gpu.ptr<i64, global> -> i64
        %9 = gpu.load %offsets[%7] {readonly} : !gpu.ptr<i64, global> -> i64
        %10:4 = gpu.for %k = %8 to %9 step %c1_i64 iter_args(%a0 = %cst, %a1 = %cst, %a2 = %cst, %a3 = %cst) -> (f32, f32, f32, f32) {
          %12 = gpu.load %ids[%k] {readonly} : !gpu.ptr<i64, global> -> i64
          %13 = arith.muli %12, %c4_i64 : i64
          %14:4 = gpu.load %table[%13] {readonly, width = 4} : !gpu.ptr<f32, global> -> f32, f32, f32, f32
          %15 = arith.addf %a0, %14#0 : f32
          %16 = arith.addf %a1, %14#1 : f32
          %17 = arith.addf %a2, %14#2 : f32
          %18 = arith.addf %a3, %14#3 : f32
          gpu.yield %15, %16, %17, %18 : f32, f32, f32, f32
        }
        %11 = arith.muli %5, %c4_i64 : i64
        gpu.store %10#0, %10#1, %10#2, %10#3, %out[%11] {width = 4} : f32, f32, f32, f32, !gpu.ptr<f32, global>
        gpu.yield
      }
      gpu.return
    }
  }
}
