package cuda

import (
	"fmt"
	"unsafe"

	"github.com/ebitengine/purego"
	"github.com/recom-compiler/recom/runtime/internal/dlbind"
)

// api is the table of driver entry points. Open fills it from libcuda.so.1
// through purego; tests fill it with fakes. Handles (CUcontext, CUmodule,
// CUfunction, CUstream, CUevent, CUgraph, CUgraphExec) are uintptr,
// CUdevice is int32, CUdeviceptr and size_t are uint64.
type api struct {
	cuGetErrorName   func(r Result, s **byte) Result
	cuGetErrorString func(r Result, s **byte) Result

	cuInit               func(flags uint32) Result
	cuDriverGetVersion   func(v *int32) Result
	cuDeviceGetCount     func(n *int32) Result
	cuDeviceGet          func(dev *int32, ordinal int32) Result
	cuDeviceGetName      func(name *byte, n int32, dev int32) Result
	cuDeviceGetAttribute func(v *int32, attr int32, dev int32) Result
	cuDeviceTotalMem     func(bytes *uint64, dev int32) Result

	cuDevicePrimaryCtxRetain  func(ctx *uintptr, dev int32) Result
	cuDevicePrimaryCtxRelease func(dev int32) Result
	cuCtxSetCurrent           func(ctx uintptr) Result
	cuCtxSynchronize          func() Result

	cuModuleLoadDataEx  func(mod *uintptr, image unsafe.Pointer, nopts uint32, opts *int32, vals *uintptr) Result
	cuModuleUnload      func(mod uintptr) Result
	cuModuleGetFunction func(fn *uintptr, mod uintptr, name *byte) Result
	cuFuncGetAttribute  func(v *int32, attr int32, fn uintptr) Result
	cuFuncGetParamInfo  func(fn uintptr, index uint64, offset, size *uint64) Result // optional (CUDA 12.4)

	cuMemAlloc           func(p *uint64, n uint64) Result
	cuMemFree            func(p uint64) Result
	cuMemHostAlloc       func(p *unsafe.Pointer, n uint64, flags uint32) Result
	cuMemFreeHost        func(p unsafe.Pointer) Result
	cuMemcpyHtoD         func(dst uint64, src unsafe.Pointer, n uint64) Result
	cuMemcpyDtoH         func(dst unsafe.Pointer, src uint64, n uint64) Result
	cuMemcpyDtoD         func(dst, src uint64, n uint64) Result
	cuMemcpyHtoDAsync    func(dst uint64, src unsafe.Pointer, n uint64, s uintptr) Result
	cuMemcpyDtoHAsync    func(dst unsafe.Pointer, src uint64, n uint64, s uintptr) Result
	cuMemcpyDtoDAsync    func(dst, src uint64, n uint64, s uintptr) Result
	cuMemsetD8           func(dst uint64, v uint8, n uint64) Result
	cuMemsetD32          func(dst uint64, v uint32, n uint64) Result
	cuMemsetD8Async      func(dst uint64, v uint8, n uint64, s uintptr) Result
	cuMemsetD32Async     func(dst uint64, v uint32, n uint64, s uintptr) Result
	cuStreamCreate       func(s *uintptr, flags uint32) Result
	cuStreamDestroy      func(s uintptr) Result
	cuStreamSynchronize  func(s uintptr) Result
	cuEventCreate        func(e *uintptr, flags uint32) Result
	cuEventRecord        func(e, s uintptr) Result
	cuEventSynchronize   func(e uintptr) Result
	cuStreamWaitEvent    func(s, e uintptr, flags uint32) Result
	cuEventElapsedTime   func(ms *float32, start, end uintptr) Result
	cuEventDestroy       func(e uintptr) Result
	cuLaunchKernel       func(fn uintptr, gx, gy, gz, bx, by, bz, shared uint32, s uintptr, params, extra unsafe.Pointer) Result
	cuStreamBeginCapture func(s uintptr, mode int32) Result
	cuStreamEndCapture   func(s uintptr, g *uintptr) Result
	cuGraphInstantiate   func(exec *uintptr, g uintptr, flags uint64) Result
	cuGraphLaunch        func(exec, s uintptr) Result
	cuGraphGetNodes      func(g uintptr, nodes *uintptr, n *uint64) Result
	cuGraphExecDestroy   func(exec uintptr) Result
	cuGraphDestroy       func(g uintptr) Result
}

