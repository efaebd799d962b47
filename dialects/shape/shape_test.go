package shape_test

import (
	"context"
	"strings"
	"testing"

	"github.com/recom-compiler/recom/dialects/arith"
	"github.com/recom-compiler/recom/dialects/builtin"
	"github.com/recom-compiler/recom/dialects/funcd"
	"github.com/recom-compiler/recom/dialects/shape"
	"github.com/recom-compiler/recom/dialects/shape/expr"
	"github.com/recom-compiler/recom/interp"
	"github.com/recom-compiler/recom/interp/exec"
	"github.com/recom-compiler/recom/lowering/rewrite"
	"github.com/recom-compiler/recom/textir"
)

func newCtx() *textir.Context {
	ctx := textir.NewContext(builtin.Dialect(), funcd.Dialect(), arith.Dialect(), shape.Dialect())
	ctx.AllowUnregistered = true
	return ctx
}

func parse(t *testing.T, ctx *textir.Context, src string) *textir.Operation {
	t.Helper()
	m, err := textir.Parse(ctx, "test.mlir", []byte(src))
	if err != nil {
		t.Fatalf("parse: %v\n%s", err, src)
	}
	if err := textir.Verify(ctx, m); err != nil {
		t.Fatalf("verify: %v\n%s", err, src)
	}
	return m
}

func print(m *textir.Operation, generic bool) string {
	return textir.OpString(m, textir.PrintOptions{Generic: generic})
}

const allOps = `func.func @f(%x: tensor<?x1xi64>, %v: tensor<?xi64>, %y: tensor<?x8xf32>) -> (index, tensor<2xi64>, tensor<i32>, index, tensor<0xi32>) {
  %b = shape.dim %x, 0 {symbol = "batch"} : tensor<?x1xi64> -> index
  %n = shape.count %v {symbol = "nnz.age"} : tensor<?xi64> -> index
  %c = shape.count %v : tensor<?xi64> -> index
  %e = shape.apply #shape.expr<(batch, n) -> batch * 8 + n>(%b, %n) : index
  %k = shape.apply #shape.expr<() -> 4>() : index
  %s = shape.from_extents %b, %e : tensor<2xi64>
  %z = shape.from_extents : tensor<0xi32>
  %t = shape.index_cast %e : index to tensor<i32>
  %i = shape.index_cast %t : tensor<i32> to index
  shape.assert_shape %y, #shape.expr<(batch) -> (batch, 8)>(%b) : tensor<?x8xf32>
  func.return %e, %s, %t, %i, %z : index, tensor<2xi64>, tensor<i32>, index, tensor<0xi32>
}
`

func TestRoundTrip(t *testing.T) {
	ctx := newCtx()
	m := parse(t, ctx, allOps)
	custom := print(m, false)
	for _, want := range []string{
		`%batch = shape.dim %arg0, 0 {symbol = "batch"} : tensor<?x1xi64> -> index`,
		`%nnz.age = shape.count %arg1 {symbol = "nnz.age"} : tensor<?xi64> -> index`,
		`%0 = shape.count %arg1 : tensor<?xi64> -> index`,
		`%1 = shape.apply #shape.expr<(batch, n) -> batch * 8 + n>(%batch, %nnz.age) : index`,
		`%2 = shape.apply #shape.expr<() -> 4>() : index`,
		`%3 = shape.from_extents %batch, %1 : tensor<2xi64>`,
		`%4 = shape.from_extents : tensor<0xi32>`,
		`%5 = shape.index_cast %1 : index to tensor<i32>`,
		`%6 = shape.index_cast %5 : tensor<i32> to index`,
		`shape.assert_shape %arg2, #shape.expr<(batch) -> (batch, 8)>(%batch) : tensor<?x8xf32>`,
	} {
		if !strings.Contains(custom, want) {
			t.Errorf("missing %q in:\n%s", want, custom)
		}
	}
	// custom → custom and generic → custom are fixed points.
	if again := print(parse(t, ctx, custom), false); again != custom {
		t.Errorf("reprint differs:\n%s\nvs\n%s", custom, again)
	}
	generic := print(m, true)
	if !strings.Contains(generic, `"shape.apply"(%0, %1) {map = #shape.expr<(batch, n) -> batch * 8 + n>} : (index, index) -> index`) {
		t.Errorf("generic form:\n%s", generic)
	}
	if again := print(parse(t, ctx, generic), false); again != custom {
		t.Errorf("generic reparse differs:\n%s\nvs\n%s", custom, again)
	}
}

