#!/usr/bin/env python3
"""The peers of recom's fused embedding layer (and of the whole model), on the
same tables and inputs.

    python3 bench/peers.py DUMP_DIR [--no-jax] [--iters N]
    python3 bench/peers.py --model E --dumps D1,D2,... [--tables T.npy]
            [--json OUT.jsonl] [--jax-batches 256,4096] [--spec E.spec.json
            --e2e-batches 32,256 --jax-e2e-batches 256] [--gate]
            [--deadline UNIX_TIME] [--iters N] [--no-jax-host]
            [--jax-host-precisions fp32,bf16] [--no-model]
    python3 bench/peers.py --dry-run [--json OUT.jsonl]

DUMP_DIR is what `recom bench MODEL --batch B --dump-inputs DUMP_DIR` wrote:
tables.npy (the tables arena, float32), meta.json (columns: kind, combiner,
rows, width, table_offset, out_offset, weighted; batch; sets) and per input
set s: ids_s.npy, splits_s.npy ([C, B+1] offsets into ids_s), weights_s.npy
and out_s.npy (recom's GPU output, [B, width]), so a new workload needs no
code here. With --dumps, the directories are taken in order, each once its
meta.json exists (a directory holding a file named .failed is skipped), and
the tables come from --tables (default: the first directory's tables.npy),
loaded once for all of them (the first directory written, in list order).

Peers of the embedding layer (each checked against out_s.npy, then timed
rotating over the sets):
  eager     PyTorch eager: one embedding_bag (F.embedding for one-id columns)
            per column, then one cat in output order
  graph     the same loop captured as one CUDA graph per set, replayed
  tbe       hand-fused, TBE-like: one embedding_bag over all tables of one
            width (the arena viewed as [rows, D], ids offset by hand), per
            width group, laid out as [B, C*D]
  jax       JAX jit: gather + segment_sum per column, concatenated (each
            column's ids padded to one length over the sets, with weight 0,
            so that one compilation serves every set)

End to end (--spec, a recom gen spec with a "dense" part; the batches in
--e2e-batches): the whole model as recom gen writes it: dense_features
[B, features] through the bottom MLP (MatMul, BiasAdd, Relu per layer),
ConcatV2([embedding layer, bottom output], axis 1), the top MLP (Relu), a
dense(1) and a Sigmoid. Systems e2e_eager, e2e_graph (the whole model as one
CUDA graph), e2e_tbe (the TBE-like layer, then the MLP) and e2e_jax (one jit),
all from inputs already on the device; and from host memory (kind "e2e_host",
on a GPU only): e2e_host_tbe_PREC, the TBE-like layer and the MLP at each of
--precisions (fp32, tf32, bf16) with the inputs copied from pinned host
memory and the predictions copied back, timed on the wall clock per batch
(median and p99), and, kind "e2e_host_tput", the same with --inflight K
batches in flight on K streams (samples per second, p99 latency); and
e2e_host_jax_PREC (unless --no-jax-host; PREC in --jax-host-precisions,
default fp32), the e2e_jax model fed by JAX's own transfers: per batch
jax.device_put of the same host feeds (numpy, padded as for e2e_jax so that
one compilation per batch size and precision serves every set; fp32 reuses
e2e_jax's), the jitted model, np.asarray of the predictions, timed on the
wall clock (median, p99), and with K batches dispatched asynchronously before
the oldest is awaited (kind "e2e_host_tput"). JAX precisions: fp32 is
Precision.HIGHEST (no TF32), tf32 the TF32_TF32_F32 dot algorithm (skipped
where the backend has none), bf16 bf16 operands with float32 accumulation.
With --dry-run and JAX installed it runs on JAX's CPU backend.
The MLP weights are gen's initializers (truncated normal, std sqrt(2/(in+out));
bias 0.01 N(0,1)) drawn here with numpy, or read from --weights (an .npz named
by variable, e.g. "top_mlp/dense_1/kernel", as recom gen's side file); the
dense features are N(0,1) per set. Each system's prediction is checked against
a float64 numpy forward pass over recom's layer output (out_s.npy). Matrix
products are float32 without TF32 in both frameworks (--tf32 allows it).

The whole model of a dump (any model, no spec needed): where `recom bench
--e2e --dump-inputs` also wrote the session's plan after the layer
(dense.json: the dense layers with their K×N weights dense_w_*.npy, biases,
activations; the host steps after the graph with their ops, attributes and
constant operands dense_c_*.npy; the outputs; per set the dense inputs,
dense_in_NAME_s.npy: feeds, or values the session computes on the host
before the graph (a numeric column's ExpandDims), which the peers take as
given, untimed; and the session's outputs, dense_out_K_s.npy), the peers
compute that chain after the TBE-like layer:
model_tbe (inputs on the device), and from host memory as e2e_host
(fp32, no TF32) model_host_eager_fp32, model_host_graph_fp32 (layer and
chain as one CUDA graph per set, replayed after the copies) and
model_host_jax_fp32 (one jit, jax.device_put), each checked (rtol 1e-4)
against a float64 numpy forward of the same chain over recom's layer
output, itself first checked against recom's outputs. Host steps computed:
Identity, Snapshot, StopGradient, Sigmoid, Relu, Tanh, Neg, Abs, Exp, Log,
Sqrt, Rsqrt, Square, Softmax, ZerosLike, OnesLike, Add(V2), Sub, Mul,
RealDiv, Maximum, Minimum, BiasAdd, MatMul, Sum, Mean, Max, Min, Prod,
Reshape, ExpandDims, Squeeze, ConcatV2, AddN and float Casts, with constant
axes and shapes; any other step, a dense input without a dumped value, or
more than one layer is reported ("model: the peers cannot
compute ...") and the model peers skipped (--no-model skips them always).

Combiners: unweighted mean and sum use embedding_bag's own modes; others
(weighted, sqrtn) use mode='sum' with per-sample weights pre-scaled on the
host (w / sum w for mean, w / sqrt(sum w^2) for sqrtn), which favours the
peers slightly. PyTorch peers are timed with CUDA events (median); JAX with
the wall clock around a call and block_until_ready (median).

Output: "PEER name median_us=..." lines, and with --json one JSON object a
line: {"kind": "layer"|"e2e", "model", "batch", "system", "median_us",
"min_us", "n", "ok", "worst", "compile_s"}.

--gate (used by bench/sweep.sh): before each timed section print
"@@GATE acquire" and wait for a line on stdin; after it print
"@@GATE release" (the sweep stops every other process meanwhile).

--dry-run: no GPU needed: builds a tiny synthetic dump (every column kind
and combiner, weighted columns, empty bags) with a numpy reference, and runs
every peer on the CPU (torch's CPU ops; no CUDA graph; JAX if installed),
layer and end to end, and a dumped dense part (a wide & deep chain with the
taxi Estimator's classifier head, its outputs computed by hand) through
model_tbe (and model_host_jax_fp32 with JAX), checking each against the
reference, and that unsupported chains are refused. Exits 1 on a
mismatch.
"""
import argparse
import json
import math
import os
import sys
import tempfile
import time

os.environ.setdefault("XLA_PYTHON_CLIENT_PREALLOCATE", "false")
import numpy as np  # noqa: E402

torch = None
F = None


def import_torch():
    global torch, F
    import torch as t
    import torch.nn.functional as f
    torch, F = t, f


def log(msg):
    print(msg, flush=True)


# ---------------------------------------------------------------- inputs


def load_meta(d):
    with open(os.path.join(d, "meta.json")) as f:
        return json.load(f)


def load_sets(d, meta):
    sets = []
    for s in range(meta["sets"]):
        st = {k: np.load(os.path.join(d, f"{k}_{s}.npy")) for k in ("ids", "splits", "weights", "out")}
        for k in ("dense_features", "prediction"):  # optional, written by a whole-model dump
            p = os.path.join(d, f"{k}_{s}.npy")
            if os.path.exists(p):
                st[k] = np.load(p)
        sets.append(st)
    return sets


def scaled_weights(meta, st):
    """Per-id weights with the combiner's per-bag scale folded in."""
    w = st["weights"].astype(np.float64).copy()
    sp = st["splits"]
    for c, col in enumerate(meta["columns"]):
        if col["combiner"] == "sum":
            continue
        a, b = sp[c, :-1], sp[c, 1:]
        seg = np.repeat(np.arange(len(a)), b - a)
        wc = w[sp[c, 0]:sp[c, -1]]
        if col["combiner"] == "mean":
            den = np.bincount(seg, weights=wc, minlength=len(a))
        else:
            den = np.sqrt(np.bincount(seg, weights=wc * wc, minlength=len(a)))
        den = np.where(den == 0, 1, den)
        w[sp[c, 0]:sp[c, -1]] = wc / den[seg]
    return w.astype(np.float32)


def native_mode(col):
    if col["weighted"]:
        return None
    if col["combiner"] in ("mean", "sum"):
        return col["combiner"]
    return None


