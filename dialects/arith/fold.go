package arith

import (
	"math"

	"github.com/recom-compiler/recom/textir"
)

// IntAttr returns v as an integer attribute of type t, in canonical form:
// sign-extended from t's width (i1 as 0 or 1, unsigned types zero-extended;
// index is 64 bits wide).
func IntAttr(v int64, t textir.Type) textir.IntegerAttr {
	return textir.IntegerAttr{Value: Normalize(v, t), Type: t}
}

// Normalize wraps v around to the width of the integer type t (the element
// type of a tensor type) and returns its canonical form.
func Normalize(v int64, t textir.Type) int64 {
	t = textir.ElementType(t)
	w := textir.BitWidth(t)
	if w <= 0 || w >= 64 {
		return v
	}
	if it, ok := t.(*textir.IntType); ok && (w == 1 || it.Signedness == textir.Unsigned) {
		return v & (1<<uint(w) - 1)
	}
	sh := uint(64 - w)
	return v << sh >> sh
}

// signed returns the signed value of canonical v of type t (an i1 true is -1).
func signed(v int64, t textir.Type) int64 {
	if textir.BitWidth(textir.ElementType(t)) == 1 && v&1 != 0 {
		return -1
	}
	return v
}

// asUnsigned returns the bits of canonical v of type t as an unsigned number.
func asUnsigned(v int64, t textir.Type) uint64 {
	w := textir.BitWidth(textir.ElementType(t))
	if w <= 0 || w >= 64 {
		return uint64(v)
	}
	return uint64(v) & (1<<uint(w) - 1)
}

// RoundFloat rounds v to the precision of float type t.
// IntToFloat converts the signed integer v to the float type t with one
// rounding (as sitofp and the GPU's cvt.rn do): through float64 first would
// round twice for |v| > 2^53 and can be one ulp off in f32.
func IntToFloat(v int64, t textir.Type) float64 {
	if ft, ok := textir.ElementType(t).(*textir.FloatType); ok && ft.Kind == textir.KindF32 {
		return float64(float32(v))
	}
	return RoundFloat(float64(v), t)
}

// UintToFloat is IntToFloat for an unsigned integer (uitofp).
func UintToFloat(u uint64, t textir.Type) float64 {
	if ft, ok := textir.ElementType(t).(*textir.FloatType); ok && ft.Kind == textir.KindF32 {
		return float64(float32(u))
	}
	return RoundFloat(float64(u), t)
}

func RoundFloat(v float64, t textir.Type) float64 {
	ft, ok := textir.ElementType(t).(*textir.FloatType)
	if !ok {
		return v
	}
	switch ft.Kind {
	case textir.KindF64:
		return v
	case textir.KindF32:
		return float64(float32(v))
	}
	d := textir.DenseFloats(textir.TensorOf([]int64{1}, ft), []float64{v})
	return d.FloatAt(0)
}

// scalarInt returns the value of an integer constant of scalar type.
func scalarInt(a textir.Attribute) (int64, bool) {
	ia, ok := a.(textir.IntegerAttr)
	return ia.Value, ok
}

// scalarFloat returns the value of a float constant of scalar type.
func scalarFloat(a textir.Attribute) (float64, bool) {
	fa, ok := a.(textir.FloatAttr)
	return fa.Value, ok
}

// splatInt returns the value of every element of an integer constant: a
// scalar, or a dense attribute whose elements are all equal.
func splatInt(a textir.Attribute) (int64, bool) {
	switch a := a.(type) {
	case textir.IntegerAttr:
		return a.Value, true
	case *textir.DenseElementsAttr:
		if a.IsString() || textir.IsFloat(a.Type.Elem) {
			return 0, false
		}
		if a.Splat || a.NumElements() == 1 {
			return a.IntAt(0), true
		}
	}
	return 0, false
}

// splatFloat is splatInt for float constants.
func splatFloat(a textir.Attribute) (float64, bool) {
	switch a := a.(type) {
	case textir.FloatAttr:
		return a.Value, true
	case *textir.DenseElementsAttr:
		if !textir.IsFloat(a.Type.Elem) {
			return 0, false
		}
		if a.Splat || a.NumElements() == 1 {
			return a.FloatAt(0), true
		}
	}
	return 0, false
}

