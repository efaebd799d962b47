package tfg

import (
	"strings"

	"github.com/recom-compiler/recom/dialects/tfg/optab"
	"github.com/recom-compiler/recom/textir"
)

// Dialect returns the tfg dialect: "tfg.graph" plus one op per row of the
// TensorFlow op table (package optab), each verified against its signature. The
// dialect is open: any other TensorFlow op is accepted as an unregistered
// tfg op, as TensorFlow's own TFG dialect does.
func Dialect() *textir.Dialect {
	d := &textir.Dialect{Name: Name, Summary: "TensorFlow graphs, one op per node", OpenOps: true}
	d.Ops = append(d.Ops, &textir.OpDef{
		Name:    "tfg.graph",
		Summary: "a TensorFlow graph: a graph region of nodes",
		Regions: textir.Exactly(1),
		Traits:  textir.GraphRegion | textir.NoTerminator | textir.SingleBlock,
	})
	for _, sig := range optab.All() {
		d.Ops = append(d.Ops, nodeOpDef(sig))
	}
	return d
}

func nodeOpDef(sig *optab.Op) *textir.OpDef {
	return &textir.OpDef{
		Name:     Name + "." + sig.Name,
		Summary:  "TensorFlow " + sig.Name,
		Operands: textir.AtLeast(0),
		Results:  textir.AtLeast(1),
		Verify:   func(op *textir.Operation) error { return verifyNode(op, sig) },
	}
}

// DataOperands returns op's data operands (those before the control ones).
func DataOperands(op *textir.Operation) []*textir.Value {
	vs := op.Operands()
	for i, v := range vs {
		if IsControl(v.Type()) {
			return vs[:i]
		}
	}
	return vs
}

// DataResults returns op's results without the trailing control result.
func DataResults(op *textir.Operation) []*textir.Value {
	rs := op.Results()
	if len(rs) > 0 && IsControl(rs[len(rs)-1].Type()) {
		return rs[:len(rs)-1]
	}
	return rs
}

// ControlResult returns op's control result, or nil.
func ControlResult(op *textir.Operation) *textir.Value {
	if n := op.NumResults(); n > 0 && IsControl(op.Result(n-1).Type()) {
		return op.Result(n - 1)
	}
	return nil
}

// NoControlEdges reports whether op has no control operands and no used
// control result, so that a rewrite can replace it without losing an edge.
func NoControlEdges(op *textir.Operation) bool {
	if len(DataOperands(op)) != op.NumOperands() {
		return false
	}
	c := ControlResult(op)
	return c == nil || !c.HasUses()
}

// NodeName returns the TensorFlow node name of op.
func NodeName(op *textir.Operation) string {
	if s, ok := op.Attr("_mlir_name").(textir.StringAttr); ok {
		return s.Value
	}
	if n, ok := textir.LocName(op.Loc()); ok {
		return n
	}
	return ""
}

func verifyNode(op *textir.Operation, sig *optab.Op) error {
	n := op.NumResults()
	if !IsControl(op.Result(n - 1).Type()) {
		return op.Errorf("last result must be !tfg.control, got %s", op.Result(n-1).Type())
	}
	for i := 0; i < n-1; i++ {
		if IsControl(op.Result(i).Type()) {
			return op.Errorf("data result #%d must not be !tfg.control", i)
		}
	}
	seenControl := false
	numData := 0
	for i := range op.NumOperands() {
		if IsControl(op.Operand(i).Type()) {
			seenControl = true
		} else if seenControl {
			return op.Errorf("data operand #%d follows a control operand", i)
		} else {
			numData++
		}
	}
	for i := range sig.Attrs {
		a := &sig.Attrs[i]
		v := op.Attr(a.Name)
		if v == nil {
			if a.Required() {
				return op.Errorf("requires attribute '%s' (%s)", a.Name, a.Kind)
			}
			continue
		}
		if !attrKindMatches(a.Kind, v) {
			return op.Errorf("attribute '%s' must be a TensorFlow %s, got %s", a.Name, a.Kind, textir.AttrString(v))
		}
	}
	wantIn, okIn := argCount(op, sig, sig.Inputs)
	wantOut, okOut := argCount(op, sig, sig.Outputs)
	if okIn && numData != wantIn {
		return op.Errorf("expects %d data inputs, but found %d", wantIn, numData)
	}
	if okOut && n-1 != wantOut {
		return op.Errorf("expects %d data results, but found %d", wantOut, n-1)
	}
	return nil
}

// argCount counts the tensors of a signature's argument list from op's
// attributes; ok is false when an attribute it needs is missing (reported
// by the attribute checks, or a placeholder inside a function).
func argCount(op *textir.Operation, sig *optab.Op, args []optab.Arg) (int, bool) {
	total := 0
	for _, a := range args {
		switch {
		case a.NumberAttr != "":
			v, ok := attrOrDefault(op, sig, a.NumberAttr).(textir.IntegerAttr)
			if !ok {
				return 0, false
			}
			total += int(v.Value)
		case a.TypeListAttr != "":
			v, ok := attrOrDefault(op, sig, a.TypeListAttr).(textir.ArrayAttr)
			if !ok {
				return 0, false
			}
			total += len(v.Elems)
		default:
			total++
		}
	}
	return total, true
}

func attrOrDefault(op *textir.Operation, sig *optab.Op, name string) textir.Attribute {
	if v := op.Attr(name); v != nil {
		return v
	}
	if a, ok := sig.Attr(name); ok {
		switch v := a.Default.(type) {
		case optab.EmptyList:
			// Only the length of a defaulted list(type) matters here.
			return textir.ArrayAttr{}
		case optab.Int:
			return textir.I64Attr(int64(v))
		}
	}
	return nil
}

// attrKindMatches checks an attribute against a TensorFlow attr kind
// ("type", "int", "list(type)", ...). Placeholders (inside functions) match
// every kind.
func attrKindMatches(kind string, a textir.Attribute) bool {
	if o, ok := a.(textir.OpaqueAttr); ok && o.Dialect == Name && o.Name == "placeholder" {
		return true
	}
	if elem, ok := strings.CutPrefix(kind, "list("); ok {
		arr, ok := a.(textir.ArrayAttr)
		if !ok {
			return false
		}
		elem = strings.TrimSuffix(elem, ")")
		for _, e := range arr.Elems {
			if !attrKindMatches(elem, e) {
				return false
			}
		}
		return true
	}
	switch kind {
	case "type":
		_, ok := a.(textir.TypeAttr)
		return ok
	case "int":
		_, ok := a.(textir.IntegerAttr)
		return ok
	case "float":
		_, ok := a.(textir.FloatAttr)
		return ok
	case "bool":
		_, ok := a.(textir.BoolAttr)
		return ok
	case "string":
		_, ok := a.(textir.StringAttr)
		return ok
	case "shape":
		_, ok := ShapeOf(a)
		return ok
	case "tensor":
		if _, ok := a.(*textir.DenseElementsAttr); ok {
			return true
		}
		o, ok := a.(textir.OpaqueAttr)
		return ok && o.Dialect == Name && o.Name == "tensor_proto"
	case "func":
		o, ok := a.(textir.OpaqueAttr)
		return ok && o.Dialect == Name && o.Name == "func"
	}
	return true // kinds we do not check ("any")
}
