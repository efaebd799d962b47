package textir

import (
	"errors"
	"strings"
	"testing"
)

// The test dialect "v": small ops covering every rule of the verifier.
var intOnly = TypeConstraint{"integer", func(t Type) bool { _, ok := t.(*IntType); return ok }}

func testVerifyDialect() *Dialect {
	return &Dialect{Name: "v", Ops: []*OpDef{
		{Name: "v.const", Results: Exactly(1), Traits: Pure | ConstantLike,
			Attrs: []AttrSpec{{Name: "value", Kind: IntegerAttrKind}}},
		{Name: "v.add", Operands: Exactly(2), Results: Exactly(1), Traits: Pure,
			OperandTypes: []TypeConstraint{intOnly}, ResultTypes: []TypeConstraint{intOnly}},
		{Name: "v.use", Operands: AtLeast(0)},
		{Name: "v.opt", Operands: Between(1, 2), Attrs: []AttrSpec{{Name: "o", Kind: StringAttrKind, Optional: true}}},
		{Name: "v.ret", Operands: AtLeast(0), Traits: Terminator | ReturnLike},
		{Name: "v.br", Operands: AtLeast(0), Successors: Exactly(1), Traits: Terminator},
		{Name: "v.condbr", Operands: Exactly(1), Successors: Exactly(2), Traits: Terminator},
		{Name: "v.func", Regions: Exactly(1), Traits: IsolatedFromAbove | Symbol,
			Attrs: []AttrSpec{{Name: "sym_name", Kind: StringAttrKind}}},
		{Name: "v.module", Regions: Exactly(1), Traits: IsolatedFromAbove | SymbolTable | NoTerminator | SingleBlock},
		{Name: "v.graph", Results: AtLeast(0), Regions: Exactly(1), Traits: GraphRegion | NoTerminator},
		{Name: "v.scope", Operands: AtLeast(0), Results: AtLeast(0), Regions: Exactly(1)},
		{Name: "v.single", Regions: Exactly(1), Traits: SingleBlock},
		{Name: "v.hook", Operands: AtLeast(0), Verify: func(op *Operation) error {
			if op.NumOperands() > 0 {
				return op.Errorf("hook rejects operands")
			}
			return nil
		}},
		{Name: "v.rhook", Regions: Exactly(1), VerifyRegions: func(op *Operation) error {
			return errors.New("plain error from VerifyRegions")
		}},
	}}
}

// vb builds test IR; each created op gets the next line of "v.mlir".
type vb struct {
	ctx  *Context
	line int
}

func newVB() *vb { return &vb{ctx: NewContext(testVerifyDialect())} }

type opt func(*OperationState)

func attr(name string, a Attribute) opt {
	return func(s *OperationState) { s.AddAttr(name, a) }
}
func props(a Attribute) opt                           { return func(s *OperationState) { s.Props = a } }
func regions(n int) opt                               { return func(s *OperationState) { s.NumRegions = n } }
func succ(bs ...*Block) opt                           { return func(s *OperationState) { s.Successors = bs } }
func results(ts ...Type) opt                          { return func(s *OperationState) { s.ResultTypes = ts } }
func operands(vs ...*Value) opt                       { return func(s *OperationState) { s.Operands = vs } }
func nameLoc(n string) opt                            { return func(s *OperationState) { s.Loc = NameLoc{Name: n, Child: s.Loc} } }
func (b *vb) loc() Location                           { b.line++; return FileLineColLoc{File: "v.mlir", Line: b.line, Col: 3} }
func (b *vb) in(blk *Block, op *Operation) *Operation { blk.Append(op); return op }

func (b *vb) mk(name string, opts ...opt) *Operation {
	st := &OperationState{Name: name, Loc: b.loc()}
	for _, o := range opts {
		o(st)
	}
	return b.ctx.Create(st)
}

// add appends an op to blk.
func (b *vb) add(blk *Block, name string, opts ...opt) *Operation {
	return b.in(blk, b.mk(name, opts...))
}

func (b *vb) cst(blk *Block, v int64) *Value {
	return b.add(blk, "v.const", results(I32()), attr("value", IntegerAttr{v, I32()})).Result(0)
}

// fn returns a v.module holding a v.func @f whose body is the returned block.
func (b *vb) fn(argTypes ...Type) (*Operation, *Operation, *Block) {
	m := b.mk("v.module", regions(1))
	mb := NewBlock()
	m.Region(0).AppendBlock(mb)
	f := b.add(mb, "v.func", regions(1), attr("sym_name", Str("f")))
	body := NewBlock(argTypes...)
	f.Region(0).AppendBlock(body)
	return m, f, body
}

