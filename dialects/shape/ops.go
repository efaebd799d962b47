// Package shape is recom's shape dialect: symbolic sizes. TensorFlow
// computes shapes at run time with chains of Shape, StridedSlice, Pack,
// Prod, Slice, Cast, GatherV2 and ConcatV2; the shape dialect replaces them
// with a few symbols (the batch size, per-column value counts, the counts
// that Unique, Where or StringSplit produce) and index arithmetic given as
// symbolic expressions (package expr), so that every size is an expression
// of the symbols, ready for one buffer plan on the GPU.
//
// # Ops
//
//	%b = shape.dim %x, 0 {symbol = "batch"} : tensor<?x1xi64> -> index
//	%n = shape.count %values {symbol = "nnz.age"} : tensor<?xi64> -> index
//	%e = shape.apply #shape.expr<(batch, n) -> batch * 8 + n>(%b, %n) : index
//	%s = shape.from_extents %b, %e : tensor<2xi64>
//	%t = shape.index_cast %e : index to tensor<i32>
//	%i = shape.index_cast %t : tensor<i32> to index
//	shape.assert_shape %y, #shape.expr<(batch) -> (batch, 8)>(%b) : tensor<?x8xf32>
//
// shape.dim binds a symbol to a dimension of a program input (its kind is
// expr.InputDim: known before anything runs); shape.count binds a symbol
// to the number of elements of a computed tensor (expr.DataCount: known
// once the op that makes it has run). The optional 'symbol' attribute names
// the symbol; without it the op is a plain size query. SymbolOf reads the
// binding back. Binding with two ops, rather than one with a kind
// attribute, makes the kind impossible to get wrong and lets a buffer
// planner find every run-time count with one op name.
//
// shape.apply computes an index from index operands with an expression
// map, #shape.expr<(p0, p1, ...) -> expr>, whose parameters name the
// operands in order (as affine.apply's affine_map does; the names are for
// reading only, and the map's text is what package expr prints and
// parses, in quotes or not: #shape.expr<"(b) -> b * 8"> reads the same).
// Keeping the expression in one attribute, rather than a tree of arith
// ops, is what lets canonicalization compose chains of applies into one
// canonical expression, and lets the later --simplify-shapes pass rebuild
// any size with one op.
//
// shape.from_extents packs index values into a rank-1 i32 or i64 tensor (a
// TensorFlow shape operand: Reshape's shape, Fill's dims, Tile's
// multiples); shape.index_cast converts between index and a rank-0 i32 or
// i64 tensor (a TensorFlow scalar size). Converting an index that does not
// fit in i32 is a run-time error in the interpreter.
//
// # Symbolic shapes of values: shape.assert_shape
//
// shape.assert_shape states that the dims of a tensor are the results of
// a map applied to index operands. It is an op, not an attribute, because
// (1) its operands tie the shape to the SSA values of the symbols, so the
// verifier checks arity, static dims and the map, uses keep the symbol
// bindings alive, and rewrites (RAUW, canonicalization, CSE) keep it
// correct, where a string attribute naming global symbols would silently
// go stale; (2) the interpreter checks it, so the symbolic shape analysis
// is tested on every run that includes it. It has no result and is not
// Pure (like cf.assert): dead-code elimination keeps it. The interpreter
// evaluates only what the requested outputs need: request "^name" to run
// an assertion. An assertion whose tensor type is static and whose dims
// are constant canonicalizes away.
//
// # Folding and canonicalization
//
// shape.dim and shape.count fold on static shapes; shape.apply folds when
// its expression is constant (after substituting constant operands) or is
// one of its operands; shape.from_extents of constants folds to a dense
// constant; shape.index_cast folds constants and round trips. The
// canonicalization of shape.apply and shape.assert_shape substitutes
// constant operands, inlines operands that are themselves applies (so a
// chain of applies becomes one expression), merges repeated operands and
// drops unused ones. Constants materialize as arith.constant.
//
// # Interpreter
//
// Importing the package registers kernels for every op with interp/exec;
// index values are int64 scalar tensors.
package shape

import (
	"github.com/recom-compiler/recom/dialects/arith"
	"github.com/recom-compiler/recom/textir"
)

//go:generate go run ../internal/opviewgen -dialect shape

// Name is the dialect namespace.
const Name = "shape"

// Op names.
const (
	DimOp         = "shape.dim"
	CountOp       = "shape.count"
	ApplyOp       = "shape.apply"
	FromExtentsOp = "shape.from_extents"
	IndexCastOp   = "shape.index_cast"
	AssertShapeOp = "shape.assert_shape"
)

// Attribute names.
const (
	SymbolAttr = "symbol" // shape.dim, shape.count: the symbol's name
	IndexAttr  = "index"  // shape.dim: the dimension
	MapAttr    = "map"    // shape.apply, shape.assert_shape: #shape.expr<...>
)

var (
	indexType = textir.TypeConstraint{Desc: "index", Pred: func(t textir.Type) bool {
		_, ok := t.(*textir.IndexType)
		return ok
	}}
	anyTensor = textir.TypeConstraint{Desc: "tensor", Pred: func(t textir.Type) bool {
		switch t.(type) {
		case *textir.TensorType, *textir.UnrankedTensorType:
			return true
		}
		return false
	}}
	shapeTensor = textir.TypeConstraint{Desc: "1-D tensor of 32- or 64-bit signless integers", Pred: func(t textir.Type) bool {
		tt, ok := t.(*textir.TensorType)
		return ok && len(tt.Shape) == 1 && isI32OrI64(tt.Elem)
	}}
	indexOrScalarInt = textir.TypeConstraint{Desc: "index or 0-D tensor of 32- or 64-bit signless integers", Pred: func(t textir.Type) bool {
		return indexType.Pred(t) || isScalarIntTensor(t)
	}}
)