func TestCustomFormVariants(t *testing.T) {
	ctx := newCtx()
	// Optional type suffixes and a quoted, non-canonical map are accepted.
	m := parse(t, ctx, `func.func @f(%x: tensor<?x1xi64>) -> index {
  %b = shape.dim %x, 0 : tensor<?x1xi64>
  %e = shape.apply #shape.expr<"(a) -> (a + 7) floordiv 8">(%b)
  func.return %e : index
}`)
	got := print(m, false)
	for _, want := range []string{
		`%0 = shape.dim %arg0, 0 : tensor<?x1xi64> -> index`,
		`%1 = shape.apply #shape.expr<(a) -> a ceildiv 8>(%0) : index`,
	} {
		if !strings.Contains(got, want) {
			t.Errorf("missing %q in:\n%s", want, got)
		}
	}
}

func TestParseErrors(t *testing.T) {
	tests := []struct{ src, want string }{
		{`%e = shape.apply #shape.expr<(a) -> a +>(%b) : index`, "test.mlir:3:20: error: invalid expression map at column 11 of '(a) -> a +': expected an expression, found end of expression"},
		{`%e = shape.apply #shape.expr<"(a) -> b">(%b) : index`, "test.mlir:3:20: error: invalid expression map at column 9 of '\"(a) -> b\"': unknown symbol 'b'"},
		{`%e = shape.apply #foo.bar<x>(%b) : index`, "test.mlir:3:20: error: expected an #shape.expr<...> attribute"},
		{`%e = shape.apply #shape.expr<(a) -> a>(%b) : i32`, "test.mlir:3:48: error: expected 'index', found 'i32'"},
		{`%e = shape.dim %x, 0 : tensor<?x1xi64> -> i32`, "test.mlir:3:42: error: expected '-> index'"},
		{`%e = shape.index_cast %b : index into tensor<i32>`, "test.mlir:3:36: error: expected 'to', got 'into'"},
	}
	for _, tc := range tests {
		src := "func.func @f(%x: tensor<?x1xi64>, %b: index) {\n  %c = arith.constant 0 : index\n  " + tc.src + "\n  func.return\n}"
		_, err := textir.Parse(newCtx(), "test.mlir", []byte(src))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s:\n got %v\nwant %s", tc.src, err, tc.want)
		}
	}
}

