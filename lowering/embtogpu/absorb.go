package embtogpu

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/recom-compiler/recom/dialects/emb"
	"github.com/recom-compiler/recom/dialects/fused/abi"
	"github.com/recom-compiler/recom/dialects/tfg"
	"github.com/recom-compiler/recom/dialects/tfg/optab"
	"github.com/recom-compiler/recom/textir"
)

// idChain is the id computation of one column that moves into the kernel:
// the elementwise transforms (emb.hash, emb.as_string, emb.bucketize,
// emb.vocab_lookup, emb.check_range with a default, emb.cast,
// emb.add_offset) between the raw feature values and the lookup's ids, and
// the filters on the ids (a range filter: abi.TransformDrop).
type idChain struct {
	values     *textir.Value // the fused op's operand: raw values (or the hoisted filter's)
	cross      *crossChain   // source "cross": the operands and inputs of a crossed column
	source     string
	transforms []abi.Transform
	idBytes    float64
	sep        string // source "split"
	// With filters on the ids: the bags of the raw values (the innermost
	// filter's row splits and weights, or the rebuilt filter's), which
	// replace the lookup's as the fused op's operands; nil without.
	splits, weights *textir.Value
	// rebuild is a filter to rebuild on the raw values with only the
	// attribute positive_weights (weighted columns drop the ids whose
	// weight is not positive), or nil.
	rebuild *textir.Operation
}

