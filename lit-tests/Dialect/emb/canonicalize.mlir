// RUN: recom-opt %s --split-input-file --canonicalize | FileCheck %s

// Hashed ids are in [0, 99]: the ids >= 0 pruning goes.
// CHECK-LABEL: func.func @filter_after_hash
// CHECK-NEXT:    %[[V:.*]], %[[S:.*]] = emb.split_strings
// CHECK-NEXT:    %[[H:.*]] = emb.hash %[[V]]
// CHECK-NEXT:    {{(func\.)?}}return %[[H]], %[[S]]
// CHECK-NOT:     emb.filter
func.func @filter_after_hash(%x: tensor<?x!tfg.string>) -> (tensor<?xi64>, tensor<?xi64>) {
  %v, %s = emb.split_strings %x {sep = ";"} : tensor<?x!tfg.string> -> tensor<?x!tfg.string>
  %h = emb.hash %v {num_buckets = 100 : i64} : tensor<?x!tfg.string> -> tensor<?xi64>
  %fv, %fs = emb.filter %h, %s {min = 0 : i64} : tensor<?xi64>
  func.return %fv, %fs : tensor<?xi64>, tensor<?xi64>
}

// -----

// 3 boundaries give buckets 0 to 3 (not 0 to 2): a filter to [0, 3] goes,
// a filter to [0, 2] stays.
// CHECK-LABEL: func.func @bucketize_range_edge
// CHECK:         %[[B:.*]] = emb.bucketize
// CHECK-NEXT:    %[[F:.*]], %{{.*}} = emb.filter %[[B]], %{{.*}} {max = 2 : i64, min = 0 : i64}
// CHECK-NEXT:    {{(func\.)?}}return %[[B]], %[[F]]
func.func @bucketize_range_edge(%x: tensor<?x1xf32>) -> (tensor<?xi64>, tensor<?xi64>) {
  %v, %s = emb.from_dense %x : tensor<?x1xf32> -> tensor<?xf32>
  %b = emb.bucketize %v {boundaries = [0.0 : f32, 1.0 : f32, 2.0 : f32]} : tensor<?xf32> -> tensor<?xi64>
  %f1, %s1 = emb.filter %b, %s {min = 0 : i64, max = 3 : i64} : tensor<?xi64>
  %f2, %s2 = emb.filter %b, %s {min = 0 : i64, max = 2 : i64} : tensor<?xi64>
  func.return %f1, %f2 : tensor<?xi64>, tensor<?xi64>
}

// -----

// The bucketized column's index construction on a [B, 2] input: ids are
// bucket + 4 * position, in [0, 7]; the filter goes, the add_offset stays.
// CHECK-LABEL: func.func @bucketized_two_columns
// CHECK:         %[[O:.*]] = emb.add_offset
// CHECK-NOT:     emb.filter
// CHECK:         {{(func\.)?}}return %[[O]]
func.func @bucketized_two_columns(%x: tensor<?x2xf32>) -> tensor<?xi64> {
  %v, %s = emb.from_dense %x : tensor<?x2xf32> -> tensor<?xf32>
  %b = emb.bucketize %v {boundaries = [0.0 : f32, 1.0 : f32, 2.0 : f32]} : tensor<?xf32> -> tensor<?xi64>
  %o = emb.add_offset %b, %s {stride = 4 : i64} : tensor<?xi64>
  %f, %fs = emb.filter %o, %s {min = 0 : i64, max = 7 : i64} : tensor<?xi64>
  func.return %f : tensor<?xi64>
}

// -----

// Raw ids of unknown range keep their filter; so does a filter of weights.
// CHECK-LABEL: func.func @filter_kept
// CHECK:         emb.filter %{{.*}}, %{{.*}} {min = 0 : i64} : tensor<?xi64>
// CHECK:         emb.filter %{{.*}}, %{{.*}}, %{{.*}} {min = 0 : i64, positive_weights} : tensor<?xi64>, tensor<?xf32>
func.func @filter_kept(%x: tensor<?x3xi64>, %y: tensor<?x!tfg.string>, %w: tensor<?xf32>) -> (tensor<?xi64>, tensor<?xi64>) {
  %v, %s = emb.from_dense %x {ignore = -1 : i64} : tensor<?x3xi64> -> tensor<?xi64>
  %f, %fs = emb.filter %v, %s {min = 0 : i64} : tensor<?xi64>
  %v2, %s2 = emb.split_strings %y {sep = ";"} : tensor<?x!tfg.string> -> tensor<?x!tfg.string>
  %h = emb.hash %v2 {num_buckets = 10 : i64} : tensor<?x!tfg.string> -> tensor<?xi64>
  %g, %gs, %gw = emb.filter %h, %s2, %w {min = 0 : i64, positive_weights} : tensor<?xi64>, tensor<?xf32>
  func.return %f, %g : tensor<?xi64>, tensor<?xi64>
}

