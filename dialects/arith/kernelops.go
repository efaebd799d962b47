package arith

import (
	"math"
	"slices"

	"github.com/recom-compiler/recom/textir"
)

// FPredicate is an arith.cmpf predicate, stored as an integer attribute.
type FPredicate int64

// The cmpf predicates, numbered as in MLIR: o* are ordered (false when an
// operand is NaN), u* unordered (true when an operand is NaN).
const (
	FAlwaysFalse FPredicate = iota
	FOEQ
	FOGT
	FOGE
	FOLT
	FOLE
	FONE
	FORD
	FUEQ
	FUGT
	FUGE
	FULT
	FULE
	FUNE
	FUNO
	FAlwaysTrue
)

var fpredicateNames = [...]string{"false", "oeq", "ogt", "oge", "olt", "ole", "one", "ord",
	"ueq", "ugt", "uge", "ult", "ule", "une", "uno", "true"}

func (p FPredicate) String() string {
	if p < 0 || int(p) >= len(fpredicateNames) {
		return "<invalid predicate>"
	}
	return fpredicateNames[p]
}

// ParseFPredicate returns the cmpf predicate with MLIR's name s.
func ParseFPredicate(s string) (FPredicate, bool) {
	i := slices.Index(fpredicateNames[:], s)
	return FPredicate(i), i >= 0
}

// EvalFPredicate compares a and b as arith.cmpf with predicate p does.
func EvalFPredicate(p FPredicate, a, b float64) bool {
	unordered := math.IsNaN(a) || math.IsNaN(b)
	switch p {
	case FAlwaysFalse:
		return false
	case FAlwaysTrue:
		return true
	case FORD:
		return !unordered
	case FUNO:
		return unordered
	}
	var r bool
	switch p {
	case FOEQ, FUEQ:
		r = a == b
	case FOGT, FUGT:
		r = a > b
	case FOGE, FUGE:
		r = a >= b
	case FOLT, FULT:
		r = a < b
	case FOLE, FULE:
		r = a <= b
	case FONE, FUNE:
		r = a != b
	}
	if unordered {
		return p >= FUEQ // unordered predicates hold, ordered ones do not
	}
	return r
}

// EvalIntBinary computes the integer op name on canonical values a and b of
// type t; ok is false when the result is undefined (division by zero,
// signed overflow of divsi, shift amounts not below the width) or name is
// not an integer binary op.
func EvalIntBinary(name string, a, b int64, t textir.Type) (r int64, ok bool) {
	ua, ub := asUnsigned(a, t), asUnsigned(b, t)
	a, b = signed(a, t), signed(b, t)
	w := uint64(textir.BitWidth(textir.ElementType(t)))
	switch name {
	case AddIOp:
		r = a + b
	case SubIOp:
		r = a - b
	case MulIOp:
		r = a * b
	case DivSIOp:
		if b == 0 || (b == -1 && a == minOf(t)) {
			return 0, false
		}
		r = a / b
	case RemSIOp:
		if b == 0 {
			return 0, false
		}
		if b == -1 {
			r = 0
		} else {
			r = a % b
		}
	case DivUIOp:
		if ub == 0 {
			return 0, false
		}
		r = int64(ua / ub)
	case RemUIOp:
		if ub == 0 {
			return 0, false
		}
		r = int64(ua % ub)
	case AndIOp:
		r = a & b
	case OrIOp:
		r = a | b
	case XOrIOp:
		r = a ^ b
	case MaxSIOp:
		r = max(a, b)
	case MinSIOp:
		r = min(a, b)
	case ShLIOp:
		if ub >= w {
			return 0, false
		}
		r = a << ub
	case ShRSIOp:
		if ub >= w {
			return 0, false
		}
		r = a >> ub
	case ShRUIOp:
		if ub >= w {
			return 0, false
		}
		r = int64(ua >> ub)
	default:
		return 0, false
	}
	return Normalize(r, t), true
}

// EvalFloatBinary computes the float op name on a and b, rounded to the
// precision of float type t; ok is false when name is not a float binary op.
func EvalFloatBinary(name string, a, b float64, t textir.Type) (float64, bool) {
	var r float64
	switch name {
	case AddFOp:
		r = a + b
	case SubFOp:
		r = a - b
	case MulFOp:
		r = a * b
	case DivFOp:
		r = a / b
	case MaximumFOp:
		r = maximumF(a, b)
	case MinimumFOp:
		r = minimumF(a, b)
	default:
		return 0, false
	}
	return RoundFloat(r, t), true
}

// maximumF is IEEE 754-2019 maximum: NaN if either is NaN, +0 > -0.
func maximumF(a, b float64) float64 {
	if math.IsNaN(a) || math.IsNaN(b) {
		return math.NaN()
	}
	return math.Max(a, b)
}

