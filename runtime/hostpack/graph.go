package hostpack

import (
	"fmt"
	"strconv"
	"unsafe"

	farm "github.com/dgryski/go-farm"

	"github.com/recom-compiler/recom/dialects/fused/abi"
	"github.com/recom-compiler/recom/interp"
)

// The columns computed op by op (graphPlan): each node's results are
// computed into buffers of the Packer, kept from batch to batch, with the
// semantics of the ops' interpreter kernels (dialects/emb/semantics.go),
// bit for bit.

// vec is a node's result: a vector of one dtype (integers of any width
// held as int64, as Tensor.Int64At reads them), or for a plan input its
// feed with its shape (rank and the first two dimensions).
type vec struct {
	dt     interp.DType
	rank   int
	d0, d1 int64
	i      []int64
	f32    []float32
	f64    []float64
	s      []string
}

// len returns the number of elements.
func (v *vec) len() int {
	switch {
	case v.dt == interp.Float32:
		return len(v.f32)
	case v.dt == interp.Float64:
		return len(v.f64)
	case v.dt == interp.String:
		return len(v.s)
	}
	return len(v.i)
}

// vector makes v a vector of its elements (a result of an emb op).
func (v *vec) vector() {
	v.rank, v.d0, v.d1 = 1, int64(v.len()), 0
}

func (v *vec) shape() string {
	switch v.rank {
	case 0:
		return "[]"
	case 1:
		return fmt.Sprintf("[%d]", v.d0)
	case 2:
		return fmt.Sprintf("[%d,%d]", v.d0, v.d1)
	}
	return fmt.Sprintf("[%d,%d,...] (rank %d)", v.d0, v.d1, v.rank)
}

// nodeState holds a node's results and the buffers they are computed in.
type nodeState struct {
	res [3]vec
	own [3]vec // owned buffers (res may alias a feed instead)
	tmp []int64
	// gExample: the parse and the batch's index of its records.
	x  *exPlan
	xb *exBatch
}

func (ns *nodeState) ints(r, n int) []int64 {
	if cap(ns.own[r].i) < n {
		ns.own[r].i = make([]int64, n, n+n/4)
	}
	return ns.own[r].i[:n]
}

func (ns *nodeState) f32s(r, n int) []float32 {
	if cap(ns.own[r].f32) < n {
		ns.own[r].f32 = make([]float32, n, n+n/4)
	}
	return ns.own[r].f32[:n]
}

func (ns *nodeState) f64s(r, n int) []float64 {
	if cap(ns.own[r].f64) < n {
		ns.own[r].f64 = make([]float64, n, n+n/4)
	}
	return ns.own[r].f64[:n]
}

func (ns *nodeState) strs(r, n int) []string {
	if cap(ns.own[r].s) < n {
		ns.own[r].s = make([]string, n, n+n/4)
	}
	return ns.own[r].s[:n]
}

func (ns *nodeState) temp(n int) []int64 {
	if cap(ns.tmp) < n {
		ns.tmp = make([]int64, n, n+n/4)
	}
	return ns.tmp[:n]
}

// bytesOf returns the bytes of s without a copy (read only).
func bytesOf(s string) []byte {
	return unsafe.Slice(unsafe.StringData(s), len(s))
}

// hashInt is StringToHashBucketFast(AsString(v)) before the modulus.
func hashInt(v int64) uint64 {
	var buf [24]byte
	return farm.Fingerprint64(strconv.AppendInt(buf[:0], v, 10))
}

// setFeed makes v the feed t.
func (ns *nodeState) setFeed(v *vec, t *interp.Tensor) error {
	*v = vec{dt: t.DType(), rank: t.Rank(), d0: t.Dim(0), d1: t.Dim(1)}
	switch x := t.Data().(type) {
	case []int64:
		v.i = x
	case []int32:
		v.i = widen(ns.ints(0, len(x)), x)
	case []int16:
		v.i = widen(ns.ints(0, len(x)), x)
	case []int8:
		v.i = widen(ns.ints(0, len(x)), x)
	case []uint8:
		v.i = widen(ns.ints(0, len(x)), x)
	case []float32:
		v.f32 = x
	case []float64:
		v.f64 = x
	case []string:
		v.s = x
	default:
		return fmt.Errorf("a feed of %v", t.DType())
	}
	return nil
}

