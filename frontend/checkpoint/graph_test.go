package checkpoint

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"google.golang.org/protobuf/proto"

	"github.com/recom-compiler/recom/frontend/graphdef/tfpb"
	"github.com/recom-compiler/recom/interp"
)

func nd(name, op string, inputs []string, attrs map[string]*tfpb.AttrValue) *tfpb.NodeDef {
	return &tfpb.NodeDef{Name: name, Op: op, Input: inputs, Attr: attrs}
}

func strConst(name string, shape []int64, vals ...string) *tfpb.NodeDef {
	tp := &tfpb.TensorProto{Dtype: tfpb.DataType_DT_STRING, TensorShape: shapeProto(shape)}
	for _, v := range vals {
		tp.StringVal = append(tp.StringVal, []byte(v))
	}
	return nd(name, "Const", nil, map[string]*tfpb.AttrValue{
		"dtype": {Value: &tfpb.AttrValue_Type{Type: tfpb.DataType_DT_STRING}},
		"value": {Value: &tfpb.AttrValue_Tensor{Tensor: tp}},
	})
}

func varAttrs(dt tfpb.DataType, shape []int64, shared string) map[string]*tfpb.AttrValue {
	a := map[string]*tfpb.AttrValue{
		"dtype": {Value: &tfpb.AttrValue_Type{Type: dt}},
		"shape": {Value: &tfpb.AttrValue_Shape{Shape: shapeProto(shape)}},
	}
	if shared != "" {
		a["shared_name"] = &tfpb.AttrValue{Value: &tfpb.AttrValue_S{S: []byte(shared)}}
	}
	return a
}

func restoreNode(name string, inputs []string, dts ...tfpb.DataType) *tfpb.NodeDef {
	return nd(name, "RestoreV2", inputs, map[string]*tfpb.AttrValue{
		"dtypes": {Value: &tfpb.AttrValue_List{List: &tfpb.AttrValue_ListValue{Type: dts}}},
	})
}

const (
	f32 = tfpb.DataType_DT_FLOAT
	i64 = tfpb.DataType_DT_INT64
)

// tf1Graph is a graph as TensorFlow 1's tf.train.Saver writes it: reference
// variables, one partitioned in two, a resource variable restored through
// an Identity, the saver's RestoreV2 with its tensor_names and
// shape_and_slices constants, and a second saver restoring w from another
// key.
func tf1Graph() *tfpb.GraphDef {
	names := []string{"w", "emb", "emb", "hvar", "global_step"}
	specs := []string{"", "10 4 0,5:0,4", "10 4 5,5:0,4", "", ""}
	return &tfpb.GraphDef{Node: []*tfpb.NodeDef{
		nd("w", "VariableV2", nil, varAttrs(f32, []int64{2, 3}, "")),
		nd("emb/part_0", "VariableV2", nil, varAttrs(f32, []int64{5, 4}, "")),
		nd("emb/part_1", "VariableV2", nil, varAttrs(f32, []int64{5, 4}, "")),
		nd("h", "VarHandleOp", nil, varAttrs(f32, []int64{3}, "h")),
		nd("step", "VariableV2", nil, varAttrs(i64, []int64{}, "")),
		strConst("save/Const", nil, "model"),
		strConst("save/RestoreV2/tensor_names", []int64{5}, names...),
		strConst("save/RestoreV2/shape_and_slices", []int64{5}, specs...),
		restoreNode("save/RestoreV2", []string{"save/Const", "save/RestoreV2/tensor_names", "save/RestoreV2/shape_and_slices"}, f32, f32, f32, f32, i64),
		nd("save/Assign", "Assign", []string{"w", "save/RestoreV2"}, nil),
		nd("save/Assign_1", "Assign", []string{"emb/part_0", "save/RestoreV2:1"}, nil),
		nd("save/Assign_2", "Assign", []string{"emb/part_1", "save/RestoreV2:2"}, nil),
		nd("save/Identity", "Identity", []string{"save/RestoreV2:3"}, nil),
		nd("save/AssignVariableOp", "AssignVariableOp", []string{"h", "save/Identity"}, nil),
		nd("save/Assign_3", "Assign", []string{"step", "save/RestoreV2:4"}, nil),
		nd("save/restore_shard", "NoOp", []string{"^save/Assign", "^save/Assign_1", "^save/Assign_2", "^save/AssignVariableOp", "^save/Assign_3"}, nil),
		nd("save/restore_all", "NoOp", []string{"^save/restore_shard"}, nil),
		strConst("save_1/RestoreV2/tensor_names", []int64{1}, "w_other"),
		strConst("save_1/RestoreV2/shape_and_slices", []int64{1}, ""), // TensorFlow repeats a short list's last value
		restoreNode("save_1/RestoreV2", []string{"save/Const", "save_1/RestoreV2/tensor_names", "save_1/RestoreV2/shape_and_slices"}, f32),
		nd("save_1/Assign", "Assign", []string{"w", "save_1/RestoreV2"}, nil),
		nd("save_1/restore_all", "NoOp", []string{"^save_1/Assign"}, nil),
	}}
}

