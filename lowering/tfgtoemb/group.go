package tfgtoemb

import (
	"fmt"

	"github.com/recom-compiler/recom/dialects/emb"
	"github.com/recom-compiler/recom/dialects/tfg"
	"github.com/recom-compiler/recom/dialects/tfg/optab"
	"github.com/recom-compiler/recom/lowering/rewrite"
	"github.com/recom-compiler/recom/textir"
)

// Layer grouping: real models mix pooled lookups with other tensors where
// the lookups meet. A DNN's input_layer concatenates embedding columns
// with numeric and indicator columns; a linear model adds its columns'
// weighted sums (lookups in [N, 1] tables) with numeric terms in one AddN.
// --fuse fuses a concatenation whose inputs are all lookups, so the
// lookups of such a meeting point are gathered first into one emb.concat
// (the embedding layer, which --fuse turns into one kernel), and the
// meeting point takes its pieces back:
//
//	ConcatV2(x, L1, L2, y, L3)  ->  E = emb.concat(L1, L2, L3)
//	                                ConcatV2(x, Slice(E, [0,0], [-1,d1+d2]), y, Slice(E, [0,d1+d2], [-1,d3]))
//	                                (a run of lookups that is all of E takes E itself)
//	AddN(x, L1, y, L2)          ->  AddN(x, y, Sum(E, [1], keep_dims)) for [B, 1] lookups,
//	                                AddN(x, y, Sum(Reshape(E, [-1, k, d]), [1])) for [B, d]
//
// A lookup is seen through the row-preserving Reshape ([?, d] to [?, d])
// and Identity ops of the feature-column code; it joins a group only when
// that chain has no other use (but the tfg.Shape reads of the reshapes)
// and its table is f32 (what --fuse takes).

// site is a meeting point of lookups: a ConcatV2 or an AddN, its data
// inputs and the lookups among them by input index.
type site struct {
	op      *textir.Operation
	ins     []*textir.Value
	axis    *textir.Value // ConcatV2's
	found   map[int]*textir.Operation
	off, w  int64 // its lookups' slice of the group
	lookups []*textir.Operation
}

// groupLayers gathers the lookups of every mixed ConcatV2 and every AddN
// of b (and of concatenations of lookups only, when there is more than
// one meeting point) into one emb.concat, so that --fuse makes one kernel
// for all of them; it returns the number of meeting points rewritten.
func groupLayers(rw *rewrite.Rewriter, b *textir.Block) int {
	var sites []*site
	pure := 0
	for op := range b.Ops() {
		var s *site
		switch {
		case isOp(op, "ConcatV2"):
			s = concatSite(op)
		case isOp(op, "AddN"):
			s = addNSite(op)
		}
		if s == nil {
			continue
		}
		if len(s.found) == len(s.ins) && s.axis != nil {
			pure++
		}
		sites = append(sites, s)
	}
	if len(sites) == 0 || (len(sites) == 1 && pure == 1) {
		return 0 // nothing to group, or --fuse takes the concatenation as it is
	}
	var lookups []*textir.Operation
	width := int64(0)
	for _, s := range sites {
		s.off = width
		for i := range s.ins {
			if lk := s.found[i]; lk != nil {
				s.lookups = append(s.lookups, lk)
				d := tensorType(lookupResult(lk)).Shape[1]
				s.w += d
				width += d
			}
		}
		lookups = append(lookups, s.lookups...)
	}
	// The group goes before the first meeting point (a graph region has
	// no order, but the printed IR reads better).
	e := makeGroup(rw, sites[0].op, lookups, width)
	for _, s := range sites {
		if s.axis != nil {
			rewriteConcat(rw, s, e, width)
		} else {
			rewriteAddN(rw, s, e, width)
		}
	}
	return len(sites)
}

// concatSite is a ConcatV2 on axis 1 of [?, d] f32 inputs with at least
// one lookup among them.
func concatSite(op *textir.Operation) *site {
	if len(tfg.DataOperands(op)) < 2 {
		return nil
	}
	ins, axis := optab.Operands(op, "values"), optab.Operand(op, "axis")
	if ax, ok := constInt(axis); !ok || (ax != 1 && ax != -1) {
		return nil
	}
	for _, v := range ins {
		if t := tensorType(v); t == nil || len(t.Shape) != 2 || t.Elem != textir.F32() {
			return nil
		}
	}
	if found := groupInputs(ins); len(found) > 0 {
		return &site{op: op, ins: ins, axis: axis, found: found}
	}
	return nil
}

// addNSite is an AddN of [?, d] f32 tensors with at least one lookup among
// them and more than one term.
func addNSite(op *textir.Operation) *site {
	ins := optab.Operands(op, "inputs")
	if len(ins) < 2 {
		return nil
	}
	var d int64 = -1
	for _, v := range ins {
		t := tensorType(v)
		if t == nil || len(t.Shape) != 2 || t.Elem != textir.F32() || t.Shape[1] < 0 || (d >= 0 && t.Shape[1] != d) {
			return nil
		}
		d = t.Shape[1]
	}
	if found := groupInputs(ins); len(found) > 0 {
		return &site{op: op, ins: ins, found: found}
	}
	return nil
}