func widen[T integer](dst []int64, x []T) []int64 {
	for j, e := range x {
		dst[j] = int64(e)
	}
	return dst
}

// pick returns the elements idx of src, in dst.
func pick[T any](dst, src []T, idx []int64) []T {
	for j, k := range idx {
		dst[j] = src[k]
	}
	return dst
}

// pickVec sets out to the elements idx of v (in ns's buffers, result r).
func (ns *nodeState) pickVec(out, v *vec, idx []int64, r int) {
	*out = vec{dt: v.dt}
	n := len(idx)
	switch v.dt {
	case interp.Float32:
		out.f32 = pick(ns.f32s(r, n), v.f32, idx)
	case interp.Float64:
		out.f64 = pick(ns.f64s(r, n), v.f64, idx)
	case interp.String:
		out.s = pick(ns.strs(r, n), v.s, idx)
	default:
		out.i = pick(ns.ints(r, n), v.i, idx)
	}
	out.vector()
}

// checkSplits validates row splits for n values, as the emb kernels do.
func checkSplits(n *gnode, s *vec, values int) error {
	if s.dt != interp.Int64 || s.rank != 1 || len(s.i) == 0 {
		return n.op.Errorf("row splits must be a non-empty int64 vector, got %v of shape %s", s.dt, s.shape())
	}
	if s.i[0] != 0 {
		return n.op.Errorf("row splits must start at 0, got %d", s.i[0])
	}
	for j := 1; j < len(s.i); j++ {
		if s.i[j] < s.i[j-1] {
			return n.op.Errorf("row splits must be non-decreasing, but splits[%d] = %d < splits[%d] = %d", j, s.i[j], j-1, s.i[j-1])
		}
	}
	if last := s.i[len(s.i)-1]; last != int64(values) {
		return n.op.Errorf("row splits end at %d, but there are %d values", last, values)
	}
	return nil
}

