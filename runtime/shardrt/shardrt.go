// Package shardrt runs a sharded embedding layer (--shard: the layer's
// tables over several GPUs of one host) natively, batch after batch: the
// per-device layers' kernels, each on its own stream with its own tables
// arena and packer, and the exchange that assembles the layer's output on
// the dense device (abi/exchange.go: the partial outputs gathered into one
// buffer, the row-wise columns' pieces summed, mean and sqrtn columns
// divided by their bags' denominators, by the combine kernel).
//
// Two modes move the partials to the dense device:
//
//   - Streams: every shard on one GPU, each device layer on a stream of
//     its own; the exchange stream waits for each shard's event
//     (cuStreamWaitEvent) and gathers the partials with device-to-device
//     copies, standing in for the collective. This is how the sharded
//     program is run and checked on a machine of one GPU.
//   - NCCL: shard d on CUDA device Ordinals[d], one communicator per
//     device (ncclCommInitAll); the gather is one NCCL group of an
//     ncclSend per shard to the dense rank and the dense rank's ncclRecv
//     into the gather buffer (runtime/nccl), the dense device's own
//     partial copied on the device.
//
// A layer that was not sharded (a fused.embedding_layer without an
// exchange) runs as one shard with no exchange, on the same code path, so
// that Bench compares the two.
//
// The host side of a batch: each shard's packer (session.NativePacker:
// runtime/hostpack, the route's results computed by the interpreter)
// packs its layer's inputs into pinned memory, in parallel with the other
// shards' and with the interpreter computing the routes' denominators;
// each shard then copies its inputs in and launches its kernel on its
// stream. Run waits for the exchange stream and returns the [B, W] output.
package shardrt

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/recom-compiler/recom/dialects/fused"
	"github.com/recom-compiler/recom/dialects/fused/abi"
	"github.com/recom-compiler/recom/interp"
	"github.com/recom-compiler/recom/interp/exec"
	"github.com/recom-compiler/recom/runtime/cuda"
	"github.com/recom-compiler/recom/runtime/nccl"
	"github.com/recom-compiler/recom/runtime/session"
	"github.com/recom-compiler/recom/textir"
)

// Mode says how the partials reach the dense device.
type Mode string

const (
	// Streams runs every shard on one GPU, a stream each, and gathers with
	// device-to-device copies.
	Streams Mode = "streams"
	// NCCL runs shard d on device Ordinals[d] and gathers with NCCL.
	NCCL Mode = "nccl"
)

// Options configure New.
type Options struct {
	Mode Mode
	// Contexts are the CUDA contexts: one (every shard's) for Streams;
	// one per device of the plan for NCCL, Contexts[d] for device d.
	Contexts []*cuda.Context
	// NCCL is the library (NCCL mode), and Ordinals the CUDA devices of
	// the plan's devices (ncclCommInitAll's device list).
	NCCL     *nccl.Library
	Ordinals []int
	// Interp gives the program's variables their values, as for the
	// interpreter.
	Interp *exec.Options
	// Packer makes each device layer's packer (nil: session.NativePacker).
	Packer session.PackerFactory
}

// shard is one device layer.
type shard struct {
	op     *textir.Operation
	layer  *abi.Layer
	device int64
	ctx    *cuda.Context
	stream *cuda.Stream
	fn     *cuda.Function
	tables *cuda.DevicePtr
	packer session.Packer
	done   *cuda.Event
	pinIn  *cuda.HostBuffer
	devIn  *cuda.DevicePtr
	out    *cuda.DevicePtr
	packed *abi.Packed
	offset int64 // its partial's floats per row before it in the gather buffer
}

// LayerOps returns module's fused.exchange ops and its
// fused.embedding_layer ops (a sharded program's device layers, or an
// unsharded program's layer), in program order.
func LayerOps(module *textir.Operation) (exchanges, layers []*textir.Operation) {
	module.Walk(func(op *textir.Operation) bool {
		switch op.Name() {
		case fused.ExchangeOp:
			exchanges = append(exchanges, op)
		case fused.EmbeddingLayerOp:
			layers = append(layers, op)
		}
		return true
	})
	return exchanges, layers
}

