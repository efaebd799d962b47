#!/usr/bin/env bash
# Task-size experiment for the tuned schedule (2026-12-02): recom bench on E
# and probe with --fuse task-bytes 4096 (default) / 2048 / 1024 / 512.
#
#   bench/experiments/taskbytes.sh build   (here: binary, models, PTX into build/exp; needs llc-19)
#   bench/experiments/taskbytes.sh         (on the GPU machine; device tool: carry ["build/exp"])
# Results: bench/RESULTS.md; log: bench/logs/2026-12-02-taskbytes.log.
set -u
cd "$(dirname "$0")/../.."
d=build/exp
if [ "${1:-}" = build ]; then
  set -e
  mkdir -p $d
  CGO_ENABLED=0 GOOS=linux GOARCH=amd64 go build -trimpath -o $d/recom ./cmd/recom
  go build -o $d/recom-here ./cmd/recom
  for p in E probe; do
    $d/recom-here gen --preset $p --no-tables -o $d/$p.pb
    for tb in 4096 2048 1024 512; do
      $d/recom-here run $d/$p.pb --schedule "tuned task-bytes=$tb" --emit-ptx $d/$p.tb$tb.ptx
    done
  done
  rm -f $d/recom-here
  gzip -f $d/*.pb
  exit 0
fi
for f in $d/*.pb.gz; do gunzip -kf $f; done
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
for spec in "E 256" "E 2048" "probe 256" "probe 4096"; do
  set -- $spec; m=$1; b=$2
  for tb in 4096 2048 1024 512; do
    if [ $m = probe ] && [ $tb = 2048 -o $tb = 512 ]; then continue; fi
    timeout 90 $d/recom bench $d/$m.pb --batch $b --schedule "tuned task-bytes=$tb" --ptx $d/$m.tb$tb.ptx --iters 200 2>&1 |
      grep -E "^BENCH|^bench:|error" | sed "s/^/[$m B=$b tb=$tb] /"
  done
done
