package ckptwrite

import (
	"fmt"
	"strings"

	"github.com/recom-compiler/recom/frontend/graphdef"
	"github.com/recom-compiler/recom/frontend/graphdef/tfpb"
	"github.com/recom-compiler/recom/interp"
)

// The tiny model is a SavedModel as TensorFlow 1 exports one, for the tests
// of the tools that read a model's weights: a vocabulary file (an asset)
// maps words to ids, the ids gather rows of an embedding table partitioned
// in two (emb/part_0 and emb/part_1, one partitioned checkpoint tensor
// "emb"), and a dense layer (a resource variable w, a reference variable b)
// gives y = emb[id] · w + b (b read through an Identity, as tf.Variable
// reads). Its saver restores every variable through
// one RestoreV2, global_step included, which y does not use.
//
//	words (string) -> LookupTableFindV2(vocab, default 0) -> GatherV2(concat(emb parts)) -> MatMul(w) -> BiasAdd(b) = y

// TinyVocab is the tiny model's vocabulary file: word i is id i.
const TinyVocab = "pad\napple\nbanana\ncherry\ndate\nelder\n"

// TinyGraph is the tiny model's GraphDef (text format).
const TinyGraph = `
node { name: "words" op: "Placeholder" attr { key: "dtype" value { type: DT_STRING } } attr { key: "shape" value { shape { dim { size: -1 } } } } }
node { name: "asset_path" op: "Const" attr { key: "dtype" value { type: DT_STRING } } attr { key: "value" value { tensor { dtype: DT_STRING tensor_shape { } string_val: "vocab.txt" } } } }
node { name: "vocab" op: "HashTableV2" attr { key: "key_dtype" value { type: DT_STRING } } attr { key: "value_dtype" value { type: DT_INT64 } } attr { key: "shared_name" value { s: "" } } attr { key: "container" value { s: "" } } attr { key: "use_node_name_sharing" value { b: false } } }
node { name: "vocab/init" op: "InitializeTableFromTextFileV2" input: "vocab" input: "asset_path" attr { key: "key_index" value { i: -2 } } attr { key: "value_index" value { i: -1 } } attr { key: "vocab_size" value { i: -1 } } attr { key: "delimiter" value { s: "\t" } } }
node { name: "init_all_tables" op: "NoOp" input: "^vocab/init" }
node { name: "default_id" op: "Const" attr { key: "dtype" value { type: DT_INT64 } } attr { key: "value" value { tensor { dtype: DT_INT64 tensor_shape { } int64_val: 0 } } } }
node { name: "ids" op: "LookupTableFindV2" input: "vocab" input: "words" input: "default_id" attr { key: "Tin" value { type: DT_STRING } } attr { key: "Tout" value { type: DT_INT64 } } }
node { name: "emb/part_0" op: "VariableV2" attr { key: "dtype" value { type: DT_FLOAT } } attr { key: "shape" value { shape { dim { size: 3 } dim { size: 4 } } } } attr { key: "container" value { s: "" } } attr { key: "shared_name" value { s: "" } } }
node { name: "emb/part_1" op: "VariableV2" attr { key: "dtype" value { type: DT_FLOAT } } attr { key: "shape" value { shape { dim { size: 3 } dim { size: 4 } } } } attr { key: "container" value { s: "" } } attr { key: "shared_name" value { s: "" } } }
node { name: "axis0" op: "Const" attr { key: "dtype" value { type: DT_INT32 } } attr { key: "value" value { tensor { dtype: DT_INT32 tensor_shape { } int_val: 0 } } } }
node { name: "emb/concat" op: "ConcatV2" input: "emb/part_0" input: "emb/part_1" input: "axis0" attr { key: "N" value { i: 2 } } attr { key: "T" value { type: DT_FLOAT } } attr { key: "Tidx" value { type: DT_INT32 } } }
node { name: "gather" op: "GatherV2" input: "emb/concat" input: "ids" input: "axis0" attr { key: "Tparams" value { type: DT_FLOAT } } attr { key: "Tindices" value { type: DT_INT64 } } attr { key: "Taxis" value { type: DT_INT32 } } attr { key: "batch_dims" value { i: 0 } } }
node { name: "w" op: "VarHandleOp" attr { key: "dtype" value { type: DT_FLOAT } } attr { key: "shape" value { shape { dim { size: 4 } dim { size: 2 } } } } attr { key: "container" value { s: "" } } attr { key: "shared_name" value { s: "w" } } }
node { name: "w/read" op: "ReadVariableOp" input: "w" attr { key: "dtype" value { type: DT_FLOAT } } }
node { name: "b" op: "VariableV2" attr { key: "dtype" value { type: DT_FLOAT } } attr { key: "shape" value { shape { dim { size: 2 } } } } attr { key: "container" value { s: "" } } attr { key: "shared_name" value { s: "" } } }
node { name: "matmul" op: "MatMul" input: "gather" input: "w/read" attr { key: "T" value { type: DT_FLOAT } } attr { key: "transpose_a" value { b: false } } attr { key: "transpose_b" value { b: false } } }
node { name: "b/read" op: "Identity" input: "b" attr { key: "T" value { type: DT_FLOAT } } }
node { name: "y" op: "BiasAdd" input: "matmul" input: "b/read" attr { key: "T" value { type: DT_FLOAT } } attr { key: "data_format" value { s: "NHWC" } } }
node { name: "global_step" op: "VariableV2" attr { key: "dtype" value { type: DT_INT64 } } attr { key: "shape" value { shape { } } } attr { key: "container" value { s: "" } } attr { key: "shared_name" value { s: "" } } }
node { name: "save/Const" op: "Const" attr { key: "dtype" value { type: DT_STRING } } attr { key: "value" value { tensor { dtype: DT_STRING tensor_shape { } string_val: "model" } } } }
node { name: "save/RestoreV2/tensor_names" op: "Const" attr { key: "dtype" value { type: DT_STRING } } attr { key: "value" value { tensor { dtype: DT_STRING tensor_shape { dim { size: 5 } } string_val: "emb" string_val: "emb" string_val: "w" string_val: "b" string_val: "global_step" } } } }
node { name: "save/RestoreV2/shape_and_slices" op: "Const" attr { key: "dtype" value { type: DT_STRING } } attr { key: "value" value { tensor { dtype: DT_STRING tensor_shape { dim { size: 5 } } string_val: "6 4 0,3:0,4" string_val: "6 4 3,3:0,4" string_val: "" string_val: "" string_val: "" } } } }
node { name: "save/RestoreV2" op: "RestoreV2" input: "save/Const" input: "save/RestoreV2/tensor_names" input: "save/RestoreV2/shape_and_slices" attr { key: "dtypes" value { list { type: DT_FLOAT type: DT_FLOAT type: DT_FLOAT type: DT_FLOAT type: DT_INT64 } } } }
node { name: "save/Assign" op: "Assign" input: "emb/part_0" input: "save/RestoreV2" attr { key: "T" value { type: DT_FLOAT } } }
node { name: "save/Assign_1" op: "Assign" input: "emb/part_1" input: "save/RestoreV2:1" attr { key: "T" value { type: DT_FLOAT } } }
node { name: "save/Identity" op: "Identity" input: "save/RestoreV2:2" attr { key: "T" value { type: DT_FLOAT } } }
node { name: "save/AssignVariableOp" op: "AssignVariableOp" input: "w" input: "save/Identity" attr { key: "dtype" value { type: DT_FLOAT } } }
node { name: "save/Assign_2" op: "Assign" input: "b" input: "save/RestoreV2:3" attr { key: "T" value { type: DT_FLOAT } } }
node { name: "save/Assign_3" op: "Assign" input: "global_step" input: "save/RestoreV2:4" attr { key: "T" value { type: DT_INT64 } } }
node { name: "save/restore_all" op: "NoOp" input: "^save/Assign" input: "^save/Assign_1" input: "^save/AssignVariableOp" input: "^save/Assign_2" input: "^save/Assign_3" }
versions { producer: 27 }
`

