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
	emb.HashOp:          sameAsFirstShape,
	emb.AsStringOp:      sameAsFirstShape,
	emb.BucketizeOp:     sameAsFirstShape,
	emb.VocabLookupOp:   sameAsFirstShape,
	emb.CheckRangeOp:    sameAsFirstShape,
	emb.CastOp:          sameAsFirstShape,
	emb.AddOffsetOp:     sameAsFirstShape,
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

func fromDenseShape(c shapeCtx, op *textir.Operation) {
	x := op.Operand(0)
	xd := c.Dims(x)
	b := c.Unknown()
	if len(xd) >= 1 {
		b = xd[0]
	}
	var n optab.Dim
	if op.Attr(emb.AttrIgnore) == nil {
		n = c.numel(xd)
	}
	if n == nil || n.Err() != nil {
		n = c.nnz(x, "", op.Result(0))
	}
	c.Set(op.Result(0), []optab.Dim{n}, nil)
	c.Set(op.Result(1), c.rowsPlusOne(b), nil)
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

func fromSparseShape(c shapeCtx, op *textir.Operation) {
	vd := c.Dims(op.Operand(1))
	n := c.Unknown()
	if len(vd) == 1 {
		n = vd[0]
	}
	if n.Err() != nil {
		n = c.nnz(op.Operand(1), "", op.Result(0))
	}
	b := c.Unknown()
	if ct := c.Content(op.Operand(2)); len(ct) >= 1 {
		b = ct[0]
	}
	c.Set(op.Result(0), []optab.Dim{n}, nil)
	c.Set(op.Result(1), c.rowsPlusOne(b), nil)
}

func splitStringsShape(c shapeCtx, op *textir.Operation) {
	x := op.Operand(0)
	b := c.dim0(x)
	n := c.nnz(x, "", op.Result(0))
	c.Set(op.Result(0), []optab.Dim{n}, nil)
	c.Set(op.Result(1), c.rowsPlusOne(b), nil)
}

// sameAsFirstShape: the id transforms keep their ids' dims.
func sameAsFirstShape(c shapeCtx, op *textir.Operation) {
	c.Set(op.Result(0), c.Dims(op.Operand(0)), nil)
}

// filterShape: the kept values are a new count; weights, when filtered
// too, match the values.
func filterShape(c shapeCtx, op *textir.Operation) {
	n := c.nnz(op.Operand(0), ".kept", op.Result(0))
	c.Set(op.Result(0), []optab.Dim{n}, nil)
	c.Set(op.Result(1), c.Dims(op.Operand(1)), nil)
	if op.NumResults() > 2 {
		if wd, vd := c.Dims(op.Operand(2)), c.Dims(op.Operand(0)); len(wd) == 1 && len(vd) >= 1 {
			c.Equate(wd[0], vd[0])
		}
		c.Set(op.Result(2), []optab.Dim{n}, nil)
	}
}

func tableShape(c shapeCtx, op *textir.Operation) { c.Set(op.Result(0), nil, nil) }

// lookupShape (lookup, gather_scatter): one row per bag (row splits minus
// one) of the table's width; values and weights match.
func lookupShape(c shapeCtx, op *textir.Operation) {
	if op.NumOperands() > 3 {
		vd, wd := c.Dims(op.Operand(1)), c.Dims(op.Operand(3))
		if len(vd) == 1 && len(wd) == 1 {
			c.Equate(vd[0], wd[0])
		}
	}
	rows := c.Unknown()
	if d := c.Dims(op.Operand(2)); len(d) == 1 {
		rows = c.Sub(d[0], c.Const(1))
	}
	c.Set(op.Result(0), []optab.Dim{rows, c.width(op.Operand(0))}, nil)
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
	n := c.Unknown()
	if d := c.Dims(op.Operand(1)); len(d) == 1 {
		n = d[0]
	}
	c.Set(op.Result(0), []optab.Dim{n, c.width(op.Operand(0))}, nil)
}

// embConcatShape: equal batches, widths added.
func embConcatShape(c shapeCtx, op *textir.Operation) {
	b := c.Unknown()
	sum := c.Const(0)
	for _, x := range op.Operands() {
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
	c.Set(op.Result(0), []optab.Dim{b, sum}, nil)
}
