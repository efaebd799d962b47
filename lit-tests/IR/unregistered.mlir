// Ops of unregistered dialects parse and print with
// --allow-unregistered-dialect, and are rejected without it.
// RUN: recom-opt %s --allow-unregistered-dialect | FileCheck %s
// RUN: recom-opt %s --allow-unregistered-dialect | recom-opt --allow-unregistered-dialect | FileCheck %s
// RUN: not recom-opt %s 2>&1 | FileCheck %s --check-prefix=ERR

// CHECK-LABEL: func.func @f
// CHECK:       %[[X:.*]] = "mydialect.produce"() {attr = 3 : i64} : () -> !mydialect.thing<4>
// CHECK:       "mydialect.consume"(%[[X]]) : (!mydialect.thing<4>) -> ()
// ERR: unregistered.mlir:[[@LINE+2]]:{{[0-9]+}}: error: {{.*}}'mydialect.produce'{{.*}}unregistered
func.func @f() {
  %x = "mydialect.produce"() {attr = 3} : () -> !mydialect.thing<4>
  "mydialect.consume"(%x) : (!mydialect.thing<4>) -> ()
  func.return
}
