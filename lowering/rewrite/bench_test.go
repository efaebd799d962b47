package rewrite

import (
	"testing"

	"github.com/recom-compiler/recom/textir"
)

// bigModule builds a tst.func holding n ops with nothing to canonicalize:
// a chain of adds and muls over the function's arguments, each used by an
// unregistered sink so nothing is dead, plus a pattern-bearing op kind.
func bigModule(ctx *textir.Context, n int) *textir.Operation {
	x := newIRB(ctx)
	m := x.Module()
	x.Region("tst.func", []textir.Type{textir.I64(), textir.I64()}, func(args []*textir.Value) {
		prev := args[0]
		for i := 0; i+1 < n; i += 2 {
			var v *textir.Value
			if i%4 == 0 {
				v = x.V("tst.add", prev, args[1])
			} else {
				v = x.V("tst.mul", prev, args[1])
			}
			x.Op("test.sink", 0, v)
			prev = v
		}
	})
	return m
}

// BenchmarkCanonicalizeNoop measures one greedy run over a module of 1e6
// ops where nothing changes (one sweep: fold attempts, DCE checks and
// pattern lookups for every op). ns/op is the time of the whole run.
func BenchmarkCanonicalizeNoop(b *testing.B) {
	ctx := newCtx()
	m := bigModule(ctx, 1_000_000)
	never := func(op *textir.Operation, rw textir.PatternRewriter) bool { return false }
	ps := NewPatternSet(ctx, append(CanonicalizationPatterns(ctx),
		pat("tst.add", "never-add", 1, never), pat("test.sink", "never-sink", 1, never)))
	cfg := DefaultGreedyConfig()
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		r, err := ApplyPatternsGreedily(m, ps, cfg)
		if err != nil || r.Changed || r.Iterations != 1 {
			b.Fatalf("%+v %v", r, err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/1e6, "ns/IRop")
}

// BenchmarkFoldChain measures folding a chain of 100k constant adds into
// one constant (each fold materialises, uniques and erases).
func BenchmarkFoldChain(b *testing.B) {
	ctx := newCtx()
	cfg := DefaultGreedyConfig()
	for b.Loop() {
		b.StopTimer()
		x := newIRB(ctx)
		m := x.Module()
		x.Region("tst.func", nil, func([]*textir.Value) {
			v := x.c(1)
			for i := 0; i < 100_000; i++ {
				v = x.V("tst.add", v, x.c(1))
			}
			x.Op("test.sink", 0, v)
		})
		ps := NewPatternSet(ctx, nil)
		b.StartTimer()
		r, err := ApplyPatternsGreedily(m, ps, cfg)
		if err != nil || !r.Converged || r.Folded != 100_000 {
			b.Fatalf("%+v %v", r, err)
		}
	}
}
