module {
  gpu.module @emb {
    gpu.func @dev(%arg0: f32, %arg1: f32) -> f32 {
      %0 = gpu.max %arg0, %arg1 : f32
      gpu.return %0 : f32
    }
    gpu.func @layer(%arg0: !gpu.ptr<i64, global>, %arg1: !gpu.ptr<f32, global>, %arg2: i64) kernel attributes {max_threads = 256 : i64, min_blocks = 1 : i64} {
      %0 = gpu.thread_id x
      %1 = gpu.block_id y
      %2 = gpu.block_dim z
      %3 = gpu.grid_dim x
      %4 = gpu.lane_id
      gpu.barrier
      %c16_i32 = arith.constant 16 : i32
      %c32_i32 = arith.constant 32 : i32
      %c0_i64 = arith.constant 0 : i64
      %c1_i64 = arith.constant 1 : i64
      %cst = arith.constant 0.000000e+00 : f32
      %5 = gpu.load %arg1[%c0_i64] : !gpu.ptr<f32, global> -> f32
      %6 = gpu.shuffle xor %5, %c16_i32, %c32_i32 : f32
      %7:4 = gpu.load %arg1[%c0_i64] {readonly, width = 4} : !gpu.ptr<f32, global> -> f32, f32, f32, f32
      gpu.store %7#0, %arg1[%c0_i64] : f32, !gpu.ptr<f32, global>
      gpu.store %7#0, %7#1, %7#2, %7#3, %arg1[%c0_i64] {nontemporal, width = 4} : f32, f32, f32, f32, !gpu.ptr<f32, global>
      %8 = gpu.ptr_offset %arg1, %c1_i64 : !gpu.ptr<f32, global>
      %9 = gpu.ptr_cast %arg0 : !gpu.ptr<i64, global> to !gpu.ptr<i8, global>
      %10 = gpu.shared_alloc {count = 1024 : i64} : !gpu.ptr<f32, shared>
      %11 = gpu.atomic_add %8[%c0_i64], %5 : !gpu.ptr<f32, global>, f32
      %12:2 = gpu.for %arg3 = %c0_i64 to %arg2 step %c1_i64 iter_args(%arg4 = %cst, %arg5 = %5) -> (f32, f32) {
        %21 = arith.addf %arg4, %arg5 : f32
        gpu.yield %21, %arg4 : f32, f32
      }
      gpu.for %arg3 = %c0_i64 to %arg2 step %c1_i64 {
        gpu.yield
      }
      %c0_i32 = arith.constant 0 : i32
      gpu.for %arg3 = %c0_i32 to %c16_i32 step %c32_i32 : i32 {
        gpu.yield
      }
      %13 = arith.cmpi slt, %c0_i64, %arg2 : i64
      %14 = gpu.if %13 -> (f32) {
        gpu.yield %5 : f32
      } else {
        gpu.yield %cst : f32
      }
      gpu.if %13 {
        gpu.yield
      }
      %15 = gpu.sqrt %5 : f32
      %16 = gpu.rsqrt %5 : f32
      %17 = gpu.fabs %5 : f32
      %18 = gpu.min %5, %15 : f32
      %19 = gpu.fma %5, %15, %16 : f32
      %20 = gpu.call @dev(%5, %19) : (f32, f32) -> f32
      gpu.return
    }
  }
  func.func @host(%arg0: !gpu.buffer, %arg1: !gpu.buffer, %arg2: i64) {
    %c264_i64 = arith.constant 264 : i64
    %c256_i64 = arith.constant 256 : i64
    %c8_i64 = arith.constant 8 : i64
    %0 = gpu.buffer_view %arg0[%c8_i64] : !gpu.buffer -> !gpu.buffer
    %1 = gpu.alloc %c8_i64 : !gpu.buffer
    gpu.launch @emb::@layer blocks(%c264_i64) threads(%c256_i64) args(%0, %arg1, %arg2) : !gpu.buffer, !gpu.buffer, i64
    func.return
  }
}
