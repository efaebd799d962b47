package tfops

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/recom-compiler/recom/interp"
	"github.com/recom-compiler/recom/interp/tfexample"
)

// PartialShape is a TensorFlow shape attribute: dims of -1 are unknown, and
// UnknownRank means nothing is known.
type PartialShape struct {
	Dims        []int64
	UnknownRank bool
}

// String formats the shape as TensorFlow's PartialTensorShape does: [?,3],
// or <unknown>.
func (s PartialShape) String() string {
	if s.UnknownRank {
		return "<unknown>"
	}
	parts := make([]string, len(s.Dims))
	for i, d := range s.Dims {
		if d < 0 {
			parts[i] = "?"
		} else {
			parts[i] = strconv.FormatInt(d, 10)
		}
	}
	return "[" + strings.Join(parts, ",") + "]"
}

// ParseExampleAttrs are the attributes of ParseExample (Version 1:
// Nsparse, Ndense, sparse_types, Tdense, dense_shapes) and ParseExampleV2
// (Version 2: num_sparse, sparse_types, Tdense, dense_shapes,
// ragged_value_types, ragged_split_types).
type ParseExampleAttrs struct {
	Version          int
	NumSparse        int64 // Nsparse or num_sparse
	NumDense         int64 // Ndense (version 1; version 2 has len(DenseTypes))
	SparseTypes      []interp.DType
	DenseTypes       []interp.DType // Tdense
	DenseShapes      []PartialShape
	RaggedValueTypes []interp.DType
	RaggedSplitTypes []interp.DType
}

// ParseExampleInputs are the inputs of ParseExample and ParseExampleV2.
// Version 1 has one scalar string tensor per sparse and per dense key;
// version 2 has one string tensor of keys (of any shape) for each of
// SparseKeys, DenseKeys and RaggedKeys.
type ParseExampleInputs struct {
	Serialized, Names                 *interp.Tensor
	SparseKeys, DenseKeys, RaggedKeys []*interp.Tensor
	DenseDefaults                     []*interp.Tensor
}

// ParsedExamples are the outputs of ParseExample and ParseExampleV2, each
// list in the order of its keys.
type ParsedExamples struct {
	SparseIndices, SparseValues, SparseShapes []*interp.Tensor
	DenseValues                               []*interp.Tensor
	RaggedValues, RaggedRowSplits             []*interp.Tensor
}

// tfTypeName is TensorFlow's DataTypeString, for messages.
func tfTypeName(dt interp.DType) string {
	switch dt {
	case interp.Float32:
		return "float"
	case interp.Float64:
		return "double"
	}
	return dt.String()
}

// featureKind is a tf.Example list kind as the dtype it parses to.
func featureKind(k tfexample.Kind) interp.DType {
	switch k {
	case tfexample.BytesList:
		return interp.String
	case tfexample.FloatList:
		return interp.Float32
	case tfexample.Int64List:
		return interp.Int64
	}
	return interp.Invalid
}

// exampleFeature is one configured feature: its key, dtype and, for a
// dense one, its shape, default and stride.
type exampleFeature struct {
	key      string
	dtype    interp.DType
	shape    PartialShape
	def      *interp.Tensor
	varLen   bool
	stride   int64 // elements per row of a dense feature
	split    interp.DType
	kind     int // sparseFeature, denseFeature, raggedFeature
	index    int // among the features of its kind
	required bool
}

const (
	sparseFeature = iota
	denseFeature
	raggedFeature
)

