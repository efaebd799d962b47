package textir

import (
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/recom-compiler/recom/textir/inputfile"
)

// parserTestDialect is a small dialect with custom forms for the parser tests:
//
//	ptest.func @name(%a: i32, ...) -> types attributes {...} { body }
//	%r = ptest.add %a, %b : i32
//	ptest.br ^bb(%x : i32)
//	ptest.ret %a : i32
func parserTestDialect() *Dialect {
	return &Dialect{Name: "ptest", Ops: []*OpDef{
		{Name: "ptest.func", Traits: IsolatedFromAbove | Symbol, Parse: func(p *OpParser, st *OperationState) error {
			name, err := p.ParseSymbolName()
			if err != nil {
				return err
			}
			args, err := p.ParseArgumentList(true)
			if err != nil {
				return err
			}
			res, err := p.ParseOptionalArrowTypeList()
			if err != nil {
				return err
			}
			var ins []Type
			for _, a := range args {
				ins = append(ins, a.Type)
			}
			st.AddAttr("sym_name", Str(name))
			st.AddAttr("function_type", TypeAttr{FunctionTypeOf(ins, res)})
			if err := p.ParseOptionalAttrDictWithKeyword(st); err != nil {
				return err
			}
			r := &Region{}
			if _, err := p.ParseOptionalRegion(r, args); err != nil {
				return err
			}
			st.Regions = append(st.Regions, r)
			return nil
		}},
		{Name: "ptest.add", Traits: Pure, Parse: func(p *OpParser, st *OperationState) error {
			ops, err := p.ParseOperandList()
			if err != nil {
				return err
			}
			if err := p.ParseOptionalAttrDict(st); err != nil {
				return err
			}
			t, err := p.ParseColonType()
			if err != nil {
				return err
			}
			st.ResultTypes = []Type{t}
			return p.ResolveOperands(ops, []Type{t}, &st.Operands)
		}},
		{Name: "ptest.br", Traits: Terminator, Parse: func(p *OpParser, st *OperationState) error {
			b, vs, err := p.ParseSuccessorAndOperands()
			if err != nil {
				return err
			}
			st.Successors = []*Block{b}
			st.Operands = vs
			return nil
		}},
		{Name: "ptest.ret", Traits: Terminator | ReturnLike, Parse: func(p *OpParser, st *OperationState) error {
			ops, err := p.ParseOperandList()
			if err != nil {
				return err
			}
			if len(ops) == 0 {
				return nil
			}
			ts, err := p.ParseColonTypeList()
			if err != nil {
				return err
			}
			return p.ResolveOperands(ops, ts, &st.Operands)
		}},
		{Name: "ptest.iso", Traits: IsolatedFromAbove},
	}}
}

func parserTestCtx() *Context {
	ctx := NewContext(parserTestDialect())
	ctx.AllowUnregistered = true
	return ctx
}

func parserTestParse(t *testing.T, src string) *Operation {
	t.Helper()
	m, err := Parse(parserTestCtx(), "t.mlir", []byte(src))
	if err != nil {
		t.Fatalf("parse: %v\nsource:\n%s", err, src)
	}
	return m
}

// parserTestOps returns the ops of the module's body, in order.
func parserTestOps(m *Operation) []*Operation {
	var ops []*Operation
	for o := range m.Region(0).Front().Ops() {
		ops = append(ops, o)
	}
	return ops
}

