package graphdef

import (
	"fmt"
	"strings"
	"testing"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/recom-compiler/recom/frontend/graphdef/tfpb"
)

// FuzzParse feeds Parse arbitrary bytes (seeds: testdata/fuzz/FuzzParse and
// the small graphs below, binary and text). Parse must never panic; what it
// accepts must validate and extract without panicking, and print to text that
// parses back to an equal graph.
func FuzzParse(f *testing.F) {
	g := small()
	bin, _ := proto.Marshal(g)
	f.Add(bin)
	f.Add(MarshalText(g))
	sm, _ := proto.Marshal(savedModel())
	f.Add(sm)
	f.Add(MarshalText(savedModel()))
	f.Add([]byte("node: { name: \"a\" op: \"NoOp\" input: \"^b\" }\nnode { name: \"b\" op: \"NoOp\" }"))
	// Hostile seeds: what /dev/zero and /dev/urandom hold, a string tensor
	// in tensor_content (varint lengths, then the bytes) with its lengths
	// right and wrong, Consts that expand far beyond their bytes, a splat
	// of strings with a billion elements.
	f.Add(make([]byte, 4096))
	f.Add([]byte("\x8f\x01\xa3\xff\x00\x13\x9c\x42\x07\xe1\x55\x00\xfe\x81\x33\x9a"))
	str := func(content string) []byte {
		return []byte(`node { name: "v" op: "Const" attr { key: "dtype" value { type: DT_STRING } } attr { key: "value" value { tensor { dtype: DT_STRING tensor_shape { dim { size: 3 } } tensor_content: "` + content + `" } } } }`)
	}
	f.Add(str(`\003\000\005catmouse`))
	f.Add(str(`\003\000\006catmouse`))
	f.Add(str(`\377\377\377\377\377\377`))
	var four strings.Builder
	for i := range 4 {
		fmt.Fprintf(&four, `node { name: "c%d" op: "Const" attr { key: "dtype" value { type: DT_INT64 } } attr { key: "value" value { tensor { dtype: DT_INT64 tensor_shape { dim { size: 16777216 } } int64_val: 1 int64_val: 2 } } } }`+"\n", i)
	}
	f.Add([]byte(four.String()))
	f.Add([]byte(`node { name: "s" op: "Const" attr { key: "value" value { tensor { dtype: DT_STRING tensor_shape { dim { size: 1000000000 } } string_val: "a" } } } }`))
	// Text with a stray NUL; field 1 as a varint (a SavedModel's version).
	f.Add([]byte("node {\n  name: \"a\"\x00\n  op: \"NoOp\"\n}\n"))
	f.Add([]byte{0x08, 0x05})
	f.Fuzz(func(t *testing.T, data []byte) {
		file, err := Parse(data, "fuzz")
		if err != nil {
			if strings.Contains(err.Error(), "panic") {
				t.Fatalf("error mentions a panic: %v", err)
			}
			return
		}
		gd := file.Graph
		_ = Validate(gd)
		var ins, outs []string
		for i, n := range gd.GetNode() {
			if i%2 == 0 {
				ins = append(ins, n.GetName())
			} else {
				outs = append(outs, n.GetName()+":"+fmt.Sprint(i%3))
			}
		}
		_, _ = Extract(gd, ins, outs)
		for _, n := range gd.GetNode() {
			_, _ = OutputTypes(n)
			_, _ = InputTypes(n)
		}
		text := MarshalText(gd)
		back := &tfpb.GraphDef{}
		if err := unmarshalText(text, "reprint", back); err != nil {
			t.Fatalf("printed text does not parse: %v\n%s", err, text)
		}
		// Text cannot carry unknown fields; compare without them.
		want := proto.CloneOf(gd)
		dropUnknown(want.ProtoReflect())
		if !proto.Equal(want, back) {
			t.Fatalf("text round trip changed the graph:\n%s", text)
		}
	})
}

func BenchmarkParseLarge(b *testing.B) {
	text := MarshalText(largeGraph(400_000))
	b.SetBytes(int64(len(text)))
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		f, err := Parse(text, "large")
		if err != nil {
			b.Fatal(err)
		}
		if len(f.Graph.GetNode()) != 400_000 {
			b.Fatal("wrong node count")
		}
	}
}

