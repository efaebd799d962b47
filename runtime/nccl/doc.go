// Package nccl is NVIDIA's collective communication library for the
// sharded embedding layer (--shard: a layer's tables over several GPUs of
// one host), called at run time through github.com/ebitengine/purego: no
// cgo, so a binary built with CGO_ENABLED=0 uses the libnccl of the machine
// it runs on, as runtime/cuda does with the driver and runtime/cublaslt
// with cuBLASLt.
//
// Open loads libnccl.so.2 (from $NCCL_HOME/lib, $CUDA_HOME/lib64, the CUDA
// toolkit's and the system's library folders, then the dynamic loader's
// own path). Without it the error wraps ErrNotFound and names every place
// tried. An ncclResult_t other than ncclSuccess becomes an *Error with
// ncclGetErrorString's text and, where the library has it,
// ncclGetLastError's.
//
// The calls are those of nccl.h (NCCL 2.x; the signatures and the enum
// values of ncclDataType_t, ncclRedOp_t and ncclResult_t as nccl.h
// declares them, https://docs.nvidia.com/deeplearning/nccl/user-guide/docs/api/types.html):
//
//	ncclGetVersion(int*)
//	ncclCommInitAll(ncclComm_t* comms, int ndev, const int* devlist)
//	ncclCommDestroy(ncclComm_t), ncclCommCount, ncclCommCuDevice, ncclCommUserRank
//	ncclAllReduce(const void* send, void* recv, size_t count, ncclDataType_t, ncclRedOp_t, ncclComm_t, cudaStream_t)
//	ncclReduceScatter(const void* send, void* recv, size_t recvcount, ncclDataType_t, ncclRedOp_t, ncclComm_t, cudaStream_t)
//	ncclAllGather(const void* send, void* recv, size_t sendcount, ncclDataType_t, ncclComm_t, cudaStream_t)
//	ncclSend(const void* send, size_t count, ncclDataType_t, int peer, ncclComm_t, cudaStream_t)
//	ncclRecv(void* recv, size_t count, ncclDataType_t, int peer, ncclComm_t, cudaStream_t)
//	ncclGroupStart(), ncclGroupEnd()
//
// One process drives every GPU of the host, so its communicators are made
// at once by ncclCommInitAll over the devices (InitAll), one rank per
// device; ncclCommInitRank, whose ncclUniqueId argument is a 128-byte
// struct passed by value, is for a process per GPU and is not bound. As
// NCCL's "Group Calls" section says
// (https://docs.nvidia.com/deeplearning/nccl/user-guide/docs/usage/groups.html),
// a thread that manages several devices must put the calls of one
// collective on all of them, and matching sends and receives
// (https://docs.nvidia.com/deeplearning/nccl/user-guide/docs/usage/p2p.html),
// between ncclGroupStart and ncclGroupEnd: Library.Group does that, on one
// locked OS thread, and ends the group even when a call fails. Calls
// inside a group may return before their work is on its stream; streams
// are waited for only after Group returns.
//
// Every call checks its buffers (cuda.DevicePtr) against the count and
// data type before NCCL sees them, so a size mistake is an error and not
// a write past an allocation.
//
// Sim is a simulated NCCL over a cuda.Sim: its ranks' collectives run in
// their streams' order on the simulator's memory, so that the sharded
// layer's exchange is tested where there is no GPU.
package nccl
