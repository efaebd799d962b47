// Bad pass pipelines and pass options: a located error on the pipeline text
// (or the pass flag), exit status 1, no output file, never an internal error.
// RUN: not recom-opt %s --pass-pipeline='builtin.module(cse' -o %t.a 2>&1 | FileCheck %s --check-prefix=UNCLOSED --implicit-check-not="internal error"
// RUN: test ! -e %t.a
// UNCLOSED: <pass-pipeline>:1:19: error: expected ',' or ')' to close the 'builtin.module' pipeline
// RUN: not recom-opt %s --pass-pipeline='builtin.module(cse),' -o %t.b 2>&1 | FileCheck %s --check-prefix=TRAILING --implicit-check-not="internal error"
// RUN: test ! -e %t.b
// TRAILING: <pass-pipeline>:1:21: error: expected a pass name or an op name, found end of pipeline
// RUN: not recom-opt %s --pass-pipeline='builtin.module(cse))' -o %t.c 2>&1 | FileCheck %s --check-prefix=EXTRA --implicit-check-not="internal error"
// RUN: test ! -e %t.c
// EXTRA: <pass-pipeline>:1:20: error: expected ',' or end of pipeline
// RUN: not recom-opt %s --pass-pipeline='builtin.module(canonicalize{max-iterations=3)' -o %t.d 2>&1 | FileCheck %s --check-prefix=BRACE --implicit-check-not="internal error"
// RUN: test ! -e %t.d
// BRACE: <pass-pipeline>:1:28: error: missing '}' to close the pass options
// RUN: not recom-opt %s --pass-pipeline='builtin.module(canonicalize{max-iterations=abc})' -o %t.e 2>&1 | FileCheck %s --check-prefix=BADINT --implicit-check-not="internal error"
// RUN: test ! -e %t.e
// BADINT: <pass-pipeline>:1:29: error: pass 'canonicalize': option 'max-iterations': invalid integer value "abc"
// RUN: not recom-opt %s --pass-pipeline='builtin.module(canonicalize{nope=1})' -o %t.f 2>&1 | FileCheck %s --check-prefix=BADOPT --implicit-check-not="internal error"
// RUN: test ! -e %t.f
// BADOPT: <pass-pipeline>:1:{{[0-9]+}}: error: pass 'canonicalize': option 'nope': unknown option
// RUN: not recom-opt %s --pass-pipeline='builtin.module(no-such-pass)' -o %t.g 2>&1 | FileCheck %s --check-prefix=NOPASS --implicit-check-not="internal error"
// RUN: test ! -e %t.g
// NOPASS: <pass-pipeline>:1:16: error: 'no-such-pass' does not refer to a registered pass or pass pipeline
// RUN: not recom-opt %s --pass-pipeline='builtin.module(canonicalize{disable-patterns="a)' -o %t.h 2>&1 | FileCheck %s --check-prefix=QUOTE --implicit-check-not="internal error"
// RUN: test ! -e %t.h
// QUOTE: <pass-pipeline>:1:{{[0-9]+}}: error: unterminated quote in pass options
// RUN: not recom-opt %s --canonicalize='top-down=maybe' -o %t.i 2>&1 | FileCheck %s --check-prefix=BOOL --implicit-check-not="internal error"
// RUN: test ! -e %t.i
// BOOL: recom-opt: error: pass 'canonicalize': option 'top-down': invalid boolean value "maybe" (want true or false)
// RUN: not recom-opt %s --cse='x=1' -o %t.j 2>&1 | FileCheck %s --check-prefix=NOOPTS --implicit-check-not="internal error"
// RUN: test ! -e %t.j
// NOOPTS: recom-opt: error: pass 'cse': option 'x': unknown option; the pass has no options
// A nested pipeline thousands deep is parsed (it has no recursion limit of
// its own beyond the command line) and rejected for its unknown anchor op.
// RUN: not recom-opt %s --pass-pipeline="$(python3 -c "print('a(' * 3000 + 'cse' + ')' * 3000)")" -o %t.k 2>&1 | FileCheck %s --check-prefix=DEEP --implicit-check-not="internal error"
// RUN: test ! -e %t.k
// DEEP: error:

func.func @f() {
  func.return
}