// -----

// Vocabulary lookups: with out-of-vocabulary buckets ids are in [0, n+K-1];
// with the default -1 they may be negative and the filter stays.
// CHECK-LABEL: func.func @vocab_ranges
// CHECK:         %[[A:.*]] = emb.vocab_lookup %{{.*}} {keys = {{.*}}, num_oov_buckets = 2 : i64}
// CHECK:         %[[B:.*]] = emb.vocab_lookup %{{.*}} {default = -1 : i64, keys = {{.*}}}
// CHECK-NEXT:    %[[F:.*]], %{{.*}} = emb.filter %[[B]]
// CHECK-NEXT:    {{(func\.)?}}return %[[A]], %[[F]]
func.func @vocab_ranges(%x: tensor<?x1x!tfg.string>) -> (tensor<?xi64>, tensor<?xi64>) {
  %v, %s = emb.from_dense %x {ignore = ""} : tensor<?x1x!tfg.string> -> tensor<?x!tfg.string>
  %a = emb.vocab_lookup %v {keys = dense<["a", "b"]> : tensor<2x!tfg.string>, num_oov_buckets = 2 : i64} : tensor<?x!tfg.string> -> tensor<?xi64>
  %fa, %sa = emb.filter %a, %s {min = 0 : i64} : tensor<?xi64>
  %b = emb.vocab_lookup %v {keys = dense<["a", "b"]> : tensor<2x!tfg.string>, default = -1 : i64} : tensor<?x!tfg.string> -> tensor<?xi64>
  %fb, %sb = emb.filter %b, %s {min = 0 : i64} : tensor<?xi64>
  func.return %fa, %fb : tensor<?xi64>, tensor<?xi64>
}

// -----

// An identity column's range check with a default in [0, N): ids >= 0.
// A check_range over ids already in range goes.
// CHECK-LABEL: func.func @check_range
// CHECK-NEXT:    emb.from_dense
// CHECK-NEXT:    %[[C:.*]] = emb.check_range %{{.*}} {default = 0 : i64, num_buckets = 10 : i64}
// CHECK-NEXT:    %[[H:.*]] = emb.hash
// CHECK-NEXT:    {{(func\.)?}}return %[[C]], %[[H]]
func.func @check_range(%x: tensor<?x1xi64>, %y: tensor<?x!tfg.string>) -> (tensor<?xi64>, tensor<?xi64>) {
  %v, %s = emb.from_dense %x {ignore = -1 : i64} : tensor<?x1xi64> -> tensor<?xi64>
  %c = emb.check_range %v {num_buckets = 10 : i64, default = 0 : i64} : tensor<?xi64> -> tensor<?xi64>
  %f, %fs = emb.filter %c, %s {min = 0 : i64} : tensor<?xi64>
  %h = emb.hash %y {num_buckets = 10 : i64} : tensor<?x!tfg.string> -> tensor<?xi64>
  %c2 = emb.check_range %h {num_buckets = 10 : i64} : tensor<?xi64> -> tensor<?xi64>
  func.return %f, %c2 : tensor<?xi64>, tensor<?xi64>
}

// -----

