// The bundled model cut at its embedding layer (--outputs input_layer/concat)
// lowers like the whole graph: extraction keeps the vocabulary tables'
// initializers, so the vocabulary columns are recognised too (24 of 24
// columns lowered, no remark) and --fuse makes one kernel of them.
// RUN: recom-translate --import-graphdef %S/../../../examples/small.pbtxt --outputs input_layer/concat \
// RUN:   | recom-opt --lower-emb --mlir-pass-statistics -o /dev/null 2>&1 | FileCheck %s --implicit-check-not=remark:
// RUN: recom-translate --import-graphdef %S/../../../examples/small.pbtxt --outputs input_layer/concat \
// RUN:   | recom-opt --lower-emb | FileCheck %s --check-prefix=IR
// RUN: rm -rf %t && recom compile %S/../../../examples/small.pbtxt --outputs input_layer/concat -o %t --stop-after=fuse \
// RUN:   | FileCheck %s --check-prefix=COMPILE

// IR-COUNT-3: emb.vocab_lookup {{.*}}keys = dense<["w0", "w1",
// IR-NOT:     emb.vocab_lookup

// CHECK:     LowerEmb
// CHECK:     24 columns - Embedding columns found
// CHECK:     24 columns-lowered
// CHECK:      0 columns-unmatched
// CHECK:      3 columns-vocabulary

// COMPILE:      model: {{.*}}small.pbtxt (text GraphDef, 2068 nodes, {{[0-9]+}} after extraction)
// COMPILE:      columns: 24
// COMPILE:        vocabulary            3
// COMPILE:      kernels: 1 (layer)
// COMPILE-NEXT:   @emb::@layer: schedule tuned, 24 columns,
// COMPILE:        columns-unmatched                           0
// COMPILE:          layers                                      1
