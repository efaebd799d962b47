package arith_test

import (
	"math"
	"strings"
	"testing"

	"github.com/recom-compiler/recom/dialects/arith"
	"github.com/recom-compiler/recom/dialects/builtin"
	"github.com/recom-compiler/recom/dialects/funcd"
	"github.com/recom-compiler/recom/lowering/rewrite"
	"github.com/recom-compiler/recom/textir"
)

func newCtx() *textir.Context {
	return textir.NewContext(builtin.Dialect(), funcd.Dialect(), arith.Dialect())
}

func parse(t *testing.T, ctx *textir.Context, src string) *textir.Operation {
	t.Helper()
	m, err := textir.Parse(ctx, "test.mlir", []byte(src))
	if err != nil {
		t.Fatalf("parse: %v\n%s", err, src)
	}
	return m
}

// print prints m in the custom form, with a final newline.
func print(m *textir.Operation) string {
	return strings.TrimRight(textir.OpString(m, textir.PrintOptions{}), "\n") + "\n"
}

func TestRoundTrip(t *testing.T) {
	src := `module {
  func.func @f(%arg0: i32, %arg1: f32, %arg2: tensor<4xi32>, %arg3: tensor<4xi1>) -> i32 {
    %c5_i32 = arith.constant 5 : i32
    %c-1_i8 = arith.constant -1 : i8
    %true = arith.constant true
    %false = arith.constant false
    %c0 = arith.constant 0 : index
    %cst = arith.constant 1.500000e+00 : f32
    %cst_0 = arith.constant dense<[1, 2, 3, 4]> : tensor<4xi32>
    %cst_1 = arith.constant dense<0.000000e+00> : tensor<2x2xf64>
    %0 = arith.addi %arg0, %c5_i32 : i32
    %1 = arith.subi %0, %arg0 : i32
    %2 = arith.muli %1, %0 : i32
    %3 = arith.divsi %2, %0 : i32
    %4 = arith.remsi %3, %0 : i32
    %5 = arith.andi %4, %0 : i32
    %6 = arith.ori %5, %0 : i32
    %7 = arith.xori %6, %0 : i32
    %8 = arith.maxsi %7, %0 : i32
    %9 = arith.minsi %8, %0 : i32
    %10 = arith.addf %arg1, %cst : f32
    %11 = arith.subf %10, %cst : f32
    %12 = arith.mulf %11, %cst : f32
    %13 = arith.divf %12, %cst : f32
    %14 = arith.cmpi slt, %9, %0 : i32
    %15 = arith.cmpi uge, %arg2, %cst_0 : tensor<4xi32>
    %16 = arith.select %14, %9, %0 : i32
    %17 = arith.select %arg3, %arg2, %cst_0 : tensor<4xi1>, tensor<4xi32>
    %18 = arith.index_cast %16 : i32 to index
    %19 = arith.index_cast %18 : index to i32
    %20 = arith.extsi %19 : i32 to i64
    %21 = arith.trunci %20 : i64 to i16
    %22 = arith.sitofp %21 : i16 to f32
    %23 = arith.addi %arg2, %arg2 {tag = "x"} : tensor<4xi32>
    func.return %16 : i32
  }
}
`
	ctx := newCtx()
	m := parse(t, ctx, src)
	if err := textir.Verify(ctx, m); err != nil {
		t.Fatalf("verify: %v", err)
	}
	if got := print(m); got != src {
		t.Errorf("round trip:\n got:\n%s\nwant:\n%s", got, src)
	}
	// The generic form reads back to the same custom form.
	gen := textir.OpString(m, textir.PrintOptions{Generic: true})
	if got := print(parse(t, ctx, gen)); got != src {
		t.Errorf("generic round trip:\n%s", got)
	}
}

