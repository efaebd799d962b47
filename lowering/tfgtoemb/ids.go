package tfgtoemb

import (
	"github.com/recom-compiler/recom/dialects/emb"
	"github.com/recom-compiler/recom/dialects/tfg"
	"github.com/recom-compiler/recom/dialects/tfg/optab"
	"github.com/recom-compiler/recom/textir"
)

// The id forms: where a column's ids come from, the part of a feature
// column before safe_embedding_lookup_sparse. Each recognises its form in
// the plan of lookupChain (the sparse ids, their values parsed into
// transforms) and returns the ids' source and their transforms in forward
// order; the forms are told apart by structure, so at most one of the
// first three recognises a column, and sparseIDs takes what none does.

// categoricalIDs recognises a categorical column over a dense feature
// (hash bucket of strings, of integers through AsString, identity,
// vocabulary list): its values are _to_sparse_input_and_drop_ignore_values
// of the feature, through the column's id transforms.
func categoricalIDs(p *plan) (source, []xform, bool) {
	if p.plain() {
		return source{}, nil, false
	}
	src, ok := denseSource(p.base, p.src.ind, p.src.shape)
	if !ok {
		return source{}, nil, false
	}
	return src, append([]xform(nil), p.xs...), true
}

// bucketizedIDs recognises bucketized_column over a [batch, 1] numeric
// feature: Bucketize, then the column's sparse index construction.
func bucketizedIDs(p *plan) (source, []xform, bool) {
	if p.plain() {
		return source{}, nil, false
	}
	src, pre, ok := bucketizedSource(p.base, p.src.ind, p.src.shape)
	if !ok {
		return source{}, nil, false
	}
	return src, append(pre, p.xs...), true
}

// splitIDs recognises a string feature split into tokens by StringSplitV2
// (maxsplit -1), then hashed.
func splitIDs(p *plan) (source, []xform, bool) {
	if p.plain() {
		return source{}, nil, false
	}
	src, ok := splitSource(p.base, p.src.ind, p.src.shape)
	if !ok {
		return source{}, nil, false
	}
	return src, p.xs, true
}

// sparseIDs takes the ids as the sparse tensor they are, of any other
// origin (crossed columns, external vocabularies, a SparseTensor feature):
// their transforms stay tfg ops before emb.from_sparse.
func sparseIDs(p *plan) (source, []xform, bool) { return p.src, nil, true }

// parseTransforms reads the element-wise id transforms that end in v and
// returns the value they start from and the transforms in forward order.
func parseTransforms(v *textir.Value) (*textir.Value, []xform) {
	var rev []xform
	for i := 0; i < 32; i++ {
		v = strip(v)
		d := def(v)
		elem := textir.ElementType(v.Type())
		switch {
		case isOp(d, "StringToHashBucketFast") && tfg.IsString(optab.Operand(d, "input").Type()):
			n, ok := intAttr(d, "num_buckets")
			if !ok || n < 1 || !isIntType(elem) {
				return v, reverse(rev)
			}
			rev = append(rev, xform{name: emb.HashOp, elem: elem, loc: d.Loc(),
				attrs: []textir.NamedAttribute{{Name: emb.AttrNumBuckets, Value: textir.I64Attr(n)}}})
			v = optab.Operand(d, "input")
			continue
		case isOp(d, "AsString") && defaultAsString(d) && isIntType(textir.ElementType(optab.Operand(d, "input").Type())):
			rev = append(rev, xform{name: emb.AsStringOp, elem: elem, loc: d.Loc()})
			v = optab.Operand(d, "input")
			continue
		case isOp(d, "Cast") && isIntType(elem) && isIntType(textir.ElementType(optab.Operand(d, "x").Type())):
			rev = append(rev, xform{name: emb.CastOp, elem: elem, loc: d.Loc()})
			v = optab.Operand(d, "x")
			continue
		case isOp(d, "SelectV2", "Select"):
			if x, in, ok := checkRange(d); ok {
				rev = append(rev, x)
				v = in
				continue
			}
			if x, in, ok := vocabOOV(d); ok {
				rev = append(rev, x)
				v = in
				continue
			}
		case isOp(d, "LookupTableFindV2"):
			if x, in, ok := vocab(d, 0); ok {
				rev = append(rev, x)
				v = in
				continue
			}
		}
		return v, reverse(rev)
	}
	return v, reverse(rev)
}

