package fusedrt

// The GPU implementation of fused.dense (--fuse-dense's dense layers), on
// the Runtime's context, module and stream.
//
// Dense keeps what the model's dense part needs on the device:
//   - each layer's weight and bias, uploaded on the layer's first run and
//     kept (taken constant for the Runtime's life, as the tables are);
//   - each layer's output buffer. The output is copied back only when
//     something other than a GPU op reads it (an op of the interpreter, or
//     a fetched output: Fetch); otherwise the layer returns a host tensor
//     of the right shape whose contents are not computed (zeros), and the
//     next layer reads the device copy;
//   - the device copy of each tensor a GPU op returned (the embedding
//     layer's output arena included), keyed by the *interp.Tensor, so that
//     a layer reading it skips the upload. A copy is valid until its
//     producer runs again.
//
// A layer whose kernel splits K (abi.Dense.Split) also keeps a
// workspace (grown to the largest launch) and, when a launch uses several
// slices (abi.Dense.Splits of the batch), launches the reduce kernel
// after the product on the same stream; Capture records both.
//
// So a DLRM-style model costs one host-to-device copy per input that comes
// from the interpreter (the dense features, and the packed inputs of the
// embedding layer), one launch per layer (two for a split one), and one copy back of the
// prediction (and of the embedding layer's output, which fusedrt's kernel
// always copies back).

import (
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/recom-compiler/recom/dialects/fused"
	"github.com/recom-compiler/recom/dialects/fused/abi"
	"github.com/recom-compiler/recom/interp"
	"github.com/recom-compiler/recom/interp/exec"
	"github.com/recom-compiler/recom/runtime/cuda"
	"github.com/recom-compiler/recom/textir"
)

// Dense runs the fused.dense ops of a program on a Runtime's GPU.
type Dense struct {
	r *Runtime

	// Fetch names the ops (exec.OpName) whose outputs the caller fetches:
	// those are always copied back. A nil Fetch copies every output back.
	Fetch map[string]bool

	mu     sync.Mutex
	layers map[*textir.Operation]*DenseLayer
	order  []*DenseLayer
	dev    map[*interp.Tensor]devCopy           // device copies of GPU ops' results
	last   map[*textir.Operation]*interp.Tensor // each producer's latest result

	// Copies counts the host-to-device (Up) and device-to-host (Down)
	// copies of activations made by the dense layers, and those avoided
	// (Kept: an input already on the device; Skipped: an output not copied
	// back).
	Up, Down, Kept, Skipped int
}

type devCopy struct {
	p     *cuda.DevicePtr
	bytes int64
}

// DenseLayer is the device state of one fused.dense op.
type DenseLayer struct {
	Op    *textir.Operation
	Dense *abi.Dense
	Fn    *cuda.Function
	// Reduce is the split-K reduce kernel (nil when the layer does not
	// split K).
	Reduce  *cuda.Function
	W, Bias *cuda.DevicePtr // uploaded once
	ins     []*cuda.DevicePtr
	out     *cuda.DevicePtr
	ws      *cuda.DevicePtr // split-K workspace
	args    []any           // the last launch's arguments
	rargs   []any           // the last reduce launch's arguments (nil: no reduce)
	batch   int64
	splits  int64 // K slices of the last launch
	// Launches counts the kernel launches of this layer.
	Launches int
}

// NewDense returns the dense-layer runtime of r (sharing its module,
// which must hold the @dense kernels, and its stream).
func NewDense(r *Runtime) *Dense {
	return &Dense{r: r, layers: map[*textir.Operation]*DenseLayer{}, dev: map[*interp.Tensor]devCopy{},
		last: map[*textir.Operation]*interp.Tensor{}}
}

// Install makes runs with opts evaluate fused.dense on the GPU, and
// fused.embedding_layer through r (as r.Install does) recording the
// device copy of its output for the dense layers that read it.
func (d *Dense) Install(opts *exec.Options) {
	if opts.Kernels == nil {
		opts.Kernels = map[string]exec.Kernel{}
	}
	opts.Kernels[fused.DenseOp] = d.kernel
	opts.Kernels[fused.EmbeddingLayerOp] = d.embeddingKernel
}

// Layers returns the dense layers run so far, in the order of their first
// run (the program's order).
func (d *Dense) Layers() []*DenseLayer {
	d.mu.Lock()
	defer d.mu.Unlock()
	return append([]*DenseLayer(nil), d.order...)
}

// Close frees the dense layers' device memory.
func (d *Dense) Close() {
	d.mu.Lock()
	defer d.mu.Unlock()
	for _, l := range d.order {
		for _, p := range append([]*cuda.DevicePtr{l.W, l.Bias, l.out, l.ws}, l.ins...) {
			if p != nil {
				p.Close()
			}
		}
	}
	d.order, d.layers = nil, map[*textir.Operation]*DenseLayer{}
	d.dev, d.last = map[*interp.Tensor]devCopy{}, map[*textir.Operation]*interp.Tensor{}
}

