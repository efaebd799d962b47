// Package emb is the embedding-column dialect: the few ops an embedding
// column of a recommendation model becomes after --lower-emb replaces the
// 35 to 45 TensorFlow nodes of each feature column, with exactly the same
// meaning, and which --fuse lowers into one GPU kernel.
//
// # The ragged form
//
// A batch of B bags of ids is two values: values : tensor<?xT> and
// row_splits : tensor<?xi64> (B+1 entries, non-decreasing, starting at 0,
// ending at the number of values); bag b is values[splits[b]:splits[b+1]].
// Every TensorFlow encoding of "a bag of ids per row" meets in this form:
//
//	sources      emb.from_dense, emb.from_sparse, emb.split_strings  -> (values, row_splits)
//	cross        emb.cross (the crossed column's product)            (values, row_splits)... -> (values, row_splits)
//	transforms   emb.hash, emb.as_string, emb.bucketize, emb.vocab_lookup,
//	             emb.check_range, emb.cast, emb.add_offset            values -> values
//	filter       emb.filter                                           (values, row_splits[, weights]) -> same
//	tables       emb.table                                            a [R, D] parameter or constant
//	lookups      emb.lookup, emb.gather_scatter, emb.gather           -> tensor<?xDxf32>, B rows
//	layer        emb.concat                                           the input_layer's ConcatV2(axis 1)
//
// Ragged values, row splits and weights always have the types tensor<?xT>,
// tensor<?xi64> and tensor<?xF>; the custom forms rely on it (the row
// splits' type is never printed).
//
// Strings are !tfg.string, as in the tfg dialect the columns come from.
//
// ValueRange (ranges.go) is the interval analysis over id transforms that
// removes TensorFlow's id pruning; BagSize bounds the number of ids per
// bag, which picks the gather and gather-scatter forms of a lookup.
// semantics.go registers the interpreter kernels (interp/exec).
package emb

import (
	"github.com/recom-compiler/recom/dialects/tfg"
	"github.com/recom-compiler/recom/textir"
)

//go:generate go run ../internal/opviewgen -dialect emb

// Name is the dialect namespace.
const Name = "emb"

// Op names.
const (
	FromDenseOp     = "emb.from_dense"
	FromSparseOp    = "emb.from_sparse"
	SplitStringsOp  = "emb.split_strings"
	HashOp          = "emb.hash"
	AsStringOp      = "emb.as_string"
	BucketizeOp     = "emb.bucketize"
	VocabLookupOp   = "emb.vocab_lookup"
	CheckRangeOp    = "emb.check_range"
	CastOp          = "emb.cast"
	AddOffsetOp     = "emb.add_offset"
	FilterOp        = "emb.filter"
	TableOp         = "emb.table"
	LookupOp        = "emb.lookup"
	GatherOp        = "emb.gather"
	GatherScatterOp = "emb.gather_scatter"
	ConcatOp        = "emb.concat"
)

// Attribute names.
const (
	AttrIgnore          = "ignore"
	AttrSep             = "sep"
	AttrNumBuckets      = "num_buckets"
	AttrBoundaries      = "boundaries"
	AttrKeys            = "keys"
	AttrNumOOVBuckets   = "num_oov_buckets"
	AttrDefault         = "default"
	AttrStride          = "stride"
	AttrMin             = "min"
	AttrMax             = "max"
	AttrPositiveWeights = "positive_weights"
	AttrName            = "name"
	AttrValue           = "value"
	AttrCombiner        = "combiner"
	AttrDivNoNaN        = "div_no_nan"
)

// Combiners of emb.lookup and emb.gather_scatter.
const (
	CombinerSum   = "sum"
	CombinerMean  = "mean"
	CombinerSqrtN = "sqrtn"
)

// StringType returns !tfg.string, the element type of string ids.
func StringType() textir.Type { return tfg.String() }

// SplitsType returns tensor<?xi64>, the type of every row_splits value.
func SplitsType() textir.Type { return textir.TensorOf([]int64{textir.Dynamic}, textir.I64()) }

// RaggedType returns tensor<?xelem>, the type of ragged values and weights.
func RaggedType(elem textir.Type) textir.Type {
	return textir.TensorOf([]int64{textir.Dynamic}, elem)
}

