// Bad GraphDefs: each gets an error naming the node, exit code 1, and no output file.
// RUN: not recom-translate --import-graphdef %S/Inputs/dup.pbtxt -o %t.dup 2>&1 | FileCheck --check-prefix=DUP %s
// RUN: test ! -e %t.dup
// DUP: node "a": duplicate node name
// RUN: not recom-translate --import-graphdef %S/Inputs/missing.pbtxt -o %t.missing 2>&1 | FileCheck --check-prefix=MISSING %s
// RUN: test ! -e %t.missing
// MISSING: node "a"{{.*}}nowhere
// RUN: not recom-translate --import-graphdef %S/Inputs/cycle.pbtxt -o %t.cycle 2>&1 | FileCheck --check-prefix=CYCLE %s
// RUN: test ! -e %t.cycle
// CYCLE: cycle
// RUN: not recom-translate --import-graphdef %S/Inputs/badindex.pbtxt 2>&1 | FileCheck --check-prefix=INDEX %s
// INDEX: node "a"{{.*}}c:4
// RUN: not recom-translate --import-graphdef %S/Inputs/baddtype.pbtxt 2>&1 | FileCheck --check-prefix=DTYPE %s
// DTYPE: {{.*}}"p"{{.*}}77
// RUN: not recom-translate --import-graphdef %S/Inputs/badattr.pbtxt 2>&1 | FileCheck --check-prefix=ATTR %s
// ATTR: error: 'tfg.Const' op (node "c") attribute 'dtype' must be a TensorFlow type
// RUN: not recom-translate --import-graphdef %S/Inputs/syntax.pbtxt 2>&1 | FileCheck --check-prefix=SYNTAX %s
// SYNTAX: syntax.pbtxt:{{[0-9]+}}:{{[0-9]+}}
// RUN: not recom-translate --import-graphdef %S/Inputs/truncated.pb 2>&1 | FileCheck --check-prefix=TRUNC %s
// TRUNC: truncated or malformed
// An existing output file is left as it was when a run fails.
// RUN: echo keep > %t.keep
// RUN: not recom-translate --import-graphdef %S/Inputs/dup.pbtxt -o %t.keep
// RUN: FileCheck --check-prefix=KEEP %s < %t.keep
// KEEP: keep
// Exporting IR that is not a tfg graph fails with a located error.
// RUN: not recom-translate --export-graphdef %S/Inputs/notgraph.mlir 2>&1 | FileCheck --check-prefix=NOGRAPH %s
// NOGRAPH: error: no tfg.graph op to export
// Both or neither mode flag: a usage error.
// RUN: not recom-translate %S/Inputs/dup.pbtxt 2>&1 | FileCheck --check-prefix=USAGE %s
// USAGE: exactly one of --import-graphdef and --export-graphdef
