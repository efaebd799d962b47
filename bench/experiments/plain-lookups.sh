#!/usr/bin/env bash
# Plain lookups on the GPU (issue #18 part 3): models built from
# tf.nn.embedding_lookup (ids [B], and [B, k] pooled by reduce_sum or
# reduce_mean), embedding_lookup_sparse (with and without weights) and
# safe_embedding_lookup_sparse on variables, resource variables and
# partitioned variables (mod, div), without feature columns, in TF 1.15's
# and TF 2.16's graphs (recom gen --lookups; specs plain-lookups*.json).
# Every lookup is one column of one fused kernel; recom run --check runs
# the model on the GPU and compares with the interpreter, at B = 1, 64 and
# 2048 (feeds from recom gen --feeds, drawn for the graph; tables random by
# variable name, as the interpreter draws them, so that nothing large is
# carried), and recom bench times the layer.
#
#   bench/experiments/plain-lookups.sh build   here: binary, models, tables, feeds, PTX into build/plain
#   bench/experiments/plain-lookups.sh         GPU machine (device tool: carry ["build/plain"], timeout_s 600)
set -u
cd "$(dirname "$0")/../.."
d=build/plain
if [ "${1:-}" = build ]; then
  set -e
  mkdir -p $d
  CGO_ENABLED=0 GOOS=linux GOARCH=amd64 go build -trimpath -o $d/recom ./cmd/recom
  go build -o $d/recom-here ./cmd/recom
  for v in "" -tf216; do
    m=plain$v
    $d/recom-here gen --lookups bench/experiments/plain-lookups$v.json --no-tables -o $d/$m.pbtxt
    for b in 1 64 2048; do
      $d/recom-here gen --feeds --batch $b --seed $b --outputs concat $d/$m.pbtxt -o $d/$m-b$b.npz 2>/dev/null
    done
    $d/recom-here run $d/$m.pbtxt --outputs concat --emit-ptx $d/$m.ptx
    $d/recom-here compile $d/$m.pbtxt --outputs concat -o $d/$m.compile >/dev/null 2>&1
    grep -E "columns:|fused|not fused" $d/$m.compile/summary.txt
  done
  rm -f $d/recom-here
  du -sh $d
  exit 0
fi
cd $d
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
rc=0
for m in plain plain-tf216; do
  for b in 1 64 2048; do
    ./recom run $m.pbtxt --outputs concat --feeds $m-b$b.npz --ptx $m.ptx --check -o $m-out-b$b.npz
    r=$?; echo "$m B=$b: recom run --check rc=$r"; [ $r -eq 0 ] || rc=1
  done
  ./recom bench $m.pbtxt --outputs concat --ptx $m.ptx --batch 256 2>&1 | tail -15
done
echo "plain-lookups: rc=$rc"
exit $rc
