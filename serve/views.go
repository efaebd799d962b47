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
// dtype lie together in one array, in the inputs' order (setting 1001
// views scattered over the heap cost E's requests ~35 µs of cache misses
// on the GPU host), and each input is a kind and an index into its array.
type viewSet struct {
	in     []viewRef
	ts     []*interp.Tensor          // the inputs' tensors (holds reads them alone)
	byName map[string]*interp.Tensor // the backend's feed map
	f32    []interp.View[float32]
	f64    []interp.View[float64]
	i8     []interp.View[int8]
	i16    []interp.View[int16]
	i32    []interp.View[int32]
	i64    []interp.View[int64]
	u8     []interp.View[uint8]
	str    []interp.View[string]
	strs   []string // the BYTES inputs' elements
}

// viewRef is an input's view: its dtype and its index in that dtype's
// array.
type viewRef struct {
	dt  interp.DType
	idx int32
}

// newViewSet is a viewSet for sig's inputs; nil when one cannot be
// viewed (a BOOL input, whose bytes are not Go bools).
func newViewSet(sig *Signature) *viewSet {
	vs := &viewSet{in: make([]viewRef, len(sig.Inputs)), ts: make([]*interp.Tensor, len(sig.Inputs)), byName: make(map[string]*interp.Tensor, len(sig.Inputs))}
	var n [interp.String + 1]int32
	for i, in := range sig.Inputs {
		if in.DType == interp.Bool || !in.DType.Valid() {
			return nil
		}
		vs.in[i] = viewRef{dt: in.DType, idx: n[in.DType]}
		n[in.DType]++
	}
	vs.f32 = make([]interp.View[float32], n[interp.Float32])
	vs.f64 = make([]interp.View[float64], n[interp.Float64])
	vs.i8 = make([]interp.View[int8], n[interp.Int8])
	vs.i16 = make([]interp.View[int16], n[interp.Int16])
	vs.i32 = make([]interp.View[int32], n[interp.Int32])
	vs.i64 = make([]interp.View[int64], n[interp.Int64])
	vs.u8 = make([]interp.View[uint8], n[interp.Uint8])
	vs.str = make([]interp.View[string], n[interp.String])
	for i, in := range sig.Inputs {
		r := vs.in[i]
		var t *interp.Tensor
		switch r.dt {
		case interp.Float32:
			t = initView(&vs.f32[r.idx])
		case interp.Float64:
			t = initView(&vs.f64[r.idx])
		case interp.Int8:
			t = initView(&vs.i8[r.idx])
		case interp.Int16:
			t = initView(&vs.i16[r.idx])
		case interp.Int32:
			t = initView(&vs.i32[r.idx])
		case interp.Int64:
			t = initView(&vs.i64[r.idx])
		case interp.Uint8:
			t = initView(&vs.u8[r.idx])
		case interp.String:
			t = initView(&vs.str[r.idx])
		}
		vs.ts[i] = t
		vs.byName[in.Name] = t
	}
	return vs
}

func initView[T interp.Elem](v *interp.View[T]) *interp.Tensor {
	v.Init()
	return v.Tensor()
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
	if !vs.set(f) {
		vs.release(b)
		return nil, false
	}
	return vs, true
}

// set points every view at f's inputs.
func (vs *viewSet) set(f *rawFeeds) bool {
	for i, r := range vs.in {
		shape, raw := f.shapes[i], f.data[i]
		var ok bool
		switch r.dt {
		case interp.Float32:
			ok = setView(&vs.f32[r.idx], shape, raw)
		case interp.Float64:
			ok = setView(&vs.f64[r.idx], shape, raw)
		case interp.Int8:
			ok = setView(&vs.i8[r.idx], shape, raw)
		case interp.Int16:
			ok = setView(&vs.i16[r.idx], shape, raw)
		case interp.Int32:
			ok = setView(&vs.i32[r.idx], shape, raw)
		case interp.Int64:
			ok = setView(&vs.i64[r.idx], shape, raw)
		case interp.Uint8:
			ok = setView(&vs.u8[r.idx], shape, raw)
		case interp.String:
			if f.hasStrs {
				ok = vs.str[r.idx].Set(shape, f.strIn[i])
			} else {
				ok = vs.setStrings(&vs.str[r.idx], shape, raw)
			}
		}
		if !ok {
			return false
		}
	}
	return true
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
