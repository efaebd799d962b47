package graphdef

import (
	"bytes"
	"errors"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"google.golang.org/protobuf/proto"

	"github.com/recom-compiler/recom/frontend/graphdef/tfpb"
	"github.com/recom-compiler/recom/textir/inputfile"
)

// small is a little valid graph: two placeholders, a MatMul, a BiasAdd.
func small() *tfpb.GraphDef {
	f := tfpb.DataType_DT_FLOAT
	return &tfpb.GraphDef{Node: []*tfpb.NodeDef{
		node("x", "Placeholder", nil, "dtype", f),
		node("w", "Placeholder", nil, "dtype", f),
		node("b", "Placeholder", nil, "dtype", f),
		node("mm", "MatMul", []string{"x", "w"}, "T", f),
		node("out", "BiasAdd", []string{"mm:0", "b"}, "T", f),
	}}
}

// node builds a NodeDef; attrs alternate name, value (DataType, int, string).
func node(name, op string, inputs []string, attrs ...any) *tfpb.NodeDef {
	n := &tfpb.NodeDef{Name: name, Op: op, Input: inputs, Attr: map[string]*tfpb.AttrValue{}}
	for i := 0; i+1 < len(attrs); i += 2 {
		var v *tfpb.AttrValue
		switch x := attrs[i+1].(type) {
		case tfpb.DataType:
			v = &tfpb.AttrValue{Value: &tfpb.AttrValue_Type{Type: x}}
		case int:
			v = &tfpb.AttrValue{Value: &tfpb.AttrValue_I{I: int64(x)}}
		case string:
			v = &tfpb.AttrValue{Value: &tfpb.AttrValue_S{S: []byte(x)}}
		case []tfpb.DataType:
			v = &tfpb.AttrValue{Value: &tfpb.AttrValue_List{List: &tfpb.AttrValue_ListValue{Type: x}}}
		}
		n.Attr[attrs[i].(string)] = v
	}
	return n
}

func mustMarshal(t *testing.T, m proto.Message) []byte {
	t.Helper()
	b, err := proto.MarshalOptions{Deterministic: true}.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestParseErrors(t *testing.T) {
	bin := mustMarshal(t, small())
	badType := small()
	badType.Node[3].Attr["T"] = &tfpb.AttrValue{Value: &tfpb.AttrValue_Type{Type: 999}}
	for _, tc := range []struct {
		name string
		data []byte
		want string // regexp
	}{
		{"empty", nil, `^in: empty input$`},
		{"blank", []byte(" \n\t\n"), `^in: empty input$`},
		{"truncated binary", bin[:len(bin)-3], `^in: truncated or malformed binary protobuf at byte offset \d+: field node \(1\) of tensorflow.GraphDef: unexpected EOF`},
		{"truncated mid-tag", append(append([]byte{}, bin...), 0x80), `truncated or malformed binary protobuf at byte offset ` + strconv.Itoa(len(bin))},
		{"bad wire type", append(append([]byte{}, bin...), 0x0f, 0x01), `truncated or malformed binary protobuf at byte offset ` + strconv.Itoa(len(bin))},
		{"text syntax", []byte("node {\n  name: \"a\"\n  op: \"NoOp\"\n  input: }\n"), `^in:4:\d+: text format: in node "a": `},
		{"text unknown field", []byte("node {\n  name: \"a\"\n  bogus: 1\n}\n"), `^in:3:\d+: text format: in node "a": .*bogus`},
		{"text unknown dtype name", []byte("node {\n  name: \"p\"\n  op: \"Placeholder\"\n  attr {\n    key: \"dtype\"\n    value { type: DT_FOO }\n  }\n}\n"),
			`^in:6:\d+: text format: in node "p": .*DT_FOO`},
		{"text unknown dtype number", []byte("node {\n  name: \"p\"\n  op: \"Placeholder\"\n  attr {\n    key: \"dtype\"\n    value { type: 77 }\n  }\n}\n"),
			`^in: node "p": attr "dtype": unknown DataType enum value 77$`},
		{"binary unknown dtype", mustMarshal(t, badType), `^in: node "mm": attr "T": unknown DataType enum value 999$`},
		// A text GraphDef with a stray NUL is located as text, not reported
		// as binary malformed at byte 0; binary data is not mistaken for it.
		{"text with NUL", []byte("node {\n  name: \"a\"\x00\n}\n"), `^in:2:12: text format: control character 0x00 in a text GraphDef`},
		{"binary garbage", append([]byte("node"), bytes.Repeat([]byte{0x00, 0x01}, 64)...), `^in: truncated or malformed binary protobuf`},
		// Field 1 as a varint is a SavedModel's schema version, not nodes.
		{"neither graph nor saved model", []byte{0x08, 0x05}, `^in: neither a GraphDef \(its field 1, a GraphDef's nodes, holds a number\) nor a SavedModel with a graph`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse(tc.data, "in")
			if err == nil {
				t.Fatal("no error")
			}
			if !regexp.MustCompile(tc.want).MatchString(err.Error()) {
				t.Errorf("error %q does not match %q", err, tc.want)
			}
		})
	}
	// Invalid UTF-8 in a string field of a binary file is located too.
	raw := []byte{0x0a, 0x04, 0x0a, 0x02, 0xff, 0xfe}
	if _, err := Parse(raw, "in"); err == nil || !strings.Contains(err.Error(), "byte offset 4") || !strings.Contains(err.Error(), "UTF-8") {
		t.Errorf("bad UTF-8: got %v", err)
	}
}

