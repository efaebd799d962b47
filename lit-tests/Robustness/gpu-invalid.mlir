// Hostile gpu-dialect programs in the generic form: loads and stores with
// wrong operands, widths, results; launches with missing or ill-typed grid
// sizes, unresolved or non-symbol kernels, or from inside a kernel; bad shared
// allocations, pointer offsets and signatures. Only what dialects/gpu verifies
// today. Each: a diagnostic at the op, exit status 1, no output file with -o.
// RUN: recom-opt %s --split-input-file --verify-diagnostics
// RUN: not recom-opt %s --split-input-file -o %t.out 2>&1 | FileCheck %s --check-prefix=CLI --implicit-check-not="internal error"
// RUN: test ! -e %t.out
// RUN: ls -a %T | not grep -q "gpu-invalid.mlir.tmp.out.tmp"
// CLI-COUNT-16: gpu-invalid.mlir:{{[0-9]+}}:{{[0-9]+}}: error: 'gpu.

"gpu.module"() ({
  "gpu.func"() ({
  ^bb0(%p: !gpu.ptr<f32, global>):
    // expected-error@+1 {{'gpu.load' op expected 2 operands, but found 1}}
    %x = "gpu.load"(%p) : (!gpu.ptr<f32, global>) -> f32
    "gpu.return"() : () -> ()
  }) {function_type = (!gpu.ptr<f32, global>) -> (), kernel, sym_name = "k"} : () -> ()
}) {sym_name = "m"} : () -> ()

// -----

"gpu.module"() ({
  "gpu.func"() ({
  ^bb0(%p: !gpu.ptr<f32, global>, %i: f32):
    // expected-error@+1 {{'gpu.load' op operand #1 must be 64-bit signless integer, but got 'f32'}}
    %x = "gpu.load"(%p, %i) : (!gpu.ptr<f32, global>, f32) -> f32
    "gpu.return"() : () -> ()
  }) {function_type = (!gpu.ptr<f32, global>, f32) -> (), kernel, sym_name = "k"} : () -> ()
}) {sym_name = "m"} : () -> ()

// -----

"gpu.module"() ({
  "gpu.func"() ({
  ^bb0(%p: f32, %i: i64):
    // expected-error@+1 {{'gpu.load' op operand #0 must be gpu pointer, but got 'f32'}}
    %x = "gpu.load"(%p, %i) : (f32, i64) -> f32
    "gpu.return"() : () -> ()
  }) {function_type = (f32, i64) -> (), kernel, sym_name = "k"} : () -> ()
}) {sym_name = "m"} : () -> ()

// -----

"gpu.module"() ({
  "gpu.func"() ({
  ^bb0(%p: !gpu.ptr<f32, global>, %i: i64):
    // expected-error@+1 {{'gpu.load' op attribute 'width' must be 1, 2 or 4, but is -4}}
    %x = "gpu.load"(%p, %i) {width = -4 : i64} : (!gpu.ptr<f32, global>, i64) -> f32
    "gpu.return"() : () -> ()
  }) {function_type = (!gpu.ptr<f32, global>, i64) -> (), kernel, sym_name = "k"} : () -> ()
}) {sym_name = "m"} : () -> ()

// -----

"gpu.module"() ({
  "gpu.func"() ({
  ^bb0(%p: !gpu.ptr<f32, global>, %i: i64):
    // expected-error@+1 {{'gpu.load' op attribute 'width' failed to satisfy constraint: integer attribute}}
    %x = "gpu.load"(%p, %i) {width = "4"} : (!gpu.ptr<f32, global>, i64) -> f32
    "gpu.return"() : () -> ()
  }) {function_type = (!gpu.ptr<f32, global>, i64) -> (), kernel, sym_name = "k"} : () -> ()
}) {sym_name = "m"} : () -> ()

// -----

"gpu.module"() ({
  "gpu.func"() ({
  ^bb0(%p: !gpu.ptr<f32, global>, %i: i64):
    // expected-error@+1 {{'gpu.store' op expected between 3 and 6 operands, but found 2}}
    "gpu.store"(%p, %i) : (!gpu.ptr<f32, global>, i64) -> ()
    "gpu.return"() : () -> ()
  }) {function_type = (!gpu.ptr<f32, global>, i64) -> (), kernel, sym_name = "k"} : () -> ()
}) {sym_name = "m"} : () -> ()

// -----

"gpu.module"() ({
  "gpu.func"() ({
  ^bb0(%p: !gpu.ptr<f32, global>, %i: i64, %v: f32):
    // expected-error@+1 {{'gpu.store' op expected 0 results, but found 1}}
    %r = "gpu.store"(%v, %p, %i) : (f32, !gpu.ptr<f32, global>, i64) -> f32
    "gpu.return"() : () -> ()
  }) {function_type = (!gpu.ptr<f32, global>, i64, f32) -> (), kernel, sym_name = "k"} : () -> ()
}) {sym_name = "m"} : () -> ()

// -----

