// Package simgpu runs a module's gpu.func kernels on the simulated CUDA
// driver (cuda.Sim) through the gpu dialect's thread-level simulator, so
// that the native runtime and what is built on it (recom serve) are tested
// without a GPU: a kernel launched on a simulated stream computes what the
// kernel's IR says, over the simulated device memory.
package simgpu

import (
	"fmt"

	"github.com/recom-compiler/recom/dialects/gpu"
	"github.com/recom-compiler/recom/runtime/cuda"
	"github.com/recom-compiler/recom/textir"
)

// EachKernel calls f with every gpu.func kernel of module, its name and
// its parameters' sizes in bytes (and which are global pointers); the first
// error f returns stops the walk and is returned.
func EachKernel(module *textir.Operation, f func(name string, op *textir.Operation, sizes []uint64, ptr []bool) error) error {
	var err error
	module.Walk(func(op *textir.Operation) bool {
		if err != nil {
			return false
		}
		if op.Name() != gpu.FuncOp || !gpu.IsKernel(op) {
			return true
		}
		name, _ := textir.SymbolName(op)
		args := op.Region(0).Front().Args()
		sizes := make([]uint64, len(args))
		ptr := make([]bool, len(args))
		for i, a := range args {
			switch ty := a.Type().(type) {
			case *textir.IntType:
				sizes[i] = uint64(ty.Width / 8)
			case *textir.FloatType:
				sizes[i] = 4
				if ty.Kind == textir.KindF64 {
					sizes[i] = 8
				}
			default:
				sizes[i] = 8
				ptr[i] = gpu.PtrSpace(ty) == gpu.Global
			}
		}
		err = f(name, op, sizes, ptr)
		return false
	})
	return err
}

// Register adds every gpu.func kernel of module to sim, run by the gpu
// dialect's simulator; a launch whose pointer argument is not simulated
// device memory, or whose kernel fails, faults the stream.
func Register(sim *cuda.Sim, module *textir.Operation) error {
	return EachKernel(module, func(name string, op *textir.Operation, sizes []uint64, ptr []bool) error {
		k, err := gpu.Compile(op)
		if err != nil {
			return fmt.Errorf("kernel %s: %v", name, err)
		}
		sim.AddKernel(name, sizes, func(s *cuda.Sim, grid, block uint32, vals []uint64) {
			in := make([]any, len(vals))
			for i, v := range vals {
				switch {
				case ptr[i]:
					mem := s.Memory(v)
					if mem == nil {
						s.Fault(fmt.Errorf("%s: argument %d (%#x) is not device memory", name, i, v))
						return
					}
					in[i] = gpu.Buf{Data: mem, Align: int64(v % 256)}
				case sizes[i] == 4:
					in[i] = int64(int32(v))
				default:
					in[i] = int64(v)
				}
			}
			if err := k.Launch(int64(grid), int64(block), in, nil); err != nil {
				s.Fault(fmt.Errorf("%s: %v", name, err))
			}
		})
		return nil
	})
}
