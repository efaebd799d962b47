package builtin_test

import (
	"strings"
	"testing"

	"github.com/recom-compiler/recom/dialects/builtin"
	"github.com/recom-compiler/recom/textir"
)

func newCtx() *textir.Context {
	c := textir.NewContext(builtin.Dialect())
	c.AllowUnregistered = true
	return c
}

func print(m *textir.Operation) string {
	return strings.TrimRight(textir.OpString(m, textir.PrintOptions{}), "\n") + "\n"
}

func TestModuleForms(t *testing.T) {
	tests := []struct{ src, want string }{
		{"module {\n}\n", "module {\n}\n"},
		{"module @name {\n}\n", "module @name {\n}\n"},
		{"module attributes {a = 1 : i64} {\n}\n", "module attributes {a = 1 : i64} {\n}\n"},
		{"module @n attributes {sym_visibility = \"private\", x.y} {\n}\n", "module @n attributes {sym_visibility = \"private\", x.y} {\n}\n"},
		{"module @outer {\n  module @inner {\n    \"x.op\"() : () -> ()\n  }\n  module {\n  }\n}\n",
			"module @outer {\n  module @inner {\n    \"x.op\"() : () -> ()\n  }\n  module {\n  }\n}\n"},
		// The generic form of the same.
		{"\"builtin.module\"() ({\n}) {sym_name = \"g\"} : () -> ()\n", "module @g {\n}\n"},
		{"\"builtin.module\"() <{sym_name = \"p\"}> ({\n}) {a} : () -> ()\n", "module @p attributes {a} {\n}\n"},
	}
	for _, tc := range tests {
		ctx := newCtx()
		m, err := textir.Parse(ctx, "m.mlir", []byte(tc.src))
		if err != nil {
			t.Fatalf("parse %q: %v", tc.src, err)
		}
		if err := textir.Verify(ctx, m); err != nil {
			t.Errorf("verify %q: %v", tc.src, err)
		}
		if got := print(m); got != tc.want {
			t.Errorf("print(%q):\n got: %q\nwant: %q", tc.src, got, tc.want)
		}
		// Every module read in the custom form has its entry block (the
		// generic form keeps an empty region empty: builtin.Body adds it).
		if strings.HasPrefix(tc.src, "\"") {
			continue
		}
		m.Walk(func(op *textir.Operation) bool {
			if op.Name() == builtin.ModuleOp && op.Region(0).Empty() {
				t.Errorf("%q: module without entry block", tc.src)
			}
			return true
		})
	}
}

func TestCastForms(t *testing.T) {
	src := `module {
  %0 = "x.a"() : () -> i32
  %1 = "x.b"() : () -> f32
  %2:2 = unrealized_conversion_cast %0, %1 : i32, f32 to i64, f64
  %3 = unrealized_conversion_cast to i8
  %4 = unrealized_conversion_cast %0 : i32 to index {note = "x"}
}
`
	ctx := newCtx()
	m, err := textir.Parse(ctx, "c.mlir", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	if err := textir.Verify(ctx, m); err != nil {
		t.Fatal(err)
	}
	if got := print(m); got != src {
		t.Errorf("got:\n%s\nwant:\n%s", got, src)
	}
	// The prefixed spelling reads too.
	long := strings.ReplaceAll(src, "= unrealized", "= builtin.unrealized")
	m2, err := textir.Parse(ctx, "c.mlir", []byte(long))
	if err != nil {
		t.Fatal(err)
	}
	if got := print(m2); got != src {
		t.Errorf("got:\n%s", got)
	}
}

func TestCastFold(t *testing.T) {
	src := `module {
  %0 = "x.a"() : () -> i32
  %1 = unrealized_conversion_cast %0 : i32 to i64
  %2 = unrealized_conversion_cast %1 : i64 to i32
  %3 = unrealized_conversion_cast %1 : i64 to f32
  %4 = unrealized_conversion_cast %0 : i32 to i32
}
`
	ctx := newCtx()
	m, err := textir.Parse(ctx, "c.mlir", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	var ops []*textir.Operation
	for op := range builtin.Body(m).Ops() {
		ops = append(ops, op)
	}
	x := ops[0].Result(0)
	fold := func(op *textir.Operation) []textir.FoldResult {
		return op.Def().Fold(op, make([]textir.Attribute, op.NumOperands()))
	}
	if r := fold(ops[1]); r != nil {
		t.Errorf("i32 -> i64 folded: %v", r)
	}
	if r := fold(ops[2]); len(r) != 1 || r[0].Value != x {
		t.Errorf("cast round trip did not fold to the source: %v", r)
	}
	if r := fold(ops[3]); r != nil {
		t.Errorf("i64 -> f32 of a cast folded: %v", r)
	}
	if r := fold(ops[4]); len(r) != 1 || r[0].Value != x {
		t.Errorf("identity cast did not fold: %v", r)
	}
}

func TestNewModule(t *testing.T) {
	ctx := newCtx()
	m := builtin.NewModule(ctx, textir.FileLineColLoc{File: "x", Line: 1, Col: 1})
	if m.Region(0).Front() == nil || builtin.Body(m) != m.Region(0).Front() {
		t.Fatal("NewModule has no entry block")
	}
	if err := textir.Verify(ctx, m); err != nil {
		t.Fatal(err)
	}
	m.SetAttr("sym_name", textir.Str("m"))
	if got := print(m); got != "module @m {\n}\n" {
		t.Errorf("got %q", got)
	}
	bare := ctx.Create(&textir.OperationState{Name: builtin.ModuleOp, NumRegions: 1})
	if builtin.Body(bare) == nil || bare.Region(0).Empty() {
		t.Error("Body did not add the entry block")
	}
}

func TestModuleVerifier(t *testing.T) {
	tests := []struct{ src, want string }{
		{"module {\n  %0 = \"x.a\"() : () -> i32\n}\n", ""},
		{"\"builtin.module\"() ({\n  \"x.a\"() : () -> ()\n^bb1:\n  \"x.b\"() : () -> ()\n}) : () -> ()\n",
			"m.mlir:1:1: error: 'builtin.module' op expects region #0 to have 0 or 1 blocks, but found 2"},
		{"\"builtin.module\"() ({\n}) {sym_name = 3 : i64} : () -> ()\n",
			"m.mlir:1:1: error: 'builtin.module' op attribute 'sym_name' failed to satisfy constraint: string attribute"},
		{"module {\n  module @a {\n  }\n  module @a {\n  }\n}\n",
			"m.mlir:4:3: error: 'builtin.module' op redefinition of symbol named 'a'\nm.mlir:2:3: note: see existing symbol definition here"},
	}
	for _, tc := range tests {
		ctx := newCtx()
		m, err := textir.Parse(ctx, "m.mlir", []byte(tc.src))
		if err != nil {
			t.Fatalf("parse %q: %v", tc.src, err)
		}
		got := ""
		if err := textir.Verify(ctx, m); err != nil {
			got = err.Error()
		}
		if got != tc.want {
			t.Errorf("verify %q:\n got: %s\nwant: %s", tc.src, got, tc.want)
		}
	}
}
