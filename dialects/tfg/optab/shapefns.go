package optab

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/recom-compiler/recom/textir"
)

// The shape functions of the rows of ops.go. Each reads its operands and
// results by the names of its row's signature.

// ---- sources ----

// placeholderShape: the shape attr, unknown dims becoming input symbols
// (the batch size, for the first placeholder whose dim 0 is unknown).
func placeholderShape(c ShapeContext, op *textir.Operation) {
	if r := Result(op, "output"); r != nil {
		c.Set(r, c.AttrDims(op, "shape", r), nil)
	}
}

// variableShape: the shape attr of a variable.
func variableShape(c ShapeContext, op *textir.Operation) {
	if r := Result(op, "ref"); r != nil {
		c.Set(r, c.AttrDims(op, "shape", nil), nil)
	}
}

// readVariableShape: the shape attr of the VarHandleOp read.
func readVariableShape(c ShapeContext, op *textir.Operation) {
	r, h := Result(op, "value"), Operand(op, "resource")
	if r == nil || h == nil {
		return
	}
	if d := h.DefiningOp(); d != nil && d.Name() == Dialect+".VarHandleOp" {
		c.Set(r, c.AttrDims(d, "shape", nil), nil)
	}
}

// constShape: the value's type, and its content when it is a small
// integer tensor.
func constShape(c ShapeContext, op *textir.Operation) {
	r := Result(op, "output")
	d, _ := op.Attr("value").(*textir.DenseElementsAttr)
	if r == nil || d == nil {
		return
	}
	dims := make([]Dim, len(d.Type.Shape))
	for i, x := range d.Type.Shape {
		dims[i] = c.Const(x)
	}
	c.Set(r, dims, constContent(c, d))
}

// constContent reads a small integer constant.
func constContent(c ShapeContext, d *textir.DenseElementsAttr) []Dim {
	if d.IsString() || len(d.Type.Shape) > 1 || textir.IsFloat(d.Type.Elem) {
		return nil
	}
	n := d.NumElements()
	if n < 0 || n > int64(c.MaxContent()) {
		return nil
	}
	out := make([]Dim, n)
	for i := range n {
		out[i] = c.Const(d.IntAt(i))
	}
	return out
}

// ---- shapes of tensors ----

// shapeShape (Shape and ShapeN): the dims of each input are the content
// of the matching output.
func shapeShape(c ShapeContext, op *textir.Operation) {
	ins := Operands(op, "input")
	for i, x := range Results(op, "output") {
		var xd []Dim
		if i < len(ins) {
			xd = c.Dims(ins[i])
		}
		if xd == nil {
			c.Set(x, []Dim{c.Unknown()}, nil)
			continue
		}
		c.Set(x, []Dim{c.Const(int64(len(xd)))}, xd)
	}
}

func sizeShape(c ShapeContext, op *textir.Operation) {
	if r := Result(op, "output"); r != nil {
		c.Set(r, []Dim{}, []Dim{numel(c, c.Dims(Operand(op, "input")))})
	}
}

func rankShape(c ShapeContext, op *textir.Operation) {
	r := Result(op, "output")
	if r == nil {
		return
	}
	var content []Dim
	if xd := c.Dims(Operand(op, "input")); xd != nil {
		content = []Dim{c.Const(int64(len(xd)))}
	}
	c.Set(r, []Dim{}, content)
}

// ---- elementwise ----

// identityShape: dims and content of the input.
func identityShape(c ShapeContext, op *textir.Operation) {
	if x, r := Operand(op, "input"), Result(op, "output"); r != nil {
		c.Set(r, c.Dims(x), c.Content(x))
	}
}

// castShape: the input's dims; its content too between integer types.
func castShape(c ShapeContext, op *textir.Operation) {
	x, r := Operand(op, "x"), Result(op, "y")
	if r == nil {
		return
	}
	var content []Dim
	if IsIntTensor(x) && IsIntTensor(r) {
		content = c.Content(x)
	}
	c.Set(r, c.Dims(x), content)
}

