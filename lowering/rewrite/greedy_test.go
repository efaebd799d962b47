package rewrite

import (
	"errors"
	"strings"
	"testing"

	"github.com/recom-compiler/recom/textir"
)

func run(t *testing.T, ctx *textir.Context, root *textir.Operation, pats []textir.RewritePattern, cfg GreedyConfig) Result {
	t.Helper()
	res, err := ApplyPatternsGreedily(root, NewPatternSet(ctx, pats), cfg)
	if err != nil {
		t.Fatalf("ApplyPatternsGreedily: %v", err)
	}
	return res
}

func TestFoldAndDCE(t *testing.T) {
	tests := []struct {
		name  string
		build func(x *irb)
		cfg   func(*GreedyConfig)
		want  string
		check func(t *testing.T, r Result)
	}{
		{
			name: "fold to one uniqued constant",
			build: func(x *irb) {
				a, b := x.c(1), x.c(2)
				s := x.V("tst.add", a, b)
				u := x.V("tst.add", a, b)
				x.Op("test.use", 0, s, u)
			},
			want: `
				|test.module {
				|  %0 = tst.const {value = 3}
				|  test.use(%0, %0)
				|}`,
			check: func(t *testing.T, r Result) {
				if r.Folded != 2 || r.Erased != 2 || !r.Converged || !r.Changed {
					t.Errorf("result %+v: want Folded=2 Erased=2 converged", r)
				}
			},
		},
		{
			name: "fold reuses an existing equal constant",
			build: func(x *irb) {
				three := x.c(3)
				s := x.V("tst.add", x.c(1), x.c(2))
				x.Op("test.use", 0, s, three)
			},
			want: `
				|test.module {
				|  %0 = tst.const {value = 3}
				|  test.use(%0, %0)
				|}`,
		},
		{
			name: "duplicate constants merge and hoist",
			build: func(x *irb) {
				x.Op("test.side", 0)
				a := x.c(7)
				x.Op("test.use", 0, a)
				b := x.c(7)
				x.Op("test.use", 0, b)
			},
			want: `
				|test.module {
				|  %0 = tst.const {value = 7}
				|  test.side
				|  test.use(%0)
				|  test.use(%0)
				|}`,
		},
		{
			name: "constants hoist out of non-isolated regions but not isolated ones",
			build: func(x *irb) {
				x.Region("tst.func", []textir.Type{textir.I64()}, func(args []*textir.Value) {
					x.Op("test.side", 0)
					x.Region("tst.scope", nil, func([]*textir.Value) {
						x.Op("test.use", 0, x.V("tst.add", x.c(1), x.c(1)))
					})
				})
				x.Op("test.use", 0, x.c(2))
			},
			want: `
				|test.module {
				|  %0 = tst.const {value = 2}
				|  tst.func {
				|  ^(%arg0: i64):
				|    %1 = tst.const {value = 2}
				|    test.side
				|    tst.scope {
				|      test.use(%1)
				|    }
				|  }
				|  test.use(%0)
				|}`,
		},
		{
			name: "folding to an existing value",
			build: func(x *irb) {
				x.Region("tst.func", []textir.Type{textir.I64()}, func(args []*textir.Value) {
					n := x.V("tst.neg", x.V("tst.neg", args[0]))
					x.Op("test.use", 0, x.V("tst.add", n, x.c(0)))
				})
			},
			want: `
				|test.module {
				|  tst.func {
				|  ^(%arg0: i64):
				|    test.use(%arg0)
				|  }
				|}`,
		},
		{
			name: "in-place fold",
			build: func(x *irb) {
				x.Region("tst.func", []textir.Type{textir.I64()}, func(args []*textir.Value) {
					x.Op("test.use", 0, x.V("tst.mul", x.c(5), args[0]))
				})
			},
			want: `
				|test.module {
				|  tst.func {
				|  ^(%arg0: i64):
				|    %0 = tst.const {value = 5}
				|    %1 = tst.mul(%arg0, %0)
				|    test.use(%1)
				|  }
				|}`,
			check: func(t *testing.T, r Result) {
				if r.Folded != 1 || !r.Converged {
					t.Errorf("result %+v: want one in-place fold", r)
				}
			},
		},
		{
			name: "dead chain removed in one sweep",
			build: func(x *irb) {
				x.Region("tst.func", []textir.Type{textir.I64()}, func(args []*textir.Value) {
					a := x.V("tst.neg", args[0])
					b := x.V("tst.mul", a, args[0])
					c := x.V("tst.add", b, b)
					x.V("tst.mul", c, a)
					x.V("test.opaque", a) // unregistered: not known to be pure, kept
				})
			},
			want: `
				|test.module {
				|  tst.func {
				|  ^(%arg0: i64):
				|    %0 = tst.neg(%arg0)
				|    %1 = test.opaque(%0)
				|  }
				|}`,
			check: func(t *testing.T, r Result) {
				if r.Erased != 3 || r.Iterations != 2 {
					t.Errorf("result %+v: want 3 erased in 2 sweeps (one to change, one to confirm)", r)
				}
			},
		},
		{
			name: "DCE and folding off",
			build: func(x *irb) {
				x.V("tst.add", x.c(1), x.c(2))
			},
			cfg: func(c *GreedyConfig) { c.EnableDCE, c.EnableFolding = false, false },
			want: `
				|test.module {
				|  %0 = tst.const {value = 1}
				|  %1 = tst.const {value = 2}
				|  %2 = tst.add(%0, %1)
				|}`,
		},
		{
			name: "top-down traversal folds too",
			build: func(x *irb) {
				s := x.V("tst.add", x.c(1), x.c(2))
				x.Op("test.use", 0, x.V("tst.add", s, x.c(4)))
			},
			cfg: func(c *GreedyConfig) { c.UseTopDownTraversal = true },
			want: `
				|test.module {
				|  %0 = tst.const {value = 7}
				|  test.use(%0)
				|}`,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ctx := newCtx()
			x := newIRB(ctx)
			m := x.Module()
			tc.build(x)
			cfg := DefaultGreedyConfig()
			if tc.cfg != nil {
				tc.cfg(&cfg)
			}
			r := run(t, ctx, m, nil, cfg)
			if got, want := dump(m), trim(tc.want); got != want {
				t.Errorf("got:\n%s\nwant:\n%s", got, want)
			}
			if tc.check != nil {
				tc.check(t, r)
			}
		})
	}
}

