package shardrt

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"unsafe"

	"github.com/recom-compiler/recom/dialects/fused/abi"
	"github.com/recom-compiler/recom/interp"
	"github.com/recom-compiler/recom/runtime/cuda"
	"github.com/recom-compiler/recom/runtime/nccl"
)

// ensureHost makes *p a pinned buffer of at least n bytes.
func ensureHost(c *cuda.Context, p **cuda.HostBuffer, n int64) error {
	if *p != nil && (*p).Size() >= n {
		return nil
	}
	if *p != nil {
		(*p).Close()
		*p = nil
	}
	b, err := c.AllocHost(max(n, 4))
	if err != nil {
		return err
	}
	*p = b
	return nil
}

// ensureDevice makes *p a device buffer of at least n bytes.
func ensureDevice(c *cuda.Context, p **cuda.DevicePtr, n int64) error {
	if *p != nil && (*p).Size() >= n {
		return nil
	}
	if *p != nil {
		(*p).Close()
		*p = nil
	}
	b, err := c.Alloc(max(n, 4))
	if err != nil {
		return err
	}
	*p = b
	return nil
}

// Run runs one batch from the feeds and returns the layer's [B, W]
// output. Batches run one at a time.
func (l *Layer) Run(feeds map[string]*interp.Tensor) (*interp.Tensor, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.last = 0
	// The host side: every shard packs, the interpreter computes the
	// routes' denominators, in parallel.
	errs := make([]error, len(l.shards)+1)
	var dens []*interp.Tensor
	var wg sync.WaitGroup
	for i, s := range l.shards {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s.packed, errs[i] = s.packer.Pack(feeds, func(_, n int64) ([]byte, error) {
				if err := ensureHost(s.ctx, &s.pinIn, n); err != nil {
					return nil, err
				}
				return s.pinIn.Bytes()[:n], nil
			})
		}()
	}
	if len(l.dens) > 0 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			dens, errs[len(l.shards)] = l.prog.Evaluate(context.Background(), feeds, l.dens, l.iopts)
		}()
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	b := l.shards[0].packed.Batch
	for _, s := range l.shards[1:] {
		if s.packed.Batch != b {
			return nil, s.op.Errorf("packed a batch of %d rows, the first device's layer %d", s.packed.Batch, b)
		}
	}
	if b > interp.MaxElements/max(l.width, 1) {
		return nil, &interp.TooLargeError{What: fmt.Sprintf("the output of %d rows of %d floats", b, l.width), Limit: interp.MaxElements}
	}
	if b == 0 {
		return interp.New([]int64{0, l.width}, []float32{})
	}
	if l.start != nil {
		if err := l.start.Record(l.xstream); err != nil {
			return nil, err
		}
	}
	for _, s := range l.shards {
		if err := l.enqueueShard(s, b); err != nil {
			return nil, err
		}
	}
	if l.exchange == nil {
		s := l.shards[0]
		n := 4 * b * l.width
		if err := ensureHost(s.ctx, &l.pinOut, n); err != nil {
			return nil, err
		}
		if err := cuda.CopyDeviceToHostAsync(l.pinOut, 0, s.out, 0, n, s.stream); err != nil {
			return nil, err
		}
		if err := s.stream.Synchronize(); err != nil {
			return nil, err
		}
		return l.output(b)
	}
	if err := l.enqueueExchange(b, dens); err != nil {
		return nil, err
	}
	if err := l.xstream.Synchronize(); err != nil {
		return nil, err
	}
	if l.start != nil {
		if d, err := cuda.Elapsed(l.start, l.end); err == nil {
			l.last = d
		}
	}
	return l.output(b)
}

func (l *Layer) output(b int64) (*interp.Tensor, error) {
	out := make([]float32, b*l.width)
	// One copy of the pinned bytes (little-endian float32, as the host's):
	// a conversion per element cost milliseconds on a [2048, 8120] layer.
	copy(unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(out))), 4*len(out)), l.pinOut.Bytes()[:4*len(out)])
	return interp.New([]int64{b, l.width}, out)
}