// Casts: to the same type folds; widening then back is the identity;
// a cast keeps the range of what it casts.
// CHECK-LABEL: func.func @casts
// CHECK-SAME:    (%[[X:.*]]: tensor<?xi32>, %[[Y:.*]]: tensor<?xi64>, %[[Z:.*]]: tensor<?x!tfg.string>)
// CHECK-NEXT:    %[[N:.*]] = emb.cast %[[X]] : tensor<?xi32> -> tensor<?xi16>
// CHECK-NEXT:    %[[H:.*]] = emb.hash
// CHECK-NEXT:    %[[C:.*]] = emb.cast %[[H]] : tensor<?xi64> -> tensor<?xi32>
// CHECK-NEXT:    {{(func\.)?}}return %[[Y]], %[[X]], %[[N]], %[[C]]
func.func @casts(%x: tensor<?xi32>, %y: tensor<?xi64>, %z: tensor<?x!tfg.string>) -> (tensor<?xi64>, tensor<?xi32>, tensor<?xi16>, tensor<?xi32>) {
  %0 = emb.cast %y : tensor<?xi64> -> tensor<?xi64>
  %1 = emb.cast %x : tensor<?xi32> -> tensor<?xi64>
  %2 = emb.cast %1 : tensor<?xi64> -> tensor<?xi32>
  %3 = emb.cast %1 : tensor<?xi64> -> tensor<?xi16>
  %h = emb.hash %z {num_buckets = 10 : i64} : tensor<?x!tfg.string> -> tensor<?xi64>
  %c = emb.cast %h : tensor<?xi64> -> tensor<?xi32>
  func.return %0, %2, %3, %c : tensor<?xi64>, tensor<?xi32>, tensor<?xi16>, tensor<?xi32>
}

// -----

// add_offset with stride 0, or on a [B, 1] source (every position is 0),
// is the identity.
// CHECK-LABEL: func.func @add_offset
// CHECK-SAME:    (%[[V:.*]]: tensor<?xi64>, %[[S:.*]]: tensor<?xi64>, %[[X:.*]]: tensor<?x1xf32>)
// CHECK-NEXT:    %[[FV:.*]], %{{.*}} = emb.from_dense %[[X]]
// CHECK-NEXT:    %[[B:.*]] = emb.bucketize %[[FV]]
// CHECK-NEXT:    {{(func\.)?}}return %[[V]], %[[B]]
func.func @add_offset(%v: tensor<?xi64>, %s: tensor<?xi64>, %x: tensor<?x1xf32>) -> (tensor<?xi64>, tensor<?xi64>) {
  %0 = emb.add_offset %v, %s {stride = 0 : i64} : tensor<?xi64>
  %fv, %fs = emb.from_dense %x : tensor<?x1xf32> -> tensor<?xf32>
  %b = emb.bucketize %fv {boundaries = [0.0 : f32]} : tensor<?xf32> -> tensor<?xi64>
  %1 = emb.add_offset %b, %fs {stride = 2 : i64} : tensor<?xi64>
  func.return %0, %1 : tensor<?xi64>, tensor<?xi64>
}

// -----

// A filter without bounds drops nothing.
// CHECK-LABEL: func.func @filter_no_bounds
// CHECK-NEXT:    {{(func\.)?}}return %arg0, %arg1, %arg2
func.func @filter_no_bounds(%v: tensor<?xi64>, %s: tensor<?xi64>, %w: tensor<?xf32>) -> (tensor<?xi64>, tensor<?xi64>, tensor<?xf32>) {
  %a, %b, %c = emb.filter %v, %s, %w : tensor<?xi64>, tensor<?xf32>
  func.return %a, %b, %c : tensor<?xi64>, tensor<?xi64>, tensor<?xf32>
}

// -----

// One id per bag (a [B, 1] source without 'ignore'): the lookup is a row
// gather, whatever the combiner.
// CHECK-LABEL: func.func @lookup_to_gather
// CHECK:         %[[T:.*]] = emb.table
// CHECK-NEXT:    %[[V:.*]], %{{.*}} = emb.from_dense
// CHECK-NEXT:    %[[H:.*]] = emb.hash %[[V]]
// CHECK-NEXT:    %[[G:.*]] = emb.gather %[[T]], %[[H]] : tensor<100x8xf32>, tensor<?xi64> -> tensor<?x8xf32>
// CHECK-NEXT:    {{(func\.)?}}return %[[G]]
// CHECK-NOT:     emb.lookup
func.func @lookup_to_gather(%x: tensor<?x1x!tfg.string>) -> tensor<?x8xf32> {
  %t = emb.table {name = "t"} : tensor<100x8xf32>
  %v, %s = emb.from_dense %x : tensor<?x1x!tfg.string> -> tensor<?x!tfg.string>
  %h = emb.hash %v {num_buckets = 100 : i64} : tensor<?x!tfg.string> -> tensor<?xi64>
  %f, %fs = emb.filter %h, %s {min = 0 : i64} : tensor<?xi64>
  %r = emb.lookup %t, %f, %fs {combiner = "sqrtn"} : tensor<100x8xf32>, tensor<?xi64> -> tensor<?x8xf32>
  func.return %r : tensor<?x8xf32>
}

