package embtogpu

import (
	"fmt"

	"github.com/recom-compiler/recom/dialects/arith"
	"github.com/recom-compiler/recom/dialects/emb"
	"github.com/recom-compiler/recom/dialects/fused"
	"github.com/recom-compiler/recom/dialects/fused/abi"
	"github.com/recom-compiler/recom/dialects/gpu"
	"github.com/recom-compiler/recom/dialects/shape"
	"github.com/recom-compiler/recom/dialects/tfg"
	"github.com/recom-compiler/recom/dialects/tfg/optab"
	"github.com/recom-compiler/recom/lowering/conversion"
	"github.com/recom-compiler/recom/textir"
)

// PatternName names the pattern that fuses an embedding layer (in
// conversion diagnostics and match-failure reports).
const PatternName = "fuse-embedding-layer"

// Counts is what the fuse patterns did; they add to it as they rewrite.
type Counts struct {
	Layers   int64 // embedding layers fused into one kernel
	Columns  int64 // columns fused
	Classes  int64 // schedule classes (code paths), summed over the kernels
	IDChains int64 // columns whose id transforms run in the kernel
}

// PopulateFusePatterns adds the patterns that fuse an embedding layer to
// patterns: rooted at the layer's concatenation (tfg.ConcatV2 along axis 1,
// and emb.concat), they match the pooled lookups it concatenates and
// rewrite the layer into one fused.embedding_layer op and its kernel, a
// gpu.func in gpu.module @emb (created at the end of the enclosing
// builtin.module when it is missing). opts must pass the pass's checks
// (Plan rejects them again). counts, when not nil, receives what the
// patterns did.
func PopulateFusePatterns(patterns *conversion.PatternList, opts Options, counts *Counts) {
	if counts == nil {
		counts = &Counts{}
	}
	taken := map[*textir.Operation]bool{}
	for _, root := range []string{"tfg.ConcatV2", emb.ConcatOp} {
		patterns.Add(&fuseLayer{root: root, opts: opts, counts: counts, taken: taken})
	}
	for _, root := range []string{emb.LookupOp, emb.GatherOp, emb.GatherScatterOp} {
		patterns.Add(&fuseColumn{fuseLayer{root: root, opts: opts, counts: counts, taken: taken}})
	}
}

// fuseColumn rewrites a pooled lookup that reaches no concatenation into a
// fused.embedding_layer of one column (matchColumn), whose output replaces
// the end of the lookup's Identity and Reshape chain.
type fuseColumn struct{ fuseLayer }

func (p *fuseColumn) MatchAndRewrite(lk *textir.Operation, _ []*textir.Value, rw *conversion.ConversionRewriter) bool {
	if p.taken[lk] {
		return rw.NotifyMatchFailure(lk, "a layer has taken it; it stays for another user")
	}
	end, why := matchColumn(lk)
	if why != "" {
		return rw.NotifyMatchFailure(lk, "%s", why)
	}
	anchor := end.DefiningOp()
	if anchor == nil {
		return rw.NotifyMatchFailure(lk, "its chain ends in a block argument")
	}
	return p.fuse(anchor, []*textir.Operation{lk}, end, rw)
}

// fuseLayer rewrites an input_layer concatenation of pooled lookups into
// one fused.embedding_layer.
type fuseLayer struct {
	root   string
	opts   Options
	counts *Counts
	// taken holds the lookups a layer has taken (shared by the patterns
	// of one list): one that stays for another user is not made a layer
	// of its own once its concatenation is gone.
	taken map[*textir.Operation]bool
}

func (p *fuseLayer) Root() string { return p.root }
func (p *fuseLayer) Benefit() int { return 1 }
func (p *fuseLayer) Name() string { return PatternName }

// MatchAndRewrite checks everything (the match, the plan, the symbol of
// the kernel module) before it changes the IR; a plan that fails is the
// conversion's error, located at the concatenation.
func (p *fuseLayer) MatchAndRewrite(concat *textir.Operation, _ []*textir.Value, rw *conversion.ConversionRewriter) bool {
	m := matchLayer(concat)
	if m.why != nil {
		return rw.NotifyMatchFailure(concat, "%s", m.why.msg)
	}
	return p.fuse(concat, m.lookups, concatResult(concat), rw)
}

