// A failing pass reports its diagnostic and the pass it came from, and the
// run exits 1; --verify-diagnostics can expect the pass's error;
// --mlir-print-ir-after-failure dumps the IR the pass left.
// RUN: not recom-opt %s --pass-pipeline='builtin.module(func.func(symbol-dce))' 2>&1 | FileCheck %s
// RUN: recom-opt %s --pass-pipeline='builtin.module(func.func(symbol-dce))' --verify-diagnostics
// RUN: not recom-opt %s --pass-pipeline='builtin.module(func.func(symbol-dce))' --mlir-print-ir-after-failure 2>&1 | FileCheck %s --check-prefix=DUMP

// The diagnostic shows its source line and a caret, as MLIR's do; the note
// at the same position does not show it again.
// CHECK:      pass-failure.mlir:[[@LINE+9]]:1: error: 'func.func' op was scheduled to run under SymbolDCE, but does not define a symbol table
// CHECK-NEXT: {{^}}func.func @not_a_symbol_table() {
// CHECK-NEXT: {{^\^$}}
// CHECK-NEXT: pass-failure.mlir:[[@LINE+6]]:1: note: while running pass 'symbol-dce' on 'func.func' op
// CHECK-NOT:  ^

// DUMP:      // -----// IR Dump After SymbolDCE Failed (symbol-dce) //----- //
// DUMP-NEXT: func.func @not_a_symbol_table()
// expected-error@+1 {{was scheduled to run under SymbolDCE, but does not define a symbol table}}
func.func @not_a_symbol_table() {
  func.return
}
