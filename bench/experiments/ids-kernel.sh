#!/usr/bin/env bash
# Id transforms in the kernel (--fuse v2) on the H200: correctness of every
# model through `recom run --check`, and the cost of the in-kernel id code
# and of min-tasks, as variants of one model measured in one call.
#
#   bench/experiments/ids-kernel.sh build    (here: tools, models, PTX of each variant into build/ids/)
#   bench/experiments/ids-kernel.sh check    (GPU machine: recom run --check per model and batch)
#   bench/experiments/ids-kernel.sh bench    (GPU machine: recom bench per variant)
# QUICK=1 check: one batch per model; VARIANTS / VARIANTS2048 / PROBE (batches) /
# PROBE_VARIANTS pick the bench runs.
#
# Variants (the --fuse options; the PTX of each is made here with llc-19):
#   tuned      the default: ids in the kernel, min-tasks=6336
#   mt0        min-tasks=0 (the planned task sizes at every batch)
#   host       ids-in-kernel=false (v1: ids computed before the layer, packed as int32)
#   host-mt0   both
#   recom      schedule=recom (RECom's one block per column; ids in the kernel)
#   hosthash   host-ids=hash,as_string,vocab_lookup (string work before the layer)
#   hostbkt    host-ids=bucketize (bucketize before the layer)
#   mbN        min-blocks=N (the register cap; the default is 3)
#   idp-none, idp-hashes, idp-all   id-pass=none|hashes|all (the default is auto)
#   rif8, tb8k             rows-in-flight=8, task-bytes=8192 (F, micro, probe only)
# MICRO (batches): micro with MICRO_VARIANTS (tuned and recom).
# Device call: carry ["build/ids"], e.g.
#   bench/experiments/ids-kernel.sh check 2>&1 | tee $OUT/check.log
set -uo pipefail
cd "$(dirname "$0")/../.."
d=build/ids
mode=${1:-build}
declare -A sched=([tuned]="tuned" [mt0]="tuned min-tasks=0" [host]="tuned ids-in-kernel=false"
  [host-mt0]="tuned ids-in-kernel=false min-tasks=0" [recom]="recom"
  [hosthash]="tuned host-ids=hash,as_string,vocab_lookup" [hostbkt]="tuned host-ids=bucketize"
  [mb1]="tuned min-blocks=1" [mb2]="tuned min-blocks=2" [mb4]="tuned min-blocks=4"
  [idp-none]="tuned id-pass=none" [idp-hashes]="tuned id-pass=hashes"
  [rif8]="tuned rows-in-flight=8" [tb8k]="tuned task-bytes=8192" [idp-all]="tuned id-pass=all")

case $mode in
build)
  set -e
  . bench/lib.sh
  build_recom $d
  for p in E F micro probe; do $d/recom-here gen --preset $p --no-tables -o $d/$p.pb; done
  cp examples/small.pbtxt examples/small.tables.npz $d/
  for v in tuned mt0 host host-mt0 recom hosthash hostbkt mb1 mb2 mb4 idp-none idp-hashes idp-all; do
    $d/recom-here run $d/E.pb --schedule "${sched[$v]}" --emit-ptx $d/E.$v.ptx
  done
  for m in F micro probe; do
    for v in tuned recom idp-hashes mb4 rif8 tb8k idp-all; do $d/recom-here run $d/$m.pb --schedule "${sched[$v]}" --emit-ptx $d/$m.$v.ptx; done
  done
  $d/recom-here run $d/small.pbtxt --emit-ptx $d/small.tuned.ptx
  rm -f $d/recom-here
  gzip -f $d/*.pb
  du -sh $d
  ;;
check)
  for f in $d/*.pb.gz; do gunzip -kf $f; done
  date -u
  pass=0; fail=0
  one() { # one MODEL BATCH SEED VARIANT
    local m=$1 b=$2 s=$3 v=$4 model=$d/$1.pb tfl=()
    [ "$m" = small ] && model=$d/small.pbtxt && tfl=(--tables $d/small.tables.npz)
    local t0=$SECONDS
    $d/recom gen --feeds --batch $b --seed $s $model -o /tmp/f.npz &&
      timeout 100 $d/recom run $model "${tfl[@]}" --seed 7 --schedule "${sched[$v]}" --ptx $d/$m.$v.ptx --feeds /tmp/f.npz -o /tmp/o.npz --check > /tmp/check.txt 2>&1
    local rc=$?
    if [ $rc = 0 ]; then pass=$((pass+1)); r=PASS; else fail=$((fail+1)); r="FAIL rc=$rc"; fi
    printf 'CHECK %-6s %-6s B=%-5s seed=%-3s %s (%d s): %s\n' $m $v $b $s "$r" $((SECONDS-t0)) "$(tr '\n' ' ' </tmp/check.txt | cut -c1-300)"
  }
  seed=21
  if [ -n "${QUICK:-}" ]; then # the short list: one batch per model
    for m in small probe E F; do one $m 256 $seed tuned; seed=$((seed+1)); done
    one micro 2048 $seed tuned
    echo "CHECKS: $pass passed, $fail failed"
    exit 0
  fi
  for b in 1 256; do one small $b $seed tuned; seed=$((seed+1)); done
  for b in 1 33 2048; do one micro $b $seed tuned; seed=$((seed+1)); one micro $b $seed recom; seed=$((seed+1)); done
  for b in 1 256; do one probe $b $seed tuned; seed=$((seed+1)); done
  for b in 1 64 256; do
    for m in E F; do one $m $b $seed tuned; seed=$((seed+1)); done
  done
  one E 64 $seed recom; seed=$((seed+1))
  one F 64 $seed recom; seed=$((seed+1))
  one E 256 $seed mt0; seed=$((seed+1))
  echo "CHECKS: $pass passed, $fail failed"
  ;;
bench)
  for f in $d/*.pb.gz; do [ -f ${f%.gz} ] || gunzip -kf $f; done
  date -u
  for p in $d/E.tuned.ptx $d/E.host.ptx $d/F.tuned.ptx; do echo "== ptxas -v $p"; ptxas -arch=sm_90 -v "$p" -o /tmp/x.cubin 2>&1 | grep -A3 "entry function 'layer'" | grep -E 'registers|spill'; done
  b() { # b MODEL BATCH VARIANT [extra]
    local m=$1 bb=$2 v=$3; shift 3
    timeout 120 $d/recom bench $d/$m.pb --seed 7 --batch $bb --schedule "${sched[$v]}" --ptx $d/$m.$v.ptx "$@" 2>&1 | grep -E '^BENCH|^bench:' | sed "s/^BENCH /BENCH model=$m variant=$v /"
  }
  for v in ${VARIANTS:-tuned mt0 host host-mt0 recom}; do b E 256 $v; done
  for v in ${VARIANTS2048:-tuned mt0 host recom}; do b E 2048 $v; done
  [ -n "${VARIANTS:-}" ] || for v in tuned recom; do b F 256 $v; b micro 2048 $v; done
  for bb in ${PROBE:-}; do for v in ${PROBE_VARIANTS:-tuned}; do b probe $bb $v; done; done
  for bb in ${MICRO:-}; do for v in ${MICRO_VARIANTS:-tuned recom}; do b micro $bb $v; done; done
  ;;
esac
