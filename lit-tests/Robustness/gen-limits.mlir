// recom gen's size flags are checked against their limits before anything
// is allocated: --columns 2000000000 and --feeds --batch 2000000000 ran out
// of memory. The message names the flag, the limit and the variable that
// raises it; exit status 1, no output file. (The program text is not used.)
// RUN: rm -rf %t && mkdir -p %t
// RUN: not recom gen --preset micro --columns 2000000000 -o %t/cols.pbtxt 2>&1 | FileCheck %s --check-prefix=COLS --implicit-check-not="internal error"
// RUN: test ! -e %t/cols.pbtxt
// COLS: recom: error: --columns 2000000000: too many columns: more than 65536 columns (set RECOM_MAX_GEN_COLUMNS to raise the limit; see docs/LIMITS.md)
// RUN: not recom gen --preset micro --columns 0 -o %t/zero.pbtxt 2>&1 | FileCheck %s --check-prefix=ZERO
// RUN: test ! -e %t/zero.pbtxt
// ZERO: recom: error: columns: must be positive (got 0)
// RUN: not env RECOM_MAX_GEN_COLUMNS=3 recom gen --preset micro --columns 4 -o %t/env.pbtxt 2>&1 | FileCheck %s --check-prefix=ENVCOLS
// ENVCOLS: recom: error: --columns 4: too many columns: more than 3 columns (set RECOM_MAX_GEN_COLUMNS
// RUN: env RECOM_MAX_GEN_COLUMNS=3 recom gen --preset micro --columns 3 -o %t/m.pbtxt 2>/dev/null
// A spec whose groups' counts add up past the limit.
// RUN: not recom gen --spec %S/Inputs/spec-too-many-columns.json -o %t/big.pbtxt 2>&1 | FileCheck %s --check-prefix=SPEC --implicit-check-not="internal error"
// RUN: test ! -e %t/big.pbtxt
// SPEC: spec-too-many-columns.json: groups: the groups' counts add up to too many columns: more than 65536 columns (set RECOM_MAX_GEN_COLUMNS to raise the limit; see docs/LIMITS.md) (or scale it down with --columns)
// RUN: not recom gen --feeds --batch 2000000000 %t/m.pbtxt -o %t/f.npz 2>&1 | FileCheck %s --check-prefix=BATCH --implicit-check-not="internal error"
// RUN: test ! -e %t/f.npz
// BATCH: recom: error: --batch 2000000000: too many rows: more than 1048576 rows (set RECOM_MAX_GEN_ROWS to raise the limit; see docs/LIMITS.md)
// RUN: not recom gen --feeds --batch 0 %t/m.pbtxt -o %t/f0.npz 2>&1 | FileCheck %s --check-prefix=BATCH0
// BATCH0: recom: error: --batch 0: must be positive (got 0)
// RUN: not env RECOM_MAX_GEN_ROWS=8 recom gen --feeds --batch 9 %t/m.pbtxt -o %t/f9.npz 2>&1 | FileCheck %s --check-prefix=ENVBATCH
// ENVBATCH: recom: error: --batch 9: too many rows: more than 8 rows (set RECOM_MAX_GEN_ROWS
// RUN: env RECOM_MAX_GEN_ROWS=8 recom gen --feeds --batch 8 %t/m.pbtxt -o %t/f8.npz
// RUN: test -s %t/f8.npz
// A feed spec's rows.
// RUN: echo '{"*": {"rows": 2000000000}}' > %t/rows.json
// RUN: not recom gen --feeds --feed-spec %t/rows.json %t/m.pbtxt -o %t/fr.npz 2>&1 | FileCheck %s --check-prefix=ROWS --implicit-check-not="internal error"
// RUN: test ! -e %t/fr.npz
// ROWS: rows: too many rows: more than 1048576 rows (set RECOM_MAX_GEN_ROWS
