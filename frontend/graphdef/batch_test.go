package graphdef

import (
	"encoding/binary"
	"fmt"
	"slices"
	"strings"
	"testing"

	"google.golang.org/protobuf/proto"

	"github.com/recom-compiler/recom/frontend/graphdef/tfpb"
)

// shapes sets n's attr key to a list of shapes, each given as its dims
// (nil: unknown rank).
func shapes(n *tfpb.NodeDef, key string, dims ...[]int64) *tfpb.NodeDef {
	l := &tfpb.AttrValue_ListValue{}
	for _, ds := range dims {
		s := &tfpb.TensorShapeProto{UnknownRank: ds == nil}
		for _, d := range ds {
			s.Dim = append(s.Dim, &tfpb.TensorShapeProto_Dim{Size: d})
		}
		l.Shape = append(l.Shape, s)
	}
	n.Attr[key] = &tfpb.AttrValue{Value: &tfpb.AttrValue_List{List: l}}
	return n
}

// dimsOf formats the shapes of n's attr key as "[8 3] [8]".
func dimsOf(n *tfpb.NodeDef, key string) string {
	var parts []string
	for _, s := range n.GetAttr()[key].GetList().GetShape() {
		parts = append(parts, shapeDims(s))
	}
	return strings.Join(parts, " ")
}

// shapeDims formats a shape as "[8 3]".
func shapeDims(s *tfpb.TensorShapeProto) string {
	var ds []int64
	for _, d := range s.GetDim() {
		ds = append(ds, d.GetSize())
	}
	return fmt.Sprint(ds)
}

// queueGraph dequeues batches of 8 from a queue and from an iterator, and
// computes from them: the hints record the training batch everywhere.
func queueGraph() *tfpb.GraphDef {
	f := tfpb.DataType_DT_FLOAT
	i64 := tfpb.DataType_DT_INT64
	i32 := tfpb.DataType_DT_INT32
	return &tfpb.GraphDef{Node: []*tfpb.NodeDef{
		node("q", "FIFOQueueV2", nil, "component_types", []tfpb.DataType{f, i64}),
		node("n", "Const", nil, "dtype", i32),
		shapes(node("deq", "QueueDequeueManyV2", []string{"q", "n"}, "component_types", []tfpb.DataType{f, i64}),
			"_output_shapes", []int64{8, 3}, []int64{8}),
		shapes(node("sq", "Square", []string{"deq"}, "T", f), "_output_shapes", []int64{8, 3}),
		shapes(node("c", "Cast", []string{"deq:1"}, "SrcT", i64, "DstT", f), "_output_shapes", []int64{8}),
		// An 8 that is not the batch, beside one that is: both are relaxed
		// (the hint cannot tell them apart).
		shapes(node("w", "Const", nil, "dtype", f), "_output_shapes", []int64{3, 8}),
		shapes(node("mm", "MatMul", []string{"sq", "w"}, "T", f), "_output_shapes", []int64{8, 8}),
		node("it", "OneShotIterator", nil),
		shapes(node("next", "IteratorGetNext", []string{"it"}, "output_types", []tfpb.DataType{f, f}),
			"output_shapes", []int64{8, 2}, []int64{8}),
		// An iterator of unbatched elements: dims 0 differ.
		shapes(node("one", "IteratorGetNext", []string{"it"}, "output_types", []tfpb.DataType{f, f}),
			"output_shapes", []int64{5}, []int64{8}),
		shapes(node("x", "Placeholder", nil, "dtype", f), "_output_shapes", []int64{8, 4}),
		shapes(node("xs", "Square", []string{"x"}, "T", f), "_output_shapes", []int64{8, 4}),
	}}
}

