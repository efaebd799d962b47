#!/usr/bin/env bash
# The native session's host time around the GPU graph (issue #17): model E
# at B=1 and 256 and the real taxi export at 2048, `recom bench --e2e`
# Summary rows (pack, launch, wait, GPU), with the packers' idle workers
# spinning (default 500µs) or not (PACK_SPIN="500us 0s"), and optionally
# a CPU profile of the timing (PROFILE=1; useful only for the packers:
# the launch is too short for the profiler's 100 Hz).
#
#   REALMODELS=/work/realmodels [BASE_REV=rev] bench/experiments/launch.sh build   here
#   bench/experiments/launch.sh device    GPU machine, carry ["build/prof"]
set -uo pipefail
cd "$(dirname "$0")/../.."
d=build/prof
case ${1:-build} in
build)
  set -e
  . bench/lib.sh
  rm -rf $d
  build_recom $d
  $d/recom-here gen --preset E --no-tables -o $d/E.pb
  $d/recom-here run $d/E.pb --schedule tuned --emit-ptx $d/E.tuned.ptx
  gzip -f $d/E.pb
  if [ -n "${REALMODELS:-}" ]; then
    REALMODELS=$REALMODELS bench/real-models.sh build >/dev/null
    cp -r build/real/taxi $d/taxi
  fi
  # BASE_REV: E's kernel at another revision too (E.base.ptx), for an A/B
  # of the layer in the same call.
  if [ -n "${BASE_REV:-}" ]; then
    base=$(mktemp -d)
    git worktree add -q --detach "$base/tree" "$BASE_REV"
    (cd "$base/tree" && go build -o "$base/recom" ./cmd/recom)
    gunzip -c $d/E.pb.gz >"$base/E.pb"
    "$base/recom" run "$base/E.pb" --schedule tuned --emit-ptx $d/E.base.ptx
    git worktree remove --force "$base/tree"
    rm -rf "$base"
  fi
  rm -f $d/recom-here
  du -sh $d
  ;;
device)
  gunzip -kf $d/E.pb.gz
  out=${OUT:-/tmp}
  show() { grep -E "^BENCH|^E2E|launch|find the batch|wait for the batch|pack fused|GPU, one CUDA graph|graph: batch|after the graph|device step|on the device:"; }
  # E checked against the interpreter first (the layer kernel's id code).
  for b in 1 256; do
    $d/recom gen --feeds --batch $b --seed 5 $d/E.pb -o /tmp/launch-f.npz &&
      timeout 100 $d/recom run $d/E.pb --ptx $d/E.tuned.ptx --feeds /tmp/launch-f.npz -o /tmp/launch-o.npz --check >/tmp/launch-check.txt 2>&1
    rc=$?
    echo "CHECK E B=$b rc=$rc $(tail -1 /tmp/launch-check.txt | cut -c1-200)"
  done
  for spin in ${PACK_SPIN:-500us}; do
    prof() { [ "${PROFILE:-0}" = 1 ] && echo --cpuprofile "$out/$1-$spin.pprof"; }
    if [ -d $d/taxi ]; then
      echo "== taxi B=2048 --pack-spin $spin"; date -u
      timeout 100 $d/recom bench $d/taxi/model.mlir --tables $d/taxi/weights.npz --outputs "$(cat $d/taxi/outputs)" \
        --ptx $d/taxi/model.ptx --batch 2048 --e2e --pack-spin $spin $(prof taxi) 2>&1 | show
    fi
    if [ -f $d/E.base.ptx ]; then
      echo "== E B=256 layer at the base revision's kernel"
      timeout 100 $d/recom bench $d/E.pb --ptx $d/E.base.ptx --batch 256 --sets 2 2>&1 | grep -E "^BENCH"
      echo "== E B=256 layer at this revision's kernel"
      timeout 100 $d/recom bench $d/E.pb --ptx $d/E.tuned.ptx --batch 256 --sets 2 2>&1 | grep -E "^BENCH"
    fi
    for b in 1 256; do
      echo "== E B=$b --pack-spin $spin"; date -u
      timeout 100 $d/recom bench $d/E.pb --ptx $d/E.tuned.ptx --batch $b --sets 2 --e2e --pack-spin $spin $(prof E-$b) 2>&1 | show
    done
  done
  ;;
*) echo "usage: $0 build|device" >&2; exit 2;;
esac
