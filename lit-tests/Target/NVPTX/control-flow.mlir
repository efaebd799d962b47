// gpu.for becomes header/body/latch/exit blocks with phis for the induction
// variable and the iter_args; gpu.if becomes then/else/end blocks with phis
// for its results.
// RUN: recom-translate --emit-llvm %s | FileCheck %s

// CHECK-LABEL: define void @loops(float addrspace(1)* %arg0, i64 %arg1, i64 %arg2)
// CHECK: entry:
// CHECK: br label %for0.header
// CHECK: for0.header:
// CHECK-NEXT: %[[IV:[0-9]+]] = phi i64 [ %arg1, %entry ], [ %[[NEXT:[0-9]+]], %for0.latch ]
// CHECK-NEXT: %[[ACC:[0-9]+]] = phi float [ 0.0, %entry ], [ %[[SEL:[0-9]+]], %for0.latch ]
// CHECK-NEXT: %[[CMP:[0-9]+]] = icmp slt i64 %[[IV]], %arg2
// CHECK-NEXT: br i1 %[[CMP]], label %for0.body, label %for0.exit
// CHECK: for0.body:
// CHECK: br i1 %{{[0-9]+}}, label %if0.then, label %if0.else
// CHECK: if0.then:
// CHECK: %[[T:[0-9]+]] = fadd float %[[ACC]], %{{[0-9]+}}
// CHECK-NEXT: br label %if0.end
// CHECK: if0.else:
// CHECK-NEXT: br label %if0.end
// CHECK: if0.end:
// CHECK-NEXT: %[[SEL]] = phi float [ %[[T]], %if0.then ], [ %[[ACC]], %if0.else ]
// CHECK-NEXT: br label %for0.latch
// CHECK: for0.latch:
// CHECK-NEXT: %[[NEXT]] = add i64 %[[IV]], 2
// CHECK-NEXT: br label %for0.header
// CHECK: for0.exit:
// CHECK-NEXT: store float %[[ACC]], float addrspace(1)* %arg0, align 4
// CHECK-NEXT: ret void
module {
  gpu.module @kernels {
    gpu.func @loops(%p: !gpu.ptr<f32, global>, %lb: i64, %ub: i64) kernel {
      %cst = arith.constant 0.000000e+00 : f32
      %c2_i64 = arith.constant 2 : i64
      %c3_i64 = arith.constant 3 : i64
      %0 = gpu.for %k = %lb to %ub step %c2_i64 iter_args(%acc = %cst) -> (f32) {
        %1 = arith.remsi %k, %c3_i64 : i64
        %c0_i64_0 = arith.constant 0 : i64
        %2 = arith.cmpi ne, %1, %c0_i64_0 : i64
        %3 = gpu.if %2 -> (f32) {
          %4 = gpu.load %p[%k] : !gpu.ptr<f32, global> -> f32
          %5 = arith.addf %acc, %4 : f32
          gpu.yield %5 : f32
        } else {
          gpu.yield %acc : f32
        }
        gpu.yield %3 : f32
      }
      %c0_i64 = arith.constant 0 : i64
      gpu.store %0, %p[%c0_i64] : f32, !gpu.ptr<f32, global>
      gpu.return
    }
  }
}
