package serve

import (
	"encoding/binary"
	"slices"
	"strconv"

	"github.com/recom-compiler/recom/interp"
)

// Most integers of a client's inputs list follow from its row count: a
// shape's first dimension is the rows, the others are fixed by the spec,
// and the binary_data_size of a fixed-size dtype is rows × the elements
// of a row × the item size. A rawInst is the template with those integers
// written in for one row count: its text is then a few long pieces
// (compared byte for byte) around the integers that still vary, its
// holes (a BYTES input's size, a dimension the spec leaves open). E's
// list of 1001 inputs is 71 pieces and 70 sizes to parse, and its 931
// fixed-size inputs take shapes made once and views of the body at a
// running offset, with no check but that the body holds them.
//
// An instantiation is built by the checks take makes (Signature.elements,
// the size against the elements), on the values they accept, so a list
// that matches it byte for byte is one take accepts; a request that
// matches the template and passes take matches the instantiation of its
// rows (its integers are written plainly, one way each). A list that
// misses it is read by the input reader (FuzzDecodeInferRaw checks both
// ways: a request misses the template exactly when it misses the
// instantiation of its rows).

// rawInst is template t instantiated for rows rows.
type rawInst struct {
	t    *rawTemplate
	rows int64
	// ok is false when no list of rows rows matches t and passes take
	// (a dimension of the spec not rows, too many elements): every
	// request of those rows is left to the input reader.
	ok bool
	// text is the list with each integer the rows fix written in; ends
	// are where each hole is, in text (the piece before hole i is
	// text[ends[i-1]:ends[i]]).
	text string
	ends []int
	ins  []instInput // the inputs, in the list's order (t.ins')
	strs []int32     // the BYTES inputs of a fixed shape, by ins
	// shapes are the inputs' shapes the rows fix, by Signature.Inputs
	// (nil for one with holes): copied into each request's rawFeeds,
	// shared by all requests of these rows (never written).
	shapes [][]int64
	// gen holds the integers of the inputs whose shape has holes, in the
	// template's order (instInput.gen), -1 for a hole.
	gen []int64
}

// instInput is one input of an instantiation: for a shape the rows fix
// (rawInst.shapes), its elements and bytes (-1: a hole, a BYTES
// input's); for a shape with holes, where its integers start in
// rawInst.gen (-1 for none).
type instInput struct {
	k, gen  int32
	n, size int64
}

// Bounds of a server's instantiations.
const (
	// rawInsts is how many a server keeps at most (each about its
	// template's text and 48 bytes an input: 0.14 MB for E): one for
	// each row count of requests of 1-64 rows.
	rawInsts = 64
	// rawInstBytes bounds their memory (a template of a longer list
	// keeps fewer: rawTemplate.slots).
	rawInstBytes = 32 << 20
	// rawInstEvery is how many requests are read by the template alone,
	// for want of their rows' instantiation, before one replaces another
	// (a client of many row counts builds at most one every so many
	// requests).
	rawInstEvery = 16
)

