// out[blockIdx.x] = sum of the block's 256 elements of in: a tree
// reduction in shared memory with a barrier after each step.
module {
  gpu.module @kernels {
    gpu.func @block_sum(%in: !gpu.ptr<f32, global>, %out: !gpu.ptr<f32, global>) kernel attributes {max_threads = 256 : i64} {
      %0 = gpu.shared_alloc {count = 256 : i64} : !gpu.ptr<f32, shared>
      %1 = gpu.thread_id x
      %2 = gpu.block_id x
      %3 = arith.extsi %1 : i32 to i64
      %4 = arith.extsi %2 : i32 to i64
      %c256_i64 = arith.constant 256 : i64
      %5 = arith.muli %4, %c256_i64 : i64
      %6 = arith.addi %5, %3 : i64
      %7 = gpu.load %in[%6] {readonly} : !gpu.ptr<f32, global> -> f32
      gpu.store %7, %0[%3] : f32, !gpu.ptr<f32, shared>
      gpu.barrier
      %c0_i32 = arith.constant 0 : i32
      %c1_i32 = arith.constant 1 : i32
      %c8_i32 = arith.constant 8 : i32
      %c128_i32 = arith.constant 128 : i32
      gpu.for %s = %c0_i32 to %c8_i32 step %c1_i32 : i32 {
        %9 = arith.shrui %c128_i32, %s : i32
        %10 = arith.cmpi ult, %1, %9 : i32
        gpu.if %10 {
          %11 = arith.extsi %9 : i32 to i64
          %12 = arith.addi %3, %11 : i64
          %13 = gpu.load %0[%3] : !gpu.ptr<f32, shared> -> f32
          %14 = gpu.load %0[%12] : !gpu.ptr<f32, shared> -> f32
          %15 = arith.addf %13, %14 : f32
          gpu.store %15, %0[%3] : f32, !gpu.ptr<f32, shared>
          gpu.yield
        }
        gpu.barrier
        gpu.yield
      }
      %8 = arith.cmpi eq, %1, %c0_i32 : i32
      gpu.if %8 {
        %c0_i64 = arith.constant 0 : i64
        %9 = gpu.load %0[%c0_i64] : !gpu.ptr<f32, shared> -> f32
        gpu.store %9, %out[%4] : f32, !gpu.ptr<f32, global>
        gpu.yield
      }
      gpu.return
    }
  }
}
