package gpu

// The interpreter semantics of the host side, registered with interp/exec
// (importing this package registers them):
//
//   - a !gpu.buffer value is a uint8 tensor, its bytes the device memory;
//     gpu.alloc makes one filled with 0xff bytes (NaN as f32, -1 as
//     integers), so that what no kernel wrote shows;
//   - gpu.buffer_view shares the bytes of its buffer from the offset on;
//   - gpu.launch is a side effect (exec.RegisterEffect): it runs on every
//     Run, in program order with the other launches, and writes into its
//     buffers in place — including buffers that were fed, which a caller
//     who keeps its feeds must clone;
//   - gpu.module is not evaluated: kernels run only through launches.
//
// A host function func.func @host(%in: !gpu.buffer, %out: !gpu.buffer,
// %n: i64) runs with exec's function-argument feeds: feed "@host:0" and
// "@host:1" with uint8 tensors and "@host:2" with an int64 scalar, and ask
// for "@host:1" (or a gpu.alloc's result by its name) as an output.

import (
	"fmt"

	"github.com/recom-compiler/recom/interp"
	"github.com/recom-compiler/recom/interp/exec"
	"github.com/recom-compiler/recom/textir"
)

func init() {
	exec.RegisterElemType(Buffer(), interp.Uint8)
	exec.Register(ModuleOp, func(*textir.Operation, []*interp.Tensor, *exec.State) ([]*interp.Tensor, error) {
		return nil, nil
	})
	exec.Register(AllocOp, allocKernel)
	exec.Register(BufferViewOp, viewKernel)
	exec.Register(LaunchOp, launchKernel)
	exec.RegisterEffect(LaunchOp)
}

func scalarInt(op *textir.Operation, what string, t *interp.Tensor) (int64, error) {
	if t.Len() != 1 {
		return 0, op.Errorf("%s must be a scalar, got shape %s", what, interp.ShapeString(t.Shape()))
	}
	v, ok := t.Int64At(0)
	if !ok {
		return 0, op.Errorf("%s must be an integer, got %v", what, t.DType())
	}
	return v, nil
}

func bytesOf(op *textir.Operation, what string, t *interp.Tensor) ([]byte, error) {
	b, ok := t.Data().([]uint8)
	if !ok {
		return nil, op.Errorf("%s must be a uint8 tensor (a buffer's bytes), got %v", what, t.DType())
	}
	return b, nil
}

func allocKernel(op *textir.Operation, in []*interp.Tensor, _ *exec.State) ([]*interp.Tensor, error) {
	n, err := scalarInt(op, "the size", in[0])
	if err != nil {
		return nil, err
	}
	if n < 0 || n > interp.MaxElements {
		return nil, op.Errorf("cannot allocate %d bytes", n)
	}
	b := make([]byte, n)
	for i := range b {
		b[i] = 0xff
	}
	return one(interp.New([]int64{n}, b))
}

func one(t *interp.Tensor, err error) ([]*interp.Tensor, error) {
	if err != nil {
		return nil, err
	}
	return []*interp.Tensor{t}, nil
}

// viewKey names the resource that records where a view's bytes start in
// their allocation (for alignment checks).
func viewKey(t *interp.Tensor) string { return fmt.Sprintf("gpu.view:%p", t) }

func alignOf(st *exec.State, t *interp.Tensor) int64 {
	if a, ok := st.Resource(viewKey(t)).(int64); ok {
		return a
	}
	return 0
}

func viewKernel(op *textir.Operation, in []*interp.Tensor, st *exec.State) ([]*interp.Tensor, error) {
	b, err := bytesOf(op, "the buffer", in[0])
	if err != nil {
		return nil, err
	}
	off, err := scalarInt(op, "the offset", in[1])
	if err != nil {
		return nil, err
	}
	if off < 0 || off > int64(len(b)) {
		return nil, op.Errorf("offset %d is outside the %d-byte buffer", off, len(b))
	}
	v, err := interp.New([]int64{int64(len(b)) - off}, b[off:len(b):len(b)])
	if err != nil {
		return nil, err
	}
	st.SetResource(viewKey(v), alignOf(st, in[0])+off)
	return []*interp.Tensor{v}, nil
}

type compiled struct {
	k   *Kernel
	err error
}

func launchKernel(op *textir.Operation, in []*interp.Tensor, st *exec.State) ([]*interp.Tensor, error) {
	m, err := st.Memo(func() (any, error) {
		fn := LaunchKernel(op)
		if fn == nil {
			return nil, op.Errorf("kernel not found")
		}
		k, err := Compile(fn)
		return &compiled{k, err}, nil
	})
	if err != nil {
		return nil, err
	}
	c := m.(*compiled)
	if c.err != nil {
		return nil, c.err
	}
	grid, err := scalarInt(op, "the grid size", in[0])
	if err != nil {
		return nil, err
	}
	block, err := scalarInt(op, "the block size", in[1])
	if err != nil {
		return nil, err
	}
	args := make([]any, len(in)-2)
	for i, t := range in[2:] {
		v := op.Operand(2 + i)
		switch {
		case IsBuffer(v.Type()):
			b, err := bytesOf(op, fmt.Sprintf("argument #%d", i), t)
			if err != nil {
				return nil, err
			}
			args[i] = Buf{Data: b, Align: alignOf(st, t)}
		case textir.IsFloat(v.Type()):
			if t.Len() != 1 {
				return nil, op.Errorf("argument #%d must be a scalar", i)
			}
			args[i] = t.Float64At(0)
		default:
			x, err := scalarInt(op, fmt.Sprintf("argument #%d", i), t)
			if err != nil {
				return nil, err
			}
			args[i] = x
		}
	}
	if err := c.k.Launch(grid, block, args, nil); err != nil {
		return nil, err
	}
	return nil, nil
}