func TestParseFormats(t *testing.T) {
	g := small()
	for _, tc := range []struct {
		name string
		data []byte
		want Format
	}{
		{"binary", mustMarshal(t, g), BinaryGraphDef},
		{"text", MarshalText(g), TextGraphDef},
		{"text with comment and colon style", []byte("# a comment\nnode: {\n  name: \"a\"\n  op: \"NoOp\"\n}\n"), TextGraphDef},
		{"versions only binary", mustMarshal(t, &tfpb.GraphDef{Versions: &tfpb.VersionDef{Producer: 27}}), BinaryGraphDef},
	} {
		f, err := Parse(tc.data, tc.name)
		if err != nil {
			t.Errorf("%s: %v", tc.name, err)
			continue
		}
		if f.Format != tc.want {
			t.Errorf("%s: format %v, want %v", tc.name, f.Format, tc.want)
		}
	}
}

func savedModel() *tfpb.SavedModel {
	info := func(name string) *tfpb.TensorInfo {
		return &tfpb.TensorInfo{Encoding: &tfpb.TensorInfo_Name{Name: name}, Dtype: tfpb.DataType_DT_FLOAT}
	}
	train := &tfpb.MetaGraphDef{MetaInfoDef: &tfpb.MetaGraphDef_MetaInfoDef{Tags: []string{"train"}}, GraphDef: &tfpb.GraphDef{}}
	serve := &tfpb.MetaGraphDef{
		MetaInfoDef: &tfpb.MetaGraphDef_MetaInfoDef{Tags: []string{"serve"}, TensorflowVersion: "2.6.0"},
		GraphDef:    small(),
		SignatureDef: map[string]*tfpb.SignatureDef{
			"serving_default": {
				Inputs:     map[string]*tfpb.TensorInfo{"x": info("x:0"), "w": info("w:0")},
				Outputs:    map[string]*tfpb.TensorInfo{"y": info("out:0")},
				MethodName: "tensorflow/serving/predict",
			},
			"other": {Outputs: map[string]*tfpb.TensorInfo{"mm": info("mm:0")}},
		},
	}
	return &tfpb.SavedModel{SavedModelSchemaVersion: 1, MetaGraphs: []*tfpb.MetaGraphDef{train, serve}}
}