func TestParseStructure(t *testing.T) {
	tests := []struct {
		name  string
		src   string
		check func(t *testing.T, m *Operation)
	}{
		{"implicit module", `"a.x"() : () -> ()
"a.y"() : () -> ()`, func(t *testing.T, m *Operation) {
			if m.Name() != "builtin.module" || len(parserTestOps(m)) != 2 {
				t.Fatalf("got %s with %d ops", m.Name(), len(parserTestOps(m)))
			}
			if m.Region(0).Front().Last() != parserTestOps(m)[1] {
				t.Fatal("bad block list")
			}
		}},
		{"explicit module", `"builtin.module"() ({
  "a.x"() : () -> ()
}) {sym_name = "m"} : () -> ()`, func(t *testing.T, m *Operation) {
			if m.Block() != nil || m.Attr("sym_name") == nil {
				t.Fatalf("want the module itself, detached")
			}
		}},
		{"module fallback form", `module @m attributes {a = 1} {
  "a.x"() : () -> ()
}`, func(t *testing.T, m *Operation) {
			if !AttrEqual(m.Attr("sym_name"), Str("m")) || !AttrEqual(m.Attr("a"), I64Attr(1)) || len(parserTestOps(m)) != 1 {
				t.Fatalf("bad module: %v", m.Attrs())
			}
		}},
		{"operands and uses", `%0 = "a.c"() : () -> i32
%1:2 = "a.d"(%0, %0) : (i32, i32) -> (i32, f32)
"a.e"(%1#1, %1#0, %1) : (f32, i32, i32) -> ()`, func(t *testing.T, m *Operation) {
			ops := parserTestOps(m)
			c, d, e := ops[0], ops[1], ops[2]
			if c.Result(0).NumUses() != 2 || d.Operand(0) != c.Result(0) {
				t.Fatal("bad uses of %0")
			}
			if e.Operand(0) != d.Result(1) || e.Operand(1) != d.Result(0) || e.Operand(2) != d.Result(0) {
				t.Fatal("bad result numbers")
			}
			if d.Result(0).NumUses() != 2 || d.Result(1).Type() != F32() {
				t.Fatal("bad result uses or types")
			}
		}},
		{"several result groups", `%a, %b:2 = "a.d"() : () -> (i1, i8, i16)
"a.u"(%a, %b#1) : (i1, i16) -> ()`, func(t *testing.T, m *Operation) {
			ops := parserTestOps(m)
			if ops[1].Operand(0) != ops[0].Result(0) || ops[1].Operand(1) != ops[0].Result(2) {
				t.Fatal("bad group mapping")
			}
		}},
		{"forward reference in graph region", `"a.graph"() ({
  "a.use"(%x) : (i32) -> ()
  %x = "a.def"() : () -> i32
}) : () -> ()`, func(t *testing.T, m *Operation) {
			blk := parserTestOps(m)[0].Region(0).Front()
			use, def := blk.First(), blk.Last()
			if use.Operand(0) != def.Result(0) || def.Result(0).NumUses() != 1 {
				t.Fatal("forward reference not resolved")
			}
		}},
		{"regions blocks successors", `"a.f"() ({
^bb0(%a: i32, %b: f32 loc("x":1:2)):
  "a.br"(%a)[^bb2, ^bb1(%a : i32)] : (i32) -> ()
^bb1(%c: i32):
  "a.ret"(%c) : (i32) -> ()
^bb2:
  "a.ret"(%a) : (i32) -> ()
}) : () -> ()`, func(t *testing.T, m *Operation) {
			r := parserTestOps(m)[0].Region(0)
			bs := r.Blocks()
			if len(bs) != 3 || bs[0].NumArgs() != 2 || bs[1].NumArgs() != 1 {
				t.Fatalf("bad blocks")
			}
			br := bs[0].First()
			if s := br.Successors(); len(s) != 2 || s[0] != bs[2] || s[1] != bs[1] {
				t.Fatalf("bad successors")
			}
			if br.NumOperands() != 2 || br.Operand(1) != bs[0].Arg(0) || bs[0].Arg(0).NumUses() != 3 {
				t.Fatalf("bad successor operands")
			}
			if bs[1].First().Operand(0) != bs[1].Arg(0) || bs[1].Parent() != r {
				t.Fatal("bad block arg use")
			}
		}},
		{"nested scope sees outer values", `%0 = "a.c"() : () -> i32
"a.r"() ({
  "a.u"(%0) : (i32) -> ()
}) : () -> ()
"a.r"() ({
  %1 = "a.c"() : () -> i32
}) : () -> ()
"a.r"() ({
  %1 = "a.c"() : () -> i64
}) : () -> ()`, func(t *testing.T, m *Operation) {
			if parserTestOps(m)[0].Result(0).NumUses() != 1 {
				t.Fatal("outer value not used")
			}
		}},
		{"props regions attrs loc", `%0 = "a.op"() <{p = 1 : i32}> ({}, {
  "a.y"() : () -> ()
}) {b = "s", a} : () -> i32 loc("f.py":3:7)`, func(t *testing.T, m *Operation) {
			op := parserTestOps(m)[0]
			if !AttrEqual(op.Props(), NewDictAttr([]NamedAttribute{{"p", IntegerAttr{1, I32()}}})) {
				t.Fatalf("props %v", op.Props())
			}
			if op.NumRegions() != 2 || !op.Region(0).Empty() || op.Region(1).Front().Len() != 1 {
				t.Fatal("regions")
			}
			if as := op.Attrs(); len(as) != 2 || as[0].Name != "a" || !AttrEqual(as[0].Value, UnitAttr{}) {
				t.Fatalf("attrs %v", as)
			}
			if op.Loc() != (FileLineColLoc{"f.py", 3, 7}) || op.SourceLoc() != (FileLineColLoc{"t.mlir", 1, 1}) {
				t.Fatalf("loc %v src %v", op.Loc(), op.SourceLoc())
			}
		}},
		{"default location is op start", "// comment\n  \"a.x\"() : () -> ()\n  %r = \"a.y\"() : () -> i1", func(t *testing.T, m *Operation) {
			ops := parserTestOps(m)
			if ops[0].Loc() != (FileLineColLoc{"t.mlir", 2, 3}) || ops[1].Loc() != (FileLineColLoc{"t.mlir", 3, 3}) {
				t.Fatalf("locs %v %v", ops[0].Loc(), ops[1].Loc())
			}
			if ops[1].SourceLoc() != ops[1].Loc() {
				t.Fatal("source loc not set")
			}
		}},
		{"location aliases", `"a.x"() : () -> () loc(#l1)
"a.y"() : () -> () loc(fused["a", #l1])
#l1 = loc("n"("f":1:2))`, func(t *testing.T, m *Operation) {
			ops := parserTestOps(m)
			want := NameLoc{Name: "n", Child: FileLineColLoc{"f", 1, 2}}
			if ops[0].Loc() != Location(want) {
				t.Fatalf("loc %v", ops[0].Loc())
			}
			if fl, ok := ops[1].Loc().(FusedLoc); !ok || fl.Locs[1] != Location(want) {
				t.Fatalf("loc %v", ops[1].Loc())
			}
		}},
		{"type and attribute aliases", `!t = tensor<2xf32>
#a = {k = [1, 2]}
%0 = "a.x"() {v = #a} : () -> !t`, func(t *testing.T, m *Operation) {
			op := parserTestOps(m)[0]
			if op.Result(0).Type() != Type(TensorOf([]int64{2}, F32())) {
				t.Fatal("type alias")
			}
			if d, ok := op.Attr("v").(DictAttr); !ok || len(d.Entries) != 1 {
				t.Fatal("attr alias")
			}
		}},
		{"custom forms", `ptest.func @f(%a: i32 {x.y = 1}, %b: i32) -> i32 attributes {z} {
  %s = ptest.add %a, %b : i32
  ptest.br ^bb1(%s : i32)
^bb1(%r: i32):
  ptest.ret %r : i32
}
ptest.func @decl(i32)`, func(t *testing.T, m *Operation) {
			ops := parserTestOps(m)
			f := ops[0]
			if f.Name() != "ptest.func" || f.Attr("z") == nil || !AttrEqual(f.Attr("sym_name"), Str("f")) {
				t.Fatalf("func attrs %v", f.Attrs())
			}
			bs := f.Region(0).Blocks()
			if len(bs) != 2 || bs[0].NumArgs() != 2 {
				t.Fatal("func blocks")
			}
			add := bs[0].First()
			if add.Operand(0) != bs[0].Arg(0) || add.Operand(1) != bs[0].Arg(1) {
				t.Fatal("custom operands")
			}
			br := add.Next()
			if br.Successors()[0] != bs[1] || br.Operand(0) != add.Result(0) {
				t.Fatal("custom successor")
			}
			if ops[1].Region(0).Empty() == false {
				t.Fatal("declaration has a body")
			}
		}},
		{"unregistered quoted op and bare builtin prefix", `"x.y"() : () -> ()`, func(t *testing.T, m *Operation) {
			if parserTestOps(m)[0].Def() != nil {
				t.Fatal("should be unregistered")
			}
		}},
		{"file metadata skipped", "\"a.x\"() : () -> ()\n{-#\n  dialect_resources: {}\n#-}\n", func(t *testing.T, m *Operation) {
			if len(parserTestOps(m)) != 1 {
				t.Fatal("ops")
			}
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) { tc.check(t, parserTestParse(t, tc.src)) })
	}
}

