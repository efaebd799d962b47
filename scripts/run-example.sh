#!/usr/bin/env bash
# The README's main command: compile the bundled model through every stage,
# print what each stage did, write each stage's IR, the .ll and the .ptx, and
# check each stage's meaning against the CPU reference interpreter.
#
#   scripts/run-example.sh [MODEL] [OUTDIR]
#   INPUTS=IteratorGetNext OUTPUTS=head/predictions/logistic scripts/run-example.sh MODEL OUTDIR
#   scripts/run-example.sh SAVEDMODEL_DIR OUTDIR            # with its trained weights
#   CHECKPOINT=model.ckpt-1000 INPUTS=... OUTPUTS=... scripts/run-example.sh graph.pbtxt OUTDIR
#
# Default model: examples/small.pbtxt (24 feature columns of every kind and
# table style, with a DLRM dense part; table values in
# examples/small.tables.npz). MODEL may be any GraphDef (.pb, .pbtxt), a
# saved_model.pb or a SavedModel directory; OUTPUTS names the tensors to
# check, and OUTPUTS and INPUTS, when set, cut the graph for inference as
# recom compile --outputs/--inputs do (a SavedModel is cut at its serving
# signature without them, and its outputs are the signature's): they go to
# recom gen --feeds, recom interp, recom compile and the import stage.
# Weights: a SavedModel directory's own (its variables/ and assets/), or
# the checkpoint CHECKPOINT names for a GraphDef; the reference run reads
# them and writes them to OUTDIR/weights.npz, which the stages' runs take
# (their IR carries no checkpoint). Otherwise table values come from
# MODEL.tables.npz when it exists, else are random (recom interp's seed). The stages, their order, their files and the
# standalone tool that runs each come from the compiler's stage table, as
# `recom compile --print-stages` lists it; the script runs them one by one.
# Outputs go to OUTDIR (default out/example, git-ignored):
#   feeds.npz      random inputs (empty rows, negative and out-of-vocabulary ids, long bags):
#                  from the spec a generated model records, else from what the graph's
#                  ops accept (recom gen --feeds says how it drew each input)
#   0-tfg.mlir     the GraphDef imported into the tfg dialect
#   1-emb.mlir     --lower-emb: every embedding column as a few emb ops
#   2-shape.mlir   --simplify-shapes: shape arithmetic rebuilt from symbols, dead chains gone
#   3-gpu.mlir     --fuse: every lookup of the layer in one gpu kernel
#   4-dense.mlir   --fuse-dense: each dense layer (MatMul, bias, activation) a gpu kernel
#   model.ll       the kernels as NVPTX LLVM IR; model.ptx: llc-19's PTX
#   ref.npz        the reference: the interpreter on the GraphDef
#   N-*.npz        the interpreter on each stage (the gpu stages run the kernels in the
#                  thread-level simulator), each compared with ref.npz (rtol 1e-5)
#   compile/       `recom compile` of the same model: every stage in one process, and
#                  summary.txt (columns by kind, ops before/after and time of each stage,
#                  kernels and schedule classes), which the script prints at the end; its
#                  model.ll and model.ptx are checked to be byte for byte those of the
#                  steps above
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
graph=$model # a GraphDef, a saved_model.pb or a SavedModel directory: every tool takes each
base=${model%.pbtxt}
base=${base%.pb}
tables=$base.tables.npz   # recom gen writes the table values beside the model
outputs=${OUTPUTS:-prediction,input_layer/concat}
cut=() # the inference cut, when asked for
[ -n "${INPUTS:-}" ] && cut+=(--inputs="$INPUTS")
[ -n "${OUTPUTS:-}" ] && cut+=(--outputs="$OUTPUTS")
ckpt=() # the trained weights of a GraphDef
[ -n "${CHECKPOINT:-}" ] && ckpt+=(--checkpoint="$CHECKPOINT")
weights="" # the weights the reference run writes, for the stages' runs
if [ -d "$model" ] || [ -n "${CHECKPOINT:-}" ]; then
  weights=$out/weights.npz
