package session

import (
	"fmt"
	"math/bits"
	"strconv"
	"strings"
	"time"
	"unsafe"

	"github.com/recom-compiler/recom/dialects/fused/abi"
	"github.com/recom-compiler/recom/interp"
	"github.com/recom-compiler/recom/runtime/cublaslt"
	"github.com/recom-compiler/recom/runtime/cuda"
	"github.com/recom-compiler/recom/runtime/densekern"
)

// A slot is what one batch in flight uses: a stream, the pinned input
// and output buffers, the device input buffers (one region per layer; the
// first also holds the uploaded host values, before its packed inputs),
// and per batch size a frame (device results, workspaces, graphs).
type slot struct {
	s      *Session
	idx    int
	stream *cuda.Stream
	done   *cuda.Event
	// timed: the last launch recorded start and end; launches counts
	// the slot's launches (one in timeEvery is timed).
	timed      bool
	launches   int64
	start, end *cuda.Event // nil with NoTiming
	pinIn      []*cuda.HostBuffer
	devIn      []*cuda.DevicePtr
	pinOut     *cuda.HostBuffer
	frames     map[int64]*frame
	tick       int64
	inflight   bool // a graph launched and not waited for
	// cur is the batch in the slot (one at a time: launch to release),
	// its buffers reused from batch to batch; key is its graph's key.
	cur  batch
	key  []byte
	offs []int64 // the uploads' offsets of the batch, then their total
}

// frame is a slot's device state for one batch size.
type frame struct {
	b          int64
	bufs       map[*devValue]*cuda.DevicePtr // results not copied back
	arena      *cuda.DevicePtr               // results copied back
	arenaBytes int64
	outOff     map[*devValue]int64
	ws         *cuda.DevicePtr // the dense steps' workspace; nil without one
	upOff      []int64         // per upload, in region 0
	prefix     int64           // bytes of the uploads
	graphs     map[string]*cuda.Graph
	used       int64
	warm       bool // the steps that asked for it ran once (Layout.Warm)
}

// batch is one batch's state between launch and finish.
type batch struct {
	b       int64
	env     []*interp.Tensor
	regions []regionUse
	packed  []*abi.Packed
	fr      *frame
	empty   bool
}

// regionUse is a batch's use of an input region: the uploads' prefix
// (region 0), the packed bytes, the bytes the graph copies for them
// (bucket) and the kernel's scratch after them.
type regionUse struct{ prefix, bytes, bucket, scratch int64 }

func (s *Session) nregions() int { return max(len(s.plan.layers), 1) }

func (s *Session) newSlot(i int) (*slot, error) {
	sl := &slot{s: s, idx: i, frames: map[int64]*frame{}, pinIn: make([]*cuda.HostBuffer, s.nregions()),
		devIn: make([]*cuda.DevicePtr, s.nregions())}
	var err error
	if sl.stream, err = s.cctx.NewNonBlockingStream(); err != nil {
		return nil, err
	}
	if sl.done, err = s.cctx.NewSyncEvent(); err != nil {
		sl.close()
		return nil, err
	}
	if !s.opts.NoTiming {
		if sl.start, err = s.cctx.NewEvent(); err == nil {
			sl.end, err = s.cctx.NewEvent()
		}
		if err != nil {
			sl.close()
			return nil, err
		}
	}
	return sl, nil
}

const align = 256 // device buffers and pinned regions

func roundUp(n, a int64) int64 { return (n + a - 1) / a * a }

// bucketOf is the number of bytes a graph copies for n packed bytes: n
// rounded up to a sixteenth of its power of two (at least 4 KiB), so that
// batches of one size share a few graphs and copy at most 1/16 more.
func bucketOf(n int64) int64 {
	if n <= 0 {
		return 0
	}
	g := int64(4096)
	if p := int64(1) << (bits.Len64(uint64(n)) - 1); p/16 > g {
		g = p / 16
	}
	return roundUp(n, g)
}

