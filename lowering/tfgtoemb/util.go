package tfgtoemb

import (
	"slices"

	"github.com/recom-compiler/recom/dialects/tfg"
	"github.com/recom-compiler/recom/dialects/tfg/optab"
	"github.com/recom-compiler/recom/textir"
)

// Small helpers over tfg ops: data operands come first, then control
// operands; data results come first, then one !tfg.control.

// def returns the op defining v (nil for a block argument or nil v).
func def(v *textir.Value) *textir.Operation {
	if v == nil {
		return nil
	}
	return v.DefiningOp()
}

// is returns v's defining op when it is a tfg op named one of names
// ("Const"), else nil.
func is(v *textir.Value, names ...string) *textir.Operation {
	if d := def(v); isOp(d, names...) {
		return d
	}
	return nil
}

// isOp reports whether op is a tfg op named one of names.
func isOp(op *textir.Operation, names ...string) bool {
	if op == nil {
		return false
	}
	full := op.Name()
	if len(full) < 5 || full[:4] != "tfg." {
		return false
	}
	for _, n := range names {
		if full[4:] == n {
			return true
		}
	}
	return false
}

// control is !tfg.control, looked up once.
var control = tfg.Control()

func isControl(t textir.Type) bool { return t == control }

// numArgs counts op's data operands.
func numArgs(op *textir.Operation) int {
	n := 0
	for i := range op.NumOperands() {
		if isControl(op.Operand(i).Type()) {
			break
		}
		n++
	}
	return n
}

// Named operands and results of tfg ops come from the TensorFlow op table:
// optab.Operand(sel, "e") is a Select's else value.

// isOutput reports whether v is the output name of the tfg op that
// defines it.
func isOutput(v *textir.Value, name string) bool {
	return v != nil && optab.Result(v.DefiningOp(), name) == v
}

// tableOperand and tableResult are optab.Operand and optab.Result for the
// hash-table ops, which also read the TF1 forms the op table lacks
// (HashTable, LookupTableImport, InitializeTable) as their V2 forms, whose
// arguments they take.
func tableOperand(op *textir.Operation, name string) *textir.Value {
	if v := optab.Operand(op, name); v != nil || op == nil {
		return v
	}
	if v2, ok := optab.Of(op.Name() + "V2"); ok {
		if lo, hi, ok := v2.InputRange(op, name); ok && hi == lo+1 {
			return op.Operand(lo)
		}
	}
	return nil
}

func tableResult(op *textir.Operation, name string) *textir.Value {
	if v := optab.Result(op, name); v != nil || op == nil {
		return v
	}
	if v2, ok := optab.Of(op.Name() + "V2"); ok {
		if lo, hi, ok := v2.OutputRange(op, name); ok && hi == lo+1 {
			return op.Result(lo)
		}
	}
	return nil
}

// strip looks through Identity (and Snapshot) ops.
func strip(v *textir.Value) *textir.Value {
	for i := 0; i < 64 && v != nil; i++ {
		d := is(v, "Identity", "Snapshot")
		if d == nil || numArgs(d) != 1 {
			return v
		}
		v = optab.Operand(d, "input")
	}
	return v
}

// same reports whether a and b are the same value, looking through Identity.
func same(a, b *textir.Value) bool { return a != nil && b != nil && strip(a) == strip(b) }

// constAttr returns the dense value of a Const (through Identity).
func constAttr(v *textir.Value) *textir.DenseElementsAttr {
	d := is(strip(v), "Const")
	if d == nil {
		return nil
	}
	a, _ := d.Attr("value").(*textir.DenseElementsAttr)
	return a
}

// constInts returns the elements of an integer constant, looking through
// Identity and integer Casts.
func constInts(v *textir.Value) ([]int64, bool) {
	for i := 0; i < 8; i++ {
		v = strip(v)
		if x := optab.Operand(is(v, "Cast"), "x"); x != nil && isIntType(textir.ElementType(x.Type())) {
			v = x
			continue
		}
		break
	}
	a := constAttr(v)
	if a == nil || a.IsString() || !isIntType(a.Type.Elem) {
		return nil, false
	}
	if len(a.Type.Shape) > 1 {
		return nil, false
	}
	n := a.NumElements()
	if n < 0 || n > 1<<20 {
		return nil, false
	}
	out := make([]int64, n)
	for i := range out {
		out[i] = a.IntAt(int64(i))
	}
	return out, true
}

// constInt returns the value of a one-element integer constant.
func constInt(v *textir.Value) (int64, bool) {
	xs, ok := constInts(v)
	if !ok || len(xs) != 1 {
		return 0, false
	}
	return xs[0], true
}

// constFloat returns the value of a one-element float constant.
func constFloat(v *textir.Value) (float64, bool) {
	a := constAttr(v)
	if a == nil || a.IsString() || !textir.IsFloat(a.Type.Elem) || a.NumElements() != 1 {
		return 0, false
	}
	return a.FloatAt(0), true
}

// constString returns the value of a one-element string constant.
func constString(v *textir.Value) (string, bool) {
	a := constAttr(v)
	if a == nil || !a.IsString() || a.NumElements() != 1 {
		return "", false
	}
	return a.StringAt(0), true
}

// constBool returns the value of a one-element bool constant.
func constBool(v *textir.Value) (bool, bool) {
	a := constAttr(v)
	if a == nil || a.Type.Elem != textir.I1() || a.NumElements() != 1 {
		return false, false
	}
	return a.IntAt(0) != 0, true
}

