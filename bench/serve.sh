#!/usr/bin/env bash
# recom serve under load on the GPU machine (issue #20): model E (or a real
# model, MODEL=taxi: see below) served by the native runtime with dynamic
# batching, driven by recom loadtest (vegeta, open loop) with requests of
# 1-64 rows, searching for the
# highest request rate whose p99 latency is at most 10 ms, per protocol;
# the server's own overhead at the median; then the same load against the
# peer served in process (bench/peer_serve.py), and the ratio.
#
#   bench/serve.sh build    here: recom (CGO_ENABLED=0) into build/serve/, model E
#                           (recom gen --no-tables: random tables from --seed), its
#                           PTX (llc-19) and its gen spec (the peer's MLP)
#   bench/serve.sh device   on the GPU machine (device tool, carry ["build/serve"],
#                           timeout_s 600): start recom serve E on the GPU, wait
#                           until ready, per protocol recom loadtest --max-p99, then
#                           one run at half the rate found with /metrics scraped
#                           around it (OVERHEAD line: the median of
#                           recom_serve_overhead_seconds against the median
#                           end-to-end latency, bench/serve_metrics.py); SIGTERM
#                           (graceful; the server's CPU profile from ready to then:
#                           serve-cpu.pprof, read here with go tool pprof); recom
#                           bench --dump-inputs (the peer's
#                           inputs: the same model, tables and feeds); per peer
#                           in PEERS bench/peer_serve.py --max-p99 with the same
#                           settings; RATIO lines: recom's rate over the peer's
#
# A real model: MODEL=taxi, the Chicago taxi wide & deep Estimator export
# (tensorflow/tfx@58435d68, its trained weights), as bench/real-models.sh
# builds it: the graph cut at the tf.Transform outputs (model.mlir: 12
# int64/float32 vector inputs, output head/predictions/probabilities
# [rows, 2]), weights.npz (--tables), outputs (--outputs). The build copies
# them from REAL_DIR (build/real/taxi; made first with REALMODELS set when
# missing) into build/serve/taxi/ and emits the PTX with this build's recom;
# the device step serves model.mlir with --tables and --outputs (recom
# loadtest draws its bodies for the same inputs, gen --feeds' draws), dumps
# with recom bench --e2e --dump-inputs (the whole model's dense part,
# dense.json) and runs the peer on that dump without --spec: the session's
# dense layers and host steps rebuilt by peers.py's chain_fn, checked
# against recom's outputs. E's files stay beside it: one build/serve holds
# both.
#
#   REALMODELS=/work/realmodels MODEL=taxi bench/serve.sh build
#   device (carry ["build/serve"], timeout_s 600; about 3 minutes):
#   MODEL=taxi DURATION=3s STEPS=3 START_RATE=1000 OVERHEAD_DURATION=3s \
#     bench/serve.sh device 2>&1 | tee $OUT/serve-taxi.log
#
# Here (no GPU): MODEL=taxi BACKEND=cpu PEERS= bench/serve.sh device serves
# it on the interpreter (no peers: recom bench needs the GPU).
#
# Settings (environment): MODEL (E; or taxi), BACKEND (gpu; cpu: the
# interpreter), PROTOCOLS (tfserving oip-binary; also oip, grpc), MAX_P99 (10ms), START_RATE
# (200), DURATION (8s per rate), STEPS (4 bisections), BODIES (128),
# SERVE_FLAGS (more recom serve flags, e.g. --pack-spinners 2),
# MAX_ROWS (64), MAX_BATCH (256), BATCH_TIMEOUT (0), INFLIGHT (8), DENSE
# (generated | cublaslt), PRECISION (fp32), PEERS (torch; also jax; empty:
# none), OVERHEAD_DURATION (5s), OUT (/tmp/serve-out). The load generator
# runs on the same host as the server (16 cores): it takes CPU from the
# server's packing, so the rates found are a lower bound of what the server
# sustains with clients elsewhere (the peer has no such client).
set -uo pipefail
cd "$(dirname "$0")/.."
d=${SERVE_DIR:-build/serve}
MODEL=${MODEL:-E}
# A real model's files (bench/real-models.sh's) under $d/$MODEL/.
real=""
case $MODEL in taxi) real=1;; esac
case ${1:-build} in
build)
  set -e
  . bench/lib.sh
  if [ -n "$real" ]; then
    src=${REAL_DIR:-build/real}/$MODEL
    if [ ! -f "$src/model.mlir" ]; then
      : "${REALMODELS:?no $src/model.mlir: REALMODELS=/path/to/realmodels to build it (bench/real-models.sh build)}"
      bench/real-models.sh build
    fi
    build_recom $d
    mkdir -p $d/$MODEL
    cp "$src/model.mlir" "$src/weights.npz" "$src/outputs" $d/$MODEL/
    # The PTX of this build's recom (serve checks the LLVM IR's hash).
    $d/recom-here run $d/$MODEL/model.mlir --tables $d/$MODEL/weights.npz --outputs "$(cat $d/$MODEL/outputs)" \
      --emit-ptx $d/$MODEL/model.ptx
    rm -f $d/recom-here
    du -sh $d
    exit 0
  fi
  build_recom $d
  $d/recom-here gen --preset $MODEL --no-tables -o $d/$MODEL.pb
  $d/recom-here run $d/$MODEL.pb --schedule tuned --emit-ptx $d/$MODEL.tuned.ptx
  cp examples/specs/$MODEL.json $d/$MODEL.spec.json
  rm -f $d/recom-here
  gzip -f $d/$MODEL.pb
  du -sh $d
  ;;
