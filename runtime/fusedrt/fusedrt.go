// Package fusedrt is the GPU implementation of fused.embedding_layer: the
// op --fuse puts in place of a whole embedding layer, run by the kernel of
// its gpu.module (compiled to PTX elsewhere: the GPU machine has no llc).
//
// A Runtime holds a CUDA context, the loaded module and, per op of the
// program, the device state of that layer (Layer): the tables arena,
// uploaded once on the first run and kept (a model's tables are taken to
// be constant for the Runtime's life), the packed-inputs buffer and the
// output arena. Install puts the Runtime's kernel into an interpreter
// run's options (exec.Options.Kernels), so that everything outside the
// layer (id computation, the dense part) still runs in the interpreter on
// the CPU, while each evaluation of the layer
//
//   - packs the inputs with abi.Layer.PackInputs (the runtime contract),
//   - copies them in one host-to-device copy,
//   - poisons the output arena (NaN, 0xff bytes),
//   - launches the kernel once, and
//   - copies the output back in one device-to-host copy.
//
// Capture makes a CUDA graph of one launch over a given packed-inputs
// buffer, for benchmarks that replay it.
package fusedrt

import (
	"fmt"
	"sync"

	"github.com/recom-compiler/recom/dialects/fused"
	"github.com/recom-compiler/recom/dialects/fused/abi"
	"github.com/recom-compiler/recom/interp"
	"github.com/recom-compiler/recom/interp/exec"
	"github.com/recom-compiler/recom/runtime/cuda"
	"github.com/recom-compiler/recom/textir"
)

// Runtime runs fused.embedding_layer ops on one GPU.
type Runtime struct {
	ctx    *cuda.Context
	mod    *cuda.Module
	stream *cuda.Stream

	// Record keeps, on each Layer, the packed inputs and column inputs of
	// every run (Layer.Runs), for benchmarks and input dumps.
	Record bool

	mu     sync.Mutex
	layers map[*textir.Operation]*Layer
	order  []*Layer
}

// Layer is the device state of one fused.embedding_layer op.
type Layer struct {
	Op     *textir.Operation
	Layer  *abi.Layer
	Fn     *cuda.Function
	Tables *cuda.DevicePtr // the tables arena (uploaded once)
	inputs *cuda.DevicePtr // packed inputs (grown as needed)
	out    *cuda.DevicePtr // output arena (grown as needed)

	// Runs holds what each run saw, when the Runtime records.
	Runs []Run
	// Launches counts the kernel launches of this layer.
	Launches int
}

// Run is one recorded evaluation of a layer.
type Run struct {
	Packed *abi.Packed
	Cols   []abi.ColumnInput // tables dropped (see Layer.Host)
	Out    []float32         // the GPU's output, [Batch, Width]
}

// New loads the PTX module on the context c. The Runtime uses c's
// stream-ordered API on a stream of its own.
func New(c *cuda.Context, ptx []byte) (*Runtime, error) {
	mod, err := c.LoadModule(ptx)
	if err != nil {
		return nil, err
	}
	s, err := c.NewStream()
	if err != nil {
		mod.Close()
		return nil, err
	}
	return &Runtime{ctx: c, mod: mod, stream: s, layers: map[*textir.Operation]*Layer{}}, nil
}

// Module returns the loaded module.
func (r *Runtime) Module() *cuda.Module { return r.mod }

// Stream returns the Runtime's stream.
func (r *Runtime) Stream() *cuda.Stream { return r.stream }

// Layers returns the layers run so far, in the order of their first run.
func (r *Runtime) Layers() []*Layer {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]*Layer(nil), r.order...)
}

// Install makes runs with opts evaluate fused.embedding_layer on the GPU.
func (r *Runtime) Install(opts *exec.Options) {
	if opts.Kernels == nil {
		opts.Kernels = map[string]exec.Kernel{}
	}
	opts.Kernels[fused.EmbeddingLayerOp] = r.kernel
}

// Close frees the device memory, the stream and the module (not the
// context).
func (r *Runtime) Close() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, l := range r.order {
		for _, p := range []*cuda.DevicePtr{l.Tables, l.inputs, l.out} {
			if p != nil {
				p.Close()
			}
		}
	}
	r.order, r.layers = nil, map[*textir.Operation]*Layer{}
	r.stream.Close()
	return r.mod.Close()
}

// KernelName returns the name of the kernel function of a
// fused.embedding_layer (the leaf of its 'kernel' symbol reference).
func KernelName(op *textir.Operation) (string, error) {
	ref, ok := op.LookupAttr("kernel").(textir.SymbolRefAttr)
	if !ok {
		return "", op.Errorf("requires symbol reference attribute 'kernel'")
	}
	if n := len(ref.Nested); n > 0 {
		return ref.Nested[n-1], nil
	}
	return ref.Root, nil
}

