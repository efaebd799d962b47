package tfops

import (
	"fmt"
	"strings"

	"github.com/recom-compiler/recom/interp"
)

// forEachCoord calls f with every coordinate of shape in row-major order.
// The slice passed to f is reused between calls.
func forEachCoord(shape []int64, f func(c []int64)) {
	n, err := interp.NumElements(shape)
	if err != nil || n == 0 {
		return
	}
	c := make([]int64, len(shape))
	for k := int64(0); k < n; k++ {
		f(c)
		for i := len(c) - 1; i >= 0; i-- {
			c[i]++
			if c[i] < shape[i] {
				break
			}
			c[i] = 0
		}
	}
}

func coordString(c []int64) string {
	parts := make([]string, len(c))
	for i, v := range c {
		parts[i] = fmt.Sprint(v)
	}
	return strings.Join(parts, ",")
}

// StridedSliceAttrs are StridedSlice's mask attributes (bit i refers to
// element i of begin, end and strides).
type StridedSliceAttrs struct {
	BeginMask, EndMask, EllipsisMask, NewAxisMask, ShrinkAxisMask int64
}

// StridedSlice implements Python-style extended slicing x[begin:end:strides]
// with TensorFlow's masks, negative indices and negative strides.
func StridedSlice(x, begin, end, strides *interp.Tensor, a StridedSliceAttrs) (*interp.Tensor, error) {
	const op = "StridedSlice"
	if x == nil {
		return nil, errorf(op, "input is nil")
	}
	b, err := intVector(op, "begin", begin)
	if err != nil {
		return nil, err
	}
	e, err := intVector(op, "end", end)
	if err != nil {
		return nil, err
	}
	s, err := intVector(op, "strides", strides)
	if err != nil {
		return nil, err
	}
	if len(b) != len(e) || len(b) != len(s) {
		return nil, errorf(op, "expected begin, end, and strides to be 1D equal size tensors, but got shapes [%d], [%d], and [%d]", len(b), len(e), len(s))
	}
	if len(b) > 32 {
		return nil, errorf(op, "%d slice dimensions exceed the maximum of 32", len(b))
	}
	sparseDims := len(b)
	ellipsis := a.EllipsisMask & (1<<sparseDims - 1)
	if ellipsis&(ellipsis-1) != 0 {
		return nil, errorf(op, "multiple ellipses in slice spec not allowed")
	}
	if ellipsis == 0 { // implicit trailing ellipsis
		ellipsis = 1 << sparseDims
		sparseDims++
	}
	bit := func(mask int64, i int) bool { return mask&(1<<i) != 0 }

	shape := x.Shape()
	dense := len(shape)
	addAfterEllipsis := 0
	seen := false
	for i := 0; i < sparseDims; i++ {
		if seen && bit(a.NewAxisMask, i) && !bit(ellipsis, i) {
			addAfterEllipsis++
		}
		if bit(ellipsis, i) {
			seen = true
		}
	}
	type dim struct {
		begin, end, stride int64
		beginMasked        bool
		endMasked          bool
		shrink             bool
	}
	dims := make([]dim, dense)
	for i := range dims {
		dims[i] = dim{stride: 1, beginMasked: true, endMasked: true}
	}
	const newAxis = -1
	var gather []int // dense index, or newAxis, per output dim before shrinking
	full := 0
	for i := 0; i < sparseDims; i++ {
		switch {
		case bit(ellipsis, i):
			next := min(dense-(sparseDims-i)+1+addAfterEllipsis, dense)
			for ; full < next; full++ {
				gather = append(gather, full)
			}
		case bit(a.NewAxisMask, i):
			gather = append(gather, newAxis)
		default:
			if full == dense {
				return nil, errorf(op, "index out of range using input dim %d; input has only %d dims", full, dense)
			}
			dims[full] = dim{begin: b[i], end: e[i], stride: s[i],
				beginMasked: bit(a.BeginMask, i), endMasked: bit(a.EndMask, i), shrink: bit(a.ShrinkAxisMask, i)}
			gather = append(gather, full)
			full++
		}
	}

	starts := make([]int64, dense)
	steps := make([]int64, dense)
	sizes := make([]int64, dense)
	for i, d := range dims {
		n := shape[i]
		if d.stride == 0 {
			return nil, errorf(op, "strides[%d] must be non-zero", i)
		}
		if d.shrink {
			if d.stride <= 0 {
				return nil, errorf(op, "only stride 1 allowed on non-range indexing (dimension %d has stride %d)", i, d.stride)
			}
			x := d.begin
			if x < 0 {
				x += n
			}
			if x < 0 || x >= n {
				return nil, errorf(op, "slice index %d of dimension %d out of bounds (size %d)", d.begin, i, n)
			}
			starts[i], steps[i], sizes[i] = x, 1, 1
			continue
		}
		lo, hi := int64(0), n // valid range for positive strides
		if d.stride < 0 {
			lo, hi = -1, n-1
		}
		// Masked: begin is the first element visited (0, or n-1 for
		// negative strides), end is one past the last (n, or -1).
		canon := func(v int64, masked, isEnd bool) int64 {
			if masked {
				if (d.stride > 0) == isEnd {
					return hi
				}
				return lo
			}
			if v < 0 {
				v += n
			}
			return max(lo, min(hi, v))
		}
		bg := canon(d.begin, d.beginMasked, false)
		en := canon(d.end, d.endMasked, true)
		size := int64(0)
		interval := en - bg
		if interval != 0 && (interval < 0) == (d.stride < 0) {
			size = interval / d.stride
			if interval%d.stride != 0 {
				size++
			}
		}
		starts[i], steps[i], sizes[i] = bg, d.stride, size
	}
	var final []int64
	for _, g := range gather {
		switch {
		case g == newAxis:
			final = append(final, 1)
		case !dims[g].shrink:
			final = append(final, sizes[g])
		}
	}
	idx := stridedIndex(shape, starts, steps, sizes)
	return Take(x, idx, final)
}

