// Package arith is a subset of MLIR's arith dialect: constants, integer and
// float arithmetic, comparisons, select and casts, with MLIR's custom forms,
// verifiers, folders and canonicalization patterns.
package arith

import (
	"github.com/recom-compiler/recom/textir"
)

//go:generate go run ../internal/opviewgen -dialect arith

// Name is the dialect namespace.
const Name = "arith"

// Op names.
const (
	ConstantOp  = "arith.constant"
	AddIOp      = "arith.addi"
	SubIOp      = "arith.subi"
	MulIOp      = "arith.muli"
	DivSIOp     = "arith.divsi"
	RemSIOp     = "arith.remsi"
	AndIOp      = "arith.andi"
	OrIOp       = "arith.ori"
	XOrIOp      = "arith.xori"
	MaxSIOp     = "arith.maxsi"
	MinSIOp     = "arith.minsi"
	AddFOp      = "arith.addf"
	SubFOp      = "arith.subf"
	MulFOp      = "arith.mulf"
	DivFOp      = "arith.divf"
	CmpIOp      = "arith.cmpi"
	SelectOp    = "arith.select"
	IndexCastOp = "arith.index_cast"
	ExtSIOp     = "arith.extsi"
	TruncIOp    = "arith.trunci"
	SIToFPOp    = "arith.sitofp"

	// Ops that kernels need (unsigned division, shifts, float comparison,
	// more casts); see kernelops.go.
	DivUIOp    = "arith.divui"
	RemUIOp    = "arith.remui"
	ShLIOp     = "arith.shli"
	ShRSIOp    = "arith.shrsi"
	ShRUIOp    = "arith.shrui"
	MaximumFOp = "arith.maximumf"
	MinimumFOp = "arith.minimumf"
	NegFOp     = "arith.negf"
	CmpFOp     = "arith.cmpf"
	FPToSIOp   = "arith.fptosi"
	UIToFPOp   = "arith.uitofp"
	ExtUIOp    = "arith.extui"
)

// Type constraints, named as in MLIR's ODS.
var (
	signlessIntLike = textir.TypeConstraint{Desc: "signless-integer-like", Pred: func(t textir.Type) bool {
		return isSignlessIntOrIndex(textir.ElementType(t)) && isScalarOrTensor(t)
	}}
	signlessFixedIntLike = textir.TypeConstraint{Desc: "signless-fixed-width-integer-like", Pred: func(t textir.Type) bool {
		it, ok := textir.ElementType(t).(*textir.IntType)
		return ok && it.Signedness == textir.Signless && isScalarOrTensor(t)
	}}
	floatLike = textir.TypeConstraint{Desc: "floating-point-like", Pred: func(t textir.Type) bool {
		return textir.IsFloat(textir.ElementType(t)) && isScalarOrTensor(t)
	}}
	boolLike = textir.TypeConstraint{Desc: "bool-like", Pred: func(t textir.Type) bool {
		it, ok := textir.ElementType(t).(*textir.IntType)
		return ok && it.Width == 1 && it.Signedness == textir.Signless && isScalarOrTensor(t)
	}}
	indexOrIntLike = textir.TypeConstraint{Desc: "signless-integer-like or index-like", Pred: signlessIntLike.Pred}
)

func isSignlessIntOrIndex(t textir.Type) bool {
	switch t := t.(type) {
	case *textir.IntType:
		return t.Signedness == textir.Signless
	case *textir.IndexType:
		return true
	}
	return false
}

func isScalarOrTensor(t textir.Type) bool {
	switch t.(type) {
	case *textir.TensorType, *textir.UnrankedTensorType:
		return true
	}
	return textir.ElementType(t) == t
}

