func.func @bad() -> i64 {
  %0 = arith.constant 1 : i64
  func.return %undefined : i64
}
