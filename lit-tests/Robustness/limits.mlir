// Inputs that would need unbounded memory, time or stack are refused with a
// message naming the limit and how to raise it (docs/LIMITS.md).
//
// Regions nested 5000 deep (generated): over RECOM_MAX_NESTING (512).
// RUN: python3 -c "print('\"t.a\"() ({' * 5000 + '}) : () -> ()' * 5000)" > %t.regions.mlir
// RUN: not recom-opt --allow-unregistered-dialect %t.regions.mlir -o %t.out 2>&1 | FileCheck %s --check-prefix=NEST --implicit-check-not="internal error"
// RUN: test ! -e %t.out
// NEST: .mlir:1:{{[0-9]+}}: error: nesting too deep: more than 512 nested regions, attributes, types or locations (set RECOM_MAX_NESTING to raise the limit; see docs/LIMITS.md)
// Arrays, dictionaries, types, locations and dialect bodies nested 100000 deep.
// RUN: python3 -c "print('\"t.a\"() {x = ' + '[' * 100000 + ']' * 100000 + '} : () -> ()')" > %t.arrays.mlir
// RUN: not recom-opt --allow-unregistered-dialect %t.arrays.mlir 2>&1 | FileCheck %s --check-prefix=NEST --implicit-check-not="internal error"
// RUN: python3 -c "print('\"t.a\"() {x = ' + '{a = ' * 100000 + '1' + '}' * 100000 + '} : () -> ()')" > %t.dicts.mlir
// RUN: not recom-opt --allow-unregistered-dialect %t.dicts.mlir 2>&1 | FileCheck %s --check-prefix=NEST --implicit-check-not="internal error"
// RUN: python3 -c "print('%%0 = \"t.a\"() : () -> ' + 'tensor<' * 100000 + 'f32' + '>' * 100000)" > %t.types.mlir
// RUN: not recom-opt --allow-unregistered-dialect %t.types.mlir 2>&1 | FileCheck %s --check-prefix=NEST --implicit-check-not="internal error"
// RUN: python3 -c "print('\"t.a\"() : () -> () loc(' + 'fused[' * 100000 + ']' * 100000 + ')')" > %t.locs.mlir
// RUN: not recom-opt --allow-unregistered-dialect %t.locs.mlir 2>&1 | FileCheck %s --check-prefix=NEST --implicit-check-not="internal error"
// RUN: python3 -c "print('%%0 = \"t.a\"() : () -> !t.x<' + '(' * 100000 + ')' * 100000 + '>')" > %t.body.mlir
// RUN: not recom-opt --allow-unregistered-dialect %t.body.mlir 2>&1 | FileCheck %s --check-prefix=NEST --implicit-check-not="internal error"
// Raising the limit through the environment lets the 5000-deep regions parse.
// RUN: env RECOM_MAX_NESTING=6000 recom-opt --allow-unregistered-dialect %t.regions.mlir -o %t.raised
// RUN: test -s %t.raised
//
// Huge element counts, integer widths and dimensions in the text.
// RUN: recom-opt %s --split-input-file --verify-diagnostics --allow-unregistered-dialect
//
// A splat of 10^18 elements is one value: parsing, canonicalizing and printing it
// take no memory per element.
// RUN: recom-opt %S/Inputs/huge-splat.mlir --canonicalize | FileCheck %s --check-prefix=SPLAT
// SPLAT: arith.constant dense<1.000000e+00> : tensor<1000000000x1000000000xf32>

// expected-error@+1 {{number of elements in 'tensor<99999999999x99999999999xf32>' overflows}}
"t.a"() {x = dense<1.0> : tensor<99999999999x99999999999xf32>} : () -> ()

// -----

// expected-error@+1 {{integer bitwidth is limited to 16777216 bits}}
%0 = "t.a"() : () -> i99999999

// -----

// expected-error@+1 {{dimension is too large}}
%0 = "t.a"() : () -> tensor<99999999999999999999xf32>

// -----

// expected-error@+1 {{dense integer elements wider than 64 bits are not supported}}
"t.a"() {x = dense<"0x01"> : tensor<1000000000xi16777216>} : () -> ()

// -----

// expected-error@+1 {{inferred shape of elements literal ([2]) does not match type ([1000000000])}}
"t.a"() {x = dense<[1.0, 2.0]> : tensor<1000000000xf32>} : () -> ()
