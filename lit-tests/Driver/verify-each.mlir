// --verify-each is on by default and can be turned off; either way valid IR
// comes out the same.
// RUN: recom-opt %s --cse --verify-each=false | FileCheck %s
// RUN: recom-opt %s --cse --verify-each | FileCheck %s
// RUN: recom-opt %s --cse | FileCheck %s

// CHECK-LABEL: func.func @f
// CHECK-COUNT-1: arith.addi
// CHECK-NOT:     arith.addi
func.func @f(%a: i64) -> (i64, i64) {
  %0 = arith.addi %a, %a : i64
  %1 = arith.addi %a, %a : i64
  func.return %0, %1 : i64, i64
}