// -----

// At most one id per bag ('ignore' may empty a bag; a filter may too; or
// weights scale the one row): a gather-scatter.
// CHECK-LABEL: func.func @lookup_to_gather_scatter
// CHECK:         emb.gather_scatter %{{.*}}, %{{.*}}, %{{.*}} {combiner = "mean"} : tensor<100x8xf32>, tensor<?xi64> -> tensor<?x8xf32>
// CHECK:         emb.gather_scatter %{{.*}}, %{{.*}}, %{{.*}} {combiner = "sum"} : tensor<100x8xf32>, tensor<?xi64> -> tensor<?x8xf32>
// CHECK:         emb.gather_scatter %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} {combiner = "sum"} : tensor<100x8xf32>, tensor<?xi64>, tensor<?xf32> -> tensor<?x8xf32>
// CHECK-NOT:     emb.lookup
func.func @lookup_to_gather_scatter(%x: tensor<?xi64>, %y: tensor<?x1xi64>, %w: tensor<?xf32>) -> (tensor<?x8xf32>, tensor<?x8xf32>, tensor<?x8xf32>) {
  %t = emb.table {name = "t"} : tensor<100x8xf32>
  %v, %s = emb.from_dense %x {ignore = -1 : i64} : tensor<?xi64> -> tensor<?xi64>
  %r0 = emb.lookup %t, %v, %s {combiner = "mean"} : tensor<100x8xf32>, tensor<?xi64> -> tensor<?x8xf32>
  %v1, %s1 = emb.from_dense %y : tensor<?x1xi64> -> tensor<?xi64>
  %f, %fs = emb.filter %v1, %s1 {min = 0 : i64} : tensor<?xi64>
  %r1 = emb.lookup %t, %f, %fs {combiner = "sum"} : tensor<100x8xf32>, tensor<?xi64> -> tensor<?x8xf32>
  %r2 = emb.lookup %t, %v1, %s1, %w {combiner = "sum"} : tensor<100x8xf32>, tensor<?xi64>, tensor<?xf32> -> tensor<?x8xf32>
  func.return %r0, %r1, %r2 : tensor<?x8xf32>, tensor<?x8xf32>, tensor<?x8xf32>
}

// -----

// Bags of up to three ids keep the general lookup; an unweighted
// gather-scatter of one id per bag is a gather.
// CHECK-LABEL: func.func @lookup_kept
// CHECK:         emb.lookup
// CHECK:         emb.gather %{{.*}}, %{{.*}} : tensor<100x8xf32>, tensor<?xi64> -> tensor<?x8xf32>
// CHECK-NOT:     emb.gather_scatter
func.func @lookup_kept(%x: tensor<?x3xi64>, %y: tensor<?xi64>) -> (tensor<?x8xf32>, tensor<?x8xf32>) {
  %t = emb.table {name = "t"} : tensor<100x8xf32>
  %v, %s = emb.from_dense %x {ignore = -1 : i64} : tensor<?x3xi64> -> tensor<?xi64>
  %r0 = emb.lookup %t, %v, %s {combiner = "mean"} : tensor<100x8xf32>, tensor<?xi64> -> tensor<?x8xf32>
  %v1, %s1 = emb.from_dense %y : tensor<?xi64> -> tensor<?xi64>
  %r1 = emb.gather_scatter %t, %v1, %s1 {combiner = "sum"} : tensor<100x8xf32>, tensor<?xi64> -> tensor<?x8xf32>
  func.return %r0, %r1 : tensor<?x8xf32>, tensor<?x8xf32>
}

// -----

// The concatenation of one tensor is that tensor; unused emb ops go.
// CHECK-LABEL: func.func @concat_one
// CHECK-NEXT:    {{(func\.)?}}return %arg0
func.func @concat_one(%a: tensor<?x8xf32>) -> tensor<?x8xf32> {
  %t = emb.table {name = "unused"} : tensor<100x8xf32>
  %r = emb.concat %a : (tensor<?x8xf32>) -> tensor<?x8xf32>
  func.return %r : tensor<?x8xf32>
}