func TestPatternBenefitOrder(t *testing.T) {
	ctx := newCtx()
	pats := []textir.RewritePattern{
		renameTo("test.a", "test.low", 1),
		renameTo("test.a", "test.high", 5),
		renameTo("test.a", "test.high2", 5), // tie: registered later, tried later
		renameTo("", "test.any", 3),         // any-op, between
	}
	ps := NewPatternSet(ctx, pats)
	var names []string
	for _, p := range ps.For("test.a") {
		names = append(names, p.Name())
	}
	if got, want := strings.Join(names, " "), "test.a->test.high test.a->test.high2 ->test.any test.a->test.low"; got != want {
		t.Errorf("order: got %q want %q", got, want)
	}
	if l := ps.For("test.other"); len(l) != 1 || l[0].Name() != "->test.any" {
		t.Errorf("ops without own patterns get the any-op patterns, got %v", l)
	}

	// Applied: only the best pattern fires on test.a, then the any-op
	// pattern would rename everything: restrict it to test.b.
	x := newIRB(ctx)
	m := x.Module()
	x.Op("test.use", 0, x.V("test.a"))
	pats = []textir.RewritePattern{
		renameTo("test.a", "test.low", 1),
		renameTo("test.a", "test.high", 5),
	}
	r := run(t, ctx, m, pats, DefaultGreedyConfig())
	if got := dump(m); !strings.Contains(got, "test.high") || strings.Contains(got, "test.low") {
		t.Errorf("highest benefit should win:\n%s", got)
	}
	if r.Applied["test.a->test.high"] != 1 || len(r.Applied) != 1 {
		t.Errorf("Applied = %v", r.Applied)
	}
}

