#!/usr/bin/env bash
# Every column form in the kernel (issue #18, part 3) on the H200:
# `recom run --check` (the GPU's outputs against the interpreter on the same
# graph) of the models whose columns this work moved into the kernel:
#   dssm       the two-tower preset: two embedding layers, each its own kernel,
#              vocabularies with default_value=-1 (ids pruned in the kernel)
#   dssm-nrr   the same with --simplify-shapes=no-reshape-removal: the columns'
#              reshapes stay, their shapes rebuilt as shape.from_extents (as in
#              TF2 two-tower exports)
#   small      the bundled model (identity columns' ids checked on the host)
# The census graphs (vocabularies with default_value=-1 in the kernel) are
# bench/real-graphs.sh's.
#
#   bench/experiments/columns-check.sh build   here: tools, models, PTX, feeds into build/columns/
#   bench/experiments/columns-check.sh check   GPU machine: recom run --check per model and batch
#
# Device call: carry ["build/columns"], timeout_s 300:
#   bench/experiments/columns-check.sh check 2>&1 | tee $OUT/columns-check.log
set -uo pipefail
cd "$(dirname "$0")/../.."
d=build/columns
mode=${1:-build}
batches=(1 33 256)
declare -A simplify=([dssm]="" [dssm-nrr]="no-reshape-removal=true" [small]="")
declare -A outputs=([dssm]="prediction,user/input_layer/concat,item/input_layer/concat"
  [dssm-nrr]="prediction,user/input_layer/concat,item/input_layer/concat" [small]="prediction,input_layer/concat")

model() { # model NAME: the graph file
  case $1 in
  dssm | dssm-nrr) echo $d/dssm.pb ;;
  small) echo $d/small.pbtxt ;;
  esac
}

case $mode in
build)
  set -e
  . bench/lib.sh
  build_recom $d
  $d/recom-here gen --preset dssm --no-tables -o $d/dssm.pb
  cp examples/small.pbtxt examples/small.tables.npz $d/
  for m in dssm dssm-nrr small; do
    $d/recom-here compile "$(model $m)" --simplify-shapes="${simplify[$m]}" -o $d/$m.compile --no-cubin -q 2>/dev/null
    sed -n '/^columns:/,/^$/p' $d/$m.compile/summary.txt | sed "s/^/   $m: /"
    rm -rf $d/$m.compile
    $d/recom-here run "$(model $m)" --simplify-shapes="${simplify[$m]}" --outputs "${outputs[$m]}" --emit-ptx $d/$m.ptx
    for b in "${batches[@]}"; do
      $d/recom-here gen --feeds --batch $b --seed $b "$(model $m)" -o $d/$m.feeds-$b.npz 2>/dev/null
    done
  done
  rm -f $d/recom-here
  du -sh $d
  ;;
check)
  date -u
  nvidia-smi --query-gpu=name,driver_version --format=csv,noheader || true
  pass=0
  fail=0
  for m in dssm dssm-nrr small; do
    tfl=()
    [ $m = small ] && tfl=(--tables $d/small.tables.npz)
    for b in "${batches[@]}"; do
      t0=$SECONDS
      if timeout 100 $d/recom run "$(model $m)" "${tfl[@]}" --seed 7 --simplify-shapes="${simplify[$m]}" --outputs "${outputs[$m]}" \
        --ptx $d/$m.ptx --feeds $d/$m.feeds-$b.npz -o /tmp/columns-out.npz --check >/tmp/columns-check.txt 2>&1; then
        pass=$((pass + 1))
        r=PASS
      else
        fail=$((fail + 1))
        r=FAIL
      fi
      printf 'CHECK %-8s B=%-4s %s (%d s): %s\n' $m $b $r $((SECONDS - t0)) "$(tail -n 3 /tmp/columns-check.txt | tr '\n' ' ' | cut -c1-300)"
    done
  done
  echo "CHECKS: $pass passed, $fail failed"
  [ $fail = 0 ]
  ;;
*)
  echo "usage: $0 build|check" >&2
  exit 2
  ;;
esac
