#!/usr/bin/env bash
# Runs every test of the repository: go vet, staticcheck, go test (and the
# server's package again under the race detector), the
# lit/FileCheck tests under lit-tests/, and the bench scripts' Python checks. This is the README's test command;
# .ci/run calls it.
#
#   scripts/test.sh            # everything
#   scripts/test.sh -v         # lit verbose (shows failing tests' output)
#   LIT_FILTER=Driver scripts/test.sh   # only lit tests whose path matches
#
# Missing tools (llc-19, FileCheck, not, lit; curl for serve's TestCurl;
# numpy and torch for the bench scripts' dry runs) are installed with apt-get
# when possible, staticcheck with go install into bin/tools. Under CI=true a
# tool still missing after that fails the run; elsewhere its step is skipped
# with a warning.
set -uo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"

LLVM_BIN=${LLVM_BIN:-/usr/lib/llvm-19/bin}
LIT=${LIT:-/usr/lib/llvm-19/build/utils/lit/lit.py}
export PATH="$root/bin:$LLVM_BIN:/usr/local/go/bin:$PATH"
lit_args=()
[ "${1:-}" = "-v" ] && lit_args+=(-v)

say() { printf '== %s\n' "$*"; }
failed=()

missing_tools() {
  local m=()
  command -v llc-19 >/dev/null 2>&1 || m+=(llc-19)
  [ -x "$LLVM_BIN/FileCheck" ] || command -v FileCheck >/dev/null 2>&1 || m+=(FileCheck)
  [ -x "$LLVM_BIN/not" ] || command -v not >/dev/null 2>&1 || m+=(not)
  [ -f "$LIT" ] || m+=(lit)
  echo "${m[@]}"
}

# The bench scripts' checks below want a python3 with numpy and torch:
# Debian's python3-numpy and python3-torch for /usr/bin/python3 when no
# python3 on the PATH has them (PyPI may be out of reach).
has_py_torch() {
  local py
  for py in python3 /usr/bin/python3; do
    "$py" -c 'import numpy, torch' >/dev/null 2>&1 && return 0
  done
  return 1
}

missing=$(missing_tools)
command -v curl >/dev/null 2>&1 || missing="$missing curl"
has_py_torch || missing="$missing python3-numpy/python3-torch"
if [ -n "$missing" ]; then
  pkgs="llvm-19 llvm-19-tools curl"
  has_py_torch || pkgs="$pkgs python3-numpy python3-torch"
  say "missing: $missing; installing $pkgs"
  sudo=""
  [ "$(id -u)" -ne 0 ] && command -v sudo >/dev/null 2>&1 && sudo="sudo"
  { $sudo apt-get update && $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends $pkgs; } >/tmp/recom-apt.log 2>&1 ||
    say "apt-get failed (log: /tmp/recom-apt.log)"
  missing=$(missing_tools)
fi
run_lit=1
if [ -n "$missing" ]; then
  if [ "${CI:-}" = "true" ]; then
    say "FAIL: still missing after install: $missing"
    failed+=("tools ($missing)")
  else
    say "WARNING: still missing: $missing; skipping lit (under CI=true this fails)"
  fi
  run_lit=0
fi

# staticcheck, pinned; findings that stay are waived in the code with
# //lint:ignore CHECK reason.
STATICCHECK_VERSION=0.8.2
staticcheck="$root/bin/tools/staticcheck"
have_staticcheck() { [[ "$("$staticcheck" -version 2>/dev/null)" == *"($STATICCHECK_VERSION)"* ]]; }
if ! have_staticcheck; then
  say "installing staticcheck v$STATICCHECK_VERSION -> bin/tools/"
  GOBIN="$root/bin/tools" go install "honnef.co/go/tools/cmd/staticcheck@v$STATICCHECK_VERSION" >/tmp/recom-staticcheck.log 2>&1 ||
    say "go install failed (log: /tmp/recom-staticcheck.log)"
fi
run_staticcheck=1
if ! have_staticcheck; then
  if [ "${CI:-}" = "true" ]; then
    say "FAIL: still missing after install: staticcheck v$STATICCHECK_VERSION"
    failed+=("tools (staticcheck)")
  else
    say "WARNING: still missing: staticcheck v$STATICCHECK_VERSION; skipping it (under CI=true this fails)"
  fi
  run_staticcheck=0
fi

say "go build -> bin/"
mkdir -p bin
# The revision goes in by -ldflags too: --version names it even where Go's
# VCS stamping is off (GOFLAGS=-buildvcs=false).
rev=$(git rev-parse HEAD 2>/dev/null || true)
if ! go build -ldflags "-X github.com/recom-compiler/recom/cmd/internal/toolflag.Revision=${rev}" -o bin/ ./cmd/...; then
  failed+=("go build")
  run_lit=0
