// Package transforms holds recom's generic passes, the counterparts of
// MLIR's mlir/lib/Transforms: canonicalize, cse and symbol-dce. Each file
// declares its pass once (CanonicalizeDecl, CSEDecl, SymbolDCEDecl: flag,
// summary, options, statistics); lowering/all registers them.
package transforms