// enqueueShard copies the shard's packed inputs in and launches its
// kernel on its stream (after the batch's start event, in Streams mode),
// then records its event.
func (l *Layer) enqueueShard(s *shard, b int64) error {
	pk := s.packed
	if l.start != nil {
		if err := s.stream.WaitEvent(l.start); err != nil {
			return err
		}
	}
	n := int64(len(pk.Inputs))
	if err := ensureDevice(s.ctx, &s.devIn, n+pk.Scratch); err != nil {
		return err
	}
	if err := ensureDevice(s.ctx, &s.out, 4*b*s.layer.Width); err != nil {
		return err
	}
	if err := cuda.CopyHostToDeviceAsync(s.devIn, 0, s.pinIn, 0, n, s.stream); err != nil {
		return err
	}
	if pk.Grid > 0 {
		if err := s.fn.Launch(cuda.Dim(int(pk.Grid)), cuda.Dim(int(pk.Block)), 0, s.stream, s.tables, s.devIn.Addr(), s.out.Addr(), pk.Batch, pk.Tasks); err != nil {
			return s.op.Errorf("launch: %v", err)
		}
	} else if err := s.out.Memset32Async(0, s.stream); err != nil {
		return err
	}
	return s.done.Record(s.stream)
}

// enqueueExchange gathers the partials on the dense device, uploads the
// denominators and launches the combine kernel, then copies the output
// back, all on the exchange stream.
func (l *Layer) enqueueExchange(b int64, dens []*interp.Tensor) error {
	e := l.exchange
	var total int64
	for _, w := range e.Widths {
		total += w
	}
	if err := ensureDevice(l.dctx, &l.gather, 4*b*total); err != nil {
		return err
	}
	if err := l.gatherPartials(b); err != nil {
		return err
	}
	nd := int64(e.Dens) * b
	if err := ensureHost(l.dctx, &l.pinDens, 4*nd); err != nil {
		return err
	}
	if err := ensureDevice(l.dctx, &l.devDens, 4*nd); err != nil {
		return err
	}
	bs := l.pinDens.Bytes()
	for k, t := range dens {
		f := t.Float32s()
		if f == nil || int64(len(f)) != b {
			return l.xop.Errorf("den #%d: want %d float32s, got %v of shape %s", k, b, t.DType(), interp.ShapeString(t.Shape()))
		}
		for j, v := range f {
			putF32(bs, int64(k)*b+int64(j), v)
		}
	}
	if nd > 0 {
		if err := cuda.CopyHostToDeviceAsync(l.devDens, 0, l.pinDens, 0, 4*nd, l.xstream); err != nil {
			return err
		}
	}
	n := 4 * b * e.Width
	if err := ensureDevice(l.dctx, &l.out, n); err != nil {
		return err
	}
	if err := ensureHost(l.dctx, &l.pinOut, n); err != nil {
		return err
	}
	grid := (b*e.Width + abi.CombineBlock - 1) / abi.CombineBlock
	if err := l.combine.Launch(cuda.Dim(int(grid)), cuda.Dim(abi.CombineBlock), 0, l.xstream, l.mapWords, l.gather, l.devDens, l.out, b, e.Width); err != nil {
		return l.xop.Errorf("launch: %v", err)
	}
	if err := cuda.CopyDeviceToHostAsync(l.pinOut, 0, l.out, 0, n, l.xstream); err != nil {
		return err
	}
	if l.end != nil {
		return l.end.Record(l.xstream)
	}
	return nil
}

// gatherPartials puts partial i at float b*offset_i of the gather buffer:
// device-to-device copies after each shard's event (Streams), or an NCCL
// group of a send per shard to the dense rank and its receives (NCCL).
func (l *Layer) gatherPartials(b int64) error {
	local := func(s *shard) error {
		if err := l.xstream.WaitEvent(s.done); err != nil {
			return err
		}
		return cuda.CopyDeviceToDeviceAsync(l.gather, 4*b*s.offset, s.out, 0, 4*b*s.layer.Width, l.xstream)
	}
	if l.opts.Mode == Streams {
		for _, s := range l.shards {
			if err := local(s); err != nil {
				return err
			}
		}
		return nil
	}
	dense := int(l.exchange.Device)
	if l.dense >= 0 {
		if err := local(l.shards[l.dense]); err != nil {
			return err
		}
	}
	return l.opts.NCCL.Group(func() error {
		for i, s := range l.shards {
			if i == l.dense {
				continue
			}
			count := b * s.layer.Width
			if err := l.comms[s.device].Send(s.out, count, nccl.Float32, dense, s.stream); err != nil {
				return err
			}
			if err := l.comms[dense].Recv(nccl.At(l.gather, 4*b*s.offset), count, nccl.Float32, int(s.device), l.xstream); err != nil {
				return err
			}
		}
		return nil
	})
}