// Layer is a sharded embedding layer, ready to run.
type Layer struct {
	opts     Options
	prog     *exec.Program
	iopts    *exec.Options
	exchange *abi.Exchange // nil: an unsharded layer
	xop      *textir.Operation
	shards   []*shard
	dense    int // index into shards of the dense device's shard (-1: none)
	dctx     *cuda.Context
	xstream  *cuda.Stream
	combine  *cuda.Function
	mapWords *cuda.DevicePtr
	dens     []*textir.Value
	pinDens  *cuda.HostBuffer
	devDens  *cuda.DevicePtr
	gather   *cuda.DevicePtr
	out      *cuda.DevicePtr
	pinOut   *cuda.HostBuffer
	comms    []*nccl.Comm
	start    *cuda.Event
	end      *cuda.Event
	modules  []*cuda.Module
	width    int64
	closers  []func() error
	mu       sync.Mutex
	last     time.Duration // device time of the last batch (Streams)
}

// New prepares the sharded layer of module: the one fused.exchange and its
// device layers (or, without an exchange, the one fused.embedding_layer),
// their tables uploaded, kernels loaded from ptx, packers made.
func New(ctx context.Context, module *textir.Operation, ptx []byte, opts Options) (l *Layer, err error) {
	if ctx == nil {
		ctx = context.Background()
	}
	xops, layers := LayerOps(module)
	// made, not l: a `return nil, err` has set l to nil before this runs.
	made := &Layer{opts: opts, dense: -1}
	l = made
	defer func() {
		if err != nil {
			made.Close()
			l = nil
		}
	}()
	var devOps []*textir.Operation
	switch {
	case len(xops) == 1:
		l.xop = xops[0]
		if l.exchange, err = abi.ExchangeOf(l.xop); err != nil {
			return nil, err
		}
		for i := range l.exchange.Devices {
			d := l.xop.Operand(i).DefiningOp()
			if d == nil || d.Name() != fused.EmbeddingLayerOp {
				return nil, l.xop.Errorf("partial #%d is not a device's fused.embedding_layer", i)
			}
			devOps = append(devOps, d)
		}
		for i := len(l.exchange.Devices); i < l.xop.NumOperands(); i++ {
			l.dens = append(l.dens, l.xop.Operand(i))
		}
		l.width = l.exchange.Width
	case len(xops) > 1:
		return nil, fmt.Errorf("shardrt: the program has %d sharded layers; one is run", len(xops))
	case len(layers) == 1:
		devOps = layers
	default:
		return nil, fmt.Errorf("shardrt: the program has no fused.exchange and %d embedding layers; it needs a sharded layer (--shard) or one layer", len(layers))
	}
	if err := l.contexts(devOps); err != nil {
		return nil, err
	}
	if l.prog, err = exec.Compile(module); err != nil {
		return nil, err
	}
	l.iopts = &exec.Options{}
	if opts.Interp != nil {
		c := *opts.Interp
		l.iopts = &c
	}
	if l.iopts.Variables == nil {
		l.iopts.Variables = map[string]*interp.Tensor{}
	}
	mods := map[*cuda.Context]*cuda.Module{}
	for _, s := range l.shards {
		if mods[s.ctx] == nil {
			m, err := s.ctx.LoadModule(ptx)
			if err != nil {
				return nil, err
			}
			mods[s.ctx] = m
			l.modules = append(l.modules, m)
		}
		if err := l.readyShard(ctx, s, mods[s.ctx]); err != nil {
			return nil, err
		}
	}
	if l.exchange == nil {
		l.width = l.shards[0].layer.Width
		return l, nil
	}
	if err := l.readyExchange(mods); err != nil {
		return nil, err
	}
	return l, nil
}