func TestParseTypes(t *testing.T) {
	ctx := parserTestCtx()
	tests := []struct {
		src  string
		want Type
	}{
		{"i1", I1()},
		{"si8", IntegerTypeOf(8, Signed)},
		{"ui16", IntegerTypeOf(16, Unsigned)},
		{"i16777216", IntegerType(MaxIntWidth)},
		{"f16", F16()}, {"bf16", BF16()}, {"f32", F32()}, {"f64", F64()},
		{"index", Index()}, {"none", None()},
		{"tensor<2x?x3xf32>", TensorOf([]int64{2, Dynamic, 3}, F32())},
		{"tensor< 2 x 3 x i8 >", TensorOf([]int64{2, 3}, I8())},
		{"tensor<0xf32>", TensorOf([]int64{0}, F32())},
		{"tensor<*xf32>", UnrankedTensorOf(F32())},
		{"tensor<f32>", TensorOf(nil, F32())},
		{"tensor<4x!tfg.string>", TensorOf([]int64{4}, OpaqueTypeOf("tfg", "string", ""))},
		{"(i32, f32) -> (i64)", FunctionTypeOf([]Type{I32(), F32()}, []Type{I64()})},
		{"() -> i32", FunctionTypeOf(nil, []Type{I32()})},
		{"() -> ()", FunctionTypeOf(nil, nil)},
		{"!tfg.control", OpaqueTypeOf("tfg", "control", "")},
		{`!tfg.res<"a>b", [1, 2], (i32) -> i32>`, OpaqueTypeOf("tfg", "res", `"a>b", [1, 2], (i32) -> i32`)},
		{`!tfg<"opaque">`, OpaqueTypeOf("tfg", "", `"opaque"`)},
	}
	for _, tc := range tests {
		got, err := ParseType(ctx, tc.src)
		if err != nil {
			t.Errorf("%s: %v", tc.src, err)
			continue
		}
		if got != tc.want {
			t.Errorf("%s: got %v, want %v", tc.src, got, tc.want)
		}
	}
}

