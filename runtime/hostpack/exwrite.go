package hostpack

import (
	"math"

	"github.com/recom-compiler/recom/dialects/emb"
	"github.com/recom-compiler/recom/dialects/fused/abi"
	"github.com/recom-compiler/recom/dialects/tfg"
	"github.com/recom-compiler/recom/interp"
	"github.com/recom-compiler/recom/interp/tfexample"
	"github.com/recom-compiler/recom/textir"
)

// The columns read straight from the records (exColumn), and the parse
// results other columns read (gExample nodes).

// exColumn is a column written straight from a parse op's records: the
// values of one feature of each record, in record order, with its row
// splits — a VarLenFeature (emb.from_sparse of its key's results), or a
// FixedLenFeature's rows with its default where a record lacks it (the
// dense result itself, or emb.from_dense of it without an ignore value)
// — and the weights of another VarLenFeature (emb.from_sparse of its
// values at the ids' indices).
type exColumn struct {
	x, f  int // the exPlan and the feature of the values
	input int // the plan input of the records
	w     int // the feature of the weights, or -1
	dense bool
}

// exampleColumn plans column c as an exColumn when its operands have one
// of those forms; ok is false otherwise (the column is then planned op
// by op, its parse results gExample nodes).
func (b *builder) exampleColumn(c *abi.Column, vals, splits, weights *textir.Value) (*exColumn, bool, error) {
	def := vals.DefiningOp()
	if def == nil {
		return nil, false, nil
	}
	// A VarLenFeature: emb.from_sparse of one key's indices, values and
	// dense shape.
	if fs, ok := emb.AsFromSparse(def); ok && vals == fs.Values() && splits == fs.RowSplits() && splits != nil {
		x, f, ok, err := b.sparseFeature(fs.Indices(), fs.SparseValues(), fs.DenseShape())
		if err != nil || !ok {
			return nil, false, err
		}
		col := &exColumn{x: x, f: f, w: -1, input: b.p.examples[x].input}
		if weights != nil {
			ws, ok := emb.AsFromSparse(weights.DefiningOp())
			if !ok || weights != ws.Values() {
				return nil, false, nil
			}
			wx, wf, ok, err := b.exampleIndexOf(ws.SparseValues(), tfg.ExampleSparseValues)
			if err != nil || !ok || wx != x || !same(ws.Indices(), fs.Indices()) || !same(ws.DenseShape(), fs.DenseShape()) {
				return nil, false, err
			}
			col.w = wf
		}
		return col, true, nil
	}
	if weights != nil {
		return nil, false, nil
	}
	// A FixedLenFeature: its dense values, or emb.from_dense of them
	// without an ignore value.
	v := vals
	if fd, ok := emb.AsFromDense(def); ok && vals == fd.Values() {
		if def.LookupAttr(emb.AttrIgnore) != nil || (splits != nil && splits != fd.RowSplits()) {
			return nil, false, nil
		}
		v = fd.Input()
	} else if splits != nil {
		return nil, false, nil
	}
	x, f, ok, err := b.exampleIndexOf(v, tfg.ExampleDenseValues)
	if err != nil || !ok {
		return nil, false, err
	}
	return &exColumn{x: x, f: f, w: -1, dense: true, input: b.p.examples[x].input}, true, nil
}

// same reports whether a and b are one value, through Identity ops.
func same(a, b *textir.Value) bool {
	strip := func(v *textir.Value) *textir.Value {
		for v.DefiningOp() != nil && v.DefiningOp().Name() == "tfg.Identity" && v.Index() == 0 && v.DefiningOp().NumOperands() > 0 {
			v = v.DefiningOp().Operand(0)
		}
		return v
	}
	return strip(a) == strip(b)
}

// exampleIndexOf returns the exPlan and feature of v when it is result
// arg of a parse the plan reads.
func (b *builder) exampleIndexOf(v *textir.Value, arg string) (x, f int, ok bool, err error) {
	x, f, got, ok, err := b.exampleResult(v)
	if err != nil || !ok || got != arg {
		return 0, 0, false, err
	}
	return x, f, true, nil
}

