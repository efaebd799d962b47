package expr

import (
	"errors"
	"math"
	"strings"
	"testing"
)

// names: x = s0, y = s1, n = s2, batch = s3, nnz.age = s4.
func testTable(t testing.TB) *Table {
	t.Helper()
	tb := NewTable()
	for _, n := range []string{"x", "y", "n", "batch", "nnz.age"} {
		k := InputDim
		if n == "n" || n == "nnz.age" {
			k = DataCount
		}
		if _, err := tb.New(n, k); err != nil {
			t.Fatal(err)
		}
	}
	return tb
}

func mustParse(t testing.TB, tb *Table, src string) Expr {
	t.Helper()
	e, err := tb.Parse(src)
	if err != nil {
		t.Fatalf("parse %q: %v", src, err)
	}
	return e
}

func TestCanonicalForms(t *testing.T) {
	tests := []struct{ in, want string }{
		// constants and sums
		{"2 + 3 * 4", "14"},
		{"x + x", "x * 2"},
		{"x - x", "0"},
		{"2 + x * 8", "x * 8 + 2"},
		{"y + x", "x + y"},
		{"-x + 3", "-x + 3"},
		{"3 - x", "-x + 3"},
		{"0 - 5", "-5"},
		{"x - 5", "x - 5"},
		{"-(x * 2)", "-x * 2"},
		{"x * 0", "0"},
		{"(x + 1) * (x - 1)", "x * x - 1"},
		{"(x + y) * (x - y)", "x * x - y * y"},
		{"(x + y) * (x + y)", "x * x + x * y * 2 + y * y"},
		{"y * x * 3", "x * y * 3"},
		{"x * y * x", "x * x * y"},
		{"batch * 8 + nnz.age", "batch * 8 + nnz.age"},
		// floordiv with constants
		{"x floordiv 1", "x"},
		{"(8 * x) floordiv 4", "x * 2"},
		{"(x * 8 + 2) floordiv 8", "x"},
		{"(x * 8 + 9) floordiv 8", "x + 1"},
		{"(x * 5) floordiv 4", "x + x floordiv 4"},
		{"(x * 4 + 2) floordiv 8", "x floordiv 2"},
		{"(x * 6 + 2) floordiv 4", "x + x ceildiv 2"},
		{"(x * 8 + y) floordiv 8", "x + y floordiv 8"},
		{"(x floordiv 2) floordiv 4", "x floordiv 8"},
		{"(x floordiv 2 + 1) floordiv 4", "(x + 2) floordiv 8"},
		{"x floordiv -2", "-x + x floordiv 2"},
		{"(x mod 4) floordiv 4", "0"},
		{"(x mod 4) floordiv 2", "(x mod 4) floordiv 2"},
		{"7 floordiv 2", "3"},
		{"-7 floordiv 2", "-4"},
		{"7 floordiv -2", "-4"},
		{"-7 floordiv -2", "3"},
		{"-x floordiv 4", "-x + (x * 3) floordiv 4"},
		// ceildiv
		{"x ceildiv 8", "x ceildiv 8"},
		{"(x + 7) floordiv 8", "x ceildiv 8"},
		{"(x + 1) ceildiv 8", "x floordiv 8 + 1"},
		{"7 ceildiv 2", "4"},
		{"-7 ceildiv 2", "-3"},
		{"7 ceildiv -2", "-3"},
		{"(x * 8) ceildiv 8", "x"},
		{"x ceildiv 1", "x"},
		{"x ceildiv y", "-((-x) floordiv y)"},
		// mod
		{"x mod 1", "0"},
		{"7 mod 3", "1"},
		{"-7 mod 3", "2"},
		{"7 mod -3", "-2"},
		{"-7 mod -3", "-1"},
		{"(x * 8 + 3) mod 8", "3"},
		{"(x * 9 + 3) mod 8", "(x + 3) mod 8"},
		{"(x * 4 + 2) mod 8", "(x mod 2) * 4 + 2"},
		{"(x * 6 + 2) mod 8", "((x * 3 + 1) mod 4) * 2"},
		{"(x * 6 + 3) mod 8", "((x * 3 + 1) mod 4) * 2 + 1"},
		{"(x mod 4) mod 8", "x mod 4"},
		{"(x mod 8) mod 4", "x mod 4"},
		{"x mod -4", "-((x * 3) mod 4)"},
		// symbolic divisors
		{"(x * y) floordiv y", "x"},
		{"(x * y + n) floordiv y", "x + n floordiv y"},
		{"(x * y * 2 + 3) floordiv (y * 2)", "x + 3 floordiv (y * 2)"},
		{"x floordiv x", "1"},
		{"0 floordiv y", "0"},
		{"(x * y + n) mod y", "n mod y"},
		{"x mod x", "0"},
		{"(x mod y) mod y", "x mod y"},
		{"(x floordiv y) floordiv n", "x floordiv (y * n)"},
		{"x floordiv (-y)", "(-x) floordiv y"},
		// min and max
		{"min(3, 5)", "3"},
		{"max(3, -5)", "3"},
		{"min(x, x)", "x"},
		{"min(x, x + 3)", "x"},
		{"max(x, x + 3)", "x + 3"},
		{"max(x, x * 2)", "x * 2"},
		{"min(x, 0)", "0"},
		{"max(x, 0)", "x"},
		{"max(x, -1)", "x"},
		{"min(y, x)", "min(x, y)"},
		{"min(x + 2, y + 2)", "min(x, y) + 2"},
		{"min(x + 1, y + 3)", "min(x, y + 2) + 1"},
		{"max(x * 2, y * 4)", "max(x, y * 2) * 2"},
		{"min(-x, -y)", "-max(x, y)"},
		{"min(min(x, y), n)", "min(x, y, n)"},
		{"max(x, max(y, x))", "max(x, y)"},
		{"min(x, 3)", "min(x, 3)"},
		{"min(x, y) + max(x, y)", "min(x, y) + max(x, y)"},
		{"min(x, y) floordiv 1", "min(x, y)"},
		{"min(x, y) floordiv 2", "min(x, y) floordiv 2"},
		{"x * min(x, y)", "x * min(x, y)"},
		// quoting
		{`"nnz.age" + 1`, "nnz.age + 1"},
	}
	tb := testTable(t)
	for _, tc := range tests {
		t.Run(tc.in, func(t *testing.T) {
			e := mustParse(t, tb, tc.in)
			if got := tb.Format(e); got != tc.want {
				t.Errorf("%s: got %q, want %q", tc.in, got, tc.want)
			}
			// The printed form reads back as the same expression.
			back := mustParse(t, tb, tb.Format(e))
			if !back.Equal(e) {
				t.Errorf("%s: reparse of %q gives %q", tc.in, tb.Format(e), tb.Format(back))
			}
		})
	}
}

