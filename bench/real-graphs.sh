#!/usr/bin/env bash
# The real TensorFlow graphs of ../shared/testdata/graphdefs end to end:
# compiled here (where llc-19 is), run on the GPU machine with --check
# (the GPU's outputs against the interpreter on the same graph, random
# tables from --seed, fresh random feeds).
#
#   bench/real-graphs.sh build [OUT]    here: tools, every graph compiled, PTX, feeds
#   bench/real-graphs.sh device [OUT]   on the GPU machine: recom run --check per graph and batch
#
# OUT defaults to build/real. The build step writes, per graph NAME:
#   OUT/NAME/               recom compile's directory (stage IR, summary.txt)
#   OUT/NAME.dot            the column structure (recom compile --dot)
#   OUT/NAME.ptx            the kernel, made by recom run --emit-ptx from OUT/NAME/0-tfg.mlir
#   OUT/NAME.feeds-B.npz    random feeds at batch B (1, 16, 256)
# and OUT/bin/ the tools (built for linux/amd64). The device step needs only
# OUT (carry it to the GPU machine) and prints one line per run; it exits 1
# if any check fails. Graphs without embedding columns (criteo: indicator
# columns only) have nothing for the GPU and are reported, not run.
#
# The graphs, how they are cut for inference (the inputs fed and the
# predictions) and what the compiler finds in each (the same table is in
# compiler/realgraphs_test.go):
#   census_wide_deep_tf1          IteratorGetNext:0..14 -> head/predictions/logistic    9 columns
#   census_wide_deep_tf2_resource fifo_queue_DequeueMany:1..16 -> head/predictions/logistic   8 columns
#   criteo_bucketized_tiles       IteratorGetNext:0..10 -> dense/BiasAdd                 0 columns (11 indicator)
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
export PATH="/usr/local/go/bin:$PATH"

mode=${1:-}
out=${2:-build/real}
graphs=${RECOM_GRAPHDEFS:-$root/../shared/testdata/graphdefs}
batches=(1 16 256)

seq_inputs() { # seq_inputs NODE FIRST LAST
  local s="" i
  for ((i = $2; i <= $3; i++)); do s+="${s:+,}$1:$i"; done
  echo "$s"
}
# name|file|inputs|outputs|columns
cases=(
  "census_wide_deep_tf1|census_wide_deep_tf1.pbtxt|$(seq_inputs IteratorGetNext 0 14)|head/predictions/logistic|9"
  "census_wide_deep_tf2_resource|census_wide_deep_tf2_resource.pbtxt|$(seq_inputs fifo_queue_DequeueMany 1 16)|head/predictions/logistic|8"
  "criteo_bucketized_tiles|criteo_bucketized_tiles.pbtxt|$(seq_inputs IteratorGetNext 0 10)|dense/BiasAdd|0"
)

