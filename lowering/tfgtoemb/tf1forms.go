package tfgtoemb

import (
	"github.com/recom-compiler/recom/dialects/tfg/optab"
	"github.com/recom-compiler/recom/textir"
)

// Forms of TF1's feature-column code that TF2's writes with constants.

// isTranspose2 reports whether perm transposes x, a rank-2 tensor: the
// constant [1, 0], or TF1's array_ops.transpose default,
// Sub(Sub(Rank(x), 1), Range(0, Rank(x), 1)) (the bucketized column's
// sparse indices in TF1 graphs).
func isTranspose2(perm, x *textir.Value) bool {
	if constIntsEq(perm, 1, 0) {
		return true
	}
	if rankOf(x) != 2 {
		return false
	}
	sub := is(perm, "Sub")
	if sub == nil {
		return false
	}
	last, rng := is(optab.Operand(sub, "x"), "Sub"), is(optab.Operand(sub, "y"), "Range")
	if last == nil || rng == nil || !constIntsEq(optab.Operand(last, "y"), 1) ||
		!constIntsEq(optab.Operand(rng, "start"), 0) || !constIntsEq(optab.Operand(rng, "delta"), 1) {
		return false
	}
	r1, r2 := is(optab.Operand(last, "x"), "Rank"), is(optab.Operand(rng, "limit"), "Rank")
	return r1 != nil && r2 != nil && same(optab.Operand(r1, "input"), x) && same(optab.Operand(r2, "input"), x)
}
