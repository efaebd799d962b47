package shape

import (
	"fmt"
	"strconv"
	"strings"
	"sync"

	"github.com/recom-compiler/recom/dialects/shape/expr"
	"github.com/recom-compiler/recom/textir"
)

// ExprAttrName is the attribute name of maps: #shape.expr<...>.
const ExprAttrName = "expr"

// ExprAttr returns the attribute #shape.expr<m>.
func ExprAttr(m expr.Map) textir.OpaqueAttr {
	return textir.OpaqueAttr{Dialect: Name, Name: ExprAttrName, Params: m.String()}
}

// mapCache memoizes parsed maps by text (maps are immutable).
var mapCache sync.Map // string -> mapEntry

type mapEntry struct {
	m   expr.Map
	err error
}

// ParseExprAttr reads the map of an #shape.expr<...> attribute. Its body is
// the map's text, bare or as one quoted string. Errors say where in the
// body the problem is.
func ParseExprAttr(a textir.Attribute) (expr.Map, error) {
	oa, ok := a.(textir.OpaqueAttr)
	if !ok || oa.Dialect != Name || oa.Name != ExprAttrName {
		return expr.Map{}, fmt.Errorf("expected an #shape.expr<...> attribute")
	}
	if e, ok := mapCache.Load(oa.Params); ok {
		me := e.(mapEntry)
		return me.m, me.err
	}
	m, err := parseMapText(oa.Params)
	mapCache.Store(oa.Params, mapEntry{m, err})
	return m, err
}

func parseMapText(body string) (expr.Map, error) {
	src, shift := body, 0
	if t := strings.TrimSpace(body); strings.HasPrefix(t, `"`) {
		u, err := strconv.Unquote(t)
		if err != nil {
			return expr.Map{}, fmt.Errorf("invalid quoted expression map: %v", err)
		}
		src, shift = u, strings.Index(body, `"`)+1
	}
	m, err := expr.ParseMap(src)
	if err != nil {
		if se, ok := err.(*expr.SyntaxError); ok {
			return expr.Map{}, fmt.Errorf("invalid expression map at column %d of '%s': %s", se.Offset+shift+1, body, se.Msg)
		}
		return expr.Map{}, err
	}
	return m, nil
}

// OpMap returns the map of a shape.apply or shape.assert_shape.
func OpMap(op *textir.Operation) (expr.Map, error) {
	a := op.LookupAttr(MapAttr)
	if a == nil {
		return expr.Map{}, fmt.Errorf("requires attribute '%s'", MapAttr)
	}
	return ParseExprAttr(a)
}

// SymbolOf reports whether v is bound to a named symbol by shape.dim
// (expr.InputDim) or shape.count (expr.DataCount), and which.
func SymbolOf(v *textir.Value) (name string, kind expr.SymKind, ok bool) {
	def := v.DefiningOp()
	if def == nil {
		return "", 0, false
	}
	switch def.Name() {
	case DimOp:
		kind = expr.InputDim
	case CountOp:
		kind = expr.DataCount
	default:
		return "", 0, false
	}
	s, ok := def.LookupAttr(SymbolAttr).(textir.StringAttr)
	if !ok || s.Value == "" {
		return "", 0, false
	}
	return s.Value, kind, true
}

// BuildDim creates shape.dim of dimension i of x, naming the symbol (or
// not, when symbol is "").
func BuildDim(b *textir.Builder, loc textir.Location, x *textir.Value, i int64, symbol string) *textir.Operation {
	st := &textir.OperationState{Name: DimOp, Loc: loc, Operands: []*textir.Value{x}, ResultTypes: []textir.Type{textir.Index()}}
	st.AddAttr(IndexAttr, textir.I64Attr(i))
	if symbol != "" {
		st.AddAttr(SymbolAttr, textir.Str(symbol))
	}
	return b.Create(st)
}

