func.func @ok(%a: i64) -> i64 {
  %0 = arith.addi %a, %a : i64
  %1 = arith.addi %a, %a : i64
  %2 = arith.muli %0, %1 : i64
  func.return %2 : i64
}