// broadcastShape is the shape function of a Binary op: NumPy broadcasting
// of the two inputs. When the result is an integer tensor and fold is not
// nil, the content is fold applied elementwise to the inputs' contents.
func broadcastShape(fold func(c ShapeContext, p, q Dim) Dim) ShapeFn {
	return func(c ShapeContext, op *textir.Operation) {
		o, ok := Of(op.Name())
		if !ok || len(o.Inputs) != 2 || len(o.Outputs) == 0 {
			return
		}
		x, y, r := Operand(op, o.Inputs[0].Name), Operand(op, o.Inputs[1].Name), Result(op, o.Outputs[0].Name)
		if r == nil {
			return
		}
		xd, yd := c.Dims(x), c.Dims(y)
		var content []Dim
		if fold != nil && IsIntTensor(r) {
			content = binaryContent(c.Content(x), c.Content(y), func(p, q Dim) Dim { return fold(c, p, q) })
		}
		c.Set(r, Broadcast(c, xd, yd), content)
	}
}

// binaryContent applies f elementwise to two contents (equal lengths, or
// one of length 1).
func binaryContent(x, y []Dim, f func(p, q Dim) Dim) []Dim {
	if x == nil || y == nil {
		return nil
	}
	n := max(len(x), len(y))
	if (len(x) != n && len(x) != 1) || (len(y) != n && len(y) != 1) {
		return nil
	}
	out := make([]Dim, n)
	for i := range n {
		out[i] = f(x[min(i, len(x)-1)], y[min(i, len(y)-1)])
	}
	return out
}

// The integer folds of Binary ops.
func foldAdd(c ShapeContext, p, q Dim) Dim { return c.Add(p, q) }
func foldSub(c ShapeContext, p, q Dim) Dim { return c.Sub(p, q) }
func foldMul(c ShapeContext, p, q Dim) Dim { return c.Mul(p, q) }
func foldMax(c ShapeContext, p, q Dim) Dim { return c.Max(p, q) }
func foldMin(c ShapeContext, p, q Dim) Dim { return c.Min(p, q) }

// foldFloorDiv and foldFloorMod leave a division by zero unknown.
func foldFloorDiv(c ShapeContext, p, q Dim) Dim {
	if k, ok := q.IsConst(); ok && k == 0 {
		return c.Unknown()
	}
	return c.FloorDiv(p, q)
}

func foldFloorMod(c ShapeContext, p, q Dim) Dim {
	if k, ok := q.IsConst(); ok && k == 0 {
		return c.Unknown()
	}
	return c.Mod(p, q)
}

// biasAddShape: the value's dims, its channel dim equal to the bias's.
func biasAddShape(c ShapeContext, op *textir.Operation) {
	r := Result(op, "output")
	if r == nil {
		return
	}
	xd := c.Dims(Operand(op, "value"))
	if bd := c.Dims(Operand(op, "bias")); xd != nil && len(bd) == 1 && len(xd) >= 2 {
		ch := len(xd) - 1
		if channelsFirst(op) {
			ch = 1
		}
		c.Equate(xd[ch], bd[0])
	}
	c.Set(r, xd, nil)
}

// selectShape: t and e have equal dims; the condition has them too, or is
// a vector along dim 0.
func selectShape(c ShapeContext, op *textir.Operation) {
	r := Result(op, "output")
	if r == nil {
		return
	}
	td, ed, cd := c.Dims(Operand(op, "t")), c.Dims(Operand(op, "e")), c.Dims(Operand(op, "condition"))
	if td != nil && ed != nil && len(td) == len(ed) {
		for i := range td {
			c.Equate(td[i], ed[i])
		}
	}
	if td == nil {
		td = ed
	}
	if cd != nil && td != nil {
		if len(cd) == 1 && len(td) > 1 {
			c.Equate(cd[0], td[0])
		} else if len(cd) == len(td) {
			for i := range td {
				c.Equate(cd[i], td[i])
			}
		}
	}
	c.Set(r, td, nil)
}

// selectV2Shape: the three operands broadcast.
func selectV2Shape(c ShapeContext, op *textir.Operation) {
	if r := Result(op, "output"); r != nil {
		cd, td, ed := c.Dims(Operand(op, "condition")), c.Dims(Operand(op, "t")), c.Dims(Operand(op, "e"))
		c.Set(r, Broadcast(c, Broadcast(c, cd, td), ed), nil)
	}
}

// ---- the DNN ----

func matMulShape(c ShapeContext, op *textir.Operation) {
	r := Result(op, "product")
	if r == nil {
		return
	}
	xd, yd := c.Dims(Operand(op, "a")), c.Dims(Operand(op, "b"))
	if len(xd) != 2 || len(yd) != 2 {
		c.Set(r, nil, nil)
		return
	}
	m, k1 := xd[0], xd[1]
	if boolAttr(op, "transpose_a") {
		m, k1 = k1, m
	}
	k2, n := yd[0], yd[1]
	if boolAttr(op, "transpose_b") {
		k2, n = n, k2
	}
	c.Equate(k1, k2)
	c.Set(r, []Dim{m, n}, nil)
}

