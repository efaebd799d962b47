// Package funcd is the func dialect (namespace "func"): func.func,
// func.return and func.call, with MLIR's custom forms and verifiers.
package funcd

import (
	"github.com/recom-compiler/recom/textir"
)

//go:generate go run ../internal/opviewgen -dialect func

// Name is the dialect namespace.
const Name = "func"

// Op names.
const (
	FuncOp   = "func.func"
	ReturnOp = "func.return"
	CallOp   = "func.call"
)

// Dialect returns the func dialect.
func Dialect() *textir.Dialect {
	return &textir.Dialect{
		Name:    Name,
		Summary: "functions, calls and returns",
		Ops: []*textir.OpDef{
			{
				Name:    FuncOp,
				Summary: "a function: a symbol with a signature and a body (empty for a declaration)",
				Regions: textir.Exactly(1),
				Traits:  textir.Symbol | textir.IsolatedFromAbove,
				Attrs: []textir.AttrSpec{
					{Name: "sym_name", Kind: textir.StringAttrKind},
					{Name: "function_type", Kind: textir.TypeAttrKind},
					{Name: "sym_visibility", Kind: textir.StringAttrKind, Optional: true},
					{Name: "arg_attrs", Kind: textir.ArrayAttrKind, Optional: true},
					{Name: "res_attrs", Kind: textir.ArrayAttrKind, Optional: true},
				},
				Verify: verifyFunc,
				Print:  printFunc,
				Parse:  parseFunc,
				// A bare return or call in a function body is func's,
				// as in MLIR.
				DefaultDialect: Name,
			},
			{
				Name:          ReturnOp,
				Summary:       "returns from the enclosing function",
				Operands:      textir.AtLeast(0),
				NamedOperands: []string{"operands..."},
				Traits:        textir.Terminator | textir.ReturnLike | textir.Pure,
				Verify:        verifyReturn,
				Print:         printReturn,
				Parse:         parseReturn,
			},
			{
				Name:          CallOp,
				Summary:       "calls a function by symbol",
				Operands:      textir.AtLeast(0),
				Results:       textir.AtLeast(0),
				NamedOperands: []string{"operands..."},
				NamedResults:  []string{"results..."},
				Attrs:         []textir.AttrSpec{{Name: "callee", Kind: textir.SymbolRefAttrKind}},
				Verify:        verifyCall,
				Print:         printCall,
				Parse:         parseCall,
			},
		},
	}
}

// FunctionType returns the signature of a func.func (nil when missing).
func FunctionType(fn *textir.Operation) *textir.FunctionType {
	ta, _ := fn.LookupAttr("function_type").(textir.TypeAttr)
	ft, _ := ta.Type.(*textir.FunctionType)
	return ft
}

// IsDeclaration reports whether fn has no body.
func IsDeclaration(fn *textir.Operation) bool { return fn.Region(0).Empty() }

// Callee returns the symbol a func.call names ("" when missing).
func Callee(call *textir.Operation) string {
	ref, _ := call.LookupAttr("callee").(textir.SymbolRefAttr)
	return ref.Root
}

// NewFunc returns a detached func.func @name of type ft with an entry block
// whose arguments match ft's inputs; the caller fills the block.
func NewFunc(ctx *textir.Context, loc textir.Location, name string, ft *textir.FunctionType) *textir.Operation {
	fn := ctx.Create(&textir.OperationState{
		Name: FuncOp, Loc: loc, NumRegions: 1,
		Attrs: []textir.NamedAttribute{
			{Name: "sym_name", Value: textir.Str(name)},
			{Name: "function_type", Value: textir.TypeAttr{Type: ft}},
		},
	})
	fn.Region(0).AppendBlock(textir.NewBlock(ft.Inputs...))
	return fn
}

func symName(op *textir.Operation) string {
	n, _ := textir.SymbolName(op)
	return n
}

func verifyFunc(op *textir.Operation) error {
	ft := FunctionType(op)
	if ft == nil {
		return op.Errorf("attribute 'function_type' failed to satisfy constraint: type attribute of function type")
	}
	for _, spec := range []struct {
		name string
		n    int
		what string
	}{{"arg_attrs", len(ft.Inputs), "argument"}, {"res_attrs", len(ft.Results), "result"}} {
		a, ok := op.LookupAttr(spec.name).(textir.ArrayAttr)
		if !ok {
			continue
		}
		if len(a.Elems) != spec.n {
			return op.Errorf("expects %s attribute array to have the same number of elements as the number of function %ss, got %d, but expected %d",
				spec.what, spec.what, len(a.Elems), spec.n)
		}
		for i, e := range a.Elems {
			if _, ok := e.(textir.DictAttr); !ok {
				return op.Errorf("expects %s attribute dictionary #%d to be a dictionary attribute", spec.what, i)
			}
		}
	}
	if IsDeclaration(op) {
		if v, _ := op.LookupAttr("sym_visibility").(textir.StringAttr); v.Value == "" || v.Value == "public" {
			return op.Errorf("symbol declaration cannot have public visibility")
		}
		return nil
	}
	return VerifyEntryBlock(op, ft)
}

// VerifyEntryBlock checks that the entry block of function-like op (which
// must have one) takes ft's inputs, with MLIR's messages; func.func and
// gpu.func share it.
func VerifyEntryBlock(op *textir.Operation, ft *textir.FunctionType) error {
	entry := op.Region(0).Front()
	if entry.NumArgs() != len(ft.Inputs) {
		return op.Errorf("entry block must have %d arguments to match function signature", len(ft.Inputs))
	}
	for i, a := range entry.Args() {
		if a.Type() != ft.Inputs[i] {
			return op.Errorf("type of entry block argument #%d('%s') must match the type of the corresponding argument in function signature('%s')",
				i, a.Type(), ft.Inputs[i])
		}
	}
	return nil
}

