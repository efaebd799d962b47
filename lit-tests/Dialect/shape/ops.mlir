// Custom forms of every shape op: printing, printing what was printed (same
// text), and parsing the generic form back.
// RUN: recom-opt %s | FileCheck %s
// RUN: recom-opt %s | recom-opt | FileCheck %s
// RUN: recom-opt %s --mlir-print-op-generic | recom-opt | FileCheck %s
// RUN: recom-opt %s -o %t.1.mlir && recom-opt %t.1.mlir -o %t.2.mlir && diff %t.1.mlir %t.2.mlir
// RUN: recom-opt %s --mlir-print-op-generic | FileCheck %s --check-prefix=GENERIC

// CHECK-LABEL: func.func @symbols
// CHECK-SAME:    (%[[X:.*]]: tensor<?x1xi64>, %[[V:.*]]: tensor<?xi64>)
// CHECK-NEXT:    %[[B:batch]] = shape.dim %[[X]], 0 {symbol = "batch"} : tensor<?x1xi64> -> index
// CHECK-NEXT:    %[[N:nnz.age]] = shape.count %[[V]] {symbol = "nnz.age"} : tensor<?xi64> -> index
// CHECK-NEXT:    %[[D:.*]] = shape.dim %[[X]], 1 : tensor<?x1xi64> -> index
// CHECK-NEXT:    %[[C:.*]] = shape.count %[[X]] : tensor<?x1xi64> -> index
// CHECK-NEXT:    return %[[B]], %[[N]], %[[D]], %[[C]]
// GENERIC-LABEL: "func.func"
// GENERIC:       "shape.dim"(%{{.*}}) {index = 0 : i64, symbol = "batch"} : (tensor<?x1xi64>) -> index
// GENERIC:       "shape.count"(%{{.*}}) {symbol = "nnz.age"} : (tensor<?xi64>) -> index
// GENERIC:       "shape.dim"(%{{.*}}) {index = 1 : i64} : (tensor<?x1xi64>) -> index
// GENERIC:       "shape.count"(%{{.*}}) : (tensor<?x1xi64>) -> index
func.func @symbols(%x: tensor<?x1xi64>, %v: tensor<?xi64>) -> (index, index, index, index) {
  %b = shape.dim %x, 0 {symbol = "batch"} : tensor<?x1xi64> -> index
  %n = shape.count %v {symbol = "nnz.age"} : tensor<?xi64> -> index
  %d = shape.dim %x, 1 : tensor<?x1xi64>
  %c = shape.count %x : tensor<?x1xi64>
  func.return %b, %n, %d, %c : index, index, index, index
}

// CHECK-LABEL: func.func @apply
// CHECK-SAME:    (%[[A:.*]]: index, %[[B:.*]]: index)
// CHECK-NEXT:    %[[E0:.*]] = shape.apply #shape.expr<(batch, n) -> batch * 8 + n>(%[[A]], %[[B]]) : index
// CHECK-NEXT:    %[[E1:.*]] = shape.apply #shape.expr<(a) -> a ceildiv 8>(%[[A]]) : index
// CHECK-NEXT:    %[[E2:.*]] = shape.apply #shape.expr<(a, b) -> min(a, b * 2, 16) + max(a mod b, 1)>(%[[A]], %[[B]]) : index
// CHECK-NEXT:    %[[E3:.*]] = shape.apply #shape.expr<() -> 4>() : index
// CHECK-NEXT:    %[[E4:.*]] = shape.apply #shape.expr<("nnz.a-b") -> "nnz.a-b" * 2>(%[[B]]) {note = "kept"} : index
// CHECK-NEXT:    return %[[E0]], %[[E1]], %[[E2]], %[[E3]], %[[E4]]
// GENERIC-LABEL: "func.func"
// GENERIC:       "shape.apply"(%{{.*}}, %{{.*}}) {map = #shape.expr<(batch, n) -> batch * 8 + n>} : (index, index) -> index
// GENERIC:       "shape.apply"() {map = #shape.expr<() -> 4>} : () -> index
func.func @apply(%a: index, %b: index) -> (index, index, index, index, index) {
  %0 = shape.apply #shape.expr<(batch, n) -> batch * 8 + n>(%a, %b) : index
  // A quoted map and the non-canonical text are accepted; the type is optional.
  %1 = shape.apply #shape.expr<"(a) -> (a + 7) floordiv 8">(%a)
  %2 = shape.apply #shape.expr<(a, b) -> min(16, b * 2, a) + max(1, a mod b)>(%a, %b) : index
  %3 = shape.apply #shape.expr<() -> 2 * 2>() : index
  %4 = shape.apply #shape.expr<("nnz.a-b") -> "nnz.a-b" + "nnz.a-b">(%b) {note = "kept"} : index
  func.return %0, %1, %2, %3, %4 : index, index, index, index, index
}

