package optab

import (
	"reflect"
	"slices"
	"strings"
	"testing"
)

func TestParseRow(t *testing.T) {
	for _, c := range []struct {
		name string
		r    row
		want *Op    // nil with err
		err  string // substring of the error
	}{
		{name: "fixed and attr types",
			r: row{name: "X", in: "a: int64, b: T", out: "c: T", attrs: "T: type"},
			want: &Op{Name: "X", Inputs: []Arg{{Name: "a", Type: "int64"}, {Name: "b", TypeAttr: "T"}},
				Outputs: []Arg{{Name: "c", TypeAttr: "T"}}, Attrs: []Attr{{Name: "T", Kind: "type"}}}},
		{name: "number, list and ref args",
			r: row{name: "X", in: "v: N * T, l: Tl, r: Ref(T)", out: "o: Ref(N * T)", attrs: "N: int >= 2; T: type; Tl: list(type) >= 0 = []", cat: State},
			want: &Op{Name: "X", Category: State,
				Inputs:  []Arg{{Name: "v", TypeAttr: "T", NumberAttr: "N"}, {Name: "l", TypeListAttr: "Tl"}, {Name: "r", TypeAttr: "T", IsRef: true}},
				Outputs: []Arg{{Name: "o", TypeAttr: "T", NumberAttr: "N", IsRef: true}},
				Attrs: []Attr{{Name: "N", Kind: "int", Minimum: 2}, {Name: "T", Kind: "type"},
					{Name: "Tl", Kind: "list(type)", Default: EmptyList{}}}}},
		{name: "defaults of every kind",
			r: row{name: "X", attrs: `i: int = -1; f: float = 0.5; b: bool = true; s: string = "a\tb"; t: {int32, int64} = DT_INT64; ` +
				`sh: shape = unknown; df: {'NHWC', 'NCHW'} = "NHWC"`},
			want: &Op{Name: "X", Attrs: []Attr{{Name: "i", Kind: "int", Default: Int(-1)}, {Name: "f", Kind: "float", Default: Float(0.5)},
				{Name: "b", Kind: "bool", Default: Bool(true)}, {Name: "s", Kind: "string", Default: String("a\tb")},
				{Name: "t", Kind: "type", Allowed: []DType{"int32", "int64"}, Default: DType("int64")},
				{Name: "sh", Kind: "shape", Default: UnknownShape{}}, {Name: "df", Kind: "string", Default: String("NHWC")}}}},
		{name: "missing colon in arg", r: row{name: "X", in: "a int64"}, err: "missing ':'"},
		{name: "unknown type", r: row{name: "X", in: "a: T"}, err: `"T" is neither a dtype nor a type attr`},
		{name: "number attr not int", r: row{name: "X", in: "a: N * T", attrs: "N: type; T: type"}, err: "not an int attr"},
		{name: "type list with number", r: row{name: "X", in: "a: N * L", attrs: "N: int; L: list(type)"}, err: "neither a dtype"},
		{name: "duplicate arg", r: row{name: "X", in: "a: int32, a: int64"}, err: "duplicate name"},
		{name: "bad dtype in set", r: row{name: "X", attrs: "T: {int32, int5}"}, err: `unknown dtype "int5"`},
		{name: "bad type default", r: row{name: "X", attrs: "T: type = DT_NOPE"}, err: "unknown dtype default"},
		{name: "list default", r: row{name: "X", attrs: "l: list(int) = [1]"}, err: "only [] list defaults"},
		{name: "shape default", r: row{name: "X", attrs: "s: shape = [2]"}, err: "only the 'unknown' shape default"},
		{name: "func default", r: row{name: "X", attrs: "f: func = g"}, err: `no default syntax for kind "func"`},
		{name: "bad minimum", r: row{name: "X", attrs: "n: int >= x"}, err: "invalid syntax"},
		{name: "bad string default", r: row{name: "X", attrs: "s: string = a"}, err: "string default"},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, err := parseRow(c.r)
			if c.err != "" {
				if err == nil || !strings.Contains(err.Error(), c.err) {
					t.Fatalf("error %v, want one containing %q", err, c.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, c.want) {
				t.Errorf("got  %+v\nwant %+v", got, c.want)
			}
		})
	}
}

// TestRows checks what init cannot: every argument's attrs exist with the
// right kinds, names are unique, and the lookups agree.
func TestRows(t *testing.T) {
	all := All()
	if len(all) != len(rows) {
		t.Fatalf("All() has %d rows, the table %d", len(all), len(rows))
	}
	if !slices.IsSortedFunc(all, func(a, b *Op) int { return strings.Compare(a.Name, b.Name) }) {
		t.Error("All() is not sorted by name")
	}
	for _, o := range all {
		if l, ok := Lookup(o.Name); !ok || l != o {
			t.Errorf("Lookup(%q) = %v, %v", o.Name, l, ok)
		}
		if l, ok := Of(o.FullName()); !ok || l != o {
			t.Errorf("Of(%q) = %v, %v", o.FullName(), l, ok)
		}
		attrs := map[string]bool{}
		for _, a := range o.Attrs {
			if attrs[a.Name] {
				t.Errorf("%s: attr %s twice", o.Name, a.Name)
			}
			attrs[a.Name] = true
			if len(a.Allowed) > 0 && a.Kind != "type" {
				t.Errorf("%s: attr %s: allowed types on a %s attr", o.Name, a.Name, a.Kind)
			}
			if d, ok := a.Default.(DType); ok && len(a.Allowed) > 0 && !slices.Contains(a.Allowed, d) {
				t.Errorf("%s: attr %s: default %s not allowed", o.Name, a.Name, d)
			}
		}
		for _, a := range append(slices.Clone(o.Inputs), o.Outputs...) {
			n := 0
			for _, x := range []string{string(a.Type), a.TypeAttr, a.TypeListAttr} {
				if x != "" {
					n++
				}
			}
			if n != 1 {
				t.Errorf("%s: arg %s: %d ways to its type", o.Name, a.Name, n)
			}
		}
	}
	for _, name := range []string{"", "tfg.", "tfg.NoSuchOp", "Reshape", "emb.Reshape"} {
		if _, ok := Of(name); ok {
			t.Errorf("Of(%q) found a row", name)
		}
	}
	if _, ok := Lookup("NoSuchOp"); ok {
		t.Error("Lookup(NoSuchOp) found a row")
	}
}

func TestNames(t *testing.T) {
	for _, c := range []struct{ got, want string }{
		{DType("int64").Enum(), "DT_INT64"},
		{DType("bfloat16").Enum(), "DT_BFLOAT16"},
		{Training.String(), "training"},
		{ControlFlow.String(), "control flow"},
		{Category(42).String(), "Category(42)"},
	} {
		if c.got != c.want {
			t.Errorf("got %q, want %q", c.got, c.want)
		}
	}
}
