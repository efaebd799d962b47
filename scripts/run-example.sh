#!/usr/bin/env bash
# The README's main command: compile the bundled model through every stage
# that exists, print what each stage did, write each stage's IR, and check
# the meaning of the result against the CPU reference interpreter.
#
#   scripts/run-example.sh [MODEL.pbtxt] [OUTDIR]      (OUTPUTS=a,b to name the tensors to check)
#
# Default model: examples/small.pbtxt (24 feature columns of every kind and
# table style, with a DLRM dense part; its tables are in
# examples/small.tables.npz). Outputs go to OUTDIR (default out/example,
# git-ignored):
#   feeds.npz        random inputs (empty rows, negative and out-of-vocabulary ids, long bags)
#   0-tfg.mlir       the GraphDef imported into the tfg dialect
#   1-emb.mlir       after --lower-emb: every embedding column as emb ops
#   ref.npz, emb.npz the interpreter's outputs on the GraphDef and on 1-emb.mlir
#
# Stages still to come (see the open issues): --simplify-shapes (shape
# dialect), --fuse (gpu dialect, one kernel), NVPTX LLVM IR (.ll) and PTX,
# and running on the GPU. This script grows as they land.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
export PATH="/usr/local/go/bin:$PATH"

model=${1:-examples/small.pbtxt}
out=${2:-out/example}
tables=${model%.pbtxt}.tables.npz
tables=${tables%.pb}.tables.npz
mkdir -p bin "$out"

step() { printf '\n== %s\n' "$*"; }
count_ops() { grep -cE '^\s+(%[^=]+= )?"?[a-z_]+\.[A-Za-z0-9_]+' "$1" || true; }
count_dialect() { grep -oE '(^|[ "])'"$2"'\.[A-Za-z0-9_]+' "$1" | wc -l; }

step "build the tools into bin/"
go build -o bin/ ./cmd/...

step "recom gen --feeds: random inputs for $model (batch 64)"
bin/recom gen --feeds --batch 64 --seed 1 "$model" -o "$out/feeds.npz"

step "recom-translate --import-graphdef: GraphDef -> tfg"
start=$(date +%s.%N)
bin/recom-translate --import-graphdef "$model" -o "$out/0-tfg.mlir"
printf '   %s: %d tfg ops (%.2f s)\n' "$out/0-tfg.mlir" "$(count_dialect "$out/0-tfg.mlir" tfg)" \
  "$(echo "$(date +%s.%N) - $start" | bc)"

step "recom-opt --lower-emb: find the columns, replace each by emb ops"
bin/recom-opt "$out/0-tfg.mlir" --lower-emb --mlir-pass-statistics --mlir-timing -o "$out/1-emb.mlir"
printf '   %s: %d tfg ops, %d emb ops left\n' "$out/1-emb.mlir" \
  "$(count_dialect "$out/1-emb.mlir" tfg)" "$(count_dialect "$out/1-emb.mlir" emb)"

tflag=()
[ -f "$tables" ] && tflag=(--tables "$tables")
# The tensors to check: the model's prediction and the embedding layer (the
# names recom gen gives them; set OUTPUTS for other models).
outputs=${OUTPUTS:-prediction,input_layer/concat}

step "recom interp: the reference (GraphDef) and the lowered program (1-emb.mlir)"
bin/recom interp "$model" --feeds "$out/feeds.npz" "${tflag[@]}" --outputs "$outputs" -o "$out/ref.npz"
bin/recom interp "$out/1-emb.mlir" --feeds "$out/feeds.npz" "${tflag[@]}" --outputs "$outputs" -o "$out/emb.npz"

step "recom compare: the lowering keeps the meaning (rtol 1e-5)"
bin/recom compare "$out/ref.npz" "$out/emb.npz" --rtol 1e-5

if command -v nvidia-smi >/dev/null 2>&1; then
  step "GPU found: running on it comes with the runtime issue (not yet written)"
fi
printf '\nall stages done; IR and outputs are in %s\n' "$out"