// BuildCount creates shape.count of x, naming the symbol (or not).
func BuildCount(b *textir.Builder, loc textir.Location, x *textir.Value, symbol string) *textir.Operation {
	st := &textir.OperationState{Name: CountOp, Loc: loc, Operands: []*textir.Value{x}, ResultTypes: []textir.Type{textir.Index()}}
	if symbol != "" {
		st.AddAttr(SymbolAttr, textir.Str(symbol))
	}
	return b.Create(st)
}

// BuildApply creates shape.apply computing e, an expression over the
// symbols of a table, with operand value(s) for each symbol s it uses;
// parameters are named with names(s). It returns an error when a symbol
// has no value or e is poisoned.
func BuildApply(b *textir.Builder, loc textir.Location, e expr.Expr, value func(expr.Sym) *textir.Value, names func(expr.Sym) string) (*textir.Operation, error) {
	m, operands, err := MapOf([]expr.Expr{e}, value, names)
	if err != nil {
		return nil, err
	}
	st := &textir.OperationState{Name: ApplyOp, Loc: loc, Operands: operands, ResultTypes: []textir.Type{textir.Index()}}
	st.AddAttr(MapAttr, ExprAttr(m))
	return b.Create(st), nil
}

// BuildAssertShape creates shape.assert_shape stating that x's dims are es
// (expressions over a table's symbols, as in BuildApply).
func BuildAssertShape(b *textir.Builder, loc textir.Location, x *textir.Value, es []expr.Expr, value func(expr.Sym) *textir.Value, names func(expr.Sym) string) (*textir.Operation, error) {
	m, operands, err := MapOf(es, value, names)
	if err != nil {
		return nil, err
	}
	st := &textir.OperationState{Name: AssertShapeOp, Loc: loc, Operands: append([]*textir.Value{x}, operands...)}
	st.AddAttr(MapAttr, ExprAttr(m))
	return b.Create(st), nil
}

// MapOf turns expressions over global symbols into a map over the
// symbols they use (in symbol order) and the operand values of those
// symbols. Parameter names come from names (nil: s<id>), made unique.
func MapOf(es []expr.Expr, value func(expr.Sym) *textir.Value, names func(expr.Sym) string) (expr.Map, []*textir.Value, error) {
	var syms []expr.Sym
	for _, e := range es {
		if err := e.Err(); err != nil {
			return expr.Map{}, nil, err
		}
		syms = append(syms, e.Syms()...)
	}
	syms = uniqueSorted(syms)
	if names == nil {
		names = expr.DefaultName
	}
	pos := map[expr.Sym]expr.Sym{}
	var params []string
	var operands []*textir.Value
	used := map[string]bool{}
	for i, s := range syms {
		v := value(s)
		if v == nil {
			return expr.Map{}, nil, fmt.Errorf("no value for symbol %s", names(s))
		}
		pos[s] = expr.Sym(i)
		params = append(params, uniqueName(names(s), used))
		operands = append(operands, v)
	}
	rs := make([]expr.Expr, len(es))
	for i, e := range es {
		rs[i] = e.Rename(func(s expr.Sym) expr.Sym { return pos[s] })
	}
	m, err := expr.NewMap(params, rs...)
	return m, operands, err
}

func uniqueSorted(s []expr.Sym) []expr.Sym {
	seen := map[expr.Sym]bool{}
	var out []expr.Sym
	for _, x := range s {
		if !seen[x] {
			seen[x] = true
			out = append(out, x)
		}
	}
	for i := 1; i < len(out); i++ {
		for j := i; j > 0 && out[j] < out[j-1]; j-- {
			out[j], out[j-1] = out[j-1], out[j]
		}
	}
	return out
}

// uniqueName returns name, or name_1, name_2, ... if taken; an empty or
// keyword name becomes "v".
func uniqueName(name string, used map[string]bool) string {
	if _, err := expr.NewMap([]string{name}); err != nil { // empty, or a keyword
		name = "v"
	}
	n := name
	for i := 1; used[n]; i++ {
		n = name + "_" + strconv.Itoa(i)
	}
	used[n] = true
	return n
}
