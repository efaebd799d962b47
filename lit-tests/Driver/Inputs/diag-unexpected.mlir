// An error nobody expects, on line 4.
func.func @f() -> i64 {
  %0 = arith.constant 1 : i64
  func.return %undefined : i64
}
