// Shape arithmetic of the kind every embedding column carries after import:
// the same products computed twice, constants folded at run time, and a
// private helper nobody calls. scripts/run-example.sh runs
// --cse --canonicalize --symbol-dce on it.
module {
  // The flattened id count of a [batch, 4] sparse input, computed twice (as
  // two feature columns each do) and reshaped into [batch * 4, 16].
  func.func @column_shapes(%batch: i64) -> (i64, i64, i64) {
    %c4 = arith.constant 4 : i64
    %c16 = arith.constant 16 : i64
    %c1 = arith.constant 1 : i64
    %c0 = arith.constant 0 : i64
    %ids_a = arith.muli %batch, %c4 : i64
    %ids_b = arith.muli %batch, %c4 : i64
    %rows = arith.muli %ids_a, %c1 : i64
    %plus0 = arith.addi %rows, %c0 : i64
    %w = arith.muli %c4, %c4 : i64
    %elems = arith.muli %plus0, %w : i64
    func.return %ids_b, %elems, %c16 : i64, i64, i64
  }

  // Never called: symbol-dce removes it.
  func.func private @unused_helper(%x: i64) -> i64 {
    %c2 = arith.constant 2 : i64
    %y = arith.muli %x, %c2 : i64
    func.return %y : i64
  }
}