// fuse rewrites lookups into one fused.embedding_layer whose output
// replaces out, a result of anchor (the layer's concatenation, or the end
// of a lone column's chain): the layer takes anchor's location and TF
// node name, and anchor goes with every op left dead.
func (p *fuseLayer) fuse(anchor *textir.Operation, lookups []*textir.Operation, out *textir.Value, rw *conversion.ConversionRewriter) bool {
	opts := p.opts
	infos := make([]ColumnInfo, len(lookups))
	chains := make([]*idChain, len(lookups))
	for i, lk := range lookups {
		infos[i] = columnInfo(lk)
		chains[i], _ = absorbIDs(lk, opts)
		if c := chains[i]; c != nil {
			infos[i].Source, infos[i].Transforms, infos[i].IDBytes, infos[i].Sep = c.source, c.transforms, c.idBytes, c.sep
			if c.cross != nil {
				infos[i].Cross = c.cross.inputs
			}
		}
	}
	plan, order, err := Plan(infos, opts)
	if err != nil {
		rw.SetErr(anchor.Errorf("%v", err))
		return false
	}
	top := enclosingModule(anchor)
	if top == nil || top.NumRegions() == 0 || top.Region(0).Front() == nil {
		rw.SetErr(anchor.Errorf("expects to be inside a module with a body"))
		return false
	}
	mod := textir.LookupSymbolIn(top, ModuleName)
	if mod != nil && mod.Name() != gpu.ModuleOp {
		rw.SetErr(mod.Errorf("symbol @%s is taken, --fuse needs it for its gpu.module", ModuleName))
		return false
	}

	// The rewrite.
	ctx := rw.Context()
	for _, c := range chains {
		if c != nil {
			c.hoistFilter(rw)
			p.counts.IDChains++
		}
	}
	b := rw.Builder()
	if mod == nil {
		mod = gpu.NewModule(ctx, textir.NameLoc{Name: "embedding_layer"}, ModuleName)
		b.SetInsertionPointToEnd(top.Region(0).Front())
		rw.Insert(mod)
	}
	name := "layer"
	for i := 1; textir.LookupSymbolIn(mod, name) != nil; i++ {
		name = fmt.Sprintf("layer_%d", i)
	}
	// The op keeps the anchor's name (the concatenation's, or the
	// column's chain end's): its output is the same
	// tensor.
	loc := anchor.Loc()
	nodeName := tfg.NodeName(anchor)
	if nodeName != "" {
		if ln, ok := textir.LocName(loc); !ok || ln != nodeName {
			loc = textir.NameLoc{Name: nodeName}
		}
	}
	fn := BuildKernel(ctx, loc, name, plan)
	if opts.Schedule == abi.ScheduleTuned {
		// The occupancy the register allocator must keep (maxntid x
		// minctasm): the id code (hashes) must not take the registers
		// the lookups need to hide latency.
		fn.SetAttr("min_blocks", textir.I64Attr(opts.MinBlocks))
	}
	b.SetInsertionPointToEnd(mod.Region(0).Front())
	rw.Insert(fn)

	var operands []*textir.Value
	seen := map[int64]bool{}
	for k, c := range plan.Columns {
		lk := lookups[order[k]]
		l, _ := emb.AsTableLookup(lk)
		ids := l.IDs()
		if ch := chains[order[k]]; ch != nil && ch.cross != nil {
			operands = append(append(operands, l.Table()), ch.cross.operands...)
			if !seen[c.Class] {
				seen[c.Class] = true
				p.counts.Classes++
			}
			continue
		}
		splits, weights := bags(lk)
		if ch := chains[order[k]]; ch != nil {
			ids = ch.values
			if ch.splits != nil {
				splits, weights = ch.splits, ch.weights
			}
		}
		operands = append(operands, l.Table(), ids)
		if c.HasSplits() {
			operands = append(operands, splits)
		}
		if c.Weighted {
			operands = append(operands, weights)
		}
		if !seen[c.Class] {
			seen[c.Class] = true
			p.counts.Classes++
		}
	}
	attrs := plan.Attrs(textir.SymbolRefAttr{Root: ModuleName, Nested: []string{name}})
	if nodeName != "" {
		attrs = append(attrs, textir.NamedAttribute{Name: "_mlir_name", Value: textir.Str(nodeName)})
	}
	rw.SetInsertionPoint(anchor)
	op := rw.Create(&textir.OperationState{Name: fused.EmbeddingLayerOp, Loc: loc, Operands: operands,
		ResultTypes: []textir.Type{textir.TensorOf([]int64{textir.Dynamic, plan.Width}, textir.F32())},
		Attrs:       attrs})
	// The fused result refines the concatenation's type in place (a
	// graph's tensor<*xf32> becomes tensor<?xWxf32>): no type converter is
	// involved, so the uses move without a materialization.
	layer, _ := fused.AsEmbeddingLayer(op)
	rw.Rewriter.ReplaceAllUsesWith(out, layer.Result())
	// The absorbed transforms go with the lookups (removable).
	for _, lk := range lookups {
		p.taken[lk] = true
	}
	eraseDead(anchor, rw)
	p.counts.Layers++
	p.counts.Columns += int64(len(plan.Columns))
	return true
}

// enclosingModule returns the builtin.module nearest above op (the symbol
// table that holds the kernel module), or nil.
func enclosingModule(op *textir.Operation) *textir.Operation {
	for p := op.ParentOp(); p != nil; p = p.ParentOp() {
		if p.Name() == "builtin.module" {
			return p
		}
	}
	return nil
}

