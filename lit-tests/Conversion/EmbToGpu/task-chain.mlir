// RUN: recom-opt --split-input-file --fuse %s | FileCheck %s

// What shortens a task's chain of dependent loads in the tuned kernel:
// - a layer of one class (every column the same tasks, in column order)
//   finds a task's column by a 32-bit division of the task index by
//   tasks / C (here C = 2), where other layers load the task map;
// - a parameter every column of the class shares (the bucket count) is a
//   constant: the hash's modulus is by a constant (no parameter load, no
//   64-bit remainder by a variable);
// - a hashed string column reads each string's 8-byte slot (one i64 load;
//   the length in its top byte), not an offset and then the bytes.

// CHECK-LABEL: func.func @one_class
// CHECK:       gpu.func @layer
// CHECK:         %[[T:.*]] = arith.addi
// CHECK:         arith.cmpi slt, %[[T]], %[[NT:.*]] : i64
// CHECK:         %[[C2:.*]] = arith.constant 2 : i64
// CHECK:         %[[PER:.*]] = arith.divui %[[NT]], %[[C2]] : i64
// CHECK:         %[[PER32:.*]] = arith.trunci %[[PER]] : i64 to i32
// CHECK:         %[[T32:.*]] = arith.trunci %[[T]] : i64 to i32
// CHECK:         arith.divui %[[T32]], %[[PER32]] : i32
// CHECK:         %[[NB:.*]] = arith.constant 1000 : i64
// CHECK:         %[[SLOT:.*]] = gpu.load %{{.*}}[%{{.*}}] {readonly} : !gpu.ptr<i64, global> -> i64
// CHECK:         %[[C56:.*]] = arith.constant 56 : i64
// CHECK:         arith.shrui %[[SLOT]], %[[C56]] : i64
// CHECK:         arith.remui %{{.*}}, %[[NB]] : i64
func.func @one_class(%a: tensor<?x!tfg.string>, %b: tensor<?x!tfg.string>) -> tensor<?x16xf32> {
  %t0 = emb.table {name = "a"} : tensor<1000x8xf32>
  %t1 = emb.table {name = "b"} : tensor<1000x8xf32>
  %v0, %s0 = emb.from_dense %a {ignore = ""} : tensor<?x!tfg.string> -> tensor<?x!tfg.string>
  %h0 = emb.hash %v0 {num_buckets = 1000 : i64} : tensor<?x!tfg.string> -> tensor<?xi64>
  %l0 = emb.lookup %t0, %h0, %s0 {combiner = "sum"} : tensor<1000x8xf32>, tensor<?xi64> -> tensor<?x8xf32>
  %v1, %s1 = emb.from_dense %b {ignore = ""} : tensor<?x!tfg.string> -> tensor<?x!tfg.string>
  %h1 = emb.hash %v1 {num_buckets = 1000 : i64} : tensor<?x!tfg.string> -> tensor<?xi64>
  %l1 = emb.lookup %t1, %h1, %s1 {combiner = "sum"} : tensor<1000x8xf32>, tensor<?xi64> -> tensor<?x8xf32>
  %r = emb.concat %l0, %l1 : (tensor<?x8xf32>, tensor<?x8xf32>) -> tensor<?x16xf32>
  func.return %r : tensor<?x16xf32>
}

// -----

// Two classes (other widths): the column comes from the task map (the
// word at the task index plus the map's offset, right after the 3 + 1
// task_start words and the three 9-word descriptors: align4(31) = 32);
// the class of "a" and "c" loads their bucket counts, which differ, from
// the parameter blocks (the class of "b" alone has its count constant).

// CHECK-LABEL: func.func @two_classes
// CHECK:       gpu.func @layer
// CHECK:         %[[T:.*]] = arith.addi
// CHECK:         arith.cmpi slt, %[[T]], %{{.*}} : i64
// CHECK-NOT:     arith.divui
// CHECK:         %[[C32:.*]] = arith.constant 32 : i64
// CHECK:         %[[AT:.*]] = arith.addi %[[T]], %[[C32]] : i64
// CHECK:         gpu.load %{{.*}}[%[[AT]]] {readonly} : !gpu.ptr<i32, global> -> i32
// CHECK:         %[[NB:.*]] = gpu.load %{{.*}}[%{{.*}}] {readonly} : !gpu.ptr<i64, global> -> i64
// CHECK:         arith.remui %{{.*}}, %[[NB]] : i64
// CHECK:         %[[NB1:.*]] = arith.constant 999 : i64
// CHECK:         arith.remui %{{.*}}, %[[NB1]] : i64
// CHECK:         gpu.return
func.func @two_classes(%a: tensor<?x!tfg.string>, %b: tensor<?x!tfg.string>) -> tensor<?x20xf32> {
  %t0 = emb.table {name = "a"} : tensor<1000x8xf32>
  %t1 = emb.table {name = "b"} : tensor<999x4xf32>
  %t2 = emb.table {name = "c"} : tensor<500x8xf32>
  %v0, %s0 = emb.from_dense %a {ignore = ""} : tensor<?x!tfg.string> -> tensor<?x!tfg.string>
  %h0 = emb.hash %v0 {num_buckets = 1000 : i64} : tensor<?x!tfg.string> -> tensor<?xi64>
  %l0 = emb.lookup %t0, %h0, %s0 {combiner = "sum"} : tensor<1000x8xf32>, tensor<?xi64> -> tensor<?x8xf32>
  %v1, %s1 = emb.from_dense %b {ignore = ""} : tensor<?x!tfg.string> -> tensor<?x!tfg.string>
  %h1 = emb.hash %v1 {num_buckets = 999 : i64} : tensor<?x!tfg.string> -> tensor<?xi64>
  %l1 = emb.lookup %t1, %h1, %s1 {combiner = "sum"} : tensor<999x4xf32>, tensor<?xi64> -> tensor<?x4xf32>
  %h2 = emb.hash %v0 {num_buckets = 500 : i64} : tensor<?x!tfg.string> -> tensor<?xi64>
  %l2 = emb.lookup %t2, %h2, %s0 {combiner = "sum"} : tensor<500x8xf32>, tensor<?xi64> -> tensor<?x8xf32>
  %r = emb.concat %l0, %l1, %l2 : (tensor<?x8xf32>, tensor<?x4xf32>, tensor<?x8xf32>) -> tensor<?x20xf32>
  func.return %r : tensor<?x20xf32>
}
