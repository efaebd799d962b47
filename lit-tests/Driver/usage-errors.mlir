// Bad command lines fail with a message and exit status 1.
// RUN: not recom-opt --no-such-flag %s 2>&1 | FileCheck %s --check-prefix=FLAG
// FLAG: recom-opt: error: unknown flag: --no-such-flag

// RUN: not recom-opt %s --pass-pipeline='builtin.module(nope)' 2>&1 | FileCheck %s --check-prefix=UNKNOWN
// UNKNOWN:      <pass-pipeline>:1:16: error: 'nope' does not refer to a registered pass or pass pipeline
// UNKNOWN-NEXT: builtin.module(nope)
// UNKNOWN-NEXT: {{^               \^}}

// RUN: not recom-opt %s --pass-pipeline='builtin.module(cse)' --cse 2>&1 | FileCheck %s --check-prefix=BOTH
// BOTH: error: '--pass-pipeline' can't be used with individual pass flags

// RUN: not recom-opt %s --canonicalize='no-such-option=1' 2>&1 | FileCheck %s --check-prefix=OPT
// OPT: pass 'canonicalize': option 'no-such-option': unknown option

// RUN: not recom-opt %s.missing 2>&1 | FileCheck %s --check-prefix=MISSING
// MISSING: recom-opt: error: cannot open input file

func.func @f() {
  func.return
}