// growCap is the capacity to allocate for need bytes: a quarter more,
// in 64 KiB steps, so that growing stays rare.
func growCap(need int64) int64 { return roundUp(need+need/4, 64<<10) }

// prefixLayout returns the offsets of the uploads in region 0 for a batch
// of b rows, and their total.
func (s *Session) prefixLayout(b int64) ([]int64, int64) {
	offs := s.prefixLayoutInto(nil, b)
	return offs[:len(s.plan.uploads)], offs[len(s.plan.uploads)]
}

// prefixLayoutInto appends to offs the offsets of the uploads in region 0
// for a batch of b rows, then their total.
func (s *Session) prefixLayoutInto(offs []int64, b int64) []int64 {
	var n int64
	for _, u := range s.plan.uploads {
		offs = append(offs, n)
		n += roundUp(4*b*u.width, align)
	}
	return append(offs, n)
}

// prefixBytes is the total of prefixLayout.
func (s *Session) prefixBytes(b int64) int64 {
	var n int64
	for _, u := range s.plan.uploads {
		n += roundUp(4*b*u.width, align)
	}
	return n
}

// dropGraphs destroys every graph of the slot (a buffer they copy from or
// to moves). The caller holds devMu.
func (sl *slot) dropGraphs() {
	for _, f := range sl.frames {
		for k, g := range f.graphs {
			g.Close()
			delete(f.graphs, k)
		}
	}
}

// ensureHost makes *h hold at least need bytes.
func (sl *slot) ensureHost(h **cuda.HostBuffer, need int64) error {
	if *h != nil && (*h).Size() >= need {
		return nil
	}
	s := sl.s
	s.devMu.Lock()
	defer s.devMu.Unlock()
	sl.dropGraphs()
	if *h != nil {
		if err := (*h).Close(); err != nil {
			return err
		}
		*h = nil
	}
	nb, err := s.cctx.AllocHost(growCap(max(need, 4)))
	if err != nil {
		return err
	}
	*h = nb
	return nil
}

// ensureDevice makes *p hold at least need bytes.
func (sl *slot) ensureDevice(p **cuda.DevicePtr, need int64) error {
	if *p != nil && (*p).Size() >= need {
		return nil
	}
	s := sl.s
	s.devMu.Lock()
	defer s.devMu.Unlock()
	sl.dropGraphs()
	if *p != nil {
		if err := (*p).Close(); err != nil {
			return err
		}
		*p = nil
	}
	nd, err := s.cctx.Alloc(growCap(max(need, 4)))
	if err != nil {
		return err
	}
	*p = nd
	return nil
}

// lookupFeed returns the feed of v by its name or its other name (nil
// when missing).
func lookupFeed(feeds map[string]*interp.Tensor, v *value) *interp.Tensor {
	if t, ok := feeds[v.feed]; ok {
		return t
	}
	return feeds[v.feedAlt]
}

// newBatch readies the slot's batch state for a batch: the host values
// (the constants set, nothing else), no regions used, nothing packed.
func (sl *slot) newBatch() *batch {
	s := sl.s
	b := &sl.cur
	if b.env == nil {
		b.env = make([]*interp.Tensor, s.plan.nhost)
		b.regions = make([]regionUse, s.nregions())
	}
	copy(b.env, s.env0)
	clear(b.regions)
	clear(b.packed)
	b.packed = b.packed[:0]
	b.b, b.fr, b.empty = 0, nil, false
	return b
}