func isI32OrI64(t textir.Type) bool { return t == textir.I32() || t == textir.I64() }

func isScalarIntTensor(t textir.Type) bool {
	tt, ok := t.(*textir.TensorType)
	return ok && len(tt.Shape) == 0 && isI32OrI64(tt.Elem)
}

// Dialect returns the shape dialect.
func Dialect() *textir.Dialect {
	return &textir.Dialect{
		Name:                Name,
		Summary:             "symbolic sizes: symbols bound to dims and counts, index expressions, shape tensors",
		MaterializeConstant: materializeConstant,
		Ops: []*textir.OpDef{{
			Name:          DimOp,
			Summary:       "a dimension of a tensor, optionally bound to an input-dimension symbol",
			Operands:      textir.Exactly(1),
			Results:       textir.Exactly(1),
			NamedOperands: []string{"source"},
			NamedResults:  []string{"result"},
			OperandTypes:  []textir.TypeConstraint{anyTensor},
			ResultTypes:   []textir.TypeConstraint{indexType},
			Attrs: []textir.AttrSpec{{Name: IndexAttr, Kind: textir.IntegerAttrKind},
				{Name: SymbolAttr, Kind: textir.StringAttrKind, Optional: true}},
			Traits:      textir.Pure,
			Verify:      verifyDim,
			Fold:        foldDim,
			Print:       printDim,
			Parse:       parseDim,
			ResultNames: symbolResultName,
		}, {
			Name:          CountOp,
			Summary:       "the number of elements of a tensor, optionally bound to a data-dependent count symbol",
			Operands:      textir.Exactly(1),
			Results:       textir.Exactly(1),
			NamedOperands: []string{"source"},
			NamedResults:  []string{"result"},
			OperandTypes:  []textir.TypeConstraint{anyTensor},
			ResultTypes:   []textir.TypeConstraint{indexType},
			Attrs:         []textir.AttrSpec{{Name: SymbolAttr, Kind: textir.StringAttrKind, Optional: true}},
			Traits:        textir.Pure,
			Verify:        verifySymbolName,
			Fold:          foldCount,
			Print:         printCount,
			Parse:         parseCount,
			ResultNames:   symbolResultName,
		}, {
			Name:          ApplyOp,
			Summary:       "an index computed by a symbolic expression of index operands",
			Operands:      textir.AtLeast(0),
			Results:       textir.Exactly(1),
			NamedOperands: []string{"map_operands..."},
			NamedResults:  []string{"result"},
			OperandTypes:  []textir.TypeConstraint{indexType},
			ResultTypes:   []textir.TypeConstraint{indexType},
			Attrs:         []textir.AttrSpec{{Name: MapAttr, Kind: textir.AnyAttr}},
			Traits:        textir.Pure,
			Verify:        verifyApply,
			Fold:          foldApply,
			Canonicalize:  []textir.RewritePattern{simplifyMapOperandsPattern(ApplyOp)},
			Print:         printApply,
			Parse:         parseApply,
		}, {
			Name:          FromExtentsOp,
			Summary:       "a rank-1 integer shape tensor made of index values",
			Operands:      textir.AtLeast(0),
			Results:       textir.Exactly(1),
			NamedOperands: []string{"extents..."},
			NamedResults:  []string{"result"},
			OperandTypes:  []textir.TypeConstraint{indexType},
			ResultTypes:   []textir.TypeConstraint{shapeTensor},
			Traits:        textir.Pure,
			Verify:        verifyFromExtents,
			Fold:          foldFromExtents,
			Print:         printFromExtents,
			Parse:         parseFromExtents,
		}, {
			Name:          IndexCastOp,
			Summary:       "converts between index and a 0-D i32 or i64 tensor",
			Operands:      textir.Exactly(1),
			Results:       textir.Exactly(1),
			NamedOperands: []string{"in"},
			NamedResults:  []string{"out"},
			OperandTypes:  []textir.TypeConstraint{indexOrScalarInt},
			ResultTypes:   []textir.TypeConstraint{indexOrScalarInt},
			Traits:        textir.Pure,
			Verify:        verifyIndexCast,
			Fold:          foldIndexCast,
			Print:         printIndexCast,
			Parse:         parseIndexCast,
		}, {
			Name:          AssertShapeOp,
			Summary:       "asserts that a tensor's dims are a map of index operands",
			Operands:      textir.AtLeast(1),
			Results:       textir.Exactly(0),
			NamedOperands: []string{"tensor", "map_operands..."},
			OperandTypes:  []textir.TypeConstraint{anyTensor, indexType},
			Attrs:         []textir.AttrSpec{{Name: MapAttr, Kind: textir.AnyAttr}},
			Verify:        verifyAssertShape,
			Canonicalize:  []textir.RewritePattern{simplifyMapOperandsPattern(AssertShapeOp), eraseStaticAssertPattern()},
			Print:         printAssertShape,
			Parse:         parseAssertShape,
		}},
	}
}

// materializeConstant builds arith.constant for index and dense constants.
func materializeConstant(b *textir.Builder, a textir.Attribute, t textir.Type, loc textir.Location) *textir.Operation {
	switch x := a.(type) {
	case textir.IntegerAttr:
		if _, ok := t.(*textir.IndexType); !ok {
			return nil
		}
		return arith.Constant(b, loc, textir.IntegerAttr{Value: x.Value, Type: t})
	case *textir.DenseElementsAttr:
		if x.Type != t {
			return nil
		}
		return arith.Constant(b, loc, x)
	}
	return nil
}
