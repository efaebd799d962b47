package rewrite

import (
	"sort"

	"github.com/recom-compiler/recom/textir"
)

// PatternSet is a frozen set of rewrite patterns, grouped by root op name and
// sorted by decreasing benefit (ties keep registration order). Patterns with
// an empty root (any-op patterns) are merged into every op's list by
// benefit, after op-specific patterns of equal benefit registered before them.
type PatternSet struct {
	ctx    *textir.Context
	all    []textir.RewritePattern
	byRoot map[string][]textir.RewritePattern
	anyOp  []textir.RewritePattern
}

type indexedPattern struct {
	p   textir.RewritePattern
	seq int
}

// NewPatternSet freezes patterns (nil entries are skipped) for use with ctx.
func NewPatternSet(ctx *textir.Context, patterns []textir.RewritePattern) *PatternSet {
	ps := &PatternSet{ctx: ctx, byRoot: map[string][]textir.RewritePattern{}}
	byRoot := map[string][]indexedPattern{}
	var anyOp []indexedPattern
	for _, p := range patterns {
		if p == nil {
			continue
		}
		ip := indexedPattern{p, len(ps.all)}
		ps.all = append(ps.all, p)
		if p.Root() == "" {
			anyOp = append(anyOp, ip)
		} else {
			byRoot[p.Root()] = append(byRoot[p.Root()], ip)
		}
	}
	sortPatterns(anyOp)
	ps.anyOp = unwrap(anyOp)
	for name, list := range byRoot {
		merged := append(list, anyOp...)
		sortPatterns(merged)
		ps.byRoot[name] = unwrap(merged)
	}
	return ps
}

func sortPatterns(ps []indexedPattern) {
	sort.SliceStable(ps, func(i, j int) bool {
		if bi, bj := ps[i].p.Benefit(), ps[j].p.Benefit(); bi != bj {
			return bi > bj
		}
		return ps[i].seq < ps[j].seq
	})
}

func unwrap(ps []indexedPattern) []textir.RewritePattern {
	out := make([]textir.RewritePattern, len(ps))
	for i, p := range ps {
		out[i] = p.p
	}
	return out
}

// Context returns the context the set was built for.
func (ps *PatternSet) Context() *textir.Context { return ps.ctx }

// Len returns the number of patterns.
func (ps *PatternSet) Len() int { return len(ps.all) }

// Patterns returns all patterns in registration order (do not modify).
func (ps *PatternSet) Patterns() []textir.RewritePattern { return ps.all }

// For returns the patterns to try on an op named name, in order (do not modify).
func (ps *PatternSet) For(name string) []textir.RewritePattern {
	if l, ok := ps.byRoot[name]; ok {
		return l
	}
	return ps.anyOp
}

// CanonicalizationPatterns collects the canonicalization patterns of every
// registered op: dialects in name order, ops in their dialect's declaration
// order, patterns in the order the op lists them.
func CanonicalizationPatterns(ctx *textir.Context) []textir.RewritePattern {
	var out []textir.RewritePattern
	for _, d := range ctx.Dialects() {
		for _, def := range d.Ops {
			out = append(out, def.Canonicalize...)
		}
	}
	return out
}
