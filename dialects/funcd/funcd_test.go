package funcd_test

import (
	"strings"
	"testing"

	"github.com/recom-compiler/recom/dialects/arith"
	"github.com/recom-compiler/recom/dialects/builtin"
	"github.com/recom-compiler/recom/dialects/funcd"
	"github.com/recom-compiler/recom/textir"
)

func newCtx() *textir.Context {
	c := textir.NewContext(builtin.Dialect(), funcd.Dialect(), arith.Dialect())
	return c
}

func print(m *textir.Operation) string {
	return strings.TrimRight(textir.OpString(m, textir.PrintOptions{}), "\n") + "\n"
}

func TestRoundTrip(t *testing.T) {
	tests := []string{
		`module {
  func.func private @decl(i32) -> i32
}
`,
		`module {
  func.func private @decl2(i32, f32 {a.b = 1 : i64}) -> (i32, f32)
  func.func nested @decl3()
  func.func private @decl4() -> (i32 {x.y})
  func.func private @decl5() -> ((i32) -> i32)
}
`,
		`module {
  func.func @f(%arg0: i32, %arg1: f32 {a.b = 1 : i64}) -> (i32, f32) attributes {x} {
    func.return %arg0, %arg1 : i32, f32
  }
  func.func @g() {
    func.return
  }
  func.func @h(%arg0: i32) -> i32 {
    %cst = arith.constant 1.000000e+00 : f32
    %0:2 = func.call @f(%arg0, %cst) : (i32, f32) -> (i32, f32)
    %1:2 = func.call @f(%arg0, %cst) {tag} : (i32, f32) -> (i32, f32)
    func.call @g() : () -> ()
    func.return %1#0 : i32
  }
}
`,
	}
	for _, src := range tests {
		ctx := newCtx()
		ctx.AllowUnregistered = true
		m, err := textir.Parse(ctx, "rt.mlir", []byte(src))
		if err != nil {
			t.Fatalf("parse: %v\n%s", err, src)
		}
		got := print(m)
		if got != src {
			t.Errorf("round trip:\n got:\n%s\nwant:\n%s", got, src)
		}
		gen := textir.OpString(m, textir.PrintOptions{Generic: true})
		m2, err := textir.Parse(ctx, "gen.mlir", []byte(gen))
		if err != nil {
			t.Fatalf("parse generic: %v\n%s", err, gen)
		}
		if got := print(m2); got != src {
			t.Errorf("generic round trip:\n%s", got)
		}
	}
}