// lookupTable returns the table operand of an emb.lookup,
// emb.gather_scatter or emb.gather op, or nil.
func lookupTable(op *textir.Operation) *textir.Value {
	if l, ok := emb.AsTableLookup(op); ok {
		return l.Table()
	}
	return nil
}

// groupedLookup follows v back to a pooled f32 lookup through Reshape and
// Identity ops that keep [?, d] rows, each with v's chain its only use.
func groupedLookup(v *textir.Value) *textir.Operation {
	tt := tensorType(v)
	if tt == nil || len(tt.Shape) != 2 || tt.Shape[1] < 0 {
		return nil
	}
	d := tt.Shape[1]
	for range 8 {
		if !singleUse(v) {
			return nil
		}
		op := def(v)
		if op == nil || isControl(v.Type()) {
			return nil
		}
		switch op.Name() {
		case emb.LookupOp, emb.GatherOp, emb.GatherScatterOp:
			t := tensorType(lookupTable(op))
			if t == nil || t.Elem != textir.F32() || len(t.Shape) != 2 || t.Shape[1] != d {
				return nil
			}
			return op
		case "tfg.Identity", "tfg.Reshape":
			if c := tfg.ControlResult(op); c != nil && c.HasUses() {
				return nil
			}
			src := reshaped(op)
			st := tensorType(src)
			if st == nil || len(st.Shape) != 2 || st.Shape[1] != d {
				return nil
			}
			v = src
		default:
			return nil
		}
	}
	return nil
}

// singleUse reports whether v has one use besides tfg.Shape ops (the
// feature-column code reads the shape of a lookup's result to reshape it;
// those reads die with the reshape).
func singleUse(v *textir.Value) bool {
	n := 0
	for u := range v.Uses() {
		if !isOp(u.Owner(), "Shape") {
			n++
		}
	}
	return n == 1
}

// tfgOp creates a tfg op named name (its node name) with one data result
// and the control result.
func tfgOp(rw *rewrite.Rewriter, kind, name string, loc textir.Location, operands []*textir.Value, result textir.Type, attrs ...textir.NamedAttribute) *textir.Operation {
	attrs = append(attrs, textir.NamedAttribute{Name: "_mlir_name", Value: textir.Str(name)})
	return rw.Create(&textir.OperationState{Name: "tfg." + kind, Loc: loc, Operands: operands,
		ResultTypes: []textir.Type{result, tfg.Control()}, Attrs: attrs})
}

func typeAttr(name string, t textir.Type) textir.NamedAttribute {
	return textir.NamedAttribute{Name: name, Value: textir.TypeAttr{Type: t}}
}

// constI32 creates a tfg.Const of int32 values (a vector, or a scalar
// when scalar is set).
func constI32(rw *rewrite.Rewriter, name string, loc textir.Location, scalar bool, vals ...int64) *textir.Value {
	shape := []int64{int64(len(vals))}
	if scalar {
		shape = nil
	}
	t := textir.TensorOf(shape, textir.I32())
	c := tfgOp(rw, "Const", name, loc, nil, t, typeAttr("dtype", textir.I32()),
		textir.NamedAttribute{Name: "value", Value: textir.DenseInts(t, vals)})
	return optab.Result(c, "output")
}

// groupInputs finds the lookups among the data inputs of op; it returns
// them by input index, or nil when there are none.
func groupInputs(ins []*textir.Value) map[int]*textir.Operation {
	var m map[int]*textir.Operation
	for i, v := range ins {
		if lk := groupedLookup(v); lk != nil {
			if m == nil {
				m = map[int]*textir.Operation{}
			}
			m[i] = lk
		}
	}
	return m
}

// makeGroup creates the emb.concat of the lookups before at.
func makeGroup(rw *rewrite.Rewriter, at *textir.Operation, lookups []*textir.Operation, width int64) *textir.Value {
	var vals []*textir.Value
	for _, lk := range lookups {
		vals = append(vals, lookupResult(lk))
	}
	rw.SetInsertionPoint(at)
	loc := textir.NameLoc{Name: tfg.NodeName(at) + "/embeddings"}
	e := rw.Create(&textir.OperationState{Name: emb.ConcatOp, Loc: loc, Operands: vals,
		ResultTypes: []textir.Type{textir.TensorOf([]int64{textir.Dynamic, width}, textir.F32())}})
	c, _ := emb.AsConcat(e)
	return c.Result()
}

// slice returns columns [off, off+w) of e (of width width), or e itself.
func slice(rw *rewrite.Rewriter, name string, e *textir.Value, width, off, w int64) *textir.Value {
	if off == 0 && w == width {
		return e
	}
	loc := textir.NameLoc{Name: name}
	begin := constI32(rw, name+"/begin", loc, false, 0, off)
	size := constI32(rw, name+"/size", loc, false, -1, w)
	sl := tfgOp(rw, "Slice", name, loc, []*textir.Value{e, begin, size},
		textir.TensorOf([]int64{textir.Dynamic, w}, textir.F32()), typeAttr("T", textir.F32()), typeAttr("Index", textir.I32()))
	return optab.Result(sl, "output")
}

