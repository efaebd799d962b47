// mlir-opt's habits work in recom-opt.
//
// Single-dash long flags, as upstream RUN lines write them, are the
// double-dash ones; -o keeps its value, even one that starts with a dash.
// RUN: recom-opt -split-input-file -mlir-print-op-generic %s | FileCheck %s --check-prefix=GENERIC
// RUN: rm -rf %t && mkdir -p %t && cd %t
// RUN: recom-opt -split-input-file %s -o -cse.mlir && FileCheck %s --check-prefix=OUT --input-file=%t/-cse.mlir
// RUN: recom-opt -pass-pipeline='builtin.module(cse)' -split-input-file %s | FileCheck %s --check-prefix=OUT
// RUN: not recom-opt -no-such-flag %s 2>&1 | FileCheck %s --check-prefix=UNKNOWN
// GENERIC: "func.func"() ({
// OUT: func.func @big
// UNKNOWN: recom-opt: error: unknown flag: --no-such-flag
//
// --show-dialects lists the registered dialects.
// RUN: recom-opt --show-dialects | FileCheck %s --check-prefix=DIALECTS
// DIALECTS: Available Dialects: arith, builtin, emb, func, fused, gpu, shape, tfg
//
// --version names the tool, the VCS revision it was built from (or that it
// is unknown) and the Go toolchain; so do recom-translate's and recom's.
// RUN: recom-opt --version | FileCheck %s --check-prefixes=VERSION,OPT
// RUN: recom-opt -version | FileCheck %s --check-prefixes=VERSION,OPT
// RUN: recom-translate --version | FileCheck %s --check-prefixes=VERSION,TRANSLATE
// RUN: recom-translate -version | FileCheck %s --check-prefixes=VERSION,TRANSLATE
// RUN: recom --version | FileCheck %s --check-prefixes=VERSION,RECOM
// OPT:          {{^}}recom-opt (github.com/recom-compiler/recom) version
// TRANSLATE:    {{^}}recom-translate (github.com/recom-compiler/recom) version
// RECOM:        {{^}}recom (github.com/recom-compiler/recom) version
// VERSION-NEXT: {{^  revision ([0-9a-f]{40}|unknown)}}
// VERSION-NEXT: {{^  built with go}}
//
// --mlir-elide-elementsattrs-if-larger=N prints a non-splat dense attribute
// with more than N elements as dense_resource<__elided__>.
// RUN: recom-opt --mlir-elide-elementsattrs-if-larger=3 -split-input-file %s | FileCheck %s --check-prefix=ELIDE
// RUN: not recom-opt --mlir-elide-elementsattrs-if-larger=-1 %s 2>&1 | FileCheck %s --check-prefix=ELIDE-BAD
// ELIDE-LABEL: func.func @big
// ELIDE:         arith.constant dense_resource<__elided__> : tensor<4xi32>
// ELIDE:         arith.constant dense<[1, 2, 3]> : tensor<3xi32>
// ELIDE:         arith.constant dense<5> : tensor<8xi32>
// ELIDE-BAD: --mlir-elide-elementsattrs-if-larger=-1: want a count of elements
//
// --mlir-print-local-scope and --mlir-disable-threading are accepted: the
// output is the same (recom prints no aliases, every IR dump is of an
// isolated op, and the passes run one after another).
// RUN: recom-opt -split-input-file %s --cse > %t/plain.mlir
// RUN: recom-opt -split-input-file %s --cse --mlir-print-local-scope --mlir-disable-threading > %t/local.mlir
// RUN: diff %t/plain.mlir %t/local.mlir

func.func @big() -> (tensor<4xi32>, tensor<3xi32>, tensor<8xi32>) {
  %a = arith.constant dense<[1, 2, 3, 4]> : tensor<4xi32>
  %b = arith.constant dense<[1, 2, 3]> : tensor<3xi32>
  %c = arith.constant dense<5> : tensor<8xi32>
  return %a, %b, %c : tensor<4xi32>, tensor<3xi32>, tensor<8xi32>
}