// launch runs the batch's host side (feeds, host steps, packing, staging)
// and launches its graph on the slot's stream. The feeds the session
// reads itself are checked here; the packers look up and check theirs
// while they pack.
func (sl *slot) launch(feeds map[string]*interp.Tensor) (*batch, error) {
	s := sl.s
	p := s.plan
	st := s.stats
	b := sl.newBatch()
	t := time.Now()
	for _, v := range p.ownFeeds {
		ft := lookupFeed(feeds, v)
		if ft == nil {
			return nil, fmt.Errorf("session: feed %q is missing", v.feed)
		}
		if err := checkFeed(v, ft); err != nil {
			return nil, fmt.Errorf("session: %w", err)
		}
		b.env[v.host] = ft
	}
	t = st.add(statFeeds, t)
	for _, hs := range p.pre {
		if err := runHost(hs, b.env, nil); err != nil {
			return nil, err
		}
		t = st.add(hs.statID, t)
	}
	bsz := int64(-1)
	for r, ls := range p.layers {
		pk, err := ls.packer.Pack(feeds, func(batch, n int64) ([]byte, error) { return sl.alloc(b, r, batch, n) })
		if err != nil {
			return nil, err
		}
		if int64(len(pk.Inputs)) != b.regions[r].bytes {
			return nil, ls.op.Errorf("the packer returned %d bytes, not the %d it asked for", len(pk.Inputs), b.regions[r].bytes)
		}
		if bsz >= 0 && pk.Batch != bsz {
			return nil, ls.op.Errorf("has %d rows, but the first layer has %d", pk.Batch, bsz)
		}
		bsz = pk.Batch
		b.regions[r].scratch = pk.Scratch
		b.packed = append(b.packed, pk)
		t = st.add(ls.statID, t)
	}
	for i, u := range p.uploads {
		x := b.env[u.fromHost.host]
		if bsz < 0 && i == 0 && x != nil && x.Rank() > 0 {
			bsz = x.Dim(0)
		}
		if x == nil || x.Float32s() == nil || x.Rank() != 2 || x.Dim(0) != bsz || x.Dim(1) != u.width {
			var got string
			if x != nil {
				got = fmt.Sprintf(", got %v of shape %s", x.DType(), interp.ShapeString(x.Shape()))
			}
			return nil, fmt.Errorf("session: %s must be a float32 [%d, %d] matrix%s", u.name, bsz, u.width, got)
		}
	}
	b.b = bsz
	sl.offs = s.prefixLayoutInto(sl.offs[:0], bsz)
	offs, prefix := sl.offs[:len(p.uploads)], sl.offs[len(p.uploads)]
	if len(p.layers) == 0 {
		b.regions[0].prefix = prefix
		if err := sl.ensureHost(&sl.pinIn[0], prefix); err != nil {
			return nil, err
		}
	}
	if len(p.uploads) > 0 {
		in := sl.pinIn[0].Bytes()
		for i, u := range p.uploads {
			x := b.env[u.fromHost.host].Float32s()
			if u.format == BF16 {
				stageBF16(in[offs[i]:], x)
				continue
			}
			copy(floats(in[offs[i]:], 4*bsz*u.width), x)
		}
		t = st.add(statStage, t)
	}
	if bsz == 0 {
		b.empty = true
		return b, nil
	}
	f, err := sl.frame(bsz)
	if err != nil {
		return nil, err
	}
	b.fr = f
	for r := range b.regions {
		ru := &b.regions[r]
		ru.bucket = bucketOf(ru.bytes)
		if err := sl.ensureDevice(&sl.devIn[r], ru.prefix+max(ru.bucket, ru.bytes+ru.scratch)); err != nil {
			return nil, err
		}
	}
	if err := sl.ensureHost(&sl.pinOut, f.arenaBytes); err != nil {
		return nil, err
	}
	sl.key = graphKey(sl.key[:0], b)
	g := f.graphs[string(sl.key)] // no allocation for the lookup
	if g == nil {
		if g, err = sl.capture(b, string(sl.key)); err != nil {
			return nil, err
		}
		t = st.add(statCapture, t)
	}
	if s.opts.Poison {
		memset(sl.pinOut.Bytes()[:f.arenaBytes], 0xff)
	}
	t = st.add(statPrepare, t)
	// The graph, and the batch's events around it: done always, the
	// device-time events of one batch in timeEvery per slot (each record
	// costs the host microseconds; a sample is enough for the Summary's
	// mean).
	sl.timed = sl.start != nil && sl.launches%timeEvery == 0
	sl.launches++
	if sl.timed {
		err = g.LaunchRecording(sl.stream, sl.start, sl.end, sl.done)
	} else {
		err = g.LaunchRecording(sl.stream, nil, sl.done)
	}
	if err != nil {
		return nil, err
	}
	sl.inflight = true
	st.add(statLaunch, t)
	return b, nil
}