// absorbIDs finds the transforms of lookup lk the kernel can compute
// (opts: ids-in-kernel, host-ids). It takes them only when the ids they
// produce provably lie in the table (emb.ValueRange): the kernel reads rows
// without a check, and an id out of range must stay TensorFlow's error,
// raised on the host. It changes nothing. why says what of the ids'
// computation stays before the layer ("" when nothing does, or the ids
// need none): the remark --fuse gives.
//
// Filters on the ids do not depend on the transforms' results jointly: a
// filter's ranges (emb.filter min and max: the pruning of a vocabulary's
// default_value = -1) become the kernel's last transform (drop), and a
// weights-only filter (positive_weights) is rebuilt on the raw values by
// hoistFilter, so that the transforms still move into the kernel.
func absorbIDs(lk *textir.Operation, opts Options) (c *idChain, why string) {
	l, ok := emb.AsTableLookup(lk)
	if !ok {
		return nil, ""
	}
	ids := l.IDs()
	work := hostWork(ids)
	if work == "" {
		return nil, ""
	}
	if !opts.InKernelIDs {
		return nil, work + " (ids-in-kernel=false)"
	}
	bagSplits, bagWeights := bags(lk)
	rows := l.Table().Type().(*textir.TensorType).Shape[0]
	if lo, hi, ok := emb.ValueRange(ids); !ok || lo < 0 || hi >= rows {
		r := "no bound is known"
		if ok {
			r = fmt.Sprintf("they may be anything in [%d, %d]", lo, hi)
		}
		return nil, fmt.Sprintf("%s: its ids are not proven inside the table's %d rows (%s); the kernel reads rows unchecked, so TensorFlow's error for an id out of range stays on the host", work, rows, r)
	}
	// The filters on the ids, outermost first.
	v := ids
	var filters []emb.FilterView
	drop := abi.Transform{Op: abi.TransformDrop, Min: math.MinInt64, Max: math.MaxInt64}
	ranged, positive := false, false
	outerSplits, outerWeights := bagSplits, bagWeights
	for {
		f, ok := emb.AsFilter(v.DefiningOp())
		if !ok || v != f.FilteredValues() {
			break
		}
		// The filter must give the bags it filters on: the lookup's (or
		// the outer filter's) row splits and weights.
		switch {
		case slices.Contains(opts.HostIDs, "filter"):
			return nil, fmt.Sprintf("%s: %s stays before the layer (host-ids=filter)", work, describe(f.Op()))
		case len(filters) == 4 || outerSplits == nil || outerSplits != f.FilteredRowSplits() || outerWeights != f.FilteredWeights():
			return nil, fmt.Sprintf("%s: %s stays before the layer: the bags it makes are not the lookup's", work, describe(f.Op()))
		}
		outerSplits, outerWeights = f.RowSplits(), f.Weights()
		if lo, ok := f.Op().LookupAttr(emb.AttrMin).(textir.IntegerAttr); ok {
			drop.Min, ranged = max(drop.Min, lo.Value), true
		}
		if hi, ok := f.Op().LookupAttr(emb.AttrMax).(textir.IntegerAttr); ok {
			drop.Max, ranged = min(drop.Max, hi.Value), true
		}
		positive = positive || (f.Op().LookupAttr(emb.AttrPositiveWeights) != nil && f.Weights() != nil)
		filters = append(filters, f)
		v = f.Values()
	}
	if ranged && (drop.Min > drop.Max || lk.Name() == emb.GatherOp) {
		return nil, fmt.Sprintf("%s: its ids are filtered to [%d, %d], which keeps none", work, drop.Min, drop.Max)
	}
	splits := bagSplits
	if len(filters) > 0 {
		splits = nil
		if !positive {
			splits = filters[len(filters)-1].RowSplits()
		}
	}
	var ts []abi.Transform
	for {
		def := v.DefiningOp()
		in, out, isTransform := transformValues(def)
		if !isTransform || v != out {
			break
		}
		t, ok := transformOf(def, ts, splits)
		if name := strings.TrimPrefix(def.Name(), "emb."); slices.Contains(opts.HostIDs, name) {
			why = fmt.Sprintf("%s stays before the layer (host-ids=%s)", describe(def), name)
			break
		} else if !ok {
			why = fmt.Sprintf("%s stays before the layer: %s", describe(def), whyNotTransform(def, ts, splits))
			break
		}
		ts = append([]abi.Transform{t}, ts...)
		v = in
	}
	if len(ts) == 0 && !ranged {
		if x, ok := emb.AsCross(v.DefiningOp()); ok && len(filters) == 0 && why == "" && v == x.Values() {
			// A crossed column: the kernel computes the cross of its
			// inputs (source "cross").
			c, why := absorbCross(lk, v, bagSplits, bagWeights, opts.HostIDs)
			if c == nil {
				why = fmt.Sprintf("%s stays before the layer: %s", describe(x.Op()), why)
			}
			return c, why
		}
		if why == "" {
			why = work + ": the kernel computes only the emb id transforms (hash, as_string, bucketize, vocab_lookup, check_range, cast, add_offset, cross) and filters"
		}
		return nil, why
	}
	if ranged {
		ts = append(ts, drop)
	}
	c = &idChain{transforms: ts, values: v}
	if len(filters) > 0 {
		inner := filters[len(filters)-1]
		c.splits, c.weights = inner.RowSplits(), inner.Weights()
		if positive {
			c.rebuild = filters[0].Op()
		}
	}
	// Hashed tokens of StringSplitV2 with a one-byte separator: the
	// kernel splits each row's string itself (source "split").
	if ss, ok := emb.AsSplitStrings(v.DefiningOp()); ok && v == ss.Values() &&
		len(filters) == 0 && lk.Name() == emb.LookupOp && bagWeights == nil && bagSplits == ss.RowSplits() &&
		len(ts) == 1 && ts[0].Op == abi.TransformHash && !slices.Contains(opts.HostIDs, "split_strings") {
		if sep, ok := ss.Op().LookupAttr(emb.AttrSep).(textir.StringAttr); ok && len(sep.Value) == 1 {
			c.values, c.source, c.sep, c.idBytes = ss.Input(), abi.SourceSplit, sep.Value, 16
			return c, why
		}
	}
	el := textir.ElementType(v.Type())
	switch {
	case el == textir.F32():
		c.source, c.idBytes = abi.SourceF32, 4
	case el == textir.F64():
		c.source, c.idBytes = abi.SourceF64, 8
	case isInt(el):
		c.source, c.idBytes = abi.SourceI64, 8
	case tfg.IsString(el):
		c.source, c.idBytes = abi.SourceStr, 16
	default:
		return nil, fmt.Sprintf("%s: the kernel does not read values of %s", work, textir.TypeString(el))
	}
	kind := abi.KindLookup
	if lk.Name() == emb.GatherOp {
		kind = abi.KindGather
	}
	col := abi.Column{Source: c.source, Transforms: ts, Kind: kind}
	if err := col.CheckChain(); err != nil {
		return nil, fmt.Sprintf("%s: %v", work, err)
	}
	return c, why
}

