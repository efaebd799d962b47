// c[i:i+4] = a[i:i+4] + b[i:i+4] for i = 4 * global thread id, i < n.
module {
  gpu.module @kernels {
    gpu.func @vadd(%a: !gpu.ptr<f32, global>, %b: !gpu.ptr<f32, global>, %c: !gpu.ptr<f32, global>, %n: i64) kernel attributes {max_threads = 256 : i64, min_blocks = 2 : i64} {
      %0 = gpu.thread_id x
      %1 = gpu.block_id x
      %2 = gpu.block_dim x
      %3 = arith.muli %1, %2 : i32
      %4 = arith.addi %3, %0 : i32
      %5 = arith.extsi %4 : i32 to i64
      %c4_i64 = arith.constant 4 : i64
      %6 = arith.muli %5, %c4_i64 : i64
      %7 = arith.cmpi slt, %6, %n : i64
      gpu.if %7 {
        %8:4 = gpu.load %a[%6] {readonly, width = 4} : !gpu.ptr<f32, global> -> f32, f32, f32, f32
        %9:4 = gpu.load %b[%6] {width = 4} : !gpu.ptr<f32, global> -> f32, f32, f32, f32
        %10 = arith.addf %8#0, %9#0 : f32
        %11 = arith.addf %8#1, %9#1 : f32
        %12 = arith.addf %8#2, %9#2 : f32
        %13 = arith.addf %8#3, %9#3 : f32
        gpu.store %10, %11, %12, %13, %c[%6] {width = 4} : f32, f32, f32, f32, !gpu.ptr<f32, global>
        gpu.yield
      }
      gpu.return
    }
  }
}
