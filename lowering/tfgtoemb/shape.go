package tfgtoemb

import (
	"github.com/recom-compiler/recom/dialects/tfg/optab"
	"github.com/recom-compiler/recom/textir"
)

// A small symbolic evaluator for the integer shape vectors TensorFlow
// computes at run time (Shape, Slice, Prod, Pack, Gather, StridedSlice,
// Cast): enough to prove that a SparseReshape is an identity and that a
// dense_shape is the shape of a given tensor.

// term is one element of a shape vector: a constant, or dimension dim of
// the tensor v.
type term struct {
	v     *textir.Value
	dim   int
	elem  bool // element dim of the vector v (not a dimension of v)
	c     int64
	isC   bool
	valid bool
}

func cterm(c int64) term { return term{c: c, isC: true, valid: true} }

// dimTerm is dimension i of v, normalised through ops that keep it.
func dimTerm(v *textir.Value, i int) term {
	for k := 0; k < 32; k++ {
		dims, ok := dimsOf(v)
		if !ok || i < 0 || i >= len(dims) {
			return term{}
		}
		if dims[i] >= 0 {
			return cterm(dims[i])
		}
		d := def(v)
		switch {
		case isOp(d, "Identity", "Bucketize", "Snapshot"):
			v = optab.Operand(d, "input")
			continue
		case isOp(d, "ExpandDims"):
			ax, ok := constInt(optab.Operand(d, "dim"))
			in := rankOf(optab.Operand(d, "input"))
			if !ok || in < 0 {
				break
			}
			if ax < 0 {
				ax += int64(in) + 1
			}
			switch {
			case int64(i) == ax:
				return cterm(1)
			case int64(i) < ax:
				v = optab.Operand(d, "input")
				continue
			case int64(i) > ax:
				v, i = optab.Operand(d, "input"), i-1
				continue
			}
		}
		return term{v: v, dim: i, valid: true}
	}
	return term{}
}

func (a term) eq(b term) bool {
	if !a.valid || !b.valid {
		return false
	}
	if a.isC || b.isC {
		return a.isC && b.isC && a.c == b.c
	}
	return a.v == b.v && a.dim == b.dim && a.elem == b.elem
}

// widths records values known to be [?, D] (the pooled lookup and the
// reshapes after it) while a column is matched; nil outside.
type widths map[*textir.Value]int64

// shapeOf returns the terms of the shape of v.
func (w widths) shapeOf(v *textir.Value) ([]term, bool) {
	if d, ok := w[v]; ok {
		return []term{{v: v, dim: 0, valid: true}, cterm(d)}, true
	}
	r := rankOf(v)
	if r < 0 {
		return nil, false
	}
	out := make([]term, r)
	for i := range out {
		out[i] = dimTerm(v, i)
	}
	return out, true
}

// vecTerms evaluates an integer vector value.
func (w widths) vecTerms(v *textir.Value, depth int) ([]term, bool) {
	if depth > 32 || v == nil {
		return nil, false
	}
	v = strip(v)
	if xs, ok := constInts(v); ok {
		out := make([]term, len(xs))
		for i, x := range xs {
			out[i] = cterm(x)
		}
		return out, true
	}
	d := def(v)
	switch {
	case isOp(d, "Shape"):
		return w.shapeOf(optab.Operand(d, "input"))
	case isOp(d, "Cast"):
		return w.vecTerms(optab.Operand(d, "x"), depth+1)
	case isOp(d, "Pack"):
		if a, _ := intAttr(d, "axis"); a != 0 {
			return nil, false
		}
		vs := optab.Operands(d, "values")
		out := make([]term, len(vs))
		for i, x := range vs {
			s, ok := w.scalarTerm(x, depth+1)
			if !ok {
				return nil, false
			}
			out[i] = s
		}
		return out, true
	case isOp(d, "Slice"):
		xs, ok := w.vecTerms(optab.Operand(d, "input"), depth+1)
		b, ok1 := constInts(optab.Operand(d, "begin"))
		s, ok2 := constInts(optab.Operand(d, "size"))
		if !ok || !ok1 || !ok2 || len(b) != 1 || len(s) != 1 {
			return nil, false
		}
		lo, n := b[0], s[0]
		if n == -1 {
			n = int64(len(xs)) - lo
		}
		if lo < 0 || n < 0 || lo+n > int64(len(xs)) {
			return nil, false
		}
		return xs[lo : lo+n], true
	case isOp(d, "ConcatV2"):
		if ax, ok := constInt(optab.Operand(d, "axis")); !ok || ax != 0 {
			return nil, false
		}
		var out []term
		for _, x := range optab.Operands(d, "values") {
			xs, ok := w.vecTerms(x, depth+1)
			if !ok {
				return nil, false
			}
			out = append(out, xs...)
		}
		return out, true
	}
	// A vector of known length: its elements, opaque.
	if dims, ok := dimsOf(v); ok && len(dims) == 1 && dims[0] >= 0 && dims[0] <= 8 {
		out := make([]term, dims[0])
		for i := range out {
			out[i] = term{v: v, dim: i, elem: true, valid: true}
		}
		return out, true
	}
	return nil, false
}

