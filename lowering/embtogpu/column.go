package embtogpu

import (
	"fmt"

	"github.com/recom-compiler/recom/dialects/tfg"
	"github.com/recom-compiler/recom/dialects/tfg/optab"
	"github.com/recom-compiler/recom/textir"
)

// A pooled lookup whose result reaches no concatenation is a layer of one
// column: a tower of a two-tower model with a single column (TF1's
// input_layer of one column ends in an Identity, not a ConcatV2), or a
// lookup that a MatMul or any other op reads directly. The fused layer's
// output replaces the end of the lookup's chain of Identity and
// row-keeping Reshape ops (endOfChain), so the chain goes with the lookup.

// matchColumn returns the value a one-column layer of lookup lk replaces,
// or why lk is not such a layer. A lookup that reaches a concatenation is
// that concatenation's to take (or not).
func matchColumn(lk *textir.Operation) (*textir.Value, string) {
	r := lookupResult(lk)
	if r == nil {
		return nil, "it is not a pooled lookup"
	}
	if len(concatsReached(r)) > 0 {
		return nil, "it reaches a concatenation"
	}
	if tt, ok := tableOf(lk).Type().(*textir.TensorType); !ok || tt.Elem != textir.F32() || len(tt.Shape) != 2 {
		return nil, fmt.Sprintf("it looks up a table of %s (version 1 fuses f32 tables)", tableOf(lk).Type())
	}
	if !r.HasUses() {
		return nil, "its result is not used"
	}
	return endOfChain(r), ""
}

// endOfChain follows v, a lookup's [B, D] result, forward while its only
// use is a tfg.Identity or a tfg.Reshape that keeps the rows and the
// width (traceLookup's chain, read forward) whose control result is
// unused, and returns the last value: the tensor the layer's output
// stands for.
func endOfChain(v *textir.Value) *textir.Value {
	for range maxChain {
		var u *textir.Operation
		n := 0
		for use := range v.Uses() {
			u = use.Owner()
			n++
		}
		if n != 1 {
			return v
		}
		out := optab.Result(u, "output")
		if out == nil || passedOn(u, out) != v {
			return v
		}
		if c := tfg.ControlResult(u); c != nil && c.HasUses() {
			return v
		}
		if u.Name() == "tfg.Reshape" {
			d, ok := lastDim(v)
			if !ok || !reshapeKeepsWidth(optab.Operand(u, "shape"), d) {
				return v
			}
		}
		v = out
	}
	return v
}
