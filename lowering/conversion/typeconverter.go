package conversion

import (
	"github.com/recom-compiler/recom/dialects/builtin"
	"github.com/recom-compiler/recom/textir"
)

// CastOpName is the op default materializations create.
const CastOpName = builtin.CastOp

// MaterializeFunc builds IR at b's insertion point that turns inputs into
// one value of type t, or returns nil when it cannot.
type MaterializeFunc func(b *textir.Builder, t textir.Type, inputs []*textir.Value, loc textir.Location) *textir.Value

// TypeConverter converts types. Conversion functions are tried from the
// most recently added to the first (as MLIR does), and the first that
// answers decides. A type no function answers for does not convert.
type TypeConverter struct {
	conversions []func(textir.Type) (textir.Type, bool)
	// SourceMaterialization turns a converted value back into its old type
	// for users not converted (yet). Nil: an unrealized_conversion_cast.
	SourceMaterialization MaterializeFunc
	// TargetMaterialization turns a value of an old type into the converted
	// type for a pattern's operands. Nil: an unrealized_conversion_cast.
	TargetMaterialization MaterializeFunc
}

// NewTypeConverter returns a converter with the given conversions, in the
// order AddConversion would add them.
func NewTypeConverter(fns ...func(textir.Type) (textir.Type, bool)) *TypeConverter {
	tc := &TypeConverter{}
	for _, fn := range fns {
		tc.AddConversion(fn)
	}
	return tc
}

// AddConversion adds a conversion function; fn returns (converted, true)
// to decide, or (nil, false) to let earlier functions try.
func (tc *TypeConverter) AddConversion(fn func(textir.Type) (textir.Type, bool)) {
	tc.conversions = append(tc.conversions, fn)
}

// ConvertType converts t; ok is false when no conversion applies.
func (tc *TypeConverter) ConvertType(t textir.Type) (textir.Type, bool) {
	for i := len(tc.conversions) - 1; i >= 0; i-- {
		if r, ok := tc.conversions[i](t); ok && r != nil {
			return r, true
		}
	}
	return nil, false
}

// ConvertTypes converts each type; ok is false if one does not convert.
func (tc *TypeConverter) ConvertTypes(ts []textir.Type) ([]textir.Type, bool) {
	out := make([]textir.Type, len(ts))
	for i, t := range ts {
		r, ok := tc.ConvertType(t)
		if !ok {
			return nil, false
		}
		out[i] = r
	}
	return out, true
}

// IsLegal reports whether t converts to itself.
func (tc *TypeConverter) IsLegal(t textir.Type) bool {
	r, ok := tc.ConvertType(t)
	return ok && r == t
}

// IsLegalOp reports whether all of op's operand and result types, and the
// argument types of the blocks of its regions, are legal.
func (tc *TypeConverter) IsLegalOp(op *textir.Operation) bool {
	for _, t := range op.OperandTypes() {
		if !tc.IsLegal(t) {
			return false
		}
	}
	for _, t := range op.ResultTypes() {
		if !tc.IsLegal(t) {
			return false
		}
	}
	for _, r := range op.Regions() {
		for _, b := range r.Blocks() {
			for _, a := range b.Args() {
				if !tc.IsLegal(a.Type()) {
					return false
				}
			}
		}
	}
	return true
}

func defaultMaterialize(b *textir.Builder, t textir.Type, inputs []*textir.Value, loc textir.Location) *textir.Value {
	_, out, _ := oneToOneCast(b.Create(&textir.OperationState{Name: CastOpName, Loc: loc, Operands: inputs, ResultTypes: []textir.Type{t}}))
	return out
}

// oneToOneCast returns the input and the output of an
// unrealized_conversion_cast of one value to one value; ok is false for
// another op.
func oneToOneCast(op *textir.Operation) (in, out *textir.Value, ok bool) {
	c, ok := builtin.AsCast(op)
	ins, outs := c.Inputs(), c.Outputs()
	if !ok || len(ins) != 1 || len(outs) != 1 {
		return nil, nil, false
	}
	return ins[0], outs[0], true
}
