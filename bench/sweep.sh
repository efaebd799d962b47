#!/usr/bin/env bash
# The benchmark sweep: latency against batch for the embedding layer (models
# E, F, micro, probe; recom's tuned schedule and schedule=recom; the peers of
# bench/peers.py) and end to end (E and F, whole model), in ONE device call.
#
#   bench/sweep.sh build    here: recom (CGO_ENABLED=0) into build/sweep/, the
#                           models (recom gen --no-tables), each model's PTX
#                           for both schedules (llc-19), the presets' specs
#   bench/sweep.sh device   on the GPU machine (device tool, carry
#                           ["build/sweep"], timeout_s 540): the whole sweep,
#                           then the plots; everything lands in $OUT
#   bench/sweep.sh plot RESULTS.json [DIR]   the plots again, anywhere
#   bench/sweep.sh selftest  here, no GPU: the device mode with a stand-in
#                           for recom bench and the peers on the CPU
#
# Feeds: `recom bench` draws its own feed sets from the spec recorded in the
# model (--feed-seed 1, 2, ...) and dumps them (--dump-inputs) for the
# peers, so every system sees the same tables and ids and no feeds travel.
#
# How the device run keeps to its time: a small scheduler (the Python below)
# runs up to WORKERS `recom bench` processes at once, since most of a bench
# process is CPU work (compile, tables, the interpreter computing the ids of
# each feed set); the timed part is exclusive: when a bench process reaches
# it (its "feed sets run" line, or "wrote the inputs" with a dump) the
# scheduler stops every other process (SIGSTOP) until it exits; peers.py
# (--gate) asks for the same exclusivity around each timed section. Jobs
# start in priority order (the issue targets first: probe 256 and 4096, E
# 256, E end to end at 256), then the batches spread over the range, so a run
# cut short still has the important points. No job starts after DEADLINE_S;
# everything still running at HARD_S is killed; results.json is rewritten
# after every result, so a partial run leaves data.
#
# Settings (environment): MODELS, BATCHES, E2E_MODELS, E2E_BATCHES,
# ONEBLOCK_BATCHES (schedule=recom), JAX_LAYER, JAX_E2E ("model:batch ..."),
# WORKERS (6), ITERS (recom bench replays, 200), PEER_ITERS (50),
# DEADLINE_S (420), HARD_S (490), SWEEP_TMP (/tmp/sweep).
#
# End to end: `recom bench` runs the dense layers on the GPU by default
# (--dense=gpu) and, after the feed sets, times them as one CUDA graph
# ("dense layers: N kernels in one CUDA graph: median X µs"), then the
# embedding layer ("BENCH ..."). So the tuned job of each end-to-end point
# (E2E_MODELS x E2E_BATCHES) runs the whole model, and recom's end-to-end
# row (e2e_recom) is the layer's median plus the dense graph's, with both
# parts kept in the record (layer_us, dense_us). The layer-only jobs pass
# --outputs input_layer/concat (the dense part does not run). If a future
# `recom bench` gets a flag that times the whole model as one graph,
# E2E_FLAG names it (default: "--e2e" if `recom bench --help` lists it, else
# none) and the end-to-end points become separate jobs with that flag.
#
# Expected cost (from the 2026-12-02 logs): a bench process at batch 256 is
# ~10 s (compile 1 s, tables 1.6 s, 4 feed sets 5.5-7 s, timing < 1 s), at
# 2048-4096 20-30 s; a JAX compilation of a 1000-column layer 15-50 s.
set -uo pipefail
cd "$(dirname "$0")/.."
d=${SWEEP_DIR:-build/sweep}
PY=${PYTHON:-python3}
mode=${1:-build}

