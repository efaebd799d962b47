#!/usr/bin/env python3
"""The peers of recom's fused embedding layer, on the same tables and inputs.

    python3 bench/peers.py DUMP_DIR [--no-jax] [--iters N]

DUMP_DIR is what `recom bench MODEL --batch B --dump-inputs DUMP_DIR` wrote:
tables.npy (the tables arena, float32), meta.json (columns: kind, combiner,
rows, width, table_offset, out_offset, weighted; batch; sets) and per input
set s: ids_s.npy, splits_s.npy ([C, B+1] offsets into ids_s), weights_s.npy
and out_s.npy (recom's GPU output, [B, width]), so a new workload needs no
code here.

Peers (each checked against out_s.npy, then timed rotating over the sets):
  eager     PyTorch eager: one embedding_bag (F.embedding for one-id columns)
            per column, then one cat in output order
  graph     the same loop captured as one CUDA graph per set, replayed
  tbe       hand-fused, TBE-like: one embedding_bag over all tables of one
            width (the arena viewed as [rows, D], ids offset by hand), per
            width group, laid out as [B, C*D]
  jax       JAX jit: gather + segment_sum per column, concatenated

Combiners: unweighted mean and sum use embedding_bag's own modes; others
(weighted, sqrtn) use mode='sum' with per-sample weights pre-scaled on the
host (w / sum w for mean, w / sqrt(sum w^2) for sqrtn), which favours the
peers slightly. PyTorch peers are timed with CUDA events (median); JAX with
the wall clock around a call and block_until_ready (median).
"""
import json
import os
import sys
import time

os.environ.setdefault("XLA_PYTHON_CLIENT_PREALLOCATE", "false")
import numpy as np  # noqa: E402
import torch  # noqa: E402
import torch.nn.functional as F  # noqa: E402


def load(d):
    meta = json.load(open(os.path.join(d, "meta.json")))
    tables = np.load(os.path.join(d, "tables.npy"))
    sets = []
    for s in range(meta["sets"]):
        sets.append({k: np.load(os.path.join(d, f"{k}_{s}.npy")) for k in ("ids", "splits", "weights", "out")})
    return meta, tables, sets


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