// ParseExample parses a batch (a vector; version 2 also a scalar: one
// example without a batch dimension) of serialized tf.Example protos into
// the features attrs and in configure, with the semantics of TensorFlow's
// ParseExample and ParseExampleV2 kernels (core/kernels/
// example_parsing_ops.cc, with the fast parser of core/util/
// example_proto_fast_parsing.cc; the decoding rules are package
// tfexample's):
//
//   - a sparse feature gives indices [N, 2] (example, position), values
//     [N] and dense_shape [batch, the longest row] (scalar input: [N, 1],
//     [N] and [N]);
//   - a dense feature of shape S gives [batch] + S, from the example's
//     values (exactly as many as S has elements) or, when the example
//     lacks the feature, from its default; a default of no elements makes
//     the feature required. A first dim of -1 makes it variable-length:
//     [batch, the most rows, S[1:]...] padded with the default (one
//     element);
//   - a ragged feature (version 2) gives values [N] and row splits
//     [batch + 1] of its split type (scalar input: values and an empty
//     splits tensor).
//
// An example that repeats a key keeps the last occurrence (for a dense
// feature, the last non-empty one). The errors are TensorFlow's, with the
// example's name (from names, else "<unknown>"), key and index; the
// serialized bytes of an example that does not parse are quoted in Go's
// escapes and cut at 128 bytes. Every output is checked against
// interp.MaxElements before it is allocated.
func ParseExample(attrs ParseExampleAttrs, in ParseExampleInputs) (*ParsedExamples, error) {
	op := "ParseExample"
	if attrs.Version == 2 {
		op = "ParseExampleV2"
	}
	feats, err := exampleConfig(op, attrs, in)
	if err != nil {
		return nil, err
	}
	if attrs.Version == 2 && in.Serialized.Rank() == 0 {
		return parseSingleExample(op, attrs, feats, in.Serialized.Strings()[0])
	}
	return parseExampleBatch(op, attrs, feats, in)
}