fi
mkdir -p bin "$out"

# llc-19 is llc in /usr/lib/llvm-19/bin where no llc-19 is on PATH (as the
# compiler looks it up).
if ! command -v llc-19 >/dev/null 2>&1 && [ -x /usr/lib/llvm-19/bin/llc ]; then
  llc-19() { /usr/lib/llvm-19/bin/llc "$@"; }
fi
step() { printf '\n== %s\n' "$*"; }
now() { date +%s.%N; }
since() { echo "$(now) - $1" | bc; }
ops() { # ops of a dialect in an IR file
  grep -oE '(^|[ "])'"$2"'\.[A-Za-z0-9_]+' "$1" | wc -l
}
tflag=()
[ -f "$tables" ] && [ -z "$weights" ] && tflag=(--tables "$tables")
check() { # check FILE.mlir NAME: interpret a stage and compare it with the reference
  bin/recom interp "$1" --feeds "$out/feeds.npz" "${tflag[@]}" --outputs "$outputs" -o "$out/$2.npz"
  printf '   meaning: '
  bin/recom compare "$out/ref.npz" "$out/$2.npz" --rtol 1e-5
}

step "build the tools into bin/"
rev=$(git rev-parse HEAD 2>/dev/null || true)
go build -ldflags "-X github.com/recom-compiler/recom/cmd/internal/toolflag.Revision=${rev}" -o bin/ ./cmd/...

step "recom gen --feeds: random inputs for $model (batch 64), and the reference outputs"
bin/recom gen --feeds --batch 64 --seed 1 "${cut[@]}" "$model" -o "$out/feeds.npz"
oflag=(--outputs "$outputs")
if [ -d "$model" ] && [ -z "${OUTPUTS:-}" ]; then
  oflag=() # a SavedModel's outputs are its signature's
fi
if [ -n "$weights" ]; then
  # The model's trained weights, read from its checkpoint; written for the
  # stages' runs.
  bin/recom interp "$graph" ${INPUTS:+--inputs="$INPUTS"} "${ckpt[@]}" --feeds "$out/feeds.npz" "${oflag[@]}" \
    -o "$out/ref.npz" --write-tables "$weights"
  tflag=(--tables "$weights")
else
  bin/recom interp "$graph" ${INPUTS:+--inputs="$INPUTS"} --feeds "$out/feeds.npz" "${tflag[@]}" "${oflag[@]}" -o "$out/ref.npz"
