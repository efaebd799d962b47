#!/usr/bin/env bash
# Regenerates the bundled example model from examples/specs/small.json:
# examples/small.pbtxt (the GraphDef) and examples/small.tables.npz (its
# variables), with seed 1. Run after changing the spec or the generator.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
export PATH="/usr/local/go/bin:$PATH"
go run ./cmd/recom gen --spec examples/specs/small.json --seed 1 -o examples/small.pbtxt