func TestParseSavedModel(t *testing.T) {
	sm := savedModel()
	bin := mustMarshal(t, sm)
	// object_graph_def (field 7 of MetaGraphDef) is not modelled: it must
	// survive a binary round trip as unknown bytes.
	mg := sm.MetaGraphs[1]
	mg.ProtoReflect().SetUnknown([]byte{0x3a, 0x02, 0x08, 0x01})
	binUnknown := mustMarshal(t, sm)
	for _, tc := range []struct {
		name string
		data []byte
		want Format
	}{
		{"binary", bin, BinarySavedModel},
		{"text", MarshalText(savedModel()), TextSavedModel},
		{"binary with object graph", binUnknown, BinarySavedModel},
	} {
		f, err := Parse(tc.data, "saved_model.pb")
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if f.Format != tc.want {
			t.Errorf("%s: format %v", tc.name, f.Format)
		}
		if len(f.Graph.GetNode()) != 5 || f.Signature == nil {
			t.Fatalf("%s: picked the wrong meta graph or no signature", tc.name)
		}
		if got := strings.Join(f.Signature.InputNames(), ","); got != "w:0,x:0" {
			t.Errorf("%s: inputs %s", tc.name, got)
		}
		if got := strings.Join(f.Signature.OutputNames(), ","); got != "out:0" {
			t.Errorf("%s: outputs %s", tc.name, got)
		}
		if f.Signature.MethodName != "tensorflow/serving/predict" && tc.want != TextSavedModel {
			t.Errorf("%s: method %q", tc.name, f.Signature.MethodName)
		}
	}
	f, _ := Parse(binUnknown, "sm")
	if again := mustMarshal(t, f.SavedModel); string(again) != string(binUnknown) {
		t.Errorf("unknown object_graph_def bytes were not preserved")
	}

	f, err := Parse(bin, "sm", WithTags("train"))
	if err != nil || len(f.Graph.GetNode()) != 0 || f.Signature != nil {
		t.Errorf("WithTags(train): %v, %v", f, err)
	}
	if f, err = Parse(bin, "sm", WithSignature("other")); err != nil || f.Signature.OutputNames()[0] != "mm:0" {
		t.Errorf("WithSignature(other): %v", err)
	}
	if _, err = Parse(bin, "sm", WithTags("gpu", "serve")); err == nil || !strings.Contains(err.Error(), "no meta graph has tags [gpu,serve]") {
		t.Errorf("missing tags: %v", err)
	}
	if _, err = Parse(bin, "sm", WithSignature("nope")); err == nil || !strings.Contains(err.Error(), `no signature "nope"`) {
		t.Errorf("missing signature: %v", err)
	}
}

func TestValidateErrors(t *testing.T) {
	for _, tc := range []struct {
		name   string
		mutate func(g *tfpb.GraphDef)
		is     error
		node   string
	}{
		{"duplicate name", func(g *tfpb.GraphDef) { g.Node = append(g.Node, node("mm", "NoOp", nil)) }, ErrDuplicateName, "mm"},
		{"missing input", func(g *tfpb.GraphDef) { g.Node[4].Input[1] = "nope" }, ErrMissingInput, "out"},
		{"bad index", func(g *tfpb.GraphDef) { g.Node[4].Input[0] = "mm:1" }, ErrBadOutputIndex, "out"},
		{"malformed input", func(g *tfpb.GraphDef) { g.Node[4].Input[0] = "mm:x" }, ErrMalformedInput, "out"},
		{"malformed control", func(g *tfpb.GraphDef) { g.Node[4].Input = append(g.Node[4].Input, "^mm:0") }, ErrMalformedInput, "out"},
		{"empty input", func(g *tfpb.GraphDef) { g.Node[4].Input[1] = "" }, ErrMalformedInput, "out"},
		{"data after control", func(g *tfpb.GraphDef) { g.Node[4].Input = []string{"mm", "^x", "b"} }, ErrMalformedInput, "out"},
		{"arity", func(g *tfpb.GraphDef) { g.Node[3].Input = []string{"x"} }, ErrArity, "mm"},
		{"cycle", func(g *tfpb.GraphDef) { g.Node[3].Input[0] = "out" }, ErrCycle, "mm"},
		{"control cycle", func(g *tfpb.GraphDef) { g.Node[0].Input = []string{"^out"} }, ErrCycle, "x"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g := small()
			tc.mutate(g)
			err := Validate(g)
			if !errors.Is(err, tc.is) {
				t.Fatalf("got %v, want %v", err, tc.is)
			}
			var ne *NodeError
			if !errors.As(err, &ne) || ne.Node != tc.node {
				t.Errorf("error %v does not name node %q", err, tc.node)
			}
			if !strings.Contains(err.Error(), `"`+tc.node+`"`) {
				t.Errorf("message %q does not name node %q", err, tc.node)
			}
		})
	}
}

