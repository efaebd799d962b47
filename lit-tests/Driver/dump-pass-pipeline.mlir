// RUN: recom-opt %s --cse --canonicalize --symbol-dce --dump-pass-pipeline -o %t 2>&1 | FileCheck %s
// RUN: recom-opt %s --pass-pipeline='builtin.module(cse, canonicalize, symbol-dce)' --dump-pass-pipeline -o %t 2>&1 | FileCheck %s

// CHECK:      Pass Manager with 3 passes:
// CHECK-NEXT: builtin.module(cse,canonicalize{{(\{.*\})?}},symbol-dce)

func.func @f() {
  func.return
}
