// --mlir-print-ir-after-change dumps only after passes that changed the IR:
// cse merges the two additions, symbol-dce finds nothing to remove.
// RUN: recom-opt %s --cse --symbol-dce --mlir-print-ir-after-change -o %t 2>&1 | FileCheck %s
// RUN: recom-opt %s --cse --symbol-dce --mlir-print-ir-after-all --mlir-print-ir-after-change -o %t 2>&1 | FileCheck %s

// CHECK:     IR Dump After CSE (cse)
// CHECK:     arith.muli %[[X:.*]], %[[X]]
// CHECK-NOT: IR Dump After

func.func @f(%a: i64) -> i64 {
  %0 = arith.addi %a, %a : i64
  %1 = arith.addi %a, %a : i64
  %2 = arith.muli %0, %1 : i64
  func.return %2 : i64
}
