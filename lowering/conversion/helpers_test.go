package conversion

import (
	"github.com/recom-compiler/recom/internal/irdump"
	"github.com/recom-compiler/recom/textir"
)

func newCtx() *textir.Context {
	ctx := textir.NewContext()
	ctx.AllowUnregistered = true
	return ctx
}

// irb builds test IR tersely.
type irb struct {
	ctx *textir.Context
	b   *textir.Builder
}

func newIRB(ctx *textir.Context) *irb { return &irb{ctx: ctx, b: textir.NewBuilder(ctx)} }

func (x *irb) module() *textir.Operation {
	m := x.ctx.Create(&textir.OperationState{Name: "test.module", NumRegions: 1})
	x.b.CreateBlock(m.Region(0))
	return m
}

func (x *irb) region(name string, argTypes []textir.Type, body func(args []*textir.Value)) *textir.Operation {
	op := x.b.Create(&textir.OperationState{Name: name, NumRegions: 1})
	blk, pos := x.b.Block, x.b.Pos
	nb := x.b.CreateBlock(op.Region(0), argTypes...)
	body(nb.Args())
	x.b.Block, x.b.Pos = blk, pos
	return op
}

func (x *irb) op(name string, nres int, operands ...*textir.Value) *textir.Operation {
	ts := make([]textir.Type, nres)
	for i := range ts {
		ts[i] = textir.I64()
	}
	return x.b.Create(&textir.OperationState{Name: name, Operands: operands, ResultTypes: ts})
}

func (x *irb) v(name string, operands ...*textir.Value) *textir.Value {
	return x.op(name, 1, operands...).Result(0)
}

func at(op *textir.Operation, line int) *textir.Operation {
	op.SetLoc(textir.FileLineColLoc{File: "t.mlir", Line: line, Col: 3})
	return op
}

// dump and trim are the shared test printer (internal/irdump).
var (
	dump = irdump.Dump
	trim = irdump.Trim
)

// cpat makes a conversion pattern from a function.
func cpat(root, name string, benefit int, fn func(op *textir.Operation, operands []*textir.Value, rw *ConversionRewriter) bool) ConversionPattern {
	return &Pattern{RootName: root, PatternName: name, Weight: benefit, Fn: fn}
}

// rename converts op into an op named to, with the converted operands and
// result types converted by tc (when given).
func rename(root, to string, tc *TypeConverter) ConversionPattern {
	return cpat(root, root+"->"+to, 1, func(op *textir.Operation, operands []*textir.Value, rw *ConversionRewriter) bool {
		ts := op.ResultTypes()
		if tc != nil {
			var ok bool
			if ts, ok = tc.ConvertTypes(ts); !ok {
				return false
			}
		}
		n := rw.Create(&textir.OperationState{Name: to, Operands: operands, ResultTypes: ts, Attrs: op.Attrs(), Loc: op.Loc()})
		rw.ReplaceOp(op, n.Results())
		return true
	})
}

// i64ToI32 converts i64 to i32 and keeps every other type.
func i64ToI32() *TypeConverter {
	return NewTypeConverter(
		func(t textir.Type) (textir.Type, bool) { return t, true },
		func(t textir.Type) (textir.Type, bool) {
			if t == textir.I64() {
				return textir.I32(), true
			}
			return nil, false
		})
}
