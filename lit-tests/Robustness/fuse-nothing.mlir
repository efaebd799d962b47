// --fuse that fuses nothing warns (exit 0), and --emit-llvm of a module
// without a kernel says what the module holds instead and which pass makes
// a kernel of it, not "run --fuse first" after --fuse ran
// (fuse-nothing-lookups.mlir: lookups that --fuse left).
// RUN: recom-opt %s --fuse 2>&1 >/dev/null | FileCheck %s --check-prefix=WARN
// RUN: recom-opt %s --fuse 2>/dev/null -o %t.mlir
// RUN: not recom-translate --emit-llvm %t.mlir 2>&1 | FileCheck %s --check-prefix=NOKERNEL
// RUN: not recom-translate --emit-llvm %s 2>&1 | FileCheck %s --check-prefix=NOKERNEL

// WARN:         warning: --fuse fused no embedding layer: the module has no embedding lookups (emb.lookup, emb.gather, emb.gather_scatter): --lower-emb makes them from a model's embedding columns
// NOKERNEL:     error: no gpu kernel to emit: it has no embedding lookups for --fuse to make a kernel of (tfg ops only: --lower-emb finds the embedding columns)
// NOKERNEL-NOT: run --fuse first
"tfg.graph"() ({
  %0:2 = "tfg.Placeholder"() {_mlir_name = "x", dtype = f32} : () -> (tensor<*xf32>, !tfg.control)
  %1:2 = "tfg.Neg"(%0#0) {T = f32, _mlir_name = "out"} : (tensor<*xf32>) -> (tensor<*xf32>, !tfg.control)
}) : () -> ()
