package textir

import (
	"strings"
	"testing"
)

func TestCheckNames(t *testing.T) {
	for _, tc := range []struct {
		name    string
		def     OpDef
		wantErr string // "" for none
	}{
		{"unnamed", OpDef{Operands: AtLeast(1), Results: Exactly(2)}, ""},
		{"exact", OpDef{Operands: Exactly(2), Results: Exactly(1), NamedOperands: []string{"lhs", "rhs"}, NamedResults: []string{"result"}}, ""},
		{"none", OpDef{NamedOperands: []string{}, NamedResults: []string{}}, ""},
		{"optional", OpDef{Operands: Between(3, 4), NamedOperands: []string{"table", "ids", "row_splits", "weights?"}}, ""},
		{"variadic tail", OpDef{Operands: AtLeast(3), NamedOperands: []string{"lower_bound", "upper_bound", "step", "init_args..."}}, ""},
		{"variadic head", OpDef{Operands: Between(3, 6), NamedOperands: []string{"values...", "ptr", "index"}}, ""},
		{"variadic with a minimum", OpDef{Operands: AtLeast(1), NamedOperands: []string{"inputs..."}}, ""},
		{"bounded variadic", OpDef{Results: Between(1, 4), NamedResults: []string{"values..."}}, ""},
		{"too few names", OpDef{Operands: Exactly(3), NamedOperands: []string{"a", "b"}}, `2 operand names ["a" "b"] for 3 operands`},
		{"too many names", OpDef{Results: Exactly(1), NamedResults: []string{"a", "b"}}, "2 result names"},
		{"range without a group", OpDef{Operands: Between(1, 2), NamedOperands: []string{"a", "b"}}, "needs a name marked"},
		{"optional for a wide range", OpDef{Operands: Between(1, 3), NamedOperands: []string{"a", "b?"}}, `the optional "b?" need 1 to 2 operands`},
		{"optional for an exact count", OpDef{Operands: Exactly(2), NamedOperands: []string{"a", "b?"}}, "need 1 to 2 operands, the op takes 2"},
		{"variadic for one", OpDef{Operands: Between(2, 3), NamedOperands: []string{"a", "b", "c..."}}, "mark a group of at most one value '?'"},
		{"variadic below the minimum", OpDef{Operands: AtLeast(1), NamedOperands: []string{"a", "b", "c..."}}, "do not fit at least 1 operands"},
		{"two groups", OpDef{Operands: AtLeast(0), NamedOperands: []string{"a...", "b..."}}, "more than one optional or variadic name"},
		{"upper case", OpDef{Operands: Exactly(1), NamedOperands: []string{"Lhs"}}, `"Lhs" is not a lower-case snake_case name`},
		{"empty name", OpDef{Operands: Exactly(1), NamedOperands: []string{""}}, "is not a lower-case snake_case name"},
		{"double underscore", OpDef{Operands: Exactly(1), NamedOperands: []string{"a__b"}}, "snake_case"},
		{"trailing underscore", OpDef{Operands: Exactly(1), NamedOperands: []string{"a_"}}, "snake_case"},
		{"leading digit", OpDef{Operands: Exactly(1), NamedOperands: []string{"1a"}}, "snake_case"},
		{"reserved", OpDef{Results: Exactly(1), NamedResults: []string{"op"}}, `result name "op" is reserved`},
		{"duplicate", OpDef{Operands: Exactly(2), NamedOperands: []string{"x", "x"}}, `operand name "x" is used twice`},
		{"shared by an operand and a result", OpDef{Operands: Exactly(1), Results: Exactly(1), NamedOperands: []string{"x"}, NamedResults: []string{"x"}}, `"x" names both an operand and a result`},
	} {
		tc.def.Name = "test.op"
		err := tc.def.CheckNames()
		switch {
		case tc.wantErr == "" && err != nil:
			t.Errorf("%s: %v", tc.name, err)
		case tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr)):
			t.Errorf("%s: got %v, want an error with %q", tc.name, err, tc.wantErr)
		case err != nil && !strings.HasPrefix(err.Error(), "op test.op: "):
			t.Errorf("%s: %v does not name the op", tc.name, err)
		}
	}
}

