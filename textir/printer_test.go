package textir

import (
	"bytes"
	"flag"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// The golden files under testdata/print are rewritten with
//
//	go test ./textir -run Golden -update
func init() {
	if flag.Lookup("update") == nil {
		flag.Bool("update", false, "rewrite golden files under testdata")
	}
}

func updateGolden() bool {
	f := flag.Lookup("update")
	return f != nil && f.Value.String() == "true"
}

// checkGolden compares got with testdata/<dir>/<name>.golden.
func checkGolden(t *testing.T, dir, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", dir, name+".golden")
	if updateGolden() {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if got != string(want) {
		t.Errorf("%s: output differs from golden file\n--- got ---\n%s\n--- want ---\n%s\n--- diff ---\n%s", path, got, want, lineDiff(string(want), got))
	}
}

// lineDiff lists the first lines that differ.
func lineDiff(want, got string) string {
	w, g := strings.Split(want, "\n"), strings.Split(got, "\n")
	var b strings.Builder
	n := 0
	for i := 0; i < len(w) || i < len(g); i++ {
		var wl, gl string
		if i < len(w) {
			wl = w[i]
		}
		if i < len(g) {
			gl = g[i]
		}
		if wl != gl {
			b.WriteString("line " + strconv.Itoa(i+1) + ":\n  want: " + wl + "\n  got:  " + gl + "\n")
			if n++; n == 5 {
				break
			}
		}
	}
	return b.String()
}

// ptDialect is a registered test dialect with custom forms, name hints and
// traits, so that the printer's custom paths are exercised without the real
// dialects.
func ptDialect() *Dialect {
	binary := func(p *OpPrinter, op *Operation) {
		p.Print(" ")
		p.PrintOperands(op.Operands())
		p.PrintOptionalAttrDict(op.Attrs())
		p.Print(" : ")
		p.PrintType(op.Result(0).Type())
	}
	return &Dialect{Name: "pt", Ops: []*OpDef{
		{Name: "pt.add", Traits: Pure | Commutative, Print: binary, Parse: parseBinary},
		{Name: "pt.func", Traits: IsolatedFromAbove | Symbol,
			Print: func(p *OpPrinter, op *Operation) {
				p.Print(" ")
				name, _ := op.Attr("sym_name").(StringAttr)
				p.PrintSymbolName(name.Value)
				p.Print("(")
				r := op.Region(0)
				if e := r.Front(); e != nil {
					for i, a := range e.Args() {
						if i > 0 {
							p.Print(", ")
						}
						p.PrintArgument(a)
					}
				}
				p.Print(")")
				if ft, ok := op.Attr("function_type").(TypeAttr); ok {
					p.PrintOptionalArrowTypeList(ft.Type.(*FunctionType).Results)
				}
				p.PrintOptionalAttrDictWithKeyword(op.Attrs(), "sym_name", "function_type")
				p.Print(" ")
				p.PrintRegion(r, false, false)
			},
			Parse: func(p *OpParser, st *OperationState) error {
				name, err := p.ParseSymbolName()
				if err != nil {
					return err
				}
				args, err := p.ParseArgumentList(false)
				if err != nil {
					return err
				}
				results, err := p.ParseOptionalArrowTypeList()
				if err != nil {
					return err
				}
				if err := p.ParseOptionalAttrDictWithKeyword(st); err != nil {
					return err
				}
				r := &Region{}
				if err := p.ParseRegion(r, args); err != nil {
					return err
				}
				var argTypes []Type
				for _, a := range args {
					argTypes = append(argTypes, a.Type)
				}
				st.AddAttr("sym_name", Str(name))
				st.AddAttr("function_type", TypeAttr{FunctionTypeOf(argTypes, results)})
				st.Regions = append(st.Regions, r)
				return nil
			}},
		{Name: "pt.return", Traits: Terminator | ReturnLike,
			Print: func(p *OpPrinter, op *Operation) {
				if op.NumOperands() == 0 {
					return
				}
				p.Print(" ")
				p.PrintOperands(op.Operands())
				p.Print(" : ")
				p.PrintTypes(op.OperandTypes())
			},
			Parse: func(p *OpParser, st *OperationState) error {
				ops, err := p.ParseOperandList()
				if err != nil || len(ops) == 0 {
					return err
				}
				ts, err := p.ParseColonTypeList()
				if err != nil {
					return err
				}
				return p.ResolveOperands(ops, ts, &st.Operands)
			}},
		{Name: "pt.br", Traits: Terminator,
			Print: func(p *OpPrinter, op *Operation) {
				p.Print(" ")
				p.PrintSuccessorAndOperands(op.Successors()[0], op.Operands())
			},
			Parse: func(p *OpParser, st *OperationState) error {
				b, args, err := p.ParseSuccessorAndOperands()
				st.Successors = append(st.Successors, b)
				st.Operands = append(st.Operands, args...)
				return err
			}},
		{Name: "pt.cond_br", Traits: Terminator,
			Print: func(p *OpPrinter, op *Operation) {
				p.Print(" ")
				p.PrintOperand(op.Operand(0))
				p.Print(", ")
				p.PrintSuccessor(op.Successors()[0])
				p.Print(", ")
				p.PrintSuccessor(op.Successors()[1])
			},
			Parse: func(p *OpParser, st *OperationState) error {
				c, err := p.ParseOperand()
				if err != nil {
					return err
				}
				if err := p.ResolveOperands([]UnresolvedOperand{c}, []Type{I1()}, &st.Operands); err != nil {
					return err
				}
				for i := 0; i < 2; i++ {
					if err := p.ParsePunct(","); err != nil {
						return err
					}
					b, err := p.ParseSuccessor()
					if err != nil {
						return err
					}
					st.Successors = append(st.Successors, b)
				}
				return nil
			}},
		{Name: "pt.const", Traits: Pure | ConstantLike,
			Print: func(p *OpPrinter, op *Operation) {
				p.PrintOptionalAttrDict(op.Attrs(), "value")
				p.Print(" ")
				p.PrintAttr(op.Attr("value"))
			},
			Parse: func(p *OpParser, st *OperationState) error {
				if err := p.ParseOptionalAttrDict(st); err != nil {
					return err
				}
				a, err := p.ParseAttribute()
				if err != nil {
					return err
				}
				st.AddAttr("value", a)
				switch a := a.(type) {
				case IntegerAttr:
					st.ResultTypes = []Type{a.Type}
				case FloatAttr:
					st.ResultTypes = []Type{a.Type}
				default:
					return p.Errorf("expected a number")
				}
				return nil
			},
			ResultNames: func(op *Operation) []string {
				if _, ok := op.Attr("value").(IntegerAttr); ok {
					return []string{"c"}
				}
				return []string{"cst"}
			}},
		{Name: "pt.node", // generic form, with hints: data results numbered, control result %ctl
			ResultNames: func(op *Operation) []string {
				names := make([]string, op.NumResults())
				names[len(names)-1] = "ctl"
				return names
			}},
		{Name: "pt.named", // custom form, every result hinted
			Print: func(p *OpPrinter, op *Operation) {
				if op.NumOperands() > 0 {
					p.Print(" ")
					p.PrintOperands(op.Operands())
				}
				p.PrintOptionalAttrDict(op.Attrs())
				p.Print(" : ")
				p.PrintFunctionalType(op)
			},
			Parse: func(p *OpParser, st *OperationState) error {
				ops, err := p.ParseOperandList()
				if err != nil {
					return err
				}
				if err := p.ParseOptionalAttrDict(st); err != nil {
					return err
				}
				if err := p.ParsePunct(":"); err != nil {
					return err
				}
				ins, outs, err := p.ParseFunctionalType()
				if err != nil {
					return err
				}
				st.ResultTypes = outs
				return p.ResolveOperands(ops, ins, &st.Operands)
			},
			ResultNames: func(op *Operation) []string {
				if s, ok := op.Attr("names").(StringAttr); ok {
					return strings.Split(s.Value, ",")
				}
				return nil
			}},
		{Name: "pt.graph", Traits: GraphRegion | NoTerminator | SingleBlock,
			Print: func(p *OpPrinter, op *Operation) {
				p.Print(" ")
				p.PrintRegion(op.Region(0), false, false)
			},
			Parse: func(p *OpParser, st *OperationState) error {
				r := &Region{}
				st.Regions = append(st.Regions, r)
				return p.ParseRegion(r, nil)
			}},
		{Name: "pt.wrap", // a region op whose custom form prints its entry block header
			Print: func(p *OpPrinter, op *Operation) {
				p.PrintOptionalAttrDictWithKeyword(op.Attrs())
				p.Print(" ")
				p.PrintRegion(op.Region(0), true, true)
			},
			Parse: func(p *OpParser, st *OperationState) error {
				if err := p.ParseOptionalAttrDictWithKeyword(st); err != nil {
					return err
				}
				r := &Region{}
				st.Regions = append(st.Regions, r)
				return p.ParseRegion(r, nil)
			}},
		{Name: "pt.panics", // a broken custom printer: the op falls back to the generic form
			Print: func(p *OpPrinter, op *Operation) {
				p.Print(" ")
				p.PrintOperand(op.Operand(5))
			}},
	}}
}

func parseBinary(p *OpParser, st *OperationState) error {
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
	return p.ResolveOperands(ops, []Type{t, t}, &st.Operands)
}

// ptBuiltin is a stand-in for the builtin dialect's module.
func ptBuiltin() *Dialect {
	return &Dialect{Name: "builtin", Ops: []*OpDef{
		{Name: "builtin.module", Traits: IsolatedFromAbove | NoTerminator | SymbolTable | SingleBlock,
			Print: func(p *OpPrinter, op *Operation) {
				if n, ok := op.Attr("sym_name").(StringAttr); ok {
					p.Print(" ")
					p.PrintSymbolName(n.Value)
				}
				p.PrintOptionalAttrDictWithKeyword(op.Attrs(), "sym_name")
				p.Print(" ")
				p.PrintRegion(op.Region(0), false, false)
			}},
	}}
}

func ptCtx() *Context {
	c := NewContext(ptBuiltin(), ptDialect())
	c.AllowUnregistered = true
	return c
}

// irb is a tiny builder DSL for tests: ops appended at the end of a block.
type irb struct {
	ctx *Context
	blk *Block
}

func (b irb) op(name string, operands []*Value, results []Type, attrs ...NamedAttribute) *Operation {
	op := b.ctx.Create(&OperationState{Name: name, Operands: operands, ResultTypes: results, Attrs: attrs})
	if b.blk != nil {
		b.blk.Append(op)
	}
	return op
}

func (b irb) opState(st *OperationState) *Operation {
	op := b.ctx.Create(st)
	if b.blk != nil {
		b.blk.Append(op)
	}
	return op
}

// module returns a module op and a builder for its body.
func (b irb) module(name string) (*Operation, irb) {
	st := &OperationState{Name: "builtin.module", NumRegions: 1}
	if name != "" {
		st.AddAttr("sym_name", Str(name))
	}
	m := b.opState(st)
	body := NewBlock()
	m.Region(0).AppendBlock(body)
	return m, irb{b.ctx, body}
}

// fn returns a pt.func op and a builder for its entry block.
func (b irb) fn(name string, args, results []Type) (*Operation, irb) {
	st := &OperationState{Name: "pt.func", NumRegions: 1}
	st.AddAttr("sym_name", Str(name))
	st.AddAttr("function_type", TypeAttr{FunctionTypeOf(args, results)})
	f := b.opState(st)
	entry := NewBlock(args...)
	f.Region(0).AppendBlock(entry)
	return f, irb{b.ctx, entry}
}

func na(name string, a Attribute) NamedAttribute { return NamedAttribute{name, a} }

func vals(vs ...*Value) []*Value { return vs }
func tys(ts ...Type) []Type      { return ts }

func tensor(elem Type, shape ...int64) *TensorType { return TensorOf(shape, elem) }

type printCase struct {
	name  string
	opts  PrintOptions
	build func(ctx *Context) *Operation
}

// notReparsable lists the print cases whose output is not valid input on
// purpose (null values, malformed dense data).
var notReparsable = map[string]bool{"generic_basic": true, "dense": true}

var printCases = []printCase{
	{"generic_basic", PrintOptions{}, func(ctx *Context) *Operation {
		m, b := irb{ctx: ctx}.module("")
		f32t := tensor(F32(), Dynamic, 16)
		a := b.op("test.source", nil, tys(I32(), f32t, I64()))
		c := b.op("test.one", nil, tys(I32()))
		b.op("test.use", vals(a.Result(0), a.Result(2), c.Result(0)), tys(F32(), F32()),
			na("z", UnitAttr{}), na("a", IntegerAttr{1, I32()}), na("m b", Str("quoted key")))
		st := &OperationState{Name: "test.props", Operands: vals(a.Result(1)), ResultTypes: tys(f32t),
			Props: NewDictAttr([]NamedAttribute{na("kind", Str("p")), na("n", I64Attr(2))})}
		st.AddAttr("later", BoolAttr{true})
		b.opState(st)
		b.op("test.noresult", nil, nil)
		b.op("test.fnresult", nil, tys(FunctionTypeOf(tys(I32()), tys(I32()))))
		b.op("test.nulls", vals(nil), tys(I32()), na("n", nil))
		return m
	}},
	{"generic_form", PrintOptions{Generic: true}, func(ctx *Context) *Operation {
		return buildFunctions(ctx)
	}},
	{"custom_form", PrintOptions{}, func(ctx *Context) *Operation {
		return buildFunctions(ctx)
	}},
	{"regions_blocks", PrintOptions{}, func(ctx *Context) *Operation {
		m, b := irb{ctx: ctx}.module("")
		// An unregistered op with two regions: a CFG with arguments and
		// successors, and an empty region.
		op := b.opState(&OperationState{Name: "test.cfg", ResultTypes: tys(I32()), NumRegions: 3})
		r := op.Region(0)
		entry, bb1, bb2, bb3 := NewBlock(I32(), I1()), NewBlock(I32()), NewBlock(), NewBlock(I32(), F32())
		for _, blk := range []*Block{entry, bb1, bb2, bb3} {
			r.AppendBlock(blk)
		}
		e := irb{ctx, entry}
		x := e.op("test.x", vals(entry.Arg(0)), tys(I32()))
		e.opState(&OperationState{Name: "test.cond_br", Operands: vals(entry.Arg(1), x.Result(0)),
			Successors: []*Block{bb1, bb2}})
		b1 := irb{ctx, bb1}
		y := b1.op("test.y", vals(bb1.Arg(0)), tys(I32(), F32()))
		b1.opState(&OperationState{Name: "test.br", Operands: vals(y.Result(0), y.Result(1)), Successors: []*Block{bb3}})
		irb{ctx, bb2}.opState(&OperationState{Name: "test.br", Operands: vals(x.Result(0), x.Result(0)), Successors: []*Block{bb1}})
		irb{ctx, bb3}.op("test.yield", vals(bb3.Arg(0)), nil)
		// Region 1: an empty entry block (generic form prints its header).
		op.Region(1).AppendBlock(NewBlock())
		// Region 2 stays empty (no blocks).
		// A region whose entry block is a branch target gets its label.
		loop := b.opState(&OperationState{Name: "test.loop", NumRegions: 1})
		lb := NewBlock()
		loop.Region(0).AppendBlock(lb)
		irb{ctx, lb}.opState(&OperationState{Name: "test.br", Successors: []*Block{lb}})
		// Custom-form branches.
		f, fb := b.fn("branches", tys(I1(), I32()), tys(I32()))
		_ = f
		fr := fb.blk.Parent()
		t1, t2 := NewBlock(I32()), NewBlock(I32())
		fr.AppendBlock(t1)
		fr.AppendBlock(t2)
		fb.opState(&OperationState{Name: "pt.cond_br", Operands: vals(fb.blk.Arg(0)), Successors: []*Block{t1, t2}})
		irb{ctx, t1}.opState(&OperationState{Name: "pt.br", Operands: vals(fb.blk.Arg(1)), Successors: []*Block{t2}})
		irb{ctx, t2}.op("pt.return", vals(t2.Arg(0)), nil)
		// A custom form that prints its entry block header itself.
		w := b.opState(&OperationState{Name: "pt.wrap", NumRegions: 1, Attrs: []NamedAttribute{na("tag", Str("w"))}})
		wb := NewBlock(F32())
		w.Region(0).AppendBlock(wb)
		irb{ctx, wb}.op("test.use", vals(wb.Arg(0)), nil)
		w2 := b.opState(&OperationState{Name: "pt.wrap", NumRegions: 1})
		w2.Region(0).AppendBlock(NewBlock())
		return m
	}},
	{"nested_modules", PrintOptions{}, func(ctx *Context) *Operation {
		m, b := irb{ctx: ctx}.module("")
		_, inner := b.module("inner")
		_, innermost := inner.module("")
		innermost.op("test.leaf", nil, tys(I32()))
		_, q := b.module("with space")
		q.blk.ParentOp().SetAttr("test.attr", IntegerAttr{7, IntegerTypeOf(8, Unsigned)})
		q.op("test.leaf", nil, nil)
		b.op("test.after", nil, tys(I32()))
		return m
	}},
	{"nested_modules_generic", PrintOptions{Generic: true}, func(ctx *Context) *Operation {
		m, b := irb{ctx: ctx}.module("")
		_, inner := b.module("inner")
		inner.op("test.leaf", nil, tys(I32()))
		return m
	}},
	{"attributes", PrintOptions{}, func(ctx *Context) *Operation {
		m, b := irb{ctx: ctx}.module("")
		b.op("test.ints", nil, nil,
			na("i1", IntegerAttr{1, I1()}), na("i8", IntegerAttr{-128, I8()}), na("i16", IntegerAttr{-3, I16()}),
			na("i32", IntegerAttr{2147483647, I32()}), na("i64", IntegerAttr{math.MinInt64, I64()}),
			na("si32", IntegerAttr{-5, IntegerTypeOf(32, Signed)}), na("ui8", IntegerAttr{255, IntegerTypeOf(8, Unsigned)}),
			na("ui64", IntegerAttr{-1, IntegerTypeOf(64, Unsigned)}), na("idx", IntegerAttr{42, Index()}),
			na("bool_t", BoolAttr{true}), na("bool_f", BoolAttr{false}))
		b.op("test.floats", nil, nil,
			na("f32", FloatAttr{1, F32()}), na("f64", FloatAttr{0.1, F64()}), na("third", FloatAttr{1.0 / 3, F64()}),
			na("third32", FloatAttr{float64(float32(1.0 / 3)), F32()}), na("big", FloatAttr{123456789, F64()}),
			na("tiny", FloatAttr{5e-324, F64()}), na("negzero", FloatAttr{math.Copysign(0, -1), F32()}),
			na("f16", FloatAttr{0.1, F16()}), na("bf16", FloatAttr{-2.5, BF16()}),
			na("nan32", FloatAttr{math.NaN(), F32()}), na("inf64", FloatAttr{math.Inf(1), F64()}),
			na("ninf32", FloatAttr{math.Inf(-1), F32()}), na("nan16", FloatAttr{math.NaN(), F16()}),
			na("inf_bf16", FloatAttr{math.Inf(1), BF16()}), na("max32", FloatAttr{math.MaxFloat32, F32()}),
			na("e100", FloatAttr{1e100, F64()}))
		b.op("test.strings", nil, nil,
			na("plain", Str("hello")), na("escapes", Str("q\"b\\n\nt\tz\x00\xff é")),
			na("typed", StringAttr{"s", OpaqueTypeOf("tfg", "string", "")}), na("empty", Str("")))
		b.op("test.compound", nil, nil,
			na("array", ArrayAttr{[]Attribute{I64Attr(1), Str("two"), ArrayAttr{}, UnitAttr{}}}),
			na("dict", NewDictAttr([]NamedAttribute{na("z", I64Attr(1)), na("a", UnitAttr{}), na("0bad", Str("x"))})),
			na("empty_dict", DictAttr{}),
			na("type", TypeAttr{tensor(F32(), 2, Dynamic)}), na("fn_type", TypeAttr{FunctionTypeOf(tys(I32(), F32()), tys(I64()))}),
			na("sym", SymbolRefAttr{Root: "f"}), na("nested_sym", SymbolRefAttr{Root: "m", Nested: []string{"f", "with space"}}),
			na("quoted_sym", SymbolRefAttr{Root: "0x"}), na("empty_sym", SymbolRefAttr{Root: ""}),
			na("opaque", OpaqueAttr{Dialect: "tfg", Name: "shape", Params: "2x?"}),
			na("opaque_bare", OpaqueAttr{Dialect: "d", Name: "a"}),
			na("opaque_noname", OpaqueAttr{Dialect: "d", Params: "\"x\""}),
			na("unit", UnitAttr{}))
		return m
	}},
	{"types", PrintOptions{}, func(ctx *Context) *Operation {
		m, b := irb{ctx: ctx}.module("")
		b.op("test.types", nil, tys(I1(), I8(), I16(), I32(), I64(), IntegerTypeOf(3, Signed), IntegerTypeOf(64, Unsigned),
			F16(), BF16(), F32(), F64(), Index(), None(),
			tensor(F32()), tensor(I64(), 2, Dynamic, 3), tensor(I32(), 0), UnrankedTensorOf(F16()),
			FunctionTypeOf(nil, nil), FunctionTypeOf(tys(I32()), tys(FunctionTypeOf(nil, tys(I1())))),
			OpaqueTypeOf("tfg", "control", ""), OpaqueTypeOf("tfg", "resource", "tensor<f32>"), OpaqueTypeOf("d", "", "\"x\""),
			tensor(OpaqueTypeOf("tfg", "string", ""), 2)))
		return m
	}},
	{"dense", PrintOptions{}, func(ctx *Context) *Operation {
		m, b := irb{ctx: ctx}.module("")
		b.op("test.dense_ints", nil, nil,
			na("i1", DenseInts(tensor(I1(), 2, 2), []int64{1, 0, 0, 1})),
			na("i1_splat", DenseInts(tensor(I1(), 3), []int64{1})),
			na("i8", DenseInts(tensor(I8(), 3), []int64{-128, 0, 127})),
			na("i16", DenseInts(tensor(I16(), 2), []int64{-1, 300})),
			na("i32", DenseInts(tensor(I32(), 2, 3), []int64{1, 2, 3, 4, 5, 6})),
			na("i64", DenseInts(tensor(I64(), 2, 1, 2), []int64{math.MinInt64, math.MaxInt64, 0, -7})),
			na("ui8", DenseInts(tensor(IntegerTypeOf(8, Unsigned), 2), []int64{255, 1})),
			na("ui64", DenseInts(tensor(IntegerTypeOf(64, Unsigned), 1), []int64{-1})),
			na("si16", DenseInts(tensor(IntegerTypeOf(16, Signed), 2), []int64{-2, 2})),
			na("index", DenseInts(tensor(Index(), 3), []int64{0, 1, -1})),
			na("scalar", DenseInts(tensor(I32()), []int64{9})),
			na("splat", DenseInts(tensor(I32(), 4, 4), []int64{7})),
			na("empty", DenseInts(tensor(I32(), 0), nil)),
			na("empty2", DenseInts(tensor(I64(), 2, 0), nil)))
		b.op("test.dense_floats", nil, nil,
			na("f32", DenseFloats(tensor(F32(), 2, 2), []float64{1, -0.5, 0.1, 1e-30})),
			na("f32_splat", DenseFloats(tensor(F32(), 4), []float64{1})),
			na("f64", DenseFloats(tensor(F64(), 3), []float64{1.0 / 3, math.Inf(-1), math.NaN()})),
			na("f16", DenseFloats(tensor(F16(), 2), []float64{0.1, 65504})),
			na("bf16", DenseFloats(tensor(BF16(), 2), []float64{1, -3})),
			na("scalar", DenseFloats(tensor(F64()), []float64{2.5})))
		b.op("test.dense_strings", nil, nil,
			na("s", DenseStrings(tensor(OpaqueTypeOf("tfg", "string", ""), 2, 2), []string{"a", "b\"", "", "\x01"})),
			na("splat", DenseStrings(tensor(OpaqueTypeOf("tfg", "string", ""), 3), []string{"same"})),
			na("scalar", DenseStrings(tensor(OpaqueTypeOf("tfg", "string", "")), []string{"one"})),
			na("empty", DenseStrings(tensor(OpaqueTypeOf("tfg", "string", ""), 0), nil)))
		// Above the hex limit: raw little-endian data.
		ints := make([]int64, 1025)
		for i := range ints {
			ints[i] = int64(i)
		}
		floats := make([]float64, 1030)
		for i := range floats {
			floats[i] = float64(i) / 4
		}
		bools := make([]int64, 1100)
		for i := range bools {
			bools[i] = int64(i % 3 & 1)
		}
		b.op("test.dense_hex", nil, nil,
			na("i16", DenseInts(tensor(I16(), 1025), ints)),
			na("f32", DenseFloats(tensor(F32(), 2, 515), floats)),
			na("i1_never_hex", DenseInts(tensor(I1(), 1100), bools)),
			na("at_limit", DenseInts(tensor(I8(), 1024), ints[:1024])),
			na("big_splat", DenseFloats(tensor(F32(), 4096), []float64{0.5})))
		// Malformed data must not panic.
		b.op("test.dense_bad", nil, nil,
			na("short", &DenseElementsAttr{Type: tensor(I32(), 4), Data: []byte{1, 0, 0, 0}}),
			na("short_strings", &DenseElementsAttr{Type: tensor(OpaqueTypeOf("tfg", "string", ""), 3), Strings: []string{"x"}}))
		return m
	}},
	{"name_hints", PrintOptions{}, func(ctx *Context) *Operation {
		m, b := irb{ctx: ctx}.module("")
		c1 := b.op("pt.const", nil, tys(I32()), na("value", IntegerAttr{1, I32()}))
		c2 := b.op("pt.const", nil, tys(I32()), na("value", IntegerAttr{2, I32()}))
		c3 := b.op("pt.const", nil, tys(F32()), na("value", FloatAttr{1, F32()}))
		n1 := b.op("pt.node", vals(c1.Result(0)), tys(I32(), I32(), OpaqueTypeOf("tfg", "control", "")))
		n2 := b.op("pt.node", vals(n1.Result(1), n1.Result(2)), tys(F32(), OpaqueTypeOf("tfg", "control", "")))
		n3 := b.op("pt.node", vals(n2.Result(2-1)), tys(OpaqueTypeOf("tfg", "control", "")))
		b.op("pt.add", vals(c1.Result(0), c2.Result(0)), tys(I32()))
		named := b.op("pt.named", vals(c3.Result(0), n2.Result(0)), tys(F32(), F32(), I32(), OpaqueTypeOf("tfg", "control", "")),
			na("names", Str("out,,9lives,ctl")))
		b.op("pt.named", vals(named.Result(0), named.Result(1), named.Result(2), named.Result(3), n3.Result(0)), tys(I32()),
			na("names", Str("weird name!")))
		b.op("pt.named", nil, tys(I32()), na("names", Str("arg0")))
		// A nested region sees the names above it: hints are uniqued against them.
		wrap := b.opState(&OperationState{Name: "test.region", NumRegions: 2})
		for i := 0; i < 2; i++ {
			rb := NewBlock(I32())
			wrap.Region(i).AppendBlock(rb)
			irb{ctx, rb}.op("pt.const", nil, tys(I32()), na("value", IntegerAttr{3, I32()}))
			irb{ctx, rb}.op("pt.node", nil, tys(OpaqueTypeOf("tfg", "control", "")))
		}
		return m
	}},
	{"name_hints_generic", PrintOptions{Generic: true}, func(ctx *Context) *Operation {
		m, b := irb{ctx: ctx}.module("")
		c1 := b.op("pt.const", nil, tys(I32()), na("value", IntegerAttr{1, I32()}))
		b.op("pt.node", vals(c1.Result(0)), tys(I32(), I32(), OpaqueTypeOf("tfg", "control", "")))
		return m
	}},
	{"isolated_numbering", PrintOptions{}, func(ctx *Context) *Operation {
		m, b := irb{ctx: ctx}.module("")
		top := b.op("test.top", nil, tys(I32()))
		// Values in nested non-isolated regions are numbered after the
		// values of the enclosing region; siblings restart from the same
		// counter; entry block arguments are %argN.
		outer := b.opState(&OperationState{Name: "test.outer", Operands: vals(top.Result(0)), ResultTypes: tys(I32()), NumRegions: 2})
		for i := 0; i < 2; i++ {
			rb := NewBlock(I32())
			outer.Region(i).AppendBlock(rb)
			x := irb{ctx, rb}.op("test.x", vals(rb.Arg(0), top.Result(0)), tys(I32()))
			inner := irb{ctx, rb}.opState(&OperationState{Name: "test.inner", NumRegions: 1})
			ib := NewBlock(I64())
			inner.Region(0).AppendBlock(ib)
			irb{ctx, ib}.op("test.y", vals(ib.Arg(0), x.Result(0)), tys(I32()))
			irb{ctx, rb}.op("test.z", vals(x.Result(0)), tys(I32()))
		}
		b.op("test.after", vals(outer.Result(0)), tys(I32()))
		// An isolated op restarts at %0 and %arg0, even deep inside.
		f, fb := b.fn("f", tys(I32(), I32()), tys(I32()))
		s := fb.op("pt.add", vals(fb.blk.Arg(0), fb.blk.Arg(1)), tys(I32()))
		g, gb := fb.fn("nested", tys(F32()), nil)
		_ = g
		gb.op("test.inside", vals(gb.blk.Arg(0)), tys(F32()))
		gb.op("pt.return", nil, nil)
		fb.op("pt.return", vals(s.Result(0)), nil)
		_ = f
		return m
	}},
	{"graph_region", PrintOptions{}, func(ctx *Context) *Operation {
		m, b := irb{ctx: ctx}.module("")
		gop := b.opState(&OperationState{Name: "pt.graph", NumRegions: 1})
		gb := NewBlock()
		gop.Region(0).AppendBlock(gb)
		g := irb{ctx, gb}
		// Forward references: the use comes before the definition.
		use := g.op("pt.node", nil, tys(I32(), OpaqueTypeOf("tfg", "control", "")))
		def := g.op("pt.node", nil, tys(I32(), OpaqueTypeOf("tfg", "control", "")))
		use.SetOperands(vals(def.Result(0), def.Result(1)))
		g.op("test.cycle", vals(use.Result(0)), nil)
		return m
	}},
	{"debuginfo", PrintOptions{DebugInfo: true}, func(ctx *Context) *Operation {
		m, b := irb{ctx: ctx}.module("")
		m.SetLoc(FileLineColLoc{"model.mlir", 1, 1})
		a := b.opState(&OperationState{Name: "test.a", ResultTypes: tys(I32()), Loc: NameLoc{Name: "node/a"}})
		b.opState(&OperationState{Name: "test.b", Operands: vals(a.Result(0)), Loc: NameLoc{Name: "n", Child: FileLineColLoc{"f.py", 3, 4}}})
		b.opState(&OperationState{Name: "test.c", Loc: NameLoc{Name: "n", Child: UnknownLoc{}}})
		b.opState(&OperationState{Name: "test.d", Loc: FusedLoc{Locs: []Location{NameLoc{Name: "x"}, FileLineColLoc{"g.mlir", 10, 2}}}})
		b.opState(&OperationState{Name: "test.e", Loc: FusedLoc{Metadata: Str("CSE"), Locs: []Location{UnknownLoc{}, NameLoc{Name: "y"}}}})
		b.opState(&OperationState{Name: "test.f"}) // unknown
		b.opState(&OperationState{Name: "test.g", Loc: FileLineColLoc{"dir/quote\"d é.mlir", 7, 0}})
		r := b.opState(&OperationState{Name: "test.region", NumRegions: 1, Loc: NameLoc{Name: "r"}})
		r.Region(0).AppendBlock(NewBlock())
		return m
	}},
	{"debuginfo_block_args", PrintOptions{DebugInfo: true}, func(ctx *Context) *Operation {
		m, b := irb{ctx: ctx}.module("")
		m.SetLoc(FileLineColLoc{"model.mlir", 1, 1})
		f, fb := b.fn("f", tys(I32(), F32()), nil)
		f.SetLoc(NameLoc{Name: "fn"})
		fb.blk.Arg(0).SetLoc(FileLineColLoc{"f.mlir", 2, 9})
		fb.blk.Arg(1).SetLoc(NameLoc{Name: "arg"})
		second := NewBlock(I64())
		second.Arg(0).SetLoc(FileLineColLoc{"f.mlir", 5, 1})
		fb.blk.Parent().AppendBlock(second)
		fb.opState(&OperationState{Name: "pt.br", Successors: []*Block{second}, Loc: FileLineColLoc{"f.mlir", 3, 3}})
		irb{ctx, second}.opState(&OperationState{Name: "pt.return", Loc: FileLineColLoc{"f.mlir", 6, 3}})
		r := b.opState(&OperationState{Name: "test.region", NumRegions: 1, Loc: NameLoc{Name: "r"}})
		rb := NewBlock(I1())
		r.Region(0).AppendBlock(rb)
		return m
	}},
	{"custom_printer_panics", PrintOptions{}, func(ctx *Context) *Operation {
		m, b := irb{ctx: ctx}.module("")
		a := b.op("test.a", nil, tys(I32()))
		b.op("pt.panics", vals(a.Result(0)), tys(I32()))
		return m
	}},
	{"top_level_generic_op", PrintOptions{}, func(ctx *Context) *Operation {
		op := irb{ctx: ctx}.opState(&OperationState{Name: "test.top", ResultTypes: tys(I32(), I32()), NumRegions: 1})
		blk := NewBlock(I32())
		op.Region(0).AppendBlock(blk)
		irb{ctx, blk}.op("test.in", vals(blk.Arg(0)), tys(I32()))
		return op
	}},
}

// buildFunctions builds a module with pt.func ops using custom forms.
func buildFunctions(ctx *Context) *Operation {
	m, b := irb{ctx: ctx}.module("")
	f, fb := b.fn("add", tys(I32(), I32()), tys(I32()))
	f.SetAttr("pt.inline", UnitAttr{})
	c := fb.op("pt.const", nil, tys(I32()), na("value", IntegerAttr{3, I32()}))
	s := fb.op("pt.add", vals(fb.blk.Arg(0), fb.blk.Arg(1)), tys(I32()))
	t := fb.op("pt.add", vals(s.Result(0), c.Result(0)), tys(I32()), na("overflow", Str("nsw")))
	fb.op("pt.return", vals(t.Result(0)), nil)
	_, gb := b.fn("with space", nil, nil)
	gb.op("pt.const", nil, tys(F32()), na("value", FloatAttr{0.5, F32()}))
	gb.op("pt.return", nil, nil)
	return m
}

func TestPrintGolden(t *testing.T) {
	for _, tc := range printCases {
		t.Run(tc.name, func(t *testing.T) {
			op := tc.build(ptCtx())
			var buf bytes.Buffer
			if err := Print(&buf, op, tc.opts); err != nil {
				t.Fatal(err)
			}
			got := buf.String()
			if s := OpString(op, tc.opts); s+"\n" != got {
				t.Errorf("OpString differs from Print:\n%s\nvs\n%s", s, got)
			}
			// Deterministic: printing twice gives the same text.
			if again := OpString(op, tc.opts); again+"\n" != got {
				t.Errorf("second print differs")
			}
			checkGolden(t, "print", tc.name, got)
			if !notReparsable[tc.name] {
				checkReparse(t, tc.name, got, tc.opts, op.Name() != "builtin.module")
			}
		})
	}
}

func TestAttrAndLocString(t *testing.T) {
	cases := []struct {
		got, want string
	}{
		{AttrString(IntegerAttr{5, I64()}), "5 : i64"},
		{AttrString(IntegerAttr{-1, IntegerTypeOf(64, Unsigned)}), "18446744073709551615 : ui64"},
		{AttrString(FloatAttr{1, F32()}), "1.000000e+00 : f32"},
		{AttrString(FloatAttr{math.NaN(), F32()}), "0x7FC00000 : f32"},
		{AttrString(FloatAttr{math.Inf(-1), F64()}), "0xFFF0000000000000 : f64"},
		{AttrString(FloatAttr{1.0 / 3, F64()}), "3.333333333333333e-01 : f64"},
		{AttrString(DictAttr{}), "{}"},
		{AttrString(UnitAttr{}), "unit"},
		{AttrString(nil), "<<NULL ATTRIBUTE>>"},
		{AttrString(SymbolRefAttr{Root: "a.b"}), "@a.b"},
		{AttrString(SymbolRefAttr{Root: "a-b"}), `@"a-b"`},
		{AttrString(DenseFloats(tensor(F32(), 2), []float64{1, 2})), "dense<[1.000000e+00, 2.000000e+00]> : tensor<2xf32>"},
		{LocString(nil), "loc(unknown)"},
		{LocString(FileLineColLoc{"a.mlir", 1, 2}), `loc("a.mlir":1:2)`},
		{LocString(NameLoc{Name: "n", Child: NameLoc{Name: "m"}}), `loc("n"("m"))`},
		{TypeString(nil), "<<NULL TYPE>>"},
		{TypeString(tensor(F32(), Dynamic)), "tensor<?xf32>"},
	}
	for _, c := range cases {
		if c.got != c.want {
			t.Errorf("got %s, want %s", c.got, c.want)
		}
	}
}

// Every float bit pattern class prints to text that reads back to the same
// bits (checked with strconv, as any parser reads decimal floats).
func TestFloatsReadBack(t *testing.T) {
	vals64 := []float64{0, 1, -1, 0.1, 1.0 / 3, 2.0 / 3, 1e300, 5e-324, 2.2250738585072014e-308, math.MaxFloat64,
		123456789, 1234567.0, 9007199254740993, 3.14159265358979, math.Copysign(0, -1)}
	for _, v := range vals64 {
		for _, ft := range []Type{F64(), F32(), F16(), BF16()} {
			s := strings.TrimSuffix(AttrString(FloatAttr{v, ft}), " : "+ft.String())
			if strings.HasPrefix(s, "0x") {
				continue // overflowed to infinity in a narrower type
			}
			if !strings.ContainsAny(s, ".e") {
				t.Errorf("%v as %s: %q has neither '.' nor 'e'", v, ft, s)
			}
			// Read back and print again: a fixed point.
			y, err := strconv.ParseFloat(s, 64)
			if err != nil {
				t.Errorf("%v as %s: %q does not parse: %v", v, ft, s, err)
				continue
			}
			var want, got [8]byte
			PutFloat(want[:], ft.(*FloatType), v)
			PutFloat(got[:], ft.(*FloatType), y)
			if got != want {
				t.Errorf("%v as %s: %q reads back as %v, other bits", v, ft, s, y)
			}
			if s2 := strings.TrimSuffix(AttrString(FloatAttr{y, ft}), " : "+ft.String()); s2 != s {
				t.Errorf("%v as %s: %q reprints as %q", v, ft, s, s2)
			}
		}
	}
}

// checkReparse parses text (printed with opts) and checks that printing it
// again gives the same text, in both forms: text is a fixed point, and the
// generic form of the parsed IR parses back to the same text too.
func checkReparse(t *testing.T, name, text string, opts PrintOptions, unwrap bool) {
	t.Helper()
	parse := func(src string) *Operation {
		t.Helper()
		op, err := Parse(ptCtx(), name+".mlir", []byte(src))
		if err != nil {
			t.Fatalf("reparse: %v\n%s", err, src)
		}
		if unwrap { // the parser wrapped a non-module top-level op in a module
			op = op.Region(0).Front().First()
		}
		return op
	}
	print := func(op *Operation, o PrintOptions) string {
		var b bytes.Buffer
		if err := Print(&b, op, o); err != nil {
			t.Fatal(err)
		}
		return b.String()
	}
	op := parse(text)
	if again := print(op, opts); again != text {
		t.Fatalf("print(parse(text)) differs:\n%s", lineDiff(text, again))
	}
	gen := opts
	gen.Generic = true
	g := print(op, gen)
	op2 := parse(g)
	if g2 := print(op2, gen); g2 != g {
		t.Fatalf("generic form is not a fixed point:\n%s", lineDiff(g, g2))
	}
	if back := print(op2, opts); back != text {
		t.Fatalf("generic form parses back to different text:\n%s", lineDiff(text, back))
	}
}

// writeSizes records the size of each Write.
type writeSizes struct {
	total, largest int
}

func (w *writeSizes) Write(b []byte) (int, error) {
	w.total += len(b)
	w.largest = max(w.largest, len(b))
	return len(b), nil
}

// Regions nested 20,000 deep print as text linear in the depth (the
// indentation stops growing at maxIndent), written in pieces of about
// flushSize however deep the nesting: the printer holds no more than that
// (it built the whole 800 MB text in memory before).
func TestPrintDeepNestingStreams(t *testing.T) {
	saved := MaxNesting
	defer func() { MaxNesting = saved }()
	MaxNesting = 30000
	const depth = 20000
	src := strings.Repeat(`"t.a"() ({`, depth) + strings.Repeat(`}) : () -> ()`, depth)
	ctx := NewContext()
	ctx.AllowUnregistered = true
	m, err := Parse(ctx, "deep.mlir", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	var w writeSizes
	if err := Print(&w, m, PrintOptions{}); err != nil {
		t.Fatal(err)
	}
	if w.total > depth*(2*maxIndent+40) {
		t.Errorf("%d levels printed %d bytes, want at most %d", depth, w.total, depth*(2*maxIndent+40))
	}
	if w.largest > 2*flushSize {
		t.Errorf("a write of %d bytes: the printer buffered more than %d", w.largest, 2*flushSize)
	}
	var b bytes.Buffer
	if err := Print(&b, m, PrintOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := Parse(ctx, "deep.mlir", b.Bytes()); err != nil {
		t.Errorf("the printed text does not parse back: %v", err)
	}
}