// hostWork says what computes lookup ids v before the layer: "" when
// nothing does (the ids are a feed's values, through emb.from_dense or
// emb.from_sparse and casts, reshapes and identities), else the first emb
// id transform on the way from the ids to their source, or, when only
// filters are on that way, the tfg op that computes the source's values
// (a crossed column's SparseCross, say), else the first filter.
func hostWork(v *textir.Value) string {
	var first *textir.Operation
	for range 64 {
		def := v.DefiningOp()
		if def == nil {
			break
		}
		var src *textir.Value
		switch {
		case def.Name() == emb.FilterOp:
			if first == nil {
				first = def
			}
			f, _ := emb.AsFilter(def)
			v = f.Values()
			continue
		case def.Name() == emb.AddOffsetOp || isIDTransform(def):
			return fmt.Sprintf("its ids are computed by %s", describe(def))
		case def.Name() == emb.FromDenseOp:
			d, _ := emb.AsFromDense(def)
			src = d.Input()
		case def.Name() == emb.FromSparseOp:
			s, _ := emb.AsFromSparse(def)
			src = s.SparseValues()
		default:
			return fmt.Sprintf("its ids are computed by %s", describe(def))
		}
		if op := computedBy(src); op != nil {
			return fmt.Sprintf("its ids are computed by %s", describe(op))
		}
		break
	}
	if first != nil {
		return fmt.Sprintf("its ids are filtered by %s", describe(first))
	}
	return ""
}

// feedOps are the tfg ops whose results are a model's inputs as they are:
// placeholders, and the parsers of serialized tf.Example records, whose
// features the runtime reads into the layer's inputs.
var feedOps = map[string]bool{"tfg.Placeholder": true, "tfg.PlaceholderWithDefault": true,
	"tfg.ParseExample": true, "tfg.ParseExampleV2": true, "tfg.ParseSingleExample": true}

// passThrough are the tfg ops that pass a feed on unchanged in value.
var passThrough = map[string]string{"tfg.Identity": "input", "tfg.Cast": "x", "tfg.Reshape": "tensor",
	"tfg.ExpandDims": "input", "tfg.Squeeze": "input"}

// computedBy returns the op that computes v from the model's inputs, or
// nil when v is an input (a block argument, a feed op's result) seen
// through identities, casts and reshapes.
func computedBy(v *textir.Value) *textir.Operation {
	for range 16 {
		def := v.DefiningOp()
		if def == nil || feedOps[def.Name()] {
			return nil
		}
		in, ok := passThrough[def.Name()]
		if !ok {
			return def
		}
		if v = optab.Operand(def, in); v == nil {
			return def
		}
	}
	return v.DefiningOp()
}

func isIDTransform(op *textir.Operation) bool {
	_, ok := emb.AsIDTransform(op)
	return ok
}

// whyNotTransform says why transformOf refuses def.
func whyNotTransform(def *textir.Operation, after []abi.Transform, splits *textir.Value) string {
	switch def.Name() {
	case emb.AsStringOp:
		return "the kernel reads an integer as its decimal string only to hash it"
	case emb.VocabLookupOp:
		keys := emb.VocabKeys(def)
		if keys == nil {
			return "its keys are not a constant"
		}
		if _, err := abi.BuildVocab(keys); err != nil {
			return err.Error()
		}
	case emb.AddOffsetOp:
		if splits == nil {
			return "its positions in the bags are not the kernel's (a filter drops ids after it)"
		}
		return "its row splits are not the lookup's"
	case emb.CastOp:
		return "the kernel casts to 8, 16, 32 or 64 bits"
	}
	return "its attributes are not ones the kernel computes"
}

