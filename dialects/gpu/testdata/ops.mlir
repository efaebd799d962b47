gpu.module @emb {
  gpu.func @dev(%x: f32, %y: f32) -> f32 {
    %m = gpu.max %x, %y : f32
    gpu.return %m : f32
  }
  gpu.func @layer(%in: !gpu.ptr<i64, global>, %out: !gpu.ptr<f32,global>, %n: i64) kernel attributes {max_threads = 256 : i64, min_blocks = 1 : i64} {
    %t = gpu.thread_id x
    %b = gpu.block_id y
    %d = gpu.block_dim z
    %g = gpu.grid_dim x
    %l = gpu.lane_id
    gpu.barrier
    %o = arith.constant 16 : i32
    %w = arith.constant 32 : i32
    %c0 = arith.constant 0 : i64
    %c1 = arith.constant 1 : i64
    %f0 = arith.constant 0.0 : f32
    %v = gpu.load %out[%c0] : !gpu.ptr<f32, global> -> f32
    %r = gpu.shuffle xor %v, %o, %w : f32
    %a, %bb, %cc, %dd = gpu.load %out[%c0] {width = 4, readonly} : !gpu.ptr<f32, global> -> f32, f32, f32, f32
    gpu.store %a, %out[%c0] : f32, !gpu.ptr<f32, global>
    gpu.store %a, %bb, %cc, %dd, %out[%c0] {width = 4, nontemporal} : f32, f32, f32, f32, !gpu.ptr<f32, global>
    %p2 = gpu.ptr_offset %out, %c1 : !gpu.ptr<f32, global>
    %q = gpu.ptr_cast %in : !gpu.ptr<i64, global> to !gpu.ptr<i8, global>
    %s = gpu.shared_alloc {count = 1024 : i64} : !gpu.ptr<f32, shared>
    %old = gpu.atomic_add %p2[%c0], %v : !gpu.ptr<f32, global>, f32
    %res:2 = gpu.for %i = %c0 to %n step %c1 iter_args(%x = %f0, %y = %v) -> (f32, f32) {
      %z = arith.addf %x, %y : f32
      gpu.yield %z, %x : f32, f32
    }
    gpu.for %i = %c0 to %n step %c1 {
      gpu.yield
    }
    %z0 = arith.constant 0 : i32
    gpu.for %j = %z0 to %o step %w : i32 {
      gpu.yield
    }
    %cond = arith.cmpi slt, %c0, %n : i64
    %sel = gpu.if %cond -> (f32) {
      gpu.yield %v : f32
    } else {
      gpu.yield %f0 : f32
    }
    gpu.if %cond {
      gpu.yield
    }
    %sq = gpu.sqrt %v : f32
    %rs = gpu.rsqrt %v : f32
    %fa = gpu.fabs %v : f32
    %mn = gpu.min %v, %sq : f32
    %fm = gpu.fma %v, %sq, %rs : f32
    %cl = gpu.call @dev(%v, %fm) : (f32, f32) -> f32
    gpu.return
  }
}
func.func @host(%inputs: !gpu.buffer, %out: !gpu.buffer, %batch: i64) {
  %grid = arith.constant 264 : i64
  %block = arith.constant 256 : i64
  %c8 = arith.constant 8 : i64
  %v = gpu.buffer_view %inputs[%c8] : !gpu.buffer -> !gpu.buffer
  %a = gpu.alloc %c8 : !gpu.buffer
  gpu.launch @emb::@layer blocks(%grid) threads(%block) args(%v, %out, %batch) : !gpu.buffer, !gpu.buffer, i64
  func.return
}
