// Bad --inputs/--outputs for recom-translate: names of missing nodes, bad
// and out-of-range output indices, --inputs without --outputs, an empty
// file. Exit status 1, no output file, never an internal error.
// RUN: not recom-translate --import-graphdef --inputs=nope --outputs=small %S/Inputs/gd-partial-ok.pbtxt -o %t.in 2>&1 | FileCheck --check-prefix=IN --implicit-check-not="internal error" %s
// RUN: test ! -e %t.in
// IN: gd-partial-ok.pbtxt: error: extract: input "nope": input names a missing node: no node "nope"
// RUN: not recom-translate --import-graphdef --outputs=nope:0 %S/Inputs/gd-partial-ok.pbtxt -o %t.out 2>&1 | FileCheck --check-prefix=OUT --implicit-check-not="internal error" %s
// RUN: test ! -e %t.out
// OUT: gd-partial-ok.pbtxt: error: {{.*}}"nope"
// RUN: not recom-translate --import-graphdef --outputs=small:5 %S/Inputs/gd-partial-ok.pbtxt -o %t.idx 2>&1 | FileCheck --check-prefix=IDX --implicit-check-not="internal error" %s
// RUN: test ! -e %t.idx
// IDX: gd-partial-ok.pbtxt: error: node "small": output index out of range: output "small:5": op Const has 1 outputs
// RUN: not recom-translate --import-graphdef --outputs=small:abc %S/Inputs/gd-partial-ok.pbtxt -o %t.bad 2>&1 | FileCheck --check-prefix=BADIDX --implicit-check-not="internal error" %s
// RUN: test ! -e %t.bad
// BADIDX: gd-partial-ok.pbtxt: error: extract: output "small:abc": malformed input string "small:abc": bad output index "abc"
// RUN: not recom-translate --import-graphdef --inputs=small %S/Inputs/gd-partial-ok.pbtxt -o %t.noout 2>&1 | FileCheck --check-prefix=NOOUT --implicit-check-not="internal error" %s
// RUN: test ! -e %t.noout
// NOOUT: gd-partial-ok.pbtxt: error: --inputs needs --outputs (what to compute from them)
// RUN: not recom-translate --import-graphdef %S/Inputs/does-not-exist.pbtxt -o %t.nofile 2>&1 | FileCheck --check-prefix=NOFILE --implicit-check-not="internal error" %s
// RUN: test ! -e %t.nofile
// NOFILE: recom-translate: error: {{.*}}does-not-exist.pbtxt
// Exporting IR that does not parse: located error, no output.
// RUN: not recom-translate --export-graphdef %s -o %t.exp 2>&1 | FileCheck --check-prefix=EXPORT --implicit-check-not="internal error" %s
// RUN: test ! -e %t.exp
// EXPORT: translate-cli.mlir:[[@LINE+1]]:22: error: expected ']' to end array attribute, got '}'
"tfg.graph"() {x = [1} ({}) : () -> ()