// sparseFeature returns the feature whose indices, values and dense shape
// ind, vals and shape are.
func (b *builder) sparseFeature(ind, vals, shape *textir.Value) (x, f int, ok bool, err error) {
	x, f, ok, err = b.exampleIndexOf(vals, tfg.ExampleSparseValues)
	if err != nil || !ok {
		return 0, 0, false, err
	}
	xi, fi, ok1, err := b.exampleIndexOf(ind, tfg.ExampleSparseIndices)
	if err != nil {
		return 0, 0, false, err
	}
	xs, fs, ok2, err := b.exampleIndexOf(shape, tfg.ExampleSparseShapes)
	if err != nil || !ok1 || !ok2 || xi != x || xs != x || fi != f || fs != f {
		return 0, 0, false, err
	}
	return x, f, true, nil
}

// ---- measure and write ----

// rows returns a column's rows and, for a dense feature, the values of
// each (per; 0 for a feature of lists).
func (ec *exColumn) rows(x *exPlan, xb *exBatch) (rows, per int64) {
	if !ec.dense {
		return int64(xb.B), 0
	}
	f := &x.feats[ec.f]
	if f.VarLen {
		return int64(xb.B), xb.most[ec.f]
	}
	return int64(xb.B), f.Stride
}

// eachRow calls fn for each record with the feature's list (Kind None
// where absent) and, for a dense feature, how many of the default's
// values pad it (all of a fixed one's where absent; one repeated up to
// the row's width where variable-length).
func (ec *exColumn) eachRow(x *exPlan, xb *exBatch, fn func(r int, l tfexample.List, pad int64)) {
	_, per := ec.rows(x, xb)
	for r := range xb.B {
		l := xb.list(r, ec.f)
		var pad int64
		if ec.dense {
			pad = per - int64(l.N)
		}
		fn(r, l, pad)
	}
}

// rangeSize returns the values of a column in the records of range i of
// the batch's index, and the bytes of its strings region they take
// (those of 8 bytes and more in a slotted column).
func (ec *exColumn) rangeSize(x *exPlan, xb *exBatch, i int, slots bool) (n, bytes int64) {
	sm := &xb.sums[i*xb.F+ec.f]
	n, bytes = sm.n, sm.bytes
	if slots {
		bytes = sm.long
	}
	if !ec.dense {
		return n, bytes
	}
	f := &x.feats[ec.f]
	recs := int64(xb.bound(i+1) - xb.bound(i))
	_, per := ec.rows(x, xb)
	// Padding: a fixed feature's whole default where a record lacks it,
	// a variable-length one's padding element up to the row's width.
	pad := recs*per - n
	n = recs * per
	if f.DType == interp.String && pad > 0 {
		d := f.Default.Strings()
		if f.VarLen {
			if !slots || len(d[0]) >= 8 {
				bytes += pad * int64(len(d[0]))
			}
		} else {
			var db int64
			for _, x := range d {
				if !slots || len(x) >= 8 {
					db += int64(len(x))
				}
			}
			bytes += (recs - sm.present) * db
		}
	}
	return n, bytes
}

// measureExample measures column cp of an exColumn plan from the sums of
// the batch's index (the ids of a column without id transforms are
// checked against its table, record by record).
func measureExample(cp *colPlan, st *colState, k *Packer) error {
	c, ec := cp.c, cp.example
	x, xb := k.p.examples[ec.x], &k.ex[ec.x]
	f := &x.feats[ec.f]
	rows, per := ec.rows(x, xb)
	if ec.dense {
		if n, ok := mulOK(rows, per); !ok || n > interp.MaxElements {
			return x.op.Errorf("feature %q: %d records of %d values are more than %d (RECOM_MAX_TENSOR_ELEMENTS; see docs/LIMITS.md)", f.Key, rows, per, interp.MaxElements)
		}
	}
	st.rows, st.per = rows, per
	var s abi.ColumnSize
	slots := c.StrSlots()
	var most int32
	for i := range xb.R {
		n, b := ec.rangeSize(x, xb, i, slots)
		s.N += n
		s.Bytes += b
		most = max(most, xb.sums[i*xb.F+ec.f].maxLen)
	}
	switch c.Source {
	case abi.SourceIDs:
		var err error
		ec.eachRow(x, xb, func(r int, l tfexample.List, pad int64) {
			if err != nil {
				return
			}
			for v := range l.Int64Values() {
				if v < 0 || v >= c.Rows {
					err = x.recordErr(r, f.Key, "column %q: id %d is not in [0, %d)", c.Name, v, c.Rows)
					return
				}
			}
			for i := int64(0); i < pad; i++ {
				if v := padInt(f, i); v < 0 || v >= c.Rows {
					err = x.recordErr(r, f.Key, "column %q: the default id %d is not in [0, %d)", c.Name, v, c.Rows)
					return
				}
			}
		})
		if err != nil {
			return err
		}
	case abi.SourceStr, abi.SourceSplit:
		if slots {
			if f.Default != nil {
				for _, d := range f.Default.Strings() {
					most = max(most, int32(min(len(d), math.MaxInt32)))
				}
			}
			if most >= 8 {
				if err := c.TooLong(int(most)); err != nil {
					return err
				}
			}
		}
	}
	if ec.w >= 0 {
		var nw int64
		for i := range xb.R {
			nw += xb.sums[i*xb.F+ec.w].n
		}
		if nw != s.N {
			wf := &x.feats[ec.w]
			return x.op.Errorf("column %q: feature %q holds %d weights for the %d ids of feature %q (emb.from_sparse: values must have indices.shape[0] = %d elements)",
				c.Name, wf.Key, nw, s.N, f.Key, s.N)
		}
	}
	st.size = s
	st.batch = s.N
	if c.HasSplits() {
		st.batch = rows
	}
	return nil
}

