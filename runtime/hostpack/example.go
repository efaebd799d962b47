package hostpack

import (
	"fmt"
	"runtime"
	"strings"
	"unsafe"

	"github.com/recom-compiler/recom/dialects/fused/abi"
	"github.com/recom-compiler/recom/dialects/tfg"
	"github.com/recom-compiler/recom/interp"
	"github.com/recom-compiler/recom/interp/tfexample"
	"github.com/recom-compiler/recom/textir"
)

// Serialized tf.Example records parsed on the host (a model whose
// serving signature starts with ParseExample or ParseExampleV2): the plan
// reads the records themselves (the parse op's serialized input, a
// placeholder) and computes the parse's results it needs without the
// interpreter, with the semantics of tfops.ParseExample. Each batch, the
// records are indexed once per parse op (exBatch: in parallel over ranges
// of records, every configured feature of every record located, checked
// and counted, as offsets into the records: no values are decoded, no
// tensor is made), and then
//
//   - a column whose values are a VarLenFeature (emb.from_sparse of its
//     key's indices, values and dense shape, weighted by another key's
//     values) or a FixedLenFeature (the dense values, or emb.from_dense of
//     them) is written from the records straight into the packed buffer
//     (exColumn, exwrite.go);
//   - any other use of the parse's results (a column with filters or
//     transforms left before the layer) reads them as vectors computed
//     from the index (gExample nodes), for the column's other nodes.
//
// Every error names the record (its index in the batch) and the feature
// key, with the parse op and its TensorFlow node.

// Feature kinds of a parse op.
const (
	exSparse uint8 = iota
	exDense
	exRagged
)

// exFeat is one feature a parse op parses.
type exFeat struct {
	tfg.ExampleFeature
	kind  uint8          // exSparse, exDense, exRagged
	index int            // among the features of its kind
	list  tfexample.Kind // the list its dtype is read from
}

// exPlan is a parse op whose records the plan reads.
type exPlan struct {
	op    *textir.Operation
	spec  *tfg.ExampleSpec
	input int      // the plan input of the serialized records
	feats []exFeat // sparse, dense, then ragged, each in the op's order
	byKey map[string]int
	// first is the index in feats of the first feature of each kind.
	first [3]int
	// long marks the bytes features a column keeps in string slots: the
	// index sums the bytes of their strings of 8 bytes and more.
	long []bool
}

// exLoc is where one feature of one record is: its list's values (a
// slice of the record, as tfexample.List.Raw gives it), or absent.
type exLoc struct {
	off, ln int32 // the list's bytes in the record; ln < 0: absent
	n       int32 // values
	bytes   int32 // a bytes_list's bytes
	kind    tfexample.Kind
	packed  bool
}

// exBatch is one batch's index of a parse op's records, kept by a Packer
// from batch to batch.
type exBatch struct {
	recs []string
	B, F int
	loc  []exLoc // record-major: loc[r*F+f]
	// R ranges of records (bound), indexed in parallel, and the sums of
	// each range's features: sums[i*F+f].
	R       int
	sums    []exSum
	cursors []exCursor // packExamples' cursors, per range and column
	// w and lay are the words and layout packExamples writes, while it runs.
	w   []int32
	lay *abi.Layout
	// most is, per dense variable-length feature, the most values of a
	// record (a multiple of its stride).
	most []int64
	// scratch, per range of records.
	scratch []exScratch
}

type exScratch struct {
	ents []exEnt
	done []bool
	// next[f+1] is the feature that followed feature f (-1: the first)
	// in the last record: records written by one program list their
	// keys in one order, so the next key is guessed and compared before
	// it is looked up.
	next []int32
}

// exSum sums a feature over a range of records.
type exSum struct {
	n, present, bytes int64
	long              int64 // the bytes of its strings of 8 bytes and more (exPlan.long)
	maxLen            int32 // its longest string (exPlan.long)
}

// bound returns the first record of range i (B for i = R).
func (xb *exBatch) bound(i int) int { return xb.B * i / xb.R }

// exEnt is a wanted entry of a record: its feature and its value's bytes.
type exEnt struct{ f, off, ln int32 }

// listKind is the list a feature of dtype dt is read from.
func listKind(dt interp.DType) tfexample.Kind {
	switch dt {
	case interp.String:
		return tfexample.BytesList
	case interp.Float32:
		return tfexample.FloatList
	}
	return tfexample.Int64List
}

