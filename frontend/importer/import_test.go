package importer

import (
	"bytes"
	"maps"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/recom-compiler/recom/dialects/builtin"
	"github.com/recom-compiler/recom/dialects/tfg"
	"github.com/recom-compiler/recom/frontend/graphdef"
	"github.com/recom-compiler/recom/frontend/graphdef/tfpb"
	"github.com/recom-compiler/recom/internal/realgraphs"
	"github.com/recom-compiler/recom/textir"
	"google.golang.org/protobuf/proto"
)

func newCtx() *textir.Context {
	return textir.NewContext(builtin.Dialect(), tfg.Dialect())
}

func printIR(t *testing.T, op *textir.Operation) string {
	t.Helper()
	var b bytes.Buffer
	if err := textir.Print(&b, op, textir.PrintOptions{}); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// TestRealGraphsRoundTrip: import → export → import gives identical IR; the
// exported graph equals the original node by node; the printed IR parses
// back to the same text; the IR verifies.
func TestRealGraphsRoundTrip(t *testing.T) {
	for _, path := range realgraphs.Files(t) {
		t.Run(filepath.Base(path), func(t *testing.T) {
			f, err := graphdef.Load(path)
			if err != nil {
				t.Fatal(err)
			}
			ctx := newCtx()
			m1, err := Import(ctx, f.Graph)
			if err != nil {
				t.Fatal(err)
			}
			if err := textir.Verify(ctx, m1); err != nil {
				t.Fatalf("imported IR does not verify: %v", err)
			}
			g2, err := Export(ctx, m1)
			if err != nil {
				t.Fatal(err)
			}
			compareGraphs(t, f.Graph, g2)
			m2, err := Import(ctx, g2)
			if err != nil {
				t.Fatal(err)
			}
			text1, text2 := printIR(t, m1), printIR(t, m2)
			if text1 != text2 {
				t.Fatalf("import → export → import changed the IR:\n%s", firstDiff(text1, text2))
			}
			m3, err := textir.Parse(ctx, "printed.mlir", []byte(text1))
			if err != nil {
				t.Fatalf("printed IR does not parse: %v", err)
			}
			if text3 := printIR(t, m3); text3 != text1 {
				t.Fatalf("print → parse → print changed the IR:\n%s", firstDiff(text1, text3))
			}
			g3, err := Export(ctx, m3)
			if err != nil {
				t.Fatal(err)
			}
			compareGraphs(t, f.Graph, g3)
		})
	}
}

func firstDiff(a, b string) string {
	al, bl := strings.Split(a, "\n"), strings.Split(b, "\n")
	for i := range min(len(al), len(bl)) {
		if al[i] != bl[i] {
			return "line " + itoa(i+1) + ":\n- " + al[i] + "\n+ " + bl[i]
		}
	}
	return "lengths differ: " + itoa(len(al)) + " vs " + itoa(len(bl)) + " lines"
}

func itoa(i int) string { return strconv.Itoa(i) }

// compareGraphs checks that b has a's nodes with the same op, inputs,
// device, experimental fields and attributes, and the same library and
// versions. Tensors compare by value.
func compareGraphs(t *testing.T, a, b *tfpb.GraphDef) {
	t.Helper()
	if len(a.Node) != len(b.Node) {
		t.Fatalf("node count %d → %d", len(a.Node), len(b.Node))
	}
	//lint:ignore SA1019 field 3 (version) is part of TensorFlow's wire format; the round trip keeps it
	if !proto.Equal(a.Library, b.Library) || !proto.Equal(a.Versions, b.Versions) || a.Version != b.Version {
		t.Fatalf("graph library or versions differ")
	}
	for i, na := range a.Node {
		nb := b.Node[i]
		if na.Name != nb.Name || na.Op != nb.Op || na.Device != nb.Device || !slices.Equal(na.Input, nb.Input) {
			t.Fatalf("node %q differs:\n%v\n%v", na.Name, na, nb)
		}
		if !proto.Equal(na.ExperimentalType, nb.ExperimentalType) || !proto.Equal(na.ExperimentalDebugInfo, nb.ExperimentalDebugInfo) {
			t.Fatalf("node %q: experimental fields differ", na.Name)
		}
		if !slices.Equal(slices.Sorted(maps.Keys(na.Attr)), slices.Sorted(maps.Keys(nb.Attr))) {
			t.Fatalf("node %q: attribute names differ", na.Name)
		}
		for k, va := range na.Attr {
			if !attrValueEqual(t, va, nb.Attr[k]) {
				t.Fatalf("node %q attr %q differs:\n%v\n%v", na.Name, k, va, nb.Attr[k])
			}
		}
	}
}

func attrValueEqual(t *testing.T, a, b *tfpb.AttrValue) bool {
	ta, tb := a.GetTensor(), b.GetTensor()
	if ta != nil || tb != nil {
		return tensorEqual(t, ta, tb)
	}
	la, lb := a.GetList(), b.GetList()
	if la != nil && lb != nil && len(la.Tensor) > 0 {
		if len(la.Tensor) != len(lb.Tensor) {
			return false
		}
		for i := range la.Tensor {
			if !tensorEqual(t, la.Tensor[i], lb.Tensor[i]) {
				return false
			}
		}
		ca, cb := proto.Clone(la).(*tfpb.AttrValue_ListValue), proto.Clone(lb).(*tfpb.AttrValue_ListValue)
		ca.Tensor, cb.Tensor = nil, nil
		return proto.Equal(ca, cb)
	}
	return proto.Equal(a, b)
}

// tensorEqual compares two TensorProtos by dtype, shape and values.
func tensorEqual(t *testing.T, a, b *tfpb.TensorProto) bool {
	if a == nil || b == nil {
		return a == b
	}
	if proto.Equal(a, b) {
		return true
	}
	x, err1 := TensorAttr(a)
	y, err2 := TensorAttr(b)
	if err1 != nil || err2 != nil {
		t.Fatalf("decoding tensors: %v %v", err1, err2)
	}
	return textir.AttrEqual(x, y)
}

func TestImportErrors(t *testing.T) {
	node := func(name, op string, inputs ...string) *tfpb.NodeDef {
		return &tfpb.NodeDef{Name: name, Op: op, Input: inputs}
	}
	noop := func(name string, inputs ...string) *tfpb.NodeDef { return node(name, "NoOp", inputs...) }
	cases := []struct {
		name  string
		nodes []*tfpb.NodeDef
		want  string
	}{
		{"duplicate", []*tfpb.NodeDef{noop("a"), noop("a")}, `node "a": duplicate node name`},
		{"missing input", []*tfpb.NodeDef{noop("a", "b")}, `node "a": input "b" names a missing node`},
		{"bad index", []*tfpb.NodeDef{noop("a"), node("b", "Identity", "a:3")}, `node "b": input "a:3": node "a" has 0 outputs`},
		{"data after control", []*tfpb.NodeDef{noop("a"), noop("c"), noop("b", "^a", "c")}, `data input "c" after a control input`},
		{"malformed input", []*tfpb.NodeDef{noop("a", "b:x")}, `node "a"`},
		{"no name", []*tfpb.NodeDef{{Op: "NoOp"}}, `node has no name`},
		{"reserved attr", []*tfpb.NodeDef{{Name: "a", Op: "NoOp", Attr: map[string]*tfpb.AttrValue{AttrName: {}}}}, `reserved`},
		{"bad dtype", []*tfpb.NodeDef{{Name: "a", Op: "Placeholder", Attr: map[string]*tfpb.AttrValue{"dtype": {Value: &tfpb.AttrValue_Type{Type: 77}}}}}, `node "a"`},
		{"tensor size", []*tfpb.NodeDef{{Name: "a", Op: "Const", Attr: map[string]*tfpb.AttrValue{
			"dtype": {Value: &tfpb.AttrValue_Type{Type: tfpb.DataType_DT_FLOAT}},
			"value": {Value: &tfpb.AttrValue_Tensor{Tensor: &tfpb.TensorProto{Dtype: tfpb.DataType_DT_FLOAT,
				TensorShape: &tfpb.TensorShapeProto{Dim: []*tfpb.TensorShapeProto_Dim{{Size: 3}}}, TensorContent: []byte{1, 2}}}}}}},
			`tensor_content has 2 bytes`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := Import(newCtx(), &tfpb.GraphDef{Node: c.nodes})
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("got %v, want an error containing %q", err, c.want)
			}
		})
	}
}

