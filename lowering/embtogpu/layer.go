package embtogpu

import (
	"fmt"

	"github.com/recom-compiler/recom/dialects/arith"
	"github.com/recom-compiler/recom/dialects/emb"
	sh "github.com/recom-compiler/recom/dialects/shape"
	"github.com/recom-compiler/recom/dialects/tfg"
	"github.com/recom-compiler/recom/dialects/tfg/optab"
	"github.com/recom-compiler/recom/textir"
)

// maxChain bounds the Reshape and Identity ops between a pooled lookup and
// its concatenation (the input_layer puts one or two there).
const maxChain = 7

// layerMatch is what matchLayer finds at a concatenation.
type layerMatch struct {
	concat *textir.Operation
	// lookups holds, per concatenated tensor, the pooled lookup it traces
	// back to (nil when it traces to none): in output order, the layer's
	// columns when the concatenation is fused.
	lookups []*textir.Operation
	// why is nil when the fuse patterns rewrite the concatenation, else
	// the reason they do not.
	why *unfused
}

// unfused says why a concatenation is not an embedding layer the fuse
// patterns rewrite.
type unfused struct {
	msg string
	// input is the concatenated tensor at fault, or -1 when the
	// concatenation itself is not an input layer's.
	input int
	// remark: the concatenation looks like an input layer (its first
	// input is a lookup, or a lookup's table is not f32), so it gets a
	// remark; any other concatenation is left alone silently.
	remark bool
}

// isConcat reports whether op concatenates tensors (a candidate root of the
// fuse patterns).
func isConcat(op *textir.Operation) bool {
	return op.Name() == emb.ConcatOp || op.Name() == "tfg.ConcatV2"
}

// isConcatInput reports whether operand #i of the concatenation op is a
// tensor it concatenates (not its axis or a control operand).
func isConcatInput(op *textir.Operation, i int) bool {
	if op.Name() == emb.ConcatOp {
		return true
	}
	// The data operands come first and the axis is the last of them
	// (without listing them: a layer has thousands).
	n := op.NumOperands()
	return !tfg.IsControl(op.Operand(i).Type()) && i+1 < n && !tfg.IsControl(op.Operand(i+1).Type())
}

// concatValues returns the tensors a concatenation joins, or why it is not
// one along axis 1 (the input_layer's [B, ΣD] output).
func concatValues(op *textir.Operation) ([]*textir.Value, *unfused) {
	switch op.Name() {
	case emb.ConcatOp:
		return op.Operands(), nil
	case "tfg.ConcatV2":
		ins, axis := optab.Operands(op, "values"), optab.Operand(op, "axis")
		if axis == nil || len(ins) == 0 {
			return nil, &unfused{msg: "it has no axis operand", input: -1}
		}
		ax, ok := tfg.ConstInt(axis)
		if !ok {
			return nil, &unfused{msg: "its axis is not a constant", input: -1}
		}
		if ax != 1 && ax != -1 {
			return nil, &unfused{msg: fmt.Sprintf("it concatenates along axis %d, not 1", ax), input: -1}
		}
		for _, r := range tfg.DataResults(op)[1:] {
			if r.HasUses() {
				return nil, &unfused{msg: "a result other than the concatenation is used", input: -1}
			}
		}
		if c := tfg.ControlResult(op); c != nil && c.HasUses() {
			return nil, &unfused{msg: "its control result is used", input: -1}
		}
		return ins, nil
	}
	return nil, &unfused{msg: "it is not a concatenation", input: -1}
}

// matchLayer recognises an input_layer concatenation of pooled lookups
// (tfg.ConcatV2 on axis 1, or emb.concat) that the fuse patterns rewrite.
// It traces every input, so that the lookups of a concatenation it does not
// fuse can say why.
func matchLayer(op *textir.Operation) *layerMatch {
	m := &layerMatch{concat: op}
	ins, why := concatValues(op)
	if why != nil {
		m.why = why
		return m
	}
	m.lookups = make([]*textir.Operation, len(ins))
	for i, v := range ins {
		m.lookups[i] = traceLookup(v)
	}
	for i, lk := range m.lookups {
		if lk == nil {
			// A first input that is no lookup: not an input layer of
			// embeddings at all (the dense part's concatenation).
			m.why = &unfused{msg: fmt.Sprintf("input #%d is not a pooled embedding lookup", i), input: i, remark: i > 0}
			return m
		}
		if tt, ok := tableOf(lk).Type().(*textir.TensorType); !ok || tt.Elem != textir.F32() {
			m.why = &unfused{msg: fmt.Sprintf("input #%d looks up a table of %s (version 1 fuses f32 tables)", i, tableOf(lk).Type()), input: i, remark: true}
			return m
		}
	}
	if len(m.lookups) == 0 {
		m.why = &unfused{msg: "it concatenates nothing", input: -1}
	}
	return m
}

