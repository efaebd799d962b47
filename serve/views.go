package serve

import (
	"runtime"
	"slices"
	"unsafe"

	"github.com/recom-compiler/recom/interp"
)

// A binary request that is a batch by itself (it runs alone, or its rows
// are an allowed batch size: no padding) runs on views of its body: each
// input's tensor is its bytes where the body holds them, so the join's
// copy of every input into the batch's arenas (~250 KB in 1001 copies a
// request of E) is not made. The tensors are pooled per batcher
// (interp.View: pointed at a request's bytes without an allocation), and
// so are the strings of BYTES inputs (views of the body too).
//
// A numeric input's bytes in the body are where the binary data put
// them: 8-aligned at the data's start (getBody), but an input after a
// BYTES input may start at any byte. Its view is then misaligned for its
// type, which the hosts the server runs on (amd64, arm64) load as they
// load aligned data (alignment matters to atomics, which no reader of a
// feed does); elsewhere such a request takes the copy.

// viewBodies turns the views on (a var for the benchmarks' comparison).
var viewBodies = true

// unalignedViews says whether a numeric view may start at any byte.
const unalignedViews = runtime.GOARCH == "amd64" || runtime.GOARCH == "arm64"

// viewSet is a request's inputs as views of its body. The views of each
// dtype lie together in one array (a viewGroup), in the inputs' order
// (setting 1001 views scattered over the heap cost E's requests ~35 µs
// of cache misses on the GPU host), and each input is a dtype and an
// index into its group.
type viewSet struct {
	in     []viewRef
	ts     []*interp.Tensor          // the inputs' tensors (holds reads them alone)
	byName map[string]*interp.Tensor // the backend's feed map
	groups [interp.String + 1]viewGroup
	strs   []string // the BYTES inputs' elements (when f has none)
}

// viewRef is an input's view: its dtype and its index in that dtype's
// group.
type viewRef struct {
	dt  interp.DType
	idx int32
}

// viewGroup is the views of one dtype's inputs.
type viewGroup interface {
	tensor(i int32) *interp.Tensor
	// set points view i at input k of f.
	set(vs *viewSet, i int32, f *rawFeeds, k int) bool
}

// newViewSet is a viewSet for sig's inputs; nil when one cannot be
// viewed (a BOOL input, whose bytes are not Go bools).
func newViewSet(sig *Signature) *viewSet {
	vs := &viewSet{in: make([]viewRef, len(sig.Inputs)), ts: make([]*interp.Tensor, len(sig.Inputs)), byName: make(map[string]*interp.Tensor, len(sig.Inputs))}
	var n [interp.String + 1]int
	for i, in := range sig.Inputs {
		if in.DType == interp.Bool || !in.DType.Valid() {
			return nil
		}
		vs.in[i] = viewRef{dt: in.DType, idx: int32(n[in.DType])}
		n[in.DType]++
	}
	for dt, c := range n {
		if c > 0 {
			vs.groups[dt] = newViewGroup(interp.DType(dt), c)
		}
	}
	for i, in := range sig.Inputs {
		r := vs.in[i]
		vs.ts[i] = vs.groups[r.dt].tensor(r.idx)
		vs.byName[in.Name] = vs.ts[i]
	}
	return vs
}

// newViewGroup is n views of dt (a numeric dtype or strings).
func newViewGroup(dt interp.DType, n int) viewGroup {
	switch dt {
	case interp.Float32:
		return newViews[float32, numViews[float32]](n)
	case interp.Float64:
		return newViews[float64, numViews[float64]](n)
	case interp.Int8:
		return newViews[int8, numViews[int8]](n)
	case interp.Int16:
		return newViews[int16, numViews[int16]](n)
	case interp.Int32:
		return newViews[int32, numViews[int32]](n)
	case interp.Int64:
		return newViews[int64, numViews[int64]](n)
	case interp.Uint8:
		return newViews[uint8, numViews[uint8]](n)
	}
	return newViews[string, strViews](n)
}