// remember records that t, the result of producer, lives at p on the
// device (forgetting producer's previous result).
func (d *Dense) remember(producer *textir.Operation, t *interp.Tensor, p *cuda.DevicePtr) {
	if old, ok := d.last[producer]; ok {
		delete(d.dev, old)
	}
	d.last[producer] = t
	d.dev[t] = devCopy{p: p, bytes: 4 * int64(t.Len())}
}

func (d *Dense) embeddingKernel(op *textir.Operation, in []*interp.Tensor, st *exec.State) ([]*interp.Tensor, error) {
	res, err := d.r.kernel(op, in, st)
	if err != nil {
		return nil, err
	}
	d.r.mu.Lock()
	l := d.r.layers[op]
	d.r.mu.Unlock()
	if l != nil && l.out != nil && len(res) == 1 && res[0].Len() > 0 {
		d.mu.Lock()
		d.remember(op, res[0], l.out)
		d.mu.Unlock()
	}
	return res, nil
}

// layer returns the device state of op, uploading its weights on first
// use.
func (d *Dense) layer(op *textir.Operation, x *abi.DenseInputs, dn *abi.Dense) (*DenseLayer, error) {
	if l, ok := d.layers[op]; ok {
		return l, nil
	}
	name, err := KernelName(op)
	if err != nil {
		return nil, err
	}
	fn, err := d.r.mod.Function(name)
	if err != nil {
		return nil, op.Errorf("%v (was the PTX made with --fuse-dense?)", err)
	}
	want := dn.NumOperands() + 2
	if dn.Split() {
		want += 2 // ws, S
	}
	if n := fn.NumParams(); n >= 0 && n != want {
		return nil, op.Errorf("kernel %q takes %d parameters; the layer's kernel takes %d (was the PTX made from this model?)", name, n, want)
	}
	l := &DenseLayer{Op: op, Dense: dn, Fn: fn}
	if dn.Split() {
		ref, ok := op.LookupAttr("reduce_kernel").(textir.SymbolRefAttr)
		if !ok {
			return nil, op.Errorf("requires symbol reference attribute 'reduce_kernel'")
		}
		rname := ref.Root
		if n := len(ref.Nested); n > 0 {
			rname = ref.Nested[n-1]
		}
		if l.Reduce, err = d.r.mod.Function(rname); err != nil {
			return nil, op.Errorf("%v (was the PTX made with --fuse-dense?)", err)
		}
		if n, want := l.Reduce.NumParams(), dn.NumOperands()-len(dn.Ks)+3; n >= 0 && n != want {
			return nil, op.Errorf("kernel %q takes %d parameters; the layer's reduce kernel takes %d (was the PTX made from this model?)", rname, n, want)
		}
	}
	upload := func(v []float32) (*cuda.DevicePtr, error) {
		p, err := d.r.ctx.Alloc(max(4*int64(len(v)), 4))
		if err != nil {
			return nil, fmt.Errorf("weights (%d bytes): %w", 4*len(v), err)
		}
		if err := cuda.CopyToDevice(p, v); err != nil {
			p.Close()
			return nil, err
		}
		return p, nil
	}
	if l.W, err = upload(x.W); err != nil {
		return nil, err
	}
	if dn.Bias {
		if l.Bias, err = upload(x.Bias); err != nil {
			l.W.Close()
			return nil, err
		}
	}
	l.ins = make([]*cuda.DevicePtr, len(dn.Ks))
	d.layers[op] = l
	d.order = append(d.order, l)
	return l, nil
}

// needsHost reports whether op's result must be copied back: it is
// fetched, or read by an op that does not run on the GPU.
func (d *Dense) needsHost(op *textir.Operation) bool {
	if d.Fetch == nil || d.Fetch[exec.OpName(op)] {
		return true
	}
	for u := range op.Result(0).Users() {
		if u.Name() != fused.DenseOp {
			return true
		}
	}
	return false
}

