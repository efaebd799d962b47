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
	// parts are where feeds' elements are: an arena and the range in it.
	parts []partRange
	// byName is feeds by program tensor name, for the backend (made once
	// per layout: a reused layout reuses it).
	byName map[string]*interp.Tensor
	// arenas hold the tensors' elements, one per dtype present.
	arenas []arena
	// key is the layout's pool (layoutKey).
	key string
	// row is each input's elements per row; rowBytes all inputs' bytes
	// per row (a string's header counted).
	row      []int64
	rowBytes int64
	wg       sync.WaitGroup
	mu       sync.Mutex
	err      error
	jobs     []fillJob
}

// fillJob is one request's part of the join: its rows, from off on, of
// inputs [in[0], in[1]), and their padding after the last real row when
// pad is set.
type fillJob struct {
	lay *batchLayout
	r   *request
	off int64
	in  [2]int
	pad bool
}

// splitBytes is the size of a batch's first request from which its part
// of the join is split in two (one half on the worker, one on the
// request's goroutine): E's 1001 inputs of a 31-row request are ~250 KB,
// ~80 µs of copying on the GPU host. (A var for the tests.)
var splitBytes int64 = 64 << 10

// newBatchLayout lays out a batch of size rows for requests shaped like
// first (their trailing shapes and dtypes, equal across the batch: the
// requests' keys): one arena per dtype, and the tensors as views of it.
func newBatchLayout(first *request, sig *Signature, size, rows int64) (*batchLayout, error) {
	nin := first.inputs()
	lay := &batchLayout{size: size, rows: rows, feeds: make([]*interp.Tensor, nin), parts: make([]partRange, nin), row: make([]int64, nin)}
	var n [interp.String + 1]int64 // elements per dtype
	ranks := 0
	for i := range nin {
		dt, shape := first.input(i, sig)
		if len(shape) == 0 {
			return nil, fmt.Errorf("input #%d: cannot batch a scalar along its first dimension", i)
		}
		if int(dt) >= len(n) {
			return nil, fmt.Errorf("input #%d: cannot batch %v tensors", i, dt)
		}
		re := int64(1)
		for _, d := range shape[1:] {
			re *= d
		}
		lay.row[i] = re
		lay.rowBytes += re * max(dt.ItemSize(), 1)
		n[dt] += re * size
		ranks += len(shape)
	}
	arenas := [len(n)]arena{}
	for dt, c := range n {
		if c > 0 {
			a, err := newArena(interp.DType(dt), c)
			if err != nil {
				return nil, fmt.Errorf("a batch of %d rows: %w", size, err)
			}
			arenas[dt] = a
			lay.arenas = append(lay.arenas, a)
		}
	}
	shapes := make([]int64, 0, ranks) // every tensor's shape, one array
	var at [len(n)]int64
	for i := range nin {
		dt, in := first.input(i, sig)
		base := len(shapes)
		shapes = append(shapes, size)
		shapes = append(shapes, in[1:]...)
		shape := shapes[base:len(shapes):len(shapes)]
		lo, hi := at[dt], at[dt]+lay.row[i]*size
		at[dt] = hi
		lay.parts[i] = partRange{a: arenas[dt], lo: lo, hi: hi}
		lay.parts[i].bytes, lay.parts[i].size = arenas[dt].bytes(lo, hi)
		var err error
		lay.feeds[i], err = arenas[dt].view(shape, lo, hi)
		if err != nil {
			return nil, fmt.Errorf("input #%d: %w", i, err)
		}
	}
	return lay, nil
}

// arena is one dtype's elements of a batch, typed: the one place the
// layout's code depends on the dtype.
type arena interface {
	// view is the tensor of shape over elements [lo, hi) (shared).
	view(shape []int64, lo, hi int64) (*interp.Tensor, error)
	// fill copies t's n elements in at lo, below hi; false if t is not
	// of the arena's type and length.
	fill(t *interp.Tensor, lo, n, hi int64) bool
	// fillRaw is fill from n elements' raw bytes (rawFeeds'), checked
	// by decodeInferRaw: false if they are not.
	fillRaw(raw []byte, lo, n, hi int64) bool
	// pad fills [lo, hi) past rows rows of re elements with copies of
	// the last.
	pad(lo, hi, rows, re int64)
	// data is the arena's slice.
	data() any
	// bytes is elements [lo, hi) as bytes, and the bytes of one element,
	// for an arena of fixed-size numbers (nil, 0 for bools and strings):
	// the fills and the padding of those are byte copies.
	bytes(lo, hi int64) ([]byte, int64)
}

// partRange is an input's elements: [lo, hi) of arena a; bytes, for
// fixed-size numbers, the same elements as bytes, size bytes each.
type partRange struct {
	a      arena
	lo, hi int64
	bytes  []byte
	size   int64
}

// typedArena is an arena of Go type T.
type typedArena[T interp.Elem] []T

// newArena is an arena of n elements of dt (interp.MakeSlice's limits).
func newArena(dt interp.DType, n int64) (arena, error) {
	d, err := interp.MakeSlice(dt, int(n))
	if err != nil {
		return nil, err
	}
	switch d := d.(type) {
	case []float32:
		return typedArena[float32](d), nil
	case []float64:
		return typedArena[float64](d), nil
	case []int8:
		return typedArena[int8](d), nil
	case []int16:
		return typedArena[int16](d), nil
	case []int32:
		return typedArena[int32](d), nil
	case []int64:
		return typedArena[int64](d), nil
	case []uint8:
		return typedArena[uint8](d), nil
	case []bool:
		return typedArena[bool](d), nil
	case []string:
		return typedArena[string](d), nil
	}
	return nil, fmt.Errorf("cannot batch %v tensors", dt)
}

