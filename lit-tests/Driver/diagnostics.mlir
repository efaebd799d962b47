// Diagnostics go to stderr as file:line:col: error: message, the exit
// status is 1, and nothing is printed on stdout.
// RUN: not recom-opt %S/Inputs/bad.mlir 2>&1 | FileCheck %s
// RUN: not recom-opt %S/Inputs/bad.mlir 2>/dev/null | count 0

// CHECK: {{.*}}bad.mlir:3:15: error: use of undeclared SSA value name '%undefined'
