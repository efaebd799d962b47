// Malformed textual IR: every case gets one diagnostic at file:line:col, exit
// status 1, no output file, and never an internal error (a panic).
// RUN: recom-opt %s --allow-unregistered-dialect --split-input-file --verify-diagnostics
// RUN: not recom-opt %s --allow-unregistered-dialect --split-input-file -o %t 2>&1 | FileCheck %s --implicit-check-not="internal error"
// RUN: test ! -e %t
// CHECK: textir-syntax.mlir:[[@LINE+5]]:1: error: expected '}' to end a region, got end of file
// expected-error@+4 {{expected '}' to end a region, got end of file}}
"t.a"() ({
  "t.b"() : () -> ()

// -----

// CHECK: textir-syntax.mlir:[[@LINE+2]]:15: error: expected ')' to end operand list, got ':'
// expected-error@+1 {{expected ')' to end operand list, got ':'}}
%0 = "t.a"(%x : () -> (i32)

// -----

// CHECK: textir-syntax.mlir:[[@LINE+2]]:19: error: expected ']' to end array attribute, got '}'
// expected-error@+1 {{expected ']' to end array attribute, got '}'}}
"t.a"() {x = [1, 2} : () -> ()

// -----

// CHECK: textir-syntax.mlir:[[@LINE+2]]:14: error: expected '"' in string literal
// expected-error@+1 {{expected '"' in string literal}}
"t.a"() {x = "abc} : () -> ()

// -----

// CHECK: textir-syntax.mlir:[[@LINE+2]]:16: error: unknown escape in string literal
// expected-error@+1 {{unknown escape in string literal}}
"t.a"() {x = "a\q"} : () -> ()

// -----

// CHECK: textir-syntax.mlir:[[@LINE+2]]:22: error: custom op 'x2' is unknown
// expected-error@+1 {{custom op 'x2' is unknown}}
%0 = arith.constant 1x2 : i32

// -----

// CHECK: textir-syntax.mlir:[[@LINE+2]]:21: error: integer constant out of range for attribute
// expected-error@+1 {{integer constant out of range for attribute}}
%0 = arith.constant 99999999999999999999999999 : i64

// -----

// CHECK: textir-syntax.mlir:[[@LINE+2]]:21: error: integer constant out of range for attribute
// expected-error@+1 {{integer constant out of range for attribute}}
%0 = arith.constant 300 : i8

// -----

// CHECK: textir-syntax.mlir:[[@LINE+2]]:24: error: custom op 'G' is unknown
// expected-error@+1 {{custom op 'G' is unknown}}
%0 = arith.constant 0x1G : i32

// -----

// CHECK: textir-syntax.mlir:[[@LINE+2]]:20: error: expected operation name in quotes, got '}'
// expected-error@+1 {{expected operation name in quotes, got '}'}}
"t.a"() : () -> () }

// -----

// CHECK: textir-syntax.mlir:[[@LINE+2]]:20: error: custom op 'garbage' is unknown
// expected-error@+1 {{custom op 'garbage' is unknown}}
"t.a"() : () -> () garbage

// -----

// CHECK: textir-syntax.mlir:[[@LINE+2]]:14: error: inferred shape of elements literal ([3]) does not match type ([2])
// expected-error@+1 {{inferred shape of elements literal ([3]) does not match type ([2])}}
"t.a"() {x = dense<[1, 2, 3]> : tensor<2xi32>} : () -> ()

// -----

// CHECK: textir-syntax.mlir:[[@LINE+2]]:29: error: tensor literal is invalid; shapes are not consistent between elements
// expected-error@+1 {{tensor literal is invalid; shapes are not consistent between elements}}
"t.a"() {x = dense<[[1, 2], [3]]> : tensor<2x2xi32>} : () -> ()

// -----

// CHECK: textir-syntax.mlir:[[@LINE+2]]:27: error: number of elements in 'tensor<99999999999x99999999999xf32>' overflows
// expected-error@+1 {{number of elements in 'tensor<99999999999x99999999999xf32>' overflows}}
"t.a"() {x = dense<1.0> : tensor<99999999999x99999999999xf32>} : () -> ()

// -----

// CHECK: textir-syntax.mlir:[[@LINE+2]]:20: error: elements hex data size is invalid for provided type
// expected-error@+1 {{elements hex data size is invalid for provided type}}
"t.a"() {x = dense<"0x0102"> : tensor<3xi32>} : () -> ()

// -----

// CHECK: textir-syntax.mlir:[[@LINE+2]]:22: error: integer bitwidth is limited to 16777216 bits
// expected-error@+1 {{integer bitwidth is limited to 16777216 bits}}
%0 = "t.a"() : () -> i99999999

// -----

// CHECK: textir-syntax.mlir:[[@LINE+2]]:29: error: expected type, got '-'
// expected-error@+1 {{expected type, got '-'}}
%0 = "t.a"() : () -> tensor<-1xf32>

// -----

// CHECK: textir-syntax.mlir:[[@LINE+2]]:29: error: dimension is too large
// expected-error@+1 {{dimension is too large}}
%0 = "t.a"() : () -> tensor<99999999999999999999xf32>

// -----

// CHECK: textir-syntax.mlir:[[@LINE+2]]:31: error: expected type, got 'bogus'
// expected-error@+1 {{expected type, got 'bogus'}}
%0 = "t.a"() : () -> tensor<4xbogus>

// -----

// CHECK: textir-syntax.mlir:[[@LINE+4]]:1: error: expected ':' and column number in location, got end of file
// expected-error@+3 {{expected ':' and column number in location, got end of file}}
"t.a"() : () -> () loc("f.mlir":1

// -----

// CHECK: textir-syntax.mlir:[[@LINE+2]]:1: error: operation defines 1 results but was provided 2 to bind
// expected-error@+1 {{operation defines 1 results but was provided 2 to bind}}
%0:2 = "t.a"() : () -> (i32)

// -----

// CHECK: textir-syntax.mlir:[[@LINE+5]]:1: error: redefinition of block '^bb1'
// expected-error@+4 {{redefinition of block '^bb1'}}
"t.a"() ({
^bb1:
  "t.b"() : () -> ()
^bb1:
  "t.b"() : () -> ()
}) : () -> ()

// -----

// CHECK: textir-syntax.mlir:[[@LINE+3]]:13: error: reference to an undefined block
// expected-error@+2 {{reference to an undefined block}}
"t.a"() ({
  "t.br"() [^bb9] : () -> ()
}) : () -> ()

// -----

// CHECK: textir-syntax.mlir:[[@LINE+2]]:19: error: invalid attribute name
// expected-error@+1 {{invalid attribute name}}
"t.a"() : () -> ()#

// -----

// CHECK: textir-syntax.mlir:[[@LINE+2]]:23: error: duplicate key 'x' in dictionary attribute
// expected-error@+1 {{duplicate key 'x' in dictionary attribute}}
"t.a"() {x = 1 : i32, x = 2 : i32} : () -> ()

// -----

// CHECK: textir-syntax.mlir:[[@LINE+2]]:11: error: expected 0 operand types but had 1
// expected-error@+1 {{expected 0 operand types but had 1}}
"t.a"() : (i32) -> ()

// -----

// CHECK: textir-syntax.mlir:[[@LINE+2]]:30: error: expected '"' in string literal
// expected-error@+1 {{expected '"' in string literal}}
%0 = "t.a"() : () -> !t.type<"unterminated>

// -----

// CHECK: textir-syntax.mlir:[[@LINE+5]]:1: error: redefinition of SSA value '%0'
// expected-error@+4 {{redefinition of SSA value '%0'}}
// CHECK: textir-syntax.mlir:[[@LINE+2]]:1: note: previously defined here
// expected-note@+1 {{previously defined here}}
%0 = "t.a"() : () -> f32
%0 = "t.b"() : () -> f32

// -----

// CHECK: textir-syntax.mlir:[[@LINE+2]]:7: error: use of undeclared SSA value name '%1'
// expected-error@+1 {{use of undeclared SSA value name '%1'}}
"t.a"(%1) : (i32) -> ()

// -----

// CHECK: textir-syntax.mlir:[[@LINE+3]]:7: error: reference to invalid result number
// expected-error@+2 {{reference to invalid result number}}
%0 = "t.a"() : () -> i32
"t.b"(%0#1) : (i32) -> ()