// Dialect returns the arith dialect.
func Dialect() *textir.Dialect {
	d := &textir.Dialect{
		Name:                Name,
		Summary:             "integer and floating-point arithmetic",
		MaterializeConstant: materializeConstant,
	}
	d.Ops = append(d.Ops, &textir.OpDef{
		Name:         ConstantOp,
		Summary:      "an integer, float or dense constant",
		Results:      textir.Exactly(1),
		NamedResults: []string{"result"},
		Attrs:        []textir.AttrSpec{{Name: "value", Kind: textir.AnyAttr}},
		Traits:       textir.Pure | textir.ConstantLike,
		Verify:       verifyConstant,
		Fold:         func(op *textir.Operation, _ []textir.Attribute) []textir.FoldResult { return foldConstant(op) },
		Print:        printConstant,
		Parse:        parseConstant,
		ResultNames:  constantNames,
	})
	bin := func(name, summary string, c textir.TypeConstraint, tr textir.Trait, fold func(*textir.Operation, []textir.Attribute) []textir.FoldResult, pats ...textir.RewritePattern) {
		if tr&textir.Commutative != 0 {
			pats = append(pats, constantToRight(name))
		}
		d.Ops = append(d.Ops, &textir.OpDef{
			Name: name, Summary: summary,
			Operands: textir.Exactly(2), Results: textir.Exactly(1),
			NamedOperands: []string{"lhs", "rhs"}, NamedResults: []string{"result"},
			OperandTypes: []textir.TypeConstraint{c}, ResultTypes: []textir.TypeConstraint{c},
			Traits:       textir.Pure | tr,
			Verify:       verifySameOperandsAndResultType,
			Fold:         fold,
			Canonicalize: pats,
			Print:        printBinary,
			Parse:        parseBinary,
		})
	}
	C := textir.Commutative
	bin(AddIOp, "integer addition (wraps around)", signlessIntLike, C, foldAddI, reassociate(AddIOp), subOfAddPattern())
	bin(SubIOp, "integer subtraction (wraps around)", signlessIntLike, 0, foldSubI, addOfSubPattern())
	bin(MulIOp, "integer multiplication (wraps around)", signlessIntLike, C, foldMulI, reassociate(MulIOp))
	bin(DivSIOp, "signed integer division, rounding toward zero", signlessIntLike, 0, foldDivSI)
	bin(RemSIOp, "signed integer remainder (sign of the dividend)", signlessIntLike, 0, foldRemSI)
	bin(AndIOp, "bitwise and", signlessIntLike, C, foldAndI)
	bin(OrIOp, "bitwise or", signlessIntLike, C, foldOrI)
	bin(XOrIOp, "bitwise exclusive or", signlessIntLike, C, foldXOrI)
	bin(MaxSIOp, "signed integer maximum", signlessIntLike, C, foldMaxSI)
	bin(MinSIOp, "signed integer minimum", signlessIntLike, C, foldMinSI)
	bin(AddFOp, "floating-point addition", floatLike, C, foldAddF)
	bin(SubFOp, "floating-point subtraction", floatLike, 0, foldSubF)
	bin(MulFOp, "floating-point multiplication", floatLike, C, foldMulF)
	bin(DivFOp, "floating-point division", floatLike, 0, foldDivF)
	d.Ops = append(d.Ops, &textir.OpDef{
		Name:          CmpIOp,
		Summary:       "integer comparison",
		Operands:      textir.Exactly(2),
		Results:       textir.Exactly(1),
		NamedOperands: []string{"lhs", "rhs"},
		NamedResults:  []string{"result"},
		OperandTypes:  []textir.TypeConstraint{signlessIntLike},
		ResultTypes:   []textir.TypeConstraint{boolLike},
		Attrs:         []textir.AttrSpec{{Name: "predicate", Kind: textir.IntegerAttrKind}},
		Traits:        textir.Pure,
		Verify:        verifyCmpI,
		Fold:          foldCmpI,
		Print:         printCmpI,
		Parse:         parseCmpI,
	}, &textir.OpDef{
		Name:          SelectOp,
		Summary:       "picks one of two values by a condition",
		Operands:      textir.Exactly(3),
		Results:       textir.Exactly(1),
		NamedOperands: []string{"condition", "true_value", "false_value"},
		NamedResults:  []string{"result"},
		OperandTypes:  []textir.TypeConstraint{boolLike, textir.AnyType},
		Traits:        textir.Pure,
		Verify:        verifySelect,
		Fold:          foldSelect,
		Print:         printSelect,
		Parse:         parseSelect,
	})
	cast := func(name, summary string, in, out textir.TypeConstraint, verify func(*textir.Operation) error, fold func(*textir.Operation, []textir.Attribute) []textir.FoldResult) {
		d.Ops = append(d.Ops, &textir.OpDef{
			Name: name, Summary: summary,
			Operands: textir.Exactly(1), Results: textir.Exactly(1),
			NamedOperands: []string{"in"}, NamedResults: []string{"out"},
			OperandTypes: []textir.TypeConstraint{in}, ResultTypes: []textir.TypeConstraint{out},
			Traits: textir.Pure,
			Verify: verify,
			Fold:   fold,
			Print:  printCast,
			Parse:  parseCast,
		})
	}
	cast(IndexCastOp, "casts between index and integer types", indexOrIntLike, indexOrIntLike, verifyIndexCast, foldIndexCast)
	cast(ExtSIOp, "sign-extends an integer to a wider type", signlessFixedIntLike, signlessFixedIntLike, verifyExtSI, foldExtSI)
	cast(TruncIOp, "truncates an integer to a narrower type", signlessFixedIntLike, signlessFixedIntLike, verifyTruncI, foldTruncI)
	cast(SIToFPOp, "converts a signed integer to floating point", signlessFixedIntLike, floatLike, verifySIToFP, foldSIToFP)
	bin(DivUIOp, "unsigned integer division", signlessIntLike, 0, foldDivUI)
	bin(RemUIOp, "unsigned integer remainder", signlessIntLike, 0, foldRemUI)
	bin(ShLIOp, "shift left (poison when the amount is not below the width)", signlessIntLike, 0, foldShift)
	bin(ShRSIOp, "arithmetic shift right", signlessIntLike, 0, foldShift)
	bin(ShRUIOp, "logical shift right", signlessIntLike, 0, foldShift)
	bin(MaximumFOp, "floating-point maximum (NaN if either operand is NaN)", floatLike, C, foldMaximumF)
	bin(MinimumFOp, "floating-point minimum (NaN if either operand is NaN)", floatLike, C, foldMinimumF)
	d.Ops = append(d.Ops, &textir.OpDef{
		Name: NegFOp, Summary: "floating-point negation",
		Operands: textir.Exactly(1), Results: textir.Exactly(1),
		NamedOperands: []string{"operand"}, NamedResults: []string{"result"},
		OperandTypes: []textir.TypeConstraint{floatLike}, ResultTypes: []textir.TypeConstraint{floatLike},
		Traits: textir.Pure,
		Verify: verifySameOperandsAndResultType,
		Fold:   foldNegF,
		Print:  printUnary,
		Parse:  parseUnary,
	}, &textir.OpDef{
		Name:          CmpFOp,
		Summary:       "floating-point comparison",
		Operands:      textir.Exactly(2),
		Results:       textir.Exactly(1),
		NamedOperands: []string{"lhs", "rhs"},
		NamedResults:  []string{"result"},
		OperandTypes:  []textir.TypeConstraint{floatLike},
		ResultTypes:   []textir.TypeConstraint{boolLike},
		Attrs:         []textir.AttrSpec{{Name: "predicate", Kind: textir.IntegerAttrKind}},
		Traits:        textir.Pure,
		Verify:        verifyCmpF,
		Fold:          foldCmpF,
		Print:         printCmpF,
		Parse:         parseCmpF,
	})
	cast(FPToSIOp, "converts floating point to a signed integer, rounding toward zero", floatLike, signlessFixedIntLike, verifyCastShape, foldFPToSI)
	cast(UIToFPOp, "converts an unsigned integer to floating point", signlessFixedIntLike, floatLike, verifyCastShape, foldUIToFP)
	cast(ExtUIOp, "zero-extends an integer to a wider type", signlessFixedIntLike, signlessFixedIntLike, verifyExtSI, foldExtUI)
	d.Ops = append(d.Ops, floatCastOps()...)
	return d
}
