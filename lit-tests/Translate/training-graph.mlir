// Importing a training graph (TF1 wide & deep on census data) whole warns
// with what it holds and where to cut it for inference: the iterator
// (standing for all its outputs) and the head's outputs, the logits the
// loss is taken of first.
// RUN: recom-translate --import-graphdef %S/../../../shared/testdata/graphdefs/census_wide_deep_tf1.pbtxt -o %t.mlir 2>&1 \
// RUN:   | FileCheck %s --check-prefix=WHOLE
// WHOLE:      census_wide_deep_tf1.pbtxt: warning: training graph: it holds 503 gradient nodes (gradients/..., gradients_1/...), 2 optimizers (Adagrad/..., Ftrl/...), a saver (save/...), an iterator (IteratorGetNext), 15 summaries ({{.*}}); cut it for inference with --inputs and --outputs
// WHOLE-NEXT: census_wide_deep_tf1.pbtxt: note: candidate inputs (a node stands for all its outputs): IteratorGetNext
// WHOLE-NEXT: census_wide_deep_tf1.pbtxt: note: candidate outputs: head/predictions/logits, head/predictions/logistic, head/predictions/probabilities, head/predictions/str_classes
// WHOLE-NEXT: census_wide_deep_tf1.pbtxt: note: the loss: head/weighted_loss/Sum
//
// A cut that still needs the iterator fails, after the same warning.
// RUN: not recom-translate --import-graphdef %S/../../../shared/testdata/graphdefs/census_wide_deep_tf1.pbtxt \
// RUN:   --outputs=head/predictions/logistic -o %t.mlir 2>&1 | FileCheck %s --check-prefix=UNCUT
// UNCUT:      warning: training graph: it holds 503 gradient nodes
// UNCUT:      note: candidate inputs (a node stands for all its outputs): IteratorGetNext
// UNCUT:      error: node "OneShotIterator": cannot run at inference
//
// A cut that keeps gradient nodes says so.
// RUN: recom-translate --import-graphdef %S/../../../shared/testdata/graphdefs/census_wide_deep_tf1.pbtxt \
// RUN:   --inputs=IteratorGetNext --outputs=gradients/head/weighted_loss/Mul_grad/mul -o %t.mlir 2>&1 | FileCheck %s --check-prefix=GRAD
// GRAD:      warning: training graph: it holds 8 gradient nodes (gradients/...); cut it for inference
// GRAD-NEXT: note: candidate inputs (a node stands for all its outputs): IteratorGetNext
//
// Cut at the candidates (IteratorGetNext: every one of its 15 outputs, of
// which the outputs need 10), the graph imports without a word.
// RUN: recom-translate --import-graphdef %S/../../../shared/testdata/graphdefs/census_wide_deep_tf1.pbtxt \
// RUN:   --inputs=IteratorGetNext --outputs=head/predictions/logits,head/predictions/logistic -o %t.mlir 2>&1 \
// RUN:   | count 0
// RUN: FileCheck %s --check-prefix=CUT < %t.mlir
// CUT-COUNT-10: "tfg.Placeholder"() {{.*}}_mlir_name = "IteratorGetNext/out{{[0-9]+}}"
// CUT-NOT:      "tfg.Placeholder"
//
// The other real training graphs name their parts and candidates too.
// RUN: recom-translate --import-graphdef %S/../../../shared/testdata/graphdefs/census_wide_deep_tf2_resource.pbtxt -o %t.mlir 2>&1 \
// RUN:   | FileCheck %s --check-prefix=TF2
// TF2:      warning: training graph: it holds 241 gradient nodes (training/Ftrl/gradients/...), an optimizer (training/Ftrl/Ftrl/...), a saver (save/...), a queue (fifo_queue_DequeueMany), 5 summaries
// TF2-NEXT: note: candidate inputs (a node stands for all its outputs): fifo_queue_DequeueMany
// TF2-NEXT: note: candidate outputs: linear/linear_model/linear/linear_model/linear/linear_model/weighted_sum, head/predictions/logistic, head/predictions/probabilities, head/predictions/str_classes
// TF2-NEXT: note: the loss: head/losses/weighted_loss/value
// RUN: recom-translate --import-graphdef %S/../../../shared/testdata/graphdefs/criteo_bucketized_tiles.pbtxt -o %t.mlir 2>&1 \
// RUN:   | FileCheck %s --check-prefix=CRITEO
// CRITEO:      warning: training graph: it holds 53 gradient nodes (gradients/...), an optimizer (Adagrad/...), a saver (save/...), an iterator (IteratorGetNext), 2 summaries (loss, Merge/MergeSummary)
// CRITEO-NEXT: note: candidate inputs (a node stands for all its outputs): IteratorGetNext
// CRITEO-NEXT: note: candidate outputs: dense/Sigmoid
// CRITEO-NEXT: note: the loss: sparse_softmax_cross_entropy_loss/value
