package shard

import (
	"github.com/recom-compiler/recom/dialects/arith"
	"github.com/recom-compiler/recom/dialects/fused/abi"
	"github.com/recom-compiler/recom/dialects/gpu"
	"github.com/recom-compiler/recom/lowering/kernelir"
	"github.com/recom-compiler/recom/textir"
)

// CombineKernelName is the combine kernel's name in the layers' gpu.module.
const CombineKernelName = "combine"

// CombineKernelType is the combine kernel's signature: (map, gathered,
// dens, out, B, W) as abi/exchange.go describes it.
func CombineKernelType() *textir.FunctionType {
	g := func(t textir.Type) textir.Type { return gpu.PtrType(t, gpu.Global) }
	return &textir.FunctionType{Inputs: []textir.Type{g(textir.I32()), g(textir.F32()), g(textir.F32()), g(textir.F32()), textir.I64(), textir.I64()}}
}

// BuildCombineKernel returns the combine kernel: one thread per output
// float (b, j) of the exchange's [B, W] result, which reads its segment
// from the map, sums the segment's pieces of the gathered partials, divides
// by the bag's den when the segment has one, and stores the float. It is
// the same code for every exchange (the map says what goes where).
func BuildCombineKernel(ctx *textir.Context, loc textir.Location) *textir.Operation {
	fn := gpu.NewFunc(ctx, loc, CombineKernelName, CombineKernelType(), true)
	fn.SetAttr("max_threads", textir.I64Attr(abi.CombineBlock))
	body := fn.Region(0).Front()
	b := textir.NewBuilder(ctx)
	b.SetInsertionPointToEnd(body)
	k := &kernelir.Builder{B: b, Loc: loc}
	mp, gathered, dens, out, batch, width := body.Arg(0), body.Arg(1), body.Arg(2), body.Arg(3), body.Arg(4), body.Arg(5)
	i64, f32 := textir.I64(), textir.F32()
	word := func(idx *textir.Value) *textir.Value {
		return k.Cast(arith.ExtSIOp, k.Load(mp, idx, 1, true)[0], i64)
	}
	t := k.Add(k.Mul(k.Dim(gpu.BlockIdOp), k.C64(abi.CombineBlock)), k.Dim(gpu.ThreadIdOp))
	k.IfThen(k.Cmp(arith.SLT, t, k.Mul(batch, width)), func() {
		row := k.Bin(arith.DivUIOp, t, width)
		j := k.Bin(arith.SubIOp, t, k.Mul(row, width))
		d := k.Add(width, k.Mul(word(j), k.C64(4)))
		e := k.Bin(arith.SubIOp, j, word(d))
		den := word(k.AddC(d, 1))
		pieces := word(k.AddC(d, 2))
		first := word(k.AddC(d, 3))
		acc := k.For(k.C64(0), pieces, k.C64(1), []*textir.Value{k.CF(0, f32)}, func(q *textir.Value, it []*textir.Value) []*textir.Value {
			pw := k.Add(first, k.Mul(q, k.C64(3)))
			idx := k.Add(k.Add(k.Mul(batch, word(pw)), k.Mul(row, word(k.AddC(pw, 1)))), k.Add(word(k.AddC(pw, 2)), e))
			x := k.Load(gathered, idx, 1, true)[0]
			return []*textir.Value{k.Bin(arith.AddFOp, it[0], x)}
		})[0]
		v := k.If(k.Cmp(arith.SGE, den, k.C64(0)), []textir.Type{f32}, func() []*textir.Value {
			dv := k.Load(dens, k.Add(k.Mul(den, batch), row), 1, true)[0]
			return []*textir.Value{k.Bin(arith.DivFOp, acc, dv)}
		}, func() []*textir.Value { return []*textir.Value{acc} })[0]
		k.Store([]*textir.Value{v}, out, t)
	})
	k.Op(gpu.ReturnOp, nil, nil)
	return fn
}
