// What cannot be emitted fails with a diagnostic at the op, exit code 1,
// and no output file.
// RUN: not recom-translate --emit-llvm --allow-unregistered-dialect %s -o %t.ll 2>&1 | FileCheck %s
// RUN: test ! -e %t.ll
// RUN: not recom-translate --emit-llvm --emit-ptx %s 2>&1 | FileCheck --check-prefix=USAGE %s

// CHECK: errors.mlir:[[@LINE+7]]:{{[0-9]+}}: error: 'test.magic' op cannot be emitted as NVPTX LLVM IR
// USAGE: error: give exactly one of --import-graphdef and --export-graphdef, or one of --emit-llvm and --emit-ptx
"gpu.module"() ({
  "gpu.func"() ({
  ^bb0(%p: !gpu.ptr<f32, global>):
    %c0 = "arith.constant"() {value = 0 : i64} : () -> i64
    %v = "gpu.load"(%p, %c0) : (!gpu.ptr<f32, global>, i64) -> f32
    %w = "test.magic"(%v) : (f32) -> f32
    "gpu.store"(%w, %p, %c0) : (f32, !gpu.ptr<f32, global>, i64) -> ()
    "gpu.return"() : () -> ()
  }) {function_type = (!gpu.ptr<f32, global>) -> (), kernel, sym_name = "bad"} : () -> ()
}) {sym_name = "kernels"} : () -> ()
