// A generated two-tower model written as a TF1 Estimator DSSM export is
// (Inputs/dssm_tf1.json: every column an input_layer of its own, towers of
// dense + batch normalization, the features parsed from tf.Example records;
// hallucination11/serving's structure): --fuse makes the user tower's
// ConcatV2 "user" of three columns one layer and the item tower's one
// column, which reaches no ConcatV2 ("item/item" is an Identity), another;
// with the reshapes left (their shapes rebuilt as shape.from_extents) or
// their TensorFlow shape chains kept, the same.
// RUN: recom gen --spec %S/Inputs/dssm_tf1.json -o %t.pbtxt
// RUN: recom-translate --import-graphdef %t.pbtxt | recom-opt --lower-emb --simplify-shapes --fuse | FileCheck %s
// RUN: recom-translate --import-graphdef %t.pbtxt | recom-opt --lower-emb --simplify-shapes='no-reshape-removal=true' --fuse | FileCheck %s
// RUN: recom-translate --import-graphdef %t.pbtxt | recom-opt --lower-emb --simplify-shapes='no-operand-rebuild=true' --fuse | FileCheck %s

// CHECK-NOT:   emb.lookup
// CHECK-NOT:   emb.gather
// CHECK-DAG:   "fused.embedding_layer"({{.*}}) {_mlir_name = "user", {{.*}}kernel = @emb::@layer, {{.*}}width = 11 : i64} : ({{.*}}) -> tensor<?x11xf32>
// CHECK-DAG:   "fused.embedding_layer"({{.*}}) {_mlir_name = "item/item", {{.*}}kernel = @emb::@layer_1, {{.*}}width = 3 : i64} : ({{.*}}) -> tensor<?x3xf32>
// CHECK:       gpu.module @emb
// CHECK:         gpu.func @layer(
// CHECK:         gpu.func @layer_1(
