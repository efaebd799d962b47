package tfgtoemb

import (
	"fmt"

	"github.com/recom-compiler/recom/dialects/emb"
	"github.com/recom-compiler/recom/dialects/tfg"
	"github.com/recom-compiler/recom/dialects/tfg/optab"
	"github.com/recom-compiler/recom/lowering/rewrite"
	"github.com/recom-compiler/recom/textir"
)

// The crossed id form: crossed_column (and tf.sparse.cross_hashed,
// tf.sparse.cross) make a column's sparse ids with a SparseCross, hashed
// (out_type int64: FingerprintCat64 from hash_key, mod num_buckets) or as
// strings joined by "_X_" (then hashed by the column's transforms), or a
// SparseCrossV2 (strings joined by its constant separator). The cross
// becomes emb.cross over its inputs, each lowered as a column's ids are:
//
//   - a sparse input (indices, values, dense_shape) by the id forms of
//     ids.go (a bucketized column's ids, a categorical column's over a
//     dense feature, split strings), else as emb.from_sparse of the
//     sparse tensor as it is;
//   - a dense [B, k] input (a raw feature; TF1's crossed_column reads the
//     feature itself, ExpandDims'd to [B, 1]) as emb.from_dense without
//     'ignore': TensorFlow crosses every element of a dense input.
//
// The inputs keep TensorFlow's order, sparse first. SparseCrossHashed
// (whose hashes differ by input kind and may be keyed) is left as sparse
// ids of another origin: its ids stay on the host.

// crossSource is the lowered form of a cross: its inputs and the
// attributes of emb.cross.
type crossSource struct {
	inputs []crossInput
	attrs  []textir.NamedAttribute
	elem   textir.Type // the crosses: i64 ids or strings
	loc    textir.Location
}

// crossInput is one input of a cross: where its ragged values come from
// and the transforms that make its features.
type crossInput struct {
	src source
	xs  []xform
}

// crossedIDs recognises a column whose ids are the output of a
// SparseCross or SparseCrossV2 (through transforms: a joined cross is
// hashed).
func crossedIDs(p *plan) (source, []xform, bool) {
	if p.weighted {
		return source{}, nil, false
	}
	base := strip(p.base)
	cr := def(base)
	if !isOp(cr, "SparseCross", "SparseCrossV2") || !isOutput(base, "output_values") ||
		!same(p.src.ind, optab.Result(cr, "output_indices")) || !same(p.src.shape, optab.Result(cr, "output_shape")) {
		return source{}, nil, false
	}
	cs, ok := matchCross(cr)
	if !ok {
		return source{}, nil, false
	}
	return source{kind: srcCross, cross: cs, loc: cr.Loc()}, p.xs, true
}

// matchCross reads a SparseCross or SparseCrossV2 into a crossSource.
func matchCross(cr *textir.Operation) (*crossSource, bool) {
	cs := &crossSource{loc: cr.Loc(), elem: emb.StringType()}
	if isOp(cr, "SparseCrossV2") {
		sep, ok := constString(optab.Operand(cr, "sep"))
		if !ok {
			return nil, false
		}
		cs.attrs = []textir.NamedAttribute{{Name: emb.AttrSep, Value: textir.Str(sep)}}
	} else {
		// TensorFlow registers SparseCross's kernels by out_type.
		out, ok := cr.Attr("out_type").(textir.TypeAttr)
		switch {
		case !ok:
			return nil, false
		case out.Type == textir.I64():
			nb, ok1 := intAttr(cr, "num_buckets")
			key, ok2 := intAttr(cr, "hash_key")
			if !ok1 || !ok2 || nb < 0 {
				return nil, false
			}
			cs.elem = textir.I64()
			cs.attrs = []textir.NamedAttribute{{Name: emb.AttrHashKey, Value: textir.I64Attr(key)},
				{Name: emb.AttrNumBuckets, Value: textir.I64Attr(nb)}}
		case tfg.IsString(out.Type):
			if it, ok := cr.Attr("internal_type").(textir.TypeAttr); ok && tfg.IsString(it.Type) && hasIntInput(cr) {
				return nil, false // TensorFlow's error on every run
			}
			cs.attrs = []textir.NamedAttribute{{Name: emb.AttrSep, Value: textir.Str("_X_")}}
		default:
			return nil, false
		}
	}
	ind, vals, shp := optab.Operands(cr, "indices"), optab.Operands(cr, "values"), optab.Operands(cr, "shapes")
	dense := optab.Operands(cr, "dense_inputs")
	if len(vals) != len(ind) || len(shp) != len(ind) || len(ind)+len(dense) == 0 {
		return nil, false
	}
	for i := range ind {
		cs.inputs = append(cs.inputs, sparseCrossInput(ind[i], vals[i], shp[i]))
	}
	for i, x := range dense {
		// A name of its own: the cross's is emb.cross's, and the feed's
		// (IteratorGetNext) may be another op's.
		loc := textir.Location(textir.NameLoc{Name: fmt.Sprintf("%s/dense_input_%d", tfg.NodeName(cr), i)})
		cs.inputs = append(cs.inputs, crossInput{src: source{kind: srcDense, x: x, loc: loc}})
	}
	return cs, true
}