def reference_layer(meta, tables, st):
    """The layer in float64 numpy (recom's semantics; empty bags give 0)."""
    B, W = meta["batch"], meta["width"]
    out = np.zeros((B, W))
    sw = scaled_weights(meta, st).astype(np.float64)
    sp = st["splits"]
    for c, col in enumerate(meta["columns"]):
        D = col["width"]
        tab = tables[col["table_offset"]:col["table_offset"] + col["rows"] * D].reshape(col["rows"], D).astype(np.float64)
        a, b = sp[c, 0], sp[c, -1]
        seg = np.repeat(np.arange(B), np.diff(sp[c]))
        acc = np.zeros((B, D))
        np.add.at(acc, seg, tab[st["ids"][a:b]] * sw[a:b, None])
        out[:, col["out_offset"]:col["out_offset"] + D] = acc
    return out


# ---------------------------------------------------------------- the dense part


def mlp_layers(spec, emb_width):
    """(scope, in, out, relu) of every dense layer, in gen's order and names."""
    d = spec["dense"]
    layers, used = [], {}

    def scope(base):
        i = used.get(base, 0)
        used[base] = i + 1
        return base if i == 0 else f"{base}_{i}"

    n = d["features"]
    bottom = []
    for w in d.get("bottom") or []:
        bottom.append((scope("bottom_mlp/dense"), n, w, True))
        n = w
    n += emb_width
    top = []
    for w in d.get("top") or []:
        top.append((scope("top_mlp/dense"), n, w, True))
        n = w
    top.append((scope("top_mlp/dense"), n, 1, False))
    layers = (bottom, top)
    return layers


def trunc_normal(rng, shape):
    out = rng.standard_normal(shape)
    bad = np.abs(out) > 2
    while bad.any():
        out[bad] = rng.standard_normal(int(bad.sum()))
        bad = np.abs(out) > 2
    return out


def mlp_weights(spec, emb_width, weights_file=None, seed=7):
    bottom, top = mlp_layers(spec, emb_width)
    given = dict(np.load(weights_file)) if weights_file else {}
    rng = np.random.default_rng(seed)
    ws = {}
    for sc, n, m, _ in bottom + top:
        k, b = given.get(sc + "/kernel"), given.get(sc + "/bias")
        if k is None:
            k = trunc_normal(rng, (n, m)) * math.sqrt(2 / (n + m))
        if b is None:
            b = 0.01 * trunc_normal(rng, (m,))
        if k.shape != (n, m) or b.shape != (m,):
            raise ValueError(f"{sc}: weights of shape {k.shape}, {b.shape}; the spec says ({n}, {m})")
        ws[sc] = (k.astype(np.float32), b.astype(np.float32))
    return bottom, top, ws


def reference_mlp(bottom, top, ws, emb, dense):
    h = dense.astype(np.float64)
    for sc, _, _, relu in bottom:
        k, b = ws[sc]
        h = h @ k.astype(np.float64) + b
        h = np.maximum(h, 0) if relu else h
    h = np.concatenate([emb.astype(np.float64), h], 1)
    for sc, _, _, relu in top:
        k, b = ws[sc]
        h = h @ k.astype(np.float64) + b
        h = np.maximum(h, 0) if relu else h
    return 1 / (1 + np.exp(-h))


def jax_dense(jax, h, layers, w, prec):
    """Dense layers (scope, in, out, relu) in JAX at precision prec: fp32
    (Precision.HIGHEST: float32 products, no TF32), tf32 (the
    TF32_TF32_F32 dot algorithm), bf16 (bf16 operands, float32
    accumulation and bias; w's kernels may already be bf16)."""
    import jax.numpy as jnp
    lax = jax.lax
    for sc, _, _, relu in layers:
        k, b = w[sc]
        if prec == "bf16":
            h = lax.dot(h.astype(jnp.bfloat16), k.astype(jnp.bfloat16), preferred_element_type=jnp.float32)
        elif prec == "tf32":
            h = lax.dot(h, k, precision=lax.DotAlgorithmPreset.TF32_TF32_F32)
        else:
            h = lax.dot(h, k, precision=lax.Precision.HIGHEST)
        h = h + b
        h = jax.nn.relu(h) if relu else h
    return h


def jax_host_peers(jax, args, rec, check, gate, B, name, prec, fn, consts, hsets, refs, tol):
    """The JAX peer from host memory: per batch, jax.device_put of the host
    feeds (a pytree of numpy arrays, the same shapes in every set, so that
    fn, a jitted function of (consts, feeds), compiles once per batch size
    and precision), fn, and np.asarray of the predictions (the clock stops
    when they are in host memory). Latency (kind "e2e_host": median, p99,
    one batch in flight) and throughput (kind "e2e_host_tput", for each K in
    --inflight: K batches dispatched asynchronously, the oldest awaited
    before the next is dispatched). Returns the number of failures (a
    precision the backend lacks is reported and skipped, not a failure)."""
    from collections import deque
    dev = jax.devices()[0]
    ns = len(hsets)

    def one(k):
        return fn(consts, jax.device_put(hsets[k], dev))

    try:
        t1 = time.time()
        np.asarray(one(0))
        cs = time.time() - t1
    except Exception as e:  # noqa: BLE001
        if prec == "tf32" and dev.platform != "gpu":
            log(f"  {name}: no TF32 on {dev.platform}; skipped ({type(e).__name__})")
            return 0
        log(f"  {name}: failed: {type(e).__name__}: {e}")
        return 1
    log(f"  {name}: compiled in {cs:.1f} s")
    it = max(args.iters * 4, 200) if dev.platform == "gpu" else args.iters
    with gate:
        ok, worst = check(name, [np.asarray(one(k)) for k in range(ns)], refs, **tol)
        for k in range(3):
            np.asarray(one(k % ns))
        ts = []
        for k in range(it):
            t = time.perf_counter()
            np.asarray(one(k % ns))
            ts.append((time.perf_counter() - t) * 1e6)
    rec.add("e2e_host", B, name, ts, ok, worst, p99_us=round(float(np.percentile(ts, 99)), 3),
            precision=prec, clock="wall", inflight=1, compile_s=round(cs, 1))
    for K in args.inflight:
        with gate:
            pend, lat = deque(), []
            t0 = time.perf_counter()
            for k in range(it):
                if len(pend) >= K:
                    st, y = pend.popleft()
                    np.asarray(y)
                    lat.append((time.perf_counter() - st) * 1e6)
                pend.append((time.perf_counter(), one(k % ns)))
            while pend:
                st, y = pend.popleft()
                np.asarray(y)
                lat.append((time.perf_counter() - st) * 1e6)
            wall = time.perf_counter() - t0
        sps = it * B / wall
        log(f"PEER {name}_x{K} samples_per_s={sps:.0f} p99_us={np.percentile(lat, 99):.1f}")
        rec.add("e2e_host_tput", B, f"{name}_x{K}", lat, None, None, samples_per_s=round(sps),
                p99_us=round(float(np.percentile(lat, 99)), 3), precision=prec, clock="wall", inflight=K)
    return 0  # a mismatch is counted by check


# ---------------------------------------------------------------- a dumped dense part


# The steps after the dense layers a whole-model peer computes (a subset of
# runtime/session/host.go's: those with float results and static shapes;
# the session's device steps, "device": true, are among them).
CHAIN_UNARY = ("Identity", "Snapshot", "StopGradient", "Sigmoid", "Relu", "Tanh", "Neg", "Abs", "Exp", "Log",
               "Sqrt", "Rsqrt", "Square", "Softmax", "LogSoftmax", "ZerosLike", "OnesLike")
CHAIN_BINARY = ("Add", "AddV2", "Sub", "Mul", "RealDiv", "Maximum", "Minimum", "BiasAdd", "MatMul")
CHAIN_REDUCE = ("Sum", "Mean", "Max", "Min", "Prod")
CHAIN_OPS = set(CHAIN_UNARY + CHAIN_BINARY + CHAIN_REDUCE + ("Reshape", "ExpandDims", "Squeeze", "ConcatV2", "AddN", "Cast"))


def load_chain(d):
    """dense.json of a dump (recom bench --e2e --dump-inputs), its weights
    and constants loaded (numpy), or None without one."""
    p = os.path.join(d, "dense.json")
    if not os.path.exists(p):
        return None
    with open(p) as f:
        plan = json.load(f)
    for dl in plan["dense"]:
        dl["W"] = np.load(os.path.join(d, dl["weight"]))
        dl["b"] = np.load(os.path.join(d, dl["bias"])) if dl.get("bias") else None
    for h in plan.get("host") or []:
        for r in h["inputs"]:
            if r["kind"] == "const":
                r["value"] = np.load(os.path.join(d, r["name"] + ".npy"))
    sets = []
    for s in range(plan.get("sets", 0)):
        ins = {i["name"]: np.load(os.path.join(d, f"dense_in_{i['name']}_{s}.npy")) for i in plan["inputs"]
               if i.get("feed") or i.get("computed")}
        outs = [np.load(os.path.join(d, f"dense_out_{k}_{s}.npy")) for k in range(len(plan["output_names"]))]
        sets.append((ins, outs))
    plan["sets_data"] = sets
    return plan


