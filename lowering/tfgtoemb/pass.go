// Package tfgtoemb is the --lower-emb pass: it finds the embedding columns
// of a tfg graph and replaces each column's feature-column and
// safe_embedding_lookup_sparse chain with emb ops of exactly the same
// meaning, and removes what TensorFlow adds for robustness: identities,
// id pruning that the value-range analysis proves can remove nothing,
// Unique before the table gather, and general lookups where a gather or a
// gather-scatter is provably enough. A column no pattern matches stays as
// tfg ops, with a remark that names it and says why.
//
// It is written as MLIR writes a lowering: an analysis, a pattern set and
// a conversion target, run by the conversion driver.
//
//   - First, vocabulary files (vocabfile.go): each table filled from a
//     file by InitializeTableFromTextFileV2 gets the file's keys and ids
//     as constants (read when compiling, relative names from the option
//     asset-dir), so that its lookups match as vocabulary lists do.
//   - Column identification (FindColumns, columns.go) is an analysis, as in
//     RECom: the tables, the forward walk to the boundary where tables meet,
//     each column the backward closure of its boundary input. Each column
//     is rooted at the op that pools its rows (one of PoolingOps).
//   - Plain lookups (plain.go): tables read by tf.nn's embedding_lookup,
//     embedding_lookup_sparse and safe_embedding_lookup_sparse directly,
//     whole or partitioned (a partitioned table is one emb.table of its
//     shards), are columns too, rooted at their pooling op or, for ids
//     [batch], at their rows.
//   - PopulateLowerEmbPatterns (patterns.go) adds the patterns to a
//     conversion.PatternList, rooted at the pooling ops: one per form of a
//     column's ids (a categorical column over a dense feature, a bucketized
//     column, split strings, sparse ids of another origin), each matching
//     the lookup chain the forms share (match.go), then its own form
//     (ids.go), and rewriting the column into emb ops (emit.go). The kind
//     of a column (emb.ColumnKind) follows from its form, its transforms,
//     its weights and its table's other readers.
//   - The target (target): every emb op and every tfg op is legal after
//     lower-emb, but the pooling ops of the columns not yet settled
//     (lowered, classified, or found unmatched with the reason);
//     Lowering.Settled decides.
//
// The set runs through conversion.ApplyPartialConversion rather than the
// greedy driver: each pooling op is legalized once, in one walk of the
// graph, without the greedy driver's sweeps, folding and dead-code removal
// over the whole graph (the tfg ops the patterns leave are not theirs to
// fold). The pooling ops' legality is dynamic, because this conversion
// framework tries patterns only on illegal ops: a pooling op is illegal
// while a column rooted at it is pending, and legal once the patterns
// have settled it, whether lowered or left in tfg; so a column that cannot
// be lowered makes a remark, not a failed conversion. The conversion
// visits pooling ops in graph order, not in the layer's order: the pass
// then moves each emb.table before the first column of the layer that
// reads it, and reports the columns in layer order.
//
// The second phase works on what the patterns made: the emb
// simplifications of the lowered columns (simplify.go: the value-range
// analysis and the lookup rewrites, the emb ops' own canonicalization
// patterns applied to those ops), the identities left in tfg inside
// columns, and the grouping into one layer of the lookups that meet other
// tensors (group.go), which needs every meeting point of the graph at
// once. Each can be switched off by an option, for ablations.
package tfgtoemb

import (
	"github.com/recom-compiler/recom/dialects/emb"
	"github.com/recom-compiler/recom/dialects/tfg"
	"github.com/recom-compiler/recom/lowering/conversion"
	"github.com/recom-compiler/recom/lowering/pass"
	"github.com/recom-compiler/recom/lowering/rewrite"
	"github.com/recom-compiler/recom/textir"
)

// Flag is the pass's command-line name.
const Flag = "lower-emb"

// Kinds lists the column kinds (emb.ColumnKinds) as the names of the
// statistics columns-<kind>, in emb.ColumnKinds order.
var Kinds = kindNames()

func kindNames() []string {
	out := make([]string, len(emb.ColumnKinds))
	for i, k := range emb.ColumnKinds {
		out[i] = string(k)
	}
	return out
}

