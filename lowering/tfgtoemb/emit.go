package tfgtoemb

import (
	"github.com/recom-compiler/recom/dialects/emb"
	"github.com/recom-compiler/recom/dialects/tfg"
	"github.com/recom-compiler/recom/lowering/rewrite"
	"github.com/recom-compiler/recom/textir"
)

// The rewrite of a matched column: its emb ops, made before the column's
// output op, then the tfg ops that die erased.

func create(rw *rewrite.Rewriter, name string, loc textir.Location, operands []*textir.Value, results []textir.Type, attrs []textir.NamedAttribute) *textir.Operation {
	if loc == nil {
		loc = textir.UnknownLoc{}
	}
	return rw.Create(&textir.OperationState{Name: name, Loc: loc, Operands: operands, ResultTypes: results, Attrs: attrs})
}

// table returns the emb.table of a table op, made on first use.
func (l *Lowering) table(rw *rewrite.Rewriter, p *plan) *textir.Operation {
	if t, ok := l.tables[p.table]; ok {
		return t
	}
	attrs := []textir.NamedAttribute{{Name: emb.AttrName, Value: textir.Str(tfg.NodeName(p.table))}}
	switch {
	case p.parts != nil:
		attrs = partitionAttrs(p)
	case isOp(p.table, "Const"):
		if a, ok := p.table.Attr("value").(*textir.DenseElementsAttr); ok {
			attrs = append(attrs, textir.NamedAttribute{Name: emb.AttrValue, Value: a})
		}
	}
	t := create(rw, emb.TableOp, p.table.Loc(), nil, []textir.Type{p.tableType}, attrs)
	l.tables[p.table] = t
	return t
}

// ragged makes the source op of s: the (values, row_splits) of its bags.
func ragged(rw *rewrite.Rewriter, s source, loc textir.Location) (vals, splits *textir.Value, op *textir.Operation) {
	rs := emb.SplitsType()
	if s.loc != nil {
		loc = s.loc
	}
	switch s.kind {
	case srcDense:
		var attrs []textir.NamedAttribute
		if s.ignore != nil {
			attrs = append(attrs, textir.NamedAttribute{Name: emb.AttrIgnore, Value: s.ignore})
		}
		op = create(rw, emb.FromDenseOp, loc, []*textir.Value{s.x},
			[]textir.Type{emb.RaggedType(textir.ElementType(s.x.Type())), rs}, attrs)
		v, _ := emb.AsFromDense(op)
		return v.Values(), v.RowSplits(), op
	case srcCross:
		return raggedCross(rw, s.cross, loc)
	case srcSplit:
		op = create(rw, emb.SplitStringsOp, loc, []*textir.Value{s.x},
			[]textir.Type{emb.RaggedType(emb.StringType()), rs},
			[]textir.NamedAttribute{{Name: emb.AttrSep, Value: textir.Str(s.sep)}})
		v, _ := emb.AsSplitStrings(op)
		return v.Values(), v.RowSplits(), op
	}
	op = create(rw, emb.FromSparseOp, loc, []*textir.Value{s.ind, s.vals, s.shape},
		[]textir.Type{emb.RaggedType(textir.ElementType(s.vals.Type())), rs}, nil)
	v, _ := emb.AsFromSparse(op)
	return v.Values(), v.RowSplits(), op
}