func mulOK(a, b int64) (int64, bool) {
	if a == 0 || b == 0 {
		return 0, true
	}
	if a > math.MaxInt64/b {
		return 0, false
	}
	return a * b, true
}

// padString returns default string i of a dense feature's padding.
func padString(f *exFeat, i int64) string {
	d := f.Default.Strings()
	if f.VarLen {
		return d[0]
	}
	return d[i]
}

// padBits and padInt return default element i of a dense feature's
// padding: the default's (fixed) or its one value (variable-length).
func padBits(f *exFeat, i int64) uint32 {
	d := f.Default.Float32s()
	if f.VarLen {
		return math.Float32bits(d[0])
	}
	return math.Float32bits(d[i])
}

func padInt(f *exFeat, i int64) int64 {
	d := f.Default.Int64s()
	if f.VarLen {
		return d[0]
	}
	return d[i]
}

// exCursor is where one column's next record goes in the packed words.
type exCursor struct {
	acc    int64 // values before the record (the row splits)
	vj, wj int64 // the next value's and weight's word
	sw     strWriter
}

// packExamples writes the regions of every exColumn record by record:
// for each parse, in parallel over the ranges of records its index made,
// each record's features into their columns (the records read once, in
// order; the columns' regions written as streams). The regions' ends are
// written by finishExample.
func (k *Packer) packExamples(w []int32, lay *abi.Layout) error {
	p := k.p
	for xi, x := range p.examples {
		xb := &k.ex[xi]
		cols := p.exCols[xi]
		if len(cols) == 0 {
			continue
		}
		if cap(xb.cursors) < xb.R*len(cols) {
			xb.cursors = make([]exCursor, xb.R*len(cols))
		}
		cur := xb.cursors[:xb.R*len(cols)]
		// Each range's cursors: the sizes of the ranges before it.
		for j, ci := range cols {
			cp, d := &p.cols[ci], lay.Desc[abi.DescWords*ci:]
			c, ec := cp.c, cp.example
			slots := c.StrSlots()
			var n, bytes, nw int64
			for i := range xb.R {
				cu := &cur[i*len(cols)+j]
				*cu = exCursor{acc: n, wj: d[2] + nw}
				switch c.Source {
				case abi.SourceI64:
					cu.vj = d[1] + 2*n
				case abi.SourceStr, abi.SourceSplit:
					cu.sw = strWriter{w: w, bytesAt: d[6], off: bytes, slots: slots, j: d[1] + n}
					if slots {
						cu.sw.j = d[1] + 2*n
					}
				default:
					cu.vj = d[1] + n
				}
				rn, rb := ec.rangeSize(x, xb, i, slots)
				n, bytes = n+rn, bytes+rb
				if ec.w >= 0 {
					nw += xb.sums[i*xb.F+ec.w].n
				}
			}
			if !littleEndian && (c.Source == abi.SourceStr || c.Source == abi.SourceSplit) {
				clear(w[d[6] : d[6]+(bytes+3)/4]) // putBytes ORs the bytes in
			}
			if c.HasSplits() {
				w[d[0]] = 0
			}
		}
		xb.w, xb.lay = w, lay
		err := k.parallelRecords(phaseRecords, xi, xb.R)
		xb.w, xb.lay = nil, nil
		if err != nil {
			return err
		}
	}
	return nil
}

