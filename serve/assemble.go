package serve

import (
	"fmt"
	"strconv"
	"sync"
	"unsafe"

	"github.com/recom-compiler/recom/interp"
)

// A batch's inputs are assembled in place: the worker that runs the batch
// lays out one tensor per input, all of one dtype in one allocation (an
// arena per dtype), and each request copies its own rows into them on its
// own goroutine (it waits in Batcher.DoTimed anyway), in parallel with
// the batch's other requests. The worker copies only the first request's
// rows (and those of requests whose goroutine does not wait). A batch of
// E's 1001 inputs from N requests is then a handful of allocations and N
// goroutines copying at once, rather than 1001 allocations and 1001 x N
// copies on the worker: the serialized part of the join is the layout.

// batchLayout is a batch's input tensors being filled.
type batchLayout struct {
	size  int64            // the batch's rows, padding included
	rows  int64            // the requests' rows
	feeds []*interp.Tensor // the batch's tensors, in signature order
	// byName is feeds by program tensor name, for the backend (made once
	// per layout: a reused layout reuses it).
	byName map[string]*interp.Tensor
	// arenas hold the tensors' elements, one slice per dtype present.
	arenas []any
	// key is the layout's pool (layoutKey).
	key string
	// row is each input's elements per row.
	row  []int64
	wg   sync.WaitGroup
	mu   sync.Mutex
	err  error
	jobs []fillJob
}

// fillJob is one request's part of the join: its rows, from off on, and
// the padding after the last real row when pad is set.
type fillJob struct {
	lay *batchLayout
	r   *request
	off int64
	pad bool
}

// newBatchLayout lays out a batch of size rows for requests shaped like
// first (their trailing shapes and dtypes, equal across the batch: the
// requests' keys): one arena per dtype, and the tensors as views of it.
func newBatchLayout(first []*interp.Tensor, size, rows int64) (*batchLayout, error) {
	lay := &batchLayout{size: size, rows: rows, feeds: make([]*interp.Tensor, len(first)), row: make([]int64, len(first))}
	var n [interp.String + 1]int64 // elements per dtype
	ranks := 0
	for i, t := range first {
		if t.Rank() == 0 {
			return nil, fmt.Errorf("input #%d: cannot batch a scalar along its first dimension", i)
		}
		dt := t.DType()
		if int(dt) >= len(n) {
			return nil, fmt.Errorf("input #%d: cannot batch %v tensors", i, dt)
		}
		re := int64(1)
		for _, d := range t.ShapeView()[1:] {
			re *= d
		}
		lay.row[i] = re
		n[dt] += re * size
		ranks += t.Rank()
	}
	arenas := [len(n)]any{}
	for dt, c := range n {
		if c > 0 {
			arenas[dt] = makeArena(interp.DType(dt), c)
			lay.arenas = append(lay.arenas, arenas[dt])
		}
	}
	shapes := make([]int64, 0, ranks) // every tensor's shape, one array
	var at [len(n)]int64
	for i, t := range first {
		dt := t.DType()
		base := len(shapes)
		shapes = append(shapes, size)
		shapes = append(shapes, t.ShapeView()[1:]...)
		shape := shapes[base:len(shapes):len(shapes)]
		lo, hi := at[dt], at[dt]+lay.row[i]*size
		at[dt] = hi
		var err error
		switch a := arenas[dt].(type) {
		case []float32:
			lay.feeds[i], err = interp.NewShared(shape, a[lo:hi:hi])
		case []float64:
			lay.feeds[i], err = interp.NewShared(shape, a[lo:hi:hi])
		case []int8:
			lay.feeds[i], err = interp.NewShared(shape, a[lo:hi:hi])
		case []int16:
			lay.feeds[i], err = interp.NewShared(shape, a[lo:hi:hi])
		case []int32:
			lay.feeds[i], err = interp.NewShared(shape, a[lo:hi:hi])
		case []int64:
			lay.feeds[i], err = interp.NewShared(shape, a[lo:hi:hi])
		case []uint8:
			lay.feeds[i], err = interp.NewShared(shape, a[lo:hi:hi])
		case []bool:
			lay.feeds[i], err = interp.NewShared(shape, a[lo:hi:hi])
		case []string:
			lay.feeds[i], err = interp.NewShared(shape, a[lo:hi:hi])
		default:
			err = fmt.Errorf("cannot batch %v tensors", dt)
		}
		if err != nil {
			return nil, fmt.Errorf("input #%d: %w", i, err)
		}
	}
	return lay, nil
}