// Equal expressions built differently are structurally equal.
func TestEqualities(t *testing.T) {
	tb := testTable(t)
	pairs := [][2]string{
		{"x ceildiv 8", "(x + 7) floordiv 8"},
		{"(x * 16 + y * 8) floordiv 8", "x * 2 + y"},
		{"(x + y) * 2 - y", "x * 2 + y"},
		{"min(x + 1, y + 1)", "min(y, x) + 1"},
		{"max(x, y) * 3", "max(y * 3, x * 3)"},
		{"(x floordiv 4) floordiv 2", "x floordiv 8"},
		{"-x * -y", "x * y"},
		{"x mod 4 + (x mod 4) * 0", "x mod 4"},
	}
	for _, p := range pairs {
		a, b := mustParse(t, tb, p[0]), mustParse(t, tb, p[1])
		if !a.Equal(b) || Compare(a, b) != 0 {
			t.Errorf("%s (%s) != %s (%s)", p[0], tb.Format(a), p[1], tb.Format(b))
		}
	}
	if a, b := mustParse(t, tb, "x"), mustParse(t, tb, "y"); a.Equal(b) || Compare(a, b) >= 0 || Compare(b, a) <= 0 {
		t.Errorf("x and y compare wrongly")
	}
}

func TestDefaultNames(t *testing.T) {
	e, err := Parse("s0 * 8 + 2 + s10", nil)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := e.String(), "s0 * 8 + s10 + 2"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	if got := e.Syms(); len(got) != 2 || got[0] != 0 || got[1] != 10 {
		t.Errorf("Syms = %v", got)
	}
	if !e.Uses(10) || e.Uses(1) {
		t.Errorf("Uses wrong")
	}
	if s, ok := Var(3).AsSym(); !ok || s != 3 {
		t.Errorf("AsSym(Var(3)) = %v, %v", s, ok)
	}
	if _, ok := Add(Var(3), Const(1)).AsSym(); ok {
		t.Errorf("AsSym(s3 + 1) ok")
	}
}

