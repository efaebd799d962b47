// Pass flags run in command-line order, repeated flags included; the IR
// dumps show the order.
// RUN: recom-opt %s --cse --canonicalize --cse --mlir-print-ir-after-all -o %t 2>&1 | FileCheck %s
// RUN: recom-opt %s --symbol-dce --cse --mlir-print-ir-before=cse --mlir-print-ir-after=symbol-dce -o %t 2>&1 | FileCheck %s --check-prefix=SELECT
// RUN: recom-opt %s --pass-pipeline='builtin.module(cse,canonicalize,cse)' --mlir-print-ir-after-all -o %t 2>&1 | FileCheck %s

// CHECK:      // -----// IR Dump After CSE (cse) //----- //
// CHECK-NEXT: module {
// CHECK:      // -----// IR Dump After Canonicalizer (canonicalize) //----- //
// CHECK:      // -----// IR Dump After CSE (cse) //----- //
// CHECK-NOT:  IR Dump

// SELECT:     // -----// IR Dump After SymbolDCE (symbol-dce) //----- //
// SELECT:     // -----// IR Dump Before CSE (cse) //----- //
// SELECT-NOT: IR Dump

func.func @f(%a: i64) -> i64 {
  %0 = arith.addi %a, %a : i64
  %1 = arith.addi %a, %a : i64
  %2 = arith.muli %0, %1 : i64
  func.return %2 : i64
}
