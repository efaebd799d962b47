// Package irdump prints IR in the compact, printer-independent form that the
// rewrite and conversion tests compare against (written before textir's
// printer existed; kept so that those tests do not depend on it), and builds
// the test IR those tests start from (Builder).
package irdump

import (
	"fmt"
	"sort"
	"strings"

	"github.com/recom-compiler/recom/textir"
)

// Dump prints op in a compact generic-like form, naming values in order.
func Dump(op *textir.Operation) string {
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

// Trim removes the common leading tabs of an expected IR literal.
func Trim(s string) string {
	lines := strings.Split(strings.Trim(s, "\n"), "\n")
	for i, l := range lines {
		lines[i] = strings.TrimPrefix(strings.TrimLeft(l, "\t"), "|")
	}
	return strings.Join(lines, "\n") + "\n"
}

// Builder builds test IR tersely: unregistered ops with i64 results,
// appended at the builder's insertion point.
type Builder struct {
	Ctx *textir.Context
	B   *textir.Builder
}

// NewBuilder returns a Builder for ctx.
func NewBuilder(ctx *textir.Context) *Builder {
	return &Builder{Ctx: ctx, B: textir.NewBuilder(ctx)}
}

// Module returns a top-level unregistered test.module with one block, the
// builder positioned inside it.
func (x *Builder) Module() *textir.Operation {
	m := x.Ctx.Create(&textir.OperationState{Name: "test.module", NumRegions: 1})
	x.B.CreateBlock(m.Region(0))
	return m
}

// Region creates an op with one region holding one block (with args), runs
// body inside it and restores the insertion point.
func (x *Builder) Region(name string, argTypes []textir.Type, body func(args []*textir.Value)) *textir.Operation {
	op := x.B.Create(&textir.OperationState{Name: name, NumRegions: 1})
	blk, pos := x.B.Block, x.B.Pos
	nb := x.B.CreateBlock(op.Region(0), argTypes...)
	body(nb.Args())
	x.B.Block, x.B.Pos = blk, pos
	return op
}

// Op creates an op with nres i64 results.
func (x *Builder) Op(name string, nres int, operands ...*textir.Value) *textir.Operation {
	ts := make([]textir.Type, nres)
	for i := range ts {
		ts[i] = textir.I64()
	}
	return x.B.Create(&textir.OperationState{Name: name, Operands: operands, ResultTypes: ts})
}

// V creates an op with one i64 result and returns that result.
func (x *Builder) V(name string, operands ...*textir.Value) *textir.Value {
	return x.Op(name, 1, operands...).Result(0)
}
