// Regions with several blocks, block arguments and successors.
// RUN: recom-opt %s --allow-unregistered-dialect | FileCheck %s
// RUN: recom-opt %s --allow-unregistered-dialect | recom-opt --allow-unregistered-dialect | FileCheck %s
// RUN: recom-opt %s --allow-unregistered-dialect --mlir-print-op-generic | recom-opt --allow-unregistered-dialect | FileCheck %s

// CHECK-LABEL: func.func @branches(%arg0: i1, %arg1: i64) -> i64 {
// CHECK-NEXT:    "test.cond_br"(%arg0, %arg1)[^bb1, ^bb2] : (i1, i64) -> ()
// CHECK-NEXT:  ^bb1:
// CHECK-NEXT:    %[[C:.*]] = arith.constant 1 : i64
// CHECK-NEXT:    "test.br"(%[[C]])[^bb3] : (i64) -> ()
// CHECK-NEXT:  ^bb2:
// CHECK-NEXT:    "test.br"(%arg1)[^bb3] : (i64) -> ()
// CHECK-NEXT:  ^bb3(%[[ARG:.*]]: i64):
// CHECK-NEXT:    {{(func\.)?}}return %[[ARG]] : i64
// CHECK-NEXT:  }
func.func @branches(%cond: i1, %v: i64) -> i64 {
  "test.cond_br"(%cond, %v)[^then, ^else] : (i1, i64) -> ()
^then:
  %c1 = arith.constant 1 : i64
  "test.br"(%c1)[^join] : (i64) -> ()
^else:
  "test.br"(%v)[^join] : (i64) -> ()
^join(%r: i64):
  func.return %r : i64
}

// A block may branch back to itself; blocks may be forward-referenced.
// CHECK-LABEL: func.func @loop
// CHECK:       ^bb1(%{{.*}}: i64, %{{.*}}: i1):
// CHECK:         "test.br"(%{{.*}}, %{{.*}})[^bb1] : (i64, i1) -> ()
func.func @loop(%n: i64, %b: i1) {
  "test.br"(%n, %b)[^body] : (i64, i1) -> ()
^body(%i: i64, %c: i1):
  %next = arith.addi %i, %n : i64
  "test.br"(%next, %c)[^body] : (i64, i1) -> ()
}

// Nested regions of an unregistered op, each with its own entry block.
// CHECK-LABEL: func.func @regions
// CHECK:       "test.two_regions"() ({
// CHECK-NEXT:  ^bb0(%{{.*}}: f32):
// CHECK-NEXT:    "test.yield"() : () -> ()
// CHECK-NEXT:  }, {
// CHECK-NEXT:    "test.yield"() : () -> ()
// CHECK-NEXT:  }) : () -> ()
func.func @regions() {
  "test.two_regions"() ({
  ^bb0(%x: f32):
    "test.yield"() : () -> ()
  }, {
    "test.yield"() : () -> ()
  }) : () -> ()
  func.return
}
