#!/usr/bin/env python3
"""Latency against batch, per system, from bench/sweep.sh's results.

    python3 bench/plot.py RESULTS.json [--out DIR] [--title-suffix TEXT]
    python3 bench/plot.py --self-test [--out DIR]

RESULTS.json is a JSON list (or JSON lines) of records {"kind": "layer" |
"e2e", "model", "batch", "system", "median_us", ...}; recom's tuned rows may
carry "floor_us" (PERF.md's floor, computed by `recom bench` from the model's
bytes and lookups). Writes, for every model and kind present, a log-log PNG
DIR/<kind>-<model>.png (one line per system, the floor as a dashed line
where known) and DIR/summary.md (a table per model and kind: every system's
median in µs and its ratio to recom). --self-test plots a synthetic result
set (no GPU needed).
"""
import argparse
import json
import math
import os
import re
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

# system -> (label, color, marker); the order is the legend's.
SYSTEMS = {
    "recom": ("recom (tuned schedule)", "tab:red", "o"),
    "recom_oneblock": ("recom, schedule=recom (one block per column)", "tab:orange", "s"),
    "tbe": ("hand-fused embedding_bag (TBE-like)", "tab:blue", "^"),
    "graph": ("PyTorch eager loop as CUDA graph", "tab:green", "v"),
    "eager": ("PyTorch eager", "tab:gray", "D"),
    "jax": ("JAX jit (XLA)", "tab:purple", "P"),
    "e2e_recom": ("recom, whole model", "tab:red", "o"),
    "e2e_tbe": ("TBE-like layer + PyTorch MLP", "tab:blue", "^"),
    "e2e_graph": ("PyTorch eager model as CUDA graph", "tab:green", "v"),
    "e2e_eager": ("PyTorch eager model", "tab:gray", "D"),
    "e2e_jax": ("JAX jit (XLA), whole model", "tab:purple", "P"),
    "e2e_host_recom_fp32": ("recom native runtime, fp32", "tab:red", "o"),
    "e2e_host_recom_tf32": ("recom native runtime, tf32", "tab:pink", "o"),
    "e2e_host_recom_bf16": ("recom native runtime, bf16", "tab:brown", "o"),
    "e2e_host_tbe_fp32": ("PyTorch TBE-like + cuBLAS MLP graph, fp32", "tab:blue", "^"),
    "e2e_host_tbe_tf32": ("PyTorch TBE-like + cuBLAS MLP graph, tf32", "tab:cyan", "^"),
    "e2e_host_tbe_bf16": ("PyTorch TBE-like + cuBLAS MLP graph, bf16", "tab:olive", "^"),
}
KIND_TITLE = {
    "layer": "embedding layer",
    "e2e": "end to end (whole model)",
    "e2e_host": "host features to host predictions, latency",
    "e2e_host_tput": "host features to host predictions, throughput",
}
# kind -> (the record's value, the axis label, the baseline system of summary.md);
# kinds not here plot median_us as latency.
METRIC = {
    "e2e_host_tput": ("samples_per_s", "samples per second (best of 1, 2, 4 batches in flight)", "e2e_host_recom_fp32"),
    "e2e_host": ("median_us", "latency, median (µs)", "e2e_host_recom_fp32"),
}


def metric(kind):
    return METRIC.get(kind, ("median_us", "latency, median (µs)", "e2e_recom" if kind == "e2e" else "recom"))


def tput_records(records):
    """The throughput records with each system's in-flight variants (…_xK, and
    one batch at a time from its latency records) folded into their best."""
    best = {}
    for r in records:
        if r.get("ok", True) is False or not r.get("batch"):
            continue
        if r["kind"] == "e2e_host_tput" and r.get("samples_per_s"):
            v, sys_ = float(r["samples_per_s"]), re.sub(r"_x\d+$", "", r["system"])
        elif r["kind"] == "e2e_host" and r.get("median_us"):
            v, sys_ = int(r["batch"]) * 1e6 / float(r["median_us"]), r["system"]
        else:
            continue
        key = (r["model"], sys_, int(r["batch"]))
        best[key] = max(best.get(key, 0.0), v)
    return [{"kind": "e2e_host_tput", "model": m, "system": s, "batch": b, "samples_per_s": v}
            for (m, s, b), v in sorted(best.items())]


def load(path):
    with open(path) as f:
        text = f.read()
    text = text.strip()
    if not text:
        return []
    if text[0] == "[":
        return json.loads(text)
    return [json.loads(line) for line in text.splitlines() if line.strip()]


def usable(r):
    return r.get(metric(r["kind"])[0]) is not None and r.get("batch") and r.get("ok", True) is not False