// A while loop: its NextIteration -> Merge back edge is not a cycle error.
func TestValidateLoop(t *testing.T) {
	i32 := tfpb.DataType_DT_INT32
	g := &tfpb.GraphDef{Node: []*tfpb.NodeDef{
		node("zero", "Const", nil, "dtype", i32),
		node("enter", "Enter", []string{"zero"}, "T", i32, "frame_name", "loop"),
		node("merge", "Merge", []string{"enter", "next"}, "T", i32, "N", 2),
		node("limit", "Const", nil, "dtype", i32),
		node("less", "Less", []string{"merge", "limit"}, "T", i32),
		node("cond", "LoopCond", []string{"less"}),
		node("switch", "Switch", []string{"merge", "cond"}, "T", i32),
		node("body", "Identity", []string{"switch:1"}, "T", i32),
		node("next", "NextIteration", []string{"body"}, "T", i32),
		node("exit", "Exit", []string{"switch"}, "T", i32),
	}}
	g.Node[0].Attr["value"] = &tfpb.AttrValue{Value: &tfpb.AttrValue_Tensor{Tensor: &tfpb.TensorProto{Dtype: i32, IntVal: []int32{0}}}}
	g.Node[3].Attr["value"] = &tfpb.AttrValue{Value: &tfpb.AttrValue_Tensor{Tensor: &tfpb.TensorProto{Dtype: i32, IntVal: []int32{10}}}}
	if err := Validate(g); err != nil {
		t.Fatal(err)
	}
	// Without the NextIteration the same loop is a cycle.
	g.Node[8].Op = "Identity"
	if err := Validate(g); !errors.Is(err, ErrCycle) {
		t.Fatalf("got %v, want a cycle", err)
	}
	// Extracting through the loop is refused: unresolved control flow.
	g.Node[8].Op = "NextIteration"
	if _, err := Extract(g, nil, []string{"exit"}); !errors.Is(err, ErrNotInference) || !strings.Contains(err.Error(), "control flow") {
		t.Errorf("extract through loop: %v", err)
	}
}

