package transforms

import (
	"fmt"
	"testing"

	"github.com/recom-compiler/recom/lowering/pass"
	"github.com/recom-compiler/recom/textir"
)

// buildDupFunc builds a module with one function of n pure ops over four
// arguments in which every other op duplicates an earlier one, all used by
// a side-effecting sink so nothing is dead.
func buildDupFunc(ctx *textir.Context, n int) *textir.Operation {
	i32 := textir.IntegerType(32)
	mod := ctx.Create(&textir.OperationState{Name: "builtin.module", NumRegions: 1})
	mb := textir.NewBlock()
	mod.Region(0).AppendBlock(mb)
	f := ctx.Create(&textir.OperationState{Name: "func.func", NumRegions: 1,
		Attrs: []textir.NamedAttribute{{Name: "sym_name", Value: textir.Str("f")}}})
	mb.Append(f)
	fb := textir.NewBlock(i32, i32, i32, i32)
	f.Region(0).AppendBlock(fb)
	vals := fb.Args()
	for i := 0; i < n; i++ {
		a := vals[(i/2*7)%len(vals)]
		b := vals[(i/2*13+1)%len(vals)]
		op := ctx.Create(&textir.OperationState{Name: "arith.addi", Operands: []*textir.Value{a, b}, ResultTypes: []textir.Type{i32}})
		fb.Append(op)
		if i%2 == 1 {
			vals = append(vals, op.Result(0))
			fb.Append(ctx.Create(&textir.OperationState{Name: "test.sink", Operands: []*textir.Value{op.Result(0)}}))
		} else {
			fb.Append(ctx.Create(&textir.OperationState{Name: "test.sink", Operands: []*textir.Value{op.Result(0)}}))
		}
	}
	fb.Append(ctx.Create(&textir.OperationState{Name: "func.return"}))
	return mod
}

func BenchmarkCSE(b *testing.B) {
	for _, n := range []int{1000, 100000} {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			ctx := testContext()
			for b.Loop() {
				b.StopTimer()
				mod := buildDupFunc(ctx, n)
				pm, _ := pass.ParsePipeline("builtin.module(func.func(cse))")
				pm.Config.NoVerify = true
				b.StartTimer()
				if err := pm.Run(ctx, mod); err != nil {
					b.Fatal(err)
				}
				if got := pm.Statistics()["cse"]["num-cse'd"]; got < int64(n/2) {
					b.Fatalf("num-cse'd = %d, want at least %d", got, n/2)
				}
			}
		})
	}
}
