package emb

import (
	"math"
	"strconv"

	"github.com/recom-compiler/recom/textir"
)

// intAttr returns the value of the integer attribute name, if present.
func intAttr(op *textir.Operation, name string) (int64, bool) {
	a, ok := op.LookupAttr(name).(textir.IntegerAttr)
	return a.Value, ok
}

// Combiner returns the combiner of a lookup op ("" when missing).
func Combiner(op *textir.Operation) string {
	s, _ := op.LookupAttr(AttrCombiner).(textir.StringAttr)
	return s.Value
}

func validCombiner(c string) bool {
	return c == CombinerSum || c == CombinerMean || c == CombinerSqrtN
}

func elemOf(v *textir.Value) textir.Type { return textir.ElementType(v.Type()) }

// intTypeRange returns the values an integer type holds.
func intTypeRange(t textir.Type) (int64, int64) {
	w := textir.BitWidth(t)
	if w <= 0 || w >= 64 {
		return math.MinInt64, math.MaxInt64
	}
	return -1 << (w - 1), 1<<(w-1) - 1
}

func fitsType(v int64, t textir.Type) bool {
	lo, hi := intTypeRange(t)
	return v >= lo && v <= hi
}

func verifyFromDense(op *textir.Operation) error {
	in := elemOf(op.Operand(0))
	if out := elemOf(op.Result(0)); out != in {
		return op.Errorf("values element type %s does not match the input element type %s", out, in)
	}
	a := op.LookupAttr(AttrIgnore)
	if a == nil {
		return nil
	}
	switch x := a.(type) {
	case textir.IntegerAttr:
		if isSignlessInt(in) && x.Type == in {
			return nil
		}
	case textir.FloatAttr:
		if isFloatElem(in) && x.Type == in {
			return nil
		}
	case textir.StringAttr:
		if isString(in) && x.Type == nil {
			return nil
		}
	}
	return op.Errorf("attribute 'ignore' must be a value of the input element type %s", in)
}

func verifyFromSparse(op *textir.Operation) error {
	in := elemOf(op.Operand(1))
	if out := elemOf(op.Result(0)); out != in {
		return op.Errorf("values element type %s does not match the sparse values element type %s", out, in)
	}
	return nil
}

func verifyHash(op *textir.Operation) error {
	if n, _ := intAttr(op, AttrNumBuckets); n < 1 {
		return op.Errorf("requires num_buckets >= 1, but got %d", n)
	}
	return nil
}

// Boundaries returns the boundaries of an emb.bucketize op, or false when
// they are not an array of f32 floats.
func Boundaries(op *textir.Operation) ([]float32, bool) {
	a, ok := op.LookupAttr(AttrBoundaries).(textir.ArrayAttr)
	if !ok {
		return nil, false
	}
	bs := make([]float32, len(a.Elems))
	for i, e := range a.Elems {
		f, ok := e.(textir.FloatAttr)
		if !ok || f.Type != textir.F32() {
			return nil, false
		}
		bs[i] = float32(f.Value)
	}
	return bs, true
}

func verifyBucketize(op *textir.Operation) error {
	bs, ok := Boundaries(op)
	if !ok {
		return op.Errorf("attribute 'boundaries' must be an array of f32 floats")
	}
	for i := 1; i < len(bs); i++ {
		if !(bs[i-1] <= bs[i]) {
			return op.Errorf("boundaries must be sorted, but boundaries[%d] = %v > boundaries[%d] = %v", i-1, bs[i-1], i, bs[i])
		}
	}
	return nil
}

// VocabKeys returns the keys of an emb.vocab_lookup op.
func VocabKeys(op *textir.Operation) *textir.DenseElementsAttr {
	d, _ := op.LookupAttr(AttrKeys).(*textir.DenseElementsAttr)
	return d
}

// vocabAttrs returns num_oov_buckets (default 0) and default (default -1).
func vocabAttrs(op *textir.Operation) (oov, def int64) {
	oov, _ = intAttr(op, AttrNumOOVBuckets)
	def, ok := intAttr(op, AttrDefault)
	if !ok {
		def = -1
	}
	return oov, def
}

func verifyVocabLookup(op *textir.Operation) error {
	keys := VocabKeys(op)
	in := elemOf(op.Operand(0))
	if len(keys.Type.Shape) != 1 || keys.Type.Elem != in {
		return op.Errorf("attribute 'keys' must be a 1-D tensor of the input element type %s, but got %s", in, keys.Type)
	}
	n := keys.NumElements()
	if keys.IsString() {
		seen := make(map[string]int64, n)
		for i := int64(0); i < n; i++ {
			k := keys.StringAt(i)
			if j, dup := seen[k]; dup {
				return op.Errorf("keys[%d] and keys[%d] are both %q: vocabulary keys must be unique", j, i, k)
			}
			seen[k] = i
		}
	} else {
		seen := make(map[int64]int64, n)
		for i := int64(0); i < n; i++ {
			k := keys.IntAt(i)
			if j, dup := seen[k]; dup {
				return op.Errorf("keys[%d] and keys[%d] are both %d: vocabulary keys must be unique", j, i, k)
			}
			seen[k] = i
		}
	}
	oov, def := vocabAttrs(op)
	if oov < 0 {
		return op.Errorf("requires num_oov_buckets >= 0, but got %d", oov)
	}
	out := elemOf(op.Result(0))
	if hi := n + oov - 1; !fitsType(hi, out) || !fitsType(def, out) {
		return op.Errorf("result element type %s cannot hold the ids (up to %d, default %d)", out, hi, def)
	}
	return nil
}

