package gpu

import (
	"math"

	"github.com/recom-compiler/recom/dialects/arith"
	"github.com/recom-compiler/recom/textir"
)

func isIntConst(a textir.Attribute, v int64) bool {
	ia, ok := a.(textir.IntegerAttr)
	return ok && ia.Value == v
}

// ptr_offset %p, 0 = %p
func foldPtrOffset(op *textir.Operation, c []textir.Attribute) []textir.FoldResult {
	if isIntConst(c[1], 0) {
		return []textir.FoldResult{{Value: op.Operand(0)}}
	}
	return nil
}

// buffer_view %b[0] = %b
func foldBufferView(op *textir.Operation, c []textir.Attribute) []textir.FoldResult {
	if isIntConst(c[1], 0) {
		return []textir.FoldResult{{Value: op.Operand(0)}}
	}
	return nil
}

// ptr_cast to the same type is the pointer; ptr_cast(ptr_cast(%p)) back to
// %p's type is %p.
func foldPtrCast(op *textir.Operation, _ []textir.Attribute) []textir.FoldResult {
	t := op.Result(0).Type()
	if op.Operand(0).Type() == t {
		return []textir.FoldResult{{Value: op.Operand(0)}}
	}
	if src := op.Operand(0).DefiningOp(); src != nil && src.Name() == PtrCastOp && src.Operand(0).Type() == t {
		return []textir.FoldResult{{Value: src.Operand(0)}}
	}
	return nil
}

// A gpu.for whose constant bounds give no iteration yields its initial values.
func foldFor(op *textir.Operation, c []textir.Attribute) []textir.FoldResult {
	if op.NumResults() == 0 {
		return nil
	}
	lb, ok1 := c[0].(textir.IntegerAttr)
	ub, ok2 := c[1].(textir.IntegerAttr)
	if !ok1 || !ok2 || lb.Value < ub.Value {
		return nil
	}
	var r []textir.FoldResult
	for _, v := range ForInits(op) {
		r = append(r, textir.FoldResult{Value: v})
	}
	return r
}

// Math ops of constants fold; so do min/max of a value with itself.
func foldMath(op *textir.Operation, c []textir.Attribute) []textir.FoldResult {
	if (op.Name() == MinOp || op.Name() == MaxOp) && op.Operand(0) == op.Operand(1) {
		return []textir.FoldResult{{Value: op.Operand(0)}}
	}
	vs := make([]float64, len(c))
	for i, a := range c {
		fa, ok := a.(textir.FloatAttr)
		if !ok {
			return nil
		}
		vs[i] = fa.Value
	}
	r, ok := EvalMath(op.Name(), vs)
	if !ok {
		return nil
	}
	t := op.Result(0).Type()
	return []textir.FoldResult{{Attr: textir.FloatAttr{Value: arith.RoundFloat(r, t), Type: t}}}
}

// EvalMath computes a gpu math op (sqrt, rsqrt, fabs, min, max, fma) on
// float64 operands; the caller rounds to the result type.
func EvalMath(name string, v []float64) (float64, bool) {
	switch name {
	case SqrtOp:
		return math.Sqrt(v[0]), true
	case RsqrtOp:
		return 1 / math.Sqrt(v[0]), true
	case FabsOp:
		return math.Abs(v[0]), true
	case MinOp:
		return fmin(v[0], v[1]), true
	case MaxOp:
		return fmax(v[0], v[1]), true
	case FmaOp:
		return math.FMA(v[0], v[1], v[2]), true
	}
	return 0, false
}

// fmin is C's fmin: a NaN operand is ignored.
func fmin(a, b float64) float64 {
	switch {
	case math.IsNaN(a):
		return b
	case math.IsNaN(b):
		return a
	}
	return math.Min(a, b)
}

// fmax is C's fmax: a NaN operand is ignored.
func fmax(a, b float64) float64 {
	switch {
	case math.IsNaN(a):
		return b
	case math.IsNaN(b):
		return a
	}
	return math.Max(a, b)
}

// constantIfPattern inlines the branch a constant condition takes (or
// erases a gpu.if without results whose condition is false and which has no
// else branch).
func constantIfPattern() textir.RewritePattern {
	return &textir.Pattern{RootName: IfOp, PatternName: "gpu.if-constant-condition", Weight: 1,
		Fn: func(op *textir.Operation, rw textir.PatternRewriter) bool {
			c, ok := arith.ConstantValue(op.Operand(0)).(textir.IntegerAttr)
			if !ok {
				return false
			}
			r := op.Region(0)
			if c.Value == 0 {
				r = op.Region(1)
			}
			blk := r.Front()
			if blk == nil {
				if op.NumResults() != 0 {
					return false
				}
				rw.EraseOp(op)
				return true
			}
			y := blk.Last()
			if y == nil || y.Name() != YieldOp {
				return false
			}
			vals := y.Operands()
			rw.InlineBlockBefore(blk, op, nil)
			rw.ReplaceOp(op, vals)
			rw.EraseOp(y)
			return true
		}}
}
