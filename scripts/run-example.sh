#!/usr/bin/env bash
# The README's main command.
#
# TODO(model pipeline): the end-to-end compiler (`recom compile` on a
# GraphDef: import to tfg, lower to emb, shape and gpu, emit NVPTX, run on the
# GPU) does not exist yet. Until it does, this script shows the part that
# works: recom-opt runs the generic passes on a bundled IR example and
# reports what each pass did. Replace the body below with the model pipeline
# when `cmd/recom` lands.
#
#   scripts/run-example.sh [FILE.mlir]
#
# stderr: the IR after each pass that changed it, pass statistics, timing.
# stdout: the final IR.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
export PATH="/usr/local/go/bin:$PATH"

input=${1:-examples/ir/shape-arith.mlir}
mkdir -p bin
go build -o bin/ ./cmd/recom-opt

echo "== recom-opt $input --cse --canonicalize --symbol-dce" >&2
bin/recom-opt "$input" --cse --canonicalize --symbol-dce \
  --mlir-print-ir-after-change --mlir-pass-statistics --mlir-timing