// CHECK-LABEL: func.func @tensors
// CHECK-SAME:    (%[[A:.*]]: index, %[[B:.*]]: index, %[[T:.*]]: tensor<i64>)
// CHECK-NEXT:    %[[S:.*]] = shape.from_extents %[[A]], %[[B]] : tensor<2xi64>
// CHECK-NEXT:    %[[S32:.*]] = shape.from_extents %[[A]] : tensor<1xi32>
// CHECK-NEXT:    %[[E:.*]] = shape.from_extents : tensor<0xi64>
// CHECK-NEXT:    %[[C:.*]] = shape.index_cast %[[A]] : index to tensor<i32>
// CHECK-NEXT:    %[[I:.*]] = shape.index_cast %[[T]] : tensor<i64> to index
// CHECK-NEXT:    return %[[S]], %[[S32]], %[[E]], %[[C]], %[[I]]
// GENERIC-LABEL: "func.func"
// GENERIC:       "shape.from_extents"(%{{.*}}, %{{.*}}) : (index, index) -> tensor<2xi64>
// GENERIC:       "shape.from_extents"() : () -> tensor<0xi64>
// GENERIC:       "shape.index_cast"(%{{.*}}) : (index) -> tensor<i32>
// GENERIC:       "shape.index_cast"(%{{.*}}) : (tensor<i64>) -> index
func.func @tensors(%a: index, %b: index, %t: tensor<i64>) -> (tensor<2xi64>, tensor<1xi32>, tensor<0xi64>, tensor<i32>, index) {
  %0 = shape.from_extents %a, %b : tensor<2xi64>
  %1 = shape.from_extents %a : tensor<1xi32>
  %2 = shape.from_extents : tensor<0xi64>
  %3 = shape.index_cast %a : index to tensor<i32>
  %4 = shape.index_cast %t : tensor<i64> to index
  func.return %0, %1, %2, %3, %4 : tensor<2xi64>, tensor<1xi32>, tensor<0xi64>, tensor<i32>, index
}

// CHECK-LABEL: func.func @assert_shape
// CHECK-SAME:    (%[[Y:.*]]: tensor<?x8xf32>, %[[U:.*]]: tensor<*xf32>, %[[B:.*]]: index)
// CHECK-NEXT:    shape.assert_shape %[[Y]], #shape.expr<(batch) -> (batch, 8)>(%[[B]]) : tensor<?x8xf32>
// CHECK-NEXT:    shape.assert_shape %[[U]], #shape.expr<(batch) -> batch * 2>(%[[B]]) : tensor<*xf32>
// CHECK-NEXT:    shape.assert_shape %[[Y]], #shape.expr<() -> (3, 8)>() : tensor<?x8xf32>
// GENERIC-LABEL: "func.func"
// GENERIC:       "shape.assert_shape"(%{{.*}}, %{{.*}}) {map = #shape.expr<(batch) -> (batch, 8)>} : (tensor<?x8xf32>, index) -> ()
func.func @assert_shape(%y: tensor<?x8xf32>, %u: tensor<*xf32>, %b: index) {
  shape.assert_shape %y, #shape.expr<(batch) -> (batch, 8)>(%b) : tensor<?x8xf32>
  shape.assert_shape %u, #shape.expr<(batch) -> (batch * 2)>(%b) : tensor<*xf32>
  shape.assert_shape %y, #shape.expr<() -> (3, 8)>() : tensor<?x8xf32>
  func.return
}