func TestTensorEncodings(t *testing.T) {
	shape := func(d ...int64) *tfpb.TensorShapeProto {
		s := &tfpb.TensorShapeProto{}
		for _, x := range d {
			s.Dim = append(s.Dim, &tfpb.TensorShapeProto_Dim{Size: x})
		}
		return s
	}
	cases := []struct {
		name string
		in   *tfpb.TensorProto
		want string // printed attribute
	}{
		{"splat float", &tfpb.TensorProto{Dtype: tfpb.DataType_DT_FLOAT, TensorShape: shape(2, 2), FloatVal: []float32{1.5}}, "dense<1.5"},
		{"repeat last", &tfpb.TensorProto{Dtype: tfpb.DataType_DT_INT32, TensorShape: shape(4), IntVal: []int32{1, 2}}, "dense<[1, 2, 2, 2]> : tensor<4xi32>"},
		{"scalar int64", &tfpb.TensorProto{Dtype: tfpb.DataType_DT_INT64, TensorShape: shape(), Int64Val: []int64{-7}}, "dense<-7> : tensor<i64>"},
		{"content", &tfpb.TensorProto{Dtype: tfpb.DataType_DT_INT32, TensorShape: shape(2), TensorContent: []byte{1, 0, 0, 0, 0xff, 0xff, 0xff, 0xff}}, "dense<[1, -1]> : tensor<2xi32>"},
		{"strings", &tfpb.TensorProto{Dtype: tfpb.DataType_DT_STRING, TensorShape: shape(2), StringVal: [][]byte{[]byte("a"), []byte("b\x00")}}, `dense<["a", "b\00"]> : tensor<2x!tfg.string>`},
		{"bool", &tfpb.TensorProto{Dtype: tfpb.DataType_DT_BOOL, TensorShape: shape(), BoolVal: []bool{true}}, "dense<true> : tensor<i1>"},
		{"empty", &tfpb.TensorProto{Dtype: tfpb.DataType_DT_FLOAT, TensorShape: shape(0)}, "tensor<0xf32>"},
		{"zeros", &tfpb.TensorProto{Dtype: tfpb.DataType_DT_INT64, TensorShape: shape(3)}, "dense<0> : tensor<3xi64>"},
		// TensorFlow's C++ side writes string tensors (constants folded by
		// grappler, for one) into tensor_content: the lengths as varints,
		// then the bytes. They were read as empty strings.
		{"string content", &tfpb.TensorProto{Dtype: tfpb.DataType_DT_STRING, TensorShape: shape(3), TensorContent: []byte("\x01\x00\x03aabc")}, `dense<["a", "", "abc"]> : tensor<3x!tfg.string>`},
		{"string content, 2-byte length", &tfpb.TensorProto{Dtype: tfpb.DataType_DT_STRING, TensorShape: shape(1), TensorContent: append([]byte{0x80, 0x01}, strings.Repeat("z", 128)...)}, `dense<["` + strings.Repeat("z", 128) + `"]> : tensor<1x!tfg.string>`},
		{"string content wins over string_val", &tfpb.TensorProto{Dtype: tfpb.DataType_DT_STRING, TensorShape: shape(), TensorContent: []byte("\x02hi"), StringVal: [][]byte{[]byte("no")}}, `dense<"hi"> : tensor<!tfg.string>`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			a, err := TensorAttr(c.in)
			if err != nil {
				t.Fatal(err)
			}
			if got := textir.AttrString(a); !strings.Contains(got, c.want) {
				t.Fatalf("got %s, want it to contain %s", got, c.want)
			}
			back, err := TensorProto(a.(*textir.DenseElementsAttr))
			if err != nil {
				t.Fatal(err)
			}
			again, err := TensorAttr(back)
			if err != nil {
				t.Fatal(err)
			}
			if !textir.AttrEqual(a, again) {
				t.Fatalf("round trip changed %s into %s", textir.AttrString(a), textir.AttrString(again))
			}
		})
	}
}

