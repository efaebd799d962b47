// RUN: recom-opt %s --split-input-file --canonicalize | FileCheck %s

// Constant operands fold.
// CHECK-LABEL: func.func @fold_constants
// CHECK-NEXT:    %[[C:.*]] = arith.constant 20 : i64
// CHECK-NEXT:    {{(func\.)?}}return %[[C]] : i64
// CHECK-NOT:     arith.addi
// CHECK-NOT:     arith.muli
func.func @fold_constants() -> i64 {
  %c2 = arith.constant 2 : i64
  %c3 = arith.constant 3 : i64
  %c4 = arith.constant 4 : i64
  %0 = arith.addi %c2, %c3 : i64
  %1 = arith.muli %0, %c4 : i64
  func.return %1 : i64
}

// -----

// x + 0 and x * 1 are x.
// CHECK-LABEL: func.func @identities
// CHECK-NEXT:    {{(func\.)?}}return %arg0, %arg0 : i64, i64
func.func @identities(%x: i64) -> (i64, i64) {
  %c0 = arith.constant 0 : i64
  %c1 = arith.constant 1 : i64
  %0 = arith.addi %x, %c0 : i64
  %1 = arith.muli %x, %c1 : i64
  func.return %0, %1 : i64, i64
}

// -----

// Unused pure ops disappear, constants end up at the top of the function.
// CHECK-LABEL: func.func @dead
// CHECK-NEXT:    {{(func\.)?}}return %arg0 : i64
func.func @dead(%x: i64) -> i64 {
  %0 = arith.muli %x, %x : i64
  %c5 = arith.constant 5 : i64
  func.return %x : i64
}