// columnInfo describes a lookup for the planner.
func columnInfo(lk *textir.Operation) ColumnInfo {
	tt := tableOf(lk).Type().(*textir.TensorType)
	ci := ColumnInfo{Name: columnName(lk), Kind: abi.KindLookup, Combiner: emb.Combiner(lk),
		Rows: tt.Shape[0], Width: tt.Shape[1], MaxBag: -1, Table: tableOf(lk)}
	splits, weights := bags(lk)
	switch lk.Name() {
	case emb.GatherOp:
		ci.Kind, ci.Combiner, ci.MaxBag = abi.KindGather, emb.CombinerSum, 1
	case emb.GatherScatterOp:
		ci.MaxBag = 1
	}
	if weights != nil {
		ci.Weighted = true
		ci.DivNoNaN = emb.DivNoNaN(lk)
	}
	if ci.Kind == abi.KindLookup && ci.MaxBag < 0 {
		if _, hi, ok := emb.BagSize(splits); ok {
			ci.MaxBag = max(hi, 1)
		}
	}
	return ci
}

// tableOf returns the table a lookup reads (emb.lookup,
// emb.gather_scatter, emb.gather), or nil for another op.
func tableOf(lk *textir.Operation) *textir.Value {
	if l, ok := emb.AsTableLookup(lk); ok {
		return l.Table()
	}
	return nil
}

// concatResult returns the concatenation of an emb.concat or a
// tfg.ConcatV2.
func concatResult(op *textir.Operation) *textir.Value {
	if c, ok := emb.AsConcat(op); ok {
		return c.Result()
	}
	return optab.Result(op, "output")
}

// lookupResult returns the rows a lookup reads (emb.lookup,
// emb.gather_scatter, emb.gather), or nil for another op.
func lookupResult(lk *textir.Operation) *textir.Value {
	if l, ok := emb.AsTableLookup(lk); ok {
		return l.Result()
	}
	return nil
}

// bags returns the row splits and the weights of a pooled lookup
// (emb.lookup, emb.gather_scatter): nil splits for emb.gather (one id per
// row), nil weights for an unweighted lookup.
func bags(lk *textir.Operation) (splits, weights *textir.Value) {
	if p, ok := emb.AsPooledLookup(lk); ok {
		return p.RowSplits(), p.Weights()
	}
	return nil, nil
}

// columnName names a column by its lookup's location, else its table's
// name.
func columnName(lk *textir.Operation) string {
	if n, ok := textir.LocName(lk.Loc()); ok && n != "" {
		return n
	}
	if t := tableOf(lk).DefiningOp(); t != nil {
		if s, ok := t.Attr(emb.AttrName).(textir.StringAttr); ok {
			return s.Value
		}
	}
	return ""
}

// removable lists the stateless ops the lookup chains are made of.
var removable = map[string]bool{
	"tfg.Reshape": true, "tfg.Shape": true, "tfg.Slice": true, "tfg.StridedSlice": true, "tfg.Pack": true,
	"tfg.Const": true, "tfg.ConcatV2": true, "tfg.Cast": true, "tfg.Identity": true,
	emb.LookupOp: true, emb.GatherOp: true, emb.GatherScatterOp: true, emb.ConcatOp: true,
	// The id transforms the kernel now computes, and the filters rebuilt
	// on raw values (absorb.go).
	emb.FilterOp: true, emb.HashOp: true, emb.AsStringOp: true, emb.BucketizeOp: true, emb.VocabLookupOp: true,
	emb.CheckRangeOp: true, emb.CastOp: true, emb.AddOffsetOp: true, emb.SplitStringsOp: true, emb.CrossOp: true,
	// The shape operands --simplify-shapes rebuilt for the reshapes the
	// layer takes.
	shape.FromExtentsOp: true, arith.ConstantOp: true,
}

// eraseDead erases op and then every removable op left without uses.
func eraseDead(op *textir.Operation, rw textir.PatternRewriter) {
	work := []*textir.Operation{op}
	for len(work) > 0 {
		o := work[len(work)-1]
		work = work[:len(work)-1]
		if o.Block() == nil || !removable[o.Name()] {
			continue
		}
		dropAsserts(o, rw)
		if o.HasResultUses() {
			continue
		}
		for _, v := range o.Operands() {
			if d := v.DefiningOp(); d != nil {
				work = append(work, d)
			}
		}
		rw.EraseOp(o)
	}
}

// dropAsserts erases the shape assertions on o's results when they are
// their only users: they checked tensors the fused kernel no longer makes
// (simplify-shapes has already used what they said).
func dropAsserts(o *textir.Operation, rw textir.PatternRewriter) {
	var asserts []*textir.Operation
	for _, r := range o.Results() {
		for u := range r.Users() {
			if u.Name() != shape.AssertShapeOp {
				return
			}
			asserts = append(asserts, u)
		}
	}
	for _, a := range asserts {
		if a.Block() != nil {
			rw.EraseOp(a)
		}
	}
}
