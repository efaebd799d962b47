// --emit-llvm on constructs the NVPTX emitter (or the verifier before it)
// refuses: each is a diagnostic at the op (file:line:col), exit status 1,
// and no output file nor temporary file is left with -o.
// RUN: rm -rf %t && split-file --leading-lines %s %t
// RUN: not recom-translate --emit-llvm %t/nan.mlir -o %t/nan.ll 2>&1 | FileCheck %s --check-prefix=NAN --implicit-check-not="internal error"
// RUN: not recom-translate --emit-llvm %t/inf.mlir -o %t/inf.ll 2>&1 | FileCheck %s --check-prefix=INF --implicit-check-not="internal error"
// RUN: not recom-translate --emit-llvm %t/tensor.mlir -o %t/tensor.ll 2>&1 | FileCheck %s --check-prefix=TENSOR --implicit-check-not="internal error"
// RUN: not recom-translate --emit-llvm %t/nobody.mlir -o %t/nobody.ll 2>&1 | FileCheck %s --check-prefix=NOBODY --implicit-check-not="internal error"
// RUN: not recom-translate --emit-llvm %t/reserved.mlir -o %t/reserved.ll 2>&1 | FileCheck %s --check-prefix=RESERVED --implicit-check-not="internal error"
// RUN: not recom-translate --emit-llvm %t/index.mlir -o %t/index.ll 2>&1 | FileCheck %s --check-prefix=INDEX --implicit-check-not="internal error"
// RUN: not recom-translate --emit-llvm %t/twice.mlir -o %t/twice.ll 2>&1 | FileCheck %s --check-prefix=TWICE --implicit-check-not="internal error"
// RUN: not recom-translate --emit-llvm %t/dim.mlir -o %t/dim.ll 2>&1 | FileCheck %s --check-prefix=DIM --implicit-check-not="internal error"
// RUN: not recom-translate --emit-ptx %t/nan.mlir -o %t/nan.ptx 2>&1 | FileCheck %s --check-prefix=NAN --implicit-check-not="internal error"
// RUN: ls -a %t | FileCheck %s --check-prefix=LEFT
// LEFT-NOT: .ll
// LEFT-NOT: .ptx
// LEFT-NOT: tmp

//--- nan.mlir
"gpu.module"() ({
  "gpu.func"() ({
  ^bb0(%p: !gpu.ptr<f32, global>, %i: i64):
    // NAN: nan.mlir:[[@LINE+1]]:5: error: 'arith.constant' op NaN and infinite constants cannot be emitted
    %c = "arith.constant"() {value = 0x7FC00000 : f32} : () -> f32
    "gpu.store"(%c, %p, %i) : (f32, !gpu.ptr<f32, global>, i64) -> ()
    "gpu.return"() : () -> ()
  }) {function_type = (!gpu.ptr<f32, global>, i64) -> (), kernel, sym_name = "nan"} : () -> ()
}) {sym_name = "m"} : () -> ()

//--- inf.mlir
"gpu.module"() ({
  "gpu.func"() ({
  ^bb0(%x: f64):
    // INF: inf.mlir:[[@LINE+1]]:5: error: 'arith.constant' op NaN and infinite constants cannot be emitted
    %c = "arith.constant"() {value = 0x7FF0000000000000 : f64} : () -> f64
    "gpu.return"() : () -> ()
  }) {function_type = (f64) -> (), kernel, sym_name = "inf"} : () -> ()
}) {sym_name = "m"} : () -> ()

//--- tensor.mlir
"gpu.module"() ({
  "gpu.func"() ({
  ^bb0(%p: !gpu.ptr<f32, global>, %i: i64):
    // TENSOR: tensor.mlir:[[@LINE+1]]:5: error: 'arith.constant' op result #0: unsupported type tensor<4xf32>
    %c = "arith.constant"() {value = dense<1.0> : tensor<4xf32>} : () -> tensor<4xf32>
    "gpu.return"() : () -> ()
  }) {function_type = (!gpu.ptr<f32, global>, i64) -> (), kernel, sym_name = "tensor_const"} : () -> ()
}) {sym_name = "m"} : () -> ()

//--- nobody.mlir
"gpu.module"() ({
  // NOBODY: nobody.mlir:[[@LINE+1]]:3: error: 'gpu.func' op requires a body
  "gpu.func"() ({
  }) {function_type = (!gpu.ptr<f32, global>) -> (), kernel, sym_name = "no_body"} : () -> ()
}) {sym_name = "m"} : () -> ()

//--- reserved.mlir
"gpu.module"() ({
  // RESERVED: reserved.mlir:[[@LINE+1]]:3: error: 'gpu.func' op symbol @llvm.nvvm.evil is reserved for LLVM intrinsics
  "gpu.func"() ({
  ^bb0(%p: !gpu.ptr<f32, global>):
    "gpu.return"() : () -> ()
  }) {function_type = (!gpu.ptr<f32, global>) -> (), kernel, sym_name = "llvm.nvvm.evil"} : () -> ()
}) {sym_name = "m"} : () -> ()

//--- index.mlir
"gpu.module"() ({
  // INDEX: index.mlir:[[@LINE+1]]:3: error: 'gpu.func' op argument #0 must be an integer, a float or a !gpu.ptr, but got 'index'
  "gpu.func"() ({
  ^bb0(%a: index, %b: index):
    %c = "arith.addi"(%a, %b) : (index, index) -> index
    "gpu.return"() : () -> ()
  }) {function_type = (index, index) -> (), kernel, sym_name = "index_add"} : () -> ()
}) {sym_name = "m"} : () -> ()

//--- twice.mlir
// Two gpu.modules define the same kernel: one LLVM module cannot hold both.
"gpu.module"() ({
  "gpu.func"() ({
  ^bb0(%p: !gpu.ptr<f32, global>):
    "gpu.return"() : () -> ()
  }) {function_type = (!gpu.ptr<f32, global>) -> (), kernel, sym_name = "k"} : () -> ()
}) {sym_name = "m1"} : () -> ()
"gpu.module"() ({
  // TWICE: twice.mlir:[[@LINE+1]]:3: error: 'gpu.func' op symbol @k is defined twice
  "gpu.func"() ({
  ^bb0(%p: !gpu.ptr<f32, global>):
    "gpu.return"() : () -> ()
  }) {function_type = (!gpu.ptr<f32, global>) -> (), kernel, sym_name = "k"} : () -> ()
}) {sym_name = "m2"} : () -> ()

//--- dim.mlir
"gpu.module"() ({
  "gpu.func"() ({
  ^bb0(%x: f32):
    // DIM: dim.mlir:[[@LINE+1]]:5: error: 'gpu.thread_id' op requires attribute 'dimension'
    %d = "gpu.thread_id"() {dim = "x"} : () -> i32
    "gpu.return"() : () -> ()
  }) {function_type = (f32) -> (), kernel, sym_name = "dim"} : () -> ()
}) {sym_name = "m"} : () -> ()

// A module without a kernel is an error, not an empty .ll (llc would turn it
// into an empty PTX without a word).
// RUN: echo 'module {}' > %t.empty.mlir
// RUN: not recom-translate --emit-llvm %t.empty.mlir -o %t.empty.ll 2>&1 | FileCheck --check-prefix=NOKERNEL %s
// RUN: test ! -e %t.empty.ll
// NOKERNEL: error: no gpu kernel to emit
