package embtogpu

import (
	"encoding/binary"
	"math"
	"testing"

	"github.com/recom-compiler/recom/dialects/all"
	"github.com/recom-compiler/recom/dialects/arith"
	"github.com/recom-compiler/recom/dialects/gpu"
	"github.com/recom-compiler/recom/lowering/kernelir"
	"github.com/recom-compiler/recom/textir"
)

// The harness of the emitters' unit tests (farmhash_test.go, vocab_test.go):
// small kernels around one emitter, run in the gpu dialect's simulator.

// testKernel builds kernel @name (max_threads block) whose threads
// g < the argument at index countArg run body.
func testKernel(ctx *textir.Context, loc textir.Location, name string, block int64, inputs []textir.Type, countArg int,
	body func(k *kb, a []*textir.Value, g *textir.Value)) *textir.Operation {
	fn := gpu.NewFunc(ctx, loc, name, &textir.FunctionType{Inputs: inputs}, true)
	fn.SetAttr("max_threads", textir.I64Attr(block))
	blk := fn.Region(0).Front()
	b := textir.NewBuilder(ctx)
	b.SetInsertionPointToEnd(blk)
	k := &kb{kernelir.Builder{B: b, Loc: loc}}
	g := k.Add(k.Mul(k.Dim(gpu.BlockIdOp), k.Dim(gpu.BlockDimOp)), k.Dim(gpu.ThreadIdOp))
	k.IfThen(k.Cmp(arith.SLT, g, blk.Arg(countArg)), func() { body(k, blk.Args(), g) })
	k.Op(gpu.ReturnOp, nil, nil)
	return fn
}

// roundTrip verifies top, prints it, parses the text back (as file) in a
// new context, verifies that and checks that it prints the same; it
// returns the parsed module.
func roundTrip(t *testing.T, ctx *textir.Context, top *textir.Operation, file string) *textir.Operation {
	t.Helper()
	if err := textir.Verify(ctx, top); err != nil {
		t.Fatal(err)
	}
	text := textir.OpString(top, textir.PrintOptions{})
	pctx := all.NewContext()
	back, err := textir.Parse(pctx, file, []byte(text))
	if err != nil {
		t.Fatalf("parse back: %v", err)
	}
	if err := textir.Verify(pctx, back); err != nil {
		t.Fatalf("verify the parsed module: %v", err)
	}
	if again := textir.OpString(back, textir.PrintOptions{}); again != text {
		t.Fatalf("print/parse/print differs:\n%s\n----\n%s", text, again)
	}
	return back
}

// kernelFunc returns the gpu.func @name of top.
func kernelFunc(t *testing.T, top *textir.Operation, name string) *textir.Operation {
	t.Helper()
	var fn *textir.Operation
	top.Walk(func(op *textir.Operation) bool {
		if n, ok := textir.SymbolName(op); ok && n == name && op.Name() == gpu.FuncOp {
			fn = op
		}
		return true
	})
	if fn == nil {
		t.Fatalf("no gpu.func @%s", name)
	}
	return fn
}

// launch compiles @name of top and runs it over threads threads in blocks
// of block, with args.
func launch(t *testing.T, top *textir.Operation, name string, block, threads int64, args ...any) {
	t.Helper()
	k, err := gpu.Compile(kernelFunc(t, top, name))
	if err != nil {
		t.Fatalf("compile @%s: %v", name, err)
	}
	if err := k.Launch((threads+block-1)/block, block, args, nil); err != nil {
		t.Fatalf("launch @%s: %v", name, err)
	}
}

// leBytes lays v out little-endian.
func leBytes[T uint32 | int32 | int64 | float32 | float64](v []T) []byte {
	var b []byte
	for _, x := range v {
		var u uint64
		n := 4
		switch x := any(x).(type) {
		case uint32:
			u = uint64(x)
		case int32:
			u = uint64(uint32(x))
		case int64:
			u, n = uint64(x), 8
		case float32:
			u = uint64(math.Float32bits(x))
		case float64:
			u, n = math.Float64bits(x), 8
		}
		b = binary.LittleEndian.AppendUint64(b, u)[:len(b)+n]
	}
	return b
}
