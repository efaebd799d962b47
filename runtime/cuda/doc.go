// Package cuda is the CUDA driver API for recom's runtime, called through
// github.com/ebitengine/purego: no cgo, so a binary built with
// CGO_ENABLED=0 on a machine without CUDA runs on one with a GPU.
//
// Open loads libcuda.so.1 and calls cuInit. Without the library every
// entry point fails with an error wrapping ErrNoDriver ("no CUDA driver:
// libcuda.so.1 not found"). Every CUresult other than CUDA_SUCCESS becomes
// an *Error carrying the driver's name and text for the code
// (cuGetErrorName, cuGetErrorString), wrapped with what was being done.
//
// The objects (Context, Module, Function, DevicePtr, Stream, Event, Graph)
// belong to a Context, the device's primary context. A CUDA context is
// current per OS thread and goroutines move between threads, so every call
// locks its goroutine to its thread and makes the context current first:
// the objects may be used from any goroutine. Close methods release what
// they hold; closing twice is a no-op, and using a closed object is an
// error, never a crash.
//
// Kernel arguments are packed by Function.Launch: each value (a
// *DevicePtr, an unsigned address, or a fixed-width integer or float) is
// laid out at its natural alignment in one buffer, and cuLaunchKernel gets
// the array of pointers into it. When the driver has cuFuncGetParamInfo
// (CUDA 12.4 and later) the count and sizes are checked against the
// kernel's parameters before the launch.
//
// Streams capture their work into CUDA graphs (Stream.BeginCapture,
// Stream.EndCapture), which are instantiated once and replayed with
// Graph.Launch.
//
// Pinned host memory (Context.AllocHost: a HostBuffer) is what the device
// reads and writes directly: copies between it and device memory
// (CopyHostToDeviceAsync, CopyDeviceToHostAsync) run in stream order,
// overlap the host's work, and can be captured into a graph, which then
// reads the host buffer at every replay.
//
// Sim is a simulated driver (Go memory, kernels as Go functions, streams
// with CUDA's ordering) on which the tests of this package and of the
// runtimes built on it run where there is no GPU.
package cuda