func TestOutputTypes(t *testing.T) {
	f := tfpb.DataType_DT_FLOAT
	i64 := tfpb.DataType_DT_INT64
	for _, tc := range []struct {
		n    *tfpb.NodeDef
		want []tfpb.DataType
	}{
		{node("v", "VariableV2", nil, "dtype", f), []tfpb.DataType{tfpb.DataType_DT_FLOAT_REF}},
		{node("u", "Unique", []string{"x"}, "T", i64), []tfpb.DataType{i64, tfpb.DataType_DT_INT32}},
		{node("it", "IteratorGetNext", []string{"h"}, "output_types", []tfpb.DataType{f, i64}), []tfpb.DataType{f, i64}},
		{node("s", "SparseFillEmptyRows", nil, "T", i64), []tfpb.DataType{i64, i64, tfpb.DataType_DT_BOOL, i64}},
		{node("p", "Pack", nil, "T", f, "N", 3), []tfpb.DataType{f}},
		{node("u", "Unpack", nil, "T", f, "num", 3), []tfpb.DataType{f, f, f}},
		{node("c", "SparseCross", nil, "N", 2, "out_type", i64, "sparse_types", []tfpb.DataType{}, "dense_types", []tfpb.DataType{}), []tfpb.DataType{i64, i64, i64}},
		{node("x", "MyCustomOp", nil, "_output_types", []tfpb.DataType{f, f}), []tfpb.DataType{f, f}},
	} {
		got, err := OutputTypes(tc.n)
		if err != nil || !slices.Equal(got, tc.want) {
			t.Errorf("%s (%s): got %v, %v; want %v", tc.n.Name, tc.n.Op, got, err, tc.want)
		}
	}
	if n, err := NumInputs(node("p", "Pack", nil, "T", f, "N", 3)); n != 3 || err != nil {
		t.Errorf("Pack N=3: %d inputs, %v", n, err)
	}
	unknown := node("x", "MyCustomOp", nil)
	if _, err := OutputTypes(unknown); !errors.Is(err, ErrUnknownOp) {
		t.Errorf("unknown op: %v", err)
	}
	unknown.Attr["_output_shapes"] = &tfpb.AttrValue{Value: &tfpb.AttrValue_List{List: &tfpb.AttrValue_ListValue{Shape: make([]*tfpb.TensorShapeProto, 2)}}}
	if n, err := NumOutputs(unknown); n != 2 || err != nil {
		t.Errorf("unknown op with _output_shapes: %d, %v", n, err)
	}
	if _, err := OutputTypes(node("m", "MatMul", nil)); err == nil || !strings.Contains(err.Error(), `node "m"`) {
		t.Errorf("missing attr: %v", err)
	}
	// Library functions called as ops.
	lib := &tfpb.FunctionDefLibrary{Function: []*tfpb.FunctionDef{{Signature: &tfpb.OpDef{Name: "fn",
		OutputArg: []*tfpb.OpDef_ArgDef{{Name: "a", Type: f}, {Name: "b", Type: i64}}}}}}
	if n, err := NewOps(lib).NumOutputs(node("call", "fn", nil)); n != 2 || err != nil {
		t.Errorf("function call: %d, %v", n, err)
	}
}