// exampleConfig checks the attributes and inputs, in the order of the
// kernel's construction (ParseExampleAttrs) and its CheckInputShapes, and
// returns the configured features.
func exampleConfig(op string, a ParseExampleAttrs, in ParseExampleInputs) ([]*exampleFeature, error) {
	if a.Version != 1 && a.Version != 2 {
		return nil, errorf(op, "Unexpected op_version%d", a.Version)
	}
	numDense := a.NumDense
	if a.Version == 2 {
		numDense = int64(len(a.DenseTypes))
	}
	// GetDenseShapes.
	varLen := make([]bool, len(a.DenseShapes))
	strides := make([]int64, len(a.DenseShapes))
	for i, s := range a.DenseShapes {
		ok := !s.UnknownRank
		for d := 1; ok && d < len(s.Dims); d++ {
			ok = s.Dims[d] >= 0
		}
		if !ok {
			return nil, errorf(op, "dense_shapes[%d] has unknown rank or unknown inner dimensions: %s", i, s)
		}
		dims := s.Dims
		if len(dims) > 0 && dims[0] == -1 {
			varLen[i], dims = true, dims[1:]
		}
		for _, d := range dims {
			if d < 0 {
				return nil, errorf(op, "dense_shapes[%d] has a negative dimension: %s", i, s)
			}
		}
		n, err := numElements(op, dims)
		if err != nil {
			return nil, err
		}
		strides[i] = int64(n)
		if varLen[i] && n == 0 {
			// TensorFlow's kernel divides by the stride.
			return nil, errorf(op, "dense_shapes[%d] = %s: a variable-length feature must have elements in each row", i, s)
		}
	}
	// FinishInit.
	switch {
	case a.NumSparse != int64(len(a.SparseTypes)):
		return nil, errorf(op, "len(sparse_keys) != len(sparse_types)")
	case numDense != int64(len(a.DenseTypes)):
		return nil, errorf(op, "len(dense_keys) != len(dense_types)")
	case numDense != int64(len(a.DenseShapes)):
		return nil, errorf(op, "len(dense_keys) != len(dense_shapes)")
	case a.Version == 1 && (len(a.RaggedValueTypes) != 0 || len(a.RaggedSplitTypes) != 0):
		return nil, errorf(op, "ParseExample has no ragged features")
	case len(a.RaggedValueTypes) != len(a.RaggedSplitTypes):
		return nil, errorf(op, "len(ragged_keys) != len(ragged_split_types)")
	}
	for _, list := range [][]interp.DType{a.DenseTypes, a.SparseTypes, a.RaggedValueTypes} {
		for _, dt := range list {
			switch dt {
			case interp.Int64, interp.Float32, interp.String:
			default:
				return nil, errorf(op, "Received input dtype: %s", tfTypeName(dt))
			}
		}
	}
	for _, dt := range a.RaggedSplitTypes {
		if dt != interp.Int32 && dt != interp.Int64 {
			return nil, errorf(op, "Invalid ragged_split_type: %s", tfTypeName(dt))
		}
	}

	// CheckInputShapes.
	ser, names := in.Serialized, in.Names
	if ser == nil || ser.DType() != interp.String {
		return nil, errorf(op, "serialized must be a string tensor, got %v", ser)
	}
	if a.Version == 2 {
		if ser.Rank() > 1 {
			return nil, errorf(op, "Expected serialized to be a scalar or vector, got shape: %s", shapeStr(ser.Shape()))
		}
	} else if ser.Rank() != 1 {
		return nil, errorf(op, "Expected serialized to be a vector, got shape: %s", shapeStr(ser.Shape()))
	}
	if names == nil || names.DType() != interp.String {
		return nil, errorf(op, "names must be a string tensor, got %v", names)
	}
	if names.Len() > 0 && !equalShape(names.Shape(), ser.Shape()) {
		return nil, errorf(op, "Expected names have the same shape as serialized: name.shape=%s, serialized.shape=%s",
			shapeStr(names.Shape()), shapeStr(ser.Shape()))
	}
	sparseKeys, err := exampleKeys(op, "sparse_keys", a.Version, in.SparseKeys)
	if err != nil {
		return nil, err
	}
	denseKeys, err := exampleKeys(op, "dense_keys", a.Version, in.DenseKeys)
	if err != nil {
		return nil, err
	}
	raggedKeys, err := exampleKeys(op, "ragged_keys", a.Version, in.RaggedKeys)
	if err != nil {
		return nil, err
	}
	if a.Version == 2 {
		switch {
		case int64(len(denseKeys)) != numDense:
			return nil, errorf(op, "Expected len(dense_keys) == len(dense_types) but got: %d vs. %d", len(denseKeys), numDense)
		case int64(len(sparseKeys)) != a.NumSparse:
			return nil, errorf(op, "Expected len(sparse_keys) == num_sparse but got: %d vs. %d", len(sparseKeys), a.NumSparse)
		case len(raggedKeys) != len(a.RaggedValueTypes):
			return nil, errorf(op, "Expected len(ragged_keys) == len(ragged_value_types) but got: %d vs. %d", len(raggedKeys), len(a.RaggedValueTypes))
		}
	} else if int64(len(sparseKeys)) != a.NumSparse || int64(len(denseKeys)) != numDense {
		return nil, errorf(op, "expects %d sparse and %d dense keys, got %d and %d", a.NumSparse, numDense, len(sparseKeys), len(denseKeys))
	}
	if int64(len(in.DenseDefaults)) != numDense {
		return nil, errorf(op, "Expected len(dense_defaults) == len(dense_keys) but got: %d vs. %d", len(in.DenseDefaults), numDense)
	}
	for d, def := range in.DenseDefaults {
		if def == nil {
			return nil, errorf(op, "dense_defaults[%d] is nil", d)
		}
		if varLen[d] {
			if def.Len() != 1 {
				return nil, errorf(op, "dense_shape[%d] is a variable length shape: %s, therefore def_value[%d] must contain a single element (the padding element).  But its shape is: %s",
					d, a.DenseShapes[d], d, shapeStr(def.Shape()))
			}
		} else if def.Len() > 0 && !equalShape(def.Shape(), a.DenseShapes[d].Dims) {
			return nil, errorf(op, "def_value[%d].shape() == %s is not compatible with dense_shapes_[%d] == %s",
				d, shapeStr(def.Shape()), d, a.DenseShapes[d])
		}
		if def.DType() != a.DenseTypes[d] {
			return nil, errorf(op, "dense_defaults[%d].dtype() == %s != dense_types_[%d] == %s",
				d, tfTypeName(def.DType()), d, tfTypeName(a.DenseTypes[d]))
		}
	}

	var feats []*exampleFeature
	seen := map[string]bool{}
	add := func(f *exampleFeature) error {
		if seen[f.key] {
			// TensorFlow's feature index cannot hold two features of one
			// key: it fails with an internal error.
			return errorf(op, "feature key %q is configured twice (TensorFlow: \"Could not avoid collision. This should not happen.\")", f.key)
		}
		seen[f.key] = true
		feats = append(feats, f)
		return nil
	}
	for d, k := range denseKeys {
		f := &exampleFeature{key: k, dtype: a.DenseTypes[d], shape: a.DenseShapes[d], def: in.DenseDefaults[d],
			varLen: varLen[d], stride: strides[d], kind: denseFeature, index: d, required: in.DenseDefaults[d].Len() == 0}
		if err := add(f); err != nil {
			return nil, err
		}
	}
	for d, k := range sparseKeys {
		if err := add(&exampleFeature{key: k, dtype: a.SparseTypes[d], kind: sparseFeature, index: d}); err != nil {
			return nil, err
		}
	}
	for d, k := range raggedKeys {
		if err := add(&exampleFeature{key: k, dtype: a.RaggedValueTypes[d], split: a.RaggedSplitTypes[d], kind: raggedFeature, index: d}); err != nil {
			return nil, err
		}
	}
	return feats, nil
}