// stridedIndex returns the flat source indices of the box begin + k*step,
// k < size, of a tensor of shape.
func stridedIndex(shape, begin, step, size []int64) []int {
	st := strides(shape)
	n, err := interp.NumElements(size)
	if err != nil {
		return nil
	}
	idx := make([]int, 0, n)
	forEachCoord(size, func(c []int64) {
		off := int64(0)
		for i, k := range c {
			off += (begin[i] + k*step[i]) * st[i]
		}
		idx = append(idx, int(off))
	})
	return idx
}

// Slice extracts x[begin : begin+size]; a size of -1 means "to the end".
func Slice(x, begin, size *interp.Tensor) (*interp.Tensor, error) {
	const op = "Slice"
	if x == nil {
		return nil, errorf(op, "input is nil")
	}
	b, err := intVector(op, "begin", begin)
	if err != nil {
		return nil, err
	}
	sz, err := intVector(op, "size", size)
	if err != nil {
		return nil, err
	}
	shape := x.Shape()
	if len(b) != len(shape) || len(sz) != len(shape) {
		return nil, errorf(op, "expected begin and size arguments to be 1-D tensors of size %d, but got shapes [%d] and [%d] instead",
			len(shape), len(b), len(sz))
	}
	out := make([]int64, len(shape))
	for i := range shape {
		if b[i] < 0 || b[i] > shape[i] {
			return nil, errorf(op, "expected begin[%d] in [0, %d], but got %d", i, shape[i], b[i])
		}
		s := sz[i]
		if s == -1 {
			s = shape[i] - b[i]
		}
		if s < 0 || s > shape[i]-b[i] {
			return nil, errorf(op, "expected size[%d] in [0, %d], but got %d", i, shape[i]-b[i], sz[i])
		}
		out[i] = s
	}
	ones := make([]int64, len(shape))
	for i := range ones {
		ones[i] = 1
	}
	return Take(x, stridedIndex(shape, b, ones, out), out)
}

// joinFlat concatenates the flat data of same-dtype tensors into one
// vector.
func joinFlat(op string, ts []*interp.Tensor) (*interp.Tensor, error) {
	if len(ts) == 0 {
		return nil, errorf(op, "needs at least one input")
	}
	lens := make([]int, len(ts))
	total := 0
	for i, t := range ts {
		if t == nil {
			return nil, errorf(op, "input %d is nil", i)
		}
		if t.DType() != ts[0].DType() {
			return nil, errorf(op, "input %d has dtype %v, input 0 has %v", i, t.DType(), ts[0].DType())
		}
		lens[i] = t.Len()
		total += t.Len()
	}
	if int64(total) > interp.MaxElements {
		return nil, errorf(op, "%w", &interp.TooLargeError{What: fmt.Sprintf("an output of %d elements", total), Limit: interp.MaxElements})
	}
	data, err := concatData(op, ts, 1, lens, total)
	if err != nil {
		return nil, err
	}
	return interp.FromSlice([]int64{int64(total)}, data)
}

