package gen

import (
	"errors"
	"fmt"
	"hash/fnv"
	"math"
	"math/rand/v2"
	"sort"

	"github.com/recom-compiler/recom/frontend/graphdef/tfpb"
	"github.com/recom-compiler/recom/interp"
	"github.com/recom-compiler/recom/interp/npz"
)

// SpecNode is the name of the Const string node holding the model's spec
// (JSON), connected to nothing, so that feeds can be drawn from the graph
// alone.
const SpecNode = "recom/spec"

// OutputNode is the model's output: "prediction" (a Sigmoid) with a dense
// part, else EmbeddingNode.
const (
	PredictionNode = "prediction"
	EmbeddingNode  = "input_layer/concat"
	DenseInput     = "dense_features"
	TableInitNode  = "init_all_tables"
)

// DefaultConstLimit is the largest total size of constant tables
// (Options.ConstLimit's default): 256 MiB.
const DefaultConstLimit = 256 << 20

// DefaultTableLimit is the largest total size of side-file tables
// (Options.TableLimit's default): 8 GiB.
const DefaultTableLimit = 8 << 30

// producer is the GraphDef producer version written (TensorFlow 2.6).
const producer = 808

// Options controls Generate.
type Options struct {
	// Seed makes table values (and nothing else) vary; the same seed
	// gives identical bytes.
	Seed uint64
	// Tables, when set, overrides every group's table style.
	Tables TableStyle
	// ConstLimit bounds the total bytes of const tables (0: the default).
	ConstLimit int64
	// TableLimit bounds the total bytes of side-file tables (0: default).
	TableLimit int64
	// NoTableValues leaves variable and resource values out (Model.Tables
	// is nil); const tables are still written into the graph.
	NoTableValues bool
}

// Model is a generated model.
type Model struct {
	// Graph is the GraphDef. Its nodes share attribute maps and values
	// (with each other and with other generated graphs): treat it as
	// read-only, or proto.Clone it before editing.
	Graph *tfpb.GraphDef
	// Tables holds the values of every variable and resource variable
	// (embedding tables and MLP weights), named by their node names, in
	// creation order: the MODEL.tables.npz side file.
	Tables []npz.Array
	// Outputs names the model's output node.
	Output string
}

// tableRef is a created table: the tensor that lookups read (the read
// Identity, or the resource handle) and whether it is a resource.
type tableRef struct {
	read     tensor
	resource bool
}

type gen struct {
	b        *builder
	spec     *Spec
	opt      Options
	tables   []npz.Array
	features map[string]tensor  // feature key → raw tensor (or split op)
	ranks    map[string]int     // feature key → rank, for parsed dense features
	sparse   map[string]sparseT // feature key → parsed VarLenFeature
	splits   map[string]tensor  // split_string key → StringSplitV2 node
	inits    []string           // table initializers
}

// Generate builds the model of a validated spec.
func Generate(s *Spec, opt Options) (*Model, error) {
	if err := s.Validate(); err != nil {
		return nil, err
	}
	if err := s.CheckSize(); err != nil {
		return nil, err
	}
	switch opt.Tables {
	case "", Variable, Resource, Const:
	default:
		return nil, fmt.Errorf("unknown table style %q (want variable, resource or const)", opt.Tables)
	}
	if opt.ConstLimit == 0 {
		opt.ConstLimit = DefaultConstLimit
	}
	if opt.TableLimit == 0 {
		opt.TableLimit = DefaultTableLimit
	}
	eff := s.Clone()
	if opt.Tables != "" {
		eff.Tables = opt.Tables
		for i := range eff.Groups {
			eff.Groups[i].Tables = ""
		}
		if eff.Dense != nil {
			eff.Dense.Tables = ""
		}
	}
	cols := columns(eff, "")
	if err := checkSizes(eff, cols, opt); err != nil {
		return nil, err
	}
	g := &gen{b: newBuilder(nodeEstimate(eff)), spec: eff, opt: opt, features: map[string]tensor{},
		ranks: map[string]int{}, sparse: map[string]sparseT{}, splits: map[string]tensor{}}
	out := g.build(cols)
	gd := &tfpb.GraphDef{Node: g.b.nodes, Versions: &tfpb.VersionDef{Producer: producer}}
	return &Model{Graph: gd, Tables: g.tables, Output: out}, nil
}

