package tfgtoemb

import (
	"fmt"

	"github.com/recom-compiler/recom/dialects/emb"
	"github.com/recom-compiler/recom/dialects/tfg"
	"github.com/recom-compiler/recom/textir"
)

// The matcher reads one column backward from its output, following the
// chain of safe_embedding_lookup_sparse and the feature column's id
// source, and returns a plan of emb ops with exactly the same meaning, or
// the reason it cannot.

type srcKind int

const (
	srcSparse srcKind = iota // emb.from_sparse(indices, values, dense_shape)
	srcDense                 // emb.from_dense(x) {ignore}
	srcSplit                 // emb.split_strings(x) {sep}
)

// xform is one id transform, in forward order.
type xform struct {
	name  string // emb op
	attrs []textir.NamedAttribute
	elem  textir.Type // result element type
	loc   textir.Location
}

// layer is one id pruning step (sparse_retain): ids < min dropped, and
// with positive, ids whose weight is not > 0.
type layer struct {
	min      int64
	hasMin   bool
	positive bool
	loc      textir.Location
}

// source is where a column's (or its weights') ragged values come from.
type source struct {
	kind   srcKind
	x      *textir.Value    // dense or split input
	ignore textir.Attribute // dense: the ignored value, or nil
	sep    string           // split
	ind    *textir.Value    // sparse: indices, values, dense shape
	vals   *textir.Value    //
	shape  *textir.Value    //
	loc    textir.Location
}

// plan is a matched column.
type plan struct {
	out       *textir.Value
	outDef    *textir.Operation
	table     *textir.Operation
	tableType *textir.TensorType
	combiner  string
	src       source
	xforms    []xform
	layers    []layer
	weighted  bool
	wsrc      source // weights: srcDense (values of from_dense) or srcSparse; vals used raw when kind is srcSparse and ind is nil
	unique    *textir.Operation
	kind      emb.ColumnKind
	refine    []refinement
}

type matchError string

func (e matchError) Error() string { return string(e) }

func fail(format string, args ...any) error { return matchError(fmt.Sprintf(format, args...)) }

// tableType returns the [R, D] float type a table op holds.
func tableTypeOf(t *textir.Operation) (*textir.TensorType, error) {
	switch {
	case isOp(t, "VarHandleOp"):
		s, ok := tfg.ShapeOf(t.Attr("shape"))
		dt, ok2 := t.Attr("dtype").(textir.TypeAttr)
		if !ok || !ok2 || s.UnknownRank || len(s.Dims) != 2 || s.Dims[0] < 0 || s.Dims[1] < 0 || !textir.IsFloat(dt.Type) {
			return nil, fail("resource variable %q has no static [rows, dim] float shape", tfg.NodeName(t))
		}
		return textir.TensorOf(s.Dims, dt.Type), nil
	case isOp(t, "VariableV2", "Variable"):
		s, ok := tfg.ShapeOf(t.Attr("shape"))
		dt, ok2 := t.Attr("dtype").(textir.TypeAttr)
		if !ok || !ok2 || s.UnknownRank || len(s.Dims) != 2 || s.Dims[0] < 0 || s.Dims[1] < 0 || !textir.IsFloat(dt.Type) {
			return nil, fail("variable %q has no static [rows, dim] float shape", tfg.NodeName(t))
		}
		return textir.TensorOf(s.Dims, dt.Type), nil
	case isOp(t, "Const"):
		a, _ := t.Attr("value").(*textir.DenseElementsAttr)
		var tt *textir.TensorType
		if a != nil {
			tt = a.Type
		}
		if tt == nil || len(tt.Shape) != 2 || !tt.HasStaticShape() || !(tt.Elem == textir.F32() || tt.Elem == textir.F64()) {
			return nil, fail("constant table %q is not a static [rows, dim] float tensor", tfg.NodeName(t))
		}
		return tt, nil
	}
	return nil, fail("unsupported table op %s", t.Name())
}

var combiners = map[string]string{
	"tfg.SparseSegmentSum":   emb.CombinerSum,
	"tfg.SparseSegmentMean":  emb.CombinerMean,
	"tfg.SparseSegmentSqrtN": emb.CombinerSqrtN,
}

