// A bare op name resolves to func's ops only directly in a func.func body:
// not at the top of a module, and not in the region of an op nested in the
// function (each op's regions take that op's default dialect, as in MLIR).
// RUN: recom-opt %s --split-input-file --verify-diagnostics --allow-unregistered-dialect

// expected-error@+1 {{custom op 'return' is unknown}}
return

// -----

func.func @nested() {
  "test.region"() ({
    // expected-error@+1 {{custom op 'return' is unknown}}
    return
  }) : () -> ()
  return
}
