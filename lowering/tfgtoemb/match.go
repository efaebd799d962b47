package tfgtoemb

import (
	"fmt"

	"github.com/recom-compiler/recom/dialects/emb"
	"github.com/recom-compiler/recom/dialects/tfg"
	"github.com/recom-compiler/recom/dialects/tfg/optab"
	"github.com/recom-compiler/recom/textir"
)

// The matchers read one column backward from its output: lookupChain the
// part every column form shares (safe_embedding_lookup_sparse, from the
// column's output back to its sparse ids), then the id forms of ids.go
// where the ids come from (the feature column's own part), and complete
// the plan of emb ops with exactly the same meaning, or say why they
// cannot.

type srcKind int

const (
	srcSparse srcKind = iota // emb.from_sparse(indices, values, dense_shape)
	srcDense                 // emb.from_dense(x) {ignore}
	srcSplit                 // emb.split_strings(x) {sep}
	srcCross                 // emb.cross of the inputs' sources (cross.go)
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
	cross  *crossSource     // cross
	loc    textir.Location
}

// plan is a matched column: after lookupChain, its lookup with the ids
// read as sparse (src) and their values parsed into transforms (base, xs);
// after complete, the whole column.
type plan struct {
	out       *textir.Value
	outDef    *textir.Operation
	locDef    *textir.Operation // the op whose location the lookup takes
	table     *textir.Operation
	tableType *textir.TensorType
	combiner  string
	src       source
	xforms    []xform
	layers    []layer
	weighted  bool
	wvals     *textir.Value // weighted: the weights where the ids' values are src.vals
	wsrc      source        // weights: srcDense (values of from_dense) or srcSparse; vals used raw when kind is srcSparse and ind is nil
	unique    *textir.Operation
	kind      emb.ColumnKind
	// parts are the shards of a partitioned table (nil for one table),
	// looked up by strategy.
	parts    []*textir.Operation
	strategy string
	// segments (a plain embedding_lookup_sparse) are the ids' rows,
	// indices[:, 0]: the bags are max(segments)+1, and src.shape is made
	// from them when the column is rewritten.
	segments *textir.Value
	// noNaN: the weighted pooling divides with DivNoNan (emb.lookup's
	// div_no_nan).
	noNaN bool
	// dense: a plain embedding_lookup of dense ids (src is srcDense).
	dense  bool
	refine []refinement
	// base and xs are src.vals parsed by parseTransforms: the value the
	// transforms start from, and the transforms in forward order.
	base *textir.Value
	xs   []xform
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

// maxReshapes bounds the Reshape and Identity ops between a column's
// output and its empty-row Select.
const maxReshapes = 16

// reshaped returns the tensor an Identity or a Reshape passes on.
func reshaped(op *textir.Operation) *textir.Value {
	if isOp(op, "Reshape") {
		return optab.Operand(op, "tensor")
	}
	return optab.Operand(op, "input")
}

// pooledSelect follows a column's output back through the Reshape and
// Identity ops that restore its [batch, D] shape to the value before them
// (the result of safe_embedding_lookup_sparse's empty-row Select when the
// column has the usual form); reshapes are the Reshape ops passed, output
// first, and ok is false when there are more than maxReshapes.
func pooledSelect(out *textir.Value) (v *textir.Value, reshapes []*textir.Operation, ok bool) {
	v = out
	for i := 0; ; i++ {
		if i > maxReshapes {
			return nil, nil, false
		}
		o := def(v)
		if isOp(o, "Identity", "Reshape") && numArgs(o) >= 1 {
			if isOp(o, "Reshape") {
				reshapes = append(reshapes, o)
			}
			v = reshaped(o)
			continue
		}
		return v, reshapes, true
	}
}

// lookupChain matches what every column form shares: from the column's
// output back through the reshapes to [batch, D], the empty-row
// Select(Tile, ZerosLike, pooled) of safe_embedding_lookup_sparse (absent
// in a plain embedding_lookup_sparse), the pooling (a SparseSegment*
// combiner, or the weighted SegmentSum with its division), the table's
// rows at Unique ids (or the table itself, read at the ids), the id
// pruning layers and the SparseReshape to 2-D, to the sparse ids. The
// plan reads the ids as that sparse tensor, its values parsed into
// transforms; complete finishes it once an id form has said where the
// ids come from. A plain embedding_lookup (denseChain) reads its ids
// dense.
func lookupChain(c *Column) (*plan, error) {
	p := &plan{out: c.Output, outDef: def(c.Output), table: c.Table, parts: c.parts}
	if p.outDef == nil {
		return nil, fail("the output is not an op result")
	}
	if p.outDef.Block() == nil || c.Table.Block() == nil {
		return nil, fail("its ops were rewritten with another column's")
	}
	p.locDef = p.outDef
	if c.named != nil && def(c.named) != nil {
		p.locDef = def(c.named)
	}
	tt, err := columnTableType(c)
	if err != nil {
		return nil, err
	}
	p.tableType = tt
	d := tt.Shape[1]
	if ot := tensorType(c.Output); textir.ElementType(c.Output.Type()) != tt.Elem || ot != nil && (len(ot.Shape) != 2 || (ot.Shape[1] >= 0 && ot.Shape[1] != d)) {
		return nil, fail("the output type %s is not [batch, %d] of %s", c.Output.Type(), d, tt.Elem)
	}
	// embedding_lookup of ids [batch]: the rows are the column.
	if r, ok, err := rowsOf(c.Output); ok {
		if err != nil {
			return nil, err
		}
		return denseChain(p, c, r, nil, nil)
	}
	// Reshapes back to [batch, D] (the lookup's and the input_layer's),
	// checked once the pooled result is known to be [batch, D].
	v, reshapes, ok := pooledSelect(c.Output)
	if !ok {
		return nil, fail("too many reshapes")
	}
	var res *textir.Value
	var sfe *textir.Operation
	if sel := def(v); isOp(sel, "Select", "SelectV2") && numArgs(sel) == 3 {
		// Empty rows: Select(Tile(Reshape(empty_flags, [-1, 1]), ...), ZerosLike(r), r).
		res = optab.Operand(sel, "e")
		if zl := is(optab.Operand(sel, "t"), "ZerosLike"); zl == nil || optab.Operand(zl, "x") != res {
			return nil, fail("the empty-row Select does not choose zeros")
		}
		tile := is(optab.Operand(sel, "condition"), "Tile")
		if tile == nil {
			return nil, fail("the empty-row condition is not a Tile")
		}
		rs := is(optab.Operand(tile, "input"), "Reshape")
		if rs == nil || !constIntsEq(optab.Operand(rs, "shape"), -1, 1) {
			return nil, fail("the empty-row condition is not Reshape(empty_rows, [-1, 1])")
		}
		sfe = is(optab.Operand(rs, "tensor"), "SparseFillEmptyRows")
		if sfe == nil || !isOutput(optab.Operand(rs, "tensor"), "empty_row_indicator") {
			return nil, fail("the empty-row flags do not come from SparseFillEmptyRows")
		}
	} else {
		res = v
	}
	// The pooled lookup.
	var rows, idx, seg *textir.Value
	var sfeW *textir.Operation
	var wv *textir.Value // the weights' values (plain embedding_lookup_sparse)
	ro := def(res)
	if comb, ok := combiners[opName(ro)]; ok && numArgs(ro) == 3 {
		p.combiner = comb
		rows, idx, seg = optab.Operand(ro, "data"), optab.Operand(ro, "indices"), optab.Operand(ro, "segment_ids")
	} else if isOp(ro, "Sum", "Mean") && sfe == nil {
		// embedding_lookup of ids [batch, k], pooled over the ids.
		r, ok, err := rowsOf(optab.Operand(ro, "input"))
		if !ok {
			return nil, fail("%s does not pool a table's rows", opDesc(ro))
		}
		if err != nil {
			return nil, err
		}
		return denseChain(p, c, r, ro, reshapes)
	} else {
		// Weighted: SegmentSum(rows[idx] * w) [/ SegmentSum(w) | / Sqrt(SegmentSum(w^2))].
		p.weighted = true
		var num, den *textir.Operation
		switch {
		case isOp(ro, "SegmentSum"):
			num, p.combiner = ro, emb.CombinerSum
		case isOp(ro, "RealDiv", "Div", "DivNoNan"):
			num = is(optab.Operand(ro, "x"), "SegmentSum")
			den = def(optab.Operand(ro, "y"))
			if isOp(den, "Sqrt") {
				p.combiner, den = emb.CombinerSqrtN, is(optab.Operand(den, "x"), "SegmentSum")
			} else {
				p.combiner, den = emb.CombinerMean, is(optab.Operand(ro, "y"), "SegmentSum")
			}
			if num == nil || den == nil {
				return nil, fail("unrecognized weighted pooling %q", tfg.NodeName(ro))
			}
			// TF 2.16: DivNoNan, 0 where the weights sum to 0.
			p.noNaN = isOp(ro, "DivNoNan")
		default:
			return nil, fail("unrecognized pooling %s", opDesc(ro))
		}
		mul := is(optab.Operand(num, "data"), "Mul")
		if mul == nil {
			return nil, fail("weighted pooling without Mul(rows, weights)")
		}
		seg = optab.Operand(num, "segment_ids")
		a, b := optab.Operand(mul, "x"), optab.Operand(mul, "y")
		g := is(a, "GatherV2", "Gather")
		if g == nil {
			a, b = b, a
			g = is(a, "GatherV2", "Gather")
		}
		if g == nil || (isOp(g, "GatherV2") && !constIntsEq(optab.Operand(g, "axis"), 0)) {
			return nil, fail("weighted pooling without Gather(rows, idx)")
		}
		rows, idx = optab.Operand(g, "params"), optab.Operand(g, "indices")
		wr := is(b, "Reshape")
		if wr == nil {
			return nil, fail("weights are not reshaped to a column")
		}
		wv = optab.Operand(wr, "tensor")
		if sfe != nil {
			sfeW = is(wv, "SparseFillEmptyRows")
			if sfeW == nil || !isOutput(wv, "output_values") {
				return nil, fail("weights do not come from SparseFillEmptyRows")
			}
		} else if rank(wv) > 1 {
			return nil, fail("the weights %s are not a vector", opDesc(def(wv)))
		}
		if den != nil {
			if !same(optab.Operand(den, "segment_ids"), seg) {
				return nil, fail("weight sums use other segments")
			}
			wd := optab.Operand(den, "data")
			if p.combiner == emb.CombinerSqrtN {
				pw := is(wd, "Pow")
				if x, ok := constFloat(optab.Operand(pw, "y")); pw == nil || !ok || x != 2 {
					return nil, fail("sqrtn weights are not squared with Pow(w, 2)")
				}
				wd = optab.Operand(pw, "x")
			}
			if !same(wd, optab.Result(wr, "output")) {
				return nil, fail("the weight sum is not over the lookup's weights")
			}
		}
	}
	if err := checkReshapes(v, reshapes, d); err != nil {
		return nil, err
	}
	// Segment ids: Cast(StridedSlice(indices, [0, 0], [0, 1], [1, 1]) shrink 1),
	// of the filled indices (safe_) or of the sparse ids' own.
	s := strip(seg)
	if c := is(s, "Cast"); c != nil {
		s = strip(optab.Operand(c, "x"))
	}
	ss := is(s, "StridedSlice")
	if ss == nil || (sfe != nil && !same(optab.Operand(ss, "input"), optab.Result(sfe, "output_indices"))) || !constIntsEq(optab.Operand(ss, "begin"), 0, 0) ||
		!constIntsEq(optab.Operand(ss, "end"), 0, 1) || !constIntsEq(optab.Operand(ss, "strides"), 1, 1) ||
		!intAttrIs(ss, "shrink_axis_mask", 2) || !intAttrIs(ss, "begin_mask", 1) || !intAttrIs(ss, "end_mask", 1) {
		return nil, fail("segment ids are not the rows of the sparse indices")
	}
	// The rows: the table's at Unique ids (idx = Unique:1), or the table
	// itself read at the ids (TF 2.16).
	r, ok, err := rowsOf(rows)
	if !ok {
		return nil, fail("the rows are not a gather of the table")
	}
	if err != nil {
		return nil, err
	}
	if err := p.sameTable(r); err != nil {
		return nil, err
	}
	var vals *textir.Value
	if r.ids == nil {
		vals = idx
	} else if u := is(r.ids, "Unique"); u != nil {
		if !isOutput(r.ids, "y") || !same(idx, optab.Result(u, "idx")) {
			return nil, fail("Unique does not pair the ids with their rows")
		}
		p.unique = u
		vals = optab.Operand(u, "x")
	} else {
		return nil, fail("the table is not read at Unique ids")
	}
	if sfe == nil {
		// embedding_lookup_sparse: the sparse ids as they are; the bags
		// are counted from the segment ids (plain.go).
		if rank(vals) > 1 {
			return nil, fail("the ids %s are not a vector", opDesc(def(vals)))
		}
		p.segments = optab.Result(ss, "output")
		p.src = source{kind: srcSparse, ind: optab.Operand(ss, "input"), vals: strip(vals), loc: ss.Loc()}
		p.wvals = wv
		p.base, p.xs = parseTransforms(p.src.vals)
		return p, nil
	}
	if !same(vals, optab.Result(sfe, "output_values")) {
		return nil, fail("Unique does not pair the ids with their rows")
	}
	// Id pruning layers between the sparse ids and SparseFillEmptyRows.
	ind, vals, shp := optab.Operand(sfe, "indices"), optab.Operand(sfe, "values"), optab.Operand(sfe, "dense_shape")
	var wind, wvals *textir.Value
	if p.weighted {
		wind, wvals = optab.Operand(sfeW, "indices"), optab.Operand(sfeW, "values")
	}
	var layers []layer
	for {
		gi, gv := is(ind, "GatherV2", "Gather"), is(vals, "GatherV2", "Gather")
		if gi == nil || gv == nil || !sameIndex(optab.Operand(gi, "indices"), optab.Operand(gv, "indices")) {
			break
		}
		r := optab.Operand(gi, "indices")
		rsh := is(r, "Reshape")
		if rsh == nil || !constIntsEq(optab.Operand(rsh, "shape"), -1) {
			return nil, fail("unrecognized id pruning %q", tfg.NodeName(gi))
		}
		wh := is(optab.Operand(rsh, "tensor"), "Where")
		if wh == nil {
			return nil, fail("unrecognized id pruning %q", tfg.NodeName(gi))
		}
		if isOp(gi, "GatherV2") && (!constIntsEq(optab.Operand(gi, "axis"), 0) || !constIntsEq(optab.Operand(gv, "axis"), 0)) {
			return nil, fail("id pruning gathers on another axis")
		}
		pv := optab.Operand(gv, "params")
		var pw *textir.Value
		if p.weighted {
			gw, gwi := is(wvals, "GatherV2", "Gather"), is(wind, "GatherV2", "Gather")
			if gw == nil || !sameIndex(optab.Operand(gw, "indices"), r) || gwi == nil || !sameIndex(optab.Operand(gwi, "indices"), r) {
				return nil, fail("weights are not pruned with the ids")
			}
			pw = optab.Operand(gw, "params")
			wvals, wind = pw, optab.Operand(gwi, "params")
		}
		l := layer{loc: wh.Loc()}
		if !parseCond(optab.Operand(wh, "input"), pv, pw, &l) {
			return nil, fail("unrecognized id pruning condition %s", opDesc(def(optab.Operand(wh, "input"))))
		}
		layers = append(layers, l)
		ind, vals = optab.Operand(gi, "params"), pv
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
	if sr != nil && isOutput(ind, "output_indices") && same(shp, optab.Result(sr, "output_shape")) {
		for identitySparseReshape(sr) {
			ind, shp = optab.Operand(sr, "input_indices"), optab.Operand(sr, "input_shape")
			sr = is(ind, "SparseReshape")
			if sr == nil || !isOutput(ind, "output_indices") || !same(shp, optab.Result(sr, "output_shape")) {
				break
			}
		}
	}
	p.src = source{kind: srcSparse, ind: ind, vals: vals, shape: shp, loc: p.locDef.Loc()}
	p.wvals = wvals
	p.base, p.xs = parseTransforms(vals)
	return p, nil
}

// checkReshapes checks that the reshapes from a column's pooled result v
// to its output (output first) keep [batch, d].
func checkReshapes(v *textir.Value, reshapes []*textir.Operation, d int64) error {
	known := widths{v: d}
	for i := len(reshapes) - 1; i >= 0; i-- {
		o := reshapes[i]
		x := optab.Operand(o, "tensor")
		sh, ok := known.vecTerms(optab.Operand(o, "shape"), 0)
		if _, seen := known[x]; !seen && !(isOp(def(x), "Identity") && known[strip(x)] == d) {
			return fail("reshape %q is not of the pooled result", tfg.NodeName(o))
		}
		if !ok || len(sh) != 2 || !sh[1].eq(cterm(d)) || d == 0 {
			return fail("reshape %q does not keep [batch, %d]", tfg.NodeName(o), d)
		}
		known[optab.Result(o, "output")] = d
	}
	return nil
}

// complete finishes the plan of a column whose ids an id form recognised
// (src, and xforms in forward order): it picks the weights' source, names
// the column's kind and checks the types the emb ops take. p is not
// changed.
func complete(p *plan, src source, xforms []xform) (*plan, error) {
	q := *p
	q.src, q.xforms = src, xforms
	if q.weighted {
		q.wsrc = source{kind: srcSparse, vals: strip(q.wvals)}
		if q.src.kind == srcSparse {
			q.wsrc.ind, q.wsrc.shape = q.src.ind, q.src.shape
		} else if w, ok := denseSource(strip(q.wvals), nil, nil); ok && w.ignore != nil {
			q.wsrc = w
		}
	}
	q.kind = kindOf(&q)
	return &q, checkTypes(&q)
}

// sameIndex reports whether a and b are the same sparse_retain positions:
// the same value, or Reshape(Where(c), [-1]) of the same condition c.
func sameIndex(a, b *textir.Value) bool {
	if same(a, b) {
		return true
	}
	ra, rb := is(a, "Reshape"), is(b, "Reshape")
	if ra == nil || rb == nil || !constIntsEq(optab.Operand(ra, "shape"), -1) || !constIntsEq(optab.Operand(rb, "shape"), -1) {
		return false
	}
	wa, wb := is(optab.Operand(ra, "tensor"), "Where"), is(optab.Operand(rb, "tensor"), "Where")
	return wa != nil && wb != nil && same(optab.Operand(wa, "input"), optab.Operand(wb, "input"))
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
	case isOp(d, "GreaterEqual") && same(optab.Operand(d, "x"), ids):
		k, ok := constInt(optab.Operand(d, "y"))
		if !ok || rankOf(optab.Operand(d, "y")) > 0 {
			return false
		}
		if l.hasMin {
			k = max(k, l.min)
		}
		l.min, l.hasMin = k, true
		return true
	case isOp(d, "Greater") && w != nil && same(optab.Operand(d, "x"), w):
		k, ok := constFloat(optab.Operand(d, "y"))
		if !ok || k != 0 || rankOf(optab.Operand(d, "y")) > 0 {
			return false
		}
		l.positive = true
		return true
	case isOp(d, "LogicalAnd"):
		return parseCond(optab.Operand(d, "x"), ids, w, l) && parseCond(optab.Operand(d, "y"), ids, w, l)
	case isOp(d, "Fill"):
		// ones_like(weights): all true, one per weight.
		b, ok := constBool(optab.Operand(d, "value"))
		sh := is(optab.Operand(d, "dims"), "Shape")
		return ok && b && sh != nil && w != nil && same(optab.Operand(sh, "input"), w)
	}
	return false
}
