package tfops

import (
	"fmt"
	"strings"
	"testing"

	"github.com/recom-compiler/recom/interp"
	ex "github.com/recom-compiler/recom/interp/tfexample"
)

func scalars(keys ...string) []*interp.Tensor {
	out := make([]*interp.Tensor, len(keys))
	for i, k := range keys {
		out[i] = sc(k)
	}
	return out
}

// batchOf is a vector of serialized examples.
func batchOf(exs ...[]byte) *interp.Tensor {
	s := make([]string, len(exs))
	for i, e := range exs {
		s[i] = string(e)
	}
	return tn(sh(int64(len(s))), s...)
}

// baseParse is a ParseExample (v1) of a sparse int64 "s", a dense int64
// "age" [1] defaulting to -1, a required dense float "emb" [2] and a
// variable-length dense string "tok" padded with "".
func baseParse(serialized *interp.Tensor) (ParseExampleAttrs, ParseExampleInputs) {
	return ParseExampleAttrs{
			Version: 1, NumSparse: 1, NumDense: 3,
			SparseTypes: []interp.DType{interp.Int64},
			DenseTypes:  []interp.DType{interp.Int64, interp.Float32, interp.String},
			DenseShapes: []PartialShape{{Dims: sh(1)}, {Dims: sh(2)}, {Dims: sh(-1)}},
		}, ParseExampleInputs{
			Serialized: serialized, Names: tn[string](sh(0)),
			SparseKeys:    scalars("s"),
			DenseKeys:     scalars("age", "emb", "tok"),
			DenseDefaults: []*interp.Tensor{vec[int64](-1), tn[float32](sh(0)), sc("")},
		}
}

// outputs lists every output tensor by its name.
func outputs(p *ParsedExamples) map[string]*interp.Tensor {
	m := map[string]*interp.Tensor{}
	for i := range p.SparseIndices {
		m[fmt.Sprintf("sparse_indices:%d", i)] = p.SparseIndices[i]
		m[fmt.Sprintf("sparse_values:%d", i)] = p.SparseValues[i]
		m[fmt.Sprintf("sparse_shapes:%d", i)] = p.SparseShapes[i]
	}
	for i, t := range p.DenseValues {
		m[fmt.Sprintf("dense:%d", i)] = t
	}
	for i := range p.RaggedValues {
		m[fmt.Sprintf("ragged_values:%d", i)] = p.RaggedValues[i]
		m[fmt.Sprintf("ragged_splits:%d", i)] = p.RaggedRowSplits[i]
	}
	return m
}

