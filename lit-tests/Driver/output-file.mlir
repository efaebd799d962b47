// -o writes atomically: a successful run writes the file, a failed run
// leaves no file, no temporary file, and an existing file untouched.
// RUN: rm -rf %t && mkdir -p %t
// RUN: recom-opt %S/Inputs/ok.mlir -o %t/ok.mlir
// RUN: FileCheck %s --check-prefix=OK --input-file=%t/ok.mlir
// RUN: not recom-opt %S/Inputs/bad.mlir -o %t/bad.mlir
// RUN: echo old > %t/keep.mlir
// RUN: not recom-opt %S/Inputs/bad.mlir -o %t/keep.mlir
// RUN: FileCheck %s --check-prefix=OLD --input-file=%t/keep.mlir
// RUN: ls -A %t | FileCheck %s --check-prefix=LS --implicit-check-not=bad --implicit-check-not=tmp
// RUN: recom-opt %S/Inputs/ok.mlir -o - | FileCheck %s --check-prefix=OK
// RUN: recom-opt %S/Inputs/ok.mlir -o /dev/null | count 0

// OK: func.func @ok
// OLD: old
// LS: keep.mlir
// LS-NEXT: ok.mlir
