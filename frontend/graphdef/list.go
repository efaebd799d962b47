package graphdef

import (
	"maps"
	"slices"
)

// Signatures returns every built-in op signature, sorted by op name.
func Signatures() []*OpSig {
	out := make([]*OpSig, 0, len(builtinOps))
	for _, k := range slices.Sorted(maps.Keys(builtinOps)) {
		out = append(out, builtinOps[k])
	}
	return out
}