// alloc is a packer's alloc for region r: bytes of pinned memory after
// the region's prefix (the uploads of a batch of rows, in region 0).
func (sl *slot) alloc(b *batch, r int, rows, n int64) ([]byte, error) {
	if rows < 0 || n < 0 {
		return nil, fmt.Errorf("session: a packer asked for %d bytes for %d rows", n, rows)
	}
	var prefix int64
	if r == 0 {
		prefix = sl.s.prefixBytes(rows)
	}
	if err := sl.ensureHost(&sl.pinIn[r], prefix+bucketOf(n)); err != nil {
		return nil, err
	}
	b.regions[r].prefix, b.regions[r].bytes = prefix, n
	return sl.pinIn[r].Bytes()[prefix : prefix+n], nil
}

// graphKey appends the key of a batch's graph to k: its rows and the
// size classes of its regions.
func graphKey(k []byte, b *batch) []byte {
	k = strconv.AppendInt(k, b.b, 10)
	for _, r := range b.regions {
		k = append(k, '/')
		k = strconv.AppendInt(k, r.bucket, 10)
	}
	return k
}

// floats views n bytes of b as float32s (b is 4-byte aligned: pinned
// memory at a multiple of 256).
func floats(b []byte, n int64) []float32 {
	if n == 0 {
		return nil
	}
	return unsafe.Slice((*float32)(unsafe.Pointer(&b[0])), n/4)
}

// stageBF16 stores x rounded to bfloat16 at the start of b (4-byte
// aligned, at least 2·len(x) bytes).
func stageBF16(b []byte, x []float32) {
	if len(x) == 0 {
		return
	}
	d := unsafe.Slice((*cublaslt.Bfloat16)(unsafe.Pointer(&b[0])), len(x))
	for i, v := range x {
		d[i] = cublaslt.RoundBF16(v)
	}
}

func memset(b []byte, v byte) {
	for i := range b {
		b[i] = v
	}
}

// frame returns the slot's frame for b rows, made (and the least recently
// used one dropped) when missing.
func (sl *slot) frame(b int64) (*frame, error) {
	sl.tick++
	if f := sl.frames[b]; f != nil {
		f.used = sl.tick
		return f, nil
	}
	s := sl.s
	s.devMu.Lock()
	defer s.devMu.Unlock()
	if len(sl.frames) >= s.opts.BatchSizes {
		var lru *frame
		for _, f := range sl.frames {
			if lru == nil || f.used < lru.used {
				lru = f
			}
		}
		lru.close()
		delete(sl.frames, lru.b)
	}
	f := &frame{b: b, bufs: map[*devValue]*cuda.DevicePtr{}, outOff: map[*devValue]int64{}, graphs: map[string]*cuda.Graph{}, used: sl.tick}
	f.upOff, f.prefix = s.prefixLayout(b)
	for _, d := range s.plan.devs {
		if d.root != nil || d.fromHost != nil || d.place != nil {
			continue
		}
		n := d.format.Bytes() * b * d.width
		if d.toHost {
			f.outOff[d] = f.arenaBytes
			f.arenaBytes += roundUp(n, align)
			continue
		}
		p, err := s.cctx.Alloc(max(n, 4))
		if err != nil {
			f.close()
			return nil, fmt.Errorf("session: %s for a batch of %d: %w", d.name, b, err)
		}
		f.bufs[d] = p
	}
	if f.arenaBytes > 0 {
		p, err := s.cctx.Alloc(f.arenaBytes)
		if err != nil {
			f.close()
			return nil, fmt.Errorf("session: the outputs of a batch of %d: %w", b, err)
		}
		f.arena = p
	}
	var ws int64
	for _, ds := range s.plan.dense {
		n, err := ds.step.Workspace(b)
		if err != nil {
			f.close()
			return nil, ds.op.Errorf("a batch of %d: %v", b, err)
		}
		ws = max(ws, n)
	}
	if ws > 0 {
		p, err := s.cctx.Alloc(ws)
		if err != nil {
			f.close()
			return nil, fmt.Errorf("session: the dense steps' workspace (%d bytes) for a batch of %d: %w", ws, b, err)
		}
		f.ws = p
	}
	sl.frames[b] = f
	return f, nil
}