// instantiate is t for rows rows, on sig.
func (t *rawTemplate) instantiate(sig *Signature, rows int64) *rawInst {
	in := &rawInst{t: t, rows: rows, shapes: make([][]int64, len(sig.Inputs))}
	size := 0
	for _, l := range t.lits {
		size += len(l) + 4
	}
	text := make([]byte, 0, size)
	seen := make([]bool, len(sig.Inputs))
	shapes := map[string][]int64{} // equal shapes shared
	var key []byte
	var dims, ints []int64
	j := 0 // the next integer, lits[j] before it
	for _, ti := range t.ins {
		if ti.k < 0 || ti.k >= len(sig.Inputs) || seen[ti.k] || ti.rank < 1 || j+ti.rank >= len(t.lits) {
			return in
		}
		seen[ti.k] = true
		spec := &sig.Inputs[ti.k]
		if !spec.UnknownRank && ti.rank != len(spec.Shape) {
			return in // no request of this form passes take
		}
		// The shape's dimensions: rows, the spec's, -1 where it leaves one
		// open; then the size where it follows from them.
		dims = append(dims[:0], rows)
		open := false
		for i := 1; i < ti.rank; i++ {
			d := int64(-1)
			if !spec.UnknownRank && spec.Shape[i] >= 0 {
				d = spec.Shape[i]
			}
			dims = append(dims, d)
			open = open || d < 0
		}
		e := instInput{k: int32(ti.k), gen: -1, n: -1, size: -1}
		if !open {
			n, ok := sig.elements(ti.k, dims)
			if !ok {
				return in
			}
			e.n = n
			if it := rawItemSize(spec.DType); it > 0 {
				e.size = n * it
			} else if spec.DType == interp.String {
				in.strs = append(in.strs, int32(len(in.ins)))
			} else {
				return in
			}
			key = key[:0]
			for _, d := range dims {
				key = strconv.AppendInt(append(key, ','), d, 10)
			}
			sh := shapes[string(key)]
			if sh == nil {
				sh = slices.Clip(slices.Clone(dims))
				shapes[string(key)] = sh
			}
			in.shapes[ti.k] = sh
		}
		// The input's integers in the list's order.
		if ti.sizeFirst {
			ints = append(append(ints[:0], e.size), dims...)
		} else {
			ints = append(append(ints[:0], dims...), e.size)
		}
		if open {
			e.gen = int32(len(in.gen))
			in.gen = append(in.gen, ints...)
		}
		for _, v := range ints {
			text = append(text, t.lits[j]...)
			j++
			if v < 0 {
				in.ends = append(in.ends, len(text))
			} else {
				text = strconv.AppendInt(text, v, 10)
			}
		}
		in.ins = append(in.ins, e)
	}
	if j != len(t.lits)-1 || len(in.ins) != len(sig.Inputs) {
		return in
	}
	in.text = string(append(text, t.lits[j]...))
	in.ok = true
	return in
}

// rowsAt is the rows of the list at p as t reads it (its first input's
// first dimension), -1 if it does not match t that far.
func (t *rawTemplate) rowsAt(b []byte, p int) int64 {
	if len(t.ins) == 0 {
		return -1
	}
	last := 0
	if t.ins[0].sizeFirst {
		last = 1
	}
	for j := 0; j <= last && j < len(t.lits)-1; j++ {
		lit := t.lits[j]
		if len(b)-p < len(lit) || string(b[p:p+len(lit)]) != lit {
			return -1
		}
		v, q, ok := intAt(b, p+len(lit))
		if !ok {
			return -1
		}
		if j == last {
			return v
		}
		p = q
	}
	return -1
}

// inst is t's instantiation for rows, built when the cache has room for
// it (a free slot, or one to replace once every rawInstEvery requests
// that found none); nil for none (rows beyond maxRows, too: a request of
// those is refused anyway).
func (c *rawCache) inst(t *rawTemplate, sig *Signature, rows int64, maxRows int) *rawInst {
	if c == nil || c.noInst || rows < 1 || rows > int64(maxRows) {
		return nil
	}
	slot := -1
	for i := range c.insts[:min(t.slots, rawInsts)] {
		in := c.insts[i].Load()
		if in != nil && in.t == t {
			if in.rows == rows {
				return in
			}
		} else if slot < 0 {
			slot = i // free, or an old template's
		}
	}
	if slot < 0 {
		if c.instMiss.Add(1) < rawInstEvery {
			return nil
		}
		c.instMiss.Store(0)
		slot = int(c.instNext.Add(1) % uint32(max(min(t.slots, rawInsts), 1)))
	}
	old := c.insts[slot].Load()
	in := t.instantiate(sig, rows)
	c.insts[slot].CompareAndSwap(old, in) // lost to another: this request still uses it
	return in
}

