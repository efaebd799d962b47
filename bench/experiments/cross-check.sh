#!/usr/bin/env bash
# Crossed columns (SparseCross fingerprint hashing) with their ids computed
# in the kernel, on the H200: `recom run --check` (the native runtime
# against the pure interpreter) of a generated model of crossed columns
# (string x int64, multi-valued, and with a bucketized feature;
# cross.spec.json), at several batches, with the ids in the kernel and
# left on the host, and the tuned and RECom schedules.
#
#   bench/experiments/cross-check.sh build   (here: tools, model, feeds and PTX into build/cross/)
#   bench/experiments/cross-check.sh check   (GPU machine)
# Device call: carry ["build/cross"], e.g.
#   bench/experiments/cross-check.sh check 2>&1 | tee $OUT/cross-check.log
set -uo pipefail
cd "$(dirname "$0")/../.."
d=build/cross
declare -A sched=([tuned]="tuned" [recom]="recom" [host]="tuned ids-in-kernel=false" [idp-none]="tuned id-pass=none")
variants="tuned recom host idp-none"
batches="1 33 256 2048"
case ${1:-build} in
build)
  set -e
  . bench/lib.sh
  build_recom $d
  $d/recom-here gen --spec bench/experiments/cross.spec.json --seed 1 -o $d/cross.pbtxt
  s=11
  for b in $batches; do $d/recom-here gen --feeds --batch $b --seed $s $d/cross.pbtxt -o $d/f$b.npz; s=$((s+1)); done
  for v in $variants; do $d/recom-here run $d/cross.pbtxt --schedule "${sched[$v]}" --emit-ptx $d/cross.$v.ptx; done
  rm -f $d/recom-here
  du -sh $d
  ;;
check)
  nvidia-smi --query-gpu=name --format=csv,noheader
  pass=0; fail=0
  for v in $variants; do
    for b in $batches; do
      timeout 120 $d/recom run $d/cross.pbtxt --tables $d/cross.tables.npz --schedule "${sched[$v]}" --ptx $d/cross.$v.ptx \
        --feeds $d/f$b.npz -o /tmp/o.npz --check > /tmp/check.txt 2>&1
      rc=$?
      if [ $rc = 0 ]; then pass=$((pass+1)); r=PASS; else fail=$((fail+1)); r="FAIL rc=$rc"; fi
      printf 'CHECK %-8s B=%-5s %s: %s\n' $v $b "$r" "$(tr '\n' ' ' </tmp/check.txt | cut -c1-300)"
    done
  done
  echo "CHECKS: $pass passed, $fail failed"
  [ $fail = 0 ]
  ;;
esac