// tf1Checkpoint writes the values tf1Graph's savers restore, over two
// shards, emb partitioned as the graph's variables are.
func tf1Checkpoint(t *testing.T, dir string) (string, map[string]*interp.Tensor) {
	emb := make([]float32, 40)
	for i := range emb {
		emb[i] = float32(i)
	}
	full := interp.Must(interp.New([]int64{10, 4}, emb))
	want := map[string]*interp.Tensor{
		"w":          interp.Must(interp.New([]int64{2, 3}, []float32{1, 2, 3, 4, 5, 6})),
		"emb/part_0": interp.Must(Extract(full, Slice{Start: []int64{0, 0}, Length: []int64{5, 4}})),
		"emb/part_1": interp.Must(Extract(full, Slice{Start: []int64{5, 0}, Length: []int64{5, 4}})),
		"h":          interp.Vector[float32](7, 8, 9),
		"step":       interp.Scalar(int64(1234)),
	}
	tb := newTestBundle(2)
	tb.add("w", want["w"], 0)
	tb.add("w_other", interp.Must(interp.New([]int64{2, 3}, []float32{-1, -2, -3, -4, -5, -6})), 1)
	tb.addSlice("emb", []int64{10, 4}, Slice{Start: []int64{0, 0}, Length: []int64{5, -1}}, want["emb/part_0"], 0)
	tb.addSlice("emb", []int64{10, 4}, Slice{Start: []int64{5, 0}, Length: []int64{5, -1}}, want["emb/part_1"], 1)
	tb.add("hvar", want["h"], 1)
	tb.add("global_step", want["step"], 0)
	return tb.write(t, dir, "model.ckpt-1234"), want
}

