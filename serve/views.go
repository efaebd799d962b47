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

// viewSet is a request's inputs as views of its body.
type viewSet struct {
	ins    []inputView
	ts     []*interp.Tensor          // ins' tensors (holds reads them alone)
	byName map[string]*interp.Tensor // the backend's feed map
	strs   []string                  // the BYTES inputs' elements
}

// inputView is one input's view: set points it at an input's raw bytes
// (checked by decodeInferRaw), of shape.
type inputView interface {
	set(vs *viewSet, shape []int64, raw []byte) bool
	tensor() *interp.Tensor
}

// newViewSet is a viewSet for sig's inputs; nil when one cannot be
// viewed (a BOOL input, whose bytes are not Go bools).
func newViewSet(sig *Signature) *viewSet {
	vs := &viewSet{ins: make([]inputView, len(sig.Inputs)), ts: make([]*interp.Tensor, len(sig.Inputs)), byName: make(map[string]*interp.Tensor, len(sig.Inputs))}
	for i, in := range sig.Inputs {
		var v inputView
		switch in.DType {
		case interp.Float32:
			v = numView[float32]{interp.NewView[float32]()}
		case interp.Float64:
			v = numView[float64]{interp.NewView[float64]()}
		case interp.Int8:
			v = numView[int8]{interp.NewView[int8]()}
		case interp.Int16:
			v = numView[int16]{interp.NewView[int16]()}
		case interp.Int32:
			v = numView[int32]{interp.NewView[int32]()}
		case interp.Int64:
			v = numView[int64]{interp.NewView[int64]()}
		case interp.Uint8:
			v = numView[uint8]{interp.NewView[uint8]()}
		case interp.String:
			v = strView{interp.NewView[string]()}
		default:
			return nil
		}
		vs.ins[i], vs.ts[i] = v, v.tensor()
		vs.byName[in.Name] = v.tensor()
	}
	return vs
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
	for i, v := range vs.ins {
		if !v.set(vs, f.shapes[i], f.data[i]) {
			vs.release(b)
			return nil, false
		}
	}
	return vs, true
}

type numView[T rawElem] struct{ v *interp.View[T] }

func (n numView[T]) tensor() *interp.Tensor { return n.v.Tensor() }

func (n numView[T]) set(_ *viewSet, shape []int64, raw []byte) bool {
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
	return n.v.Set(shape, d)
}

type strView struct{ v *interp.View[string] }

func (s strView) tensor() *interp.Tensor { return s.v.Tensor() }

// set views raw's BYTES elements as strings, in vs.strs; their slice may
// move as it grows, and a tensor set before keeps the older array, which
// stays valid (nothing writes it again for this request).
func (s strView) set(vs *viewSet, shape []int64, raw []byte) bool {
	strs := vs.strs // a local: the loop keeps it in registers
	at := len(strs)
	for len(raw) > 0 {
		elem, rest, ok := nextBytes(raw)
		if !ok {
			return false
		}
		strs = append(strs, bytesString(elem))
		raw = rest
	}
	vs.strs = strs
	return s.v.Set(shape, strs[at:len(strs):len(strs)])
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
