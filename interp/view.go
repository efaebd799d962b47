package interp

import (
	"math"
	"math/bits"
	"unsafe"
)

// A View is a tensor of T elements that a caller points at memory it
// does not own, again and again, without allocating: recom serve runs a
// binary request on views of its body (1001 inputs a request of model E),
// where pointing a tensor at new elements through NewShared or
// NewSharedIn would box a slice for each (an allocation, and garbage
// with a pointer into the body).
//
// A View's tensor holds its elements in a box of its own (the slice
// header an interface of []T points to), which Set overwrites in place:
// Data's result (the interface) sees the new elements once Set returns.
// A reader that keeps the []T it took from Data keeps the old elements;
// one that keeps the interface itself past its use would not, so a View
// is handed only to readers that do not (recom's backends: the
// interpreter and runtime/session read their feeds during a run).
type View[T Elem] struct {
	_   noCopy
	t   Tensor
	box []T // what t's data points to
}

// noCopy makes go vet's copylocks check flag a View copied after Init
// (its tensor would point to the original's box).
type noCopy struct{}

func (*noCopy) Lock()   {}
func (*noCopy) Unlock() {}

// eface is the layout of an interface value with methods none (the
// runtime's: a type word and a data word; for a slice, the data word
// points to a boxed slice header).
type eface struct {
	typ  unsafe.Pointer
	data unsafe.Pointer
}

// NewView is a View of no elements (shape [0]).
func NewView[T Elem]() *View[T] {
	v := &View[T]{}
	v.Init()
	return v
}

// Init makes the zero View v (an element of an array of them, say: a
// caller's many views then lie together in memory) a View of no elements;
// v must not be copied after.
func (v *View[T]) Init() {
	v.box = []T{}
	var proto any = []T{} // the type word of []T
	v.t = Tensor{dtype: DTypeOf[T](), shape: zeroShape}
	e := (*eface)(unsafe.Pointer(&v.t.data))
	e.typ = (*eface)(unsafe.Pointer(&proto)).typ
	e.data = unsafe.Pointer(&v.box)
}

// Tensor is the view's tensor (the same one after every Set).
func (v *View[T]) Tensor() *Tensor { return &v.t }

// Set points the view at data, of shape (both kept, not copied: the
// caller must not write them while a reader reads the tensor): false,
// and the view unchanged, when data does not have shape's elements.
func (v *View[T]) Set(shape []int64, data []T) bool {
	if len(shape) > MaxRank {
		return false
	}
	n := uint64(1)
	for _, d := range shape {
		hi, lo := bits.Mul64(n, uint64(d))
		if d < 0 || hi != 0 || lo > math.MaxInt64 {
			return false
		}
		n = lo
	}
	if uint64(len(data)) != n {
		return false
	}
	if data == nil {
		data = []T{}
	}
	v.box = data
	v.t.shape = shape[:len(shape):len(shape)]
	return true
}

// Clear drops the view's elements (Set of none), so that it holds no
// memory of the caller's.
func (v *View[T]) Clear() {
	v.box = []T{}
	v.t.shape = zeroShape
}

var zeroShape = []int64{0}
