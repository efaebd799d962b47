#!/usr/bin/env bash
# Out-of-range ids on the GPU path. Two identity columns without a default
# (10 rows each); feeds from recom gen, then the first id of id_0000 set to
# 999. Expected: valid feeds pass --check; id 999 gives TensorFlow's error
# (reported back to the caller, exit 1, no output file) instead of reading
# outside the table.
#
#   bench/experiments/out-of-range.sh build   (here: binary, model, feeds, PTX into build/oor)
#   bench/experiments/out-of-range.sh         (on the GPU machine; device tool: carry ["build/oor"])
set -u
cd "$(dirname "$0")/../.."
d=build/oor
if [ "${1:-}" = build ]; then
  set -e
  mkdir -p $d
  CGO_ENABLED=0 GOOS=linux GOARCH=amd64 go build -trimpath -o $d/recom ./cmd/recom
  go build -o $d/recom-here ./cmd/recom
  $d/recom-here gen --spec bench/experiments/out-of-range.spec.json --seed 1 -o $d/oor.pbtxt
  $d/recom-here gen --feeds --batch 16 --seed 2 $d/oor.pbtxt -o $d/ok.npz
  python3 - "$d" <<'PY'
import ast, struct, sys, zipfile
d = sys.argv[1]
z = zipfile.ZipFile(d + '/ok.npz'); out = zipfile.ZipFile(d + '/bad.npz', 'w', zipfile.ZIP_STORED)
for name in z.namelist():
    b = bytearray(z.read(name)); hl = struct.unpack('<H', bytes(b[8:10]))[0]
    if name == 'id_0000.npy':   # int64 [B]: the first id becomes 999
        b[10 + hl:18 + hl] = struct.pack('<q', 999)
    out.writestr(name, bytes(b))
out.close()
PY
  $d/recom-here run $d/oor.pbtxt --emit-ptx $d/oor.ptx
  rm -f $d/recom-here
  exit 0
fi
cd $d
nvidia-smi --query-gpu=name --format=csv,noheader
./recom run oor.pbtxt --feeds ok.npz --tables oor.tables.npz --ptx oor.ptx --check -o ok-out.npz; echo "valid ids: rc=$?"
./recom run oor.pbtxt --feeds bad.npz --tables oor.tables.npz --ptx oor.ptx -o bad-out.npz; echo "id 999: rc=$?"
test -e bad-out.npz && echo "bad-out.npz EXISTS" || echo "no output file left"