// Malformed string content is refused with what is wrong, before memory
// is taken for more strings than its bytes could hold.
func TestStringContentErrors(t *testing.T) {
	shape := func(d int64) *tfpb.TensorShapeProto {
		return &tfpb.TensorShapeProto{Dim: []*tfpb.TensorShapeProto_Dim{{Size: d}}}
	}
	for _, c := range []struct {
		name    string
		n       int64
		content string
		want    string
	}{
		{"short", 2, "\x01a", "the 2 string lengths add up to"},
		{"long", 1, "\x01ab", "the 1 string lengths add up to 1 bytes, but 2 bytes follow them"},
		{"bad varint", 1, "\xff\xff\xff\xff\xff\xff", "the length of string 0 at byte 0 is not a varint32"},
		{"length past 32 bits", 1, "\x80\x80\x80\x80\x10", "not a varint32"},
		{"billion strings", 1000000000, "\x00\x00", "tensor_content of 2 bytes cannot hold 1000000000 strings"},
		{"no strings", 0, "\x00", "the 0 string lengths add up to 0 bytes, but 1 bytes follow them"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := TensorAttr(&tfpb.TensorProto{Dtype: tfpb.DataType_DT_STRING, TensorShape: shape(c.n), TensorContent: []byte(c.content)})
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("got %v, want an error containing %q", err, c.want)
			}
		})
	}
}