device)
  out=${OUT:-/tmp/serve-out}
  mkdir -p "$out"
  for f in $d/*.pb.gz; do [ -e "$f" ] && gunzip -kf "$f"; done
  nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null | tee "$out/gpu.txt" || echo "no nvidia-smi"
  port=${PORT:-18501}
  dense=()
  [ -n "${DENSE:-}" ] && dense=(--dense-backend "$DENSE")
  # The model's files and flags: E (recom gen's GraphDef, random tables from
  # the seed, its spec's MLP for the peer) or a real model's cut graph.
  if [ -n "$real" ]; then
    mpath=$d/$MODEL/model.mlir ptx=$d/$MODEL/model.ptx
    outs=$(cat $d/$MODEL/outputs)
    margs=(--tables $d/$MODEL/weights.npz --outputs "$outs")
    largs=(--name "$MODEL" --outputs "$outs")
    dumpargs=(--e2e) # the whole model's dense part (dense.json): the peer's model
    peerargs=()
  else
    mpath=$d/$MODEL.pb ptx=$d/$MODEL.tuned.ptx
    margs=() largs=(--name "$MODEL") dumpargs=() peerargs=(--spec $d/$MODEL.spec.json)
  fi
  $d/recom serve $mpath --name "$MODEL" "${margs[@]}" --ptx $ptx --backend "${BACKEND:-gpu}" "${dense[@]}" \
    --precision "${PRECISION:-fp32}" --http-addr 127.0.0.1:$port --grpc-addr 127.0.0.1:$((port + 1)) \
    --max-batch "${MAX_BATCH:-256}" --batch-timeout "${BATCH_TIMEOUT:-0}" --inflight "${INFLIGHT:-8}" \
    --log-format json --cpuprofile "$out/serve-cpu.pprof" ${SERVE_FLAGS:-} >"$out/server.log" 2>&1 &
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
  PY=${PYTHON:-python3}
  declare -A best
  for p in ${PROTOCOLS:-tfserving oip-binary}; do
    echo "== loadtest $MODEL $p"
    url=http://127.0.0.1:$port
    [ "$p" = grpc ] && url=http://127.0.0.1:$((port + 1))
    $d/recom loadtest $mpath "${largs[@]}" --url "$url" --protocol "$p" \
      --max-p99 "${MAX_P99:-10ms}" --rates "${START_RATE:-200}" --duration "${DURATION:-8s}" \
      --search-steps "${STEPS:-4}" --bodies "${BODIES:-128}" --max-rows "${MAX_ROWS:-64}" \
      --json "$out/loadtest-$MODEL-$p.jsonl" 2>&1 | tee "$out/loadtest-$MODEL-$p.log" || rc=1
    r=$(sed -n 's/^max rate at p99 <= [^:]*: \([0-9]*\) requests.*/\1/p' "$out/loadtest-$MODEL-$p.log")
    best[$p]=${r:-0}
    # The server's own overhead at the median, at half the rate found.
    half=$(( ${r:-0} / 2 ))
    [ "$half" -ge 1 ] || half=${START_RATE:-200}
    case $p in tfserving) proto=tfserving;; grpc) proto=oip-grpc;; *) proto=oip-http;; esac
    curl -s "http://127.0.0.1:$port/metrics" >"$out/metrics-before-$p.txt"
    $d/recom loadtest $mpath "${largs[@]}" --url "$url" --protocol "$p" --rates "$half" \
      --duration "${OVERHEAD_DURATION:-5s}" --bodies "${BODIES:-128}" --max-rows "${MAX_ROWS:-64}" \
      --json "$out/overhead-$MODEL-$p.jsonl" >"$out/overhead-$MODEL-$p.log" 2>&1 || rc=1
    curl -s "http://127.0.0.1:$port/metrics" >"$out/metrics-after-$p.txt"
    $PY bench/serve_metrics.py "$out/metrics-before-$p.txt" "$out/metrics-after-$p.txt" "$proto" \
      "$out/overhead-$MODEL-$p.jsonl" | sed "s/^OVERHEAD /OVERHEAD model=$MODEL loadtest=$p /" || rc=1
  done
  curl -s "http://127.0.0.1:$port/metrics" | grep '^recom_serve' >"$out/metrics.txt"
  kill -TERM $server
  wait $server || rc=1
  tail -3 "$out/server.log"
  # The peers: the same model (its tables, feeds and our layer's output, dumped
  # by recom bench; a real model's whole dense part with --e2e), the same load
  # and batching settings, served in process.
  peers=${PEERS-torch}
  [ -n "$peers" ] || exit $rc
  dump=/tmp/serve-dump-$MODEL
  rm -rf "$dump"
  echo "== recom bench $MODEL ${dumpargs[*]} --dump-inputs (the peers' inputs)"
  $d/recom bench $mpath "${margs[@]}" --ptx $ptx --batch "${MAX_BATCH:-256}" --iters 20 "${dumpargs[@]}" \
    --dump-inputs "$dump" >"$out/dump-$MODEL.log" 2>&1 || { rc=1; tail -5 "$out/dump-$MODEL.log"; }
  for peer in $peers; do
    echo "== peer_serve $MODEL $peer"
    $PY -u bench/peer_serve.py --dump "$dump" "${peerargs[@]}" --model "$MODEL" --backend "$peer" \
      --precision "${PRECISION:-fp32}" --max-p99 "${MAX_P99:-10ms}" --rates "${START_RATE:-200}" \
      --duration "${DURATION:-8s}" --search-steps "${STEPS:-4}" --bodies "${BODIES:-128}" --max-rows "${MAX_ROWS:-64}" \
      --max-batch "${MAX_BATCH:-256}" --batch-timeout "${BATCH_TIMEOUT:-0}" --inflight "${INFLIGHT:-8}" \
      --json "$out/peer-serve-$MODEL.jsonl" 2>&1 | tee "$out/peer-serve-$MODEL-$peer.log" || rc=1
    pr=$(sed -n 's/^SERVE_MAX .* rate=\([0-9.]*\).*/\1/p' "$out/peer-serve-$MODEL-$peer.log" | tail -1)
    for p in "${!best[@]}"; do
      awk -v m="$MODEL" -v p="$p" -v peer="$peer" -v a="${best[$p]}" -v b="${pr:-0}" 'BEGIN {
        r = (b > 0) ? sprintf("%.2f", a / b) : "inf"
        printf "RATIO model=%s recom=%s peer=serve_%s recom_rate=%d peer_rate=%d ratio=%s (target >= 2)\n", m, p, peer, a, b, r }'
    done
  done
  rm -rf "$dump"
  exit $rc
  ;;
*)
  echo "usage: bench/serve.sh build|device" >&2
  exit 2
  ;;
esac
