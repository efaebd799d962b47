// --split-input-file processes each chunk on its own, keeps going after a
// failing chunk, reports the original file's line numbers, separates the
// outputs with "// -----", and exits 1 if any chunk failed.
// RUN: not recom-opt --split-input-file %s 2>&1 >/dev/null | FileCheck %s --check-prefix=ERR
// RUN: not recom-opt --split-input-file %s 2>/dev/null | FileCheck %s --check-prefix=OUT

// OUT:      func.func @first
// OUT:      // -----
// OUT-NEXT: // -----
// OUT-NEXT: module {
// OUT-NEXT:   func.func @third
func.func @first() {
  func.return
}

// -----

func.func @second() -> i64 {
  // ERR: split-input-file.mlir:[[@LINE+1]]:15: error: use of undeclared SSA value name '%a'
  func.return %a : i64
}

// -----

func.func @third() {
  func.return
}
// ERR-NOT: error