case $mode in
build)
  set -e
  . bench/lib.sh
  build_recom $d
  rm -f $d/recom-here
  for p in E F micro probe; do
    $d/recom gen --preset $p --no-tables -o $d/$p.pb
    cp examples/specs/$p.json $d/$p.spec.json
  done
  # The PTX for both schedules (llc-19 is only here); the device checks
  # each against its own compilation by the LLVM IR's hash.
  for p in E F micro probe; do
    $d/recom run $d/$p.pb --schedule tuned --emit-ptx $d/$p.tuned.ptx &
    t=$!
    $d/recom run $d/$p.pb --schedule recom --emit-ptx $d/$p.recom.ptx
    wait $t
  done
  gzip -f $d/*.pb # the tree that travels is limited to 64 MiB
  ls -l $d
  du -sh $d
  ;;
selftest)
  # The device mode here, with a stand-in for recom bench (prints its
  # lines, writes peers.py's tiny synthetic dumps): checks the scheduler,
  # the gate, the peers on the CPU, results.json and the plots. Needs
  # numpy, torch and matplotlib (PYTHON=/usr/bin/python3 on Debian).
  t=$(mktemp -d /tmp/sweep-selftest.XXXXXX)
  mkdir -p $t/d $t/out
  for m in E probe; do echo '{"groups": [], "dense": {"features": 4, "bottom": [8], "top": [16, 8]}}' > $t/d/$m.spec.json; done
  cat > $t/recom <<'EOF2'
#!/usr/bin/env bash
if [ "$2" = "--help" ]; then echo "  --dense string   gpu or cpu"; exit 0; fi
m=$2; shift 2; b=0; s=tuned; dump=; n=4; outs=
while [ $# -gt 0 ]; do case $1 in --batch) b=$2; shift;; --schedule) s=$2; shift;; --dump-inputs) dump=$2; shift;; --sets) n=$2; shift;; --outputs) outs=$2; shift;; esac; shift; done
sleep 0.3
echo "recom bench: $m: compiled in 0.1 s (schedule=$s), tables drawn in 0.1 s, $n feed sets run in 0.3 s" >&2
if [ -n "$dump" ]; then
  $PYTHON -c "import sys; sys.path.insert(0, 'bench'); import peers; peers.make_dry_dump('$dump', batch=$b)" || exit 1
  echo "recom bench: wrote the inputs of $n sets to $dump" >&2
fi
f=$(mktemp -u); mkfifo $f; read -rt 0.3 -u 3 3<>$f; rm -f $f # the timed part, in this process (SIGSTOP stops it)
case $m in *E.pb) [ -z "$outs" ] && echo "dense layers: 5 kernels in one CUDA graph: median 30.5 µs, min 29.0 µs";; esac
echo "bench: stand-in, batch $b, schedule=$s"
echo "BENCH schedule=$s batch=$b median_us=$((10 + b / 10)) min_us=9 b2b_us=9 grows_per_s=1 eff_TBps=1 floor_us=$((5 + b / 20)) ratio_to_floor=2"
EOF2
  chmod +x $t/recom
  OUT=$t/out SWEEP_PACK=0 RECOM=$t/recom SWEEP_DIR=$t/d SWEEP_TMP=$t/tmp MODELS="probe E" BATCHES="32 256" \
    E2E_BATCHES="32 256" JAX_LAYER="probe:256" JAX_E2E="E:256" PEER_ITERS=10 bash "$0" device > $t/log 2>&1
  rc=$?
  n=$($PY -c "import json, sys; r = json.load(open('$t/out/results.json')); print(len({(x['kind'], x['model'], x['batch'], x['system']) for x in r if x.get('median_us') is not None and x.get('ok', True)}))")
  # recom: 2 models x 2 batches x (tuned, recom) + E e2e x 2; peers: eager, tbe x 4 + E e2e_eager, e2e_tbe x 2
  want=$((8 + 2 + 8 + 4))
  ls $t/out/*.png
  ung=$(grep -cE 'UNGATED|\(0\.[0-2] s exclusive\)' $t/log) # the stand-in's timed part takes 0.3 s
  if [ $rc = 0 ] && [ "$ung" = 0 ] && [ "$n" -ge $want ] && [ -f $t/out/layer-E.png ] && [ -f $t/out/e2e-E.png ]; then
    echo "selftest: PASS ($n results, $t)"
  else
    tail -30 $t/log
    echo "selftest: FAIL (rc=$rc, $n results of $want, $ung ungated, $t)"
    exit 1
  fi
  ;;
plot)
  exec $PY bench/plot.py "${2:?results.json}" --out "${3:-${OUT:-.}}"
  ;;
device)
  : "${OUT:?OUT must name the folder for the results}"
  mkdir -p "$OUT"
  exec > >(tee "$OUT/sweep.log") 2>&1
  date -u
  nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.max.mem,memory.total --format=csv 2>&1 || true
  pids=()
  for f in $d/*.pb.gz; do [ -e "$f" ] && { gunzip -kf "$f" & pids+=($!); }; done
  for p in "${pids[@]}"; do wait "$p"; done # (a bare wait would wait for the tee too)
  RECOM=${RECOM:-$d/recom}
  if [ -z "${E2E_FLAG+x}" ]; then
    E2E_FLAG=""
    if $RECOM bench --help 2>&1 | grep -q -- '--e2e'; then E2E_FLAG=--e2e; fi
  fi
  if [ -n "$E2E_FLAG" ]; then echo "sweep: recom end to end with $E2E_FLAG"; else echo "sweep: no end-to-end flag in recom bench: its end-to-end rows are skipped"; fi
  export RECOM E2E_FLAG SWEEP_DIR=$d PYTHON=$PY PYTHONUTF8=1
  $PY - <<'PY'
import collections, csv, json, os, queue, re, shutil, signal, subprocess, sys, threading, time

T0 = time.time()
env = os.environ
OUT, D, RECOM, PY = env["OUT"], env["SWEEP_DIR"], env["RECOM"], env["PYTHON"]
E2E_FLAG = env.get("E2E_FLAG", "")
ints = lambda k, dflt: [int(x) for x in env.get(k, dflt).split()]
pairs = lambda k, dflt: {(m, int(b)) for m, b in (x.split(":") for x in env.get(k, dflt).split())}
MODELS = env.get("MODELS", "probe E F micro").split()
BATCHES = ints("BATCHES", "32 64 128 256 512 1024 2048 4096")
E2E_MODELS = [m for m in env.get("E2E_MODELS", "E F").split() if m in MODELS]
E2E_BATCHES = ints("E2E_BATCHES", "32 64 128 256 512 1024 2048")
ONEBLOCK = ints("ONEBLOCK_BATCHES", " ".join(map(str, BATCHES)))
JAX_LAYER = pairs("JAX_LAYER", "probe:256 probe:4096 E:256")
JAX_E2E = pairs("JAX_E2E", "E:256 F:256")
WORKERS = int(env.get("WORKERS", "6"))
ITERS, PEER_ITERS = int(env.get("ITERS", "200")), int(env.get("PEER_ITERS", "50"))
DEADLINE, HARD = float(env.get("DEADLINE_S", "420")), float(env.get("HARD_S", "490"))
JOB_TIMEOUT = float(env.get("JOB_TIMEOUT_S", "300"))  # wall clock, stopped time included
GATE_TIMEOUT = {"bench": 60.0, "peers": 120.0}            # holding the GPU
TMP = env.get("SWEEP_TMP", "/tmp/sweep")
shutil.rmtree(TMP, ignore_errors=True)
os.makedirs(TMP)


def say(msg):
    print(f"[{time.time() - T0:6.1f}s] {msg}", flush=True)


# ------------------------------------------------------------------ jobs
# Priority order: the issues' targets, then the batches spread over the range.
Job = collections.namedtuple("Job", "model batch sched dump e2e")


def whole(m, b):
    """Without an end-to-end flag, the tuned job of an end-to-end point runs
    the whole model (dense layers on the GPU, recom bench's default) and
    recom's end-to-end time is its layer's median plus its dense graph's."""
    return not E2E_FLAG and m in E2E_MODELS and b in E2E_BATCHES


def jobs_for(m, b):
    out = [Job(m, b, "tuned", True, False)]
    if b in ONEBLOCK:
        out.append(Job(m, b, "recom", False, False))
    if E2E_FLAG and m in E2E_MODELS and b in E2E_BATCHES:
        out.append(Job(m, b, "tuned", False, True))
    return out


first = [("probe", 256), ("E", 256), ("probe", 4096)]
spread = [2048, 32, 1024, 4096, 256, 64, 512, 128]
order = [mb for mb in first if mb[0] in MODELS and mb[1] in BATCHES]
order += [(m, b) for b in spread + BATCHES for m in MODELS if b in BATCHES and (m, b) not in order]
order = list(dict.fromkeys(order))
pending = collections.deque(j for mb in order for j in jobs_for(*mb))
say(f"sweep: {len(pending)} recom bench jobs over {MODELS} x {BATCHES}; workers {WORKERS}; deadline {DEADLINE:.0f} s, hard stop {HARD:.0f} s")


def dump_dir(m, b):
    return os.path.join(TMP, "dump", f"{m}-{b}")


# ------------------------------------------------------------------ processes
events = queue.Queue()


class Proc:
    def __init__(self, name, argv, kind, job=None, stdin=False):
        self.name, self.kind, self.job = name, kind, job
        self.log = open(os.path.join(TMP, name + ".log"), "w")
        self.p = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, bufsize=1,
                                  encoding="utf-8", errors="replace",
                                  stdin=subprocess.PIPE if stdin else subprocess.DEVNULL)
        self.t0 = time.time()
        self.stopped = False    # by SIGSTOP
        self.waiting = False    # queued for the gate
        self.gated = False      # has held the gate
        self.gate_t = 0.0       # seconds holding the gate
        self.lines = []
        self.trig = False       # reached its timed part: stopped by the reader at once
        threading.Thread(target=self.read, daemon=True).start()

    def read(self):
        for line in self.p.stdout:
            line = line.rstrip("\n")
            if self.kind == "bench" and not self.trig and is_trigger(self.job, line):
                with LOCK:  # stop it before it times anything, then queue it for the gate
                    self.stop()
                    self.trig = True
            events.put((self, line))
        events.put((self, None))

    def signal(self, sig):
        if self.p.poll() is None:
            try:
                os.kill(self.p.pid, sig)
            except ProcessLookupError:
                pass

    def stop(self):
        if not self.stopped:
            self.signal(signal.SIGSTOP)
            self.stopped = True

    def cont(self):
        if self.stopped:
            self.signal(signal.SIGCONT)
            self.stopped = False


LOCK = threading.Lock()
TRIGGER = ("recom bench: wrote the inputs", "feed sets run in")


def is_trigger(j, line):
    # a dump job is gated after its dump (written outside the gate)
    return line.startswith(TRIGGER[0]) if j.dump else TRIGGER[1] in line


live, waiters = [], collections.deque()
holder = None
hold_t0 = 0.0


def grant():
    global holder, hold_t0
    while holder is None and waiters:
        h = waiters.popleft()
        if h.p.poll() is not None:
            continue
        for x in live:
            if x is not h:
                x.stop()
        holder, hold_t0 = h, time.time()
        h.waiting, h.gated = False, True
        h.cont()
        if h.kind == "peers":
            h.p.stdin.write("go\n")
            h.p.stdin.flush()


def release(h):
    global holder
    if holder is not h:
        return
    h.gate_t += time.time() - hold_t0
    holder = None
    with LOCK:
        for x in live:
            if x is not h and not (x.kind == "bench" and (x.waiting or x.trig) and not x.gated):
                x.cont()
    grant()


def want_gate(h):
    if h.kind == "bench":
        h.stop()  # it must not time anything before it holds the gate
    h.waiting = True
    waiters.append(h)
    grant()


# ------------------------------------------------------------------ results
records, csv_keys = [], ["kind", "model", "batch", "system", "median_us", "min_us", "b2b_us", "floor_us", "ratio_to_floor",
                         "grows_per_s", "eff_TBps", "n", "ok", "worst", "compile_s", "wall_s", "gate_s"]
DENSE_RE = re.compile(r"dense layers: (\d+) kernels in one CUDA graph: median ([0-9.]+) µs, min ([0-9.]+) µs")


def save():
    recs = list(records)
    for m in MODELS:
        p = os.path.join(OUT, f"peers-{m}.jsonl")
        if os.path.exists(p):
            with open(p) as f:
                recs += [json.loads(l) for l in f if l.strip()]
    tmp = os.path.join(OUT, "results.json.tmp")
    with open(tmp, "w") as f:
        json.dump(recs, f, indent=0)
    os.replace(tmp, os.path.join(OUT, "results.json"))
    with open(os.path.join(OUT, "results.csv"), "w", newline="") as f:
        w = csv.DictWriter(f, csv_keys, extrasaction="ignore")
        w.writeheader()
        w.writerows(recs)
    return recs


def bench_result(h, line):
    j = h.job
    kv = dict(x.split("=", 1) for x in line.split() if "=" in x)
    rec = {"kind": "e2e" if j.e2e else "layer", "model": j.model, "batch": j.batch,
           "system": "e2e_recom" if j.e2e else ("recom" if j.sched == "tuned" else "recom_oneblock"),
           "gated": h.gated}
    if "part" in kv:  # several BENCH lines from one process (e.g. layer and whole model): part=NAME tells them apart
        rec["system"] += "_" + kv["part"]
    for k, v in kv.items():
        try:
            rec[k] = float(v)
        except ValueError:
            rec[k] = v
    info = [l for l in h.lines if l.startswith("bench:")]
    if info:
        rec["info"] = info[-1]
    return rec


# ------------------------------------------------------------------ peers
dumps_of = {m: [dump_dir(m, b) for (mm, b) in order if mm == m] for m in MODELS}
for m in MODELS:
    for dd in dumps_of[m]:
        os.makedirs(dd, exist_ok=True)
written = {m: [] for m in MODELS}   # dump dirs written, for the tables.npy clean-up


def start_peers(m):
    bs = [int(x.rsplit("-", 1)[1]) for x in dumps_of[m]]
    argv = [PY, "-u", "bench/peers.py", "--model", m, "--dumps", ",".join(dumps_of[m]),
            "--json", os.path.join(OUT, f"peers-{m}.jsonl"), "--gate", "--iters", str(PEER_ITERS),
            "--deadline", str(T0 + DEADLINE + 20),
            "--jax-batches", ",".join(str(b) for (mm, b) in JAX_LAYER if mm == m) or "0"]
    if m in E2E_MODELS:
        argv += ["--spec", os.path.join(D, f"{m}.spec.json"),
                 "--e2e-batches", ",".join(str(b) for b in E2E_BATCHES if b in bs) or "0",
                 "--jax-e2e-batches", ",".join(str(b) for (mm, b) in JAX_E2E if mm == m) or "0"]
    live.append(Proc(f"peers-{m}", argv, "peers", stdin=True))
    say(f"START peers {m}: {len(bs)} batches")


def start_bench(j):
    name = f"bench-{j.model}-{j.batch}-{j.sched}{'-e2e' if j.e2e else ''}"
    sets = 4 if j.batch <= 256 else 2
    argv = [RECOM, "bench", os.path.join(D, f"{j.model}.pb"), "--seed", "7", "--batch", str(j.batch),
            "--schedule", j.sched, "--ptx", os.path.join(D, f"{j.model}.{j.sched}.ptx"),
            "--sets", str(sets), "--iters", str(ITERS)]
    if j.e2e:
        argv += E2E_FLAG.split()
    elif not (j.dump and whole(j.model, j.batch)):
        argv += ["--outputs", "input_layer/concat"]  # the layer only: the dense part does not run
    if j.dump:
        argv += ["--dump-inputs", dump_dir(j.model, j.batch)]
    live.append(Proc(name, argv, "bench", job=j))
    say(f"START {name}")


def clean_tables(m, dd):
    """Keeps one tables.npy per model: the first written in the peers' order."""
    written[m].append(dd)
    lst = dumps_of[m]
    done = [x for x in lst if x in written[m]]
    keep = done[0]
    for x in done:
        if x != keep and lst.index(x) > lst.index(keep):
            p = os.path.join(x, "tables.npy")
            if os.path.exists(p):
                os.remove(p)


def finished(h):
    """A process ended: record it, free the gate."""
    rc = h.p.wait()
    live.remove(h)
    if h in waiters:
        waiters.remove(h)
    release(h)
    wall = time.time() - h.t0
    h.log.close()
    if h.kind == "peers":
        say(f"END {h.name}: rc={rc}, {wall:.0f} s, {h.gate_t:.1f} s holding the GPU")
        save()
        return
    j = h.job
    got = [bench_result(h, l) for l in h.lines if l.startswith("BENCH ")]
    dense = [DENSE_RE.search(l) for l in h.lines]
    dense = [x for x in dense if x]
    if dense and got and j.dump and whole(j.model, j.batch):
        lay, dm = got[0]["median_us"], float(dense[-1].group(2))
        got.append({"kind": "e2e", "model": j.model, "batch": j.batch, "system": "e2e_recom",
                    "median_us": round(lay + dm, 2), "layer_us": lay, "dense_us": dm,
                    "dense_min_us": float(dense[-1].group(3)), "dense_kernels": int(dense[-1].group(1)),
                    "how": "embedding-layer graph median + dense-layers graph median, timed apart in one process",
                    "gated": h.gated})
    for r in got:
        r["wall_s"], r["gate_s"] = round(wall, 1), round(h.gate_t, 2)
        records.append(r)
    if j.dump and not (rc == 0 and got):
        open(os.path.join(dump_dir(j.model, j.batch), ".failed"), "w").close()
    med = f"median_us={got[0].get('median_us')}" if got else "no BENCH line"
    tail = "" if rc == 0 else " | " + " / ".join(h.lines[-3:])[:300]
    ung = "" if h.gated or not got else " UNGATED (timed while other processes ran)"
    say(f"END {h.name}: rc={rc}, {med}, {wall:.1f} s ({h.gate_t:.1f} s exclusive){ung}{tail}")
    save()


def on_line(h, line):
    h.lines.append(line)
    h.log.write(line + "\n")
    if h.kind == "peers":
        if line == "@@GATE acquire":
            want_gate(h)
        elif line == "@@GATE release":
            release(h)
        elif line.startswith(("PEER ", "peers:", "  ")) and ("DIFFERS" in line or "failed" in line or line.startswith(("PEER ", "peers:"))):
            say(f"{h.name}: {line.strip()}")
        return
    j = h.job
    if h.trig and not h.waiting and not h.gated and holder is not h and is_trigger(j, line):
        if j.dump:
            clean_tables(j.model, dump_dir(j.model, j.batch))
        want_gate(h)


for m in MODELS:
    start_peers(m)
killed = False
while live or pending:
    now = time.time() - T0
    try:
        h, line = events.get(timeout=0.1)
        if line is None:
            finished(h)
        else:
            on_line(h, line)
    except queue.Empty:
        pass
    now = time.time() - T0
    if now > HARD and not killed:
        say(f"HARD STOP at {HARD:.0f} s: killing {[x.name for x in live]}")
        for x in list(live):
            x.signal(signal.SIGKILL)
            x.cont()
        pending.clear()
        killed = True
    for x in list(live):
        if x.kind == "bench" and time.time() - x.t0 > JOB_TIMEOUT and x.p.poll() is None:
            say(f"TIMEOUT {x.name} after {JOB_TIMEOUT:.0f} s: killed")
            x.signal(signal.SIGKILL)
            x.cont()
    if holder is not None and time.time() - hold_t0 > GATE_TIMEOUT[holder.kind] and holder.p.poll() is None:
        say(f"TIMEOUT {holder.name} held the GPU over {GATE_TIMEOUT[holder.kind]:.0f} s: killed")
        holder.signal(signal.SIGKILL)
        holder.cont()
    if pending and now > DEADLINE:
        say(f"DEADLINE: {len(pending)} jobs not started: " + ", ".join(f"{j.model}/{j.batch}/{j.sched}{'/e2e' if j.e2e else ''}" for j in pending))
        for j in pending:
            if j.dump:
                open(os.path.join(dump_dir(j.model, j.batch), ".failed"), "w").close()
        pending.clear()
    nbench = sum(1 for x in live if x.kind == "bench")
    while pending and nbench < WORKERS and holder is None and now <= DEADLINE:
        start_bench(pending.popleft())
        nbench += 1

recs = save()
say(f"sweep: {sum(1 for r in recs if r.get('median_us') is not None)} timed results in {OUT}/results.json")
os.makedirs(os.path.join(OUT, "logs"), exist_ok=True)
for f in sorted(os.listdir(TMP)):
    if f.endswith(".log"):
        shutil.copy(os.path.join(TMP, f), os.path.join(OUT, "logs", f))
PY
  $PY bench/plot.py "$OUT/results.json" --out "$OUT" --title-suffix ", H200" || echo "sweep: plot failed"
  date -u
  # The device tool brings back a limited number of files: everything but
  # the plots and summary.md goes into one archive (2026-12-02: a run's
  # results.json was lost to that limit).
  # The tool brought back 8 files (2026-12-02): the archive, summary.md and
  # the plots (6) make 8; sweep.log goes into the archive too.
  if [ "${SWEEP_PACK:-1}" != 0 ]; then
    tgz=$(mktemp /tmp/sweep-results.XXXXXX.tgz)
    # sweep.log is still being written (tee): tar's "file changed" (exit 1) is fine.
    ( cd "$OUT" && { tar czf "$tgz" --warning=no-file-changed --exclude='*.png' --exclude=summary.md . || [ $? = 1 ]; } &&
      find . -mindepth 1 ! -name '*.png' ! -name summary.md -delete ) &&
      mv "$tgz" "$OUT/a-sweep-results.tgz" || echo "sweep: packing failed"
  fi
  ;;
*)
  echo "usage: bench/sweep.sh build | device | selftest | plot RESULTS.json [DIR]" >&2
  exit 2
  ;;
esac