// Decl declares the --lower-emb pass: its options each switch one
// simplification off, for ablation experiments.
var Decl = pass.Decl{
	Flag:    Flag,
	Name:    "LowerEmb",
	Summary: "Lower TensorFlow embedding columns (tfg) to the emb dialect",
	Options: []pass.OptDecl{
		{Name: "no-range-analysis", Kind: pass.BoolOption,
			Help: "Keep id pruning that the value-range analysis proves can remove nothing"},
		{Name: "no-lookup-rewrite", Kind: pass.BoolOption,
			Help: "Keep general segment-reduction lookups where a gather or gather-scatter is provably enough"},
		{Name: "no-unique-removal", Kind: pass.BoolOption,
			Help: "Keep each column's Unique-based lookup chain as tfg ops (columns are still identified)"},
		{Name: "no-identity-removal", Kind: pass.BoolOption,
			Help: "Keep Identity and arithmetic identities (x+0, x*1, identity Transpose) in the tfg ops left inside columns"},
		{Name: "no-layer-grouping", Kind: pass.BoolOption,
			Help: "Leave lookups that meet other tensors in a ConcatV2 or AddN ungrouped (see group.go)"},
		{Name: "asset-dir", Kind: pass.StringOption,
			Help: "Directory that relative vocabulary file names (InitializeTableFromTextFileV2) are read from (default: the current directory)"},
	},
	Statistics: append([]pass.StatDecl{
		{Name: "columns", Help: "Embedding columns found"},
		{Name: "columns-lowered", Help: "Columns replaced by emb ops"},
		{Name: "columns-unmatched", Help: "Columns of kind unmatched: left as tfg ops (see the remarks)"},
		{Name: "tfg-ops-before", Help: "tfg ops before the pass"},
		{Name: "tfg-ops-after", Help: "tfg ops after the pass"},
		{Name: "tfg-open-ops", Help: "Unregistered (open) tfg ops seen"},
		{Name: "removed-by-lookup-lowering", Help: "tfg ops removed by replacing columns with emb ops"},
		{Name: "removed-by-identity-removal", Help: "tfg identities removed inside columns"},
		{Name: "removed-by-range-analysis", Help: "emb.filter and emb.check_range ops removed by the value-range analysis"},
		{Name: "removed-unique", Help: "tfg.Unique ops removed"},
		{Name: "lookups-to-gather", Help: "Lookups rewritten to emb.gather (exactly one id per row)"},
		{Name: "lookups-to-gather-scatter", Help: "Lookups rewritten to emb.gather_scatter (at most one id per row)"},
		{Name: "layers-grouped", Help: "ConcatV2 and AddN ops whose lookups were gathered into one emb.concat"},
		{Name: "vocabulary-files", Help: "Vocabulary files read into constants (InitializeTableFromTextFileV2 made InitializeTableV2; see vocabfile.go)"},
	}, kindStats()...),
	New: func(o *pass.Options) pass.Runner { return newPass(o) },
}

// kindStats declares columns-<kind> for every kind but unmatched (which
// columns-unmatched counts).
func kindStats() []pass.StatDecl {
	var out []pass.StatDecl
	for _, k := range emb.ColumnKinds {
		if k != emb.KindUnmatched {
			out = append(out, pass.StatDecl{Name: "columns-" + string(k), Help: "Columns of kind " + string(k)})
		}
	}
	return out
}

// Pass is the --lower-emb pass; its options are declared in Decl.
type Pass struct {
	noRange    *bool
	noLookup   *bool
	noUnique   *bool
	noIdentity *bool
	noGroup    *bool
	assetDir   string
}

func newPass(o *pass.Options) *Pass {
	flag := func(name string) *bool { v := o.Bool(name); return &v }
	return &Pass{
		noRange:    flag("no-range-analysis"),
		noLookup:   flag("no-lookup-rewrite"),
		noUnique:   flag("no-unique-removal"),
		noIdentity: flag("no-identity-removal"),
		noGroup:    flag("no-layer-grouping"),
		assetDir:   o.String("asset-dir"),
	}
}

// stats are the pass's statistics.
type stats struct {
	columns, unmatched, before, after, open           *pass.Statistic
	lookupRemoved, identityRemoved, rangeRemoved      *pass.Statistic
	uniqueRemoved, toGather, toGatherScatter, lowered *pass.Statistic
	byKind                                            map[emb.ColumnKind]*pass.Statistic
}

func newStats(st *pass.State) *stats {
	s := &stats{
		columns:         st.Stat("columns", "Embedding columns found"),
		lowered:         st.Stat("columns-lowered", "Columns replaced by emb ops"),
		unmatched:       st.Stat("columns-unmatched", "Columns of kind unmatched: left as tfg ops (see the remarks)"),
		before:          st.Stat("tfg-ops-before", "tfg ops before the pass"),
		after:           st.Stat("tfg-ops-after", "tfg ops after the pass"),
		open:            st.Stat("tfg-open-ops", "Unregistered (open) tfg ops seen"),
		lookupRemoved:   st.Stat("removed-by-lookup-lowering", "tfg ops removed by replacing columns with emb ops"),
		identityRemoved: st.Stat("removed-by-identity-removal", "tfg identities removed inside columns"),
		rangeRemoved:    st.Stat("removed-by-range-analysis", "emb.filter and emb.check_range ops removed by the value-range analysis"),
		uniqueRemoved:   st.Stat("removed-unique", "tfg.Unique ops removed"),
		toGather:        st.Stat("lookups-to-gather", "Lookups rewritten to emb.gather (exactly one id per row)"),
		toGatherScatter: st.Stat("lookups-to-gather-scatter", "Lookups rewritten to emb.gather_scatter (at most one id per row)"),
		byKind:          map[emb.ColumnKind]*pass.Statistic{},
	}
	for _, k := range emb.ColumnKinds {
		if k != emb.KindUnmatched {
			s.byKind[k] = st.Stat("columns-"+string(k), "Columns of kind "+string(k))
		}
	}
	return s
}

