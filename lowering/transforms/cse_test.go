package transforms

import "testing"

func TestCSE(t *testing.T) {
	runCases(t, []passCase{{
		name:     "duplicates",
		pipeline: "cse",
		in: `"builtin.module"() ({
  "func.func"() ({
  ^bb0(%a: i32, %b: i32):
    %0 = "arith.addi"(%a, %b) : (i32, i32) -> i32
    %1 = "arith.addi"(%a, %b) : (i32, i32) -> i32
    %2 = "arith.addi"(%b, %a) : (i32, i32) -> i32
    %3 = "arith.muli"(%0, %1) {k = 1 : i64} : (i32, i32) -> i32
    %4 = "arith.muli"(%0, %1) {k = 2 : i64} : (i32, i32) -> i32
    %5 = "arith.muli"(%0, %1) {k = 1 : i64} : (i32, i32) -> i32
    %6 = "arith.addi"(%a, %b) : (i32, i32) -> i64
    "func.return"(%1, %2, %3, %4, %5, %6) : (i32, i32, i32, i32, i32, i64) -> ()
  }) {sym_name = "f"} : () -> ()
}) : () -> ()`,
		want: `"builtin.module"() ({
  "func.func"() ({
  ^bb0(%a: i32, %b: i32):
    %0 = "arith.addi"(%a, %b) : (i32, i32) -> i32
    %2 = "arith.addi"(%b, %a) : (i32, i32) -> i32
    %3 = "arith.muli"(%0, %0) {k = 1 : i64} : (i32, i32) -> i32
    %4 = "arith.muli"(%0, %0) {k = 2 : i64} : (i32, i32) -> i32
    %6 = "arith.addi"(%a, %b) : (i32, i32) -> i64
    "func.return"(%0, %2, %3, %4, %3, %6) : (i32, i32, i32, i32, i32, i64) -> ()
  }) {sym_name = "f"} : () -> ()
}) : () -> ()`,
		stats: map[string]int64{"cse/num-cse'd": 2, "cse/num-dce'd": 0},
	}, {
		name:     "side effects and dead ops",
		pipeline: "cse",
		in: `"builtin.module"() ({
  "func.func"() ({
    %0 = "test.source"() : () -> i32
    %1 = "test.source"() : () -> i32
    %c = "arith.constant"() {value = 1 : i32} : () -> i32
    %d = "arith.addi"(%c, %c) : (i32, i32) -> i32
    %e = "arith.muli"(%d, %d) : (i32, i32) -> i32
    "func.return"(%0, %1) : (i32, i32) -> ()
  }) {sym_name = "f"} : () -> ()
}) : () -> ()`,
		want: `"builtin.module"() ({
  "func.func"() ({
    %0 = "test.source"() : () -> i32
    %1 = "test.source"() : () -> i32
    "func.return"(%0, %1) : (i32, i32) -> ()
  }) {sym_name = "f"} : () -> ()
}) : () -> ()`,
		stats: map[string]int64{"cse/num-cse'd": 0, "cse/num-dce'd": 3},
	}, {
		name:     "dominance",
		pipeline: "builtin.module(func.func(cse))",
		in: `"builtin.module"() ({
  "func.func"() ({
  ^bb0(%a: i32, %p: i1):
    %0 = "arith.addi"(%a, %a) : (i32, i32) -> i32
    "test.sink"(%0) : (i32) -> ()
    "test.cond_br"(%p)[^bb1, ^bb2] : (i1) -> ()
  ^bb1:
    %1 = "arith.addi"(%a, %a) : (i32, i32) -> i32
    %2 = "arith.muli"(%a, %a) : (i32, i32) -> i32
    "test.br"(%1, %2)[^bb3] : (i32, i32) -> ()
  ^bb2:
    %3 = "arith.muli"(%a, %a) : (i32, i32) -> i32
    "test.br"(%3, %3)[^bb3] : (i32, i32) -> ()
  ^bb3:
    %4 = "arith.muli"(%a, %a) : (i32, i32) -> i32
    "func.return"(%4) : (i32) -> ()
  ^bb4:
    %5 = "arith.addi"(%a, %a) : (i32, i32) -> i32
    %6 = "arith.addi"(%a, %a) : (i32, i32) -> i32
    "func.return"(%5, %6) : (i32, i32) -> ()
  }) {sym_name = "f"} : () -> ()
}) : () -> ()`,
		want: `"builtin.module"() ({
  "func.func"() ({
  ^bb0(%a: i32, %p: i1):
    %0 = "arith.addi"(%a, %a) : (i32, i32) -> i32
    "test.sink"(%0) : (i32) -> ()
    "test.cond_br"(%p)[^bb1, ^bb2] : (i1) -> ()
  ^bb1:
    %2 = "arith.muli"(%a, %a) : (i32, i32) -> i32
    "test.br"(%0, %2)[^bb3] : (i32, i32) -> ()
  ^bb2:
    %3 = "arith.muli"(%a, %a) : (i32, i32) -> i32
    "test.br"(%3, %3)[^bb3] : (i32, i32) -> ()
  ^bb3:
    %4 = "arith.muli"(%a, %a) : (i32, i32) -> i32
    "func.return"(%4) : (i32) -> ()
  ^bb4:
    %5 = "arith.addi"(%a, %a) : (i32, i32) -> i32
    "func.return"(%5, %5) : (i32, i32) -> ()
  }) {sym_name = "f"} : () -> ()
}) : () -> ()`,
		stats: map[string]int64{"cse/num-cse'd": 2},
	}, {
		name:     "nested regions",
		pipeline: "cse",
		in: `"builtin.module"() ({
  %c = "arith.constant"() {value = 1 : i32} : () -> i32
  "func.func"() ({
    %c1 = "arith.constant"() {value = 1 : i32} : () -> i32
    %0 = "arith.addi"(%c1, %c1) : (i32, i32) -> i32
    "test.region"() ({
      %1 = "arith.addi"(%c1, %c1) : (i32, i32) -> i32
      %2 = "arith.muli"(%1, %1) : (i32, i32) -> i32
      "test.sink"(%2) : (i32) -> ()
      "test.yield"() : () -> ()
    }, {
      %3 = "arith.muli"(%0, %0) : (i32, i32) -> i32
      "test.sink"(%3) : (i32) -> ()
      "test.yield"() : () -> ()
    }) : () -> ()
    %4 = "arith.muli"(%0, %0) : (i32, i32) -> i32
    "func.return"(%4) : (i32) -> ()
  }) {sym_name = "f"} : () -> ()
  "func.func"() ({
    %c2 = "arith.constant"() {value = 1 : i32} : () -> i32
    "func.return"(%c2) : (i32) -> ()
  }) {sym_name = "g"} : () -> ()
  "test.sink"(%c) : (i32) -> ()
}) : () -> ()`,
		want: `"builtin.module"() ({
  %c = "arith.constant"() {value = 1 : i32} : () -> i32
  "func.func"() ({
    %c1 = "arith.constant"() {value = 1 : i32} : () -> i32
    %0 = "arith.addi"(%c1, %c1) : (i32, i32) -> i32
    "test.region"() ({
      %2 = "arith.muli"(%0, %0) : (i32, i32) -> i32
      "test.sink"(%2) : (i32) -> ()
      "test.yield"() : () -> ()
    }, {
      %3 = "arith.muli"(%0, %0) : (i32, i32) -> i32
      "test.sink"(%3) : (i32) -> ()
      "test.yield"() : () -> ()
    }) : () -> ()
    %4 = "arith.muli"(%0, %0) : (i32, i32) -> i32
    "func.return"(%4) : (i32) -> ()
  }) {sym_name = "f"} : () -> ()
  "func.func"() ({
    %c2 = "arith.constant"() {value = 1 : i32} : () -> i32
    "func.return"(%c2) : (i32) -> ()
  }) {sym_name = "g"} : () -> ()
  "test.sink"(%c) : (i32) -> ()
}) : () -> ()`,
		stats: map[string]int64{"cse/num-cse'd": 1},
	}, {
		name:     "dead pure region op",
		pipeline: "cse",
		in: `"builtin.module"() ({
  "func.func"() ({
    %a = "test.source"() : () -> i32
    %0 = "test.pure_region"() ({
      %1 = "arith.addi"(%a, %a) : (i32, i32) -> i32
      "test.yield"(%1) : (i32) -> ()
    }) : () -> i32
    "func.return"() : () -> ()
  }) {sym_name = "f"} : () -> ()
}) : () -> ()`,
		want: `"builtin.module"() ({
  "func.func"() ({
    %a = "test.source"() : () -> i32
    "func.return"() : () -> ()
  }) {sym_name = "f"} : () -> ()
}) : () -> ()`,
	}, {
		name:     "graph region",
		pipeline: "cse",
		in: `"builtin.module"() ({
  "test.graph"() ({
    "test.sink"(%b) : (i32) -> ()
    %c = "test.source"() : () -> i32
    %a = "arith.addi"(%c, %c) : (i32, i32) -> i32
    %b = "arith.addi"(%c, %c) : (i32, i32) -> i32
    %d = "arith.addi"(%c, %c) : (i32, i32) -> i32
    "test.sink"(%a, %b, %d, %e) : (i32, i32, i32, i32) -> ()
    %e = "arith.muli"(%d, %d) : (i32, i32) -> i32
  }) : () -> ()
}) : () -> ()`,
		want: `"builtin.module"() ({
  "test.graph"() ({
    "test.sink"(%b) : (i32) -> ()
    %c = "test.source"() : () -> i32
    %a = "arith.addi"(%c, %c) : (i32, i32) -> i32
    %b = "arith.addi"(%c, %c) : (i32, i32) -> i32
    "test.sink"(%a, %a, %a, %e) : (i32, i32, i32, i32) -> ()
    %e = "arith.muli"(%a, %a) : (i32, i32) -> i32
  }) : () -> ()
}) : () -> ()`,
		stats: map[string]int64{"cse/num-cse'd": 2},
	}, {
		name:     "unregistered parent is a graph region",
		pipeline: "cse",
		in: `"builtin.module"() ({
  "other.op"() ({
    "test.sink"(%y) : (i32) -> ()
    %c = "test.source"() : () -> i32
    %x = "arith.addi"(%c, %c) : (i32, i32) -> i32
    %y = "arith.addi"(%c, %c) : (i32, i32) -> i32
    "test.sink"(%x, %y) : (i32, i32) -> ()
  }) : () -> ()
}) : () -> ()`,
		want: `"builtin.module"() ({
  "other.op"() ({
    "test.sink"(%y) : (i32) -> ()
    %c = "test.source"() : () -> i32
    %x = "arith.addi"(%c, %c) : (i32, i32) -> i32
    %y = "arith.addi"(%c, %c) : (i32, i32) -> i32
    "test.sink"(%x, %x) : (i32, i32) -> ()
  }) : () -> ()
}) : () -> ()`,
		stats: map[string]int64{"cse/num-cse'd": 1, "cse/num-dce'd": 0},
	}})
}
