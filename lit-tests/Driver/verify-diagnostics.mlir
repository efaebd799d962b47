// --verify-diagnostics succeeds (exit 0, the IR printed as usual) when the
// diagnostics are exactly the expected ones, and fails on a missing or an
// unexpected one, pointing at the expectation or at the diagnostic.
// RUN: recom-opt --verify-diagnostics --split-input-file %s | FileCheck %s
// RUN: not recom-opt --verify-diagnostics %S/Inputs/diag-missing.mlir 2>&1 | FileCheck %s --check-prefix=MISSING
// RUN: not recom-opt --verify-diagnostics %S/Inputs/diag-unexpected.mlir 2>&1 | FileCheck %s --check-prefix=UNEXPECTED
// RUN: not recom-opt --verify-diagnostics --split-input-file %S/Inputs/diag-split.mlir 2>&1 | FileCheck %s --check-prefix=SPLIT

// CHECK:     func.func @valid
// CHECK-NOT: @invalid

// MISSING: diag-missing.mlir:2:6: error: expected error "this is never reported" was not produced
// UNEXPECTED: diag-unexpected.mlir:4:15: error: unexpected error: use of undeclared SSA value name '%undefined'
// SPLIT-NOT: diag-split.mlir:11
// SPLIT-DAG: diag-split.mlir:18:15: error: unexpected error: use of undeclared SSA value name '%y'
// SPLIT-DAG: diag-split.mlir:20:4: error: expected error "never reported" was not produced

func.func @valid() {
  func.return
}

// -----

func.func @invalid() -> i64 {
  // expected-error@+1 {{use of undeclared SSA value name '%v'}}
  func.return %v : i64
}
