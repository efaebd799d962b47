// Package builtin is the builtin dialect: builtin.module, the top-level
// container of every program, and builtin.unrealized_conversion_cast, the
// placeholder cast that dialect conversion inserts between type systems.
package builtin

import (
	"github.com/recom-compiler/recom/textir"
)

//go:generate go run ../internal/opviewgen -dialect builtin

// Name is the dialect namespace.
const Name = "builtin"

// Op names.
const (
	ModuleOp = "builtin.module"
	CastOp   = "builtin.unrealized_conversion_cast"
)

// Dialect returns the builtin dialect.
func Dialect() *textir.Dialect {
	return &textir.Dialect{
		Name:    Name,
		Summary: "the module container and the conversion cast",
		Ops: []*textir.OpDef{
			{
				Name:    ModuleOp,
				Summary: "a top-level container of ops; a symbol table",
				Regions: textir.Exactly(1),
				Traits:  textir.IsolatedFromAbove | textir.NoTerminator | textir.SymbolTable | textir.SingleBlock,
				Attrs: []textir.AttrSpec{
					{Name: "sym_name", Kind: textir.StringAttrKind, Optional: true},
					{Name: "sym_visibility", Kind: textir.StringAttrKind, Optional: true},
				},
				Print: printModule,
				Parse: parseModule,
			},
			{
				Name:          CastOp,
				Summary:       "a cast between unrelated types, left for later conversions to resolve",
				Operands:      textir.AtLeast(0),
				Results:       textir.AtLeast(0),
				NamedOperands: []string{"inputs..."},
				NamedResults:  []string{"outputs..."},
				Traits:        textir.Pure,
				Fold:          foldCast,
				Print:         printCast,
				Parse:         parseCast,
			},
		},
	}
}

// NewModule returns a detached builtin.module with an empty entry block.
func NewModule(ctx *textir.Context, loc textir.Location) *textir.Operation {
	m := ctx.Create(&textir.OperationState{Name: ModuleOp, Loc: loc, NumRegions: 1})
	m.Region(0).AppendBlock(textir.NewBlock())
	return m
}

// Body returns the entry block of a module, adding one when the region is
// empty.
func Body(m *textir.Operation) *textir.Block {
	r := m.Region(0)
	if r.Empty() {
		r.AppendBlock(textir.NewBlock())
	}
	return r.Front()
}

// module [@name] [attributes {...}] { ... }
func printModule(p *textir.OpPrinter, op *textir.Operation) {
	if name, ok := textir.SymbolName(op); ok {
		p.Print(" ")
		p.PrintSymbolName(name)
	}
	p.PrintOptionalAttrDictWithKeyword(textir.AllAttrs(op), "sym_name")
	p.Print(" ")
	p.PrintRegion(op.Region(0), false, false)
}

func parseModule(p *textir.OpParser, st *textir.OperationState) error {
	r := &textir.Region{}
	st.Regions = append(st.Regions, r)
	ok, err := p.ParseOptionalRegion(r, nil)
	if err != nil {
		return err
	}
	if !ok {
		n := len(st.Attrs)
		if err := p.ParseOptionalAttrDictWithKeyword(st); err != nil {
			return err
		}
		if len(st.Attrs) == n {
			name, err := p.ParseSymbolName()
			if err != nil {
				return err
			}
			st.AddAttr("sym_name", textir.Str(name))
			if err := p.ParseOptionalAttrDictWithKeyword(st); err != nil {
				return err
			}
		}
		if err := p.ParseRegion(r, nil); err != nil {
			return err
		}
	}
	if r.Empty() {
		r.AppendBlock(textir.NewBlock())
	}
	return nil
}

// A cast whose inputs have the result types folds to its inputs; so does a
// cast of a cast that converts back to the original types.
func foldCast(op *textir.Operation, _ []textir.Attribute) []textir.FoldResult {
	n := op.NumResults()
	if n == 0 || op.NumOperands() != n {
		return nil
	}
	ins := op.Operands()
	if sameTypes(ins, op.ResultTypes()) {
		return values(ins)
	}
	src := ins[0].DefiningOp()
	if src == nil || src.Name() != CastOp || src.NumResults() != n || src.NumOperands() != n {
		return nil
	}
	for i, v := range ins {
		if v != src.Result(i) {
			return nil
		}
	}
	if orig := src.Operands(); sameTypes(orig, op.ResultTypes()) {
		return values(orig)
	}
	return nil
}

func sameTypes(vs []*textir.Value, ts []textir.Type) bool {
	if len(vs) != len(ts) {
		return false
	}
	for i, v := range vs {
		if v.Type() != ts[i] {
			return false
		}
	}
	return true
}

func values(vs []*textir.Value) []textir.FoldResult {
	rs := make([]textir.FoldResult, len(vs))
	for i, v := range vs {
		rs[i].Value = v
	}
	return rs
}

// builtin.unrealized_conversion_cast [%a, %b : t1, t2] to t3 [{attrs}]
func printCast(p *textir.OpPrinter, op *textir.Operation) {
	if op.NumOperands() > 0 {
		p.Print(" ")
		p.PrintOperands(op.Operands())
		p.Print(" : ")
		p.PrintTypes(op.OperandTypes())
	}
	p.Print(" to ")
	p.PrintTypes(op.ResultTypes())
	p.PrintOptionalAttrDict(textir.AllAttrs(op))
}

func parseCast(p *textir.OpParser, st *textir.OperationState) error {
	ops, err := p.ParseOperandList()
	if err != nil {
		return err
	}
	var types []textir.Type
	if len(ops) > 0 {
		if types, err = p.ParseColonTypeList(); err != nil {
			return err
		}
	}
	if err := p.ParseKeyword("to"); err != nil {
		return err
	}
	results, err := p.ParseTypeList()
	if err != nil {
		return err
	}
	if err := p.ParseOptionalAttrDict(st); err != nil {
		return err
	}
	if len(types) != len(ops) {
		return p.Errorf("%d operands present, but expected %d", len(ops), len(types))
	}
	st.ResultTypes = append(st.ResultTypes, results...)
	return p.ResolveOperands(ops, types, &st.Operands)
}