// exampleKeys reads the keys of one kind: version 1 has a scalar string
// tensor per key, version 2 one string tensor of them all (or none given:
// no keys).
func exampleKeys(op, what string, version int, ts []*interp.Tensor) ([]string, error) {
	var keys []string
	for i, t := range ts {
		if t == nil || t.DType() != interp.String {
			return nil, errorf(op, "%s must be strings, got %v", what, t)
		}
		if version == 1 && t.Rank() != 0 {
			return nil, errorf(op, "%s[%d] must be a scalar, got shape %s", what, i, shapeStr(t.Shape()))
		}
		keys = append(keys, t.Strings()...)
	}
	if version == 2 && len(ts) > 1 {
		return nil, errorf(op, "%s must be one tensor, got %d", what, len(ts))
	}
	return keys, nil
}

// quoteSerialized quotes an example that does not parse for a message.
func quoteSerialized(s string) string {
	const max = 128
	cut := ""
	if len(s) > max {
		cut = fmt.Sprintf("... (%d bytes)", len(s))
		s = s[:max]
	}
	q := strconv.Quote(s)
	return q[1:len(q)-1] + cut
}

// values is the decoded list of one feature of one example.
type values struct {
	kind   tfexample.Kind
	bytes  []string
	floats []float32
	int64s []int64
}

func (v values) len() int {
	switch v.kind {
	case tfexample.BytesList:
		return len(v.bytes)
	case tfexample.FloatList:
		return len(v.floats)
	case tfexample.Int64List:
		return len(v.int64s)
	}
	return 0
}

// decodeAs decodes raw as the list of kind k.
func decodeAs(raw []byte, k tfexample.Kind) (values, error) {
	v := values{kind: k}
	var err error
	switch k {
	case tfexample.BytesList:
		v.bytes, err = tfexample.DecodeBytes(raw)
	case tfexample.FloatList:
		v.floats, err = tfexample.DecodeFloats(raw)
	case tfexample.Int64List:
		v.int64s, err = tfexample.DecodeInt64s(raw)
	}
	return v, err
}

// miniBatchStarts returns, for each example, the first example of the
// minibatch TensorFlow's FastParseExample gives it to (about 50000 bytes
// each, between min(8, batch) and 64 of them): its variable-length dense
// buffers, and so one of its messages, count from there.
func miniBatchStarts(ser []string) []int {
	const bytesPerMiniBatch = 50000
	n, acc := 0, 0
	for _, s := range ser {
		if acc == 0 {
			n++
		}
		acc += len(s) + 1
		if acc > bytesPerMiniBatch {
			acc = 0
		}
	}
	n = max(min(8, len(ser)), min(64, n))
	starts := make([]int, len(ser))
	for m := range n {
		lo, hi := len(ser)*m/n, len(ser)*(m+1)/n
		for e := lo; e < hi; e++ {
			starts[e] = lo
		}
	}
	return starts
}

