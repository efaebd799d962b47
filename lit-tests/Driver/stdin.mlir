// Input from stdin, with or without "-"; diagnostics then name <stdin>.
// RUN: recom-opt < %s | FileCheck %s
// RUN: recom-opt - < %s | FileCheck %s
// RUN: not recom-opt < %S/Inputs/bad.mlir 2>&1 | FileCheck %s --check-prefix=ERR

// CHECK: func.func @from_stdin()
// ERR: <stdin>:3:15: error: use of undeclared SSA value name '%undefined'

func.func @from_stdin() {
  func.return
}
