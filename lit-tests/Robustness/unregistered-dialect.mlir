// Types and attributes of dialects that are not registered are refused
// when they are parsed, as MLIR refuses them, unless
// --allow-unregistered-dialect keeps them as opaque text.
// RUN: recom-opt %s --split-input-file --verify-diagnostics
// The last chunk fails with the flag too (a malformed call site).
// RUN: not recom-opt %s --split-input-file --allow-unregistered-dialect --mlir-print-debuginfo 2>&1 | FileCheck %s

// CHECK-LABEL: func.func @type
// CHECK: "t.c"() : () -> !nosuch.t
func.func @type() {
  // expected-error@+1 {{`!nosuch.t` type created with unregistered dialect 'nosuch'; use --allow-unregistered-dialect to accept it}}
  %0 = "t.c"() : () -> !nosuch.t
  func.return
}

// -----

// CHECK-LABEL: func.func @attr
// CHECK: "t.c"() {a = #nosuch.a<1>} : () -> ()
func.func @attr() {
  // expected-error@+1 {{`#nosuch.a<1>` attribute created with unregistered dialect 'nosuch'}}
  "t.c"() {a = #nosuch.a<1>} : () -> ()
  func.return
}

// -----

// Nested in a builtin type and in an array attribute, and without a name.
// CHECK-LABEL: func.func @nested
// CHECK: "t.c"() : () -> tensor<4x!nosuch<"x">>
func.func @nested() {
  // expected-error@+1 {{`!nosuch<"x">` type created with unregistered dialect 'nosuch'}}
  %0 = "t.c"() : () -> tensor<4x!nosuch<"x">>
  func.return
}

// -----

// CHECK-LABEL: func.func @nested_attr
// CHECK: "t.c"() {a = [1 : i64, [#other.b]]} : () -> ()
func.func @nested_attr() {
  // expected-error@+1 {{`#other.b` attribute created with unregistered dialect 'other'}}
  "t.c"() {a = [1, [#other.b]]} : () -> ()
  func.return
}

// -----

// A type alias is checked where it is defined.
// expected-error@+1 {{`!nosuch.t<1>` type created with unregistered dialect}}
!alias = !nosuch.t<1>

// -----

// Call-site locations (MLIR's loc(callsite(callee at caller))) parse and
// print back; a diagnostic names the callee's position.
// CHECK-LABEL: func.func @callsite
// CHECK: func.return loc(callsite("inlined"("f.py":3:4) at "caller.py":7:8))
func.func @callsite() {
  func.return loc(callsite("inlined"("f.py":3:4) at "caller.py":7:8))
}

// -----

func.func @callsite_error() {
  // expected-error@+1 {{expected 'at' in callsite location, got ')'}}
  func.return loc(callsite("a"))
}
