// REQUIRES: llc
// RUN: recom-opt --fuse %s | FileCheck %s
// RUN: recom-opt --fuse='ids-in-kernel=false' %s | FileCheck %s --check-prefix=HOST
// RUN: recom-opt --fuse %s | recom-translate --emit-llvm - | llc-19 -march=nvptx64 -mcpu=sm_90 | FileCheck %s --check-prefix=PTX

// The id transforms move into the kernel: the fused op takes the raw
// feature values (strings, integers, floats) and each column says how the
// kernel turns them into rows (source, transforms, params_offset: the
// per-column numbers in the static arena). Columns with the same id code
// share a class. A weights-only filter is rebuilt on the raw strings.
// StringSplitV2 with a one-byte separator moves in too (source "split":
// the kernel cuts each row's string and hashes the tokens).

// CHECK-LABEL: func.func @layer
// CHECK-NOT:     emb.hash
// CHECK-NOT:     emb.as_string
// CHECK-NOT:     emb.bucketize
// CHECK-NOT:     emb.check_range
// CHECK-NOT:     emb.cast
// CHECK-NOT:     emb.split_strings
// CHECK:         emb.filter %{{.*}} {positive_weights} : tensor<?x!tfg.string>, tensor<?xf32>
// CHECK:         "fused.embedding_layer"(%{{.*}}) {block = 256 : i64, columns = [
// CHECK-SAME:      name = "strs", {{[^}]*}}source = "str", {{[^}]*}}transforms = [{num_buckets = 1000 : i64, op = "hash"}]
// CHECK-SAME:      name = "ints", {{[^}]*}}source = "i64", {{[^}]*}}transforms = [{op = "as_string"}, {num_buckets = 100 : i64, op = "hash"}]
// CHECK-SAME:      name = "nums", {{[^}]*}}source = "f32", {{[^}]*}}transforms = [{boundaries = [0.000000e+00 : f32, 1.000000e+00 : f32, 1.000000e+01 : f32], op = "bucketize"}]
// CHECK-SAME:      name = "ids", {{[^}]*}}source = "i64", {{[^}]*}}transforms = [{default = 0 : i64, num_buckets = 64 : i64, op = "check_range"}, {bits = 32 : i64, op = "cast"}]
// CHECK-SAME:      name = "wstrs", {{[^}]*}}source = "str", {{[^}]*}}transforms = [{num_buckets = 1000 : i64, op = "hash"}]
// CHECK-SAME:      name = "toks", {{[^}]*}}sep = ";", {{[^}]*}}source = "split", {{[^}]*}}transforms = [{num_buckets = 500 : i64, op = "hash"}]
// CHECK-SAME:    min_tasks = 6336 : i64, schedule = "tuned"
// CHECK:       gpu.module @emb
// CHECK:         gpu.ptr_cast %{{.*}} : !gpu.ptr<i32, global> to !gpu.ptr<i8, global>
// CHECK:         gpu.load %{{.*}} {readonly} : !gpu.ptr<i8, global> -> i8

// HOST-LABEL: func.func @layer
// HOST-COUNT-3: emb.hash
// HOST:         "fused.embedding_layer"
// HOST-NOT:       source =
// HOST:       gpu.module @emb