func reverse(xs []xform) []xform {
	out := make([]xform, len(xs))
	for i, x := range xs {
		out[len(xs)-1-i] = x
	}
	return out
}

// defaultAsString reports whether an AsString has its default attributes.
func defaultAsString(d *textir.Operation) bool {
	if s, ok := d.Attr("fill").(textir.StringAttr); ok && s.Value != "" {
		return false
	}
	if b, ok := d.Attr("scientific").(textir.BoolAttr); ok && b.Value {
		return false
	}
	if b, ok := d.Attr("shortest").(textir.BoolAttr); ok && b.Value {
		return false
	}
	return intAttrIs(d, "precision", -1) && intAttrIs(d, "width", -1) ||
		(d.Attr("precision") == nil && d.Attr("width") == nil)
}

// checkRange matches identity-column defaulting:
// SelectV2(LogicalOr(Less(v, 0), GreaterEqual(v, N)), Fill(Shape(v), d), v).
func checkRange(d *textir.Operation) (xform, *textir.Value, bool) {
	v := optab.Operand(d, "e")
	or := is(optab.Operand(d, "condition"), "LogicalOr")
	fill := is(optab.Operand(d, "t"), "Fill")
	if or == nil || fill == nil || !isIntType(textir.ElementType(v.Type())) {
		return xform{}, nil, false
	}
	less, ge := is(optab.Operand(or, "x"), "Less"), is(optab.Operand(or, "y"), "GreaterEqual")
	if less == nil || ge == nil || !same(optab.Operand(less, "x"), v) || !same(optab.Operand(ge, "x"), v) {
		return xform{}, nil, false
	}
	z, ok1 := constInt(optab.Operand(less, "y"))
	n, ok2 := constInt(optab.Operand(ge, "y"))
	dv, ok3 := constInt(optab.Operand(fill, "value"))
	sh := is(optab.Operand(fill, "dims"), "Shape")
	if !ok1 || !ok2 || !ok3 || z != 0 || n < 1 || sh == nil || !same(optab.Operand(sh, "input"), v) || rankOf(optab.Operand(less, "y")) > 0 || rankOf(optab.Operand(ge, "y")) > 0 {
		return xform{}, nil, false
	}
	out := optab.Result(d, "output")
	if out == nil {
		return xform{}, nil, false
	}
	elem := textir.ElementType(out.Type())
	if elem != textir.ElementType(v.Type()) {
		return xform{}, nil, false
	}
	return xform{name: emb.CheckRangeOp, elem: elem, loc: d.Loc(), attrs: []textir.NamedAttribute{
		{Name: emb.AttrNumBuckets, Value: textir.I64Attr(n)}, {Name: emb.AttrDefault, Value: textir.I64Attr(dv)}}}, v, true
}

// vocabKeys returns the keys of a hash table initialized in the graph from
// constants with the values 0, 1, ..., n-1.
func vocabKeys(ht *textir.Operation) (*textir.DenseElementsAttr, bool) {
	if !isOp(ht, "HashTableV2", "HashTable", "MutableHashTableV2") || isOp(ht, "MutableHashTableV2") {
		return nil, false
	}
	var keys *textir.DenseElementsAttr
	n := 0
	handle := tableResult(ht, "table_handle")
	if handle == nil {
		return nil, false
	}
	for u := range handle.Users() {
		if !isOp(u, "LookupTableImportV2", "InitializeTableV2", "LookupTableImport", "InitializeTable") {
			continue
		}
		n++
		k := constAttr(tableOperand(u, "keys"))
		if k == nil || len(k.Type.Shape) != 1 {
			return nil, false
		}
		cnt := k.NumElements()
		if !isIota(tableOperand(u, "values"), cnt) {
			return nil, false
		}
		keys = k
	}
	if n != 1 || keys == nil {
		return nil, false
	}
	return keys, true
}

