package hostpack

import (
	"encoding/binary"
	"errors"
	"fmt"
	"sync"
	"unsafe"

	"github.com/recom-compiler/recom/dialects/fused/abi"
	"github.com/recom-compiler/recom/interp"
)

// Packer packs batches with a Plan: Measure, then Pack. It keeps its
// buffers (those of the computed columns, the last launch's layout) from
// batch to batch. A Packer is not safe for concurrent use; make one per
// goroutine (Plan.NewPacker).
type Packer struct {
	p    *Plan
	in   []*interp.Tensor
	cols []colState
	la   *abi.Launch
	lay  *abi.Layout // nil until a Measure succeeds, else &layout
	// layout is the last Measure's layout, its buffers reused.
	layout abi.Layout
	// sizes, work and bounds are per-batch buffers.
	sizes  []abi.ColumnSize
	work   []int64
	bounds []int
	errs   []error
	words  []int32 // the words, when the caller's bytes cannot hold them as words
	// gathered is Plan.Pack's feeds in input order.
	gathered []*interp.Tensor
	// ex is the batch's index of each parse's records (example.go).
	ex []exBatch
}

// colState is a column's measure.
type colState struct {
	batch     int64
	rows, per int64 // direct: the feed's rows and elements per row
	size      abi.ColumnSize
	graph     *graphState
}

// NewPacker returns a Packer for p.
func (p *Plan) NewPacker() *Packer {
	C := len(p.cols)
	return &Packer{p: p, cols: make([]colState, C), sizes: make([]abi.ColumnSize, C), work: make([]int64, C)}
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
	k.lay, k.in = nil, nil
	p := k.p
	if len(in) != len(p.inputs) {
		return nil, fmt.Errorf("hostpack: %d feeds for %d inputs", len(in), len(p.inputs))
	}
	for i, t := range in {
		if err := checkFeed(&p.inputs[i], t); err != nil {
			return nil, err
		}
	}
	if err := k.indexExamples(in); err != nil {
		return nil, err
	}
	for i := range p.cols {
		k.work[i] = measureWork(&p.cols[i], in)
	}
	err := k.parallel(k.work, func(lo, hi int) error {
		for i := lo; i < hi; i++ {
			cp, st := &p.cols[i], &k.cols[i]
			var err error
			switch {
			case cp.example != nil:
				err = measureExample(cp, st, k)
			case cp.direct != nil:
				err = measureDirect(cp, st, in[cp.direct.input])
			default:
				err = measureGraph(cp, st, in, k.ex)
			}
			if err != nil {
				return err
			}
			k.sizes[i] = st.size
		}
		return nil
	})
	if err != nil {
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
	if err := l.LayoutInto(&k.layout, k.la, k.sizes); err != nil {
		return nil, err
	}
	k.lay, k.in = &k.layout, in
	return k.lay, nil
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
	err := k.parallel(k.work, func(lo, hi int) error {
		if lo == 0 {
			lay.PutHeader(p.layer, words)
		}
		for i := lo; i < hi; i++ {
			cp, d := &p.cols[i], lay.Desc[abi.DescWords*i:]
			switch {
			case cp.example != nil:
				finishExample(cp, &k.cols[i], words, d)
			case cp.direct != nil:
				writeDirect(cp, &k.cols[i], k.in[cp.direct.input], words, d)
			default:
				writeGraph(cp, &k.cols[i], words, d)
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	if &words[0] != (*int32)(unsafe.Pointer(&dst[0])) {
		for i, w := range words {
			binary.LittleEndian.PutUint32(dst[4*i:], uint32(w))
		}
	}
	return &abi.Packed{Inputs: dst, Scratch: 4 * lay.Scratch, Batch: lay.Batch, Tasks: lay.Tasks, Grid: lay.Grid, Block: lay.Block}, nil
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
	return fmt.Sprintf("native (runtime/hostpack): %d columns straight from their feeds, %d computed by %d ops on the host, %d workers",
		direct, computed, ops, p.workers)
}

// Pack packs one batch: the feeds by name (Gather), measured, then
// packed into the buffer alloc returns for the batch's rows and the
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
	in, err := p.gather(feeds, k.gathered)
	k.gathered = in
	if err != nil {
		return nil, err
	}
	lay, err := k.Measure(in)
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
	packed, err := k.Pack(dst)
	clear(in) // the pooled Packer keeps no feeds
	k.in = nil
	return packed, err
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

// The work estimates below are in nanoseconds, roughly, on one core: a
// string's slot or offset and its bytes cost most, a number written
// whole least.

// measureWork estimates the work of measuring a column: the elements it
// scans (none for a numeric feed written whole).
func measureWork(cp *colPlan, in []*interp.Tensor) int64 {
	if cp.example != nil {
		return exampleWork(cp, in)
	}
	if d := cp.direct; d != nil {
		t := in[d.input]
		switch {
		case t.DType() == interp.String:
			return int64(t.Len())
		case d.ign.has || cp.c.Source == abi.SourceIDs:
			return int64(t.Len()) / 2
		}
		return 10
	}
	var w int64
	for _, n := range cp.graph.nodes {
		if n.kind == gInput {
			w += int64(in[n.input].Len())
		}
	}
	return 10 * w * int64(len(cp.graph.nodes))
}

// packWork estimates the work of writing a column's regions.
func packWork(cp *colPlan, st *colState) int64 {
	if cp.example != nil {
		return 10 // the regions' ends: packExamples wrote the rest
	}
	n := st.size.N
	w := st.batch / 2
	switch cp.c.Source {
	case abi.SourceStr, abi.SourceSplit:
		w += 5*n + st.size.Bytes/4
	case abi.SourceF32, abi.SourceIDs:
		w += n / 4
	default:
		w += n
	}
	if cp.direct != nil && cp.direct.ign.has {
		w += n
	}
	return w
}

// minWork is the least work (about nanoseconds) worth a goroutine of its
// own.
const minWork = 20000

// parallel runs fn over ranges of the columns, contiguous and of about
// equal work, on up to the plan's workers goroutines (the caller's among
// them), and returns the error of the first range that failed. fn runs
// at least once, on a range starting at 0.
func (k *Packer) parallel(work []int64, fn func(lo, hi int) error) error {
	C := len(work)
	var total int64
	for _, w := range work {
		total += w
	}
	P := int(max(min(int64(k.p.workers), total/minWork+1, int64(C)), 1))
	b := append(k.bounds[:0], 0)
	var acc int64
	for i, w := range work {
		acc += w
		if len(b) < P && acc*int64(P) >= total*int64(len(b)) && i+1 < C {
			b = append(b, i+1)
		}
	}
	b = append(b, C)
	k.bounds = b
	R := len(b) - 1
	if cap(k.errs) < R {
		k.errs = make([]error, R)
	}
	errs := k.errs[:R]
	clear(errs)
	var wg sync.WaitGroup
	run := func(r int) {
		defer func() {
			if e := recover(); e != nil {
				errs[r] = fmt.Errorf("hostpack: internal error packing columns %d..%d: %v", b[r], b[r+1]-1, e)
			}
		}()
		errs[r] = fn(b[r], b[r+1])
	}
	for r := 1; r < R; r++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			run(r)
		}()
	}
	run(0)
	wg.Wait()
	for _, e := range errs {
		if e != nil {
			return e
		}
	}
	return nil
}