// newExPlan reads a parse op's features; the records come from plan
// input in.
func newExPlan(op *textir.Operation, spec *tfg.ExampleSpec, in int) *exPlan {
	x := &exPlan{op: op, spec: spec, input: in, byKey: map[string]int{}}
	for kind, fs := range [][]tfg.ExampleFeature{spec.Sparse, spec.Dense, spec.Ragged} {
		x.first[kind] = len(x.feats)
		for i, f := range fs {
			x.byKey[f.Key] = len(x.feats)
			x.feats = append(x.feats, exFeat{ExampleFeature: f, kind: uint8(kind), index: i, list: listKind(f.DType)})
		}
	}
	x.long = make([]bool, len(x.feats))
	return x
}

// feature returns the index in feats of result arg #k of the op.
func (x *exPlan) feature(arg string, k int) int {
	switch arg {
	case tfg.ExampleSparseIndices, tfg.ExampleSparseValues, tfg.ExampleSparseShapes:
		return x.first[exSparse] + k
	case tfg.ExampleDenseValues:
		return x.first[exDense] + k
	}
	return x.first[exRagged] + k
}

// recordErr is the error of record r (and feature key, when not "").
func (x *exPlan) recordErr(r int, key, format string, args ...any) error {
	where := fmt.Sprintf("record %d", r)
	if key != "" {
		where += fmt.Sprintf(", feature %q", key)
	}
	return x.op.Errorf("%s: %s", where, fmt.Sprintf(format, args...))
}

// example returns the exPlan of parse op op, made on first use, or -1
// when the plan cannot read its records itself: its configuration is not
// constant (or not one the kernel accepts: the interpreter then says why
// on every run), or its records are not a plan input.
func (b *builder) example(op *textir.Operation) (int, error) {
	if i, ok := b.exOf[op]; ok {
		return i, nil
	}
	b.exOf[op] = -1
	spec, err := tfg.ExampleSpecOf(op)
	if err != nil {
		return -1, nil
	}
	ser := spec.Serialized()
	if ser == nil {
		return -1, nil
	}
	if tt, ok := ser.Type().(*textir.TensorType); ok && len(tt.Shape) != 1 {
		return -1, nil // one example (a scalar): the interpreter parses it
	}
	in, ok, err := b.input(ser, op)
	if err != nil || !ok {
		return -1, err
	}
	if b.p.inputs[in].DType != interp.String {
		return -1, nil
	}
	b.exOf[op] = len(b.p.examples)
	b.p.examples = append(b.p.examples, newExPlan(op, spec, in))
	return b.exOf[op], nil
}

// exampleResult returns the exPlan and feature of parse result v (through
// Identity ops), and which result of the feature it is; ok is false for
// another value or a parse the plan does not read.
func (b *builder) exampleResult(v *textir.Value) (x int, f int, arg string, ok bool, err error) {
	for v.DefiningOp() != nil && v.DefiningOp().Name() == "tfg.Identity" && v.Index() == 0 && v.DefiningOp().NumOperands() > 0 {
		v = v.DefiningOp().Operand(0)
	}
	op, arg, k, isParse := tfg.ExampleResult(v)
	if !isParse {
		return 0, 0, "", false, nil
	}
	x, err = b.example(op)
	if err != nil || x < 0 {
		return 0, 0, "", false, err
	}
	return x, b.p.examples[x].feature(arg, k), arg, true, nil
}

// exampleNode adds the gExample node of parse result v (a result of op).
func (b *builder) exampleNode(g *graphPlan, v *textir.Value, op *textir.Operation, memo map[*textir.Value]gref) (gref, error) {
	x, f, arg, ok, err := b.exampleResult(v)
	if err != nil {
		return gref{}, err
	}
	if !ok {
		return gref{}, errUnsupported(op, "cannot parse the records of %s natively", op.Name())
	}
	dt, err := dtypeOf(op, v)
	if err != nil {
		return gref{}, err
	}
	n := &gnode{kind: gExample, op: op, input: x, exFeat: f, exArg: arg, exPlan: b.p.examples[x], dt: []interp.DType{dt}, nres: 1}
	g.nodes = append(g.nodes, n)
	r := gref{n: len(g.nodes) - 1}
	memo[v] = r
	return r, nil
}

// ---- the index ----