func TestParseDialectTypeHook(t *testing.T) {
	special := OpaqueTypeOf("hook", "special", "parsed")
	ctx := NewContext(&Dialect{Name: "hook", ParseType: func(name, params string) (Type, error) {
		switch name {
		case "a":
			return special, nil
		case "bad":
			return nil, Errorf(UnknownLoc{}, "bad type")
		}
		return nil, nil
	}})
	if got, err := ParseType(ctx, "!hook.a<x>"); err != nil || got != Type(special) {
		t.Fatalf("got %v, %v", got, err)
	}
	if got, err := ParseType(ctx, "!hook.b"); err != nil || got != Type(OpaqueTypeOf("hook", "b", "")) {
		t.Fatalf("got %v, %v", got, err)
	}
	if _, err := ParseType(ctx, "!hook.bad"); err == nil || !strings.Contains(err.Error(), "bad type") {
		t.Fatalf("got %v", err)
	}
}

func TestParseAttributes(t *testing.T) {
	ctx := parserTestCtx()
	t2x2 := TensorOf([]int64{2, 2}, I32())
	t4f := TensorOf([]int64{4}, F32())
	tstr := TensorOf([]int64{2}, OpaqueTypeOf("tfg", "string", ""))
	tests := []struct {
		src  string
		want Attribute
	}{
		{"5 : i64", I64Attr(5)},
		{"5", I64Attr(5)},
		{"-3", I64Attr(-3)},
		{"0x1F : i32", IntegerAttr{31, I32()}},
		{"255 : i8", IntegerAttr{-1, I8()}},
		{"255 : ui8", IntegerAttr{255, IntegerTypeOf(8, Unsigned)}},
		{"-128 : si8", IntegerAttr{-128, IntegerTypeOf(8, Signed)}},
		{"1 : i1", IntegerAttr{1, I1()}},
		{"18446744073709551615 : ui64", IntegerAttr{-1, IntegerTypeOf(64, Unsigned)}},
		{"7 : index", IntegerAttr{7, Index()}},
		{"true", BoolAttr{true}},
		{"false", BoolAttr{false}},
		{"1.5", FloatAttr{1.5, F64()}},
		{"-2.0e-3 : f32", FloatAttr{float64(float32(-2.0e-3)), F32()}},
		{"0x3FF0000000000000 : f64", FloatAttr{1, F64()}},
		{"0x7F800000 : f32", FloatAttr{math.Inf(1), F32()}},
		{"0x3C00 : f16", FloatAttr{1, F16()}},
		{`"a\n\t\"\\\41"`, Str("a\n\t\"\\A")},
		{`"x" : !tfg.string`, StringAttr{"x", OpaqueTypeOf("tfg", "string", "")}},
		{"unit", UnitAttr{}},
		{"[1, [true], \"s\"]", ArrayAttr{[]Attribute{I64Attr(1), ArrayAttr{[]Attribute{BoolAttr{true}}}, Str("s")}}},
		{"[]", ArrayAttr{}},
		{`{b = 1, a, "q r" = f32}`, NewDictAttr([]NamedAttribute{{"b", I64Attr(1)}, {"a", UnitAttr{}}, {"q r", TypeAttr{F32()}}})},
		{"{}", DictAttr{}},
		{"f32", TypeAttr{F32()}},
		{"tensor<2xi64>", TypeAttr{TensorOf([]int64{2}, I64())}},
		{"(i32) -> ()", TypeAttr{FunctionTypeOf([]Type{I32()}, nil)}},
		{"@a", SymbolRefAttr{Root: "a"}},
		{`@"quoted name"`, SymbolRefAttr{Root: "quoted name"}},
		{"@a::@b::@c", SymbolRefAttr{Root: "a", Nested: []string{"b", "c"}}},
		{"dense<[[1, 2], [3, 4]]> : tensor<2x2xi32>", DenseInts(t2x2, []int64{1, 2, 3, 4})},
		{"dense<1.0> : tensor<4xf32>", DenseFloats(t4f, []float64{1})},
		{"dense<[1.0, -2.5, 3, 0x40800000]> : tensor<4xf32>", DenseFloats(t4f, []float64{1, -2.5, 3, 4})},
		{"dense<true> : tensor<3xi1>", DenseInts(TensorOf([]int64{3}, I1()), []int64{1})},
		{"dense<[true, false]> : tensor<2xi1>", DenseInts(TensorOf([]int64{2}, I1()), []int64{1, 0})},
		{`dense<["a", "b"]> : tensor<2x!tfg.string>`, DenseStrings(tstr, []string{"a", "b"})},
		{`dense<"0xDEADBEEF"> : tensor<2xi16>`, DenseInts(TensorOf([]int64{2}, I16()), []int64{0xADDE, 0xEFBE})},
		{`dense<"0x0100"> : tensor<3xi16>`, DenseInts(TensorOf([]int64{3}, I16()), []int64{1})},
		{"dense<> : tensor<0xf32>", &DenseElementsAttr{Type: TensorOf([]int64{0}, F32()), Data: []byte{}}},
		{"dense<5> : tensor<i64>", DenseInts(TensorOf(nil, I64()), []int64{5})},
		{"#tfg.shape<2x3>", OpaqueAttr{"tfg", "shape", "2x3"}},
		{`#tfg<"x">`, OpaqueAttr{"tfg", "", `"x"`}},
		{"#tfg.plain", OpaqueAttr{"tfg", "plain", ""}},
	}
	for _, tc := range tests {
		got, err := ParseAttribute(ctx, tc.src)
		if err != nil {
			t.Errorf("%s: %v", tc.src, err)
			continue
		}
		if !AttrEqual(got, tc.want) {
			t.Errorf("%s: got %#v, want %#v", tc.src, got, tc.want)
		}
	}
}

