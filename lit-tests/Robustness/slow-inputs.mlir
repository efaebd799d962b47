// Inputs that once took time or memory far beyond their size; each now
// finishes in a second or two (the timeouts are generous for a loaded
// machine). (The text below is unused.)
//
// 300,000 ops on one 10 MB line: every location rescanned its line from the
// start (--cse took 99 s).
// RUN: python3 -c "print('func.func @f(%%a: i32) -> i32 {'); print(' '.join('%%x' + str(i) + ' = arith.addi %%a, %%a : i32' for i in range(300000))); print('func.return %%x0 : i32 }')" > %t.line.mlir
// RUN: timeout 60 recom-opt --cse %t.line.mlir | FileCheck %s --check-prefix=LINE
// LINE: %[[X:.*]] = arith.addi %arg0, %arg0 : i32
// LINE-NEXT: return %[[X]] : i32
// A diagnostic at the end of the long line names its column.
// RUN: python3 -c "print(' '.join('\"t.a\"() : () -> ()' for i in range(300000)) + ' \"t.b\"(%%v) : (i32) -> ()')" > %t.line-error.mlir
// RUN: not timeout 60 recom-opt --allow-unregistered-dialect %t.line-error.mlir 2>&1 | FileCheck %s --check-prefix=LINE-ERR
// LINE-ERR: line-error.mlir:1:5700007: error: use of undeclared SSA value name '%v'
//
// 200,000 chunks for --split-input-file: each chunk was padded with every
// line before it and parsed in a context of its own (past 20 s).
// RUN: python3 -c "print('\n// -----\n'.join('\"t.a\"() : () -> ()' for i in range(200000)))" > %t.split.mlir
// RUN: timeout 60 recom-opt --allow-unregistered-dialect --split-input-file %t.split.mlir -o %t.split.out
// RUN: grep -c "t.a" %t.split.out | FileCheck %s --check-prefix=SPLIT
// SPLIT: 200000
// The last chunk's diagnostic carries its line in the file.
// RUN: python3 -c "print('\n// -----\n'.join('\"t.a\"() : () -> ()' for i in range(200000)) + '\n\"t.b\"(%%v) : (i32) -> ()')" > %t.split-error.mlir
// RUN: not timeout 60 recom-opt --allow-unregistered-dialect --split-input-file %t.split-error.mlir -o %t.split-error.out 2>&1 | FileCheck %s --check-prefix=SPLIT-ERR
// SPLIT-ERR: split-error.mlir:400000:7: error: use of undeclared SSA value name '%v'
//
// Regions nested 20,000 deep print in a few MB: the indentation stops
// growing at 128 levels (the text was quadratic in the depth: 800 MB).
// RUN: python3 -c "print('\"t.a\"() ({' * 20000 + '}) : () -> ()' * 20000)" > %t.nested.mlir
// RUN: env RECOM_MAX_NESTING=20001 timeout 60 recom-opt --allow-unregistered-dialect %t.nested.mlir -o %t.nested.out
// RUN: python3 -c "import os, sys; n = os.path.getsize(sys.argv[1]); print(n); sys.exit(n > 20 << 20)" %t.nested.out
// It parses back, all 20,000 levels.
// RUN: env RECOM_MAX_NESTING=20001 recom-opt --allow-unregistered-dialect %t.nested.out | grep -c '"t.a"() ({' | FileCheck %s --check-prefix=NESTED
// NESTED: 20000
