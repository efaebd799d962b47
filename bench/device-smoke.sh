#!/usr/bin/env bash
# Builds, here, everything the GPU smoke run needs, into build/device/
# (git-ignored): the recom binary (CGO_ENABLED=0: runtime/cuda loads
# libcuda.so.1 through purego, so it runs on the GPU machine), the GPU test
# binary of runtime/cuda, and the PTX of the smoke kernels
# (cmd/recom/testdata/gpusmoke.mlir through backend/nvptx and llc-19, which
# the GPU machine lacks).
#
# It runs nothing on the GPU itself. The device tool ran, with
# carry ["build/device"] and timeout_s 300, this command line (the tree's
# runtime/cuda/testdata travels with it):
#
#   set -o pipefail; { date -u; nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.max.mem --format=csv; (cd runtime/cuda && RECOM_GPU=1 ../../build/device/cuda.test -test.v -test.count=1); echo "tests: rc=$?"; build/device/recom gpu-smoke --ptx build/device/gpusmoke.ptx; echo "smoke: rc=$?"; build/device/recom gpu-smoke --ptx build/device/gpusmoke.ptx --dim 64 --rows 1048576 --bags 262144 --n 4; echo "smoke dim 64: rc=$?"; } 2>&1 | tee $OUT/device-smoke.log
#
# bench/RESULTS.md records what came back.
set -euo pipefail
cd "$(dirname "$0")/.."
out=build/device
mkdir -p "$out"
export CGO_ENABLED=0 GOOS=linux GOARCH=amd64
go build -trimpath -o "$out/recom" ./cmd/recom
go test -c -trimpath -o "$out/cuda.test" ./runtime/cuda
unset GOOS GOARCH
go run ./cmd/recom gpu-smoke --emit-ptx "$out/gpusmoke.ptx"
ls -l "$out"