func TestParseLocations(t *testing.T) {
	ctx := parserTestCtx()
	tests := []struct {
		src  string
		want string
	}{
		{`loc("file":3:7)`, `"file":3:7`},
		{`loc("name")`, `"name"`},
		{`"name"("file":1:2)`, `"name"("file":1:2)`},
		{`loc(unknown)`, `unknown`},
		{`loc(fused["a", "b":1:2])`, `fused["a", "b":1:2]`},
		{`loc(callsite("a" at "b":1:2))`, `callsite("a" at "b":1:2)`},
		{`loc(callsite(callsite("f"("x":1:2) at "y":3:4) at fused["z", unknown]))`, `callsite(callsite("f"("x":1:2) at "y":3:4) at fused["z", unknown])`},
	}
	for _, tc := range tests {
		got, err := ParseLocation(ctx, tc.src)
		if err != nil {
			t.Errorf("%s: %v", tc.src, err)
			continue
		}
		if got.String() != tc.want {
			t.Errorf("%s: got %s, want %s", tc.src, got, tc.want)
		}
	}
	// A call site's diagnostics name the callee's position, then the caller's.
	cs, _ := ParseLocation(ctx, `callsite("a" at "b":1:2)`)
	if got := LocPrefix(cs); got != "b:1:2" {
		t.Errorf("LocPrefix(%s) = %s, want b:1:2", cs, got)
	}
	cs, _ = ParseLocation(ctx, `callsite("a":5:6 at "b":1:2)`)
	if got, _ := LocName(cs); LocPrefix(cs) != "a:5:6" || got != "" {
		t.Errorf("LocPrefix(%s) = %s, want a:5:6", cs, LocPrefix(cs))
	}
	for _, bad := range []string{`callsite("a")`, `callsite("a" at)`, `callsite "a" at "b"`, `callsite("a" at "b"`} {
		if _, err := ParseLocation(ctx, bad); err == nil || !strings.Contains(err.Error(), "callsite location") && !strings.Contains(err.Error(), "location instance") {
			t.Errorf("%s: got %v, want an error about the call site", bad, err)
		}
	}
	l, err := ParseLocation(ctx, `loc(fused<"meta">["a"])`)
	if fl, ok := l.(FusedLoc); err != nil || !ok || !AttrEqual(fl.Metadata, Str("meta")) {
		t.Fatalf("fused metadata: %v %v", l, err)
	}
}

