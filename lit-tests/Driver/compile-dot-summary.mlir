// recom compile --dot FILE --dot-summary draws one node per schedule class
// of the fused kernel (its columns: count, transform chain, lookups,
// widths, table rows) instead of a cluster per column, so that a model of
// thousands of columns gives a picture one can read; before --fuse, the
// columns are grouped by transform chain. The same model gives the same
// file.
// RUN: rm -rf %t && mkdir -p %t
// RUN: recom compile %S/../../examples/small.pbtxt -o %t/out --stop-after=fuse -q --dot %t/a.dot --dot-summary
// RUN: recom compile %S/../../examples/small.pbtxt -o %t/out --stop-after=fuse -q --dot %t/b.dot --dot-summary
// RUN: cmp %t/a.dot %t/b.dot
// RUN: FileCheck %s --input-file=%t/a.dot --implicit-check-not=cluster
// RUN: recom compile %S/../../examples/small.pbtxt -o %t/out --stop-after=simplify-shapes -q --dot - --dot-summary \
// RUN:   | FileCheck %s --check-prefix=EARLY --implicit-check-not=box3d
// RUN: not recom compile %S/../../examples/small.pbtxt -o %t/out --dot-summary 2>&1 | FileCheck %s --check-prefix=NODOT

// CHECK:      digraph recom {
// CHECK-NEXT:   graph [rankdir=LR, {{.*}}label="small.pbtxt: 24 embedding columns in 10 groups (summary)"
// CHECK:        g0 [label="class 0: 2 columns\nfrom_dense -> filter\ngather_scatter mean\nwidth 8, 100 table rows"];
// CHECK:        g2 [label="class 2: 3 columns\nfrom_dense -> as_string -> hash\ngather_scatter sum\nwidth 4, 300 table rows"];
// CHECK:        g9 [label="class 9: 2 columns\nfrom_dense -> hash -> filter\nlookup sqrtn, weighted\nwidth 8, 200 table rows"];
// CHECK-NEXT:   k0 [label="kernel @emb::@layer\nschedule tuned, 24 columns, {{.*}}, 10 schedule classes", shape=box3d];
// CHECK-NEXT:   dense [label="dense part\n{{[0-9]+}} ops"
// CHECK-NEXT:   g0 -> k0 [label="2"];
// CHECK:        g9 -> k0 [label="2"];
// CHECK-NEXT:   k0 -> dense;
// CHECK-NEXT: }

// EARLY: label="small.pbtxt: 24 embedding columns in {{[0-9]+}} groups (summary)"
// EARLY: g0 [label="not fused: {{[0-9]+}} columns\n
// EARLY: g0 -> dense [label="not fused", style=dashed];

// NODOT: --dot-summary draws the --dot FILE: give --dot too