// checkSizes refuses const tables above the const limit and side tables
// above the table limit, before anything is allocated.
func checkSizes(s *Spec, cols []*column, opt Options) error {
	var constBytes, sideBytes int64
	add := func(style TableStyle, n int64) {
		if style == Const {
			constBytes += n
		} else {
			sideBytes += n
		}
	}
	for _, c := range cols {
		if c.share != nil && c.share.members[0] != c {
			continue
		}
		add(c.style, c.g.Rows()*int64(c.g.Dim)*4)
	}
	if d := s.Dense; d != nil {
		style := denseStyle(s)
		in := int64(d.Features)
		for _, w := range d.Bottom {
			add(style, (in*int64(w)+int64(w))*4)
			in = int64(w)
		}
		emb := int64(0)
		for _, c := range cols {
			emb += int64(c.g.Dim)
		}
		in += emb
		for _, w := range append(append([]int{}, d.Top...), 1) {
			add(style, (in*int64(w)+int64(w))*4)
			in = int64(w)
		}
	}
	if constBytes > opt.ConstLimit {
		return fmt.Errorf("const tables need %s, above the limit of %s for weights stored in the graph (Options.ConstLimit, recom gen --max-const-bytes); raise it, or use --tables=variable or --tables=resource (values in the side file)", human(constBytes), human(opt.ConstLimit))
	}
	if !opt.NoTableValues && sideBytes > opt.TableLimit {
		return fmt.Errorf("variable tables need %s, above the side-file limit of %s (Options.TableLimit, recom gen --max-table-bytes); raise it, or write the graph alone (--no-tables: the interpreter then draws random tables)", human(sideBytes), human(opt.TableLimit))
	}
	return nil
}

func human(n int64) string {
	switch {
	case n >= 1<<30:
		return fmt.Sprintf("%.1f GiB", float64(n)/(1<<30))
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	}
	return fmt.Sprintf("%d bytes", n)
}

func denseStyle(s *Spec) TableStyle {
	if s.Dense != nil && s.Dense.Tables != "" {
		return s.Dense.Tables
	}
	if s.Tables != "" {
		return s.Tables
	}
	return Variable
}

// build writes the whole graph and returns the output node's name.
func (g *gen) build(cols []*column) string {
	b := g.b
	var dense tensor
	if g.spec.Serving != "" {
		// The features dict: the parse of serialized tf.Example records.
		dense = g.parseExamples(cols)
	}
	// Or one Placeholder per feature, in column order.
	for _, c := range cols {
		if g.spec.Serving != "" {
			break
		}
		switch c.g.Kind {
		case HashedString, SplitString, Vocabulary, Shared:
			g.features[c.key] = b.placeholder(c.key, dtString, c.placeholderShape()...)
		case Weighted:
			g.features[c.key] = b.placeholder(c.key, dtString, c.placeholderShape()...)
			g.features[c.weightKey] = b.placeholder(c.weightKey, dtFloat, c.placeholderShape()...)
		case HashedInt, Identity:
			g.features[c.key] = b.placeholder(c.key, dtInt64, c.placeholderShape()...)
		case Bucketized:
			g.features[c.key] = b.placeholder(c.key, dtFloat, c.placeholderShape()...)
		case Crossed:
			g.features[c.key] = b.placeholder(c.key, dtString, c.placeholderShape()...)
			g.features[c.intKey] = b.placeholder(c.intKey, dtInt64, c.placeholderShape()...)
			if c.numKey != "" {
				g.features[c.numKey] = b.placeholder(c.numKey, dtFloat, c.numShape()...)
			}
		}
	}
	if g.spec.Dense != nil && g.spec.Serving == "" {
		dense = b.placeholder(DenseInput, dtFloat, -1, int64(g.spec.Dense.Features))
	}
	// Multi-valued strings are split before input_layer:
	// tf.compat.v1.strings.split(x, sep, result_type="SparseTensor",
	// name=key+"_split").
	for _, c := range cols {
		if c.g.Kind != SplitString {
			continue
		}
		_, s := b.enter(c.key + "_split")
		sep := b.scalarStr("Const", c.g.Separator)
		sp := b.op("StringSplitV2", "StringSplitV2", []tensor{g.features[c.key], sep}, attrs("maxsplit", aInt(-1)))
		b.exit(s)
		g.splits[c.key] = sp
	}
	var out string
	if len(g.spec.Towers) > 0 {
		out = g.towers(cols)
	} else {
		emb := g.inputLayer(cols)
		out = emb.ref
		if d := g.spec.Dense; d != nil {
			out = g.dense(d, dense, emb)
		}
	}
	if len(g.inits) > 0 {
		n := b.op("NoOp", TableInitNode, nil, nil)
		for _, dep := range g.inits {
			b.control(n.ref, dep)
		}
	}
	b.constProto(SpecNode, &tfpb.TensorProto{Dtype: dtString, TensorShape: shapeProto(nil), StringVal: [][]byte{g.spec.JSON()}})
	return out
}

