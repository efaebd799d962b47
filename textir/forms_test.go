package textir

import (
	"strings"
	"testing"
)

// ftDialect has one op per shared form, as a dialect would declare them.
func ftDialect() *Dialect {
	var forms FormPrinter
	wide := FormPrinter{UntypedInts: []string{"width"}}
	sameType := func(n int) func(p *OpParser, st *OperationState) error {
		return func(p *OpParser, st *OperationState) error { return ParseSameTypeForm(p, st, n) }
	}
	parseFunc := func(resultAttrs bool) func(p *OpParser, st *OperationState) error {
		return func(p *OpParser, st *OperationState) error {
			name, err := ParseSymbolNameAttr(p, st)
			if err != nil {
				return err
			}
			sig, err := ParseFunctionSignature(p, resultAttrs, func(loc Location, args []Argument) error {
				for _, a := range args {
					if a.Name == "" && !resultAttrs {
						return Errorf(loc, "expected named arguments for @%s", name)
					}
				}
				return nil
			})
			if err != nil {
				return err
			}
			sig.AddAttrs(st)
			if err := p.ParseOptionalAttrDictWithKeyword(st); err != nil {
				return err
			}
			r := &Region{}
			st.Regions = append(st.Regions, r)
			entry := sig.Args
			if len(entry) > 0 && entry[0].Name == "" {
				entry = nil
			}
			_, err = p.ParseOptionalRegion(r, entry)
			return err
		}
	}
	printFunc := func(resultAttrs bool) func(p *OpPrinter, op *Operation) {
		return func(p *OpPrinter, op *Operation) {
			ta, _ := op.LookupAttr("function_type").(TypeAttr)
			ft, ok := ta.Type.(*FunctionType)
			RequireCustom(ok)
			name, _ := SymbolName(op)
			p.Print(" ")
			p.PrintSymbolName(name)
			PrintFunctionSignature(p, op, ft, resultAttrs)
			p.PrintOptionalAttrDictWithKeyword(AllAttrs(op), "sym_name", "function_type", "arg_attrs", "res_attrs")
			if !op.Region(0).Empty() {
				p.Print(" ")
				p.PrintRegion(op.Region(0), false, true)
			}
		}
	}
	return &Dialect{Name: "ft", Ops: []*OpDef{
		{Name: "ft.cast", Print: func(p *OpPrinter, op *Operation) { forms.PrintCast(p, op, "to") },
			Parse: func(p *OpParser, st *OperationState) error { return ParseCastForm(p, st, "to") }},
		{Name: "ft.arrow", Print: func(p *OpPrinter, op *Operation) { forms.PrintCast(p, op, "->") },
			Parse: func(p *OpParser, st *OperationState) error { return ParseCastForm(p, st, "->") }},
		{Name: "ft.add", Print: forms.PrintSameType, Parse: sameType(2)},
		{Name: "ft.math", Print: forms.PrintSameType, Parse: sameType(-1)},
		{Name: "ft.wide", Print: wide.PrintSameType, Parse: sameType(-1)},
		{Name: "ft.table", Print: forms.PrintSameType, Parse: sameType(0)},
		{Name: "ft.alloc", Print: forms.PrintSameType, Parse: func(p *OpParser, st *OperationState) error {
			ops, _, err := ParseResultTypeForm(p, st, 1)
			if err != nil {
				return err
			}
			return p.ResolveOperands(ops, []Type{I64()}, &st.Operands)
		}},
		{Name: "ft.return", Traits: Terminator, Print: forms.PrintReturn, Parse: ParseReturnForm},
		{Name: "ft.call", Print: forms.PrintCall, Parse: ParseCallForm},
		{Name: "ft.func", Traits: Symbol | IsolatedFromAbove, Print: printFunc(true), Parse: parseFunc(true)},
		{Name: "ft.gfunc", Traits: Symbol | IsolatedFromAbove, Print: printFunc(false), Parse: parseFunc(false)},
	}}
}

func ftCtx() *Context {
	c := NewContext(ptBuiltin(), ftDialect())
	c.AllowUnregistered = true
	return c
}

