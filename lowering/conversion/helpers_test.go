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

// irb builds test IR tersely (internal/irdump).
type irb = irdump.Builder

var newIRB = irdump.NewBuilder

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
