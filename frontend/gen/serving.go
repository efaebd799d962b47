package gen

import (
	"sort"

	"github.com/recom-compiler/recom/frontend/graphdef/tfpb"
)

// Serving inputs (Spec.Serving): a model whose features arrive as
// serialized tf.Example records, as a TensorFlow Estimator export's
// serving signature receives them
// (tf.estimator.export.build_parsing_serving_input_receiver_fn over
// tf.feature_column.make_parse_example_spec of the columns): one [batch]
// string Placeholder, ExampleInput, parsed by one ParseExampleV2 (TF 2's
// tf.io.parse_example) or ParseExample (TF 1's tf.parse_example) under the
// name scope "ParseExample", whose outputs are the features dict.
//
// The parse spec of each column kind is make_parse_example_spec's:
//
//	hashed_string, vocabulary, shared     VarLenFeature(tf.string)
//	weighted                              VarLenFeature(tf.string), and VarLenFeature(tf.float32) for its weight
//	hashed_int, identity                  VarLenFeature(tf.int64)
//	bucketized                            FixedLenFeature((1,), tf.float32): required
//	split_string                          FixedLenFeature((), tf.string, default_value=""), split by the model
//	the dense part                        FixedLenFeature((features,), tf.float32, default_value=zeros)
//
// A VarLenFeature is a SparseTensor (the parse's indices, values and
// dense_shape of its key), which the columns take as it is
// (_to_sparse_input_and_drop_ignore_values makes no ops for one); a
// FixedLenFeature a dense tensor of its shape with the batch first.

// The serving inputs.
const (
	ServingTFExample   = "tf_example"
	ServingTFExampleV1 = "tf_example_v1"
)

// ExampleInput is the Placeholder of the serialized records of a model
// with tf.Example serving inputs (the receiver tensor's name in
// build_parsing_serving_input_receiver_fn).
const ExampleInput = "input_example_tensor"

// parseFeature is one entry of the parse spec.
type parseFeature struct {
	key   string
	dt    tfpb.DataType
	dense bool
	shape []int64 // dense: the shape without the batch
	// def is the dense default (nil: required); a string default is "".
	def []float32
	str bool
}

// parseSpec is the parse spec of the columns and the dense part, sorted
// by key as _ParseOpParams.from_features sorts it.
func (g *gen) parseSpec(cols []*column) []parseFeature {
	var fs []parseFeature
	for _, c := range cols {
		switch c.g.Kind {
		case HashedString, Vocabulary, Shared:
			fs = append(fs, parseFeature{key: c.key, dt: dtString})
		case Weighted:
			fs = append(fs, parseFeature{key: c.key, dt: dtString}, parseFeature{key: c.weightKey, dt: dtFloat})
		case HashedInt, Identity:
			fs = append(fs, parseFeature{key: c.key, dt: dtInt64})
		case Bucketized:
			fs = append(fs, parseFeature{key: c.key, dt: dtFloat, dense: true, shape: []int64{1}})
		case SplitString:
			fs = append(fs, parseFeature{key: c.key, dt: dtString, dense: true, shape: []int64{}, str: true})
		case Crossed:
			// Required fixed-length features of the placeholders' shapes.
			sh := c.placeholderShape()[1:]
			fs = append(fs, parseFeature{key: c.key, dt: dtString, dense: true, shape: sh},
				parseFeature{key: c.intKey, dt: dtInt64, dense: true, shape: sh})
			if c.numKey != "" {
				fs = append(fs, parseFeature{key: c.numKey, dt: dtFloat, dense: true, shape: c.numShape()[1:]})
			}
		}
	}
	if d := g.spec.Dense; d != nil {
		fs = append(fs, parseFeature{key: DenseInput, dt: dtFloat, dense: true, shape: []int64{int64(d.Features)},
			def: make([]float32, d.Features)})
	}
	sort.SliceStable(fs, func(i, j int) bool { return fs[i].key < fs[j].key })
	return fs
}