func TestDynamicBatch(t *testing.T) {
	ins := []string{"deq", "next", "one", "x"}
	outs := []string{"mm", "c", "next:1", "one:0", "one:1", "xs"}
	for _, c := range []struct {
		mode BatchMode
		want map[string]string // node: its _output_shapes
	}{
		// At a queue's or a batched iterator's outputs, the batch is
		// unknown, and so is every 8 computed from them; the unbatched
		// iterator and the placeholder keep their shapes.
		{BatchAuto, map[string]string{"deq/out0": "[-1 3]", "deq/out1": "[-1]", "sq": "[-1 3]", "c": "[-1]", "w": "[3 8]",
			"mm": "[-1 -1]", "next/out1": "[-1]", "one/out0": "[5]", "one/out1": "[8]", "x": "[8 4]", "xs": "[8 4]"}},
		{BatchDynamic, map[string]string{"deq/out0": "[-1 3]", "deq/out1": "[-1]", "sq": "[-1 3]", "c": "[-1]", "w": "[3 8]",
			"mm": "[-1 -1]", "next/out1": "[-1]", "one/out0": "[-1]", "one/out1": "[-1]", "x": "[-1 4]", "xs": "[-1 4]"}},
		{BatchStatic, map[string]string{"deq/out0": "[8 3]", "deq/out1": "[8]", "sq": "[8 3]", "c": "[8]", "w": "[3 8]",
			"mm": "[8 8]", "next/out1": "[8]", "one/out0": "[5]", "one/out1": "[8]", "x": "[8 4]", "xs": "[8 4]"}},
	} {
		t.Run(c.mode.String(), func(t *testing.T) {
			g := queueGraph()
			orig := proto.CloneOf(g)
			x, err := ExtractWith(g, ins, outs, ExtractOptions{Batch: c.mode})
			if err != nil {
				t.Fatal(err)
			}
			if !proto.Equal(g, orig) {
				t.Error("Extract changed its input graph")
			}
			for name, want := range c.want {
				n := findNode(x, name)
				if n == nil {
					t.Errorf("no node %s", name)
					continue
				}
				if got := dimsOf(n, "_output_shapes"); got != want {
					t.Errorf("%s: _output_shapes %s, want %s", name, got, want)
				}
				if s := n.GetAttr()["shape"].GetShape(); n.GetOp() == "Placeholder" && s != nil && shapeDims(s) != want {
					t.Errorf("%s: shape %s, want %s", name, shapeDims(s), want)
				}
			}
		})
	}
}

// A training batch of 1 makes the placeholders dynamic but leaves the
// hints downstream, where 1 is too common a size to stand for the batch.
func TestDynamicBatchOfOne(t *testing.T) {
	g := queueGraph()
	g.Node[2] = shapes(g.Node[2], "_output_shapes", []int64{1, 3}, []int64{1})
	g.Node[3] = shapes(g.Node[3], "_output_shapes", []int64{1, 3})
	x, err := Extract(g, []string{"deq"}, []string{"sq"})
	if err != nil {
		t.Fatal(err)
	}
	if got := dimsOf(findNode(x, "deq/out0"), "_output_shapes"); got != "[-1 3]" {
		t.Errorf("placeholder %s", got)
	}
	if got := dimsOf(findNode(x, "sq"), "_output_shapes"); got != "[1 3]" {
		t.Errorf("sq %s", got)
	}
}

// intConst is a Const int vector node, written as int_val or (content)
// as little-endian tensor_content.
func intConst(name string, dt tfpb.DataType, content bool, vals ...int64) *tfpb.NodeDef {
	tp := &tfpb.TensorProto{Dtype: dt, TensorShape: &tfpb.TensorShapeProto{Dim: []*tfpb.TensorShapeProto_Dim{{Size: int64(len(vals))}}}}
	for _, v := range vals {
		switch {
		case content && dt == tfpb.DataType_DT_INT64:
			tp.TensorContent = binary.LittleEndian.AppendUint64(tp.TensorContent, uint64(v))
		case content:
			tp.TensorContent = binary.LittleEndian.AppendUint32(tp.TensorContent, uint32(v))
		case dt == tfpb.DataType_DT_INT64:
			tp.Int64Val = append(tp.Int64Val, v)
		default:
			tp.IntVal = append(tp.IntVal, int32(v))
		}
	}
	n := node(name, "Const", nil, "dtype", dt)
	n.Attr["value"] = &tfpb.AttrValue{Value: &tfpb.AttrValue_Tensor{Tensor: tp}}
	return shapes(n, "_output_shapes", []int64{int64(len(vals))})
}