// eval computes node n (its operands computed) into ns; feeds are the
// column's inputs (colPlan.inputs).
func eval(n *gnode, ns *nodeState, args []*vec, feeds []*interp.Tensor) error {
	out := &ns.res
	switch n.kind {
	case gExample:
		return evalExample(n, ns, ns.x, ns.xb)
	case gInput:
		if err := ns.setFeed(&out[0], feeds[n.local]); err != nil {
			return n.op.Errorf("%v", err)
		}
		return nil
	case gFromDense:
		return fromDense(n, ns, args[0])
	case gFromSparse:
		return fromSparse(n, ns, args[0], args[1], args[2])
	case gSplit:
		return splitStrings(n, ns, args[0])
	case gFilter:
		var w *vec
		if n.weighted {
			w = args[2]
		}
		return filter(n, ns, args[0], args[1], w)
	case gAddOffset:
		v, s := args[0], args[1]
		if err := checkSplits(n, s, len(v.i)); err != nil {
			return err
		}
		dst := ns.ints(0, len(v.i))
		for b := 0; b+1 < len(s.i); b++ {
			lo := s.i[b]
			for j := lo; j < s.i[b+1]; j++ {
				dst[j] = wrap(v.i[j]+n.stride*(j-lo), v.dt)
			}
		}
		out[0] = vec{dt: v.dt, i: dst}
		out[0].vector()
		return nil
	}
	// The elementwise transforms.
	x := args[0]
	m := x.len()
	dt := n.dt[0]
	switch n.kind {
	case gAsString:
		dst := ns.strs(0, m)
		for j, v := range x.i {
			dst[j] = strconv.FormatInt(v, 10)
		}
		out[0] = vec{dt: interp.String, s: dst}
	case gHash:
		dst := ns.ints(0, m)
		nb := uint64(n.buckets)
		for j, s := range x.s {
			dst[j] = wrap(int64(farm.Fingerprint64(bytesOf(s))%nb), dt)
		}
		out[0] = vec{dt: dt, i: dst}
	case gHashInt:
		dst := ns.ints(0, m)
		nb := uint64(n.buckets)
		for j, v := range x.i {
			dst[j] = wrap(int64(hashInt(v)%nb), dt)
		}
		out[0] = vec{dt: dt, i: dst}
	case gBucketize:
		dst := ns.ints(0, m)
		bucketize(dst, x, n.bounds, dt)
		out[0] = vec{dt: dt, i: dst}
	case gVocab:
		dst := ns.ints(0, m)
		voc := n.voc
		for j := range dst {
			var id int64
			var found bool
			if n.strIn {
				id, found = voc.str[x.s[j]]
			} else {
				id, found = voc.num[x.i[j]]
			}
			switch {
			case found:
			case n.oov > 0:
				var h uint64
				if n.strIn {
					h = farm.Fingerprint64(bytesOf(x.s[j]))
				} else {
					h = hashInt(x.i[j])
				}
				id = voc.size + int64(h%uint64(n.oov))
			default:
				id = n.def
			}
			dst[j] = wrap(id, dt)
		}
		out[0] = vec{dt: dt, i: dst}
	case gCheckRange:
		dst := ns.ints(0, m)
		for j, v := range x.i {
			if v >= 0 && v < n.buckets {
				dst[j] = v
				continue
			}
			if !n.hasDef {
				return n.op.Errorf("id %d at position %d is not in [0, %d)", v, j, n.buckets)
			}
			dst[j] = wrap(n.def, x.dt)
		}
		out[0] = vec{dt: x.dt, i: dst}
	case gCast:
		dst := ns.ints(0, m)
		for j, v := range x.i {
			dst[j] = wrap(v, dt)
		}
		out[0] = vec{dt: dt, i: dst}
	}
	out[0].rank, out[0].d0, out[0].d1 = x.rank, x.d0, x.d1
	return nil
}

// bucketize is tfops.Bucketize: the number of boundaries <= each value
// (sort.Search's bisection), compared as float64 for float64 values and
// as float32 otherwise (an int64 rounded once).
func bucketize(dst []int64, x *vec, bs []float32, dt interp.DType) {
	search := func(less func(j int) bool) int64 {
		i, j := 0, len(bs)
		for i < j {
			h := int(uint(i+j) >> 1)
			if !less(h) {
				i = h + 1
			} else {
				j = h
			}
		}
		return wrap(int64(int32(i)), dt)
	}
	switch x.dt {
	case interp.Float64:
		for k, v := range x.f64 {
			dst[k] = search(func(j int) bool { return v < float64(bs[j]) })
		}
	case interp.Float32:
		for k, v := range x.f32 {
			dst[k] = search(func(j int) bool { return v < bs[j] })
		}
	default:
		for k, iv := range x.i {
			v := float32(iv)
			dst[k] = search(func(j int) bool { return v < bs[j] })
		}
	}
}

// fromDense is emb.from_dense: the elements of a [B, k] (or [B]) tensor
// in row-major order, those equal to the ignore value dropped.
func fromDense(n *gnode, ns *nodeState, x *vec) error {
	if x.rank != 1 && x.rank != 2 {
		return n.op.Errorf("input must have rank 1 or 2, got shape %s", x.shape())
	}
	b, k := x.d0, int64(1)
	if x.rank == 2 {
		k = x.d1
	}
	if err := checkRows(b); err != nil {
		return n.op.Errorf("%v", err)
	}
	splits := ns.ints(1, int(b)+1)
	vals := &ns.res[0]
	*vals = vec{dt: x.dt}
	ign := n.ign
	m := 0
	if ign.has {
		m = x.len()
	}
	switch x.dt {
	case interp.Float32:
		vals.f32 = compact(ns.f32s(0, m), x.f32, splits, k, ign.f32, ign.has)
	case interp.Float64:
		vals.f64 = compact(ns.f64s(0, m), x.f64, splits, k, ign.f64, ign.has)
	case interp.String:
		vals.s = compact(ns.strs(0, m), x.s, splits, k, ign.s, ign.has)
	default:
		vals.i = compact(ns.ints(0, m), x.i, splits, k, ign.i, ign.has)
	}
	vals.vector()
	ns.res[1] = vec{dt: interp.Int64, i: splits}
	ns.res[1].vector()
	return nil
}

