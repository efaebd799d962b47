#!/usr/bin/env bash
# Real trained exports on the GPU (issue #18, "Done when" on real models):
# `recom run --check` of each real model with its trained weights (read from
# its SavedModel checkpoint), and `recom bench --e2e` of one real export's
# embedding layer and whole model, with the peers of both (bench/peers.py:
# the whole model's from the dense part the session planned, dense.json).
# The models stay outside the repository: REALMODELS names the folder that
# holds them (/work/realmodels; repo@commit of each in its SOURCES.md and in
# bench/RESULTS.md). The build copies what the device needs into build/real/
# (git-ignored): the binary, the cut graphs, weights, feeds and PTX (about
# 34 MiB, of which the binary is 31).
#
#   REALMODELS=/work/realmodels bench/real-models.sh build   here (llc-19)
#   bench/real-models.sh check                               GPU: run --check per model and batch
#   bench/real-models.sh bench                               GPU: bench --e2e of taxi + its peers, of dssm
#
# Device call: carry ["build/real"], timeout_s 600:
#   bench/real-models.sh check 2>&1 | tee $OUT/real-check.log; bench/real-models.sh bench 2>&1 | tee $OUT/real-bench.log
#
# Models:
#   taxi   taxi_estimator_export (tensorflow/tfx@58435d68, Chicago taxi wide &
#          deep Estimator): its tf.Transform layer is TF2 function calls,
#          inlined at import since `inline` (the whole graph compiles: 9 of 9
#          columns); the check still cuts at the transform's outputs, as
#          recom gen --feeds draws sparse features of 1 to 4 values and the
#          transform's SparseToDense takes one value a row.
#   taxik  taxi_keras_export (same commit, TF2 Keras SavedModel): the whole
#          model is one StatefulPartitionedCall, inlined at import:
#          ParseExampleV2 -> concat -> 3 dense layers (0 embedding columns).
#   dssm   dssm_serving_export (hallucination11/serving@d0649161, two-tower
#          DSSM): 4 of 4 columns in 2 kernels (a layer per tower); the
#          towers' batch normalization is followed by l2_normalize over the
#          whole batch (Sum over axes [0, 1]) before the next dense layer,
#          so --fold-bn cannot fold it and the native session cannot plan it
#          with the dense layers on the GPU: recom run --check runs it
#          through its fallback (the interpreter around the GPU kernels);
#          bench --e2e times it with --dense cpu (the layers on the GPU, the
#          towers as host steps after the graph) and tries --dense gpu.
set -uo pipefail
cd "$(dirname "$0")/.."
d=build/real
mode=${1:-build}
batches=(1 256 2048)
declare -A inputs=([taxi]=transform_features_layer/StatefulPartitionedCall_6 [dssm]="" [taxik]="")
declare -A outputs=([taxi]=head/predictions/probabilities [dssm]="" [taxik]="")
declare -A dir=([taxi]=taxi_estimator_export [dssm]=dssm_serving_export [taxik]=taxi_keras_export)

case $mode in
build)
  set -e
  : "${REALMODELS:?REALMODELS=/path/to/realmodels}"
  . bench/lib.sh
  rm -rf $d
  build_recom $d
  for m in taxi dssm taxik; do
    src=$REALMODELS/${dir[$m]}
    mkdir -p $d/$m
    cut=()
    [ -n "${inputs[$m]}" ] && cut=(--inputs "${inputs[$m]}" --outputs "${outputs[$m]}")
    $d/recom-here compile "$src" "${cut[@]}" --no-cubin -o $d/$m/compile -q 2>/dev/null
    sed -n '/^columns:/,/^$/p' $d/$m/compile/summary.txt | sed "s/^/   $m: /"
    rm -rf $d/$m/compile
    # The graph the device runs: the imported stage (the cut, the assets
    # bound), and the trained weights as --tables.
    $d/recom-here compile "$src" "${cut[@]}" --stop-after=import -o $d/$m/c -q
    mv $d/$m/c/0-tfg.mlir $d/$m/model.mlir
    rm -rf $d/$m/c
    for b in "${batches[@]}"; do
      $d/recom-here gen --feeds --batch $b --seed $b $d/$m/model.mlir -o $d/$m/feeds-$b.npz 2>/dev/null
    done
    icut=()
    [ -n "${inputs[$m]}" ] && icut=(--inputs "${inputs[$m]}" --outputs "${outputs[$m]}")
    $d/recom-here interp "$src" "${icut[@]}" --feeds $d/$m/feeds-1.npz -o $d/$m/ref-1.npz --write-tables $d/$m/weights.npz
    out=${outputs[$m]}
    if [ -z "$out" ]; then
      out=$(python3 -c 'import sys,zipfile; print(",".join(n[:-4].split(":")[0] for n in zipfile.ZipFile(sys.argv[1]).namelist()))' $d/$m/ref-1.npz)
    fi
    echo "$out" >$d/$m/outputs
    if ! $d/recom-here run $d/$m/model.mlir --tables $d/$m/weights.npz --outputs "$out" --emit-ptx $d/$m/model.ptx 2>$d/$m/noptx.txt; then
      echo "   $m: no PTX: $(tail -n 1 $d/$m/noptx.txt)"
    else
      rm -f $d/$m/noptx.txt
    fi
    # The layers' PTX alone, for bench --dense cpu (dssm's e2e).
    if [ $m = dssm ]; then
      $d/recom-here run $d/$m/model.mlir --tables $d/$m/weights.npz --outputs "$out" --dense cpu \
        --emit-ptx $d/$m/model-cpu.ptx 2>/dev/null || echo "   $m: no --dense cpu PTX"
    fi
  done
  rm -f $d/recom-here
  du -sh $d
  ;;
