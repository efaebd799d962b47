// Hostile emb ops in the generic form (wrong arities, attribute kinds, types,
// unknown ops): each is refused with a diagnostic at the op, exit status 1,
// and with -o no output file (nor a temporary one) is left.
// RUN: recom-opt %s --split-input-file --verify-diagnostics
// RUN: not recom-opt %s --split-input-file -o %t.out 2>&1 | FileCheck %s --check-prefix=CLI --implicit-check-not="internal error"
// RUN: test ! -e %t.out
// RUN: ls -a %T | not grep -q "emb-invalid.mlir.tmp.out.tmp"
// CLI-COUNT-12: emb-invalid.mlir:{{[0-9]+}}:3: error: 'emb.

func.func @hash_no_operands() {
  // expected-error@+1 {{'emb.hash' op expected 1 operand, but found 0}}
  %v = "emb.hash"() {num_buckets = 10 : i64} : () -> tensor<?xi64>
  func.return
}

// -----

func.func @hash_two_results(%x: tensor<?x!tfg.string>) {
  // expected-error@+1 {{'emb.hash' op expected 1 result, but found 2}}
  %v:2 = "emb.hash"(%x) {num_buckets = 10 : i64} : (tensor<?x!tfg.string>) -> (tensor<?xi64>, tensor<?xi64>)
  func.return
}

// -----

func.func @hash_buckets_string(%x: tensor<?x!tfg.string>) {
  // expected-error@+1 {{'emb.hash' op attribute 'num_buckets' failed to satisfy constraint: integer attribute}}
  %v = "emb.hash"(%x) {num_buckets = "ten"} : (tensor<?x!tfg.string>) -> tensor<?xi64>
  func.return
}

// -----

func.func @hash_buckets_huge(%x: tensor<?x!tfg.string>) {
  // expected-error@+1 {{'emb.hash' op requires num_buckets >= 1, but got -9223372036854775808}}
  %v = "emb.hash"(%x) {num_buckets = -9223372036854775808 : i64} : (tensor<?x!tfg.string>) -> tensor<?xi64>
  func.return
}

// -----

func.func @table_name_int() {
  // expected-error@+1 {{'emb.table' op attribute 'name' failed to satisfy constraint: string attribute}}
  %t = "emb.table"() {name = 3 : i64} : () -> tensor<4x2xf32>
  func.return
}

// -----

func.func @table_i64() {
  // expected-error@+1 {{'emb.table' op result #0 must be statically shaped 2-D tensor of f32 or f64, but got 'tensor<4x2xi64>'}}
  %t = "emb.table"() {name = "t"} : () -> tensor<4x2xi64>
  func.return
}

// -----

func.func @lookup_unranked(%ids: tensor<*xi64>, %s: tensor<?xi64>) {
  %t = "emb.table"() {name = "t"} : () -> tensor<4x2xf32>
  // expected-error@+1 {{'emb.lookup' op operand #1 must be ragged values tensor<?xiN> of signless integers, but got 'tensor<*xi64>'}}
  %r = "emb.lookup"(%t, %ids, %s) {combiner = "sum"} : (tensor<4x2xf32>, tensor<*xi64>, tensor<?xi64>) -> tensor<?x2xf32>
  func.return
}

// -----

func.func @lookup_combiner_int(%ids: tensor<?xi64>, %s: tensor<?xi64>) {
  %t = "emb.table"() {name = "t"} : () -> tensor<4x2xf32>
  // expected-error@+1 {{'emb.lookup' op attribute 'combiner' failed to satisfy constraint: string attribute}}
  %r = "emb.lookup"(%t, %ids, %s) {combiner = 1 : i64} : (tensor<4x2xf32>, tensor<?xi64>, tensor<?xi64>) -> tensor<?x2xf32>
  func.return
}

// -----

func.func @lookup_four_operands(%ids: tensor<?xi64>, %s: tensor<?xi64>, %w: tensor<?xf32>) {
  %t = "emb.table"() {name = "t"} : () -> tensor<4x2xf32>
  // expected-error@+1 {{'emb.lookup' op expected between 3 and 4 operands, but found 5}}
  %r = "emb.lookup"(%t, %ids, %s, %w, %w) {combiner = "sum"} : (tensor<4x2xf32>, tensor<?xi64>, tensor<?xi64>, tensor<?xf32>, tensor<?xf32>) -> tensor<?x2xf32>
  func.return
}

// -----

func.func @bucketize_not_array(%x: tensor<?xf32>) {
  // expected-error@+1 {{'emb.bucketize' op attribute 'boundaries' failed to satisfy constraint: array attribute}}
  %v = "emb.bucketize"(%x) {boundaries = 1.0 : f32} : (tensor<?xf32>) -> tensor<?xi64>
  func.return
}

// -----

func.func @concat_rank1(%a: tensor<?xf32>) {
  // expected-error@+1 {{'emb.concat' op operand #0 must be 2-D tensor of f32 or f64, but got 'tensor<?xf32>'}}
  %r = "emb.concat"(%a) : (tensor<?xf32>) -> tensor<?xf32>
  func.return
}

// -----

func.func @unknown_emb_op(%a: tensor<?xf32>) {
  // expected-error@+1 {{'emb.fuse_everything' op is unregistered (use --allow-unregistered-dialect)}}
  %r = "emb.fuse_everything"(%a) : (tensor<?xf32>) -> tensor<?xf32>
  func.return
}
