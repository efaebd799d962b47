package simplifyshapes

import (
	"github.com/recom-compiler/recom/dialects/emb"
	"github.com/recom-compiler/recom/dialects/shape/expr"
	"github.com/recom-compiler/recom/dialects/tfg/optab"
	"github.com/recom-compiler/recom/textir"
)

// crossShape (emb.cross): the inputs' bags are the same rows; the crosses
// number rows × k when every input's bags hold exactly k_i ids (k the
// product: emb.BagSize), else a new count "nnz.<column>.cross".
func crossShape(c shapeCtx, op *textir.Operation) {
	x, _ := emb.AsCross(op)
	vals, splits := x.CrossInputs()
	rows := c.Unknown()
	for _, s := range splits {
		d := c.Dims(s)
		if len(d) != 1 {
			continue
		}
		r := c.Sub(d[0], c.Const(1))
		if rows.Err() == nil {
			c.Equate(rows, r)
		} else {
			rows = r
		}
	}
	var n optab.Dim
	if lo, hi, ok := emb.BagSize(x.RowSplits()); ok && lo == hi {
		n = c.Mul(rows, c.Const(lo))
	}
	if n == nil || n.Err() != nil {
		key := x.Values()
		if len(vals) > 0 {
			key = vals[0]
		}
		n = c.a.fresh("nnz."+nameOf(key)+".cross", expr.DataCount, binding{v: x.Values(), dim: -1})
	}
	c.Set(x.Values(), []optab.Dim{n}, nil)
	c.Set(x.RowSplits(), c.rowsPlusOne(rows), nil)
}
