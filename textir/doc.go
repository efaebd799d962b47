// Package textir is recom's IR core: operations, values with use lists, blocks,
// regions, builtin types and attributes, locations, diagnostics, the dialect
// registry with op definitions, the verifier, and the textual format (parser
// and printer) shared by every dialect.
//
// It follows MLIR's model. An Operation has a name, operands, results,
// properties, discardable attributes, successors and regions. Values keep
// intrusive use lists so that replacing all uses of a value costs one walk of
// its uses. Types are uniqued: two equal types are the same pointer and can
// be compared with ==. Attributes are immutable values compared with
// AttrEqual.
package textir