// index locates every feature of every record of the batch's records
// (the feed t of parse xi's input), in parallel over ranges of records
// on the pool (indexRange).
func (k *Packer) index(xi int, t *interp.Tensor, workers int) error {
	x, xb := k.p.examples[xi], &k.ex[xi]
	if t.Rank() != 1 {
		return x.op.Errorf("the records must be a vector of serialized tf.Example protos, got shape %s", interp.ShapeString(t.Shape()))
	}
	recs := t.Strings()
	B, F := len(recs), len(x.feats)
	if int64(B) > maxBatch {
		return x.op.Errorf("%d records exceed the layer's 32-bit offsets (at most %d)", B, maxBatch)
	}
	// The index holds B × F entries: checked before it takes memory.
	if F > 0 && int64(B) > interp.MaxElements/int64(F) {
		return x.op.Errorf("%d records of %d features make an index of more than %d entries (RECOM_MAX_TENSOR_ELEMENTS; see docs/LIMITS.md)", B, F, interp.MaxElements)
	}
	xb.recs, xb.B, xb.F = recs, B, F
	if cap(xb.loc) < B*F {
		xb.loc = make([]exLoc, B*F, B*F+B*F/4)
	}
	xb.loc = xb.loc[:B*F]
	var total int64
	for _, r := range recs {
		total += int64(len(r))
	}
	// Ranges of about 64 KiB of records, at most one per worker.
	xb.R = int(min(int64(max(workers, 1)), total/(64<<10)+1, int64(max(B, 1))))
	R := xb.R
	if len(xb.scratch) < R {
		xb.scratch = append(xb.scratch, make([]exScratch, R-len(xb.scratch))...)
	}
	if cap(xb.sums) < R*F {
		xb.sums = make([]exSum, R*F)
	}
	xb.sums = xb.sums[:R*F]
	clear(xb.sums)
	if err := k.parallelRecords(phaseIndex, xi, R); err != nil {
		return err
	}
	// The most values of a record, per variable-length dense feature.
	if cap(xb.most) < F {
		xb.most = make([]int64, F)
	}
	xb.most = xb.most[:F]
	for f := range x.feats {
		xb.most[f] = 0
		if x.feats[f].kind != exDense || !x.feats[f].VarLen {
			continue
		}
		var m int32
		for r := range B {
			m = max(m, xb.loc[r*F+f].n)
		}
		xb.most[f] = int64(m)
	}
	return nil
}

// indexRange indexes range i of parse xi's records.
func (k *Packer) indexRange(xi, i int) error {
	x, xb := k.p.examples[xi], &k.ex[xi]
	F, recs := xb.F, xb.recs
	s := &xb.scratch[i]
	if cap(s.done) < F {
		s.done = make([]bool, F)
	}
	s.done = s.done[:F]
	if len(s.next) != F+1 {
		s.next = make([]int32, F+1)
		for f := range s.next {
			s.next[f] = -1
		}
	}
	sums := xb.sums[i*F : (i+1)*F]
	for r := xb.bound(i); r < xb.bound(i+1); r++ {
		if err := x.indexRecord(r, recs[r], xb.loc[r*F:(r+1)*F], sums, s); err != nil {
			return err
		}
	}
	return nil
}

// offsetIn returns the offset of s in b (s a subslice of b).
func offsetIn(b, s []byte) int32 { return int32(cap(b) - cap(s)) }

// indexRecord locates the features of record r in loc, with the rules
// and checks of TensorFlow's ParseExample kernels as tfops.ParseExample
// has them: the record's entries are visited last first; an entry whose
// Feature holds no known list fails; a dense feature takes its last
// entry that holds a list (an empty Feature does not count), which must
// be of its dtype and hold exactly the values of its shape (a multiple
// of a row's, when variable-length); a sparse or ragged feature takes its
// last entry, even empty, of its dtype; a dense feature without a
// default must be present.
func (x *exPlan) indexRecord(r int, rec string, loc []exLoc, sums []exSum, s *exScratch) error {
	if len(rec) > 1<<31-1 {
		return x.recordErr(r, "", "a record of %d bytes: more than the 2^31 - 1 the index addresses", len(rec))
	}
	var b []byte
	if len(rec) > 0 {
		b = unsafe.Slice(unsafe.StringData(rec), len(rec))
	}
	ents := s.ents[:0]
	next := s.next
	prev := int32(-1)
	err := tfexample.Entries(b, func(key, value []byte) {
		f := next[prev+1]
		if f < 0 || x.feats[f].Key != string(key) {
			g, ok := x.byKey[string(key)]
			if !ok {
				return
			}
			f = int32(g)
			next[prev+1] = f
		}
		prev = f
		ents = append(ents, exEnt{f: f, off: offsetIn(b, value), ln: int32(len(value))})
	})
	s.ents = ents
	if err != nil {
		return x.recordErr(r, "", "not a serialized tf.Example: its bytes do not parse (%s)", quoteRecord(rec))
	}
	for i := range loc {
		loc[i] = exLoc{ln: -1}
	}
	done := s.done
	clear(done)
	for j := len(ents) - 1; j >= 0; j-- {
		e := ents[j]
		f := &x.feats[e.f]
		v := b[e.off : e.off+e.ln]
		k, err := tfexample.KindOf(v)
		if err != nil {
			return x.recordErr(r, f.Key, "unsupported datatype: the feature's first field is not a bytes, float or int64 list")
		}
		if f.kind == exDense && k == tfexample.None || done[e.f] {
			continue
		}
		done[e.f] = true
		if k == tfexample.None {
			continue // a sparse or ragged feature's empty Feature: no values
		}
		if k != f.list {
			return x.recordErr(r, f.Key, "the record holds a %s, but the feature is of %s (a %s)", k, f.DType, f.list)
		}
		l, err := tfexample.ListOf(v)
		if err != nil {
			return x.recordErr(r, f.Key, "its %s does not parse", k)
		}
		if f.kind == exDense {
			switch {
			case !f.VarLen && int64(l.N) != f.Stride:
				return x.recordErr(r, f.Key, "%d values, but the feature's dense shape %v holds %d", l.N, f.Shape, f.Stride)
			case f.VarLen && int64(l.N)%f.Stride != 0:
				return x.recordErr(r, f.Key, "%d values are not whole rows of %d (dense shape %v)", l.N, f.Stride, f.Shape)
			}
		}
		body, packed := l.Raw()
		loc[e.f] = exLoc{off: offsetIn(b, body), ln: int32(len(body)), n: int32(l.N), bytes: int32(l.Bytes), kind: k, packed: packed}
		sm := &sums[e.f]
		sm.n += int64(l.N)
		sm.present++
		sm.bytes += int64(l.Bytes)
		if x.long[e.f] {
			for v := range l.Strings() {
				if len(v) >= 8 {
					sm.long += int64(len(v))
				}
				sm.maxLen = max(sm.maxLen, int32(len(v)))
			}
		}
	}
	for i := x.first[exDense]; i < x.first[exRagged]; i++ {
		if f := &x.feats[i]; !f.VarLen && f.Default == nil && loc[i].ln < 0 {
			return x.recordErr(r, f.Key, "missing, and the feature is required (a dense feature of %s without a default)", f.DType)
		}
	}
	return nil
}