// enclosingFunc returns the func.func holding op directly, or nil.
func enclosingFunc(op *textir.Operation) *textir.Operation {
	if p := op.ParentOp(); p != nil && p.Name() == FuncOp {
		return p
	}
	return nil
}

func verifyReturn(op *textir.Operation) error {
	fn := enclosingFunc(op)
	if fn == nil {
		return op.Errorf("expects parent op '%s'", FuncOp)
	}
	ft := FunctionType(fn)
	if ft == nil {
		return nil // the function's own verifier reports it
	}
	if op.NumOperands() != len(ft.Results) {
		return op.Errorf("has %d operands, but enclosing function (@%s) returns %d", op.NumOperands(), symName(fn), len(ft.Results))
	}
	for i, v := range op.Operands() {
		if v.Type() != ft.Results[i] {
			return op.Errorf("type of return operand %d ('%s') doesn't match function result type ('%s') in function @%s",
				i, v.Type(), ft.Results[i], symName(fn))
		}
	}
	return nil
}

func verifyCall(op *textir.Operation) error {
	ref, ok := op.LookupAttr("callee").(textir.SymbolRefAttr)
	if !ok || len(ref.Nested) != 0 {
		return op.Errorf("requires a 'callee' flat symbol reference attribute")
	}
	fn := textir.LookupSymbol(op, ref)
	if fn == nil || fn.Name() != FuncOp {
		return op.Errorf("'@%s' does not reference a valid function", ref.Root)
	}
	ft := FunctionType(fn)
	if ft == nil {
		return nil
	}
	return VerifyCallTypes(op, ft)
}

// VerifyCallTypes checks that call op's operands and results have the
// types of callee signature ft, with MLIR's messages; func.call and
// gpu.call share it.
func VerifyCallTypes(op *textir.Operation, ft *textir.FunctionType) error {
	// No notes: MLIR's --verify-diagnostics would require an expected-note
	// for each; the messages name what they compare instead.
	if op.NumOperands() != len(ft.Inputs) {
		return op.Errorf("incorrect number of operands for callee: expected %d, but provided %d", len(ft.Inputs), op.NumOperands())
	}
	for i, v := range op.Operands() {
		if v.Type() != ft.Inputs[i] {
			return op.Errorf("operand type mismatch: expected operand type '%s', but provided '%s' for operand number %d",
				ft.Inputs[i], v.Type(), i)
		}
	}
	if op.NumResults() != len(ft.Results) {
		return op.Errorf("incorrect number of results for callee: expected %d, but the call has %d", len(ft.Results), op.NumResults())
	}
	for i, t := range op.ResultTypes() {
		if t != ft.Results[i] {
			return op.Errorf("result type mismatch at index %d: expected '%s', but the call has '%s'", i, ft.Results[i], t)
		}
	}
	return nil
}

// forms prints the shared custom forms (textir/forms.go).
var forms textir.FormPrinter

// func.func [visibility] @name(%arg0: t {attrs}, ...) [-> results] [attributes {...}] [{ body }]
func printFunc(p *textir.OpPrinter, op *textir.Operation) {
	ft := FunctionType(op)
	textir.RequireCustom(ft != nil)
	if v, ok := op.LookupAttr("sym_visibility").(textir.StringAttr); ok && v.Value != "" && v.Value != "public" {
		p.Print(" " + v.Value)
	}
	p.Print(" ")
	p.PrintSymbolName(symName(op))
	textir.PrintFunctionSignature(p, op, ft, true)
	p.PrintOptionalAttrDictWithKeyword(textir.AllAttrs(op), "sym_name", "function_type", "sym_visibility", "arg_attrs", "res_attrs")
	if !op.Region(0).Empty() {
		p.Print(" ")
		p.PrintRegion(op.Region(0), false, true)
	}
}

func parseFunc(p *textir.OpParser, st *textir.OperationState) error {
	for _, vis := range []string{"private", "public", "nested"} {
		if p.ParseOptionalKeyword(vis) {
			st.AddAttr("sym_visibility", textir.Str(vis))
			break
		}
	}
	name, err := textir.ParseSymbolNameAttr(p, st)
	if err != nil {
		return err
	}
	named := 0
	sig, err := textir.ParseFunctionSignature(p, true, func(loc textir.Location, args []textir.Argument) error {
		for _, a := range args {
			if a.Name != "" {
				named++
			}
		}
		if named != 0 && named != len(args) {
			return textir.Errorf(loc, "expected all arguments of @%s to be named, or none", name)
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
	r := &textir.Region{}
	st.Regions = append(st.Regions, r)
	bodyLoc := p.Loc()
	var entry []textir.Argument
	if named > 0 || len(sig.Args) == 0 {
		entry = sig.Args
	}
	ok, err := p.ParseOptionalRegion(r, entry)
	if err != nil {
		return err
	}
	if ok && named != len(sig.Args) {
		return textir.Errorf(bodyLoc, "expected named arguments for @%s, which has a body", name)
	}
	return nil
}

// func.return [{attrs}] [%a, %b : t1, t2]
func printReturn(p *textir.OpPrinter, op *textir.Operation) { forms.PrintReturn(p, op) }

func parseReturn(p *textir.OpParser, st *textir.OperationState) error {
	return textir.ParseReturnForm(p, st)
}

// func.call @f(%a, %b) [{attrs}] : (t1, t2) -> t3
func printCall(p *textir.OpPrinter, op *textir.Operation) { forms.PrintCall(p, op) }

func parseCall(p *textir.OpParser, st *textir.OperationState) error {
	return textir.ParseCallForm(p, st)
}
