// recom compile --dot FILE draws the column structure as a Graphviz graph:
// one cluster per column (source, transforms, table with its shape, lookup
// with combiner and schedule class), one node per fused kernel, the dense
// part as one node. The same model gives the same file.
// RUN: rm -rf %t && mkdir -p %t
// RUN: recom compile %S/../../examples/small.pbtxt -o %t/out --stop-after=fuse -q --dot %t/a.dot
// RUN: recom compile %S/../../examples/small.pbtxt -o %t/out --stop-after=fuse -q --dot %t/b.dot
// RUN: cmp %t/a.dot %t/b.dot
// RUN: FileCheck %s --input-file=%t/a.dot
// RUN: recom compile %S/../../examples/small.pbtxt -o %t/out --stop-after=fuse -q --dot - | FileCheck %s
//
// Before --fuse, every column goes to the dense part, not fused.
// RUN: recom compile %S/../../examples/small.pbtxt -o %t/out --stop-after=simplify-shapes -q --dot - \
// RUN:   | FileCheck %s --check-prefix=EARLY --implicit-check-not=box3d

// CHECK:      digraph recom {
// CHECK-NEXT:   graph [rankdir=LR, {{.*}}label="small.pbtxt: 24 embedding columns"
// CHECK:        subgraph cluster_0 {
// CHECK-NEXT:     label="input_layer/{{.*}}_embedding_weights";
// CHECK:          c0_src0 [label="{{.*}}", shape=ellipse];
// CHECK:          c0_table [label="{{.*}}\n{{[0-9]+}} x {{[0-9]+}}", shape=cylinder];
// CHECK:          c0_lookup [label="{{(lookup|gather|gather_scatter)}}\ncombiner {{(sum|mean|sqrtn)}}\nclass {{[0-9]+}}"];
// CHECK:        subgraph cluster_23 {
// CHECK-NOT:    subgraph cluster_24
// CHECK:        k0 [label="kernel @emb::@layer\nschedule tuned, 24 columns, {{.*}}", shape=box3d];
// CHECK-NEXT:   dense [label="dense part\n{{[0-9]+}} ops"
// CHECK-NEXT:   k0 -> dense;
// CHECK-NEXT:   c0_lookup -> k0;
// CHECK:        c23_lookup -> k0;
// CHECK-NEXT: }

// EARLY:      subgraph cluster_23 {
// EARLY:      c0_lookup -> dense [label="not fused", style=dashed];
// EARLY:      c23_lookup -> dense [label="not fused", style=dashed];
