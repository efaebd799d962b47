package emb

import (
	"github.com/recom-compiler/recom/textir"
)

// Canonicalization patterns. Each rewrites only where the result is exactly
// equal, bit for bit.

// FilterInRange returns the pattern that removes an emb.filter whose ids
// all lie in [min, max] by ValueRange (RECom's removal of the ids >= 0
// pruning after hashing or bucketizing). A filter that also drops
// non-positive weights stays.
func FilterInRange() textir.RewritePattern { return filterInRange() }

func filterInRange() textir.RewritePattern {
	return &textir.Pattern{RootName: FilterOp, PatternName: "emb.filter-in-range", Weight: 1,
		Fn: func(op *textir.Operation, rw textir.PatternRewriter) bool {
			if op.LookupAttr(AttrPositiveWeights) != nil || op.NumResults() != op.NumOperands() {
				return false
			}
			for i := range op.NumOperands() {
				if op.Operand(i).Type() != op.Result(i).Type() {
					return false
				}
			}
			if !inBounds(op.Operand(0), op, AttrMin, AttrMax) {
				return rw.NotifyMatchFailure(op, "the ids' range is not inside the filter's bounds")
			}
			rw.ReplaceOp(op, op.Operands())
			return true
		}}
}

// inBounds reports whether ValueRange(v) lies within the bounds given by
// op's attributes minName and maxName (a missing one is no bound).
func inBounds(v *textir.Value, op *textir.Operation, minName, maxName string) bool {
	lo, hi, ok := ValueRange(v)
	if !ok {
		return false
	}
	if m, has := intAttr(op, minName); has && lo < m {
		return false
	}
	if m, has := intAttr(op, maxName); has && hi > m {
		return false
	}
	return true
}

// checkRangeInRange removes an emb.check_range whose ids all lie in
// [0, num_buckets).
func checkRangeInRange() textir.RewritePattern {
	return &textir.Pattern{RootName: CheckRangeOp, PatternName: "emb.check_range-in-range", Weight: 1,
		Fn: func(op *textir.Operation, rw textir.PatternRewriter) bool {
			n, ok := intAttr(op, AttrNumBuckets)
			if !ok || op.Operand(0).Type() != op.Result(0).Type() {
				return false
			}
			lo, hi, ok := ValueRange(op.Operand(0))
			if !ok || lo < 0 || hi >= n {
				return rw.NotifyMatchFailure(op, "the ids' range is not inside [0, num_buckets)")
			}
			rw.ReplaceOp(op, []*textir.Value{op.Operand(0)})
			return true
		}}
}

// castOfWideningCast rewrites cast(cast(x : A -> B) -> C), with B at least
// as wide as A, to cast(x : A -> C), or to x when C is A: sign extension
// loses nothing.
func castOfWideningCast() textir.RewritePattern {
	return &textir.Pattern{RootName: CastOp, PatternName: "emb.cast-of-widening-cast", Weight: 1,
		Fn: func(op *textir.Operation, rw textir.PatternRewriter) bool {
			inner := op.Operand(0).DefiningOp()
			if inner == nil || inner.Name() != CastOp {
				return false
			}
			x := inner.Operand(0)
			if textir.BitWidth(elemOf(inner.Result(0))) < textir.BitWidth(elemOf(x)) {
				return rw.NotifyMatchFailure(op, "the inner cast narrows")
			}
			if x.Type() == op.Result(0).Type() {
				rw.ReplaceOp(op, []*textir.Value{x})
				return true
			}
			rw.ModifyOpInPlace(op, func() { op.SetOperand(0, x) })
			return true
		}}
}

// exactlyOnePerBag reports whether every bag of splits holds one id.
func exactlyOnePerBag(splits *textir.Value) bool {
	lo, hi, ok := BagSize(splits)
	return ok && lo == 1 && hi == 1
}

// atMostOnePerBag reports whether no bag of splits holds two ids.
func atMostOnePerBag(splits *textir.Value) bool {
	_, hi, ok := BagSize(splits)
	return ok && hi <= 1
}

func replaceWithGather(op *textir.Operation, rw textir.PatternRewriter) {
	b := rw.Builder()
	b.SetInsertionPoint(op)
	g := rw.Create(&textir.OperationState{Name: GatherOp, Loc: op.Loc(),
		Operands:    []*textir.Value{op.Operand(0), op.Operand(1)},
		ResultTypes: []textir.Type{op.Result(0).Type()}})
	rw.ReplaceOp(op, g.Results())
}

// lookupToGather rewrites an unweighted emb.lookup whose bags hold exactly
// one id each (a dense [B, 1] source without 'ignore') to emb.gather: sum,
// mean and sqrtn of one row are that row.
func lookupToGather() textir.RewritePattern {
	return &textir.Pattern{RootName: LookupOp, PatternName: "emb.lookup-to-gather", Weight: 2,
		Fn: func(op *textir.Operation, rw textir.PatternRewriter) bool {
			if op.NumOperands() != 3 || !exactlyOnePerBag(op.Operand(2)) {
				return rw.NotifyMatchFailure(op, "weighted, or bags not of exactly one id")
			}
			replaceWithGather(op, rw)
			return true
		}}
}

// lookupToGatherScatter rewrites an emb.lookup whose bags hold at most one
// id each to emb.gather_scatter (same operands, same combiner).
func lookupToGatherScatter() textir.RewritePattern {
	return &textir.Pattern{RootName: LookupOp, PatternName: "emb.lookup-to-gather-scatter", Weight: 1,
		Fn: func(op *textir.Operation, rw textir.PatternRewriter) bool {
			if !atMostOnePerBag(op.Operand(2)) {
				return rw.NotifyMatchFailure(op, "bags may hold more than one id")
			}
			b := rw.Builder()
			b.SetInsertionPoint(op)
			g := rw.Create(&textir.OperationState{Name: GatherScatterOp, Loc: op.Loc(),
				Operands: op.Operands(), ResultTypes: []textir.Type{op.Result(0).Type()},
				Attrs: textir.AllAttrs(op)})
			rw.ReplaceOp(op, g.Results())
			return true
		}}
}

// gatherScatterToGather rewrites an unweighted emb.gather_scatter whose
// bags hold exactly one id each to emb.gather.
func gatherScatterToGather() textir.RewritePattern {
	return &textir.Pattern{RootName: GatherScatterOp, PatternName: "emb.gather-scatter-to-gather", Weight: 1,
		Fn: func(op *textir.Operation, rw textir.PatternRewriter) bool {
			if op.NumOperands() != 3 || !exactlyOnePerBag(op.Operand(2)) {
				return rw.NotifyMatchFailure(op, "weighted, or bags not of exactly one id")
			}
			replaceWithGather(op, rw)
			return true
		}}
}