# feeds MLIR BATCH SEED FILE: random feeds for every placeholder of an
# imported graph (ints in [-5, 100): negative ids; floats in [-10, 10);
# strings from a small vocabulary with empty strings and unknown words),
# written as .npz with the standard library only.
feeds() {
  python3 - "$@" <<'EOF'
import random, re, struct, sys, zipfile
mlir, batch, seed, path = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
rng = random.Random(seed)
words = ["", "a", "unknown", "Private", "Self-emp-not-inc", "Bachelors", "HS-grad", "Married-civ-spouse",
         "Never-married", "Husband", "Not-in-family", "Exec-managerial", "Craft-repair", "White", "Male",
         "Female", "United-States", "Mexico"]
ph = re.compile(r'"tfg\.Placeholder"\(\)\s*\{([^}]*)\}')
arrays = []
for m in ph.finditer(open(mlir).read()):
    attrs = m.group(1)
    name = re.search(r'_mlir_name = "([^"]*)"', attrs).group(1)
    dtype = re.search(r'dtype = ([^,}\s]+)', attrs).group(1)
    shp = re.search(r'shape = #tfg\.shape<([^>]*)>', attrs)
    dims = [batch]
    if shp and shp.group(1) not in ("*", "unknown"):
        dims = [batch if d in ("?", "-1") else int(d) for d in shp.group(1).split("x") if d]
    elif shp is not None and shp.group(0).endswith("shape<>"):
        dims = []
    n = 1
    for d in dims:
        n *= d
    if dtype in ("i32", "i64"):
        code, size = ("<i4", 4) if dtype == "i32" else ("<i8", 8)
        data = struct.pack("<%d%s" % (n, "i" if size == 4 else "q"), *[rng.randrange(-5, 100) for _ in range(n)])
    elif dtype in ("f32", "f64"):
        code = "<f4" if dtype == "f32" else "<f8"
        data = struct.pack("<%d%s" % (n, "f" if dtype == "f32" else "d"), *[rng.uniform(-10, 10) for _ in range(n)])
    elif dtype == "!tfg.string":
        vals = [rng.choice(words).encode() for _ in range(n)]
        width = max([len(v) for v in vals] + [1])
        code = "|S%d" % width
        data = b"".join(v.ljust(width, b"\0") for v in vals)
    else:
        sys.exit("placeholder %s: no random feed for %s" % (name, dtype))
    shape = "(" + "".join("%d," % d for d in dims) + ")" if len(dims) == 1 else "(" + ", ".join(str(d) for d in dims) + ")"
    hdr = "{'descr': '%s', 'fortran_order': False, 'shape': %s, }" % (code, shape)
    hdr += " " * ((64 - (10 + len(hdr) + 1) % 64) % 64) + "\n"
    arrays.append((name.replace(":", "__") + ".npy", b"\x93NUMPY\x01\x00" + struct.pack("<H", len(hdr)) + hdr.encode() + data))
with zipfile.ZipFile(path, "w") as z:
    for n, b in arrays:
        z.writestr(n, b)
print("   %s: %d arrays" % (path, len(arrays)))
EOF
}

case "$mode" in
build)
  mkdir -p "$out/bin"
  echo "== build the tools into $out/bin (linux/amd64)"
  GOOS=linux GOARCH=amd64 go build -o "$out/bin/" ./cmd/recom
  go build -o "$out/host-bin/" ./cmd/recom
  for c in "${cases[@]}"; do
    IFS='|' read -r name file inputs outputs columns <<<"$c"
    echo "== $name: recom compile ($columns embedding columns expected)"
    "$out/host-bin/recom" compile "$graphs/$file" --inputs "$inputs" --outputs "$outputs" \
      -o "$out/$name" --dot "$out/$name.dot" --no-cubin -q
    sed -n '/^columns:/,/^$/p;/^kernels:/,/^$/p' "$out/$name/summary.txt" | sed 's/^/   /'
    if [ "$columns" -gt 0 ]; then
      "$out/host-bin/recom" run "$out/$name/0-tfg.mlir" --outputs "$outputs" --emit-ptx "$out/$name.ptx"
      for b in "${batches[@]}"; do
        feeds "$out/$name/0-tfg.mlir" "$b" "$b" "$out/$name.feeds-$b.npz"
      done
    fi
  done
  rm -rf "$out/host-bin"
  echo "== done: carry $out to the GPU machine and run: bench/real-graphs.sh device $out"
  ;;
device)
  [ -x "$out/bin/recom" ] || { echo "no $out/bin/recom: run 'bench/real-graphs.sh build' first" >&2; exit 2; }
  nvidia-smi --query-gpu=name,driver_version --format=csv,noheader || true
  fail=0
  for c in "${cases[@]}"; do
    IFS='|' read -r name file inputs outputs columns <<<"$c"
    if [ "$columns" -eq 0 ]; then
      echo "$name: no embedding columns (indicator columns only): nothing for the GPU"
      continue
    fi
    for b in "${batches[@]}"; do
      printf '%s batch %s: ' "$name" "$b"
      if "$out/bin/recom" run "$out/$name/0-tfg.mlir" --outputs "$outputs" --ptx "$out/$name.ptx" \
        --feeds "$out/$name.feeds-$b.npz" --seed 7 --check -o "$out/$name.out-$b.npz" >"$out/$name.run-$b.log" 2>&1; then
        tail -n 1 "$out/$name.run-$b.log"
      else
        fail=1
        echo "FAILED"
        sed 's/^/   /' "$out/$name.run-$b.log"
      fi
    done
  done
  exit $fail
  ;;
*)
  echo "usage: bench/real-graphs.sh build|device [OUT]" >&2
  exit 2
  ;;
esac
