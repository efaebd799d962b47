// Package cublaslt runs the dense layers of a model, Y = act(X·W + bias),
// through NVIDIA cuBLASLt, called at run time through
// github.com/ebitengine/purego: no cgo, so a binary built with
// CGO_ENABLED=0 on a machine without CUDA uses the library of the machine
// it runs on, as package runtime/cuda does with the driver.
//
// Open loads libcublasLt (libcublasLt.so.13, .so.12 or .so, from
// $CUDA_HOME/lib64, /usr/local/cuda/lib64,
// /usr/local/cuda/targets/x86_64-linux/lib, then the dynamic loader's own
// path). Without it the error wraps ErrNotFound and names every place
// tried. A cublasStatus_t other than CUBLAS_STATUS_SUCCESS becomes an
// *Error carrying the library's name and text for it.
//
// A Handle (cublasLtCreate) belongs to a cuda.Context; its calls run with
// that context current (cuda.Context.Current). A Plan is one prepared
// product: Handle.NewPlan checks the GEMM's sizes, builds the operation
// and matrix descriptors, asks cublasLtMatmulAlgoGetHeuristic for an
// algorithm once and keeps the first (best) one, so that every batch of
// that shape runs the same kernel; Plan.Run enqueues cublasLtMatmul on a
// stream with a caller-owned workspace.
//
// # Row-major products
//
// TensorFlow's MatMul multiplies row-major matrices: X is B×K (K×B with
// transpose_a), W is K×N (N×K with transpose_b), Y is B×N. cuBLASLt's
// default order is column-major, and a row-major R×C matrix is the same
// bytes as a column-major C×R one, its transpose. So a plan computes
//
//	Yᵀ (N×B) = op(W)ᵀ (N×K) · op(X)ᵀ (K×B)
//
// in column-major terms: cuBLASLt's A is W's buffer and B is X's, the
// operands swapped, and no CUBLASLT_MATRIX_LAYOUT_ORDER is set. The swap is
// what makes the bias epilogue right: cuBLASLt adds the bias vector along
// D's rows, which here are Y's N output columns (with ORDER_ROW, D's rows
// would be the batch). The layouts (rows×cols, leading dimension), all
// column-major:
//
//	W  K×N (transpose_b false): N×K, ld N, CUBLAS_OP_N
//	W  N×K (transpose_b true):  K×N, ld K, CUBLAS_OP_T
//	X  B×K (transpose_a false): K×B, ld K, CUBLAS_OP_N
//	X  K×B (transpose_a true):  B×K, ld B, CUBLAS_OP_T
//	Y  B×N:                     N×B, ld N, or LdY (C and D)
//
// Y may be columns of a wider row-major matrix (GEMM.LdY: its row pitch,
// D's leading dimension; GEMM.AlignY: the alignment of its address, which
// the plan promises the heuristic through
// CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_C_BYTES and _D_BYTES), so that a
// product writes its part of the next product's concatenated input. With
// GEMM.Accumulate beta is 1 and C is D: Y = act(X·W + Y + bias), so that a
// product over a concatenation of inputs is a sum of products over its
// parts of K, the epilogue in the last; otherwise beta is 0 and C is not
// read.
//
// # Precisions
//
// FP32 is CUBLAS_COMPUTE_32F on fp32 matrices: fp32 products and sums, as
// TensorFlow computes MatMul with TF32 disabled. TF32 is
// CUBLAS_COMPUTE_32F_FAST_TF32 on the same matrices: the tensor cores
// round the inputs to TF32 (10 mantissa bits). BF16 takes X and W in
// bfloat16 (CUDA_R_16BF; ToBF16 converts weights) and accumulates in fp32
// (CUBLAS_COMPUTE_32F); Y, and the bias, are fp32, or bfloat16 with
// GEMM.OutBF16. Alpha and beta are fp32 host values (alpha 1, beta 0 or
// 1).
//
// # Epilogues
//
// EpilogueDefault, EpilogueBias, EpilogueReLU and EpilogueReLUBias are
// CUBLASLT_EPILOGUE_DEFAULT, _BIAS, _RELU and _RELU_BIAS. cuBLASLt has no
// sigmoid or tanh epilogue: ForActivation reports those as work left to
// the caller. The bias vector has Y's type (cuBLASLt's rule for
// non-FP8 products); the plan sets CUBLASLT_MATMUL_DESC_BIAS_DATA_TYPE to
// it explicitly.
//
// # Limits
//
// B, K and N are at least 1 and at most 2³¹-1 (cuBLASLt takes rows,
// columns and leading dimensions as 64-bit values but supports only those
// that fit int32), and no operand may exceed 2⁶³-1 bytes. Every buffer
// (X, W, bias, Y, workspace) must be 256-byte aligned (Y: GEMM.AlignY),
// the alignment the heuristic assumes by default
// (CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_*_BYTES) and the one
// cuda.Context.Alloc gives; those preferences do not cover the bias, whose
// kernel may assume 16 bytes, so it is held to 256 too. A plan's workspace
// limit defaults to 32 MiB (DefaultWorkspaceBytes); Plan.WorkspaceBytes is what its
// algorithm needs, and Run refuses a smaller workspace. A plan's Run is
// safe for concurrent use (it sets the bias pointer on the plan's
// descriptor under a lock), but runs on different streams need different
// workspaces.
//
// # Simulation
//
// Sim is cuBLASLt simulated in Go over a simulated driver (cuda.Sim), for
// the tests of the runtimes built on this package: its products compute
// what cuBLASLt computes from the descriptors, in stream order, captured
// into graphs like the driver's own work.
//
// The enum values and structure layouts are those of cublasLt.h,
// cublas_api.h and library_types.h: see consts.go for each value's source
// and TestHeader, which compares them with the headers where a CUDA
// toolkit is installed.
package cublaslt