// traceLookup follows v back through row-preserving reshapes and
// identities to a pooled lookup, or returns nil.
func traceLookup(v *textir.Value) *textir.Operation {
	for range maxChain + 1 {
		def := v.DefiningOp()
		if def == nil {
			return nil
		}
		if r := lookupResult(def); r != nil {
			if r != v {
				return nil
			}
			return def
		}
		src := passedOn(def, v)
		if src == nil {
			return nil
		}
		if def.Name() == "tfg.Reshape" {
			d, ok := lastDim(src)
			if !ok || !reshapeKeepsWidth(optab.Operand(def, "shape"), d) {
				return nil
			}
		}
		v = src
	}
	return nil
}

// passedOn returns the tensor a tfg.Identity or tfg.Reshape passes on as v,
// its output, or nil when def is another op or v another of its results.
func passedOn(def *textir.Operation, v *textir.Value) *textir.Value {
	var in string
	switch def.Name() {
	case "tfg.Identity":
		in = "input"
	case "tfg.Reshape":
		in = "tensor"
	default:
		return nil
	}
	if v != optab.Result(def, "output") {
		return nil
	}
	return optab.Operand(def, in)
}

// blockingReshape returns the first tfg.Reshape on the chain from v back to
// lookup lk whose shape operand traceLookup does not know to keep the rows,
// or nil when there is none or the chain does not reach lk.
func blockingReshape(v *textir.Value, lk *textir.Operation) *textir.Operation {
	var blocking *textir.Operation
	for range maxChain + 1 {
		def := v.DefiningOp()
		if def == nil {
			return nil
		}
		if def == lk {
			if v != lookupResult(lk) {
				return nil
			}
			return blocking
		}
		src := passedOn(def, v)
		if src == nil {
			return nil
		}
		if def.Name() == "tfg.Reshape" {
			if d, ok := lastDim(src); blocking == nil && (!ok || !reshapeKeepsWidth(optab.Operand(def, "shape"), d)) {
				blocking = def
			}
		}
		v = src
	}
	return nil
}

// concatsReached returns the concatenations that v reaches as a
// concatenated tensor, directly or through Reshape and Identity ops (the
// chains traceLookup follows back), in use-list order.
func concatsReached(v *textir.Value) []*textir.Operation {
	var out []*textir.Operation
	seen := map[*textir.Operation]bool{}
	frontier := []*textir.Value{v}
	for range maxChain + 1 {
		var next []*textir.Value
		for _, x := range frontier {
			for u := range x.Uses() {
				o := u.Owner()
				switch {
				case isConcat(o):
					if isConcatInput(o, u.Index()) && !seen[o] {
						seen[o] = true
						out = append(out, o)
					}
				case o.Name() == "tfg.Identity" || o.Name() == "tfg.Reshape":
					if out := optab.Result(o, "output"); passedOn(o, out) == x {
						next = append(next, out)
					}
				}
			}
		}
		frontier = next
	}
	return out
}

// lastDim returns the static width of a [?, D] value, looking through
// earlier reshapes of the chain.
func lastDim(v *textir.Value) (int64, bool) {
	for range 8 {
		if tt, ok := v.Type().(*textir.TensorType); ok && len(tt.Shape) == 2 && tt.Shape[1] >= 0 {
			return tt.Shape[1], true
		}
		def := v.DefiningOp()
		if def == nil {
			return 0, false
		}
		switch def.Name() {
		case "tfg.Reshape":
			v = optab.Operand(def, "tensor")
		case "tfg.Identity":
			v = optab.Operand(def, "input")
		default:
			return 0, false
		}
		if v == nil {
			return 0, false
		}
	}
	return 0, false
}