// inputLayer writes input_layer over cols (sorted by name, one ConcatV2 on
// axis 1) in the current scope and returns its [batch, ΣD] output.
func (g *gen) inputLayer(cols []*column) tensor {
	b := g.b
	sorted := append([]*column{}, cols...)
	sort.SliceStable(sorted, func(i, j int) bool { return sorted[i].name < sorted[j].name })
	_, s := b.enter("input_layer")
	var outs []tensor
	for _, c := range sorted {
		outs = append(outs, g.column(c))
	}
	var emb tensor
	if len(outs) == 1 {
		// array_ops.concat of one tensor is an identity named "concat".
		emb = b.identity("concat", outs[0])
	} else {
		emb = b.concatV2("concat", outs, 1)
	}
	b.exit(s)
	return emb
}

// sparseT is a SparseTensor: indices, values, dense_shape.
type sparseT struct{ indices, values, shape tensor }

// raw is _LazyBuilder.get(key): a rank-1 feature gets ExpandDims(x, -1).
func (g *gen) raw(c *column, key string) tensor {
	x := g.features[key]
	rank, ok := g.ranks[key]
	if !ok {
		rank = len(c.placeholderShape())
	}
	if rank == 1 {
		return g.b.expandDims(x, -1)
	}
	return x
}

// toSparse is _to_sparse_input_and_drop_ignore_values.
func (g *gen) toSparse(x tensor) sparseT {
	b := g.b
	_, s := b.enter("to_sparse_input")
	var ig tensor
	switch x.dt {
	case dtString:
		_, s2 := b.enter("ignore_value")
		ig = b.scalarStr("x", "")
		b.exit(s2)
	case dtFloat:
		_, s2 := b.enter("ignore_value")
		ig = b.scalarF32("x", 0)
		b.exit(s2)
	default:
		ig = b.castConst("ignore_value", -1, x.dt)
	}
	ne := b.op("NotEqual", "NotEqual", []tensor{x, ig}, attrs("T", aType(x.dt), "incompatible_shape_error", aBool(true)))
	idx := b.where("indices", ne)
	vals := b.op("GatherNd", "values", []tensor{x, idx}, attrs("Tindices", aType(dtInt64), "Tparams", aType(x.dt)))
	vals.dt = x.dt
	sh := b.shape("dense_shape", x, dtInt64)
	b.exit(s)
	return sparseT{idx, vals, sh}
}

func (g *gen) hash(values tensor, buckets int64) tensor {
	t := g.b.op("StringToHashBucketFast", "lookup", []tensor{values}, attrs("num_buckets", aInt(buckets)))
	t.dt = dtInt64
	return t
}

// column writes one embedding column under input_layer and returns its
// [batch, D] output.
func (g *gen) column(c *column) tensor {
	b := g.b
	scope := c.name
	if c.share != nil {
		scope = c.share.collection
	}
	varScope, saved := b.enter(scope)
	var res tensor
	if c.share != nil {
		// _SharedEmbeddingColumn: name_scope(<col>_shared_embedding) for
		// the ids, the table and the lookup.
		_, s := b.enter(c.name)
		ids, w := g.sparseIDs(c)
		if !c.share.made {
			c.share.table = g.table(varScope+"/embedding_weights", c)
			c.share.made = true
		}
		res = g.safeLookup(c.name+"_weights", c.g.Combiner, lookupParams{shards: []tableRef{c.share.table}}, ids, w)
		b.exit(s)
	} else {
		ids, w := g.sparseIDs(c)
		t := g.table(varScope+"/embedding_weights", c)
		res = g.safeLookup(c.name+"_weights", c.g.Combiner, lookupParams{shards: []tableRef{t}}, ids, w)
	}
	bs := b.dim0(res)
	out := b.reshapePacked(res, bs, c.g.Dim)
	b.exit(saved)
	return out
}

