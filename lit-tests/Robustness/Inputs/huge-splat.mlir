func.func @f() -> tensor<1000000000x1000000000xf32> {
  %0 = arith.constant dense<1.0> : tensor<1000000000x1000000000xf32>
  %1 = arith.addf %0, %0 : tensor<1000000000x1000000000xf32>
  func.return %1 : tensor<1000000000x1000000000xf32>
}