// newViews is n initialized views of T, as a group of type G.
func newViews[T interp.Elem, G ~[]interp.View[T]](n int) G {
	g := make(G, n)
	for i := range g {
		g[i].Init()
	}
	return g
}

// numViews are views of fixed-size numbers.
type numViews[T rawElem] []interp.View[T]

func (g numViews[T]) tensor(i int32) *interp.Tensor { return g[i].Tensor() }

func (g numViews[T]) set(_ *viewSet, i int32, f *rawFeeds, k int) bool {
	return setView(&g[i], f.shapes[k], f.data[k])
}

// strViews are views of BYTES inputs: the strings checkRawStrings kept,
// or (for a request read without it) strings made here.
type strViews []interp.View[string]

func (g strViews) tensor(i int32) *interp.Tensor { return g[i].Tensor() }

func (g strViews) set(vs *viewSet, i int32, f *rawFeeds, k int) bool {
	if f.hasStrs {
		return g[i].Set(f.shapes[k], f.strIn[k])
	}
	return vs.setStrings(&g[i], f.shapes[k], f.data[k])
}

// viewsOf points a pooled viewSet at r's body: false (and nothing held)
// when an input cannot be viewed.
func (b *Batcher) viewsOf(r *request) (*viewSet, bool) {
	f := r.raw
	if f == nil || !littleEndian || len(f.data) != len(b.sig.Inputs) || b.noViews.Load() {
		return nil, false
	}
	vs, _ := b.viewSets.Get().(*viewSet)
	if vs == nil {
		if vs = newViewSet(b.sig); vs == nil {
			b.noViews.Store(true)
			return nil, false
		}
	}
	for k, r := range vs.in {
		if !vs.groups[r.dt].set(vs, r.idx, f, k) {
			vs.release(b)
			return nil, false
		}
	}
	return vs, true
}

// setView points v at raw's elements (misaligned where unalignedViews).
func setView[T rawElem](v *interp.View[T], shape []int64, raw []byte) bool {
	var zero T
	size := int(unsafe.Sizeof(zero))
	if len(raw)%size != 0 {
		return false
	}
	var d []T
	if len(raw) > 0 {
		p := unsafe.Pointer(unsafe.SliceData(raw))
		if !unalignedViews && uintptr(p)%unsafe.Alignof(zero) != 0 {
			return false
		}
		d = unsafe.Slice((*T)(p), len(raw)/size)
	}
	return v.Set(shape, d)
}

// setStrings views raw's BYTES elements (as many as shape holds) as
// strings, in vs.strs; their slice may move as it grows, and a view set
// before keeps the older array, which stays valid (nothing writes it
// again for this request).
func (vs *viewSet) setStrings(v *interp.View[string], shape []int64, raw []byte) bool {
	n := int64(1)
	for _, d := range shape {
		n *= d // decodeInferRaw checked shape (and that raw holds n)
	}
	at := len(vs.strs)
	strs, ok := appendRawStrings(vs.strs, raw, n)
	vs.strs = strs
	return ok && v.Set(shape, strs[at:len(strs):len(strs)])
}

// release gives vs back for a later request. Its views are left as they
// are (each is set again before a request's batch reads it): clearing
// 1001 views costs a batch tens of microseconds of cache misses on the
// GPU host, and all they keep reachable is one pooled body buffer.
func (vs *viewSet) release(b *Batcher) {
	vs.strs = vs.strs[:0]
	b.viewSets.Put(vs)
}

// holds reports whether one of out is one of vs's tensors (a backend may
// return a feed as an output: the interpreter does): vs is then not
// reused, as the reply holds the tensor.
func (vs *viewSet) holds(out map[string]*interp.Tensor) bool {
	for _, t := range out {
		if slices.Contains(vs.ts, t) {
			return true
		}
	}
	return false
}