// isIota reports whether v is 0, 1, ..., n-1.
func isIota(v *textir.Value, n int64) bool {
	if xs, ok := constInts(v); ok {
		if int64(len(xs)) != n {
			return false
		}
		for i, x := range xs {
			if x != int64(i) {
				return false
			}
		}
		return true
	}
	v = strip(v)
	if c := is(v, "Cast"); c != nil {
		v = strip(optab.Operand(c, "x"))
	}
	r := is(v, "Range")
	if r == nil {
		return false
	}
	s, ok1 := constInt(optab.Operand(r, "start"))
	l, ok2 := constInt(optab.Operand(r, "limit"))
	if !ok2 {
		if sz := is(optab.Operand(r, "limit"), "Size"); sz != nil {
			if t := tensorType(optab.Operand(sz, "input")); t != nil && len(t.Shape) == 1 && t.Shape[0] >= 0 {
				l, ok2 = t.Shape[0], true
			}
		}
	}
	dl, ok3 := constInt(optab.Operand(r, "delta"))
	return ok1 && ok2 && ok3 && s == 0 && dl == 1 && l == n
}

// vocab matches LookupTableFindV2(table, ids, default) on a vocabulary.
func vocab(find *textir.Operation, oov int64) (xform, *textir.Value, bool) {
	ht := def(optab.Operand(find, "table_handle"))
	keys, ok := vocabKeys(ht)
	in := optab.Operand(find, "keys")
	if !ok || keys.Type.Elem != textir.ElementType(in.Type()) {
		return xform{}, nil, false
	}
	dv, ok := constInt(optab.Operand(find, "default_value"))
	elem := textir.ElementType(optab.Result(find, "values").Type())
	if !ok || !isIntType(elem) {
		return xform{}, nil, false
	}
	attrs := []textir.NamedAttribute{{Name: emb.AttrKeys, Value: keys}}
	if oov > 0 {
		attrs = append(attrs, textir.NamedAttribute{Name: emb.AttrNumOOVBuckets, Value: textir.I64Attr(oov)})
	} else {
		attrs = append(attrs, textir.NamedAttribute{Name: emb.AttrDefault, Value: textir.I64Attr(dv)})
	}
	return xform{name: emb.VocabLookupOp, elem: elem, loc: find.Loc(), attrs: attrs}, in, true
}

// vocabOOV matches a vocabulary lookup with out-of-vocabulary buckets:
// SelectV2(NotEqual(ids, default), ids, Add(StringToHashBucketFast(x), Size(table))).
func vocabOOV(d *textir.Operation) (xform, *textir.Value, bool) {
	ne := is(optab.Operand(d, "condition"), "NotEqual")
	find := is(optab.Operand(d, "t"), "LookupTableFindV2")
	add := is(optab.Operand(d, "e"), "Add", "AddV2")
	if ne == nil || find == nil || add == nil || !same(optab.Operand(ne, "x"), optab.Result(find, "values")) || !same(optab.Operand(ne, "y"), optab.Operand(find, "default_value")) {
		return xform{}, nil, false
	}
	hb, size := is(optab.Operand(add, "x"), "StringToHashBucketFast"), optab.Operand(add, "y")
	if hb == nil {
		hb, size = is(optab.Operand(add, "y"), "StringToHashBucketFast"), optab.Operand(add, "x")
	}
	if hb == nil {
		return xform{}, nil, false
	}
	hin := optab.Operand(hb, "input")
	if !same(hin, optab.Operand(find, "keys")) {
		if a := is(hin, "AsString"); a == nil || !defaultAsString(a) || !same(optab.Operand(a, "input"), optab.Operand(find, "keys")) {
			return xform{}, nil, false
		}
	}
	oov, ok := intAttr(hb, "num_buckets")
	x, in, ok2 := vocab(find, oov)
	if !ok || oov < 1 || !ok2 {
		return xform{}, nil, false
	}
	keys := x.attrs[0].Value.(*textir.DenseElementsAttr)
	if sz := is(size, "LookupTableSizeV2"); sz != nil {
		if def(optab.Operand(sz, "table_handle")) != def(optab.Operand(find, "table_handle")) {
			return xform{}, nil, false
		}
	} else if n, ok := constInt(size); !ok || n != keys.NumElements() {
		return xform{}, nil, false
	}
	if out := optab.Result(d, "output"); out == nil || textir.ElementType(out.Type()) != x.elem {
		return xform{}, nil, false
	}
	x.loc = d.Loc()
	return x, in, true
}

