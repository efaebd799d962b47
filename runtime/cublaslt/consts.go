package cublaslt

// The enum values this package passes to cuBLASLt, from cublasLt.h and
// cublas_api.h (cuBLAS 13.1.0, CUBLAS_VER_BUILD 3, of the CUDA 13.0 toolkit
// on the H200 machine; the values are those of cuBLAS 12.x too) and
// library_types.h of the same toolkit. TestHeader compares every one, the
// prototypes the api table stands for, and the two structures below with
// the installed headers wherever a toolkit is found; on 2026-12-03 it
// passed against those 13.1.0 headers. Its tables name each constant's C
// name.

// cudaDataType_t (library_types.h).
const (
	cudaR32F  int32 = 0  // CUDA_R_32F
	cudaR16BF int32 = 14 // CUDA_R_16BF
)

// cublasComputeType_t (cublas_api.h).
const (
	computeF32     int32 = 68 // CUBLAS_COMPUTE_32F
	computeF32TF32 int32 = 77 // CUBLAS_COMPUTE_32F_FAST_TF32
)

// cublasOperation_t (cublas_api.h).
const (
	opN int32 = 0 // CUBLAS_OP_N
	opT int32 = 1 // CUBLAS_OP_T
)

// cublasLtMatmulDescAttributes_t (cublasLt.h), with the C type of each
// attribute's value.
const (
	descTransA       uint32 = 3  // CUBLASLT_MATMUL_DESC_TRANSA, int32_t
	descTransB       uint32 = 4  // CUBLASLT_MATMUL_DESC_TRANSB, int32_t
	descEpilogue     uint32 = 7  // CUBLASLT_MATMUL_DESC_EPILOGUE, uint32_t
	descBiasPointer  uint32 = 8  // CUBLASLT_MATMUL_DESC_BIAS_POINTER, const void*
	descBiasDataType uint32 = 26 // CUBLASLT_MATMUL_DESC_BIAS_DATA_TYPE, int32_t (cudaDataType_t)
)

// cublasLtEpilogue_t (cublasLt.h).
const (
	epilogueDefault  uint32 = 1 // CUBLASLT_EPILOGUE_DEFAULT
	epilogueReLU     uint32 = 2 // CUBLASLT_EPILOGUE_RELU
	epilogueBias     uint32 = 4 // CUBLASLT_EPILOGUE_BIAS
	epilogueReLUBias uint32 = 6 // CUBLASLT_EPILOGUE_RELU_BIAS
)

// cublasLtMatmulPreferenceAttributes_t (cublasLt.h).
const (
	prefMaxWorkspaceBytes  uint32 = 1 // CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, uint64_t
	prefMinAlignmentCBytes uint32 = 7 // CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_C_BYTES, uint32_t
	prefMinAlignmentDBytes uint32 = 8 // CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_D_BYTES, uint32_t
)

// algo is cublasLtMatmulAlgo_t (cublasLt.h): an opaque, trivially
// copyable 64-byte structure, "uint64_t data[8]".
type algo [8]uint64

// heuristicResult is cublasLtMatmulHeuristicResult_t (cublasLt.h), one
// entry of cublasLtMatmulAlgoGetHeuristic's result array. The C layout,
// 96 bytes, 8-byte aligned:
//
//	offset  0  cublasLtMatmulAlgo_t algo;           64 bytes
//	offset 64  size_t workspaceSize;                 8 bytes
//	offset 72  cublasStatus_t state;                 4 bytes (an enum)
//	offset 76  float wavesCount;                     4 bytes
//	offset 80  int reserved[4];                     16 bytes
//
// TestHeuristicResultLayout checks the Go offsets and size; TestHeader
// checks the field list against the header.
type heuristicResult struct {
	algo          algo
	workspaceSize uint64
	state         Status
	wavesCount    float32
	reserved      [4]int32
}