def chain_unsupported(plan):
    """Why a peer cannot compute the dumped dense part ("" when it can)."""
    for i in plan["inputs"]:
        if not i.get("feed") and not i.get("computed"):
            return f"dense input {i['name']} is {i.get('what') or 'not a feed'} (node {i.get('node', '?')!r})"
    if plan.get("layers", 0) != 1:
        return f"{plan.get('layers')} embedding layers (the peers compute one)"
    for dl in plan.get("dense") or []:
        for r in dl["inputs"]:
            if r["kind"] != "device":
                return f"dense layer {dl['node']!r} reads {r['kind']}: {r.get('what') or r.get('name')}"
    for h in plan.get("host") or []:
        if h["op"] not in CHAIN_OPS:
            return f"host step {h['op']} (node {h['node']!r}) has no peer implementation"
        if h["op"] == "Cast" and (h.get("attrs") or {}).get("DstT") not in ("f32", "f64"):
            return f"host step Cast (node {h['node']!r}) to {(h.get('attrs') or {}).get('DstT')}"
        for r in h["inputs"]:
            if r["kind"] not in ("device", "host", "const"):
                return f"host step {h['op']} (node {h['node']!r}) reads {r['kind']}: {r.get('what') or r.get('name')}"
        static = {"ConcatV2": [len(h["inputs"]) - 1], "Reshape": [1], "ExpandDims": [1]}.get(h["op"], [1] if h["op"] in CHAIN_REDUCE else [])
        for i in static:
            if i >= len(h["inputs"]) or h["inputs"][i]["kind"] != "const":
                return f"host step {h['op']} (node {h['node']!r}): operand #{i} is not a constant"
    for r in plan["outputs"]:
        if r["kind"] not in ("device", "host"):
            return f"an output is {r['kind']}: {r.get('what') or r.get('name')}"
    return ""


class ChainOps:
    """The array operations of a chain in one framework: numpy (float64,
    the reference), torch or jax.numpy."""

    def __init__(self, kind, dev=None):
        self.kind, self.dev = kind, dev
        if kind == "numpy":
            self.m = np
        elif kind == "torch":
            self.m = torch
        else:
            import jax
            import jax.numpy as jnp
            self.jax, self.m = jax, jnp

    def const(self, a):
        """A constant operand in the framework (floats as the chain's float type)."""
        if self.kind == "numpy":
            return a.astype(np.float64) if a.dtype.kind == "f" else a
        if self.kind == "torch":
            t = torch.from_numpy(np.ascontiguousarray(a)).to(self.dev)
            return t.float() if a.dtype.kind == "f" else t
        return self.m.asarray(a.astype(np.float32) if a.dtype.kind == "f" else a)

    def dot(self, a, b):
        if self.kind == "numpy":
            return a @ b
        if self.kind == "torch":
            return a @ b  # float32 products: allow_tf32 is off (Peers)
        return self.jax.lax.dot(a, b, precision=self.jax.lax.Precision.HIGHEST)

    def cat(self, xs, axis):
        return torch.cat(xs, axis) if self.kind == "torch" else self.m.concatenate(xs, axis=axis)

    def unary(self, op, x):
        m = self.m
        if op in ("Identity", "Snapshot", "StopGradient"):
            return x
        if op == "Sigmoid":
            return 1 / (1 + m.exp(-x))
        if op == "Relu":
            return m.maximum(x, m.zeros_like(x)) if self.kind == "torch" else m.maximum(x, 0)
        if op == "Softmax":
            e = m.exp(x - (x.amax(-1, keepdim=True) if self.kind == "torch" else x.max(-1, keepdims=True)))
            return e / (e.sum(-1, keepdim=True) if self.kind == "torch" else e.sum(-1, keepdims=True))
        if op == "LogSoftmax":
            d = x - (x.amax(-1, keepdim=True) if self.kind == "torch" else x.max(-1, keepdims=True))
            e = m.exp(d)
            return d - m.log(e.sum(-1, keepdim=True) if self.kind == "torch" else e.sum(-1, keepdims=True))
        if op == "Rsqrt":
            return 1 / m.sqrt(x)
        if op == "Square":
            return x * x
        if op == "Neg":
            return -x
        f = {"Tanh": "tanh", "Abs": "abs", "Exp": "exp", "Log": "log", "Sqrt": "sqrt", "ZerosLike": "zeros_like", "OnesLike": "ones_like"}[op]
        return getattr(m, f)(x)

    def reduce(self, op, x, axes, keep):
        axes = tuple(int(a) % x.ndim for a in np.atleast_1d(axes))
        if not axes:
            return x
        if self.kind == "torch":
            if op == "Prod":
                for a in sorted(axes, reverse=True):
                    x = x.prod(a, keepdim=keep)
                return x
            f = {"Sum": torch.sum, "Mean": torch.mean, "Max": torch.amax, "Min": torch.amin}[op]
            return f(x, dim=axes, keepdim=keep)
        f = {"Sum": "sum", "Mean": "mean", "Max": "max", "Min": "min", "Prod": "prod"}[op]
        return getattr(self.m, f)(x, axis=axes, keepdims=keep)

    def host(self, h, ins, statics):
        """One host step; statics[i] is operand i's numpy value when it is a constant."""
        op, at = h["op"], h.get("attrs") or {}
        if op in CHAIN_UNARY:
            return self.unary(op, ins[0])
        if op in CHAIN_REDUCE:
            return self.reduce(op, ins[0], statics[1], bool(at.get("keep_dims")))
        if op == "MatMul":
            a, b = ins
            a = a.T if at.get("transpose_a") else a
            b = b.T if at.get("transpose_b") else b
            return self.dot(a, b)
        if op in ("Add", "AddV2", "BiasAdd"):
            return ins[0] + ins[1]
        if op == "Sub":
            return ins[0] - ins[1]
        if op == "Mul":
            return ins[0] * ins[1]
        if op == "RealDiv":
            return ins[0] / ins[1]
        if op in ("Maximum", "Minimum"):
            return (self.m.maximum if op == "Maximum" else self.m.minimum)(ins[0], ins[1])
        if op == "AddN":
            y = ins[0]
            for z in ins[1:]:
                y = y + z
            return y
        if op == "ConcatV2":
            return self.cat(list(ins[:-1]), int(statics[-1]))
        if op == "Reshape":
            return ins[0].reshape(tuple(int(s) for s in np.atleast_1d(statics[1])))
        if op == "ExpandDims":
            a = int(statics[1])
            return ins[0].unsqueeze(a) if self.kind == "torch" else self.m.expand_dims(ins[0], a)
        if op == "Squeeze":
            axes = tuple(at.get("squeeze_dims") or ())
            x = ins[0]
            if self.kind == "torch":
                return x.squeeze(axes) if axes else x.squeeze()
            return self.m.squeeze(x, axis=axes or None)
        if op == "Cast":
            return ins[0]
        raise ValueError(f"host step {op}: no peer implementation")


def chain_fn(plan, ops):
    """(fn, consts): fn(consts, emb, x) -> [outputs] computes the dumped
    dense part in ChainOps ops from emb, the layer's output [B, width],
    and x, the dense inputs from the feeds concatenated [B, sum of widths]
    in plan["inputs"] order; consts are its weights, biases and constant
    operands in the framework, converted once (an argument, so that a jit
    does not embed them)."""
    consts, dense, host = [], [], []

    def add(a):
        consts.append(ops.const(a))
        return len(consts) - 1

    for dl in plan["dense"]:
        dense.append((dl, add(dl["W"]), None if dl["b"] is None else add(dl["b"])))
    for h in plan.get("host") or []:
        statics = [r.get("value") for r in h["inputs"]]
        idx = [add(r["value"]) if r["kind"] == "const" else None for r in h["inputs"]]
        host.append((h, statics, idx))
    widths = [(i["name"], int(i["width"])) for i in plan["inputs"]]

    def fn(cs, emb, x):
        B = emb.shape[0]
        vals = {"layer0": emb}
        c = 0
        for name, w in widths:
            vals[name] = x[:, c:c + w]
            c += w

        def get(r, i=None):
            if r["kind"] == "device":
                return vals[r["name"]].reshape((B,) + tuple(r.get("rest") or ()))
            if r["kind"] == "host":
                return vals[r["name"]]
            return cs[i]

        for dl, wi, bi in dense:
            xs = [get(r).reshape(B, k) for r, k in zip(dl["inputs"], dl["ks"])]
            h = xs[0] if len(xs) == 1 else ops.cat(xs, 1)
            h = ops.dot(h, cs[wi])
            if bi is not None:
                h = h + cs[bi]
            act = dl["activation"]
            if act != "none":
                h = ops.unary({"relu": "Relu", "sigmoid": "Sigmoid", "tanh": "Tanh"}[act], h)
            vals[dl["output"]] = h
        for h, statics, idx in host:
            vals[h["outputs"][0]] = ops.host(h, [get(r, i) for r, i in zip(h["inputs"], idx)], statics)
        return [get(r) for r in plan["outputs"]]
    return fn, consts


def flat_outputs(outs, B, m):
    """The chain's outputs as one [B, n] float32 array (each [B, ...] flattened)."""
    return m.concatenate([o.reshape(B, -1) for o in outs], axis=1) if m is not torch else torch.cat([o.reshape(B, -1).float() for o in outs], 1)


# ---------------------------------------------------------------- harness


class Gate:
    """The sweep's GPU gate: nothing else runs while a peer is timed."""

    def __init__(self, on):
        self.on = on

    def __enter__(self):
        if self.on:
            print("@@GATE acquire", flush=True)
            if not sys.stdin.readline():
                raise SystemExit("peers: the gate's stdin closed")
        return self

    def __exit__(self, *exc):
        if self.on:
            print("@@GATE release", flush=True)


