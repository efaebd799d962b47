// REQUIRES: llc
// RUN: recom-opt --fuse --verify-diagnostics %s | FileCheck %s
// RUN: recom-opt --fuse='host-ids=filter' %s 2>/dev/null | FileCheck %s --check-prefix=HOST
// RUN: recom-opt --fuse='host-ids=filter' %s 2>&1 >/dev/null | FileCheck %s --check-prefix=REMARK
// RUN: recom-opt --fuse %s | recom-translate --emit-llvm - | llc-19 -march=nvptx64 -mcpu=sm_90 | FileCheck %s --check-prefix=PTX

// Vocabularies with TensorFlow's default default_value = -1: a missing word
// becomes id -1, which safe_embedding_lookup_sparse prunes from its bag
// (emb.filter min = 0). The kernel computes the vocabulary lookup and drops
// those ids itself (the transform "drop", the filter's bounds): the fused op
// takes the raw strings and the unfiltered row splits and weights. A
// positive_weights filter, before or with the pruning, is rebuilt on the
// raw values. Ids the kernel cannot prove inside their table (the raw ids
// of an identity column) stay checked on the host, and a remark says so.

// CHECK-LABEL: func.func @layer
// CHECK-NOT:     emb.vocab_lookup
// CHECK-NOT:     min = 0
// CHECK:         emb.filter %{{.*}} {positive_weights} : tensor<?xi64>, tensor<?xf32>
// CHECK:         "fused.embedding_layer"(%{{.*}}) {{{.*}}columns = [
// CHECK-SAME:      name = "words", {{[^}]*}}source = "str", {{[^}]*}}transforms = [{default = -1 : i64, keys = dense<["a", "bb", "c"]> : tensor<3x!tfg.string>, num_oov_buckets = 0 : i64, op = "vocab"}, {max = 9223372036854775807 : i64, min = 0 : i64, op = "drop"}]
// CHECK-SAME:      name = "weighted", {{[^}]*}}source = "i64", {{[^}]*}}transforms = [{default = -1 : i64, keys = dense<[5, 9, 2]> : tensor<3xi64>, num_oov_buckets = 0 : i64, op = "vocab"}, {max = 9223372036854775807 : i64, min = 0 : i64, op = "drop"}]
// CHECK-SAME:      name = "raw"
// CHECK-NOT:       op = "drop"
// CHECK-SAME:    schedule = "tuned"
// CHECK:       gpu.module @emb

// With the filters left on the host, the vocabulary lookups stay too (the
// kernel would read the filtered ids' positions), and say why.
// REMARK: remark: 'emb.lookup' op (node "words") ids computed before the layer: its ids are computed by 'emb.vocab_lookup' (node "words/lookup"): 'emb.filter' (node "words/Where") stays before the layer (host-ids=filter)
// REMARK: remark: 'emb.lookup' op (node "weighted") ids computed before the layer
// REMARK: remark: 'emb.lookup' op (node "raw") ids computed before the layer
// HOST: emb.vocab_lookup
// HOST: "fused.embedding_layer"

// PTX:     .entry layer(
// PTX-NOT: .entry
func.func @layer(%s: tensor<?x4x!tfg.string>, %i: tensor<?x3xi64>, %w: tensor<?x3xf32>, %r: tensor<?xi64>) -> tensor<?x20xf32> {
  %t0 = emb.table {name = "words"} : tensor<3x8xf32>
  %v0, %s0 = emb.from_dense %s {ignore = ""} : tensor<?x4x!tfg.string> -> tensor<?x!tfg.string>
  %k0 = emb.vocab_lookup %v0 {keys = dense<["a", "bb", "c"]> : tensor<3x!tfg.string>, default = -1 : i64} : tensor<?x!tfg.string> -> tensor<?xi64> loc("words/lookup")
  %f0, %fs0 = emb.filter %k0, %s0 {min = 0 : i64} : tensor<?xi64> loc("words/Where")
  %l0 = emb.lookup %t0, %f0, %fs0 {combiner = "mean"} : tensor<3x8xf32>, tensor<?xi64> -> tensor<?x8xf32> loc("words")

  %t1 = emb.table {name = "weighted"} : tensor<3x8xf32>
  %v1, %s1 = emb.from_dense %i : tensor<?x3xi64> -> tensor<?xi64>
  %w1, %z1 = emb.from_dense %w : tensor<?x3xf32> -> tensor<?xf32>
  %k1 = emb.vocab_lookup %v1 {keys = dense<[5, 9, 2]> : tensor<3xi64>, default = -1 : i64} : tensor<?xi64> -> tensor<?xi64>
  %f1, %fs1, %fw1 = emb.filter %k1, %s1, %w1 {min = 0 : i64} : tensor<?xi64>, tensor<?xf32>
  %g1, %gs1, %gw1 = emb.filter %f1, %fs1, %fw1 {positive_weights} : tensor<?xi64>, tensor<?xf32>
  %l1 = emb.lookup %t1, %g1, %gs1, %gw1 {combiner = "sqrtn"} : tensor<3x8xf32>, tensor<?xi64>, tensor<?xf32> -> tensor<?x8xf32> loc("weighted")

  %t2 = emb.table {name = "raw"} : tensor<10x4xf32>
  %v2, %s2 = emb.from_dense %r : tensor<?xi64> -> tensor<?xi64>
  %f2, %fs2 = emb.filter %v2, %s2 {min = 0 : i64} : tensor<?xi64> loc("raw/Where")
  // expected-remark@+1 {{ids computed before the layer: its ids are filtered by 'emb.filter' (node "raw/Where"): its ids are not proven inside the table's 10 rows (they may be anything in [0, 9223372036854775807]); the kernel reads rows unchecked, so TensorFlow's error for an id out of range stays on the host}}
  %l2 = emb.lookup %t2, %f2, %fs2 {combiner = "sum"} : tensor<10x4xf32>, tensor<?xi64> -> tensor<?x4xf32> loc("raw")

  %out = emb.concat %l0, %l1, %l2 : (tensor<?x8xf32>, tensor<?x8xf32>, tensor<?x4xf32>) -> tensor<?x20xf32> loc("out")
  func.return %out : tensor<?x20xf32>
}
