#!/usr/bin/env bash
# Task-size experiment for the tuned schedule (2026-12-02): recom bench on E
# and probe with --fuse task-bytes 4096 (default) / 2048 / 1024 / 512.
set -u
d=build/exp
for f in $d/*.pb.gz; do gunzip -kf $f; done
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
for spec in "E 256" "E 2048" "probe 256" "probe 4096"; do
  set -- $spec; m=$1; b=$2
  for tb in 4096 2048 1024 512; do
    if [ $m = probe ] && [ $tb = 2048 -o $tb = 512 ]; then continue; fi
    timeout 90 $d/recom bench $d/$m.pb --batch $b --schedule "tuned task-bytes=$tb" --ptx $d/$m.tb$tb.ptx --iters 200 2>&1 | grep -E "^BENCH|^bench:|error" | sed "s/^/[$m B=$b tb=$tb] /"
  done
done
