#!/usr/bin/env bash
# The native runtime (runtime/session) on the GPU machine: the bundled model
# and preset E against the interpreter at B = 1, 37, 256 with poisoned
# results, one batch at a time and three in flight, with each dense backend
# and precision (TestGPUModels: the generated kernels, cuBLASLt fp32, tf32
# and bf16; one "ERR model=... dense=... precision=... B=... max_abs=...
# max_rel=..." line per check), the device steps' model (TestGPUDeviceSteps:
# every form of head op on the device, against the interpreter, with NaN and
# infinities), the GPU tests of runtime/cuda and
# runtime/cublaslt, then the end-to-end benchmark (TestE2EBench: feeds in
# host memory to predictions in host memory; latency median and p99 of 200
# batches rotating over 4 feed sets, throughput with 1, 2 and 4 batches in
# flight) of E at B = 1, 32, 256 and 2048 with cuBLASLt in fp32, tf32 and
# bf16: one "model=E dense=cublaslt precision=P E2E batch=..." line per
# measurement, one "... DENSE batch=... graph_us=... steps_us=..." line of
# the dense part alone (its steps as one CUDA graph, and launched one by
# one), then the step costs (Summary) per batch size.
#
#   bench/experiments/session-e2e.sh build   here: the PTX of the test models (llc-19) and the
#                                            test binaries (no cgo) into build/session/
#   bench/experiments/session-e2e.sh check   GPU machine: TestGPUModels (GPU_DENSE) and the GPU
#                                            tests of runtime/cuda and runtime/cublaslt (products, graph, concatenation parts, header)
#   bench/experiments/session-e2e.sh bench   GPU machine: TestE2EBench (E2E_BATCHES, E2E_ITERS,
#                                            E2E_MODEL, E2E_DENSE)
#   bench/experiments/session-e2e.sh hostbench  GPU machine (its CPU only): the host side's Go
#                                            benchmarks (HOSTBENCH_CPU, default 1,4,16;
#                                            HOSTBENCH_TIME, default 200x; HOSTBENCH_COUNT, default 3;
#                                            HOSTBENCH_SPIN: the pool's spin wait, e.g. 0 or 2ms,
#                                            default hostpack's 500µs)
#
# GPU_DENSE and E2E_DENSE list DENSE[-OPTION...]-PRECISION configurations:
# cublaslt-fp32, cublaslt-tf32, cublaslt-bf16, generated-fp32; cuBLASLt's
# options: nk (the weights stored N×K rather than K×N), cat and split (a layer
# over a concatenation as one product over the inputs copied into one
# buffer, or as one product per input; by default split in fp32 and tf32,
# cat in bf16). E.g. E2E_DENSE=cublaslt-fp32,cublaslt-cat-fp32,cublaslt-bf16,cublaslt-split-bf16
# E2E_BATCHES=256,2048 measures the choice.
#
# Device call: carry ["build/session"], timeout_s 600:
#   bench/experiments/session-e2e.sh check 2>&1 | tee $OUT/session-check.log
#   bench/experiments/session-e2e.sh bench 2>&1 | tee $OUT/session-e2e.log
#   bench/experiments/session-e2e.sh hostbench 2>&1 | tee $OUT/hostbench.log   (about 4 minutes)
# (or "check bench" in one call). RECOM_GPU=1 makes a missing driver a failure.
set -uo pipefail
cd "$(dirname "$0")/../.."
d=build/session
rc=0
# Preset E's tables arena is 1,348,327,680 floats (5.4 GB); abi.Layer.TableArena
# sizes it from the columns, but the tests' interpreter reference of E reads the
# same tables as tensors under the interpreter's limits (2^28 elements, 2 GiB by
# default; docs/LIMITS.md): raise them for the session's tests.
export RECOM_MAX_TENSOR_ELEMENTS=${RECOM_MAX_TENSOR_ELEMENTS:-4294967296}
export RECOM_MAX_TENSOR_BYTES=${RECOM_MAX_TENSOR_BYTES:-17179869184}

for mode in "${@:-build}"; do
  case $mode in
  build)
    set -e
    export PATH="/usr/local/go/bin:$PATH"
    mkdir -p $d
    go test ./runtime/session -count=1 -run 'TestWritePTX$' -v -args -ptx-out "$PWD/$d"
    CGO_ENABLED=0 GOOS=linux GOARCH=amd64 go test -c -trimpath -o $d/session.test ./runtime/session
    CGO_ENABLED=0 GOOS=linux GOARCH=amd64 go test -c -trimpath -o $d/cuda.test ./runtime/cuda
    CGO_ENABLED=0 GOOS=linux GOARCH=amd64 go test -c -trimpath -o $d/cublaslt.test ./runtime/cublaslt
    CGO_ENABLED=0 GOOS=linux GOARCH=amd64 go test -c -trimpath -o $d/hostpack.test ./runtime/hostpack
    ls -l $d
    du -sh $d
    set +e
    ;;
  check)
    date -u
    nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.max.mem --format=csv 2>&1
    (cd runtime/cuda && RECOM_GPU=1 ../../$d/cuda.test -test.v -test.count=1 -test.run 'GPU' -test.timeout=120s) || rc=1
    (cd runtime/cublaslt && RECOM_GPU=1 ../../$d/cublaslt.test -test.v -test.count=1 -test.run 'GPUMatmul|GPUGraph|GPUConcatParts|Header' \
      -test.timeout=300s) || rc=1
    (cd runtime/session && RECOM_GPU=1 ../../$d/session.test -test.v -test.count=1 -test.run 'TestGPUModels|TestGPUDeviceSteps' \
      -test.timeout=400s -ptx-dir ../../$d -gpu-dense "${GPU_DENSE:-generated-fp32,cublaslt-fp32,cublaslt-tf32,cublaslt-bf16}") || rc=1
    echo "session-e2e check: exit status $rc"
    ;;
  bench)
    date -u
    (cd runtime/session && RECOM_GPU=1 ../../$d/session.test -test.v -test.count=1 -test.run 'TestE2EBench' \
      -test.timeout=540s -ptx-dir ../../$d -e2e-model "${E2E_MODEL:-E}" \
      -e2e-batches "${E2E_BATCHES:-1,32,256,2048}" -e2e-iters "${E2E_ITERS:-200}" \
      -e2e-dense "${E2E_DENSE:-cublaslt-fp32,cublaslt-tf32,cublaslt-bf16}") || rc=1
    echo "session-e2e bench: exit status $rc"
    ;;
  hostbench)
    date -u
    echo "host: $(nproc) CPUs, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2)"
    cpu=${HOSTBENCH_CPU:-1,4,16}
    bt=${HOSTBENCH_TIME:-200x}
    count=${HOSTBENCH_COUNT:-3}
    spin=${HOSTBENCH_SPIN:--1ns}
    (cd runtime/hostpack && ../../$d/hostpack.test -test.run '^$' -test.bench 'PackE|HostPack/E' -hostpack-spin "$spin" \
      -test.benchtime "$bt" -test.cpu "$cpu" -test.count "$count" -test.benchmem -test.timeout=300s) || rc=1
    (cd runtime/session && ../../$d/session.test -test.run '^$' -test.bench 'SessionHost/E|SessionPipeline' -hostpack-spin "$spin" \
      -test.benchtime "$bt" -test.cpu "$cpu" -test.count "$count" -test.benchmem -test.timeout=300s) || rc=1
    echo "session-e2e hostbench: exit status $rc"
    ;;
  *)
    echo "usage: $0 [build] [check] [bench] [hostbench]" >&2
    exit 2
    ;;
  esac
done
exit $rc