fi

say "go vet ./..."
go vet ./... || failed+=("go vet")

if [ "$run_staticcheck" = 1 ]; then
  say "staticcheck ./..."
  "$staticcheck" ./... || failed+=("staticcheck")
fi

say "go test ./..."
# No fuzzing (-fuzz is never given) and no benchmarks (-bench is unset).
go test -count=1 ./... || failed+=("go test")

# The server under the race detector: its requests share pooled buffers,
# views of their bodies and the batcher's slots across goroutines.
say "go test -race ./serve"
CGO_ENABLED=1 go test -race -count=1 ./serve || failed+=("go test -race ./serve")

if [ "$run_lit" = 1 ]; then
  say "lit lit-tests/"
  filter=()
  [ -n "${LIT_FILTER:-}" ] && filter=(--filter "$LIT_FILTER")
  # lit prints its summary ("Total Discovered Tests: ... Passed: ... Failed: ...").
  python3 "$LIT" "${lit_args[@]}" "${filter[@]}" --param recom_bin="$root/bin" lit-tests/ || failed+=("lit")
fi

say "bench/*.py"
# The bench scripts run on the GPU machine; here they must compile, pass their
# self-tests (no numpy needed), and peer_serve.py's dry run (the numpy backend
# through the load and the search) where a python3 has numpy.
if python3 -m py_compile bench/*.py && python3 bench/peer_serve.py --self-test &&
  python3 bench/serve_metrics.py --self-test; then
  npy=""
  for py in python3 /usr/bin/python3; do
    if "$py" -c 'import numpy, torch' >/dev/null 2>&1; then npy=$py; break; fi
  done
  if [ -z "$npy" ]; then
    for py in python3 /usr/bin/python3; do
      if "$py" -c 'import numpy' >/dev/null 2>&1; then npy=$py; break; fi
    done
  fi
  if [ -z "$npy" ]; then
    say "no python3 with numpy: bench/peer_serve.py --dry-run skipped (under CI=true this fails)"
    [ "${CI:-}" = true ] && failed+=("bench python: no numpy")
  else
    # Not timed: it passes on the predictions' check and a search that ends
    # (the bound of 1 s is there so that a busy machine still finds a rate).
    # The spec's MLP (model E's kind), then a dumped dense part (dense.json:
    # a real model's kind, the taxi export's wide & deep head).
    for dry in "" --dry-chain; do
      if ! "$npy" bench/peer_serve.py --dry-run $dry --max-p99 1s >/tmp/recom-peer-serve.log 2>&1 ||
        ! grep -q '^SERVE_MAX ' /tmp/recom-peer-serve.log; then
        tail -20 /tmp/recom-peer-serve.log
        failed+=("peer_serve --dry-run $dry")
      else
        grep '^SERVE_MAX' /tmp/recom-peer-serve.log
      fi
    done
  fi
  # peers.py's dry run (every peer, layer, whole model and a dumped dense
  # part with a classifier head, on the CPU) where that python3 has torch;
  # and peer_serve.py's PyTorch backend on the CPU, with either model, at
  # one rate (its predictions checked).
  if [ -z "$npy" ] || ! "$npy" -c 'import torch' >/dev/null 2>&1; then
    say "no python3 with numpy and torch: bench/peers.py --dry-run skipped (under CI=true this fails)"
    [ "${CI:-}" = true ] && failed+=("bench python: no torch")
  else
    if ! "$npy" bench/peers.py --dry-run >/tmp/recom-peers-dry.log 2>&1; then
      tail -20 /tmp/recom-peers-dry.log
      failed+=("peers --dry-run")
    else
      tail -1 /tmp/recom-peers-dry.log
    fi
    for dry in "" --dry-chain; do
      # Every batch size on every slot before the load (the steady state).
      if ! "$npy" bench/peer_serve.py --dry-run $dry --backend torch --max-p99 0 --rates 500 >/tmp/recom-peer-serve.log 2>&1 ||
        ! grep -q '^SERVE .*success=1.0 ' /tmp/recom-peer-serve.log ||
        ! grep -q 'warmed up: a batch of every size from 1 to 256 rows on each of 4 slots' /tmp/recom-peer-serve.log ||
        ! grep -q '^SERVE_WARMUP ' /tmp/recom-peer-serve.log; then
        tail -20 /tmp/recom-peer-serve.log
        failed+=("peer_serve --dry-run $dry --backend torch")
      else
        grep '^SERVE ' /tmp/recom-peer-serve.log
      fi
    done
  fi
else
  failed+=("bench python")
fi

if [ ${#failed[@]} -gt 0 ]; then
  say "FAILED: ${failed[*]}"
  exit 1
fi
say "all tests passed"