func parseExampleBatch(op string, a ParseExampleAttrs, feats []*exampleFeature, in ParseExampleInputs) (*ParsedExamples, error) {
	ser := in.Serialized.Strings()
	batch := len(ser)
	names := in.Names.Strings()
	byKey := map[string]*exampleFeature{}
	for _, f := range feats {
		byKey[f.key] = f
	}
	// rows[f][e] is feature f of example e, in the order of feats.
	rows := make([][]values, len(feats))
	for i := range rows {
		rows[i] = make([]values, batch)
	}
	index := map[*exampleFeature]int{}
	for i, f := range feats {
		index[f] = i
	}
	starts := miniBatchStarts(ser)
	// varCount[f] counts the values of variable-length dense feature f
	// since the start of the current minibatch.
	varCount := make([]int, len(feats))
	for e, s := range ser {
		name := "<unknown>"
		if len(names) > 0 {
			name = names[e]
		}
		if starts[e] == e {
			clear(varCount)
		}
		entries, err := tfexample.Parse([]byte(s))
		if err != nil {
			return nil, errorf(op, "Could not parse example input, value: '%s'", quoteSerialized(s))
		}
		done := make([]bool, len(feats))
		for j := len(entries) - 1; j >= 0; j-- {
			en := entries[j]
			f, ok := byKey[en.Key]
			if !ok {
				continue
			}
			i := index[f]
			exErr := func(format string, args ...any) error {
				return errorf(op, "Name: %s, Key: %s, Index: %d.  "+format, append([]any{name, en.Key, e}, args...)...)
			}
			k, err := tfexample.KindOf(en.Value)
			if err != nil {
				return nil, exErr("Unsupported datatype.")
			}
			got := featureKind(k)
			if f.kind == denseFeature {
				if k == tfexample.None {
					continue
				}
				if done[i] {
					continue
				}
				done[i] = true
				if got != f.dtype {
					return nil, exErr("Data types don't match. Data type: %s but expected type: %s", tfTypeName(got), tfTypeName(f.dtype))
				}
				v, err := decodeAs(en.Value, k)
				if err != nil {
					return nil, exErr("Can't parse serialized Example.")
				}
				n := v.len()
				if !f.varLen {
					if k == tfexample.BytesList && int64(n) > f.stride {
						// The fast parser's bytes list fails once the
						// output row is full.
						return nil, exErr("Can't parse serialized Example.")
					}
					if int64(n) != f.stride {
						return nil, exErr("Number of %s values != expected.  Values size: %d but output shape: %s", valuesName(k), n, f.shape)
					}
				} else {
					varCount[i] += n
					if int64(varCount[i])%f.stride != 0 {
						return nil, exErr("Number of %s values is not a multiple of stride length. Saw %d values but output shape is: %s", valuesName(k), varCount[i], f.shape)
					}
				}
				rows[i][e] = v
				continue
			}
			// Sparse or ragged: the last occurrence wins, even empty.
			if done[i] {
				continue
			}
			done[i] = true
			if k == tfexample.None {
				continue
			}
			if got != f.dtype {
				return nil, exErr("Data types don't match. Expected type: %s, Actual type: %s", tfTypeName(f.dtype), tfTypeName(got))
			}
			v, err := decodeAs(en.Value, k)
			if err != nil {
				return nil, exErr("Can't parse serialized Example.")
			}
			rows[i][e] = v
		}
		for i, f := range feats {
			if f.kind == denseFeature && !f.varLen && !done[i] && f.required {
				return nil, errorf(op, "Name: %s, Feature: %s (data type: %s) is required but could not be found.", name, f.key, tfTypeName(f.dtype))
			}
		}
	}

	out := &ParsedExamples{
		SparseIndices: make([]*interp.Tensor, a.NumSparse), SparseValues: make([]*interp.Tensor, a.NumSparse),
		SparseShapes: make([]*interp.Tensor, a.NumSparse), DenseValues: make([]*interp.Tensor, len(a.DenseTypes)),
		RaggedValues: make([]*interp.Tensor, len(a.RaggedValueTypes)), RaggedRowSplits: make([]*interp.Tensor, len(a.RaggedValueTypes)),
	}
	for i, f := range feats {
		var err error
		switch {
		case f.kind == denseFeature && !f.varLen:
			out.DenseValues[f.index], err = fixedDense(op, f, rows[i])
		case f.kind == denseFeature:
			out.DenseValues[f.index], err = varLenDense(op, f, rows[i])
		case f.kind == sparseFeature:
			out.SparseIndices[f.index], out.SparseValues[f.index], out.SparseShapes[f.index], err = sparseRows(op, f, rows[i])
		default:
			out.RaggedValues[f.index], out.RaggedRowSplits[f.index], err = raggedRows(op, f, rows[i])
		}
		if err != nil {
			return nil, err
		}
	}
	return out, nil
}

func valuesName(k tfexample.Kind) string {
	switch k {
	case tfexample.BytesList:
		return "bytes"
	case tfexample.FloatList:
		return "float"
	}
	return "int64"
}