// layer returns the device state of op, uploading its tables on first use.
func (r *Runtime) layer(op *textir.Operation, in []*interp.Tensor) (*Layer, []abi.ColumnInput, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if l, ok := r.layers[op]; ok {
		cols, err := l.Layer.Inputs(op, in)
		return l, cols, err
	}
	fl, err := abi.LayerOf(op)
	if err != nil {
		return nil, nil, err
	}
	cols, err := fl.Inputs(op, in)
	if err != nil {
		return nil, nil, err
	}
	name, err := KernelName(op)
	if err != nil {
		return nil, nil, err
	}
	fn, err := r.mod.Function(name)
	if err != nil {
		return nil, nil, op.Errorf("%v", err)
	}
	if n := fn.NumParams(); n >= 0 && n != 5 {
		return nil, nil, op.Errorf("kernel %q takes %d parameters; the layer's kernel takes 5 (was the PTX made from this model?)", name, n)
	}
	l := &Layer{Op: op, Layer: fl, Fn: fn}
	arena, err := fl.TableArena(cols)
	if err != nil {
		return nil, nil, op.Errorf("%v", err)
	}
	if l.Tables, err = r.ctx.Alloc(max(4*int64(len(arena)), 4)); err != nil {
		return nil, nil, fmt.Errorf("tables arena (%d bytes): %w", 4*len(arena), err)
	}
	if err := cuda.CopyToDevice(l.Tables, arena); err != nil {
		l.Tables.Close()
		return nil, nil, err
	}
	r.layers[op] = l
	r.order = append(r.order, l)
	return l, cols, nil
}

// grow returns *p if it holds bytes, else a new allocation of bytes.
func (r *Runtime) grow(p **cuda.DevicePtr, bytes int64) (*cuda.DevicePtr, error) {
	bytes = max(bytes, 4)
	if *p != nil && (*p).Size() >= bytes {
		return *p, nil
	}
	if *p != nil {
		(*p).Close()
		*p = nil
	}
	d, err := r.ctx.Alloc(bytes)
	if err != nil {
		return nil, err
	}
	*p = d
	return d, nil
}

// Launch launches l's kernel on the Runtime's stream over the packed
// inputs already on the device at inputs, writing out.
func (r *Runtime) Launch(l *Layer, p *abi.Packed, inputs, out *cuda.DevicePtr) error {
	if p.Grid == 0 {
		return nil
	}
	l.Launches++
	return l.Fn.Launch(cuda.Dim(int(p.Grid)), cuda.Dim(int(p.Block)), 0, r.stream, l.Tables, inputs, out, p.Batch, p.Tasks)
}

// Capture records one launch of l over inputs into out as a CUDA graph.
func (r *Runtime) Capture(l *Layer, p *abi.Packed, inputs, out *cuda.DevicePtr) (*cuda.Graph, error) {
	if err := r.stream.BeginCapture(); err != nil {
		return nil, err
	}
	lerr := r.Launch(l, p, inputs, out)
	g, err := r.stream.EndCapture()
	if lerr != nil {
		if g != nil {
			g.Close()
		}
		return nil, lerr
	}
	return g, err
}

// kernel is the exec.Kernel of fused.embedding_layer on the GPU.
func (r *Runtime) kernel(op *textir.Operation, in []*interp.Tensor, st *exec.State) ([]*interp.Tensor, error) {
	l, cols, err := r.layer(op, in)
	if err != nil {
		return nil, err
	}
	p, err := l.Layer.PackInputs(cols)
	if err != nil {
		return nil, op.Errorf("%v", err)
	}
	width := l.Layer.Width
	res := make([]float32, p.Batch*width)
	if p.Grid > 0 && len(res) > 0 {
		dIn, err := r.grow(&l.inputs, int64(len(p.Inputs))+p.Scratch)
		if err != nil {
			return nil, err
		}
		dOut, err := r.grow(&l.out, 4*int64(len(res)))
		if err != nil {
			return nil, err
		}
		if err := cuda.CopyToDevice(dIn, p.Inputs); err != nil {
			return nil, err
		}
		if err := dOut.Memset8Async(0xff, r.stream); err != nil { // NaN: what the kernel does not write shows
			return nil, err
		}
		if err := r.Launch(l, p, dIn, dOut); err != nil {
			return nil, op.Errorf("launch: %v", err)
		}
		if err := r.stream.Synchronize(); err != nil {
			return nil, op.Errorf("kernel: %v", err)
		}
		if err := cuda.CopyFromDevice(res, dOut); err != nil {
			return nil, err
		}
	} else if len(res) > 0 {
		return nil, op.Errorf("no tasks for a batch of %d", p.Batch)
	}
	if r.Record {
		kept := make([]abi.ColumnInput, len(cols))
		for i, c := range cols {
			kept[i] = abi.ColumnInput{Ids: c.Ids, Values: c.Values, Splits: c.Splits, Weights: c.Weights}
		}
		l.Runs = append(l.Runs, Run{Packed: p, Cols: kept, Out: res})
	}
	t, err := interp.New([]int64{p.Batch, width}, res)
	if err != nil {
		return nil, err
	}
	return []*interp.Tensor{t}, nil
}

// TableArena downloads l's tables arena.
func (r *Runtime) TableArena(l *Layer) ([]float32, error) {
	a := make([]float32, l.Layer.TableFloats)
	return a, cuda.CopyFromDevice(a, l.Tables)
}