func TestVerify(t *testing.T) {
	tests := []struct {
		name  string
		build func(b *vb) *Operation
		want  string // "" for valid IR; else the whole diagnostic
	}{
		{"valid", func(b *vb) *Operation {
			m, _, body := b.fn(I32())
			c := b.cst(body, 1)
			s := b.add(body, "v.add", operands(c, body.Arg(0)), results(I32()))
			b.add(body, "v.ret", operands(s.Result(0)))
			return m
		}, ""},
		{"unregistered", func(b *vb) *Operation {
			m, _, body := b.fn()
			b.add(body, "x.y")
			b.add(body, "v.ret")
			return m
		}, "v.mlir:3:3: error: 'x.y' op is unregistered (use --allow-unregistered-dialect)"},
		{"unregistered with node name", func(b *vb) *Operation {
			return b.mk("x.y", nameLoc("model/dense/MatMul"))
		}, "v.mlir:1:3: error: 'x.y' op (node \"model/dense/MatMul\") is unregistered (use --allow-unregistered-dialect)"},
		{"too many operands", func(b *vb) *Operation {
			m, _, body := b.fn(I32())
			a := body.Arg(0)
			b.add(body, "v.add", operands(a, a, a), results(I32()))
			b.add(body, "v.ret")
			return m
		}, "v.mlir:3:3: error: 'v.add' op expected 2 operands, but found 3"},
		{"variadic operands", func(b *vb) *Operation {
			m, _, body := b.fn()
			b.add(body, "v.opt")
			b.add(body, "v.ret")
			return m
		}, "v.mlir:3:3: error: 'v.opt' op expected between 1 and 2 operands, but found 0"},
		{"missing result", func(b *vb) *Operation {
			m, _, body := b.fn()
			b.add(body, "v.const", attr("value", I64Attr(1)))
			b.add(body, "v.ret")
			return m
		}, "v.mlir:3:3: error: 'v.const' op expected 1 result, but found 0"},
		{"region count", func(b *vb) *Operation {
			return b.mk("v.module")
		}, "v.mlir:1:3: error: 'v.module' op expected 1 region, but found 0"},
		{"successor count", func(b *vb) *Operation {
			m, _, body := b.fn()
			b.add(body, "v.br")
			return m
		}, "v.mlir:3:3: error: 'v.br' op expected 1 successor, but found 0"},
		{"operand type", func(b *vb) *Operation {
			m, _, body := b.fn(I32(), F32())
			b.add(body, "v.add", operands(body.Arg(0), body.Arg(1)), results(I32()))
			b.add(body, "v.ret")
			return m
		}, "v.mlir:3:3: error: 'v.add' op operand #1 must be integer, but got 'f32'"},
		{"result type", func(b *vb) *Operation {
			m, _, body := b.fn(I32())
			b.add(body, "v.add", operands(body.Arg(0), body.Arg(0)), results(Index()))
			b.add(body, "v.ret")
			return m
		}, "v.mlir:3:3: error: 'v.add' op result #0 must be integer, but got 'index'"},
		{"missing attribute", func(b *vb) *Operation {
			m, _, body := b.fn()
			b.add(body, "v.const", results(I32()))
			b.add(body, "v.ret")
			return m
		}, "v.mlir:3:3: error: 'v.const' op requires attribute 'value'"},
		{"attribute kind", func(b *vb) *Operation {
			m, _, body := b.fn()
			b.add(body, "v.const", results(I32()), attr("value", Str("x")))
			b.add(body, "v.ret")
			return m
		}, "v.mlir:3:3: error: 'v.const' op attribute 'value' failed to satisfy constraint: integer attribute"},
		{"optional attribute kind", func(b *vb) *Operation {
			m, _, body := b.fn(I32())
			b.add(body, "v.opt", operands(body.Arg(0)), attr("o", I64Attr(1)))
			b.add(body, "v.ret")
			return m
		}, "v.mlir:3:3: error: 'v.opt' op attribute 'o' failed to satisfy constraint: string attribute"},
		{"attribute in properties", func(b *vb) *Operation {
			m, _, body := b.fn()
			b.add(body, "v.const", results(I32()), props(NewDictAttr([]NamedAttribute{{"value", I64Attr(3)}})))
			b.add(body, "v.ret")
			return m
		}, ""},
		{"properties win over attributes", func(b *vb) *Operation {
			m, _, body := b.fn()
			b.add(body, "v.const", results(I32()), props(NewDictAttr([]NamedAttribute{{"value", Str("p")}})),
				attr("value", I64Attr(3)))
			b.add(body, "v.ret")
			return m
		}, "v.mlir:3:3: error: 'v.const' op attribute 'value' failed to satisfy constraint: integer attribute"},
		{"terminator not last", func(b *vb) *Operation {
			m, _, body := b.fn()
			b.add(body, "v.ret")
			b.add(body, "v.ret")
			return m
		}, "v.mlir:3:3: error: 'v.ret' op must be the last operation in the parent block"},
		{"block without terminator", func(b *vb) *Operation {
			m, _, body := b.fn()
			b.add(body, "v.use")
			return m
		}, "v.mlir:3:3: error: 'v.use' op block with no terminator, has 'v.use' as its last operation"},
		{"unregistered last op accepted", func(b *vb) *Operation {
			b.ctx.AllowUnregistered = true
			m, _, body := b.fn()
			b.add(body, "x.maybe_terminator")
			return m
		}, ""},
		{"empty block", func(b *vb) *Operation {
			m, _, _ := b.fn()
			return m
		}, "v.mlir:2:3: error: 'v.func' op empty block: expect at least a terminator (region #0, block #0)"},
		{"empty region is fine", func(b *vb) *Operation {
			m := b.mk("v.module", regions(1))
			mb := NewBlock()
			m.Region(0).AppendBlock(mb)
			b.add(mb, "v.func", regions(1), attr("sym_name", Str("decl")))
			return m
		}, ""},
		{"no terminator needed in NoTerminator and graph regions", func(b *vb) *Operation {
			m := b.mk("v.module", regions(1))
			mb := NewBlock()
			m.Region(0).AppendBlock(mb)
			g := b.add(mb, "v.graph", regions(1))
			gb := NewBlock()
			g.Region(0).AppendBlock(gb)
			b.add(gb, "v.use")
			return m
		}, ""},
		{"single block", func(b *vb) *Operation {
			m, _, body := b.fn()
			s := b.add(body, "v.single", regions(1))
			b.add(body, "v.ret")
			b1, b2 := NewBlock(), NewBlock()
			s.Region(0).AppendBlock(b1)
			s.Region(0).AppendBlock(b2)
			b.add(b1, "v.br", succ(b2))
			b.add(b2, "v.ret")
			return m
		}, "v.mlir:3:3: error: 'v.single' op expects region #0 to have 0 or 1 blocks, but found 2"},
		{"successor in another region", func(b *vb) *Operation {
			m, _, body := b.fn()
			s := b.add(body, "v.scope", regions(1))
			inner := NewBlock()
			s.Region(0).AppendBlock(inner)
			b.add(body, "v.br", succ(inner))
			b.add(inner, "v.ret")
			return m
		}, "v.mlir:4:3: error: 'v.br' op branching to block of a different region (successor #0)"},
		{"verify hook", func(b *vb) *Operation {
			m, _, body := b.fn(I32())
			b.add(body, "v.hook", operands(body.Arg(0)))
			b.add(body, "v.ret")
			return m
		}, "v.mlir:3:3: error: 'v.hook' op hook rejects operands"},
		{"verify regions hook", func(b *vb) *Operation {
			m, _, body := b.fn()
			r := b.add(body, "v.rhook", regions(1))
			b.add(body, "v.ret")
			rb := NewBlock()
			r.Region(0).AppendBlock(rb)
			b.add(rb, "v.ret")
			return m
		}, "v.mlir:3:3: error: 'v.rhook' op plain error from VerifyRegions"},
		{"isolated from above", func(b *vb) *Operation {
			m, _, body := b.fn(I32())
			inner := b.add(body, "v.func", regions(1), attr("sym_name", Str("g")))
			b.add(body, "v.ret")
			ib := NewBlock()
			inner.Region(0).AppendBlock(ib)
			s := b.add(ib, "v.scope", regions(1))
			b.add(ib, "v.ret")
			sb := NewBlock()
			s.Region(0).AppendBlock(sb)
			b.add(sb, "v.ret", operands(body.Arg(0)))
			return m
		}, "v.mlir:7:3: error: 'v.ret' op using value defined outside the region (operand #0)\n" +
			"v.mlir:2:3: note: operand #0 is argument #0 of block #0 of a region of 'v.func', defined here\n" +
			"v.mlir:3:3: note: required by region isolation constraints"},
		{"isolated from above: op result", func(b *vb) *Operation {
			m, _, body := b.fn()
			c := b.cst(body, 7)
			inner := b.add(body, "v.func", regions(1), attr("sym_name", Str("g")))
			b.add(body, "v.ret")
			ib := NewBlock()
			inner.Region(0).AppendBlock(ib)
			b.add(ib, "v.ret", operands(c))
			return m
		}, "v.mlir:6:3: error: 'v.ret' op using value defined outside the region (operand #0)\n" +
			"v.mlir:3:3: note: operand #0 is result #0 of 'v.const', defined here\n" +
			"v.mlir:4:3: note: required by region isolation constraints"},
		{"non-isolated region may use outer values", func(b *vb) *Operation {
			m, _, body := b.fn(I32())
			s := b.add(body, "v.scope", regions(1))
			b.add(body, "v.ret")
			sb := NewBlock()
			s.Region(0).AppendBlock(sb)
			b.add(sb, "v.ret", operands(body.Arg(0)))
			return m
		}, ""},
		{"symbol redefinition", func(b *vb) *Operation {
			m := b.mk("v.module", regions(1))
			mb := NewBlock()
			m.Region(0).AppendBlock(mb)
			b.add(mb, "v.func", regions(1), attr("sym_name", Str("f")))
			b.add(mb, "v.func", regions(1), attr("sym_name", Str("g")))
			b.add(mb, "v.func", regions(1), attr("sym_name", Str("f")))
			return m
		}, "v.mlir:4:3: error: 'v.func' op redefinition of symbol named 'f'\n" +
			"v.mlir:2:3: note: see existing symbol definition here"},
		{"symbol in properties", func(b *vb) *Operation {
			m := b.mk("v.module", regions(1))
			mb := NewBlock()
			m.Region(0).AppendBlock(mb)
			b.add(mb, "v.func", regions(1), attr("sym_name", Str("f")))
			b.add(mb, "v.func", regions(1), props(NewDictAttr([]NamedAttribute{{"sym_name", Str("f")}})))
			return m
		}, "v.mlir:3:3: error: 'v.func' op redefinition of symbol named 'f'\n" +
			"v.mlir:2:3: note: see existing symbol definition here"},
		{"same symbol in different tables", func(b *vb) *Operation {
			m := b.mk("v.module", regions(1))
			mb := NewBlock()
			m.Region(0).AppendBlock(mb)
			b.add(mb, "v.func", regions(1), attr("sym_name", Str("f")))
			n := b.add(mb, "v.module", regions(1))
			nb := NewBlock()
			n.Region(0).AppendBlock(nb)
			b.add(nb, "v.func", regions(1), attr("sym_name", Str("f")))
			return m
		}, ""},
		{"symbol visibility", func(b *vb) *Operation {
			m := b.mk("v.module", regions(1))
			mb := NewBlock()
			m.Region(0).AppendBlock(mb)
			b.add(mb, "v.func", regions(1), attr("sym_name", Str("f")), attr("sym_visibility", Str("private")))
			return m
		}, ""},
		{"symbol table with two blocks", func(b *vb) *Operation {
			m := b.mk("v.module", regions(1))
			m.Region(0).AppendBlock(NewBlock())
			m.Region(0).AppendBlock(NewBlock())
			return m
		}, "v.mlir:1:3: error: 'v.module' op expects region #0 to have 0 or 1 blocks, but found 2"},
		// Dominance.
		{"use before def in a block", func(b *vb) *Operation {
			m, _, body := b.fn()
			use := b.add(body, "v.use")
			c := b.cst(body, 1)
			use.SetOperands([]*Value{c})
			b.add(body, "v.ret")
			return m
		}, "v.mlir:3:3: error: 'v.use' op operand #0 does not dominate this use\n" +
			"v.mlir:4:3: note: operand defined here (op in the same block)"},
		{"use before def far apart", func(b *vb) *Operation {
			m, _, body := b.fn()
			use := b.add(body, "v.use")
			for range 10 {
				b.add(body, "v.use")
			}
			c := b.cst(body, 1)
			use.SetOperands([]*Value{c})
			b.add(body, "v.ret")
			return m
		}, "v.mlir:3:3: error: 'v.use' op operand #0 does not dominate this use\n" +
			"v.mlir:14:3: note: operand defined here (op in the same block)"},
		{"diamond: def in one branch, use at the join", func(b *vb) *Operation {
			m, _, entry := b.fn(I1())
			r := entry.Parent()
			thenB, elseB, join := NewBlock(), NewBlock(), NewBlock()
			r.AppendBlock(thenB)
			r.AppendBlock(elseB)
			r.AppendBlock(join)
			b.add(entry, "v.condbr", operands(entry.Arg(0)), succ(thenB, elseB))
			c := b.cst(thenB, 1)
			b.add(thenB, "v.br", succ(join))
			b.add(elseB, "v.br", succ(join))
			b.add(join, "v.ret", operands(c))
			return m
		}, "v.mlir:7:3: error: 'v.ret' op operand #0 does not dominate this use\n" +
			"v.mlir:4:3: note: operand defined here (op in the same region)"},
		{"diamond: def in entry used everywhere", func(b *vb) *Operation {
			m, _, entry := b.fn(I1())
			r := entry.Parent()
			thenB, elseB, join := NewBlock(), NewBlock(), NewBlock(I32())
			r.AppendBlock(thenB)
			r.AppendBlock(elseB)
			r.AppendBlock(join)
			c := b.cst(entry, 1)
			b.add(entry, "v.condbr", operands(entry.Arg(0)), succ(thenB, elseB))
			d := b.cst(thenB, 2)
			b.add(thenB, "v.br", operands(d), succ(join))
			b.add(elseB, "v.br", operands(c), succ(join))
			b.add(join, "v.ret", operands(c, join.Arg(0)))
			return m
		}, ""},
		{"loop: header value used in body and exit", func(b *vb) *Operation {
			m, _, entry := b.fn(I1())
			r := entry.Parent()
			header, body, exit := NewBlock(I32()), NewBlock(), NewBlock()
			r.AppendBlock(header)
			r.AppendBlock(body)
			r.AppendBlock(exit)
			c := b.cst(entry, 0)
			b.add(entry, "v.br", operands(c), succ(header))
			h := b.add(header, "v.add", operands(header.Arg(0), c), results(I32()))
			b.add(header, "v.condbr", operands(entry.Arg(0)), succ(body, exit))
			n := b.add(body, "v.add", operands(h.Result(0), c), results(I32()))
			b.add(body, "v.br", operands(n.Result(0)), succ(header))
			b.add(exit, "v.ret", operands(h.Result(0)))
			return m
		}, ""},
		{"loop: body value used in header", func(b *vb) *Operation {
			m, _, entry := b.fn(I1())
			r := entry.Parent()
			header, body, exit := NewBlock(), NewBlock(), NewBlock()
			r.AppendBlock(header)
			r.AppendBlock(body)
			r.AppendBlock(exit)
			b.add(entry, "v.br", succ(header))
			use := b.add(header, "v.use")
			b.add(header, "v.condbr", operands(entry.Arg(0)), succ(body, exit))
			c := b.cst(body, 0)
			b.add(body, "v.br", succ(header))
			b.add(exit, "v.ret")
			use.SetOperands([]*Value{c})
			return m
		}, "v.mlir:4:3: error: 'v.use' op operand #0 does not dominate this use\n" +
			"v.mlir:6:3: note: operand defined here (op in the same region)"},
		{"loop: body value used in exit", func(b *vb) *Operation {
			m, _, entry := b.fn(I1())
			r := entry.Parent()
			header, body, exit := NewBlock(), NewBlock(), NewBlock()
			r.AppendBlock(header)
			r.AppendBlock(body)
			r.AppendBlock(exit)
			b.add(entry, "v.br", succ(header))
			b.add(header, "v.condbr", operands(entry.Arg(0)), succ(body, exit))
			c := b.cst(body, 0)
			b.add(body, "v.br", succ(header))
			b.add(exit, "v.ret", operands(c))
			return m
		}, "v.mlir:7:3: error: 'v.ret' op operand #0 does not dominate this use\n" +
			"v.mlir:5:3: note: operand defined here (op in the same region)"},
		{"block argument of a non-dominating block", func(b *vb) *Operation {
			m, _, entry := b.fn(I1())
			r := entry.Parent()
			thenB, join := NewBlock(I32()), NewBlock()
			r.AppendBlock(thenB)
			r.AppendBlock(join)
			c := b.cst(entry, 0)
			b.add(entry, "v.condbr", operands(entry.Arg(0)), succ(thenB, join))
			b.add(thenB, "v.br", succ(join))
			b.add(join, "v.ret", operands(thenB.Arg(0)))
			_ = c
			return m
		}, "v.mlir:6:3: error: 'v.ret' op operand #0 does not dominate this use\n" +
			"v.mlir:2:3: note: operand defined as a block argument (block #1 in the same region)"},
		{"unreachable block is not checked", func(b *vb) *Operation {
			m, _, entry := b.fn()
			r := entry.Parent()
			dead, dead2 := NewBlock(), NewBlock()
			r.AppendBlock(dead)
			r.AppendBlock(dead2)
			b.add(entry, "v.ret")
			c := b.cst(dead2, 1)
			b.add(dead2, "v.br", succ(dead))
			b.add(dead, "v.ret", operands(c))
			return m
		}, ""},
		{"nested region uses a later value", func(b *vb) *Operation {
			m, _, body := b.fn()
			s := b.add(body, "v.scope", regions(1))
			c := b.cst(body, 1)
			b.add(body, "v.ret")
			sb := NewBlock()
			s.Region(0).AppendBlock(sb)
			b.add(sb, "v.ret", operands(c))
			return m
		}, "v.mlir:6:3: error: 'v.ret' op operand #0 does not dominate this use\n" +
			"v.mlir:4:3: note: operand defined here (op in a parent region)"},
		{"nested region uses an earlier value", func(b *vb) *Operation {
			m, _, body := b.fn()
			c := b.cst(body, 1)
			s := b.add(body, "v.scope", regions(1))
			b.add(body, "v.ret")
			sb := NewBlock()
			s.Region(0).AppendBlock(sb)
			in := b.add(sb, "v.scope", regions(1))
			b.add(sb, "v.ret")
			ib := NewBlock()
			in.Region(0).AppendBlock(ib)
			b.add(ib, "v.ret", operands(c))
			return m
		}, ""},
		{"op uses its own result in its region", func(b *vb) *Operation {
			m, _, body := b.fn()
			s := b.add(body, "v.scope", regions(1), results(I32()))
			b.add(body, "v.ret")
			sb := NewBlock()
			s.Region(0).AppendBlock(sb)
			b.add(sb, "v.ret", operands(s.Result(0)))
			return m
		}, "v.mlir:5:3: error: 'v.ret' op operand #0 does not dominate this use\n" +
			"v.mlir:3:3: note: operand defined here (result #0 of the op that holds the use)"},
		{"value of a sibling region", func(b *vb) *Operation {
			m, _, body := b.fn()
			s1 := b.add(body, "v.scope", regions(1))
			s2 := b.add(body, "v.scope", regions(1))
			b.add(body, "v.ret")
			b1, b2 := NewBlock(), NewBlock()
			s1.Region(0).AppendBlock(b1)
			s2.Region(0).AppendBlock(b2)
			c := b.cst(b1, 1)
			b.add(b1, "v.ret")
			b.add(b2, "v.ret", operands(c))
			return m
		}, "v.mlir:8:3: error: 'v.ret' op operand #0 does not dominate this use\n" +
			"v.mlir:6:3: note: operand defined here (op neither in a parent nor in a child region)"},
		{"value of a child region", func(b *vb) *Operation {
			m, _, body := b.fn()
			s1 := b.add(body, "v.scope", regions(1))
			use := b.add(body, "v.use")
			b.add(body, "v.ret")
			b1 := NewBlock()
			s1.Region(0).AppendBlock(b1)
			c := b.cst(b1, 1)
			b.add(b1, "v.ret")
			use.SetOperands([]*Value{c})
			return m
		}, "v.mlir:4:3: error: 'v.use' op operand #0 does not dominate this use\n" +
			"v.mlir:6:3: note: operand defined here (op in a child region)"},
		{"graph region: use before def", func(b *vb) *Operation {
			m := b.mk("v.module", regions(1))
			mb := NewBlock()
			m.Region(0).AppendBlock(mb)
			g := b.add(mb, "v.graph", regions(1))
			gb := NewBlock()
			g.Region(0).AppendBlock(gb)
			use := b.add(gb, "v.use")
			c := b.cst(gb, 1)
			use.SetOperands([]*Value{c})
			// A cycle is fine too.
			x := b.add(gb, "v.add", operands(c, c), results(I32()))
			y := b.add(gb, "v.add", operands(x.Result(0), c), results(I32()))
			x.SetOperand(1, y.Result(0))
			return m
		}, ""},
		{"graph region: nested use of a later value", func(b *vb) *Operation {
			m := b.mk("v.module", regions(1))
			mb := NewBlock()
			m.Region(0).AppendBlock(mb)
			g := b.add(mb, "v.graph", regions(1))
			gb := NewBlock()
			g.Region(0).AppendBlock(gb)
			s := b.add(gb, "v.scope", regions(1))
			c := b.cst(gb, 1)
			sb := NewBlock()
			s.Region(0).AppendBlock(sb)
			b.add(sb, "v.ret", operands(c))
			return m
		}, ""},
		{"unregistered parent: region treated as a graph", func(b *vb) *Operation {
			b.ctx.AllowUnregistered = true
			m, _, body := b.fn()
			u := b.add(body, "x.region", regions(1))
			b.add(body, "v.ret")
			ub := NewBlock()
			u.Region(0).AppendBlock(ub)
			use := b.add(ub, "v.use")
			c := b.cst(ub, 1)
			use.SetOperands([]*Value{c})
			return m
		}, ""},
		{"unregistered op: operands still checked", func(b *vb) *Operation {
			b.ctx.AllowUnregistered = true
			m, _, body := b.fn()
			use := b.add(body, "x.use")
			c := b.cst(body, 1)
			use.SetOperands([]*Value{c})
			b.add(body, "v.ret")
			return m
		}, "v.mlir:3:3: error: 'x.use' op operand #0 does not dominate this use\n" +
			"v.mlir:4:3: note: operand defined here (op in the same block)"},
		{"nested op of an unregistered op still verified", func(b *vb) *Operation {
			b.ctx.AllowUnregistered = true
			u := b.mk("x.region", regions(1))
			ub := NewBlock()
			u.Region(0).AppendBlock(ub)
			b.add(ub, "v.add", results(I32()))
			return u
		}, "v.mlir:2:3: error: 'v.add' op expected 2 operands, but found 0"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			b := newVB()
			root := tc.build(b)
			err := Verify(b.ctx, root)
			got := ""
			if err != nil {
				if _, ok := err.(*Diagnostic); !ok {
					t.Fatalf("error %T is not a *Diagnostic", err)
				}
				got = err.Error()
			}
			if got != tc.want {
				t.Errorf("Verify:\n got: %s\nwant: %s", got, tc.want)
			}
		})
	}
}