// PTX:     .entry layer(
// PTX:     ld.global.nc.u8
// PTX-NOT: .entry
func.func @layer(%s: tensor<?x!tfg.string>, %i: tensor<?xi64>, %f: tensor<?xf32>, %d: tensor<?xi64>,
                 %ws: tensor<?x3x!tfg.string>, %ww: tensor<?x3xf32>, %tk: tensor<?x!tfg.string>) -> tensor<?x48xf32> {
  %t0 = emb.table {name = "strs"} : tensor<1000x8xf32>
  %v0, %s0 = emb.from_dense %s {ignore = ""} : tensor<?x!tfg.string> -> tensor<?x!tfg.string>
  %h0 = emb.hash %v0 {num_buckets = 1000 : i64} : tensor<?x!tfg.string> -> tensor<?xi64>
  %l0 = emb.lookup %t0, %h0, %s0 {combiner = "mean"} : tensor<1000x8xf32>, tensor<?xi64> -> tensor<?x8xf32>

  %t1 = emb.table {name = "ints"} : tensor<100x8xf32>
  %v1, %s1 = emb.from_dense %i {ignore = -1 : i64} : tensor<?xi64> -> tensor<?xi64>
  %a1 = emb.as_string %v1 : tensor<?xi64> -> tensor<?x!tfg.string>
  %h1 = emb.hash %a1 {num_buckets = 100 : i64} : tensor<?x!tfg.string> -> tensor<?xi64>
  %l1 = emb.lookup %t1, %h1, %s1 {combiner = "sum"} : tensor<100x8xf32>, tensor<?xi64> -> tensor<?x8xf32>

  %t2 = emb.table {name = "nums"} : tensor<4x8xf32>
  %v2, %s2 = emb.from_dense %f {ignore = -1.0 : f32} : tensor<?xf32> -> tensor<?xf32>
  %b2 = emb.bucketize %v2 {boundaries = [0.0 : f32, 1.0 : f32, 10.0 : f32]} : tensor<?xf32> -> tensor<?xi64>
  %l2 = emb.lookup %t2, %b2, %s2 {combiner = "sum"} : tensor<4x8xf32>, tensor<?xi64> -> tensor<?x8xf32>

  %t3 = emb.table {name = "ids"} : tensor<64x8xf32>
  %v3, %s3 = emb.from_dense %d {ignore = -1 : i64} : tensor<?xi64> -> tensor<?xi64>
  %c3 = emb.check_range %v3 {default = 0 : i64, num_buckets = 64 : i64} : tensor<?xi64> -> tensor<?xi64>
  %n3 = emb.cast %c3 : tensor<?xi64> -> tensor<?xi32>
  %l3 = emb.lookup %t3, %n3, %s3 {combiner = "sum"} : tensor<64x8xf32>, tensor<?xi32> -> tensor<?x8xf32>

  %t4 = emb.table {name = "wstrs"} : tensor<1000x8xf32>
  %v4, %s4 = emb.from_dense %ws {ignore = ""} : tensor<?x3x!tfg.string> -> tensor<?x!tfg.string>
  %w4, %z4 = emb.from_dense %ww {ignore = -1.0 : f32} : tensor<?x3xf32> -> tensor<?xf32>
  %h4 = emb.hash %v4 {num_buckets = 1000 : i64} : tensor<?x!tfg.string> -> tensor<?xi64>
  %f4, %fs4, %fw4 = emb.filter %h4, %s4, %w4 {positive_weights} : tensor<?xi64>, tensor<?xf32>
  %l4 = emb.lookup %t4, %f4, %fs4, %fw4 {combiner = "sqrtn"} : tensor<1000x8xf32>, tensor<?xi64>, tensor<?xf32> -> tensor<?x8xf32>

  %t5 = emb.table {name = "toks"} : tensor<500x8xf32>
  %v5, %s5 = emb.split_strings %tk {sep = ";"} : tensor<?x!tfg.string> -> tensor<?x!tfg.string>
  %h5 = emb.hash %v5 {num_buckets = 500 : i64} : tensor<?x!tfg.string> -> tensor<?xi64>
  %l5 = emb.lookup %t5, %h5, %s5 {combiner = "mean"} : tensor<500x8xf32>, tensor<?xi64> -> tensor<?x8xf32>

  %r = emb.concat %l0, %l1, %l2, %l3, %l4, %l5 : (tensor<?x8xf32>, tensor<?x8xf32>, tensor<?x8xf32>, tensor<?x8xf32>, tensor<?x8xf32>, tensor<?x8xf32>) -> tensor<?x48xf32>
  func.return %r : tensor<?x48xf32>
}
