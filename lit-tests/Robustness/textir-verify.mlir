// IR that parses but does not make sense: undefined values, wrong types, use
// before definition, redefinitions, bad result numbers, unknown ops, bad
// attributes, symbols. Each case: a located diagnostic (and its notes), exit
// status 1, no output file, never an internal error.
// RUN: recom-opt %s --split-input-file --verify-diagnostics
// RUN: not recom-opt %s --split-input-file -o %t 2>&1 | FileCheck %s --implicit-check-not="internal error"
// RUN: test ! -e %t
// CHECK: textir-verify.mlir:[[@LINE+3]]:15: error: use of undeclared SSA value name '%x'
// expected-error@+2 {{use of undeclared SSA value name '%x'}}
func.func @f() -> i32 {
  func.return %x : i32
}

// -----

// CHECK: textir-verify.mlir:[[@LINE+5]]:19: error: use of value '%a' expects different type than prior uses: 'i64' vs 'i32'
// expected-error@+4 {{use of value '%a' expects different type than prior uses: 'i64' vs 'i32'}}
// CHECK: textir-verify.mlir:[[@LINE+2]]:14: note: prior use here
// expected-note@+1 {{prior use here}}
func.func @f(%a: i32) -> i64 {
  %0 = arith.addi %a, %a : i64
  func.return %0 : i64
}

// -----

// CHECK: textir-verify.mlir:[[@LINE+5]]:3: error: 'arith.addi' op operand #0 does not dominate this use
// expected-error@+4 {{'arith.addi' op operand #0 does not dominate this use}}
// CHECK: textir-verify.mlir:[[@LINE+4]]:3: note: operand defined here (op in the same block)
// expected-note@+3 {{operand defined here (op in the same block)}}
func.func @f() -> i64 {
  %0 = arith.addi %1, %1 : i64
  %1 = arith.constant 1 : i64
  func.return %0 : i64
}

// -----

// CHECK: textir-verify.mlir:[[@LINE+6]]:3: error: redefinition of SSA value '%0'
// expected-error@+5 {{redefinition of SSA value '%0'}}
// CHECK: textir-verify.mlir:[[@LINE+3]]:3: note: previously defined here
// expected-note@+2 {{previously defined here}}
func.func @f() {
  %0 = arith.constant 1 : i32
  %0 = arith.constant 2 : i32
  func.return
}

// -----

// CHECK: textir-verify.mlir:[[@LINE+4]]:15: error: reference to invalid result number
// expected-error@+3 {{reference to invalid result number}}
func.func @f() -> i32 {
  %0 = arith.constant 1 : i32
  func.return %0#9 : i32
}

// -----

// CHECK: textir-verify.mlir:[[@LINE+2]]:1: error: 'foo.bar' op is unregistered (use --allow-unregistered-dialect)
// expected-error@+1 {{'foo.bar' op is unregistered (use --allow-unregistered-dialect)}}
"foo.bar"() : () -> ()

// -----

// CHECK: textir-verify.mlir:[[@LINE+5]]:15: error: use of value '%a' expects different type than prior uses: 'i64' vs 'i32'
// expected-error@+4 {{use of value '%a' expects different type than prior uses: 'i64' vs 'i32'}}
// CHECK: textir-verify.mlir:[[@LINE+2]]:14: note: prior use here
// expected-note@+1 {{prior use here}}
func.func @f(%a: i32) -> i32 {
  func.return %a : i64
}

// -----

// CHECK: textir-verify.mlir:[[@LINE+5]]:23: error: unexpected decimal integer literal for a floating point value
// expected-error@+4 {{unexpected decimal integer literal for a floating point value}}
// CHECK: textir-verify.mlir:[[@LINE+3]]:23: note: add a trailing dot to make the literal a float
// expected-note@+2 {{add a trailing dot to make the literal a float}}
func.func @f() -> f32 {
  %0 = arith.constant 1 : f32
  func.return %0 : f32
}

// -----

