// Package kernelir builds gpu-dialect kernel IR: the small helpers the
// lowerings that write kernels (embtogpu's fused embedding layer,
// densetogpu's products) share — ops at an insertion point, constants,
// integer and float arithmetic, comparisons and selects, memory, and the
// structured control flow of gpu.for and gpu.if with their regions.
package kernelir

import (
	"github.com/recom-compiler/recom/dialects/arith"
	"github.com/recom-compiler/recom/dialects/gpu"
	"github.com/recom-compiler/recom/textir"
)

// Builder creates ops at B's insertion point with location Loc.
type Builder struct {
	B   *textir.Builder
	Loc textir.Location
}

// Op creates one op.
func (k *Builder) Op(name string, operands []*textir.Value, results []textir.Type, attrs ...textir.NamedAttribute) *textir.Operation {
	return k.B.Create(&textir.OperationState{Name: name, Loc: k.Loc, Operands: operands, ResultTypes: results, Attrs: attrs})
}

// Val creates an op of one result of type t (any arith or gpu op that
// makes one value) and returns the result.
func (k *Builder) Val(name string, operands []*textir.Value, t textir.Type, attrs ...textir.NamedAttribute) *textir.Value {
	return k.Op(name, operands, []textir.Type{t}, attrs...).Result(0)
}

// Const is an arith.constant of a (an integer or float attribute).
func (k *Builder) Const(a textir.Attribute) *textir.Value {
	c, _ := arith.AsConstant(arith.Constant(k.B, k.Loc, a))
	return c.Result()
}

// C64 is an i64 constant.
func (k *Builder) C64(v int64) *textir.Value { return k.Const(textir.I64Attr(v)) }

// CF is a float constant of type t.
func (k *Builder) CF(v float64, t textir.Type) *textir.Value {
	return k.Const(textir.FloatAttr{Value: v, Type: t})
}

// Bin is a binary op whose result has x's type.
func (k *Builder) Bin(name string, x, y *textir.Value) *textir.Value {
	return k.Val(name, []*textir.Value{x, y}, x.Type())
}

// Add and Mul are arith.addi and arith.muli.
func (k *Builder) Add(x, y *textir.Value) *textir.Value { return k.Bin(arith.AddIOp, x, y) }
func (k *Builder) Mul(x, y *textir.Value) *textir.Value { return k.Bin(arith.MulIOp, x, y) }

// AddC adds an i64 constant (nothing for 0).
func (k *Builder) AddC(x *textir.Value, c int64) *textir.Value {
	if c == 0 {
		return x
	}
	return k.Add(x, k.C64(c))
}

// Cmp is arith.cmpi with predicate p.
func (k *Builder) Cmp(p arith.Predicate, x, y *textir.Value) *textir.Value {
	return k.Val(arith.CmpIOp, []*textir.Value{x, y}, textir.I1(),
		textir.NamedAttribute{Name: "predicate", Value: textir.I64Attr(int64(p))})
}

// CmpF is arith.cmpf with predicate p.
func (k *Builder) CmpF(p arith.FPredicate, x, y *textir.Value) *textir.Value {
	return k.Val(arith.CmpFOp, []*textir.Value{x, y}, textir.I1(),
		textir.NamedAttribute{Name: "predicate", Value: textir.I64Attr(int64(p))})
}

// Sel is arith.select.
func (k *Builder) Sel(c, x, y *textir.Value) *textir.Value {
	return k.Val(arith.SelectOp, []*textir.Value{c, x, y}, x.Type())
}

// Cast is a one-operand conversion op (arith.extsi, arith.sitofp, ...) to t.
func (k *Builder) Cast(name string, x *textir.Value, t textir.Type) *textir.Value {
	return k.Val(name, []*textir.Value{x}, t)
}

// Dim reads a thread-hierarchy register (gpu.thread_id, gpu.block_id, ...)
// of dimension x, as i64.
func (k *Builder) Dim(name string) *textir.Value {
	v := k.Val(name, nil, textir.I32(), textir.NamedAttribute{Name: "dimension", Value: textir.Str("x")})
	return k.Cast(arith.ExtSIOp, v, textir.I64())
}

// Load is gpu.load of width elements at element idx of p (readonly: the
// ld.global.nc path, for data the kernel does not write).
func (k *Builder) Load(p, idx *textir.Value, width int64, readonly bool) []*textir.Value {
	var attrs []textir.NamedAttribute
	if width > 1 {
		attrs = append(attrs, textir.NamedAttribute{Name: "width", Value: textir.I64Attr(width)})
	}
	if readonly {
		attrs = append(attrs, textir.NamedAttribute{Name: "readonly", Value: textir.UnitAttr{}})
	}
	rt := make([]textir.Type, width)
	for i := range rt {
		rt[i] = gpu.PtrElem(p.Type())
	}
	ld, _ := gpu.AsLoad(k.Op(gpu.LoadOp, []*textir.Value{p, idx}, rt, attrs...))
	return ld.Values()
}

// Store is gpu.store of vals (1, 2 or 4) at element idx of p.
func (k *Builder) Store(vals []*textir.Value, p, idx *textir.Value) {
	var attrs []textir.NamedAttribute
	if len(vals) > 1 {
		attrs = append(attrs, textir.NamedAttribute{Name: "width", Value: textir.I64Attr(int64(len(vals)))})
	}
	k.Op(gpu.StoreOp, append(append([]*textir.Value(nil), vals...), p, idx), nil, attrs...)
}

// For builds gpu.for %iv = lb to ub step st iter_args(inits); body returns
// the values to yield; the results are the loop's.
func (k *Builder) For(lb, ub, st *textir.Value, inits []*textir.Value, body func(iv *textir.Value, iters []*textir.Value) []*textir.Value) []*textir.Value {
	types := make([]textir.Type, len(inits))
	for i, v := range inits {
		types[i] = v.Type()
	}
	op := k.B.Create(&textir.OperationState{Name: gpu.ForOp, Loc: k.Loc, Operands: append([]*textir.Value{lb, ub, st}, inits...),
		ResultTypes: types, NumRegions: 1})
	op.Region(0).AppendBlock(textir.NewBlock(append([]textir.Type{lb.Type()}, types...)...))
	saved := *k.B
	blk := op.Region(0).Front()
	k.B.SetInsertionPointToEnd(blk)
	ys := body(blk.Arg(0), blk.Args()[1:])
	k.Op(gpu.YieldOp, ys, nil)
	*k.B = saved
	loop, _ := gpu.AsFor(op)
	return loop.Results()
}

// If builds gpu.if %c -> (types) with both branches (els may be nil when
// types is empty); each returns the values to yield.
func (k *Builder) If(c *textir.Value, types []textir.Type, then, els func() []*textir.Value) []*textir.Value {
	op := k.B.Create(&textir.OperationState{Name: gpu.IfOp, Loc: k.Loc, Operands: []*textir.Value{c}, ResultTypes: types, NumRegions: 2})
	saved := *k.B
	for r, body := range []func() []*textir.Value{then, els} {
		if body == nil {
			continue
		}
		op.Region(r).AppendBlock(textir.NewBlock())
		k.B.SetInsertionPointToEnd(op.Region(r).Front())
		k.Op(gpu.YieldOp, body(), nil)
	}
	*k.B = saved
	cond, _ := gpu.AsIf(op)
	return cond.Results()
}

// IfThen builds gpu.if %c { then } without results or else branch.
func (k *Builder) IfThen(c *textir.Value, then func()) {
	k.If(c, nil, func() []*textir.Value { then(); return nil }, nil)
}