// denseSource matches the values of _to_sparse_input_and_drop_ignore_values
// over a rank-2 tensor x (GatherNd(x, Where(NotEqual(x, ignore))), or
// TF1's Gather(Reshape(x, [-1]), flat index)) whose indices are ind and
// whose dense shape is shape(x). ind and shape nil: check the values alone
// (for weights).
func denseSource(vals, ind, shp *textir.Value) (source, bool) {
	vals = strip(vals)
	d := def(vals)
	var x, where *textir.Value
	switch {
	case isOp(d, "GatherNd"):
		x, where = optab.Operand(d, "params"), optab.Operand(d, "indices")
	case isOp(d, "Gather", "GatherV2"):
		x, where = tf1Values(d)
	}
	if x == nil || rankOf(x) != 2 {
		return source{}, false
	}
	w := is(where, "Where")
	if w == nil || (ind != nil && !same(ind, where)) {
		return source{}, false
	}
	src := source{kind: srcDense, x: x, loc: w.Loc()}
	ne := is(optab.Operand(w, "input"), "NotEqual")
	if ne == nil || !same(optab.Operand(ne, "x"), x) {
		return source{}, false
	}
	ig := optab.Operand(ne, "y")
	if rankOf(ig) != 0 {
		return source{}, false
	}
	elem := textir.ElementType(x.Type())
	switch {
	case tfg.IsString(elem):
		s, ok := constString(ig)
		if !ok {
			return source{}, false
		}
		src.ignore = textir.Str(s)
	case isIntType(elem):
		k, ok := constInt(ig)
		if !ok {
			return source{}, false
		}
		src.ignore = textir.IntegerAttr{Value: k, Type: elem}
	case textir.IsFloat(elem):
		f, ok := constFloat(ig)
		if !ok {
			return source{}, false
		}
		src.ignore = textir.FloatAttr{Value: f, Type: elem}
	default:
		return source{}, false
	}
	if shp != nil {
		var w widths
		got, ok1 := w.vecTerms(shp, 0)
		want, ok2 := w.shapeOf(x)
		if !ok1 || !ok2 || !termsEq(got, want) {
			return source{}, false
		}
	}
	return src, true
}

// tf1Values matches TF1's values = Gather(Reshape(x, [-1]),
// where[:, 1] + Sum(where[:, :1] * [dim1], 1)) and returns x and where.
func tf1Values(g *textir.Operation) (*textir.Value, *textir.Value) {
	if isOp(g, "GatherV2") && !constIntsEq(optab.Operand(g, "axis"), 0) {
		return nil, nil
	}
	rs := is(optab.Operand(g, "params"), "Reshape")
	add := is(optab.Operand(g, "indices"), "Add", "AddV2")
	if rs == nil || add == nil || !constIntsEq(optab.Operand(rs, "shape"), -1) {
		return nil, nil
	}
	x := optab.Operand(rs, "tensor")
	col := is(optab.Operand(add, "x"), "StridedSlice")
	sum := is(optab.Operand(add, "y"), "Sum")
	if col == nil || sum == nil || !constIntsEq(optab.Operand(sum, "reduction_indices"), 1) {
		return nil, nil
	}
	where := optab.Operand(col, "input")
	if !constIntsEq(optab.Operand(col, "begin"), 0, 1) || !constIntsEq(optab.Operand(col, "end"), 0, 2) || !constIntsEq(optab.Operand(col, "strides"), 1, 1) ||
		!intAttrIs(col, "shrink_axis_mask", 2) || !intAttrIs(col, "begin_mask", 1) || !intAttrIs(col, "end_mask", 1) {
		return nil, nil
	}
	mul := is(optab.Operand(sum, "input"), "Mul")
	if mul == nil {
		return nil, nil
	}
	row := is(optab.Operand(mul, "x"), "StridedSlice")
	if row == nil || optab.Operand(row, "input") != where || !constIntsEq(optab.Operand(row, "begin"), 0, 0) || !constIntsEq(optab.Operand(row, "end"), 0, 1) ||
		!constIntsEq(optab.Operand(row, "strides"), 1, 1) ||
		!intAttrIs(row, "shrink_axis_mask", 0) || !intAttrIs(row, "new_axis_mask", 0) {
		return nil, nil
	}
	var w widths
	k, ok := w.vecTerms(optab.Operand(mul, "y"), 0)
	if !ok || len(k) != 1 || !k[0].eq(dimTerm(x, 1)) {
		return nil, nil
	}
	return x, where
}

