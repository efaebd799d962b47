package nvptx

import "github.com/recom-compiler/recom/textir"

// The emitters read operands and results by name, through the views the
// arith and gpu dialects generate (gpu.AsLoad(op).Ptr()). An emitter shared
// by a family of ops (every binary arithmetic op, every cast) takes the
// family's interface, which the views of its ops implement; the adapters
// below turn a dialect's view constructor into one that returns it, so a
// table entry names its op's view (bin(binary(arith.AsAddI), ...)) and the
// compiler checks that the op has the names the emitter reads.

// binaryView is an op of two operands lhs and rhs and one result: the
// integer and float arithmetic, comparisons, gpu.min and gpu.max.
type binaryView interface {
	Lhs() *textir.Value
	Rhs() *textir.Value
	Result() *textir.Value
}

// castView is a conversion of operand in to result out (arith.extsi,
// arith.sitofp, ...).
type castView interface {
	In() *textir.Value
	Out() *textir.Value
}

// unaryView is an op of one operand and one result (gpu.sqrt, gpu.fabs,
// arith.negf).
type unaryView interface {
	Operand() *textir.Value
	Result() *textir.Value
}

// resultView is an op of one result and no operands (gpu.thread_id, ...).
type resultView interface {
	Result() *textir.Value
}

func binary[V binaryView](as func(*textir.Operation) (V, bool)) func(*textir.Operation) binaryView {
	return func(op *textir.Operation) binaryView { v, _ := as(op); return v }
}

func cast[V castView](as func(*textir.Operation) (V, bool)) func(*textir.Operation) castView {
	return func(op *textir.Operation) castView { v, _ := as(op); return v }
}

func unary[V unaryView](as func(*textir.Operation) (V, bool)) func(*textir.Operation) unaryView {
	return func(op *textir.Operation) unaryView { v, _ := as(op); return v }
}

func result[V resultView](as func(*textir.Operation) (V, bool)) func(*textir.Operation) resultView {
	return func(op *textir.Operation) resultView { v, _ := as(op); return v }
}

// unregisteredBinary and unregisteredCast read the MLIR arith ops that the
// arith dialect does not define (arith.maxui, arith.remf, arith.bitcast,
// ...) by MLIR's operand order: they have no definition to name their
// values, and reach the emitter only from IR parsed with
// --allow-unregistered-dialect.
type unregisteredBinary struct{ op *textir.Operation }

func (b unregisteredBinary) Lhs() *textir.Value    { return textir.ViewOperand(b.op, 0) }
func (b unregisteredBinary) Rhs() *textir.Value    { return textir.ViewOperand(b.op, 1) }
func (b unregisteredBinary) Result() *textir.Value { return textir.ViewResult(b.op, 0) }

type unregisteredCast struct{ op *textir.Operation }

func (c unregisteredCast) In() *textir.Value  { return textir.ViewOperand(c.op, 0) }
func (c unregisteredCast) Out() *textir.Value { return textir.ViewResult(c.op, 0) }

// operandIndex returns the position of v among op's operands (its first),
// for diagnostics that name an operand by number; -1 when v is none.
func operandIndex(op *textir.Operation, v *textir.Value) int {
	for i := range op.NumOperands() {
		if op.Operand(i) == v {
			return i
		}
	}
	return -1
}