check)
  date -u
  nvidia-smi --query-gpu=name,driver_version --format=csv,noheader || true
  pass=0 fail=0
  for m in taxi dssm taxik; do
    if [ ! -f $d/$m/model.ptx ]; then
      echo "SKIP $m: $(tail -n 1 $d/$m/noptx.txt)"
      continue
    fi
    for b in "${batches[@]}"; do
      t0=$SECONDS
      if timeout 100 $d/recom run $d/$m/model.mlir --tables $d/$m/weights.npz --outputs "$(cat $d/$m/outputs)" \
        --ptx $d/$m/model.ptx --feeds $d/$m/feeds-$b.npz -o /tmp/real-out.npz --check >/tmp/real-check.txt 2>&1; then
        pass=$((pass + 1)) r=PASS
      else
        fail=$((fail + 1)) r=FAIL
      fi
      printf 'CHECK %-5s B=%-4s %s (%d s): %s\n' $m $b $r $((SECONDS - t0)) "$(tail -n 3 /tmp/real-check.txt | tr '\n' ' ' | cut -c1-300)"
    done
  done
  echo "CHECKS: $pass passed, $fail failed"
  [ $fail = 0 ]
  ;;
bench)
  date -u
  m=taxi
  for b in 256 2048; do
    rm -rf /tmp/real-dump-$b
    timeout 150 $d/recom bench $d/$m/model.mlir --tables $d/$m/weights.npz --outputs "$(cat $d/$m/outputs)" \
      --ptx $d/$m/model.ptx --batch $b --e2e --dump-inputs /tmp/real-dump-$b
  done
  # The peers on the same tables, ids and dense inputs: the layer's, and the
  # whole model's from the dump's dense part (dense.json, written by bench
  # --e2e: the session's dense layers, wide and deep, and the classifier
  # head's host steps), PyTorch eager, as a CUDA graph, and JAX, from host
  # memory, fp32. JAX=0 skips JAX.
  jaxflag=()
  [ "${JAX:-1}" = 0 ] && jaxflag=(--no-jax)
  if python3 -c 'import torch' 2>/dev/null; then
    timeout 300 python3 -u bench/peers.py --model taxi --dumps /tmp/real-dump-256,/tmp/real-dump-2048 \
      --precisions fp32 "${jaxflag[@]}" --json /tmp/real-peers.jsonl
    [ -n "${OUT:-}" ] && cp /tmp/real-peers.jsonl "$OUT/" 2>/dev/null
  else
    echo "peers: no PyTorch here"
  fi
  # dssm: the two layers on the GPU and the towers on the host (--dense
  # cpu), then with the dense layers on the GPU (refused while
  # l2_normalize sits between them: the message is the result).
  m=dssm
  for dense in cpu gpu; do
    for b in 256 2048; do
      echo "== dssm --dense $dense B=$b"
      ptx=$d/$m/model.ptx
      [ $dense = cpu ] && ptx=$d/$m/model-cpu.ptx
      timeout 150 $d/recom bench $d/$m/model.mlir --tables $d/$m/weights.npz --outputs "$(cat $d/$m/outputs)" \
        --ptx $ptx --batch $b --dense $dense --e2e 2>&1 | tail -n 40 || echo "dssm --dense $dense B=$b: failed"
    done
  done
  ;;
*)
  echo "usage: REALMODELS=DIR $0 build | $0 check | $0 bench" >&2
  exit 2
  ;;
esac