"gpu.module"() ({
  "gpu.func"() ({
  ^bb0(%p: !gpu.ptr<f32, global>, %i: i64, %v: f32):
    "gpu.store"(%v, %v, %v, %v, %p, %i) {width = 4 : i64} : (f32, f32, f32, f32, !gpu.ptr<f32, global>, i64) -> ()
    "gpu.return"() : () -> ()
  }) {function_type = (!gpu.ptr<f32, global>, i64, f32) -> (), sym_name = "k"} : () -> ()
  "gpu.func"() ({
  ^bb0(%p: !gpu.ptr<f32, global>, %i: i64, %v: f32):
    // expected-error@+1 {{'gpu.store' op stores 1 elements (width 1), but has 2 values}}
    "gpu.store"(%v, %v, %p, %i) {width = 1 : i64} : (f32, f32, !gpu.ptr<f32, global>, i64) -> ()
    "gpu.return"() : () -> ()
  }) {function_type = (!gpu.ptr<f32, global>, i64, f32) -> (), sym_name = "k2"} : () -> ()
}) {sym_name = "m"} : () -> ()

// -----

"gpu.module"() ({
  "gpu.func"() ({
    "gpu.return"() : () -> ()
  }) {function_type = () -> (), kernel, sym_name = "k"} : () -> ()
}) {sym_name = "m"} : () -> ()
func.func @host(%g: i64) {
  // expected-error@+1 {{'gpu.launch' op expected 2 or more operands, but found 1}}
  "gpu.launch"(%g) {kernel = @m::@k} : (i64) -> ()
  func.return
}

// -----

"gpu.module"() ({
  "gpu.func"() ({
    "gpu.return"() : () -> ()
  }) {function_type = () -> (), kernel, sym_name = "k"} : () -> ()
}) {sym_name = "m"} : () -> ()
func.func @host(%g: i64) {
  // expected-error@+1 {{'gpu.launch' op '@m::@nope' does not reference a gpu.func}}
  "gpu.launch"(%g, %g) {kernel = @m::@nope} : (i64, i64) -> ()
  func.return
}

// -----

"gpu.module"() ({
  "gpu.func"() ({
    "gpu.return"() : () -> ()
  }) {function_type = () -> (), kernel, sym_name = "k"} : () -> ()
}) {sym_name = "m"} : () -> ()
func.func @host(%g: f32) {
  // expected-error@+1 {{'gpu.launch' op operand #0 must be 64-bit signless integer, but got 'f32'}}
  "gpu.launch"(%g, %g) {kernel = @m::@k} : (f32, f32) -> ()
  func.return
}

// -----

"gpu.module"() ({
  "gpu.func"() ({
    "gpu.return"() : () -> ()
  }) {function_type = () -> (), kernel, sym_name = "k"} : () -> ()
}) {sym_name = "m"} : () -> ()
func.func @host(%g: i64) {
  // expected-error@+1 {{'gpu.launch' op attribute 'kernel' failed to satisfy constraint: symbol reference attribute}}
  "gpu.launch"(%g, %g) {kernel = "k"} : (i64, i64) -> ()
  func.return
}

// -----

"gpu.module"() ({
  "gpu.func"() ({
  ^bb0(%g: i64):
    // expected-error@+1 {{'gpu.launch' op runs on the host and cannot be inside a gpu.func}}
    "gpu.launch"(%g, %g) {kernel = @m::@k} : (i64, i64) -> ()
    "gpu.return"() : () -> ()
  }) {function_type = (i64) -> (), kernel, sym_name = "k"} : () -> ()
}) {sym_name = "m"} : () -> ()

// -----

"gpu.module"() ({
  "gpu.func"() ({
  ^bb0(%p: !gpu.ptr<f32, global>, %i: i64):
    // expected-error@+1 {{'gpu.shared_alloc' op 'count' must be positive, but is -1}}
    %s = "gpu.shared_alloc"() {count = -1 : i64} : () -> !gpu.ptr<f32, shared>
    "gpu.return"() : () -> ()
  }) {function_type = (!gpu.ptr<f32, global>, i64) -> (), kernel, sym_name = "k"} : () -> ()
}) {sym_name = "m"} : () -> ()

// -----

"gpu.module"() ({
  "gpu.func"() ({
  ^bb0(%p: !gpu.ptr<f32, global>, %i: f32):
    // expected-error@+1 {{'gpu.ptr_offset' op operand #1 must be 64-bit signless integer, but got 'f32'}}
    %q = "gpu.ptr_offset"(%p, %i) : (!gpu.ptr<f32, global>, f32) -> !gpu.ptr<f32, global>
    "gpu.return"() : () -> ()
  }) {function_type = (!gpu.ptr<f32, global>, f32) -> (), kernel, sym_name = "k"} : () -> ()
}) {sym_name = "m"} : () -> ()

// -----

"gpu.module"() ({
  // expected-error@+1 {{'gpu.func' op entry block must have 1 arguments to match function signature}}
  "gpu.func"() ({
  ^bb0(%p: !gpu.ptr<f32, global>, %i: i64):
    "gpu.return"() : () -> ()
  }) {function_type = (!gpu.ptr<f32, global>) -> (), kernel, sym_name = "k"} : () -> ()
}) {sym_name = "m"} : () -> ()