func TestNonConvergence(t *testing.T) {
	pingPong := []textir.RewritePattern{renameTo("test.a", "test.b", 1), renameTo("test.b", "test.a", 1)}
	// bump changes another op each time it runs, which re-queues only that
	// op: every sweep changes once, so the iteration limit is what stops it.
	bump := pat("test.bump", "bump", 1, func(op *textir.Operation, rw textir.PatternRewriter) bool {
		sink := op.Block().Last()
		rw.ModifyOpInPlace(sink, func() {
			n, _ := sink.Attr("n").(textir.IntegerAttr)
			sink.SetAttr("n", textir.I64Attr(n.Value+1))
		})
		return true
	})
	tests := []struct {
		name    string
		pats    []textir.RewritePattern
		strict  bool
		maxRW   int
		wantErr string
		iters   int
	}{
		{name: "ping-pong hits the rewrite limit", pats: pingPong, maxRW: 50, iters: 1},
		{name: "ping-pong strict", pats: pingPong, maxRW: 50, strict: true, iters: 1,
			wantErr: "loc(unknown): error: greedy rewriter did not converge after 1 iterations (rewrite limit of 50 reached)"},
		{name: "ping-pong default limit", pats: pingPong, iters: 1},
		{name: "iteration limit", pats: []textir.RewritePattern{bump}, iters: 10},
		{name: "iteration limit strict", pats: []textir.RewritePattern{bump}, strict: true, iters: 10,
			wantErr: "loc(unknown): error: greedy rewriter did not converge after 10 iterations"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ctx := newCtx()
			x := newIRB(ctx)
			m := x.Module()
			x.Op("test.use", 0, x.V("test.a"))
			x.Op("test.bump", 0)
			x.Op("test.sink", 0)
			cfg := DefaultGreedyConfig()
			cfg.Strict, cfg.MaxRewrites = tc.strict, tc.maxRW
			r, err := ApplyPatternsGreedily(m, NewPatternSet(ctx, tc.pats), cfg)
			if r.Converged || r.Iterations != tc.iters || !r.Changed {
				t.Errorf("result %+v: want not converged after %d iterations", r, tc.iters)
			}
			if tc.wantErr == "" {
				if err != nil {
					t.Fatalf("unexpected error %v", err)
				}
				return
			}
			var d *textir.Diagnostic
			if !errors.As(err, &d) || err.Error() != tc.wantErr {
				t.Fatalf("error %v (%T), want Diagnostic %q", err, err, tc.wantErr)
			}
		})
	}
}

// recorder logs every op visited by the driver (as an any-op pattern of the
// lowest benefit that never matches).
type recorder struct{ visits []*textir.Operation }

func (r *recorder) pattern() textir.RewritePattern {
	return pat("", "record", -100, func(op *textir.Operation, _ textir.PatternRewriter) bool {
		r.visits = append(r.visits, op)
		return false
	})
}

func TestErasedOpsNeverRevisited(t *testing.T) {
	for _, topDown := range []bool{false, true} {
		ctx := newCtx()
		x := newIRB(ctx)
		m := x.Module()
		first := x.Op("test.first", 0)
		victim := x.Op("test.victim", 0)
		nested := x.Region("test.holder", nil, func([]*textir.Value) { x.Op("test.inner", 0) })
		last := x.Op("test.last", 0)
		_ = first
		rec := &recorder{}
		var erased []*textir.Operation
		killer := func(root string) textir.RewritePattern {
			return pat(root, "kill", 1, func(op *textir.Operation, rw textir.PatternRewriter) bool {
				if victim.Block() == nil {
					return false
				}
				rw.EraseOp(victim)
				rw.EraseOp(nested)
				erased = append(erased, victim, nested, nested.Region(0).Front().First())
				return true
			})
		}
		root := "test.last"
		if topDown {
			root = "test.first"
		}
		cfg := DefaultGreedyConfig()
		cfg.UseTopDownTraversal = topDown
		run(t, ctx, m, []textir.RewritePattern{killer(root), rec.pattern()}, cfg)
		if len(erased) != 3 {
			t.Fatalf("topDown=%v: killer did not run", topDown)
		}
		for _, v := range rec.visits {
			for _, e := range erased {
				if v == e {
					t.Errorf("topDown=%v: erased op %s visited", topDown, v.Name())
				}
			}
		}
		if last.Block() == nil {
			t.Errorf("test.last erased")
		}
	}
}