// flatValues concatenates the rows' values into a backing slice of dtype
// dt, each row padded to width elements with pad's first element (width
// < 0: no padding).
func flatValues(op string, dt interp.DType, rows []values, width int64, pad *interp.Tensor, shape []int64) (*interp.Tensor, error) {
	n, err := numElements(op, shape)
	if err != nil {
		return nil, err
	}
	buf, err := interp.MakeSlice(dt, n)
	if err != nil {
		return nil, errorf(op, "%v", err)
	}
	switch b := buf.(type) {
	case []string:
		fillRows(b, rows, width, pad, func(v values) []string { return v.bytes })
	case []float32:
		fillRows(b, rows, width, pad, func(v values) []float32 { return v.floats })
	case []int64:
		fillRows(b, rows, width, pad, func(v values) []int64 { return v.int64s })
	}
	return interp.FromSlice(shape, buf)
}

func fillRows[T interp.Elem](b []T, rows []values, width int64, pad *interp.Tensor, list func(values) []T) {
	if width < 0 {
		at := 0
		for _, r := range rows {
			at += copy(b[at:], list(r))
		}
		return
	}
	if pad != nil {
		p, _ := interp.Values[T](pad)
		for i := range b {
			b[i] = p[0]
		}
	}
	for e, r := range rows {
		copy(b[int64(e)*width:], list(r))
	}
}

// fixedDense assembles a fixed-shape dense feature: each example's values,
// or the default where it lacks them.
func fixedDense(op string, f *exampleFeature, rows []values) (*interp.Tensor, error) {
	shape := append([]int64{int64(len(rows))}, f.shape.Dims...)
	for e := range rows {
		if rows[e].kind == tfexample.None {
			rows[e] = defaultValues(f.def)
		}
	}
	return flatValues(op, f.dtype, rows, f.stride, nil, shape)
}

// defaultValues views a dense default as a row.
func defaultValues(def *interp.Tensor) values {
	switch def.DType() {
	case interp.String:
		return values{kind: tfexample.BytesList, bytes: def.Strings()}
	case interp.Float32:
		return values{kind: tfexample.FloatList, floats: def.Float32s()}
	}
	return values{kind: tfexample.Int64List, int64s: def.Int64s()}
}

// varLenDense assembles a variable-length dense feature: [batch, the most
// rows, inner dims...], padded with the default.
func varLenDense(op string, f *exampleFeature, rows []values) (*interp.Tensor, error) {
	most := 0
	for _, r := range rows {
		most = max(most, r.len())
	}
	shape := append([]int64{int64(len(rows)), int64(most) / f.stride}, f.shape.Dims[1:]...)
	return flatValues(op, f.dtype, rows, int64(most), f.def, shape)
}

// sparseRows assembles a sparse feature: indices [N, 2], values [N],
// dense_shape [batch, the longest row].
func sparseRows(op string, f *exampleFeature, rows []values) (ix, vals, shape *interp.Tensor, err error) {
	total, most := 0, 0
	for _, r := range rows {
		total += r.len()
		most = max(most, r.len())
	}
	if vals, err = flatValues(op, f.dtype, rows, -1, nil, []int64{int64(total)}); err != nil {
		return nil, nil, nil, err
	}
	if _, err := numElements(op, []int64{int64(total), 2}); err != nil {
		return nil, nil, nil, err
	}
	idx := make([]int64, 0, 2*total)
	for e, r := range rows {
		for j := range r.len() {
			idx = append(idx, int64(e), int64(j))
		}
	}
	if ix, err = interp.New([]int64{int64(total), 2}, idx); err != nil {
		return nil, nil, nil, err
	}
	return ix, vals, interp.Vector(int64(len(rows)), int64(most)), nil
}

// raggedRows assembles a ragged feature: values [N] and row splits
// [batch + 1].
func raggedRows(op string, f *exampleFeature, rows []values) (vals, splits *interp.Tensor, err error) {
	total := 0
	sp := make([]int64, 0, len(rows)+1)
	sp = append(sp, 0)
	for _, r := range rows {
		total += r.len()
		sp = append(sp, int64(total))
	}
	if vals, err = flatValues(op, f.dtype, rows, -1, nil, []int64{int64(total)}); err != nil {
		return nil, nil, err
	}
	if splits, err = newInts(op, f.split, []int64{int64(len(sp))}, sp); err != nil {
		return nil, nil, err
	}
	return vals, splits, nil
}

