#!/usr/bin/env bash
# cuBLASLt from Go (runtime/cublaslt, through purego) on the GPU machine:
# the package's tests there, where the driver, cuBLASLt and the CUDA headers
# are: the constants and structures against cublasLt.h (TestHeader), every
# precision, transposition and epilogue against a float64 product
# (TestGPUMatmul), a plan inside a CUDA graph (TestGPUGraph), a layer over a
# concatenation as two products, the second accumulating into the first's
# output placed in a wider matrix (TestGPUConcatParts), and preset E's
# dense products at B=256 and 2048, checked and timed (TestGPUModelE: one
# "CUBLASLT E ..." line per product and precision, and a total per batch).
#
#   bench/experiments/cublaslt-check.sh build   here: the test binary build/cublaslt.test (no cgo)
#   bench/experiments/cublaslt-check.sh run     GPU machine: run it, RECOM_GPU=1 (a missing driver,
#                                               library or header is a failure, not a skip)
#
# Device call: carry ["build/cublaslt.test"], timeout_s 300:
#   bench/experiments/cublaslt-check.sh run 2>&1 | tee $OUT/cublaslt.log
# With $OUT set, run also copies the cuBLAS headers it checked into $OUT.
# RUN=regexp narrows the tests (go test -run), e.g. RUN=GPUModelE.
set -uo pipefail
cd "$(dirname "$0")/../.."
bin=build/cublaslt.test
mode=${1:-build}

case $mode in
build)
  set -e
  export PATH="/usr/local/go/bin:$PATH"
  mkdir -p build
  CGO_ENABLED=0 GOOS=linux GOARCH=amd64 go test -c -trimpath -o $bin ./runtime/cublaslt
  ls -l $bin
  ;;
run)
  date -u
  nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.max.mem --format=csv 2>&1
  for d in "${CUDA_HOME:-/usr/local/cuda}/lib64" /usr/local/cuda/lib64; do ls -l "$d"/libcublasLt.so* 2>/dev/null; done | sort -u
  inc=${CUDA_HOME:-/usr/local/cuda}/include
  if [ -n "${OUT:-}" ] && [ -f "$inc/cublasLt.h" ]; then
    cp "$inc/cublasLt.h" "$inc/cublas_api.h" "$inc/library_types.h" "$OUT/" 2>&1
  fi
  # The tests need no files of their own: run from the package folder as go test would.
  cd runtime/cublaslt
  RECOM_GPU=1 ../../$bin -test.v -test.count=1 -test.timeout=280s ${RUN:+-test.run "$RUN"} 2>&1
  rc=$?
  echo "cublaslt.test exit status $rc"
  exit $rc
  ;;
*)
  echo "usage: $0 build|run" >&2
  exit 2
  ;;
esac