func TestVisitOrder(t *testing.T) {
	for _, tc := range []struct {
		topDown bool
		want    string
	}{
		{false, "test.d test.b test.c test.a"},
		{true, "test.a test.b test.c test.d"},
	} {
		ctx := newCtx()
		x := newIRB(ctx)
		m := x.Module()
		x.Op("test.a", 0)
		x.Region("test.b", nil, func([]*textir.Value) { x.Op("test.c", 0) })
		x.Op("test.d", 0)
		rec := &recorder{}
		cfg := DefaultGreedyConfig()
		cfg.UseTopDownTraversal = tc.topDown
		run(t, ctx, m, []textir.RewritePattern{rec.pattern()}, cfg)
		var names []string
		for _, v := range rec.visits[:4] {
			names = append(names, v.Name())
		}
		if got := strings.Join(names, " "); got != tc.want {
			t.Errorf("topDown=%v: first sweep visits %q, want %q", tc.topDown, got, tc.want)
		}
	}
}

func TestRAUWRequeuesUsers(t *testing.T) {
	ctx := newCtx()
	x := newIRB(ctx)
	m := x.Module()
	a := x.V("test.src")
	b := x.V("test.src2")
	x.Op("test.user", 0, a)
	x.Op("test.swap", 0)
	pats := []textir.RewritePattern{
		pat("test.user", "user", 1, func(op *textir.Operation, rw textir.PatternRewriter) bool {
			if p := op.Operand(0).DefiningOp(); p == nil || p.Name() != "test.src2" {
				return false
			}
			rw.ReplaceOp(op, nil)
			return true
		}),
		pat("test.swap", "swap", 1, func(op *textir.Operation, rw textir.PatternRewriter) bool {
			rw.ReplaceAllUsesWith(a, b)
			rw.EraseOp(op)
			return true
		}),
	}
	cfg := DefaultGreedyConfig()
	cfg.UseTopDownTraversal = true // test.user is visited before test.swap
	cfg.MaxIterations = 1
	r := run(t, ctx, m, pats, cfg)
	if r.Applied["user"] != 1 {
		t.Errorf("the user was not re-queued after RAUW within the sweep: %v\n%s", r.Applied, dump(m))
	}
	if got, want := dump(m), trim(`
		|test.module {
		|  %0 = test.src
		|  %1 = test.src2
		|}`); got != want {
		t.Errorf("got:\n%s\nwant:\n%s", got, want)
	}
}

func TestCreatedOpsAreProcessed(t *testing.T) {
	ctx := newCtx()
	x := newIRB(ctx)
	m := x.Module()
	x.Op("test.use", 0, x.V("test.a"))
	pats := []textir.RewritePattern{renameTo("test.a", "test.b", 1), renameTo("test.b", "test.c", 1)}
	cfg := DefaultGreedyConfig()
	cfg.MaxIterations = 1
	r := run(t, ctx, m, pats, cfg)
	if !strings.Contains(dump(m), "test.c") || r.Applied["test.b->test.c"] != 1 {
		t.Errorf("created op not processed in the same sweep:\n%s", dump(m))
	}
}

func TestPatternFailureWithChanges(t *testing.T) {
	tests := []struct {
		name      string
		fn        func(op *textir.Operation, rw textir.PatternRewriter) bool
		expensive bool
		want      string
	}{
		{
			name: "change through rewriter",
			fn: func(op *textir.Operation, rw textir.PatternRewriter) bool {
				rw.ModifyOpInPlace(op, func() { op.SetAttr("x", textir.I64Attr(1)) })
				return false
			},
			want: `"f.mlir":3:4: error: 'test.a' op pattern 'bad' returned failure but IR did change`,
		},
		{
			name: "change behind the rewriter's back",
			fn: func(op *textir.Operation, rw textir.PatternRewriter) bool {
				op.SetAttr("x", textir.I64Attr(1))
				return false
			},
			expensive: true,
			want:      `"f.mlir":3:4: error: 'test.a' op pattern 'bad' returned failure but IR did change`,
		},
		{
			name: "erase an op still in use",
			fn: func(op *textir.Operation, rw textir.PatternRewriter) bool {
				rw.EraseOp(op)
				return true
			},
			want: `"f.mlir":3:4: error: 'test.a' op erased while its results are still in use`,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ctx := newCtx()
			x := newIRB(ctx)
			m := x.Module()
			a := x.Op("test.a", 1)
			a.SetLoc(textir.FileLineColLoc{File: "f.mlir", Line: 3, Col: 4})
			x.Op("test.use", 0, a.Result(0))
			cfg := DefaultGreedyConfig()
			cfg.ExpensiveChecks = tc.expensive
			_, err := ApplyPatternsGreedily(m, NewPatternSet(ctx, []textir.RewritePattern{pat("test.a", "bad", 1, tc.fn)}), cfg)
			if err == nil || strings.ReplaceAll(err.Error(), `f.mlir:3:4`, `"f.mlir":3:4`) != tc.want && err.Error() != tc.want {
				t.Fatalf("error %v, want %q", err, tc.want)
			}
		})
	}
}

