// Dense elements attributes: splats, integer and float lists, nested
// shapes, strings, booleans.
// RUN: recom-opt %s --allow-unregistered-dialect | FileCheck %s
// RUN: recom-opt %s --allow-unregistered-dialect | recom-opt --allow-unregistered-dialect | FileCheck %s
// RUN: recom-opt %s --allow-unregistered-dialect --mlir-print-op-generic | recom-opt --allow-unregistered-dialect | FileCheck %s

// CHECK: "test.dense"() {
// CHECK-SAME: a = dense<0> : tensor<4xi64>
// CHECK-SAME: b = dense<[1, 2, 3]> : tensor<3xi32>
// CHECK-SAME: c = dense<{{\[}}[1.000000e+00, 2.500000e+00], [-3.000000e+00, 0.000000e+00]]> : tensor<2x2xf32>
// CHECK-SAME: d = dense<["a", "bc"]> : tensor<2x!tf_type.string>
// CHECK-SAME: e = dense<[true, false]> : tensor<2xi1>
// CHECK-SAME: f = dense<1.000000e+00> : tensor<2x3xf64>
"test.dense"() {
  a = dense<0> : tensor<4xi64>,
  b = dense<[1, 2, 3]> : tensor<3xi32>,
  c = dense<[[1.0, 2.5], [-3.0, 0.0]]> : tensor<2x2xf32>,
  d = dense<["a", "bc"]> : tensor<2x!tf_type.string>,
  e = dense<[true, false]> : tensor<2xi1>,
  f = dense<1.0> : tensor<2x3xf64>
} : () -> ()
