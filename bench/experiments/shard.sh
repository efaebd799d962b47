#!/usr/bin/env bash
# The embedding layer sharded over N devices (issue #21) on the one H200:
# model E's layer split by the --shard pass (tables over ROW_THRESHOLD bytes
# cut into row ranges, the others placed whole, balanced by bytes and
# lookups) and run by runtime/shardrt as N streams of one GPU, the partial
# outputs gathered by device-to-device copies and combined by the combine
# kernel: `recom run --shard N --check` (the layer's output against the
# interpreter on the imported model) and `recom bench --shard N` (latency
# from host feeds to the layer's output in host memory), N = 1, 2, 4; then
# the real NCCL on the visible GPUs (runtime/nccl's TestRealNCCL binary:
# ncclCommInitAll, an all-reduce, a group of sends and receives). Several
# GPUs were never lent: the NCCL mode of the sharded layer (a device a
# shard) has run only on the simulated GPU.
#
#   bench/experiments/shard.sh build    (here: tools, E, feeds, PTX per N into build/shard/)
#   bench/experiments/shard.sh device   (GPU machine)
# Device call: carry ["build/shard"], timeout_s 600:
#   bench/experiments/shard.sh device 2>&1 | tee $OUT/shard.log
set -uo pipefail
cd "$(dirname "$0")/../.."
d=build/shard
ns=${NS:-1 2 4}
rt=${ROW_THRESHOLD:-536870912}
case ${1:-build} in
build)
  set -e
  . bench/lib.sh
  build_recom $d
  CGO_ENABLED=0 GOOS=linux GOARCH=amd64 go test -c -o $d/nccl.test ./runtime/nccl
  $d/recom-here gen --preset E --no-tables -o $d/E.pb
  $d/recom-here gen --feeds --batch 256 --seed 7 $d/E.pb -o $d/E.f256.npz
  for n in $ns; do
    $d/recom-here run $d/E.pb --shard $n --shard-options "row-threshold=$rt" --emit-ptx $d/E.s$n.ptx
  done
  rm -f $d/recom-here
  gzip -f $d/E.pb
  du -sh $d
  ;;
device)
  nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
  gunzip -kf $d/E.pb.gz
  pass=0; fail=0
  for n in $ns; do
    timeout 240 $d/recom run $d/E.pb --shard $n --shard-options "row-threshold=$rt" --ptx $d/E.s$n.ptx \
      --feeds $d/E.f256.npz -o /tmp/shard-o.npz --check >/tmp/shard-check.txt 2>&1
    rc=$?
    if [ $rc = 0 ]; then pass=$((pass+1)); r=PASS; else fail=$((fail+1)); r="FAIL rc=$rc"; fi
    printf 'CHECK E --shard %s B=256 %s: %s\n' $n "$r" "$(grep -v '^ ' /tmp/shard-check.txt | tr '\n' ' ' | cut -c1-400)"
  done
  echo "CHECKS: $pass passed, $fail failed"
  for n in $ns; do
    for b in 256 2048; do
      timeout 240 $d/recom bench $d/E.pb --shard $n --shard-options "row-threshold=$rt" --ptx $d/E.s$n.ptx \
        --batch $b --iters ${ITERS:-100} --warmup 10 2>&1 | grep -E '^SHARD|error'
    done
  done
  echo "== NCCL on the visible GPUs"
  RECOM_GPU=1 NCCL_NVLS_ENABLE=0 timeout 120 $d/nccl.test -test.run TestRealNCCL -test.v 2>&1 | tail -5
  [ $fail = 0 ]
  ;;
esac
