// Package tfgtoemb is the --lower-emb pass: it finds the embedding columns
// of a tfg graph (column identification as in RECom: tables, the forward
// walk to the boundary where tables meet, each column the backward closure
// of its boundary input), replaces each column's feature-column and
// safe_embedding_lookup_sparse chain with emb ops of exactly the same
// meaning, and removes what TensorFlow adds for robustness: identities,
// id pruning that the value-range analysis proves can remove nothing,
// Unique before the table gather, and general lookups where a gather or a
// gather-scatter is provably enough. A column no pattern matches stays as
// tfg ops, with a remark that names it and says why.
package tfgtoemb

import (
	"github.com/recom-compiler/recom/dialects/emb"
	"github.com/recom-compiler/recom/dialects/tfg"
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
	}, kindStats()...),
	New: func(o *pass.Options) pass.Runner { return newPass(o) },
}

// kindStats declares columns-<kind> for every kind but unmatched (which
// columns-unmatched counts).
func kindStats() []pass.StatDecl {
	var out []pass.StatDecl
	for _, k := range Kinds[:len(Kinds)-1] {
		out = append(out, pass.StatDecl{Name: "columns-" + k, Help: "Columns of kind " + k})
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
}

func newPass(o *pass.Options) *Pass {
	flag := func(name string) *bool { v := o.Bool(name); return &v }
	return &Pass{
		noRange:    flag("no-range-analysis"),
		noLookup:   flag("no-lookup-rewrite"),
		noUnique:   flag("no-unique-removal"),
		noIdentity: flag("no-identity-removal"),
		noGroup:    flag("no-layer-grouping"),
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
				if p.runBlock(st, b, s) {
					changed = true
				}
			}
		}
	}
	if !changed {
		st.MarkUnchanged()
	}
	return nil
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

