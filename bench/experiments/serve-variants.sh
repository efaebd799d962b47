#!/usr/bin/env bash
# recom serve flag sets compared on one machine (issue #20's overhead):
# bench/experiments/serve-profile.sh once per flag set, ROUNDS times in
# turn (device-to-device noise is large: only runs of one call compare),
# then one line per run: the flag set, the rate, the median overhead and
# end-to-end latency, and the stages.
#
#   bench/serve.sh build                      here (build/serve)
#   device, carry ["build/serve"]:
#     VARIANTS=$'base|\ninflight8|--inflight 8' bench/experiments/serve-variants.sh 2>&1 | tee $OUT/variants.log
#
# Settings: VARIANTS (lines "name|recom serve flags[|recom binary[|loadtest
# binary]]": an older build beside build/serve/recom compares commits),
# ROUNDS (2), RATES
# ("1000 6400"), DURATION (3s), MODEL (E), PROTOCOL (oip-binary).
set -uo pipefail
cd "$(dirname "$0")/../.."
variants=${VARIANTS:-$'base|'}
rounds=${ROUNDS:-2}
rc=0
sum=/tmp/serve-variants-summary.txt
: >"$sum"
for round in $(seq 1 "$rounds"); do
  while IFS='|' read -r name flags bin lbin; do
    [ -n "$name" ] || continue
    echo "== round $round: $name ($flags)"
    log=/tmp/serve-variant-$name-$round.log
    RECOM_BIN="${bin:-}" LOADTEST_BIN="${lbin:-}" SERVE_FLAGS="$flags" RATES="${RATES:-1000 6400}" DURATION="${DURATION:-3s}" \
      OUT=/tmp/serve-variant-$name-$round bench/experiments/serve-profile.sh >"$log" 2>&1 || rc=1
    grep -E "OVERHEAD|MEAN .*batch_(duration|requests)|^ +[0-9]+ |warmed up" "$log" | sed 's/^/  /'
    grep OVERHEAD "$log" | sed "s/^/$name round=$round /" >>"$sum"
  done <<<"$variants"
done
echo "== summary"
awk '{ for (i = 1; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] } printf "%-12s round=%s rate=%-6s overhead=%s e2e=%s share=%s stages=%s\n", $1, v["round"], v["rate"], v["overhead_p50_ms"], v["e2e_p50_ms"], v["share"], v["stages_p50_ms"] }' "$sum"
exit $rc
