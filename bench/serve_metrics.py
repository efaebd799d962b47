#!/usr/bin/env python3
"""The median of recom serve's own overhead over one load run, from /metrics.

    python3 bench/serve_metrics.py BEFORE.txt AFTER.txt PROTOCOL [LOADTEST.jsonl]
    python3 bench/serve_metrics.py --self-test

BEFORE and AFTER are /metrics scraped around the run; the observations of
recom_serve_overhead_seconds{protocol=PROTOCOL} between them (the buckets'
differences) give the median as Prometheus' histogram_quantile computes it
(linear within the bucket). With LOADTEST (recom loadtest --json of that
run: its last line) the median end-to-end latency the client saw is set
beside it, and the overhead's share of it, issue #20's target being at most
15%. Prints one line:

    OVERHEAD protocol=P n=N overhead_p50_ms=X queue_p50_ms=Q [stages_p50_ms=read:A,decode:B,queue:C,join:D,split:E,respond:F] [e2e_p50_ms=Y share=Z rate=R]

(queue_p50_ms: the median of recom_serve_queue_duration_seconds over the
run, every protocol's: the part of the overhead spent waiting for a batch
to start, the batch timeout and busy slots; stages_p50_ms: the median of
each stage of recom_serve_overhead_stage_seconds, the protocol's; a server before
2026-12-04 10:00 UTC had one batch stage for queue, join and split.)
"""
import json
import math
import re
import sys

SAMPLE = re.compile(r'^(\w+)\{([^}]*)\}\s+(\S+)$')
LABEL = re.compile(r'(\w+)="((?:[^"\\]|\\.)*)"')
NAME = "recom_serve_overhead_seconds"
STAGES = "recom_serve_overhead_stage_seconds"


def buckets(text, protocol, name=NAME, stage=None):
    """{le: cumulative count} of histogram name (of protocol, when it has
    that label; of stage, when given)."""
    out = {}
    for line in text.splitlines():
        m = SAMPLE.match(line.strip())
        if not m or m.group(1) != name + "_bucket":
            continue
        labels = dict(LABEL.findall(m.group(2)))
        if labels.get("protocol", protocol) != protocol or labels.get("stage") != stage:
            continue
        le = math.inf if labels["le"] == "+Inf" else float(labels["le"])
        out[le] = out.get(le, 0) + float(m.group(3))
    return out


def quantile(q, cum):
    """histogram_quantile(q) over cumulative buckets {le: count}."""
    les = sorted(cum)
    if not les or cum[les[-1]] <= 0:
        return math.nan, 0
    total = cum[les[-1]]
    rank = q * total
    prev_le, prev_c = 0.0, 0.0
    for le in les:
        c = cum[le]
        if c >= rank:
            if math.isinf(le):
                return prev_le, total  # above the last bound: its lower edge
            if c == prev_c:
                return le, total
            return prev_le + (le - prev_le) * (rank - prev_c) / (c - prev_c), total
        prev_le, prev_c = le, c
    return les[-1], total


def median_between(before, after, protocol, name=NAME, stage=None):
    b, a = buckets(before, protocol, name, stage), buckets(after, protocol, name, stage)
    return quantile(0.5, {le: a[le] - b.get(le, 0) for le in a})


def main(argv):
    if argv == ["--self-test"]:
        return self_test()
    if len(argv) not in (3, 4):
        print(__doc__, file=sys.stderr)
        return 2
    with open(argv[0]) as f:
        before = f.read()
    with open(argv[1]) as f:
        after = f.read()
    p50, n = median_between(before, after, argv[2])
    line = f"OVERHEAD protocol={argv[2]} n={n:.0f} overhead_p50_ms={p50 * 1e3:.3f}"
    q50, qn = median_between(before, after, argv[2], "recom_serve_queue_duration_seconds")
    if qn:
        line += f" queue_p50_ms={q50 * 1e3:.3f}"  # part of the overhead: each request's wait for its batch to start
    # The overhead's stages (HTTP): each one's median.
    parts = []
    for st in ("read", "decode", "batch", "queue", "join", "split", "respond"):
        m50, mn = median_between(before, after, argv[2], STAGES, st)
        if mn:
            parts.append(f"{st}:{m50 * 1e3:.3f}")
    if parts:
        line += " stages_p50_ms=" + ",".join(parts)
    if len(argv) == 4:
        with open(argv[3]) as f:
            runs = [json.loads(x) for x in f if x.strip()]
        if runs:
            r = runs[-1]
            line += f" e2e_p50_ms={r['p50_ms']:.3f} share={p50 * 1e3 / r['p50_ms']:.3f} rate={r['rate']:.0f}"
    print(line)
    return 0 if n > 0 else 1


def self_test():
    def metrics(counts):
        lines = []
        for le, c in counts:
            lines.append(f'{NAME}_bucket{{model="E",protocol="tfserving",le="{le}"}} {c}')
            lines.append(f'{NAME}_bucket{{model="E",protocol="oip-http",le="{le}"}} 99')
        return "\n".join(lines)
    before = metrics([("0.001", 10), ("0.002", 10), ("0.004", 10), ("+Inf", 10)])
    after = metrics([("0.001", 10), ("0.002", 30), ("0.004", 50), ("+Inf", 50)])
    p50, n = median_between(before, after, "tfserving")
    ok = n == 40 and abs(p50 - 0.002) < 1e-12  # 20 of 40 in (1, 2] ms: the median is its top
    after2 = metrics([("0.001", 10), ("0.002", 20), ("0.004", 50), ("+Inf", 50)])
    p50b, _ = median_between(before, after2, "tfserving")
    ok = ok and abs(p50b - (0.002 + 0.002 / 3)) < 1e-12  # 10 in (1, 2], 30 in (2, 4]: rank 20 is 1/3 into (2, 4]
    print(f"serve_metrics self-test: {'ok' if ok else 'FAIL'} ({p50}, {p50b})")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
