package transforms

import "testing"

func TestCanonicalize(t *testing.T) {
	in := `"builtin.module"() ({
  "func.func"() ({
  ^bb0(%a: i32):
    %c0 = "arith.constant"() {value = 0 : i32} : () -> i32
    %c2 = "arith.constant"() {value = 2 : i32} : () -> i32
    %c3 = "arith.constant"() {value = 3 : i32} : () -> i32
    %0 = "arith.addi"(%a, %c0) : (i32, i32) -> i32
    %1 = "arith.addi"(%c2, %c3) : (i32, i32) -> i32
    %2 = "test.neg"(%0) : (i32) -> i32
    %3 = "test.neg"(%2) : (i32) -> i32
    %4 = "arith.muli"(%a, %a) : (i32, i32) -> i32
    "func.return"(%3, %1) : (i32, i32) -> ()
  }) {sym_name = "f"} : () -> ()
}) : () -> ()`
	want := `"builtin.module"() ({
  "func.func"() ({
  ^bb0(%a: i32):
    %c5 = "arith.constant"() {value = 5 : i32} : () -> i32
    "func.return"(%a, %c5) : (i32, i32) -> ()
  }) {sym_name = "f"} : () -> ()
}) : () -> ()`
	flip := `"builtin.module"() ({
  "test.flip"() {v = false} : () -> ()
}) : () -> ()`
	runCases(t, []passCase{{
		name:     "fold, patterns, dce",
		pipeline: "canonicalize",
		in:       in,
		want:     want,
		stats:    map[string]int64{"canonicalize/num-rewrites": 1},
	}, {
		name:     "bottom-up",
		pipeline: "builtin.module(func.func(canonicalize{top-down=false}))",
		in:       in,
		want:     want,
	}, {
		name:     "disabled pattern",
		pipeline: "canonicalize{disable-patterns=DoubleNeg}",
		in:       in,
		want: `"builtin.module"() ({
  "func.func"() ({
  ^bb0(%a: i32):
    %c5 = "arith.constant"() {value = 5 : i32} : () -> i32
    %2 = "test.neg"(%a) : (i32) -> i32
    %3 = "test.neg"(%2) : (i32) -> i32
    "func.return"(%3, %c5) : (i32, i32) -> ()
  }) {sym_name = "f"} : () -> ()
}) : () -> ()`,
		stats: map[string]int64{"canonicalize/num-rewrites": 0},
	}, {
		name:     "no convergence is not an error by default",
		pipeline: "canonicalize{max-iterations=3}",
		in:       flip,
	}, {
		name:     "test-convergence",
		pipeline: "canonicalize{max-iterations=3 test-convergence}",
		in:       flip,
		err:      "did not converge",
	}})
}