// contexts gives each device layer its shard, context and stream.
func (l *Layer) contexts(devOps []*textir.Operation) error {
	o := &l.opts
	switch o.Mode {
	case Streams:
		if len(o.Contexts) != 1 {
			return fmt.Errorf("shardrt: streams mode runs on one context, got %d", len(o.Contexts))
		}
	case NCCL:
		if l.exchange == nil {
			return fmt.Errorf("shardrt: NCCL mode needs a sharded layer")
		}
		n := 0
		for _, d := range l.exchange.Devices {
			n = max(n, int(d)+1)
		}
		n = max(n, int(l.exchange.Device)+1)
		if len(o.Contexts) < n || len(o.Ordinals) != len(o.Contexts) {
			return fmt.Errorf("shardrt: the plan uses %d devices; NCCL mode got %d contexts and %d ordinals", n, len(o.Contexts), len(o.Ordinals))
		}
		if o.NCCL == nil {
			return fmt.Errorf("shardrt: NCCL mode needs the NCCL library")
		}
	default:
		return fmt.Errorf("shardrt: unknown mode %q (streams or nccl)", o.Mode)
	}
	for i, op := range devOps {
		lay, err := abi.LayerOf(op)
		if err != nil {
			return err
		}
		s := &shard{op: op, layer: lay, ctx: o.Contexts[0]}
		if dv, ok := op.LookupAttr(fused.DeviceAttr).(textir.IntegerAttr); ok {
			s.device = dv.Value
		}
		if l.exchange != nil {
			s.device = l.exchange.Devices[i]
			if s.device == l.exchange.Device {
				l.dense = i
			}
			if o.Mode == NCCL {
				s.ctx = o.Contexts[s.device]
			}
		}
		var err2 error
		if s.stream, err2 = s.ctx.NewNonBlockingStream(); err2 != nil {
			return err2
		}
		l.closers = append(l.closers, s.stream.Close)
		if s.done, err2 = s.ctx.NewSyncEvent(); err2 != nil {
			return err2
		}
		l.closers = append(l.closers, s.done.Close)
		l.shards = append(l.shards, s)
	}
	l.dctx = o.Contexts[0]
	if l.exchange != nil && o.Mode == NCCL {
		l.dctx = o.Contexts[l.exchange.Device]
	}
	return nil
}

// readyShard uploads the shard's tables arena, finds its kernel and makes
// its packer.
func (l *Layer) readyShard(ctx context.Context, s *shard, mod *cuda.Module) error {
	lay := s.layer
	kernel, _ := s.op.LookupAttr("kernel").(textir.SymbolRefAttr)
	name := kernel.Root
	if len(kernel.Nested) > 0 {
		name = kernel.Nested[len(kernel.Nested)-1]
	}
	fn, err := mod.Function(name)
	if err != nil {
		return s.op.Errorf("%v (was the PTX made from this program?)", err)
	}
	if n := fn.NumParams(); n >= 0 && n != 5 {
		return s.op.Errorf("kernel %q takes %d parameters; a layer's kernel takes 5", name, n)
	}
	s.fn = fn
	arena, err := lay.TableArena(nil)
	if err != nil {
		return s.op.Errorf("%v", err)
	}
	info := &session.LayerInfo{Op: s.op, Layer: lay, Tables: make([]*interp.Tensor, s.op.NumOperands()), Program: l.prog, Interp: l.iopts}
	k := 0
	for i := range lay.Columns {
		c := &lay.Columns[i]
		ts, err := l.prog.Evaluate(ctx, nil, []*textir.Value{s.op.Operand(k)}, l.iopts)
		if err != nil {
			return fmt.Errorf("shardrt: the table of column %q: %w", c.Name, err)
		}
		f := ts[0].Float32s()
		if f == nil || ts[0].Rank() != 2 || ts[0].Dim(0) != c.Rows || ts[0].Dim(1) != c.Width {
			return s.op.Errorf("column %q: the table must be a float32 %dx%d matrix, got %v of shape %s", c.Name, c.Rows, c.Width, ts[0].DType(), interp.ShapeString(ts[0].Shape()))
		}
		copy(arena[c.TableOffset:], f)
		t, err := interp.New([]int64{c.Rows, c.Width}, arena[c.TableOffset:c.TableOffset+c.Rows*c.Width])
		if err != nil {
			return err
		}
		info.Tables[k] = t
		for j := 1; j < c.NumOperands(); j++ {
			info.Inputs = append(info.Inputs, s.op.Operand(k+j))
		}
		k += c.NumOperands()
	}
	if s.tables, err = s.ctx.Alloc(max(4*int64(len(arena)), 4)); err != nil {
		return s.op.Errorf("tables arena (%d bytes): %v", 4*len(arena), err)
	}
	l.closers = append(l.closers, s.tables.Close)
	if err := cuda.CopyToDevice(s.tables, arena); err != nil {
		return err
	}
	pf := l.opts.Packer
	if pf == nil {
		pf = session.NativePacker
	}
	s.packer, err = pf(info)
	return err
}

