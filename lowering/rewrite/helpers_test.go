package rewrite

import (
	"github.com/recom-compiler/recom/internal/irdump"
	"github.com/recom-compiler/recom/textir"
)

// The test dialect "tst": i64 arithmetic with folders.
//
//	tst.const {value = N}        ConstantLike, Pure
//	tst.add(a, b)                Pure, Commutative; folds c1+c2, x+0 -> x
//	tst.neg(a)                   Pure; folds -c, neg(neg(x)) -> x
//	tst.mul(a, b)                Pure; folds in place: mul(c, x) -> mul(x, c)
//	tst.func {region}            IsolatedFromAbove
//	tst.scope {region}           not isolated (constants hoist out of it)
func testDialect() *textir.Dialect {
	i64 := textir.I64()
	intOf := func(a textir.Attribute) (int64, bool) {
		ia, ok := a.(textir.IntegerAttr)
		return ia.Value, ok
	}
	d := &textir.Dialect{Name: "tst"}
	d.Ops = []*textir.OpDef{
		{Name: "tst.const", Results: textir.Exactly(1), Traits: textir.ConstantLike | textir.Pure,
			Attrs: []textir.AttrSpec{{Name: "value", Kind: textir.IntegerAttrKind}},
			Fold: func(op *textir.Operation, _ []textir.Attribute) []textir.FoldResult {
				return []textir.FoldResult{{Attr: op.Attr("value")}}
			}},
		{Name: "tst.add", Operands: textir.Exactly(2), Results: textir.Exactly(1), Traits: textir.Pure | textir.Commutative,
			Fold: func(op *textir.Operation, cs []textir.Attribute) []textir.FoldResult {
				a, aok := intOf(cs[0])
				b, bok := intOf(cs[1])
				switch {
				case aok && bok:
					return []textir.FoldResult{{Attr: textir.IntegerAttr{Value: a + b, Type: i64}}}
				case bok && b == 0:
					return []textir.FoldResult{{Value: op.Operand(0)}}
				}
				return nil
			}},
		{Name: "tst.neg", Operands: textir.Exactly(1), Results: textir.Exactly(1), Traits: textir.Pure,
			Fold: func(op *textir.Operation, cs []textir.Attribute) []textir.FoldResult {
				if a, ok := intOf(cs[0]); ok {
					return []textir.FoldResult{{Attr: textir.IntegerAttr{Value: -a, Type: i64}}}
				}
				if p := op.Operand(0).DefiningOp(); p != nil && p.Name() == "tst.neg" {
					return []textir.FoldResult{{Value: p.Operand(0)}}
				}
				return nil
			}},
		{Name: "tst.mul", Operands: textir.Exactly(2), Results: textir.Exactly(1), Traits: textir.Pure,
			Fold: func(op *textir.Operation, cs []textir.Attribute) []textir.FoldResult {
				if cs[0] != nil && cs[1] == nil {
					a, b := op.Operand(0), op.Operand(1)
					op.SetOperand(0, b)
					op.SetOperand(1, a)
					return []textir.FoldResult{{Value: op.Result(0)}}
				}
				return nil
			}},
		{Name: "tst.func", Regions: textir.Exactly(1), Traits: textir.IsolatedFromAbove},
		{Name: "tst.scope", Regions: textir.Exactly(1)},
	}
	d.MaterializeConstant = func(b *textir.Builder, a textir.Attribute, t textir.Type, loc textir.Location) *textir.Operation {
		if _, ok := a.(textir.IntegerAttr); !ok {
			return nil
		}
		st := &textir.OperationState{Name: "tst.const", Loc: loc, ResultTypes: []textir.Type{t}}
		st.AddAttr("value", a)
		return b.Create(st)
	}
	return d
}

func newCtx() *textir.Context {
	ctx := textir.NewContext(testDialect())
	ctx.AllowUnregistered = true
	return ctx
}

// irb builds test IR tersely (internal/irdump), with tst.const.
type irb struct{ *irdump.Builder }

func newIRB(ctx *textir.Context) *irb { return &irb{irdump.NewBuilder(ctx)} }

// c creates a tst.const of v.
func (x *irb) c(v int64) *textir.Value {
	st := &textir.OperationState{Name: "tst.const", ResultTypes: []textir.Type{textir.I64()}}
	st.AddAttr("value", textir.I64Attr(v))
	return x.B.Create(st).Result(0)
}

// dump and trim are the shared test printer (internal/irdump).
var (
	dump = irdump.Dump
	trim = irdump.Trim
)

// pat makes a pattern from a function.
func pat(root, name string, benefit int, fn func(op *textir.Operation, rw textir.PatternRewriter) bool) textir.RewritePattern {
	return &textir.Pattern{RootName: root, PatternName: name, Weight: benefit, Fn: fn}
}

// renameTo is a pattern rewriting op into an op named to (same operands,
// results and attributes).
func renameTo(root, to string, benefit int) textir.RewritePattern {
	return pat(root, root+"->"+to, benefit, func(op *textir.Operation, rw textir.PatternRewriter) bool {
		n := rw.Create(&textir.OperationState{Name: to, Operands: op.Operands(), ResultTypes: op.ResultTypes(), Attrs: op.Attrs(), Loc: op.Loc()})
		rw.ReplaceOp(op, n.Results())
		return true
	})
}
