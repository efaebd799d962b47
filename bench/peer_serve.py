#!/usr/bin/env python3
"""recom serve's load against a peer served in process (issue #20).

    python3 bench/peer_serve.py --dump DIR [--spec E.spec.json] [--model E]
            [--backend torch|jax|numpy] [--precision fp32|tf32|bf16]
            [--max-p99 10ms] [--rates 200] [--duration 8s] [--search-steps 4]
            [--bodies 128] [--min-rows 1] [--max-rows 64] [--seed 1]
            [--max-batch 256] [--batch-timeout 0] [--inflight 4]
            [--max-queue 4096] [--warm-duration 2s] [--json OUT.jsonl]
    python3 bench/peer_serve.py --dry-run      # numpy, a tiny synthetic model
    python3 bench/peer_serve.py --dry-run --dry-chain  # the same with a dumped dense part
    python3 bench/peer_serve.py --self-test    # no numpy needed

The peer is bench/peers.py's whole model from host memory (the TBE-like
embedding layer, one embedding_bag per table width over the tables arena,
then the MLP: cuBLAS in PyTorch; or one jit in JAX), on the inputs of a
`recom bench --dump-inputs DIR` dump (its tables, and per row the columns'
ids and weights) with the MLP of --spec (peers.py's weights); or, without
--spec, any model's dense part as the dump has it (dense.json, written by
`recom bench --e2e --dump-inputs`, as for a real model such as the taxi
export: the session's dense layers and host steps after the graph, computed
by peers.py's chain_fn, fp32, TF32 with --precision tf32 on PyTorch; its
dense inputs the dump's), checked against a float64 forward of the same
chain which is itself checked against recom's outputs of those rows (rtol
1e-4). It is put behind the same load as `recom loadtest` puts on `recom
serve`:

  * requests: --bodies bodies cycled in order, body i of rows drawn exactly
    as recom loadtest draws them (Go's math/rand/v2 PCG seeded (--seed,
    0x10ad), rows = min + IntN(max - min + 1)), each the first rows of
    dump set i mod sets (its per-row inputs prepared beforehand, as the
    load generator's bodies are);
  * arrivals: open loop at a constant rate (request k at start + k/rate),
    for --duration; a request's latency runs from its scheduled arrival to
    its predictions back in host memory;
  * a dynamic batcher as recom serve's (serve.Batcher): a batch starts with
    the first waiting request, takes the requests that arrive within
    --batch-timeout while they fit in --max-batch rows (while no batch is
    in flight it goes at once with the requests already waiting), and is
    handed to one of --inflight slots; while every slot is busy it goes on
    filling;
    more than --max-queue waiting requests are refused;
  * a batch: its requests' inputs concatenated on the host into pinned
    staging buffers (the slot's own), copied to the device with
    non-blocking copies on the slot's stream, the model, the predictions
    copied back into pinned memory; the slot is free when they are there;
  * the search: as `recom loadtest --max-p99`: from the first rate,
    doubling until a rate misses (p99 above the bound or a request
    refused), then --search-steps bisections; where the first rate
    already misses, halving until one meets, then bisecting (recom
    loadtest reports none there: this can only raise the peer's figure).

Measured in its steady state, as recom serve is (it runs a batch of every
allowed size before it reports ready): before the first window a batch of
every size from 1 to --max-batch rows, made from the bodies as the load
makes its batches, runs through the load's path on every slot (PyTorch:
each stream's cuBLAS workspace and kernels, the kernels' lazy loading, the
caching allocator's blocks per stream; JAX: every padded shape, the
predictions cut to the batch's rows on the host so that no eager slice is
compiled per batch size under the load); then what setup made is frozen
out of Python's garbage collector (a full collection walks the
frameworks' objects: tens of ms; the collector stays on for what the load
makes); then an unmeasured window of --warm-duration at the first rate
(its SERVE_WARMUP line printed). Each window also reports max_gap_ms, the
longest the loop went without looking at the clock, max_submit_ms, the
longest host time of one batch's submission, and gc_max_ms, the longest
collection: a host-side stall (a compile, a synchronizing call, the
collector) shows there, a device-side one only in the latencies.

Everything runs on one thread polling the clock and the slots' events (no
GIL contention between a load generator and the server).

Output, one line per rate run and one for the rate found, KEY=value pairs
as bench/e2e_records.py reads them:

  SERVE system=serve_torch_fp32 model=E rate=400 requests=3200 answered=3200
        success=1 answers_per_s=399.8 rows_per_s=13000 p50_ms=.. p99_ms=..
        p999_ms=.. max_ms=.. mean_batch_rows=.. max_gap_ms=.. max_submit_ms=..
        gc_max_ms=..
  SERVE_MAX system=serve_torch_fp32 model=E max_p99_ms=10 rate=.. rows_per_s=..
        p50_ms=.. p99_ms=..

(and first a SERVE_WARMUP line as SERVE's for the unmeasured window), and
with --json one JSON object per line ("kind": "serve", "serve_max" or
"serve_warmup").

--dry-run builds peers.py's tiny synthetic dump and runs the numpy backend
(the model computed on the host, checked against peers.py's float64
reference) through a short search; with --dry-chain the dump also gets
peers.py's dumped dense part (a wide & deep chain with the taxi Estimator's
classifier head, its outputs computed by hand) and the peer serves that. --self-test checks the parts that need
no numpy: the row draws against Go's, the batcher's rules, the search (up
and down) on a simulated backend and clock, and the warm-up's batches
against a simulated backend that stalls on each new batch size.
"""
import argparse
import collections
import contextlib
import gc
import json
import math
import os
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))

# ---------------------------------------------------------------- Go's PCG

M64 = (1 << 64) - 1


class PCG:
    """Go's math/rand/v2 PCG (128-bit LCG, DXSM output) and Rand.IntN."""

    MUL = (2549297995355413924 << 64) | 4865540595714422341
    INC = (6364136223846793005 << 64) | 1442695040888963407

    def __init__(self, seed1, seed2):
        self.state = ((seed1 & M64) << 64) | (seed2 & M64)

    def uint64(self):
        self.state = (self.state * self.MUL + self.INC) & ((1 << 128) - 1)
        hi, lo = self.state >> 64, self.state & M64
        hi ^= hi >> 32
        hi = (hi * 0xda942042e4dd58b5) & M64
        hi ^= hi >> 48
        return (hi * (lo | 1)) & M64

    def intn(self, n):
        if n <= 0:
            raise ValueError("intn: n must be positive")
        if n & (n - 1) == 0:
            return self.uint64() & (n - 1)
        prod = self.uint64() * n
        hi, lo = prod >> 64, prod & M64
        if lo < n:
            thresh = ((1 << 64) - n) % n
            while lo < thresh:
                prod = self.uint64() * n
                hi, lo = prod >> 64, prod & M64
        return hi


