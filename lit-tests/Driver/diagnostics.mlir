// Diagnostics go to stderr as file:line:col: error: message, followed, as
// MLIR's are, by the source line and a caret under the column; the exit
// status is 1, and nothing is printed on stdout.
// RUN: not recom-opt %S/Inputs/bad.mlir 2>&1 | FileCheck %s
// RUN: not recom-opt %S/Inputs/bad.mlir 2>/dev/null | count 0
// RUN: not recom-opt < %S/Inputs/bad.mlir 2>&1 | FileCheck %s --check-prefix=STDIN

// CHECK:      {{.*}}bad.mlir:3:15: error: use of undeclared SSA value name '%undefined'
// CHECK-NEXT: {{^}}  func.return %undefined : i64
// CHECK-NEXT: {{^              \^$}}
// STDIN:      <stdin>:3:15: error: use of undeclared SSA value name '%undefined'
// STDIN-NEXT: {{^}}  func.return %undefined : i64
// STDIN-NEXT: {{^              \^$}}

// A GraphDef given to recom-opt is not IR: the error says how to import it.
// RUN: printf 'node {\n  name: "a"\n  op: "NoOp"\n}\n' > %t.pbtxt
// RUN: not recom-opt %t.pbtxt 2>&1 | FileCheck %s --check-prefix=GRAPH
// RUN: not recom-opt < %t.pbtxt 2>&1 | FileCheck %s --check-prefix=GRAPH-STDIN
// GRAPH:      .pbtxt:1:1: error: custom op 'node' is unknown
// GRAPH-NEXT: {{^}}node {
// GRAPH-NEXT: {{^\^$}}
// GRAPH-NEXT: .pbtxt:1:1: note: this is a TensorFlow graph, not IR: import it with 'recom-translate --import-graphdef {{.*}}.pbtxt' (or compile it with 'recom compile')
// GRAPH-STDIN: <stdin>:1:1: note: this is a TensorFlow graph, not IR: import it with 'recom-translate --import-graphdef -'
