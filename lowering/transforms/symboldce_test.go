package transforms

import "testing"

func TestSymbolDCE(t *testing.T) {
	runCases(t, []passCase{{
		name:     "private and nested",
		pipeline: "symbol-dce",
		in: `"builtin.module"() ({
  "func.func"() ({
    "func.call"() {callee = @used} : () -> ()
    "func.return"() : () -> ()
  }) {sym_name = "pub"} : () -> ()
  "func.func"() ({
    "func.call"() {callee = @chain} : () -> ()
    "func.return"() : () -> ()
  }) {sym_name = "used", sym_visibility = "private"} : () -> ()
  "func.func"() ({
    "func.call"() {callee = @chain} : () -> ()
    "func.return"() : () -> ()
  }) {sym_name = "dead", sym_visibility = "private"} : () -> ()
  "func.func"() ({
    "func.return"() : () -> ()
  }) {sym_name = "chain", sym_visibility = "private"} : () -> ()
  "func.func"() ({
    "func.call"() {callee = @only_from_dead} : () -> ()
    "func.return"() : () -> ()
  }) {sym_name = "nested_dead", sym_visibility = "nested"} : () -> ()
  "func.func"() ({
    "func.return"() : () -> ()
  }) {sym_name = "only_from_dead", sym_visibility = "private"} : () -> ()
  "func.func"() ({
    "func.return"() : () -> ()
  }) {sym_name = "in_attr", sym_visibility = "private"} : () -> ()
  "test.sink"() {refs = [{x = @in_attr}, @unknown]} : () -> ()
}) : () -> ()`,
		want: `"builtin.module"() ({
  "func.func"() ({
    "func.call"() {callee = @used} : () -> ()
    "func.return"() : () -> ()
  }) {sym_name = "pub"} : () -> ()
  "func.func"() ({
    "func.call"() {callee = @chain} : () -> ()
    "func.return"() : () -> ()
  }) {sym_name = "used", sym_visibility = "private"} : () -> ()
  "func.func"() ({
    "func.return"() : () -> ()
  }) {sym_name = "chain", sym_visibility = "private"} : () -> ()
  "func.func"() ({
    "func.return"() : () -> ()
  }) {sym_name = "in_attr", sym_visibility = "private"} : () -> ()
  "test.sink"() {refs = [{x = @in_attr}, @unknown]} : () -> ()
}) : () -> ()`,
		stats: map[string]int64{"symbol-dce/num-dce'd": 3},
	}, {
		// The top op's table is hidden, so "nested" symbols of a public
		// nested table are discardable too (as in MLIR).
		name:     "nested symbol tables",
		pipeline: "symbol-dce",
		in: `"builtin.module"() ({
  "test.symtab"() ({
    "func.func"() ({
      "func.return"() : () -> ()
    }) {sym_name = "x", sym_visibility = "private"} : () -> ()
    "func.func"() ({
      "func.return"() : () -> ()
    }) {sym_name = "y", sym_visibility = "private"} : () -> ()
    "func.func"() ({
      "func.return"() : () -> ()
    }) {sym_name = "z", sym_visibility = "nested"} : () -> ()
  }) {sym_name = "pubmod"} : () -> ()
  "test.symtab"() ({
    "func.func"() ({
      "func.return"() : () -> ()
    }) {sym_name = "w"} : () -> ()
  }) {sym_name = "privmod", sym_visibility = "private"} : () -> ()
  "test.symtab"() ({
    "func.func"() ({
      "func.return"() : () -> ()
    }) {sym_name = "v", sym_visibility = "nested"} : () -> ()
    "func.func"() ({
      "func.return"() : () -> ()
    }) {sym_name = "u", sym_visibility = "nested"} : () -> ()
  }) {sym_name = "privmod2", sym_visibility = "private"} : () -> ()
  "test.sink"() {r = @pubmod::@x, s = @privmod2::@v} : () -> ()
}) : () -> ()`,
		want: `"builtin.module"() ({
  "test.symtab"() ({
    "func.func"() ({
      "func.return"() : () -> ()
    }) {sym_name = "x", sym_visibility = "private"} : () -> ()
  }) {sym_name = "pubmod"} : () -> ()
  "test.symtab"() ({
    "func.func"() ({
      "func.return"() : () -> ()
    }) {sym_name = "v", sym_visibility = "nested"} : () -> ()
  }) {sym_name = "privmod2", sym_visibility = "private"} : () -> ()
  "test.sink"() {r = @pubmod::@x, s = @privmod2::@v} : () -> ()
}) : () -> ()`,
		stats: map[string]int64{"symbol-dce/num-dce'd": 5},
	}, {
		name:     "visible nested table keeps nested symbols",
		pipeline: "builtin.module(test.symtab(symbol-dce))",
		in: `"builtin.module"() ({
  "test.symtab"() ({
    "func.func"() ({
      "func.return"() : () -> ()
    }) {sym_name = "p", sym_visibility = "private"} : () -> ()
    "func.func"() ({
      "func.return"() : () -> ()
    }) {sym_name = "z", sym_visibility = "nested"} : () -> ()
  }) {sym_name = "pubmod"} : () -> ()
}) : () -> ()`,
		want: `"builtin.module"() ({
  "test.symtab"() ({
    "func.func"() ({
      "func.return"() : () -> ()
    }) {sym_name = "z", sym_visibility = "nested"} : () -> ()
  }) {sym_name = "pubmod"} : () -> ()
}) : () -> ()`,
		stats: map[string]int64{"symbol-dce/num-dce'd": 1},
	}, {
		name:     "not a symbol table",
		pipeline: "builtin.module(func.func(symbol-dce))",
		in: `"builtin.module"() ({
  "func.func"() ({
    "func.return"() : () -> ()
  }) {sym_name = "f"} : () -> ()
}) : () -> ()`,
		err: "'func.func' op was scheduled to run under SymbolDCE, but does not define a symbol table",
	}})
}
