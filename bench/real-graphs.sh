#!/usr/bin/env bash
# The real TensorFlow graphs of ../shared/testdata/graphdefs end to end:
# compiled here (where llc-19 is), run on the GPU machine with --check
# (the GPU's outputs against the interpreter on the same graph, random
# tables from --seed, fresh random feeds).
#
#   bench/real-graphs.sh build [OUT]    here: tools, every graph compiled, PTX, feeds
#   bench/real-graphs.sh device [OUT]   on the GPU machine: recom run --check per graph and batch
#
# OUT defaults to build/real. The build step writes, per graph NAME:
#   OUT/NAME/               recom compile's directory (stage IR, summary.txt)
#   OUT/NAME.dot            the column structure (recom compile --dot)
#   OUT/NAME.ptx            the kernel, made by recom run --emit-ptx from OUT/NAME/0-tfg.mlir
#   OUT/NAME.feeds-B.npz    random feeds at batch B (1, 16, 256), by recom gen --feeds
#                           (OUT/NAME.feeds-B.txt says how each input was drawn)
# and OUT/bin/ the tools (built for linux/amd64). The device step needs only
# OUT (carry it to the GPU machine) and prints one line per run; it exits 1
# if any check fails. Graphs without embedding columns (criteo: indicator
# columns only) have nothing for the GPU and are reported, not run.
#
# The graphs, how they are cut for inference (the inputs fed and the
# predictions) and what the compiler finds in each (the same table is in
# compiler/realgraphs_test.go):
#   census_wide_deep_tf1          IteratorGetNext:0..14 -> head/predictions/logistic    9 columns
#   census_wide_deep_tf2_resource fifo_queue_DequeueMany:1..16 -> head/predictions/logistic   8 columns
#   criteo_bucketized_tiles       IteratorGetNext:0..10 -> dense/BiasAdd                 0 columns (11 indicator)
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
export PATH="/usr/local/go/bin:$PATH"

mode=${1:-}
out=${2:-build/real}
graphs=${RECOM_GRAPHDEFS:-$root/../shared/testdata/graphdefs}
batches=(1 16 256)

seq_inputs() { # seq_inputs NODE FIRST LAST
  local s="" i
  for ((i = $2; i <= $3; i++)); do s+="${s:+,}$1:$i"; done
  echo "$s"
}
# name|file|inputs|outputs|columns
cases=(
  "census_wide_deep_tf1|census_wide_deep_tf1.pbtxt|$(seq_inputs IteratorGetNext 0 14)|head/predictions/logistic|9"
  "census_wide_deep_tf2_resource|census_wide_deep_tf2_resource.pbtxt|$(seq_inputs fifo_queue_DequeueMany 1 16)|head/predictions/logistic|8"
  "criteo_bucketized_tiles|criteo_bucketized_tiles.pbtxt|$(seq_inputs IteratorGetNext 0 10)|dense/BiasAdd|0"
)

case "$mode" in
build)
  mkdir -p "$out/bin"
  echo "== build the tools into $out/bin (linux/amd64)"
  GOOS=linux GOARCH=amd64 go build -o "$out/bin/" ./cmd/recom
  go build -o "$out/host-bin/" ./cmd/recom
  for c in "${cases[@]}"; do
    IFS='|' read -r name file inputs outputs columns <<<"$c"
    echo "== $name: recom compile ($columns embedding columns expected)"
    "$out/host-bin/recom" compile "$graphs/$file" --inputs "$inputs" --outputs "$outputs" \
      -o "$out/$name" --dot "$out/$name.dot" --no-cubin -q
    sed -n '/^columns:/,/^$/p;/^kernels:/,/^$/p' "$out/$name/summary.txt" | sed 's/^/   /'
    if [ "$columns" -gt 0 ]; then
      "$out/host-bin/recom" run "$out/$name/0-tfg.mlir" --outputs "$outputs" --emit-ptx "$out/$name.ptx"
      for b in "${batches[@]}"; do
        # Feeds the graph accepts, cut as compiled (named by placeholder,
        # as 0-tfg.mlir has them); how each input was drawn goes beside.
        "$out/host-bin/recom" gen --feeds "$graphs/$file" --inputs "$inputs" --outputs "$outputs" \
          --batch "$b" --seed "$b" -o "$out/$name.feeds-$b.npz" 2>"$out/$name.feeds-$b.txt"
        head -n 1 "$out/$name.feeds-$b.txt" | sed 's/^/   /'
      done
    fi
  done
  rm -rf "$out/host-bin"
  echo "== done: carry $out to the GPU machine and run: bench/real-graphs.sh device $out"
  ;;
device)
  [ -x "$out/bin/recom" ] || { echo "no $out/bin/recom: run 'bench/real-graphs.sh build' first" >&2; exit 2; }
  nvidia-smi --query-gpu=name,driver_version --format=csv,noheader || true
  fail=0
  for c in "${cases[@]}"; do
    IFS='|' read -r name file inputs outputs columns <<<"$c"
    if [ "$columns" -eq 0 ]; then
      echo "$name: no embedding columns (indicator columns only): nothing for the GPU"
      continue
    fi
    for b in "${batches[@]}"; do
      printf '%s batch %s: ' "$name" "$b"
      if "$out/bin/recom" run "$out/$name/0-tfg.mlir" --outputs "$outputs" --ptx "$out/$name.ptx" \
        --feeds "$out/$name.feeds-$b.npz" --seed 7 --check -o "$out/$name.out-$b.npz" >"$out/$name.run-$b.log" 2>&1; then
        tail -n 1 "$out/$name.run-$b.log"
      else
        fail=1
        echo "FAILED"
        sed 's/^/   /' "$out/$name.run-$b.log"
      fi
    done
  done
  exit $fail
  ;;
*)
  echo "usage: bench/real-graphs.sh build|device [OUT]" >&2
  exit 2
  ;;
esac