// minimumF is IEEE 754-2019 minimum: NaN if either is NaN, -0 < +0.
func minimumF(a, b float64) float64 {
	if math.IsNaN(a) || math.IsNaN(b) {
		return math.NaN()
	}
	return math.Min(a, b)
}

// FPToSI converts v to a signed integer of type t, rounding toward zero;
// ok is false when the value does not fit (MLIR: poison).
func FPToSI(v float64, t textir.Type) (int64, bool) {
	if math.IsNaN(v) {
		return 0, false
	}
	v = math.Trunc(v)
	w := textir.BitWidth(textir.ElementType(t))
	lo, hi := float64(minOf(t)), -float64(minOf(t)) // hi is exclusive
	if w == 1 {
		lo, hi = -1, 1
	}
	if v < lo || v >= hi {
		return 0, false
	}
	return Normalize(int64(v), t), true
}

func foldDivUI(op *textir.Operation, c []textir.Attribute) []textir.FoldResult {
	if r := foldIntBinary(op, c); r != nil {
		return r
	}
	if isInt(c[1], 1, op.Result(0).Type()) {
		return value(op.Operand(0))
	}
	return nil
}

func foldRemUI(op *textir.Operation, c []textir.Attribute) []textir.FoldResult {
	if r := foldIntBinary(op, c); r != nil {
		return r
	}
	t := op.Result(0).Type()
	if isInt(c[1], 1, t) {
		return attr(intSplatAttr(0, t))
	}
	return nil
}

func foldShift(op *textir.Operation, c []textir.Attribute) []textir.FoldResult {
	if r := foldIntBinary(op, c); r != nil {
		return r
	}
	if isInt(c[1], 0, op.Result(0).Type()) {
		return value(op.Operand(0))
	}
	return nil
}

func foldMaximumF(op *textir.Operation, c []textir.Attribute) []textir.FoldResult {
	if op.Operand(0) == op.Operand(1) {
		return value(op.Operand(0))
	}
	return foldFloatBinary(op, c)
}

func foldMinimumF(op *textir.Operation, c []textir.Attribute) []textir.FoldResult {
	if op.Operand(0) == op.Operand(1) {
		return value(op.Operand(0))
	}
	return foldFloatBinary(op, c)
}

func foldNegF(op *textir.Operation, c []textir.Attribute) []textir.FoldResult {
	if v, ok := scalarFloat(c[0]); ok {
		return attr(textir.FloatAttr{Value: -v, Type: op.Result(0).Type()})
	}
	// negf(negf(x)) = x
	if src := op.Operand(0).DefiningOp(); src != nil && src.Name() == NegFOp {
		return value(src.Operand(0))
	}
	return nil
}

func foldCmpF(op *textir.Operation, c []textir.Attribute) []textir.FoldResult {
	pa, _ := op.LookupAttr("predicate").(textir.IntegerAttr)
	p := FPredicate(pa.Value)
	rt := op.Result(0).Type()
	switch p {
	case FAlwaysFalse:
		return attr(boolAttr(false, rt))
	case FAlwaysTrue:
		return attr(boolAttr(true, rt))
	}
	if a, ok := scalarFloat(c[0]); ok {
		if b, ok := scalarFloat(c[1]); ok {
			return attr(boolAttr(EvalFPredicate(p, a, b), rt))
		}
	}
	return nil
}

func foldFPToSI(op *textir.Operation, c []textir.Attribute) []textir.FoldResult {
	if v, ok := scalarFloat(c[0]); ok {
		t := op.Result(0).Type()
		if r, ok := FPToSI(v, t); ok {
			return attr(IntAttr(r, t))
		}
	}
	return nil
}

func foldUIToFP(op *textir.Operation, c []textir.Attribute) []textir.FoldResult {
	if v, ok := scalarInt(c[0]); ok {
		u := asUnsigned(v, op.Operand(0).Type())
		t := op.Result(0).Type()
		return attr(textir.FloatAttr{Value: UintToFloat(u, t), Type: t})
	}
	return nil
}

func foldExtUI(op *textir.Operation, c []textir.Attribute) []textir.FoldResult {
	if v, ok := scalarInt(c[0]); ok {
		u := asUnsigned(v, op.Operand(0).Type())
		return attr(IntAttr(int64(u), op.Result(0).Type()))
	}
	return nil
}

func verifyCmpF(op *textir.Operation) error { return verifyCmp(op, fpredicateNames[:]) }

// %r = arith.cmpf olt, %a, %b [{attrs}] : t
func printCmpF(p *textir.OpPrinter, op *textir.Operation) { printCmp(p, op, fpredicateNames[:]) }

func parseCmpF(p *textir.OpParser, st *textir.OperationState) error {
	return parseCmp(p, st, fpredicateNames[:])
}