func TestParseExample(t *testing.T) {
	e0 := ex.Example{ex.Pair("s", ex.Int64s(1, 2)), ex.Pair("age", ex.Int64s(30)), ex.Pair("emb", ex.Floats(0.5, 1.5)), ex.Pair("tok", ex.Bytes("a", "b")), ex.Pair("other", ex.Floats(9))}
	e1 := ex.Example{ex.Pair("emb", ex.Floats(2, 3)), ex.Pair("tok", ex.Bytes("c"))}
	e2 := ex.Example{ex.Pair("s", ex.Int64s(7)), ex.Pair("age", ex.Int64s(40)), ex.Pair("emb", ex.Floats(4, 5))}
	want := map[string]*interp.Tensor{
		"sparse_indices:0": tn(sh(3, 2), int64(0), 0, 0, 1, 2, 0),
		"sparse_values:0":  vec[int64](1, 2, 7),
		"sparse_shapes:0":  vec[int64](3, 2),
		"dense:0":          tn(sh(3, 1), int64(30), -1, 40),
		"dense:1":          tn(sh(3, 2), float32(0.5), 1.5, 2, 3, 4, 5),
		"dense:2":          tn(sh(3, 2), "a", "b", "c", "", "", ""),
	}
	type mod func(a *ParseExampleAttrs, in *ParseExampleInputs)
	for _, c := range []struct {
		name string
		ser  *interp.Tensor
		mod  mod
		want map[string]*interp.Tensor // only these outputs are compared
		err  string
	}{
		{"batch", batchOf(e0.Marshal(), e1.Marshal(), e2.Marshal()), nil, want, ""},
		{"unpacked lists parse the same", batchOf(ex.MarshalOptions{Unpacked: true}.Marshal(e0), e1.Marshal(),
			ex.MarshalOptions{Unpacked: true}.Marshal(e2)), nil, want, ""},
		{"empty batch", batchOf(), nil, map[string]*interp.Tensor{
			"sparse_indices:0": tn[int64](sh(0, 2)), "sparse_values:0": tn[int64](sh(0)), "sparse_shapes:0": vec[int64](0, 0),
			"dense:0": tn[int64](sh(0, 1)), "dense:1": tn[float32](sh(0, 2)), "dense:2": tn[string](sh(0, 0))}, ""},
		{"default and padding when missing", batchOf(ex.Example{ex.Pair("emb", ex.Floats(1, 2))}.Marshal()), nil, map[string]*interp.Tensor{
			"sparse_indices:0": tn[int64](sh(0, 2)), "sparse_shapes:0": vec[int64](1, 0),
			"dense:0": tn(sh(1, 1), int64(-1)), "dense:2": tn[string](sh(1, 0))}, ""},
		{"duplicate key: the last wins", batchOf(ex.Example{ex.Pair("age", ex.Int64s(1)), ex.Pair("emb", ex.Floats(1, 2)), ex.Pair("s", ex.Int64s(5)),
			ex.Pair("age", ex.Int64s(2)), ex.Pair("s", ex.Int64s(6, 6))}.Marshal()), nil, map[string]*interp.Tensor{
			"dense:0": tn(sh(1, 1), int64(2)), "sparse_values:0": vec[int64](6, 6)}, ""},
		{"duplicate dense key: an empty last feature does not count", batchOf(ex.Example{ex.Pair("age", ex.Int64s(1)), ex.Pair("emb", ex.Floats(1, 2)),
			ex.Pair("age", ex.Feature{})}.Marshal()), nil, map[string]*interp.Tensor{"dense:0": tn(sh(1, 1), int64(1))}, ""},
		{"duplicate sparse key: an empty last feature wins", batchOf(ex.Example{ex.Pair("s", ex.Int64s(1)), ex.Pair("emb", ex.Floats(1, 2)),
			ex.Pair("s", ex.Feature{})}.Marshal()), nil, map[string]*interp.Tensor{"sparse_values:0": tn[int64](sh(0))}, ""},
		{"concatenated examples merge", batchOf(append(ex.Example{ex.Pair("age", ex.Int64s(3))}.Marshal(), ex.Example{ex.Pair("emb", ex.Floats(1, 2))}.Marshal()...)),
			nil, map[string]*interp.Tensor{"dense:0": tn(sh(1, 1), int64(3)), "dense:1": tn(sh(1, 2), float32(1), 2)}, ""},
		{"an empty feature is missing", batchOf(ex.Example{ex.Pair("emb", ex.Floats(1, 2)), ex.Pair("age", ex.Feature{})}.Marshal()), nil,
			map[string]*interp.Tensor{"dense:0": tn(sh(1, 1), int64(-1))}, ""},
		{"values of unasked keys are not decoded", batchOf(ex.Example{ex.Pair("emb", ex.Floats(1, 2)), ex.Pair("zz", ex.Feature{})}.Marshal(),
			append(ex.Example{ex.Pair("emb", ex.Floats(1, 2))}.Marshal(), "\x0a\x09\x0a\x07\x0a\x01x\x12\x02\x22\x00"...)), nil,
			map[string]*interp.Tensor{"dense:1": tn(sh(2, 2), float32(1), 2, 1, 2)}, ""},
		{"negative and large int64", batchOf(ex.Example{ex.Pair("emb", ex.Floats(1, 2)), ex.Pair("s", ex.Int64s(-1, -1<<63, 1<<62))}.Marshal()), nil,
			map[string]*interp.Tensor{"sparse_values:0": vec[int64](-1, -1<<63, 1<<62)}, ""},

		// Errors.
		{"required feature missing", batchOf(e0.Marshal(), ex.Example{ex.Pair("age", ex.Int64s(1))}.Marshal()), nil, nil,
			"Name: <unknown>, Feature: emb (data type: float) is required but could not be found."},
		{"required feature missing, named", batchOf(e0.Marshal(), ex.Example{}.Marshal()),
			func(a *ParseExampleAttrs, in *ParseExampleInputs) { in.Names = vec("first", "second") }, nil,
			"Name: second, Feature: emb (data type: float) is required but could not be found."},
		{"dense of the wrong type", batchOf(ex.Example{ex.Pair("emb", ex.Floats(1, 2)), ex.Pair("age", ex.Floats(1))}.Marshal()), nil, nil,
			"Name: <unknown>, Key: age, Index: 0.  Data types don't match. Data type: float but expected type: int64"},
		{"sparse of the wrong type", batchOf(ex.Example{ex.Pair("emb", ex.Floats(1, 2)), ex.Pair("s", ex.Bytes("x"))}.Marshal()), nil, nil,
			"Name: <unknown>, Key: s, Index: 0.  Data types don't match. Expected type: int64, Actual type: string"},
		{"dense of the wrong size", batchOf(e0.Marshal(), ex.Example{ex.Pair("emb", ex.Floats(1, 2, 3))}.Marshal()), nil, nil,
			"Name: <unknown>, Key: emb, Index: 1.  Number of float values != expected.  Values size: 3 but output shape: [2]"},
		{"string dense, too many", batchOf(ex.Example{ex.Pair("emb", ex.Floats(1, 2)), ex.Pair("w", ex.Bytes("a", "b"))}.Marshal()),
			func(a *ParseExampleAttrs, in *ParseExampleInputs) {
				a.NumDense, a.DenseTypes, a.DenseShapes = 2, a.DenseTypes[1:3], []PartialShape{{Dims: sh(2)}, {Dims: sh(1)}}
				in.DenseKeys, in.DenseDefaults = scalars("emb", "w"), []*interp.Tensor{tn[float32](sh(0)), vec("d")}
			}, nil, "Key: w, Index: 0.  Can't parse serialized Example."},
		{"string dense, too few", batchOf(ex.Example{ex.Pair("emb", ex.Floats(1, 2)), ex.Pair("w", ex.Bytes())}.Marshal()),
			func(a *ParseExampleAttrs, in *ParseExampleInputs) {
				a.NumDense, a.DenseTypes, a.DenseShapes = 2, a.DenseTypes[1:3], []PartialShape{{Dims: sh(2)}, {Dims: sh(1)}}
				in.DenseKeys, in.DenseDefaults = scalars("emb", "w"), []*interp.Tensor{tn[float32](sh(0)), vec("d")}
			}, nil, "Key: w, Index: 0.  Number of bytes values != expected.  Values size: 0 but output shape: [1]"},
		{"variable length, not a multiple of the stride", batchOf(ex.Example{ex.Pair("emb", ex.Floats(1, 2)), ex.Pair("tok", ex.Bytes("a", "b", "c"))}.Marshal()),
			func(a *ParseExampleAttrs, in *ParseExampleInputs) { a.DenseShapes[2] = PartialShape{Dims: sh(-1, 2)} }, nil,
			"Key: tok, Index: 0.  Number of bytes values is not a multiple of stride length. Saw 3 values but output shape is: [?,2]"},
		{"does not parse", batchOf([]byte("\xff\x01")), nil, nil, `Could not parse example input, value: '\xff\x01'`},
		{"feature of no list kind", batchOf(append(ex.Example{ex.Pair("emb", ex.Floats(1, 2))}.Marshal(), "\x0a\x09\x0a\x07\x0a\x01s\x12\x02\x22\x00"...)),
			nil, nil, "Key: s, Index: 0.  Unsupported datatype."},
		{"malformed list", batchOf(append(ex.Example{ex.Pair("emb", ex.Floats(1, 2))}.Marshal(), "\x0a\x09\x0a\x07\x0a\x01s\x12\x02\x1a\x05"...)),
			nil, nil, "Key: s, Index: 0.  Can't parse serialized Example."},
		{"scalar serialized in version 1", sc(string(e0.Marshal())), nil, nil, "Expected serialized to be a vector, got shape: []"},
		{"names of another shape", batchOf(e0.Marshal()), func(a *ParseExampleAttrs, in *ParseExampleInputs) { in.Names = vec("a", "b") }, nil,
			"Expected names have the same shape as serialized: name.shape=[2], serialized.shape=[1]"},
		{"default of the wrong shape", batchOf(), func(a *ParseExampleAttrs, in *ParseExampleInputs) { in.DenseDefaults[0] = vec[int64](1, 2) }, nil,
			"def_value[0].shape() == [2] is not compatible with dense_shapes_[0] == [1]"},
		{"default of the wrong dtype", batchOf(), func(a *ParseExampleAttrs, in *ParseExampleInputs) { in.DenseDefaults[0] = vec[float32](1) }, nil,
			"dense_defaults[0].dtype() == float != dense_types_[0] == int64"},
		{"variable-length default of two elements", batchOf(), func(a *ParseExampleAttrs, in *ParseExampleInputs) { in.DenseDefaults[2] = vec("a", "b") }, nil,
			"dense_shape[2] is a variable length shape: [?], therefore def_value[2] must contain a single element (the padding element).  But its shape is: [2]"},
		{"unsupported type", batchOf(), func(a *ParseExampleAttrs, in *ParseExampleInputs) { a.SparseTypes[0] = interp.Int32 }, nil,
			"Received input dtype: int32"},
		{"unknown inner dimension", batchOf(), func(a *ParseExampleAttrs, in *ParseExampleInputs) { a.DenseShapes[1] = PartialShape{Dims: sh(2, -1)} }, nil,
			"dense_shapes[1] has unknown rank or unknown inner dimensions: [2,?]"},
		{"unknown rank", batchOf(), func(a *ParseExampleAttrs, in *ParseExampleInputs) { a.DenseShapes[1] = PartialShape{UnknownRank: true} }, nil,
			"dense_shapes[1] has unknown rank or unknown inner dimensions: <unknown>"},
		{"a key twice", batchOf(), func(a *ParseExampleAttrs, in *ParseExampleInputs) { in.SparseKeys = scalars("age") }, nil,
			`feature key "age" is configured twice`},
		{"counts disagree", batchOf(), func(a *ParseExampleAttrs, in *ParseExampleInputs) { a.NumSparse = 2 }, nil,
			"len(sparse_keys) != len(sparse_types)"},
		{"dense shape too large", batchOf(), func(a *ParseExampleAttrs, in *ParseExampleInputs) {
			a.DenseShapes[0] = PartialShape{Dims: sh(1<<20, 1<<20)}
		}, nil,
			"too large to materialise"},
	} {
		t.Run(c.name, func(t *testing.T) {
			a, in := baseParse(c.ser)
			if c.mod != nil {
				c.mod(&a, &in)
			}
			got, err := ParseExample(a, in)
			if c.err != "" {
				if err == nil || !strings.Contains(err.Error(), c.err) {
					t.Fatalf("got error %v, want one containing %q", err, c.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			outs := outputs(got)
			for name, w := range c.want {
				if e := outs[name].Equal(w); e != nil {
					t.Errorf("%s: %v: got %v", name, e, outs[name])
				}
			}
		})
	}
}

// TestParseExampleV2 covers the ragged features and the scalar input of
// ParseExampleV2.
func TestParseExampleV2(t *testing.T) {
	attrs := func() ParseExampleAttrs {
		return ParseExampleAttrs{
			Version: 2, NumSparse: 1,
			SparseTypes:      []interp.DType{interp.String},
			DenseTypes:       []interp.DType{interp.Int64, interp.Float32},
			DenseShapes:      []PartialShape{{Dims: sh(2)}, {Dims: sh(-1, 2)}},
			RaggedValueTypes: []interp.DType{interp.Float32},
			RaggedSplitTypes: []interp.DType{interp.Int32},
		}
	}
	inputs := func(ser *interp.Tensor) ParseExampleInputs {
		return ParseExampleInputs{
			Serialized: ser, Names: tn[string](sh(0)),
			SparseKeys: []*interp.Tensor{vec("s")}, DenseKeys: []*interp.Tensor{vec("d", "v")}, RaggedKeys: []*interp.Tensor{vec("r")},
			DenseDefaults: []*interp.Tensor{tn[int64](sh(0)), sc[float32](-1)},
		}
	}
	e0 := ex.Example{ex.Pair("d", ex.Int64s(1, 2)), ex.Pair("r", ex.Floats(1, 2)), ex.Pair("s", ex.Bytes("x")), ex.Pair("v", ex.Floats(1, 2, 3, 4))}
	e1 := ex.Example{ex.Pair("d", ex.Int64s(3, 4))}
	e2 := ex.Example{ex.Pair("d", ex.Int64s(5, 6)), ex.Pair("r", ex.Floats(3)), ex.Pair("v", ex.Floats(5, 6))}
	for _, c := range []struct {
		name string
		ser  *interp.Tensor
		mod  func(a *ParseExampleAttrs, in *ParseExampleInputs)
		want map[string]*interp.Tensor
		err  string
	}{
		{"batch", batchOf(e0.Marshal(), e1.Marshal(), e2.Marshal()), nil, map[string]*interp.Tensor{
			"sparse_indices:0": tn(sh(1, 2), int64(0), 0), "sparse_values:0": vec("x"), "sparse_shapes:0": vec[int64](3, 1),
			"dense:0":         tn(sh(3, 2), int64(1), 2, 3, 4, 5, 6),
			"dense:1":         tn(sh(3, 2, 2), float32(1), 2, 3, 4, -1, -1, -1, -1, 5, 6, -1, -1),
			"ragged_values:0": vec[float32](1, 2, 3), "ragged_splits:0": vec[int32](0, 2, 2, 3)}, ""},
		{"empty batch", batchOf(), nil, map[string]*interp.Tensor{
			"dense:0": tn[int64](sh(0, 2)), "dense:1": tn[float32](sh(0, 0, 2)),
			"ragged_values:0": tn[float32](sh(0)), "ragged_splits:0": vec[int32](0)}, ""},
		{"int64 splits", batchOf(e1.Marshal()), func(a *ParseExampleAttrs, in *ParseExampleInputs) { a.RaggedSplitTypes[0] = interp.Int64 },
			map[string]*interp.Tensor{"ragged_splits:0": vec[int64](0, 0)}, ""},
		{"scalar", sc(string(e0.Marshal())), nil, map[string]*interp.Tensor{
			"sparse_indices:0": tn(sh(1, 1), int64(0)), "sparse_values:0": vec("x"), "sparse_shapes:0": vec[int64](1),
			"dense:0": vec[int64](1, 2), "dense:1": tn(sh(2, 2), float32(1), 2, 3, 4),
			"ragged_values:0": vec[float32](1, 2), "ragged_splits:0": tn[int32](sh(0))}, ""},
		{"scalar, features missing", sc(string(e1.Marshal())), nil, map[string]*interp.Tensor{
			"sparse_indices:0": tn[int64](sh(0, 1)), "sparse_values:0": tn[string](sh(0)), "sparse_shapes:0": vec[int64](0),
			"dense:1": tn[float32](sh(0, 2)), "ragged_values:0": tn[float32](sh(0))}, ""},
		{"scalar, default", sc(string(ex.Example{}.Marshal())), func(a *ParseExampleAttrs, in *ParseExampleInputs) { in.DenseDefaults[0] = vec[int64](7, 8) },
			map[string]*interp.Tensor{"dense:0": vec[int64](7, 8)}, ""},
		{"scalar, required missing", sc(string(ex.Example{}.Marshal())), nil, nil,
			"Feature: d (data type: int64) is required but could not be found."},
		{"scalar, wrong size", sc(string(ex.Example{ex.Pair("d", ex.Int64s(1))}.Marshal())), nil, nil,
			"Key: d.  Can't parse serialized Example: Some int64_list slice was not parsed."},
		{"scalar, wrong type", sc(string(ex.Example{ex.Pair("r", ex.Int64s(1))}.Marshal())), nil, nil,
			"Key: r.  Data types don't match. Expected type: float, Actual type: int64"},
		{"scalar, not a multiple of the stride", sc(string(ex.Example{ex.Pair("d", ex.Int64s(1, 2)), ex.Pair("v", ex.Floats(1))}.Marshal())), nil, nil,
			"Error while parsing feature with key v: number of elements should be divisible by 2, found 1 instead"},
		{"ragged of the wrong type", batchOf(ex.Example{ex.Pair("d", ex.Int64s(1, 2)), ex.Pair("r", ex.Bytes("a"))}.Marshal()), nil, nil,
			"Key: r, Index: 0.  Data types don't match. Expected type: float, Actual type: string"},
		{"serialized of rank 2", tn(sh(1, 1), string(e0.Marshal())), nil, nil, "Expected serialized to be a scalar or vector, got shape: [1,1]"},
		{"dense keys and types disagree", batchOf(), func(a *ParseExampleAttrs, in *ParseExampleInputs) { in.DenseKeys = []*interp.Tensor{vec("d")} }, nil,
			"Expected len(dense_keys) == len(dense_types) but got: 1 vs. 2"},
		{"ragged keys and types disagree", batchOf(), func(a *ParseExampleAttrs, in *ParseExampleInputs) { in.RaggedKeys = []*interp.Tensor{vec("r", "q")} }, nil,
			"Expected len(ragged_keys) == len(ragged_value_types) but got: 2 vs. 1"},
		{"bad split type", batchOf(), func(a *ParseExampleAttrs, in *ParseExampleInputs) { a.RaggedSplitTypes[0] = interp.Float32 }, nil,
			"Invalid ragged_split_type: float"},
	} {
		t.Run(c.name, func(t *testing.T) {
			a, in := attrs(), inputs(c.ser)
			if c.mod != nil {
				c.mod(&a, &in)
			}
			got, err := ParseExample(a, in)
			if c.err != "" {
				if err == nil || !strings.Contains(err.Error(), c.err) {
					t.Fatalf("got error %v, want one containing %q", err, c.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			outs := outputs(got)
			for name, w := range c.want {
				if e := outs[name].Equal(w); e != nil {
					t.Errorf("%s: %v: got %v", name, e, outs[name])
				}
			}
		})
	}
}

// TestParseExampleLimits checks that the padded output of a
// variable-length feature is refused above interp.MaxElements before it is
// allocated.
func TestParseExampleLimits(t *testing.T) {
	defer func(n int64) { interp.MaxElements = n }(interp.MaxElements)
	interp.MaxElements = 8
	long := ex.Example{ex.Pair("emb", ex.Floats(1, 2)), ex.Pair("tok", ex.Bytes("a", "b", "c", "d"))}.Marshal()
	short := ex.Example{ex.Pair("emb", ex.Floats(1, 2))}.Marshal()
	a, in := baseParse(batchOf(long, short, short))
	_, err := ParseExample(a, in)
	if err == nil || !strings.Contains(err.Error(), "too large to materialise: more than 8 elements") {
		t.Errorf("got %v, want the limit's error", err)
	}
	a, in = baseParse(batchOf(long, short))
	if _, err := ParseExample(a, in); err != nil {
		t.Errorf("8 elements: %v", err)
	}
}

// TestMiniBatchStarts pins TensorFlow's split of a batch into minibatches.
func TestMiniBatchStarts(t *testing.T) {
	// 10 small examples: one minibatch by bytes, but at least min(8, 10):
	// minibatch m holds the examples from 10m/8 to 10(m+1)/8.
	if got, want := fmt.Sprint(miniBatchStarts(make([]string, 10))), "[0 1 2 3 3 5 6 7 8 8]"; got != want {
		t.Errorf("10 small examples: %s, want %s", got, want)
	}
	// Examples of 49999 bytes (50000 with the +1): two fill a minibatch.
	two := make([]string, 6)
	for i := range two {
		two[i] = strings.Repeat("x", 49999)
	}
	if got, want := fmt.Sprint(miniBatchStarts(two)), "[0 1 2 3 4 5]"; got != want {
		// 3 by bytes, at least min(8, 6) = 6.
		t.Errorf("6 big examples: %s, want %s", got, want)
	}
	big := make([]string, 100)
	for i := range big {
		big[i] = strings.Repeat("x", 50000) // one example is a minibatch
	}
	got := miniBatchStarts(big) // 100 by bytes, at most 64: from 100m/64
	if got[0] != 0 || got[1] != 1 || got[2] != 1 || got[3] != 3 || got[99] != 98 {
		t.Errorf("100 big examples: %v", got)
	}
	if got := miniBatchStarts(nil); len(got) != 0 {
		t.Errorf("no examples: %v", got)
	}
}
