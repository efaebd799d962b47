#!/usr/bin/env bash
# Models served from serialized tf.Example records (issue #18, part 2) on the
# GPU machine: the small preset and preset E generated with --tf-example (one
# string placeholder parsed by ParseExampleV2, as an Estimator export's
# serving signature), their layers fused with every id transform in the
# kernel, the records parsed on the host straight into the packed inputs
# (runtime/hostpack) and the dense features by one host step.
#
#   bench/experiments/tf-example.sh build   here: the recom binary and the hostpack benchmark binary
#                                           (no cgo), the models, feeds and PTX (llc-19) into build/tfex/
#   bench/experiments/tf-example.sh check   GPU machine: recom run --check (the native session against the
#                                           interpreter on the GraphDef) of the small preset at B=1, 37, 256
#                                           and of E at B=256
#   bench/experiments/tf-example.sh bench   GPU machine: recom bench --e2e of E served from records at
#                                           B=256 and 2048 (the same as session-e2e.sh's E, records in
#                                           place of 1001 feeds), and BenchmarkExamplePack/HostPack on the
#                                           machine's CPU at GOMAXPROCS 1, 4, 16 (HOSTBENCH_CPU,
#                                           HOSTBENCH_TIME: 50x, HOSTBENCH_SPIN: the pool's spin wait)
#
# Device call: carry ["build/tfex"], timeout_s 600:
#   bench/experiments/tf-example.sh check bench 2>&1 | tee $OUT/tf-example.log
set -uo pipefail
cd "$(dirname "$0")/../.."
d=build/tfex
rc=0
# E's tables (5.4 GB) are random tensors of the interpreter's reference run:
# raise its limits (docs/LIMITS.md), as session-e2e.sh does.
export RECOM_MAX_TENSOR_ELEMENTS=${RECOM_MAX_TENSOR_ELEMENTS:-4294967296}
export RECOM_MAX_TENSOR_BYTES=${RECOM_MAX_TENSOR_BYTES:-17179869184}

# e_model makes E's graph and a batch of its records (as build made them).
e_model() {
  [ -f $d/E.pb ] || $d/recom gen --preset E --tf-example --no-tables -o $d/E.pb
  [ -f $d/E.256.npz ] || $d/recom gen --feeds $d/E.pb --batch 256 -o $d/E.256.npz
}

for mode in "${@:-build}"; do
  case $mode in
  build)
    set -e
    export PATH="/usr/local/go/bin:$PATH"
    mkdir -p $d
    CGO_ENABLED=0 GOOS=linux GOARCH=amd64 go build -trimpath -ldflags='-s -w' -o $d/recom ./cmd/recom
    CGO_ENABLED=0 GOOS=linux GOARCH=amd64 go test -c -trimpath -ldflags='-s -w' -o $d/hostpack.test ./runtime/hostpack
    go build -o $d/recom-here ./cmd/recom
    $d/recom-here gen --preset small --tf-example -o $d/small.pbtxt
    $d/recom-here gen --preset E --tf-example --no-tables -o $d/E.pb
    for b in 1 37 256; do $d/recom-here gen --feeds $d/small.pbtxt --batch $b --seed $b -o $d/small.$b.npz; done
    $d/recom-here run $d/small.pbtxt --emit-ptx $d/small.ptx
    $d/recom-here run $d/E.pb --emit-ptx $d/E.ptx
    # E's graph (21 MB) and feeds are made again on the GPU machine (the same
    # bytes: gen is deterministic), so that build/tfex stays within carry's 64 MiB.
    rm $d/recom-here $d/E.pb
    ls -l $d
    set +e
    ;;
  check)
    date -u
    nvidia-smi --query-gpu=name,driver_version --format=csv 2>&1
    for b in 1 37 256; do
      echo "== small served from records, B=$b"
      $d/recom run $d/small.pbtxt --ptx $d/small.ptx --tables $d/small.tables.npz --feeds $d/small.$b.npz --check -o $d/small.$b.out.npz || rc=1
    done
    e_model
    echo "== E served from records, B=256"
    $d/recom run $d/E.pb --ptx $d/E.ptx --feeds $d/E.256.npz --check -o $d/E.256.out.npz || rc=1
    echo "tf-example check exit status $rc"
    ;;
  bench)
    e_model
    for b in 256 2048; do
      echo "== E served from records, recom bench --e2e B=$b"
      $d/recom bench $d/E.pb --ptx $d/E.ptx --batch $b --e2e || rc=1
    done
    (cd runtime/hostpack && ../../$d/hostpack.test -test.run '^$' -test.bench 'ExamplePack|HostPack/E' -hostpack-spin "${HOSTBENCH_SPIN:--1ns}" \
      -test.cpu "${HOSTBENCH_CPU:-1,4,16}" -test.benchtime "${HOSTBENCH_TIME:-50x}" -test.benchmem -test.timeout=300s) || rc=1
    echo "tf-example bench exit status $rc"
    ;;
  *)
    echo "usage: $0 build|check|bench ..." >&2
    exit 2
    ;;
  esac
done
exit $rc
