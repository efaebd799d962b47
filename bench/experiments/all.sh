#!/usr/bin/env bash
# Several of the GPU benches in one device call, with one recom binary
# (the device tool carries at most 64 MiB; each bench's own folder holds
# a 31 MiB binary): bench/real-models.sh (check, bench), bench/serve.sh
# (device) and bench/experiments/launch.sh (device).
#
#   REALMODELS=/work/realmodels bench/experiments/all.sh build   here: the three builds,
#        then their binaries replaced by one in build/bin (about 40 MiB in all)
#   ALL_STEPS="real serve launch" bench/experiments/all.sh device    GPU machine, carry
#        (step serve-taxi: bench/serve.sh device with MODEL=taxi, the real taxi export)
#        ["build/bin", "build/real", "build/serve", "build/prof"]; logs into $OUT
set -uo pipefail
cd "$(dirname "$0")/../.."
case ${1:-build} in
build)
  set -e
  : "${REALMODELS:?REALMODELS=/path/to/realmodels}"
  REALMODELS=$REALMODELS bench/real-models.sh build
  bench/serve.sh build
  MODEL=taxi bench/serve.sh build
  env -u REALMODELS bench/experiments/launch.sh build
  cp -r build/real/taxi build/prof/taxi
  mkdir -p build/bin
  mv build/real/recom build/bin/recom
  rm -f build/serve/recom build/prof/recom build/real/recom-here
  du -shc build/bin build/real build/serve build/prof
  ;;
device)
  out=${OUT:-/tmp}
  for dir in build/real build/serve build/prof; do cp build/bin/recom $dir/recom; done
  rc=0
  for s in ${ALL_STEPS:-real serve launch}; do
    echo "=== $s"; date -u
    case $s in
    real) bench/real-models.sh check 2>&1 | tee "$out/real-check.log" | tail -12 || rc=1
          OUT=$out bench/real-models.sh bench 2>&1 | tee "$out/real-bench.log" | grep -E "^BENCH|^E2E batch=[0-9]+ sets|PEER|RATIO|after the graph|on the device|match|DIFF" || rc=1;;
    serve) OUT=$out/serve DURATION=${DURATION:-5s} bench/serve.sh device 2>&1 | tee "$out/serve.log" | grep -E "max rate|OVERHEAD|RATIO|SERVE_MAX" || rc=1;;
    serve-taxi) MODEL=taxi OUT=$out/serve-taxi DURATION=${DURATION:-5s} bench/serve.sh device 2>&1 | tee "$out/serve-taxi.log" |
                grep -E "max rate|OVERHEAD|RATIO|SERVE_MAX|reference|DIFFER" || rc=1;;
    launch) OUT=$out bench/experiments/launch.sh device 2>&1 | tee "$out/launch.log" | grep -E "^==|^CHECK|^BENCH|^E2E batch=[0-9]+ sets" || rc=1;;
    *) echo "unknown step $s"; rc=1;;
    esac
  done
  exit $rc
  ;;
*) echo "usage: $0 build|device" >&2; exit 2;;
esac