func TestEval(t *testing.T) {
	tb := testTable(t)
	vals := []int64{7, 3, 10, 32, 100} // x y n batch nnz.age
	tests := []struct {
		in   string
		want int64
		err  string
	}{
		{"batch * 8 + nnz.age", 356, ""},
		{"x floordiv 2", 3, ""},
		{"-x floordiv 2", -4, ""},
		{"x mod y", 1, ""},
		{"(x - 10) mod y", 0, ""},
		{"(x - 11) mod y", 2, ""},
		{"x ceildiv y", 3, ""},
		{"min(x, y, n)", 3, ""},
		{"max(x, y) * n", 70, ""},
		{"x floordiv (y - 3)", 0, "division by zero"},
		{"x mod (y - 3)", 0, "division by zero"},
		{"x * 2305843009213693952", 0, "overflow"},
		{"x + 9223372036854775801", 0, "overflow"},
	}
	for _, tc := range tests {
		e := mustParse(t, tb, tc.in)
		got, err := e.EvalSlice(vals)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%s: got %d, %v; want error %q", tc.in, got, err, tc.err)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("%s: got %d, %v; want %d", tc.in, got, err, tc.want)
		}
	}
	if _, err := Var(9).EvalSlice(vals); err == nil || !strings.Contains(err.Error(), "no value for symbol s9") {
		t.Errorf("missing symbol: %v", err)
	}
	if _, err := tb.Eval(mustParse(t, tb, "x + y"), map[Sym]int64{0: 1}); err == nil || !strings.Contains(err.Error(), "no value for symbol y") {
		t.Errorf("missing named symbol: %v", err)
	}
}

func TestPoison(t *testing.T) {
	big := Const(math.MaxInt64)
	tests := []struct {
		name string
		e    Expr
		err  error
	}{
		{"add", Add(big, Const(1)), ErrOverflow},
		{"mul", Mul(big, Const(2)), ErrOverflow},
		{"neg min", Neg(Const(math.MinInt64)), ErrOverflow},
		{"coef", Mul(Add(Var(0), big), Const(3)), ErrOverflow},
		{"floordiv 0", FloorDiv(Var(0), Const(0)), ErrDivByZero},
		{"ceildiv 0", CeilDiv(Var(0), Const(0)), ErrDivByZero},
		{"mod 0", Mod(Var(0), Const(0)), ErrDivByZero},
		{"const floordiv", FloorDiv(Const(math.MinInt64), Const(-1)), ErrOverflow},
		{"propagates", Add(Var(1), FloorDiv(Var(0), Const(0))), ErrDivByZero},
		{"propagates min", Min(Var(1), Mod(Var(0), Const(0))), ErrDivByZero},
	}
	for _, tc := range tests {
		if !errors.Is(tc.e.Err(), tc.err) {
			t.Errorf("%s: err = %v, want %v", tc.name, tc.e.Err(), tc.err)
		}
		if tc.e.Equal(tc.e) {
			t.Errorf("%s: a poisoned expression equals itself", tc.name)
		}
		if _, err := tc.e.EvalSlice(nil); err == nil {
			t.Errorf("%s: evaluates", tc.name)
		}
	}
	if Min().Err() == nil {
		t.Errorf("min() is not an error")
	}
	// The product of two large sums is refused, not computed.
	var s Expr
	for i := range 100 {
		s = Add(s, Var(Sym(i)))
	}
	if p := Mul(Mul(s, s), s); p.Err() == nil {
		t.Errorf("100^3 terms accepted")
	}
}

func TestParseErrors(t *testing.T) {
	tb := testTable(t)
	tests := []struct {
		in  string
		col int
		msg string
	}{
		{"", 1, "expected an expression, found end of expression"},
		{"x +", 4, "expected an expression"},
		{"x + zz", 5, "unknown symbol 'zz'"},
		{"x y", 3, "unexpected 'y' after expression"},
		{"(x + 1", 7, "expected ')'"},
		{"min(x", 6, "expected ')'"},
		{"min x", 5, "expected '('"},
		{"x floordiv 0", 3, "division by zero"},
		{"x mod (y - y)", 3, "division by zero"},
		{"99999999999999999999", 1, "out of range"},
		{"-9223372036854775809", 2, "out of range"},
		{"9223372036854775807 + 1", 21, "overflow"},
		{"x % 2", 3, "unexpected character '%'"},
		{`"abc`, 1, "unterminated quoted name"},
		{`"a\q"`, 3, "invalid escape"},
		{"mod", 1, "found keyword 'mod'"},
		{"x * ceildiv", 5, "found keyword 'ceildiv'"},
		{strings.Repeat("(", 300) + "x" + strings.Repeat(")", 300), 201, "nested too deeply"},
		{strings.Repeat("-", 300) + "x", 201, "nested too deeply"},
	}
	for _, tc := range tests {
		_, err := tb.Parse(tc.in)
		var se *SyntaxError
		if !errors.As(err, &se) {
			t.Errorf("%q: err = %v, want a SyntaxError", tc.in, err)
			continue
		}
		if se.Offset+1 != tc.col || !strings.Contains(se.Msg, tc.msg) {
			t.Errorf("%q: got %v, want column %d: ...%s...", tc.in, err, tc.col, tc.msg)
		}
	}
	// Without a lookup, only s<digits> names are known.
	for _, in := range []string{"x", "s", "s01", "s-1", "s99999999999"} {
		if _, err := Parse(in, nil); err == nil {
			t.Errorf("Parse(%q, nil) succeeded", in)
		}
	}
}

