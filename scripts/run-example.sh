#!/usr/bin/env bash
# The README's main command: compile the bundled model through every stage,
# print what each stage did, write each stage's IR, the .ll and the .ptx, and
# check each stage's meaning against the CPU reference interpreter.
#
#   scripts/run-example.sh [MODEL.pbtxt] [OUTDIR]      (OUTPUTS=a,b to name the tensors to check)
#
# Default model: examples/small.pbtxt (24 feature columns of every kind and
# table style, with a DLRM dense part; table values in
# examples/small.tables.npz). Outputs go to OUTDIR (default out/example,
# git-ignored):
#   feeds.npz      random inputs (empty rows, negative and out-of-vocabulary ids, long bags)
#   0-tfg.mlir     the GraphDef imported into the tfg dialect
#   1-emb.mlir     --lower-emb: every embedding column as a few emb ops
#   2-shape.mlir   --simplify-shapes: shape arithmetic rebuilt from symbols, dead chains gone
#   3-gpu.mlir     --fuse: every lookup of the layer in one gpu kernel
#   model.ll       the kernel as NVPTX LLVM IR; model.ptx: llc-19's PTX
#   ref.npz        the reference: the interpreter on the GraphDef
#   N-*.npz        the interpreter on each stage (the gpu stage runs the kernel in the
#                  thread-level simulator), each compared with ref.npz (rtol 1e-5)
#   compile/       `recom compile` of the same model: every stage in one process, and
#                  summary.txt (columns by kind, ops before/after and time of each stage,
#                  kernels and schedule classes), which the script prints at the end
#   columns.dot    the column structure as a Graphviz graph (recom compile --dot)
#   gpu.npz        on a machine with an NVIDIA GPU (nvidia-smi lists one): the
#                  compiled model run there by `recom run --check` (embedding
#                  layer and dense part on the GPU), checked against the interpreter
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
export PATH="/usr/local/go/bin:$PATH"

model=${1:-examples/small.pbtxt}
out=${2:-out/example}
base=${model%.pbtxt}
base=${base%.pb}
tables=$base.tables.npz   # recom gen writes the table values beside the model
outputs=${OUTPUTS:-prediction,input_layer/concat}
mkdir -p bin "$out"

step() { printf '\n== %s\n' "$*"; }
now() { date +%s.%N; }
since() { echo "$(now) - $1" | bc; }
ops() { # ops of a dialect in an IR file
  grep -oE '(^|[ "])'"$2"'\.[A-Za-z0-9_]+' "$1" | wc -l
}
tflag=()
[ -f "$tables" ] && tflag=(--tables "$tables")
check() { # check FILE.mlir NAME: interpret a stage and compare it with the reference
  bin/recom interp "$1" --feeds "$out/feeds.npz" "${tflag[@]}" --outputs "$outputs" -o "$out/$2.npz"
  printf '   meaning: '
  bin/recom compare "$out/ref.npz" "$out/$2.npz" --rtol 1e-5
}

step "build the tools into bin/"
go build -o bin/ ./cmd/...

step "recom gen --feeds: random inputs for $model (batch 64), and the reference outputs"
bin/recom gen --feeds --batch 64 --seed 1 "$model" -o "$out/feeds.npz"
bin/recom interp "$model" --feeds "$out/feeds.npz" "${tflag[@]}" --outputs "$outputs" -o "$out/ref.npz"

step "import: recom-translate --import-graphdef (GraphDef -> tfg)"
t=$(now)
bin/recom-translate --import-graphdef "$model" -o "$out/0-tfg.mlir"
printf '   %s: %d tfg ops (%.2f s)\n' "$out/0-tfg.mlir" "$(ops "$out/0-tfg.mlir" tfg)" "$(since "$t")"
check "$out/0-tfg.mlir" 0-tfg

stage() { # stage IN OUT FLAG: run one pass with its statistics
  step "recom-opt --$3"
  bin/recom-opt "$out/$1.mlir" "--$3" --mlir-pass-statistics --mlir-timing -o "$out/$2.mlir"
  printf '   %s: %d tfg, %d emb, %d shape, %d gpu, %d fused ops\n' "$out/$2.mlir" \
    "$(ops "$out/$2.mlir" tfg)" "$(ops "$out/$2.mlir" emb)" "$(ops "$out/$2.mlir" shape)" \
    "$(ops "$out/$2.mlir" gpu)" "$(ops "$out/$2.mlir" fused)"
  check "$out/$2.mlir" "$2"
}
stage 0-tfg 1-emb lower-emb
stage 1-emb 2-shape simplify-shapes
stage 2-shape 3-gpu fuse

step "backend: recom-translate --emit-llvm, then llc-19 -march=nvptx64 -mcpu=sm_90"
t=$(now)
bin/recom-translate --emit-llvm "$out/3-gpu.mlir" -o "$out/model.ll"
bin/recom-translate --emit-ptx "$out/3-gpu.mlir" -o "$out/model.ptx"
printf '   %s: %d lines; %s: %d kernel entry, %d 16-byte loads (%.2f s)\n' \
  "$out/model.ll" "$(wc -l <"$out/model.ll")" "$out/model.ptx" \
  "$(grep -c '^\.visible \.entry' "$out/model.ptx")" "$(grep -c 'ld\.global\.nc\.v4\.f32' "$out/model.ptx")" "$(since "$t")"
if command -v ptxas >/dev/null 2>&1; then
  ptxas -arch=sm_90 -v "$out/model.ptx" -o "$out/model.cubin"
fi

step "recom compile: every stage in one process, and its summary (also in $out/compile/summary.txt)"
# The same chain as above in one command, as a user runs it; --dot draws the
# columns (dot -Tsvg $out/columns.dot > columns.svg where Graphviz is).
# The summary is printed without its last part, every pass statistic (they
# are in the file).
bin/recom compile "$model" -o "$out/compile" --dot "$out/columns.dot" -q
sed '/^pass statistics:/,$d' "$out/compile/summary.txt"

if command -v nvidia-smi >/dev/null 2>&1 && nvidia-smi -L >/dev/null 2>&1; then
  step "GPU: recom run --check (the compiled model on $(nvidia-smi --query-gpu=name --format=csv,noheader | head -1), against the interpreter)"
  bin/recom run "$model" "${tflag[@]}" --feeds "$out/feeds.npz" --outputs "$outputs" -o "$out/gpu.npz" --check
else
  step "GPU: no NVIDIA GPU here (nvidia-smi lists none): the run on the GPU is skipped; on a machine with one this step runs recom run --check"
fi

printf '\nall stages done and checked; IR, .ll, .ptx and outputs are in %s\n' "$out"