def plot(records, out, suffix=""):
    os.makedirs(out, exist_ok=True)
    written = []
    records = [r for r in records if r["kind"] != "e2e_host_tput"] + tput_records(records)
    keys = sorted({(r["kind"], r["model"]) for r in records if usable(r)})
    md = []
    for kind, model in keys:
        rs = [r for r in records if r["kind"] == kind and r["model"] == model and usable(r)]
        value, ylabel, _ = metric(kind)
        by = {}
        for r in rs:
            by.setdefault(r["system"], {})[int(r["batch"])] = float(r[value])
        fig, ax = plt.subplots(figsize=(7.5, 5))
        order = [s for s in SYSTEMS if s in by] + sorted(s for s in by if s not in SYSTEMS)
        for s in order:
            label, color, marker = SYSTEMS.get(s, (s, None, "x"))
            bs = sorted(by[s])
            ax.plot(bs, [by[s][b] for b in bs], marker=marker, color=color, label=label, linewidth=1.6, markersize=5)
        floor = {int(r["batch"]): float(r["floor_us"]) for r in rs if r.get("floor_us") and r["system"] == "recom"}
        if floor:
            bs = sorted(floor)
            ax.plot(bs, [floor[b] for b in bs], "k--", linewidth=1, label="floor (PERF.md: bytes / 4.3 TB/s, rows / 33e9 per s)")
        allb = sorted({int(r["batch"]) for r in rs})
        ax.set_xscale("log", base=2)
        ax.set_yscale("log")
        ax.set_xticks(allb)
        ax.set_xticklabels([str(b) for b in allb])
        ax.set_xlabel("batch")
        ax.set_ylabel(ylabel)
        ax.set_title(f"model {model}: {KIND_TITLE.get(kind, kind)}{suffix}")
        ax.grid(True, which="both", alpha=0.3)
        ax.legend(fontsize=8, loc="best")
        fig.tight_layout()
        path = os.path.join(out, f"{kind}-{model}.png")
        fig.savefig(path, dpi=120)
        plt.close(fig)
        written.append(path)
        md += summary(kind, model, by, order, floor, allb)
    with open(os.path.join(out, "summary.md"), "w") as f:
        f.write("\n".join(md) + "\n")
    return written


def summary(kind, model, by, order, floor, allb):
    value, _, base = metric(kind)
    unit = "samples/s" if value == "samples_per_s" else "median µs"
    lines = [f"### {model}: {KIND_TITLE.get(kind, kind)} ({unit}; × = system / {base})", ""]
    head = ["B"] + [SYSTEMS.get(s, (s,))[0] for s in order] + (["floor"] if floor else [])
    lines.append("| " + " | ".join(head) + " |")
    lines.append("|" + "---|" * len(head))
    for b in allb:
        ref = by.get(base, {}).get(b)
        row = [str(b)]
        for s in order:
            v = by[s].get(b)
            if v is None:
                row.append("—")
            elif ref and s != base:
                row.append(f"{fmt(v)} ({v / ref:.1f}×)")
            else:
                row.append(fmt(v))
        if floor:
            row.append(fmt(floor[b]) if b in floor else "—")
        lines.append("| " + " | ".join(row) + " |")
    lines.append("")
    return lines


def fmt(v):
    return f"{v:,.1f}" if v < 1e4 else f"{v:,.0f}"



def synthetic():
    recs = []
    for model in ("E", "probe"):
        for b in (32, 64, 128, 256, 512, 1024, 2048, 4096):
            fl = 3 + 0.17 * b
            recs.append({"kind": "layer", "model": model, "batch": b, "system": "recom", "median_us": 15 + 0.17 * b, "floor_us": fl})
            recs.append({"kind": "layer", "model": model, "batch": b, "system": "recom_oneblock", "median_us": 20 + 0.3 * b})
            recs.append({"kind": "layer", "model": model, "batch": b, "system": "tbe", "median_us": 100 + 0.75 * b})
            recs.append({"kind": "layer", "model": model, "batch": b, "system": "graph", "median_us": 2000 + math.sqrt(b) * 50})
            recs.append({"kind": "layer", "model": model, "batch": b, "system": "eager", "median_us": 12000 + b})
            if b in (256, 4096):
                recs.append({"kind": "layer", "model": model, "batch": b, "system": "jax", "median_us": 11000 + b})
            recs.append({"kind": "layer", "model": model, "batch": b, "system": "eager", "median_us": None, "ok": False})
            if model == "E" and b <= 2048:
                recs.append({"kind": "e2e", "model": model, "batch": b, "system": "e2e_recom", "median_us": 40 + 0.3 * b})
                recs.append({"kind": "e2e", "model": model, "batch": b, "system": "e2e_eager", "median_us": 12100 + b})
                recs.append({"kind": "e2e_host", "model": model, "batch": b, "system": "e2e_host_recom_fp32", "median_us": 300 + 1.2 * b})
                recs.append({"kind": "e2e_host", "model": model, "batch": b, "system": "e2e_host_tbe_fp32", "median_us": 500 + 4.5 * b})
                recs.append({"kind": "e2e_host_tput", "model": model, "batch": b, "system": "e2e_host_recom_fp32_x4", "samples_per_s": b * 1e6 / (100 + 0.4 * b)})
                recs.append({"kind": "e2e_host_tput", "model": model, "batch": b, "system": "e2e_host_tbe_fp32_x2", "samples_per_s": b * 1e6 / (400 + 4 * b)})
    return recs


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("results", nargs="?")
    ap.add_argument("--out", default=os.environ.get("OUT", "."))
    ap.add_argument("--title-suffix", default="")
    ap.add_argument("--self-test", action="store_true")
    args = ap.parse_args(argv)
    if args.self_test:
        recs = synthetic()
    elif args.results:
        recs = load(args.results)
    else:
        ap.error("give RESULTS.json or --self-test")
    written = plot(recs, args.out, args.title_suffix)
    for p in written:
        print(f"plot: wrote {p}")
    print(f"plot: wrote {os.path.join(args.out, 'summary.md')}")
    if args.self_test and len(written) != 5:
        print(f"plot: self-test: {len(written)} plots, want 5", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
