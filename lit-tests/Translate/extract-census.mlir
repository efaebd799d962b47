// Inference subgraph of a real Estimator training graph (TF1 wide & deep on
// census data): the outputs of IteratorGetNext become placeholders, and
// nothing of training (gradients, optimizer, saver, summaries) remains.
// RUN: recom-translate --import-graphdef %S/../../../shared/testdata/graphdefs/census_wide_deep_tf1.pbtxt \
// RUN:   --inputs=IteratorGetNext:0,IteratorGetNext:1,IteratorGetNext:2,IteratorGetNext:3,IteratorGetNext:4,IteratorGetNext:5,IteratorGetNext:6,IteratorGetNext:7,IteratorGetNext:8,IteratorGetNext:9,IteratorGetNext:10,IteratorGetNext:11,IteratorGetNext:12,IteratorGetNext:13,IteratorGetNext:14 \
// RUN:   --outputs=dnn/input_from_feature_columns/input_layer/concat,dnn/logits/BiasAdd -o %t.mlir
// RUN: FileCheck %s < %t.mlir
// RUN: FileCheck --check-prefix=NOTRAIN %s < %t.mlir
// CHECK-DAG: "tfg.Placeholder"() {{.*}}_mlir_name = "IteratorGetNext/out0"
// CHECK-DAG: "tfg.SparseSegmentMean"
// CHECK-DAG: "tfg.ConcatV2"({{.*}}_mlir_name = "dnn/input_from_feature_columns/input_layer/concat"
// CHECK-DAG: _mlir_name = "dnn/logits/BiasAdd"
// NOTRAIN-NOT: gradients/
// NOTRAIN-NOT: "tfg.IteratorGetNext"
// NOTRAIN-NOT: "tfg.ApplyAdagrad"
// NOTRAIN-NOT: save/
// NOTRAIN-NOT: "tfg.ScalarSummary"
