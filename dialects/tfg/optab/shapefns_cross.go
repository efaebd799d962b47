package optab

import "github.com/recom-compiler/recom/textir"

// crossShape (SparseCross, SparseCrossV2, SparseCrossHashed): a count of
// crosses, and the dense shape [rows, most crosses of a row], the rows
// those of the first sparse input's dense shape, else of the first dense
// input (TensorFlow's CalculateBatchSize), the most crosses a count of its
// own.
func crossShape(c ShapeContext, op *textir.Operation) {
	ind, vals, shape := Result(op, "output_indices"), Result(op, "output_values"), Result(op, "output_shape")
	if ind == nil || vals == nil || shape == nil {
		return
	}
	n := c.Count(op, ".n", vals, -1)
	c.Set(ind, []Dim{n, c.Const(2)}, nil)
	c.Set(vals, []Dim{n}, nil)
	rows := c.Unknown()
	if shapes := Operands(op, "shapes"); len(shapes) > 0 {
		if sc := c.Content(shapes[0]); len(sc) == 2 {
			rows = sc[0]
		}
	} else if dense := Operands(op, "dense_inputs"); len(dense) > 0 {
		if xd := c.Dims(dense[0]); len(xd) == 2 {
			rows = xd[0]
		}
	}
	m := c.Count(op, ".max", nil, 0)
	c.Set(shape, []Dim{c.Const(2)}, []Dim{rows, m})
}