func TestRestoreTF1(t *testing.T) {
	prefix, want := tf1Checkpoint(t, t.TempDir())
	r, err := Restore(tf1Graph(), prefix, "save/restore_all", nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Variables) != len(want) || len(r.Missing) != 0 {
		t.Fatalf("restored %v, missing %v", slices.Sorted(mapKeys(r.Variables)), r.Missing)
	}
	for k, w := range want {
		if err := r.Variables[k].Equal(w); err != nil {
			t.Errorf("%q: %v", k, err)
		}
	}
	for _, b := range r.Bindings {
		if !strings.HasPrefix(b.Via, `RestoreV2 node "save/RestoreV2"`) {
			t.Errorf("%q bound via %s", b.Variable, b.Via)
		}
		if b.Variable == "emb/part_1" && (b.Key != "emb" || b.Whole || b.Slice.String() != "5,5:0,4") {
			t.Errorf("emb/part_1: %+v", b)
		}
	}

	// Without a restore op both savers count, and they disagree on w.
	if _, err := Restore(tf1Graph(), prefix, "", nil); err == nil || !strings.Contains(err.Error(), `variable "w" is restored both from "w"`) || !strings.Contains(err.Error(), `"w_other"`) {
		t.Fatalf("two savers: %v", err)
	}

	// The second saver restores w only; the other variables fall back to
	// their names, which the checkpoint does not have.
	r, err = Restore(tf1Graph(), prefix, "save_1/restore_all", nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := r.Variables["w"].Float32s(); got[0] != -1 || len(r.Variables) != 1 {
		t.Fatalf("save_1 restored %v", r.Variables)
	}
	if !slices.Equal(r.Missing, []string{"emb/part_0", "emb/part_1", "h", "step"}) {
		t.Fatalf("missing %v", r.Missing)
	}

	// Only restricts what is read.
	r, err = Restore(tf1Graph(), prefix, "save/restore_all", &Options{Only: func(v string) bool { return strings.HasPrefix(v, "emb/") }})
	if err != nil || len(r.Variables) != 2 || r.Variables["emb/part_0"] == nil {
		t.Fatalf("Only: %v, %v", r, err)
	}
}

func TestRestoreErrors(t *testing.T) {
	prefix, _ := tf1Checkpoint(t, t.TempDir())
	for _, tc := range []struct {
		name string
		edit func(g *tfpb.GraphDef)
		want string
	}{
		{"dtype", func(g *tfpb.GraphDef) { g.Node[0].Attr = varAttrs(tfpb.DataType_DT_DOUBLE, []int64{2, 3}, "") },
			`variable "w" (key "w", via RestoreV2 node "save/RestoreV2" output 0): the checkpoint holds float32, the variable is DT_DOUBLE`},
		{"shape", func(g *tfpb.GraphDef) { g.Node[0].Attr = varAttrs(f32, []int64{3, 2}, "") },
			`the checkpoint holds shape [2,3], the variable's is [3,2]`},
		{"missing key", func(g *tfpb.GraphDef) {
			g.Node[6] = strConst("save/RestoreV2/tensor_names", []int64{5}, "nope", "emb", "emb", "hvar", "global_step")
		},
			`variable "w": the checkpoint has no tensor "nope"`},
		{"partition of another shape", func(g *tfpb.GraphDef) {
			g.Node[7] = strConst("save/RestoreV2/shape_and_slices", []int64{5}, "", "12 4 0,5:0,4", "10 4 5,5:0,4", "", "")
		}, `restores a slice of a [12,4] tensor, but "emb" is [10,4]`},
		{"bad slice spec", func(g *tfpb.GraphDef) {
			g.Node[7] = strConst("save/RestoreV2/shape_and_slices", []int64{5}, "", "10 4 0,5", "", "", "")
		}, `node "save/RestoreV2": output 1 ("emb"): shape and slice "10 4 0,5"`},
		{"names not a Const", func(g *tfpb.GraphDef) { g.Node[6] = nd("save/RestoreV2/tensor_names", "Placeholder", nil, nil) },
			`node "save/RestoreV2": tensor_names: node "save/RestoreV2/tensor_names" is a Placeholder, not a Const`},
		{"too few names", func(g *tfpb.GraphDef) {
			g.Node[6] = strConst("save/RestoreV2/tensor_names", []int64{4}, "w", "emb", "emb", "hvar")
		},
			`node "save/RestoreV2/tensor_names", a Const, is not a vector of 5 strings`},
		{"RestoreV2 without inputs", func(g *tfpb.GraphDef) { g.Node[8].Input = nil }, `RestoreV2 has 0 inputs, want 3`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g := tf1Graph()
			tc.edit(g)
			_, err := Restore(g, prefix, "save/restore_all", nil)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want %q", err, tc.want)
			}
		})
	}
	if _, err := Restore(tf1Graph(), prefix+"x", "", nil); err == nil || !strings.Contains(err.Error(), "no such checkpoint index") {
		t.Fatalf("missing checkpoint: %v", err)
	}
}