// emit replaces column c, matched as p, with emb ops and erases the tfg
// ops that die.
func (l *Lowering) emit(rw *rewrite.Rewriter, c *Column, p *plan) {
	for _, r := range p.refine {
		if r.v.Type() != r.t {
			rw.ModifyOpInPlace(r.v.DefiningOp(), func() { r.v.SetType(r.t) })
		}
	}
	rw.SetInsertionPoint(p.outDef)
	loc := p.locDef.Loc()
	c.table = l.table(rw, p)
	if p.segments != nil {
		// A plain embedding_lookup_sparse has max(segments)+1 bags.
		p.src.shape = segmentShape(rw, p)
		if p.wsrc.kind == srcSparse && p.wsrc.ind != nil {
			p.wsrc.shape = p.src.shape
		}
	}
	vals, splits, first := ragged(rw, p.src, loc)
	c.first = first
	for _, x := range p.xforms {
		op := create(rw, x.name, x.loc, []*textir.Value{vals}, []textir.Type{emb.RaggedType(x.elem)}, x.attrs)
		t, _ := emb.AsIDTransform(op)
		vals = t.Result()
	}
	var w *textir.Value
	if p.weighted {
		switch {
		case p.wsrc.kind == srcDense:
			w, _, _ = ragged(rw, p.wsrc, loc)
		case p.wsrc.ind != nil:
			w, _, _ = ragged(rw, p.wsrc, loc)
		default:
			w = p.wsrc.vals
		}
	}
	for _, ly := range p.layers {
		var attrs []textir.NamedAttribute
		if ly.hasMin {
			attrs = append(attrs, textir.NamedAttribute{Name: emb.AttrMin, Value: textir.I64Attr(ly.min)})
		}
		operands := []*textir.Value{vals, splits}
		types := []textir.Type{vals.Type(), splits.Type()}
		if w != nil {
			operands = append(operands, w)
			types = append(types, w.Type())
		}
		if ly.positive && w != nil {
			// Two filters, so that the range analysis can drop the first.
			if ly.hasMin {
				f := create(rw, emb.FilterOp, ly.loc, operands, types, attrs)
				c.ranged = append(c.ranged, f)
				operands = f.Results()
			}
			attrs = []textir.NamedAttribute{{Name: emb.AttrPositiveWeights, Value: textir.UnitAttr{}}}
		} else if !ly.hasMin {
			continue
		}
		f, _ := emb.AsFilter(create(rw, emb.FilterOp, ly.loc, operands, types, attrs))
		if !ly.positive {
			c.ranged = append(c.ranged, f.Op())
		}
		vals, splits = f.FilteredValues(), f.FilteredRowSplits()
		if w != nil {
			w = f.FilteredWeights()
		}
	}
	table, _ := emb.AsTable(c.table)
	operands := []*textir.Value{table.Result(), vals, splits}
	if w != nil {
		operands = append(operands, w)
	}
	rt := p.out.Type()
	if ot := tensorType(p.out); ot == nil || len(ot.Shape) != 2 || ot.Shape[1] < 0 {
		rt = textir.TensorOf([]int64{textir.Dynamic, p.tableType.Shape[1]}, p.tableType.Elem)
	}
	attrs := []textir.NamedAttribute{{Name: emb.AttrCombiner, Value: textir.Str(p.combiner)}}
	if p.noNaN {
		attrs = append(attrs, textir.NamedAttribute{Name: emb.AttrDivNoNaN, Value: textir.UnitAttr{}})
	}
	c.lookup = create(rw, emb.LookupOp, loc, operands, []textir.Type{rt}, attrs)
	c.ranged = append(c.ranged, rangeChecks(vals)...)
	old := p.outDef
	lk, _ := emb.AsLookup(c.lookup)
	rw.ReplaceAllUsesWith(p.out, lk.Result())
	l.eraseDead(rw, old)
}

// rangeChecks returns the emb.check_range ops on the chain of filters and
// transforms that ends in v, last first (for the range analysis).
func rangeChecks(v *textir.Value) []*textir.Operation {
	var out []*textir.Operation
	for range 64 {
		d := def(v)
		if d == nil {
			break
		}
		if f, ok := emb.AsFilter(d); ok {
			v = f.Values()
			continue
		}
		t, ok := emb.AsIDTransform(d)
		if !ok {
			break
		}
		if d.Name() == emb.CheckRangeOp {
			out = append(out, d)
		}
		v = t.Input()
	}
	return out
}

// keep lists the tfg ops never erased as dead: feeds and ops run for
// their effects.
var keep = map[string]bool{
	"tfg.Placeholder": true, "tfg.PlaceholderWithDefault": true, "tfg.Assert": true, "tfg.NoOp": true,
	"tfg.LookupTableImportV2": true, "tfg.InitializeTableV2": true, "tfg.IteratorGetNext": true,
	"tfg.Print": true, "tfg.PrintV2": true, "tfg.graph": true,
}

// eraseDead erases op and then every tfg op that becomes unused, counting
// them.
func (l *Lowering) eraseDead(rw *rewrite.Rewriter, op *textir.Operation) {
	work := []*textir.Operation{op}
	for len(work) > 0 {
		o := work[len(work)-1]
		work = work[:len(work)-1]
		if o.Block() == nil || o.Dialect() != tfg.Name || keep[o.Name()] || o.HasResultUses() {
			continue
		}
		for _, x := range o.Operands() {
			if d := def(x); d != nil && d != o {
				work = append(work, d)
			}
		}
		l.removed++
		if o.Name() == "tfg.Unique" {
			l.uniques++
		}
		rw.EraseOp(o)
	}
}