func TestVerifier(t *testing.T) {
	tests := []struct{ body, want string }{
		{`%0 = "shape.dim"(%x) {index = 2 : i64} : (tensor<?x1xi64>) -> index`, "'shape.dim' op dimension index 2 is out of range for a tensor of rank 2"},
		{`%0 = "shape.dim"(%x) {index = -1 : i64} : (tensor<?x1xi64>) -> index`, "'shape.dim' op dimension index -1 is negative"},
		{`%0 = "shape.dim"(%x) : (tensor<?x1xi64>) -> index`, "'shape.dim' op requires attribute 'index'"},
		{`%0 = "shape.dim"(%x) {index = 0 : i64, symbol = ""} : (tensor<?x1xi64>) -> index`, "'shape.dim' op attribute 'symbol' must not be empty"},
		{`%0 = "shape.dim"(%x) {index = 0 : i64, symbol = "mod"} : (tensor<?x1xi64>) -> index`, "'shape.dim' op attribute 'symbol': symbol name \"mod\" is a keyword"},
		{`%0 = "shape.dim"(%b) {index = 0 : i64} : (index) -> index`, "'shape.dim' op operand #0 must be tensor, but got 'index'"},
		{`%0 = "shape.count"(%x) : (tensor<?x1xi64>) -> i64`, "'shape.count' op result #0 must be index, but got 'i64'"},
		{`%0 = "shape.count"(%x) {symbol = "s1"} : (tensor<?x1xi64>) -> index`, "reserved for unnamed symbols"},
		{`%0 = "shape.apply"(%b) : (index) -> index`, "'shape.apply' op requires attribute 'map'"},
		{`%0 = "shape.apply"(%b) {map = 3 : i64} : (index) -> index`, "'shape.apply' op expected an #shape.expr<...> attribute"},
		{`%0 = "shape.apply"(%b) {map = #shape.expr<(a, b) -> a>} : (index) -> index`, "'shape.apply' op expression map has 2 parameters, but the op has 1 index operands"},
		{`%0 = "shape.apply"(%b) {map = #shape.expr<(a) -> (a, a)>} : (index) -> index`, "'shape.apply' op expression map must have 1 result(s), but has 2"},
		{`%0 = "shape.apply"(%b) {map = #shape.expr<(a) -> a floordiv 0>} : (index) -> index`, "division by zero"},
		{`%0 = "shape.apply"(%x) {map = #shape.expr<(a) -> a>} : (tensor<?x1xi64>) -> index`, "'shape.apply' op operand #0 must be index"},
		{`%0 = "shape.from_extents"(%b) : (index) -> tensor<2xi64>`, "'shape.from_extents' op result type tensor<2xi64> must have 1 elements, one per operand"},
		{`%0 = "shape.from_extents"(%b) : (index) -> tensor<1xi16>`, "'shape.from_extents' op result #0 must be 1-D tensor of 32- or 64-bit signless integers, but got 'tensor<1xi16>'"},
		{`%0 = "shape.from_extents"(%b) : (index) -> tensor<?xi64>`, "must have 1 elements"},
		{`%0 = "shape.index_cast"(%b) : (index) -> index`, "'shape.index_cast' op operand type 'index' and result type 'index' are cast incompatible"},
		{`%0 = "shape.index_cast"(%b) : (index) -> tensor<1xi64>`, "'shape.index_cast' op result #0 must be index or 0-D tensor"},
		{`"shape.assert_shape"(%x, %b) {map = #shape.expr<(a) -> (a)>} : (tensor<?x1xi64>, index) -> ()`, "'shape.assert_shape' op expression map must have 2 result(s), but has 1"},
		{`"shape.assert_shape"(%x, %b) {map = #shape.expr<(a) -> (a, 2)>} : (tensor<?x1xi64>, index) -> ()`, "'shape.assert_shape' op asserted dim 1 is 2, but the tensor type tensor<?x1xi64> has 1"},
		{`"shape.assert_shape"(%x, %b) {map = #shape.expr<(a) -> (-1, a)>} : (tensor<?x1xi64>, index) -> ()`, "'shape.assert_shape' op asserted dim 0 is -1, a negative size"},
		{`"shape.assert_shape"(%x) {map = #shape.expr<(a) -> (a, 1)>} : (tensor<?x1xi64>) -> ()`, "expression map has 1 parameters, but the op has 0 index operands"},
	}
	for _, tc := range tests {
		ctx := newCtx()
		src := "func.func @f(%x: tensor<?x1xi64>, %b: index) {\n  " + tc.body + "\n  func.return\n}"
		m, err := textir.Parse(ctx, "test.mlir", []byte(src))
		if err == nil {
			err = textir.Verify(ctx, m)
		}
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s:\n got %v\nwant %s", tc.body, err, tc.want)
		} else if !strings.HasPrefix(err.Error(), "test.mlir:2:") {
			t.Errorf("%s: error not located at the op: %v", tc.body, err)
		}
	}
}