// bucketizedSource matches bucketized_column's sparse ids over a [batch, 1]
// input: values Reshape(Bucketize(x), [-1]) + (n+1) * zeros, indices
// [i, 0], dense shape [batch, 1]. The Bucketize is the one transform the
// source implies (pre).
func bucketizedSource(vals, ind, shp *textir.Value) (src source, pre []xform, ok bool) {
	add := is(strip(vals), "Add", "AddV2")
	fl := is(optab.Operand(add, "x"), "Reshape")
	mul := is(optab.Operand(add, "y"), "Mul")
	if fl == nil || mul == nil || !constIntsEq(optab.Operand(fl, "shape"), -1) {
		return source{}, nil, false
	}
	bz := is(optab.Operand(fl, "tensor"), "Bucketize")
	if bz == nil {
		return source{}, nil, false
	}
	x := optab.Operand(bz, "input")
	if rankOf(x) != 2 || !dimTerm(x, 1).eq(cterm(1)) {
		return source{}, nil, false
	}
	zeros := optab.Operand(mul, "y")
	if _, ok := constInt(optab.Operand(mul, "x")); !ok {
		zeros = optab.Operand(mul, "x")
		if _, ok := constInt(optab.Operand(mul, "y")); !ok {
			return source{}, nil, false
		}
	}
	if !isZeros(zeros) {
		return source{}, nil, false
	}
	// indices: Cast(Transpose(Pack(i1, zeros), [1, 0])), i1 = 0..batch-1
	// (TF1 computes the permutation: isTranspose2).
	batch := dimTerm(x, 0)
	c := is(ind, "Cast")
	if c == nil {
		return source{}, nil, false
	}
	tr := is(optab.Operand(c, "x"), "Transpose")
	if tr == nil || !isTranspose2(optab.Operand(tr, "perm"), optab.Operand(tr, "x")) {
		return source{}, nil, false
	}
	pk := is(optab.Operand(tr, "x"), "Pack")
	if pk == nil || numArgs(pk) != 2 || !intAttrIs(pk, "axis", 0) {
		return source{}, nil, false
	}
	// Pack(rows, columns): the row of each id and its column, all zero.
	packed := optab.Operands(pk, "values")
	if !(same(packed[1], zeros) || isZeros(packed[1])) || !isRowIota(packed[0], batch) {
		return source{}, nil, false
	}
	var w widths
	sh, ok := w.vecTerms(shp, 0)
	if !ok || len(sh) != 2 || !sh[0].eq(batch) || !sh[1].eq(cterm(1)) {
		return source{}, nil, false
	}
	bounds, ok := bz.Attr("boundaries").(textir.ArrayAttr)
	if !ok {
		return source{}, nil, false
	}
	elem := textir.ElementType(optab.Result(bz, "output").Type())
	bx := xform{name: emb.BucketizeOp, elem: elem, loc: bz.Loc(), attrs: []textir.NamedAttribute{{Name: emb.AttrBoundaries, Value: bounds}}}
	return source{kind: srcDense, x: x, loc: bz.Loc()}, []xform{bx}, true
}

// isZeros reports whether v is Tile(Range(0, 1, 1), ...): all zeros.
func isZeros(v *textir.Value) bool {
	t := is(v, "Tile")
	if t == nil {
		return false
	}
	r := is(optab.Operand(t, "input"), "Range")
	return r != nil && constIntsEq(optab.Operand(r, "start"), 0) && constIntsEq(optab.Operand(r, "limit"), 1) && constIntsEq(optab.Operand(r, "delta"), 1)
}

