// The interpreter refuses to materialise a tensor of more than
// RECOM_MAX_TENSOR_ELEMENTS elements (default 2^28): Fill, Range and Tile of
// huge sizes from a few bytes of input fail at the node with a message that
// names the limit, exit status 1, no output file. (The text below is unused.)
// RUN: rm -rf %t && mkdir -p %t
// RUN: not recom interp %S/Inputs/interp-huge.pbtxt --outputs fill -o %t/fill.npz 2>&1 | FileCheck %s --check-prefix=FILL --implicit-check-not="internal error"
// FILL: loc("fill"): error: 'tfg.Fill' op (node "fill") Fill: shape [1048576,1048576] is too large to materialise: more than 268435456 elements (set RECOM_MAX_TENSOR_ELEMENTS to raise the limit; see docs/LIMITS.md)
// RUN: not recom interp %S/Inputs/interp-huge.pbtxt --outputs range -o %t/range.npz 2>&1 | FileCheck %s --check-prefix=RANGE --implicit-check-not="internal error"
// RANGE: loc("range"): error: 'tfg.Range' op (node "range") Range: the output size 1e+12 is too large to materialise: more than 268435456 elements (set RECOM_MAX_TENSOR_ELEMENTS
// RUN: not recom interp %S/Inputs/interp-huge.pbtxt --outputs tile -o %t/tile.npz 2>&1 | FileCheck %s --check-prefix=TILE --implicit-check-not="internal error"
// TILE: loc("tile"): error: 'tfg.Tile' op (node "tile") Tile: shape [100000,100000] is too large to materialise: more than 268435456 elements
// Set through the environment: 4 lets the 2-element constant through, 1 refuses it.
// RUN: env RECOM_MAX_TENSOR_ELEMENTS=4 recom interp %S/Inputs/interp-huge.pbtxt --outputs m -o %t/small.npz 2>&1 | count 0
// RUN: env RECOM_MAX_TENSOR_ELEMENTS=1 not recom interp %S/Inputs/interp-huge.pbtxt --outputs m -o %t/m.npz 2>&1 | FileCheck %s --check-prefix=LOW
// LOW: more than 1 elements (set RECOM_MAX_TENSOR_ELEMENTS
// RUN: ls -a %t | FileCheck %s --check-prefix=LEFT
// LEFT-NOT: fill
// LEFT-NOT: range
// LEFT-NOT: tile
// LEFT-NOT: {{^}}m.npz
// LEFT-NOT: tmp