// runBlock lowers the columns of one graph block.
func (p *Pass) runBlock(st *pass.State, b *textir.Block, s *stats) bool {
	s.before.Add(countTfg(b, s, true))
	cols := FindColumns(b)
	l := &listener{unique: s.uniqueRemoved}
	rw := rewrite.NewRewriter(st.Context(), l)
	low := &lowering{rw: rw, ctx: st.Context(), tables: map[*textir.Operation]*textir.Value{}, l: l}
	uses := map[*textir.Operation]int{}
	for _, c := range cols {
		uses[c.Table]++
	}
	changed := false
	for _, c := range cols {
		s.columns.Inc()
		pl, err := matchColumn(c)
		if err != nil {
			c.Kind = emb.KindUnmatched
			s.unmatched.Inc()
			at := def(c.Output)
			if at == nil {
				at = c.Table
			}
			st.Emit(at.Remarkf("column %q (table %q) stays in tfg: %v", c.Name, tfg.NodeName(c.Table), err))
			continue
		}
		c.Kind = pl.kind
		if uses[c.Table] > 1 && c.Kind != emb.KindWeighted {
			c.Kind = emb.KindShared
		}
		s.byKind[c.Kind].Inc()
		if *p.noUnique {
			continue
		}
		l.count = s.lookupRemoved
		low.emit(pl)
		l.count = nil
		s.lowered.Inc()
		changed = true
	}
	// The emb simplifications, on the ops the lowering made.
	ctx := st.Context()
	if !*p.noRange {
		checkPat := findPattern(ctx, emb.CheckRangeOp, "emb.check_range-in-range")
		filterPat := emb.FilterInRange()
		for _, op := range low.created {
			if op.Block() == nil {
				continue
			}
			var pat textir.RewritePattern
			switch op.Name() {
			case emb.FilterOp:
				pat = filterPat
			case emb.CheckRangeOp:
				pat = checkPat
			}
			if pat != nil {
				rw.SetInsertionPoint(op)
				if pat.MatchAndRewrite(op, rw) {
					s.rangeRemoved.Inc()
				}
			}
		}
	}
	if !*p.noLookup {
		lookupPats := patternsOf(ctx, emb.LookupOp)
		gsPats := patternsOf(ctx, emb.GatherScatterOp)
		for _, op := range low.lookups {
			cur := op
			for step := 0; step < 3 && cur != nil; step++ {
				pats := lookupPats
				if cur.Name() == emb.GatherScatterOp {
					pats = gsPats
				} else if cur.Name() != emb.LookupOp {
					break
				}
				res := cur.Result(0)
				var next *textir.Operation
				applied := false
				for _, pat := range pats {
					// Find the replacement through the single use of the result.
					var users []*textir.OpOperand
					for u := range res.Uses() {
						users = append(users, u)
					}
					rw.SetInsertionPoint(cur)
					if pat.MatchAndRewrite(cur, rw) {
						applied = true
						if len(users) > 0 {
							next = users[0].Get().DefiningOp()
						}
						break
					}
				}
				if !applied {
					break
				}
				if next != nil {
					switch next.Name() {
					case emb.GatherOp:
						s.toGather.Inc()
					case emb.GatherScatterOp:
						s.toGatherScatter.Inc()
					}
				}
				cur = next
			}
		}
	}
	// Identities in what stays tfg inside columns.
	if !*p.noIdentity {
		l.count = s.identityRemoved
		for _, c := range cols {
			for _, op := range c.Ops {
				if op.Block() == nil || op == def(c.Output) {
					continue
				}
				if x := identityOperand(op); x != nil {
					rw.ReplaceAllUsesWith(op.Result(0), x)
					rw.EraseOp(op)
					changed = true
				}
			}
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
	return changed
}

// findPattern returns the canonicalization pattern name of op opName.
func findPattern(ctx *textir.Context, opName, name string) textir.RewritePattern {
	for _, p := range patternsOf(ctx, opName) {
		if p.Name() == name {
			return p
		}
	}
	return nil
}

// patternsOf returns the canonicalization patterns of an op, by benefit.
func patternsOf(ctx *textir.Context, opName string) []textir.RewritePattern {
	d := ctx.LookupOp(opName)
	if d == nil {
		return nil
	}
	ps := append([]textir.RewritePattern(nil), d.Canonicalize...)
	for i := 1; i < len(ps); i++ {
		for j := i; j > 0 && ps[j].Benefit() > ps[j-1].Benefit(); j-- {
			ps[j], ps[j-1] = ps[j-1], ps[j]
		}
	}
	return ps
}

// identityOperand returns x when op is an identity of x that can go:
// Identity(x), x + 0 and x - 0 on integers, x * 1, identity Transpose; its
// result has x's type, it has no control operands and its control result
// is unused.
func identityOperand(op *textir.Operation) *textir.Value {
	if op.Dialect() != tfg.Name || numArgs(op) != op.NumOperands() || op.NumResults() != 2 {
		return nil
	}
	if c := tfg.ControlResult(op); c == nil || c.HasUses() {
		return nil
	}
	res := op.Result(0)
	pick := func(x *textir.Value) *textir.Value {
		if x != nil && x.Type() == res.Type() {
			return x
		}
		return nil
	}
	isSplat := func(v *textir.Value, want float64) bool {
		a := constAttr(v)
		if a == nil || a.IsString() || a.NumElements() != 1 || len(a.Type.Shape) > 1 {
			return false
		}
		if textir.IsFloat(a.Type.Elem) {
			return a.FloatAt(0) == want
		}
		return float64(a.IntAt(0)) == want
	}
	intElem := isIntType(textir.ElementType(res.Type()))
	switch {
	case isOp(op, "Identity", "Snapshot") && numArgs(op) == 1:
		return pick(arg(op, 0))
	case isOp(op, "Add", "AddV2") && intElem:
		if isSplat(arg(op, 1), 0) {
			return pick(arg(op, 0))
		}
		if isSplat(arg(op, 0), 0) {
			return pick(arg(op, 1))
		}
	case isOp(op, "Sub") && intElem && isSplat(arg(op, 1), 0):
		return pick(arg(op, 0))
	case isOp(op, "Mul"):
		if isSplat(arg(op, 1), 1) {
			return pick(arg(op, 0))
		}
		if isSplat(arg(op, 0), 1) {
			return pick(arg(op, 1))
		}
	case isOp(op, "Transpose"):
		perm, ok := constInts(arg(op, 1))
		if !ok {
			return nil
		}
		for i, p := range perm {
			if p != int64(i) {
				return nil
			}
		}
		return pick(arg(op, 0))
	}
	return nil
}