// TestParseErrors checks each error message and its position.
func TestParseErrors(t *testing.T) {
	tests := []struct {
		src  string
		want string // "line:col: message"
	}{
		{`"a.x"(%0) : (i32) -> ()`, "1:7: use of undeclared SSA value name '%0'"},
		{"%0 = \"a.c\"() : () -> i32\n%0 = \"a.c\"() : () -> i32", "2:1: redefinition of SSA value '%0'"},
		{"%0 = \"a.c\"() : () -> i32\n\"a.r\"() ({\n  %0 = \"a.c\"() : () -> i32\n}) : () -> ()", "3:3: redefinition of SSA value '%0'"},
		{"%0 = \"a.c\"() : () -> i32\n\"a.u\"(%0) : (i64) -> ()", "2:7: use of value '%0' expects different type than prior uses: 'i64' vs 'i32'"},
		{"\"a.u\"(%0) : (i64) -> ()\n%0 = \"a.c\"() : () -> i32", "1:7: use of value '%0' expects type 'i64', but its definition has type 'i32'"},
		{"%0:2 = \"a.c\"() : () -> (i32, i32)\n\"a.u\"(%0#2) : (i32) -> ()", "2:7: reference to invalid result number"},
		{"\"a.u\"(%0#2) : (i32) -> ()\n%0 = \"a.c\"() : () -> i32", "1:7: reference to invalid result number"},
		{`%0, %1 = "a.c"() : () -> i32`, "1:1: operation defines 1 results but was provided 2 to bind"},
		{`"a.x"(%0 : () -> ()`, "1:10: expected ')' to end operand list, got ':'"},
		{`"a.x"() : () -> () }`, "1:20: expected operation name in quotes, got '}'"},
		{`"a.x"() ({ "a.y"() : () -> () ) : () -> ()`, "1:31: expected operation name in quotes, got ')'"},
		{`"a.x"() {s = "abc} : () -> ()`, "1:14: expected '\"' in string literal"},
		{`"a.x"() {s = "a\q"} : () -> ()`, "1:16: unknown escape in string literal"},
		{`foo.bar`, "1:1: custom op 'foo.bar' is unknown"},
		{`"a.x"() : () -> tensor<2xi99999999>`, "1:26: integer bitwidth is limited to 16777216 bits"},
		{`"a.x"() : () -> tensor<99999999999999999999xf32>`, "1:24: dimension is too large"},
		{`"a.x"() : () -> !undefined`, "1:17: undefined symbol alias id 'undefined'"},
		{`"a.x"() {a = #undefined} : () -> ()`, "1:14: undefined symbol alias id 'undefined'"},
		{`"a.x"() {a = 1, a = 2} : () -> ()`, "1:17: duplicate key 'a' in dictionary attribute"},
		{`"a.x"() {a = 300 : i8} : () -> ()`, "1:14: integer constant out of range for attribute"},
		{`"a.x"() {a = -1 : ui8} : () -> ()`, "1:14: negative integer literal not valid for unsigned integer type"},
		{`"a.x"() {a = 1 : f32} : () -> ()`, "1:14: unexpected decimal integer literal for a floating point value"},
		{`"a.x"() {a = dense<[1, 2, 3]> : tensor<2xi32>} : () -> ()`, "1:14: inferred shape of elements literal ([3]) does not match type ([2])"},
		{`"a.x"() {a = dense<[[1], [2, 3]]> : tensor<2x2xi32>} : () -> ()`, "1:26: tensor literal is invalid; shapes are not consistent between elements"},
		{`"a.x"() {a = dense<[[1], 2]> : tensor<2x1xi32>} : () -> ()`, "1:26: tensor literal is invalid; ranks are not consistent between elements"},
		{`"a.x"() {a = dense<[1, 256]> : tensor<2xi8>} : () -> ()`, "1:24: integer constant out of range for attribute"},
		{`"a.x"() {a = dense<1> : tensor<9223372036854775807x4xf32>} : () -> ()`, "1:25: number of elements in 'tensor<9223372036854775807x4xf32>' overflows"},
		{`"a.x"() {a = dense<"0x0102"> : tensor<3xi32>} : () -> ()`, "1:20: elements hex data size is invalid for provided type"},
		{`"a.x"() {a = dense<1> : tensor<?xi32>} : () -> ()`, "1:25: elements literal type must have static shape"},
		{`"a.x"() {a = dense<1.5> : tensor<2xi32>} : () -> ()`, "1:20: expected integer elements, but parsed floating-point"},
		{`"a.x"(%a) : (i32, i32) -> ()`, "1:13: expected 1 operand type but had 2"},
		{`"a.x"() ({^bb0: "a.br"()[^bb7] : () -> ()}) : () -> ()`, "1:26: reference to an undefined block"},
		{`"a.x"() ({^bb0: "a.y"() : () -> () ^bb0: "a.y"() : () -> ()}) : () -> ()`, "1:36: redefinition of block '^bb0'"},
		{`%0 = "a.c"() : () -> i32` + "\n" + `"ptest.iso"() ({ "a.u"(%0) : (i32) -> () }) : () -> ()`, "2:24: use of undeclared SSA value name '%0'"},
		{`"a.x"() : () -> () loc(#nope)`, "1:24: operation location alias was never defined"},
		{`"a.x"() {a = @} : () -> ()`, "1:14: invalid symbol reference, expected identifier or string after '@'"},
		{`"a.x"() : () -> () garbage`, "1:20: custom op 'garbage' is unknown"},
		{"ptest.func @f(%a: i32) {\n^bb0(%b: i32):\n}", "2:1: invalid block name in region with named arguments"},
		{`%0 = ptest.add %x : i32`, "1:16: use of undeclared SSA value name '%x'"},
		{`"a.x"() : () -> tensor<2x3>`, "1:27: expected 'x' in dimension list, got '>'"},
		{`"a.x"() : () -> !t.x<a(b>`, "1:25: unbalanced '>' character in pretty dialect name"},
		{`"a.x"() : ( -> ()`, "1:13: expected type, got '->'"},
		{"#a = 1\n#a = 2", "2:1: redefinition of attribute alias id 'a'"},
		{`"a.x"() {v = 1e5} : () -> ()`, "1:15: expected '}' in attribute dictionary, got 'e5'"},
		{`"" () : () -> ()`, "1:1: empty operation name is invalid"},
		{`ptest.iso`, "1:1: custom op 'ptest.iso' is unknown"},
		{"%a = \"a.c\"() : () -> i32\nptest.ret %a, %a : i32, i32, i32", "2:11: 2 operands present, but expected 3"},
		{"ptest.func @f(%a: i32, %a: i32) {\n}", "1:24: redefinition of SSA value '%a'"},
		{`ptest.func f()`, "1:12: expected symbol name, got 'f'"},
		{`%x = ptest.add : i32`, "1:21: 0 operands present, but expected 1"},
		{"\"a.x\"() ({\n  \"a.u\"(%v) : (i32) -> ()\n}) : () -> ()\n\"a.y\"() ({\n  %v = \"a.c\"() : () -> i64\n}) : () -> ()", "2:9: use of value '%v' expects type 'i32', but its definition has type 'i64'"},
	}
	for _, tc := range tests {
		_, err := Parse(parserTestCtx(), "e.mlir", []byte(tc.src))
		if err == nil {
			t.Errorf("%q: no error, want %s", tc.src, tc.want)
			continue
		}
		d, ok := err.(*Diagnostic)
		if !ok {
			t.Errorf("%q: error %T is not a *Diagnostic", tc.src, err)
			continue
		}
		got := strings.SplitN(d.Error(), "\n", 2)[0]
		want := "e.mlir:" + strings.Replace(tc.want, ": ", ": error: ", 1)
		if !strings.HasPrefix(got, want) {
			t.Errorf("%q:\n got  %s\n want %s", tc.src, got, want)
		}
	}
}

