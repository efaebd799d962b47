// --mcpu goes to llc (and ptxas) as one argument: a value that is not a
// target GPU (sm_NN, sm_NNN, with an optional a or f) is refused before any
// tool runs, by every command that takes it (it reached llc, which aborted
// on "sm_90 -o x"). Exit status 1, no output file.
// RUN: recom gen --preset micro --no-tables -o %t.pbtxt 2>/dev/null
// RUN: not recom compile %t.pbtxt --mcpu='sm_90 -o x' -o %t.dir 2>&1 | FileCheck --check-prefix=MCPU --implicit-check-not="internal error" %s
// RUN: test ! -e %t.dir
// RUN: not recom run %t.pbtxt --mcpu='sm_90 -o x' -o %t.npz 2>&1 | FileCheck --check-prefix=MCPU --implicit-check-not="internal error" %s
// RUN: not recom bench %t.pbtxt --mcpu='-O0' 2>&1 | FileCheck --check-prefix=DASH --implicit-check-not="internal error" %s
// RUN: not recom gpu-smoke --mcpu='sm_90 -o x' --emit-ptx %t.smoke.ptx 2>&1 | FileCheck --check-prefix=MCPU --implicit-check-not="internal error" %s
// RUN: test ! -e %t.smoke.ptx
// RUN: not recom-translate --emit-ptx --mcpu='sm_90 -o x' %s -o %t.ptx 2>&1 | FileCheck --check-prefix=TRANSLATE --implicit-check-not="internal error" %s
// RUN: test ! -e %t.ptx
// RUN: not recom-translate --emit-ptx --mcpu= %s -o %t.empty 2>&1 | FileCheck --check-prefix=EMPTY %s
// RUN: test ! -e %t.empty
// MCPU: recom: error: --mcpu: target GPU "sm_90 -o x": want sm_ and a compute capability, e.g. sm_80, sm_90 or sm_90a
// DASH: recom: error: --mcpu: target GPU "-O0": want sm_
// TRANSLATE: recom-translate: error: --mcpu: target GPU "sm_90 -o x": want sm_ and a compute capability
// EMPTY: recom-translate: error: --mcpu: target GPU "": want sm_
// A valid one still compiles.
// RUN: recom-translate --emit-ptx --mcpu=sm_80 %s -o - | FileCheck --check-prefix=OK %s
// OK: .target sm_80
gpu.module @m {
  gpu.func @k() kernel {
    gpu.return
  }
}
