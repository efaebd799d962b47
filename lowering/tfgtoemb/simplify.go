package tfgtoemb

import (
	"github.com/recom-compiler/recom/dialects/emb"
	"github.com/recom-compiler/recom/dialects/tfg"
	"github.com/recom-compiler/recom/dialects/tfg/optab"
	"github.com/recom-compiler/recom/lowering/rewrite"
	"github.com/recom-compiler/recom/textir"
)

// The pass's second phase, on what the patterns made: the emb
// simplifications of the lowered columns (their ops' canonicalization
// patterns, applied to those ops only), and the identities left in the
// tfg ops of every column.

// removeRanges removes the id pruning (emb.filter, emb.check_range) of the
// lowered columns that the value-range analysis proves can remove nothing,
// and returns how many ops it removed.
func removeRanges(ctx *textir.Context, rw *rewrite.Rewriter, cols []*Column) int64 {
	checkPat := findPattern(ctx, emb.CheckRangeOp, "emb.check_range-in-range")
	filterPat := emb.FilterInRange()
	n := int64(0)
	for _, c := range cols {
		for _, op := range c.ranged {
			if op.Block() == nil {
				continue
			}
			var pat textir.RewritePattern
			switch op.Name() {
			case emb.FilterOp:
				pat = filterPat
			case emb.CheckRangeOp:
				pat = checkPat
			}
			if pat != nil {
				rw.SetInsertionPoint(op)
				if pat.MatchAndRewrite(op, rw) {
					n++
				}
			}
		}
	}
	return n
}

// lookupResult returns the result of an emb.lookup, emb.gather_scatter or
// emb.gather op, or nil.
func lookupResult(op *textir.Operation) *textir.Value {
	if l, ok := emb.AsTableLookup(op); ok {
		return l.Result()
	}
	return nil
}

// rewriteLookups rewrites the lookup of each lowered column to
// emb.gather_scatter or emb.gather where its bags provably hold at most
// or exactly one id, and returns how many of each it made.
func rewriteLookups(ctx *textir.Context, rw *rewrite.Rewriter, cols []*Column) (gathers, gatherScatters int64) {
	lookupPats := patternsOf(ctx, emb.LookupOp)
	gsPats := patternsOf(ctx, emb.GatherScatterOp)
	for _, c := range cols {
		if c.lookup == nil {
			continue
		}
		cur := c.lookup
		for step := 0; step < 3 && cur != nil; step++ {
			pats := lookupPats
			if cur.Name() == emb.GatherScatterOp {
				pats = gsPats
			} else if cur.Name() != emb.LookupOp {
				break
			}
			res := lookupResult(cur)
			var next *textir.Operation
			applied := false
			for _, pat := range pats {
				// Find the replacement through the single use of the result.
				var users []*textir.OpOperand
				for u := range res.Uses() {
					users = append(users, u)
				}
				rw.SetInsertionPoint(cur)
				if pat.MatchAndRewrite(cur, rw) {
					applied = true
					if len(users) > 0 {
						next = users[0].Get().DefiningOp()
					}
					break
				}
			}
			if !applied {
				break
			}
			if next != nil {
				switch next.Name() {
				case emb.GatherOp:
					gathers++
				case emb.GatherScatterOp:
					gatherScatters++
				}
			}
			cur = next
		}
	}
	return gathers, gatherScatters
}

// removeIdentities removes the identities left in the tfg ops of the
// columns (but their outputs), and reports whether it removed any.
func removeIdentities(rw *rewrite.Rewriter, cols []*Column) bool {
	changed := false
	for _, c := range cols {
		for _, op := range c.Ops {
			if op.Block() == nil || op == def(c.Output) {
				continue
			}
			if x := identityOperand(op); x != nil {
				rw.ReplaceAllUsesWith(optab.SoleResult(op), x)
				rw.EraseOp(op)
				changed = true
			}
		}
	}
	return changed
}

// findPattern returns the canonicalization pattern name of op opName.
func findPattern(ctx *textir.Context, opName, name string) textir.RewritePattern {
	for _, p := range patternsOf(ctx, opName) {
		if p.Name() == name {
			return p
		}
	}
	return nil
}

// patternsOf returns the canonicalization patterns of an op, by benefit.
func patternsOf(ctx *textir.Context, opName string) []textir.RewritePattern {
	d := ctx.LookupOp(opName)
	if d == nil {
		return nil
	}
	ps := append([]textir.RewritePattern(nil), d.Canonicalize...)
	for i := 1; i < len(ps); i++ {
		for j := i; j > 0 && ps[j].Benefit() > ps[j-1].Benefit(); j-- {
			ps[j], ps[j-1] = ps[j-1], ps[j]
		}
	}
	return ps
}

// identityOperand returns x when op is an identity of x that can go:
// Identity(x), x + 0 and x - 0 on integers, x * 1, identity Transpose; its
// result has x's type, it has no control operands and its control result
// is unused.
func identityOperand(op *textir.Operation) *textir.Value {
	if op.Dialect() != tfg.Name || numArgs(op) != op.NumOperands() || op.NumResults() != 2 {
		return nil
	}
	if c := tfg.ControlResult(op); c == nil || c.HasUses() {
		return nil
	}
	res := optab.SoleResult(op)
	if res == nil {
		return nil
	}
	pick := func(x *textir.Value) *textir.Value {
		if x != nil && x.Type() == res.Type() {
			return x
		}
		return nil
	}
	isSplat := func(v *textir.Value, want float64) bool {
		a := constAttr(v)
		if a == nil || a.IsString() || a.NumElements() != 1 || len(a.Type.Shape) > 1 {
			return false
		}
		if textir.IsFloat(a.Type.Elem) {
			return a.FloatAt(0) == want
		}
		return float64(a.IntAt(0)) == want
	}
	intElem := isIntType(textir.ElementType(res.Type()))
	switch {
	case isOp(op, "Identity", "Snapshot") && numArgs(op) == 1:
		return pick(optab.Operand(op, "input"))
	case isOp(op, "Add", "AddV2") && intElem:
		if isSplat(optab.Operand(op, "y"), 0) {
			return pick(optab.Operand(op, "x"))
		}
		if isSplat(optab.Operand(op, "x"), 0) {
			return pick(optab.Operand(op, "y"))
		}
	case isOp(op, "Sub") && intElem && isSplat(optab.Operand(op, "y"), 0):
		return pick(optab.Operand(op, "x"))
	case isOp(op, "Mul"):
		if isSplat(optab.Operand(op, "y"), 1) {
			return pick(optab.Operand(op, "x"))
		}
		if isSplat(optab.Operand(op, "x"), 1) {
			return pick(optab.Operand(op, "y"))
		}
	case isOp(op, "Transpose"):
		perm, ok := constInts(optab.Operand(op, "perm"))
		if !ok {
			return nil
		}
		for i, p := range perm {
			if p != int64(i) {
				return nil
			}
		}
		return pick(optab.Operand(op, "x"))
	}
	return nil
}
