package hostpack

import (
	"encoding/binary"
	"errors"
	"fmt"
	"runtime"
	"unsafe"

	"github.com/recom-compiler/recom/dialects/fused/abi"
	"github.com/recom-compiler/recom/interp"
)

// Packer packs batches with a Plan: Measure (or MeasureFeeds), then
// Pack. It keeps its buffers (those of the computed columns, the last
// launch's layout) from batch to batch. A Packer is not safe for
// concurrent use; make one per goroutine (Plan.NewPacker).
type Packer struct {
	p    *Plan
	cols []colState
	la   *abi.Launch
	lay  *abi.Layout // nil until a Measure succeeds, else &layout
	// layout is the last Measure's layout, its buffers reused.
	layout abi.Layout
	// sizes and work are per-batch buffers.
	sizes []abi.ColumnSize
	work  []int64
	words []int32 // the words, when the caller's bytes cannot hold them as words
	// Where a Measure reads the feeds: in (Measure) or feeds (MeasureFeeds).
	in    []*interp.Tensor
	feeds map[string]*interp.Tensor
	// dst is the words a Pack writes.
	dst []int32
	// ex is the batch's index of each parse's records (example.go).
	ex []exBatch
}

// colState is a column's measure.
type colState struct {
	batch     int64
	rows, per int64 // direct: the feed's rows and elements per row
	size      abi.ColumnSize
	// feeds are the column's inputs (colPlan.inputs) of the batch, and
	// elems their elements (the work estimate of the next measure).
	feeds []*interp.Tensor
	elems int64
	graph *graphState
	cross *crossState
}

// NewPacker returns a Packer for p.
func (p *Plan) NewPacker() *Packer {
	C := len(p.cols)
	k := &Packer{p: p, cols: make([]colState, C), sizes: make([]abi.ColumnSize, C), work: make([]int64, C)}
	for i := range k.cols {
		k.cols[i].feeds = make([]*interp.Tensor, 0, len(p.cols[i].inputs))
	}
	return k
}

// Layout returns the layout of the last successful Measure (nil before).
func (k *Packer) Layout() *abi.Layout { return k.lay }

// Measure reads and checks a batch's feeds (in Plan.Inputs order, as
// Plan.Gather orders them), computes the columns that are not written
// straight from their feeds, and places every column's regions. The
// packed words take 4*Words bytes; the kernel's scratch 4*Scratch more,
// after them in the same device buffer. The layout is the Packer's: it
// holds until the next Measure. The feeds must not change until Pack has
// run.
func (k *Packer) Measure(in []*interp.Tensor) (*abi.Layout, error) {
	k.lay = nil
	if len(in) != len(k.p.inputs) {
		return nil, fmt.Errorf("hostpack: %d feeds for %d inputs", len(in), len(k.p.inputs))
	}
	k.in = in
	lay, err := k.measure()
	k.in = nil
	return lay, err
}

// MeasureFeeds is Measure of the feeds by name (as Plan.Gather reads
// them), each looked up and checked by the goroutine that measures its
// column: what a runtime calls per batch, without ordering the feeds
// first. A feed missing is an error naming every missing input (up to
// five), as Gather's.
func (k *Packer) MeasureFeeds(feeds map[string]*interp.Tensor) (*abi.Layout, error) {
	k.lay = nil
	k.feeds = feeds
	lay, err := k.measure()
	k.feeds = nil
	if err != nil {
		if _, gerr := k.p.gather(feeds, nil); gerr != nil {
			return nil, gerr
		}
	}
	return lay, err
}

func (k *Packer) measure() (*abi.Layout, error) {
	p := k.p
	for i := range p.cols {
		k.work[i] = measureWork(&p.cols[i], &k.cols[i])
	}
	if err := k.indexExamples(); err != nil {
		return nil, err
	}
	if err := k.parallel(phaseMeasure); err != nil {
		return nil, err
	}
	l := p.layer
	batch := int64(-1)
	for i := range k.cols {
		b := k.cols[i].batch
		if batch >= 0 && b != batch {
			return nil, fmt.Errorf("column %q has %d rows, but column %q has %d (ConcatV2 needs equal batch sizes)", l.Columns[i].Name, b, l.Columns[0].Name, batch)
		}
		batch = b
	}
	batch = max(batch, 0)
	if k.la == nil || k.la.Batch != batch {
		la, err := l.Launch(batch)
		if err != nil {
			return nil, err
		}
		k.la = la
	}
	if err := p.rules.LayoutInto(&k.layout, k.la, k.sizes); err != nil {
		return nil, err
	}
	k.lay = &k.layout
	return k.lay, nil
}