// tf2Graph is a graph as tf.saved_model.save exports it: resource variables
// at the top, a serving call, and the saver's restore call whose function
// (through a nested call) runs RestoreV2 and assigns to its resource
// arguments. Adam/iter is not restored by the function.
func tf2Graph() *tfpb.GraphDef {
	call := func(name, fn string, inputs ...string) *tfpb.NodeDef {
		return nd(name, "StatefulPartitionedCall", inputs, map[string]*tfpb.AttrValue{
			"f": {Value: &tfpb.AttrValue_Func{Func: &tfpb.NameAttrList{Name: fn}}},
		})
	}
	arg := func(name string) *tfpb.OpDef_ArgDef { return &tfpb.OpDef_ArgDef{Name: name} }
	inner := &tfpb.FunctionDef{
		Signature: &tfpb.OpDef{Name: "__inference__traced_restore_7", InputArg: []*tfpb.OpDef_ArgDef{arg("file_prefix"), arg("assignvariableop_resource"), arg("assignvariableop_1_resource")}},
		NodeDef: []*tfpb.NodeDef{
			strConst("RestoreV2/tensor_names", []int64{3}, "layer/kernel/.ATTRIBUTES/VARIABLE_VALUE", "layer/bias/.ATTRIBUTES/VARIABLE_VALUE", objectGraphKey),
			strConst("RestoreV2/shape_and_slices", []int64{3}, "", "", ""),
			restoreNode("RestoreV2", []string{"file_prefix", "RestoreV2/tensor_names:output:0", "RestoreV2/shape_and_slices:output:0"}, f32, f32, tfpb.DataType_DT_STRING),
			nd("Identity", "Identity", []string{"RestoreV2:tensors:0"}, nil),
			nd("AssignVariableOp", "AssignVariableOp", []string{"assignvariableop_resource", "Identity:output:0"}, nil),
			nd("Identity_1", "Identity", []string{"RestoreV2:tensors:1"}, nil),
			nd("AssignVariableOp_1", "AssignVariableOp", []string{"assignvariableop_1_resource", "Identity_1:output:0", "^AssignVariableOp"}, nil),
		},
	}
	outer := &tfpb.FunctionDef{
		Signature: &tfpb.OpDef{Name: "restore_wrapper", InputArg: []*tfpb.OpDef_ArgDef{arg("prefix"), arg("a"), arg("b")}},
		NodeDef:   []*tfpb.NodeDef{call("Call", inner.Signature.Name, "prefix", "a", "b")},
	}
	serve := &tfpb.FunctionDef{
		Signature: &tfpb.OpDef{Name: "__inference_signature_wrapper_3", InputArg: []*tfpb.OpDef_ArgDef{arg("x"), arg("k")}},
		NodeDef:   []*tfpb.NodeDef{nd("ReadVariableOp", "ReadVariableOp", []string{"k"}, nil)},
	}
	return &tfpb.GraphDef{
		Node: []*tfpb.NodeDef{
			nd("dense/kernel", "VarHandleOp", nil, varAttrs(f32, []int64{2, 2}, "dense/kernel")),
			nd("dense/bias", "VarHandleOp", nil, varAttrs(f32, []int64{2}, "dense/bias")),
			nd("Adam/iter", "VarHandleOp", nil, varAttrs(i64, []int64{}, "Adam/iter")),
			nd("total", "VarHandleOp", nil, varAttrs(f32, []int64{}, "total")),
			nd("saver_filename", "Placeholder", nil, nil),
			nd("serving_default_x", "Placeholder", nil, nil),
			call("StatefulPartitionedCall", serve.Signature.Name, "serving_default_x", "dense/kernel"),
			call("StatefulPartitionedCall_2", outer.Signature.Name, "saver_filename", "dense/kernel", "dense/bias", "^serving_default_x"),
		},
		Library: &tfpb.FunctionDefLibrary{Function: []*tfpb.FunctionDef{serve, outer, inner}},
	}
}