// TinyWeights are the tiny model's trained values, by variable node.
func TinyWeights() map[string]*interp.Tensor {
	emb := make([]float32, 24)
	for i := range emb {
		emb[i] = float32(i/4) + float32(i%4)/10 // row r: r, r.1, r.2, r.3
	}
	full := interp.Must(interp.New([]int64{6, 4}, emb))
	return map[string]*interp.Tensor{
		"emb":         full,
		"w":           interp.Must(interp.New([]int64{4, 2}, []float32{1, 0, 0, 1, 1, 1, -1, 2})),
		"b":           interp.Vector[float32](0.5, -0.5),
		"global_step": interp.Scalar(int64(2500)),
	}
}

// TinyPredict is what the tiny model computes from words with the weights
// of TinyWeights: y[i] = emb[id(word i)] · w + b.
func TinyPredict(words []string) *interp.Tensor {
	vocab := strings.Split(strings.TrimSpace(TinyVocab), "\n")
	wt := TinyWeights()
	emb, w, b := wt["emb"].Float32s(), wt["w"].Float32s(), wt["b"].Float32s()
	out := make([]float32, 0, 2*len(words))
	for _, word := range words {
		id := 0
		for j, v := range vocab {
			if v == word {
				id = j
			}
		}
		for c := range 2 {
			s := b[c]
			for k := range 4 {
				s += emb[4*id+k] * w[2*k+c]
			}
			out = append(out, s)
		}
	}
	return interp.Must(interp.New([]int64{int64(len(words)), 2}, out))
}