// parseSingleExample parses one example (ParseExampleV2 of a scalar), with
// the rules and messages of TensorFlow's FastParseSingleExample: outputs
// without a batch dimension, an empty feature counting as missing for
// every kind.
func parseSingleExample(op string, a ParseExampleAttrs, feats []*exampleFeature, s string) (*ParsedExamples, error) {
	entries, err := tfexample.Parse([]byte(s))
	if err != nil {
		return nil, errorf(op, "Could not parse example input, value: '%s'", quoteSerialized(s))
	}
	byKey := map[string]int{}
	for i, f := range feats {
		byKey[f.key] = i
	}
	got := make([]values, len(feats))
	done := make([]bool, len(feats))
	for j := len(entries) - 1; j >= 0; j-- {
		en := entries[j]
		i, ok := byKey[en.Key]
		if !ok {
			continue
		}
		f := feats[i]
		keyErr := func(format string, args ...any) error {
			return errorf(op, "Key: %s.  "+format, append([]any{en.Key}, args...)...)
		}
		k, err := tfexample.KindOf(en.Value)
		if err != nil {
			return nil, keyErr("Unsupported datatype.")
		}
		if k == tfexample.None || done[i] {
			continue
		}
		done[i] = true
		dt := featureKind(k)
		if dt != f.dtype {
			if f.kind == denseFeature {
				return nil, keyErr("Data types don't match. Data type: %s but expected type: %s", tfTypeName(dt), tfTypeName(f.dtype))
			}
			return nil, keyErr("Data types don't match. Expected type: %s, Actual type: %s", tfTypeName(f.dtype), tfTypeName(dt))
		}
		v, err := decodeAs(en.Value, k)
		if err != nil {
			if k == tfexample.BytesList && (f.kind != denseFeature || f.varLen) {
				return nil, keyErr("Can't parse serialized Example: Could not get num elements in bytes_list.")
			}
			return nil, keyErr("Can't parse serialized Example: Parsing %s failed.", k)
		}
		n := int64(v.len())
		if f.kind == denseFeature && !f.varLen {
			if n != f.stride {
				if k == tfexample.BytesList && n > f.stride {
					return nil, keyErr("Can't parse serialized Example: Parsing %s failed.", k)
				}
				return nil, keyErr("Can't parse serialized Example: Some %s slice was not parsed.", k)
			}
		} else if f.kind == denseFeature && n%f.stride != 0 {
			return nil, errorf(op, "Error while parsing feature with key %s: number of elements should be divisible by %d, found %d instead", en.Key, f.stride, n)
		}
		got[i] = v
	}

	out := &ParsedExamples{
		SparseIndices: make([]*interp.Tensor, a.NumSparse), SparseValues: make([]*interp.Tensor, a.NumSparse),
		SparseShapes: make([]*interp.Tensor, a.NumSparse), DenseValues: make([]*interp.Tensor, len(a.DenseTypes)),
		RaggedValues: make([]*interp.Tensor, len(a.RaggedValueTypes)), RaggedRowSplits: make([]*interp.Tensor, len(a.RaggedValueTypes)),
	}
	for i, f := range feats {
		v, n := got[i], int64(got[i].len())
		row := []values{v}
		var err error
		switch f.kind {
		case denseFeature:
			switch {
			case !f.varLen && v.kind == tfexample.None:
				if f.required {
					return nil, errorf(op, "Feature: %s (data type: %s) is required but could not be found.", f.key, tfTypeName(f.dtype))
				}
				out.DenseValues[f.index] = f.def
			case !f.varLen:
				out.DenseValues[f.index], err = flatValues(op, f.dtype, row, -1, nil, f.shape.Dims)
			default:
				shape := append([]int64{n / f.stride}, f.shape.Dims[1:]...)
				out.DenseValues[f.index], err = flatValues(op, f.dtype, row, -1, nil, shape)
			}
		case sparseFeature:
			if out.SparseValues[f.index], err = flatValues(op, f.dtype, row, -1, nil, []int64{n}); err != nil {
				break
			}
			idx := make([]int64, n)
			for j := range idx {
				idx[j] = int64(j)
			}
			out.SparseIndices[f.index], err = interp.New([]int64{n, 1}, idx)
			out.SparseShapes[f.index] = interp.Vector(n)
		default:
			if out.RaggedValues[f.index], err = flatValues(op, f.dtype, row, -1, nil, []int64{n}); err != nil {
				break
			}
			out.RaggedRowSplits[f.index], err = interp.Zeros(f.split, []int64{0})
		}
		if err != nil {
			return nil, err
		}
	}
	return out, nil
}
