// In a func.func body, as in MLIR, ops of the func dialect may be written
// without their prefix: `return` is func.return and `call` is func.call
// (func.func's default dialect). Elsewhere a bare name is still unknown
// (default-dialect-invalid.mlir).
// RUN: recom-opt %s --split-input-file | FileCheck %s
// RUN: recom-opt %s --split-input-file | recom-opt --split-input-file | FileCheck %s

// CHECK-LABEL: func.func @callee(%arg0: i32) -> i32 {
// CHECK-NEXT:    func.return %arg0 : i32
func.func @callee(%a: i32) -> i32 {
  return %a : i32
}

// CHECK-LABEL: func.func @caller(%arg0: i32) -> i32 {
// CHECK-NEXT:    %[[R:.*]] = func.call @callee(%arg0) : (i32) -> i32
// CHECK-NEXT:    func.return %[[R]] : i32
func.func @caller(%a: i32) -> i32 {
  %r = call @callee(%a) : (i32) -> i32
  return %r : i32
}

// -----

// The generic form of func.func has the same default.
// CHECK-LABEL: func.func @generic() {
// CHECK-NEXT:    func.return
"func.func"() ({
  return
}) {sym_name = "generic", function_type = () -> ()} : () -> ()