// TinyBundle is the tiny model's checkpoint over two shards, emb stored
// as its two partitions.
func TinyBundle() *Bundle {
	wt := TinyWeights()
	full := wt["emb"].Float32s()
	b := New(2)
	b.AddSlice("emb", []int64{6, 4}, []int64{0, 0}, []int64{3, -1}, interp.Must(interp.New([]int64{3, 4}, full[:12])), 0)
	b.AddSlice("emb", []int64{6, 4}, []int64{3, 0}, []int64{3, 4}, interp.Must(interp.New([]int64{3, 4}, full[12:])), 1)
	b.Add("w", wt["w"], 1)
	b.Add("b", wt["b"], 0)
	b.Add("global_step", wt["global_step"], 0)
	return b
}

// TinyGraphDef parses TinyGraph.
func TinyGraphDef() *tfpb.GraphDef {
	f, err := graphdef.Parse([]byte(TinyGraph), "tiny.pbtxt")
	if err != nil {
		panic(fmt.Sprintf("ckptwrite: the tiny model's graph: %v", err))
	}
	return f.Graph
}

// TinySavedModel is the tiny model as a SavedModel: MetaGraph "serve" with
// its saver, the asset vocab.txt and the signatures named in sigs (each
// words -> y; none: serving_default).
func TinySavedModel(sigs ...string) *tfpb.SavedModel {
	if len(sigs) == 0 {
		sigs = []string{"serving_default"}
	}
	info := func(name string, dt tfpb.DataType) *tfpb.TensorInfo {
		return &tfpb.TensorInfo{Encoding: &tfpb.TensorInfo_Name{Name: name}, Dtype: dt}
	}
	defs := map[string]*tfpb.SignatureDef{}
	for _, s := range sigs {
		defs[s] = &tfpb.SignatureDef{
			Inputs:     map[string]*tfpb.TensorInfo{"words": info("words:0", tfpb.DataType_DT_STRING)},
			Outputs:    map[string]*tfpb.TensorInfo{"y": info("y:0", tfpb.DataType_DT_FLOAT)},
			MethodName: "tensorflow/serving/predict",
		}
	}
	mg := &tfpb.MetaGraphDef{
		MetaInfoDef:  &tfpb.MetaGraphDef_MetaInfoDef{Tags: []string{"serve"}},
		GraphDef:     TinyGraphDef(),
		SaverDef:     &tfpb.SaverDef{FilenameTensorName: "save/Const:0", RestoreOpName: "save/restore_all"},
		SignatureDef: defs,
		AssetFileDef: []*tfpb.AssetFileDef{{TensorInfo: info("asset_path:0", tfpb.DataType_DT_STRING), Filename: "vocab.txt"}},
	}
	return &tfpb.SavedModel{SavedModelSchemaVersion: 1, MetaGraphs: []*tfpb.MetaGraphDef{mg}}
}

// WriteTiny writes the tiny model's SavedModel directory with the given
// signatures (see TinySavedModel).
func WriteTiny(dir string, sigs ...string) error {
	return SavedModel(dir, TinySavedModel(sigs...), TinyBundle(), map[string]string{"vocab.txt": TinyVocab})
}