func TestExtremeConstants(t *testing.T) {
	for _, src := range []string{
		"-9223372036854775808",
		"s0 - 9223372036854775807 - 1",
		"s0 * -9223372036854775808",
		"s0 * -9223372036854775808 + s1 * -9223372036854775808",
		"-9223372036854775808 floordiv 3",
		"s0 floordiv 9223372036854775807",
		"min(s0, -9223372036854775808)",
	} {
		e, err := Parse(src, nil)
		if err != nil {
			t.Errorf("%s: %v", src, err)
			continue
		}
		back, err := Parse(e.String(), nil)
		if err != nil || !back.Equal(e) {
			t.Errorf("%s: printed %q reparses as %v, %v", src, e.String(), back, err)
		}
	}
}

func TestBounds(t *testing.T) {
	tb := testTable(t)
	tests := []struct {
		in     string
		lo, hi string
	}{
		{"x", "0", "+inf"},
		{"-x", "-inf", "0"},
		{"x * 2 + 3", "3", "+inf"},
		{"x - y", "-inf", "+inf"},
		{"x mod 8", "0", "7"},
		{"(x - 5) mod 8", "0", "7"},
		{"(x mod 8) floordiv 3", "0", "2"},
		{"min(x mod 8, 5)", "0", "5"},
		{"max(x, 5)", "5", "+inf"},
		{"x floordiv y", "0", "+inf"},
		{"x mod y", "0", "+inf"},
		{"7", "7", "7"},
	}
	str := func(b Bound) string {
		switch b.Inf {
		case 1:
			return "+inf"
		case -1:
			return "-inf"
		}
		return strings.TrimSpace(Const(b.V).String())
	}
	for _, tc := range tests {
		b := Bounds(mustParse(t, tb, tc.in))
		if str(b.Lo) != tc.lo || str(b.Hi) != tc.hi {
			t.Errorf("Bounds(%s) = [%s, %s], want [%s, %s]", tc.in, str(b.Lo), str(b.Hi), tc.lo, tc.hi)
		}
	}
}

func TestSubst(t *testing.T) {
	tb := testTable(t)
	e := mustParse(t, tb, "(x * 8 + y) floordiv 8 + min(x, y)")
	// y := x * 8
	got := e.Subst(func(s Sym) (Expr, bool) {
		if s == 1 {
			return Scale(Var(0), 8), true
		}
		return Expr{}, false
	})
	if want := "x * 3"; tb.Format(got) != want {
		t.Errorf("got %q, want %q", tb.Format(got), want)
	}
	r := mustParse(t, tb, "x + y * 2").Rename(func(s Sym) Sym { return s + 2 })
	if want := "n + batch * 2"; tb.Format(r) != want {
		t.Errorf("rename: got %q, want %q", tb.Format(r), want)
	}
}