// matchColumn matches the column whose output is c.Output.
func matchColumn(c *Column) (*plan, error) {
	p := &plan{out: c.Output, outDef: def(c.Output), table: c.Table}
	if p.outDef == nil {
		return nil, fail("the output is not an op result")
	}
	tt, err := tableTypeOf(c.Table)
	if err != nil {
		return nil, err
	}
	p.tableType = tt
	d := tt.Shape[1]
	if ot := tensorType(c.Output); textir.ElementType(c.Output.Type()) != tt.Elem || ot != nil && (len(ot.Shape) != 2 || (ot.Shape[1] >= 0 && ot.Shape[1] != d)) {
		return nil, fail("the output type %s is not [batch, %d] of %s", c.Output.Type(), d, tt.Elem)
	}
	// Reshapes back to [batch, D] (the lookup's and the input_layer's),
	// checked once the pooled result is known to be [batch, D].
	var reshapes []*textir.Operation
	v := c.Output
	for i := 0; ; i++ {
		if i > 16 {
			return nil, fail("too many reshapes")
		}
		o := def(v)
		if isOp(o, "Identity", "Reshape") && numArgs(o) >= 1 {
			if isOp(o, "Reshape") {
				reshapes = append(reshapes, o)
			}
			v = o.Operand(0)
			continue
		}
		break
	}
	// Empty rows: Select(Tile(Reshape(empty_flags, [-1, 1]), ...), ZerosLike(r), r).
	sel := def(v)
	if !isOp(sel, "Select", "SelectV2") || numArgs(sel) != 3 {
		return nil, fail("no empty-row Select(Tile, ZerosLike, lookup) before the output (found %s)", opDesc(sel))
	}
	res := arg(sel, 2)
	if zl := is(arg(sel, 1), "ZerosLike"); zl == nil || arg(zl, 0) != res {
		return nil, fail("the empty-row Select does not choose zeros")
	}
	tile := is(arg(sel, 0), "Tile")
	if tile == nil {
		return nil, fail("the empty-row condition is not a Tile")
	}
	rs := is(arg(tile, 0), "Reshape")
	if rs == nil || !constIntsEq(arg(rs, 1), -1, 1) {
		return nil, fail("the empty-row condition is not Reshape(empty_rows, [-1, 1])")
	}
	sfe := is(arg(rs, 0), "SparseFillEmptyRows")
	if sfe == nil || arg(rs, 0).Index() != 2 {
		return nil, fail("the empty-row flags do not come from SparseFillEmptyRows")
	}
	// The pooled lookup.
	var rows, idx, seg *textir.Value
	var sfeW *textir.Operation
	ro := def(res)
	if comb, ok := combiners[opName(ro)]; ok && numArgs(ro) == 3 {
		p.combiner = comb
		rows, idx, seg = arg(ro, 0), arg(ro, 1), arg(ro, 2)
	} else {
		// Weighted: SegmentSum(rows[idx] * w) [/ SegmentSum(w) | / Sqrt(SegmentSum(w^2))].
		p.weighted = true
		var num, den *textir.Operation
		switch {
		case isOp(ro, "SegmentSum"):
			num, p.combiner = ro, emb.CombinerSum
		case isOp(ro, "RealDiv", "Div"):
			num = is(arg(ro, 0), "SegmentSum")
			den = def(arg(ro, 1))
			if isOp(den, "Sqrt") {
				p.combiner, den = emb.CombinerSqrtN, is(arg(den, 0), "SegmentSum")
			} else {
				p.combiner, den = emb.CombinerMean, is(arg(ro, 1), "SegmentSum")
			}
			if num == nil || den == nil {
				return nil, fail("unrecognized weighted pooling %q", tfg.NodeName(ro))
			}
		default:
			return nil, fail("unrecognized pooling %s", opDesc(ro))
		}
		mul := is(arg(num, 0), "Mul")
		if mul == nil {
			return nil, fail("weighted pooling without Mul(rows, weights)")
		}
		seg = arg(num, 1)
		a, b := arg(mul, 0), arg(mul, 1)
		g := is(a, "GatherV2", "Gather")
		if g == nil {
			a, b = b, a
			g = is(a, "GatherV2", "Gather")
		}
		if g == nil || (isOp(g, "GatherV2") && !constIntsEq(arg(g, 2), 0)) {
			return nil, fail("weighted pooling without Gather(rows, idx)")
		}
		rows, idx = arg(g, 0), arg(g, 1)
		wr := is(b, "Reshape")
		if wr == nil {
			return nil, fail("weights are not reshaped to a column")
		}
		wv := arg(wr, 0)
		sfeW = is(wv, "SparseFillEmptyRows")
		if sfeW == nil || wv.Index() != 1 {
			return nil, fail("weights do not come from SparseFillEmptyRows")
		}
		if den != nil {
			if !same(arg(den, 1), seg) {
				return nil, fail("weight sums use other segments")
			}
			wd := arg(den, 0)
			if p.combiner == emb.CombinerSqrtN {
				pw := is(wd, "Pow")
				if x, ok := constFloat(arg(pw, 1)); pw == nil || !ok || x != 2 {
					return nil, fail("sqrtn weights are not squared with Pow(w, 2)")
				}
				wd = arg(pw, 0)
			}
			if !same(wd, wr.Result(0)) {
				return nil, fail("the weight sum is not over the lookup's weights")
			}
		}
	}
	known := widths{v: d}
	for i := len(reshapes) - 1; i >= 0; i-- {
		o := reshapes[i]
		sh, ok := known.vecTerms(arg(o, 1), 0)
		if _, in := known[arg(o, 0)]; !in && !(isOp(def(arg(o, 0)), "Identity") && known[strip(arg(o, 0))] == d) {
			return nil, fail("reshape %q is not of the pooled result", tfg.NodeName(o))
		}
		if !ok || len(sh) != 2 || !sh[1].eq(cterm(d)) || d == 0 {
			return nil, fail("reshape %q does not keep [batch, %d]", tfg.NodeName(o), d)
		}
		known[o.Result(0)] = d
	}
	// Segment ids: Cast(StridedSlice(sfe.indices, [0, 0], [0, 1], [1, 1]) shrink 1).
	s := strip(seg)
	if c := is(s, "Cast"); c != nil {
		s = strip(arg(c, 0))
	}
	ss := is(s, "StridedSlice")
	if ss == nil || !same(arg(ss, 0), sfe.Result(0)) || !constIntsEq(arg(ss, 1), 0, 0) || !constIntsEq(arg(ss, 2), 0, 1) || !constIntsEq(arg(ss, 3), 1, 1) ||
		!intAttrIs(ss, "shrink_axis_mask", 2) || !intAttrIs(ss, "begin_mask", 1) || !intAttrIs(ss, "end_mask", 1) {
		return nil, fail("segment ids are not the rows of the filled indices")
	}
	// rows = Gather(table, Unique(ids)), idx = Unique:1.
	gop := def(strip(rows))
	if gatherTable(gop) != c.Table {
		return nil, fail("the rows are not a gather of the table")
	}
	if isOp(gop, "GatherV2") && !constIntsEq(arg(gop, 2), 0) {
		return nil, fail("the table gather is not on axis 0")
	}
	if isOp(gop, "GatherV2", "ResourceGather") && !intAttrIs(gop, "batch_dims", 0) {
		return nil, fail("the table gather has batch dims")
	}
	ids := arg(gop, 1)
	if u := is(ids, "Unique"); u != nil {
		if ids.Index() != 0 || !same(idx, u.Result(1)) || !same(arg(u, 0), sfe.Result(1)) {
			return nil, fail("Unique does not pair the ids with their rows")
		}
		p.unique = u
	} else {
		return nil, fail("the table is not read at Unique ids")
	}
	// Id pruning layers between the sparse ids and SparseFillEmptyRows.
	ind, vals, shp := arg(sfe, 0), arg(sfe, 1), arg(sfe, 2)
	var wind, wvals *textir.Value
	if p.weighted {
		wind, wvals = arg(sfeW, 0), arg(sfeW, 1)
	}
	var layers []layer
	for {
		gi, gv := is(ind, "GatherV2", "Gather"), is(vals, "GatherV2", "Gather")
		if gi == nil || gv == nil || !sameIndex(arg(gi, 1), arg(gv, 1)) {
			break
		}
		r := arg(gi, 1)
		rsh := is(r, "Reshape")
		if rsh == nil || !constIntsEq(arg(rsh, 1), -1) {
			return nil, fail("unrecognized id pruning %q", tfg.NodeName(gi))
		}
		wh := is(arg(rsh, 0), "Where")
		if wh == nil {
			return nil, fail("unrecognized id pruning %q", tfg.NodeName(gi))
		}
		if isOp(gi, "GatherV2") && (!constIntsEq(arg(gi, 2), 0) || !constIntsEq(arg(gv, 2), 0)) {
			return nil, fail("id pruning gathers on another axis")
		}
		pv := arg(gv, 0)
		var pw *textir.Value
		if p.weighted {
			gw, gwi := is(wvals, "GatherV2", "Gather"), is(wind, "GatherV2", "Gather")
			if gw == nil || !sameIndex(arg(gw, 1), r) || gwi == nil || !sameIndex(arg(gwi, 1), r) {
				return nil, fail("weights are not pruned with the ids")
			}
			pw = arg(gw, 0)
			wvals, wind = pw, arg(gwi, 0)
		}
		l := layer{loc: wh.Loc()}
		if !parseCond(arg(wh, 0), pv, pw, &l) {
			return nil, fail("unrecognized id pruning condition %s", opDesc(def(arg(wh, 0))))
		}
		layers = append(layers, l)
		ind, vals = arg(gi, 0), pv
		shp = strip(shp)
	}
	for i := len(layers) - 1; i >= 0; i-- {
		p.layers = append(p.layers, layers[i])
	}
	if p.weighted && !same(wind, ind) {
		return nil, fail("weights have other indices than the ids")
	}
	// SparseReshape to 2-D.
	vals = strip(vals)
	sr := is(ind, "SparseReshape")
	if sr != nil && ind.Index() == 0 && same(shp, sr.Result(1)) {
		for identitySparseReshape(sr) {
			ind, shp = arg(sr, 0), arg(sr, 1)
			sr = is(ind, "SparseReshape")
			if sr == nil || ind.Index() != 0 || !same(shp, sr.Result(1)) {
				break
			}
		}
	}
	p.src = source{kind: srcSparse, ind: ind, vals: vals, shape: shp, loc: p.outDef.Loc()}
	// The id source and transforms.
	base, xs := parseTransforms(vals)
	if src, pre, ok := denseSource(base, ind, shp); ok {
		p.src, p.xforms = src, append(pre, xs...)
	} else if src, ok := splitSource(base, ind, shp); ok {
		p.src, p.xforms = src, xs
	}
	if p.weighted {
		p.wsrc = source{kind: srcSparse, vals: strip(wvals)}
		if p.src.kind == srcSparse {
			p.wsrc.ind, p.wsrc.shape = p.src.ind, p.src.shape
		} else if w, _, ok := denseSource(strip(wvals), nil, nil); ok && w.ignore != nil {
			p.wsrc = w
		}
	}
	p.kind = kindOf(p)
	return p, checkTypes(p)
}