// ---- packing, slicing, joining ----

// packShape: the values have equal dims; the result has one more, their
// number, at axis; packed scalars are the content.
func packShape(c ShapeContext, op *textir.Operation) {
	args, r := Operands(op, "values"), Result(op, "output")
	if len(args) == 0 || r == nil {
		return
	}
	first := c.Dims(args[0])
	for _, x := range args[1:] {
		d := c.Dims(x)
		if first == nil {
			first = d
			continue
		}
		if d != nil && len(d) == len(first) {
			for i := range d {
				c.Equate(first[i], d[i])
			}
		}
	}
	if first == nil {
		c.Set(r, nil, nil)
		return
	}
	ax, _ := intAttr(op, "axis")
	axis, ok := normAxis(ax, len(first)+1)
	if !ok {
		return
	}
	od := append(append(append([]Dim(nil), first[:axis]...), c.Const(int64(len(args)))), first[axis:]...)
	var content []Dim
	if len(first) == 0 {
		for _, x := range args {
			xc := c.Content(x)
			if len(xc) != 1 {
				content = nil
				break
			}
			content = append(content, xc[0])
		}
	}
	c.Set(r, od, content)
}

// unpackShape: each output has the input's dims without axis.
func unpackShape(c ShapeContext, op *textir.Operation) {
	x := Operand(op, "value")
	xd := c.Dims(x)
	ax, _ := intAttr(op, "axis")
	if xd == nil {
		return
	}
	axis, ok := normAxis(ax, len(xd))
	if !ok {
		return
	}
	od := append(append([]Dim{}, xd[:axis]...), xd[axis+1:]...)
	xc := c.Content(x)
	for i, r := range Results(op, "output") {
		var content []Dim
		if len(xd) == 1 && xc != nil && i < len(xc) {
			content = []Dim{xc[i]}
		}
		c.Set(r, od, content)
	}
}

// reduceShape is the shape function of a reduction over constant axes;
// acc, when not nil, folds a reduced integer vector's content.
func reduceShape(acc func(c ShapeContext, xc []Dim) (Dim, bool)) ShapeFn {
	return func(c ShapeContext, op *textir.Operation) {
		x, r := Operand(op, "input"), Result(op, "output")
		if r == nil {
			return
		}
		xd := c.Dims(x)
		ax, ok := c.Consts(Operand(op, "reduction_indices"))
		if xd == nil || !ok {
			c.Set(r, nil, nil)
			return
		}
		red := map[int]bool{}
		for _, v := range ax {
			i, ok := normAxis(v, len(xd))
			if !ok {
				return
			}
			red[i] = true
		}
		keep := boolAttr(op, "keep_dims")
		var od []Dim
		for i, d := range xd {
			switch {
			case !red[i]:
				od = append(od, d)
			case keep:
				od = append(od, c.Const(1))
			}
		}
		if od == nil {
			od = []Dim{}
		}
		var content []Dim
		if xc := c.Content(x); acc != nil && len(xd) == 1 && red[0] && xc != nil {
			if a, ok := acc(c, xc); ok && known(a) {
				content = []Dim{a}
			}
		}
		c.Set(r, od, content)
	}
}

// The folds of reductions.
func accProd(c ShapeContext, xc []Dim) (Dim, bool) {
	a := c.Const(1)
	for _, e := range xc {
		a = c.Mul(a, e)
	}
	return a, true
}

func accSum(c ShapeContext, xc []Dim) (Dim, bool) {
	a := c.Const(0)
	for _, e := range xc {
		a = c.Add(a, e)
	}
	return a, true
}

func accMax(c ShapeContext, xc []Dim) (Dim, bool) {
	if len(xc) == 0 {
		return nil, false
	}
	return c.Max(xc...), true
}

func accMin(c ShapeContext, xc []Dim) (Dim, bool) {
	if len(xc) == 0 {
		return nil, false
	}
	return c.Min(xc...), true
}