// concat joins tensors of equal rank along axis (already normalized).
func concat(op string, ts []*interp.Tensor, axis int) (*interp.Tensor, error) {
	if len(ts) == 0 {
		return nil, errorf(op, "needs at least one input")
	}
	for i, t := range ts {
		if t == nil {
			return nil, errorf(op, "input %d is nil", i)
		}
		if t.DType() != ts[0].DType() {
			return nil, errorf(op, "input %d has dtype %v, input 0 has %v", i, t.DType(), ts[0].DType())
		}
	}
	s0 := ts[0].Shape()
	out := append([]int64{}, s0...)
	out[axis] = 0
	inners := make([]int, len(ts))
	for i, t := range ts {
		s := t.Shape()
		if len(s) != len(s0) {
			return nil, errorf(op, "ranks of all input tensors should match: shape[0] = %s vs. shape[%d] = %s", shapeStr(s0), i, shapeStr(s))
		}
		for d := range s {
			if d != axis && s[d] != s0[d] {
				return nil, errorf(op, "dimensions of inputs should match: shape[0] = %s vs. shape[%d] = %s", shapeStr(s0), i, shapeStr(s))
			}
		}
		out[axis] += s[axis]
		inner := int64(1)
		for _, d := range s[axis:] {
			inner *= d
		}
		inners[i] = int(inner)
	}
	n, err := numElements(op, out)
	if err != nil {
		return nil, err
	}
	outer := 1
	for _, d := range s0[:axis] {
		outer *= int(d)
	}
	data, err := concatData(op, ts, outer, inners, n)
	if err != nil {
		return nil, err
	}
	return interp.FromSlice(out, data)
}

// concatData is concatT for the dtype of ts.
func concatData(op string, ts []*interp.Tensor, outer int, inners []int, n int) (any, error) {
	switch ts[0].DType() {
	case interp.Float32:
		return concatT[float32](ts, outer, inners, n), nil
	case interp.Float64:
		return concatT[float64](ts, outer, inners, n), nil
	case interp.Int8:
		return concatT[int8](ts, outer, inners, n), nil
	case interp.Int16:
		return concatT[int16](ts, outer, inners, n), nil
	case interp.Int32:
		return concatT[int32](ts, outer, inners, n), nil
	case interp.Int64:
		return concatT[int64](ts, outer, inners, n), nil
	case interp.Uint8:
		return concatT[uint8](ts, outer, inners, n), nil
	case interp.Bool:
		return concatT[bool](ts, outer, inners, n), nil
	case interp.String:
		return concatT[string](ts, outer, inners, n), nil
	}
	return nil, errorf(op, "unsupported dtype %v", ts[0].DType())
}

// concatT copies, for each of the outer slices, the inner block of each
// input in turn.
func concatT[T interp.Elem](ts []*interp.Tensor, outer int, inners []int, n int) []T {
	srcs := make([][]T, len(ts))
	for i, t := range ts {
		srcs[i], _ = interp.Values[T](t)
	}
	dst := make([]T, n)
	at := 0
	for o := 0; o < outer; o++ {
		for i, s := range srcs {
			// A block of one element (a concat of columns) is stored
			// directly: copy's call costs more than the element.
			if in := inners[i]; in == 1 {
				dst[at] = s[o]
				at++
			} else {
				at += copy(dst[at:at+in], s[o*in:(o+1)*in])
			}
		}
	}
	return dst
}

// ConcatV2 concatenates values along axis (a scalar in [-rank, rank)).
func ConcatV2(values []*interp.Tensor, axis *interp.Tensor) (*interp.Tensor, error) {
	const op = "ConcatV2"
	a, err := intScalar(op, "axis", axis)
	if err != nil {
		return nil, err
	}
	if len(values) == 0 || values[0] == nil {
		return nil, errorf(op, "needs at least one non-nil input")
	}
	if values[0].Rank() == 0 {
		return nil, errorf(op, "can't concatenate scalars (use tf.stack instead)")
	}
	ax, err := normAxis(op, a, values[0].Rank())
	if err != nil {
		return nil, err
	}
	return concat(op, values, ax)
}