func TestRestoreTF2(t *testing.T) {
	og := &tfpb.TrackableObjectGraph{Nodes: []*tfpb.TrackableObjectGraph_TrackableObject{
		{Children: []*tfpb.TrackableObjectGraph_TrackableObject_ObjectReference{{NodeId: 1, LocalName: "optimizer"}}},
		{Attributes: []*tfpb.TrackableObjectGraph_TrackableObject_SerializedTensor{{
			Name: "VARIABLE_VALUE", FullName: "Adam/iter", CheckpointKey: "optimizer/iter/.ATTRIBUTES/VARIABLE_VALUE",
		}}},
		// Two metrics' variables of one name (as Keras writes them): the
		// name designates neither.
		{Attributes: []*tfpb.TrackableObjectGraph_TrackableObject_SerializedTensor{{Name: "VARIABLE_VALUE", FullName: "total", CheckpointKey: "metrics/0/total"}}},
		{Attributes: []*tfpb.TrackableObjectGraph_TrackableObject_SerializedTensor{{Name: "VARIABLE_VALUE", FullName: "total", CheckpointKey: "metrics/1/total"}}},
	}}
	ogBytes, _ := proto.Marshal(og)
	want := map[string]*interp.Tensor{
		"dense/kernel": interp.Must(interp.New([]int64{2, 2}, []float32{1, 2, 3, 4})),
		"dense/bias":   interp.Vector[float32](0.5, -0.5),
		"Adam/iter":    interp.Scalar(int64(99)),
	}
	tb := newTestBundle(2)
	tb.add("layer/kernel/.ATTRIBUTES/VARIABLE_VALUE", want["dense/kernel"], 0)
	tb.add("layer/bias/.ATTRIBUTES/VARIABLE_VALUE", want["dense/bias"], 1)
	tb.add("optimizer/iter/.ATTRIBUTES/VARIABLE_VALUE", want["Adam/iter"], 1)
	tb.add(objectGraphKey, interp.Scalar(string(ogBytes)), 0)
	tb.add("metrics/0/total", interp.Scalar(float32(1)), 0)
	tb.add("metrics/1/total", interp.Scalar(float32(2)), 1)
	prefix := tb.write(t, t.TempDir(), "variables")

	r, err := Restore(tf2Graph(), prefix, "StatefulPartitionedCall_2", nil)
	if err != nil {
		t.Fatal(err)
	}
	for k, w := range want {
		if err := r.Variables[k].Equal(w); err != nil {
			t.Errorf("%q: %v", k, err)
		}
	}
	via := map[string]string{}
	for _, b := range r.Bindings {
		via[b.Variable] = b.Via
	}
	if via["dense/bias"] != `RestoreV2 node "__inference__traced_restore_7/RestoreV2" output 1` || via["Adam/iter"] != "object graph" {
		t.Fatalf("bindings %v", via)
	}
	if !slices.Equal(r.Missing, []string{"total"}) {
		t.Fatalf("missing %v", r.Missing)
	}
}

func TestRestoreByName(t *testing.T) {
	g := &tfpb.GraphDef{Node: []*tfpb.NodeDef{
		nd("w", "VariableV2", nil, varAttrs(f32, []int64{2}, "")),
		nd("handle", "VarHandleOp", nil, varAttrs(f32, []int64{1}, "shared")),
		nd("absent", "VariableV2", nil, varAttrs(f32, []int64{1}, "")),
	}}
	tb := newTestBundle(1)
	tb.add("w", interp.Vector[float32](1, 2), 0)
	tb.add("shared", interp.Vector[float32](3), 0)
	prefix := tb.write(t, t.TempDir(), "ckpt")
	r, err := Restore(g, prefix, "", nil)
	if err != nil {
		t.Fatal(err)
	}
	if r.Variables["w"].Float32s()[1] != 2 || r.Variables["handle"].Float32s()[0] != 3 || !slices.Equal(r.Missing, []string{"absent"}) {
		t.Fatalf("restored %v, missing %v", r.Variables, r.Missing)
	}
	for _, b := range r.Bindings {
		if b.Via != "name" {
			t.Errorf("%q via %s", b.Variable, b.Via)
		}
	}
}