// largeGraph builds n nodes shaped like feature-column subgraphs: per column
// a placeholder, a hash, a Const shape, a reshape, a gather and a sum, each
// with dtype attrs and _output_shapes.
func largeGraph(n int) *tfpb.GraphDef {
	g := &tfpb.GraphDef{Versions: &tfpb.VersionDef{Producer: 27}}
	shape := func(dims ...int64) *tfpb.AttrValue {
		s := &tfpb.TensorShapeProto{}
		for _, d := range dims {
			s.Dim = append(s.Dim, &tfpb.TensorShapeProto_Dim{Size: d})
		}
		return &tfpb.AttrValue{Value: &tfpb.AttrValue_List{List: &tfpb.AttrValue_ListValue{Shape: []*tfpb.TensorShapeProto{s}}}}
	}
	typ := func(t tfpb.DataType) *tfpb.AttrValue { return &tfpb.AttrValue{Value: &tfpb.AttrValue_Type{Type: t}} }
	for col := 0; len(g.Node) < n; col++ {
		p := fmt.Sprintf("input_layer/col_%d_embedding/", col)
		nodes := []*tfpb.NodeDef{
			{Name: p + "input", Op: "Placeholder", Attr: map[string]*tfpb.AttrValue{"dtype": typ(tfpb.DataType_DT_STRING), "_output_shapes": shape(-1, 1)}},
			{Name: p + "hash", Op: "StringToHashBucketFast", Input: []string{p + "input"}, Attr: map[string]*tfpb.AttrValue{
				"num_buckets": {Value: &tfpb.AttrValue_I{I: 10000}}, "_output_shapes": shape(-1, 1)}},
			{Name: p + "shape", Op: "Const", Attr: map[string]*tfpb.AttrValue{"dtype": typ(tfpb.DataType_DT_INT64), "_output_shapes": shape(1),
				"value": {Value: &tfpb.AttrValue_Tensor{Tensor: &tfpb.TensorProto{Dtype: tfpb.DataType_DT_INT64,
					TensorShape: &tfpb.TensorShapeProto{Dim: []*tfpb.TensorShapeProto_Dim{{Size: 1}}}, Int64Val: []int64{-1}}}}}},
			{Name: p + "Reshape", Op: "Reshape", Input: []string{p + "hash", p + "shape"}, Attr: map[string]*tfpb.AttrValue{
				"T": typ(tfpb.DataType_DT_INT64), "Tshape": typ(tfpb.DataType_DT_INT64), "_output_shapes": shape(-1)}},
			{Name: p + "embedding_lookup", Op: "GatherV2", Input: []string{p + "weights/read", p + "Reshape", p + "axis"}, Attr: map[string]*tfpb.AttrValue{
				"Tparams": typ(tfpb.DataType_DT_FLOAT), "Tindices": typ(tfpb.DataType_DT_INT64), "Taxis": typ(tfpb.DataType_DT_INT32),
				"batch_dims": {Value: &tfpb.AttrValue_I{I: 0}}, "_output_shapes": shape(-1, 8)}},
			{Name: p + "Sum", Op: "Sum", Input: []string{p + "embedding_lookup", p + "axis", "^" + p + "input"}, Attr: map[string]*tfpb.AttrValue{
				"T": typ(tfpb.DataType_DT_FLOAT), "Tidx": typ(tfpb.DataType_DT_INT32), "keep_dims": {Value: &tfpb.AttrValue_B{B: false}},
				"_output_shapes": shape(8)}, Device: "/device:CPU:0"},
		}
		for _, nd := range nodes {
			if len(g.Node) < n {
				g.Node = append(g.Node, nd)
			}
		}
	}
	return g
}

// dropUnknown clears the unknown fields of m and everything in it.
func dropUnknown(m protoreflect.Message) {
	m.SetUnknown(nil)
	m.Range(func(fd protoreflect.FieldDescriptor, v protoreflect.Value) bool {
		switch {
		case fd.IsMap():
			if fd.MapValue().Message() != nil {
				v.Map().Range(func(_ protoreflect.MapKey, mv protoreflect.Value) bool {
					dropUnknown(mv.Message())
					return true
				})
			}
		case fd.IsList():
			if fd.Message() != nil {
				for i := 0; i < v.List().Len(); i++ {
					dropUnknown(v.List().Get(i).Message())
				}
			}
		case fd.Message() != nil:
			dropUnknown(v.Message())
		}
		return true
	})
}
