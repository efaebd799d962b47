package tfg

import "github.com/recom-compiler/recom/textir"

// ConstInt returns the single integer of a tfg.Const (a scalar or a
// one-element tensor) that v is the value of.
func ConstInt(v *textir.Value) (int64, bool) {
	def := v.DefiningOp()
	if def == nil || def.Name() != "tfg.Const" {
		return 0, false
	}
	d, ok := def.Attr("value").(*textir.DenseElementsAttr)
	if !ok {
		return 0, false
	}
	t, err := TensorFromAttr(d)
	if err != nil || t.Len() != 1 {
		return 0, false
	}
	return t.Int64At(0)
}