func TestVerifyOpenDialect(t *testing.T) {
	// Unregistered ops of an open dialect pass without AllowUnregistered;
	// other unregistered ops do not.
	b := newVB()
	b.ctx.Register(&Dialect{Name: "open", OpenOps: true})
	m, _, body := b.fn()
	b.add(body, "open.anything")
	b.add(body, "v.ret")
	if err := Verify(b.ctx, m); err != nil {
		t.Fatalf("open dialect op rejected: %v", err)
	}
	b.add(body, "closed.thing").MoveBefore(body.First())
	if err := Verify(b.ctx, m); err == nil || !strings.Contains(err.Error(), "'closed.thing' op is unregistered") {
		t.Fatalf("got %v", err)
	}
}

func TestVerifyNilIsValidError(t *testing.T) {
	b := newVB()
	m, _, body := b.fn()
	b.add(body, "v.ret")
	if err := Verify(b.ctx, m); err != nil {
		t.Fatalf("Verify = %v", err)
	}
	// The returned error must be a true nil interface.
	var err error = Verify(b.ctx, m)
	if err != nil {
		t.Fatal("non-nil interface for valid IR")
	}
}

func TestVerifySubtree(t *testing.T) {
	// Verifying a nested op checks its uses of values defined above it.
	b := newVB()
	m, f, body := b.fn(I32())
	s := b.add(body, "v.scope", regions(1))
	b.add(body, "v.ret")
	sb := NewBlock()
	s.Region(0).AppendBlock(sb)
	b.add(sb, "v.ret", operands(body.Arg(0)))
	for _, root := range []*Operation{m, f, s} {
		if err := Verify(b.ctx, root); err != nil {
			t.Errorf("Verify(%s) = %v", root.Name(), err)
		}
	}
}