// sliceIndices computes the TensorFlow strided-slice indices of a dim of
// constant size n.
func sliceIndices(n, b, e, s int64, bm, em bool) []int64 {
	if s == 0 {
		return nil
	}
	clamp := func(x, lo, hi int64) int64 { return max(lo, min(x, hi)) }
	if s > 0 {
		if bm {
			b = 0
		} else if b < 0 {
			b += n
		}
		if em {
			e = n
		} else if e < 0 {
			e += n
		}
		b, e = clamp(b, 0, n), clamp(e, 0, n)
	} else {
		if bm {
			b = n - 1
		} else if b < 0 {
			b += n
		}
		if em {
			e = -1
		} else if e < 0 {
			e += n
		}
		b, e = clamp(b, -1, n-1), clamp(e, -1, n-1)
	}
	out := []int64{}
	for i := b; (s > 0 && i < e) || (s < 0 && i > e); i += s {
		out = append(out, i)
		if len(out) > 1<<20 {
			return nil
		}
	}
	return out
}

// stridedSliceShape handles constant begin, end and strides without
// ellipsis or new axes: constant dims are sliced exactly, symbolic ones
// when the slice keeps a prefix ([b:] with b = 0, or [b:e] with
// constants).
func stridedSliceShape(c ShapeContext, op *textir.Operation) {
	x, r := Operand(op, "input"), Result(op, "output")
	bv, ev, sv := Operand(op, "begin"), Operand(op, "end"), Operand(op, "strides")
	if x == nil || bv == nil || ev == nil || sv == nil || r == nil {
		return
	}
	xd := c.Dims(x)
	bs, ok1 := c.Consts(bv)
	es, ok2 := c.Consts(ev)
	ss, ok3 := c.Consts(sv)
	ell, _ := intAttr(op, "ellipsis_mask")
	nam, _ := intAttr(op, "new_axis_mask")
	if xd == nil || !ok1 || !ok2 || !ok3 || len(bs) != len(es) || len(bs) != len(ss) || len(bs) > len(xd) || ell != 0 || nam != 0 {
		c.Set(r, nil, nil)
		return
	}
	bmask, _ := intAttr(op, "begin_mask")
	emask, _ := intAttr(op, "end_mask")
	smask, _ := intAttr(op, "shrink_axis_mask")
	var od []Dim
	var picks [][]int64 // for rank-1 content
	for i, d := range xd {
		if i >= len(bs) {
			od = append(od, d)
			continue
		}
		b, e, s := bs[i], es[i], ss[i]
		bm, em, sh := bmask&(1<<i) != 0, emask&(1<<i) != 0, smask&(1<<i) != 0
		n, isC := d.IsConst()
		if sh {
			if isC {
				idx := b
				if idx < 0 {
					idx += n
				}
				if idx < 0 || idx >= n {
					c.Set(r, nil, nil)
					return
				}
				picks = append(picks, []int64{idx})
			} else {
				picks = append(picks, nil)
			}
			continue
		}
		switch {
		case isC:
			ix := sliceIndices(n, b, e, s, bm, em)
			if ix == nil && s == 0 {
				c.Set(r, nil, nil)
				return
			}
			picks = append(picks, ix)
			od = append(od, c.Const(int64(len(ix))))
		case s == 1 && (bm || b == 0) && em:
			picks = append(picks, nil)
			od = append(od, d)
		case s == 1 && (bm || b >= 0) && !em && e >= 0:
			lo := b
			if bm {
				lo = 0
			}
			picks = append(picks, nil)
			od = append(od, c.Max(c.Const(0), c.Sub(c.Min(c.Const(e), d), c.Min(c.Const(lo), d))))
		default:
			picks = append(picks, nil)
			od = append(od, c.Unknown())
		}
	}
	if od == nil {
		od = []Dim{}
	}
	var content []Dim
	if xc := c.Content(x); len(xd) == 1 && xc != nil && len(picks) > 0 && picks[0] != nil {
		for _, i := range picks[0] {
			content = append(content, xc[i])
		}
		if content == nil {
			content = []Dim{}
		}
	}
	c.Set(r, od, content)
}

// sliceShape: sizes from the content of size (-1: to the end).
func sliceShape(c ShapeContext, op *textir.Operation) {
	x, r := Operand(op, "input"), Result(op, "output")
	if r == nil {
		return
	}
	xd := c.Dims(x)
	bs, ok1 := c.Consts(Operand(op, "begin"))
	sz := c.Content(Operand(op, "size"))
	if xd == nil || !ok1 || len(bs) != len(xd) || len(sz) != len(xd) {
		c.Set(r, nil, nil)
		return
	}
	od := make([]Dim, len(xd))
	for i := range xd {
		if k, ok := sz[i].IsConst(); ok && k == -1 {
			od[i] = c.Sub(xd[i], c.Const(bs[i]))
		} else {
			od[i] = sz[i]
		}
	}
	var content []Dim
	if xc := c.Content(x); len(xd) == 1 && xc != nil {
		if n, ok := od[0].IsConst(); ok && n >= 0 && bs[0] >= 0 && bs[0]+n <= int64(len(xc)) {
			content = append([]Dim{}, xc[bs[0]:bs[0]+n]...)
		}
	}
	c.Set(r, od, content)
}