// sparseIDs writes the categorical column's transform: the sparse ids and,
// for a weighted column, the sparse weights.
func (g *gen) sparseIDs(c *column) (sparseT, *sparseT) {
	b := g.b
	switch c.g.Kind {
	case HashedString, Shared:
		sp := g.sparseInput(c, c.key)
		sp.values = g.hash(sp.values, c.g.Buckets)
		return sp, nil
	case HashedInt:
		sp := g.sparseInput(c, c.key)
		str := b.op("AsString", "AsString", []tensor{sp.values}, attrs("T", aType(sp.values.dt), "fill", aStr(""),
			"precision", aInt(-1), "scientific", aBool(false), "shortest", aBool(false), "width", aInt(-1)))
		str.dt = dtString
		sp.values = g.hash(str, c.g.Buckets)
		return sp, nil
	case SplitString:
		st := g.splits[c.key]
		sp := sparseT{indices: st.out(0, dtInt64), values: st.out(1, dtString), shape: st.out(2, dtInt64)}
		sp.values = g.hash(sp.values, c.g.Buckets)
		return sp, nil
	case Weighted:
		w := g.sparseInput(c, c.weightKey)
		sp := g.sparseInput(c, c.key)
		sp.values = g.hash(sp.values, c.g.Buckets)
		return sp, &w
	case Identity:
		sp := g.sparseInput(c, c.key)
		if c.g.DefaultValue != nil {
			v := sp.values
			nb := b.castConst("num_buckets", c.g.Buckets, dtInt64)
			zero := b.castConst("zero", 0, dtInt64)
			less := b.binary("Less", "Less", v, zero, dtBool)
			ge := b.binary("GreaterEqual", "GreaterEqual", v, nb, dtBool)
			oor := b.op("LogicalOr", "out_of_range", []tensor{less, ge}, nil)
			oor.dt = dtBool
			sh := b.shape("Shape", v, dtInt32)
			dv := b.castConst("Cast", *c.g.DefaultValue, dtInt64)
			fill := b.op("Fill", "default_values", []tensor{sh, dv}, attrs("T", aType(dtInt64), "index_type", aType(dtInt32)))
			fill.dt = dtInt64
			sel := b.op("SelectV2", "SelectV2", []tensor{oor, fill, v}, g.b.tAttr(dtInt64))
			sel.dt = dtInt64
			sp.values = sel
		}
		return sp, nil
	case Vocabulary:
		sp := g.sparseInput(c, c.key)
		sp.values = g.vocabLookup(c, sp.values)
		return sp, nil
	case Bucketized:
		return g.bucketized(c, c.key, c.placeholderShape()), nil
	case Crossed:
		return g.crossed(c), nil
	}
	panic("unreachable: validated kind")
}