func (f *frame) close() error {
	var first error
	keep := func(err error) {
		if first == nil {
			first = err
		}
	}
	for _, g := range f.graphs {
		keep(g.Close())
	}
	for _, p := range f.bufs {
		keep(p.Close())
	}
	keep(f.arena.Close())
	keep(f.ws.Close())
	return first
}

// buffer returns where d lives on the device in a batch of the slot.
func (sl *slot) buffer(f *frame, d *devValue) Buffer {
	base := d.base()
	el := base.format.Bytes()
	n := el * f.b * d.width
	switch {
	case base.place != nil:
		in := sl.buffer(f, base.place.in)
		ld := base.place.in.width
		return Buffer{Ptr: in.Ptr, Off: in.Off + el*base.place.col, Bytes: el * max((f.b-1)*ld+d.width, 0), Format: base.format, Ld: ld}
	case base.fromHost != nil:
		for i, u := range sl.s.plan.uploads {
			if u == base {
				return Buffer{Ptr: sl.devIn[0], Off: f.upOff[i], Bytes: n, Format: base.format, Ld: d.width}
			}
		}
	}
	if off, ok := f.outOff[base]; ok {
		return Buffer{Ptr: f.arena, Off: off, Bytes: n, Format: base.format, Ld: d.width}
	}
	return Buffer{Ptr: f.bufs[base], Bytes: n, Format: base.format, Ld: d.width}
}

// args are the buffers a dense step gets as its inputs.
func (sl *slot) args(f *frame, ds *denseStep) []Buffer {
	xs := make([]Buffer, len(ds.args))
	for j, d := range ds.args {
		xs[j] = sl.buffer(f, d)
	}
	return xs
}

// workspace is the dense steps' workspace (a zero Buffer without one).
func (f *frame) workspace() Buffer {
	if f.ws == nil {
		return Buffer{}
	}
	return Buffer{Ptr: f.ws, Bytes: f.ws.Size()}
}

// enqueueDense enqueues the steps of a batch after its layers: the dense
// steps, each after the moves of its inputs, and the device steps, in
// dependence order, calling mark after each launch.
func (sl *slot) enqueueDense(f *frame, mark func(what string) error) error {
	s := sl.s
	ws := f.workspace()
	for _, gs := range s.plan.steps {
		if gs.dev != nil {
			if err := sl.enqueueDev(f, gs.dev, mark); err != nil {
				return err
			}
			continue
		}
		ds := gs.dense
		for _, m := range ds.moves {
			k, mv, err := sl.moveLaunch(f, m)
			if err != nil {
				return ds.op.Errorf("%v", err)
			}
			grid := densekern.Grid(mv.Rows)
			if err := s.layoutFns[k.Name].Launch(cuda.Dim(int(grid)), cuda.Dim(densekern.Threads), 0, sl.stream,
				mv.Src, mv.Dst, mv.Rows, mv.Cols, mv.SrcLd, mv.DstLd); err != nil {
				return ds.op.Errorf("launch %s: %v", k.Name, err)
			}
			if err := mark(fmt.Sprintf("kernel %s %d x %d (%s into %s)", k.Name, grid, densekern.Threads, m.from.name, m.to.name)); err != nil {
				return err
			}
		}
		if err := ds.step.Enqueue(sl.stream, f.b, sl.args(f, ds), sl.buffer(f, ds.out), ws); err != nil {
			return ds.op.Errorf("launch: %v", err)
		}
		if err := mark(ds.step.Describe(f.b)); err != nil {
			return err
		}
	}
	return nil
}

