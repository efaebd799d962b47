// The verifiers of the gpu ops reject invalid IR with a diagnostic on the op.
// RUN: recom-opt %s --split-input-file --verify-diagnostics

gpu.module @m {
  gpu.func @k(%p: !gpu.ptr<f32, global>, %i: i64) kernel {
    // expected-error@+1 {{'gpu.load' op result #0 has type 'i32', but the pointer's element type is 'f32'}}
    %x = gpu.load %p[%i] : !gpu.ptr<f32, global> -> i32
    gpu.return
  }
}

// -----

gpu.module @m {
  gpu.func @k(%p: !gpu.ptr<f32, global>, %i: i64) kernel {
    // expected-error@+1 {{'gpu.load' op attribute 'width' must be 1, 2 or 4, but is 3}}
    %x:3 = gpu.load %p[%i] {width = 3} : !gpu.ptr<f32, global> -> f32, f32, f32
    gpu.return
  }
}

// -----

gpu.module @m {
  gpu.func @k(%p: !gpu.ptr<f32, global>, %i: i64) kernel {
    // expected-error@+1 {{'gpu.load' op loads 4 elements (width 4), but has 2 results}}
    %x:2 = gpu.load %p[%i] {width = 4} : !gpu.ptr<f32, global> -> f32, f32
    gpu.return
  }
}

// -----

gpu.module @m {
  gpu.func @k(%p: !gpu.ptr<f64, global>, %i: i64) kernel {
    // expected-error@+1 {{'gpu.load' op accesses 32 bytes at once, but one access moves at most 16 (width 4 of f64)}}
    %x:4 = gpu.load %p[%i] {width = 4} : !gpu.ptr<f64, global> -> f64, f64, f64, f64
    gpu.return
  }
}

// -----

gpu.module @m {
  gpu.func @k(%p: !gpu.ptr<f32, global>, %i: i64, %v: f32) kernel {
    // expected-error@+1 {{'gpu.store' op stores 2 elements (width 2), but has 1 values}}
    gpu.store %v, %p[%i] {width = 2} : f32, !gpu.ptr<f32, global>
    gpu.return
  }
}

// -----

gpu.module @m {
  gpu.func @k(%p: !gpu.ptr<f32, global>, %i: i64, %v: i32) kernel {
    // expected-error@+1 {{'gpu.store' op value #0 has type 'i32', but the pointer's element type is 'f32'}}
    gpu.store %v, %p[%i] : i32, !gpu.ptr<f32, global>
    gpu.return
  }
}

// -----

gpu.module @m {
  gpu.func @k() kernel {
    // expected-error@+1 {{'gpu.shared_alloc' op 'count' must be positive, but is 0}}
    %s = gpu.shared_alloc {count = 0 : i64} : !gpu.ptr<f32, shared>
    gpu.return
  }
}

// -----

gpu.module @m {
  gpu.func @k() kernel {
    // expected-error@+1 {{'gpu.shared_alloc' op allocates 100000 elements of f32, more than the 49152 bytes of shared memory a block may have}}
    %s = gpu.shared_alloc {count = 100000 : i64} : !gpu.ptr<f32, shared>
    gpu.return
  }
}

// -----

gpu.module @m {
  // expected-error@+1 {{'gpu.func' op uses 64000 bytes of static shared memory, more than the 49152 a block may have}}
  gpu.func @k() kernel {
    %s = gpu.shared_alloc {count = 8000 : i64} : !gpu.ptr<f32, shared>
    %t = gpu.shared_alloc {count = 8000 : i64} : !gpu.ptr<f32, shared>
    gpu.return
  }
}

// -----

func.func @f() {
  // expected-error@+1 {{'gpu.barrier' op must be inside a gpu.func}}
  gpu.barrier
  func.return
}

// -----

func.func @f() {
  // expected-error@+1 {{'gpu.warp_sync' op must be inside a gpu.func}}
  gpu.warp_sync
  func.return
}

// -----

func.func @f() {
  // expected-error@+1 {{'gpu.thread_id' op must be inside a gpu.func}}
  %t = gpu.thread_id x
  func.return
}

// -----

func.func @f(%v: f32, %o: i32) {
  // expected-error@+1 {{'gpu.shuffle' op must be inside a gpu.func}}
  %r = gpu.shuffle xor %v, %o, %o : f32
  func.return
}

// -----

gpu.module @m {
  gpu.func @k(%v: i16, %o: i32) kernel {
    // expected-error@+1 {{'gpu.shuffle' op shuffles 32- or 64-bit values, but got 'i16'}}
    %r = gpu.shuffle xor %v, %o, %o : i16
    gpu.return
  }
}

// -----

