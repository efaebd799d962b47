#!/usr/bin/env bash
# The compiled embedding layer on the GPU: correctness against the CPU
# interpreter, then the benchmark against the peers.
#
#   bench/device-test.sh build     (here: Go binary, models, PTX into build/dev/)
#   bench/device-test.sh check     (on the GPU machine: every model x batch, --check)
#   bench/device-test.sh bench     (on the GPU machine: recom bench + bench/peers.py)
#
# build makes, with CGO_ENABLED=0 (runtime/cuda loads libcuda.so.1 through
# purego): build/dev/recom; the models (recom gen --no-tables: the layer
# gets the interpreter's deterministic random tables from --seed, on the
# GPU too, since recom run draws them from the same function by variable
# name): presets E, F, micro, probe, and E and F scaled to 200 columns
# (E200, F200: the interpreter on the full models at batch 2048 would not
# fit a device call), plus the bundled small model with its tables; and
# each model's PTX (llc-19, which the GPU machine lacks) for the tuned
# schedule, and for schedule=recom for E and probe.
#
# The device tool ran, with carry ["build/dev"] and timeout_s 480:
#   bench/device-test.sh check 2>&1 | tee $OUT/check.log   (then bench)
# Results go to bench/RESULTS.md.
set -uo pipefail
cd "$(dirname "$0")/.."
d=build/dev
mode=${1:-build}

case $mode in
build)
  set -e
  . bench/lib.sh
  build_recom $d
  for p in E F micro probe; do
    $d/recom-here gen --preset $p --no-tables -o $d/$p.pb
  done
  $d/recom-here gen --preset E --columns 200 --no-tables -o $d/E200.pb
  $d/recom-here gen --preset F --columns 200 --no-tables -o $d/F200.pb
  cp examples/small.pbtxt examples/small.tables.npz $d/
  for m in E F micro probe E200 F200; do
    $d/recom-here run $d/$m.pb --emit-ptx $d/$m.tuned.ptx
  done
  $d/recom-here run $d/small.pbtxt --emit-ptx $d/small.tuned.ptx
  for m in E probe; do
    $d/recom-here run $d/$m.pb --schedule recom --emit-ptx $d/$m.recom.ptx
  done
  rm -f $d/recom-here
  cp bench/peers.py $d/
  gzip -f $d/*.pb   # the tree that travels is limited to 64 MiB
  ls -l $d
  du -sh $d
  ;;
check)
  for f in $d/*.pb.gz; do gunzip -kf $f; done
  date -u; nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.max.mem --format=csv
  pass=0; fail=0
  one() { # one MODEL BATCH SEED [extra]
    local m=$1 b=$2 s=$3; shift 3
    local model=$d/$m.pb tfl=()
    [ "$m" = small ] && model=$d/small.pbtxt && tfl=(--tables $d/small.tables.npz)
    local t0=$SECONDS
    $d/recom gen --feeds --batch $b --seed $s $model -o /tmp/f.npz &&
      timeout 120 $d/recom run $model "${tfl[@]}" --seed 7 --ptx $d/$m.tuned.ptx --feeds /tmp/f.npz -o /tmp/o.npz --check "$@" > /tmp/check.txt 2>&1
    local rc=$?
    local dt=$((SECONDS-t0))
    if [ $rc = 0 ]; then pass=$((pass+1)); r=PASS; else fail=$((fail+1)); r="FAIL rc=$rc"; fi
    printf 'CHECK %-6s B=%-5s seed=%-3s %s (%d s): %s\n' $m $b $s "$r" $dt "$(tr '\n' ' ' </tmp/check.txt | cut -c1-400)"
  }
  seed=11
  for b in 1 32 256 2048; do
    for m in small micro probe; do one $m $b $seed; seed=$((seed+1)); done
  done
  for b in 1 32 256; do
    for m in E F; do one $m $b $seed; seed=$((seed+1)); done
  done
  for m in E200 F200; do one $m 2048 $seed; seed=$((seed+1)); done
  echo "CHECKS: $pass passed, $fail failed"
  ;;
bench)
  for f in $d/*.pb.gz; do [ -f ${f%.gz} ] || gunzip -kf $f; done
  date -u
  for p in $d/*.ptx; do echo "== ptxas -v $p"; ptxas -arch=sm_90 -v "$p" -o /tmp/x.cubin 2>&1 | grep -E 'registers|spill|Compiling' | head -4; done
  b() { # b MODEL BATCH SCHEDULE [extra]
    local m=$1 bb=$2 s=$3; shift 3
    echo "== recom bench $m B=$bb schedule=$s $*"
    timeout 150 $d/recom bench $d/$m.pb --seed 7 --batch $bb --schedule $s --ptx $d/$m.$s.ptx "$@" 2>&1 | sed "s/^BENCH /BENCH model=$m /"
  }
  peers() { echo "== peers $1"; PYTHONUNBUFFERED=1 timeout ${2:-120} python3 $d/peers.py /tmp/dump/$1 ${PEERS_FLAGS:-} 2>&1 | grep -v Warning; }
  b probe 256 tuned --dump-inputs /tmp/dump/probe256
  b probe 256 recom
  b E 256 tuned --dump-inputs /tmp/dump/E256
  b E 256 recom
  peers probe256 100
  peers E256 100
  b probe 4096 tuned --sets 2 --dump-inputs /tmp/dump/probe4096
  b probe 4096 recom --sets 2
  b E 2048 tuned
  b E 2048 recom
  PEERS_FLAGS="--no-jax ${PEERS_FLAGS:-}" peers probe4096 60
  ;;
esac
