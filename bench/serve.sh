#!/usr/bin/env bash
# recom serve under load on the GPU machine (issue #20): model E served by
# the native runtime with dynamic batching, driven by recom loadtest
# (vegeta, open loop) with requests of 1-64 rows, searching for the
# highest request rate whose p99 latency is at most 10 ms, per protocol.
#
#   bench/serve.sh build    here: recom (CGO_ENABLED=0) into build/serve/, model E
#                           (recom gen --no-tables: random tables from --seed) and
#                           its PTX (llc-19)
#   bench/serve.sh device   on the GPU machine (device tool, carry ["build/serve"],
#                           timeout_s 600): start recom serve E on the GPU, wait
#                           until ready, recom loadtest --max-p99 per protocol,
#                           the server's /metrics and log, then SIGTERM (graceful)
#
# Settings (environment): MODEL (E), PROTOCOLS (tfserving oip-binary), MAX_P99
# (10ms), START_RATE (200), DURATION (8s per rate), STEPS (4 bisections),
# BODIES (128), MAX_ROWS (64), MAX_BATCH (256), BATCH_TIMEOUT (500us),
# INFLIGHT (4), DENSE (generated | cublaslt), PRECISION (fp32), OUT
# (/tmp/serve-out). The load generator runs on the same host as the server
# (16 cores): it takes CPU from the server's packing, so the rates found are
# a lower bound of what the server sustains with clients elsewhere.
set -uo pipefail
cd "$(dirname "$0")/.."
d=${SERVE_DIR:-build/serve}
MODEL=${MODEL:-E}
case ${1:-build} in
build)
  set -e
  . bench/lib.sh
  build_recom $d
  $d/recom-here gen --preset $MODEL --no-tables -o $d/$MODEL.pb
  $d/recom-here run $d/$MODEL.pb --schedule tuned --emit-ptx $d/$MODEL.tuned.ptx
  rm -f $d/recom-here
  gzip -f $d/$MODEL.pb
  du -sh $d
  ;;
device)
  out=${OUT:-/tmp/serve-out}
  mkdir -p "$out"
  for f in $d/*.pb.gz; do gunzip -kf "$f"; done
  nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$out/gpu.txt"
  port=${PORT:-18501}
  dense=()
  [ -n "${DENSE:-}" ] && dense=(--dense-backend "$DENSE")
  $d/recom serve $d/$MODEL.pb --ptx $d/$MODEL.tuned.ptx --backend gpu "${dense[@]}" \
    --precision "${PRECISION:-fp32}" --http-addr 127.0.0.1:$port --grpc-addr 127.0.0.1:$((port + 1)) \
    --max-batch "${MAX_BATCH:-256}" --batch-timeout "${BATCH_TIMEOUT:-500us}" --inflight "${INFLIGHT:-4}" \
    --log-format json >"$out/server.log" 2>&1 &
  server=$!
  ready=0
  for _ in $(seq 1 300); do
    if curl -sf "http://127.0.0.1:$port/readyz" >/dev/null 2>&1; then ready=1; break; fi
    if ! kill -0 $server 2>/dev/null; then break; fi
    sleep 1
  done
  if [ $ready != 1 ]; then
    echo "serve: the server did not become ready"; tail -20 "$out/server.log"
    kill -TERM $server 2>/dev/null; wait $server
    exit 1
  fi
  grep -E '"msg":"(compiled and planned on the GPU|warmed up|model ready)"' "$out/server.log"
  rc=0
  for p in ${PROTOCOLS:-tfserving oip-binary}; do
    echo "== loadtest $MODEL $p"
    $d/recom loadtest $d/$MODEL.pb --url "http://127.0.0.1:$port" --protocol "$p" \
      --max-p99 "${MAX_P99:-10ms}" --rates "${START_RATE:-200}" --duration "${DURATION:-8s}" \
      --search-steps "${STEPS:-4}" --bodies "${BODIES:-128}" --max-rows "${MAX_ROWS:-64}" \
      --json "$out/loadtest-$MODEL-$p.jsonl" 2>&1 | tee "$out/loadtest-$MODEL-$p.log" || rc=1
  done
  curl -s "http://127.0.0.1:$port/metrics" | grep '^recom_serve' >"$out/metrics.txt"
  kill -TERM $server
  wait $server || rc=1
  tail -3 "$out/server.log"
  exit $rc
  ;;
*)
  echo "usage: bench/serve.sh build|device" >&2
  exit 2
  ;;
esac
