// gpu.for becomes header/body/latch/exit blocks with phis for the induction
// variable and the iter_args; gpu.if becomes then/else/end blocks with phis
// for its results.
// RUN: recom-translate --emit-llvm --allow-unregistered-dialect %s | FileCheck %s

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
"gpu.module"() ({
  "gpu.func"() ({
  ^bb0(%p: !gpu.ptr<f32, global>, %lb: i64, %ub: i64):
    %zero = "arith.constant"() {value = 0.0 : f32} : () -> f32
    %c2 = "arith.constant"() {value = 2 : i64} : () -> i64
    %c3 = "arith.constant"() {value = 3 : i64} : () -> i64
    %sum = "gpu.for"(%lb, %ub, %c2, %zero) ({
    ^bb0(%k: i64, %acc: f32):
      %r = "arith.remsi"(%k, %c3) : (i64, i64) -> i64
      %c0 = "arith.constant"() {value = 0 : i64} : () -> i64
      %odd = "arith.cmpi"(%r, %c0) {predicate = 1 : i64} : (i64, i64) -> i1
      %next = "gpu.if"(%odd) ({
        %x = "gpu.load"(%p, %k) : (!gpu.ptr<f32, global>, i64) -> f32
        %t = "arith.addf"(%acc, %x) : (f32, f32) -> f32
        "gpu.yield"(%t) : (f32) -> ()
      }, {
        "gpu.yield"(%acc) : (f32) -> ()
      }) : (i1) -> f32
      "gpu.yield"(%next) : (f32) -> ()
    }) : (i64, i64, i64, f32) -> f32
    %c0 = "arith.constant"() {value = 0 : i64} : () -> i64
    "gpu.store"(%sum, %p, %c0) : (f32, !gpu.ptr<f32, global>, i64) -> ()
    "gpu.return"() : () -> ()
  }) {function_type = (!gpu.ptr<f32, global>, i64, i64) -> (), kernel, sym_name = "loops"} : () -> ()
}) {sym_name = "kernels"} : () -> ()