// vocabLookup is index_table_from_tensor(vocab, num_oov_buckets) and its
// lookup.
func (g *gen) vocabLookup(c *column, values tensor) tensor {
	b := g.b
	_, s := b.enter(c.key + "_lookup")
	keys := b.vecStr("Const", vocabulary(c.g.VocabularySize))
	size := b.scalarI32("Size", int32(c.g.VocabularySize))
	rng := g.rangeOp(&size, 0)
	vals := b.cast("Cast", rng, dtInt64)
	htName, s2 := b.enter("hash_table")
	b.exit(s2)
	ht := b.emit(htName, "HashTableV2", nil, attrs("container", aStr(""), "key_dtype", aType(dtString),
		"shared_name", aStr("hash_table_"+c.key), "use_node_name_sharing", aBool(false), "value_dtype", aType(dtInt64)))
	ht.dt = dtRes
	s2 = b.enterAbs(htName)
	def := b.scalarI64("Const", -1)
	_, s3 := b.enter("table_init")
	imp := b.op("LookupTableImportV2", "LookupTableImportV2", []tensor{ht, keys, vals}, attrs("Tin", aType(dtString), "Tout", aType(dtInt64)))
	g.inits = append(g.inits, imp.ref)
	b.exit(s3)
	b.exit(s2)
	b.exit(s)

	find := func() tensor {
		_, s := b.enter("hash_table_Lookup")
		t := b.op("LookupTableFindV2", "LookupTableFindV2", []tensor{ht, values, def}, attrs("Tin", aType(dtString), "Tout", aType(dtInt64)))
		t.dt = dtInt64
		b.exit(s)
		return t
	}
	if c.g.NumOOVBuckets == 0 {
		return find()
	}
	_, s = b.enter("hash_table_Lookup")
	hb := b.op("StringToHashBucketFast", "hash_bucket", []tensor{values}, attrs("num_buckets", aInt(c.g.NumOOVBuckets)))
	hb.dt = dtInt64
	ids := find()
	_, s4 := b.enter("hash_table_Size")
	sz := b.op("LookupTableSizeV2", "LookupTableSizeV2", []tensor{ht}, nil)
	sz.dt = dtInt64
	b.exit(s4)
	add := b.binary("AddV2", "Add", hb, sz, 0)
	ne := b.op("NotEqual", "NotEqual", []tensor{ids, def}, attrs("T", aType(dtInt64), "incompatible_shape_error", aBool(true)))
	ne.dt = dtBool
	sel := b.op("SelectV2", "SelectV2", []tensor{ne, ids, add}, g.b.tAttr(dtInt64))
	sel.dt = dtInt64
	b.exit(s)
	return sel
}

// rangeOp is math_ops.range(0, limit): "range/start", "range/limit" when
// the limit is a Python int (limit nil), "range/delta".
func (g *gen) rangeOp(limit *tensor, limitConst int32) tensor {
	b := g.b
	full, s := b.enter("range")
	st := b.scalarI32("start", 0)
	var lim tensor
	if limit == nil {
		lim = b.scalarI32("limit", limitConst)
	} else {
		lim = *limit
	}
	dl := b.scalarI32("delta", 1)
	b.exit(s)
	t := b.emit(full, "Range", []tensor{st, lim, dl}, attrs("Tidx", aType(dtInt32)))
	t.dt = dtInt32
	return t
}

// bucketized is bucketized_column's transform and
// _get_sparse_tensors_for_input_tensor (source dimension 1) of feature key
// (whose placeholder has the given shape).
func (g *gen) bucketized(c *column, key string, shape []int64) sparseT {
	b := g.b
	x := g.features[key]
	rank, ok := g.ranks[key] // a parsed feature's (Serving)
	if !ok {
		rank = len(shape)
	}
	if rank == 1 {
		x = b.expandDims(x, -1)
	}
	bz := b.op("Bucketize", "Bucketize", []tensor{x}, attrs("T", aType(dtFloat), "boundaries", aFloats(boundaries(c.g.Boundaries))))
	bz.dt = dtInt32
	bs := b.dim0(bz)
	rng := g.rangeOp(&bs, 0)
	ed := b.expandDims(rng, 1)
	full, s := b.enter("Tile")
	m := b.vecI32("multiples", 1, 1)
	b.exit(s)
	tl := b.emit(full, "Tile", []tensor{ed, m}, attrs("T", aType(dtInt32), "Tmultiples", aType(dtInt32)))
	tl.dt = dtInt32
	i1 := b.reshapeConst(tl, -1)
	rng2 := g.rangeOp(nil, 1)
	full, s = b.enter("Tile")
	m2 := b.pack("multiples", bs)
	b.exit(s)
	i2 := b.emit(full, "Tile", []tensor{rng2, m2}, attrs("T", aType(dtInt32), "Tmultiples", aType(dtInt32)))
	i2.dt = dtInt32
	flat := b.reshapeConst(bz, -1)
	full, s = b.enter("mul")
	k := b.scalarI32("x", int32(c.g.Boundaries+1))
	b.exit(s)
	mul := b.emit(full, "Mul", []tensor{k, i2}, g.b.tAttr(dtInt32))
	mul.dt = dtInt32
	vals := b.binary("AddV2", "add", flat, mul, 0)
	st := b.pack("stack", i1, i2)
	full, s = b.enter("transpose")
	perm := b.vecI32("perm", 1, 0)
	b.exit(s)
	tr := b.emit(full, "Transpose", []tensor{st, perm}, attrs("T", aType(dtInt32), "Tperm", aType(dtInt32)))
	tr.dt = dtInt32
	ind := b.cast("Cast", tr, dtInt64)
	sh := b.pack("stack", bs, 1)
	dsh := b.cast("Cast", sh, dtInt64)
	return sparseT{ind, vals, dsh}
}

