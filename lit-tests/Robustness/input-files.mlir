// Every input is read with a bound on its size (RECOM_MAX_INPUT_BYTES,
// default 1 GiB): a device that never ends or a file over the limit is
// refused with a message naming it, the limit and how to raise it, exit
// status 1, no output file. The limit is lowered here to keep the runs
// cheap. (The text below is unused.)
// RUN: rm -rf %t && mkdir -p %t
// RUN: env RECOM_MAX_INPUT_BYTES=1000000 not recom-opt /dev/zero -o %t/o.mlir 2>&1 | FileCheck %s --check-prefix=ZERO
// ZERO: recom-opt: error: /dev/zero: input is too large: more than 1000000 bytes (set RECOM_MAX_INPUT_BYTES to raise the limit; see docs/LIMITS.md)
// RUN: env RECOM_MAX_INPUT_BYTES=1000000 not recom-opt - < /dev/urandom 2>&1 | FileCheck %s --check-prefix=STDIN
// STDIN: recom-opt: error: <stdin>: input is too large: more than 1000000 bytes (set RECOM_MAX_INPUT_BYTES
// RUN: env RECOM_MAX_INPUT_BYTES=1000000 not recom-translate --import-graphdef /dev/urandom -o %t/o.mlir 2>&1 | FileCheck %s --check-prefix=GRAPH
// GRAPH: recom-translate: error: /dev/urandom: input is too large: more than 1000000 bytes (set RECOM_MAX_INPUT_BYTES
// RUN: env RECOM_MAX_INPUT_BYTES=1000000 not recom interp %S/../../examples/small.pbtxt --feeds /dev/zero -o %t/o.npz 2>&1 | FileCheck %s --check-prefix=FEEDS
// FEEDS: /dev/zero: input is too large: more than 1000000 bytes (set RECOM_MAX_INPUT_BYTES
// A regular file over the limit is refused by its size, before it is read.
// RUN: env RECOM_MAX_INPUT_BYTES=1000000 not recom compile /dev/zero -o %t/out 2>&1 | FileCheck %s --check-prefix=MODEL
// RUN: env RECOM_MAX_INPUT_BYTES=1000000 not recom interp /dev/urandom --feeds /dev/null -o %t/o.npz 2>&1 | FileCheck %s --check-prefix=MODEL
// MODEL: /dev/{{zero|urandom}}: input is too large: more than 1000000 bytes (set RECOM_MAX_INPUT_BYTES
// RUN: env RECOM_MAX_INPUT_BYTES=1000 not recom-opt %S/limits.mlir 2>&1 | FileCheck %s --check-prefix=FILE
// FILE: limits.mlir: input of {{[0-9]+}} bytes is too large: more than 1000 bytes (set RECOM_MAX_INPUT_BYTES
//
// An .npz file's arrays together may take RECOM_MAX_NPZ_BYTES (default
// 2 GiB), checked before memory is taken for each member: a 32 kB archive
// of eight 4 MB members, and a 16 kB one of a <U1048576 array (16 MB).
// RUN: python3 %S/Inputs/npz-bomb.py %t/bomb.npz 8 1000000
// RUN: python3 %S/Inputs/npz-bomb.py %t/wide.npz 1 1 U
// RUN: env RECOM_MAX_NPZ_BYTES=10000000 not recom compare %t/bomb.npz %t/bomb.npz 2>&1 | FileCheck %s --check-prefix=BOMB
// BOMB: bomb.npz: npz: member "m2.npy": {{.*}}(after 8000000 bytes of arrays before it) needs {{[0-9]+}} bytes: more than 10000000 bytes (set RECOM_MAX_NPZ_BYTES to raise the limit; see docs/LIMITS.md)
// RUN: env RECOM_MAX_NPZ_BYTES=10000000 not recom compare %t/wide.npz %t/wide.npz 2>&1 | FileCheck %s --check-prefix=WIDE
// WIDE: wide.npz: npz: member "u.npy": {{.*}} more than 10000000 bytes (set RECOM_MAX_NPZ_BYTES
// Raised, the same archive reads.
// RUN: env RECOM_MAX_NPZ_BYTES=40000000 recom compare %t/bomb.npz %t/bomb.npz | FileCheck %s --check-prefix=RAISED
// RAISED: match: 8 arrays, 8000000 elements
// RUN: ls -a %t | FileCheck %s --check-prefix=LEFT
// LEFT-NOT: o.mlir
// LEFT-NOT: o.npz
// LEFT-NOT: tmp