func TestParseDeepNesting(t *testing.T) {
	cases := map[string]string{
		"attribute": `"a.x"() {a = ` + strings.Repeat("[", 100000) + `} : () -> ()`,
		"type":      `"a.x"() : () -> ` + strings.Repeat("tensor<", 100000),
		"region":    strings.Repeat(`"a.x"() ({`, 100000),
		"function":  `"a.x"() : () -> ` + strings.Repeat("(", 100000),
		"location":  `"a.x"() : () -> () loc(` + strings.Repeat(`"a"(`, 100000),
		"dense":     `"a.x"() {a = dense<` + strings.Repeat("[", 100000) + `} : () -> ()`,
	}
	for name, src := range cases {
		_, err := Parse(parserTestCtx(), "d.mlir", []byte(src))
		if err == nil || !strings.Contains(err.Error(), "nesting too deep") {
			t.Errorf("%s: got %v", name, err)
		}
	}
}

func TestParseOpParserHelpers(t *testing.T) {
	var got []any
	d := &Dialect{Name: "h", Ops: []*OpDef{{Name: "h.all", Parse: func(p *OpParser, st *OperationState) error {
		if err := p.ParseKeyword("kw"); err != nil {
			return err
		}
		if p.ParseOptionalKeyword("nope") || !p.ParseOptionalPunct("<") {
			return p.Errorf("optional keyword/punct")
		}
		i, err := p.ParseInteger()
		if err != nil {
			return err
		}
		if err := p.ParsePunct(">"); err != nil {
			return err
		}
		s, err := p.ParseString()
		if err != nil {
			return err
		}
		ins, outs, err := p.ParseFunctionalType()
		if err != nil {
			return err
		}
		a, err := p.ParseAttribute()
		if err != nil {
			return err
		}
		ts, err := p.ParseColonTypeList()
		if err != nil {
			return err
		}
		got = append(got, i, s, len(ins), len(outs), a, len(ts))
		st.ResultTypes = ts
		return nil
	}}}}
	ctx := NewContext(d)
	m, err := Parse(ctx, "h.mlir", []byte(`%a, %b = h.all kw < -42 > "s" (i32, i1) -> (f32) [1] : i8, i16 loc("here")`))
	if err != nil {
		t.Fatal(err)
	}
	op := parserTestOps(m)[0]
	if len(got) != 6 || got[0] != int64(-42) || got[1] != "s" || got[2] != 2 || got[3] != 1 || got[5] != 2 {
		t.Fatalf("got %v", got)
	}
	if op.NumResults() != 2 || op.Loc() != Location(NameLoc{Name: "here"}) {
		t.Fatalf("results %d loc %v", op.NumResults(), op.Loc())
	}
}

// TestParseTestdata parses every file of testdata/parse.
func TestParseTestdata(t *testing.T) {
	files, err := filepath.Glob("testdata/parse/*.mlir")
	if err != nil || len(files) == 0 {
		t.Fatalf("no test files: %v", err)
	}
	for _, name := range files {
		src, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		m, err := Parse(parserTestCtx(), name, src)
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		n := 0
		m.Walk(func(*Operation) bool { n++; return true })
		if n < 4 {
			t.Errorf("%s: only %d ops", name, n)
		}
	}
}

