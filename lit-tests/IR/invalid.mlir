// Invalid IR is rejected with a diagnostic at the right place.
// RUN: recom-opt %s --split-input-file --verify-diagnostics

func.func @undefined_value() -> i64 {
  // expected-error@+1 {{use of undeclared SSA value name '%nope'}}
  func.return %nope : i64
}

// -----

// expected-note@+1 {{prior use here}}
func.func @wrong_type(%a: i32) -> i64 {
  // expected-error@+1 {{use of value '%a' expects different type than prior uses: 'i64' vs 'i32'}}
  %0 = arith.addi %a, %a : i64
  func.return %0 : i64
}

// -----

func.func @wrong_return_type(%a: i32) -> i64 {
  // expected-error@+1 {{type of return operand 0 ('i32') doesn't match function result type ('i64')}}
  func.return %a : i32
}

// -----

func.func @use_before_def() -> i64 {
  // expected-error@+1 {{operand #0 does not dominate this use}}
  %0 = arith.addi %1, %1 : i64
  // expected-note@+1 {{operand defined here}}
  %1 = arith.constant 1 : i64
  func.return %0 : i64
}

// -----

func.func @unregistered_op() {
  // expected-error@+1 {{'foo.bar' op is unregistered}}
  "foo.bar"() : () -> ()
  func.return
}

// -----

func.func @terminator_in_the_middle(%a: i64) -> i64 {
  // expected-error@+1 {{'func.return' op must be the last operation in the parent block}}
  func.return %a : i64
  %0 = arith.addi %a, %a : i64
  func.return %0 : i64
}

// -----

func.func @no_terminator(%a: i64) -> i64 {
  // expected-error@+1 {{block with no terminator}}
  %0 = arith.addi %a, %a : i64
}

// -----

// expected-note@+1 {{see existing symbol definition here}}
func.func @dup() {
  func.return
}
// expected-error@+1 {{redefinition of symbol named 'dup'}}
func.func @dup() {
  func.return
}

// -----

func.func @unbalanced() {
  func.return
// expected-error@+1 {{expected '}' to end a region}}