func TestDomTree(t *testing.T) {
	// 0 -> 1; 1 -> 2, 3; 2 -> 1 (loop); 3 -> 4; 5 unreachable -> 4.
	b := newVB()
	r := &Region{}
	blks := make([]*Block, 6)
	for i := range blks {
		blks[i] = NewBlock(I1())
		r.AppendBlock(blks[i])
	}
	b.add(blks[0], "v.br", succ(blks[1]))
	b.add(blks[1], "v.condbr", operands(blks[1].Arg(0)), succ(blks[2], blks[3]))
	b.add(blks[2], "v.br", succ(blks[1]))
	b.add(blks[3], "v.br", succ(blks[4]))
	b.add(blks[5], "v.br", succ(blks[4]))
	b.add(blks[4], "v.ret")
	dt := NewDomTree(r)
	wantIdom := []int{-1, 0, 1, 1, 3, -1}
	for i, blk := range blks {
		got := -1
		if d := dt.IDom(blk); d != nil {
			got = blockIndex(d)
		}
		if got != wantIdom[i] {
			t.Errorf("idom(bb%d) = %d, want %d", i, got, wantIdom[i])
		}
	}
	dom := [][2]int{{0, 4}, {1, 2}, {1, 4}, {3, 4}, {4, 4}}
	for _, p := range dom {
		if !dt.Dominates(blks[p[0]], blks[p[1]]) {
			t.Errorf("bb%d should dominate bb%d", p[0], p[1])
		}
	}
	notDom := [][2]int{{2, 3}, {2, 4}, {4, 3}, {5, 4}, {0, 5}, {3, 1}}
	for _, p := range notDom {
		if dt.Dominates(blks[p[0]], blks[p[1]]) {
			t.Errorf("bb%d should not dominate bb%d", p[0], p[1])
		}
	}
	if dt.Reachable(blks[5]) || !dt.Reachable(blks[2]) {
		t.Error("reachability wrong")
	}
}