// reshapeKeepsWidth reports whether the shape operand of a Reshape of a
// [B, d] tensor is [x, d] (so x is B, the element count being kept): the
// input_layer's Pack(StridedSlice(Shape(t))[0], d), or
// safe_embedding_lookup_sparse's ConcatV2(Slice(dense_shape, [0], [1]),
// Slice(Shape(result), [1], [-1])), or either as --simplify-shapes rebuilds
// it when it cannot prove the reshape a no-op: shape.from_extents(x, d)
// with d an index constant, or the ConcatV2 with only its parts rebuilt
// (isRowExtent, isWidthExtent).
func reshapeKeepsWidth(shape *textir.Value, d int64) bool {
	if shape == nil {
		return false
	}
	def := shape.DefiningOp()
	if def == nil {
		return false
	}
	switch def.Name() {
	case sh.FromExtentsOp:
		fe, _ := sh.AsFromExtents(def)
		ext := fe.Extents()
		if len(ext) != 2 || d <= 0 {
			return false
		}
		w, ok := arith.ConstantValue(ext[1]).(textir.IntegerAttr)
		return ok && w.Value == d
	case "tfg.Pack":
		in := optab.Operands(def, "values")
		if len(in) != 2 {
			return false
		}
		w, ok := tfg.ConstInt(in[1])
		return ok && w == d
	case "tfg.ConcatV2":
		in, axis := optab.Operands(def, "values"), optab.Operand(def, "axis")
		if axis == nil || len(in) != 2 {
			return false
		}
		if ax, ok := tfg.ConstInt(axis); !ok || ax != 0 {
			return false
		}
		return isRowExtent(in[0]) && isWidthExtent(in[1], d)
	}
	return false
}

// isRowExtent reports whether v is a one-element extent list that can
// stand first in a [rows, D] shape: safe_embedding_lookup_sparse's
// Slice(dense_shape, [0], [1]) (through the Cast to int32 TF1 puts
// there), or one extent rebuilt by --simplify-shapes. Which count it holds
// does not matter for the rows: a Reshape keeps the element count, so
// with the width kept, the rows are the input's (TensorFlow fails the
// reshape otherwise).
func isRowExtent(v *textir.Value) bool {
	head := v.DefiningOp()
	if head == nil {
		return false
	}
	switch head.Name() {
	case sh.FromExtentsOp:
		fe, _ := sh.AsFromExtents(head)
		return len(fe.Extents()) == 1
	case "tfg.Slice":
		begin, size := optab.Operand(head, "begin"), optab.Operand(head, "size")
		if begin == nil || size == nil {
			return false
		}
		b, ok1 := tfg.ConstInt(begin)
		n, ok2 := tfg.ConstInt(size)
		return ok1 && ok2 && b == 0 && n == 1
	}
	return false
}

// isWidthExtent reports whether v is the one-element extent list [d]:
// safe_embedding_lookup_sparse's Slice(Shape(result), [1], [-1]) of a
// [?, d] result, the same rebuilt by --simplify-shapes as
// shape.from_extents(d) with d an index constant (what it leaves when it
// cannot prove the whole reshape a no-op, as in TF1 Estimator exports'
// "..._embedding_weights/Reshape_2"), or a constant [d].
func isWidthExtent(v *textir.Value, d int64) bool {
	tail := v.DefiningOp()
	if tail == nil || d <= 0 {
		return false
	}
	switch tail.Name() {
	case sh.FromExtentsOp:
		fe, _ := sh.AsFromExtents(tail)
		ext := fe.Extents()
		if len(ext) != 1 {
			return false
		}
		w, ok := arith.ConstantValue(ext[0]).(textir.IntegerAttr)
		return ok && w.Value == d
	case "tfg.Const":
		w, ok := tfg.ConstInt(v)
		return ok && w == d
	case "tfg.Slice":
		src, begin, size := optab.Operand(tail, "input"), optab.Operand(tail, "begin"), optab.Operand(tail, "size")
		if src == nil || begin == nil || size == nil {
			return false
		}
		shp := src.DefiningOp()
		if shp == nil || shp.Name() != "tfg.Shape" {
			return false
		}
		b, ok1 := tfg.ConstInt(begin)
		n, ok2 := tfg.ConstInt(size)
		if !ok1 || !ok2 || b != 1 || n != -1 {
			return false
		}
		in0 := optab.Operand(shp, "input")
		if in0 == nil {
			return false
		}
		w, ok := lastDim(in0)
		return ok && w == d
	}
	return false
}