// Pack stacks equal-shaped tensors along a new axis in [-rank-1, rank].
func Pack(values []*interp.Tensor, axis int64) (*interp.Tensor, error) {
	const op = "Pack"
	if len(values) == 0 || values[0] == nil {
		return nil, errorf(op, "needs at least one non-nil input")
	}
	s0 := values[0].Shape()
	r := int64(len(s0))
	if axis < -r-1 || axis > r {
		return nil, errorf(op, "axis = %d not in [%d, %d]", axis, -r-1, r+1)
	}
	if axis < 0 {
		axis += r + 1
	}
	ex := make([]*interp.Tensor, len(values))
	ns := append(append(append([]int64{}, s0[:axis]...), 1), s0[axis:]...)
	for i, v := range values {
		if v == nil {
			return nil, errorf(op, "input %d is nil", i)
		}
		if s := v.Shape(); !equalShape(s, s0) {
			return nil, errorf(op, "shapes of all inputs must match: values[0].shape = %s != values[%d].shape = %s", shapeStr(s0), i, shapeStr(s))
		}
		var err error
		if ex[i], err = v.Reshaped(ns); err != nil {
			return nil, err
		}
	}
	return concat(op, ex, int(axis))
}

func equalShape(a, b []int64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// Unpack splits x along axis into x.shape[axis] tensors. num, the op's
// attribute, must equal that dimension unless it is negative.
func Unpack(x *interp.Tensor, num, axis int64) ([]*interp.Tensor, error) {
	const op = "Unpack"
	if x == nil {
		return nil, errorf(op, "input is nil")
	}
	shape := x.Shape()
	ax, err := normAxis(op, axis, len(shape))
	if err != nil {
		return nil, err
	}
	if num >= 0 && shape[ax] != num {
		return nil, errorf(op, "input shape axis %d must equal %d, got shape %s", ax, num, shapeStr(shape))
	}
	out := make([]*interp.Tensor, shape[ax])
	begin := make([]int64, len(shape))
	step := make([]int64, len(shape))
	size := append([]int64{}, shape...)
	for i := range step {
		step[i] = 1
	}
	size[ax] = 1
	rest := append(append([]int64{}, shape[:ax]...), shape[ax+1:]...)
	for k := range out {
		begin[ax] = int64(k)
		if out[k], err = Take(x, stridedIndex(shape, begin, step, size), rest); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// Tile repeats x multiples[i] times along dimension i.
func Tile(x, multiples *interp.Tensor) (*interp.Tensor, error) {
	const op = "Tile"
	if x == nil {
		return nil, errorf(op, "input is nil")
	}
	m, err := intVector(op, "multiples", multiples)
	if err != nil {
		return nil, err
	}
	shape := x.Shape()
	if len(m) != len(shape) {
		return nil, errorf(op, "expected multiples argument to be a vector of length %d but got length %d", len(shape), len(m))
	}
	out := make([]int64, len(shape))
	for i, k := range m {
		if k < 0 {
			return nil, errorf(op, "expected multiples[%d] >= 0, but got %d", i, k)
		}
		if shape[i] != 0 && k > interp.MaxElements/shape[i] {
			return nil, errorf(op, "output dimension %d too large", i)
		}
		out[i] = shape[i] * k
	}
	n, err := numElements(op, out)
	if err != nil {
		return nil, err
	}
	st := strides(shape)
	idx := make([]int, 0, n)
	forEachCoord(out, func(c []int64) {
		off := int64(0)
		for i, v := range c {
			off += (v % shape[i]) * st[i]
		}
		idx = append(idx, int(off))
	})
	return Take(x, idx, out)
}

// Transpose permutes the dimensions of x: output dim i is input dim perm[i].
func Transpose(x, perm *interp.Tensor) (*interp.Tensor, error) {
	const op = "Transpose"
	if x == nil {
		return nil, errorf(op, "input is nil")
	}
	p, err := intVector(op, "perm", perm)
	if err != nil {
		return nil, err
	}
	shape := x.Shape()
	if len(p) != len(shape) {
		return nil, errorf(op, "transpose expects a vector of size %d. But input(1) is a vector of size %d", len(shape), len(p))
	}
	seen := make([]bool, len(p))
	out := make([]int64, len(p))
	for i, d := range p {
		if d < 0 || d >= int64(len(p)) {
			return nil, errorf(op, "perm[%d] = %d is out of range [0, %d)", i, d, len(p))
		}
		if seen[d] {
			return nil, errorf(op, "perm[%d] = %d is duplicated", i, d)
		}
		seen[d] = true
		out[i] = shape[d]
	}
	st := strides(shape)
	idx := make([]int, 0, x.Len())
	forEachCoord(out, func(c []int64) {
		off := int64(0)
		for i, v := range c {
			off += v * st[p[i]]
		}
		idx = append(idx, int(off))
	})
	return Take(x, idx, out)
}

// GatherV2 gathers slices of params along axis at indices, with batchDims
// leading batch dimensions shared by params and indices. An index out of
// [0, params.shape[axis]) is an error, as on TensorFlow's CPU.
func GatherV2(params, indices, axis *interp.Tensor, batchDims int64) (*interp.Tensor, error) {
	const op = "GatherV2"
	if params == nil {
		return nil, errorf(op, "params is nil")
	}
	ind, err := ints(op, "indices", indices)
	if err != nil {
		return nil, err
	}
	a, err := intScalar(op, "axis", axis)
	if err != nil {
		return nil, err
	}
	ps, is := params.Shape(), indices.Shape()
	if len(ps) == 0 {
		return nil, errorf(op, "params must be at least 1 dimensional")
	}
	ax, err := normAxis(op, a, len(ps))
	if err != nil {
		return nil, err
	}
	if batchDims < 0 {
		batchDims += int64(len(is))
	}
	if batchDims < 0 || batchDims > int64(len(is)) {
		return nil, errorf(op, "expected batch_dims in the range [%d, %d], but got %d", -len(is), len(is), batchDims)
	}
	bd := int(batchDims)
	if bd > ax {
		return nil, errorf(op, "batch_dims (%d) must be less than or equal to axis (%d)", bd, ax)
	}
	for i := 0; i < bd; i++ {
		if ps[i] != is[i] {
			return nil, errorf(op, "params.shape[%d]: %d should be equal to indices.shape[%d]: %d", i, ps[i], i, is[i])
		}
	}
	prod := func(s []int64) int64 {
		p := int64(1)
		for _, d := range s {
			p *= d
		}
		return p
	}
	batch := prod(ps[:bd])
	outer := prod(ps[bd:ax])
	limit := ps[ax]
	inner := prod(ps[ax+1:])
	nj := prod(is[bd:])
	out := append(append(append([]int64{}, ps[:ax]...), is[bd:]...), ps[ax+1:]...)
	n, err := numElements(op, out)
	if err != nil {
		return nil, err
	}
	for j, v := range ind {
		if v < 0 || v >= limit {
			return nil, errorf(op, "indices[%s] = %d is not in [0, %d)", coordString(interp.Unravel(int64(j), is)), v, limit)
		}
	}
	idx := make([]int, 0, n)
	for b := int64(0); b < batch; b++ {
		for o := int64(0); o < outer; o++ {
			base := (b*outer + o) * limit
			for j := int64(0); j < nj; j++ {
				row := (base + ind[b*nj+j]) * inner
				for k := int64(0); k < inner; k++ {
					idx = append(idx, int(row+k))
				}
			}
		}
	}
	return Take(params, idx, out)
}

// GatherNd gathers slices of params addressed by the last dimension of
// indices.
func GatherNd(params, indices *interp.Tensor) (*interp.Tensor, error) {
	const op = "GatherNd"
	if params == nil {
		return nil, errorf(op, "params is nil")
	}
	ind, err := ints(op, "indices", indices)
	if err != nil {
		return nil, err
	}
	ps, is := params.Shape(), indices.Shape()
	if len(is) < 1 {
		return nil, errorf(op, "indices must be at least a vector, got shape %s", shapeStr(is))
	}
	k := int(is[len(is)-1])
	if k > len(ps) {
		return nil, errorf(op, "index innermost dimension length must be <= params rank; saw: %d vs. %d", k, len(ps))
	}
	out := append(append([]int64{}, is[:len(is)-1]...), ps[k:]...)
	n, err := numElements(op, out)
	if err != nil {
		return nil, err
	}
	st := strides(ps)
	inner := int64(1)
	for _, d := range ps[k:] {
		inner *= d
	}
	idx := make([]int, 0, n)
	rows := int64(0)
	if k > 0 {
		rows = int64(len(ind) / k)
	} else {
		rows, _ = interp.NumElements(is[:len(is)-1])
	}
	for r := int64(0); r < rows; r++ {
		off := int64(0)
		for d := 0; d < k; d++ {
			v := ind[r*int64(k)+int64(d)]
			if v < 0 || v >= ps[d] {
				return nil, errorf(op, "indices[%s] = [%s] does not index into param shape %s",
					coordString(interp.Unravel(r, is[:len(is)-1])), coordString(ind[r*int64(k):(r+1)*int64(k)]), shapeStr(ps))
			}
			off += v * st[d]
		}
		for j := int64(0); j < inner; j++ {
			idx = append(idx, int(off+j))
		}
	}
	return Take(params, idx, out)
}

// truthy returns, for a bool or numeric tensor, whether each element is
// true (non-zero).
func truthy(op string, t *interp.Tensor) ([]bool, error) {
	if t == nil {
		return nil, errorf(op, "input is nil")
	}
	if b := t.Bools(); b != nil || t.DType() == interp.Bool {
		return b, nil
	}
	if !t.DType().IsNumeric() {
		return nil, errorf(op, "unsupported dtype %v", t.DType())
	}
	out := make([]bool, t.Len())
	for i := range out {
		out[i] = t.Float64At(i) != 0
	}
	return out, nil
}

// Where returns the int64 coordinates [N, rank] of the true (non-zero)
// elements of cond, in row-major order.
func Where(cond *interp.Tensor) (*interp.Tensor, error) {
	const op = "Where"
	b, err := truthy(op, cond)
	if err != nil {
		return nil, err
	}
	shape := cond.Shape()
	var coords []int64
	n := int64(0)
	for i, v := range b {
		if v {
			coords = append(coords, interp.Unravel(int64(i), shape)...)
			n++
		}
	}
	if coords == nil {
		coords = []int64{}
	}
	return interp.New([]int64{n, int64(len(shape))}, coords)
}

// Unique returns the distinct elements of the vector x in order of first
// occurrence, and for each element of x its position in that list, as
// outIdx (int32 or int64).
func Unique(x *interp.Tensor, outIdx interp.DType) (y, idx *interp.Tensor, err error) {
	const op = "Unique"
	if x == nil {
		return nil, nil, errorf(op, "input is nil")
	}
	if x.Rank() != 1 {
		return nil, nil, errorf(op, "unique expects a 1D vector, got shape %s", shapeStr(x.Shape()))
	}
	var first, pos []int
	switch d := x.Data().(type) {
	case []float32:
		first, pos = uniqueT(d)
	case []float64:
		first, pos = uniqueT(d)
	case []int8:
		first, pos = uniqueT(d)
	case []int16:
		first, pos = uniqueT(d)
	case []int32:
		first, pos = uniqueT(d)
	case []int64:
		first, pos = uniqueT(d)
	case []uint8:
		first, pos = uniqueT(d)
	case []bool:
		first, pos = uniqueT(d)
	case []string:
		first, pos = uniqueT(d)
	default:
		return nil, nil, errorf(op, "unsupported dtype %v", x.DType())
	}
	if y, err = Take(x, first, []int64{int64(len(first))}); err != nil {
		return nil, nil, err
	}
	p64 := make([]int64, len(pos))
	for i, v := range pos {
		p64[i] = int64(v)
	}
	if idx, err = newInts(op, outIdx, []int64{int64(len(pos))}, p64); err != nil {
		return nil, nil, err
	}
	return y, idx, nil
}

// uniqueT returns the positions of first occurrences and, per element, the
// rank of its value among them. NaNs are all distinct, as in TensorFlow.
func uniqueT[T comparable](d []T) (first, pos []int) {
	seen := make(map[T]int, len(d))
	pos = make([]int, len(d))
	for i, v := range d {
		k, ok := seen[v]
		if !ok {
			k = len(first)
			first = append(first, i)
			if v == v { // NaN keys could never be found again
				seen[v] = k
			}
		}
		pos[i] = k
	}
	return first, pos
}

// Select picks elements of t where cond is true and of e elsewhere, with
// TensorFlow 1's rule: cond is a scalar, a vector over the first dimension
// of t, or has t's shape; t and e must have the same shape.
func Select(cond, t, e *interp.Tensor) (*interp.Tensor, error) {
	const op = "Select"
	if cond == nil || t == nil || e == nil {
		return nil, errorf(op, "nil input")
	}
	if cond.DType() != interp.Bool {
		return nil, errorf(op, "condition must be bool, got %v", cond.DType())
	}
	if t.DType() != e.DType() {
		return nil, errorf(op, "then and else must have the same dtype, got %v and %v", t.DType(), e.DType())
	}
	ts, es, cs := t.Shape(), e.Shape(), cond.Shape()
	if !equalShape(ts, es) {
		return nil, errorf(op, "'then' and 'else' must have the same size.  but received: %s vs. %s", shapeStr(ts), shapeStr(es))
	}
	c := cond.Bools()
	n := t.Len()
	var pick func(i int) bool
	switch {
	case len(cs) == 0:
		pick = func(int) bool { return c[0] }
	case len(cs) == 1 && len(ts) > 1:
		if cs[0] != ts[0] {
			return nil, errorf(op, "number of batches of 'then' must match size of 'cond', but saw: %d vs. %d", ts[0], cs[0])
		}
		inner := 1
		if ts[0] > 0 {
			inner = n / int(ts[0])
		}
		pick = func(i int) bool { return c[i/inner] }
	case equalShape(cs, ts):
		pick = func(i int) bool { return c[i] }
	default:
		return nil, errorf(op, "'cond' and 'then' must have the same shape or cond must be a scalar or a vector over the first dimension; got %s vs. %s", shapeStr(cs), shapeStr(ts))
	}
	j, err := joinFlat(op, []*interp.Tensor{t, e})
	if err != nil {
		return nil, err
	}
	idx := make([]int, n)
	for i := range idx {
		if pick(i) {
			idx[i] = i
		} else {
			idx[i] = n + i
		}
	}
	return Take(j, idx, ts)
}

// SelectV2 is Select with NumPy broadcasting of all three operands.
func SelectV2(cond, t, e *interp.Tensor) (*interp.Tensor, error) {
	const op = "SelectV2"
	if cond == nil || t == nil || e == nil {
		return nil, errorf(op, "nil input")
	}
	if cond.DType() != interp.Bool {
		return nil, errorf(op, "condition must be bool, got %v", cond.DType())
	}
	if t.DType() != e.DType() {
		return nil, errorf(op, "then and else must have the same dtype, got %v and %v", t.DType(), e.DType())
	}
	out, err := broadcastShape(op, t.Shape(), e.Shape())
	if err != nil {
		return nil, err
	}
	if out, err = broadcastShape(op, cond.Shape(), out); err != nil {
		return nil, err
	}
	if _, err := numElements(op, out); err != nil {
		return nil, err
	}
	ci := broadcastIndex(out, cond.Shape())
	ti := broadcastIndex(out, t.Shape())
	ei := broadcastIndex(out, e.Shape())
	j, err := joinFlat(op, []*interp.Tensor{t, e})
	if err != nil {
		return nil, err
	}
	c := cond.Bools()
	idx := make([]int, len(ci))
	for i := range idx {
		if c[ci[i]] {
			idx[i] = ti[i]
		} else {
			idx[i] = t.Len() + ei[i]
		}
	}
	return Take(j, idx, out)
}

// broadcastShape returns the NumPy broadcast of shapes a and b.
func broadcastShape(op string, a, b []int64) ([]int64, error) {
	n := max(len(a), len(b))
	out := make([]int64, n)
	for i := 0; i < n; i++ {
		da, db := int64(1), int64(1)
		if k := i - (n - len(a)); k >= 0 {
			da = a[k]
		}
		if k := i - (n - len(b)); k >= 0 {
			db = b[k]
		}
		switch {
		case da == db || db == 1:
			out[i] = da
		case da == 1:
			out[i] = db
		default:
			return nil, errorf(op, "incompatible shapes: %s vs. %s", shapeStr(a), shapeStr(b))
		}
	}
	return out, nil
}

// broadcastIndex maps each flat index of out to the flat index of a tensor
// of shape in broadcast to out.
func broadcastIndex(out, in []int64) []int {
	n, err := interp.NumElements(out)
	if err != nil {
		return nil
	}
	st := strides(in)
	bst := make([]int64, len(out)) // stride in `in` for each out dim, 0 if broadcast
	for i := range out {
		if k := i - (len(out) - len(in)); k >= 0 && in[k] != 1 {
			bst[i] = st[k]
		}
	}
	return offsets(out, bst, n)
}

// offsets returns, for each coordinate of shape in row-major order, the
// sum of its components times st: the flat index each element reads (or
// writes) when dimension i advances by st[i]. It walks the innermost
// dimension in a loop of its own, the outer ones by carrying, so the cost
// is a few instructions per element (forEachCoord's callback is several
// times that).
func offsets(shape, st []int64, n int64) []int {
	idx := make([]int, n)
	if n == 0 {
		return idx
	}
	// Dimensions of size 1 add nothing; a dimension whose stride is the
	// next one's times its size walks on from it: fold both away, so that
	// a [B, 1] or a contiguous block is one inner loop.
	var sh, ss []int64
	for i, d := range shape {
		if d == 1 {
			continue
		}
		if k := len(sh) - 1; k >= 0 && ss[k] == st[i]*d {
			sh[k] *= d
			ss[k] = st[i]
			continue
		}
		sh, ss = append(sh, d), append(ss, st[i])
	}
	shape, st = sh, ss
	r := len(shape)
	if r == 0 {
		return idx
	}
	inner, is := shape[r-1], st[r-1]
	c := make([]int64, r-1)
	base := int64(0)
	for k := int64(0); k < n; k += inner {
		off := base
		for j := k; j < k+inner; j++ {
			idx[j] = int(off)
			off += is
		}
		for i := r - 2; i >= 0; i-- {
			c[i]++
			base += st[i]
			if c[i] < shape[i] {
				break
			}
			base -= st[i] * shape[i]
			c[i] = 0
		}
	}
	return idx
}

// BroadcastTo broadcasts input to shape (an int32 or int64 vector of
// non-negative dims) by NumPy's rules (tf.raw_ops.BroadcastTo; the checks
// of core/kernels/broadcast_to_op.cc, in its order): a shape equal to
// input's returns input; input's rank may not exceed the shape's; an
// output of no elements is returned empty without further checks; a
// scalar input fills the output; otherwise every dim of input (aligned on
// the right) must be 1 or the output's ("Incompatible shapes" when the two
// shapes do not broadcast together, "Unable to broadcast" when they do but
// to another shape than the one asked for).
func BroadcastTo(input, shape *interp.Tensor) (*interp.Tensor, error) {
	const op = "BroadcastTo"
	if input == nil {
		return nil, errorf(op, "input is nil")
	}
	if shape == nil || shape.Rank() != 1 || (shape.DType() != interp.Int32 && shape.DType() != interp.Int64) {
		desc := "nil"
		if shape != nil {
			desc = shapeStr(shape.Shape())
		}
		return nil, errorf(op, "shape must be a vector of {int32,int64}, got shape %s", desc)
	}
	out, err := ints(op, "shape", shape)
	if err != nil {
		return nil, err
	}
	if len(out) > interp.MaxRank {
		return nil, errorf(op, "Too many dimensions")
	}
	for _, d := range out {
		if d < 0 {
			return nil, errorf(op, "Dimension %d must be >= 0", d)
		}
	}
	if _, err := numElements(op, out); err != nil {
		return nil, err
	}
	in := input.Shape()
	if equalShape(in, out) {
		return input, nil
	}
	if len(in) > len(out) {
		return nil, errorf(op, "Rank of input (%d) must be no greater than rank of output shape (%d).", len(in), len(out))
	}
	n, _ := interp.NumElements(out)
	if n == 0 {
		return interp.Zeros(input.DType(), out)
	}
	if len(in) > 0 {
		b, err := broadcastShape(op, in, out)
		if err != nil {
			return nil, errorf(op, "Incompatible shapes: %s vs. %s", shapeStr(in), shapeStr(out))
		}
		if !equalShape(b, out) {
			return nil, errorf(op, "Unable to broadcast tensor of shape %s to tensor of shape %s", shapeStr(in), shapeStr(out))
		}
	}
	return Take(input, broadcastIndex(out, in), out)
}