class Recorder:
    def __init__(self, path, model):
        self.f = open(path, "a") if path else None
        self.model = model
        self.results = {}

    def add(self, kind, batch, system, ts=None, ok=None, worst=None, **extra):
        rec = {"kind": kind, "model": self.model, "batch": batch, "system": system}
        if ts:
            med = float(np.median(ts))
            rec.update(median_us=round(med, 3), min_us=round(float(min(ts)), 3), n=len(ts))
            self.results[system] = med
            log(f"PEER {system} median_us={med:.1f} min_us={min(ts):.1f} n={len(ts)}")
        if ok is not None:
            rec.update(ok=bool(ok), worst=worst)
        rec.update(extra)
        if self.f:
            self.f.write(json.dumps(rec) + "\n")
            self.f.flush()
        return rec


class Peers:
    """Every peer of one model, over any number of dumps (batches)."""

    def __init__(self, args, tables_np, dev):
        self.args, self.dev = args, dev
        self.cuda = dev == "cuda"
        self.gate = Gate(args.gate)
        self.rec = Recorder(args.json, args.model)
        self.tables_np = tables_np
        self.tables = torch.from_numpy(tables_np).to(dev)
        self.jt = None
        self.failures = 0
        if self.cuda and not args.tf32:
            torch.backends.cuda.matmul.allow_tf32 = False

    def sync(self):
        if self.cuda:
            torch.cuda.synchronize()

    def time_fn(self, fn, n, nsets):
        """Per-call times in µs: CUDA events on the GPU, else the wall clock."""
        for k in range(3):
            fn(k % nsets)
        self.sync()
        ts = []
        if self.cuda:
            s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            for k in range(n):
                s.record()
                fn(k % nsets)
                e.record()
                e.synchronize()
                ts.append(s.elapsed_time(e) * 1e3)
        else:
            for k in range(n):
                t = time.perf_counter()
                fn(k % nsets)
                ts.append((time.perf_counter() - t) * 1e6)
        return ts

    def check(self, name, outs, refs, rtol=1e-4, atol=1e-5):
        worst = 0.0
        for o, ref in zip(outs, refs):
            got = o.detach().cpu().numpy() if hasattr(o, "detach") else np.asarray(o)
            if got.shape != ref.shape:
                log(f"  {name}: shape {got.shape} != {ref.shape}")
                self.failures += 1
                return False, float("inf")
            err = np.abs(got - ref) / (atol + rtol * np.abs(ref))
            worst = max(worst, float(err.max()) if err.size else 0.0)
        ok = worst <= 1.0
        if not ok:
            self.failures += 1
        log(f"  {name}: {'matches' if ok else 'DIFFERS FROM'} the reference (worst |d|/({atol:g}+{rtol:g}|ref|) = {worst:.3g})")
        return ok, round(worst, 6)

    def run_dump(self, d):
        args = self.args
        t0 = time.time()
        meta = load_meta(d)
        sets = load_sets(d, meta)
        cols = meta["columns"]
        B, W, C = meta["batch"], meta["width"], len(cols)
        dev = self.dev
        order = sorted(range(C), key=lambda c: cols[c]["out_offset"])
        tables = self.tables
        views = [tables[c["table_offset"]:c["table_offset"] + c["rows"] * c["width"]].view(c["rows"], c["width"]) for c in cols]
        dsets = []
        for st in sets:
            sp = st["splits"]
            ids = torch.from_numpy(st["ids"]).to(dev)
            sw = scaled_weights(meta, st)
            swt = torch.from_numpy(sw).to(dev)
            per = []
            for c in range(C):
                a, b = int(sp[c, 0]), int(sp[c, -1])
                per.append((ids[a:b], torch.from_numpy(sp[c, :-1] - sp[c, 0]).to(dev), swt[a:b]))
            dsets.append({"per": per, "np": st, "swnp": sw})
        refs = [st["out"] for st in sets]
        self.sync()
        log(f"peers: {d}: {C} columns, batch {B}, width {W}, {len(sets)} sets, "
            f"{self.tables_np.nbytes / 1e9:.2f} GB of tables; inputs loaded in {time.time() - t0:.1f} s")
        rec = self.rec
        rec.results = {}
        ns = len(dsets)

        def eager(ds):
            outs = [None] * C
            for c in order:
                col = cols[c]
                i, off, w = ds["per"][c]
                if col["kind"] == "gather":
                    outs[c] = F.embedding(i, views[c])
                else:
                    m = native_mode(col)
                    if m is not None:
                        outs[c] = F.embedding_bag(i, views[c], off, mode=m)
                    else:
                        outs[c] = F.embedding_bag(i, views[c], off, mode="sum", per_sample_weights=w)
            return torch.cat([outs[c] for c in order], 1)

        # TBE-like: one embedding_bag per width group over the arena viewed as [rows, D].
        groups = {}
        for c in order:
            groups.setdefault(cols[c]["width"], []).append(c)
        tbe_sets = []
        for ds in dsets:
            st = ds["np"]
            sp = st["splits"]
            gl = []
            for D, cs in groups.items():
                gids, goffs, gw = [], [], []
                base = 0
                for c in cs:
                    a, b = sp[c, 0], sp[c, -1]
                    gids.append(st["ids"][a:b] + cols[c]["table_offset"] // D)
                    goffs.append(sp[c, :-1] - a + base)
                    gw.append(ds["swnp"][a:b])
                    base += b - a
                goffs.append(np.array([base]))
                modes = {native_mode(cols[c]) for c in cs}
                mode = modes.pop() if len(modes) == 1 and None not in modes else None
                idx = np.concatenate([np.arange(cols[c]["out_offset"], cols[c]["out_offset"] + D) for c in cs])
                gl.append((D, len(cs), torch.from_numpy(np.concatenate(gids)).to(dev),
                           torch.from_numpy(np.concatenate(goffs)).to(dev),
                           torch.from_numpy(np.concatenate(gw)).to(dev), mode, torch.from_numpy(idx).to(dev)))
            tbe_sets.append(gl)
        arena_views = {D: tables.view(-1, D) for D in groups}
        contiguous = len(groups) == 1 and all(cols[c]["table_offset"] % cols[c]["width"] == 0 for c in order)

        def tbe(gl):
            if contiguous:
                D, n, i, off, w, mode, idx = gl[0]
                o = F.embedding_bag(i, arena_views[D], off, mode=mode or "sum",
                                    per_sample_weights=None if mode else w, include_last_offset=True)
                return o.view(n, B, D).permute(1, 0, 2).reshape(B, n * D)
            out = torch.empty(B, W, device=dev)
            for D, n, i, off, w, mode, idx in gl:
                o = F.embedding_bag(i, arena_views[D], off, mode=mode or "sum",
                                    per_sample_weights=None if mode else w, include_last_offset=True)
                out.index_copy_(1, idx, o.view(n, B, D).permute(1, 0, 2).reshape(B, n * D))
            return out

        it = args.iters
        with self.gate:
            ok, worst = self.check("eager", [eager(ds) for ds in dsets], refs)
            rec.add("layer", B, "eager", self.time_fn(lambda k: eager(dsets[k]), max(10, it // 5), ns), ok, worst)

        graphs = []
        if self.cuda:
            with self.gate:
                graphs, gouts = self.capture(lambda k: eager(dsets[k]), ns)
                ok, worst = self.check("graph", gouts, refs)
                rec.add("layer", B, "graph", self.time_fn(lambda k: graphs[k].replay(), it, ns), ok, worst)

        with self.gate:
            ok, worst = self.check("tbe", [tbe(gl) for gl in tbe_sets], refs)
            rec.add("layer", B, "tbe", self.time_fn(lambda k: tbe(tbe_sets[k]), it * 2, ns), ok, worst)

        jax_here = self.want(args.jax_batches, B)
        if jax_here:
            self.jax_layer(meta, sets, dsets, order, refs)

        e2e_here = self.spec is not None and self.want(args.e2e_batches, B)
        if e2e_here:
            self.e2e(meta, sets, dsets, order, eager, tbe, tbe_sets)
        if not args.no_model:
            self.model_peers(d, meta, sets, dsets, order, tbe, tbe_sets)
        del graphs
        if self.cuda:
            torch.cuda.empty_cache()
        log("PEERS " + " ".join(f"{k}_us={v:.1f}" for k, v in rec.results.items()))

    def want(self, batches, B):
        if batches is None:
            return True
        return B in batches

    def capture(self, fn, ns):
        side = torch.cuda.Stream()
        side.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(side):
            for k in range(ns):
                fn(k)
        torch.cuda.current_stream().wait_stream(side)
        graphs, outs = [], []
        for k in range(ns):
            g = torch.cuda.CUDAGraph()
            with torch.cuda.graph(g):
                o = fn(k)
            graphs.append(g)
            outs.append(o)
        for g in graphs:
            g.replay()
        torch.cuda.synchronize()
        return graphs, outs

    # ------------------------------------------------------------ JAX

    def jax_mod(self):
        if self.args.no_jax:
            return None
        if self.args.deadline and time.time() > self.args.deadline - self.args.jax_margin:
            log(f"  jax: skipped: less than {self.args.jax_margin:g} s to the deadline (a compilation takes 20-50 s)")
            return None
        try:
            import jax
        except Exception as e:  # noqa: BLE001
            log(f"  jax: not available: {type(e).__name__}: {e}")
            self.args.no_jax = True
            return None
        if not self.args.tf32:
            jax.config.update("jax_default_matmul_precision", "highest")
        if self.jt is None:
            self.jt = jax.device_put(self.tables_np)
        return jax

    def jax_inputs(self, meta, sets, dsets, order, host=False):
        """Per set, per column (output order): ids, bag of each id, weights,
        padded to the column's longest over the sets (weight 0, bag 0); on
        the device, or with host=True as numpy arrays in host memory."""
        import jax.numpy as jnp
        put = (lambda a: a) if host else jnp.asarray
        B = meta["batch"]
        lens = {c: max(int(st["splits"][c, -1] - st["splits"][c, 0]) for st in sets) for c in order}
        out = []
        for st, ds in zip(sets, dsets):
            sp = st["splits"]
            args_ = []
            for c in order:
                a, b = sp[c, 0], sp[c, -1]
                n, L = b - a, lens[c]
                ids = np.zeros(L, np.int32)
                seg = np.zeros(L, np.int32)
                w = np.zeros(L, np.float32)
                ids[:n] = st["ids"][a:b]
                seg[:n] = np.repeat(np.arange(B, dtype=np.int32), np.diff(sp[c]))
                w[:n] = ds["swnp"][a:b]
                args_.append((put(ids), put(seg), put(w)))
            out.append(args_)
        return out

    def jax_layer_fn(self, meta, order):
        import jax
        import jax.numpy as jnp
        cols, B = meta["columns"], meta["batch"]
        meta_o = [(cols[c]["table_offset"], cols[c]["rows"], cols[c]["width"]) for c in order]

        def layer(t, args_):
            outs = []
            for (off, rows, width), (i, seg, w) in zip(meta_o, args_):
                tab = jax.lax.dynamic_slice(t, (off,), (rows * width,)).reshape(rows, width)
                outs.append(jax.ops.segment_sum(tab[i] * w[:, None], seg, num_segments=B))
            return jnp.concatenate(outs, axis=1)
        return layer

    def time_jax(self, fn, n, ns):
        ts = []
        for k in range(n + 3):
            t = time.perf_counter()
            fn(k % ns).block_until_ready()
            ts.append((time.perf_counter() - t) * 1e6)
        return ts[3:]

    def jax_layer(self, meta, sets, dsets, order, refs):
        jax = self.jax_mod()
        if jax is None:
            return
        B = meta["batch"]
        try:
            jsets = self.jax_inputs(meta, sets, dsets, order)
            layer = jax.jit(self.jax_layer_fn(meta, order))
            t1 = time.time()
            layer(self.jt, jsets[0]).block_until_ready()  # compiled outside the gate: CPU only
            cs = time.time() - t1
            log(f"  jax: compiled in {cs:.1f} s")
            with self.gate:
                ok, worst = self.check("jax", [layer(self.jt, a) for a in jsets], refs)
                ts = self.time_jax(lambda k: layer(self.jt, jsets[k]), max(10, self.args.iters // 5), len(jsets))
                self.rec.add("layer", B, "jax", ts, ok, worst, compile_s=round(cs, 1), clock="wall")
        except Exception as e:  # noqa: BLE001  keep the torch numbers when JAX fails
            self.failures += 1
            log(f"  jax: failed: {type(e).__name__}: {e}")

    # ------------------------------------------------------------ end to end

    spec = None
    weights = None

    def e2e(self, meta, sets, dsets, order, eager, tbe, tbe_sets):
        args, dev, rec = self.args, self.dev, self.rec
        B, W = meta["batch"], meta["width"]
        nf = self.spec["dense"]["features"]
        bottom, top, ws = mlp_weights(self.spec, W, args.weights)
        rng = np.random.default_rng(1000 + B)
        dense_np = [st.get("dense_features", rng.standard_normal((B, nf)).astype(np.float32)) for st in sets]
        refs = [reference_mlp(bottom, top, ws, st["out"], x) for st, x in zip(sets, dense_np)]
        for st, r in zip(sets, refs):
            if "prediction" in st and args.weights:
                err = float(np.max(np.abs(st["prediction"].reshape(r.shape) - r)))
                log(f"  e2e: recom's prediction against the numpy forward: max |d| = {err:.3g}")
        tw = {k: (torch.from_numpy(a).to(dev), torch.from_numpy(b).to(dev)) for k, (a, b) in ws.items()}
        dense_t = [torch.from_numpy(x).to(dev) for x in dense_np]

        def mlp(emb, x, w=tw, dt=torch.float32):
            """The MLP on weights w in dtype dt (the inputs cast to it; the
            prediction in float32)."""
            h = x.to(dt)
            for sc, _, _, relu in bottom:
                k, b = w[sc]
                h = torch.addmm(b, h, k)
                h = torch.relu(h) if relu else h
            h = torch.cat([emb.to(dt), h], 1)
            for sc, _, _, relu in top:
                k, b = w[sc]
                h = torch.addmm(b, h, k)
                h = torch.relu(h) if relu else h
            return torch.sigmoid(h.float())

        ns = len(dsets)
        it = args.iters
        tol = dict(rtol=1e-3, atol=1e-5)
        with self.gate:
            ok, worst = self.check("e2e_eager", [mlp(eager(ds), x) for ds, x in zip(dsets, dense_t)], refs, **tol)
            rec.add("e2e", B, "e2e_eager", self.time_fn(lambda k: mlp(eager(dsets[k]), dense_t[k]), max(10, it // 5), ns), ok, worst)
        if self.cuda:
            with self.gate:
                graphs, gouts = self.capture(lambda k: mlp(eager(dsets[k]), dense_t[k]), ns)
                ok, worst = self.check("e2e_graph", gouts, refs, **tol)
                rec.add("e2e", B, "e2e_graph", self.time_fn(lambda k: graphs[k].replay(), it, ns), ok, worst)
                del graphs, gouts
        with self.gate:
            ok, worst = self.check("e2e_tbe", [mlp(tbe(gl), x) for gl, x in zip(tbe_sets, dense_t)], refs, **tol)
            rec.add("e2e", B, "e2e_tbe", self.time_fn(lambda k: mlp(tbe(tbe_sets[k]), dense_t[k]), it * 2, ns), ok, worst)

        self.e2e_host(meta, tbe, tbe_sets, mlp, ws, dense_np, refs)

        if not self.want(args.jax_e2e_batches, B):
            return
        jax = self.jax_mod()
        if jax is None:
            return
        try:
            import jax.numpy as jnp
            jsets = self.jax_inputs(meta, sets, dsets, order)
            layer = self.jax_layer_fn(meta, order)
            jw = {k: (jnp.asarray(a), jnp.asarray(b)) for k, (a, b) in ws.items()}
            jx = [jnp.asarray(x) for x in dense_np]

            def model(t, args_, w, x, prec="fp32"):
                h = jax_dense(jax, x, bottom, w, prec)
                h = jnp.concatenate([layer(t, args_), h], axis=1)
                return jax.nn.sigmoid(jax_dense(jax, h, top, w, prec).astype(jnp.float32))

            jm = jax.jit(model, static_argnames=("prec",))
            t1 = time.time()
            jm(self.jt, jsets[0], jw, jx[0], prec="fp32").block_until_ready()
            cs = time.time() - t1
            log(f"  e2e_jax: compiled in {cs:.1f} s")
            with self.gate:
                ok, worst = self.check("e2e_jax", [jm(self.jt, a, jw, x, prec="fp32") for a, x in zip(jsets, jx)], refs, **tol)
                ts = self.time_jax(lambda k: jm(self.jt, jsets[k], jw, jx[k], prec="fp32"), max(10, it // 5), len(jsets))
                rec.add("e2e", B, "e2e_jax", ts, ok, worst, compile_s=round(cs, 1), clock="wall")
        except Exception as e:  # noqa: BLE001
            self.failures += 1
            log(f"  e2e_jax: failed: {type(e).__name__}: {e}")
            return
        if args.no_jax_host:
            return
        # From host memory: the same padded feeds as numpy arrays, sent by
        # jax.device_put per batch; fp32 reuses the compilation above.
        hsets = [(a, x) for a, x in zip(self.jax_inputs(meta, sets, dsets, order, host=True), dense_np)]
        w16 = {k: (jnp.asarray(a, jnp.bfloat16), jnp.asarray(b)) for k, (a, b) in ws.items()}
        for prec in args.jax_host_precisions:
            fn = (lambda c, f, prec=prec: jm(c[0], f[0], c[1], f[1], prec=prec))
            consts = (self.jt, w16 if prec == "bf16" else jw)
            tol_ = tol if prec == "fp32" else dict(rtol=3e-2, atol=3e-3)
            self.failures += jax_host_peers(jax, args, self.rec, self.check, self.gate, B, f"e2e_host_jax_{prec}",
                                            prec, fn, consts, hsets, refs, tol_)


    # ------------------------------------------------------------ a dump's whole model

    def model_peers(self, d, meta, sets, dsets, order, tbe, tbe_sets):
        """The whole model of a dump with a dense part (dense.json: recom
        bench --e2e --dump-inputs): the TBE-like layer, then the session's
        dense layers and host steps after the graph (chain_fn), checked
        against a float64 numpy forward of the same chain over recom's layer
        output (rtol 1e-4), after that forward is checked against recom's
        own outputs. Systems: model_tbe (inputs on the device), and from
        host memory (kind "e2e_host"/"e2e_host_tput", as e2e_host)
        model_host_eager_fp32, model_host_graph_fp32 (one CUDA graph) and
        model_host_jax_fp32 (jit, jax.device_put). fp32 only, no TF32. A
        part the peers cannot compute is reported and skipped."""
        args, rec = self.args, self.rec
        plan = load_chain(d)
        if plan is None:
            return
        B = meta["batch"]
        why = chain_unsupported(plan)
        ns = min(len(sets), len(plan["sets_data"]))
        if not why and ns == 0:
            why = "dense.json has no sets"
        if why:
            log(f"  model: the peers cannot compute {d}'s dense part: {why}; skipped")
            rec.add("model", B, "model", skipped=why)
            return
        steps = plan.get("host") or []
        log(f"  model: {len(plan['dense'])} dense layers, {len(steps)} steps after them "
            f"({', '.join(h['op'] + (' (device)' if h.get('device') else '') for h in steps) or 'none'}), outputs {plan['output_names']}")
        xs = [np.concatenate([sd[0][i["name"]].reshape(B, -1).astype(np.float32) for i in plan["inputs"]], 1)
              if plan["inputs"] else np.zeros((B, 0), np.float32) for sd in plan["sets_data"][:ns]]
        rfn, rc = chain_fn(plan, ChainOps("numpy"))
        refs = [flat_outputs(rfn(rc, sets[k]["out"].astype(np.float64), xs[k].astype(np.float64)), B, np) for k in range(ns)]
        theirs = [flat_outputs([o.astype(np.float64) for o in plan["sets_data"][k][1]], B, np) for k in range(ns)]
        ok, worst = self.check("model: recom's outputs against the chain's float64 forward", theirs, refs, rtol=1e-4, atol=1e-5)
        rec.add("model", B, "recom_vs_chain", ok=ok, worst=worst)
        tol = dict(rtol=1e-4, atol=1e-5)
        old = torch.backends.cuda.matmul.allow_tf32
        torch.backends.cuda.matmul.allow_tf32 = False
        try:
            tfn, tc = chain_fn(plan, ChainOps("torch", self.dev))

            def mlp(emb, x, tw=None, dt=None):
                return flat_outputs(tfn(tc, emb, x), B, torch)

            xt = [torch.from_numpy(x).to(self.dev) for x in xs]
            with self.gate:
                ok, worst = self.check("model_tbe", [mlp(tbe(tbe_sets[k]), xt[k]) for k in range(ns)], refs, **tol)
                rec.add("model", B, "model_tbe", self.time_fn(lambda k: mlp(tbe(tbe_sets[k]), xt[k]), args.iters, ns), ok, worst)
            for graph in (False, True):
                self.e2e_host(meta, tbe, tbe_sets[:ns], mlp, {}, xs, refs, base="model_host_graph" if graph else "model_host_eager",
                              precisions=["fp32"], out_cols=refs[0].shape[1], graph=graph, fp32_rtol=1e-4)
        finally:
            torch.backends.cuda.matmul.allow_tf32 = old
        if not self.want(args.jax_e2e_batches, B):
            return
        jax = self.jax_mod()
        if jax is None:
            return
        try:
            import jax.numpy as jnp
            jfn, jc = chain_fn(plan, ChainOps("jax"))
            layer = self.jax_layer_fn(meta, order)
            jm = jax.jit(lambda t, cs, a, x: flat_outputs(jfn(cs, layer(t, a), x), B, jnp))
            hsets = list(zip(self.jax_inputs(meta, sets[:ns], dsets[:ns], order, host=True), xs))
        except Exception as e:  # noqa: BLE001
            self.failures += 1
            log(f"  model_host_jax: failed: {type(e).__name__}: {e}")
            return
        self.failures += jax_host_peers(jax, args, rec, self.check, self.gate, B, "model_host_jax_fp32", "fp32",
                                        lambda c, f: jm(c[0], c[1], f[0], f[1]), (self.jt, jc), hsets, refs, tol)

    # ------------------------------------------------------------ end to end from host memory

    def e2e_host(self, meta, tbe, tbe_sets, mlp, ws, dense_np, refs, base="e2e_host_tbe", precisions=None,
                 out_cols=1, graph=False, fp32_rtol=1e-3):
        """The whole model from features in host memory to predictions in host
        memory, as a serving system sees it: per batch, the TBE-like layer's
        inputs (ids, offsets, weights per width group) and the dense features
        are numpy arrays; they are copied into pinned staging buffers, sent
        with non-blocking host-to-device copies, the layer (one embedding_bag
        per width group) and the MLP (cuBLAS) run, and the predictions come
        back into pinned memory; the clock stops when they are there. One
        record per precision in --precisions (fp32: no TF32, TensorFlow's
        arithmetic; tf32; bf16: the MLP's weights and activations in bf16
        with fp32 accumulation): latency (median, p99 over the batches) with
        one batch in flight, and throughput (samples/s) with --inflight K
        batches in flight on K streams, each with its own buffers.

        Also the whole-model peers of a dump's dense part (model_peers):
        base names the systems, precisions overrides --precisions, out_cols
        is the predictions' width (mlp returns [B, out_cols]), a dense input
        of width 0 is not sent, and with graph the layer and mlp are one
        CUDA graph per slot and set, captured on the slot's buffers and
        replayed after the copies."""
        if not self.cuda:
            return
        args, dev, rec = self.args, self.dev, self.rec
        B = meta["batch"]
        ns = len(tbe_sets)
        # Host arrays per set and group, and device buffers sized for the largest set.
        host = []
        for gl, x in zip(tbe_sets, dense_np):
            host.append(([(i.cpu().numpy(), off.cpu().numpy(), w.cpu().numpy()) for (_, _, i, off, w, _, _) in gl], x))
        shapes = [(max(h[0][g][0].size for h in host), max(h[0][g][1].size for h in host)) for g in range(len(tbe_sets[0]))]
        static = [(D, n, mode, idx) for (D, n, _, _, _, mode, idx) in tbe_sets[0]]

        def weights_for(prec):
            dt = torch.bfloat16 if prec == "bf16" else torch.float32
            return {k: (torch.from_numpy(a).to(dev, dt), None if b is None else torch.from_numpy(b).to(dev, dt))
                    for k, (a, b) in ws.items()}, dt

        class Slot:
            pass

        def make_slot():
            sl = Slot()
            sl.stream = torch.cuda.Stream()
            sl.pin = [(torch.empty(L, dtype=torch.int64).pin_memory(), torch.empty(O, dtype=torch.int64).pin_memory(),
                       torch.empty(L, dtype=torch.float32).pin_memory()) for (L, O) in shapes]
            sl.dev = [(torch.empty(L, dtype=torch.int64, device=dev), torch.empty(O, dtype=torch.int64, device=dev),
                       torch.empty(L, dtype=torch.float32, device=dev)) for (L, O) in shapes]
            sl.xpin = torch.empty(dense_np[0].shape, dtype=torch.float32)
            if sl.xpin.numel():
                sl.xpin = sl.xpin.pin_memory()
            sl.xdev = torch.empty(dense_np[0].shape, dtype=torch.float32, device=dev)
            sl.ypin = torch.empty((B, out_cols), dtype=torch.float32).pin_memory()
            sl.graphs = {}
            sl.done = torch.cuda.Event()
            return sl

        def submit(sl, k, tw, dt):
            gh, x = host[k]
            sizes = []
            for (pi, po, pw), (hi, ho, hw) in zip(sl.pin, gh):  # host packing: into pinned memory
                pi.numpy()[:hi.size] = hi
                po.numpy()[:ho.size] = ho
                pw.numpy()[:hw.size] = hw
                sizes.append((hi.size, ho.size))
            sl.xpin.numpy()[...] = x
            with torch.cuda.stream(sl.stream):
                for (pi, po, pw), (di, do, dw), (L, O) in zip(sl.pin, sl.dev, sizes):
                    di[:L].copy_(pi[:L], non_blocking=True)
                    do[:O].copy_(po[:O], non_blocking=True)
                    dw[:L].copy_(pw[:L], non_blocking=True)
                if x.size:
                    sl.xdev.copy_(sl.xpin, non_blocking=True)
            if graph and k not in sl.graphs:
                capture(sl, k, sizes, tw, dt)  # after set k's copies: the warm-up reads valid ids
            with torch.cuda.stream(sl.stream):
                if graph:
                    g, y = sl.graphs[k]
                    g.replay()
                else:
                    y = compute(sl, sizes, tw, dt)
                sl.ypin.copy_(y, non_blocking=True)
                sl.done.record(sl.stream)

        def compute(sl, sizes, tw, dt):
            # The layer as run_dump's tbe computes it, on this slot's device buffers.
            gl = [(D, n, di[:L], do[:O], dw[:L], mode, idx)
                  for (D, n, mode, idx), (di, do, dw), (L, O) in zip(static, sl.dev, sizes)]
            return mlp(tbe(gl), sl.xdev, tw, dt)

        def capture(sl, k, sizes, tw, dt):
            """Set k's graph on slot sl's buffers (warmed up on its stream first)."""
            torch.cuda.synchronize()
            with torch.cuda.stream(sl.stream):
                compute(sl, sizes, tw, dt)
            torch.cuda.synchronize()
            g = torch.cuda.CUDAGraph()
            with torch.cuda.graph(g, stream=sl.stream):
                y = compute(sl, sizes, tw, dt)
            torch.cuda.synchronize()
            sl.graphs[k] = (g, y)

        it = max(args.iters * 4, 200)
        for prec in precisions or args.precisions:
            tw, dt = weights_for(prec)
            old = torch.backends.cuda.matmul.allow_tf32
            torch.backends.cuda.matmul.allow_tf32 = prec == "tf32"
            try:
                name = f"{base}_{prec}"
                sl = make_slot()
                outs = []
                for k in range(ns):
                    submit(sl, k, tw, dt)
                    sl.done.synchronize()
                    outs.append(sl.ypin.numpy().copy())
                tol = dict(rtol=fp32_rtol, atol=1e-5) if prec == "fp32" else dict(rtol=3e-2, atol=3e-3)
                with self.gate:
                    ok, worst = self.check(name, outs, refs, **tol)
                    for k in range(3):
                        submit(sl, k % ns, tw, dt)
                        sl.done.synchronize()
                    ts = []
                    for k in range(it):
                        t = time.perf_counter()
                        submit(sl, k % ns, tw, dt)
                        sl.done.synchronize()
                        ts.append((time.perf_counter() - t) * 1e6)
                rec.add("e2e_host", B, name, ts, ok, worst, p99_us=round(float(np.percentile(ts, 99)), 3),
                        precision=prec, clock="wall", inflight=1)
                for K in args.inflight:
                    slots = [make_slot() for _ in range(K)]
                    for s_ in slots:  # warm, and capture each set's graph on every slot, untimed
                        for k in range(ns):
                            submit(s_, k, tw, dt)
                            s_.done.synchronize()
                    with self.gate:
                        t0 = time.perf_counter()
                        lat, start = [], {}
                        for k in range(it):
                            s_ = slots[k % K]
                            if k >= K:
                                s_.done.synchronize()
                                lat.append((time.perf_counter() - start[k - K]) * 1e6)
                            start[k] = time.perf_counter()
                            submit(s_, k % ns, tw, dt)
                        for k in range(max(0, it - K), it):
                            slots[k % K].done.synchronize()
                            lat.append((time.perf_counter() - start[k]) * 1e6)
                        wall = time.perf_counter() - t0
                    sps = it * B / wall
                    log(f"PEER {name}_x{K} samples_per_s={sps:.0f} p99_us={np.percentile(lat, 99):.1f}")
                    rec.add("e2e_host_tput", B, f"{name}_x{K}", lat, None, None, samples_per_s=round(sps),
                            p99_us=round(float(np.percentile(lat, 99)), 3), precision=prec, clock="wall", inflight=K)
            finally:
                torch.backends.cuda.matmul.allow_tf32 = old


# ---------------------------------------------------------------- dry run


def make_dry_dump(d, batch=8, sets=2, seed=3):
    """A tiny dump: every column kind and combiner, weights, empty bags."""
    rng = np.random.default_rng(seed)
    kinds = [  # kind, combiner, weighted, width, rows
        ("gather", "mean", False, 4, 11),
        ("lookup", "mean", False, 4, 13),
        ("lookup", "sum", False, 8, 17),
        ("lookup", "sqrtn", False, 4, 7),
        ("lookup", "sqrtn", True, 8, 19),
        ("lookup", "mean", True, 4, 5),
        ("lookup", "sum", True, 4, 9),
    ]
    cols, toff, ooff = [], 0, 0
    for n, (k, comb, wt, D, rows) in enumerate(kinds):
        toff = (toff + D - 1) // D * D
        cols.append({"name": f"c{n}", "kind": k, "combiner": comb, "weighted": wt, "rows": rows,
                     "width": D, "table_offset": toff, "out_offset": 0})
        toff += rows * D
    for c in sorted(cols, key=lambda c: c["name"], reverse=True):  # output order differs from column order
        c["out_offset"] = ooff
        ooff += c["width"]
    tables = rng.standard_normal(toff).astype(np.float32)
    meta = {"batch": batch, "width": ooff, "sets": sets, "columns": cols}
    os.makedirs(d, exist_ok=True)
    np.save(os.path.join(d, "tables.npy"), tables)
    for s in range(sets):
        ids, w, splits = [], [], []
        for c in cols:
            base = sum(len(x) for x in ids)
            lens = np.ones(batch, np.int64) if c["kind"] == "gather" else rng.integers(0, 5, batch)
            if c["kind"] != "gather":
                lens[0] = 0  # an empty bag
            ci = rng.integers(0, c["rows"], int(lens.sum()))
            ids.append(ci)
            w.append(rng.uniform(0.1, 2, len(ci)).astype(np.float32) if c["weighted"] else np.ones(len(ci), np.float32))
            splits.append(base + np.concatenate([[0], np.cumsum(lens)]))
        st = {"ids": np.concatenate(ids).astype(np.int64), "weights": np.concatenate(w),
              "splits": np.array(splits, np.int64)}
        st["out"] = reference_layer(meta, tables, st).astype(np.float32)
        for k, v in st.items():
            np.save(os.path.join(d, f"{k}_{s}.npy"), v)
    with open(os.path.join(d, "meta.json"), "w") as f:
        json.dump(meta, f)
    return meta


def make_dry_chain(d, meta, nf=3, seed=5):
    """A dense part for a dry dump, as recom bench --e2e --dump-inputs
    writes it: a deep part (the layer, nf dense features from a feed and
    one computed on the host before the graph -> 6 relu ->
    5 relu -> 2), a wide part (the layer -> 1, no bias) and a classifier
    head after the graph (Sum, BiasAdd, AddV2, ZerosLike, ConcatV2,
    Softmax, as the taxi Estimator's); the outputs computed here by hand in
    float64 (not by chain_fn)."""
    rng = np.random.default_rng(seed)
    B, W = meta["batch"], meta["width"]
    w = {"d0": rng.standard_normal((W + nf + 1, 6)), "d1": rng.standard_normal((6, 5)), "d2": rng.standard_normal((5, 2)),
         "wide": rng.standard_normal((W, 1))}
    b = {"d0": rng.standard_normal(6), "d1": rng.standard_normal(5), "d2": rng.standard_normal(2)}
    w = {k: v.astype(np.float32) for k, v in w.items()}
    b = {k: v.astype(np.float32) for k, v in b.items()}
    hb = np.array([0.25], np.float32)

    def dl(name, ins, ks, n, act, out, bias=True):
        np.save(os.path.join(d, f"dense_w_{name}.npy"), w[name])
        r = {"node": name, "inputs": ins, "ks": ks, "n": n, "activation": act, "accumulate": "f64", "output": out,
             "weight": f"dense_w_{name}.npy"}
        if bias:
            np.save(os.path.join(d, f"dense_b_{name}.npy"), b[name])
            r["bias"] = f"dense_b_{name}.npy"
        return r

    dev = lambda n, *rest: {"kind": "device", "name": n, "rest": list(rest)}  # noqa: E731
    host = lambda n: {"kind": "host", "name": n}  # noqa: E731
    consts = {"c_axis1": np.array([1], np.int32), "c_bias": hb, "c_cat": np.array(1, np.int32)}
    for k, v in consts.items():
        np.save(os.path.join(d, k + ".npy"), v)
    const = lambda n: {"kind": "const", "name": n}  # noqa: E731
    plan = {
        "layers": 1, "sets": meta["sets"],
        "inputs": [{"name": "input0", "feed": "dense_features", "width": nf},
                   {"name": "input1", "node": "fare/ExpandDims", "width": 1, "computed": True,
                    "what": "a value computed on the host before the graph"}],
        "dense": [dl("d0", [dev("layer0", W), dev("input0", nf), dev("input1", 1)], [W, nf, 1], 6, "relu", "dense0"),
                  dl("d1", [dev("dense0", 6)], [6], 5, "relu", "dense1"),
                  dl("d2", [dev("dense1", 5)], [5], 2, "none", "dense2"),
                  dl("wide", [dev("layer0", W)], [W], 1, "none", "dense3", bias=False)],
        "host": [
            {"op": "Sum", "node": "linear/sum", "inputs": [dev("dense3", 1), const("c_axis1")], "attrs": {"keep_dims": True}, "outputs": ["h0"]},
            {"op": "BiasAdd", "node": "linear/bias", "inputs": [host("h0"), const("c_bias")], "attrs": {"data_format": "NHWC"}, "outputs": ["h1"]},
            {"op": "Sum", "node": "dnn/sum", "inputs": [dev("dense2", 2), const("c_axis1")], "attrs": {"keep_dims": True}, "outputs": ["h2"]},
            {"op": "AddV2", "node": "head/add", "inputs": [host("h1"), host("h2")], "outputs": ["h3"]},
            {"op": "ZerosLike", "node": "head/zeros", "inputs": [host("h3")], "outputs": ["h4"]},
            {"op": "ConcatV2", "node": "head/concat", "inputs": [host("h4"), host("h3"), const("c_cat")], "outputs": ["h5"]},
            {"op": "Softmax", "node": "head/probabilities", "inputs": [host("h5")], "outputs": ["h6"]},
        ],
        "outputs": [host("h6"), dev("dense3", 1)],
        "output_names": ["head/probabilities", "linear/logits"],
    }
    with open(os.path.join(d, "dense.json"), "w") as f:
        json.dump(plan, f)
    f64 = {k: v.astype(np.float64) for k, v in w.items()}
    for s in range(meta["sets"]):
        emb = np.load(os.path.join(d, f"out_{s}.npy")).astype(np.float64)
        x = rng.standard_normal((B, nf)).astype(np.float32)
        fare = rng.uniform(0, 50, (B, 1)).astype(np.float32)
        np.save(os.path.join(d, f"dense_in_input0_{s}.npy"), x)
        np.save(os.path.join(d, f"dense_in_input1_{s}.npy"), fare)
        h = np.maximum(np.concatenate([emb, x, fare], 1) @ f64["d0"] + b["d0"], 0)
        h = np.maximum(h @ f64["d1"] + b["d1"], 0)
        logit = (h @ f64["d2"] + b["d2"]).sum(1) + (emb @ f64["wide"])[:, 0] + 0.25
        p1 = 1 / (1 + np.exp(-logit))  # softmax of [0, logit]
        np.save(os.path.join(d, f"dense_out_0_{s}.npy"), np.stack([1 - p1, p1], 1).astype(np.float32))
        np.save(os.path.join(d, f"dense_out_1_{s}.npy"), (emb @ f64["wide"]).astype(np.float32))


def dry_unsupported_checks():
    """chain_unsupported refuses what the peers cannot compute."""
    base = {"layers": 1, "inputs": [], "outputs": [{"kind": "host", "name": "h0"}],
            "host": [{"op": "Softmax", "node": "n", "inputs": [{"kind": "device", "name": "dense0"}], "outputs": ["h0"]}]}
    assert chain_unsupported(base) == "", chain_unsupported(base)
    bad = [
        dict(base, host=[{"op": "ArgMax", "node": "cls", "inputs": [], "outputs": ["h0"]}]),
        dict(base, inputs=[{"name": "input0", "width": 4, "what": "a value computed on the host before the graph"}]),
        dict(base, host=[{"op": "Sum", "node": "s", "inputs": [{"kind": "device", "name": "dense0"}, {"kind": "host", "name": "h9"}], "outputs": ["h0"]}]),
        dict(base, layers=2),
        dict(base, dense=[{"node": "d", "inputs": [{"kind": "other", "what": "the result of a device step before the dense layer"}]}]),
        dict(base, outputs=[{"kind": "feed", "name": "x"}]),
    ]
    for p in bad:
        if not chain_unsupported(p):
            log(f"peers: dry run: chain_unsupported accepted {p}")
            return 1
    return 0


DRY_SPEC = {"groups": [], "dense": {"features": 4, "bottom": [8], "top": [16, 8]}}


# ---------------------------------------------------------------- main


def int_list(s):
    if s is None or s == "all":
        return None
    return {int(x) for x in s.split(",") if x}


def wait_for(d, deadline):
    """Waits for d/meta.json; False if d failed or the deadline passed."""
    while True:
        if os.path.exists(os.path.join(d, ".failed")):
            log(f"peers: {d}: its bench failed; skipped")
            return False
        if os.path.exists(os.path.join(d, "meta.json")):
            return True
        if deadline and time.time() > deadline:
            log(f"peers: {d}: not written before the deadline; skipped")
            return False
        time.sleep(0.2)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("dump", nargs="?", help="one dump directory (recom bench --dump-inputs)")
    ap.add_argument("--dumps", help="comma-separated dump directories, taken in order")
    ap.add_argument("--tables", help="the tables arena (.npy); default: the first dump's tables.npy")
    ap.add_argument("--model", default="", help="model name for the JSON records")
    ap.add_argument("--json", help="append one JSON record per peer and batch to this file")
    ap.add_argument("--iters", type=int, default=50)
    ap.add_argument("--no-jax", action="store_true")
    ap.add_argument("--jax-batches", help="batches at which to run the JAX layer peer (default: all)")
    ap.add_argument("--spec", help="recom gen spec (JSON) whose dense part makes the end-to-end peers")
    ap.add_argument("--e2e-batches", help="batches of the end-to-end peers (default: all, with --spec)")
    ap.add_argument("--jax-e2e-batches", help="batches of the JAX end-to-end peer (default: all)")
    ap.add_argument("--weights", help="MLP weights, an .npz named by variable (default: drawn here)")
    ap.add_argument("--tf32", action="store_true", help="allow TF32 matrix products")
    ap.add_argument("--precisions", default="fp32,tf32,bf16", help="precisions of the end-to-end peers from host memory (fp32, tf32, bf16)")
    ap.add_argument("--no-model", action="store_true", help="no whole-model peers of a dump's dense part (dense.json)")
    ap.add_argument("--no-jax-host", action="store_true", help="no JAX end-to-end peers from host memory")
    ap.add_argument("--jax-host-precisions", default="fp32", help="precisions of the JAX peers from host memory (fp32, tf32, bf16; each is one more compilation per batch but fp32)")
    ap.add_argument("--inflight", default="2,4", help="batches in flight for the host end-to-end throughput peers")
    ap.add_argument("--gate", action="store_true", help="ask bench/sweep.sh for the GPU around timed sections")
    ap.add_argument("--deadline", type=float, default=0, help="UNIX time after which no new batch starts")
    ap.add_argument("--jax-margin", type=float, default=60, help="no JAX compilation closer than this to --deadline (s)")
    ap.add_argument("--dry-run", action="store_true", help="tiny synthetic model on the CPU (no GPU needed)")
    args = ap.parse_args(argv)
    args.jax_batches = int_list(args.jax_batches)
    args.e2e_batches = int_list(args.e2e_batches)
    args.jax_e2e_batches = int_list(args.jax_e2e_batches)
    args.precisions = [p for p in args.precisions.split(",") if p]
    for p in args.precisions:
        if p not in ("fp32", "tf32", "bf16"):
            ap.error(f"--precisions: unknown precision {p!r} (fp32, tf32, bf16)")
    args.jax_host_precisions = [p for p in args.jax_host_precisions.split(",") if p]
    for p in args.precisions + args.jax_host_precisions:
        if p not in ("fp32", "tf32", "bf16"):
            ap.error(f"unknown precision {p!r} (fp32, tf32, bf16)")
    args.inflight = int_list(args.inflight) or []

    spec = None
    if args.dry_run:
        tmp = tempfile.mkdtemp(prefix="peers-dry-")
        dumps = []
        for b in (8, 16):
            d = os.path.join(tmp, f"b{b}")
            make_dry_dump(d, batch=b)
            make_dry_chain(d, load_meta(d))
            dumps.append(d)
        for d in dumps[1:]:
            os.remove(os.path.join(d, "tables.npy"))  # as the sweep does: one arena for all batches
        args.model = args.model or "dry"
        args.iters = min(args.iters, 10)
        spec = DRY_SPEC
        args.jax_host_precisions = ["fp32", "tf32", "bf16"]  # every JAX path, where JAX is installed
    else:
        dumps = args.dumps.split(",") if args.dumps else [args.dump] if args.dump else []
        if not dumps:
            ap.error("give DUMP_DIR, --dumps or --dry-run")
        if args.spec:
            with open(args.spec) as f:
                spec = json.load(f)
            if not spec.get("dense"):
                log(f"peers: {args.spec} has no dense part: no end-to-end peers")
                spec = None

    import_torch()
    dev = "cpu" if args.dry_run or not torch.cuda.is_available() else "cuda"
    if dev == "cpu" and not args.dry_run:
        log("peers: no CUDA device: the peers run on the CPU (times are not comparable with the GPU's)")
    t0 = time.time()
    first = next((d for d in dumps if wait_for(d, args.deadline)), None)  # the first dump written
    if first is None:
        return 1
    tpath = args.tables or os.path.join(first, "tables.npy")
    tables_np = np.load(tpath)
    p = Peers(args, tables_np, dev)
    p.spec = spec
    log(f"peers: {args.model or first} on {dev}: {tables_np.nbytes / 1e9:.2f} GB of tables from {tpath} in {time.time() - t0:.1f} s")
    done = 0
    for d in dumps:
        if args.deadline and time.time() > args.deadline:
            log(f"peers: deadline passed; {d} and later skipped")
            break
        if not wait_for(d, args.deadline):
            continue
        try:
            p.run_dump(d)
            done += 1
        except Exception as e:  # noqa: BLE001  one bad batch must not lose the rest
            p.failures += 1
            log(f"peers: {d}: failed: {type(e).__name__}: {e}")
            if dev == "cuda":
                torch.cuda.empty_cache()
    log(f"peers: {done} of {len(dumps)} dumps done, {p.failures} failures")
    if args.dry_run:
        p.failures += dry_unsupported_checks()
    return 1 if p.failures or not done else 0


if __name__ == "__main__":
    sys.exit(main())