// intSplatAttr returns a constant of type t with every element v: a scalar
// attribute, or a splat for a statically shaped tensor; nil otherwise.
func intSplatAttr(v int64, t textir.Type) textir.Attribute {
	switch tt := t.(type) {
	case *textir.TensorType:
		if !tt.HasStaticShape() {
			return nil
		}
		return textir.DenseInts(tt, []int64{Normalize(v, tt.Elem)})
	case *textir.IntType, *textir.IndexType:
		return IntAttr(v, t)
	}
	return nil
}

func value(v *textir.Value) []textir.FoldResult { return []textir.FoldResult{{Value: v}} }

func attr(a textir.Attribute) []textir.FoldResult {
	if a == nil {
		return nil
	}
	return []textir.FoldResult{{Attr: a}}
}

func foldConstant(op *textir.Operation) []textir.FoldResult {
	return attr(op.LookupAttr("value"))
}

// foldIntBinary folds an integer binary op on two scalar constants as
// EvalIntBinary computes it (nothing when the result is undefined, e.g.
// division by zero).
func foldIntBinary(op *textir.Operation, c []textir.Attribute) []textir.FoldResult {
	a, ok1 := scalarInt(c[0])
	b, ok2 := scalarInt(c[1])
	if !ok1 || !ok2 {
		return nil
	}
	t := op.Operand(0).Type()
	r, ok := EvalIntBinary(op.Name(), Normalize(a, t), Normalize(b, t), t)
	if !ok {
		return nil
	}
	return attr(IntAttr(r, op.Result(0).Type()))
}

// foldFloatBinary folds a float binary op on two scalar constants as
// EvalFloatBinary computes it.
func foldFloatBinary(op *textir.Operation, c []textir.Attribute) []textir.FoldResult {
	a, ok1 := scalarFloat(c[0])
	b, ok2 := scalarFloat(c[1])
	if !ok1 || !ok2 {
		return nil
	}
	t := op.Result(0).Type()
	r, ok := EvalFloatBinary(op.Name(), a, b, t)
	if !ok {
		return nil
	}
	return attr(textir.FloatAttr{Value: r, Type: t})
}

// isInt reports whether a is an integer constant whose elements are all v
// (compared in canonical form for type t).
func isInt(a textir.Attribute, v int64, t textir.Type) bool {
	x, ok := splatInt(a)
	return ok && x == Normalize(v, t)
}

func foldAddI(op *textir.Operation, c []textir.Attribute) []textir.FoldResult {
	if r := foldIntBinary(op, c); r != nil {
		return r
	}
	t := op.Result(0).Type()
	switch {
	case isInt(c[1], 0, t):
		return value(op.Operand(0))
	case isInt(c[0], 0, t):
		return value(op.Operand(1))
	}
	return nil
}

func foldSubI(op *textir.Operation, c []textir.Attribute) []textir.FoldResult {
	if r := foldIntBinary(op, c); r != nil {
		return r
	}
	t := op.Result(0).Type()
	switch {
	case isInt(c[1], 0, t):
		return value(op.Operand(0))
	case op.Operand(0) == op.Operand(1):
		return attr(intSplatAttr(0, t))
	}
	return nil
}

func foldMulI(op *textir.Operation, c []textir.Attribute) []textir.FoldResult {
	if r := foldIntBinary(op, c); r != nil {
		return r
	}
	t := op.Result(0).Type()
	switch {
	case isInt(c[1], 1, t):
		return value(op.Operand(0))
	case isInt(c[0], 1, t):
		return value(op.Operand(1))
	case isInt(c[1], 0, t):
		return attr(c[1])
	case isInt(c[0], 0, t):
		return attr(c[0])
	}
	return nil
}

// minOf returns the smallest signed value of t's width.
func minOf(t textir.Type) int64 {
	w := textir.BitWidth(textir.ElementType(t))
	if w <= 0 || w >= 64 {
		return math.MinInt64
	}
	return -1 << uint(w-1)
}