func TestExtractSmall(t *testing.T) {
	i64 := tfpb.DataType_DT_INT64
	f := tfpb.DataType_DT_FLOAT
	g := &tfpb.GraphDef{Node: []*tfpb.NodeDef{
		node("h", "OneShotIterator", nil, "output_types", []tfpb.DataType{f, i64}),
		node("it", "IteratorGetNext", []string{"h"}, "output_types", []tfpb.DataType{f, i64}),
		node("it/out0", "NoOp", nil), // occupies the natural placeholder name
		node("sq", "Square", []string{"it", "^it"}, "T", f),
		node("c", "Cast", []string{"it:1", "^assert"}, "SrcT", i64, "DstT", f),
		node("assert", "NoOp", nil),
		node("sum", "AddV2", []string{"sq", "c"}, "T", f),
		node("grad", "ReluGrad", []string{"sum", "sum"}, "T", f),
	}}
	g.Node[1].Attr["output_shapes"] = &tfpb.AttrValue{Value: &tfpb.AttrValue_List{List: &tfpb.AttrValue_ListValue{Shape: []*tfpb.TensorShapeProto{
		{Dim: []*tfpb.TensorShapeProto_Dim{{Size: -1}, {Size: 4}}}, {Dim: []*tfpb.TensorShapeProto_Dim{{Size: -1}}}}}}}
	x, err := Extract(g, []string{"it:0", "it:1"}, []string{"sum"})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, n := range x.Node {
		names = append(names, n.Name)
	}
	if got := strings.Join(names, " "); got != "it/out0_1 it/out1 sq c sum" {
		t.Errorf("kept %s", got)
	}
	if got := strings.Join(x.Node[2].Input, " "); got != "it/out0_1" {
		t.Errorf("sq inputs %q (control input on the cut iterator must go)", got)
	}
	if got := strings.Join(x.Node[3].Input, " "); got != "it/out1" {
		t.Errorf("c inputs %q (control input on a pruned node must go)", got)
	}
	if x.Node[1].Attr["dtype"].GetType() != i64 || len(x.Node[0].Attr["shape"].GetShape().GetDim()) != 2 {
		t.Errorf("placeholder attrs: %v / %v", x.Node[0], x.Node[1])
	}
	// FollowControl keeps "assert".
	x, err = ExtractWith(g, []string{"it:0", "it:1"}, []string{"sum"}, ExtractOptions{FollowControl: true})
	if err != nil || findNode(x, "assert") == nil {
		t.Errorf("FollowControl: %v", err)
	}
	// Errors.
	for _, tc := range []struct {
		ins, outs []string
		want      string
	}{
		{[]string{"it:0", "it:1"}, []string{"grad"}, `node "grad": cannot run at inference: op ReluGrad is training-only`},
		{[]string{"it:0"}, []string{"sum"}, `node "it": cannot run at inference: op IteratorGetNext reads a tf.data iterator`},
		{[]string{"it:5"}, []string{"sum"}, `node "it": output index out of range`},
		{[]string{"nope:0"}, []string{"sum"}, `no node "nope"`},
		{[]string{"it:0"}, []string{"nope"}, `no node "nope"`},
		{nil, nil, `no outputs`},
	} {
		if _, err := Extract(g, tc.ins, tc.outs); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Extract(%v, %v): got %v, want %q", tc.ins, tc.outs, err, tc.want)
		}
	}
	// A single-output producer is replaced by a Placeholder of the same name.
	_, err = Extract(g, []string{"sq"}, []string{"sum"})
	if err == nil {
		t.Errorf("cutting only sq still needs the iterator through c; got no error")
	}
	x, err = Extract(g, []string{"sq", "c"}, []string{"sum"})
	if err != nil || len(x.Node) != 3 || x.Node[0].Name != "sq" || x.Node[0].Op != "Placeholder" {
		t.Errorf("cut at single-output nodes: %v %v", x, err)
	}
}