// measureRange measures columns [lo, hi): their feeds looked up (or
// taken from Measure's) and checked, then their sizes. It goes over the
// range several times, each loop's loads independent from one column to
// the next, so that the processor overlaps the cache misses of many
// columns (a feed's tensor, its shape, its slice header and its data are
// four allocations apart) instead of waiting for each in turn.
func (k *Packer) measureRange(lo, hi int) error {
	p := k.p
	for i := lo; i < hi; i++ {
		cp, st := &p.cols[i], &k.cols[i]
		st.feeds = st.feeds[:0]
		for _, j := range cp.inputs {
			var t *interp.Tensor
			if k.in != nil {
				t = k.in[j]
			} else {
				t = p.inputs[j].lookup(k.feeds)
			}
			st.feeds = append(st.feeds, t)
		}
	}
	for i := lo; i < hi; i++ {
		cp, st := &p.cols[i], &k.cols[i]
		for x, j := range cp.inputs {
			if err := checkFeed(&p.inputs[j], st.feeds[x]); err != nil {
				return err
			}
		}
	}
	for i := lo; i < hi; i++ {
		st := &k.cols[i]
		st.elems = 0
		for _, t := range st.feeds {
			st.elems += int64(t.Len())
			st.rows = t.Dim(0) // loads the shape; measureDirect sets rows
		}
	}
	for i := lo; i < hi; i++ {
		cp, st := &p.cols[i], &k.cols[i]
		var err error
		switch {
		case cp.cross != nil:
			err = measureCross(cp, st, k.ex)
		case cp.example != nil:
			err = measureExample(cp, st, k)
		case cp.direct != nil:
			err = measureDirect(cp, st, st.feeds[0])
		default:
			err = measureGraph(cp, st, k.ex)
		}
		if err != nil {
			return err
		}
		k.sizes[i] = st.size
	}
	return nil
}

// Pack writes the packed words of the last Measure into dst, which must
// hold 4*Layout.Words bytes (only those are written, every one of them),
// and returns them as abi.Packed (Inputs is dst[:4*Words]; no tables),
// as abi.Layer.PackInputs would.
func (k *Packer) Pack(dst []byte) (*abi.Packed, error) {
	lay := k.lay
	if lay == nil {
		return nil, errors.New("hostpack: Pack without a successful Measure")
	}
	need := 4 * lay.Words
	if int64(len(dst)) < need {
		return nil, fmt.Errorf("hostpack: the packed inputs take %d bytes, the buffer has %d", need, len(dst))
	}
	dst = dst[:need]
	words := wordsOf(dst)
	if words == nil {
		if int64(cap(k.words)) < lay.Words {
			k.words = make([]int32, lay.Words)
		}
		words = k.words[:lay.Words]
	}
	p := k.p
	if err := k.packExamples(words, lay); err != nil {
		return nil, err
	}
	for i := range p.cols {
		k.work[i] = packWork(&p.cols[i], &k.cols[i])
	}
	if len(k.work) > 0 {
		k.work[0] += lay.Header / 4 // PutHeader, in column 0's chunk
	}
	k.dst = words
	err := k.parallel(phasePack)
	k.dst = nil
	if err != nil {
		return nil, err
	}
	if len(words) > 0 && &words[0] != (*int32)(unsafe.Pointer(&dst[0])) {
		for i, w := range words {
			binary.LittleEndian.PutUint32(dst[4*i:], uint32(w))
		}
	}
	return &abi.Packed{Inputs: dst, Scratch: 4 * lay.Scratch, Batch: lay.Batch, Tasks: lay.Tasks, Grid: lay.Grid, Block: lay.Block}, nil
}

// packRange writes the regions of columns [lo, hi), and the header with
// column 0.
func (k *Packer) packRange(lo, hi int) error {
	p, lay, words := k.p, k.lay, k.dst
	if lo == 0 {
		lay.PutHeader(p.layer, words)
	}
	for i := lo; i < hi; i++ {
		cp, st, d := &p.cols[i], &k.cols[i], lay.Desc[abi.DescWords*i:]
		switch {
		case cp.cross != nil:
			writeCross(cp, st, words, d, lay.Cross[i])
		case cp.example != nil:
			finishExample(cp, st, words, d)
		case cp.direct != nil:
			writeDirect(cp, st, st.feeds[0], words, d)
		default:
			writeGraph(cp, st, words, d)
		}
	}
	return nil
}

// forget drops the Packer's references to the last batch's feeds.
func (k *Packer) forget() {
	for i := range k.cols {
		st := &k.cols[i]
		clear(st.feeds)
		st.feeds = st.feeds[:0]
	}
}

// PackFeeds is Measure then Pack into dst, or into a new buffer when dst
// is too short.
func (k *Packer) PackFeeds(in []*interp.Tensor, dst []byte) (*abi.Packed, error) {
	lay, err := k.Measure(in)
	if err != nil {
		return nil, err
	}
	if int64(cap(dst)) < 4*lay.Words {
		dst = make([]byte, 4*lay.Words)
	}
	return k.Pack(dst[:4*lay.Words])
}