// table creates the column's embedding table at its variable name.
func (g *gen) table(name string, c *column) tableRef {
	return g.variable(name, c.style, []int64{c.g.Rows(), int64(c.g.Dim)}, func(r *rand.Rand, v []float32) {
		std := 1 / math.Sqrt(float64(c.g.Dim))
		for i := range v {
			v[i] = float32(truncNormal(r) * std)
		}
	})
}

// variable writes a variable in one of the table styles and records its
// values (side file) or embeds them (const).
func (g *gen) variable(name string, style TableStyle, shape []int64, fill func(*rand.Rand, []float32)) tableRef {
	b := g.b
	name = b.unique(name)
	values := func() []float32 {
		n := shape[0]
		if len(shape) > 1 {
			n *= shape[1]
		}
		v := make([]float32, n)
		fill(g.rng(name), v)
		return v
	}
	switch style {
	case Resource:
		h := b.emit(name, "VarHandleOp", nil, attrs("allowed_devices", aEmptyList(), "container", aStr(""),
			"dtype", aType(dtFloat), "shape", aShape(shape...), "shared_name", aStr(name)))
		h.dt = dtRes
		g.side(name, shape, values)
		return tableRef{read: h, resource: true}
	case Const:
		b.emit(name, "Const", nil, attrs("dtype", aType(dtFloat), "value",
			&tfpb.AttrValue{Value: &tfpb.AttrValue_Tensor{Tensor: f32Proto(shape, values())}}))
	default:
		b.emit(name, "VariableV2", nil, attrs("container", aStr(""), "dtype", aType(dtFloat),
			"shape", aShape(shape...), "shared_name", aStr("")))
		g.side(name, shape, values)
	}
	s := b.enterAbs(name)
	read := b.identity("read", tensor{ref: name, dt: dtFloat})
	b.exit(s)
	return tableRef{read: read}
}

func (g *gen) side(name string, shape []int64, values func() []float32) {
	if g.opt.NoTableValues {
		return
	}
	t, err := interp.New(shape, values())
	if err != nil {
		panic(err) // shapes are ours
	}
	g.tables = append(g.tables, npz.Array{Name: name, Tensor: t})
}

// rng is the random source of one table: the seed and the table's name.
func (g *gen) rng(name string) *rand.Rand {
	h := fnv.New64a()
	h.Write([]byte(name))
	return rand.New(rand.NewPCG(g.opt.Seed, h.Sum64()))
}

// truncNormal draws from N(0, 1) truncated to [-2, 2], as TensorFlow's
// truncated_normal initializer.
func truncNormal(r *rand.Rand) float64 {
	for {
		if x := r.NormFloat64(); x >= -2 && x <= 2 {
			return x
		}
	}
}