// parseExamples writes the serving input and its parse, fills g.features
// (dense features, with their ranks in g.ranks) and g.sparse (the
// VarLenFeatures), and returns the dense part's input (zero without one).
func (g *gen) parseExamples(cols []*column) tensor {
	b := g.b
	ser := b.placeholder(ExampleInput, dtString, -1)
	fs := g.parseSpec(cols)
	var sparse, dense []parseFeature
	for _, f := range fs {
		if f.dense {
			dense = append(dense, f)
		} else {
			sparse = append(sparse, f)
		}
	}
	_, saved := b.enter("ParseExample")
	// The dense defaults (_ParseOpParams.dense_defaults_vec, in the
	// parse's name scope): an empty constant for a required feature, else
	// the default converted as "key_<key>" and reshaped to the shape.
	var defaults []tensor
	for _, f := range dense {
		switch {
		case f.str:
			v := b.scalarStr("key_"+f.key, "")
			defaults = append(defaults, b.reshapeConst(v))
		case f.def == nil:
			defaults = append(defaults, b.constProto("Const", &tfpb.TensorProto{Dtype: f.dt, TensorShape: shapeProto([]int64{0})}))
		default:
			v := b.constProto("key_"+f.key, f32Proto([]int64{int64(len(f.def))}, f.def))
			v.dt = f.dt
			sh := make([]int32, len(f.shape))
			for i, d := range f.shape {
				sh[i] = int32(d)
			}
			defaults = append(defaults, b.reshapeConst(v, sh...))
		}
	}
	sparseTypes := make([]tfpb.DataType, len(sparse))
	for i, f := range sparse {
		sparseTypes[i] = f.dt
	}
	denseTypes := make([]tfpb.DataType, len(dense))
	shapes := make([]*tfpb.TensorShapeProto, len(dense))
	for i, f := range dense {
		denseTypes[i] = f.dt
		shapes[i] = shapeProto(f.shape)
	}
	keys := func(fs []parseFeature) []string {
		out := make([]string, len(fs))
		for i, f := range fs {
			out[i] = f.key
		}
		return out
	}
	typeList := func(ts []tfpb.DataType) *tfpb.AttrValue {
		return &tfpb.AttrValue{Value: &tfpb.AttrValue_List{List: &tfpb.AttrValue_ListValue{Type: ts}}}
	}
	shapeList := &tfpb.AttrValue{Value: &tfpb.AttrValue_List{List: &tfpb.AttrValue_ListValue{Shape: shapes}}}
	var parse tensor
	if g.spec.Serving == ServingTFExampleV1 {
		name := b.unique(b.scope + "ParseExample")
		s := b.enterAbs(name)
		names := b.vecStr("names", nil)
		in := []tensor{ser, names}
		for _, k := range keys(sparse) {
			in = append(in, b.scalarStr("sparse_keys", k))
		}
		for _, k := range keys(dense) {
			in = append(in, b.scalarStr("dense_keys", k))
		}
		b.exit(s)
		in = append(in, defaults...)
		parse = b.emit(name, "ParseExample", in, attrs("Ndense", aInt(int64(len(dense))), "Nsparse", aInt(int64(len(sparse))),
			"Tdense", typeList(denseTypes), "dense_shapes", shapeList, "sparse_types", typeList(sparseTypes)))
	} else {
		name := b.unique(b.scope + "ParseExampleV2")
		s := b.enterAbs(name)
		names := b.vecStr("names", nil)
		sk := b.vecStr("sparse_keys", keys(sparse))
		dk := b.vecStr("dense_keys", keys(dense))
		rk := b.vecStr("ragged_keys", nil)
		b.exit(s)
		in := append([]tensor{ser, names, sk, dk, rk}, defaults...)
		parse = b.emit(name, "ParseExampleV2", in, attrs("Tdense", typeList(denseTypes), "dense_shapes", shapeList,
			"num_sparse", aInt(int64(len(sparse))), "ragged_split_types", aEmptyList(), "ragged_value_types", aEmptyList(),
			"sparse_types", typeList(sparseTypes)))
	}
	b.exit(saved)
	ns := len(sparse)
	for i, f := range sparse {
		g.sparse[f.key] = sparseT{indices: parse.out(i, dtInt64), values: parse.out(ns+i, f.dt), shape: parse.out(2*ns+i, dtInt64)}
	}
	var out tensor
	for i, f := range dense {
		t := parse.out(3*ns+i, f.dt)
		if f.key == DenseInput && g.spec.Dense != nil {
			out = t
			continue
		}
		g.features[f.key] = t
		g.ranks[f.key] = 1 + len(f.shape)
	}
	return out
}

// sparseInput is the column's feature key as the SparseTensor
// _to_sparse_input_and_drop_ignore_values makes of it: the parse's
// SparseTensor as it is, or a dense feature's ids other than the ignore
// value.
func (g *gen) sparseInput(c *column, key string) sparseT {
	if sp, ok := g.sparse[key]; ok {
		return sp
	}
	return g.toSparse(g.raw(c, key))
}