// Name says how the plan packs, for a runtime's summary.
func (p *Plan) Name() string {
	direct, computed, ops := p.Columns()
	workers := fmt.Sprintf("up to %d workers", p.workers)
	if p.workers <= 0 {
		workers = fmt.Sprintf("up to GOMAXPROCS (%d) workers", runtime.GOMAXPROCS(0))
	}
	return fmt.Sprintf("native (runtime/hostpack): %d columns straight from their feeds, %d computed by %d ops on the host, %s",
		direct, computed, ops, workers)
}

// Pack packs one batch: the feeds by name, measured (MeasureFeeds),
// then packed into the buffer alloc returns for the batch's rows and the
// packed bytes (exactly that many bytes, pinned memory say). It returns
// the launch as abi.Layer.PackInputs would (Inputs is alloc's buffer).
// Pack is safe for concurrent use: each call takes a Packer of its own
// from a pool. With Name, a *Plan is a runtime/session.Packer.
func (p *Plan) Pack(feeds map[string]*interp.Tensor, alloc func(batch, bytes int64) ([]byte, error)) (*abi.Packed, error) {
	k, _ := p.pool.Get().(*Packer)
	if k == nil {
		k = p.NewPacker()
	}
	defer p.pool.Put(k)
	defer k.forget() // the pooled Packer keeps no feeds
	lay, err := k.MeasureFeeds(feeds)
	if err != nil {
		return nil, err
	}
	dst, err := alloc(lay.Batch, 4*lay.Words)
	if err != nil {
		return nil, err
	}
	if int64(len(dst)) != 4*lay.Words {
		return nil, fmt.Errorf("hostpack: alloc gave %d bytes for %d", len(dst), 4*lay.Words)
	}
	return k.Pack(dst)
}

// wordsOf returns b as int32 words without a copy, or nil where the
// host is not little-endian or b is not 4-byte aligned.
func wordsOf(b []byte) []int32 {
	if !littleEndian || len(b) < 4 || uintptr(unsafe.Pointer(&b[0]))%4 != 0 {
		return nil
	}
	return unsafe.Slice((*int32)(unsafe.Pointer(&b[0])), len(b)/4)
}

// checkFeed checks a feed against its input, as the interpreter checks
// its feeds: its dtype, and its shape where the IR knows it.
func checkFeed(in *Input, t *interp.Tensor) error {
	if t == nil {
		return fmt.Errorf("hostpack: no feed for %q", in.Name)
	}
	if t.DType() != in.DType {
		return fmt.Errorf("hostpack: feed %q has dtype %v, but the tensor is %v", in.Name, t.DType(), in.DType)
	}
	if in.Shape == nil {
		return nil
	}
	ok := t.Rank() == len(in.Shape)
	for i, d := range in.Shape {
		if ok && d >= 0 && d != t.Dim(i) {
			ok = false
		}
	}
	if !ok {
		return fmt.Errorf("hostpack: feed %q: shape %s is incompatible with %s", in.Name, interp.ShapeString(t.Shape()), interp.ShapeString(in.Shape))
	}
	return nil
}

// The work estimates below are in nanoseconds, roughly, on one core
// (measured on preset E: a string's slot or offset and its bytes cost
// most, a number copied whole least).

// measureWork estimates the work of measuring a column from its last
// batch's elements (256 per feed before the first): checking its feeds
// and scanning the elements its sizes depend on.
func measureWork(cp *colPlan, st *colState) int64 {
	if cp.cross != nil {
		return crossWork(cp, st, true)
	}
	if cp.example != nil {
		return 50 + 20*max(st.batch, 256) // its feature's records (the last batch's)
	}
	elems := st.elems
	if elems == 0 {
		elems = 256 * int64(len(cp.inputs))
	}
	if d := cp.direct; d != nil {
		switch {
		case cp.src.strings():
			return 50 + 2*elems
		case d.ign.has || cp.src == srcIDs:
			return 50 + elems
		}
		return 50
	}
	return 50 + 10*elems*int64(len(cp.graph.nodes))
}

// packWork estimates the work of writing a column's regions.
func packWork(cp *colPlan, st *colState) int64 {
	if cp.cross != nil {
		return 50 + st.batch + crossWork(cp, st, false)
	}
	if cp.example != nil {
		return 10 // the regions' ends: packExamples wrote the rest
	}
	n := st.size.N
	w := 50 + st.batch
	switch cp.src {
	case srcStr, srcSplit:
		w += 8*n + st.size.Bytes/4
	case srcF32, srcIDs:
		w += n / 2
	default:
		w += 2 * n
	}
	if cp.direct != nil && cp.direct.ign.has {
		w += n
	}
	return w
}