// isRowIota reports whether v is Reshape(Tile(ExpandDims(Range(0, n, 1), 1), [1, 1]), [-1]).
func isRowIota(v *textir.Value, n term) bool {
	rs := is(v, "Reshape")
	if rs == nil || !constIntsEq(optab.Operand(rs, "shape"), -1) {
		return false
	}
	t := is(optab.Operand(rs, "tensor"), "Tile")
	if t == nil || !constIntsEq(optab.Operand(t, "multiples"), 1, 1) {
		return false
	}
	ed := is(optab.Operand(t, "input"), "ExpandDims")
	if ed == nil || !constIntsEq(optab.Operand(ed, "dim"), 1) {
		return false
	}
	r := is(optab.Operand(ed, "input"), "Range")
	if r == nil || !constIntsEq(optab.Operand(r, "start"), 0) || !constIntsEq(optab.Operand(r, "delta"), 1) {
		return false
	}
	var w widths
	lim, ok := w.scalarTerm(optab.Operand(r, "limit"), 0)
	return ok && lim.eq(n)
}

// splitSource matches StringSplitV2(x, sep) with maxsplit -1.
func splitSource(vals, ind, shp *textir.Value) (source, bool) {
	ss := is(vals, "StringSplitV2")
	if ss == nil || !isOutput(vals, "values") || !same(ind, optab.Result(ss, "indices")) || !same(shp, optab.Result(ss, "shape")) || !intAttrIs(ss, "maxsplit", -1) {
		return source{}, false
	}
	sep, ok := constString(optab.Operand(ss, "sep"))
	x := optab.Operand(ss, "input")
	if !ok || rankOf(x) != 1 {
		return source{}, false
	}
	return source{kind: srcSplit, x: x, sep: sep, loc: ss.Loc()}, true
}

// kindOf names the column kind of a plan.
func kindOf(p *plan) emb.ColumnKind {
	has := func(name string) bool {
		for _, x := range p.xforms {
			if x.name == name {
				return true
			}
		}
		return false
	}
	switch {
	case p.weighted:
		return emb.KindWeighted
	case p.src.kind == srcSplit:
		return emb.KindSplitString
	case p.src.kind == srcCross:
		return emb.KindCrossed
	case has(emb.BucketizeOp):
		return emb.KindBucketized
	case has(emb.VocabLookupOp):
		return emb.KindVocabulary
	case has(emb.AsStringOp) && has(emb.HashOp):
		return emb.KindHashedInt
	case has(emb.HashOp):
		return emb.KindHashedString
	case p.src.kind == srcSparse && !parsedSparse(p.src.ind, p.src.vals, p.src.shape):
		return emb.KindSparse
	}
	return emb.KindIdentity
}

