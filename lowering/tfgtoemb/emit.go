package tfgtoemb

import (
	"github.com/recom-compiler/recom/dialects/emb"
	"github.com/recom-compiler/recom/dialects/tfg"
	"github.com/recom-compiler/recom/lowering/rewrite"
	"github.com/recom-compiler/recom/textir"
)

// lowering emits the emb ops of matched columns through the rewriter.
type lowering struct {
	rw      *rewrite.Rewriter
	ctx     *textir.Context
	tables  map[*textir.Operation]*textir.Value
	l       *listener
	created []*textir.Operation // filters and range checks
	lookups []*textir.Operation
}

func (lw *lowering) create(name string, loc textir.Location, operands []*textir.Value, results []textir.Type, attrs []textir.NamedAttribute) *textir.Operation {
	if loc == nil {
		loc = textir.UnknownLoc{}
	}
	return lw.rw.Create(&textir.OperationState{Name: name, Loc: loc, Operands: operands, ResultTypes: results, Attrs: attrs})
}

// table returns the emb.table of a table op, made on first use.
func (lw *lowering) table(p *plan) *textir.Value {
	if v, ok := lw.tables[p.table]; ok {
		return v
	}
	attrs := []textir.NamedAttribute{{Name: emb.AttrName, Value: textir.Str(tfg.NodeName(p.table))}}
	if isOp(p.table, "Const") {
		if a, ok := p.table.Attr("value").(*textir.DenseElementsAttr); ok {
			attrs = append(attrs, textir.NamedAttribute{Name: emb.AttrValue, Value: a})
		}
	}
	v := lw.create(emb.TableOp, p.table.Loc(), nil, []textir.Type{p.tableType}, attrs).Result(0)
	lw.tables[p.table] = v
	return v
}

// ragged makes the (values, row_splits) of a source.
func (lw *lowering) ragged(s source, loc textir.Location) (*textir.Value, *textir.Value) {
	splits := emb.SplitsType()
	if s.loc != nil {
		loc = s.loc
	}
	var op *textir.Operation
	switch s.kind {
	case srcDense:
		var attrs []textir.NamedAttribute
		if s.ignore != nil {
			attrs = append(attrs, textir.NamedAttribute{Name: emb.AttrIgnore, Value: s.ignore})
		}
		op = lw.create(emb.FromDenseOp, loc, []*textir.Value{s.x},
			[]textir.Type{emb.RaggedType(textir.ElementType(s.x.Type())), splits}, attrs)
	case srcSplit:
		op = lw.create(emb.SplitStringsOp, loc, []*textir.Value{s.x},
			[]textir.Type{emb.RaggedType(emb.StringType()), splits},
			[]textir.NamedAttribute{{Name: emb.AttrSep, Value: textir.Str(s.sep)}})
	default:
		op = lw.create(emb.FromSparseOp, loc, []*textir.Value{s.ind, s.vals, s.shape},
			[]textir.Type{emb.RaggedType(textir.ElementType(s.vals.Type())), splits}, nil)
	}
	return op.Result(0), op.Result(1)
}

// emit replaces the column of p with emb ops and erases what dies.
func (lw *lowering) emit(p *plan) {
	for _, r := range p.refine {
		if r.v.Type() != r.t {
			lw.rw.ModifyOpInPlace(r.v.DefiningOp(), func() { r.v.SetType(r.t) })
		}
	}
	lw.rw.SetInsertionPoint(p.outDef)
	loc := p.outDef.Loc()
	tab := lw.table(p)
	vals, splits := lw.ragged(p.src, loc)
	for _, x := range p.xforms {
		vals = lw.create(x.name, x.loc, []*textir.Value{vals}, []textir.Type{emb.RaggedType(x.elem)}, x.attrs).Result(0)
	}
	var w *textir.Value
	if p.weighted {
		switch {
		case p.wsrc.kind == srcDense:
			w, _ = lw.ragged(p.wsrc, loc)
		case p.wsrc.ind != nil:
			w, _ = lw.ragged(p.wsrc, loc)
		default:
			w = p.wsrc.vals
		}
	}
	for _, l := range p.layers {
		var attrs []textir.NamedAttribute
		if l.hasMin {
			attrs = append(attrs, textir.NamedAttribute{Name: emb.AttrMin, Value: textir.I64Attr(l.min)})
		}
		operands := []*textir.Value{vals, splits}
		types := []textir.Type{vals.Type(), splits.Type()}
		if w != nil {
			operands = append(operands, w)
			types = append(types, w.Type())
		}
		if l.positive && w != nil {
			// Two filters, so that the range analysis can drop the first.
			if l.hasMin {
				f := lw.create(emb.FilterOp, l.loc, operands, types, attrs)
				lw.created = append(lw.created, f)
				operands = f.Results()
			}
			attrs = []textir.NamedAttribute{{Name: emb.AttrPositiveWeights, Value: textir.UnitAttr{}}}
		} else if !l.hasMin {
			continue
		}
		f := lw.create(emb.FilterOp, l.loc, operands, types, attrs)
		if !l.positive {
			lw.created = append(lw.created, f)
		}
		vals, splits = f.Result(0), f.Result(1)
		if w != nil {
			w = f.Result(2)
		}
	}
	operands := []*textir.Value{tab, vals, splits}
	if w != nil {
		operands = append(operands, w)
	}
	rt := p.out.Type()
	if ot := tensorType(p.out); ot == nil || len(ot.Shape) != 2 || ot.Shape[1] < 0 {
		rt = textir.TensorOf([]int64{textir.Dynamic, p.tableType.Shape[1]}, p.tableType.Elem)
	}
	lk := lw.create(emb.LookupOp, loc, operands, []textir.Type{rt},
		[]textir.NamedAttribute{{Name: emb.AttrCombiner, Value: textir.Str(p.combiner)}})
	lw.lookups = append(lw.lookups, lk)
	lw.created = append(lw.created, lw.createdChecks(vals)...)
	old := p.outDef
	lw.rw.ReplaceAllUsesWith(p.out, lk.Result(0))
	lw.eraseDead(old)
}

// createdChecks returns the emb.check_range ops on the chain that ends in
// v (for the range analysis).
func (lw *lowering) createdChecks(v *textir.Value) []*textir.Operation {
	var out []*textir.Operation
	for i := 0; i < 64; i++ {
		d := def(v)
		if d == nil || d.Dialect() != emb.Name || d.NumOperands() == 0 {
			break
		}
		if d.Name() == emb.CheckRangeOp {
			out = append(out, d)
		}
		v = d.Operand(0)
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

// eraseDead erases op and then every tfg op that becomes unused.
func (lw *lowering) eraseDead(op *textir.Operation) {
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
		lw.rw.EraseOp(o)
	}
}
