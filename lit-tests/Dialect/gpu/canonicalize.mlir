// Folders and canonicalization patterns of the gpu ops.
// RUN: recom-opt %s --split-input-file --canonicalize | FileCheck %s

// A constant condition inlines the branch it takes.
// CHECK-LABEL: gpu.func @if_true
// CHECK-NEXT:    %[[S:.*]] = arith.addf %{{.*}}, %{{.*}} : f32
// CHECK-NEXT:    gpu.store %[[S]]
// CHECK-NOT:     gpu.if
gpu.module @m {
  gpu.func @if_true(%p: !gpu.ptr<f32, global>, %i: i64, %a: f32, %b: f32) kernel {
    %t = arith.constant true
    %r = gpu.if %t -> (f32) {
      %s = arith.addf %a, %b : f32
      gpu.yield %s : f32
    } else {
      gpu.yield %b : f32
    }
    gpu.store %r, %p[%i] : f32, !gpu.ptr<f32, global>
    gpu.return
  }
}

// -----

// CHECK-LABEL: gpu.func @if_false_no_else
// CHECK-NEXT:    gpu.return
gpu.module @m {
  gpu.func @if_false_no_else(%p: !gpu.ptr<f32, global>, %i: i64, %a: f32) kernel {
    %f = arith.constant false
    gpu.if %f {
      gpu.store %a, %p[%i] : f32, !gpu.ptr<f32, global>
      gpu.yield
    }
    gpu.return
  }
}

// -----

// A loop without trips yields its initial values; offsets by 0 go.
// CHECK-LABEL: gpu.func @zero_trips
// CHECK:         gpu.store %arg1, %arg0[%{{.*}}] : f32, !gpu.ptr<f32, global>
// CHECK-NOT:     gpu.for
// CHECK-NOT:     gpu.ptr_offset
gpu.module @m {
  gpu.func @zero_trips(%p: !gpu.ptr<f32, global>, %a: f32) kernel {
    %c0 = arith.constant 0 : i64
    %c4 = arith.constant 4 : i64
    %r = gpu.for %i = %c4 to %c0 step %c4 iter_args(%x = %a) -> (f32) {
      %y = arith.addf %x, %x : f32
      gpu.yield %y : f32
    }
    %q = gpu.ptr_offset %p, %c0 : !gpu.ptr<f32, global>
    gpu.store %r, %q[%c0] : f32, !gpu.ptr<f32, global>
    gpu.return
  }
}

// -----

// Math of constants folds to arith.constant.
// CHECK-LABEL: gpu.func @math
// CHECK:         %[[C:.*]] = arith.constant 1.000000e+00 : f32
// CHECK:         gpu.store %[[C]]
// CHECK-NOT:     gpu.rsqrt
gpu.module @m {
  gpu.func @math(%p: !gpu.ptr<f32, global>) kernel {
    %c0 = arith.constant 0 : i64
    %x = arith.constant 1.0 : f32
    %r = gpu.rsqrt %x : f32
    gpu.store %r, %p[%c0] : f32, !gpu.ptr<f32, global>
    gpu.return
  }
}