// readyExchange loads the combine kernel, uploads the exchange's map and
// makes the communicators (NCCL).
func (l *Layer) readyExchange(mods map[*cuda.Context]*cuda.Module) error {
	e := l.exchange
	kernel, _ := l.xop.LookupAttr("kernel").(textir.SymbolRefAttr)
	name := kernel.Root
	if len(kernel.Nested) > 0 {
		name = kernel.Nested[len(kernel.Nested)-1]
	}
	mod := mods[l.dctx]
	if mod == nil {
		return l.xop.Errorf("the dense device %d runs no shard", e.Device)
	}
	fn, err := mod.Function(name)
	if err != nil {
		return l.xop.Errorf("%v (was the PTX made from this program?)", err)
	}
	if n := fn.NumParams(); n >= 0 && n != 6 {
		return l.xop.Errorf("kernel %q takes %d parameters; the combine kernel takes 6", name, n)
	}
	l.combine = fn
	words := e.MapWords()
	if l.mapWords, err = l.dctx.Alloc(4 * int64(len(words))); err != nil {
		return err
	}
	l.closers = append(l.closers, l.mapWords.Close)
	if err := cuda.CopyToDevice(l.mapWords, words); err != nil {
		return err
	}
	if l.xstream, err = l.dctx.NewNonBlockingStream(); err != nil {
		return err
	}
	l.closers = append(l.closers, l.xstream.Close)
	var off int64
	for _, s := range l.shards {
		s.offset = off
		off += s.layer.Width
	}
	if l.opts.Mode == Streams {
		if l.start, err = l.dctx.NewEvent(); err != nil {
			return err
		}
		l.closers = append(l.closers, l.start.Close)
		if l.end, err = l.dctx.NewEvent(); err != nil {
			return err
		}
		l.closers = append(l.closers, l.end.Close)
	}
	if l.opts.Mode == NCCL {
		if l.comms, err = l.opts.NCCL.InitAll(l.opts.Ordinals); err != nil {
			return err
		}
		for _, c := range l.comms {
			l.closers = append(l.closers, c.Close)
		}
	}
	return nil
}

// Width is the layer's output width.
func (l *Layer) Width() int64 { return l.width }

// Shards is the number of device layers.
func (l *Layer) Shards() int { return len(l.shards) }

// DeviceTime is the device time of the last batch from its first copy in
// to its copy out (Streams mode, sharded; 0 otherwise).
func (l *Layer) DeviceTime() time.Duration { return l.last }

// Packers names each shard's packer.
func (l *Layer) Packers() []string {
	var out []string
	for _, s := range l.shards {
		out = append(out, s.packer.Name())
	}
	return out
}

// Close releases what New made; closing twice is a no-op.
func (l *Layer) Close() error {
	var errs []error
	for i := len(l.closers) - 1; i >= 0; i-- {
		errs = append(errs, l.closers[i]())
	}
	l.closers = nil
	for _, s := range l.shards {
		for _, c := range []interface{ Close() error }{s.pinIn, s.devIn, s.out} {
			if c != nil && !isNil(c) {
				errs = append(errs, c.Close())
			}
		}
		s.pinIn, s.devIn, s.out = nil, nil, nil
	}
	for _, c := range []interface{ Close() error }{l.pinDens, l.devDens, l.gather, l.out, l.pinOut} {
		if c != nil && !isNil(c) {
			errs = append(errs, c.Close())
		}
	}
	l.pinDens, l.devDens, l.gather, l.out, l.pinOut = nil, nil, nil, nil, nil
	for _, m := range l.modules {
		errs = append(errs, m.Close())
	}
	l.modules = nil
	return errors.Join(errs...)
}

func isNil(c interface{ Close() error }) bool {
	switch v := c.(type) {
	case *cuda.HostBuffer:
		return v == nil
	case *cuda.DevicePtr:
		return v == nil
	}
	return false
}