func (d *Dense) kernel(op *textir.Operation, in []*interp.Tensor, st *exec.State) ([]*interp.Tensor, error) {
	m, err := st.Memo(func() (any, error) { return abi.DenseOf(op) })
	if err != nil {
		return nil, err
	}
	dn := m.(*abi.Dense)
	x, err := dn.Inputs(op, in)
	if err != nil {
		return nil, err
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	l, err := d.layer(op, x, dn)
	if err != nil {
		return nil, err
	}
	res := make([]float32, x.B*dn.N)
	if len(res) == 0 {
		return one(x.B, dn.N, res)
	}
	s := d.r.stream
	var args []any
	for i, t := range in[:len(dn.Ks)] {
		if c, ok := d.dev[t]; ok && c.bytes == 4*int64(len(x.X[i])) {
			args = append(args, c.p)
			d.Kept++
			continue
		}
		p, err := d.r.grow(&l.ins[i], 4*int64(len(x.X[i])))
		if err != nil {
			return nil, err
		}
		if err := cuda.CopyToDeviceAsync(p, x.X[i], s); err != nil {
			return nil, err
		}
		d.Up++
		args = append(args, p)
	}
	args = append(args, l.W)
	if dn.Bias {
		args = append(args, l.Bias)
	}
	out, err := d.r.grow(&l.out, 4*int64(len(res)))
	if err != nil {
		return nil, err
	}
	if err := out.Memset8Async(0xff, s); err != nil { // NaN: what the kernel does not write shows
		return nil, err
	}
	l.args, l.batch, l.splits, l.rargs = append(args, out), x.B, dn.Splits(x.B), nil
	if dn.Split() {
		ws, err := d.r.grow(&l.ws, max(dn.WorkspaceBytes(x.B, l.splits), 8))
		if err != nil {
			return nil, err
		}
		l.args = append(l.args, ws, x.B, l.splits)
		if l.splits > 1 {
			l.rargs = []any{ws}
			if dn.Bias {
				l.rargs = append(l.rargs, l.Bias)
			}
			l.rargs = append(l.rargs, out, x.B, l.splits)
		}
	} else {
		l.args = append(l.args, x.B)
	}
	if err := d.launch(l); err != nil {
		return nil, op.Errorf("launch: %v", err)
	}
	if d.needsHost(op) {
		if err := s.Synchronize(); err != nil {
			return nil, op.Errorf("kernel: %v", err)
		}
		if err := cuda.CopyFromDevice(res, out); err != nil {
			return nil, err
		}
		d.Down++
	} else {
		d.Skipped++
	}
	ts, err := one(x.B, dn.N, res)
	if err != nil {
		return nil, err
	}
	d.remember(op, ts[0], out)
	return ts, nil
}

func one(b, n int64, v []float32) ([]*interp.Tensor, error) {
	t, err := interp.New([]int64{b, n}, v)
	if err != nil {
		return nil, err
	}
	return []*interp.Tensor{t}, nil
}

// launch launches the layer's product kernel over the last run's
// arguments and, for a launch in several K slices, the reduce kernel after
// it on the same stream.
func (d *Dense) launch(l *DenseLayer) error {
	l.Launches++
	dn := l.Dense
	if err := l.Fn.Launch(cuda.Dim(int(dn.LaunchGrid(l.batch, max(l.splits, 1)))), cuda.Dim(int(dn.Threads())), 0, d.r.stream, l.args...); err != nil {
		return err
	}
	if l.rargs == nil {
		return nil
	}
	return l.Reduce.Launch(cuda.Dim(int(dn.ReduceGrid(l.batch))), cuda.Dim(abi.ReduceThreads), 0, d.r.stream, l.rargs...)
}

// Capture records the last run's launches of every dense layer, in the
// program's order, over the same device buffers, as one CUDA graph:
// replaying it recomputes the dense part from the inputs then on the
// device.
func (d *Dense) Capture() (*cuda.Graph, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if len(d.order) == 0 {
		return nil, fmt.Errorf("no dense layer has run")
	}
	s := d.r.stream
	if err := s.BeginCapture(); err != nil {
		return nil, err
	}
	var lerr error
	for _, l := range d.order {
		if l.args == nil {
			continue
		}
		if lerr = d.launch(l); lerr != nil {
			break
		}
	}
	g, err := s.EndCapture()
	if lerr != nil {
		if g != nil {
			g.Close()
		}
		return nil, lerr
	}
	return g, err
}

// Time replays the graph of Capture warmup times, then iters times one by
// one between device events, and returns the median and the minimum.
func (d *Dense) Time(warmup, iters int) (median, least time.Duration, err error) {
	if iters < 1 {
		return 0, 0, fmt.Errorf("iters must be positive")
	}
	g, err := d.Capture()
	if err != nil {
		return 0, 0, err
	}
	defer g.Close()
	s := d.r.stream
	start, err := d.r.ctx.NewEvent()
	if err != nil {
		return 0, 0, err
	}
	defer start.Close()
	end, err := d.r.ctx.NewEvent()
	if err != nil {
		return 0, 0, err
	}
	defer end.Close()
	for range warmup {
		if err := g.Launch(s); err != nil {
			return 0, 0, err
		}
	}
	ds := make([]time.Duration, 0, iters)
	for range iters {
		if err := start.Record(s); err != nil {
			return 0, 0, err
		}
		if err := g.Launch(s); err != nil {
			return 0, 0, err
		}
		if err := end.Record(s); err != nil {
			return 0, 0, err
		}
		if err := end.Synchronize(); err != nil {
			return 0, 0, err
		}
		e, err := cuda.Elapsed(start, end)
		if err != nil {
			return 0, 0, err
		}
		ds = append(ds, e)
	}
	slices.Sort(ds)
	return ds[len(ds)/2], ds[0], nil
}
