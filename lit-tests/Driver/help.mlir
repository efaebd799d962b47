// recom-opt --help lists the options, then every registered pass with its
// one-line summary.
// RUN: recom-opt --help | FileCheck %s

// CHECK: Usage:
// CHECK: recom-opt [flags] [FILE|-]
// CHECK: Options:
// CHECK-DAG: --split-input-file
// CHECK-DAG: --verify-diagnostics
// CHECK-DAG: --mlir-print-ir-after-all
// CHECK-DAG: -o, --output FILE
// CHECK: Passes:
// CHECK-DAG: --canonicalize {{ *}}Canonicalize operations
// CHECK-DAG: --cse {{ *}}Eliminate common sub-expressions
// CHECK-DAG: --symbol-dce {{ *}}Eliminate dead symbols
