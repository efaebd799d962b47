#!/usr/bin/env bash
# Where the fused kernel's time goes, on the H200: Nsight Compute (ncu) on
# one launch of the embedding kernel per (model, batch, variant), plus
# `recom bench` of each variant, in one device call.
#
#   bench/experiments/profile.sh build    here: recom, the models and each variant's PTX into build/prof/
#   bench/experiments/profile.sh device   GPU machine (carry ["build/prof"]): ncu reports as text in $OUT
#
# Settings: PROFILE="model:batch:variant ..." (the ncu runs), BENCH="model:batch:variant ..."
# (the timed runs), SETS (ncu --section list; default: the sections that say
# what a latency-bound kernel waits on).
# ncu needs the Firecracker runtime (KINDS.md: on gVisor it cannot read the
# counters): the device mode says so and goes on with the timings.
set -uo pipefail
cd "$(dirname "$0")/../.."
d=${PROF_DIR:-build/prof}
mode=${1:-build}
declare -A sched=([tuned]="tuned" [hosthash]="tuned host-ids=hash,as_string,vocab_lookup"
  [mb2]="tuned min-blocks=2" [mb4]="tuned min-blocks=4" [mb5]="tuned min-blocks=5" [mb6]="tuned min-blocks=6"
  [recom]="recom" [idp-none]="tuned id-pass=none")
models=${MODELS:-probe E}
variants=${VARIANTS_BUILD:-tuned hosthash mb4 mb5 mb6}

case $mode in
build)
  set -e
  . bench/lib.sh
  build_recom $d
  for m in $models; do
    $d/recom-here gen --preset $m --no-tables -o $d/$m.pb
    for v in $variants; do $d/recom-here run $d/$m.pb --schedule "${sched[$v]}" --emit-ptx $d/$m.$v.ptx; done
  done
  rm -f $d/recom-here
  gzip -f $d/*.pb
  du -sh $d
  ;;
device)
  : "${OUT:?OUT must name the folder for the results}"
  for f in $d/*.pb.gz; do [ -f ${f%.gz} ] || gunzip -kf $f; done
  date -u
  for p in $d/*.ptx; do echo "== ptxas -v $p: $(ptxas -arch=sm_90 -v "$p" -o /tmp/x.cubin 2>&1 | grep -A3 "entry function 'layer'" | grep -E 'registers|spill' | tr '\n' ' ')"; done
  ncu=$(command -v ncu || ls /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | head -1)
  sets=${SETS:---section SpeedOfLight --section Occupancy --section LaunchStats --section SchedulerStats --section WarpStateStats --section InstructionStats --section MemoryWorkloadAnalysis --section SourceCounters}
  for job in ${PROFILE:-probe:256:tuned probe:256:hosthash}; do
    IFS=: read -r m b v <<<"$job"
    $d/recom gen --feeds --batch $b --seed 3 $d/$m.pb -o /tmp/f.npz || continue
    echo "== ncu $m B=$b $v"
    timeout 200 $ncu --clock-control none -k regex:'^layer$' -c 1 $sets -f -o /tmp/p \
      $d/recom run $d/$m.pb --seed 7 --schedule "${sched[$v]}" --ptx $d/$m.$v.ptx --feeds /tmp/f.npz -o /tmp/o.npz > /tmp/ncu.log 2>&1
    echo "ncu rc=$? $(grep -E '==PROF==|==ERROR==|==WARNING==' /tmp/ncu.log | head -5 | tr '\n' ' ')"
    [ -f /tmp/p.ncu-rep ] || continue
    $ncu -i /tmp/p.ncu-rep --print-details all > $OUT/ncu-$m-$b-$v.txt 2>&1
    $ncu -i /tmp/p.ncu-rep --page source --csv --print-source sass > $OUT/sass-$m-$b-$v.csv 2>&1 || true
    grep -E 'Duration|Registers|Achieved Occupancy|Theoretical Occupancy|Stall|Issued Ipc|Executed Instructions |Memory Throughput|L1/TEX Hit|L2 Hit|One or More|No Eligible|Active Warps Per' $OUT/ncu-$m-$b-$v.txt | head -40
    rm -f /tmp/p.ncu-rep
  done
  bb() { # bb MODEL BATCH VARIANT
    timeout 120 $d/recom bench $d/$1.pb --seed 7 --batch $2 --schedule "${sched[$3]}" --ptx $d/$1.$3.ptx 2>&1 | grep -E '^BENCH|^bench:' | sed "s/^BENCH /BENCH model=$1 variant=$3 /"
  }
  for job in ${BENCH:-}; do IFS=: read -r m b v <<<"$job"; bb $m $b $v; done
  ;;
*)
  echo "usage: $0 build|device" >&2; exit 2
  ;;
esac
