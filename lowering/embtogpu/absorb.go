package embtogpu

import (
	"slices"
	"strings"

	"github.com/recom-compiler/recom/dialects/emb"
	"github.com/recom-compiler/recom/dialects/fused/abi"
	"github.com/recom-compiler/recom/dialects/tfg"
	"github.com/recom-compiler/recom/textir"
)

// idChain is the id computation of one column that moves into the kernel:
// the elementwise transforms (emb.hash, emb.as_string, emb.bucketize,
// emb.vocab_lookup, emb.check_range with a default, emb.cast,
// emb.add_offset) between the raw feature values and the lookup's ids.
type idChain struct {
	values     *textir.Value // the fused op's operand: raw values (or the hoisted filter's)
	source     string
	transforms []abi.Transform
	idBytes    float64
	sep        string            // source "split"
	filter     *textir.Operation // a weights-only emb.filter to rebuild on the raw values, or nil
}

// absorbIDs finds the transforms of lookup lk the kernel can compute. It
// takes them only when the ids they produce provably lie in the table
// (emb.ValueRange): the kernel reads rows without a check, and an id out
// of range must stay TensorFlow's error, raised on the host. It changes
// nothing.
//
// A weights-only emb.filter (weighted columns drop the ids whose weight is
// not positive) between the transforms and the lookup does not depend on
// the values: hoistFilter rebuilds it on the raw values, so that the
// transforms still move into the kernel.
func absorbIDs(lk *textir.Operation, host []string) *idChain {
	l, ok := emb.AsTableLookup(lk)
	if !ok {
		return nil
	}
	bagSplits, bagWeights := bags(lk)
	rows := l.Table().Type().(*textir.TensorType).Shape[0]
	ids := l.IDs()
	if lo, hi, ok := emb.ValueRange(ids); !ok || lo < 0 || hi >= rows {
		return nil
	}
	v := ids
	var filter *textir.Operation
	if f, ok := emb.AsFilter(v.DefiningOp()); ok && v == f.FilteredValues() &&
		f.Op().LookupAttr(emb.AttrMin) == nil && f.Op().LookupAttr(emb.AttrMax) == nil && f.Weights() != nil {
		filter = f.Op()
		v = f.Values()
	}
	var splits *textir.Value
	if filter == nil {
		splits = bagSplits
	}
	var ts []abi.Transform
	for {
		def := v.DefiningOp()
		in, out, isTransform := transformValues(def)
		if !isTransform || v != out {
			break
		}
		t, ok := transformOf(def, ts, splits)
		if !ok || slices.Contains(host, strings.TrimPrefix(def.Name(), "emb.")) {
			break
		}
		ts = append([]abi.Transform{t}, ts...)
		v = in
	}
	if len(ts) == 0 {
		return nil
	}
	c := &idChain{transforms: ts, values: v}
	// Hashed tokens of StringSplitV2 with a one-byte separator: the
	// kernel splits each row's string itself (source "split").
	if ss, ok := emb.AsSplitStrings(v.DefiningOp()); ok && v == ss.Values() &&
		filter == nil && lk.Name() == emb.LookupOp && bagWeights == nil && bagSplits == ss.RowSplits() &&
		len(ts) == 1 && ts[0].Op == abi.TransformHash && !slices.Contains(host, "split_strings") {
		if sep, ok := ss.Op().LookupAttr(emb.AttrSep).(textir.StringAttr); ok && len(sep.Value) == 1 {
			c.values, c.source, c.sep, c.idBytes = ss.Input(), abi.SourceSplit, sep.Value, 16
			return c
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
		return nil
	}
	col := abi.Column{Source: c.source, Transforms: ts}
	if err := col.CheckChain(); err != nil {
		return nil
	}
	c.filter = filter
	return c
}

// hoistFilter rebuilds c's weights-only filter on the raw values, before
// the old one, whose splits and weights users move to the new one; the new
// filter's values become the chain's values.
func (c *idChain) hoistFilter(rw textir.PatternRewriter) {
	f, ok := emb.AsFilter(c.filter)
	if !ok {
		return
	}
	b := rw.Builder()
	saveBlock, savePos := b.Block, b.Pos
	b.SetInsertionPoint(f.Op())
	nf, _ := emb.AsFilter(rw.Create(&textir.OperationState{Name: emb.FilterOp, Loc: f.Op().Loc(),
		Operands:    []*textir.Value{c.values, f.RowSplits(), f.Weights()},
		ResultTypes: []textir.Type{c.values.Type(), f.FilteredRowSplits().Type(), f.FilteredWeights().Type()},
		Attrs:       f.Op().Attrs()}))
	b.Block, b.Pos = saveBlock, savePos
	rw.ReplaceAllUsesWith(f.FilteredRowSplits(), nf.FilteredRowSplits())
	rw.ReplaceAllUsesWith(f.FilteredWeights(), nf.FilteredWeights())
	c.values = nf.FilteredValues()
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