// The elements that tensors storing fewer values than they have expand to
// share one budget per GraphDef: four partial tensors of 2^24 elements
// each (a 700-byte graph that took 2.6 GB) are refused at the second.
func TestExpandBudget(t *testing.T) {
	saved := textir.MaxDenseElements
	defer func() { textir.MaxDenseElements = saved }()
	textir.MaxDenseElements = 1000
	partial := func(name string, n int64) *tfpb.NodeDef {
		return &tfpb.NodeDef{Name: name, Op: "Const", Attr: map[string]*tfpb.AttrValue{
			"dtype": {Value: &tfpb.AttrValue_Type{Type: tfpb.DataType_DT_INT64}},
			"value": {Value: &tfpb.AttrValue_Tensor{Tensor: &tfpb.TensorProto{Dtype: tfpb.DataType_DT_INT64,
				TensorShape: &tfpb.TensorShapeProto{Dim: []*tfpb.TensorShapeProto_Dim{{Size: n}}}, Int64Val: []int64{1, 2}}}}}}
	}
	if _, err := Import(newCtx(), &tfpb.GraphDef{Node: []*tfpb.NodeDef{partial("a", 600), partial("b", 400)}}); err != nil {
		t.Fatalf("1000 elements in all: %v", err)
	}
	_, err := Import(newCtx(), &tfpb.GraphDef{Node: []*tfpb.NodeDef{partial("a", 600), partial("b", 600), partial("c", 600), partial("d", 600)}})
	want := `node "b": attribute "value": tensor of shape 600 with 2 values (the last repeated) is too large to materialise after 600 elements expanded for other tensors: more than 1000 elements (set RECOM_MAX_DENSE_ELEMENTS to raise the limit; see docs/LIMITS.md)`
	if err == nil || err.Error() != want {
		t.Fatalf("got  %v\nwant %s", err, want)
	}
	// Each call of TensorAttr has a budget of its own.
	for range 3 {
		if _, err := TensorAttr(partial("x", 600).Attr["value"].GetTensor()); err != nil {
			t.Fatal(err)
		}
	}
}

func TestShapeAttr(t *testing.T) {
	for _, text := range []string{"*", "", "2x?x3", `2"batch"x?`, "0"} {
		s, err := tfg.ParseShape(text)
		if err != nil {
			t.Fatalf("%q: %v", text, err)
		}
		if s.String() != text {
			t.Fatalf("%q printed as %q", text, s.String())
		}
	}
	for _, bad := range []string{"x", "2x", "a", `2"unterminated`, "2y3"} {
		if _, err := tfg.ParseShape(bad); err == nil {
			t.Fatalf("%q: no error", bad)
		}
	}
}