func foldDivSI(op *textir.Operation, c []textir.Attribute) []textir.FoldResult {
	if r := foldIntBinary(op, c); r != nil {
		return r
	}
	if isInt(c[1], 1, op.Result(0).Type()) {
		return value(op.Operand(0))
	}
	return nil
}

func foldRemSI(op *textir.Operation, c []textir.Attribute) []textir.FoldResult {
	if r := foldIntBinary(op, c); r != nil {
		return r
	}
	t := op.Result(0).Type()
	if isInt(c[1], 1, t) {
		return attr(intSplatAttr(0, t))
	}
	return nil
}

func foldAndI(op *textir.Operation, c []textir.Attribute) []textir.FoldResult {
	if r := foldIntBinary(op, c); r != nil {
		return r
	}
	t := op.Result(0).Type()
	switch {
	case op.Operand(0) == op.Operand(1):
		return value(op.Operand(0))
	case isInt(c[1], 0, t):
		return attr(c[1])
	case isInt(c[0], 0, t):
		return attr(c[0])
	case isInt(c[1], -1, t):
		return value(op.Operand(0))
	case isInt(c[0], -1, t):
		return value(op.Operand(1))
	}
	return nil
}

func foldOrI(op *textir.Operation, c []textir.Attribute) []textir.FoldResult {
	if r := foldIntBinary(op, c); r != nil {
		return r
	}
	t := op.Result(0).Type()
	switch {
	case op.Operand(0) == op.Operand(1):
		return value(op.Operand(0))
	case isInt(c[1], 0, t):
		return value(op.Operand(0))
	case isInt(c[0], 0, t):
		return value(op.Operand(1))
	case isInt(c[1], -1, t):
		return attr(c[1])
	case isInt(c[0], -1, t):
		return attr(c[0])
	}
	return nil
}

func foldXOrI(op *textir.Operation, c []textir.Attribute) []textir.FoldResult {
	if r := foldIntBinary(op, c); r != nil {
		return r
	}
	t := op.Result(0).Type()
	switch {
	case op.Operand(0) == op.Operand(1):
		return attr(intSplatAttr(0, t))
	case isInt(c[1], 0, t):
		return value(op.Operand(0))
	case isInt(c[0], 0, t):
		return value(op.Operand(1))
	}
	return nil
}

func foldMaxSI(op *textir.Operation, c []textir.Attribute) []textir.FoldResult {
	if op.Operand(0) == op.Operand(1) {
		return value(op.Operand(0))
	}
	return foldIntBinary(op, c)
}

func foldMinSI(op *textir.Operation, c []textir.Attribute) []textir.FoldResult {
	if op.Operand(0) == op.Operand(1) {
		return value(op.Operand(0))
	}
	return foldIntBinary(op, c)
}

func isFloat(a textir.Attribute, v float64) bool {
	x, ok := splatFloat(a)
	return ok && x == v && math.Signbit(x) == math.Signbit(v)
}

func foldAddF(op *textir.Operation, c []textir.Attribute) []textir.FoldResult {
	if r := foldFloatBinary(op, c); r != nil {
		return r
	}
	switch { // x + -0.0 = x for every x (x + 0.0 is not: -0.0 + 0.0 = 0.0)
	case isFloat(c[1], math.Copysign(0, -1)):
		return value(op.Operand(0))
	case isFloat(c[0], math.Copysign(0, -1)):
		return value(op.Operand(1))
	}
	return nil
}

func foldSubF(op *textir.Operation, c []textir.Attribute) []textir.FoldResult {
	if r := foldFloatBinary(op, c); r != nil {
		return r
	}
	if isFloat(c[1], 0) { // x - 0.0 = x
		return value(op.Operand(0))
	}
	return nil
}

func foldMulF(op *textir.Operation, c []textir.Attribute) []textir.FoldResult {
	if r := foldFloatBinary(op, c); r != nil {
		return r
	}
	switch {
	case isFloat(c[1], 1):
		return value(op.Operand(0))
	case isFloat(c[0], 1):
		return value(op.Operand(1))
	}
	return nil
}

