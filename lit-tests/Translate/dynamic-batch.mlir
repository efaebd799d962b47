// The TF2 census graph reads batches of 128 from a FIFO queue. Cut at the
// queue's DequeueMany (every output), its placeholders have an unknown
// batch, and so has everything computed from them: no 128 is left, and the
// shapes tf.shape and tf.zeros_like folded at 128 are Shape and ZerosLike
// ops again.
// RUN: recom-translate --import-graphdef %S/../../../shared/testdata/graphdefs/census_wide_deep_tf2_resource.pbtxt \
// RUN:   --inputs=fifo_queue_DequeueMany --outputs=head/predictions/logistic,head/predictions/probabilities -o %t.mlir
// RUN: FileCheck %s --check-prefix=DYN < %t.mlir
// RUN: FileCheck %s --check-prefix=NO128 < %t.mlir
// DYN-DAG: "tfg.Placeholder"() {{.*}}_mlir_name = "fifo_queue_DequeueMany/out1"{{.*}}shape = #tfg.shape<?>} : () -> (tensor<?xi64>, !tfg.control)
// DYN-DAG: "tfg.Placeholder"() {{.*}}_mlir_name = "fifo_queue_DequeueMany/out14"{{.*}}shape = #tfg.shape<?>} : () -> (tensor<?x!tfg.string>, !tfg.control)
// DYN-DAG: "tfg.Shape"(%{{.*}}) {T = i64, _mlir_name = "linear/linear_model/linear/linear_model/linear/linear_model/age/Shape", {{.*}}out_type = i32}
// DYN-DAG: "tfg.Shape"(%{{.*}}) {T = !tfg.string, _mlir_name = "linear/linear_model/linear/linear_model/linear/linear_model/education/to_sparse_input/dense_shape", {{.*}}out_type = i64}
// DYN-DAG: "tfg.ZerosLike"(%{{.*}}) {T = f32, _mlir_name = "head/predictions/zeros_like", _output_shapes = [#tfg.shape<?x1>]}
// DYN-DAG: "tfg.Sigmoid"(%{{.*}}) {{.*}}_mlir_name = "head/predictions/logistic", _output_shapes = [#tfg.shape<?x1>]} : (tensor<?x1xf32>) -> (tensor<?x1xf32>, !tfg.control)
// NO128-NOT: 128x
// NO128-NOT: <128
// NO128-NOT: [128
//
// With --dynamic-batch=false the batch stays at 128.
// RUN: recom-translate --import-graphdef %S/../../../shared/testdata/graphdefs/census_wide_deep_tf2_resource.pbtxt \
// RUN:   --inputs=fifo_queue_DequeueMany --outputs=head/predictions/logistic --dynamic-batch=false | FileCheck %s --check-prefix=STATIC
// STATIC-DAG: "tfg.Placeholder"() {{.*}}_mlir_name = "fifo_queue_DequeueMany/out1"{{.*}} : () -> (tensor<128xi64>, !tfg.control)
// STATIC-DAG: "tfg.Const"() {_mlir_name = "linear/linear_model/linear/linear_model/linear/linear_model/age/Shape", {{.*}}value = dense<[128, 1]> : tensor<2xi32>}
//
// A bare --dynamic-batch gives every placeholder of the cut an unknown batch,
// even one that is not a queue's: here dimension 0 of the dense input of a
// MatMul, which was 1.
// RUN: recom-translate --import-graphdef %S/../../../shared/testdata/graphdefs/census_wide_deep_tf2_resource.pbtxt \
// RUN:   --inputs=linear/linear_model/linear/linear_model/linear/linear_model/age/Reshape --outputs=linear/linear_model/linear/linear_model/linear/linear_model/age/weighted_sum \
// RUN:   --dynamic-batch | FileCheck %s --check-prefix=FORCE
// FORCE: "tfg.Placeholder"() {{.*}}_mlir_name = "linear/linear_model/linear/linear_model/linear/linear_model/age/Reshape"{{.*}} : () -> (tensor<?x1xf32>, !tfg.control)
//
// A bad value is refused.
// RUN: not recom-translate --import-graphdef %S/../../../shared/testdata/graphdefs/census_wide_deep_tf2_resource.pbtxt \
// RUN:   --inputs=fifo_queue_DequeueMany --outputs=head/predictions/logistic --dynamic-batch=sometimes 2>&1 | FileCheck %s --check-prefix=BAD
// BAD: recom-translate: error: --dynamic-batch="sometimes": want auto, true or false
