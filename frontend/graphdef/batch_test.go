package graphdef

import (
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
		{"census_wide_deep_tf2_resource.pbtxt", "fifo_queue_DequeueMany", []string{"head/predictions/logistic"}},
		{"criteo_bucketized_tiles.pbtxt", "IteratorGetNext", []string{"dense/BiasAdd"}},
	} {
		t.Run(c.file, func(t *testing.T) {
			g := loadReal(t, c.file).Graph
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