func canonicalize(t *testing.T, src string) string {
	t.Helper()
	ctx := newCtx()
	m := parse(t, ctx, src)
	ps := rewrite.NewPatternSet(ctx, rewrite.CanonicalizationPatterns(ctx))
	if _, err := rewrite.ApplyPatternsGreedily(m, ps, rewrite.DefaultGreedyConfig()); err != nil {
		t.Fatal(err)
	}
	if err := textir.Verify(ctx, m); err != nil {
		t.Fatalf("verify after canonicalize: %v", err)
	}
	return print(m, false)
}

func TestCanonicalize(t *testing.T) {
	tests := []struct {
		name, src string
		want, not []string
	}{
		{"static dim and count fold", `func.func @f(%x: tensor<4x?xi64>) -> (index, index) {
  %0 = shape.dim %x, 0 : tensor<4x?xi64> -> index
  %1 = shape.count %x : tensor<4x?xi64> -> index
  %2 = shape.count %x : tensor<4x?xi64> -> index
  %3 = shape.apply #shape.expr<(a, b) -> a * 2 + b>(%0, %1) : index
  func.return %3, %2 : index, index
}`, []string{"shape.apply #shape.expr<(b) -> b + 8>(%0)", "shape.count %arg0"}, []string{"shape.dim"}},
		{"apply of constants folds", `func.func @f() -> index {
  %c3 = arith.constant 3 : index
  %0 = shape.apply #shape.expr<(a) -> a * 8 + 2>(%c3) : index
  func.return %0 : index
}`, []string{"arith.constant 26 : index", "return %c26"}, []string{"shape.apply"}},
		{"apply of apply composes", `func.func @f(%x: tensor<?x1xi64>, %v: tensor<?xi64>) -> index {
  %b = shape.dim %x, 0 {symbol = "batch"} : tensor<?x1xi64> -> index
  %n = shape.count %v {symbol = "nnz.age"} : tensor<?xi64> -> index
  %0 = shape.apply #shape.expr<(b) -> b * 8>(%b) : index
  %1 = shape.apply #shape.expr<(p, q) -> p + q * 2>(%0, %n) : index
  %2 = shape.apply #shape.expr<(r, s) -> (r - s * 2) floordiv 4>(%1, %n) : index
  func.return %2 : index
}`, []string{"%0 = shape.apply #shape.expr<(batch) -> batch * 2>(%batch) : index", "return %0 : index"}, []string{"nnz.age"}},
		{"identity apply folds to its operand", `func.func @f(%a: index, %b: index) -> index {
  %0 = shape.apply #shape.expr<(a, b) -> (a * b) floordiv b>(%a, %b) : index
  func.return %0 : index
}`, []string{"return %arg0 : index"}, []string{"shape.apply"}},
		{"repeated and unused operands", `func.func @f(%a: index, %b: index) -> index {
  %0 = shape.apply #shape.expr<(x, y, z) -> x + y * 3>(%a, %a, %b) : index
  func.return %0 : index
}`, []string{"shape.apply #shape.expr<(x) -> x * 4>(%arg0) : index"}, nil},
		{"from_extents of constants", `func.func @f() -> (tensor<2xi64>, tensor<2xi32>) {
  %c3 = arith.constant 3 : index
  %c4 = arith.constant 4 : index
  %0 = shape.from_extents %c3, %c4 : tensor<2xi64>
  %1 = shape.from_extents %c3, %c4 : tensor<2xi32>
  func.return %0, %1 : tensor<2xi64>, tensor<2xi32>
}`, []string{"arith.constant dense<[3, 4]> : tensor<2xi64>", "arith.constant dense<[3, 4]> : tensor<2xi32>"}, []string{"shape.from_extents"}},
		{"index_cast folds", `func.func @f(%a: index, %t: tensor<i64>) -> (index, tensor<i64>, tensor<i32>, index) {
  %c5 = arith.constant 5 : index
  %0 = shape.index_cast %a : index to tensor<i64>
  %1 = shape.index_cast %0 : tensor<i64> to index
  %2 = shape.index_cast %t : tensor<i64> to index
  %3 = shape.index_cast %2 : index to tensor<i64>
  %4 = shape.index_cast %c5 : index to tensor<i32>
  %5 = shape.index_cast %4 : tensor<i32> to index
  func.return %1, %3, %4, %5 : index, tensor<i64>, tensor<i32>, index
}`, []string{"return %arg0, %arg1, %cst, %c5 : index, tensor<i64>, tensor<i32>, index", "arith.constant dense<5> : tensor<i32>"}, []string{"shape.index_cast"}},
		{"division by zero does not fold", `func.func @f(%a: index) -> index {
  %c0 = arith.constant 0 : index
  %0 = shape.apply #shape.expr<(a, z) -> a floordiv z>(%a, %c0) : index
  func.return %0 : index
}`, []string{"shape.apply #shape.expr<(a, z) -> a floordiv z>(%arg0, %c0)"}, nil},
		{"assert_shape operands simplify; static asserts go", `func.func @f(%x: tensor<?x8xf32>, %y: tensor<4x8xf32>, %a: index) {
  %c4 = arith.constant 4 : index
  %0 = shape.apply #shape.expr<(a) -> a * 2>(%a) : index
  shape.assert_shape %x, #shape.expr<(p, q) -> (p + q, 8)>(%0, %0) : tensor<?x8xf32>
  shape.assert_shape %y, #shape.expr<(c) -> (c, 8)>(%c4) : tensor<4x8xf32>
  func.return
}`, []string{"shape.assert_shape %arg0, #shape.expr<(a) -> (a * 4, 8)>(%arg2) : tensor<?x8xf32>"}, []string{"%arg1,", "arith.constant"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := canonicalize(t, tc.src)
			for _, w := range tc.want {
				if !strings.Contains(got, w) {
					t.Errorf("missing %q in:\n%s", w, got)
				}
			}
			for _, w := range tc.not {
				if strings.Contains(got, w) {
					t.Errorf("%q still in:\n%s", w, got)
				}
			}
		})
	}
}

