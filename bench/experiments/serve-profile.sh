#!/usr/bin/env bash
# Where a served request's time goes (issue #20): recom serve E on the GPU
# at fixed request rates, /metrics scraped around each rate (the OVERHEAD
# line of bench/serve_metrics.py, and the batches' sizes and the backend's
# time from the histograms), the server's CPU profile over all of them.
#
#   bench/serve.sh build                      here (build/serve)
#   device, carry ["build/serve"] (or all.sh's build/bin + build/serve):
#     RATES="1000 5600" bench/experiments/serve-profile.sh 2>&1 | tee $OUT/serve-profile.log
#   then here: go tool pprof -top build/serve/recom $OUT/serve-cpu.pprof
#
# Settings: MODEL (E), PROTOCOL (oip-binary), RATES, DURATION (4s),
# SERVE_FLAGS (extra recom serve flags), OUT (/tmp/serve-profile), RECOM_BIN
# (the recom binary serving: build/serve/recom), LOADTEST_BIN (the one
# loading it: the same).
set -uo pipefail
cd "$(dirname "$0")/../.."
d=${SERVE_DIR:-build/serve}
[ -x $d/recom ] || cp build/bin/recom $d/recom
bin=${RECOM_BIN:-$d/recom}
lbin=${LOADTEST_BIN:-$d/recom}
MODEL=${MODEL:-E}
out=${OUT:-/tmp/serve-profile}
mkdir -p "$out"
for f in $d/*.pb.gz; do [ -e "$f" ] && gunzip -kf "$f"; done
port=${PORT:-18601}
# shellcheck disable=SC2086
$bin serve $d/$MODEL.pb --name "$MODEL" --ptx $d/$MODEL.tuned.ptx --backend gpu --precision fp32 \
  --http-addr 127.0.0.1:$port --grpc-addr 127.0.0.1:$((port + 1)) --log-format json \
  --cpuprofile "$out/serve-cpu.pprof" ${SERVE_FLAGS:-} >/tmp/serve-profile-server.log 2>&1 &
server=$!
for _ in $(seq 1 300); do
  curl -sf "http://127.0.0.1:$port/readyz" >/dev/null 2>&1 && break
  kill -0 $server 2>/dev/null || break
  sleep 1
done
rc=0
m() { curl -s "http://127.0.0.1:$port/metrics"; }
hist() { # name file: count and sum of a histogram
  awk -v n="$1" '$1 ~ "^"n"_(sum|count)" { split($1, a, "{"); v[a[1]] = $2 } END { printf "%s", v[n"_count"] " " v[n"_sum"] }' "$2"
}
for r in ${RATES:-1000 5600}; do
  m >/tmp/sp-before.txt
  $lbin loadtest $d/$MODEL.pb --name "$MODEL" --url "http://127.0.0.1:$port" --protocol "${PROTOCOL:-oip-binary}" \
    --rates "$r" --duration "${DURATION:-4s}" --bodies 128 --max-rows 64 --json /tmp/sp-$r.jsonl 2>&1 | tail -2 || rc=1
  m >/tmp/sp-after.txt
  python3 bench/serve_metrics.py /tmp/sp-before.txt /tmp/sp-after.txt oip-http /tmp/sp-$r.jsonl || rc=1
  for h in recom_serve_batch_duration_seconds recom_serve_batch_rows recom_serve_batch_requests recom_serve_queue_duration_seconds; do
    read -r c0 s0 <<<"$(hist $h /tmp/sp-before.txt)"
    read -r c1 s1 <<<"$(hist $h /tmp/sp-after.txt)"
    awk -v h=$h -v r=$r -v c0="${c0:-0}" -v s0="${s0:-0}" -v c1="${c1:-0}" -v s1="${s1:-0}" \
      'BEGIN { n = c1 - c0; printf "MEAN rate=%s %s n=%d mean=%.6g\n", r, h, n, (n > 0) ? (s1 - s0) / n : 0 }'
  done
done
kill -TERM $server
wait $server || rc=1
grep -E '"level":"(WARN|ERROR)"|warmed up' /tmp/serve-profile-server.log | tail -5
exit $rc
