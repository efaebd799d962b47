package arith

// arith.extf and arith.truncf: float widening and narrowing, as in MLIR.
// Kernels that accumulate float32 products in float64 (the dense layers of
// --fuse-dense) need them; the NVPTX emitter lowers them to fpext/fptrunc.

import (
	"github.com/recom-compiler/recom/interp"
	"github.com/recom-compiler/recom/interp/exec"
	"github.com/recom-compiler/recom/textir"
)

// Float casts.
const (
	ExtFOp   = "arith.extf"
	TruncFOp = "arith.truncf"
)

func init() {
	exec.Register(ExtFOp, floatCastKernel)
	exec.Register(TruncFOp, floatCastKernel)
}

// floatCastOps returns the definitions of arith.extf and arith.truncf.
func floatCastOps() []*textir.OpDef {
	def := func(name, summary string, verify func(*textir.Operation) error) *textir.OpDef {
		return &textir.OpDef{
			Name: name, Summary: summary,
			Operands: textir.Exactly(1), Results: textir.Exactly(1),
			NamedOperands: []string{"in"}, NamedResults: []string{"out"},
			OperandTypes: []textir.TypeConstraint{floatLike}, ResultTypes: []textir.TypeConstraint{floatLike},
			Traits: textir.Pure,
			Verify: verify,
			Fold:   foldFloatCast,
			Print:  printCast,
			Parse:  parseCast,
		}
	}
	return []*textir.OpDef{
		def(ExtFOp, "widens a float to a wider float type (exact)", verifyExtSI),
		def(TruncFOp, "narrows a float to a narrower float type (round to nearest even)", verifyTruncI),
	}
}

func foldFloatCast(op *textir.Operation, c []textir.Attribute) []textir.FoldResult {
	if v, ok := scalarFloat(c[0]); ok {
		t := op.Result(0).Type()
		return attr(textir.FloatAttr{Value: RoundFloat(v, t), Type: t})
	}
	return nil
}

func floatCastKernel(op *textir.Operation, in []*interp.Tensor, _ *exec.State) ([]*interp.Tensor, error) {
	a := floats(in[0])
	for i, v := range a {
		a[i] = RoundFloat(v, op.Result(0).Type())
	}
	return one(build(op, in[0].Shape(), nil, a))
}