func TestVerifier(t *testing.T) {
	tests := []struct{ name, src, want string }{
		{"valid", `func.func private @decl(i32) -> i32
func.func @f(%a: i32) -> i32 {
  %0 = func.call @decl(%a) : (i32) -> i32
  %1 = func.call @f(%0) : (i32) -> i32
  func.return %1 : i32
}`, ""},
		{"return count", `func.func @f(%a: i32) -> (i32, i32) {
  func.return %a : i32
}`, "test.mlir:2:3: error: 'func.return' op has 1 operands, but enclosing function (@f) returns 2"},
		{"return type", `func.func @f(%a: i32) -> i64 {
  func.return %a : i32
}`, "test.mlir:2:3: error: 'func.return' op type of return operand 0 ('i32') doesn't match function result type ('i64') in function @f"},
		{"return outside func", `"builtin.module"() ({
  "func.return"() : () -> ()
}) : () -> ()`, "test.mlir:2:3: error: 'func.return' op expects parent op 'func.func'"},
		{"return not last", `func.func @f() {
  func.return
  func.return
}`, "test.mlir:2:3: error: 'func.return' op must be the last operation in the parent block"},
		{"missing terminator", `func.func @f(%a: i32) {
  %0 = arith.addi %a, %a : i32
}`, "test.mlir:2:3: error: 'arith.addi' op block with no terminator, has 'arith.addi' as its last operation"},
		{"entry block arity", `"func.func"() ({
^bb0(%a: i32):
  "func.return"() : () -> ()
}) {function_type = (i32, i32) -> (), sym_name = "f"} : () -> ()`,
			"test.mlir:1:1: error: 'func.func' op entry block must have 2 arguments to match function signature"},
		{"entry block type", `"func.func"() ({
^bb0(%a: i64):
  "func.return"() : () -> ()
}) {function_type = (i32) -> (), sym_name = "f"} : () -> ()`,
			"test.mlir:1:1: error: 'func.func' op type of entry block argument #0('i64') must match the type of the corresponding argument in function signature('i32')"},
		{"function_type kind", `"func.func"() ({
}) {function_type = i32, sym_name = "f", sym_visibility = "private"} : () -> ()`,
			"test.mlir:1:1: error: 'func.func' op attribute 'function_type' failed to satisfy constraint: type attribute of function type"},
		{"missing sym_name", `"func.func"() ({
}) {function_type = () -> ()} : () -> ()`,
			"test.mlir:1:1: error: 'func.func' op requires attribute 'sym_name'"},
		{"public declaration", `func.func @decl(i32) -> i32`,
			"test.mlir:1:1: error: 'func.func' op symbol declaration cannot have public visibility"},
		{"bad visibility", `"func.func"() ({
}) {function_type = () -> (), sym_name = "f", sym_visibility = "hidden"} : () -> ()`,
			`test.mlir:1:1: error: 'func.func' op visibility expected to be one of ["public", "private", "nested"], but got "hidden"`},
		{"arg_attrs count", `"func.func"() ({
}) {arg_attrs = [{}], function_type = (i32, i32) -> (), sym_name = "f", sym_visibility = "private"} : () -> ()`,
			"test.mlir:1:1: error: 'func.func' op expects argument attribute array to have the same number of elements as the number of function arguments, got 1, but expected 2"},
		{"res_attrs kind", `"func.func"() ({
}) {res_attrs = [1], function_type = () -> i32, sym_name = "f", sym_visibility = "private"} : () -> ()`,
			"test.mlir:1:1: error: 'func.func' op expects result attribute dictionary #0 to be a dictionary attribute"},
		{"isolated", `func.func @f(%a: i32) {
  "func.func"() ({
    "func.return"() : () -> ()
  }) {function_type = () -> (), sym_name = "g"} : () -> ()
  func.return
}`, "test.mlir:3:5: error: 'func.return' op using value defined outside the region (operand #0)\n" +
			"test.mlir:1:1: note: operand #0 is argument #0 of block #0 of a region of 'func.func', defined here\n" +
			"test.mlir:2:3: note: required by region isolation constraints"},
		{"duplicate function", `func.func @f() {
  func.return
}
func.func @f() {
  func.return
}`, "test.mlir:4:1: error: 'func.func' op redefinition of symbol named 'f'\n" +
			"test.mlir:1:1: note: see existing symbol definition here"},
		{"call unknown callee", `func.func @f() {
  func.call @nope() : () -> ()
  func.return
}`, "test.mlir:2:3: error: 'func.call' op '@nope' does not reference a valid function"},
		{"call non-function", `module @m {
}
func.func @f() {
  func.call @m() : () -> ()
  func.return
}`, "test.mlir:4:3: error: 'func.call' op '@m' does not reference a valid function"},
		{"call operand count", `func.func private @g(i32)
func.func @f() {
  func.call @g() : () -> ()
  func.return
}`, "test.mlir:3:3: error: 'func.call' op incorrect number of operands for callee: expected 1, but provided 0"},
		{"call operand type", `func.func private @g(i32)
func.func @f(%a: i64) {
  func.call @g(%a) : (i64) -> ()
  func.return
}`, "test.mlir:3:3: error: 'func.call' op operand type mismatch: expected operand type 'i32', but provided 'i64' for operand number 0"},
		{"call result count", `func.func private @g() -> i32
func.func @f() {
  func.call @g() : () -> ()
  func.return
}`, "test.mlir:3:3: error: 'func.call' op incorrect number of results for callee: expected 1, but the call has 0"},
		{"call result type", `func.func private @g() -> i32
func.func @f() {
  %0 = func.call @g() : () -> i64
  func.return
}`, "test.mlir:3:3: error: 'func.call' op result type mismatch at index 0: expected 'i32', but the call has 'i64'"},
		{"call nested ref", `func.func @f() {
  "func.call"() {callee = @a::@b} : () -> ()
  func.return
}`, "test.mlir:2:3: error: 'func.call' op requires a 'callee' flat symbol reference attribute"},
		{"call resolves in the nearest table", `module @outer {
  func.func private @g()
  module @inner {
    func.func @f() {
      func.call @g() : () -> ()
      func.return
    }
  }
}`, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ctx := newCtx()
			m, err := textir.Parse(ctx, "test.mlir", []byte(tc.src))
			if err != nil {
				t.Fatalf("parse: %v", err)
			}
			if tc.name == "isolated" {
				// The parser rejects the use of %a inside @g: make it here.
				f := textir.LookupSymbolIn(m, "f")
				ret := f.Region(0).Front().First().Region(0).Front().First()
				ret.SetOperands([]*textir.Value{f.Region(0).Front().Arg(0)})
			}
			err = textir.Verify(ctx, m)
			got := ""
			if err != nil {
				got = err.Error()
			}
			if got != tc.want {
				t.Errorf("got:\n%s\nwant:\n%s", got, tc.want)
			}
		})
	}
}

func TestParseErrors(t *testing.T) {
	tests := []struct{ src, want string }{
		{"func.func @f(%a: i32, i32) {\n}", "expected all arguments of @f to be named, or none"},
		{"func.func @f(i32) {\n  func.return\n}", "expected named arguments for @f, which has a body"},
	}
	for _, tc := range tests {
		_, err := textir.Parse(newCtx(), "e.mlir", []byte(tc.src))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Parse(%q) = %v, want %q", tc.src, err, tc.want)
		}
	}
}

func TestNewFunc(t *testing.T) {
	ctx := newCtx()
	m := builtin.NewModule(ctx, textir.UnknownLoc{})
	ft := textir.FunctionTypeOf([]textir.Type{textir.I32()}, []textir.Type{textir.I32()})
	fn := funcd.NewFunc(ctx, textir.NameLoc{Name: "f"}, "f", ft)
	builtin.Body(m).Append(fn)
	entry := fn.Region(0).Front()
	entry.Append(ctx.Create(&textir.OperationState{Name: funcd.ReturnOp, Operands: []*textir.Value{entry.Arg(0)}}))
	if err := textir.Verify(ctx, m); err != nil {
		t.Fatal(err)
	}
	if funcd.FunctionType(fn) != ft || funcd.IsDeclaration(fn) {
		t.Error("accessors")
	}
	want := "module {\n  func.func @f(%arg0: i32) -> i32 {\n    func.return %arg0 : i32\n  }\n}\n"
	if got := print(m); got != want {
		t.Errorf("got:\n%s\nwant:\n%s", got, want)
	}
}