// safeLookup is safe_embedding_lookup_sparse(params, ids, weights,
// combiner, name=name) with default_id None, as TensorFlow 2.6 writes it
// (params.style picks another version's embedding_lookup_sparse).
func (g *gen) safeLookup(name, combiner string, params lookupParams, ids sparseT, w *sparseT) tensor {
	b := g.b
	scopeName, saved := b.enter(name)
	orig := ids.shape
	// Reshape the ids to 2-D.
	sl := b.slice(orig, 0, 1)
	red := b.vecI32("Const", 0)
	prod := b.op("Prod", "Prod", []tensor{sl, red}, attrs("T", aType(dtInt64), "Tidx", aType(dtInt32), "keep_dims", aBool(false)))
	prod.dt = dtInt64
	full, s := b.enter("GatherV2")
	gi := b.scalarI32("indices", 1)
	ax := b.scalarI32("axis", 0)
	b.exit(s)
	last := b.gatherV2Named(full, orig, gi, ax)
	_, s = b.enter("Cast")
	newShape := b.pack("x", prod, last)
	b.exit(s)
	full, s = b.enter("SparseReshape")
	sr := b.emit(full, "SparseReshape", []tensor{ids.indices, orig, newShape}, nil)
	vals := b.identity("Identity", ids.values)
	b.exit(s)
	sp := sparseT{indices: tensor{ref: sr.ref, dt: dtInt64}, values: vals, shape: sr.out(1, dtInt64)}
	var ws *sparseT
	if w != nil {
		ws = &sparseT{indices: sp.indices, values: w.values, shape: sp.shape}
	}
	// Prune invalid ids.
	zero := func(dt tfpb.DataType) func(*builder, string) tensor {
		return func(b *builder, n string) tensor {
			switch dt {
			case dtInt32:
				return b.scalarI32(n, 0)
			case dtFloat:
				return b.scalarF32(n, 0)
			}
			return b.scalarI64(n, 0)
		}
	}
	valid := b.binaryConstY("GreaterEqual", "GreaterEqual", sp.values, zero(sp.values.dt), dtBool)
	if ws != nil {
		olName, s := b.enter("ones_like")
		sh := b.shape("Shape", ws.values, dtInt32)
		one := b.scalarBool("Const", true)
		b.exit(s)
		ones := b.emit(olName, "Fill", []tensor{sh, one}, attrs("T", aType(dtBool), "index_type", aType(dtInt32)))
		ones.dt = dtBool
		valid = b.op("LogicalAnd", "LogicalAnd", []tensor{valid, ones}, nil)
		valid.dt = dtBool
	}
	sp = g.retain(sp, valid)
	if ws != nil {
		*ws = g.retain(*ws, valid)
		if combiner != "sum" {
			pos := b.binaryConstY("Greater", "Greater", ws.values, zero(dtFloat), dtBool)
			sp = g.retain(sp, pos)
			*ws = g.retain(*ws, pos)
		}
	}
	// Fill empty rows.
	fill := func(st sparseT, def func(*builder, string) tensor) tensor {
		_, s := b.enter("SparseFillEmptyRows")
		d := def(b, "Const")
		t := b.op("SparseFillEmptyRows", "SparseFillEmptyRows", []tensor{st.indices, st.values, st.shape, d}, g.b.tAttr(st.values.dt))
		b.exit(s)
		return t
	}
	sf := fill(sp, zero(sp.values.dt))
	var wf tensor
	if ws != nil {
		wf = fill(*ws, func(b *builder, n string) tensor { return b.scalarF32(n, 1) })
	}
	// embedding_lookup_sparse.
	var wv *tensor
	if ws != nil {
		v := wf.out(1, dtFloat)
		wv = &v
	}
	result := g.lookupSparse("embedding_lookup_sparse", combiner, params, sparseT{indices: sf.out(0, dtInt64), values: sf.out(1, sp.values.dt)}, wv)
	// Rows without ids give zeros.
	empty := b.reshapeConst(sf.out(2, dtBool), -1, 1)
	sh := b.shape("Shape", result, dtInt32)
	d := b.stridedSlice(sh, []int32{1}, []int32{2}, []int32{1}, 0, 0, 1)
	mult := b.pack("stack", 1, d)
	tile := b.op("Tile", "Tile", []tensor{empty, mult}, attrs("T", aType(dtBool), "Tmultiples", aType(dtInt32)))
	tile.dt = dtBool
	zl := b.op("ZerosLike", "zeros_like", []tensor{result}, g.b.tAttr(dtFloat))
	zl.dt = dtFloat
	sel := b.emit(scopeName, "Select", []tensor{tile, zl, result}, g.b.tAttr(dtFloat))
	sel.dt = dtFloat
	// Back to the ids' original rank.
	c1 := b.cast("Cast", orig, dtInt32)
	s1 := b.slice(c1, 0, 1)
	sh1 := b.shape("Shape", sel, dtInt32)
	s2b := b.slice(sh1, 1, -1)
	cc := b.concatV2("concat", []tensor{s1, s2b}, 0)
	out := b.reshape(sel, cc)
	b.exit(saved)
	return out
}