// listenerLog records the notifications a Rewriter sends.
type listenerLog struct{ log []string }

func (l *listenerLog) OpInserted(op *textir.Operation) { l.log = append(l.log, "insert "+op.Name()) }
func (l *listenerLog) OpModified(op *textir.Operation) { l.log = append(l.log, "modify "+op.Name()) }
func (l *listenerLog) OpReplaced(op *textir.Operation, _ []*textir.Value) {
	l.log = append(l.log, "replace "+op.Name())
}
func (l *listenerLog) OpErased(op *textir.Operation) { l.log = append(l.log, "erase "+op.Name()) }

func TestRewriterNotifications(t *testing.T) {
	ctx := newCtx()
	x := newIRB(ctx)
	m := x.Module()
	a := x.Op("test.a", 1)
	u1 := x.Op("test.u1", 0, a.Result(0))
	holder := x.Region("test.holder", []textir.Type{textir.I64()}, func(args []*textir.Value) {
		x.Op("test.inner", 0, args[0])
	})
	l := &listenerLog{}
	rw := NewRewriter(ctx, l)
	rw.SetInsertionPoint(a)
	b := rw.Create(&textir.OperationState{Name: "test.b", ResultTypes: []textir.Type{textir.I64()}})
	rw.ReplaceOp(a, b.Results())
	rw.ModifyOpInPlace(u1, func() {})
	rw.InlineBlockBefore(holder.Region(0).Front(), holder, b.Results())
	rw.EraseOp(holder)
	if err := rw.Err(); err != nil {
		t.Fatal(err)
	}
	want := "insert test.b|replace test.a|modify test.u1|erase test.a|modify test.u1|" +
		"modify test.inner|insert test.inner|modify test.holder|erase test.holder"
	if got := strings.Join(l.log, "|"); got != want {
		t.Errorf("notifications:\n got %s\nwant %s", got, want)
	}
	if got, want := dump(m), trim(`
		|test.module {
		|  %0 = test.b
		|  test.u1(%0)
		|  test.inner(%0)
		|}`); got != want {
		t.Errorf("got:\n%s\nwant:\n%s", got, want)
	}
	if rw.Changes() == 0 {
		t.Error("Changes not counted")
	}
}

func TestCanonicalizationPatterns(t *testing.T) {
	mk := func(name string) textir.RewritePattern { return renameTo("", name, 1) }
	d1 := &textir.Dialect{Name: "zz", Ops: []*textir.OpDef{
		{Name: "zz.b", Canonicalize: []textir.RewritePattern{mk("zz.b1"), mk("zz.b2")}},
		{Name: "zz.a", Canonicalize: []textir.RewritePattern{mk("zz.a1")}},
	}}
	d2 := &textir.Dialect{Name: "aa", Ops: []*textir.OpDef{{Name: "aa.x", Canonicalize: []textir.RewritePattern{mk("aa.x1")}}}}
	ctx := textir.NewContext(d1, d2)
	var names []string
	for _, p := range CanonicalizationPatterns(ctx) {
		names = append(names, strings.TrimPrefix(p.Name(), "->"))
	}
	if got, want := strings.Join(names, " "), "aa.x1 zz.b1 zz.b2 zz.a1"; got != want {
		t.Errorf("got %q want %q", got, want)
	}
}

func TestConstantsStayInsideRoot(t *testing.T) {
	ctx := newCtx()
	x := newIRB(ctx)
	m := x.Module()
	x.Op("test.side", 0)
	scope := x.Region("tst.scope", nil, func([]*textir.Value) {
		x.Op("test.side", 0)
		x.Op("test.use", 0, x.V("tst.add", x.c(2), x.c(3)))
	})
	run(t, ctx, scope, nil, DefaultGreedyConfig())
	if got, want := dump(m), trim(`
		|test.module {
		|  test.side
		|  tst.scope {
		|    %0 = tst.const {value = 5}
		|    test.side
		|    test.use(%0)
		|  }
		|}`); got != want {
		t.Errorf("got:\n%s\nwant:\n%s", got, want)
	}
}