// makeArena is a slice of n elements of dt.
func makeArena(dt interp.DType, n int64) any {
	switch dt {
	case interp.Float32:
		return make([]float32, n)
	case interp.Float64:
		return make([]float64, n)
	case interp.Int8:
		return make([]int8, n)
	case interp.Int16:
		return make([]int16, n)
	case interp.Int32:
		return make([]int32, n)
	case interp.Int64:
		return make([]int64, n)
	case interp.Uint8:
		return make([]uint8, n)
	case interp.Bool:
		return make([]bool, n)
	case interp.String:
		return make([]string, n)
	}
	return nil
}

// run copies the job's request's rows (and the padding) into the batch,
// and says it is done.
func (j *fillJob) run() {
	defer j.lay.wg.Done()
	if err := j.lay.fill(j.r.feeds, j.off, int64(j.r.rows)); err != nil {
		j.lay.fail(err)
		return
	}
	if j.pad {
		j.lay.padRows()
	}
}

func (lay *batchLayout) fail(err error) {
	lay.mu.Lock()
	if lay.err == nil {
		lay.err = err
	}
	lay.mu.Unlock()
}

// fill copies feeds (rows rows each) into the batch at row off.
func (lay *batchLayout) fill(feeds []*interp.Tensor, off, rows int64) error {
	if len(feeds) != len(lay.feeds) {
		return fmt.Errorf("a request has %d inputs, the batch %d", len(feeds), len(lay.feeds))
	}
	for i, t := range feeds {
		re := lay.row[i]
		lo, n := off*re, rows*re
		ok := false
		switch d := lay.feeds[i].Data().(type) {
		case []float32:
			ok = fillPart(d, t, lo, n)
		case []float64:
			ok = fillPart(d, t, lo, n)
		case []int8:
			ok = fillPart(d, t, lo, n)
		case []int16:
			ok = fillPart(d, t, lo, n)
		case []int32:
			ok = fillPart(d, t, lo, n)
		case []int64:
			ok = fillPart(d, t, lo, n)
		case []uint8:
			ok = fillPart(d, t, lo, n)
		case []bool:
			ok = fillPart(d, t, lo, n)
		case []string:
			ok = fillPart(d, t, lo, n)
		}
		if !ok || !sameTrailing(t, lay.feeds[i]) {
			return fmt.Errorf("input #%d: a %v tensor of shape %s does not fit rows [%d, %d) of the batch's %v tensor of shape %s",
				i, t.DType(), interp.ShapeString(t.ShapeView()), off, off+rows, lay.feeds[i].DType(), interp.ShapeString(lay.feeds[i].ShapeView()))
		}
	}
	return nil
}

// fillPart copies t's n elements into dst at lo; false if t is not of
// dst's type and length.
func fillPart[T interp.Elem](dst []T, t *interp.Tensor, lo, n int64) bool {
	src, ok := t.Data().([]T)
	if !ok || int64(len(src)) != n || lo+n > int64(len(dst)) {
		return false
	}
	copy(dst[lo:lo+n], src)
	return true
}