// compact returns the elements of x other than ign (x itself without
// has), in dst, and their row splits for rows of k elements.
func compact[T comparable](dst, x []T, splits []int64, k int64, ign T, has bool) []T {
	splits[0] = 0
	if !has {
		for r := 1; r < len(splits); r++ {
			splits[r] = int64(r) * k
		}
		return x
	}
	j := 0
	for r := 1; r < len(splits); r++ {
		for _, e := range x[int64(r-1)*k : int64(r)*k] {
			if e != ign {
				dst[j] = e
				j++
			}
		}
		splits[r] = int64(j)
	}
	return dst[:j]
}

// fromSparse is emb.from_sparse: the entries grouped stably by row.
func fromSparse(n *gnode, ns *nodeState, ind, vals, shape *vec) error {
	if ind.dt != interp.Int64 || ind.rank != 2 || ind.d1 != 2 {
		return n.op.Errorf("indices must be an int64 matrix [N, 2], got %v of shape %s", ind.dt, ind.shape())
	}
	if vals.rank != 1 {
		return n.op.Errorf("values must be a vector, got shape %s", vals.shape())
	}
	m := int(ind.d0)
	if vals.len() != m {
		return n.op.Errorf("values must have indices.shape[0] = %d elements, got %d", m, vals.len())
	}
	if shape.dt != interp.Int64 || shape.rank != 1 || len(shape.i) != 2 {
		return n.op.Errorf("dense_shape must be an int64 vector of 2 elements, got %v of shape %s", shape.dt, shape.shape())
	}
	rows := shape.i[0]
	if rows < 0 || rows > interp.MaxElements {
		return n.op.Errorf("dense_shape[0] = %d is out of range", rows)
	}
	if err := checkRows(rows); err != nil {
		return n.op.Errorf("dense_shape[0]: %v", err)
	}
	idx := ind.i
	splits := ns.ints(1, int(rows)+1)
	clear(splits)
	for i := 0; i < m; i++ {
		r := idx[2*i]
		if r < 0 || r >= rows {
			return n.op.Errorf("indices(%d, 0) is invalid: %d not in [0, %d)", i, r, rows)
		}
		splits[r+1]++
	}
	for r := int64(1); r <= rows; r++ {
		splits[r] += splits[r-1]
	}
	next := ns.temp(int(rows) + m)
	cur, order := next[:rows], next[rows:]
	copy(cur, splits[:rows])
	for i := 0; i < m; i++ {
		r := idx[2*i]
		order[cur[r]] = int64(i)
		cur[r]++
	}
	ns.pickVec(&ns.res[0], vals, order, 0)
	ns.res[1] = vec{dt: interp.Int64, i: splits}
	ns.res[1].vector()
	return nil
}

// splitStrings is emb.split_strings: StringSplitV2(x, sep) (maxsplit -1).
func splitStrings(n *gnode, ns *nodeState, x *vec) error {
	if x.dt != interp.String {
		return n.op.Errorf("input must be strings, got %v", x.dt)
	}
	if x.rank == 2 && x.d1 == 1 {
		x = &vec{dt: x.dt, rank: 1, d0: x.d0, s: x.s}
	}
	if x.rank != 1 {
		return n.op.Errorf("input must be a vector, got shape: %s", x.shape())
	}
	splits := ns.ints(1, len(x.s)+1)
	toks := ns.own[0].s[:0]
	splits[0] = 0
	for r, s := range x.s {
		toks = appendSplit(toks, s, n.sep)
		splits[r+1] = int64(len(toks))
	}
	ns.own[0].s = toks
	ns.res[0] = vec{dt: interp.String, s: toks}
	ns.res[0].vector()
	ns.res[1] = vec{dt: interp.Int64, i: splits}
	ns.res[1].vector()
	return nil
}

func isSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r'
}

// appendSplit appends the tokens of s split at sep as StringSplitV2 with
// maxsplit -1 does: at every occurrence of sep (empty tokens kept), or
// for an empty sep at runs of ASCII whitespace (none kept).
func appendSplit(toks []string, s, sep string) []string {
	if sep == "" {
		for {
			for len(s) > 0 && isSpace(s[0]) {
				s = s[1:]
			}
			if len(s) == 0 {
				return toks
			}
			k := 0
			for k < len(s) && !isSpace(s[k]) {
				k++
			}
			toks = append(toks, s[:k])
			s = s[k:]
		}
	}
	for {
		k := indexOf(s, sep)
		if k < 0 {
			return append(toks, s)
		}
		toks = append(toks, s[:k])
		s = s[k+len(sep):]
	}
}

func indexOf(s, sep string) int {
	if len(sep) == 1 {
		for i := 0; i < len(s); i++ {
			if s[i] == sep[0] {
				return i
			}
		}
		return -1
	}
	for i := 0; i+len(sep) <= len(s); i++ {
		if s[i:i+len(sep)] == sep {
			return i
		}
	}
	return -1
}

// filter is emb.filter: the ids outside [min, max] dropped (and with
// positive_weights those whose weight is not > 0), order kept.
func filter(n *gnode, ns *nodeState, v, s, w *vec) error {
	if !n.hasLo && !n.hasHi && v.rank != 1 {
		return n.op.Errorf("values must be a vector, got shape %s", v.shape())
	}
	m := v.len()
	if err := checkSplits(n, s, m); err != nil {
		return err
	}
	if w != nil {
		if w.rank != 1 {
			return n.op.Errorf("weights must be a vector, got shape %s", w.shape())
		}
		if w.len() != m || !w.dt.IsFloat() {
			return n.op.Errorf("weights must be %d floats, got %d of %v", m, w.len(), w.dt)
		}
	}
	weight := func(j int64) float64 {
		if w.dt == interp.Float32 {
			return float64(w.f32[j])
		}
		return w.f64[j]
	}
	keep := ns.temp(m)[:0]
	splits := ns.ints(1, len(s.i))
	splits[0] = 0
	for b := 0; b+1 < len(s.i); b++ {
		for j := s.i[b]; j < s.i[b+1]; j++ {
			if n.hasLo || n.hasHi {
				if x := v.i[j]; (n.hasLo && x < n.lo) || (n.hasHi && x > n.hi) {
					continue
				}
			}
			if n.positive && !(weight(j) > 0) {
				continue
			}
			keep = append(keep, j)
		}
		splits[b+1] = int64(len(keep))
	}
	ns.tmp = keep[:cap(keep)]
	ns.pickVec(&ns.res[0], v, keep, 0)
	ns.res[1] = vec{dt: interp.Int64, i: splits}
	ns.res[1].vector()
	if w != nil {
		ns.pickVec(&ns.res[2], w, keep, 2)
	}
	return nil
}

// graphState is a graph column's node states.
type graphState struct {
	nodes []nodeState
	args  []*vec
	// The layer's operands of the last measure.
	vals, splits, weights *vec
}

