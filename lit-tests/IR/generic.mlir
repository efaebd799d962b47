// The generic form always parses, for registered and unregistered ops, and
// --mlir-print-op-generic prints it back.
// RUN: recom-opt %s --allow-unregistered-dialect --mlir-print-op-generic | FileCheck %s
// RUN: recom-opt %s --allow-unregistered-dialect --mlir-print-op-generic | recom-opt --allow-unregistered-dialect --mlir-print-op-generic | FileCheck %s
// RUN: recom-opt %s --allow-unregistered-dialect | recom-opt --allow-unregistered-dialect --mlir-print-op-generic | FileCheck %s

// CHECK: "builtin.module"() ({
"builtin.module"() ({
  // CHECK: "func.func"() ({
  // CHECK-NEXT: ^bb0(%arg0: i64):
  // CHECK-NEXT:   %0 = "arith.addi"(%arg0, %arg0) : (i64, i64) -> i64
  // CHECK-NEXT:   "func.return"(%0) : (i64) -> ()
  // CHECK-NEXT: }) {function_type = (i64) -> i64, sym_name = "g"} : () -> ()
  "func.func"() ({
  ^bb0(%x: i64):
    %0 = "arith.addi"(%x, %x) : (i64, i64) -> i64
    "func.return"(%0) : (i64) -> ()
  }) {sym_name = "g", function_type = (i64) -> i64} : () -> ()

  // Several results, properties and attributes (printed sorted by name).
  // CHECK: %0:2 = "test.multi"() <{p = 1 : i64}> {a = "x", b = [1 : i64, 2.500000e+00 : f32, "s"], c, d = @sym, e = i32, f = {k = true}} : () -> (i32, tensor<2xf32>)
  %m:2 = "test.multi"() <{p = 1 : i64}> {f = {k = true}, a = "x", c = unit, b = [1, 2.5 : f32, "s"], d = @sym, e = i32} : () -> (i32, tensor<2xf32>)
  // CHECK: "test.use"(%0#1, %0#0) : (tensor<2xf32>, i32) -> ()
  "test.use"(%m#1, %m#0) : (tensor<2xf32>, i32) -> ()
}) : () -> ()