// TestRestoreIndexOnly: IndexOnly binds and checks every variable from the
// index alone (the data shards are not opened), with the errors a read
// gives for a wrong dtype, shape or key; Bytes counts each stored tensor
// once, and MaxReadBytes refuses a restore before anything is read.
func TestRestoreIndexOnly(t *testing.T) {
	dir := t.TempDir()
	prefix, _ := tf1Checkpoint(t, dir)
	full, err := Restore(tf1Graph(), prefix, "save/restore_all", nil)
	if err != nil {
		t.Fatal(err)
	}
	shards, _ := filepath.Glob(prefix + ".data-*")
	for _, s := range shards {
		if err := os.Remove(s); err != nil {
			t.Fatal(err)
		}
	}
	r, err := Restore(tf1Graph(), prefix, "save/restore_all", &Options{IndexOnly: true})
	if err != nil {
		t.Fatalf("IndexOnly opened a shard: %v", err)
	}
	if len(r.Variables) != 0 || len(r.Bindings) != 5 || len(r.Missing) != 0 {
		t.Fatalf("IndexOnly: %d values, %d bindings, missing %v", len(r.Variables), len(r.Bindings), r.Missing)
	}
	// w (24 bytes), emb's two slices (80 each), hvar (12), global_step (8).
	if r.Bytes != 24+160+12+8 || full.Bytes != r.Bytes {
		t.Errorf("Bytes = %d (read: %d), want %d", r.Bytes, full.Bytes, 24+160+12+8)
	}
	if _, err := Restore(tf1Graph(), prefix, "save/restore_all", nil); err == nil || !strings.Contains(err.Error(), "is missing") {
		t.Errorf("a read without shards: %v", err)
	}
	for _, tc := range []struct {
		name string
		edit func(g *tfpb.GraphDef)
		want string
	}{
		{"dtype", func(g *tfpb.GraphDef) { g.Node[0].Attr = varAttrs(tfpb.DataType_DT_DOUBLE, []int64{2, 3}, "") },
			`variable "w" (key "w", via RestoreV2 node "save/RestoreV2" output 0): the checkpoint holds float32, the variable is DT_DOUBLE`},
		{"shape", func(g *tfpb.GraphDef) { g.Node[0].Attr = varAttrs(f32, []int64{3, 2}, "") },
			`the checkpoint holds shape [2,3], the variable's is [3,2]`},
		{"partition shape", func(g *tfpb.GraphDef) { g.Node[2].Attr = varAttrs(f32, []int64{4, 4}, "") },
			`variable "emb/part_1" (key "emb", via RestoreV2 node "save/RestoreV2" output 2): the checkpoint holds shape [5,4], the variable's is [4,4]`},
		{"missing key", func(g *tfpb.GraphDef) {
			g.Node[6] = strConst("save/RestoreV2/tensor_names", []int64{5}, "nope", "emb", "emb", "hvar", "global_step")
		}, `variable "w": the checkpoint has no tensor "nope"`},
	} {
		g := tf1Graph()
		tc.edit(g)
		if _, err := Restore(g, prefix, "save/restore_all", &Options{IndexOnly: true}); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want %q", tc.name, err, tc.want)
		}
	}
	defer func(m int64) { MaxReadBytes = m }(MaxReadBytes)
	MaxReadBytes = 100
	if _, err := Restore(tf1Graph(), prefix, "save/restore_all", &Options{IndexOnly: true}); err == nil ||
		!strings.Contains(err.Error(), "model.ckpt-1234.index: the 5 variables to read take 204 bytes in the checkpoint, more than 100 (set RECOM_MAX_CHECKPOINT_BYTES") {
		t.Errorf("MaxReadBytes: %v", err)
	}
}
