// Nested modules keep their names and their own symbol tables.
// RUN: recom-opt %s | FileCheck %s
// RUN: recom-opt %s | recom-opt | FileCheck %s

// CHECK:      module {
// CHECK-NEXT:   module @inner {
// CHECK-NEXT:     func.func @f() {
// CHECK:        module @other attributes {test.flag} {
// CHECK-NEXT:     func.func @f() {
module {
  module @inner {
    func.func @f() {
      func.return
    }
  }
  module @other attributes {test.flag} {
    func.func @f() {
      func.return
    }
  }
}