// gatherShape is the shape function of a gather whose params argument is
// named params, along the constant axis operand (when axis names one) or
// 0: params' dims with the axis replaced by the indices' dims.
func gatherShape(params, axis string) ShapeFn {
	return func(c ShapeContext, op *textir.Operation) {
		p, ix, r := Operand(op, params), Operand(op, "indices"), Result(op, "output")
		if p == nil || ix == nil || r == nil {
			return
		}
		pd, id := c.Dims(p), c.Dims(ix)
		ax := int64(0)
		if axis != "" {
			a, ok := scalarConst(c, Operand(op, axis))
			if !ok {
				c.Set(r, nil, nil)
				return
			}
			ax = a
		}
		if bd, _ := intAttr(op, "batch_dims"); bd != 0 || pd == nil || id == nil {
			c.Set(r, nil, nil)
			return
		}
		at, ok := normAxis(ax, len(pd))
		if !ok {
			c.Set(r, nil, nil)
			return
		}
		od := append(append(append([]Dim{}, pd[:at]...), id...), pd[at+1:]...)
		var content []Dim
		if pc := c.Content(p); len(pd) == 1 && pc != nil {
			if is, ok := c.Consts(ix); ok {
				for _, i := range is {
					if i < 0 || i >= int64(len(pc)) {
						content = nil
						break
					}
					content = append(content, pc[i])
				}
			}
		}
		c.Set(r, od, content)
	}
}

// concatShape (ConcatV2, Concat): the inputs agree off the constant axis,
// along which their sizes add; rank-1 contents join.
func concatShape(axis string) ShapeFn {
	return func(c ShapeContext, op *textir.Operation) {
		xs, axv, r := Operands(op, "values"), Operand(op, axis), Result(op, "output")
		if len(xs) == 0 || axv == nil || r == nil {
			return
		}
		ax, ok := scalarConst(c, axv)
		var first []Dim
		for _, x := range xs {
			if d := c.Dims(x); d != nil {
				first = d
				break
			}
		}
		if !ok || first == nil {
			c.Set(r, nil, nil)
			return
		}
		at, ok := normAxis(ax, len(first))
		if !ok {
			return
		}
		od := append([]Dim(nil), first...)
		sum := c.Const(0)
		var content []Dim
		contentOK := len(first) == 1
		for _, x := range xs {
			d := c.Dims(x)
			if d == nil || len(d) != len(first) {
				sum = c.Unknown()
				contentOK = false
				continue
			}
			for i := range d {
				if i == at {
					continue
				}
				c.Equate(od[i], d[i])
				if !known(od[i]) {
					od[i] = d[i]
				}
			}
			sum = c.Add(sum, d[at])
			if xc := c.Content(x); contentOK && xc != nil {
				content = append(content, xc...)
			} else {
				contentOK = false
			}
		}
		od[at] = sum
		if !contentOK {
			content = nil
		}
		c.Set(r, od, content)
	}
}

// maxRank bounds the rank a reshape's shape operand may give (TensorFlow's
// own limit).
const maxRank = 254

// reshapeShape: the content of shape, a -1 inferred from the number of
// elements, which is equal on both sides.
func reshapeShape(c ShapeContext, op *textir.Operation) {
	x, shape, r := Operand(op, "tensor"), Operand(op, "shape"), Result(op, "output")
	if r == nil {
		return
	}
	sc := c.Content(shape)
	if sc == nil {
		if sd := c.Dims(shape); len(sd) == 1 {
			if n, ok := sd[0].IsConst(); ok && n >= 0 && n <= maxRank {
				c.Set(r, unknownDims(c, int(n)), nil)
				return
			}
		}
		c.Set(r, nil, nil)
		return
	}
	od := append([]Dim(nil), sc...)
	infer := -1
	rest := c.Const(1)
	for i, e := range od {
		if k, ok := e.IsConst(); ok && k == -1 {
			infer = i
			continue
		}
		rest = c.Mul(rest, e)
	}
	total := numel(c, c.Dims(x))
	if infer >= 0 {
		if k, ok := rest.IsConst(); ok && k == 0 {
			od[infer] = c.Unknown()
		} else {
			od[infer] = c.FloorDiv(total, rest)
		}
	} else {
		c.Equate(total, rest)
		// Same rank and one differing dim: that dim is equal too (sizes
		// are nonzero), which equating the products cannot find.
		if xd := c.Dims(x); len(xd) == len(od) {
			diff := -1
			for i := range xd {
				if !c.Same(xd[i], od[i]) {
					if diff >= 0 {
						diff = -2
						break
					}
					diff = i
				}
			}
			if diff >= 0 {
				c.Equate(xd[diff], od[diff])
			}
		}
	}
	var content []Dim
	if len(od) <= 1 {
		content = c.Content(x)
	}
	c.Set(r, od, content)
}