// warmUp runs, once per frame and outside any capture, the dense steps
// whose Layout asks for it, over whatever the frame's buffers hold.
func (sl *slot) warmUp(f *frame) error {
	if f.warm {
		return nil
	}
	ws := f.workspace()
	for _, ds := range sl.s.plan.dense {
		if !ds.layout.Warm {
			continue
		}
		if err := ds.step.Enqueue(sl.stream, f.b, sl.args(f, ds), sl.buffer(f, ds.out), ws); err != nil {
			return ds.op.Errorf("warm-up run: %v", err)
		}
	}
	f.warm = true
	return nil
}

// enqueue enqueues the batch's GPU work on the slot's stream, step by
// step, calling mark with a description after each: the copies in, the
// poison (Options.Poison), the layers' kernels, the dense steps and the
// copy out.
func (sl *slot) enqueue(b *batch, mark func(what string) error) error {
	s := sl.s
	f := b.fr
	for r, ru := range b.regions {
		n := ru.prefix + ru.bucket
		if err := cuda.CopyHostToDeviceAsync(sl.devIn[r], 0, sl.pinIn[r], 0, n, sl.stream); err != nil {
			return err
		}
		if err := mark(fmt.Sprintf("copy in %d bytes", n)); err != nil {
			return err
		}
	}
	if s.opts.Poison {
		for _, p := range f.bufs {
			if err := p.Memset8Async(0xff, sl.stream); err != nil {
				return err
			}
		}
		if f.arena != nil {
			if err := f.arena.Memset8Async(0xff, sl.stream); err != nil {
				return err
			}
		}
		if err := mark("poison"); err != nil {
			return err
		}
	}
	for r, ls := range s.plan.layers {
		pk := b.packed[r]
		if pk.Grid == 0 {
			continue
		}
		in := sl.devIn[r].Addr() + uint64(b.regions[r].prefix)
		out := sl.buffer(f, ls.out)
		if err := s.fns[r].Launch(cuda.Dim(int(pk.Grid)), cuda.Dim(int(pk.Block)), 0, sl.stream, s.tables[r], in, out.Addr(), pk.Batch, pk.Tasks); err != nil {
			return ls.op.Errorf("launch: %v", err)
		}
		if err := mark(fmt.Sprintf("kernel %s %d x %d", ls.kernel, pk.Grid, pk.Block)); err != nil {
			return err
		}
	}
	if err := sl.enqueueDense(f, mark); err != nil {
		return err
	}
	if f.arenaBytes > 0 {
		if err := cuda.CopyDeviceToHostAsync(sl.pinOut, 0, f.arena, 0, f.arenaBytes, sl.stream); err != nil {
			return err
		}
		if err := mark(fmt.Sprintf("copy out %d bytes", f.arenaBytes)); err != nil {
			return err
		}
	}
	return nil
}

// capture records the batch's GPU work as one graph.
func (sl *slot) capture(b *batch, key string) (*cuda.Graph, error) {
	s := sl.s
	f := b.fr
	s.devMu.Lock()
	defer s.devMu.Unlock()
	if err := sl.warmUp(f); err != nil {
		return nil, err
	}
	if err := sl.stream.BeginCapture(); err != nil {
		return nil, err
	}
	var desc []string
	err := sl.enqueue(b, func(what string) error { desc = append(desc, what); return nil })
	g, cerr := sl.stream.EndCapture()
	if err == nil {
		err = cerr
	}
	if err != nil {
		if g != nil {
			g.Close()
		}
		return nil, fmt.Errorf("session: capturing the graph of a batch of %d: %w", f.b, err)
	}
	f.graphs[key] = g
	s.stats.graph(f.b, strings.Join(desc, ", "))
	return g, nil
}

