// Ops, types and attributes of unregistered dialects parse and print with
// --allow-unregistered-dialect, and are rejected without it (a type or
// attribute when it is parsed, as MLIR does; an op by the verifier).
// RUN: recom-opt %s --allow-unregistered-dialect | FileCheck %s
// RUN: recom-opt %s --allow-unregistered-dialect | recom-opt --allow-unregistered-dialect | FileCheck %s
// RUN: not recom-opt %s 2>&1 | FileCheck %s --check-prefix=ERR

// CHECK-LABEL: func.func @f
// CHECK:       %[[X:.*]] = "mydialect.produce"() {attr = 3 : i64} : () -> !mydialect.thing<4>
// CHECK:       "mydialect.consume"(%[[X]]) : (!mydialect.thing<4>) -> ()
// ERR: unregistered.mlir:[[@LINE+2]]:49: error: `!mydialect.thing<4>` type created with unregistered dialect 'mydialect'; use --allow-unregistered-dialect to accept it
func.func @f() {
  %x = "mydialect.produce"() {attr = 3} : () -> !mydialect.thing<4>
  "mydialect.consume"(%x) : (!mydialect.thing<4>) -> ()
  func.return
}