func TestTable(t *testing.T) {
	tb := testTable(t)
	x, _ := tb.Lookup("x")
	y, _ := tb.Lookup("y")
	n, _ := tb.Lookup("n")
	batch, _ := tb.Lookup("batch")
	age, _ := tb.Lookup("nnz.age")
	if _, err := tb.New("x", InputDim); err == nil {
		t.Errorf("duplicate name accepted")
	}
	for _, bad := range []string{"mod", "s3", "s0"} {
		if _, err := tb.New(bad, InputDim); err == nil {
			t.Errorf("reserved name %q accepted", bad)
		}
	}
	anon, err := tb.New("", DataCount)
	if err != nil || tb.Name(anon) != "s5" || tb.Info(anon).Kind != DataCount {
		t.Fatalf("anonymous symbol: %v %q", err, tb.Name(anon))
	}
	if s, ok := tb.Lookup("s5"); !ok || s != anon {
		t.Errorf("Lookup(s5) = %v, %v", s, ok)
	}

	// A data count equal to the batch: the batch represents the class.
	if err := tb.Union(age, batch); err != nil {
		t.Fatal(err)
	}
	if tb.Find(age) != batch || tb.Find(batch) != batch {
		t.Errorf("Find: %v %v", tb.Find(age), tb.Find(batch))
	}
	if got := tb.Format(tb.Canon(mustParse(t, tb, "nnz.age * 8 - batch"))); got != "batch * 7" {
		t.Errorf("canon: %q", got)
	}
	// Between two input dims, the older one represents.
	if err := tb.Union(y, x); err != nil {
		t.Fatal(err)
	}
	if tb.Find(y) != x {
		t.Errorf("Find(y) = %v", tb.Find(y))
	}
	// n == batch * 8 + 2 defines n.
	ok, err := tb.Equate(mustParse(t, tb, "batch * 8 + 2"), Var(n))
	if !ok || err != nil {
		t.Fatalf("equate: %v %v", ok, err)
	}
	if d, ok := tb.Definition(n); !ok || tb.Format(d) != "batch * 8 + 2" {
		t.Errorf("definition of n: %q %v", tb.Format(d), ok)
	}
	if got := tb.Format(tb.Canon(mustParse(t, tb, "n floordiv 8 + y"))); got != "x + batch" {
		t.Errorf("canon: %q", got)
	}
	// Known equalities hold; contradictions are errors; nonlinear ones are left alone.
	if ok, err := tb.Equate(mustParse(t, tb, "n - 2"), mustParse(t, tb, "nnz.age * 8")); !ok || err != nil {
		t.Errorf("known equality: %v %v", ok, err)
	}
	if _, err := tb.Equate(Var(n), mustParse(t, tb, "batch * 8")); err == nil || !strings.Contains(err.Error(), "contradiction: batch * 8 + 2 == batch * 8") {
		t.Errorf("contradiction: %v", err)
	}
	if ok, err := tb.Equate(mustParse(t, tb, "x * x"), mustParse(t, tb, "batch * 4")); ok || err != nil {
		t.Errorf("nonlinear: %v %v", ok, err)
	}
	// s5 == x + batch: s5 is a count, eliminated first.
	if ok, err := tb.Equate(mustParse(t, tb, "s5 - x"), Var(batch)); !ok || err != nil {
		t.Fatalf("linear: %v %v", ok, err)
	}
	if got := tb.Format(tb.Canon(Var(anon))); got != "x + batch" {
		t.Errorf("s5 = %q", got)
	}
	// Evaluation needs only the representatives.
	v, err := tb.Eval(mustParse(t, tb, "n + y + s5"), map[Sym]int64{x: 3, batch: 10})
	if err != nil || v != 82+3+13 {
		t.Errorf("eval = %d, %v", v, err)
	}
	cls := tb.Classes()
	if len(cls) != 2 || len(cls[0]) != 2 || cls[0][0] != x || cls[0][1] != y || cls[1][0] != batch || cls[1][1] != age {
		t.Errorf("classes = %v", cls)
	}
	// Union after definitions: x == batch makes n = x * 8 + 2.
	if err := tb.Union(x, batch); err != nil {
		t.Fatal(err)
	}
	if d, _ := tb.Definition(n); tb.Format(d) != "x * 8 + 2" {
		t.Errorf("n = %q after x == batch", tb.Format(d))
	}
	if err := tb.Union(x, 99); err == nil {
		t.Errorf("union with an unknown symbol")
	}
}

// A long chain of definitions canonicalizes each definition once per change.
func TestTableDefinitionChain(t *testing.T) {
	tb := NewTable()
	prev, _ := tb.New("a0", InputDim)
	for i := 1; i < 2000; i++ {
		s, _ := tb.New("", DataCount)
		// s == prev + 1
		if ok, err := tb.Equate(Var(s), Add(Var(prev), Const(1))); !ok || err != nil {
			t.Fatal(ok, err)
		}
		prev = s
	}
	if e := tb.Canon(Var(prev)); tb.Format(e) != "a0 + 1999" {
		t.Errorf("chain canon: %v", tb.Format(e))
	}
}