// CHECK: textir-verify.mlir:[[@LINE+3]]:23: error: floating point value not valid for specified type
// expected-error@+2 {{floating point value not valid for specified type}}
func.func @f() -> i32 {
  %0 = arith.constant 1.5 : i32
  func.return %0 : i32
}

// -----

// CHECK: textir-verify.mlir:[[@LINE+6]]:15: error: use of value '%0' expects different type than prior uses: 'tensor<2xi32>' vs 'tensor<2xi64>'
// expected-error@+5 {{use of value '%0' expects different type than prior uses: 'tensor<2xi32>' vs 'tensor<2xi64>'}}
// CHECK: textir-verify.mlir:[[@LINE+3]]:3: note: prior use here
// expected-note@+2 {{prior use here}}
func.func @f() -> tensor<2xi32> {
  %0 = arith.constant dense<[1, 2]> : tensor<2xi64>
  func.return %0 : tensor<2xi32>
}

// -----

// CHECK: textir-verify.mlir:[[@LINE+3]]:22: error: expected ',', got ':'
// expected-error@+2 {{expected ',', got ':'}}
func.func @f(%a: i32) -> i32 {
  %0 = arith.addi %a : i32
  func.return %0 : i32
}

// -----

// CHECK: textir-verify.mlir:[[@LINE+3]]:3: error: 'func.call' op '@nowhere' does not reference a valid function
// expected-error@+2 {{'func.call' op '@nowhere' does not reference a valid function}}
func.func @f() {
  func.call @nowhere() : () -> ()
  func.return
}

// -----

// CHECK: textir-verify.mlir:[[@LINE+7]]:1: error: 'func.func' op redefinition of symbol named 'f'
// expected-error@+6 {{'func.func' op redefinition of symbol named 'f'}}
// CHECK: textir-verify.mlir:[[@LINE+2]]:1: note: see existing symbol definition here
// expected-note@+1 {{see existing symbol definition here}}
func.func @f() {
  func.return
}
func.func @f() {
  func.return
}

// -----

// CHECK: textir-verify.mlir:[[@LINE+3]]:3: error: 'arith.addi' op expected 2 operands, but found 1
// expected-error@+2 {{'arith.addi' op expected 2 operands, but found 1}}
func.func @f(%a: i32) -> i32 {
  %0 = "arith.addi"(%a) : (i32) -> i32
  func.return %0 : i32
}

// -----

// CHECK: textir-verify.mlir:[[@LINE+3]]:3: error: 'arith.constant' op requires attribute 'value'
// expected-error@+2 {{'arith.constant' op requires attribute 'value'}}
func.func @f() -> i32 {
  %0 = "arith.constant"() : () -> i32
  func.return %0 : i32
}

// -----

// CHECK: textir-verify.mlir:[[@LINE+3]]:3: error: 'tfg.Const' op attribute 'dtype' must be a TensorFlow type, got 3 : i64
// expected-error@+2 {{'tfg.Const' op attribute 'dtype' must be a TensorFlow type, got 3 : i64}}
"tfg.graph"() ({
  %0:2 = "tfg.Const"() {_mlir_name = "c", dtype = 3 : i64, value = dense<1.0> : tensor<f32>} : () -> (tensor<*xf32>, !tfg.control)
}) : () -> ()

// -----

// CHECK: textir-verify.mlir:[[@LINE+3]]:3: error: 'arith.constant' op block with no terminator, has 'arith.constant' as its last operation
// expected-error@+2 {{'arith.constant' op block with no terminator, has 'arith.constant' as its last operation}}
func.func @f() -> i32 {
  %0 = arith.constant 1 : i32
}

// -----

// CHECK: textir-verify.mlir:[[@LINE+5]]:19: error: use of value '%a' expects different type than prior uses: 'i32' vs 'i1'
// expected-error@+4 {{use of value '%a' expects different type than prior uses: 'i32' vs 'i1'}}
// CHECK: textir-verify.mlir:[[@LINE+2]]:14: note: prior use here
// expected-note@+1 {{prior use here}}
func.func @f(%a: i1) -> i32 {
  %0 = arith.addi %a, %a : i32
  func.return %0 : i32
}