// padRows repeats the last real row into the padding rows (a copy of a
// real row is a valid input wherever the real one is).
func (lay *batchLayout) padRows() {
	if lay.size == lay.rows || lay.rows == 0 {
		return
	}
	for i, t := range lay.feeds {
		re := lay.row[i]
		switch d := t.Data().(type) {
		case []float32:
			padPart(d, lay.rows, re)
		case []float64:
			padPart(d, lay.rows, re)
		case []int8:
			padPart(d, lay.rows, re)
		case []int16:
			padPart(d, lay.rows, re)
		case []int32:
			padPart(d, lay.rows, re)
		case []int64:
			padPart(d, lay.rows, re)
		case []uint8:
			padPart(d, lay.rows, re)
		case []bool:
			padPart(d, lay.rows, re)
		case []string:
			padPart(d, lay.rows, re)
		}
	}
}

// padPart fills d past rows rows of re elements with copies of the last:
// one row, then the rows filled so far copied after themselves (a few
// copies, not one per row: most of E's inputs have one element a row).
func padPart[T interp.Elem](d []T, rows, re int64) {
	at := rows * re
	if re == 0 || at >= int64(len(d)) {
		return
	}
	copy(d[at:at+re], d[at-re:at])
	for done := re; at+done < int64(len(d)); done *= 2 {
		copy(d[at+done:], d[at:at+done])
	}
}

// A batch's layout is reused for later batches of the same layout key
// (the requests' trailing shapes and the batch's size, padding included)
// once the backend is done with it, unless an output shares an arena's
// memory (the interpreter may return a feed as an output): the
// requests' replies then hold it. A reused layout is overwritten whole
// (every row is a request's or the padding), so nothing of the batch
// before shows.

// layoutKey is the pool of a batch of size rows of requests of key.
func layoutKey(key string, size int) string {
	return strconv.Itoa(size) + "|" + key
}

// getLayout is a reused layout of the key's pool, or nil.
func (b *Batcher) getLayout(key string) *batchLayout {
	p, ok := b.layouts.Load(key)
	if !ok {
		return nil
	}
	lay, _ := p.(*sync.Pool).Get().(*batchLayout)
	return lay
}

// putLayout keeps lay for a later batch of its key, unless one of out's
// tensors shares an arena's memory.
func (b *Batcher) putLayout(lay *batchLayout, out map[string]*interp.Tensor) {
	for _, t := range out {
		if t == nil {
			continue
		}
		lo, hi := dataRange(t.Data())
		if lo == hi {
			continue
		}
		for _, a := range lay.arenas {
			if alo, ahi := dataRange(a); lo < ahi && alo < hi {
				return // an output shares it
			}
		}
	}
	lay.err = nil
	p, ok := b.layouts.Load(lay.key)
	if !ok {
		// A pool per key and size: requests of inputs of unknown trailing
		// dimensions could make keys without end, so the pools are few.
		if b.nLayouts.Add(1) > maxLayoutPools {
			b.nLayouts.Add(-1)
			return
		}
		var loaded bool
		if p, loaded = b.layouts.LoadOrStore(lay.key, &sync.Pool{}); loaded {
			b.nLayouts.Add(-1)
		}
	}
	p.(*sync.Pool).Put(lay)
}

// maxLayoutPools bounds the layout pools of a batcher (keys of trailing
// shapes and sizes; a model of fixed trailing shapes has one key, so one
// pool per batch size).
const maxLayoutPools = 64

// dataRange is the memory of a tensor's elements, [lo, hi).
func dataRange(d any) (lo, hi uintptr) {
	switch v := d.(type) {
	case []float32:
		return sliceRange(v)
	case []float64:
		return sliceRange(v)
	case []int8:
		return sliceRange(v)
	case []int16:
		return sliceRange(v)
	case []int32:
		return sliceRange(v)
	case []int64:
		return sliceRange(v)
	case []uint8:
		return sliceRange(v)
	case []bool:
		return sliceRange(v)
	case []string:
		return sliceRange(v)
	}
	return 0, 0
}

func sliceRange[T any](v []T) (lo, hi uintptr) {
	if cap(v) == 0 {
		return 0, 0
	}
	var zero T
	lo = uintptr(unsafe.Pointer(unsafe.SliceData(v)))
	return lo, lo + uintptr(cap(v))*unsafe.Sizeof(zero)
}
