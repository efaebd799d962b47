// Package conversion is dialect conversion in MLIR's spirit: a Target says
// which ops are legal, a TypeConverter maps types (with materializations
// that bridge old and new types), and ConversionPatterns rewrite illegal ops
// given their already-converted operands. ApplyPartialConversion and
// ApplyFullConversion legalize every op under a root, in pre-order. A pass
// collects its patterns in a PatternList, which populate functions add to
// (embtogpu.PopulateFusePatterns, densetogpu.PopulateFuseDensePatterns).
//
// Unlike MLIR, this framework has no rollback: a rewrite is applied to the
// IR at once. A pattern must therefore check everything it needs before it
// changes anything, and return false only when it changed nothing; the
// driver reports a pattern that returns false after changing IR through the
// rewriter as an error. When a pattern succeeds but produces ops that cannot
// be legalized, or when conversion fails, the IR is left partly converted.
//
// Replacing a value by one of another (converted) type keeps the old users
// working through a source materialization (by default an
// "builtin.unrealized_conversion_cast" from the new value to the old type);
// patterns of users converted later receive the new value directly.
// Operands whose type the TypeConverter converts but whose producer was not
// converted reach patterns through a target materialization. Materializations
// left in use at the end are errors in full conversion; in partial
// conversion they stay, as MLIR's unrealized casts do.
package conversion