gpu.module @m {
  gpu.func @k(%n: i64, %x: f32) kernel {
    %r = gpu.for %i = %n to %n step %n iter_args(%a = %x) -> (f32) {
      %c = arith.constant 1 : i32
      // expected-error@+1 {{'gpu.yield' op type of yield operand 0 ('i32') doesn't match the parent's result type ('f32')}}
      gpu.yield %c : i32
    }
    gpu.return
  }
}

// -----

gpu.module @m {
  gpu.func @k(%n: i64, %x: f32) kernel {
    // expected-error@+1 {{'gpu.for' op region must have 2 arguments (the induction variable and the iter_args), but has 1}}
    %r = "gpu.for"(%n, %n, %n, %x) ({
    ^bb0(%i: i64):
      gpu.yield %x : f32
    }) : (i64, i64, i64, f32) -> f32
    gpu.return
  }
}

// -----

gpu.module @m {
  gpu.func @k(%n: i64, %m: i32) kernel {
    // expected-error@+1 {{'gpu.for' op lower bound, upper bound and step must have the same type}}
    "gpu.for"(%n, %m, %n) ({
    ^bb0(%i: i64):
      gpu.yield
    }) : (i64, i32, i64) -> ()
    gpu.return
  }
}

// -----

gpu.module @m {
  gpu.func @k(%c: i1, %x: f32) kernel {
    // expected-error@+1 {{'gpu.if' op must have an else block if defining values}}
    %r = gpu.if %c -> (f32) {
      gpu.yield %x : f32
    }
    gpu.return
  }
}

// -----

gpu.module @m {
  gpu.func @k(%c: i1, %x: f32) kernel {
    %r = gpu.if %c -> (f32) {
      gpu.yield %x : f32
    } else {
      // expected-error@+1 {{'gpu.yield' op yields 0 values, but the parent gpu.if has 1 results}}
      gpu.yield
    }
    gpu.return
  }
}

// -----

gpu.module @m {
  gpu.func @k(%p: !gpu.ptr<f32, global>) kernel {
    // expected-error@+1 {{'gpu.ptr_cast' op cannot change the address space ('!gpu.ptr<f32, global>' to '!gpu.ptr<f32, shared>')}}
    %q = gpu.ptr_cast %p : !gpu.ptr<f32, global> to !gpu.ptr<f32, shared>
    gpu.return
  }
}

// -----

gpu.module @m {
  // expected-error@+1 {{'gpu.func' op a kernel cannot return values, but the signature has 1 results}}
  gpu.func @k(%x: f32) -> f32 kernel {
    gpu.return %x : f32
  }
}

// -----

gpu.module @m {
  // expected-error@+1 {{'gpu.func' op 'max_threads' must be in [1, 1024], but is 2048}}
  gpu.func @k() kernel attributes {max_threads = 2048 : i64} {
    gpu.return
  }
}

// -----

gpu.module @m {
  gpu.func @k() kernel {
    gpu.return
  }
  gpu.func @d() {
    // expected-error@+1 {{'gpu.call' op '@k' is a kernel, which can only be launched}}
    gpu.call @k() : () -> ()
    gpu.return
  }
}

// -----

gpu.module @m {
  gpu.func @k(%p: !gpu.ptr<f32, global>, %n: i64) kernel {
    gpu.return
  }
}
func.func @h(%b: !gpu.buffer, %n: i32) {
  %c = arith.constant 1 : i64
  // expected-error@+1 {{'gpu.launch' op argument #1 has type 'i32', but the kernel takes 'i64'}}
  gpu.launch @m::@k blocks(%c) threads(%c) args(%b, %n) : !gpu.buffer, i32
  func.return
}

// -----

gpu.module @m {
  gpu.func @k(%n: i64) kernel {
    gpu.return
  }
}
func.func @h() {
  %c = arith.constant 1 : i64
  // expected-error@+1 {{'gpu.launch' op passes 0 arguments, but the kernel takes 1}}
  gpu.launch @m::@k blocks(%c) threads(%c)
  func.return
}

// -----

func.func @h() {
  %c = arith.constant 1 : i64
  // expected-error@+1 {{'gpu.launch' op '@m::@k' does not reference a gpu.func}}
  gpu.launch @m::@k blocks(%c) threads(%c)
  func.return
}

// -----

gpu.module @m {
  gpu.func @k(%n: i64) kernel {
    // expected-error@+1 {{'gpu.alloc' op runs on the host and cannot be inside a gpu.func}}
    %b = gpu.alloc %n : !gpu.buffer
    gpu.return
  }
}

// -----

// expected-error@+1 {{!gpu.ptr address space must be global or shared, got 'local'}}
func.func @t(%p: !gpu.ptr<f32, local>) {
  func.return
}