// Element-type predicates.

func isSignlessInt(t textir.Type) bool {
	it, ok := t.(*textir.IntType)
	return ok && it.Signedness == textir.Signless && it.Width > 1 && it.Width <= 64
}

func isString(t textir.Type) bool { return t == tfg.String() }

func isIdElem(t textir.Type) bool { return isSignlessInt(t) || isString(t) }

func isIndexElem(t textir.Type) bool { return t == textir.I32() || t == textir.I64() }

func isFloatElem(t textir.Type) bool {
	return t == textir.F32() || t == textir.F64()
}

func isRaw(t textir.Type) bool { return isIdElem(t) || isFloatElem(t) }

// ragged1D returns the element type of t when t is tensor<?xE>.
func ragged1D(t textir.Type) (textir.Type, bool) {
	tt, ok := t.(*textir.TensorType)
	if !ok || len(tt.Shape) != 1 || tt.Shape[0] != textir.Dynamic {
		return nil, false
	}
	return tt.Elem, true
}

func raggedOf(desc string, elem func(textir.Type) bool) textir.TypeConstraint {
	return textir.TypeConstraint{Desc: desc, Pred: func(t textir.Type) bool {
		e, ok := ragged1D(t)
		return ok && elem(e)
	}}
}

// Type constraints.
var (
	rawValues = raggedOf("ragged values tensor<?xT> of integers, floats or strings", isRaw)
	idValues  = raggedOf("ragged values tensor<?xT> of integers or strings", isIdElem)
	intValues = raggedOf("ragged values tensor<?xiN> of signless integers", isSignlessInt)
	// anyValues: emb.filter keeps values of any type when it filters by
	// weights only (the kernel hashes after the filter, see --fuse).
	anyValues    = raggedOf("ragged values tensor<?xT>", func(textir.Type) bool { return true })
	stringValues = raggedOf("ragged values tensor<?x!tfg.string>", isString)
	indexValues  = raggedOf("ragged values tensor<?xi32> or tensor<?xi64>", isIndexElem)
	bucketInputs = raggedOf("ragged values tensor<?xT> of i32, i64, f32 or f64", func(t textir.Type) bool {
		return isIndexElem(t) || isFloatElem(t)
	})
	splitsValue = textir.TypeConstraint{Desc: "row splits tensor<?xi64>", Pred: func(t textir.Type) bool {
		return t == SplitsType()
	}}
	weightValues = raggedOf("ragged weights tensor<?xf32> or tensor<?xf64>", isFloatElem)
	denseInput   = textir.TypeConstraint{Desc: "ranked tensor of rank 1 or 2 of integers, floats or strings", Pred: func(t textir.Type) bool {
		tt, ok := t.(*textir.TensorType)
		return ok && (len(tt.Shape) == 1 || len(tt.Shape) == 2) && isRaw(tt.Elem)
	}}
	sparseIndices = textir.TypeConstraint{Desc: "tensor<?x2xi64> of sparse indices", Pred: func(t textir.Type) bool {
		tt, ok := t.(*textir.TensorType)
		return ok && len(tt.Shape) == 2 && (tt.Shape[1] == textir.Dynamic || tt.Shape[1] == 2) && tt.Elem == textir.I64()
	}}
	sparseValues = textir.TypeConstraint{Desc: "1-D tensor of integers, floats or strings", Pred: func(t textir.Type) bool {
		tt, ok := t.(*textir.TensorType)
		return ok && len(tt.Shape) == 1 && isRaw(tt.Elem)
	}}
	denseShape = textir.TypeConstraint{Desc: "tensor<2xi64> dense shape", Pred: func(t textir.Type) bool {
		tt, ok := t.(*textir.TensorType)
		return ok && len(tt.Shape) == 1 && (tt.Shape[0] == textir.Dynamic || tt.Shape[0] == 2) && tt.Elem == textir.I64()
	}}
	stringVector = textir.TypeConstraint{Desc: "tensor<?x!tfg.string> or tensor<?x1x!tfg.string>", Pred: func(t textir.Type) bool {
		tt, ok := t.(*textir.TensorType)
		return ok && isString(tt.Elem) && (len(tt.Shape) == 1 || (len(tt.Shape) == 2 && tt.Shape[1] == 1))
	}}
	tableType = textir.TypeConstraint{Desc: "statically shaped 2-D tensor of f32 or f64", Pred: func(t textir.Type) bool {
		tt, ok := t.(*textir.TensorType)
		return ok && len(tt.Shape) == 2 && tt.HasStaticShape() && isFloatElem(tt.Elem)
	}}
	embeddings = textir.TypeConstraint{Desc: "2-D tensor of f32 or f64", Pred: func(t textir.Type) bool {
		tt, ok := t.(*textir.TensorType)
		return ok && len(tt.Shape) == 2 && isFloatElem(tt.Elem)
	}}
)

