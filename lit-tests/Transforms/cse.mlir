// RUN: recom-opt %s --split-input-file --allow-unregistered-dialect --cse | FileCheck %s

// Two equal pure ops become one.
// CHECK-LABEL: func.func @simple
// CHECK-NEXT:    %[[S:.*]] = arith.addi %arg0, %arg1 : i64
// CHECK-NEXT:    %[[P:.*]] = arith.muli %[[S]], %[[S]] : i64
// CHECK-NEXT:    {{(func\.)?}}return %[[P]] : i64
func.func @simple(%a: i64, %b: i64) -> i64 {
  %0 = arith.addi %a, %b : i64
  %1 = arith.addi %a, %b : i64
  %2 = arith.muli %0, %1 : i64
  func.return %2 : i64
}

// -----

// Equal constants merge; different ones stay.
// CHECK-LABEL: func.func @constants
// CHECK-DAG:     %[[C1:.*]] = arith.constant 1 : i64
// CHECK-DAG:     %[[C2:.*]] = arith.constant 2 : i64
// CHECK-NOT:     arith.constant
// CHECK:         {{(func\.)?}}return %[[C1]], %[[C1]], %[[C2]] : i64, i64, i64
func.func @constants() -> (i64, i64, i64) {
  %0 = arith.constant 1 : i64
  %1 = arith.constant 1 : i64
  %2 = arith.constant 2 : i64
  func.return %0, %1, %2 : i64, i64, i64
}

// -----

// Ops that differ in an operand, an attribute or a result type stay apart.
// CHECK-LABEL: func.func @different
// CHECK:         arith.addi %arg0, %arg1
// CHECK:         arith.addi %arg1, %arg0
// CHECK:         arith.constant 1 : i32
// CHECK:         arith.constant 1 : i64
func.func @different(%a: i64, %b: i64) -> (i64, i64, i32, i64) {
  %0 = arith.addi %a, %b : i64
  %1 = arith.addi %b, %a : i64
  %2 = arith.constant 1 : i32
  %3 = arith.constant 1 : i64
  func.return %0, %1, %2, %3 : i64, i64, i32, i64
}

// -----

// Unused pure ops are erased; ops with side effects (unregistered) stay,
// and are never merged.
// CHECK-LABEL: func.func @dead_and_effects
// CHECK-NOT:     arith.muli
// CHECK:         "test.effect"() : () -> i64
// CHECK-NEXT:    "test.effect"() : () -> i64
// CHECK-NEXT:    {{(func\.)?}}return
func.func @dead_and_effects(%a: i64) -> (i64, i64) {
  %dead = arith.muli %a, %a : i64
  %0 = "test.effect"() : () -> i64
  %1 = "test.effect"() : () -> i64
  func.return %0, %1 : i64, i64
}
