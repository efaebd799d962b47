package optab

import (
	"strings"

	"github.com/recom-compiler/recom/textir"
)

// ShapeFn is an op's shape function, as TensorFlow's SetShapeFn: it reads
// what c knows of op's operands and tells c the dims (and, for small
// integer tensors, the content) of op's data results. A result it does not
// set stays unknown. Shape functions assume that the program runs without
// error: dims that an op requires to be equal are equal (they say so with
// Equate), and a symbolic dim broadcast against another is not 1.
type ShapeFn func(c ShapeContext, op *textir.Operation)

// Dim is one dimension of a tensor, or one element of a small integer
// tensor, as a ShapeContext represents it: a constant, a symbolic
// expression, or unknown. Shape functions compute with dims only through
// their context.
type Dim interface {
	// IsConst returns the dim's value when it is a constant as it stands
	// (the context's equalities not applied).
	IsConst() (int64, bool)
	// Err is nil when the dim is known.
	Err() error
}

// ShapeContext is what a shape function works with: the dims and contents
// known so far, arithmetic on dims, equalities between them, and symbols
// for sizes known only at run time. --simplify-shapes implements it with
// canonical symbolic expressions (lowering/simplifyshapes).
type ShapeContext interface {
	// Dims returns what is known of v's dims: nil when v's rank is unknown
	// (or v is nil). The slice may be the context's own record: a shape
	// function that changes it must copy it first.
	Dims(v *textir.Value) []Dim
	// Content returns the elements of v when v is a small integer tensor
	// (rank ≤ 1, at most MaxContent elements) whose content is tracked; nil
	// otherwise. An element may be unknown. The slice may be the
	// context's own record, as for Dims.
	Content(v *textir.Value) []Dim
	// Consts returns v's content when every element is a constant under
	// the recorded equalities.
	Consts(v *textir.Value) ([]int64, bool)
	// Set records v's dims and content (nil: unknown), reconciled with v's
	// static type; the context may keep (and canonicalize) the slices.
	Set(v *textir.Value, dims, content []Dim)
	// MaxContent is the largest number of elements whose content the
	// context tracks.
	MaxContent() int

	// Const returns the constant c.
	Const(c int64) Dim
	// Unknown returns the unknown dim.
	Unknown() Dim
	// Add, Sub, Mul, FloorDiv, CeilDiv, Mod, Max and Min compute on dims
	// (an unknown operand makes the result unknown).
	Add(x, y Dim) Dim
	Sub(x, y Dim) Dim
	Mul(x, y Dim) Dim
	FloorDiv(x, y Dim) Dim
	CeilDiv(x, y Dim) Dim
	Mod(x, y Dim) Dim
	Max(xs ...Dim) Dim
	Min(xs ...Dim) Dim

	// Equate records that x and y are equal (nothing when either is unknown).
	Equate(x, y Dim)
	// Same reports whether x and y are known and equal under the recorded
	// equalities.
	Same(x, y Dim) bool

	// AttrDims reads shape attribute attr of op as dims: nil when it is
	// missing or of unknown rank. With bind nil an unknown dim is
	// Unknown(); otherwise it becomes a new input symbol, computed at run
	// time as the same dim of bind.
	AttrDims(op *textir.Operation, attr string, bind *textir.Value) []Dim
	// Count returns a new symbol for a size known only at run time (the
	// number of unique values, of kept rows, ...), named after op's node
	// and suffix; it is computed as v's dimension dim, or (dim < 0) v's
	// number of elements; with v nil it cannot be computed.
	Count(op *textir.Operation, suffix string, v *textir.Value, dim int) Dim
}

// ClassShape returns the shape function of an op class: the first input's
// dims for Unary and SameShape ops, NumPy broadcasting of the two inputs
// for Binary ones, nil for Opaque ones.
func ClassShape(c Class) ShapeFn {
	switch c {
	case Unary, SameShape:
		return sameDims
	case Binary:
		return broadcastShape(nil)
	}
	return nil
}

// firstIn and firstOut are an op's first input and output tensors.
func firstIn(op *textir.Operation) *textir.Value {
	if o, ok := Of(op.Name()); ok && len(o.Inputs) > 0 {
		return Operand(op, o.Inputs[0].Name)
	}
	return nil
}