func ftPrint(t *testing.T, ctx *Context, src string, opts PrintOptions) string {
	t.Helper()
	m, err := Parse(ctx, "in.mlir", []byte(src))
	if err != nil {
		t.Fatalf("parse: %v\n%s", err, src)
	}
	var b strings.Builder
	if err := Print(&b, m, opts); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// body wraps lines in a function whose arguments the lines may use.
func ftBody(lines string) string {
	return "ft.func @f(%a: i32, %b: i32, %x: f32, %n: i64) {\n" + lines + "\n  ft.return\n}\n"
}

func TestSharedFormsRoundTrip(t *testing.T) {
	tests := []struct {
		name, in, want string // want: the op's printed line(s), "" for in itself
	}{
		{"cast", "%0 = ft.cast %a : i32 to i64", ""},
		{"cast attrs", "%0 = ft.cast %a {k, z = 1 : i64} : i32 to f32", ""},
		{"arrow cast", "%0 = ft.arrow %a {k} : i32 -> i64", ""},
		{"same type", "%0 = ft.add %a, %b : i32", ""},
		{"same type attrs", "%0 = ft.add %a, %b {fast} : i32", ""},
		{"variadic", "%0 = ft.math %a, %b, %a : i32", ""},
		{"no operands", `%0 = ft.table {name = "w"} : tensor<4x2xf32>`, ""},
		{"fixed operand type", "%0 = ft.alloc %n : !ft.buf", ""},
		{"untyped width", "%0 = ft.wide %x {w = 2 : i64, width = 4 : i64} : f32", "%0 = ft.wide %arg2 {w = 2 : i64, width = 4} : f32"},
		{"width of another type", "%0 = ft.wide %x {width = 4 : i32} : f32", ""},
		{"untyped width reads back as i64", "%0 = ft.wide %x {width = 4} : f32", ""},
		{"call", "%0:2 = ft.call @f(%a, %x) {k} : (i32, f32) -> (i32, f32)", ""},
		{"call no results", "ft.call @f() : () -> ()", ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ctx := ftCtx()
			in := ftBody("  " + tc.in)
			got := ftPrint(t, ctx, in, PrintOptions{})
			want := tc.want
			if want == "" {
				want = tc.in
			}
			// The printer renames %a, %b, %x, %n to %arg0..%arg3.
			for _, r := range [][2]string{{"%a", "%arg0"}, {"%b", "%arg1"}, {"%x", "%arg2"}, {"%n", "%arg3"}} {
				want = strings.ReplaceAll(want, r[0]+",", r[1]+",")
				want = strings.ReplaceAll(want, r[0]+" ", r[1]+" ")
				want = strings.ReplaceAll(want, r[0]+")", r[1]+")")
			}
			if !strings.Contains(got, "    "+want+"\n") {
				t.Fatalf("printed\n%s\nwant the line\n%s", got, want)
			}
			// The custom form reads back to the same op.
			again := ftPrint(t, ctx, got, PrintOptions{})
			if again != got {
				t.Fatalf("not a fixed point:\n%s\nthen\n%s", got, again)
			}
			g1 := ftPrint(t, ctx, in, PrintOptions{Generic: true})
			g2 := ftPrint(t, ctx, got, PrintOptions{Generic: true})
			if g1 != g2 {
				t.Fatalf("generic forms differ:\n%s\n%s", g1, g2)
			}
		})
	}
}