// expandDimsShape: a 1 inserted at the constant axis.
func expandDimsShape(c ShapeContext, op *textir.Operation) {
	x, r := Operand(op, "input"), Result(op, "output")
	if r == nil {
		return
	}
	xd := c.Dims(x)
	ax, ok := scalarConst(c, Operand(op, "dim"))
	if xd == nil || !ok {
		c.Set(r, nil, nil)
		return
	}
	axis, ok := normAxis(ax, len(xd)+1)
	if !ok {
		return
	}
	od := append(append(append([]Dim(nil), xd[:axis]...), c.Const(1)), xd[axis:]...)
	c.Set(r, od, c.Content(x))
}

// squeezeShape: the listed dims dropped, or every constant 1.
func squeezeShape(c ShapeContext, op *textir.Operation) {
	x, r := Operand(op, "input"), Result(op, "output")
	xd := c.Dims(x)
	if xd == nil || r == nil {
		return
	}
	drop := map[int]bool{}
	sq := intListAttr(op, "squeeze_dims")
	if sq == nil {
		sq = intListAttr(op, "axis")
	}
	for _, s := range sq {
		if ax, ok := normAxis(s, len(xd)); ok {
			drop[ax] = true
		}
	}
	if len(sq) == 0 {
		for i, d := range xd {
			k, ok := d.IsConst()
			if !ok {
				c.Set(r, nil, nil)
				return
			}
			if k == 1 {
				drop[i] = true
			}
		}
	}
	var od []Dim
	for i, d := range xd {
		if !drop[i] {
			od = append(od, d)
		}
	}
	if od == nil {
		od = []Dim{}
	}
	c.Set(r, od, c.Content(x))
}

// fillShape: the content of dims; a small result's content is the value.
func fillShape(c ShapeContext, op *textir.Operation) {
	r := Result(op, "output")
	dc := c.Content(Operand(op, "dims"))
	if dc == nil || r == nil {
		return
	}
	var content []Dim
	if vc := c.Content(Operand(op, "value")); len(vc) == 1 {
		if n, ok := numelConst(dc); ok && n >= 0 && n <= int64(c.MaxContent()) {
			content = make([]Dim, n)
			for i := range content {
				content[i] = vc[0]
			}
		}
	}
	c.Set(r, dc, content)
}

// tileShape: each dim times its multiple.
func tileShape(c ShapeContext, op *textir.Operation) {
	x, r := Operand(op, "input"), Result(op, "output")
	xd, mc := c.Dims(x), c.Content(Operand(op, "multiples"))
	if xd == nil || len(mc) != len(xd) || r == nil {
		return
	}
	od := make([]Dim, len(xd))
	for i := range xd {
		od[i] = c.Mul(xd[i], mc[i])
	}
	var content []Dim
	if xc := c.Content(x); len(xd) == 1 && xc != nil {
		if m, ok := mc[0].IsConst(); ok && int64(len(xc))*m <= int64(c.MaxContent()) {
			for range m {
				content = append(content, xc...)
			}
		}
	}
	c.Set(r, od, content)
}

// transposeShape: the dims permuted by the constant perm.
func transposeShape(c ShapeContext, op *textir.Operation) {
	r := Result(op, "y")
	xd := c.Dims(Operand(op, "x"))
	perm, ok := c.Consts(Operand(op, "perm"))
	if xd == nil || !ok || len(perm) != len(xd) || r == nil {
		return
	}
	od := make([]Dim, len(xd))
	for i, p := range perm {
		if p < 0 || int(p) >= len(xd) {
			return
		}
		od[i] = xd[p]
	}
	c.Set(r, od, nil)
}

