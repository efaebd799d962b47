package kernelir_test

import (
	"encoding/binary"
	"testing"

	"github.com/recom-compiler/recom/dialects/all"
	"github.com/recom-compiler/recom/dialects/arith"
	"github.com/recom-compiler/recom/dialects/gpu"
	"github.com/recom-compiler/recom/lowering/kernelir"
	"github.com/recom-compiler/recom/textir"
)

// A kernel built with every helper runs in the simulator: thread t
// stores sum(0..t-1) (For), then t*2 for even t (If with results) and
// t+100 for odd t (IfThen), after loading its input.
func TestBuilderKernel(t *testing.T) {
	ctx := all.NewContext()
	loc := textir.NameLoc{Name: "k"}
	mod := gpu.NewModule(ctx, loc, "m")
	p64 := gpu.PtrType(textir.I64(), gpu.Global)
	fn := gpu.NewFunc(ctx, loc, "k", &textir.FunctionType{Inputs: []textir.Type{p64, p64}}, true)
	mod.Region(0).Front().Append(fn)
	body := fn.Region(0).Front()
	b := textir.NewBuilder(ctx)
	b.SetInsertionPointToEnd(body)
	k := &kernelir.Builder{B: b, Loc: loc}
	in, out := body.Arg(0), body.Arg(1)
	tid := k.Dim(gpu.ThreadIdOp)
	x := k.Load(in, tid, 1, true)[0]
	sum := k.For(k.C64(0), tid, k.C64(1), []*textir.Value{k.C64(0)}, func(i *textir.Value, it []*textir.Value) []*textir.Value {
		return []*textir.Value{k.Add(it[0], i)}
	})[0]
	k.Store([]*textir.Value{k.Add(sum, k.Mul(x, k.C64(0)))}, out, k.Mul(tid, k.C64(2)))
	even := k.Cmp(arith.EQ, k.Bin(arith.AndIOp, tid, k.C64(1)), k.C64(0))
	v := k.If(even, []textir.Type{textir.I64()},
		func() []*textir.Value { return []*textir.Value{k.Mul(tid, k.C64(2))} },
		func() []*textir.Value { return []*textir.Value{k.Sel(even, tid, k.C64(-1))} })[0]
	k.Store([]*textir.Value{v}, out, k.AddC(k.Mul(tid, k.C64(2)), 1))
	k.IfThen(k.Cmp(arith.NE, v, k.C64(-1)), func() {}) // an empty then branch verifies and runs
	k.IfThen(k.Cmp(arith.EQ, v, k.C64(-1)), func() {
		k.Store([]*textir.Value{k.AddC(tid, 100)}, out, k.AddC(k.Mul(tid, k.C64(2)), 1))
	})
	k.Op(gpu.ReturnOp, nil, nil)
	if err := textir.Verify(ctx, mod); err != nil {
		t.Fatal(err)
	}
	kern, err := gpu.Compile(fn)
	if err != nil {
		t.Fatal(err)
	}
	const n = 8
	inBuf, outBuf := make([]byte, 8*n), make([]byte, 16*n)
	if err := kern.Launch(1, n, []any{gpu.Buf{Data: inBuf}, gpu.Buf{Data: outBuf}}, nil); err != nil {
		t.Fatal(err)
	}
	for i := int64(0); i < n; i++ {
		got := int64(binary.LittleEndian.Uint64(outBuf[16*i:]))
		odd := int64(binary.LittleEndian.Uint64(outBuf[16*i+8:]))
		want, wantOdd := i*(i-1)/2, 2*i
		if i%2 == 1 {
			wantOdd = i + 100
		}
		if got != want || odd != wantOdd {
			t.Errorf("thread %d: got %d, %d; want %d, %d", i, got, odd, want, wantOdd)
		}
	}
}