// recordRange writes the records of range i of parse xi into their
// columns, at the range's cursors.
func (k *Packer) recordRange(xi, i int) {
	p, x, xb := k.p, k.p.examples[xi], &k.ex[xi]
	cols := p.exCols[xi]
	cur := xb.cursors[i*len(cols) : (i+1)*len(cols)]
	for r := xb.bound(i); r < xb.bound(i+1); r++ {
		for j, ci := range cols {
			writeRecord(&p.cols[ci], x, xb, r, &cur[j], xb.w, xb.lay.Desc[abi.DescWords*ci:])
		}
	}
}

// writeRecord writes record r's values of column cp at its cursor.
func writeRecord(cp *colPlan, x *exPlan, xb *exBatch, r int, cu *exCursor, w []int32, d []int64) {
	c, ec := cp.c, cp.example
	f := &x.feats[ec.f]
	l := xb.list(r, ec.f)
	var pad int64
	if ec.dense {
		_, per := ec.rows(x, xb)
		pad = per - int64(l.N)
	}
	switch c.Source {
	case abi.SourceIDs:
		j := cu.vj
		for v := range l.Int64Values() {
			w[j] = int32(v)
			j++
		}
		for i := int64(0); i < pad; i++ {
			w[j] = int32(padInt(f, i))
			j++
		}
		cu.vj = j
	case abi.SourceI64:
		j := cu.vj
		for v := range l.Int64Values() {
			w[j], w[j+1] = int32(uint32(uint64(v))), int32(uint32(uint64(v)>>32))
			j += 2
		}
		for i := int64(0); i < pad; i++ {
			v := padInt(f, i)
			w[j], w[j+1] = int32(uint32(uint64(v))), int32(uint32(uint64(v)>>32))
			j += 2
		}
		cu.vj = j
	case abi.SourceF32:
		j := cu.vj
		for v := range l.FloatBitValues() {
			w[j] = int32(v)
			j++
		}
		for i := int64(0); i < pad; i++ {
			w[j] = int32(padBits(f, i))
			j++
		}
		cu.vj = j
	case abi.SourceStr, abi.SourceSplit:
		for v := range l.Strings() {
			cu.sw.put(xb.strAt(r, v))
		}
		for i := int64(0); i < pad; i++ {
			cu.sw.put(padString(f, i))
		}
	}
	cu.acc += int64(l.N) + pad
	if c.HasSplits() {
		w[d[0]+int64(r)+1] = int32(cu.acc)
	}
	if ec.w >= 0 {
		j := cu.wj
		for v := range xb.list(r, ec.w).FloatBitValues() {
			w[j] = int32(v)
			j++
		}
		cu.wj = j
	}
}

// finishExample writes the ends of column cp's regions (descriptor d)
// after packExamples: the strings' last offset and the padding of each
// region.
func finishExample(cp *colPlan, st *colState, w []int32, d []int64) {
	c := cp.c
	n := st.size.N
	if c.HasSplits() {
		pad(w, d[0]+st.rows+1)
	}
	at := d[1]
	switch c.Source {
	case abi.SourceIDs, abi.SourceF32:
		pad(w, at+n)
	case abi.SourceI64:
		pad(w, at+2*n)
	case abi.SourceStr, abi.SourceSplit:
		sw := strWriter{w: w, bytesAt: d[6], j: at + n, off: st.size.Bytes, slots: c.StrSlots()}
		if sw.slots {
			sw.j = at + 2*n
		}
		sw.finish()
		if sw.slots {
			pad(w, at+2*n)
		} else {
			pad(w, at+n+1)
		}
	}
	if cp.example.w >= 0 {
		pad(w, d[2]+n)
	}
}

// strWriter writes a column's strings one by one as putStrs writes them:
// their slots (StrSlots) or byte offsets from word j on, and their bytes
// from byte off of the region at word bytesAt.
type strWriter struct {
	w       []int32
	bytesAt int64
	j, off  int64 // the next slot's or offset's word, the next byte
	slots   bool
}

func (s *strWriter) put(x string) {
	w := s.w
	if s.slots {
		var u uint64
		if len(x) < 8 {
			u = shortSlot(x)
		} else {
			u = uint64(s.off) | uint64(len(x))<<32 | 0xff<<56
			putBytes(w, 4*s.bytesAt+s.off, x)
			s.off += int64(len(x))
		}
		w[s.j], w[s.j+1] = int32(uint32(u)), int32(uint32(u>>32))
		s.j += 2
		return
	}
	w[s.j] = int32(s.off)
	putBytes(w, 4*s.bytesAt+s.off, x)
	s.off += int64(len(x))
	s.j++
}