func isIntType(t textir.Type) bool {
	it, ok := t.(*textir.IntType)
	return ok && it.Width > 1
}

func intAttr(op *textir.Operation, name string) (int64, bool) {
	a, ok := op.Attr(name).(textir.IntegerAttr)
	return a.Value, ok
}

func intAttrIs(op *textir.Operation, name string, want int64) bool {
	v, ok := intAttr(op, name)
	if !ok {
		return want == 0
	}
	return v == want
}

// tensorType returns v's ranked tensor type, or nil.
func tensorType(v *textir.Value) *textir.TensorType {
	t, _ := v.Type().(*textir.TensorType)
	return t
}

// rank returns v's rank, or -1.
func rank(v *textir.Value) int {
	if t := tensorType(v); t != nil {
		return len(t.Shape)
	}
	return -1
}

// constIntsEq reports whether v is the integer constant want.
func constIntsEq(v *textir.Value, want ...int64) bool {
	xs, ok := constInts(v)
	if !ok || len(xs) != len(want) {
		return false
	}
	for i := range xs {
		if xs[i] != want[i] {
			return false
		}
	}
	return true
}

// dimsOf returns the dims of v (-1 unknown) from its type, or, where the
// type is unranked (graphs without _output_shapes), from the attributes of
// the ops that make it: Placeholder's shape, Const's value, ExpandDims.
func dimsOf(v *textir.Value) ([]int64, bool) {
	for i := 0; i < 32 && v != nil; i++ {
		if t := tensorType(v); t != nil {
			return t.Shape, true
		}
		d := def(v)
		switch {
		case isOp(d, "Placeholder", "VariableV2", "VarHandleOp"):
			s, ok := tfg.ShapeOf(d.Attr("shape"))
			if !ok || s.UnknownRank {
				return nil, false
			}
			return s.Dims, true
		case isOp(d, "Const"):
			if a, ok := d.Attr("value").(*textir.DenseElementsAttr); ok {
				return a.Type.Shape, true
			}
			return nil, false
		case isOp(d, "Identity", "Snapshot", "Bucketize", "Cast", "StringToHashBucketFast", "AsString"):
			v = optab.SoleOperand(d)
			continue
		case tfg.IsExampleParse(d):
			return parsedDims(v)
		case isOp(d, "StringSplitV2", "SparseCross", "SparseCrossV2", "SparseCrossHashed"):
			switch {
			case isOutput(v, "indices"), isOutput(v, "output_indices"):
				return []int64{-1, 2}, true
			case isOutput(v, "values"), isOutput(v, "output_values"):
				return []int64{-1}, true
			}
			return []int64{2}, true
		case isOp(d, "SparseReshape"):
			indices, shape := isOutput(v, "output_indices"), isOutput(v, "output_shape")
			if !indices && !shape {
				return nil, false
			}
			n, ok := dimsOf(optab.Operand(d, "new_shape"))
			if !ok || len(n) != 1 {
				return nil, false
			}
			if indices {
				return []int64{-1, n[0]}, true
			}
			return n, true
		case isOp(d, "Pack") && intAttrIs(d, "axis", 0):
			// safe_embedding_lookup_sparse's new 2-D shape.
			ins := tfg.DataOperands(d)
			if len(ins) == 0 {
				return nil, false
			}
			in, ok := dimsOf(ins[0])
			if !ok {
				return nil, false
			}
			return append([]int64{int64(len(ins))}, in...), true
		case isOp(d, "Prod", "Sum", "Max", "Min") && !intAttrIs(d, "keep_dims", 1):
			in, ok := dimsOf(optab.Operand(d, "input"))
			axes, ok2 := constInts(optab.Operand(d, "reduction_indices"))
			if !ok || !ok2 {
				return nil, false
			}
			var out []int64
			for i, x := range in {
				if !slices.ContainsFunc(axes, func(a int64) bool { return a == int64(i) || a == int64(i-len(in)) }) {
					out = append(out, x)
				}
			}
			return out, true
		case isOp(d, "Slice"):
			in, ok := dimsOf(optab.Operand(d, "input"))
			size, ok2 := constInts(optab.Operand(d, "size"))
			if !ok || !ok2 || len(size) != len(in) {
				return nil, false
			}
			out := slices.Clone(size)
			for i := range out {
				if out[i] < 0 {
					out[i] = -1
				}
			}
			return out, true
		case isOp(d, "GatherV2") && constIntsEq(optab.Operand(d, "axis"), 0) && intAttrIs(d, "batch_dims", 0):
			p, ok := dimsOf(optab.Operand(d, "params"))
			ix, ok2 := dimsOf(optab.Operand(d, "indices"))
			if !ok || !ok2 || len(p) == 0 {
				return nil, false
			}
			return append(slices.Clone(ix), p[1:]...), true
		case isOp(d, "ExpandDims"):
			in, ok := dimsOf(optab.Operand(d, "input"))
			ax, ok2 := constInt(optab.Operand(d, "dim"))
			if !ok || !ok2 {
				return nil, false
			}
			if ax < 0 {
				ax += int64(len(in)) + 1
			}
			if ax < 0 || ax > int64(len(in)) {
				return nil, false
			}
			out := append(append(append([]int64{}, in[:ax]...), 1), in[ax:]...)
			return out, true
		}
		return nil, false
	}
	return nil, false
}

// rankOf returns v's rank, or -1 when unknown.
func rankOf(v *textir.Value) int {
	d, ok := dimsOf(v)
	if !ok {
		return -1
	}
	return len(d)
}