// sameIndex reports whether a and b are the same sparse_retain positions:
// the same value, or Reshape(Where(c), [-1]) of the same condition c.
func sameIndex(a, b *textir.Value) bool {
	if same(a, b) {
		return true
	}
	ra, rb := is(a, "Reshape"), is(b, "Reshape")
	if ra == nil || rb == nil || !constIntsEq(arg(ra, 1), -1) || !constIntsEq(arg(rb, 1), -1) {
		return false
	}
	wa, wb := is(arg(ra, 0), "Where"), is(arg(rb, 0), "Where")
	return wa != nil && wb != nil && same(arg(wa, 0), arg(wb, 0))
}

func opName(op *textir.Operation) string {
	if op == nil {
		return ""
	}
	return op.Name()
}

func opDesc(op *textir.Operation) string {
	if op == nil {
		return "a block argument"
	}
	if n := tfg.NodeName(op); n != "" {
		return fmt.Sprintf("%s %q", op.Name(), n)
	}
	return op.Name()
}

// parseCond reads a pruning condition over ids and weights into l.
func parseCond(c *textir.Value, ids, w *textir.Value, l *layer) bool {
	d := def(strip(c))
	switch {
	case isOp(d, "GreaterEqual") && same(arg(d, 0), ids):
		k, ok := constInt(arg(d, 1))
		if !ok || rankOf(arg(d, 1)) > 0 {
			return false
		}
		if l.hasMin {
			k = max(k, l.min)
		}
		l.min, l.hasMin = k, true
		return true
	case isOp(d, "Greater") && w != nil && same(arg(d, 0), w):
		k, ok := constFloat(arg(d, 1))
		if !ok || k != 0 || rankOf(arg(d, 1)) > 0 {
			return false
		}
		l.positive = true
		return true
	case isOp(d, "LogicalAnd"):
		return parseCond(arg(d, 0), ids, w, l) && parseCond(arg(d, 1), ids, w, l)
	case isOp(d, "Fill"):
		// ones_like(weights): all true, one per weight.
		b, ok := constBool(arg(d, 1))
		sh := is(arg(d, 0), "Shape")
		return ok && b && sh != nil && w != nil && same(arg(sh, 0), w)
	}
	return false
}