// finish writes the final offset (offsets), masks the last word's bytes
// after the strings and pads the bytes region.
func (s *strWriter) finish() {
	w := s.w
	if !s.slots {
		w[s.j] = int32(s.off)
	}
	end := s.bytesAt + (s.off+3)/4
	if tail := (4 - s.off%4) % 4; tail > 0 {
		last := &w[end-1]
		*last &= int32(uint32(math.MaxUint32) >> (8 * tail))
	}
	pad(w, end)
}

// ---- parse results as vectors (gExample) ----

// evalExample computes result n of a parse (its feature and argument)
// from the batch's index, as tfops.ParseExample computes it.
func evalExample(n *gnode, ns *nodeState, x *exPlan, xb *exBatch) error {
	f := &x.feats[n.exFeat]
	out := &ns.res[0]
	B := xb.B
	switch n.exArg {
	case tfg.ExampleSparseIndices:
		var total int64
		for r := range B {
			total += int64(xb.loc[r*xb.F+n.exFeat].n)
		}
		if total > interp.MaxElements/2 {
			return x.op.Errorf("feature %q: %d values are more than the interpreter's tensors hold", f.Key, total)
		}
		idx := ns.ints(0, int(2*total))[:0]
		for r := range B {
			for j := range int64(xb.loc[r*xb.F+n.exFeat].n) {
				idx = append(idx, int64(r), j)
			}
		}
		*out = vec{dt: interp.Int64, rank: 2, d0: total, d1: 2, i: idx}
		return nil
	case tfg.ExampleSparseShapes:
		var most int32
		for r := range B {
			most = max(most, xb.loc[r*xb.F+n.exFeat].n)
		}
		sh := ns.ints(0, 2)
		sh[0], sh[1] = int64(B), int64(most)
		*out = vec{dt: interp.Int64, rank: 1, d0: 2, i: sh}
		return nil
	case tfg.ExampleRaggedSplits:
		sp := ns.ints(0, B+1)
		sp[0] = 0
		for r := range B {
			sp[r+1] = sp[r] + int64(xb.loc[r*xb.F+n.exFeat].n)
		}
		*out = vec{dt: n.dt[0], rank: 1, d0: int64(B + 1), i: sp}
		return nil
	}
	// Values: a feature's lists, or a dense feature's rows.
	ec := &exColumn{x: n.input, f: n.exFeat, w: -1, dense: f.kind == exDense}
	rows, per := ec.rows(x, xb)
	var total int64
	if ec.dense {
		t, ok := mulOK(rows, per)
		if !ok || t > interp.MaxElements {
			return x.op.Errorf("feature %q: %d records of %d values are more than %d (RECOM_MAX_TENSOR_ELEMENTS; see docs/LIMITS.md)", f.Key, rows, per, interp.MaxElements)
		}
		total = t
	} else {
		for r := range B {
			total += int64(xb.loc[r*xb.F+n.exFeat].n)
		}
	}
	*out = vec{dt: f.DType}
	switch f.DType {
	case interp.String:
		s := ns.strs(0, int(total))[:0]
		ec.eachRow(x, xb, func(r int, l tfexample.List, pad int64) {
			for v := range l.Strings() {
				s = append(s, xb.strAt(r, v))
			}
			for i := int64(0); i < pad; i++ {
				s = append(s, padString(f, i))
			}
		})
		out.s = s
	case interp.Float32:
		v := ns.f32s(0, int(total))[:0]
		ec.eachRow(x, xb, func(r int, l tfexample.List, pad int64) {
			for b := range l.FloatBitValues() {
				v = append(v, math.Float32frombits(b))
			}
			for i := int64(0); i < pad; i++ {
				v = append(v, math.Float32frombits(padBits(f, i)))
			}
		})
		out.f32 = v
	default:
		v := ns.ints(0, int(total))[:0]
		ec.eachRow(x, xb, func(r int, l tfexample.List, pad int64) {
			for b := range l.Int64Values() {
				v = append(v, b)
			}
			for i := int64(0); i < pad; i++ {
				v = append(v, padInt(f, i))
			}
		})
		out.i = v
	}
	out.vector()
	if ec.dense {
		// [batch] + the dense shape (variable-length: the most rows).
		dims := f.Shape
		out.rank, out.d0 = 1+len(dims), rows
		switch {
		case f.VarLen:
			out.d1 = per / f.Stride
		case len(dims) > 0:
			out.d1 = dims[0]
		default:
			out.d1 = 0
		}
	}
	return nil
}