// listener counts erased tfg ops into the current counter.
type listener struct {
	count  *pass.Statistic
	unique *pass.Statistic
}

func (l *listener) OpInserted(*textir.Operation)                  {}
func (l *listener) OpModified(*textir.Operation)                  {}
func (l *listener) OpReplaced(*textir.Operation, []*textir.Value) {}
func (l *listener) OpErased(op *textir.Operation) {
	if op.Dialect() != tfg.Name {
		return
	}
	if l.count != nil {
		l.count.Inc()
	}
	if op.Name() == "tfg.Unique" {
		l.unique.Inc()
	}
}

func (p *Pass) Run(root *textir.Operation, st *pass.State) error {
	s := newStats(st)
	var graphs []*textir.Operation
	root.Walk(func(op *textir.Operation) bool {
		if op.Name() == "tfg.graph" {
			graphs = append(graphs, op)
			return false
		}
		return true
	})
	changed := false
	for _, g := range graphs {
		for _, r := range g.Regions() {
			for _, b := range r.Blocks() {
				ch, err := p.runBlock(st, g, b, s)
				if err != nil {
					return err
				}
				changed = changed || ch
			}
		}
	}
	if !changed {
		st.MarkUnchanged()
	}
	return nil
}

// target declares what --lower-emb leaves: the emb dialect, and every tfg
// op but the pooling ops of columns the patterns have not settled
// (Lowering.Settled): a column is either lowered or left in tfg with a
// remark.
func target(ctx *textir.Context, low *Lowering) *conversion.Target {
	t := conversion.NewTarget(ctx)
	t.AddLegalDialect(emb.Name, tfg.Name)
	t.AddDynamicallyLegalOp(low.Settled, PoolingOps...)
	return t
}

func countTfg(b *textir.Block, s *stats, open bool) int64 {
	n := int64(0)
	for op := range b.Ops() {
		if op.Dialect() == tfg.Name {
			n++
			if open && op.Def() == nil {
				s.open.Inc()
			}
		}
	}
	return n
}

// runBlock lowers the columns of block b of graph g.
func (p *Pass) runBlock(st *pass.State, g *textir.Operation, b *textir.Block, s *stats) (bool, error) {
	ctx := st.Context()
	s.before.Add(countTfg(b, s, true))
	files := st.Stat("vocabulary-files", "Vocabulary files read into constants (InitializeTableFromTextFileV2 made InitializeTableV2; see vocabfile.go)")
	vf := bindVocabularyFiles(rewrite.NewRewriter(ctx, nil), b, p.assetDir, st.Emit)
	files.Add(vf)
	low := NewLowering(b, *p.noUnique)
	var patterns conversion.PatternList
	PopulateLowerEmbPatterns(&patterns, low)
	if err := conversion.ApplyPartialConversion(g, target(ctx, low), patterns, nil); err != nil {
		return false, err
	}
	l := &listener{unique: s.uniqueRemoved}
	rw := rewrite.NewRewriter(ctx, l)
	low.placeTables(rw)
	changed := vf > 0
	for _, c := range low.Columns() {
		s.columns.Inc()
		if c.Kind == "" {
			c.Kind, c.Err = emb.KindUnmatched, fail("no pattern reached its pooling op %s", opDesc(c.Root))
		}
		switch {
		case c.Kind == emb.KindUnmatched:
			s.unmatched.Inc()
			at := def(c.Output)
			if at == nil {
				at = c.Table
			}
			st.Emit(at.Remarkf("column %q (table %q) stays in tfg: %v", c.Name, tfg.NodeName(c.Table), c.Err))
			continue
		case c.Lowered:
			s.lowered.Inc()
			changed = true
		}
		s.byKind[c.Kind].Inc()
	}
	s.lookupRemoved.Add(low.removed)
	s.uniqueRemoved.Add(low.uniques)
	// The emb simplifications, on the ops the lowering made.
	if !*p.noRange {
		s.rangeRemoved.Add(removeRanges(ctx, rw, low.Columns()))
	}
	if !*p.noLookup {
		g, gs := rewriteLookups(ctx, rw, low.Columns())
		s.toGather.Add(g)
		s.toGatherScatter.Add(gs)
	}
	// Identities in what stays tfg inside columns.
	if !*p.noIdentity {
		l.count = s.identityRemoved
		if removeIdentities(rw, low.Columns()) {
			changed = true
		}
		l.count = nil
	}
	// Lookups meeting other tensors, gathered into one emb.concat (group.go).
	grouped := st.Stat("layers-grouped", "ConcatV2 and AddN ops whose lookups were gathered into one emb.concat")
	if !*p.noGroup {
		if n := groupLayers(rw, b); n > 0 {
			grouped.Add(int64(n))
			changed = true
		}
	}
	s.after.Add(countTfg(b, s, false))
	if err := rw.Err(); err != nil {
		st.Emit(err.(*textir.Diagnostic))
	}
	return changed, nil
}
