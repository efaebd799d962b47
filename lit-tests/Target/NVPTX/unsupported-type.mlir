// A type the emitter has no LLVM type for (bf16: llir has none) is
// refused with a diagnostic at the gpu.func, after the verifier accepted it.
// RUN: not recom-translate --emit-llvm %s 2>&1 | FileCheck %s

// CHECK: unsupported-type.mlir:[[@LINE+2]]:{{[0-9]+}}: error: 'gpu.func' op argument #0: !gpu.ptr<bf16, global>: unsupported element type bf16
gpu.module @kernels {
  gpu.func @halfway(%p: !gpu.ptr<bf16, global>) kernel {
    gpu.return
  }
}