func TestNameSpan(t *testing.T) {
	store := []string{"values...", "ptr", "index"}
	lookup := []string{"table", "ids", "row_splits", "weights?"}
	forOp := []string{"lower_bound", "upper_bound", "step", "init_args..."}
	for _, tc := range []struct {
		names  []string
		name   string
		n      int
		lo, hi int
		ok     bool
	}{
		{store, "values", 6, 0, 4, true},
		{store, "ptr", 6, 4, 5, true},
		{store, "index", 3, 2, 3, true},
		{store, "values", 2, 0, 0, true},
		{store, "ptr", 1, 0, 0, false},
		{lookup, "weights", 4, 3, 4, true},
		{lookup, "weights", 3, 3, 3, true},
		{lookup, "weights", 5, 0, 0, false},
		{lookup, "row_splits", 3, 2, 3, true},
		{lookup, "missing", 4, 0, 0, false},
		{forOp, "init_args", 5, 3, 5, true},
		{forOp, "step", 3, 2, 3, true},
		{[]string{"lhs", "rhs"}, "rhs", 2, 1, 2, true},
		{[]string{"lhs", "rhs"}, "rhs", 3, 0, 0, false},
		{nil, "x", 0, 0, 0, false},
	} {
		lo, hi, ok := NameSpan(tc.names, tc.name, tc.n)
		if lo != tc.lo || hi != tc.hi || ok != tc.ok {
			t.Errorf("NameSpan(%q, %q, %d) = %d, %d, %v; want %d, %d, %v", tc.names, tc.name, tc.n, lo, hi, ok, tc.lo, tc.hi, tc.ok)
		}
	}
}

func TestNameSegments(t *testing.T) {
	segs := NameSegments([]string{"a", "b?", "c..."})
	want := []NameSegment{{Name: "a"}, {Name: "b", Optional: true}, {Name: "c", Variadic: true}}
	for i, s := range segs {
		if s != want[i] {
			t.Errorf("segment %d = %+v, want %+v", i, s, want[i])
		}
		if s.Group() != (i > 0) {
			t.Errorf("segment %d: Group() = %v", i, s.Group())
		}
	}
	if got := segs[0].String() + " " + segs[1].String() + " " + segs[2].String(); got != "a b? c..." {
		t.Errorf("String: %q", got)
	}
}

func TestViewAccess(t *testing.T) {
	ctx := NewContext()
	ctx.AllowUnregistered = true
	src := ctx.Create(&OperationState{Name: "test.src", ResultTypes: []Type{I32(), I32(), I32()}})
	vs := src.Results()
	op := ctx.Create(&OperationState{Name: "test.use", Operands: vs, ResultTypes: []Type{I64(), I64()}})
	for _, tc := range []struct {
		name string
		got  *Value
		want *Value
	}{
		{"operand 0", ViewOperand(op, 0), vs[0]},
		{"operand 2", ViewOperand(op, 2), vs[2]},
		{"operand 3", ViewOperand(op, 3), nil},
		{"operand -1", ViewOperand(op, -1), vs[2]},
		{"operand -3", ViewOperand(op, -3), vs[0]},
		{"operand -4", ViewOperand(op, -4), nil},
		{"nil op", ViewOperand(nil, 0), nil},
		{"result 1", ViewResult(op, 1), op.Result(1)},
		{"result -2", ViewResult(op, -2), op.Result(0)},
		{"result 2", ViewResult(op, 2), nil},
		{"nil op result", ViewResult(nil, 0), nil},
		{"optional of one", ViewOptional(ViewOperands(op, 2, 0)), vs[2]},
		{"optional of none", ViewOptional(ViewOperands(op, 3, 0)), nil},
		{"optional of two", ViewOptional(ViewOperands(op, 1, 0)), nil},
	} {
		if tc.got != tc.want {
			t.Errorf("%s: got %v, want %v", tc.name, tc.got, tc.want)
		}
	}
	if g := ViewOperands(op, 1, 1); len(g) != 1 || g[0] != vs[1] {
		t.Errorf("ViewOperands(op, 1, 1) = %v", g)
	}
	if g := ViewOperands(op, 0, 0); len(g) != 3 {
		t.Errorf("ViewOperands(op, 0, 0) = %v", g)
	}
	if g := ViewOperands(op, 2, 2); g != nil {
		t.Errorf("ViewOperands(op, 2, 2) = %v, want nil", g)
	}
	if g := ViewOperands(nil, 0, 0); g != nil {
		t.Errorf("ViewOperands(nil) = %v", g)
	}
	if g := ViewResults(op, 0, 1); len(g) != 1 || g[0] != op.Result(0) {
		t.Errorf("ViewResults(op, 0, 1) = %v", g)
	}
	if g := ViewResults(op, 1, 2); g != nil {
		t.Errorf("ViewResults(op, 1, 2) = %v, want nil", g)
	}
}

// Register refuses a definition whose names disagree with its arity.
func TestRegisterChecksNames(t *testing.T) {
	defer func() {
		r := recover()
		if s, _ := r.(string); !strings.Contains(s, "op bad.op: 1 operand names") {
			t.Errorf("Register: recovered %v", r)
		}
	}()
	NewContext(&Dialect{Name: "bad", Ops: []*OpDef{{Name: "bad.op", Operands: Exactly(2), NamedOperands: []string{"x"}}}})
}