func firstOut(op *textir.Operation) *textir.Value {
	if o, ok := Of(op.Name()); ok && len(o.Outputs) > 0 {
		return Result(op, o.Outputs[0].Name)
	}
	return nil
}

// sameDims: the result has the dims of the first input.
func sameDims(c ShapeContext, op *textir.Operation) {
	if r := firstOut(op); r != nil {
		c.Set(r, c.Dims(firstIn(op)), nil)
	}
}

// Broadcast combines two shapes by NumPy broadcasting, equating the
// symbolic dims that must be equal; nil when either rank is unknown.
func Broadcast(c ShapeContext, x, y []Dim) []Dim {
	if x == nil || y == nil {
		return nil
	}
	if len(x) < len(y) {
		x, y = y, x
	}
	out := append([]Dim{}, x...)
	off := len(x) - len(y)
	for i, d := range y {
		e := x[off+i]
		c1, ok1 := e.IsConst()
		c2, ok2 := d.IsConst()
		switch {
		case ok1 && c1 == 1:
			out[off+i] = d
		case ok2 && c2 == 1:
			out[off+i] = e
		case known(e) && known(d):
			c.Equate(e, d)
			out[off+i] = e
		case known(e):
			out[off+i] = e
		default:
			out[off+i] = d
		}
	}
	return out
}

func known(d Dim) bool { return d.Err() == nil }

// scalarConst returns v's one constant element.
func scalarConst(c ShapeContext, v *textir.Value) (int64, bool) {
	k, ok := c.Consts(v)
	if !ok || len(k) != 1 {
		return 0, false
	}
	return k[0], true
}

// numel is the number of elements of a tensor of the given dims.
func numel(c ShapeContext, dims []Dim) Dim {
	if dims == nil {
		return c.Unknown()
	}
	n := c.Const(1)
	for _, d := range dims {
		n = c.Mul(n, d)
	}
	return n
}

// numelConst is numel when every dim is a constant.
func numelConst(dims []Dim) (int64, bool) {
	n := int64(1)
	for _, d := range dims {
		c, ok := d.IsConst()
		if !ok {
			return 0, false
		}
		n *= c
	}
	return n, true
}

func unknownDims(c ShapeContext, n int) []Dim {
	d := make([]Dim, n)
	for i := range d {
		d[i] = c.Unknown()
	}
	return d
}

// IsIntTensor reports whether v's elements are integers that can hold a
// shape or a size (8 to 64 bits, or index).
func IsIntTensor(v *textir.Value) bool {
	if v == nil {
		return false
	}
	switch textir.ElementType(v.Type()) {
	case textir.I8(), textir.I16(), textir.I32(), textir.I64(), textir.Index():
		return true
	}
	return false
}

func normAxis(ax int64, rank int) (int, bool) {
	if ax < 0 {
		ax += int64(rank)
	}
	if ax < 0 || ax >= int64(rank) {
		return 0, false
	}
	return int(ax), true
}

// ---- attributes ----

// intAttr reads an integer (or bool, as 0 or 1) attribute.
func intAttr(op *textir.Operation, name string) (int64, bool) {
	switch x := op.Attr(name).(type) {
	case textir.IntegerAttr:
		return x.Value, true
	case textir.BoolAttr:
		if x.Value {
			return 1, true
		}
		return 0, true
	}
	return 0, false
}

func boolAttr(op *textir.Operation, name string) bool {
	v, _ := intAttr(op, name)
	return v != 0
}

func intListAttr(op *textir.Operation, name string) []int64 {
	arr, ok := op.Attr(name).(textir.ArrayAttr)
	if !ok {
		return nil
	}
	var out []int64
	for _, e := range arr.Elems {
		if i, ok := e.(textir.IntegerAttr); ok {
			out = append(out, i.Value)
		}
	}
	return out
}

func stringAttr(op *textir.Operation, name string) string {
	s, _ := op.Attr(name).(textir.StringAttr)
	return s.Value
}

// channelsFirst reports whether a data_format attribute puts channels
// second ("NCHW").
func channelsFirst(op *textir.Operation) bool {
	return strings.HasPrefix(stringAttr(op, "data_format"), "NC")
}