func verifyCheckRange(op *textir.Operation) error {
	if err := verifySameValuesType(op); err != nil {
		return err
	}
	t := elemOf(op.Operand(0))
	n, _ := intAttr(op, AttrNumBuckets)
	if n < 1 {
		return op.Errorf("requires num_buckets >= 1, but got %d", n)
	}
	if d, ok := intAttr(op, AttrDefault); ok && !fitsType(d, t) {
		return op.Errorf("default %d does not fit in %s", d, t)
	}
	return nil
}

func verifySameValuesType(op *textir.Operation) error {
	if in, out := op.Operand(0).Type(), op.Result(0).Type(); in != out {
		return op.Errorf("result type %s does not match the values type %s", out, in)
	}
	return nil
}

func verifyFilter(op *textir.Operation) error {
	if op.NumResults() != op.NumOperands() {
		return op.Errorf("expects one result per operand (%d), but got %d", op.NumOperands(), op.NumResults())
	}
	for i := range op.NumOperands() {
		if in, out := op.Operand(i).Type(), op.Result(i).Type(); in != out {
			return op.Errorf("result #%d type %s does not match operand #%d type %s", i, out, i, in)
		}
	}
	lo, hasLo := intAttr(op, AttrMin)
	hi, hasHi := intAttr(op, AttrMax)
	if hasLo && hasHi && lo > hi {
		return op.Errorf("requires min <= max, but got min = %d and max = %d", lo, hi)
	}
	if (hasLo || hasHi) && !isSignlessInt(elemOf(op.Operand(0))) {
		return op.Errorf("'min' and 'max' require integer values, got %s", op.Operand(0).Type())
	}
	if op.LookupAttr(AttrPositiveWeights) != nil && op.NumOperands() < 3 {
		return op.Errorf("'positive_weights' requires a weights operand")
	}
	return nil
}

func verifyTable(op *textir.Operation) error {
	if s, _ := op.LookupAttr(AttrName).(textir.StringAttr); s.Value == "" {
		return op.Errorf("requires a non-empty 'name'")
	}
	if v, ok := op.LookupAttr(AttrValue).(*textir.DenseElementsAttr); ok && textir.Type(v.Type) != op.Result(0).Type() {
		return op.Errorf("value type %s does not match the table type %s", v.Type, op.Result(0).Type())
	}
	return verifyPartitions(op)
}

// checkRows verifies the result of a lookup against its table.
func checkRows(op *textir.Operation) error {
	table := op.Operand(0).Type().(*textir.TensorType)
	res := op.Result(0).Type().(*textir.TensorType)
	if res.Elem != table.Elem {
		return op.Errorf("result element type %s does not match the table element type %s", res.Elem, table.Elem)
	}
	if res.Shape[1] != table.Shape[1] {
		return op.Errorf("result width %s does not match the table width %d", dimString(res.Shape[1]), table.Shape[1])
	}
	return nil
}

func dimString(d int64) string {
	if d < 0 {
		return "?"
	}
	return strconv.FormatInt(d, 10)
}

func verifyLookup(op *textir.Operation) error {
	if c := Combiner(op); !validCombiner(c) {
		return op.Errorf("combiner must be \"sum\", \"mean\" or \"sqrtn\", but got %q", c)
	}
	if err := checkRows(op); err != nil {
		return err
	}
	if op.NumOperands() == 4 {
		table := op.Operand(0).Type().(*textir.TensorType)
		if w := elemOf(op.Operand(3)); w != table.Elem {
			return op.Errorf("weights element type %s does not match the table element type %s", w, table.Elem)
		}
	}
	if DivNoNaN(op) && (op.NumOperands() != 4 || Combiner(op) == CombinerSum) {
		return op.Errorf("div_no_nan is for weighted mean and sqrtn lookups")
	}
	return nil
}

// DivNoNaN reports whether a pooled lookup divides by its weights' sum (or
// the root of their squares') as DivNoNan does: 0 where the divisor is 0.
func DivNoNaN(op *textir.Operation) bool {
	_, ok := op.LookupAttr(AttrDivNoNaN).(textir.UnitAttr)
	return ok
}

func verifyGather(op *textir.Operation) error { return checkRows(op) }

func verifyConcat(op *textir.Operation) error {
	res := op.Result(0).Type().(*textir.TensorType)
	width := int64(0)
	for i, v := range op.Operands() {
		t := v.Type().(*textir.TensorType)
		if t.Elem != res.Elem {
			return op.Errorf("operand #%d element type %s does not match the result element type %s", i, t.Elem, res.Elem)
		}
		if t.Shape[0] >= 0 && res.Shape[0] >= 0 && t.Shape[0] != res.Shape[0] {
			return op.Errorf("operand #%d has %d rows, but the result has %d", i, t.Shape[0], res.Shape[0])
		}
		if t.Shape[1] < 0 || width < 0 {
			width = -1
			continue
		}
		width += t.Shape[1]
	}
	if width >= 0 && res.Shape[1] >= 0 && width != res.Shape[1] {
		return op.Errorf("result width %d is not the sum of the operand widths (%d)", res.Shape[1], width)
	}
	return nil
}
