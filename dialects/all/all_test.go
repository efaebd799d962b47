package all_test

import (
	"testing"

	"github.com/recom-compiler/recom/dialects/all"
	"github.com/recom-compiler/recom/textir"
)

func TestNewContext(t *testing.T) {
	ctx := all.NewContext()
	for _, name := range []string{"builtin.module", "builtin.unrealized_conversion_cast", "func.func", "func.return",
		"func.call", "arith.constant", "arith.addi", "arith.cmpi", "tfg.graph"} {
		if ctx.LookupOp(name) == nil {
			t.Errorf("%s is not registered", name)
		}
	}
	if ctx.AllowUnregistered {
		t.Error("unregistered ops allowed by default")
	}
	// Two contexts do not share state.
	if all.NewContext() == ctx {
		t.Error("NewContext returned a shared context")
	}
	src := "module {\n  func.func @f(%arg0: i32) -> i32 {\n    %c1_i32 = arith.constant 1 : i32\n" +
		"    %0 = arith.addi %arg0, %c1_i32 : i32\n    func.return %0 : i32\n  }\n}\n"
	m, err := textir.Parse(ctx, "a.mlir", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	if err := textir.Verify(ctx, m); err != nil {
		t.Fatal(err)
	}
}

// Every op of the dialects recom defines (all but tfg, whose operands are
// named by its op table, dialects/tfg/optab) names its operands and
// results, consistently with its arities.
func TestOpsNameTheirValues(t *testing.T) {
	for _, d := range all.Dialects() {
		if d.Name == "tfg" {
			continue
		}
		for _, def := range d.Ops {
			if err := def.CheckNames(); err != nil {
				t.Error(err)
			}
			if def.NamedOperands == nil && def.Operands != textir.Exactly(0) {
				t.Errorf("%s names none of its operands (%s)", def.Name, def.Operands)
			}
			if def.NamedResults == nil && def.Results != textir.Exactly(0) {
				t.Errorf("%s names none of its results (%s)", def.Name, def.Results)
			}
		}
	}
}
