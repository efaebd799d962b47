package emb

import (
	"math"

	"github.com/recom-compiler/recom/textir"
)

// The interval analysis over id transforms (RECom's value-range analysis,
// with TensorFlow's ranges: Bucketize with n boundaries gives n+1 buckets).
// It lets the id pruning of safe_embedding_lookup_sparse (an emb.filter)
// and redundant range checks go when they can remove nothing.

// maxRangeDepth bounds the chain of producers the analysis follows.
const maxRangeDepth = 64

// ValueRange returns bounds lo <= x <= hi on every element x of v, an
// integer tensor, derived from the ops that produce it:
//
//	emb.hash          [0, num_buckets-1]
//	emb.bucketize     [0, n] for n boundaries
//	emb.vocab_lookup  [0, n+K-1] with K > 0 out-of-vocabulary buckets; else [min(0, D), max(n-1, D)]
//	emb.check_range   [min(0, D), max(N-1, D)], or [0, N-1] without a default
//	emb.cast          the operand's range when the result type holds it
//	emb.add_offset    the operand's range widened by stride * (largest bag - 1)
//	emb.filter        the operand's range narrowed to [min, max]
//	emb.cross         [0, num_buckets-1] when hashed (num_buckets 0: [0, 2^63-2])
//	constants         the smallest and largest element
//
// and otherwise the range of the element type when it is narrower than 64
// bits. ok is false when nothing is known (v is not an integer tensor, or
// an i64 value of unknown origin).
func ValueRange(v *textir.Value) (lo, hi int64, ok bool) { return valueRange(v, 0) }

func valueRange(v *textir.Value, depth int) (int64, int64, bool) {
	t := textir.ElementType(v.Type())
	if !isSignlessInt(t) {
		return 0, 0, false
	}
	tlo, thi := intTypeRange(t)
	typeRange := func() (int64, int64, bool) {
		if textir.BitWidth(t) >= 64 {
			return 0, 0, false
		}
		return tlo, thi, true
	}
	clamp := func(lo, hi int64) (int64, int64, bool) {
		if lo < tlo || hi > thi || lo > hi {
			return typeRange()
		}
		return lo, hi, true
	}
	def := v.DefiningOp()
	if def == nil || depth > maxRangeDepth {
		return typeRange()
	}
	switch def.Name() {
	case HashOp:
		if n, ok := intAttr(def, AttrNumBuckets); ok && n >= 1 {
			return clamp(0, n-1)
		}
	case BucketizeOp:
		if bs, ok := Boundaries(def); ok {
			return clamp(0, int64(len(bs)))
		}
	case VocabLookupOp:
		if keys := VocabKeys(def); keys != nil {
			n := keys.NumElements()
			oov, d := vocabAttrs(def)
			switch {
			case oov > 0:
				return clamp(0, n+oov-1)
			case n == 0:
				return clamp(d, d)
			}
			return clamp(min(0, d), max(n-1, d))
		}
	case CheckRangeOp:
		if n, ok := intAttr(def, AttrNumBuckets); ok && n >= 1 {
			if d, ok := intAttr(def, AttrDefault); ok {
				return clamp(min(0, d), max(n-1, d))
			}
			return clamp(0, n-1)
		}
	case CastOp:
		if lo, hi, ok := valueRange(def.Operand(0), depth+1); ok {
			return clamp(lo, hi)
		}
	case AddOffsetOp:
		s, ok1 := intAttr(def, AttrStride)
		lo, hi, ok2 := valueRange(def.Operand(0), depth+1)
		_, k, ok3 := BagSize(def.Operand(1))
		if !ok1 || !ok2 {
			break
		}
		if s == 0 || (ok3 && k <= 1) {
			return clamp(lo, hi)
		}
		if !ok3 {
			break
		}
		off, ok := mulOK(s, k-1)
		if !ok {
			break
		}
		lo, ok1 = addOK(lo, min(0, off))
		hi, ok2 = addOK(hi, max(0, off))
		if ok1 && ok2 {
			return clamp(lo, hi)
		}
	case CrossOp:
		if v.Index() == 0 {
			if lo, hi, ok := crossRange(def); ok {
				return clamp(lo, hi)
			}
		}
	case FilterOp:
		if v.Index() != 0 {
			break
		}
		lo, hi, ok := valueRange(def.Operand(0), depth+1)
		if !ok {
			lo, hi = math.MinInt64, math.MaxInt64
		}
		flo, hasLo := intAttr(def, AttrMin)
		fhi, hasHi := intAttr(def, AttrMax)
		if hasLo {
			lo = max(lo, flo)
		}
		if hasHi {
			hi = min(hi, fhi)
		}
		if ok || hasLo || hasHi {
			if lo > hi { // nothing passes: any range holds
				return clamp(flo, flo)
			}
			return clamp(lo, hi)
		}
	default:
		if def.HasTrait(textir.ConstantLike) {
			if lo, hi, ok := constantRange(def.LookupAttr("value")); ok {
				return clamp(lo, hi)
			}
		}
	}
	return typeRange()
}

// constantRange returns the smallest and largest element of an integer
// constant.
func constantRange(a textir.Attribute) (int64, int64, bool) {
	switch a := a.(type) {
	case textir.IntegerAttr:
		return a.Value, a.Value, true
	case *textir.DenseElementsAttr:
		if a.IsString() || textir.IsFloat(a.Type.Elem) {
			return 0, 0, false
		}
		n := a.NumElements()
		if n <= 0 {
			return 0, 0, false
		}
		lo, hi := a.IntAt(0), a.IntAt(0)
		if !a.Splat {
			for i := int64(1); i < n; i++ {
				x := a.IntAt(i)
				lo, hi = min(lo, x), max(hi, x)
			}
		}
		return lo, hi, true
	}
	return 0, 0, false
}

func addOK(a, b int64) (int64, bool) {
	s := a + b
	if (b > 0 && s < a) || (b < 0 && s > a) {
		return 0, false
	}
	return s, true
}

func mulOK(a, b int64) (int64, bool) {
	if a == 0 || b == 0 {
		return 0, true
	}
	p := a * b
	if p/b != a || (a == -1 && b == math.MinInt64) || (b == -1 && a == math.MinInt64) {
		return 0, false
	}
	return p, true
}

// BagSize returns bounds lo <= n <= hi on the number of ids n in every bag
// of the row splits value splits: a dense [B, k] source gives k (0 to k
// with 'ignore'), a filter at most what its input had, an emb.cross the
// products of its inputs' bounds. ok is false when no
// upper bound is known.
func BagSize(splits *textir.Value) (lo, hi int64, ok bool) {
	for depth := 0; depth <= maxRangeDepth; depth++ {
		def := splits.DefiningOp()
		if def == nil || splits.Index() != 1 {
			return 0, 0, false
		}
		switch def.Name() {
		case FromDenseOp:
			tt, isT := def.Operand(0).Type().(*textir.TensorType)
			if !isT {
				return 0, 0, false
			}
			k := int64(1)
			if len(tt.Shape) == 2 {
				k = tt.Shape[1]
			}
			if k < 0 {
				return 0, 0, false
			}
			lo = k
			if def.LookupAttr(AttrIgnore) != nil {
				lo = 0
			}
			if depth > 0 { // behind a filter
				lo = 0
			}
			return lo, k, true
		case CrossOp:
			lo, hi, ok := crossBagSize(def)
			if depth > 0 { // behind a filter
				lo = 0
			}
			return lo, hi, ok
		case FilterOp:
			splits = def.Operand(1)
		default:
			return 0, 0, false
		}
	}
	return 0, 0, false
}
