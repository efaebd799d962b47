package densetogpu

import (
	"github.com/recom-compiler/recom/dialects/fused"
	"github.com/recom-compiler/recom/dialects/gpu"
	"github.com/recom-compiler/recom/lowering/conversion"
	"github.com/recom-compiler/recom/textir"
)

// target declares what --fuse-dense leaves: no tfg.MatMul that roots a
// dense chain (an f32 product of a constant or variable weight without
// control edges); the fused and gpu dialects; every other op of the program
// as it is (the bias, activation and ConcatV2 of a chain go with its
// MatMul).
func target(ctx *textir.Context, o Options) *conversion.Target {
	t := conversion.NewTarget(ctx)
	t.AddLegalDialect(fused.Name, gpu.Name)
	t.AddDynamicallyLegalOp(func(op *textir.Operation) bool {
		c, _ := match(op, o)
		return c == nil
	}, "tfg.MatMul")
	t.MarkUnknownOpDynamicallyLegal(func(*textir.Operation) bool { return true })
	return t
}

// remarkUnfused reports, in walk order, each MatMul the pattern leaves only
// because of its weight.
func remarkUnfused(root *textir.Operation, o Options, emit func(*textir.Diagnostic)) {
	root.Walk(func(op *textir.Operation) bool {
		if op.Name() == "tfg.MatMul" {
			if _, why := match(op, o); why != nil && why.remark {
				emit(op.Remarkf("not fused: %s", why.msg))
			}
		}
		return true
	})
}
