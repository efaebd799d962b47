// Package transforms holds recom's generic passes, the counterparts of
// MLIR's mlir/lib/Transforms: canonicalize, cse and symbol-dce. Each file
// registers its pass with the pass registry in an init func, so importing
// the package (for side effects) makes the flags available.
package transforms