// hoistFilter rebuilds c's weights-only filter on the raw values, before
// the old one, keeping only its attribute positive_weights: the new
// filter's values, row splits and weights become the chain's.
func (c *idChain) hoistFilter(rw textir.PatternRewriter) {
	f, ok := emb.AsFilter(c.rebuild)
	if !ok {
		return
	}
	b := rw.Builder()
	saveBlock, savePos := b.Block, b.Pos
	b.SetInsertionPoint(f.Op())
	var attrs []textir.NamedAttribute
	for _, a := range f.Op().Attrs() {
		if a.Name != emb.AttrMin && a.Name != emb.AttrMax {
			attrs = append(attrs, a)
		}
	}
	nf, _ := emb.AsFilter(rw.Create(&textir.OperationState{Name: emb.FilterOp, Loc: f.Op().Loc(),
		Operands:    []*textir.Value{c.values, c.splits, c.weights},
		ResultTypes: []textir.Type{c.values.Type(), c.splits.Type(), c.weights.Type()},
		Attrs:       attrs}))
	b.Block, b.Pos = saveBlock, savePos
	c.values, c.splits, c.weights = nf.FilteredValues(), nf.FilteredRowSplits(), nf.FilteredWeights()
}

// transformOf describes def as a kernel transform applied before the
// transforms after (already found), or reports false. splits are the
// lookup's row splits (nil when positions in a bag are not the lookup's).
func transformOf(def *textir.Operation, after []abi.Transform, splits *textir.Value) (abi.Transform, bool) {
	intAttr := func(name string) (int64, bool) {
		a, ok := def.LookupAttr(name).(textir.IntegerAttr)
		return a.Value, ok
	}
	switch def.Name() {
	case emb.HashOp:
		n, ok := intAttr(emb.AttrNumBuckets)
		return abi.Transform{Op: abi.TransformHash, NumBuckets: n}, ok && n > 0
	case emb.AsStringOp:
		// Only hashing reads the decimal string without materialising it.
		return abi.Transform{Op: abi.TransformAsString}, len(after) > 0 && after[0].Op == abi.TransformHash
	case emb.BucketizeOp:
		bs, ok := emb.Boundaries(def)
		return abi.Transform{Op: abi.TransformBucketize, Boundaries: bs}, ok
	case emb.VocabLookupOp:
		keys := emb.VocabKeys(def)
		if keys == nil {
			return abi.Transform{}, false
		}
		oov, _ := intAttr(emb.AttrNumOOVBuckets)
		d, ok := intAttr(emb.AttrDefault)
		if !ok {
			d = -1
		}
		if _, err := abi.BuildVocab(keys); err != nil {
			return abi.Transform{}, false
		}
		return abi.Transform{Op: abi.TransformVocab, Keys: keys, NumBuckets: oov, Default: d}, true
	case emb.CheckRangeOp:
		n, ok1 := intAttr(emb.AttrNumBuckets)
		d, ok2 := intAttr(emb.AttrDefault)
		return abi.Transform{Op: abi.TransformCheckRange, NumBuckets: n, Default: d}, ok1 && ok2
	case emb.CastOp:
		c, _ := emb.AsCast(def)
		bits := int64(textir.BitWidth(textir.ElementType(c.Result().Type())))
		ok := bits == 8 || bits == 16 || bits == 32 || bits == 64
		return abi.Transform{Op: abi.TransformCast, Bits: bits}, ok
	case emb.AddOffsetOp:
		a, _ := emb.AsAddOffset(def)
		s, ok := intAttr(emb.AttrStride)
		return abi.Transform{Op: abi.TransformAddOffset, Stride: s}, ok && splits != nil && a.RowSplits() == splits
	}
	return abi.Transform{}, false
}

// transformValues returns the values an elementwise id transform reads and
// those it makes: an emb.IDTransform's, or emb.add_offset's. ok is false
// for another op.
func transformValues(op *textir.Operation) (in, out *textir.Value, ok bool) {
	if t, ok := emb.AsIDTransform(op); ok {
		return t.Input(), t.Result(), true
	}
	if a, ok := emb.AsAddOffset(op); ok {
		return a.Values(), a.Result(), true
	}
	return nil, nil, false
}

func isInt(t textir.Type) bool {
	it, ok := t.(*textir.IntType)
	return ok && it.Width > 1 && it.Width <= 64
}
