#!/usr/bin/env bash
# The whole model from features in host memory to predictions in host memory
# (issue #17): recom and the peers, in ONE device call.
#
#   bench/e2e.sh build     here: recom (CGO_ENABLED=0) into build/e2e/, model E
#                          (recom gen --no-tables), its PTX (llc-19), the spec
#   bench/e2e.sh device    on the GPU machine (device tool, carry ["build/e2e"]):
#                          recom bench per batch (layer, dense graph, and the
#                          end-to-end session where recom bench has --e2e), its
#                          input dumps, then bench/peers.py's end-to-end peers
#                          from host memory (PyTorch TBE-like layer + cuBLAS MLP at
#                          fp32, tf32, bf16; latency and throughput), and JAX
#                          (jit, its own device_put of the same host feeds;
#                          latency, and throughput with batches in flight)
#
# Settings (environment): MODELS (E), BATCHES ("256 2048"), ITERS (200),
# PEER_ITERS (50), PRECISIONS (fp32,tf32,bf16), INFLIGHT (2,4), JAX (1; 0:
# no JAX peers), JAX_PRECISIONS (fp32: each other precision is one more
# compilation per batch, 20-50 s for E's 1000 columns),
# JAX_BATCHES (those of BATCHES with JAX peers; default all of them),
# MODEL_PEERS (0; 1: also the generic whole-model peers of the dumped dense
# part, dense.json: a cross-check of the spec's, one more JAX compilation).
set -uo pipefail
cd "$(dirname "$0")/.."
d=${E2E_DIR:-build/e2e}
PY=${PYTHON:-python3}
MODELS=${MODELS:-E}
BATCHES=${BATCHES:-256 2048}
case ${1:-build} in
build)
  set -e
  . bench/lib.sh
  build_recom $d
  rm -f $d/recom-here
  for p in $MODELS; do
    $d/recom gen --preset $p --no-tables -o $d/$p.pb
    cp examples/specs/$p.json $d/$p.spec.json
    $d/recom run $d/$p.pb --schedule tuned --emit-ptx $d/$p.tuned.ptx
  done
  gzip -f $d/*.pb
  du -sh $d
  ;;
device)
  out=${OUT:-/tmp/e2e-out}
  mkdir -p "$out/logs"
  for f in $d/*.pb.gz; do gunzip -kf "$f"; done
  nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$out/logs/gpu.txt"
  e2eflag=()
  $d/recom bench --help 2>&1 | grep -q -- '--e2e' && e2eflag=(--e2e)
  for p in $MODELS; do
    dumps=()
    for b in $BATCHES; do
      dump=/tmp/e2e-dump-$p-$b
      rm -rf "$dump"
      echo "== recom bench $p B=$b ${e2eflag[*]}"
      $d/recom bench $d/$p.pb --ptx $d/$p.tuned.ptx --batch $b --iters ${ITERS:-200} \
        --dump-inputs "$dump" "${e2eflag[@]}" 2>&1 | tee "$out/logs/recom-$p-$b.log" | grep -v '^  '
      dumps+=("$dump")
    done
    list=$(IFS=,; echo "${dumps[*]}")
    echo "== peers $p: $list"
    jaxflags=(--no-jax)
    if [ "${JAX:-1}" != 0 ]; then
      jb=${JAX_BATCHES:-$BATCHES}
      jaxflags=(--jax-batches "" --jax-e2e-batches "${jb// /,}" --jax-host-precisions "${JAX_PRECISIONS:-fp32}")
    fi
    [ "${MODEL_PEERS:-0}" = 1 ] || jaxflags+=(--no-model)
    $PY -u bench/peers.py --model "$p" --dumps "$list" --spec "$d/$p.spec.json" \
      "${jaxflags[@]}" --iters "${PEER_ITERS:-50}" --precisions "${PRECISIONS:-fp32,tf32,bf16}" \
      --inflight "${INFLIGHT:-2,4}" --json "$out/peers-$p.jsonl" 2>&1 | tee "$out/logs/peers-$p.log" | grep -E 'PEER|match|DIFF|fail|peers:'
  done
  tar czf "$out/a-e2e-logs.tgz" -C "$out" logs && rm -rf "$out/logs"
  ;;
*) echo "usage: $0 build|device" >&2; exit 2;;
esac