// rebuild replaces op by a copy with the given data operands (its control
// operands kept) and N set to their number (less one for ConcatV2's axis).
func rebuild(rw *rewrite.Rewriter, op *textir.Operation, data []*textir.Value, n int) {
	operands := append([]*textir.Value{}, data...)
	operands = append(operands, op.Operands()[len(tfg.DataOperands(op)):]...)
	var attrs []textir.NamedAttribute
	for _, a := range op.Attrs() {
		if a.Name == "N" {
			a.Value = textir.I64Attr(int64(n))
		}
		attrs = append(attrs, a)
	}
	var types []textir.Type
	for _, r := range op.Results() {
		types = append(types, r.Type())
	}
	rw.SetInsertionPoint(op)
	nop := rw.Create(&textir.OperationState{Name: op.Name(), Loc: op.Loc(), Operands: operands, ResultTypes: types, Attrs: attrs})
	var dead []*textir.Operation
	for _, v := range op.Operands() {
		if d := def(v); d != nil {
			dead = append(dead, d)
		}
	}
	rw.ReplaceOp(op, nop.Results())
	for _, d := range dead {
		eraseDeadChain(rw, d)
	}
}

// eraseDeadChain erases op and the Reshape, Identity and shape ops feeding
// it that become unused (the chains between a lookup and its old user).
func eraseDeadChain(rw *rewrite.Rewriter, op *textir.Operation) {
	work := []*textir.Operation{op}
	for len(work) > 0 {
		o := work[len(work)-1]
		work = work[:len(work)-1]
		if o.Block() == nil || o.HasResultUses() || !isOp(o, "Identity", "Reshape", "Pack", "StridedSlice", "Shape", "Slice", "ConcatV2", "Const", "Cast") {
			continue
		}
		for _, x := range o.Operands() {
			if d := def(x); d != nil && d != o {
				work = append(work, d)
			}
		}
		rw.EraseOp(o)
	}
}

// rewriteConcat gives a ConcatV2 its lookups back as slices of the
// group, one per run of consecutive lookups.
func rewriteConcat(rw *rewrite.Rewriter, s *site, e *textir.Value, width int64) {
	rw.SetInsertionPoint(s.op)
	name := tfg.NodeName(s.op) + "/embeddings"
	var out []*textir.Value
	off := s.off
	for i := 0; i < len(s.ins); {
		if s.found[i] == nil {
			out = append(out, s.ins[i])
			i++
			continue
		}
		j, w := i, int64(0)
		for ; j < len(s.ins) && s.found[j] != nil; j++ {
			w += tensorType(lookupResult(s.found[j])).Shape[1]
		}
		out = append(out, slice(rw, fmt.Sprintf("%s/slice_%d", name, len(out)), e, width, off, w))
		off += w
		i = j
	}
	rebuild(rw, s.op, append(out, s.axis), len(out))
}

// rewriteAddN replaces the lookup terms of an AddN by the sum of their
// slice of the group.
func rewriteAddN(rw *rewrite.Rewriter, s *site, e *textir.Value, width int64) {
	rw.SetInsertionPoint(s.op)
	name := tfg.NodeName(s.op) + "/embeddings"
	loc := textir.NameLoc{Name: name}
	var out []*textir.Value
	for i, v := range s.ins {
		if s.found[i] == nil {
			out = append(out, v)
		}
	}
	d := tensorType(s.ins[0]).Shape[1]
	k := int64(len(s.lookups))
	src := slice(rw, name+"/slice", e, width, s.off, s.w)
	if len(s.lookups) > 1 {
		res := textir.TensorOf([]int64{textir.Dynamic, d}, textir.F32())
		sumAttrs := []textir.NamedAttribute{typeAttr("T", textir.F32()), typeAttr("Tidx", textir.I32())}
		if d != 1 {
			shape := constI32(rw, name+"/rows/shape", loc, false, -1, k, d)
			rs := tfgOp(rw, "Reshape", name+"/rows", loc, []*textir.Value{src, shape},
				textir.TensorOf([]int64{textir.Dynamic, k, d}, textir.F32()), typeAttr("T", textir.F32()), typeAttr("Tshape", textir.I32()))
			src = optab.Result(rs, "output")
		} else {
			sumAttrs = append(sumAttrs, textir.NamedAttribute{Name: "keep_dims", Value: textir.BoolAttr{Value: true}})
		}
		axis := constI32(rw, name+"/sum/axis", loc, false, 1)
		src = optab.Result(tfgOp(rw, "Sum", name+"/sum", loc, []*textir.Value{src, axis}, res, sumAttrs...), "output")
	}
	out = append(out, src)
	rebuild(rw, s.op, out, len(out))
}