// settle waits for the slot's launched work, if any (after an error).
func (sl *slot) settle() {
	if sl.inflight {
		sl.done.Synchronize()
		sl.inflight = false
	}
}

// finish waits for the batch's graph and makes its outputs: the results
// copied back, the host steps after the graph.
func (sl *slot) finish(b *batch) (map[string]*interp.Tensor, error) {
	s := sl.s
	st := s.stats
	t := time.Now()
	if !b.empty {
		err := sl.done.Synchronize()
		sl.inflight = false
		if err != nil {
			return nil, fmt.Errorf("session: the batch's graph: %w", err)
		}
		t = st.add(statWait, t)
		if sl.timed {
			if d, err := cuda.Elapsed(sl.start, sl.end); err == nil {
				st.addGPU(d)
			}
		}
	}
	devs := map[*devValue]*interp.Tensor{}
	get := func(d *devValue) (*interp.Tensor, error) {
		if x, ok := devs[d]; ok {
			return x, nil
		}
		shape := append([]int64{b.b}, d.rest...)
		var x *interp.Tensor
		var err error
		base := d.base()
		switch {
		case base.fromHost != nil:
			x, err = b.env[base.fromHost.host].Reshaped(shape)
		case b.empty:
			x, err = interp.New(shape, []float32{})
		default:
			off := b.fr.outOff[base]
			n := 4 * b.b * d.width
			x, err = interp.New(shape, append([]float32(nil), floats(sl.pinOut.Bytes()[off:], n)...))
		}
		if err != nil {
			return nil, fmt.Errorf("session: %s: %w", d.name, err)
		}
		devs[d] = x
		return x, nil
	}
	out := make(map[string]*interp.Tensor, len(s.plan.outputs))
	for i, v := range s.plan.outputs {
		if v.kind != kindDevice {
			continue
		}
		x, err := get(v.dev)
		if err != nil {
			return nil, err
		}
		out[s.plan.names[i]] = x
	}
	t = st.add(statCopyOut, t)
	for _, hs := range s.plan.post {
		if err := runHost(hs, b.env, get); err != nil {
			return nil, err
		}
		t = st.add(hs.statID, t)
	}
	for i, v := range s.plan.outputs {
		switch v.kind {
		case kindDevice:
		case kindConst:
			out[s.plan.names[i]] = v.konst.Clone()
		default:
			out[s.plan.names[i]] = b.env[v.host]
		}
	}
	st.batch()
	return out, nil
}

// runHost runs a host step over the batch's values (dev gives device
// values copied back, for a step after the graph).
func runHost(hs *hostStep, env []*interp.Tensor, dev func(*devValue) (*interp.Tensor, error)) error {
	in := make([]*interp.Tensor, len(hs.in))
	for i, v := range hs.in {
		if v.kind == kindDevice {
			x, err := dev(v.dev)
			if err != nil {
				return err
			}
			in[i] = x
			continue
		}
		if in[i] = env[v.host]; in[i] == nil {
			return hs.op.Errorf("operand #%d has no value (a feed missing?)", i)
		}
	}
	out, err := hs.run(in)
	if err != nil {
		return err
	}
	for i, v := range hs.out {
		env[v.host] = out[i]
	}
	return nil
}

// close frees the slot's buffers, graphs, stream and events.
func (sl *slot) close() error {
	sl.settle()
	var first error
	keep := func(err error) {
		if first == nil {
			first = err
		}
	}
	for _, f := range sl.frames {
		keep(f.close())
	}
	for _, h := range sl.pinIn {
		keep(h.Close())
	}
	for _, p := range sl.devIn {
		keep(p.Close())
	}
	keep(sl.pinOut.Close())
	keep(sl.done.Close())
	keep(sl.start.Close())
	keep(sl.end.Close())
	keep(sl.stream.Close())
	return first
}
