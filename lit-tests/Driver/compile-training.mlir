// recom compile of a training graph (criteo, with an iterator, gradients, an
// optimizer and a saver) warns on stderr with what it holds and where to cut
// it, and the summary notes the same.
// RUN: rm -rf %t && mkdir -p %t
// RUN: recom compile %S/../../../shared/testdata/graphdefs/criteo_bucketized_tiles.pbtxt --stop-after=import -o %t/whole 2>&1 >%t/stdout \
// RUN:   | FileCheck %s --check-prefix=WARN
// RUN: FileCheck %s --check-prefix=SUM --input-file=%t/whole/summary.txt
// WARN:      criteo_bucketized_tiles.pbtxt"): warning: training graph: it holds 53 gradient nodes (gradients/...), an optimizer (Adagrad/...), a saver (save/...), an iterator (IteratorGetNext), 2 summaries (loss, Merge/MergeSummary); cut it for inference with --inputs and --outputs
// WARN-NEXT: criteo_bucketized_tiles.pbtxt"): note: candidate inputs (a node stands for all its outputs): IteratorGetNext
// WARN-NEXT: criteo_bucketized_tiles.pbtxt"): note: candidate outputs: dense/Sigmoid
// WARN-NEXT: criteo_bucketized_tiles.pbtxt"): note: the loss: sparse_softmax_cross_entropy_loss/value
// SUM:      diagnostics: 1 warning (printed on stderr)
// SUM-NEXT: note: training graph: it holds 53 gradient nodes (gradients/...), an optimizer (Adagrad/...), a saver (save/...), an iterator (IteratorGetNext), 2 summaries (loss, Merge/MergeSummary); cut it for inference with --inputs and --outputs
// SUM-NEXT: note: candidate inputs (a node stands for all its outputs): IteratorGetNext
// SUM-NEXT: note: candidate outputs: dense/Sigmoid
// SUM-NEXT: note: the loss: sparse_softmax_cross_entropy_loss/value
//
// Cut at the candidates, it compiles without a word; its placeholders, one
// per output of IteratorGetNext that dense/Sigmoid needs, have an unknown
// batch.
// RUN: recom compile %S/../../../shared/testdata/graphdefs/criteo_bucketized_tiles.pbtxt --inputs=IteratorGetNext --outputs=dense/Sigmoid \
// RUN:   --stop-after=import -o %t/cut 2>&1 >%t/stdout | count 0
// RUN: FileCheck %s --check-prefix=CUT --input-file=%t/cut/0-tfg.mlir
// RUN: FileCheck %s --check-prefix=CUTSUM --input-file=%t/cut/summary.txt
// CUT-COUNT-11: "tfg.Placeholder"() {{.*}}_mlir_name = "IteratorGetNext/out{{[0-9]+}}"{{.*}} : () -> (tensor<?xf32>, !tfg.control)
// CUT-NOT:      "tfg.Placeholder"
// CUTSUM:     model: {{.*}}criteo_bucketized_tiles.pbtxt (text GraphDef, 1474 nodes, {{[0-9]+}} after extraction)
// CUTSUM-NOT: note: training graph
//
// --print-stages passes --dynamic-batch on to recom-translate.
// RUN: recom compile --print-stages --inputs=IteratorGetNext --outputs=dense/Sigmoid --dynamic-batch=false | FileCheck %s --check-prefix=STAGES
// STAGES: import MODEL 0-tfg.mlir recom-translate --import-graphdef --inputs=IteratorGetNext --outputs=dense/Sigmoid --dynamic-batch=false