func TestSymbolLookup(t *testing.T) {
	b := newVB()
	m := b.mk("v.module", regions(1))
	mb := NewBlock()
	m.Region(0).AppendBlock(mb)
	f := b.add(mb, "v.func", regions(1), attr("sym_name", Str("f")))
	n := b.add(mb, "v.module", regions(1), attr("sym_name", Str("inner")))
	nb := NewBlock()
	n.Region(0).AppendBlock(nb)
	g := b.add(nb, "v.func", regions(1), attr("sym_name", Str("g")))
	fb := NewBlock()
	g.Region(0).AppendBlock(fb)
	r := b.add(fb, "v.ret")
	if got := NearestSymbolTable(r); got != n {
		t.Errorf("NearestSymbolTable = %v", got)
	}
	if got := LookupSymbol(r, SymbolRefAttr{Root: "f"}); got != f {
		t.Errorf("LookupSymbol(@f) from inner = %v", got)
	}
	if got := LookupSymbol(f, SymbolRefAttr{Root: "inner", Nested: []string{"g"}}); got != g {
		t.Errorf("LookupSymbol(@inner::@g) = %v", got)
	}
	if got := LookupSymbol(f, SymbolRefAttr{Root: "inner", Nested: []string{"h"}}); got != nil {
		t.Errorf("LookupSymbol(@inner::@h) = %v", got)
	}
	idx := NewSymbolTableIndex(m)
	if idx["f"] != f || idx["inner"] != n || len(idx) != 2 {
		t.Errorf("index = %v", idx)
	}
	if name, ok := SymbolName(g); !ok || name != "g" {
		t.Errorf("SymbolName = %q %v", name, ok)
	}
}