func TestBuilders(t *testing.T) {
	ctx := newCtx()
	m := parse(t, ctx, `func.func @f(%x: tensor<?x1xi64>, %v: tensor<?xi64>) {
  func.return
}`)
	fn := m.Region(0).Front().First()
	blk := fn.Region(0).Front()
	b := textir.NewBuilder(ctx)
	b.SetInsertionPoint(blk.Last())
	loc := textir.UnknownLoc{}
	tb := expr.NewTable()
	batch, _ := tb.New("batch", expr.InputDim)
	nnz, _ := tb.New("nnz.age", expr.DataCount)
	vals := map[expr.Sym]*textir.Value{
		batch: shape.BuildDim(b, loc, blk.Arg(0), 0, "batch").Result(0),
		nnz:   shape.BuildCount(b, loc, blk.Arg(1), "nnz.age").Result(0),
	}
	e, _ := tb.Parse("nnz.age ceildiv batch + batch * 8")
	value := func(s expr.Sym) *textir.Value { return vals[s] }
	ap, err := shape.BuildApply(b, loc, e, value, tb.Name)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := shape.BuildAssertShape(b, loc, blk.Arg(0), []expr.Expr{expr.Var(batch), expr.Const(1)}, value, tb.Name); err != nil {
		t.Fatal(err)
	}
	if _, err := shape.BuildApply(b, loc, expr.Var(5), value, nil); err == nil {
		t.Errorf("BuildApply without a value for s5 succeeded")
	}
	if err := textir.Verify(ctx, m); err != nil {
		t.Fatal(err)
	}
	got := print(m, false)
	for _, want := range []string{
		`%0 = shape.apply #shape.expr<(batch, nnz.age) -> batch * 8 - (-nnz.age) floordiv batch>(%batch, %nnz.age) : index`,
		`shape.assert_shape %arg0, #shape.expr<(batch) -> (batch, 1)>(%batch) : tensor<?x1xi64>`,
	} {
		if !strings.Contains(got, want) {
			t.Errorf("missing %q in:\n%s", want, got)
		}
	}
	if name, kind, ok := shape.SymbolOf(vals[nnz]); !ok || name != "nnz.age" || kind != expr.DataCount {
		t.Errorf("SymbolOf(count) = %q %v %v", name, kind, ok)
	}
	if name, kind, ok := shape.SymbolOf(vals[batch]); !ok || name != "batch" || kind != expr.InputDim {
		t.Errorf("SymbolOf(dim) = %q %v %v", name, kind, ok)
	}
	if _, _, ok := shape.SymbolOf(ap.Result(0)); ok {
		t.Errorf("SymbolOf(apply) ok")
	}
}