// foldLast parses a function body, folds the last op before the return with
// the constant values of its operands, and describes the result: "%argN" or
// "#i" (operand i) for a value, the attribute's text, or "none".
func foldLast(t *testing.T, body string) string {
	t.Helper()
	ctx := newCtx()
	m := parse(t, ctx, body)
	if err := textir.Verify(ctx, m); err != nil {
		t.Fatalf("verify: %v\n%s", err, body)
	}
	var ret *textir.Operation
	m.Walk(func(op *textir.Operation) bool {
		if op.Name() == funcd.ReturnOp {
			ret = op
		}
		return true
	})
	op := ret.Prev()
	consts := make([]textir.Attribute, op.NumOperands())
	for i, v := range op.Operands() {
		consts[i] = arith.ConstantValue(v)
	}
	rs := op.Def().Fold(op, consts)
	if rs == nil {
		return "none"
	}
	if len(rs) != 1 {
		t.Fatalf("%d fold results", len(rs))
	}
	if rs[0].Value != nil {
		if rs[0].Value.IsBlockArg() {
			return "%arg" + string(rune('0'+rs[0].Value.Index()))
		}
		for i, v := range op.Operands() {
			if v == rs[0].Value {
				return "#" + string(rune('0'+i))
			}
		}
		return "other value"
	}
	return textir.AttrString(rs[0].Attr)
}

func fn(args, body string) string {
	return "func.func @f(" + args + ") {\n" + body + "\nfunc.return\n}\n"
}