// matchInst reads the inputs list at the scanner by instantiation in;
// false when it does not match or an input does not check (restart then
// undoes what was taken).
func (d *rawReader) matchInst(in *rawInst) bool {
	if !in.ok {
		return false
	}
	b, p := d.s.buf, d.s.pos
	at, h := 0, len(d.f.dims)
	for _, e := range in.ends {
		piece := in.text[at:e]
		if len(b)-p < len(piece) || string(b[p:p+len(piece)]) != piece {
			return false
		}
		v, q, ok := intAt(b, p+len(piece))
		if !ok {
			return false
		}
		d.f.dims = append(d.f.dims, v)
		p, at = q, e
	}
	if piece := in.text[at:]; len(b)-p < len(piece) || string(b[p:p+len(piece)]) != piece {
		return false
	}
	p += len(in.text) - at
	holes := d.f.dims // the holes' values from h, in order; shapes with holes follow
	d.rows = in.rows
	copy(d.f.shapes, in.shapes)
	for i := range in.ins {
		e := &in.ins[i]
		if e.gen >= 0 {
			// A shape with holes: its integers, then take's checks.
			ti := in.t.ins[i]
			ints := in.gen[e.gen : int(e.gen)+ti.rank+1]
			at := len(d.f.dims)
			for _, v := range ints {
				if v < 0 {
					v = holes[h]
					h++
				}
				d.f.dims = append(d.f.dims, v)
			}
			all := d.f.dims[at:]
			shape, size := all[:ti.rank:ti.rank], all[ti.rank]
			if ti.sizeFirst {
				size, shape = all[0], all[1:1+ti.rank:1+ti.rank]
			}
			if !d.take(int(e.k), shape, size) {
				return false
			}
			continue
		}
		size := e.size
		if size < 0 {
			size = holes[h]
			h++
		}
		if size > int64(len(d.bin)) {
			return false
		}
		raw := d.bin[:size:size]
		d.bin = d.bin[size:]
		d.f.data[e.k] = raw
		d.n++
	}
	// The BYTES inputs' elements, four inputs at a time.
	var raws [4][]byte
	var ns [4]int64
	for i := 0; i < len(in.strs) && !d.lazy; i += 4 {
		if len(in.strs)-i < 4 {
			for _, j := range in.strs[i:] {
				if e := &in.ins[j]; !rawStrings(d.f.data[e.k], e.n) {
					return false
				}
			}
			break
		}
		for l, j := range in.strs[i : i+4] {
			e := &in.ins[j]
			raws[l], ns[l] = d.f.data[e.k], e.n
		}
		if !rawStrings4(&raws, &ns) {
			return false
		}
	}
	d.s.pos = p
	return true
}

// rawStrings4 is rawStrings of four views at once: each is a chain of
// loads (an element's length says where the next one is), and four
// chains take little longer than one.
func rawStrings4(raw *[4][]byte, n *[4]int64) bool {
	r0, r1, r2, r3 := raw[0], raw[1], raw[2], raw[3]
	e0, e1, e2, e3 := uint64(len(r0)), uint64(len(r1)), uint64(len(r2)), uint64(len(r3))
	var a0, a1, a2, a3 uint64
	m := min(n[0], n[1], n[2], n[3])
	if m > int64(min(e0, e1, e2, e3)/4) {
		return false // each element takes 4 bytes at least
	}
	for k := m; k > 0; k-- {
		// Each a+4 <= e, in one branch (the offsets are far below 2^63:
		// one past its end wraps to a negative difference).
		if int64((e0-a0-4)|(e1-a1-4)|(e2-a2-4)|(e3-a3-4)) < 0 {
			return false
		}
		a0 += 4 + uint64(binary.LittleEndian.Uint32(r0[a0:a0+4]))
		a1 += 4 + uint64(binary.LittleEndian.Uint32(r1[a1:a1+4]))
		a2 += 4 + uint64(binary.LittleEndian.Uint32(r2[a2:a2+4]))
		a3 += 4 + uint64(binary.LittleEndian.Uint32(r3[a3:a3+4]))
	}
	if a0 > e0 || a1 > e1 || a2 > e2 || a3 > e3 {
		return false
	}
	// The rest of each, alone.
	return rawStrings(r0[a0:], n[0]-m) && rawStrings(r1[a1:], n[1]-m) && rawStrings(r2[a2:], n[2]-m) && rawStrings(r3[a3:], n[3]-m)
}
