// Folders and canonicalization patterns of the shape ops.
// RUN: recom-opt %s --split-input-file --canonicalize | FileCheck %s

// A chain of applies, as TensorFlow's shape arithmetic becomes, composes
// into one canonical expression of the symbols.
// CHECK-LABEL: func.func @compose
// CHECK-SAME:    (%[[X:.*]]: tensor<?x1xi64>, %[[V:.*]]: tensor<?xi64>)
// CHECK-DAG:     %[[B:batch]] = shape.dim %[[X]], 0 {symbol = "batch"}
// CHECK-DAG:     %[[N:nnz.age]] = shape.count %[[V]] {symbol = "nnz.age"}
// CHECK:         %[[E:.*]] = shape.apply #shape.expr<(batch, nnz.age) -> batch * 8 + nnz.age>(%[[B]], %[[N]]) : index
// CHECK-NEXT:    %[[S:.*]] = shape.from_extents %[[E]], %[[B]] : tensor<2xi64>
// CHECK-NEXT:    return %[[S]], %[[B]]
// CHECK-NOT:     shape.apply
func.func @compose(%x: tensor<?x1xi64>, %v: tensor<?xi64>) -> (tensor<2xi64>, index) {
  %b = shape.dim %x, 0 {symbol = "batch"} : tensor<?x1xi64> -> index
  %n = shape.count %v {symbol = "nnz.age"} : tensor<?xi64> -> index
  %0 = shape.apply #shape.expr<(b) -> b * 4>(%b) : index
  %1 = shape.apply #shape.expr<(p, q) -> p * 2 + q>(%0, %n) : index
  %2 = shape.apply #shape.expr<(r, s) -> (r - s) floordiv 8>(%1, %n) : index
  %s = shape.from_extents %1, %2 : tensor<2xi64>
  func.return %s, %2 : tensor<2xi64>, index
}

// -----

// Constant operands are substituted; a constant expression folds.
// CHECK-LABEL: func.func @constants
// CHECK-SAME:    (%[[A:.*]]: index)
// CHECK-DAG:     %[[C26:.*]] = arith.constant 26 : index
// CHECK-DAG:     %[[E:.*]] = shape.apply #shape.expr<(a) -> a * 3 + 2>(%[[A]]) : index
// CHECK:         return %[[C26]], %[[E]]
// CHECK-NOT:     arith.constant 3 : index
func.func @constants(%a: index) -> (index, index) {
  %c3 = arith.constant 3 : index
  %0 = shape.apply #shape.expr<(a) -> a * 8 + 2>(%c3) : index
  %1 = shape.apply #shape.expr<(a, b) -> a * b + 2>(%a, %c3) : index
  func.return %0, %1 : index, index
}

// -----

// An apply that is one of its operands folds to it; repeated operands
// merge and unused ones go.
// CHECK-LABEL: func.func @operands
// CHECK-SAME:    (%[[A:.*]]: index, %[[B:.*]]: index)
// CHECK-NEXT:    %[[E:.*]] = shape.apply #shape.expr<(x) -> x * 4>(%[[A]]) : index
// CHECK-NEXT:    return %[[A]], %[[E]]
func.func @operands(%a: index, %b: index) -> (index, index) {
  %0 = shape.apply #shape.expr<(a, b) -> (a * b + a) floordiv b - a floordiv b>(%a, %b) : index
  %1 = shape.apply #shape.expr<(x, y, z) -> x + y * 3>(%a, %a, %b) : index
  func.return %0, %1 : index, index
}

// -----

// Static dims and counts fold.
// CHECK-LABEL: func.func @static
// CHECK-DAG:     %[[C4:.*]] = arith.constant 4 : index
// CHECK-DAG:     %[[C32:.*]] = arith.constant 32 : index
// CHECK-DAG:     %[[D:.*]] = shape.dim %{{.*}}, 1 : tensor<4x?xf32> -> index
// CHECK:         return %[[C4]], %[[D]], %[[C32]]
func.func @static(%x: tensor<4x?xf32>, %y: tensor<4x8xf32>) -> (index, index, index) {
  %0 = shape.dim %x, 0 : tensor<4x?xf32> -> index
  %1 = shape.dim %x, 1 : tensor<4x?xf32> -> index
  %2 = shape.count %y : tensor<4x8xf32> -> index
  func.return %0, %1, %2 : index, index, index
}

// -----

// from_extents of constants is a constant; index casts fold on constants
// and round trips.
// CHECK-LABEL: func.func @tensors
// CHECK-SAME:    (%[[A:.*]]: index, %[[T:.*]]: tensor<i64>)
// CHECK-DAG:     %[[S:.*]] = arith.constant dense<[32, 8]> : tensor<2xi32>
// CHECK-DAG:     %[[C:.*]] = arith.constant dense<5> : tensor<i64>
// CHECK:         return %[[S]], %[[A]], %[[T]], %[[C]]
// CHECK-NOT:     shape.
func.func @tensors(%a: index, %t: tensor<i64>) -> (tensor<2xi32>, index, tensor<i64>, tensor<i64>) {
  %c8 = arith.constant 8 : index
  %c5 = arith.constant 5 : index
  %0 = shape.apply #shape.expr<(a) -> a * 4>(%c8) : index
  %1 = shape.from_extents %0, %c8 : tensor<2xi32>
  %2 = shape.index_cast %a : index to tensor<i32>
  %3 = shape.index_cast %2 : tensor<i32> to index
  %4 = shape.index_cast %t : tensor<i64> to index
  %5 = shape.index_cast %4 : index to tensor<i64>
  %6 = shape.index_cast %c5 : index to tensor<i64>
  func.return %1, %3, %5, %6 : tensor<2xi32>, index, tensor<i64>, tensor<i64>
}

// -----

// A division by a constant zero is left for run time to report.
// CHECK-LABEL: func.func @div_zero
// CHECK:         shape.apply #shape.expr<(a, z) -> a floordiv z>
func.func @div_zero(%a: index) -> index {
  %c0 = arith.constant 0 : index
  %0 = shape.apply #shape.expr<(a, z) -> a floordiv z>(%a, %c0) : index
  func.return %0 : index
}

// -----

// Assertions take applies into their map; fully static ones go.
// CHECK-LABEL: func.func @assert_shape
// CHECK-SAME:    (%[[X:.*]]: tensor<?x8xf32>, %[[Y:.*]]: tensor<4x8xf32>, %[[A:.*]]: index)
// CHECK-NEXT:    shape.assert_shape %[[X]], #shape.expr<(a) -> (a * 4, 8)>(%[[A]]) : tensor<?x8xf32>
// CHECK-NEXT:    return
func.func @assert_shape(%x: tensor<?x8xf32>, %y: tensor<4x8xf32>, %a: index) {
  %c4 = arith.constant 4 : index
  %0 = shape.apply #shape.expr<(a) -> a * 2>(%a) : index
  shape.assert_shape %x, #shape.expr<(p, q) -> (p + q, 8)>(%0, %0) : tensor<?x8xf32>
  shape.assert_shape %y, #shape.expr<(c) -> (c, 8)>(%c4) : tensor<4x8xf32>
  func.return
}