// The shapes tf.shape folded into constants at the training batch become
// Shape ops of batch tensors again.
func TestDynamicBatchShapes(t *testing.T) {
	f := tfpb.DataType_DT_FLOAT
	i32, i64 := tfpb.DataType_DT_INT32, tfpb.DataType_DT_INT64
	g := queueGraph()
	g.Node = append(g.Node,
		// The shape of sq, read in sq's scope by a Reshape it feeds:
		// not sq/r's own output, which the constant feeds.
		intConst("sq/Shape", i32, false, 8, 3),
		shapes(node("sq/r", "Reshape", []string{"sq", "sq/Shape"}, "T", f, "Tshape", i32), "_output_shapes", []int64{8, 3}),
		// The dense shape of a sparse input (int64, tensor_content): the
		// shape of c, read by a node of its scope.
		shapes(node("c/to_sparse_input/NotEqual", "NotEqual", []string{"c", "c"}, "T", f), "_output_shapes", []int64{8}),
		intConst("c/to_sparse_input/dense_shape", i64, true, 8),
		shapes(node("c/Cast", "Cast", []string{"c/to_sparse_input/dense_shape"}, "SrcT", i64, "DstT", i32), "_output_shapes", []int64{1}),
		shapes(node("c/fill", "Fill", []string{"c/Cast", "c"}, "T", f, "index_type", i32), "_output_shapes", []int64{8}),
		// A weight's shape, which no batch tensor depends on.
		intConst("w/shape", i32, false, 8, 3),
		shapes(node("w/r", "Reshape", []string{"w", "w/shape"}, "T", f, "Tshape", i32), "_output_shapes", []int64{8, 3}),
		shapes(node("wr", "MatMul", []string{"sq/r", "w/r"}, "T", f, "transpose_b", 1), "_output_shapes", []int64{8, 8}),
		// Folded zeros and ones, like batch tensors of their dtype.
		shapes(node("sq/zeros_like", "Const", nil, "dtype", f), "_output_shapes", []int64{8, 3}),
		shapes(node("sq/add", "Add", []string{"sq", "sq/zeros_like"}, "T", f), "_output_shapes", []int64{8, 3}),
		shapes(node("c/ones_like", "Const", nil, "dtype", f), "_output_shapes", []int64{8}),
		shapes(node("c/mul", "Mul", []string{"c", "c/ones_like"}, "T", f), "_output_shapes", []int64{8}),
		// Zeros of a dtype no batch tensor of the scope has.
		shapes(node("sq/zeros_like_1", "Const", nil, "dtype", i32), "_output_shapes", []int64{8, 3}),
		shapes(node("sq/cast", "Cast", []string{"sq/zeros_like_1"}, "SrcT", i32, "DstT", f), "_output_shapes", []int64{8, 3}),
		shapes(node("sq/add_1", "Add", []string{"sq", "sq/cast"}, "T", f), "_output_shapes", []int64{8, 3}),
		// A constant not named as tf.shape names them.
		intConst("dims", i32, false, 8, 3),
		shapes(node("r2", "Reshape", []string{"sq", "dims"}, "T", f, "Tshape", i32), "_output_shapes", []int64{8, 3}),
	)
	tensor := func(n *tfpb.NodeDef, dt tfpb.DataType, dims []int64, vals ...float32) {
		tp := &tfpb.TensorProto{Dtype: dt, TensorShape: &tfpb.TensorShapeProto{}, FloatVal: vals}
		for _, d := range dims {
			tp.TensorShape.Dim = append(tp.TensorShape.Dim, &tfpb.TensorShapeProto_Dim{Size: d})
		}
		n.Attr["value"] = &tfpb.AttrValue{Value: &tfpb.AttrValue_Tensor{Tensor: tp}}
	}
	tensor(findNode(g, "sq/zeros_like"), f, []int64{8, 3})
	tensor(findNode(g, "c/ones_like"), f, []int64{8}, 1)
	tensor(findNode(g, "sq/zeros_like_1"), i32, []int64{8, 3})
	x, err := Extract(g, []string{"deq"}, []string{"wr", "c/fill", "c/to_sparse_input/NotEqual", "r2", "sq/add", "c/mul", "sq/add_1"})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ node, op, input, outType string }{
		{"sq/Shape", "Shape", "sq", "DT_INT32"},
		{"c/to_sparse_input/dense_shape", "Shape", "c", "DT_INT64"},
		{"w/shape", "Const", "", ""},
		{"sq/zeros_like", "ZerosLike", "sq", ""},
		{"c/ones_like", "OnesLike", "c", ""},
		{"sq/zeros_like_1", "Const", "", ""},
		{"dims", "Const", "", ""},
	} {
		n := findNode(x, c.node)
		if n == nil {
			t.Errorf("no node %s", c.node)
			continue
		}
		if n.GetOp() != c.op || strings.Join(n.GetInput(), ",") != c.input || n.GetAttr()["out_type"].GetType().String() != c.outType && c.outType != "" {
			t.Errorf("%s: %s(%s) out_type %v, want %s(%s) out_type %s", c.node, n.GetOp(), strings.Join(n.GetInput(), ","), n.GetAttr()["out_type"].GetType(), c.op, c.input, c.outType)
		}
	}
	if err := Validate(x); err != nil {
		t.Error(err)
	}
	if got := dimsOf(findNode(x, "w/r"), "_output_shapes"); got != "[8 3]" {
		t.Errorf("w/r: _output_shapes %s: a weight's shape must stay", got)
	}
}

