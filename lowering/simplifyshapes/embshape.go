package simplifyshapes

import (
	"github.com/recom-compiler/recom/dialects/emb"
	"github.com/recom-compiler/recom/dialects/shape/expr"
	"github.com/recom-compiler/recom/dialects/tfg/optab"
	"github.com/recom-compiler/recom/textir"
)

// embShapes are the shape functions of the emb ops, as the op table's are
// of the tfg ops: ragged (values, row_splits) pairs, id transforms, tables
// and pooled lookups. A ragged pair of b rows has b + 1 row splits; the
// number of values is the source's element count when known, else a new
// count "nnz.<column>".
var embShapes = map[string]func(c shapeCtx, op *textir.Operation){
	emb.FromDenseOp:     fromDenseShape,
	emb.FromSparseOp:    fromSparseShape,
	emb.SplitStringsOp:  splitStringsShape,
	emb.CrossOp:         crossShape,
	emb.HashOp:          transformShape,
	emb.AsStringOp:      transformShape,
	emb.BucketizeOp:     transformShape,
	emb.VocabLookupOp:   transformShape,
	emb.CheckRangeOp:    transformShape,
	emb.CastOp:          transformShape,
	emb.AddOffsetOp:     addOffsetShape,
	emb.FilterOp:        filterShape,
	emb.TableOp:         tableShape,
	emb.LookupOp:        lookupShape,
	emb.GatherScatterOp: lookupShape,
	emb.GatherOp:        embGatherShape,
	emb.ConcatOp:        embConcatShape,
}

// nnz makes the count of the values of the column of x, bound to the
// number of elements of v.
func (c shapeCtx) nnz(x *textir.Value, suffix string, v *textir.Value) optab.Dim {
	return c.a.fresh("nnz."+nameOf(x)+suffix, expr.DataCount, binding{v: v, dim: -1})
}

// rowsPlusOne is the row-splits dims of b rows.
func (c shapeCtx) rowsPlusOne(b optab.Dim) []optab.Dim { return []optab.Dim{c.Add(b, c.Const(1))} }

// dim0 is v's dim 0, or unknown.
func (c shapeCtx) dim0(v *textir.Value) optab.Dim {
	if d := c.Dims(v); len(d) >= 1 {
		return d[0]
	}
	return c.Unknown()
}

// numel is the number of elements of a tensor of the given dims.
func (c shapeCtx) numel(dims []optab.Dim) optab.Dim {
	if dims == nil {
		return c.Unknown()
	}
	n := c.Const(1)
	for _, d := range dims {
		n = c.Mul(n, d)
	}
	return n
}

func fromDenseShape(c shapeCtx, op *textir.Operation) {
	s, _ := emb.AsFromDense(op)
	x := s.Input()
	b := c.dim0(x)
	var n optab.Dim
	if op.Attr(emb.AttrIgnore) == nil {
		n = c.numel(c.Dims(x))
	}
	if n == nil || n.Err() != nil {
		n = c.nnz(x, "", s.Values())
	}
	c.Set(s.Values(), []optab.Dim{n}, nil)
	c.Set(s.RowSplits(), c.rowsPlusOne(b), nil)
}

func fromSparseShape(c shapeCtx, op *textir.Operation) {
	s, _ := emb.AsFromSparse(op)
	vd := c.Dims(s.SparseValues())
	n := c.Unknown()
	if len(vd) == 1 {
		n = vd[0]
	}
	if n.Err() != nil {
		n = c.nnz(s.SparseValues(), "", s.Values())
	}
	b := c.Unknown()
	if ct := c.Content(s.DenseShape()); len(ct) >= 1 {
		b = ct[0]
	}
	c.Set(s.Values(), []optab.Dim{n}, nil)
	c.Set(s.RowSplits(), c.rowsPlusOne(b), nil)
}

func splitStringsShape(c shapeCtx, op *textir.Operation) {
	s, _ := emb.AsSplitStrings(op)
	b := c.dim0(s.Input())
	n := c.nnz(s.Input(), "", s.Values())
	c.Set(s.Values(), []optab.Dim{n}, nil)
	c.Set(s.RowSplits(), c.rowsPlusOne(b), nil)
}

// transformShape: an id transform keeps its ids' dims.
func transformShape(c shapeCtx, op *textir.Operation) {
	if t, ok := emb.AsIDTransform(op); ok {
		c.Set(t.Result(), c.Dims(t.Input()), nil)
	}
}

func addOffsetShape(c shapeCtx, op *textir.Operation) {
	a, _ := emb.AsAddOffset(op)
	c.Set(a.Result(), c.Dims(a.Values()), nil)
}

// filterShape: the kept values are a new count; weights, when filtered
// too, match the values.
func filterShape(c shapeCtx, op *textir.Operation) {
	f, _ := emb.AsFilter(op)
	n := c.nnz(f.Values(), ".kept", f.FilteredValues())
	c.Set(f.FilteredValues(), []optab.Dim{n}, nil)
	c.Set(f.FilteredRowSplits(), c.Dims(f.RowSplits()), nil)
	if fw := f.FilteredWeights(); fw != nil {
		if wd, vd := c.Dims(f.Weights()), c.Dims(f.Values()); len(wd) == 1 && len(vd) >= 1 {
			c.Equate(wd[0], vd[0])
		}
		c.Set(fw, []optab.Dim{n}, nil)
	}
}

func tableShape(c shapeCtx, op *textir.Operation) {
	t, _ := emb.AsTable(op)
	c.Set(t.Result(), nil, nil)
}

// lookupShape (lookup, gather_scatter): one row per bag (row splits minus
// one) of the table's width; ids and weights match.
func lookupShape(c shapeCtx, op *textir.Operation) {
	l, ok := emb.AsPooledLookup(op)
	if !ok {
		return
	}
	if w := l.Weights(); w != nil {
		vd, wd := c.Dims(l.IDs()), c.Dims(w)
		if len(vd) == 1 && len(wd) == 1 {
			c.Equate(vd[0], wd[0])
		}
	}
	rows := c.Unknown()
	if d := c.Dims(l.RowSplits()); len(d) == 1 {
		rows = c.Sub(d[0], c.Const(1))
	}
	c.Set(l.Result(), []optab.Dim{rows, c.width(l.Table())}, nil)
}

// width is a table's dim 1.
func (c shapeCtx) width(table *textir.Value) optab.Dim {
	if d := c.Dims(table); len(d) == 2 {
		return d[1]
	}
	return c.Unknown()
}

// embGatherShape: one row per id.
func embGatherShape(c shapeCtx, op *textir.Operation) {
	g, _ := emb.AsGather(op)
	n := c.Unknown()
	if d := c.Dims(g.IDs()); len(d) == 1 {
		n = d[0]
	}
	c.Set(g.Result(), []optab.Dim{n, c.width(g.Table())}, nil)
}

// embConcatShape: equal batches, widths added.
func embConcatShape(c shapeCtx, op *textir.Operation) {
	cc, _ := emb.AsConcat(op)
	b := c.Unknown()
	sum := c.Const(0)
	for _, x := range cc.Inputs() {
		d := c.Dims(x)
		if len(d) != 2 {
			sum = c.Unknown()
			continue
		}
		if b.Err() == nil {
			c.Equate(b, d[0])
		} else {
			b = d[0]
		}
		sum = c.Add(sum, d[1])
	}
	c.Set(cc.Result(), []optab.Dim{b, sum}, nil)
}