def main():
    args = sys.argv[1:]
    d = args[0]
    use_jax = "--no-jax" not in args
    iters = int(args[args.index("--iters") + 1]) if "--iters" in args else 50
    dev = "cuda"
    t0 = time.time()
    meta, tables_np, sets = load(d)
    cols = meta["columns"]
    B, W, C = meta["batch"], meta["width"], len(cols)
    order = sorted(range(C), key=lambda c: cols[c]["out_offset"])
    tables = torch.from_numpy(tables_np).to(dev)
    views = [tables[c["table_offset"]:c["table_offset"] + c["rows"] * c["width"]].view(c["rows"], c["width"]) for c in cols]
    dsets = []
    for st in sets:
        sp = st["splits"]
        ids = torch.from_numpy(st["ids"]).to(dev)
        sw = scaled_weights(meta, st)
        swt = torch.from_numpy(sw).to(dev)
        per = []
        for c, col in enumerate(cols):
            a, b = int(sp[c, 0]), int(sp[c, -1])
            per.append((ids[a:b], torch.from_numpy(sp[c, :-1] - sp[c, 0]).to(dev), swt[a:b]))
        dsets.append({"per": per, "ids": ids, "sw": swt, "np": st, "swnp": sw})
    torch.cuda.synchronize()
    print(f"peers: {d}: {C} columns, batch {B}, width {W}, {len(sets)} sets, "
          f"{tables_np.nbytes / 1e9:.2f} GB of tables; loaded in {time.time() - t0:.1f} s", flush=True)

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
    contiguous = len(groups) == 1

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

    results = {}

    def check(name, outs):
        worst = 0.0
        for s, o in enumerate(outs):
            ref = sets[s]["out"]
            got = o.detach().cpu().numpy() if hasattr(o, "detach") else np.asarray(o)
            if got.shape != ref.shape:
                print(f"  {name}: shape {got.shape} != {ref.shape}")
                return False
            err = np.abs(got - ref) / (1e-5 + 1e-4 * np.abs(ref))
            worst = max(worst, float(err.max()))
        ok = worst <= 1.0
        print(f"  {name}: {'matches' if ok else 'DIFFERS FROM'} recom's output (worst |d|/(1e-5+1e-4|ref|) = {worst:.3g})", flush=True)
        return ok

    def time_torch(name, fn, n):
        for k in range(3):
            fn(k % len(dsets))
        torch.cuda.synchronize()
        s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        ts = []
        for k in range(n):
            s.record()
            fn(k % len(dsets))
            e.record()
            e.synchronize()
            ts.append(s.elapsed_time(e) * 1e3)
        med = float(np.median(ts))
        results[name] = med
        print(f"PEER {name} median_us={med:.1f} min_us={min(ts):.1f} n={n}", flush=True)

    check("eager", [eager(ds) for ds in dsets])
    time_torch("eager", lambda k: eager(dsets[k]), max(10, iters // 5))

    graphs, gouts = [], []
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        for ds in dsets:
            eager(ds)
    torch.cuda.current_stream().wait_stream(side)
    for ds in dsets:
        g = torch.cuda.CUDAGraph()
        with torch.cuda.graph(g):
            o = eager(ds)
        graphs.append(g)
        gouts.append(o)
    for g in graphs:
        g.replay()
    torch.cuda.synchronize()
    check("graph", gouts)
    time_torch("graph", lambda k: graphs[k].replay(), iters)

    check("tbe", [tbe(gl) for gl in tbe_sets])
    time_torch("tbe", lambda k: tbe(tbe_sets[k]), iters * 2)

    if use_jax:
        try:
            import jax
            import jax.numpy as jnp
            jt = jax.device_put(tables_np)
            jsets = []
            for ds in dsets:
                st = ds["np"]
                sp = st["splits"]
                args_ = []
                for c in order:
                    a, b = sp[c, 0], sp[c, -1]
                    seg = np.repeat(np.arange(B, dtype=np.int32), np.diff(sp[c]))
                    args_.append((jnp.asarray(st["ids"][a:b].astype(np.int32)), jnp.asarray(seg), jnp.asarray(ds["swnp"][a:b])))
                jsets.append(args_)
            meta_o = [(cols[c]["table_offset"], cols[c]["rows"], cols[c]["width"]) for c in order]

            @jax.jit
            def layer(t, args_):
                outs = []
                for (off, rows, width), (i, seg, w) in zip(meta_o, args_):
                    tab = jax.lax.dynamic_slice(t, (off,), (rows * width,)).reshape(rows, width)
                    outs.append(jax.ops.segment_sum(tab[i] * w[:, None], seg, num_segments=B))
                return jnp.concatenate(outs, axis=1)

            t1 = time.time()
            jouts = [layer(jt, a).block_until_ready() for a in jsets]
            print(f"  jax: compiled in {time.time() - t1:.1f} s", flush=True)
            check("jax", jouts)
            ts = []
            for k in range(max(10, iters // 5)):
                t2 = time.perf_counter()
                layer(jt, jsets[k % len(jsets)]).block_until_ready()
                ts.append((time.perf_counter() - t2) * 1e6)
            results["jax"] = float(np.median(ts[3:] if len(ts) > 6 else ts))
            print(f"PEER jax median_us={results['jax']:.1f} min_us={min(ts):.1f} n={len(ts)} (wall clock)", flush=True)
        except Exception as e:  # keep the torch numbers when JAX fails
            print(f"  jax: failed: {type(e).__name__}: {e}", flush=True)
    print("PEERS " + " ".join(f"{k}_us={v:.1f}" for k, v in results.items()), flush=True)


if __name__ == "__main__":
    main()