// symbols lists the entry points of a, by the names libcuda exports.
func (a *api) symbols() []dlbind.Symbol {
	s := func(fptr any, names ...string) dlbind.Symbol { return dlbind.Symbol{Names: names, Fptr: fptr} }
	opt := func(fptr any, names ...string) dlbind.Symbol {
		return dlbind.Symbol{Names: names, Fptr: fptr, Optional: true}
	}
	return []dlbind.Symbol{
		s(&a.cuGetErrorName, "cuGetErrorName"),
		s(&a.cuGetErrorString, "cuGetErrorString"),
		s(&a.cuInit, "cuInit"),
		s(&a.cuDriverGetVersion, "cuDriverGetVersion"),
		s(&a.cuDeviceGetCount, "cuDeviceGetCount"),
		s(&a.cuDeviceGet, "cuDeviceGet"),
		s(&a.cuDeviceGetName, "cuDeviceGetName"),
		s(&a.cuDeviceGetAttribute, "cuDeviceGetAttribute"),
		s(&a.cuDeviceTotalMem, "cuDeviceTotalMem_v2"),
		s(&a.cuDevicePrimaryCtxRetain, "cuDevicePrimaryCtxRetain"),
		s(&a.cuDevicePrimaryCtxRelease, "cuDevicePrimaryCtxRelease_v2", "cuDevicePrimaryCtxRelease"),
		s(&a.cuCtxSetCurrent, "cuCtxSetCurrent"),
		s(&a.cuCtxSynchronize, "cuCtxSynchronize"),
		s(&a.cuModuleLoadDataEx, "cuModuleLoadDataEx"),
		s(&a.cuModuleUnload, "cuModuleUnload"),
		s(&a.cuModuleGetFunction, "cuModuleGetFunction"),
		s(&a.cuFuncGetAttribute, "cuFuncGetAttribute"),
		opt(&a.cuFuncGetParamInfo, "cuFuncGetParamInfo"),
		s(&a.cuMemAlloc, "cuMemAlloc_v2"),
		s(&a.cuMemFree, "cuMemFree_v2"),
		s(&a.cuMemHostAlloc, "cuMemHostAlloc"),
		s(&a.cuMemFreeHost, "cuMemFreeHost"),
		s(&a.cuMemcpyHtoD, "cuMemcpyHtoD_v2"),
		s(&a.cuMemcpyDtoH, "cuMemcpyDtoH_v2"),
		s(&a.cuMemcpyDtoD, "cuMemcpyDtoD_v2"),
		s(&a.cuMemcpyHtoDAsync, "cuMemcpyHtoDAsync_v2"),
		s(&a.cuMemcpyDtoHAsync, "cuMemcpyDtoHAsync_v2"),
		s(&a.cuMemcpyDtoDAsync, "cuMemcpyDtoDAsync_v2"),
		s(&a.cuMemsetD8, "cuMemsetD8_v2"),
		s(&a.cuMemsetD32, "cuMemsetD32_v2"),
		s(&a.cuMemsetD8Async, "cuMemsetD8Async"),
		s(&a.cuMemsetD32Async, "cuMemsetD32Async"),
		s(&a.cuStreamCreate, "cuStreamCreate"),
		s(&a.cuStreamDestroy, "cuStreamDestroy_v2"),
		s(&a.cuStreamSynchronize, "cuStreamSynchronize"),
		s(&a.cuEventCreate, "cuEventCreate"),
		s(&a.cuEventRecord, "cuEventRecord"),
		s(&a.cuEventSynchronize, "cuEventSynchronize"),
		s(&a.cuStreamWaitEvent, "cuStreamWaitEvent"),
		s(&a.cuEventElapsedTime, "cuEventElapsedTime_v2", "cuEventElapsedTime"),
		s(&a.cuEventDestroy, "cuEventDestroy_v2"),
		s(&a.cuLaunchKernel, "cuLaunchKernel"),
		s(&a.cuStreamBeginCapture, "cuStreamBeginCapture_v2"),
		s(&a.cuStreamEndCapture, "cuStreamEndCapture"),
		s(&a.cuGraphInstantiate, "cuGraphInstantiateWithFlags"),
		s(&a.cuGraphLaunch, "cuGraphLaunch"),
		s(&a.cuGraphGetNodes, "cuGraphGetNodes"),
		s(&a.cuGraphExecDestroy, "cuGraphExecDestroy"),
		s(&a.cuGraphDestroy, "cuGraphDestroy"),
	}
}

// DefaultLibrary is the driver library Open loads.
const DefaultLibrary = "libcuda.so.1"

// loadAPI opens the driver library at path and binds every entry point.
func loadAPI(path string) (*api, error) {
	h, err := purego.Dlopen(path, purego.RTLD_NOW|purego.RTLD_GLOBAL)
	if err != nil {
		if path == DefaultLibrary {
			return nil, fmt.Errorf("%w (%v)", ErrNoDriver, err)
		}
		return nil, fmt.Errorf("%w: cannot load %s (%v)", ErrNoDriver, path, err)
	}
	a := &api{}
	err = a.bind(func(name string) (uintptr, error) { return purego.Dlsym(h, name) })
	if err != nil {
		return nil, fmt.Errorf("cuda: %s: %w", path, err)
	}
	return a, nil
}

// bind fills a's fields with the addresses lookup finds; a missing
// required entry point is an error naming it.
func (a *api) bind(lookup func(name string) (uintptr, error)) error {
	return dlbind.Bind(lookup, a.symbols(), func(name string, err error) error {
		return fmt.Errorf("the driver has no %s (%v): it is older than this runtime needs", name, err)
	})
}

// goString copies the NUL-terminated C string at p (at most 64 KiB).
func goString(p *byte) string {
	if p == nil {
		return ""
	}
	const maxLen = 1 << 16
	n := 0
	for n < maxLen && *(*byte)(unsafe.Add(unsafe.Pointer(p), n)) != 0 {
		n++
	}
	return string(unsafe.Slice(p, n))
}

// cString returns s as a NUL-terminated byte slice.
func cString(s string) []byte {
	b := make([]byte, len(s)+1)
	copy(b, s)
	return b
}
