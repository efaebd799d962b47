package shape

import (
	"slices"

	"github.com/recom-compiler/recom/dialects/arith"
	"github.com/recom-compiler/recom/dialects/shape/expr"
	"github.com/recom-compiler/recom/textir"
)

// SimplifyMap rewrites a map and its operands: constant operands are
// substituted, operands that are shape.apply results are inlined (one
// level: a greedy driver repeats), repeated operands are merged and unused
// ones dropped. changed is false when nothing would change.
func SimplifyMap(m expr.Map, operands []*textir.Value) (expr.Map, []*textir.Value, bool) {
	var newOps []*textir.Value
	var names []string
	used := map[string]bool{}
	pos := map[*textir.Value]expr.Sym{}
	param := func(v *textir.Value, name string) expr.Expr {
		if s, ok := pos[v]; ok {
			return expr.Var(s)
		}
		if n, _, ok := SymbolOf(v); ok {
			name = n
		}
		s := expr.Sym(len(newOps))
		pos[v] = s
		newOps = append(newOps, v)
		names = append(names, uniqueName(name, used))
		return expr.Var(s)
	}
	sub := make([]expr.Expr, len(operands))
	for i, v := range operands {
		if c, ok := intConst(arith.ConstantValue(v)); ok {
			sub[i] = expr.Const(c)
			continue
		}
		if def := v.DefiningOp(); def != nil && def.Name() == ApplyOp {
			if im, err := OpMap(def); err == nil && len(im.Results) == 1 && len(im.Params) == def.NumOperands() {
				args := make([]expr.Expr, len(im.Params))
				for j := range im.Params {
					args[j] = param(def.Operand(j), im.Params[j])
				}
				sub[i] = im.Results[0].Subst(func(s expr.Sym) (expr.Expr, bool) { return args[s], true })
				if sub[i].Err() == nil {
					continue
				}
			}
		}
		sub[i] = param(v, m.Params[i])
	}
	rs := make([]expr.Expr, len(m.Results))
	for i, r := range m.Results {
		rs[i] = r.Subst(func(s expr.Sym) (expr.Expr, bool) { return sub[s], true })
		if rs[i].Err() != nil {
			return m, operands, false // e.g. a constant division by zero: keep it for run time
		}
	}
	// Drop unused parameters.
	var usedSyms []expr.Sym
	for _, r := range rs {
		usedSyms = append(usedSyms, r.Syms()...)
	}
	keep := map[expr.Sym]expr.Sym{}
	var finalOps []*textir.Value
	var finalNames []string
	for i, v := range newOps {
		if slices.Contains(usedSyms, expr.Sym(i)) {
			keep[expr.Sym(i)] = expr.Sym(len(finalOps))
			finalOps = append(finalOps, v)
			finalNames = append(finalNames, names[i])
		}
	}
	for i := range rs {
		rs[i] = rs[i].Rename(func(s expr.Sym) expr.Sym { return keep[s] })
	}
	nm := expr.Map{Params: finalNames, Results: rs}
	if nm.Check() != nil {
		return m, operands, false
	}
	changed := !slices.Equal(finalOps, operands) || !nm.Equal(m)
	return nm, finalOps, changed
}

// simplifyMapOperandsPattern applies SimplifyMap to shape.apply and
// shape.assert_shape (whose first operand is the tensor).
func simplifyMapOperandsPattern(root string) textir.RewritePattern {
	return &textir.Pattern{RootName: root, PatternName: root + "-simplify-operands", Weight: 1,
		Fn: func(op *textir.Operation, rw textir.PatternRewriter) bool {
			m, err := OpMap(op)
			if err != nil {
				return false
			}
			lead := 0
			if root == AssertShapeOp {
				lead = 1
			}
			all := op.Operands()
			if len(m.Params) != len(all)-lead {
				return false
			}
			nm, ops, changed := SimplifyMap(m, all[lead:])
			if !changed {
				return false
			}
			rw.ModifyOpInPlace(op, func() {
				op.SetOperands(append(slices.Clone(all[:lead]), ops...))
				setAttr(op, MapAttr, ExprAttr(nm))
			})
			return true
		}}
}

// eraseStaticAssertPattern erases a shape.assert_shape on a static tensor
// type whose asserted dims are all constants (the verifier has checked
// they match).
func eraseStaticAssertPattern() textir.RewritePattern {
	return &textir.Pattern{RootName: AssertShapeOp, PatternName: "shape.assert_shape-erase-static", Weight: 2,
		Fn: func(op *textir.Operation, rw textir.PatternRewriter) bool {
			tt, ok := op.Operand(0).Type().(*textir.TensorType)
			if !ok || !tt.HasStaticShape() {
				return false
			}
			m, err := OpMap(op)
			if err != nil || len(m.Results) != len(tt.Shape) {
				return false
			}
			for i, r := range m.Results {
				if c, ok := r.IsConst(); !ok || c != tt.Shape[i] {
					return false
				}
			}
			rw.EraseOp(op)
			return true
		}}
}

// setAttr replaces attribute name where it lives: in the properties (a
// dictionary, as the generic form's <{...}> makes) or the attributes.
func setAttr(op *textir.Operation, name string, a textir.Attribute) {
	if props, ok := op.Props().(textir.DictAttr); ok && props.Get(name) != nil {
		entries := slices.Clone(props.Entries)
		for i := range entries {
			if entries[i].Name == name {
				entries[i].Value = a
			}
		}
		op.SetProps(textir.NewDictAttr(entries))
		return
	}
	op.SetAttr(name, a)
}
