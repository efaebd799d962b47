package conversion

import (
	"fmt"
	"sort"
	"strings"

	"github.com/recom-compiler/recom/textir"
)

func newCtx() *textir.Context {
	ctx := textir.NewContext()
	ctx.AllowUnregistered = true
	return ctx
}

// irb builds test IR tersely.
type irb struct {
	ctx *textir.Context
	b   *textir.Builder
}

func newIRB(ctx *textir.Context) *irb { return &irb{ctx: ctx, b: textir.NewBuilder(ctx)} }

func (x *irb) module() *textir.Operation {
	m := x.ctx.Create(&textir.OperationState{Name: "test.module", NumRegions: 1})
	x.b.CreateBlock(m.Region(0))
	return m
}

func (x *irb) region(name string, argTypes []textir.Type, body func(args []*textir.Value)) *textir.Operation {
	op := x.b.Create(&textir.OperationState{Name: name, NumRegions: 1})
	blk, pos := x.b.Block, x.b.Pos
	nb := x.b.CreateBlock(op.Region(0), argTypes...)
	body(nb.Args())
	x.b.Block, x.b.Pos = blk, pos
	return op
}

func (x *irb) op(name string, nres int, operands ...*textir.Value) *textir.Operation {
	ts := make([]textir.Type, nres)
	for i := range ts {
		ts[i] = textir.I64()
	}
	return x.b.Create(&textir.OperationState{Name: name, Operands: operands, ResultTypes: ts})
}

func (x *irb) v(name string, operands ...*textir.Value) *textir.Value {
	return x.op(name, 1, operands...).Result(0)
}

func at(op *textir.Operation, line int) *textir.Operation {
	op.SetLoc(textir.FileLineColLoc{File: "t.mlir", Line: line, Col: 3})
	return op
}

// dump prints op in a compact generic-like form, naming values in order.
func dump(op *textir.Operation) string {
	var sb strings.Builder
	names := map[*textir.Value]string{}
	nv, na := 0, 0
	name := func(v *textir.Value) string {
		if n, ok := names[v]; ok {
			return n
		}
		return "%<undef>"
	}
	var pr func(o *textir.Operation, indent string)
	pr = func(o *textir.Operation, indent string) {
		sb.WriteString(indent)
		if o.NumResults() > 0 {
			var rs []string
			for _, r := range o.Results() {
				names[r] = fmt.Sprintf("%%%d", nv)
				nv++
				rs = append(rs, names[r])
			}
			sb.WriteString(strings.Join(rs, ", ") + " = ")
		}
		sb.WriteString(o.Name())
		if o.NumOperands() > 0 {
			var os []string
			for _, v := range o.Operands() {
				os = append(os, name(v))
			}
			sb.WriteString("(" + strings.Join(os, ", ") + ")")
		}
		if as := o.Attrs(); len(as) > 0 {
			var parts []string
			for _, a := range as {
				parts = append(parts, a.Name+" = "+attrStr(a.Value))
			}
			sort.Strings(parts)
			sb.WriteString(" {" + strings.Join(parts, ", ") + "}")
		}
		for _, r := range o.Regions() {
			sb.WriteString(" {\n")
			for _, b := range r.Blocks() {
				if b.NumArgs() > 0 {
					var args []string
					for _, a := range b.Args() {
						names[a] = fmt.Sprintf("%%arg%d", na)
						na++
						args = append(args, names[a]+": "+a.Type().String())
					}
					sb.WriteString(indent + "^(" + strings.Join(args, ", ") + "):\n")
				}
				for c := b.First(); c != nil; c = c.Next() {
					pr(c, indent+"  ")
				}
			}
			sb.WriteString(indent + "}")
		}
		if o.NumResults() > 0 && o.Result(0).Type() != textir.I64() {
			var ts []string
			for _, t := range o.ResultTypes() {
				ts = append(ts, t.String())
			}
			sb.WriteString(" : " + strings.Join(ts, ", "))
		}
		sb.WriteString("\n")
	}
	pr(op, "")
	return sb.String()
}

func attrStr(a textir.Attribute) string {
	switch a := a.(type) {
	case textir.IntegerAttr:
		return fmt.Sprint(a.Value)
	case textir.StringAttr:
		return fmt.Sprintf("%q", a.Value)
	case textir.TypeAttr:
		return a.Type.String()
	}
	return fmt.Sprintf("%v", a)
}

// trim removes the common leading tabs of an expected IR literal.
func trim(s string) string {
	lines := strings.Split(strings.Trim(s, "\n"), "\n")
	for i, l := range lines {
		lines[i] = strings.TrimPrefix(strings.TrimLeft(l, "\t"), "|")
	}
	return strings.Join(lines, "\n") + "\n"
}

// cpat makes a conversion pattern from a function.
func cpat(root, name string, benefit int, fn func(op *textir.Operation, operands []*textir.Value, rw *ConversionRewriter) bool) ConversionPattern {
	return &Pattern{RootName: root, PatternName: name, Weight: benefit, Fn: fn}
}

// rename converts op into an op named to, with the converted operands and
// result types converted by tc (when given).
func rename(root, to string, tc *TypeConverter) ConversionPattern {
	return cpat(root, root+"->"+to, 1, func(op *textir.Operation, operands []*textir.Value, rw *ConversionRewriter) bool {
		ts := op.ResultTypes()
		if tc != nil {
			var ok bool
			if ts, ok = tc.ConvertTypes(ts); !ok {
				return false
			}
		}
		n := rw.Create(&textir.OperationState{Name: to, Operands: operands, ResultTypes: ts, Attrs: op.Attrs(), Loc: op.Loc()})
		rw.ReplaceOp(op, n.Results())
		return true
	})
}

// i64ToI32 converts i64 to i32 and keeps every other type.
func i64ToI32() *TypeConverter {
	return NewTypeConverter(
		func(t textir.Type) (textir.Type, bool) { return t, true },
		func(t textir.Type) (textir.Type, bool) {
			if t == textir.I64() {
				return textir.I32(), true
			}
			return nil, false
		})
}
