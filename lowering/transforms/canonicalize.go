package transforms

import (
	"slices"

	"github.com/recom-compiler/recom/lowering/pass"
	"github.com/recom-compiler/recom/lowering/rewrite"
	"github.com/recom-compiler/recom/textir"
)

func init() {
	pass.Register(pass.PassInfo{
		Flag:    "canonicalize",
		Summary: "Canonicalize operations",
		New:     func() pass.Pass { return NewCanonicalizer() },
	})
}

// Canonicalizer is MLIR's canonicalize pass: the greedy rewrite driver with
// the canonicalization patterns of every registered op, folding and
// dead-code removal, run to a fixed point on the ops nested in the op it is
// given. Options (as MLIR's):
//
//	top-down=true          visit ops in pre-order (false: bottom-up)
//	max-iterations=10      sweeps before giving up (-1: no bound)
//	max-num-rewrites=-1    rewrites before giving up (-1: the driver's
//	                       default safety bound of 10 per op + 100000)
//	test-convergence=false fail when the fixed point was not reached
//	disable-patterns=a,b   pattern names to leave out
//	enable-patterns=a,b    only these patterns (when given)
type Canonicalizer struct {
	opts            pass.Options
	topDown         *bool
	maxIterations   *int
	maxRewrites     *int
	testConvergence *bool
	disabled        *[]string
	enabled         *[]string

	ctx *textir.Context
	ps  *rewrite.PatternSet
}

// NewCanonicalizer returns a canonicalize pass with default options.
func NewCanonicalizer() *Canonicalizer {
	c := &Canonicalizer{}
	c.topDown = c.opts.Bool("top-down", "Seed the worklist in general top-down order", true)
	c.maxIterations = c.opts.Int("max-iterations", "Max. iterations between applying patterns / simplifying regions", 10)
	c.maxRewrites = c.opts.Int("max-num-rewrites", "Max. number of pattern rewrites within an iteration", -1)
	c.testConvergence = c.opts.Bool("test-convergence", "Test only: Fail pass on non-convergence to detect cyclic pattern", false)
	c.disabled = c.opts.StringList("disable-patterns", "Labels of patterns that should be filtered out during application", nil)
	c.enabled = c.opts.StringList("enable-patterns", "Labels of patterns that should be used during application, all other patterns are filtered out", nil)
	return c
}

func (*Canonicalizer) Flag() string             { return "canonicalize" }
func (*Canonicalizer) Name() string             { return "Canonicalizer" }
func (*Canonicalizer) Summary() string          { return "Canonicalize operations" }
func (*Canonicalizer) Anchor() string           { return "" }
func (c *Canonicalizer) Options() *pass.Options { return &c.opts }

func (c *Canonicalizer) patterns(ctx *textir.Context) *rewrite.PatternSet {
	if c.ps != nil && c.ctx == ctx {
		return c.ps
	}
	var keep []textir.RewritePattern
	for _, p := range rewrite.CanonicalizationPatterns(ctx) {
		if slices.Contains(*c.disabled, p.Name()) {
			continue
		}
		if len(*c.enabled) > 0 && !slices.Contains(*c.enabled, p.Name()) {
			continue
		}
		keep = append(keep, p)
	}
	c.ctx, c.ps = ctx, rewrite.NewPatternSet(ctx, keep)
	return c.ps
}

func (c *Canonicalizer) Run(op *textir.Operation, st *pass.State) error {
	applied := st.Stat("num-rewrites", "Number of pattern applications")
	folds := st.Stat("num-folds", "Number of ops folded")
	erased := st.Stat("num-erased", "Number of ops erased as dead or duplicate constants")

	cfg := rewrite.DefaultGreedyConfig()
	cfg.UseTopDownTraversal = *c.topDown
	cfg.MaxIterations = *c.maxIterations
	if cfg.MaxIterations == 0 {
		// The driver reads 0 as "default"; 0 sweeps means do nothing.
		st.MarkUnchanged()
		return nil
	}
	if *c.maxRewrites >= 0 {
		cfg.MaxRewrites = *c.maxRewrites
		if cfg.MaxRewrites == 0 {
			st.MarkUnchanged()
			return nil
		}
	}
	cfg.Strict = *c.testConvergence
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
