package expr

import (
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"
)

// FuzzExprParse: parsing never panics; what parses prints to text that
// parses back to the same canonical expression, which prints the same.
func FuzzExprParse(f *testing.F) {
	for _, s := range []string{
		"s0 * 8 + 2", "(s0 + 7) floordiv 8", "s0 ceildiv 8", "s0 mod -3", "min(s0, s1 + 2, 4)",
		"max(s0 * 2, s1) * 3 - s2", "-(s0 floordiv 2)", "(s0 * s1 + s2) floordiv s1", "s0 * -9223372036854775808",
		"-9223372036854775808", `"s0" + 1`, "(s0 mod 4) floordiv 2 * s1", "s0 ceildiv s1", "max(-s0, -s1)",
		"(s0 floordiv 2 + 1) floordiv 4", "((s0 * 3 + 1) mod 4) * 2 + 1",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, src string) {
		e, err := Parse(src, nil)
		if err != nil {
			return
		}
		text := e.String()
		back, err := Parse(text, nil)
		if err != nil {
			t.Fatalf("%q printed as %q, which does not parse: %v", src, text, err)
		}
		if !back.Equal(e) {
			t.Fatalf("%q printed as %q, which parses as %q", src, text, back.String())
		}
		if again := back.String(); again != text {
			t.Fatalf("%q: printed %q, then %q", src, text, again)
		}
		// Maps too.
		m, err := ParseMap("(s0, s1, s2) -> " + src)
		if err != nil {
			return
		}
		m2, err := ParseMap(m.String())
		if err != nil || !m2.Equal(m) || m2.String() != m.String() {
			t.Fatalf("map %q printed as %q, reparsed as %v, %v", src, m.String(), m2, err)
		}
	})
}

// node is an unsimplified expression tree, evaluated the naive way, to
// check every simplification rule against plain arithmetic.
type node struct {
	op   string // "c", "s", "+", "-", "*", "floordiv", "ceildiv", "mod", "min", "max", "neg"
	v    int64
	args []*node
}

func randNode(r *rand.Rand, depth int) *node {
	if depth == 0 || r.IntN(4) == 0 {
		if r.IntN(2) == 0 {
			return &node{op: "c", v: int64(r.IntN(21) - 10)}
		}
		return &node{op: "s", v: int64(r.IntN(3))}
	}
	ops := []string{"+", "-", "*", "floordiv", "ceildiv", "mod", "min", "max", "neg"}
	op := ops[r.IntN(len(ops))]
	n := &node{op: op}
	switch op {
	case "neg":
		n.args = []*node{randNode(r, depth-1)}
	case "floordiv", "ceildiv", "mod":
		// Mostly constant divisors, sometimes symbolic ones.
		d := &node{op: "c", v: int64(r.IntN(9) - 4)}
		if d.v == 0 {
			d.v = 3
		}
		if r.IntN(4) == 0 {
			d = randNode(r, depth-1)
		}
		n.args = []*node{randNode(r, depth-1), d}
	case "min", "max":
		for range 2 + r.IntN(2) {
			n.args = append(n.args, randNode(r, depth-1))
		}
	default:
		n.args = []*node{randNode(r, depth-1), randNode(r, depth-1)}
	}
	return n
}

// eval computes n naively; ok is false on a division by zero.
func (n *node) eval(vals []int64) (int64, bool) {
	var a []int64
	for _, x := range n.args {
		v, ok := x.eval(vals)
		if !ok {
			return 0, false
		}
		a = append(a, v)
	}
	switch n.op {
	case "c":
		return n.v, true
	case "s":
		return vals[n.v], true
	case "+":
		return a[0] + a[1], true
	case "-":
		return a[0] - a[1], true
	case "*":
		return a[0] * a[1], true
	case "neg":
		return -a[0], true
	case "floordiv", "ceildiv", "mod":
		if a[1] == 0 {
			return 0, false
		}
		q, _ := floorDiv64(a[0], a[1])
		switch n.op {
		case "floordiv":
			return q, true
		case "mod":
			return a[0] - a[1]*q, true
		}
		cq, _ := floorDiv64(-a[0], a[1])
		return -cq, true
	case "min", "max":
		r := a[0]
		for _, v := range a[1:] {
			if (n.op == "min") == (v < r) {
				r = v
			}
		}
		return r, true
	}
	panic(n.op)
}

func (n *node) build() Expr {
	var a []Expr
	for _, x := range n.args {
		a = append(a, x.build())
	}
	switch n.op {
	case "c":
		return Const(n.v)
	case "s":
		return Var(Sym(n.v))
	case "+":
		return Add(a[0], a[1])
	case "-":
		return Sub(a[0], a[1])
	case "*":
		return Mul(a[0], a[1])
	case "neg":
		return Neg(a[0])
	case "floordiv":
		return FloorDiv(a[0], a[1])
	case "ceildiv":
		return CeilDiv(a[0], a[1])
	case "mod":
		return Mod(a[0], a[1])
	case "min":
		return Min(a...)
	}
	return Max(a...)
}

func (n *node) String() string {
	switch n.op {
	case "c":
		return strconv.FormatInt(n.v, 10)
	case "s":
		return DefaultName(Sym(n.v))
	case "neg":
		return "-(" + n.args[0].String() + ")"
	case "min", "max":
		s := n.op + "("
		for i, x := range n.args {
			if i > 0 {
				s += ", "
			}
			s += x.String()
		}
		return s + ")"
	}
	return "(" + n.args[0].String() + " " + n.op + " " + n.args[1].String() + ")"
}