// buildChain returns a module with one function holding n ops: constants
// and a chain of adds, each using the previous result and a constant far back.
func buildChain(n int) (*Context, *Operation) {
	b := newVB()
	m, _, body := b.fn(I32())
	ctx := b.ctx
	loc := FileLineColLoc{File: "bench.mlir", Line: 1, Col: 1}
	c := ctx.Create(&OperationState{Name: "v.const", Loc: loc, ResultTypes: []Type{I32()},
		Attrs: []NamedAttribute{{"value", IntegerAttr{1, I32()}}}})
	body.Append(c)
	prev := body.Arg(0)
	for i := 0; i < n-2; i++ {
		op := ctx.Create(&OperationState{Name: "v.add", Loc: loc, Operands: []*Value{prev, c.Result(0)}, ResultTypes: []Type{I32()}})
		body.Append(op)
		prev = op.Result(0)
	}
	body.Append(ctx.Create(&OperationState{Name: "v.ret", Loc: loc, Operands: []*Value{prev}}))
	return ctx, m
}

func TestVerifyLarge(t *testing.T) {
	ctx, m := buildChain(100000)
	if err := Verify(ctx, m); err != nil {
		t.Fatal(err)
	}
}

func BenchmarkVerify1M(b *testing.B) {
	ctx, m := buildChain(1000000)
	b.ResetTimer()
	for b.Loop() {
		if err := Verify(ctx, m); err != nil {
			b.Fatal(err)
		}
	}
}

func TestVerifyMessagesNameTheOp(t *testing.T) {
	// Every diagnostic from Verify starts with the op's location and name.
	b := newVB()
	root := b.mk("x.y")
	err := Verify(b.ctx, root)
	if err == nil || !strings.Contains(err.Error(), "'x.y' op") {
		t.Fatalf("got %v", err)
	}
}

// BenchmarkVerifyManyBlocks verifies a function of 100,000 blocks in a
// chain, each using a value of the entry block (cross-block dominance).
func BenchmarkVerifyManyBlocks(b *testing.B) {
	vb := newVB()
	m, _, entry := vb.fn(I1())
	r := entry.Parent()
	c := vb.cst(entry, 1)
	prev := entry
	for i := 0; i < 100000; i++ {
		blk := NewBlock()
		r.AppendBlock(blk)
		vb.add(prev, "v.condbr", operands(entry.Arg(0)), succ(blk, blk))
		vb.add(blk, "v.add", operands(c, c), results(I32()))
		prev = blk
	}
	vb.add(prev, "v.ret")
	b.ResetTimer()
	for b.Loop() {
		if err := Verify(vb.ctx, m); err != nil {
			b.Fatal(err)
		}
	}
}