def draw_rows(bodies, min_rows, max_rows, seed):
    """The rows of recom loadtest's bodies (cmd/recom/loadtest.go)."""
    rng = PCG(seed, 0x10AD)
    return [min_rows + rng.intn(max_rows - min_rows + 1) for _ in range(bodies)]


# ---------------------------------------------------------------- the load


class Options:
    def __init__(self, max_batch=256, timeout=500e-6, inflight=4, max_queue=4096):
        self.max_batch, self.timeout, self.inflight, self.max_queue = max_batch, timeout, inflight, max_queue


def quantile(sorted_lat, q):
    """recom loadtest's: the ceil(q n)-th smallest."""
    if not sorted_lat:
        return float("nan")
    i = int(math.ceil(q * len(sorted_lat))) - 1
    return sorted_lat[max(i, 0)]


def run_rate(backend, rows, rate, duration, opts, clock=time.perf_counter, idle=None):
    """One rate for duration seconds. backend.submit(bodies) -> handle with
    done() (polled) gives a batch's predictions; rows[i] is body i's rows.
    Returns the run's numbers (latencies in ms)."""
    n = max(1, int(round(rate * duration)))
    nb = len(rows)
    lat = []
    refused, answered_rows = 0, 0
    queue = collections.deque()  # request ids waiting
    busy = []  # (handle, [request ids])
    batch, batch_rows, deadline, held = None, 0, 0.0, False
    batches, batch_row_sum = 0, 0
    t0 = clock() + 1e-3
    arrival = lambda k: t0 + k / rate  # noqa: E731
    nxt = 0
    finished = 0
    last = t0
    prev, max_gap, max_submit = None, 0.0, 0.0
    while finished < n:
        now = clock()
        if prev is not None:
            max_gap = max(max_gap, now - prev)
        prev = now
        while nxt < n and arrival(nxt) <= now:
            if len(queue) >= opts.max_queue:
                refused += 1
                finished += 1
            else:
                queue.append(nxt)
            nxt += 1
        if busy:
            still = []
            for h, ids in busy:
                if h.done():
                    t = clock()
                    last = t
                    for k in ids:
                        lat.append((t - arrival(k)) * 1e3)
                        answered_rows += rows[k % nb]
                    finished += len(ids)
                else:
                    still.append((h, ids))
            busy = still
        if batch is None and queue:
            k = queue.popleft()
            batch, batch_rows, deadline, held = [k], rows[k % nb], now + opts.timeout, False
        if batch is not None:
            while queue and not held and batch_rows < opts.max_batch:
                r = rows[queue[0] % nb]
                if batch_rows + r > opts.max_batch:
                    held = True  # waits for the next batch
                    break
                batch.append(queue.popleft())
                batch_rows += r
            # As serve.Batcher since serve3: with no batch in flight the batch
            # goes at once with what is waiting (no queue delay on an idle GPU).
            ready = held or batch_rows >= opts.max_batch or now >= deadline or not busy
            if ready and len(busy) < opts.inflight:
                busy.append((backend.submit([k % nb for k in batch]), batch))
                max_submit = max(max_submit, clock() - now)
                batches += 1
                batch_row_sum += batch_rows
                batch = None
                continue
        if idle is not None:
            idle()
    lat.sort()
    wall = max(last - t0, 1e-9)
    answered = len(lat)
    res = {"rate": round(rate), "requests": n, "answered": answered, "success": answered / n,
           "answers_per_s": round(answered / wall, 1), "rows_per_s": round(answered_rows / wall),
           "p50_ms": round(quantile(lat, 0.5), 3), "p99_ms": round(quantile(lat, 0.99), 3),
           "p999_ms": round(quantile(lat, 0.999), 3), "max_ms": round(quantile(lat, 1.0), 3),
           "mean_batch_rows": round(batch_row_sum / max(batches, 1), 1),
           "max_gap_ms": round(max_gap * 1e3, 3), "max_submit_ms": round(max_submit * 1e3, 3)}
    return res


def search(run, first_rate, max_p99_ms, steps, down=10):
    """recom loadtest --max-p99's search: doubling, then bisecting. One
    addition: where the first rate already misses, recom loadtest stops
    (none found); this halves the rate (at most down times, not below 1/s)
    until one meets the bound, then bisects between it and the lowest rate
    that missed, so that a peer slower than the first rate gets its rate,
    not 0. Every rate reported met the bound in its own window; the
    addition can only raise the peer's figure over recom loadtest's rule,
    never recom's ratio over it."""
    def meets(r):
        return r["success"] == 1 and r["p99_ms"] <= max_p99_ms
    best, lo, hi = None, 0.0, 0.0
    rate = first_rate
    while hi == 0:
        r = run(rate)
        if not meets(r):
            hi = rate
            break
        best, lo = r, rate
        if rate > 1e7:
            return best
        rate *= 2
    while lo == 0 and down > 0 and hi / 2 >= 1:
        down -= 1
        rate = round(hi / 2)
        r = run(rate)
        if meets(r):
            best, lo = r, rate
        else:
            hi = rate
    for _ in range(steps):
        if lo == 0:
            break
        mid = round((lo + hi) / 2)
        if mid <= lo or mid >= hi:
            break
        r = run(mid)
        if meets(r):
            best, lo = r, mid
        else:
            hi = mid
    return best


def warm_batches(rows, max_batch):
    """The warm-up's batches: one of every size from 1 to max_batch rows
    (the largest first: the allocators then hold the biggest blocks), each
    as the load's batches are made, bodies in order (cycling on from the
    previous batch's last), the last one cut to fit: a list of [(body,
    rows)] where rows < rows[body] means the body's first rows."""
    nb, k, out = len(rows), 0, []
    for size in [max_batch] + list(range(1, max_batch)):
        b, total = [], 0
        while total < size:
            r = min(rows[k % nb], size - total)
            b.append((k % nb, r))
            total += r
            k += 1
        out.append(b)
    return out


def kv_line(tag, rec):
    return tag + " " + " ".join(f"{k}={v}" for k, v in rec.items() if k != "kind")


# ---------------------------------------------------------------- the model's inputs


def load_peers():
    sys.path.insert(0, HERE)
    import peers  # noqa: E402  bench/peers.py: the dumps, the MLP's weights, the references
    return peers