func TestFunctionSignatureForms(t *testing.T) {
	tests := []struct{ name, in, want string }{
		{"named args with attrs", "ft.func @f(%a: i32 {k = 1 : i64}, %b: f32) -> i32 attributes {z} {\n  ft.return %a : i32\n}",
			"ft.func @f(%arg0: i32 {k = 1 : i64}, %arg1: f32) -> i32 attributes {z} {"},
		{"declaration", "ft.func @d(i32 {a}, f32) -> (i32 {b = 1 : i64}, f32)", "ft.func @d(i32 {a}, f32) -> (i32 {b = 1 : i64}, f32)"},
		{"one result with attrs", "ft.func @d() -> (i32 {b})", "ft.func @d() -> (i32 {b})"},
		{"one result in parens", "ft.func @d() -> (i32)", "ft.func @d() -> i32"},
		{"function result", "ft.func @d() -> ((i32) -> i32)", "ft.func @d() -> ((i32) -> i32)"},
		{"no results", "ft.func @d(i32) -> ()", "ft.func @d(i32)"},
		{"plain results", "ft.gfunc @g(%a: i32) -> (i32, f32) {\n  ft.return %a, %a : i32, i32\n}", "ft.gfunc @g(%arg0: i32) -> (i32, f32) {"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ctx := ftCtx()
			got := ftPrint(t, ctx, tc.in+"\n", PrintOptions{})
			if !strings.Contains(got, "  "+tc.want+"\n") {
				t.Fatalf("printed\n%s\nwant the line\n%s", got, tc.want)
			}
			if again := ftPrint(t, ctx, got, PrintOptions{}); again != got {
				t.Fatalf("not a fixed point:\n%s\nthen\n%s", got, again)
			}
		})
	}
}

func TestSharedFormsErrors(t *testing.T) {
	tests := []struct{ name, in, want string }{
		{"cast without to", "%0 = ft.cast %a : i32 -> i64", "2:25: error: expected 'to', got '->'"},
		{"arrow cast with to", "%0 = ft.arrow %a : i32 to i64", "2:26: error: expected '->', got 'to'"},
		{"too few operands", "%0 = ft.add %a : i32", "2:18: error: expected ',', got ':'"},
		{"no operands", "%0 = ft.math : i32", "3:3: error: expected operands"},
		{"operand type", "%0 = ft.add %a, %x : i32", "2:19: error: use of value '%x' expects different type than prior uses: 'i32' vs 'f32'"},
		{"return count", "ft.return %a, %b : i32", "3:3: error: 2 operands present, but expected 1"},
		{"call count", "%0 = ft.call @f(%a, %b) : (i32) -> i32", "2:29: error: 2 operands present, but expected 1"},
		{"call needs a type", "%0 = ft.call @f(%a)", "error: expected ':'"},
		{"result attrs in a plain list", "}\nft.gfunc @g(%a: i32) -> (i32 {b}) {", "3:30: error: expected ')' in type list, got '{'"},
		{"unnamed argument", "}\nft.gfunc @g(i32) {", "3:12: error: expected named arguments for @g"},
		{"result list", "}\nft.func @d() -> (i32 {b} f32)", "3:26: error: expected ','"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse(ftCtx(), "in.mlir", []byte(ftBody("  "+tc.in)))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("got error %v, want %q", err, tc.want)
			}
		})
	}
}

func TestAllAttrs(t *testing.T) {
	ctx := ftCtx()
	tests := []struct {
		name  string
		props Attribute
		attrs []NamedAttribute
		want  string
	}{
		{"attrs only", nil, []NamedAttribute{{"b", UnitAttr{}}, {"a", I64Attr(1)}}, "a b"},
		{"props and attrs sorted", NewDictAttr([]NamedAttribute{{"c", UnitAttr{}}, {"a", UnitAttr{}}}), []NamedAttribute{{"b", UnitAttr{}}}, "a b c"},
		{"empty props", DictAttr{}, []NamedAttribute{{"b", UnitAttr{}}}, "b"},
		{"props not a dictionary", I64Attr(3), []NamedAttribute{{"b", UnitAttr{}}}, "b"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			op := ctx.Create(&OperationState{Name: "ft.x", Props: tc.props, Attrs: tc.attrs})
			var names []string
			for _, a := range AllAttrs(op) {
				names = append(names, a.Name)
			}
			if got := strings.Join(names, " "); got != tc.want {
				t.Fatalf("got %q, want %q", got, tc.want)
			}
		})
	}
}

func TestRequireCustomFallsBack(t *testing.T) {
	ctx := ftCtx()
	// A call without a callee cannot print in the call form.
	op := ctx.Create(&OperationState{Name: "ft.call", Attrs: []NamedAttribute{{"k", UnitAttr{}}}})
	if got, want := OpString(op, PrintOptions{}), `"ft.call"() {k} : () -> ()`; got != want {
		t.Fatalf("got %s, want %s", got, want)
	}
}
