// -o never replaces a file the user may not write, writes through a
// symbolic link (the link stays a link), and every error names the file in
// words; the same for recom-translate and recom's -o files.
// RUN: rm -rf %t && mkdir -p %t/real %t/dir
// RUN: printf 'node { name: "a" op: "NoOp" }\n' > %t/g.pbtxt
// RUN: echo keep > %t/ro.mlir && chmod 0444 %t/ro.mlir
// RUN: not recom-opt %S/Inputs/ok.mlir -o %t/ro.mlir 2>&1 | FileCheck %s --check-prefix=RO -DFILE=%t/ro.mlir
// RUN: not recom-translate --import-graphdef %t/g.pbtxt -o %t/ro.mlir 2>&1 | FileCheck %s --check-prefix=RO -DFILE=%t/ro.mlir
// RUN: FileCheck %s --check-prefix=KEEP --input-file=%t/ro.mlir
// RO: error: cannot write [[FILE]]: it is read-only (mode 0444): not replacing it
// KEEP: keep
//
// RUN: echo old > %t/real/target.mlir && ln -s real/target.mlir %t/link.mlir
// RUN: recom-opt %S/Inputs/ok.mlir -o %t/link.mlir
// RUN: test -L %t/link.mlir
// RUN: FileCheck %s --check-prefix=OK --input-file=%t/real/target.mlir
// OK: func.func @ok
//
// RUN: not recom-opt %S/Inputs/ok.mlir -o '' 2>&1 | FileCheck %s --check-prefix=EMPTY
// RUN: not recom-opt %S/Inputs/ok.mlir -o %t/dir 2>&1 | FileCheck %s --check-prefix=DIR -DFILE=%t/dir
// RUN: not recom-opt %S/Inputs/ok.mlir -o %t/none/x.mlir 2>&1 | FileCheck %s --check-prefix=NODIR -DDIR=%t/none
// RUN: not recom interp %t/g.pbtxt --outputs a -o %t/dir 2>&1 | FileCheck %s --check-prefix=DIR -DFILE=%t/dir
// EMPTY: recom-opt: error: the output file name is empty (give a file, or - for standard output)
// DIR: error: cannot write [[FILE]]: it is a directory (give a file name)
// NODIR: error: cannot write [[DIR]]/x.mlir: the directory [[DIR]] does not exist
//
// Nothing else is left: no staging folder.
// RUN: ls -A %t | FileCheck %s --check-prefix=LS --implicit-check-not=tmp
// LS: dir
// LS-NEXT: g.pbtxt
// LS-NEXT: link.mlir
// LS-NEXT: real
// LS-NEXT: ro.mlir