func TestFold(t *testing.T) {
	c := func(name string, v string, ty string) string {
		return "%" + name + " = arith.constant " + v + " : " + ty + "\n"
	}
	tests := []struct {
		name, args, body, want string
	}{
		{"constant", "", c("a", "42", "i32"), "42 : i32"},
		{"addi", "", c("a", "5", "i32") + c("b", "7", "i32") + "%r = arith.addi %a, %b : i32", "12 : i32"},
		{"addi wraps", "", c("a", "127", "i8") + c("b", "1", "i8") + "%r = arith.addi %a, %b : i8", "-128 : i8"},
		{"addi index", "", c("a", "9223372036854775807", "index") + c("b", "1", "index") + "%r = arith.addi %a, %b : index", "-9223372036854775808 : index"},
		{"addi i1", "", "%a = arith.constant true\n%r = arith.addi %a, %a : i1", "0 : i1"},
		{"x+0", "%x: i32", c("z", "0", "i32") + "%r = arith.addi %x, %z : i32", "%arg0"},
		{"0+x", "%x: i32", c("z", "0", "i32") + "%r = arith.addi %z, %x : i32", "%arg0"},
		{"x+0 splat", "%x: tensor<4xi32>", "%z = arith.constant dense<0> : tensor<4xi32>\n%r = arith.addi %x, %z : tensor<4xi32>", "%arg0"},
		{"x+1", "%x: i32", c("o", "1", "i32") + "%r = arith.addi %x, %o : i32", "none"},
		{"subi", "", c("a", "5", "i32") + c("b", "7", "i32") + "%r = arith.subi %a, %b : i32", "-2 : i32"},
		{"subi wraps", "", c("a", "-128", "i8") + c("b", "1", "i8") + "%r = arith.subi %a, %b : i8", "127 : i8"},
		{"x-0", "%x: i32", c("z", "0", "i32") + "%r = arith.subi %x, %z : i32", "%arg0"},
		{"0-x", "%x: i32", c("z", "0", "i32") + "%r = arith.subi %z, %x : i32", "none"},
		{"x-x", "%x: i64", "%r = arith.subi %x, %x : i64", "0 : i64"},
		{"x-x tensor", "%x: tensor<4xi32>", "%r = arith.subi %x, %x : tensor<4xi32>", "dense<0> : tensor<4xi32>"},
		{"x-x dynamic tensor", "%x: tensor<?xi32>", "%r = arith.subi %x, %x : tensor<?xi32>", "none"},
		{"muli wraps", "", c("a", "300", "i16") + c("b", "300", "i16") + "%r = arith.muli %a, %b : i16", "24464 : i16"},
		{"x*1", "%x: i32", c("o", "1", "i32") + "%r = arith.muli %x, %o : i32", "%arg0"},
		{"1*x", "%x: i32", c("o", "1", "i32") + "%r = arith.muli %o, %x : i32", "%arg0"},
		{"x*0", "%x: i32", c("z", "0", "i32") + "%r = arith.muli %x, %z : i32", "0 : i32"},
		{"x*0 splat", "%x: tensor<2xi8>", "%z = arith.constant dense<0> : tensor<2xi8>\n%r = arith.muli %x, %z : tensor<2xi8>", "dense<0> : tensor<2xi8>"},
		{"divsi", "", c("a", "7", "i32") + c("b", "-2", "i32") + "%r = arith.divsi %a, %b : i32", "-3 : i32"},
		{"divsi by zero", "", c("a", "7", "i32") + c("b", "0", "i32") + "%r = arith.divsi %a, %b : i32", "none"},
		{"divsi overflow", "", c("a", "-128", "i8") + c("b", "-1", "i8") + "%r = arith.divsi %a, %b : i8", "none"},
		{"divsi i64 overflow", "", c("a", "-9223372036854775808", "i64") + c("b", "-1", "i64") + "%r = arith.divsi %a, %b : i64", "none"},
		{"x/1", "%x: i32", c("o", "1", "i32") + "%r = arith.divsi %x, %o : i32", "%arg0"},
		{"x/0", "%x: i32", c("z", "0", "i32") + "%r = arith.divsi %x, %z : i32", "none"},
		{"remsi", "", c("a", "-7", "i32") + c("b", "2", "i32") + "%r = arith.remsi %a, %b : i32", "-1 : i32"},
		{"remsi by zero", "", c("a", "-7", "i32") + c("b", "0", "i32") + "%r = arith.remsi %a, %b : i32", "none"},
		{"x%1", "%x: i32", c("o", "1", "i32") + "%r = arith.remsi %x, %o : i32", "0 : i32"},
		{"andi", "", c("a", "12", "i32") + c("b", "10", "i32") + "%r = arith.andi %a, %b : i32", "8 : i32"},
		{"x&x", "%x: i32", "%r = arith.andi %x, %x : i32", "%arg0"},
		{"x&0", "%x: i32", c("z", "0", "i32") + "%r = arith.andi %x, %z : i32", "0 : i32"},
		{"x&-1", "%x: i32", c("m", "-1", "i32") + "%r = arith.andi %x, %m : i32", "%arg0"},
		{"x&true", "%x: i1", "%m = arith.constant true\n%r = arith.andi %x, %m : i1", "%arg0"},
		{"ori", "", c("a", "12", "i32") + c("b", "10", "i32") + "%r = arith.ori %a, %b : i32", "14 : i32"},
		{"x|0", "%x: i32", c("z", "0", "i32") + "%r = arith.ori %x, %z : i32", "%arg0"},
		{"x|-1", "%x: i32", c("m", "-1", "i32") + "%r = arith.ori %x, %m : i32", "-1 : i32"},
		{"xori", "", c("a", "12", "i32") + c("b", "10", "i32") + "%r = arith.xori %a, %b : i32", "6 : i32"},
		{"x^x", "%x: i32", "%r = arith.xori %x, %x : i32", "0 : i32"},
		{"x^0", "%x: i32", c("z", "0", "i32") + "%r = arith.xori %x, %z : i32", "%arg0"},
		{"maxsi", "", c("a", "-3", "i32") + c("b", "2", "i32") + "%r = arith.maxsi %a, %b : i32", "2 : i32"},
		{"minsi", "", c("a", "-3", "i32") + c("b", "2", "i32") + "%r = arith.minsi %a, %b : i32", "-3 : i32"},
		{"maxsi i1", "", "%a = arith.constant true\n%b = arith.constant false\n%r = arith.maxsi %a, %b : i1", "0 : i1"},
		{"maxsi x x", "%x: i32", "%r = arith.maxsi %x, %x : i32", "%arg0"},
		{"addf", "", c("a", "1.5", "f32") + c("b", "2.25", "f32") + "%r = arith.addf %a, %b : f32", "3.750000e+00 : f32"},
		{"addf rounds to f32", "", c("a", "0.1", "f32") + c("b", "0.2", "f32") + "%r = arith.addf %a, %b : f32", textir.AttrString(textir.FloatAttr{Value: float64(float32(0.1) + float32(0.2)), Type: textir.F32()})},
		{"x + -0.0", "%x: f32", c("z", "-0.0", "f32") + "%r = arith.addf %x, %z : f32", "%arg0"},
		{"x + 0.0", "%x: f32", c("z", "0.0", "f32") + "%r = arith.addf %x, %z : f32", "none"},
		{"subf", "", c("a", "1.5", "f64") + c("b", "2.25", "f64") + "%r = arith.subf %a, %b : f64", "-7.500000e-01 : f64"},
		{"x - 0.0", "%x: f32", c("z", "0.0", "f32") + "%r = arith.subf %x, %z : f32", "%arg0"},
		{"mulf", "", c("a", "1.5", "f32") + c("b", "2.0", "f32") + "%r = arith.mulf %a, %b : f32", "3.000000e+00 : f32"},
		{"x * 1.0", "%x: f32", c("o", "1.0", "f32") + "%r = arith.mulf %x, %o : f32", "%arg0"},
		{"divf by zero", "", c("a", "1.0", "f32") + c("b", "0.0", "f32") + "%r = arith.divf %a, %b : f32", textir.AttrString(textir.FloatAttr{Value: math.Inf(1), Type: textir.F32()})},
		{"x / 1.0", "%x: f32", c("o", "1.0", "f32") + "%r = arith.divf %x, %o : f32", "%arg0"},
		{"cmpi slt", "", c("a", "-1", "i32") + c("b", "1", "i32") + "%r = arith.cmpi slt, %a, %b : i32", "1 : i1"},
		{"cmpi ult", "", c("a", "-1", "i32") + c("b", "1", "i32") + "%r = arith.cmpi ult, %a, %b : i32", "0 : i1"},
		{"cmpi ugt i8", "", c("a", "-1", "i8") + c("b", "1", "i8") + "%r = arith.cmpi ugt, %a, %b : i8", "1 : i1"},
		{"cmpi eq", "", c("a", "3", "i32") + c("b", "3", "i32") + "%r = arith.cmpi eq, %a, %b : i32", "1 : i1"},
		{"cmpi sgt i1", "", "%a = arith.constant true\n%b = arith.constant false\n%r = arith.cmpi sgt, %a, %b : i1", "0 : i1"},
		{"cmpi x x sle", "%x: i32", "%r = arith.cmpi sle, %x, %x : i32", "1 : i1"},
		{"cmpi x x ne", "%x: i32", "%r = arith.cmpi ne, %x, %x : i32", "0 : i1"},
		{"cmpi x x ult", "%x: i32", "%r = arith.cmpi ult, %x, %x : i32", "0 : i1"},
		{"cmpi x x tensor", "%x: tensor<3xi32>", "%r = arith.cmpi eq, %x, %x : tensor<3xi32>", "dense<true> : tensor<3xi1>"},
		{"select true", "%x: i32, %y: i32", "%c = arith.constant true\n%r = arith.select %c, %x, %y : i32", "%arg0"},
		{"select false", "%x: i32, %y: i32", "%c = arith.constant false\n%r = arith.select %c, %x, %y : i32", "%arg1"},
		{"select same", "%c: i1, %x: i32", "%r = arith.select %c, %x, %x : i32", "%arg1"},
		{"select c true false", "%c: i1", "%t = arith.constant true\n%f = arith.constant false\n%r = arith.select %c, %t, %f : i1", "%arg0"},
		{"select unknown", "%c: i1, %x: i32, %y: i32", "%r = arith.select %c, %x, %y : i32", "none"},
		{"index_cast", "", c("a", "-5", "i32") + "%r = arith.index_cast %a : i32 to index", "-5 : index"},
		{"index_cast truncates", "", c("a", "4294967297", "index") + "%r = arith.index_cast %a : index to i32", "1 : i32"},
		{"index_cast round trip", "%x: i32", "%i = arith.index_cast %x : i32 to index\n%r = arith.index_cast %i : index to i32", "%arg0"},
		{"index_cast lossy round trip", "%x: index", "%i = arith.index_cast %x : index to i32\n%r = arith.index_cast %i : i32 to index", "none"},
		{"extsi", "", c("a", "-5", "i8") + "%r = arith.extsi %a : i8 to i64", "-5 : i64"},
		{"extsi i1", "", "%a = arith.constant true\n%r = arith.extsi %a : i1 to i32", "-1 : i32"},
		{"trunci", "", c("a", "300", "i32") + "%r = arith.trunci %a : i32 to i8", "44 : i8"},
		{"trunci negative", "", c("a", "200", "i32") + "%r = arith.trunci %a : i32 to i8", "-56 : i8"},
		{"trunci to i1", "", c("a", "3", "i32") + "%r = arith.trunci %a : i32 to i1", "1 : i1"},
		{"trunci of extsi", "%x: i16", "%e = arith.extsi %x : i16 to i64\n%r = arith.trunci %e : i64 to i16", "%arg0"},
		{"sitofp", "", c("a", "-3", "i32") + "%r = arith.sitofp %a : i32 to f32", "-3.000000e+00 : f32"},
		{"sitofp i1", "", "%a = arith.constant true\n%r = arith.sitofp %a : i1 to f64", "-1.000000e+00 : f64"},
		{"sitofp rounds", "", c("a", "16777217", "i32") + "%r = arith.sitofp %a : i32 to f32", "1.6777216e+07 : f32"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := foldLast(t, fn(tc.args, tc.body)); got != tc.want {
				t.Errorf("fold = %s, want %s", got, tc.want)
			}
		})
	}
}

