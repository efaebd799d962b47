// Locations print with --mlir-print-debuginfo and survive a round trip;
// without it they are not printed.
// RUN: recom-opt %s --mlir-print-debuginfo | FileCheck %s
// RUN: recom-opt %s --mlir-print-debuginfo | recom-opt --mlir-print-debuginfo | FileCheck %s
// RUN: recom-opt %s | FileCheck %s --check-prefix=NODEBUG

// NODEBUG-NOT: loc(

// CHECK-LABEL: func.func @f
func.func @f(%a: i64) -> i64 {
  // CHECK: arith.addi {{.*}} loc("input.pb":3:7)
  %0 = arith.addi %a, %a : i64 loc("input.pb":3:7)
  // CHECK: arith.muli {{.*}} loc("embedding/Sum")
  %1 = arith.muli %0, %a : i64 loc("embedding/Sum")
  // CHECK: arith.subi {{.*}} loc(fused["a", "b"])
  %2 = arith.subi %1, %a : i64 loc(fused["a", "b"])
  // CHECK: arith.addi {{.*}} loc("name"("f.py":1:2))
  %3 = arith.addi %2, %a : i64 loc("name"("f.py":1:2))
  // CHECK: {{(func\.)?}}return {{.*}} loc(unknown)
  func.return %3 : i64 loc(unknown)
}
