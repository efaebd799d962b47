package transforms

import (
	"slices"

	"github.com/recom-compiler/recom/lowering/pass"
	"github.com/recom-compiler/recom/lowering/rewrite"
	"github.com/recom-compiler/recom/textir"
)

// CanonicalizeDecl declares --canonicalize (its options are MLIR's).
var CanonicalizeDecl = pass.Decl{
	Flag:    "canonicalize",
	Name:    "Canonicalizer",
	Summary: "Canonicalize operations",
	Options: []pass.OptDecl{
		{Name: "top-down", Kind: pass.BoolOption, Default: true,
			Help: "Seed the worklist in general top-down order"},
		{Name: "max-iterations", Kind: pass.IntOption, Default: 10,
			Help: "Max. iterations between applying patterns / simplifying regions"},
		{Name: "max-num-rewrites", Kind: pass.IntOption, Default: -1,
			Help: "Max. number of pattern rewrites within an iteration"},
		{Name: "test-convergence", Kind: pass.BoolOption, Default: false,
			Help: "Test only: Fail pass on non-convergence to detect cyclic pattern"},
		{Name: "disable-patterns", Kind: pass.StringListOption,
			Help: "Labels of patterns that should be filtered out during application"},
		{Name: "enable-patterns", Kind: pass.StringListOption,
			Help: "Labels of patterns that should be used during application, all other patterns are filtered out"},
	},
	Statistics: []pass.StatDecl{
		{Name: "num-rewrites", Help: "Number of pattern applications"},
		{Name: "num-folds", Help: "Number of ops folded"},
		{Name: "num-erased", Help: "Number of ops erased as dead or duplicate constants"},
	},
	New: func(o *pass.Options) pass.Runner { return newCanonicalizer(o) },
}

// Canonicalizer is MLIR's canonicalize pass: the greedy rewrite driver with
// the canonicalization patterns of every registered op, folding and
// dead-code removal, run to a fixed point on the ops nested in the op it is
// given. Its options are declared in CanonicalizeDecl: max-iterations=-1
// means no bound; max-num-rewrites=-1 the driver's default safety bound of
// 10 per op + 100000; enable-patterns, when given, keeps only those
// patterns.
type Canonicalizer struct {
	topDown         bool
	maxIterations   int
	maxRewrites     int
	testConvergence bool
	disabled        []string
	enabled         []string

	ctx *textir.Context
	ps  *rewrite.PatternSet
}

func newCanonicalizer(o *pass.Options) *Canonicalizer {
	return &Canonicalizer{
		topDown:         o.Bool("top-down"),
		maxIterations:   o.Int("max-iterations"),
		maxRewrites:     o.Int("max-num-rewrites"),
		testConvergence: o.Bool("test-convergence"),
		disabled:        o.StringList("disable-patterns"),
		enabled:         o.StringList("enable-patterns"),
	}
}

func (c *Canonicalizer) patterns(ctx *textir.Context) *rewrite.PatternSet {
	if c.ps != nil && c.ctx == ctx {
		return c.ps
	}
	var keep []textir.RewritePattern
	for _, p := range rewrite.CanonicalizationPatterns(ctx) {
		if slices.Contains(c.disabled, p.Name()) {
			continue
		}
		if len(c.enabled) > 0 && !slices.Contains(c.enabled, p.Name()) {
			continue
		}
		keep = append(keep, p)
	}
	c.ctx, c.ps = ctx, rewrite.NewPatternSet(ctx, keep)
	return c.ps
}

// Run canonicalizes the ops nested in op.
func (c *Canonicalizer) Run(op *textir.Operation, st *pass.State) error {
	applied := st.Stat("num-rewrites", "")
	folds := st.Stat("num-folds", "")
	erased := st.Stat("num-erased", "")

	cfg := rewrite.DefaultGreedyConfig()
	cfg.UseTopDownTraversal = c.topDown
	cfg.MaxIterations = c.maxIterations
	if cfg.MaxIterations == 0 {
		// The driver reads 0 as "default"; 0 sweeps means do nothing.
		st.MarkUnchanged()
		return nil
	}
	if c.maxRewrites >= 0 {
		cfg.MaxRewrites = c.maxRewrites
		if cfg.MaxRewrites == 0 {
			st.MarkUnchanged()
			return nil
		}
	}
	cfg.Strict = c.testConvergence
	res, err := rewrite.ApplyPatternsGreedily(op, c.patterns(st.Context()), cfg)
	for _, n := range res.Applied {
		applied.Add(int64(n))
	}
	folds.Add(int64(res.Folded))
	erased.Add(int64(res.Erased))
	if err != nil {
		return err
	}
	if !res.Changed {
		st.MarkUnchanged()
	}
	return nil
}