// Dialect returns the emb dialect.
func Dialect() *textir.Dialect {
	d := &textir.Dialect{Name: Name, Summary: "embedding columns: ragged ids, id transforms, tables and pooled lookups"}
	C := func(cs ...textir.TypeConstraint) []textir.TypeConstraint { return cs }
	I := textir.IntegerAttrKind
	d.Ops = []*textir.OpDef{{
		Name:          FromDenseOp,
		Summary:       "a dense [B, k] (or [B]) tensor as B bags, dropping entries equal to 'ignore'",
		Operands:      textir.Exactly(1),
		Results:       textir.Exactly(2),
		NamedOperands: []string{"input"},
		NamedResults:  []string{"values", "row_splits"},
		OperandTypes:  C(denseInput),
		ResultTypes:   C(rawValues, splitsValue),
		Attrs:         []textir.AttrSpec{{Name: AttrIgnore, Kind: textir.AnyAttr, Optional: true}},
		Traits:        textir.Pure,
		Verify:        verifyFromDense,
		Print:         printSource,
		Parse:         parseSource(1),
		ResultNames:   raggedNames,
	}, {
		Name:          FromSparseOp,
		Summary:       "a 2-D SparseTensor (indices, values, dense_shape) as dense_shape[0] bags, entries grouped stably by row",
		Operands:      textir.Exactly(3),
		Results:       textir.Exactly(2),
		NamedOperands: []string{"indices", "sparse_values", "dense_shape"},
		NamedResults:  []string{"values", "row_splits"},
		OperandTypes:  C(sparseIndices, sparseValues, denseShape),
		ResultTypes:   C(rawValues, splitsValue),
		Traits:        textir.Pure,
		Verify:        verifyFromSparse,
		Print:         printSource,
		Parse:         parseSource(3),
		ResultNames:   raggedNames,
	}, {
		Name:          SplitStringsOp,
		Summary:       "StringSplitV2 of a [B] string tensor (maxsplit -1): bag b holds the tokens of x[b]",
		Operands:      textir.Exactly(1),
		Results:       textir.Exactly(2),
		NamedOperands: []string{"input"},
		NamedResults:  []string{"values", "row_splits"},
		OperandTypes:  C(stringVector),
		ResultTypes:   C(stringValues, splitsValue),
		Attrs:         []textir.AttrSpec{{Name: AttrSep, Kind: textir.StringAttrKind}},
		Traits:        textir.Pure,
		Print:         printSource,
		Parse:         parseSource(1),
		ResultNames:   raggedNames,
	}, {
		Name:          HashOp,
		Summary:       "Fingerprint64(s) mod num_buckets, as StringToHashBucketFast",
		Operands:      textir.Exactly(1),
		Results:       textir.Exactly(1),
		NamedOperands: []string{"input"},
		NamedResults:  []string{"result"},
		OperandTypes:  C(stringValues),
		ResultTypes:   C(indexValues),
		Attrs:         []textir.AttrSpec{{Name: AttrNumBuckets, Kind: I}},
		Traits:        textir.Pure,
		Verify:        verifyHash,
		Print:         printTransform,
		Parse:         parseTransform,
	}, {
		Name:          AsStringOp,
		Summary:       "integers as decimal strings, as AsString with its default attributes",
		Operands:      textir.Exactly(1),
		Results:       textir.Exactly(1),
		NamedOperands: []string{"input"},
		NamedResults:  []string{"result"},
		OperandTypes:  C(intValues),
		ResultTypes:   C(stringValues),
		Traits:        textir.Pure,
		Print:         printTransform,
		Parse:         parseTransform,
	}, {
		Name:          BucketizeOp,
		Summary:       "the number of boundaries <= x: a bucket in [0, n] for n boundaries, as Bucketize",
		Operands:      textir.Exactly(1),
		Results:       textir.Exactly(1),
		NamedOperands: []string{"input"},
		NamedResults:  []string{"result"},
		OperandTypes:  C(bucketInputs),
		ResultTypes:   C(indexValues),
		Attrs:         []textir.AttrSpec{{Name: AttrBoundaries, Kind: textir.ArrayAttrKind}},
		Traits:        textir.Pure,
		Verify:        verifyBucketize,
		Print:         printTransform,
		Parse:         parseTransform,
	}, {
		Name:          VocabLookupOp,
		Summary:       "index of the key in 'keys'; else a hash bucket in [n, n+num_oov_buckets), or 'default' when there are none",
		Operands:      textir.Exactly(1),
		Results:       textir.Exactly(1),
		NamedOperands: []string{"input"},
		NamedResults:  []string{"result"},
		OperandTypes:  C(idValues),
		ResultTypes:   C(indexValues),
		Attrs: []textir.AttrSpec{{Name: AttrKeys, Kind: textir.DenseAttrKind},
			{Name: AttrNumOOVBuckets, Kind: I, Optional: true}, {Name: AttrDefault, Kind: I, Optional: true}},
		Traits: textir.Pure,
		Verify: verifyVocabLookup,
		Print:  printTransform,
		Parse:  parseTransform,
	}, {
		Name:          CheckRangeOp,
		Summary:       "ids outside [0, num_buckets) become 'default' (without one they are an error)",
		Operands:      textir.Exactly(1),
		Results:       textir.Exactly(1),
		NamedOperands: []string{"input"},
		NamedResults:  []string{"result"},
		OperandTypes:  C(intValues),
		ResultTypes:   C(intValues),
		Attrs:         []textir.AttrSpec{{Name: AttrNumBuckets, Kind: I}, {Name: AttrDefault, Kind: I, Optional: true}},
		Traits:        textir.Pure,
		Verify:        verifyCheckRange,
		Canonicalize:  []textir.RewritePattern{checkRangeInRange()},
		Print:         printTransform,
		Parse:         parseTransform,
	}, {
		Name:          CastOp,
		Summary:       "integer to integer conversion (wrapping), as Cast",
		Operands:      textir.Exactly(1),
		Results:       textir.Exactly(1),
		NamedOperands: []string{"input"},
		NamedResults:  []string{"result"},
		OperandTypes:  C(intValues),
		ResultTypes:   C(intValues),
		Traits:        textir.Pure,
		Fold:          foldCast,
		Canonicalize:  []textir.RewritePattern{castOfWideningCast()},
		Print:         printTransform,
		Parse:         parseTransform,
	}, {
		Name:          AddOffsetOp,
		Summary:       "adds stride * (position of the id within its bag): the bucketized column's index construction",
		Operands:      textir.Exactly(2),
		Results:       textir.Exactly(1),
		NamedOperands: []string{"values", "row_splits"},
		NamedResults:  []string{"result"},
		OperandTypes:  C(intValues, splitsValue),
		ResultTypes:   C(intValues),
		Attrs:         []textir.AttrSpec{{Name: AttrStride, Kind: I}},
		Traits:        textir.Pure,
		Verify:        verifySameValuesType,
		Fold:          foldAddOffset,
		Print:         printAddOffset,
		Parse:         parseAddOffset,
	}, {
		Name:          FilterOp,
		Summary:       "drops the ids outside [min, max] (and, with positive_weights, those whose weight is not > 0)",
		Operands:      textir.Between(2, 3),
		Results:       textir.Between(2, 3),
		NamedOperands: []string{"values", "row_splits", "weights?"},
		NamedResults:  []string{"filtered_values", "filtered_row_splits", "filtered_weights?"},
		OperandTypes:  C(anyValues, splitsValue, weightValues),
		ResultTypes:   C(anyValues, splitsValue, weightValues),
		Attrs: []textir.AttrSpec{{Name: AttrMin, Kind: I, Optional: true}, {Name: AttrMax, Kind: I, Optional: true},
			{Name: AttrPositiveWeights, Kind: textir.UnitAttrKind, Optional: true}},
		Traits:       textir.Pure,
		Verify:       verifyFilter,
		Fold:         foldFilter,
		Canonicalize: []textir.RewritePattern{filterInRange()},
		Print:        printFilter,
		Parse:        parseFilter,
		ResultNames:  raggedNames,
	}, {
		Name:         TableOp,
		Summary:      "an embedding table: the parameter 'name' read at run time (or its 'partitions', see partitions.go), or the constant 'value'",
		Results:      textir.Exactly(1),
		NamedResults: []string{"result"},
		ResultTypes:  C(tableType),
		Attrs: []textir.AttrSpec{{Name: AttrName, Kind: textir.StringAttrKind},
			{Name: AttrValue, Kind: textir.DenseAttrKind, Optional: true},
			{Name: AttrPartitions, Kind: textir.ArrayAttrKind, Optional: true},
			{Name: AttrPartitionStrategy, Kind: textir.StringAttrKind, Optional: true}},
		Traits: textir.Pure,
		Verify: verifyTable,
		Print:  printTable,
		Parse:  parseTable,
	}, {
		Name:          LookupOp,
		Summary:       "pools the table rows of each bag (sum, mean or sqrtn, optionally weighted; div_no_nan: 0 where the weights' sum is 0); empty bags give zeros",
		Operands:      textir.Between(3, 4),
		Results:       textir.Exactly(1),
		NamedOperands: []string{"table", "ids", "row_splits", "weights?"},
		NamedResults:  []string{"result"},
		OperandTypes:  C(tableType, intValues, splitsValue, weightValues),
		ResultTypes:   C(embeddings),
		Attrs:         []textir.AttrSpec{{Name: AttrCombiner, Kind: textir.StringAttrKind}, {Name: AttrDivNoNaN, Kind: textir.UnitAttrKind, Optional: true}},
		Traits:        textir.Pure,
		Verify:        verifyLookup,
		Canonicalize:  []textir.RewritePattern{lookupToGather(), lookupToGatherScatter()},
		Print:         printLookup,
		Parse:         parseLookup,
	}, {
		Name:          GatherOp,
		Summary:       "one table row per id: row b is table[ids[b]]",
		Operands:      textir.Exactly(2),
		Results:       textir.Exactly(1),
		NamedOperands: []string{"table", "ids"},
		NamedResults:  []string{"result"},
		OperandTypes:  C(tableType, intValues),
		ResultTypes:   C(embeddings),
		Traits:        textir.Pure,
		Verify:        verifyGather,
		Print:         printLookup,
		Parse:         parseLookup,
	}, {
		Name:          GatherScatterOp,
		Summary:       "emb.lookup for bags of at most one id: the id's row scaled as the combiner says, or zeros",
		Operands:      textir.Between(3, 4),
		Results:       textir.Exactly(1),
		NamedOperands: []string{"table", "ids", "row_splits", "weights?"},
		NamedResults:  []string{"result"},
		OperandTypes:  C(tableType, intValues, splitsValue, weightValues),
		ResultTypes:   C(embeddings),
		Attrs:         []textir.AttrSpec{{Name: AttrCombiner, Kind: textir.StringAttrKind}, {Name: AttrDivNoNaN, Kind: textir.UnitAttrKind, Optional: true}},
		Traits:        textir.Pure,
		Verify:        verifyLookup,
		Canonicalize:  []textir.RewritePattern{gatherScatterToGather()},
		Print:         printLookup,
		Parse:         parseLookup,
	}, {
		Name:          ConcatOp,
		Summary:       "concatenates pooled embeddings along axis 1: the input_layer's output",
		Operands:      textir.AtLeast(1),
		Results:       textir.Exactly(1),
		NamedOperands: []string{"inputs..."},
		NamedResults:  []string{"result"},
		OperandTypes:  C(embeddings),
		ResultTypes:   C(embeddings),
		Traits:        textir.Pure,
		Verify:        verifyConcat,
		Fold:          foldConcat,
		Print:         printConcat,
		Parse:         parseConcat,
	}}
	d.Ops = append(d.Ops, crossDef(C))
	return d
}