// TestSimplificationIsSound builds random expressions, simplifies them,
// and compares naive evaluation with evaluation of the canonical form on
// non-negative symbol values (symbols are sizes). It also checks that
// the canonical form prints and parses back to itself.
func TestSimplificationIsSound(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	valsets := [][]int64{{0, 0, 0}, {1, 2, 3}, {7, 5, 12}, {100, 3, 1}, {13, 13, 0}, {64, 8, 9}}
	checked := 0
	for i := range 20000 {
		n := randNode(r, 4)
		e := n.build()
		if e.Err() != nil {
			continue // a constant division by zero
		}
		for _, vals := range valsets {
			want, ok := n.eval(vals)
			if !ok {
				continue // undefined: simplification may define it
			}
			got, err := e.EvalSlice(vals)
			if err != nil || got != want {
				t.Fatalf("case %d: %s with %v: naive %d, canonical %s gives %d, %v", i, n, vals, want, e, got, err)
			}
			checked++
		}
		back, err := Parse(e.String(), nil)
		if err != nil || !back.Equal(e) {
			t.Fatalf("case %d: %s: canonical %q reparses as %v, %v", i, n, e.String(), back, err)
		}
	}
	if checked < 50000 {
		t.Errorf("only %d evaluations checked", checked)
	}
}

func TestMap(t *testing.T) {
	tests := []struct{ in, want string }{
		{"(batch) -> batch * 8", "(batch) -> batch * 8"},
		{"(a, b) -> (a, b * 2, 3)", "(a, b) -> (a, b * 2, 3)"},
		{"(a) -> (a + 1) floordiv 3", "(a) -> (a + 1) floordiv 3"},
		{"(a) -> (a + 1)", "(a) -> a + 1"},
		{"() -> ()", "() -> ()"},
		{"() -> 4", "() -> 4"},
		{`("nnz.age-1", b) -> "nnz.age-1" + b`, `("nnz.age-1", b) -> "nnz.age-1" + b`},
		{"(s1, s0) -> s0 * 2", "(s1, s0) -> s0 * 2"},
		{"(a, b) -> ((a + b) floordiv 2, a mod b)", "(a, b) -> ((a + b) floordiv 2, a mod b)"},
	}
	for _, tc := range tests {
		m, err := ParseMap(tc.in)
		if err != nil {
			t.Errorf("%s: %v", tc.in, err)
			continue
		}
		if m.String() != tc.want {
			t.Errorf("%s: got %q, want %q", tc.in, m.String(), tc.want)
		}
		if err := m.Check(); err != nil {
			t.Errorf("%s: check: %v", tc.in, err)
		}
	}
	m, _ := ParseMap("(a, b) -> (a * 8 + b, a floordiv b)")
	if got, err := m.Eval([]int64{4, 3}); err != nil || got[0] != 35 || got[1] != 1 {
		t.Errorf("eval = %v, %v", got, err)
	}
	if _, err := m.Eval([]int64{4, 0}); err == nil {
		t.Errorf("eval of a floordiv 0 succeeded")
	}
	if _, err := m.Eval([]int64{4}); err == nil {
		t.Errorf("eval with one argument succeeded")
	}
	errs := []struct{ in, msg string }{
		{"a -> a", "column 1: expected '('"},
		{"(a, a) -> a", "column 5: parameter 'a' declared twice"},
		{"(a) a", "column 5: expected '->'"},
		{"(a) -> b", "column 8: unknown symbol 'b'"},
		{"(mod) -> 1", "column 2: expected a parameter name, found 'mod'"},
		{"(a) -> (a, b)", "column 12: unknown symbol 'b'"},
		{"(a) -> (a, a) + 1", "column 15: unexpected '+' after result list"},
		{"(a) -> (a + 1) x", "column 16: unexpected 'x' after expression"},
		{"(a) -> (a, ", "column 12: expected an expression"},
		{`("") -> 1`, "empty parameter name"},
	}
	for _, tc := range errs {
		_, err := ParseMap(tc.in)
		if err == nil || !strings.Contains(err.Error(), tc.msg) {
			t.Errorf("%s: got %v, want %q", tc.in, err, tc.msg)
		}
	}
	if _, err := NewMap([]string{"a", "a"}, Var(0)); err == nil {
		t.Errorf("NewMap with duplicate names")
	}
	if _, err := NewMap([]string{"a"}, Var(1)); err == nil {
		t.Errorf("NewMap with an unbound symbol")
	}
	a, _ := ParseMap("(x) -> x + 1")
	b, _ := ParseMap("(y) -> y + 1")
	if !a.Equal(b) {
		t.Errorf("maps differing in names are not equal")
	}
}

func BenchmarkCanonicalize(b *testing.B) {
	tb := NewTable()
	for _, n := range []string{"batch", "n0", "n1", "n2"} {
		tb.New(n, InputDim)
	}
	for b.Loop() {
		if _, err := tb.Parse("((batch * 8 + n0 * 4 + 7) floordiv 4 + max(n1, n2 + 1) * 2) mod 16 + min(batch, n0) ceildiv 8"); err != nil {
			b.Fatal(err)
		}
	}
}