// Locations name the right line and column whatever order the parser asks
// for them in (forward references are reported at earlier positions than
// the token being read), and the lines of a chunk parsed with ParseAtLine
// are those of the file it came from.
func TestParseLineCol(t *testing.T) {
	src := "ab\n\ncd\r\nefg\n" + strings.Repeat("x", 100) + "\n\n"
	naive := func(pos int) (int, int) {
		return 1 + strings.Count(src[:pos], "\n"), pos - (strings.LastIndexByte(src[:pos], '\n') + 1) + 1
	}
	for _, firstLine := range []int{1, 7} {
		p := newParser(parserTestCtx(), "f.mlir", src)
		p.firstLine = firstLine
		// Forward, backward and jumping about.
		order := []int{0, 1, 2, 3, 4, 5, 9, 8, 0, len(src), 12, 60, 111, 30, 3, len(src) - 1, 6, 112, 113}
		for _, pos := range order {
			l, c := p.lineCol(pos)
			wl, wc := naive(pos)
			if l != wl+firstLine-1 || c != wc {
				t.Errorf("first line %d, byte %d: %d:%d, want %d:%d", firstLine, pos, l, c, wl+firstLine-1, wc)
			}
		}
	}
	_, err := ParseAtLine(parserTestCtx(), "s.mlir", "\"a.x\"() : () -> ()\n  \"a.u\"(%0) : (i32) -> ()\n", 40)
	if err == nil || !strings.HasPrefix(err.Error(), "s.mlir:41:9: error: use of undeclared SSA value name '%0'") {
		t.Errorf("ParseAtLine: got %v, want an error at s.mlir:41:9", err)
	}
	m, err := ParseAtLine(parserTestCtx(), "s.mlir", "\"a.x\"() : () -> ()", 40)
	if err != nil {
		t.Fatal(err)
	}
	if l, _ := FileLineCol(m.Loc()); l.Line != 40 {
		t.Errorf("ParseAtLine: the module is at %v, want line 40", m.Loc())
	}
}

// Types and attributes of unregistered dialects are refused where they are
// parsed unless the context allows unregistered dialects; those of
// registered dialects and builtins are not.
func TestParseUnregisteredDialect(t *testing.T) {
	tests := []struct {
		src, want string
	}{
		{`"ptest.ret"() : () -> !nosuch.t`, "1:23: error: `!nosuch.t` type created with unregistered dialect 'nosuch'"},
		{`"ptest.ret"() : () -> tensor<2x!nosuch<"p">>`, "1:32: error: `!nosuch<\"p\">` type created with unregistered dialect 'nosuch'"},
		{`"ptest.ret"() {a = #nosuch.a<1>} : () -> ()`, "1:20: error: `#nosuch.a<1>` attribute created with unregistered dialect 'nosuch'"},
		{`"ptest.ret"() {a = [#nosuch.a]} : () -> ()`, "1:21: error: `#nosuch.a` attribute created with unregistered dialect 'nosuch'"},
		{"!x = !nosuch.t", "1:6: error: `!nosuch.t` type created"},
		{"#x = #nosuch.a<" + strings.Repeat("1", 100) + ">", "1:6: error: `#nosuch.a<" + strings.Repeat("1", 40) + "...>` attribute created"},
		{`%0 = "ptest.c"() {a = #ptest.a<1>} : () -> !ptest.t`, ""},
	}
	for _, tc := range tests {
		ctx := NewContext(parserTestDialect())
		_, err := Parse(ctx, "u.mlir", []byte(tc.src))
		if tc.want == "" {
			if err != nil {
				t.Errorf("%s: %v", tc.src, err)
			}
			continue
		}
		if err == nil || !strings.HasPrefix(err.Error(), "u.mlir:"+tc.want) {
			t.Errorf("%s: got %v, want %s", tc.src, err, tc.want)
		}
		ctx.AllowUnregistered = true
		if _, err := Parse(ctx, "u.mlir", []byte(tc.src)); err != nil {
			t.Errorf("%s with unregistered dialects allowed: %v", tc.src, err)
		}
	}
}

// ParseFile reads with inputfile's bound: a file over it, or a device that
// never ends, is refused with an error naming it and the limit.
func TestParseFile(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "f.mlir")
	if err := os.WriteFile(p, []byte("\"a.x\"() : () -> ()\n\"a.y\"(%0) : (i32) -> ()\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := ParseFile(parserTestCtx(), p); err == nil || !strings.HasPrefix(err.Error(), p+":2:7: error: use of undeclared SSA value name '%0'") {
		t.Errorf("got %v, want an error at %s:2:7", err, p)
	}
	saved := inputfile.MaxBytes
	defer func() { inputfile.MaxBytes = saved }()
	inputfile.MaxBytes = 10
	if _, err := ParseFile(parserTestCtx(), p); err == nil || !strings.Contains(err.Error(), p+": input of 43 bytes is too large: more than 10 bytes (set RECOM_MAX_INPUT_BYTES") {
		t.Errorf("over the limit: got %v", err)
	}
	if _, err := os.Stat("/dev/zero"); err == nil {
		if _, err := ParseFile(parserTestCtx(), "/dev/zero"); err == nil || !strings.Contains(err.Error(), "/dev/zero: input is too large: more than 10 bytes") {
			t.Errorf("/dev/zero: got %v", err)
		}
	}
	if _, err := ParseFile(parserTestCtx(), filepath.Join(dir, "none.mlir")); !os.IsNotExist(err) {
		t.Errorf("missing file: got %v", err)
	}
}