// scalarTerm evaluates an integer scalar value.
func (w widths) scalarTerm(v *textir.Value, depth int) (term, bool) {
	if depth > 32 || v == nil {
		return term{}, false
	}
	v = strip(v)
	if x, ok := constInt(v); ok {
		return cterm(x), true
	}
	d := def(v)
	switch {
	case isOp(d, "Cast"):
		return w.scalarTerm(optab.Operand(d, "x"), depth+1)
	case isOp(d, "StridedSlice"):
		xs, ok := w.vecTerms(optab.Operand(d, "input"), depth+1)
		b, ok1 := constInts(optab.Operand(d, "begin"))
		e, ok2 := constInts(optab.Operand(d, "end"))
		s, ok3 := constInts(optab.Operand(d, "strides"))
		if !ok || !ok1 || !ok2 || !ok3 || len(b) != 1 || len(e) != 1 || len(s) != 1 || s[0] != 1 {
			return term{}, false
		}
		if !intAttrIs(d, "shrink_axis_mask", 1) || !intAttrIs(d, "begin_mask", 0) || !intAttrIs(d, "ellipsis_mask", 0) || !intAttrIs(d, "new_axis_mask", 0) {
			return term{}, false
		}
		i := b[0]
		if i < 0 {
			i += int64(len(xs))
		}
		if i < 0 || i >= int64(len(xs)) {
			return term{}, false
		}
		return xs[i], true
	case isOp(d, "GatherV2", "Gather"):
		xs, ok := w.vecTerms(optab.Operand(d, "params"), depth+1)
		i, ok1 := constInt(optab.Operand(d, "indices"))
		if !ok || !ok1 || rankOf(optab.Operand(d, "indices")) != 0 {
			return term{}, false
		}
		if isOp(d, "GatherV2") {
			if ax, ok := constInt(optab.Operand(d, "axis")); !ok || ax != 0 {
				return term{}, false
			}
		}
		if i < 0 || i >= int64(len(xs)) {
			return term{}, false
		}
		return xs[i], true
	case isOp(d, "Prod"):
		xs, ok := w.vecTerms(optab.Operand(d, "input"), depth+1)
		if !ok || !constIntsEq(optab.Operand(d, "reduction_indices"), 0) && !constIntsEq(optab.Operand(d, "reduction_indices")) {
			return term{}, false
		}
		if v, _ := d.Attr("keep_dims").(textir.BoolAttr); v.Value {
			return term{}, false
		}
		if len(xs) == 1 {
			return xs[0], true
		}
		p := int64(1)
		for _, x := range xs {
			if !x.isC {
				return term{}, false
			}
			p *= x.c
		}
		return cterm(p), true
	case isOp(d, "Unpack"):
		if a, _ := intAttr(d, "axis"); a != 0 {
			return term{}, false
		}
		xs, ok := w.vecTerms(optab.Operand(d, "value"), depth+1)
		if !ok || v.Index() >= len(xs) {
			return term{}, false
		}
		return xs[v.Index()], true
	}
	return term{}, false
}

func termsEq(a, b []term) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if !a[i].eq(b[i]) {
			return false
		}
	}
	return true
}

// identitySparseReshape reports whether SparseReshape(indices, shape,
// newShape) keeps a rank-2 sparse tensor as it is: newShape equals shape,
// or equals it except for one -1.
func identitySparseReshape(sr *textir.Operation) bool {
	var w widths
	s, ok1 := w.vecTerms(optab.Operand(sr, "input_shape"), 0)
	n, ok2 := w.vecTerms(optab.Operand(sr, "new_shape"), 0)
	if !ok1 || !ok2 || len(s) != 2 || len(n) != 2 {
		return false
	}
	inferred := 0
	for i := range s {
		if n[i].isC && n[i].c == -1 {
			inferred++
			continue
		}
		if !n[i].eq(s[i]) {
			return false
		}
	}
	return inferred <= 1
}
