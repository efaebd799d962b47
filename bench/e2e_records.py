#!/usr/bin/env python3
"""recom's end-to-end lines from bench/e2e.sh's log as records for bench/plot.py.

    python3 bench/e2e_records.py E2E.LOG [PEERS.jsonl ...] > records.jsonl

E2E.LOG is what `bench/e2e.sh device` printed: "== recom bench MODEL B=N --e2e"
headers, then recom bench's "E2E batch=N ... median_us=X p99_us=Y" (latency,
one batch at a time) and "E2E batch=N in_flight=K ... samples_per_s=S"
(throughput) lines. Each becomes a record like the peers' (bench/peers.py
--json): kind "e2e_host" (system "e2e_host_recom_<precision>", median_us,
p99_us) and kind "e2e_host_tput" (system "..._x<K>", samples_per_s).
bench/peer_serve.py's "SERVE ..." and "SERVE_MAX ..." lines (KEY=value)
become records of kind "serve" and "serve_max" with their keys. The
peers' files are copied through, so one file feeds plot.py. PRECISION
(environment, default fp32) names recom's dense arithmetic in the run.
"""
import json
import os
import re
import sys

HEAD = re.compile(r"^== recom bench (\S+) B=(\d+)")
KV = re.compile(r"(\w+)=([-\d.eE+]+)")


WORD = re.compile(r"(\w+)=(\S+)")


def value(v):
    try:
        return float(v)
    except ValueError:
        return v


def records(lines, precision):
    model = None
    for line in lines:
        if line.startswith(("SERVE ", "SERVE_MAX ")):  # bench/peer_serve.py
            kind = "serve" if line.startswith("SERVE ") else "serve_max"
            yield dict({k: value(v) for k, v in WORD.findall(line)}, kind=kind)
            continue
        m = HEAD.match(line)
        if m:
            model = m.group(1)
            continue
        if not line.startswith("E2E ") or model is None:
            continue
        kv = {k: float(v) for k, v in KV.findall(line)}
        base = {"model": model, "batch": int(kv["batch"]), "precision": precision, "clock": "wall"}
        if "in_flight" in kv:
            k = int(kv["in_flight"])
            yield dict(base, kind="e2e_host_tput", system=f"e2e_host_recom_{precision}_x{k}",
                       samples_per_s=kv["samples_per_s"], p99_us=kv.get("p99_us"), inflight=k)
        elif "median_us" in kv:
            yield dict(base, kind="e2e_host", system=f"e2e_host_recom_{precision}",
                       median_us=kv["median_us"], p99_us=kv.get("p99_us"), inflight=1)


def main(argv):
    if not argv:
        print(__doc__, file=sys.stderr)
        return 2
    precision = os.environ.get("PRECISION", "fp32")
    with open(argv[0]) as f:
        n = 0
        for r in records(f, precision):
            print(json.dumps(r))
            n += 1
    if n == 0:
        print(f"e2e_records: no E2E lines in {argv[0]}", file=sys.stderr)
        return 1
    for p in argv[1:]:
        with open(p) as f:
            for line in f:
                if line.strip():
                    print(line.rstrip())
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
