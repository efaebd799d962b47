// Custom forms of func and arith: printing, printing what was printed
// (same text), and parsing the generic form back.
// RUN: recom-opt %s | FileCheck %s
// RUN: recom-opt %s | recom-opt | FileCheck %s
// RUN: recom-opt %s --mlir-print-op-generic | recom-opt | FileCheck %s
// RUN: recom-opt %s -o %t.1.mlir && recom-opt %t.1.mlir -o %t.2.mlir && diff %t.1.mlir %t.2.mlir

// CHECK:       module {
// CHECK-LABEL: func.func @add(%arg0: i64, %arg1: i64) -> i64 {
// CHECK-NEXT:    %[[S:.*]] = arith.addi %arg0, %arg1 : i64
// CHECK-NEXT:    %[[P:.*]] = arith.muli %[[S]], %arg1 : i64
// CHECK-NEXT:    {{(func\.)?}}return %[[P]] : i64
// CHECK-NEXT:  }
func.func @add(%a: i64, %b: i64) -> i64 {
  %s = arith.addi %a, %b : i64
  %p = arith.muli %s, %b : i64
  func.return %p : i64
}

// CHECK-LABEL: func.func private @decl(i32) -> f32
func.func private @decl(i32) -> f32

// CHECK-LABEL: func.func @consts() -> (i64, f32, i1)
// CHECK-DAG:     %[[I:.*]] = arith.constant 42 : i64
// CHECK-DAG:     %[[F:.*]] = arith.constant 1.500000e+00 : f32
// CHECK-DAG:     %[[B:.*]] = arith.constant true
// CHECK:         {{(func\.)?}}return %[[I]], %[[F]], %[[B]] : i64, f32, i1
func.func @consts() -> (i64, f32, i1) {
  %i = arith.constant 42 : i64
  %f = arith.constant 1.5 : f32
  %b = arith.constant true
  func.return %i, %f, %b : i64, f32, i1
}

// CHECK-LABEL: func.func @calls(%arg0: i64) -> i64 {
// CHECK-NEXT:    %[[R:.*]] = {{(func\.)?}}call @add(%arg0, %arg0) : (i64, i64) -> i64
// CHECK-NEXT:    {{(func\.)?}}return %[[R]] : i64
func.func @calls(%x: i64) -> i64 {
  %r = func.call @add(%x, %x) : (i64, i64) -> i64
  func.return %r : i64
}

// CHECK-LABEL: func.func @tensors(%arg0: tensor<?x16xf32>, %arg1: tensor<*xi64>) -> tensor<?x16xf32>
func.func @tensors(%t: tensor<?x16xf32>, %u: tensor<*xi64>) -> tensor<?x16xf32> {
  func.return %t : tensor<?x16xf32>
}