func TestIntVector(t *testing.T) {
	for _, c := range []struct {
		t    *tfpb.TensorProto
		want []int64
		ok   bool
	}{
		{intConst("a", tfpb.DataType_DT_INT32, true, 3, -1).GetAttr()["value"].GetTensor(), []int64{3, -1}, true},
		{intConst("a", tfpb.DataType_DT_INT64, false, 5).GetAttr()["value"].GetTensor(), []int64{5}, true},
		// A splat.
		{&tfpb.TensorProto{Dtype: tfpb.DataType_DT_INT32, TensorShape: &tfpb.TensorShapeProto{Dim: []*tfpb.TensorShapeProto_Dim{{Size: 3}}}, IntVal: []int32{7}},
			[]int64{7, 7, 7}, true},
		// A scalar.
		{&tfpb.TensorProto{Dtype: tfpb.DataType_DT_INT32, IntVal: []int32{4}}, []int64{4}, true},
		// Content of the wrong size, floats, a matrix.
		{&tfpb.TensorProto{Dtype: tfpb.DataType_DT_INT32, TensorShape: &tfpb.TensorShapeProto{Dim: []*tfpb.TensorShapeProto_Dim{{Size: 2}}}, TensorContent: []byte{1, 0, 0}}, nil, false},
		{&tfpb.TensorProto{Dtype: tfpb.DataType_DT_FLOAT, FloatVal: []float32{1}}, nil, false},
		{&tfpb.TensorProto{Dtype: tfpb.DataType_DT_INT32, TensorShape: &tfpb.TensorShapeProto{Dim: []*tfpb.TensorShapeProto_Dim{{Size: 1}, {Size: 1}}}, IntVal: []int32{1}}, nil, false},
		{nil, nil, false},
	} {
		got, ok := intVector(c.t)
		if ok != c.ok || !slices.Equal(got, c.want) {
			t.Errorf("intVector(%v) = %v, %v; want %v, %v", c.t, got, ok, c.want, c.ok)
		}
	}
}

func TestParseBatchMode(t *testing.T) {
	for s, want := range map[string]BatchMode{"auto": BatchAuto, "true": BatchDynamic, "1": BatchDynamic, "false": BatchStatic} {
		if got, err := ParseBatchMode(s); err != nil || got != want {
			t.Errorf("ParseBatchMode(%q) = %v, %v; want %v", s, got, err, want)
		}
	}
	if _, err := ParseBatchMode("sometimes"); err == nil || !strings.Contains(err.Error(), "want auto, true or false") {
		t.Errorf("bad mode: %v", err)
	}
}

// "node" cuts every output of a multi-output node; "node:i" one.
func TestExpandInputs(t *testing.T) {
	g := queueGraph()
	got, err := ExpandInputs(g, []string{"deq", "next:1", "sq", "nope", "x"})
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"deq:0", "deq:1", "next:1", "sq", "nope", "x"}; !slices.Equal(got, want) {
		t.Errorf("ExpandInputs: %q, want %q", got, want)
	}
	if _, err := ExpandInputs(g, []string{"a b"}); err == nil {
		t.Error("a malformed input: no error")
	}
	a, err := Extract(g, []string{"deq"}, []string{"mm", "c"})
	if err != nil {
		t.Fatal(err)
	}
	b, err := Extract(g, []string{"deq:0", "deq:1"}, []string{"mm", "c"})
	if err != nil {
		t.Fatal(err)
	}
	if !proto.Equal(a, b) {
		t.Errorf("cut at deq:\n%v\ncut at deq:0,deq:1:\n%v", a, b)
	}
}

