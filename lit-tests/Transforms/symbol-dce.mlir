// RUN: recom-opt %s --split-input-file --allow-unregistered-dialect --symbol-dce | FileCheck %s

// A private function nobody calls is removed; a public one stays, and so
// does a private one that a live function calls.
// CHECK-LABEL: module {
// CHECK-NOT:     func.func private @dead
// CHECK-DAG:     func.func @public
// CHECK-DAG:     func.func private @called
// CHECK-NOT:     func.func private @dead
module {
  func.func private @dead() {
    func.return
  }
  func.func private @called() {
    func.return
  }
  func.func @public() {
    func.call @called() : () -> ()
    func.return
  }
}

// -----

// Private functions that only call each other are dead together.
// CHECK-LABEL: module {
// CHECK-NEXT:    func.func @main
// CHECK-NOT:     @ping
// CHECK-NOT:     @pong
module {
  func.func @main() {
    func.return
  }
  func.func private @ping() {
    func.call @pong() : () -> ()
    func.return
  }
  func.func private @pong() {
    func.call @ping() : () -> ()
    func.return
  }
}

// -----

// Symbols in a nested module: a nested function referred to from outside
// (@inner::@used, here in an attribute) stays, a private one nobody
// refers to goes.
// CHECK-LABEL: module {
// CHECK:         module @inner {
// CHECK-NEXT:      func.func nested @used
// CHECK-NOT:       @unused
// CHECK:         "test.refer"() {ref = @inner::@used}
module {
  module @inner {
    func.func nested @used() {
      func.return
    }
    func.func private @unused() {
      func.return
    }
  }
  "test.refer"() {ref = @inner::@used} : () -> ()
}