class Model:
    """A dump's model: per width group (columns of one table width, in output
    order) the rows' bags in row-major order (row b: its bag of each column
    of the group), so that a request's inputs are contiguous slices and a
    batch's are their concatenation."""

    def __init__(self, np, peers, dump, spec, weights_file=None, tables=None):
        """spec: a recom gen spec with a dense part (its MLP, peers.py's
        weights), or None for the dump's own dense part (dense.json, written
        by recom bench --e2e --dump-inputs: any model's dense layers and
        host steps, computed by peers.py's chain_fn)."""
        self.np, self.peers = np, peers
        meta = peers.load_meta(dump)
        sets = peers.load_sets(dump, meta)
        self.meta, self.B, self.W = meta, meta["batch"], meta["width"]
        cols = meta["columns"]
        order = sorted(range(len(cols)), key=lambda c: cols[c]["out_offset"])
        self.groups = {}
        for c in order:
            self.groups.setdefault(cols[c]["width"], []).append(c)
        for D, cs in self.groups.items():
            for c in cs:
                if cols[c]["table_offset"] % D:
                    raise ValueError(f"column {c}: table offset {cols[c]['table_offset']} is not a multiple of its width {D}")
        self.tables = tables if tables is not None else np.load(os.path.join(dump, "tables.npy"))
        self.chain, xs = None, None
        if spec is None:
            self.chain = peers.load_chain(dump)
            if self.chain is None:
                raise ValueError(f"{dump} has no dense.json (dump it with recom bench --e2e --dump-inputs), and no --spec was given")
            why = peers.chain_unsupported(self.chain) or ("" if self.chain["sets_data"] else "dense.json has no sets")
            if why:
                raise ValueError(f"{dump}: the peer cannot compute the dumped dense part: {why}")
            # Per set the dense inputs (feeds, or values the session computes
            # on the host before the graph), concatenated in plan order, as
            # peers.py's model peers take them.
            xs = [np.concatenate([sd[0][i["name"]].reshape(self.B, -1).astype(np.float32) for i in self.chain["inputs"]], 1)
                  if self.chain["inputs"] else np.zeros((self.B, 0), np.float32) for sd in self.chain["sets_data"]]
            sets = sets[:len(xs)]
            self.ref_fn, self.ref_consts = peers.chain_fn(self.chain, peers.ChainOps("numpy"))
            self.bottom = self.top = self.ws = None
            nf = xs[0].shape[1]
        else:
            self.bottom, self.top, self.ws = peers.mlp_weights(spec, self.W, weights_file)
            nf = spec["dense"]["features"]
        rng = np.random.default_rng(1000 + self.B)
        self.modes, self.idx = {}, {}
        for D, cs in self.groups.items():
            ms = {peers.native_mode(cols[c]) for c in cs}
            self.modes[D] = ms.pop() if len(ms) == 1 and None not in ms else None
            self.idx[D] = np.concatenate([np.arange(cols[c]["out_offset"], cols[c]["out_offset"] + D) for c in cs])
        self.sets = []
        for st in sets:
            sw = peers.scaled_weights(meta, st)
            sp = st["splits"]
            per = {}
            for D, cs in self.groups.items():
                starts = np.stack([sp[c, :-1] for c in cs], 1)  # [B, n]
                lens = np.stack([np.diff(sp[c]) for c in cs], 1)
                flat_l = lens.ravel()
                total = int(flat_l.sum())
                pos = np.cumsum(flat_l) - flat_l
                src = np.repeat(starts.ravel() - pos, flat_l) + np.arange(total)
                base = np.repeat(np.tile(np.array([cols[c]["table_offset"] // D for c in cs]), self.B), flat_l)
                row_end = np.concatenate([[0], np.cumsum(lens.sum(1))])
                per[D] = (st["ids"][src] + base, lens.astype(np.int64), sw[src].astype(np.float32), row_end)
            dense = st.get("dense_features") if xs is None else xs[len(self.sets)]
            if dense is None:
                dense = rng.standard_normal((self.B, nf)).astype(np.float32)
            theirs = None
            if self.chain is not None:  # recom's own outputs of the set, [B, out_cols]
                theirs = peers.flat_outputs(self.chain["sets_data"][len(self.sets)][1], self.B, np).astype(np.float64)
            self.sets.append({"per": per, "dense": dense, "out": st["out"], "theirs": theirs})
        self.out_cols = 1 if self.chain is None else self.sets[0]["theirs"].shape[1]

    def request(self, i, rows):
        """Body i's inputs (rows rows of set i mod sets): per group (ids,
        bag lengths [rows, n], weights), and the dense features."""
        s = self.sets[i % len(self.sets)]
        if rows > self.B:
            raise ValueError(f"a request of {rows} rows; the dump has {self.B} per set")
        per = {}
        for D, (ids, lens, w, row_end) in s["per"].items():
            a, b = 0, int(row_end[rows])
            per[D] = (ids[a:b], lens[:rows], w[a:b])
        return {"rows": rows, "per": per, "dense": s["dense"][:rows], "set": i % len(self.sets)}

    def reference(self, peers, reqs):
        """float64 predictions of a batch of requests (peers.py's reference
        over recom's layer output)."""
        np = self.np
        emb = np.concatenate([self.sets[r["set"]]["out"][:r["rows"]] for r in reqs])
        x = np.concatenate([r["dense"] for r in reqs])
        if self.chain is not None:
            outs = self.ref_fn(self.ref_consts, emb.astype(np.float64), x.astype(np.float64))
            return peers.flat_outputs(outs, len(emb), np)
        return peers.reference_mlp(self.bottom, self.top, self.ws, emb, x)

    def recom_outputs(self, reqs):
        """recom's own outputs of a batch's rows (the dump's dense part's
        outputs), or None for a spec's model (whose dump has none)."""
        if self.chain is None:
            return None
        return self.np.concatenate([self.sets[r["set"]]["theirs"][:r["rows"]] for r in reqs])


def pack(np, model, reqs, out=None):
    """A batch's host inputs: per group ids, offsets (include_last_offset
    form: bags in row-major order) and weights, and the dense features;
    into the arrays of out (a slot's pinned staging) when given."""
    R = sum(r["rows"] for r in reqs)
    res = {}
    for D, cs in model.groups.items():
        ids = [r["per"][D][0] for r in reqs]
        L = sum(len(x) for x in ids)
        nbag = R * len(cs)
        if out is None:
            bi, bo, bw = np.empty(L, np.int64), np.empty(nbag + 1, np.int64), np.empty(L, np.float32)
        else:
            bi, bo, bw = (a[:n] for a, n in zip(out["per"][D], (L, nbag + 1, L)))
        np.concatenate(ids, out=bi)
        np.concatenate([r["per"][D][2] for r in reqs], out=bw)
        bo[0] = 0
        np.cumsum(np.concatenate([r["per"][D][1].ravel() for r in reqs]), out=bo[1:])
        res[D] = (bi, bo, bw)
    x = out["dense"][:R] if out is not None else np.empty((R, model.sets[0]["dense"].shape[1]), np.float32)
    np.concatenate([r["dense"] for r in reqs], out=x)
    return R, res, x


# ---------------------------------------------------------------- backends


class Done:
    def done(self):
        return True


class NumpyBackend:
    """The model on the host in numpy, synchronously (the dry run's)."""

    name = "numpy"

    def __init__(self, np, model, bodies):
        self.np, self.m, self.bodies = np, model, bodies
        self.last = None

    def forward(self, reqs):
        np, m = self.np, self.m
        R, per, x = pack(np, m, reqs)
        emb = np.zeros((R, m.W), np.float32)
        for D, cs in m.groups.items():
            ids, off, w = per[D]
            arena = m.tables.reshape(-1, D)
            bag = np.repeat(np.arange(len(off) - 1), np.diff(off))
            acc = np.zeros((len(off) - 1, D), np.float32)
            mode = m.modes[D]
            vals = arena[ids] if mode else arena[ids] * w[:, None]
            np.add.at(acc, bag, vals)
            if mode == "mean":
                cnt = np.maximum(np.diff(off), 1)[:, None]
                acc /= cnt
            emb[:, m.idx[D]] = acc.reshape(R, len(cs) * D)
        if m.chain is not None:
            return m.peers.flat_outputs(m.ref_fn(m.ref_consts, emb, x), R, np).astype(np.float32)
        h = x
        for sc, _, _, relu in m.bottom:
            k, b = m.ws[sc]
            h = h @ k + b
            h = np.maximum(h, 0) if relu else h
        h = np.concatenate([emb, h], 1)
        for sc, _, _, relu in m.top:
            k, b = m.ws[sc]
            h = h @ k + b
            h = np.maximum(h, 0) if relu else h
        return 1 / (1 + np.exp(-h))

    def submit(self, ids):
        return self.submit_reqs([self.bodies[i] for i in ids])

    def submit_reqs(self, reqs):
        self.last = self.forward(reqs)
        return Done()

    def warm(self, batches):
        for reqs in batches:
            self.submit_reqs(reqs)
        return 1


class TorchBackend:
    """PyTorch on the GPU: per slot a stream, pinned staging and device
    buffers sized for --max-batch rows; the TBE-like layer (one
    embedding_bag per width group over the arena) and the MLP (cuBLAS),
    the predictions back into pinned memory, a CUDA event polled. With dev
    "cpu" (the dry run's check of this code where torch has no GPU): the
    same ops on the CPU, synchronously, with no streams or pinned memory."""

    def __init__(self, np, model, bodies, opts, precision, dev="cuda"):
        import torch
        import torch.nn.functional as F
        self.np, self.torch, self.F, self.m, self.bodies = np, torch, F, model, bodies
        self.name = f"torch_{precision}"
        self.dev, cuda = dev, dev == "cuda"
        pinned = (lambda t: t.pin_memory()) if cuda else (lambda t: t)  # noqa: E731
        torch.backends.cuda.matmul.allow_tf32 = precision == "tf32"
        self.dt = torch.bfloat16 if precision == "bf16" else torch.float32
        tables = torch.from_numpy(model.tables).to(dev)
        self.arena = {D: tables.view(-1, D) for D in model.groups}
        self.identity = len(model.groups) == 1 and bool((next(iter(model.idx.values())) == np.arange(model.W)).all())
        if model.chain is not None:
            # The dumped dense part (peers.py's chain_fn): fp32, TF32 as --precision says.
            if precision == "bf16":
                raise ValueError("a dump's dense part runs in fp32 or tf32, not bf16")
            model.peers.import_torch()
            self.cfn, self.cc = model.peers.chain_fn(model.chain, model.peers.ChainOps("torch", dev))
        else:
            self.w = {k: (torch.from_numpy(a).to(dev, self.dt), torch.from_numpy(b).to(dev, self.dt)) for k, (a, b) in model.ws.items()}
        self.idx = {D: torch.from_numpy(i).to(dev) for D, i in model.idx.items()}
        maxb = opts.max_batch
        # The most ids a batch of maxb rows can hold: the dump's densest rows.
        cap = {}
        for D in model.groups:
            per_row = max(int(np.diff(s["per"][D][3]).max()) for s in model.sets)
            cap[D] = per_row * maxb
        nf = model.sets[0]["dense"].shape[1]
        self.slots = []
        for _ in range(opts.inflight):
            sl = {"stream": torch.cuda.Stream(), "event": torch.cuda.Event()} if cuda else {"stream": None, "event": CPUEvent()}
            pin = {D: (pinned(torch.empty(cap[D], dtype=torch.int64)), pinned(torch.empty(maxb * len(cs) + 1, dtype=torch.int64)),
                       pinned(torch.empty(cap[D], dtype=torch.float32))) for D, cs in model.groups.items()}
            sl["pin"] = pin
            sl["np"] = {"per": {D: tuple(t.numpy() for t in p) for D, p in pin.items()}}
            sl["xpin"] = pinned(torch.empty((maxb, nf), dtype=torch.float32))
            sl["np"]["dense"] = sl["xpin"].numpy()
            sl["dev"] = {D: tuple(torch.empty(t.shape, dtype=t.dtype, device=dev) for t in p) for D, p in pin.items()}
            sl["xdev"] = torch.empty((maxb, nf), dtype=torch.float32, device=dev)
            sl["ypin"] = pinned(torch.empty((maxb, model.out_cols), dtype=torch.float32))
            sl["busy"] = False
            self.slots.append(sl)
        self.last = None
        if cuda:
            torch.cuda.synchronize()  # the tables and weights are on the device before any slot's stream reads them

    def forward(self, sl, R, per):
        torch, F, m = self.torch, self.F, self.m
        outs = []
        for D, cs in m.groups.items():
            L, nb = per[D]
            di, do, dw = sl["dev"][D]
            mode = m.modes[D]
            o = F.embedding_bag(di[:L], self.arena[D], do[:nb + 1], mode=mode or "sum",
                                per_sample_weights=None if mode else dw[:L], include_last_offset=True)
            outs.append((D, o.view(R, len(cs) * D)))
        if self.identity:
            emb = outs[0][1]
        else:
            emb = torch.empty(R, m.W, device=self.dev)
            for D, o in outs:
                emb.index_copy_(1, self.idx[D], o)
        if m.chain is not None:
            return m.peers.flat_outputs(self.cfn(self.cc, emb, sl["xdev"][:R]), R, m.peers.torch)
        h = sl["xdev"][:R].to(self.dt)
        for sc, _, _, relu in m.bottom:
            k, b = self.w[sc]
            h = torch.addmm(b, h, k)
            h = torch.relu(h) if relu else h
        h = torch.cat([emb.to(self.dt), h], 1)
        for sc, _, _, relu in m.top:
            k, b = self.w[sc]
            h = torch.addmm(b, h, k)
            h = torch.relu(h) if relu else h
        return torch.sigmoid(h.float())

    def submit(self, ids):
        sl = next(s for s in self.slots if not s["busy"] or s["event"].query())
        return self.submit_reqs([self.bodies[i] for i in ids], sl)

    def warm(self, batches):
        """Every batch of batches (one of every size) on every slot, through
        submit's path, each waited for: before the load, every shape each
        slot's stream will see has run once (cuBLAS's kernels and per
        stream workspace, the kernels' lazy loading, the caching
        allocator's blocks per stream, the first calls' host paths).
        Returns the slots warmed."""
        for sl in self.slots:
            for reqs in batches:
                self.submit_reqs(reqs, sl).result()
        if self.dev == "cuda":
            self.torch.cuda.synchronize()
        return len(self.slots)

    def submit_reqs(self, reqs, sl):
        R, per, _ = pack(self.np, self.m, reqs, sl["np"])
        sizes = {D: (len(p[0]), len(p[1]) - 1) for D, p in per.items()}
        torch = self.torch
        with torch.cuda.stream(sl["stream"]) if sl["stream"] is not None else contextlib.nullcontext():
            for D, (L, nb) in sizes.items():
                (pi, po, pw), (di, do, dw) = sl["pin"][D], sl["dev"][D]
                di[:L].copy_(pi[:L], non_blocking=True)
                do[:nb + 1].copy_(po[:nb + 1], non_blocking=True)
                dw[:L].copy_(pw[:L], non_blocking=True)
            sl["xdev"][:R].copy_(sl["xpin"][:R], non_blocking=True)
            y = self.forward(sl, R, sizes)
            sl["ypin"][:R].copy_(y, non_blocking=True)
            sl["event"].record(sl["stream"])
        sl["busy"] = True
        h = Handle(sl, R)
        self.last = h
        return h


class CPUEvent:
    """A CUDA event's part that TorchBackend uses, for dev "cpu" (the work
    is done when submit returns)."""

    def record(self, stream):
        pass

    def query(self):
        return True

    def synchronize(self):
        pass


class Handle:
    def __init__(self, sl, R):
        self.sl, self.R = sl, R

    def done(self):
        return self.sl["event"].query()

    def result(self):
        self.sl["event"].synchronize()
        return self.sl["ypin"][:self.R].numpy().copy()


class JaxBackend:
    """JAX on the GPU: the layer (gather and segment_sum per width group)
    and the MLP as one jit, batches padded to powers of two (rows, and ids
    to the most a batch of that many rows can hold) so that a few shapes
    are compiled, all before the load; inputs copied with device_put,
    dispatched asynchronously, done when the predictions are back on the
    host (polled with is_ready where JAX has it)."""

    def __init__(self, np, model, bodies, opts, precision):
        import jax
        import jax.numpy as jnp
        self.np, self.jax, self.jnp, self.m, self.bodies = np, jax, jnp, model, bodies
        self.name = f"jax_{precision}"
        jax.config.update("jax_default_matmul_precision", "highest" if precision == "fp32" else "tensorfloat32")
        self.dt = jnp.bfloat16 if precision == "bf16" else jnp.float32
        tables = jax.device_put(model.tables)
        self.arena = {D: tables.reshape(-1, D) for D in model.groups}
        chain = None
        if model.chain is not None:
            if precision != "fp32":
                raise ValueError("a dump's dense part runs in fp32 on JAX")
            chain, self.w = model.peers.chain_fn(model.chain, model.peers.ChainOps("jax"))
            flat = model.peers.flat_outputs
        else:
            self.w = {k: (jnp.asarray(a, self.dt), jnp.asarray(b, self.dt)) for k, (a, b) in model.ws.items()}
        self.per_row = {D: max(int(np.diff(s["per"][D][3]).max()) for s in model.sets) for D in model.groups}
        groups = [(D, len(cs), model.modes[D], model.idx[D]) for D, cs in model.groups.items()]
        bottom, top, W = model.bottom, model.top, model.W
        dt = self.dt

        def fwd(arena, w, per, x, R):
            outs = []
            for (D, n, mode, idx), (ids, bag, wt) in zip(groups, per):
                v = arena[D][ids]
                if mode is None:
                    v = v * wt[:, None]
                acc = jax.ops.segment_sum(v, bag, num_segments=R * n + 1)[:R * n]
                if mode == "mean":
                    cnt = jax.ops.segment_sum(jnp.ones_like(wt), bag, num_segments=R * n + 1)[:R * n]
                    acc = acc / jnp.maximum(cnt, 1)[:, None]
                outs.append((idx, acc.reshape(R, n * D)))
            emb = jnp.zeros((R, W), jnp.float32)
            for idx, o in outs:
                emb = emb.at[:, idx].set(o)
            if chain is not None:
                return flat(chain(w, emb, x), R, jnp)
            h = x.astype(dt)
            for sc, _, _, relu in bottom:
                k, b = w[sc]
                h = h @ k + b
                h = jnp.maximum(h, 0) if relu else h
            h = jnp.concatenate([emb.astype(dt), h], 1)
            for sc, _, _, relu in top:
                k, b = w[sc]
                h = h @ k + b
                h = jnp.maximum(h, 0) if relu else h
            return jax.nn.sigmoid(h.astype(jnp.float32))

        self.fn = jax.jit(fwd, static_argnums=(4,))
        self.sizes = []
        s = 1
        while s < opts.max_batch:
            self.sizes.append(s)
            s *= 2
        self.sizes.append(opts.max_batch)
        self.last = None
        for s in self.sizes:  # every shape compiled before the load
            self.run_padded([model.request(0, min(s, model.B))], s).block_until_ready()

    def warm(self, batches):
        """Every batch of batches (one of every size) through submit's path,
        each waited for (its predictions back on the host): every padded
        shape's executable, the transfers' first uses. Returns 1 (one
        stream)."""
        for reqs in batches:
            self.submit_reqs(reqs).result()
        return 1

    def run_padded(self, reqs, size):
        np, m = self.np, self.m
        R, per, x = pack(np, m, reqs)
        args = []
        for D, cs in m.groups.items():
            ids, off, w = per[D]
            n = len(cs)
            L = self.per_row[D] * size
            pi = np.zeros(L, np.int32)
            pw = np.zeros(L, np.float32)
            pb = np.full(L, size * n, np.int32)  # padding ids go to a dropped segment
            pi[:len(ids)] = ids
            pw[:len(w)] = w
            pb[:len(ids)] = np.repeat(np.arange(len(off) - 1, dtype=np.int32), np.diff(off))
            args.append((self.jax.device_put(pi), self.jax.device_put(pb), self.jax.device_put(pw)))
        px = np.zeros((size, x.shape[1]), np.float32)
        px[:R] = x
        # The padded predictions [size, out]: cut to the batch's R rows on
        # the host (a slice of the device array would be an op of its own,
        # compiled anew for every (size, R) the load brings).
        return self.fn(self.arena, self.w, args, self.jax.device_put(px), size)

    def submit(self, ids):
        return self.submit_reqs([self.bodies[i] for i in ids])

    def submit_reqs(self, reqs):
        R = sum(r["rows"] for r in reqs)
        size = next(s for s in self.sizes if s >= R)
        y = self.run_padded(reqs, size)
        try:
            y.copy_to_host_async()
        except AttributeError:
            pass
        h = JaxHandle(self.np, y, R)
        self.last = h
        return h


class JaxHandle:
    """A JAX batch: done when its predictions are in host memory (the
    computation ready, then the host copy started at submit taken)."""

    def __init__(self, np, y, R):
        self.np, self.y, self.R, self.host = np, y, R, None

    def done(self):
        if self.host is not None:
            return True
        ready = getattr(self.y, "is_ready", None)
        if ready is not None and not ready():
            return False
        self.host = self.np.asarray(self.y)[:self.R]
        return True

    def result(self):
        if self.host is None:
            self.host = self.np.asarray(self.y)[:self.R]
        return self.host


# ---------------------------------------------------------------- self-test (no numpy)


class SimClock:
    """A simulated clock: time moves only when the loop is idle."""

    def __init__(self):
        self.t = 100.0

    def __call__(self):
        return self.t

    def idle(self):
        self.t += 20e-6


class SimBackend:
    """A device that takes base + per_row x rows per batch, batches one
    after another (one engine), recording each batch's rows. With cold, the
    first batch of each size stalls the host that long in submit (a
    framework's first use of a shape: a compile, a kernel loaded, a block
    allocated)."""

    def __init__(self, clock, rows, base=200e-6, per_row=2e-6, cold=0.0):
        self.clock, self.rows, self.base, self.per_row, self.cold = clock, rows, base, per_row, cold
        self.free_at = 0.0
        self.batches = []
        self.seen = set()

    def submit(self, ids):
        return self.submit_rows(sum(self.rows[i] for i in ids))

    def warm(self, batches):
        for b in batches:
            self.submit_rows(sum(r for _, r in b))
        self.clock.t = max(self.clock.t, self.free_at)
        return 1

    def submit_rows(self, r):
        if self.cold and r not in self.seen:
            self.clock.t += self.cold
        self.seen.add(r)
        self.batches.append(r)
        start = max(self.clock(), self.free_at)
        self.free_at = start + self.base + self.per_row * r
        end = self.free_at
        clock = self.clock

        class H:
            def done(self):
                return clock() >= end
        return H()


def self_test():
    fails = []

    def check(ok, what):
        if not ok:
            fails.append(what)
            print(f"self-test: FAIL: {what}")

    # Go's rand.New(rand.NewPCG(1, 0x10ad)).IntN(64)+1, and NewPCG(5, 0x10ad) with 3+IntN(60).
    check(draw_rows(12, 1, 64, 1) == [2, 45, 53, 46, 41, 25, 41, 12, 21, 27, 8, 46], "rows drawn as Go's PCG draws them (n = 64)")
    check(draw_rows(12, 3, 62, 5) == [14, 18, 3, 7, 4, 27, 47, 33, 47, 21, 23, 60], "rows drawn as Go's PCG draws them (n = 60)")
    rows = draw_rows(128, 1, 64, 1)
    # A light load: batches stay small and every request is answered fast.
    clk = SimClock()
    be = SimBackend(clk, rows)
    r = run_rate(be, rows, 200, 2, Options(), clock=clk, idle=clk.idle)
    check(r["success"] == 1 and r["requests"] == 400, f"light load answered: {r}")
    check(r["p99_ms"] < 2, f"light load p99 {r['p99_ms']} ms")
    check(max(be.batches) <= 256, "no batch above max_batch")
    # A heavy load: batches fill up to max_batch, never beyond.
    clk = SimClock()
    be = SimBackend(clk, rows, base=2e-3)
    opts = Options(max_batch=128, inflight=2)
    r = run_rate(be, rows, 5000, 0.5, opts, clock=clk, idle=clk.idle)
    check(max(be.batches) <= 128 and r["mean_batch_rows"] > 64, f"heavy load batches: mean {r['mean_batch_rows']}, max {max(be.batches)}")
    # More requests than the queue holds are refused: the rate misses.
    clk = SimClock()
    be = SimBackend(clk, rows, base=50e-3)
    r = run_rate(be, rows, 20000, 0.2, Options(max_queue=16, inflight=1), clock=clk, idle=clk.idle)
    check(r["success"] < 1, "a full queue refuses requests")
    # The search finds the simulated device's knee: doubling then bisecting.
    seen = []

    def run(rate):
        clk = SimClock()
        seen.append(rate)
        return run_rate(SimBackend(clk, rows), rows, rate, 1, Options(), clock=clk, idle=clk.idle)
    best = search(run, 100, 10, 4)
    check(best is not None and best["p99_ms"] <= 10, f"search found {best}")
    if best is None:
        return 1
    check(seen[:3] == [100, 200, 400], f"search doubles from the first rate: {seen}")
    hi = min(x for x in seen if x > best["rate"])
    check(any(x != 2 * y for x, y in zip(seen[1:], seen)), "search bisects")
    line = kv_line("SERVE", dict(system="serve_sim", **best))
    check("p99_ms=" in line and line.startswith("SERVE system=serve_sim"), "lines are KEY=value")
    print(f"self-test: search {seen} -> {best['rate']}/s (next tried {hi}/s)")
    # A first rate the device cannot sustain: the search halves until a rate
    # meets the bound, then bisects up to the lowest that missed; every rate
    # above the one reported was tried and missed.
    down = []

    def run_slow(rate):
        clk = SimClock()
        down.append(rate)
        r = run_rate(SimBackend(clk, rows, base=4e-3), rows, rate, 0.5, Options(inflight=1), clock=clk, idle=clk.idle)
        r["meets"] = r["success"] == 1 and r["p99_ms"] <= 10
        down_runs.append(r)
        return r
    down_runs = []
    best = search(run_slow, 20000, 10, 3)
    check(best is not None and best["p99_ms"] <= 10 and best["rate"] < 20000, f"a missed first rate: the search goes down, found {best}")
    check(down[:3] == [20000, 10000, 5000], f"the search halves from a missed first rate: {down}")
    if best is not None:
        check(all(not r["meets"] for r in down_runs if r["rate"] > best["rate"]), f"every rate above {best['rate']} missed: {down}")
        check(any(r["rate"] > best["rate"] and r["rate"] < 2 * best["rate"] for r in down_runs), f"the search bisects above {best['rate']}: {down}")
        print(f"self-test: search from a missed first rate {down} -> {best['rate']}/s")
    # The warm-up's batches: one of every size, the largest first, as the
    # load makes them (bodies in order, only a batch's last body cut).
    wb = warm_batches(rows, 256)
    sizes = [sum(r for _, r in b) for b in wb]
    check(sizes[0] == 256 and sorted(sizes) == list(range(1, 257)), f"warm-up batch sizes {sizes[:4]}...")
    check(all(1 <= r <= rows[i] for b in wb for i, r in b) and all(r == rows[i] for b in wb for i, r in b[:-1]),
          "warm-up batches are whole bodies but for their last, cut")
    # A first-use stall (20 ms per new batch size) lands in the first
    # window of a cold backend: p99 far above the bound, and the window's
    # diagnostics name the host stall; after the warm-up (every size once)
    # the same window is the device's steady state.
    clk = SimClock()
    r = run_rate(SimBackend(clk, rows, cold=20e-3), rows, 1000, 1, Options(), clock=clk, idle=clk.idle)
    check(r["p99_ms"] > 10 and r["max_submit_ms"] >= 20 and r["max_gap_ms"] >= 20, f"a cold backend stalls its first window: {r}")
    clk = SimClock()
    be = SimBackend(clk, rows, cold=20e-3)
    be.warm(wb)
    r = run_rate(be, rows, 1000, 1, Options(), clock=clk, idle=clk.idle)
    check(r["p99_ms"] < 2 and r["max_submit_ms"] < 1 and r["max_gap_ms"] < 1, f"a warmed backend's first window: {r}")
    print(f"self-test: {len(fails)} failures")
    return 1 if fails else 0


# ---------------------------------------------------------------- main


def duration(s):
    units = {"us": 1e-6, "µs": 1e-6, "ms": 1e-3, "s": 1.0, "m": 60.0}
    for u in sorted(units, key=len, reverse=True):
        if s.endswith(u):
            return float(s[:-len(u)]) * units[u]
    return float(s)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--dump", help="a recom bench --dump-inputs directory")
    ap.add_argument("--tables", help="the tables arena (.npy); default: DUMP/tables.npy")
    ap.add_argument("--spec", help="recom gen spec (JSON) with a dense part: the MLP (default: the dump's dense.json, any model's)")
    ap.add_argument("--weights", help="MLP weights (.npz by variable; default: drawn as peers.py draws them)")
    ap.add_argument("--model", default="", help="model name for the records")
    ap.add_argument("--backend", choices=["torch", "jax", "numpy"], help="default: torch (numpy with --dry-run, where torch runs on the CPU)")
    ap.add_argument("--precision", default="fp32", choices=["fp32", "tf32", "bf16"])
    ap.add_argument("--max-p99", default="10ms", type=duration)
    ap.add_argument("--rates", default="200", help="the first rate (the search's start), or with --max-p99 0 the rates to run")
    ap.add_argument("--duration", default="8s", type=duration)
    ap.add_argument("--search-steps", type=int, default=4)
    ap.add_argument("--bodies", type=int, default=128)
    ap.add_argument("--min-rows", type=int, default=1)
    ap.add_argument("--max-rows", type=int, default=64)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--max-batch", type=int, default=256)
    ap.add_argument("--batch-timeout", default="0", type=duration)
    ap.add_argument("--inflight", type=int, default=4)
    ap.add_argument("--max-queue", type=int, default=4096)
    ap.add_argument("--json", help="append one JSON object per rate run to this file")
    ap.add_argument("--warm-duration", default="2s", type=duration,
                    help="after every batch size's warm-up, an unmeasured window at the first rate (a SERVE_WARMUP line; 0: none)")
    ap.add_argument("--dry-run", action="store_true", help="numpy backend on peers.py's tiny synthetic dump")
    ap.add_argument("--dry-chain", action="store_true", help="with --dry-run: the dump's dense part (dense.json, peers.py's taxi-like wide & deep chain) instead of a spec's MLP")
    ap.add_argument("--self-test", action="store_true", help="check the draws, the batcher and the search (no numpy)")
    args = ap.parse_args(argv)
    if args.self_test:
        return self_test()
    if not 1 <= args.min_rows <= args.max_rows or args.max_rows > args.max_batch:
        ap.error("need 1 <= --min-rows <= --max-rows <= --max-batch")
    opts = Options(args.max_batch, args.batch_timeout, args.inflight, args.max_queue)
    import numpy as np
    peers = load_peers()
    if args.dry_run:
        import tempfile
        d = tempfile.mkdtemp(prefix="peer-serve-dry-")
        meta = peers.make_dry_dump(d, batch=16, sets=2)
        spec = peers.DRY_SPEC
        if args.dry_chain:
            peers.make_dry_chain(d, meta)
            spec = None
        args.dump, args.backend = d, args.backend or "numpy"
        args.model = args.model or ("dry-chain" if args.dry_chain else "dry")
        args.max_rows = min(args.max_rows, 16)
        args.min_rows = min(args.min_rows, args.max_rows)
        args.duration = min(args.duration, 0.3)
        args.warm_duration = min(args.warm_duration, 0.1)
    else:
        args.backend = args.backend or "torch"
        if not args.dump:
            ap.error("give --dump (and --spec, or a dump with dense.json), or --dry-run / --self-test")
        spec = None
        if args.spec:
            with open(args.spec) as f:
                spec = json.load(f)
            if not spec.get("dense"):
                ap.error(f"{args.spec} has no dense part")
        elif not os.path.exists(os.path.join(args.dump, "dense.json")):
            ap.error(f"no --spec and {args.dump} has no dense.json (recom bench --e2e --dump-inputs writes it)")
    t0 = time.time()
    tables = np.load(args.tables) if args.tables else None
    model = Model(np, peers, args.dump, spec, args.weights, tables)
    rows = draw_rows(args.bodies, args.min_rows, args.max_rows, args.seed)
    bodies = [model.request(i, r) for i, r in enumerate(rows)]
    if args.backend == "numpy":
        be = NumpyBackend(np, model, bodies)
    elif args.backend == "torch":
        be = TorchBackend(np, model, bodies, opts, args.precision, dev="cpu" if args.dry_run else "cuda")
    else:
        be = JaxBackend(np, model, bodies, opts, args.precision)
    system = f"serve_{be.name}"
    what = "the MLP of " + args.spec if spec is not None and not args.dry_run else ("the spec's MLP" if spec is not None else
            f"the dump's dense part ({len(model.chain['dense'])} dense layers, {len(model.chain.get('host') or [])} host steps, {model.out_cols} output columns)")
    print(f"peer_serve: {system} on {args.model or args.dump} ({what}): {len(model.meta['columns'])} columns, width {model.W}, "
          f"{model.tables.nbytes / 1e9:.2f} GB of tables, {len(bodies)} bodies of {args.min_rows}-{args.max_rows} rows "
          f"(mean {sum(rows) / len(rows):.1f}); ready in {time.time() - t0:.1f} s", flush=True)
    # Check the peer's predictions on a few batches against the float64 reference.
    tol = dict(rtol=1e-3, atol=1e-5) if args.precision == "fp32" else dict(rtol=3e-2, atol=3e-3)
    worst, worst_recom = 0.0, 0.0
    for k in range(3):
        ids, total = [], 0
        for i in range(k, len(bodies), 7):  # a few requests, within one batch
            if len(ids) == 4 or total + rows[i] > args.max_batch:
                break
            ids.append(i)
            total += rows[i]
        h = be.submit(ids)
        got = be.last if args.backend == "numpy" else h.result()
        ref = model.reference(peers, [bodies[i] for i in ids])
        if got.shape != ref.shape:
            raise SystemExit(f"peer_serve: {system}: predictions of shape {got.shape}, the reference's are {ref.shape}")
        err = np.abs(got - ref) / (tol["atol"] + tol["rtol"] * np.abs(ref))
        worst = max(worst, float(err.max()))
        theirs = model.recom_outputs([bodies[i] for i in ids])
        if theirs is not None:
            # The reference is itself recom's outputs of the same rows (a dump's dense part).
            worst_recom = max(worst_recom, float((np.abs(ref - theirs) / (1e-5 + 1e-4 * np.abs(theirs))).max()))
    if model.chain is not None:
        print(f"peer_serve: the reference {'matches' if worst_recom <= 1 else 'DIFFERS FROM'} recom's outputs "
              f"(worst |d|/(1e-5+1e-4|recom|) = {worst_recom:.3g})", flush=True)
    ok = worst <= 1 and worst_recom <= 1
    print(f"peer_serve: {system}: {'matches' if worst <= 1 else 'DIFFERS FROM'} the reference (worst |d|/(atol+rtol|ref|) = {worst:.3g})", flush=True)
    # The steady state before the first measured window, as recom serve's
    # warm-up (a batch of every allowed size before it reports ready): a
    # batch of every size from 1 to --max-batch rows on every slot (stream),
    # through the load's path.
    t1 = time.time()
    wb = [[bodies[i] if r == rows[i] else model.request(i, r) for i, r in b] for b in warm_batches(rows, args.max_batch)]
    slots = be.warm(wb)
    del wb
    on = f" on each of {slots} slots" if slots > 1 else ""
    print(f"peer_serve: {system}: warmed up: a batch of every size from 1 to {args.max_batch} rows{on} "
          f"in {time.time() - t1:.1f} s", flush=True)
    # Python's cyclic garbage collector: what setup made (the frameworks'
    # objects, the model's) moves to the permanent generation, as a Python
    # server does after its warm-up: a full collection would otherwise walk
    # them all (tens of ms, at a time set by the allocation counts, such as
    # inside the first window). It stays on: the windows pay for what the
    # load's loop leaves to it (gc_max_ms: its longest pause there).
    gc.collect()
    gc.freeze()
    pauses, gc_t0 = [], [0.0]

    def gc_clock(phase, info):
        if phase == "start":
            gc_t0[0] = time.perf_counter()
        else:
            pauses.append(time.perf_counter() - gc_t0[0])
    gc.callbacks.append(gc_clock)
    out = open(args.json, "a") if args.json else None

    def emit(tag, kind, rec):
        rec = dict(kind=kind, system=system, model=args.model, **rec)
        print(kv_line(tag, rec), flush=True)
        if out:
            out.write(json.dumps(rec) + "\n")
            out.flush()

    def window(rate, secs):
        del pauses[:]
        r = run_rate(be, rows, rate, secs, opts)
        r["gc_max_ms"] = round(max(pauses, default=0.0) * 1e3, 3)
        return r

    def run(rate):
        r = window(rate, args.duration)
        emit("SERVE", "serve", r)
        return r
    first = [float(x) for x in args.rates.split(",") if x]
    if args.warm_duration > 0:
        # Unmeasured (printed so that a stall it absorbed shows): the load's
        # mix of batches on every slot at once, at the first rate.
        emit("SERVE_WARMUP", "serve_warmup", window(first[0], args.warm_duration))
    if args.max_p99 > 0:
        best = search(run, first[0], args.max_p99 * 1e3, args.search_steps)
        if best is None:
            emit("SERVE_MAX", "serve_max", dict(max_p99_ms=args.max_p99 * 1e3, rate=0, note=f"{first[0]:.0f}/s already misses it"))
        else:
            emit("SERVE_MAX", "serve_max", dict(max_p99_ms=args.max_p99 * 1e3, rate=best["rate"], rows_per_s=best["rows_per_s"],
                                                 p50_ms=best["p50_ms"], p99_ms=best["p99_ms"], p999_ms=best["p999_ms"]))
    else:
        for r in first:
            run(r)
    if out:
        out.close()
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