// rangeShape: ceil((limit - start) / delta) elements for a constant delta;
// the content when it is small and start is constant.
func rangeShape(c ShapeContext, op *textir.Operation) {
	r := Result(op, "output")
	if r == nil {
		return
	}
	s, l, d := c.Content(Operand(op, "start")), c.Content(Operand(op, "limit")), c.Content(Operand(op, "delta"))
	if len(s) != 1 || len(l) != 1 || len(d) != 1 {
		c.Set(r, []Dim{c.Unknown()}, nil)
		return
	}
	dc, ok := d[0].IsConst()
	if !ok || dc == 0 {
		c.Set(r, []Dim{c.Unknown()}, nil)
		return
	}
	var n Dim
	if dc > 0 {
		n = c.Max(c.Const(0), c.CeilDiv(c.Sub(l[0], s[0]), c.Const(dc)))
	} else {
		n = c.Max(c.Const(0), c.CeilDiv(c.Sub(s[0], l[0]), c.Const(-dc)))
	}
	var content []Dim
	if k, ok := n.IsConst(); ok && k <= int64(c.MaxContent()) {
		if sc, ok := s[0].IsConst(); ok {
			for i := range k {
				content = append(content, c.Const(sc+i*dc))
			}
		}
		if content == nil {
			content = []Dim{}
		}
	}
	c.Set(r, []Dim{n}, content)
}

// ---- data-dependent sizes ----

// uniqueShape: as many unique values as a new count symbol; idx has the
// input's dims.
func uniqueShape(c ShapeContext, op *textir.Operation) {
	y := Result(op, "y")
	if y == nil {
		return
	}
	n := c.Count(op, ".n", y, -1)
	c.Set(y, []Dim{n}, nil)
	if idx := Result(op, "idx"); idx != nil {
		c.Set(idx, c.Dims(Operand(op, "x")), nil)
	}
}

// whereShape: a count of true elements, by the input's rank.
func whereShape(c ShapeContext, op *textir.Operation) {
	r := Result(op, "index")
	if r == nil {
		return
	}
	xd := c.Dims(Operand(op, "input"))
	n := c.Count(op, ".n", r, 0)
	rank := c.Unknown()
	if xd != nil {
		rank = c.Const(int64(len(xd)))
	}
	c.Set(r, []Dim{n, rank}, nil)
}

// stringSplitShape (StringSplit, StringSplitV2): a count of tokens, and
// the dense shape [rows, longest row], the longest row a count of its own.
func stringSplitShape(c ShapeContext, op *textir.Operation) {
	ind, vals, shape := Result(op, "indices"), Result(op, "values"), Result(op, "shape")
	if ind == nil || vals == nil || shape == nil {
		return
	}
	n := c.Count(op, ".n", vals, -1)
	c.Set(ind, []Dim{n, c.Const(2)}, nil)
	c.Set(vals, []Dim{n}, nil)
	rows := c.Unknown()
	if xd := c.Dims(Operand(op, "input")); len(xd) >= 1 {
		rows = xd[0]
	}
	m := c.Count(op, ".max", nil, 0)
	c.Set(shape, []Dim{c.Const(2)}, []Dim{rows, m})
}

// ---- shapes of the ops the interpreter runs beyond the embedding layer ----

// broadcastToShape: the content of the shape operand. (No dims are
// equated with the input's: TensorFlow checks nothing when the output is
// empty.) A one-element input broadcast to a small constant shape fills
// the content.
func broadcastToShape(c ShapeContext, op *textir.Operation) {
	r, x := Result(op, "output"), Operand(op, "input")
	sc := c.Content(Operand(op, "shape"))
	if r == nil || sc == nil {
		return
	}
	var content []Dim
	if xc := c.Content(x); len(xc) == 1 && len(sc) <= 1 {
		if n, ok := numelConst(sc); ok && n >= 0 && n <= int64(c.MaxContent()) {
			content = make([]Dim, n)
			for i := range content {
				content[i] = xc[0]
			}
		}
	}
	c.Set(r, append([]Dim{}, sc...), content)
}

// argReduceShape (ArgMax, ArgMin): the input's dims without the reduced
// axis, a constant scalar.
func argReduceShape(c ShapeContext, op *textir.Operation) {
	r := Result(op, "output")
	xd := c.Dims(Operand(op, "input"))
	ax, ok := scalarConst(c, Operand(op, "dimension"))
	if r == nil || xd == nil || !ok {
		return
	}
	at, ok := normAxis(ax, len(xd))
	if !ok {
		return
	}
	c.Set(r, append(append([]Dim{}, xd[:at]...), xd[at+1:]...), nil)
}