// quoteRecord quotes a record for a message, cut at 64 bytes.
func quoteRecord(s string) string {
	const most = 64
	if len(s) > most {
		return fmt.Sprintf("%q... (%d bytes)", s[:most], len(s))
	}
	return fmt.Sprintf("%q", s)
}

// list returns the list of feature f of record r (Kind None when absent).
func (xb *exBatch) list(r, f int) tfexample.List {
	l := xb.loc[r*xb.F+f]
	if l.ln < 0 {
		return tfexample.List{}
	}
	rec := xb.recs[r]
	body := unsafe.Slice(unsafe.StringData(rec), len(rec))[l.off : l.off+l.ln]
	return tfexample.RawList(l.kind, int(l.n), int(l.bytes), body, l.packed)
}

// strAt returns the bytes s of record r as a string, without a copy
// (records are strings).
func (xb *exBatch) strAt(r int, s []byte) string {
	if len(s) == 0 {
		return ""
	}
	return unsafe.String(&s[0], len(s))
}

// indexExamples indexes the records of every parse op of the plan.
// The records are Measure's feeds (k.in) or looked up by name
// (MeasureFeeds) and checked here: no column reads them as a feed.
func (k *Packer) indexExamples() error {
	p := k.p
	if len(p.examples) == 0 {
		return nil
	}
	if len(k.ex) != len(p.examples) {
		k.ex = make([]exBatch, len(p.examples))
	}
	workers := min(p.maxWorkers(), runtime.GOMAXPROCS(0))
	for i, x := range p.examples {
		var t *interp.Tensor
		if k.in != nil {
			t = k.in[x.input]
		} else {
			t = p.inputs[x.input].lookup(k.feeds)
		}
		if err := checkFeed(&p.inputs[x.input], t); err != nil {
			return err
		}
		if err := k.index(i, t, workers); err != nil {
			return err
		}
	}
	return nil
}

// exDesc names a parse op for the Summary.
func (x *exPlan) desc() string {
	var kinds []string
	for kind, name := range []string{"sparse", "dense", "ragged"} {
		end := len(x.feats)
		if kind < 2 {
			end = x.first[kind+1]
		}
		if n := end - x.first[kind]; n > 0 {
			kinds = append(kinds, fmt.Sprintf("%d %s", n, name))
		}
	}
	return fmt.Sprintf("%s %q (%s features)", strings.TrimPrefix(x.op.Name(), "tfg."), tfg.NodeName(x.op), strings.Join(kinds, ", "))
}

// groupExamples lists, per parse, the exColumns that read its records,
// and marks the features kept in string slots.
func (p *Plan) groupExamples() {
	p.exCols = make([][]int, len(p.examples))
	for i := range p.cols {
		if ec := p.cols[i].example; ec != nil {
			p.exCols[ec.x] = append(p.exCols[ec.x], i)
			if p.cols[i].c.StrSlots() {
				p.examples[ec.x].long[ec.f] = true
			}
		}
	}
}