// parseTransforms reads the element-wise id transforms that end in v and
// returns the value they start from and the transforms in forward order.
func parseTransforms(v *textir.Value) (*textir.Value, []xform) {
	var rev []xform
	for i := 0; i < 32; i++ {
		v = strip(v)
		d := def(v)
		elem := textir.ElementType(v.Type())
		switch {
		case isOp(d, "StringToHashBucketFast") && tfg.IsString(arg(d, 0).Type()):
			n, ok := intAttr(d, "num_buckets")
			if !ok || n < 1 || !isIntType(elem) {
				return v, reverse(rev)
			}
			rev = append(rev, xform{name: emb.HashOp, elem: elem, loc: d.Loc(),
				attrs: []textir.NamedAttribute{{Name: emb.AttrNumBuckets, Value: textir.I64Attr(n)}}})
			v = arg(d, 0)
			continue
		case isOp(d, "AsString") && defaultAsString(d) && isIntType(textir.ElementType(arg(d, 0).Type())):
			rev = append(rev, xform{name: emb.AsStringOp, elem: elem, loc: d.Loc()})
			v = arg(d, 0)
			continue
		case isOp(d, "Cast") && isIntType(elem) && isIntType(textir.ElementType(arg(d, 0).Type())):
			rev = append(rev, xform{name: emb.CastOp, elem: elem, loc: d.Loc()})
			v = arg(d, 0)
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
	v := arg(d, 2)
	or := is(arg(d, 0), "LogicalOr")
	fill := is(arg(d, 1), "Fill")
	if or == nil || fill == nil || !isIntType(textir.ElementType(v.Type())) {
		return xform{}, nil, false
	}
	less, ge := is(arg(or, 0), "Less"), is(arg(or, 1), "GreaterEqual")
	if less == nil || ge == nil || !same(arg(less, 0), v) || !same(arg(ge, 0), v) {
		return xform{}, nil, false
	}
	z, ok1 := constInt(arg(less, 1))
	n, ok2 := constInt(arg(ge, 1))
	dv, ok3 := constInt(arg(fill, 1))
	sh := is(arg(fill, 0), "Shape")
	if !ok1 || !ok2 || !ok3 || z != 0 || n < 1 || sh == nil || !same(arg(sh, 0), v) || rankOf(arg(less, 1)) > 0 || rankOf(arg(ge, 1)) > 0 {
		return xform{}, nil, false
	}
	elem := textir.ElementType(d.Result(0).Type())
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
	for u := range ht.Result(0).Users() {
		if !isOp(u, "LookupTableImportV2", "InitializeTableV2", "LookupTableImport", "InitializeTable") {
			continue
		}
		n++
		k := constAttr(arg(u, 1))
		if k == nil || len(k.Type.Shape) != 1 {
			return nil, false
		}
		cnt := k.NumElements()
		if !isIota(arg(u, 2), cnt) {
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
		v = strip(arg(c, 0))
	}
	r := is(v, "Range")
	if r == nil {
		return false
	}
	s, ok1 := constInt(arg(r, 0))
	l, ok2 := constInt(arg(r, 1))
	if !ok2 {
		if sz := is(arg(r, 1), "Size"); sz != nil {
			if t := tensorType(arg(sz, 0)); t != nil && len(t.Shape) == 1 && t.Shape[0] >= 0 {
				l, ok2 = t.Shape[0], true
			}
		}
	}
	dl, ok3 := constInt(arg(r, 2))
	return ok1 && ok2 && ok3 && s == 0 && dl == 1 && l == n
}

// vocab matches LookupTableFindV2(table, ids, default) on a vocabulary.
func vocab(find *textir.Operation, oov int64) (xform, *textir.Value, bool) {
	ht := def(arg(find, 0))
	keys, ok := vocabKeys(ht)
	in := arg(find, 1)
	if !ok || keys.Type.Elem != textir.ElementType(in.Type()) {
		return xform{}, nil, false
	}
	dv, ok := constInt(arg(find, 2))
	elem := textir.ElementType(find.Result(0).Type())
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
	ne := is(arg(d, 0), "NotEqual")
	find := is(arg(d, 1), "LookupTableFindV2")
	add := is(arg(d, 2), "Add", "AddV2")
	if ne == nil || find == nil || add == nil || !same(arg(ne, 0), find.Result(0)) || !same(arg(ne, 1), arg(find, 2)) {
		return xform{}, nil, false
	}
	hb, size := is(arg(add, 0), "StringToHashBucketFast"), arg(add, 1)
	if hb == nil {
		hb, size = is(arg(add, 1), "StringToHashBucketFast"), arg(add, 0)
	}
	if hb == nil {
		return xform{}, nil, false
	}
	hin := arg(hb, 0)
	if !same(hin, arg(find, 1)) {
		if a := is(hin, "AsString"); a == nil || !defaultAsString(a) || !same(arg(a, 0), arg(find, 1)) {
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
		if def(arg(sz, 0)) != def(arg(find, 0)) {
			return xform{}, nil, false
		}
	} else if n, ok := constInt(size); !ok || n != keys.NumElements() {
		return xform{}, nil, false
	}
	if textir.ElementType(d.Result(0).Type()) != x.elem {
		return xform{}, nil, false
	}
	x.loc = d.Loc()
	return x, in, true
}

// denseSource matches the values of _to_sparse_input_and_drop_ignore_values
// over a rank-2 tensor x (GatherNd(x, Where(NotEqual(x, ignore))), or
// TF1's Gather(Reshape(x, [-1]), flat index)) whose indices are ind and
// whose dense shape is shape(x), and the bucketized column's index
// construction over a [batch, 1] input. ind and shape nil: check the
// values alone (for weights). pre holds transforms the source implies.
func denseSource(vals, ind, shp *textir.Value) (source, []xform, bool) {
	vals = strip(vals)
	d := def(vals)
	var x, where *textir.Value
	switch {
	case isOp(d, "GatherNd"):
		x, where = arg(d, 0), arg(d, 1)
	case isOp(d, "Gather", "GatherV2"):
		x, where = tf1Values(d)
	case isOp(d, "Add", "AddV2"):
		return bucketizedSource(d, ind, shp)
	}
	if x == nil || rankOf(x) != 2 {
		return source{}, nil, false
	}
	w := is(where, "Where")
	if w == nil || (ind != nil && !same(ind, where)) {
		return source{}, nil, false
	}
	src := source{kind: srcDense, x: x, loc: w.Loc()}
	ne := is(arg(w, 0), "NotEqual")
	if ne == nil || !same(arg(ne, 0), x) {
		return source{}, nil, false
	}
	ig := arg(ne, 1)
	if rankOf(ig) != 0 {
		return source{}, nil, false
	}
	elem := textir.ElementType(x.Type())
	switch {
	case tfg.IsString(elem):
		s, ok := constString(ig)
		if !ok {
			return source{}, nil, false
		}
		src.ignore = textir.Str(s)
	case isIntType(elem):
		k, ok := constInt(ig)
		if !ok {
			return source{}, nil, false
		}
		src.ignore = textir.IntegerAttr{Value: k, Type: elem}
	case textir.IsFloat(elem):
		f, ok := constFloat(ig)
		if !ok {
			return source{}, nil, false
		}
		src.ignore = textir.FloatAttr{Value: f, Type: elem}
	default:
		return source{}, nil, false
	}
	if shp != nil {
		var w widths
		got, ok1 := w.vecTerms(shp, 0)
		want, ok2 := w.shapeOf(x)
		if !ok1 || !ok2 || !termsEq(got, want) {
			return source{}, nil, false
		}
	}
	return src, nil, true
}

// tf1Values matches TF1's values = Gather(Reshape(x, [-1]),
// where[:, 1] + Sum(where[:, :1] * [dim1], 1)) and returns x and where.
func tf1Values(g *textir.Operation) (*textir.Value, *textir.Value) {
	if isOp(g, "GatherV2") && !constIntsEq(arg(g, 2), 0) {
		return nil, nil
	}
	rs := is(arg(g, 0), "Reshape")
	add := is(arg(g, 1), "Add", "AddV2")
	if rs == nil || add == nil || !constIntsEq(arg(rs, 1), -1) {
		return nil, nil
	}
	x := arg(rs, 0)
	col := is(arg(add, 0), "StridedSlice")
	sum := is(arg(add, 1), "Sum")
	if col == nil || sum == nil || !constIntsEq(arg(sum, 1), 1) {
		return nil, nil
	}
	where := arg(col, 0)
	if !constIntsEq(arg(col, 1), 0, 1) || !constIntsEq(arg(col, 2), 0, 2) || !constIntsEq(arg(col, 3), 1, 1) ||
		!intAttrIs(col, "shrink_axis_mask", 2) || !intAttrIs(col, "begin_mask", 1) || !intAttrIs(col, "end_mask", 1) {
		return nil, nil
	}
	mul := is(arg(sum, 0), "Mul")
	if mul == nil {
		return nil, nil
	}
	row := is(arg(mul, 0), "StridedSlice")
	if row == nil || arg(row, 0) != where || !constIntsEq(arg(row, 1), 0, 0) || !constIntsEq(arg(row, 2), 0, 1) || !constIntsEq(arg(row, 3), 1, 1) ||
		!intAttrIs(row, "shrink_axis_mask", 0) || !intAttrIs(row, "new_axis_mask", 0) {
		return nil, nil
	}
	var w widths
	k, ok := w.vecTerms(arg(mul, 1), 0)
	if !ok || len(k) != 1 || !k[0].eq(dimTerm(x, 1)) {
		return nil, nil
	}
	return x, where
}

// bucketizedSource matches bucketized_column's sparse ids over a [batch, 1]
// input: values Reshape(Bucketize(x), [-1]) + (n+1) * zeros, indices
// [i, 0], dense shape [batch, 1].
func bucketizedSource(add *textir.Operation, ind, shp *textir.Value) (source, []xform, bool) {
	fl := is(arg(add, 0), "Reshape")
	mul := is(arg(add, 1), "Mul")
	if fl == nil || mul == nil || !constIntsEq(arg(fl, 1), -1) {
		return source{}, nil, false
	}
	bz := is(arg(fl, 0), "Bucketize")
	if bz == nil {
		return source{}, nil, false
	}
	x := arg(bz, 0)
	if rankOf(x) != 2 || !dimTerm(x, 1).eq(cterm(1)) {
		return source{}, nil, false
	}
	zeros := arg(mul, 1)
	if _, ok := constInt(arg(mul, 0)); !ok {
		zeros = arg(mul, 0)
		if _, ok := constInt(arg(mul, 1)); !ok {
			return source{}, nil, false
		}
	}
	if !isZeros(zeros) {
		return source{}, nil, false
	}
	// indices: Cast(Transpose(Pack(i1, zeros), [1, 0])), i1 = 0..batch-1.
	batch := dimTerm(x, 0)
	c := is(ind, "Cast")
	if c == nil {
		return source{}, nil, false
	}
	tr := is(arg(c, 0), "Transpose")
	if tr == nil || !constIntsEq(arg(tr, 1), 1, 0) {
		return source{}, nil, false
	}
	pk := is(arg(tr, 0), "Pack")
	if pk == nil || numArgs(pk) != 2 || !intAttrIs(pk, "axis", 0) || !(same(arg(pk, 1), zeros) || isZeros(arg(pk, 1))) {
		return source{}, nil, false
	}
	if !isRowIota(arg(pk, 0), batch) {
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
	elem := textir.ElementType(bz.Result(0).Type())
	bx := xform{name: emb.BucketizeOp, elem: elem, loc: bz.Loc(), attrs: []textir.NamedAttribute{{Name: emb.AttrBoundaries, Value: bounds}}}
	return source{kind: srcDense, x: x, loc: bz.Loc()}, []xform{bx}, true
}

// isZeros reports whether v is Tile(Range(0, 1, 1), ...): all zeros.
func isZeros(v *textir.Value) bool {
	t := is(v, "Tile")
	if t == nil {
		return false
	}
	r := is(arg(t, 0), "Range")
	return r != nil && constIntsEq(arg(r, 0), 0) && constIntsEq(arg(r, 1), 1) && constIntsEq(arg(r, 2), 1)
}

// isRowIota reports whether v is Reshape(Tile(ExpandDims(Range(0, n, 1), 1), [1, 1]), [-1]).
func isRowIota(v *textir.Value, n term) bool {
	rs := is(v, "Reshape")
	if rs == nil || !constIntsEq(arg(rs, 1), -1) {
		return false
	}
	t := is(arg(rs, 0), "Tile")
	if t == nil || !constIntsEq(arg(t, 1), 1, 1) {
		return false
	}
	ed := is(arg(t, 0), "ExpandDims")
	if ed == nil || !constIntsEq(arg(ed, 1), 1) {
		return false
	}
	r := is(arg(ed, 0), "Range")
	if r == nil || !constIntsEq(arg(r, 0), 0) || !constIntsEq(arg(r, 2), 1) {
		return false
	}
	var w widths
	lim, ok := w.scalarTerm(arg(r, 1), 0)
	return ok && lim.eq(n)
}

// splitSource matches StringSplitV2(x, sep) with maxsplit -1.
func splitSource(vals, ind, shp *textir.Value) (source, bool) {
	ss := is(vals, "StringSplitV2")
	if ss == nil || vals.Index() != 1 || !same(ind, ss.Result(0)) || !same(shp, ss.Result(2)) || !intAttrIs(ss, "maxsplit", -1) {
		return source{}, false
	}
	sep, ok := constString(arg(ss, 1))
	x := arg(ss, 0)
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
	case has(emb.BucketizeOp):
		return emb.KindBucketized
	case has(emb.VocabLookupOp):
		return emb.KindVocabulary
	case has(emb.AsStringOp) && has(emb.HashOp):
		return emb.KindHashedInt
	case has(emb.HashOp):
		return emb.KindHashedString
	case p.src.kind == srcSparse:
		return emb.KindSparse
	}
	return emb.KindIdentity
}

// checkTypes refuses plans whose operands the emb ops cannot take, and
// picks the dense operands: a [B] tensor for ExpandDims([B], -1), and a
// placeholder of unranked type refined to the shape it declares.
func checkTypes(p *plan) error {
	ranked := func(v *textir.Value, r int) bool {
		if rank(v) == r {
			return true
		}
		if tensorType(v) == nil && rankOf(v) == r && isOp(def(v), "Placeholder") {
			dims, _ := dimsOf(v)
			p.refine = append(p.refine, refinement{v, textir.TensorOf(dims, textir.ElementType(v.Type()))})
			return true
		}
		return false
	}
	dense := func(s *source) error {
		x := s.x
		if e := is(x, "ExpandDims"); e != nil && rankOf(arg(e, 0)) == 1 {
			if ax, ok := constInt(arg(e, 1)); ok && (ax == -1 || ax == 1) {
				x = arg(e, 0)
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
		if !ranked(p.src.ind, 2) || !ranked(p.src.shape, 1) || !ranked(p.src.vals, 1) {
			return fail("the sparse ids have no known 2-D types (indices %s, values %s, dense shape %s)", p.src.ind.Type(), p.src.vals.Type(), p.src.shape.Type())
		}
		it, st := tensorType(p.src.ind), tensorType(p.src.shape)
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
	case srcSplit:
		if !ranked(p.src.x, 1) {
			return fail("the split input %s is not a vector", opDesc(def(p.src.x)))
		}
		if e := textir.ElementType(p.src.x.Type()); !tfg.IsString(e) {
			return fail("the split input %s has element type %s, not strings", opDesc(def(p.src.x)), e)
		}
	}
	var e textir.Type
	if p.src.kind == srcSparse {
		e = textir.ElementType(p.src.vals.Type())
	} else {
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

// refinement is a placeholder's unranked result type made ranked.
type refinement struct {
	v *textir.Value
	t textir.Type
}
