package gpu_test

import (
	"strings"
	"testing"

	"github.com/recom-compiler/recom/dialects/gpu"
)

// Issue #19's hanging kernel: a loop whose bound is the constant -1 runs no
// iteration (the comparison is signed, as scf.for's), so it ends within a
// budget of one step; a step that is not positive is refused, naming the
// loop, instead of looping for ever.
func TestSimulatorLoopBoundMinusOne(t *testing.T) {
	const src = `gpu.module @m {
  gpu.func @minus1(%n: i64) kernel {
    %c0 = arith.constant 0 : i64
    %c1 = arith.constant 1 : i64
    %m1 = arith.constant -1 : i64
    gpu.for %i = %c0 to %m1 step %c1 {
      gpu.yield
    } loc("loop.mlir":6:5)
    gpu.return
  }
  gpu.func @minus1i32(%n: i64) kernel {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %m1 = arith.constant -1 : i32
    gpu.for %i = %c0 to %m1 step %c1 : i32 {
      gpu.yield
    } loc("loop.mlir":14:5)
    gpu.return
  }
  gpu.func @step0(%n: i64) kernel {
    %c0 = arith.constant 0 : i64
    %c10 = arith.constant 10 : i64
    gpu.for %i = %c0 to %c10 step %c0 {
      gpu.yield
    } loc("loop.mlir":21:5)
    gpu.return
  }
}`
	for _, name := range []string{"minus1", "minus1i32"} {
		if err := kernel(t, src, name).Launch(4, 64, []any{int64(0)}, &gpu.LaunchOptions{MaxSteps: 1}); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
	err := kernel(t, src, "step0").Launch(1, 1, []any{int64(0)}, &gpu.LaunchOptions{MaxSteps: 1 << 20})
	if err == nil || !strings.HasPrefix(err.Error(), "loop.mlir:21:5: error: 'gpu.for' op step 0 is not positive") {
		t.Errorf("step 0: got %v", err)
	}
}