// The shape-level program runs in the interpreter.
const program = `module {
  %x = "test.input"() : () -> tensor<?x1xi64> loc("x")
  %v = "test.input"() : () -> tensor<?xi64> loc("v")
  %b = shape.dim %x, 0 {symbol = "batch"} : tensor<?x1xi64> -> index loc("b")
  %n = shape.count %v {symbol = "nnz.age"} : tensor<?xi64> -> index loc("n")
  %e = shape.apply #shape.expr<(batch, n) -> batch * 8 + n ceildiv 4>(%b, %n) : index loc("e")
  %d = shape.apply #shape.expr<(batch, n) -> n floordiv (batch - 3)>(%b, %n) : index loc("d")
  %s = shape.from_extents %b, %e : tensor<2xi64> loc("s")
  %s32 = shape.from_extents %e, %b : tensor<2xi32> loc("s32")
  %t = shape.index_cast %e : index to tensor<i32> loc("t")
  %i = shape.index_cast %t : tensor<i32> to index loc("i")
  %c = arith.constant 7 : index loc("c")
  %k = shape.apply #shape.expr<(c, b) -> c * b>(%c, %b) : index loc("k")
  %big = arith.constant 3000000000 : index loc("big")
  %bt = shape.index_cast %big : index to tensor<i32> loc("bt")
  shape.assert_shape %x, #shape.expr<(batch) -> (batch, 1)>(%b) : tensor<?x1xi64> loc("ok")
  shape.assert_shape %x, #shape.expr<(batch) -> (batch * 2, 1)>(%b) : tensor<?x1xi64> loc("bad")
}`

func TestSemantics(t *testing.T) {
	ctx := newCtx()
	m := parse(t, ctx, program)
	p, err := exec.Compile(m)
	if err != nil {
		t.Fatal(err)
	}
	feeds := map[string]*interp.Tensor{
		"x": interp.Must(interp.New([]int64{3, 1}, []int64{1, 2, 3})),
		"v": interp.Vector[int64](1, 2, 3, 4, 5),
	}
	out, err := p.Run(context.Background(), feeds, []string{"b", "n", "e", "s", "s32", "t", "i", "k", "^ok"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]*interp.Tensor{
		"b":   interp.Scalar[int64](3),
		"n":   interp.Scalar[int64](5),
		"e":   interp.Scalar[int64](26),
		"s":   interp.Vector[int64](3, 26),
		"s32": interp.Vector[int32](26, 3),
		"t":   interp.Scalar[int32](26),
		"i":   interp.Scalar[int64](26),
		"k":   interp.Scalar[int64](21),
	}
	for name, w := range want {
		if err := out[name].Equal(w); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
	errs := map[string]string{
		"^bad": "shape assertion failed: the tensor has shape [3,1], but (batch) -> (batch * 2, 1) with batch = 3 gives [6,1]",
		"d":    "division by zero in floordiv (with batch = 3, n = 5)",
		"bt":   "value 3000000000 does not fit in i32",
	}
	for name, msg := range errs {
		_, err := p.Run(context.Background(), feeds, []string{name}, nil)
		if err == nil || !strings.Contains(err.Error(), msg) {
			t.Errorf("%s: got %v, want %q", name, err, msg)
		}
	}
}