// checkTypes refuses plans whose operands the emb ops cannot take, and
// picks the dense operands: a [B] tensor for ExpandDims([B], -1), and a
// placeholder (or SparseReshape result) of unranked type refined to the
// shape it declares (or has).
func checkTypes(p *plan) error {
	ranked := func(v *textir.Value, r int) bool {
		if rank(v) == r {
			return true
		}
		// A placeholder's declared shape, a parse op's result as its
		// attributes say (refinable), or the sparse tensor a
		// SparseReshape makes ([N, len(new_shape)] indices and the new
		// shape), as dimsOf reads them.
		if tensorType(v) == nil && rankOf(v) == r && refinable(def(v)) {
			dims, _ := dimsOf(v)
			p.refine = append(p.refine, refinement{v, textir.TensorOf(dims, textir.ElementType(v.Type()))})
			return true
		}
		return false
	}
	dense := func(s *source) error {
		x := s.x
		if e := is(x, "ExpandDims"); e != nil && rankOf(optab.Operand(e, "input")) == 1 {
			if ax, ok := constInt(optab.Operand(e, "dim")); ok && (ax == -1 || ax == 1) {
				x = optab.Operand(e, "input")
			}
		}
		r := rankOf(x)
		if (r != 1 && r != 2) || !ranked(x, r) {
			return fail("the dense input %s has no known rank 1 or 2", opDesc(def(x)))
		}
		// An ill-typed graph (an ExpandDims whose T is not its input's
		// dtype) would give emb.from_dense an ignore value of another type.
		if xe, ce := textir.ElementType(x.Type()), textir.ElementType(s.x.Type()); xe != ce {
			return fail("the dense input %s has element type %s, but the column reads %s", opDesc(def(x)), xe, ce)
		}
		s.x = x
		return nil
	}
	switch p.src.kind {
	case srcSparse:
		if p.segments != nil {
			// The dense shape is made from the segment ids (emit).
			if !ranked(p.src.ind, 2) || !ranked(p.src.vals, 1) || textir.ElementType(p.src.ind.Type()) != textir.I64() {
				return fail("the sparse ids have no known 2-D int64 indices and vector values (indices %s, values %s)", p.src.ind.Type(), p.src.vals.Type())
			}
			if dims, _ := dimsOf(p.src.ind); dims[1] >= 0 && dims[1] != 2 {
				return fail("the sparse ids are not 2-D (indices %s)", p.src.ind.Type())
			}
			break
		}
		if !ranked(p.src.ind, 2) || !ranked(p.src.shape, 1) || !ranked(p.src.vals, 1) {
			return fail("the sparse ids have no known 2-D types (indices %s, values %s, dense shape %s)", p.src.ind.Type(), p.src.vals.Type(), p.src.shape.Type())
		}
		it, st := p.typeOf(p.src.ind), p.typeOf(p.src.shape)
		if it.Elem != textir.I64() || (it.Shape[1] >= 0 && it.Shape[1] != 2) {
			return fail("the sparse ids are not 2-D (indices %s)", p.src.ind.Type())
		}
		if st.Elem != textir.I64() || (st.Shape[0] >= 0 && st.Shape[0] != 2) {
			return fail("the sparse ids are not 2-D (dense shape %s)", p.src.shape.Type())
		}
	case srcDense:
		if err := dense(&p.src); err != nil {
			return err
		}
	case srcCross:
		if err := checkCrossTypes(p.src.cross, dense, ranked); err != nil {
			return err
		}
	case srcSplit:
		if !ranked(p.src.x, 1) {
			return fail("the split input %s is not a vector", opDesc(def(p.src.x)))
		}
		if e := textir.ElementType(p.src.x.Type()); !tfg.IsString(e) {
			return fail("the split input %s has element type %s, not strings", opDesc(def(p.src.x)), e)
		}
	}
	var e textir.Type
	switch p.src.kind {
	case srcSparse:
		e = textir.ElementType(p.src.vals.Type())
	case srcCross:
		e = p.src.cross.elem
	default:
		e = textir.ElementType(p.src.x.Type())
	}
	if len(p.xforms) > 0 {
		e = p.xforms[len(p.xforms)-1].elem
	}
	if !isIntType(e) {
		return fail("the ids are %s, not integers", e)
	}
	if p.weighted {
		var wt textir.Type
		switch {
		case p.wsrc.kind == srcDense:
			if err := dense(&p.wsrc); err != nil {
				return err
			}
			wt = textir.ElementType(p.wsrc.x.Type())
		case p.wsrc.ind != nil:
			if !ranked(p.wsrc.vals, 1) {
				return fail("the weights are not a vector")
			}
			wt = textir.ElementType(p.wsrc.vals.Type())
		default:
			if !ranked(p.wsrc.vals, 1) {
				return fail("the weights are not a vector")
			}
			wt = textir.ElementType(p.wsrc.vals.Type())
		}
		if wt != p.tableType.Elem {
			return fail("weights of type %s for a table of %s", wt, p.tableType.Elem)
		}
	}
	return nil
}

// typeOf returns v's ranked type: its own, or the one checkTypes refines
// it to.
func (p *plan) typeOf(v *textir.Value) *textir.TensorType {
	for _, r := range p.refine {
		if r.v == v {
			return r.t.(*textir.TensorType)
		}
	}
	return tensorType(v)
}

// refinement is a placeholder's unranked result type made ranked.
type refinement struct {
	v *textir.Value
	t textir.Type
}