func TestIntAttrCanonical(t *testing.T) {
	tests := []struct {
		v    int64
		t    textir.Type
		want int64
	}{
		{255, textir.I8(), -1},
		{128, textir.I8(), -128},
		{-1, textir.I1(), 1},
		{2, textir.I1(), 0},
		{65535, textir.I16(), -1},
		{1 << 40, textir.I32(), 0},
		{-1, textir.IntegerTypeOf(8, textir.Unsigned), 255},
		{math.MinInt64, textir.I64(), math.MinInt64},
		{-7, textir.Index(), -7},
		{0x1_0000_0005, textir.TensorOf([]int64{2}, textir.I32()), 5},
	}
	for _, tc := range tests {
		if got := arith.Normalize(tc.v, tc.t); got != tc.want {
			t.Errorf("Normalize(%d, %s) = %d, want %d", tc.v, tc.t, got, tc.want)
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
	return print(m)
}

func TestCanonicalizationPatterns(t *testing.T) {
	tests := []struct {
		name, src string
		want      []string // substrings of the result
		not       []string // substrings that must be gone
	}{
		{"addi(addi(x, c1), c2)", `func.func @f(%x: i32) -> i32 {
  %c1 = arith.constant 1 : i32
  %c2 = arith.constant 2 : i32
  %0 = arith.addi %x, %c1 : i32
  %1 = arith.addi %0, %c2 : i32
  func.return %1 : i32
}`, []string{"arith.constant 3 : i32", "arith.addi %arg0, %c3_i32 : i32"}, []string{"arith.constant 1 ", "arith.constant 2 "}},
		{"addi(c2, addi(c1, x)) wraps", `func.func @f(%x: i8) -> i8 {
  %c1 = arith.constant 100 : i8
  %c2 = arith.constant 100 : i8
  %0 = arith.addi %c1, %x : i8
  %1 = arith.addi %c2, %0 : i8
  func.return %1 : i8
}`, []string{"arith.addi %arg0, %c-56_i8 : i8"}, nil},
		{"muli(muli(x, c1), c2)", `func.func @f(%x: index) -> index {
  %c3 = arith.constant 3 : index
  %c4 = arith.constant 4 : index
  %0 = arith.muli %x, %c3 : index
  %1 = arith.muli %0, %c4 : index
  func.return %1 : index
}`, []string{"arith.muli %arg0, %c12 : index"}, []string{"%c3 ", "%c4 "}},
		{"subi(addi(x, y), y)", `func.func @f(%x: i32, %y: i32) -> (i32, i32) {
  %0 = arith.addi %x, %y : i32
  %1 = arith.subi %0, %y : i32
  %2 = arith.subi %0, %x : i32
  func.return %1, %2 : i32, i32
}`, []string{"func.return %arg0, %arg1 : i32, i32"}, []string{"arith.addi", "arith.subi"}},
		{"addi(subi(x, y), y)", `func.func @f(%x: i32, %y: i32) -> i32 {
  %0 = arith.subi %x, %y : i32
  %1 = arith.addi %y, %0 : i32
  func.return %1 : i32
}`, []string{"func.return %arg0 : i32"}, []string{"arith.addi", "arith.subi"}},
		{"constants fold through a chain", `func.func @f() -> i32 {
  %c6 = arith.constant 6 : i32
  %c7 = arith.constant 7 : i32
  %0 = arith.muli %c6, %c7 : i32
  %1 = arith.cmpi sgt, %0, %c6 : i32
  %2 = arith.select %1, %0, %c7 : i32
  func.return %2 : i32
}`, []string{"arith.constant 42 : i32", "func.return %c42_i32 : i32"}, []string{"arith.muli", "arith.select", "arith.cmpi"}},
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

func TestMaterializeConstant(t *testing.T) {
	ctx := newCtx()
	d := ctx.Dialect(arith.Name)
	b := textir.NewBuilder(ctx)
	blk := textir.NewBlock()
	b.SetInsertionPointToEnd(blk)
	loc := textir.NameLoc{Name: "n"}
	tests := []struct {
		a    textir.Attribute
		t    textir.Type
		want string // printed value attribute, or "" for no op
	}{
		{textir.IntegerAttr{Value: 255, Type: textir.I64()}, textir.I8(), "-1 : i8"},
		{textir.BoolAttr{Value: true}, textir.I1(), "1 : i1"},
		{textir.FloatAttr{Value: 0.1, Type: textir.F64()}, textir.F32(), textir.AttrString(textir.FloatAttr{Value: float64(float32(0.1)), Type: textir.F32()})},
		{textir.DenseInts(textir.TensorOf([]int64{2}, textir.I32()), []int64{1, 2}), textir.TensorOf([]int64{2}, textir.I32()), "dense<[1, 2]> : tensor<2xi32>"},
		{textir.Str("x"), textir.I32(), ""},
		{textir.IntegerAttr{Value: 1, Type: textir.I32()}, textir.F32(), ""},
	}
	for _, tc := range tests {
		op := d.MaterializeConstant(b, tc.a, tc.t, loc)
		got := ""
		if op != nil {
			got = textir.AttrString(op.LookupAttr("value"))
			if op.Name() != arith.ConstantOp || op.Result(0).Type() != tc.t || op.Block() != blk {
				t.Errorf("bad op %s : %s", op.Name(), op.Result(0).Type())
			}
		}
		if got != tc.want {
			t.Errorf("MaterializeConstant(%s, %s) = %q, want %q", textir.AttrString(tc.a), tc.t, got, tc.want)
		}
	}
}

func TestVerifier(t *testing.T) {
	tests := []struct{ name, body, want string }{
		{"constant type", `%0 = "arith.constant"() {value = 1 : i64} : () -> i32`,
			"test.mlir:2:3: error: 'arith.constant' op value type i64 must match return type: i32"},
		{"constant kind", `%0 = "arith.constant"() {value = "s"} : () -> i32`,
			"test.mlir:2:3: error: 'arith.constant' op value must be an integer, float, or elements attribute"},
		{"constant missing value", `%0 = "arith.constant"() : () -> i32`,
			"test.mlir:2:3: error: 'arith.constant' op requires attribute 'value'"},
		{"constant signed", `%0 = "arith.constant"() {value = 1 : si32} : () -> si32`,
			"test.mlir:2:3: error: 'arith.constant' op integer return type must be signless"},
		{"constant dense", `%0 = "arith.constant"() {value = dense<1> : tensor<2xi32>} : () -> tensor<3xi32>`,
			"test.mlir:2:3: error: 'arith.constant' op value type tensor<2xi32> must match return type: tensor<3xi32>"},
		{"addi float", `%0 = "arith.addi"(%f, %f) : (f32, f32) -> f32`,
			"test.mlir:2:3: error: 'arith.addi' op operand #0 must be signless-integer-like, but got 'f32'"},
		{"addi mixed", `%0 = "arith.addi"(%a, %b) : (i32, i64) -> i32`,
			"test.mlir:2:3: error: 'arith.addi' op requires the same type for all operands and results"},
		{"addf int", `%0 = "arith.addf"(%a, %a) : (i32, i32) -> i32`,
			"test.mlir:2:3: error: 'arith.addf' op operand #0 must be floating-point-like, but got 'i32'"},
		{"addi arity", `%0 = "arith.addi"(%a) : (i32) -> i32`,
			"test.mlir:2:3: error: 'arith.addi' op expected 2 operands, but found 1"},
		{"cmpi result", `%0 = "arith.cmpi"(%a, %a) {predicate = 0 : i64} : (i32, i32) -> i32`,
			"test.mlir:2:3: error: 'arith.cmpi' op result #0 must be bool-like, but got 'i32'"},
		{"cmpi shape", `%0 = "arith.cmpi"(%t, %t) {predicate = 0 : i64} : (tensor<4xi32>, tensor<4xi32>) -> i1`,
			"test.mlir:2:3: error: 'arith.cmpi' op failed to verify that result type has i1 element type and same shape as operands (expected 'tensor<4xi1>', but got 'i1')"},
		{"cmpi predicate", `%0 = "arith.cmpi"(%a, %a) {predicate = 12 : i64} : (i32, i32) -> i1`,
			"test.mlir:2:3: error: 'arith.cmpi' op predicate attribute value 12 is not a valid arith.cmpi predicate"},
		{"select types", `%0 = "arith.select"(%c, %a, %b) : (i1, i32, i64) -> i32`,
			"test.mlir:2:3: error: 'arith.select' op failed to verify that all of {true_value, false_value, result} have same type"},
		{"select condition", `%0 = "arith.select"(%c4, %t, %t) : (tensor<3xi1>, tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>`,
			"test.mlir:2:3: error: 'arith.select' op failed to verify that condition is signless i1 or has matching shape"},
		{"index_cast", `%0 = "arith.index_cast"(%a) : (i32) -> i64`,
			"test.mlir:2:3: error: 'arith.index_cast' op operand type 'i32' and result type 'i64' are cast incompatible"},
		{"extsi narrower", `%0 = "arith.extsi"(%b) : (i64) -> i32`,
			"test.mlir:2:3: error: 'arith.extsi' op result type 'i32' must be wider than operand type 'i64'"},
		{"trunci wider", `%0 = "arith.trunci"(%a) : (i32) -> i64`,
			"test.mlir:2:3: error: 'arith.trunci' op result type 'i64' must be shorter than operand type 'i32'"},
		{"extsi shape", `%0 = "arith.extsi"(%t) : (tensor<4xi32>) -> i64`,
			"test.mlir:2:3: error: 'arith.extsi' op requires the same shape for all operands and results"},
		{"sitofp", `%0 = "arith.sitofp"(%f) : (f32) -> f32`,
			"test.mlir:2:3: error: 'arith.sitofp' op operand #0 must be signless-fixed-width-integer-like, but got 'f32'"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			src := "func.func @f(%a: i32, %b: i64, %c: i1, %f: f32, %t: tensor<4xi32>, %c4: tensor<3xi1>) {\n  " +
				tc.body + "\n  func.return\n}\n"
			ctx := newCtx()
			m := parse(t, ctx, src)
			err := textir.Verify(ctx, m)
			got := ""
			if err != nil {
				got = err.Error()
			}
			if got != tc.want {
				t.Errorf("got:  %s\nwant: %s", got, tc.want)
			}
		})
	}
}

// Integer to f32 rounds once, as sitofp/uitofp and the GPU do: through
// float64 first, 2^62 + 2^38 + 1 would round to 2^62 (ties to even at the
// f64 step) instead of 2^62 + 2^39.
func TestIntToFloatRoundsOnce(t *testing.T) {
	v := int64(1)<<62 + int64(1)<<38 + 1
	if got, want := arith.IntToFloat(v, textir.F32()), float64(float32(v)); got != want {
		t.Errorf("arith.IntToFloat(%d) = %v, want %v", v, got, want)
	}
	if got := arith.IntToFloat(v, textir.F32()); got == float64(float32(float64(v))) {
		t.Errorf("arith.IntToFloat(%d) = %v: rounded twice", v, got)
	}
	if got, want := arith.UintToFloat(uint64(v), textir.F32()), float64(float32(uint64(v))); got != want {
		t.Errorf("arith.UintToFloat(%d) = %v, want %v", v, got, want)
	}
	if got := arith.IntToFloat(v, textir.F64()); got != float64(v) {
		t.Errorf("arith.IntToFloat(%d, f64) = %v", v, got)
	}
}