// retain is sparse_ops.sparse_retain (no name scope of its own).
func (g *gen) retain(st sparseT, keep tensor) sparseT {
	b := g.b
	wh := b.where("Where", keep)
	r := b.reshapeConst(wh, -1)
	ni := b.gatherV2("GatherV2", st.indices, r)
	nv := b.gatherV2("GatherV2", st.values, r)
	ns := b.identity("Identity", st.shape)
	return sparseT{ni, nv, ns}
}

// dense writes the DLRM part: bottom MLP on the dense features, concat with
// the embedding layer, top MLP, dense(1), sigmoid.
func (g *gen) dense(d *Dense, x, emb tensor) string {
	b := g.b
	layer := g.mlpLayer
	h, in := x, d.Features
	for _, w := range d.Bottom {
		h = layer("bottom_mlp/dense", h, in, w, true)
		in = w
	}
	embDim := 0
	for _, c := range columns(g.spec, "") {
		embDim += c.g.Dim
	}
	h = g.b.concatV2("concat", []tensor{emb, h}, 1)
	in += embDim
	for _, w := range d.Top {
		h = layer("top_mlp/dense", h, in, w, true)
		in = w
	}
	h = layer("top_mlp/dense", h, in, 1, false)
	p := b.op("Sigmoid", PredictionNode, []tensor{h}, g.b.tAttr(dtFloat))
	return p.ref
}

// mlpLayer is tf.compat.v1.layers.dense(in, units, relu?) under scope:
// kernel and bias variables in the spec's dense table style, MatMul,
// BiasAdd and the ReLU.
func (g *gen) mlpLayer(scope string, in tensor, inDim, units int, relu bool) tensor {
	b := g.b
	style := denseStyle(g.spec)
	full, s := b.enter(scope)
	std := math.Sqrt(2 / float64(inDim+units))
	k := g.variable(full+"/kernel", style, []int64{int64(inDim), int64(units)}, func(r *rand.Rand, v []float32) {
		for i := range v {
			v[i] = float32(truncNormal(r) * std)
		}
	})
	bias := g.variable(full+"/bias", style, []int64{int64(units)}, func(r *rand.Rand, v []float32) {
		for i := range v {
			v[i] = float32(0.01 * truncNormal(r))
		}
	})
	// read is the kernel or bias as the op named full sees it: the read
	// Identity, or a ReadVariableOp in the op's scope.
	read := func(full string, t tableRef) tensor {
		if !t.resource {
			return t.read
		}
		s := b.enterAbs(full)
		rv := b.op("ReadVariableOp", "ReadVariableOp", []tensor{t.read}, attrs("dtype", aType(dtFloat)))
		rv.dt = dtFloat
		b.exit(s)
		return rv
	}
	mm := b.unique(b.scope + "MatMul")
	out := b.emit(mm, "MatMul", []tensor{in, read(mm, k)}, attrs("T", aType(dtFloat), "transpose_a", aBool(false), "transpose_b", aBool(false)))
	out.dt = dtFloat
	ba := b.unique(b.scope + "BiasAdd")
	out = b.emit(ba, "BiasAdd", []tensor{out, read(ba, bias)}, attrs("T", aType(dtFloat), "data_format", aStr("NHWC")))
	out.dt = dtFloat
	if relu {
		out = b.op("Relu", "Relu", []tensor{out}, g.b.tAttr(dtFloat))
		out.dt = dtFloat
	}
	b.exit(s)
	return out
}

// ErrNoSpec means a graph holds no recom/spec node.
var ErrNoSpec = errors.New("the graph holds no " + SpecNode + " node (not written by recom gen); pass --spec")

// SpecFromGraph returns the spec recorded in a generated graph.
func SpecFromGraph(gd *tfpb.GraphDef) (*Spec, error) {
	for _, n := range gd.GetNode() {
		if n.GetName() != SpecNode || n.GetOp() != "Const" {
			continue
		}
		sv := n.GetAttr()["value"].GetTensor().GetStringVal()
		if len(sv) != 1 {
			return nil, fmt.Errorf("node %q: want one string", SpecNode)
		}
		return ParseSpec(sv[0], SpecNode)
	}
	return nil, ErrNoSpec
}