// The real graphs: cutting at a node is cutting at each of its outputs, and
// the queue of the TF2 graph, whose batches were 128 at training, gives
// placeholders of an unknown batch with no 128 left in what they feed.
func TestExtractAllOutputsRealGraphs(t *testing.T) {
	for _, c := range []struct {
		file, feed string
		outputs    []string
	}{
		{"census_wide_deep_tf1.pbtxt", "IteratorGetNext", []string{"head/predictions/logistic"}},
		// The candidate outputs: the head's probabilities and classes
		// too, which concatenate the logits with zeros of their shape.
		{"census_wide_deep_tf2_resource.pbtxt", "fifo_queue_DequeueMany", nil},
		{"criteo_bucketized_tiles.pbtxt", "IteratorGetNext", []string{"dense/BiasAdd"}},
	} {
		t.Run(c.file, func(t *testing.T) {
			g := loadReal(t, c.file).Graph
			if c.outputs == nil {
				c.outputs = AnalyzeTraining(g).Outputs
			}
			a, err := Extract(g, []string{c.feed}, c.outputs)
			if err != nil {
				t.Fatal(err)
			}
			b, err := Extract(g, iteratorOutputs(t, g, c.feed), c.outputs)
			if err != nil {
				t.Fatal(err)
			}
			if !proto.Equal(a, b) {
				t.Errorf("cutting at %s differs from cutting at each of its outputs", c.feed)
			}
			phs := 0
			for _, n := range a.GetNode() {
				if v, ok := intVector(n.GetAttr()["value"].GetTensor()); ok && n.GetOp() == "Const" && len(v) > 0 && v[0] == 128 {
					t.Errorf("%s: a constant of the training batch is left: %v", n.GetName(), v)
				}
				if d := n.GetAttr()["value"].GetTensor().GetTensorShape().GetDim(); len(d) > 0 && d[0].GetSize() == 128 {
					t.Errorf("%s: a constant of the training batch's shape is left", n.GetName())
				}
				if n.GetOp() == "Placeholder" {
					phs++
					if s := n.GetAttr()["shape"].GetShape(); len(s.GetDim()) == 0 || s.GetDim()[0].GetSize() != -1 {
						t.Errorf("placeholder %s: shape %v, want an unknown batch", n.GetName(), s)
					}
				}
				for _, s := range n.GetAttr()["_output_shapes"].GetList().GetShape() {
					for _, d := range s.GetDim() {
						if d.GetSize() == 128 {
							t.Errorf("%s (%s): a dimension of the training batch, 128, is left: %s", n.GetName(), n.GetOp(), dimsOf(n, "_output_shapes"))
						}
					}
				}
			}
			if phs == 0 {
				t.Error("no placeholders")
			}
		})
	}
	// Without the dynamic batch, the queue's 128 stays.
	g := loadReal(t, "census_wide_deep_tf2_resource.pbtxt").Graph
	x, err := ExtractWith(g, []string{"fifo_queue_DequeueMany"}, []string{"head/predictions/logistic"}, ExtractOptions{Batch: BatchStatic})
	if err != nil {
		t.Fatal(err)
	}
	if got := dimsOf(findNode(x, "fifo_queue_DequeueMany/out1"), "_output_shapes"); got != "[128]" {
		t.Errorf("static batch: placeholder %s", got)
	}
}

func TestSplatOf(t *testing.T) {
	f, i64 := tfpb.DataType_DT_FLOAT, tfpb.DataType_DT_INT64
	for _, c := range []struct {
		t         *tfpb.TensorProto
		zero, one bool
	}{
		{&tfpb.TensorProto{Dtype: f}, true, false},                                           // no values: zeros
		{&tfpb.TensorProto{Dtype: f, FloatVal: []float32{0}}, true, false},                   // a splat of 0
		{&tfpb.TensorProto{Dtype: f, FloatVal: []float32{1}}, false, true},                   // a splat of 1
		{&tfpb.TensorProto{Dtype: i64, Int64Val: []int64{1, 1}}, false, true},                // ones written out
		{&tfpb.TensorProto{Dtype: f, FloatVal: []float32{0, 2}}, false, false},               // neither
		{&tfpb.TensorProto{Dtype: f, TensorContent: make([]byte, 8)}, true, false},           // zero bytes
		{&tfpb.TensorProto{Dtype: f, TensorContent: []byte{0, 0, 0x80, 0x3f}}, false, false}, // 1.0 as bytes: not read
		{nil, false, false},
	} {
		if got := splatOf(c.t, false); got != c.zero {
			t.Errorf("splatOf(%v, zeros) = %v", c.t, got)
		}
		if got := splatOf(c.t, true); got != c.one {
			t.Errorf("splatOf(%v, ones) = %v", c.t, got)
		}
	}
}