func (a typedArena[T]) view(shape []int64, lo, hi int64) (*interp.Tensor, error) {
	return interp.NewShared(shape, []T(a[lo:hi:hi]))
}

func (a typedArena[T]) data() any { return []T(a) }

func (a typedArena[T]) bytes(lo, hi int64) ([]byte, int64) {
	switch any(a).(type) {
	case typedArena[bool], typedArena[string]:
		return nil, 0
	}
	var zero T
	size := int64(unsafe.Sizeof(zero))
	if hi <= lo {
		return []byte{}, size
	}
	return unsafe.Slice((*byte)(unsafe.Pointer(&a[lo])), (hi-lo)*size), size
}

// run copies the job's request's rows (and the padding) into the batch,
// and says it is done.
func (j *fillJob) run() {
	defer j.lay.wg.Done()
	if err := j.lay.fill(j.r, j.off, int64(j.r.rows), j.in[0], j.in[1]); err != nil {
		j.lay.fail(err)
		return
	}
	if j.pad {
		j.lay.padRows(j.in[0], j.in[1])
	}
}

func (lay *batchLayout) fail(err error) {
	lay.mu.Lock()
	if lay.err == nil {
		lay.err = err
	}
	lay.mu.Unlock()
}

// fill copies r's inputs [from, to) (rows rows each) into the batch at
// row off.
func (lay *batchLayout) fill(r *request, off, rows int64, from, to int) error {
	if nin := r.inputs(); nin != len(lay.feeds) {
		return fmt.Errorf("a request has %d inputs, the batch %d", nin, len(lay.feeds))
	}
	for i := from; i < to; i++ {
		want := lay.feeds[i]
		re := lay.row[i]
		lo, n := off*re, rows*re
		p := lay.parts[i]
		var ok bool
		var shape []int64
		if r.raw != nil {
			shape = r.raw.shapes[i]
			if raw := r.raw.data[i]; p.bytes != nil && littleEndian {
				// Numbers: their bytes as they are.
				at, l := lo*p.size, n*p.size
				if ok = int64(len(raw)) == l && at+l <= int64(len(p.bytes)); ok {
					copy(p.bytes[at:at+l], raw)
				}
			} else if sa, isStr := p.a.(typedArena[string]); isStr && r.raw.hasStrs {
				// Strings checkRawStrings made: no walk again.
				src := r.raw.strIn[i]
				if ok = int64(len(src)) == n && p.lo+lo+n <= p.hi; ok {
					copy(sa[p.lo+lo:], src)
				}
			} else {
				ok = p.a.fillRaw(raw, p.lo+lo, n, p.hi)
			}
		} else {
			t := r.feeds[i]
			shape = t.ShapeView()
			ok = p.a.fill(t, p.lo+lo, n, p.hi)
		}
		if !ok || !sameTrailingShape(shape, want.ShapeView()) {
			dt := want.DType() // a raw input's is its spec's
			if r.raw == nil {
				dt = r.feeds[i].DType()
			}
			return fmt.Errorf("input #%d: a %v tensor of shape %s does not fit rows [%d, %d) of the batch's %v tensor of shape %s",
				i, dt, interp.ShapeString(shape), off, off+rows, want.DType(), interp.ShapeString(want.ShapeView()))
		}
	}
	return nil
}

func (dst typedArena[T]) fill(t *interp.Tensor, lo, n, hi int64) bool {
	src, ok := t.Data().([]T)
	if !ok || int64(len(src)) != n || lo+n > hi {
		return false
	}
	copy(dst[lo:lo+n], src)
	return true
}

func (dst typedArena[T]) fillRaw(raw []byte, lo, n, hi int64) bool {
	if lo+n > hi || !littleEndian {
		return false
	}
	d := dst[lo : lo+n]
	switch d := any(d).(type) {
	case typedArena[bool]:
		if int64(len(raw)) != n {
			return false
		}
		for i, c := range raw {
			d[i] = c != 0
		}
		return true
	case typedArena[string]:
		for i := range d {
			elem, rest, ok := nextBytes(raw)
			if !ok {
				return false
			}
			d[i] = bytesString(elem) // a view: the body outlives the batch's run
			raw = rest
		}
		return len(raw) == 0
	}
	var zero T
	size := int64(unsafe.Sizeof(zero))
	if int64(len(raw)) != n*size {
		return false
	}
	if n > 0 {
		copy(unsafe.Slice((*byte)(unsafe.Pointer(&d[0])), n*size), raw)
	}
	return true
}

// padRows repeats the last real row into the padding rows (a copy of a
// real row is a valid input wherever the real one is).
func (lay *batchLayout) padRows(from, to int) {
	if lay.size == lay.rows || lay.rows == 0 {
		return
	}
	for i := from; i < to; i++ {
		p := lay.parts[i]
		if p.bytes != nil {
			padBytes(p.bytes, lay.rows*lay.row[i]*p.size, lay.row[i]*p.size)
		} else {
			p.a.pad(p.lo, p.hi, lay.rows, lay.row[i])
		}
	}
}

// padBytes is pad on bytes: d's first at bytes are the rows, re bytes
// each; the last is copied on to the end.
func padBytes(d []byte, at, re int64) {
	if re == 0 || at >= int64(len(d)) || at < re {
		return
	}
	copy(d[at:at+re], d[at-re:at])
	for done := re; at+done < int64(len(d)); done *= 2 {
		copy(d[at+done:], d[at:at+done])
	}
}

// pad copies the last row once, then the rows filled so far after
// themselves (a few copies, not one per row: most of E's inputs have one
// element a row).
func (a typedArena[T]) pad(lo, hi, rows, re int64) {
	d := a[lo:hi]
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
			if alo, ahi := dataRange(a.data()); lo < ahi && alo < hi {
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
