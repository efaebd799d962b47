package densetogpu

import (
	"github.com/recom-compiler/recom/dialects/tfg"
	"github.com/recom-compiler/recom/dialects/tfg/optab"
	"github.com/recom-compiler/recom/lowering/foldbn"
	"github.com/recom-compiler/recom/textir"
)

// constShape returns the static shape of a constant or variable value
// (tfg.Const, or a VariableV2 / VarHandleOp read through Identity and
// ReadVariableOp), or false when v is neither or its shape is not known.
func constShape(v *textir.Value) ([]int64, bool) {
	// A parameter expression of static type (--fold-bn's folded weight
	// and bias, cast from f64): the runtime evaluates it once.
	if d := v.DefiningOp(); d != nil && d.Name() == "tfg.Cast" && foldbn.IsParam(v) {
		if tt, ok := v.Type().(*textir.TensorType); ok && tt.Elem == textir.F32() {
			static := true
			for _, n := range tt.Shape {
				static = static && n >= 0
			}
			if static {
				return tt.Shape, true
			}
		}
	}
	for range 16 {
		def := v.DefiningOp()
		if def == nil || v != optab.SoleResult(def) {
			return nil, false
		}
		switch def.Name() {
		case "tfg.Identity", "tfg.ReadVariableOp", "tfg.Snapshot":
			in := optab.SoleOperand(def)
			if in == nil || len(tfg.DataOperands(def)) != 1 {
				return nil, false
			}
			v = in
		case "tfg.Const":
			d, ok := def.Attr("value").(*textir.DenseElementsAttr)
			if !ok || d.Type == nil {
				return nil, false
			}
			return d.Type.Shape, true
		case "tfg.VariableV2", "tfg.Variable", "tfg.VarHandleOp":
			s, ok := tfg.ShapeOf(def.Attr("shape"))
			if !ok || s.UnknownRank {
				return nil, false
			}
			for _, d := range s.Dims {
				if d < 0 {
					return nil, false
				}
			}
			return s.Dims, true
		default:
			return nil, false
		}
	}
	return nil, false
}

// width returns the static number of columns of a [?, w] value, looking
// through the ops of dense chains (and their fused forms) when its type
// does not say.
func width(v *textir.Value) (int64, bool) {
	for range 32 {
		if tt, ok := v.Type().(*textir.TensorType); ok {
			if len(tt.Shape) == 2 && tt.Shape[1] >= 0 {
				return tt.Shape[1], true
			}
			return 0, false
		}
		def := v.DefiningOp()
		if def == nil || v != optab.SoleResult(def) {
			return 0, false
		}
		switch def.Name() {
		case "tfg.Relu", "tfg.Sigmoid", "tfg.Tanh", "tfg.Identity":
			if v = optab.SoleOperand(def); v == nil {
				return 0, false
			}
		case "tfg.BiasAdd":
			if v = optab.Operand(def, "value"); v == nil {
				return 0, false
			}
		case "tfg.MatMul":
			w := optab.Operand(def, "b")
			if w == nil || len(tfg.DataOperands(def)) != 2 {
				return 0, false
			}
			ws, ok := constShape(w)
			if !ok || len(ws) != 2 {
				return 0, false
			}
			if boolAttr(def, "transpose_b") {
				return ws[0], true
			}
			return ws[1], true
		case "tfg.Placeholder":
			s, ok := tfg.ShapeOf(def.Attr("shape"))
			if !ok || s.UnknownRank || len(s.Dims) != 2 || s.Dims[1] < 0 {
				return 0, false
			}
			return s.Dims[1], true
		default:
			return 0, false
		}
	}
	return 0, false
}