// hasIntInput reports whether a cross has an integer input.
func hasIntInput(cr *textir.Operation) bool {
	for _, v := range append(optab.Operands(cr, "values"), optab.Operands(cr, "dense_inputs")...) {
		if isIntType(textir.ElementType(v.Type())) {
			return true
		}
	}
	return false
}

// sparseCrossInput lowers a sparse input of a cross as the id forms lower
// a column's sparse ids.
func sparseCrossInput(ind, vals, shp *textir.Value) crossInput {
	p := &plan{src: source{kind: srcSparse, ind: ind, vals: strip(vals), shape: shp}}
	p.base, p.xs = parseTransforms(p.src.vals)
	for _, ids := range []func(*plan) (source, []xform, bool){categoricalIDs, bucketizedIDs, splitIDs} {
		if src, xs, ok := ids(p); ok {
			return crossInput{src: src, xs: xs}
		}
	}
	return crossInput{src: p.src}
}

// checkCrossTypes checks what the emb ops of a cross take: each input's
// source (dense, with the checkTypes closure that picks the operand) and
// features of i64 or strings.
func checkCrossTypes(cs *crossSource, dense func(*source) error, ranked func(*textir.Value, int) bool) error {
	for i := range cs.inputs {
		in := &cs.inputs[i]
		var e textir.Type
		switch in.src.kind {
		case srcDense:
			if err := dense(&in.src); err != nil {
				return err
			}
			e = textir.ElementType(in.src.x.Type())
		case srcSplit:
			if !ranked(in.src.x, 1) || !tfg.IsString(textir.ElementType(in.src.x.Type())) {
				return fail("the split input %s of the cross is not a vector of strings", opDesc(def(in.src.x)))
			}
			e = emb.StringType()
		default:
			if !ranked(in.src.ind, 2) || !ranked(in.src.shape, 1) || !ranked(in.src.vals, 1) {
				return fail("sparse input #%d of the cross has no known 2-D types (indices %s, values %s, dense shape %s)", i, in.src.ind.Type(), in.src.vals.Type(), in.src.shape.Type())
			}
			it, st := tensorType(in.src.ind), tensorType(in.src.shape)
			if it.Elem != textir.I64() || (it.Shape[1] >= 0 && it.Shape[1] != 2) || st.Elem != textir.I64() || (st.Shape[0] >= 0 && st.Shape[0] != 2) {
				return fail("sparse input #%d of the cross is not 2-D (indices %s, dense shape %s)", i, in.src.ind.Type(), in.src.shape.Type())
			}
			e = textir.ElementType(in.src.vals.Type())
		}
		if len(in.xs) > 0 {
			e = in.xs[len(in.xs)-1].elem
		}
		if e != textir.I64() && !tfg.IsString(e) {
			return fail("input #%d of the cross has features of %s, not int64 or strings", i, e)
		}
	}
	return nil
}

// raggedCross makes the emb ops of a cross: each input's source and
// transforms, then emb.cross; first is the first op made.
func raggedCross(rw *rewrite.Rewriter, cs *crossSource, loc textir.Location) (vals, splits *textir.Value, first *textir.Operation) {
	var operands []*textir.Value
	for _, in := range cs.inputs {
		v, s, op := ragged(rw, in.src, loc)
		if first == nil {
			first = op
		}
		for _, x := range in.xs {
			t, _ := emb.AsIDTransform(create(rw, x.name, x.loc, []*textir.Value{v}, []textir.Type{emb.RaggedType(x.elem)}, x.attrs))
			v = t.Result()
		}
		operands = append(operands, v, s)
	}
	c, _ := emb.AsCross(create(rw, emb.CrossOp, cs.loc, operands, []textir.Type{emb.RaggedType(cs.elem), emb.SplitsType()}, cs.attrs))
	return c.Values(), c.RowSplits(), first
}