func foldDivF(op *textir.Operation, c []textir.Attribute) []textir.FoldResult {
	if r := foldFloatBinary(op, c); r != nil {
		return r
	}
	if isFloat(c[1], 1) {
		return value(op.Operand(0))
	}
	return nil
}

// evalPredicate compares canonical values a and b of type t.
func evalPredicate(p Predicate, a, b int64, t textir.Type) bool {
	ua, ub := asUnsigned(a, t), asUnsigned(b, t)
	a, b = signed(a, t), signed(b, t)
	switch p {
	case EQ:
		return a == b
	case NE:
		return a != b
	case SLT:
		return a < b
	case SLE:
		return a <= b
	case SGT:
		return a > b
	case SGE:
		return a >= b
	case ULT:
		return ua < ub
	case ULE:
		return ua <= ub
	case UGT:
		return ua > ub
	case UGE:
		return ua >= ub
	}
	return false
}

func boolAttr(b bool, t textir.Type) textir.Attribute {
	v := int64(0)
	if b {
		v = 1
	}
	return intSplatAttr(v, t)
}

func foldCmpI(op *textir.Operation, c []textir.Attribute) []textir.FoldResult {
	pa, _ := op.LookupAttr("predicate").(textir.IntegerAttr)
	p := Predicate(pa.Value)
	rt := op.Result(0).Type()
	if a, ok := scalarInt(c[0]); ok {
		if b, ok := scalarInt(c[1]); ok {
			return attr(boolAttr(evalPredicate(p, a, b, op.Operand(0).Type()), rt))
		}
	}
	if op.Operand(0) == op.Operand(1) {
		return attr(boolAttr(evalPredicate(p, 0, 0, op.Operand(0).Type()), rt))
	}
	return nil
}

func foldSelect(op *textir.Operation, c []textir.Attribute) []textir.FoldResult {
	if v, ok := splatInt(c[0]); ok {
		if v != 0 {
			return value(op.Operand(1))
		}
		return value(op.Operand(2))
	}
	if op.Operand(1) == op.Operand(2) {
		return value(op.Operand(1))
	}
	// select(%c, true, false) = %c
	t := op.Result(0).Type()
	if op.Operand(0).Type() == t && isInt(c[1], 1, t) && isInt(c[2], 0, t) {
		return value(op.Operand(0))
	}
	return nil
}

func foldIndexCast(op *textir.Operation, c []textir.Attribute) []textir.FoldResult {
	t := op.Result(0).Type()
	if v, ok := scalarInt(c[0]); ok {
		v = signed(v, op.Operand(0).Type())
		return attr(IntAttr(v, t))
	}
	// index_cast(index_cast(%x : iN to index) : index to iN) = %x
	if src := op.Operand(0).DefiningOp(); src != nil && src.Name() == IndexCastOp && src.Operand(0).Type() == t {
		if _, toIndex := textir.ElementType(src.Result(0).Type()).(*textir.IndexType); toIndex {
			return value(src.Operand(0))
		}
	}
	return nil
}

func foldExtSI(op *textir.Operation, c []textir.Attribute) []textir.FoldResult {
	if v, ok := scalarInt(c[0]); ok {
		v = signed(v, op.Operand(0).Type())
		return attr(IntAttr(v, op.Result(0).Type()))
	}
	return nil
}

func foldTruncI(op *textir.Operation, c []textir.Attribute) []textir.FoldResult {
	t := op.Result(0).Type()
	if v, ok := scalarInt(c[0]); ok {
		return attr(IntAttr(v, t))
	}
	// trunci(extsi(%x)) = %x when %x has the result type.
	if src := op.Operand(0).DefiningOp(); src != nil && src.Name() == ExtSIOp && src.Operand(0).Type() == t {
		return value(src.Operand(0))
	}
	return nil
}

func foldSIToFP(op *textir.Operation, c []textir.Attribute) []textir.FoldResult {
	if v, ok := scalarInt(c[0]); ok {
		v = signed(v, op.Operand(0).Type())
		t := op.Result(0).Type()
		return attr(textir.FloatAttr{Value: IntToFloat(v, t), Type: t})
	}
	return nil
}