// measureGraph computes column cp's operands from its feeds (st.feeds)
// and the batch's record indexes (ex), and measures them, with the
// checks of abi.Layer.Inputs and Pack.
func measureGraph(cp *colPlan, st *colState, ex []exBatch) error {
	g, c := cp.graph, cp.c
	gs := st.graph
	if gs == nil {
		gs = &graphState{nodes: make([]nodeState, len(g.nodes))}
		st.graph = gs
	}
	for k, n := range g.nodes {
		gs.args = gs.args[:0]
		for _, a := range n.args {
			gs.args = append(gs.args, &gs.nodes[a.n].res[a.res])
		}
		if n.kind == gExample {
			gs.nodes[k].x, gs.nodes[k].xb = n.exPlan, &ex[n.input]
		}
		if err := eval(n, &gs.nodes[k], gs.args, st.feeds); err != nil {
			return err
		}
	}
	ref := func(r gref) *vec {
		if r.n < 0 {
			return nil
		}
		return &gs.nodes[r.n].res[r.res]
	}
	v, s, w := ref(g.vals), ref(g.splits), ref(g.weights)
	gs.vals, gs.splits, gs.weights = v, s, w
	if cp.src == srcSplit && v.rank == 2 && v.d1 == 1 {
		v.rank, v.d1 = 1, 0
	}
	if v.rank != 1 {
		return fmt.Errorf("column %q: values must be a vector, got shape %s", c.Name, v.shape())
	}
	if !cp.src.takes(v.dt) {
		return fmt.Errorf("column %q: source %q cannot take values of %v", c.Name, c.Source, v.dt)
	}
	var sz abi.ColumnSize
	var err error
	switch cp.src {
	case srcIDs:
		sz.N, err = checkIDs(cp, v.i, 0, false)
	case srcStr, srcSplit:
		sz.N, sz.Bytes, err = strSize(cp, v.s, "", false)
	default:
		sz.N = int64(v.len())
	}
	if err != nil {
		return err
	}
	st.batch = sz.N
	if s != nil {
		if !s.dt.IsInteger() || s.rank != 1 {
			return fmt.Errorf("column %q: row splits must be an integer vector, got %v of shape %s", c.Name, s.dt, s.shape())
		}
		b := int64(len(s.i)) - 1
		if b < 0 || s.i[0] != 0 || s.i[b] != sz.N {
			return fmt.Errorf("column %q: invalid row splits", c.Name)
		}
		for j := int64(0); j < b; j++ {
			if s.i[j] > s.i[j+1] {
				return fmt.Errorf("column %q: row splits must be non-decreasing", c.Name)
			}
		}
		if b > maxBatch {
			return errBatch(c.Name, b)
		}
		st.batch = b
	}
	if w != nil {
		if w.dt != interp.Float32 {
			return fmt.Errorf("column %q: weights must be float32, got %v", c.Name, w.dt)
		}
		if int64(len(w.f32)) != sz.N {
			return fmt.Errorf("column %q: %d weights for %d ids", c.Name, len(w.f32), sz.N)
		}
	}
	st.size = sz
	return nil
}

// writeGraph writes column cp's regions (descriptor d) from its
// computed operands.
func writeGraph(cp *colPlan, st *colState, w []int32, d []int64) {
	gs := st.graph
	n := st.size.N
	if s := gs.splits; s != nil {
		ws := w[d[0] : d[0]+int64(len(s.i))]
		for j, x := range s.i {
			ws[j] = int32(x)
		}
		pad(w, d[0]+int64(len(s.i)))
	}
	at := d[1]
	v := gs.vals
	switch cp.src {
	case srcIDs:
		putIDs(w[at:], v.i, 0, false)
		pad(w, at+n)
	case srcI64:
		putI64(w[at:], v.i, 0, false)
		pad(w, at+2*n)
	case srcF32:
		putF32(w[at:at+n], v.f32, 0, false)
		pad(w, at+n)
	case srcF64:
		putF64(w[at:at+2*n], v.f64, 0, false)
		pad(w, at+2*n)
	case srcStr, srcSplit:
		putStrs(cp.slots, w, nil, 0, at, d[6], st.size.Bytes, v.s, "", false)
		if cp.slots {
			pad(w, at+2*n)
		} else {
			pad(w, at+n+1)
		}
	}
	if cp.weighted {
		putF32(w[d[2]:d[2]+n], gs.weights.f32, 0, false)
		pad(w, d[2]+n)
	}
}