fi
if [ ${#oflag[@]} -eq 0 ]; then
  # The signature's outputs, as the reference run named them.
  outputs=$(python3 -c 'import sys, zipfile; print(",".join(n[:-4] for n in zipfile.ZipFile(sys.argv[1]).namelist()))' "$out/ref.npz")
  printf '   the signature'"'"'s outputs: %s\n' "$outputs"
fi

# The stages, one a line: name, input file, output file, and the standalone
# tool's command (recom compile --print-stages reads them from the compiler's
# stage table, so this loop runs what recom compile runs, in its order).
mapfile -t stages < <(bin/recom compile --print-stages "${cut[@]}")
files=()
for line in "${stages[@]}"; do
  read -r name in file cmd <<<"$line"
  eval "set -- $cmd"   # the tool and its flags, quoted as printed
  tool=$1
  shift
  src=$out/$in
  if [ "$in" = MODEL ]; then
    src=$graph
    in=$graph
  fi
  t=$(now)
  case $tool in
  recom-opt)
    step "$name: recom-opt $* ($in -> $file)"
    bin/recom-opt "$src" "$@" --mlir-pass-statistics --mlir-timing -o "$out/$file"
    ;;
  recom-*)
    step "$name: $tool $* ($in -> $file)"
    "bin/$tool" "$src" "$@" -o "$out/$file"
    ;;
  ptxas)
    if ! command -v ptxas >/dev/null 2>&1; then
      step "$name: ptxas is not installed (it comes with the CUDA toolkit): skipped"
      continue
    fi
    step "$name: ptxas $* ($in -> $file)"
    ptxas "$@" "$src" -o "$out/$file"
    ;;
  *)
    step "$name: $tool $* ($in -> $file)"
    "$tool" "$@" "$src" -o "$out/$file"
    ;;
  esac
  files+=("$file")
  case $file in
  *.mlir)
    printf '   %s: %d tfg, %d emb, %d shape, %d gpu, %d fused ops (%.2f s)\n' "$out/$file" \
      "$(ops "$out/$file" tfg)" "$(ops "$out/$file" emb)" "$(ops "$out/$file" shape)" \
      "$(ops "$out/$file" gpu)" "$(ops "$out/$file" fused)" "$(since "$t")"
    check "$out/$file" "${file%.mlir}"
    ;;
  *.ll)
    printf '   %s: %d lines (%.2f s)\n' "$out/$file" "$(wc -l <"$out/$file")" "$(since "$t")"
    ;;
  *.ptx)
    printf '   %s: %d kernel entries, %d 16-byte loads (%.2f s)\n' "$out/$file" \
      "$(grep -c '^\.visible \.entry' "$out/$file")" "$(grep -c 'ld\.global\.nc\.v4\.f32' "$out/$file")" "$(since "$t")"
    ;;
  esac
done

step "recom compile: every stage in one process, and its summary (also in $out/compile/summary.txt)"
# The same chain as above in one command, as a user runs it; --dot draws the
# columns (dot -Tsvg $out/columns.dot > columns.svg where Graphviz is).
# The summary is printed without its last part, every pass statistic (they
# are in the file).
bin/recom compile "$graph" "${cut[@]}" "${ckpt[@]}" -o "$out/compile" --dot "$out/columns.dot" -q
sed '/^pass statistics:/,$d' "$out/compile/summary.txt"
# The LLVM IR and the PTX of the steps above are recom compile's, byte for
# byte. (Its IR files after lower-emb may name shape symbols differently:
# in one process simplify-shapes names them after the TensorFlow node in an
# op's location, which the printed stages above, without
# --mlir-print-debuginfo, do not carry from tool to tool.)
for f in model.ll model.ptx; do
  cmp "$out/$f" "$out/compile/$f" || { echo "recom compile's $f differs from the step-by-step one" >&2; exit 1; }
done
printf '\n   model.ll and model.ptx of the steps above are byte for byte those of recom compile\n'

if command -v nvidia-smi >/dev/null 2>&1 && nvidia-smi -L >/dev/null 2>&1; then
  step "GPU: recom run --check (the compiled model on $(nvidia-smi --query-gpu=name --format=csv,noheader | head -1), against the interpreter)"
  # recom run cuts at --outputs only: a graph cut at INPUTS runs from its
  # imported stage, 0-tfg.mlir, which is the cut graph.
  # A SavedModel directory, or a GraphDef with its checkpoint, runs with its
  # trained weights (read from the checkpoint by recom run itself).
  run_model=$graph
  rflag=("${tflag[@]}")
  [ -n "$weights" ] && rflag=("${ckpt[@]}")
  if [ -n "${INPUTS:-}" ]; then
    run_model=$out/0-tfg.mlir
    rflag=("${tflag[@]}")
  fi
  bin/recom run "$run_model" "${rflag[@]}" --feeds "$out/feeds.npz" --outputs "$outputs" -o "$out/gpu.npz" --check
else
  step "GPU: no NVIDIA GPU here (nvidia-smi lists none): the run on the GPU is skipped; on a machine with one this step runs recom run --check"
fi

printf '\nall stages done and checked; IR, .ll, .ptx and outputs are in %s\n' "$out"