func TestWriteAtomic(t *testing.T) {
	dir := t.TempDir()
	// Writing into a missing directory fails and leaves nothing.
	if err := Write(filepath.Join(dir, "missing", "g.pb"), small(), true); err == nil {
		t.Error("write into a missing directory succeeded")
	}
	// Renaming over a directory fails; the temp file must be removed.
	target := filepath.Join(dir, "g.pbtxt")
	if err := os.Mkdir(target, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := Write(target, small(), false); err == nil {
		t.Error("write over a directory succeeded")
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Errorf("left behind: %v", entries)
	}
	if err := Write(filepath.Join(dir, "nil.pb"), nil, true); err == nil {
		t.Error("nil graph accepted")
	}
	// A successful write replaces the old file.
	p := filepath.Join(dir, "ok.pb")
	if err := os.WriteFile(p, []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := Write(p, small(), true); err != nil {
		t.Fatal(err)
	}
	f, err := Load(p)
	if err != nil || !proto.Equal(f.Graph, small()) {
		t.Errorf("reload: %v", err)
	}
}

func TestMarshalTextEscapes(t *testing.T) {
	g := small()
	g.Node[0].Attr["s"] = &tfpb.AttrValue{Value: &tfpb.AttrValue_S{S: []byte("a\x00b\"c'\\\n\xff")}}
	g.Node[0].Attr["f"] = &tfpb.AttrValue{Value: &tfpb.AttrValue_F{F: 1e-7}}
	g.Node[0].Attr["b"] = &tfpb.AttrValue{Value: &tfpb.AttrValue_B{B: false}}
	g.Node[0].Attr["t"] = &tfpb.AttrValue{Value: &tfpb.AttrValue_Tensor{Tensor: &tfpb.TensorProto{
		Dtype: tfpb.DataType_DT_FLOAT, FloatVal: []float32{float32(math.Inf(-1)), 0.1}, TensorContent: []byte{0, 1, 200}}}}
	text := MarshalText(g)
	f, err := Parse(text, "t")
	if err != nil {
		t.Fatalf("%v\n%s", err, text)
	}
	if !proto.Equal(f.Graph, g) {
		t.Errorf("round trip changed the graph:\n%s", text)
	}
	if !strings.Contains(string(text), `s: "a\000b\"c\'\\\n\377"`) || !strings.Contains(string(text), "b: false") {
		t.Errorf("unexpected escapes:\n%s", text)
	}
}

// Load reads with inputfile's bound on the size: a file over it, or a
// device that never ends (/dev/zero, /dev/urandom), is refused with an
// error that names it and the limit instead of exhausting memory.
func TestLoadBounded(t *testing.T) {
	saved := inputfile.MaxBytes
	defer func() { inputfile.MaxBytes = saved }()
	inputfile.MaxBytes = 1 << 16
	p := filepath.Join(t.TempDir(), "g.pb")
	if err := os.WriteFile(p, make([]byte, 1<<16+1), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Load(p); err == nil || err.Error() != p+": input of 65537 bytes is too large: more than 65536 bytes (set RECOM_MAX_INPUT_BYTES to raise the limit; see docs/LIMITS.md)" {
		t.Errorf("a file over the limit: got %v", err)
	}
	for _, dev := range []string{"/dev/zero", "/dev/urandom"} {
		if _, err := os.Stat(dev); err != nil {
			continue
		}
		if _, err := Load(dev); err == nil || !strings.HasPrefix(err.Error(), dev+": input is too large: more than 65536 bytes") {
			t.Errorf("%s: got %v", dev, err)
		}
	}
}

// TestSignatureChoice: without serving_default, a MetaGraph's only
// signature is taken; with several, or none, Signature is nil and
// NoSignatureError names them (a SavedModel is never cut silently at the
// whole graph).
func TestSignatureChoice(t *testing.T) {
	sm := savedModel()
	sigs := sm.MetaGraphs[1].SignatureDef
	delete(sigs, "serving_default")
	f, err := Parse(mustMarshal(t, sm), "one.pb")
	if err != nil || f.Signature == nil || f.Signature.Key != "other" || f.NoSignatureError() != nil {
		t.Fatalf("one signature: %+v, %v", f.Signature, err)
	}
	sigs["predict"] = &tfpb.SignatureDef{}
	f, err = Parse(mustMarshal(t, sm), "two.pb")
	if err != nil || f.Signature != nil {
		t.Fatalf("two signatures: %+v, %v", f.Signature, err)
	}
	if got := strings.Join(f.Signatures, ","); got != "other,predict" {
		t.Errorf("Signatures = %s", got)
	}
	e := f.NoSignatureError()
	if e == nil || !strings.Contains(e.Error(), `two.pb: the SavedModel has no "serving_default" signature and 2 others ("other", "predict"): choose one with --signature`) {
		t.Errorf("NoSignatureError = %v", e)
	}
	if f, err = Parse(mustMarshal(t, sm), "two.pb", WithSignature("predict")); err != nil || f.Signature.Key != "predict" {
		t.Errorf("WithSignature(predict): %v", err)
	}
	sm.MetaGraphs[1].SignatureDef = nil
	f, err = Parse(mustMarshal(t, sm), "none.pb")
	if err != nil || f.Signature != nil {
		t.Fatalf("no signature: %v", err)
	}
	if e := f.NoSignatureError(); e == nil || !strings.Contains(e.Error(), "has no signature to cut the graph at") {
		t.Errorf("NoSignatureError = %v", e)
	}
	if _, err := Parse(mustMarshal(t, sm), "none.pb", WithSignature("x")); err == nil || !strings.Contains(err.Error(), `no signature "x"; available: none`) {
		t.Errorf("WithSignature on none: %v", err)
	}
	g, err := Parse(MarshalText(small()), "g.pbtxt")
	if err != nil || g.NoSignatureError() != nil {
		t.Errorf("a GraphDef has no signature error: %v", err)
	}
}