// parseExampleShape (ParseExample, ParseExampleV2), as TensorFlow's shape
// functions: for a batch of B examples (serialized a vector), a sparse
// feature has a count N of values (indices [N, 2], values [N], dense
// shape [2] = {B, a count}), a dense one [B] + its dense_shapes entry
// (the rows of a variable-length one a count), a ragged one a count of
// values and B + 1 row splits. A scalar serialized (version 2) drops B:
// indices [N, 1], dense shape [1] = {N}, empty row splits.
func parseExampleShape(c ShapeContext, op *textir.Operation) {
	sd := c.Dims(Operand(op, "serialized"))
	if sd == nil || len(sd) > 1 {
		return
	}
	batch := len(sd) == 1
	vals := Results(op, "sparse_values")
	for i, ind := range Results(op, "sparse_indices") {
		if i >= len(vals) {
			break
		}
		n := c.Count(op, fmt.Sprintf(".sparse%d.n", i), vals[i], 0)
		c.Set(vals[i], []Dim{n}, nil)
		if batch {
			c.Set(ind, []Dim{n, c.Const(2)}, nil)
		} else {
			c.Set(ind, []Dim{n, c.Const(1)}, nil)
		}
		if shapes := Results(op, "sparse_shapes"); i < len(shapes) {
			if batch {
				c.Set(shapes[i], []Dim{c.Const(2)}, []Dim{sd[0], c.Count(op, fmt.Sprintf(".sparse%d.max", i), nil, 0)})
			} else {
				c.Set(shapes[i], []Dim{c.Const(1)}, []Dim{n})
			}
		}
	}
	shapes, ok := shapeListAttr(op, "dense_shapes")
	for i, r := range Results(op, "dense_values") {
		if !ok || i >= len(shapes) || shapes[i] == nil {
			continue
		}
		var dims []Dim
		if batch {
			dims = append(dims, sd[0])
		}
		for j, d := range shapes[i] {
			switch {
			case d >= 0:
				dims = append(dims, c.Const(d))
			case j == 0:
				dims = append(dims, c.Count(op, fmt.Sprintf(".dense%d.rows", i), r, len(dims)))
			default:
				dims = append(dims, c.Unknown())
			}
		}
		c.Set(r, dims, nil)
	}
	splits := Results(op, "ragged_row_splits")
	for i, r := range Results(op, "ragged_values") {
		c.Set(r, []Dim{c.Count(op, fmt.Sprintf(".ragged%d.n", i), r, 0)}, nil)
		if i < len(splits) {
			if batch {
				c.Set(splits[i], []Dim{c.Add(sd[0], c.Const(1))}, nil)
			} else {
				c.Set(splits[i], []Dim{c.Const(0)}, nil)
			}
		}
	}
}

// shapeListAttr reads a list of #tfg.shape attributes (the dialect's
// printed form: "*" for an unknown rank, dims joined by 'x', '?' for an
// unknown dim, each dim maybe followed by a quoted name): nil for an
// unknown rank, -1 for an unknown dim. ok is false when the attribute is
// not such a list.
func shapeListAttr(op *textir.Operation, name string) (shapes [][]int64, ok bool) {
	arr, ok := op.Attr(name).(textir.ArrayAttr)
	if !ok {
		return nil, false
	}
	for _, e := range arr.Elems {
		o, ok := e.(textir.OpaqueAttr)
		if !ok || o.Dialect != Dialect || o.Name != "shape" {
			return nil, false
		}
		if o.Params == "*" {
			shapes = append(shapes, nil)
			continue
		}
		dims := []int64{}
		for _, part := range splitShapeDims(o.Params) {
			if part == "?" {
				dims = append(dims, -1)
				continue
			}
			d, err := strconv.ParseInt(part, 10, 64)
			if err != nil {
				return nil, false
			}
			dims = append(dims, d)
		}
		shapes = append(shapes, dims)
	}
	return shapes, true
}

// splitShapeDims splits a #tfg.shape's text at its 'x's, dropping the
// quoted dim names.
func splitShapeDims(s string) []string {
	var parts []string
	var cur strings.Builder
	for i := 0; i < len(s); i++ {
		switch ch := s[i]; {
		case ch == '"':
			for i++; i < len(s) && s[i] != '"'; i++ {
				if s[i] == '\\' {
					i++
				}
			}
		case ch == 'x':
			parts = append(parts, cur.String())
			cur.Reset()
		default:
			cur.WriteByte(ch)
		}
	}
	if s != "" {
		parts = append(parts, cur.String())
	}
	return parts
}
