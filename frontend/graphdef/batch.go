package graphdef

import (
	"encoding/binary"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"google.golang.org/protobuf/proto"

	"github.com/recom-compiler/recom/frontend/graphdef/tfpb"
)

// BatchMode says which of Extract's placeholders get an unknown batch
// dimension (dimension 0).
//
// A graph that reads its examples from a queue (QueueDequeueManyV2) or from
// an iterator whose dataset was batched to a fixed size records that size,
// the training batch, in the shapes of the dequeued tensors and, through the
// _output_shapes hints, in every tensor computed from them. A placeholder
// that kept those shapes would fix the batch of the inference graph at the
// training size: the importer types the tensors with the hints, and
// --simplify-shapes equates the batch with any static dimension it meets.
// A dynamic placeholder has dimension 0 unknown, and in the nodes that
// depend on it through data edges every hinted dimension equal to the
// training batch is made unknown too, so that the batch stays one symbol
// from the inputs to the outputs. (A hinted dimension that merely equals the
// training batch by coincidence loses its static size; --simplify-shapes
// infers it again where an op's shape function knows it. A training batch
// of 1 relaxes the placeholders only: too many dimensions are 1.)
type BatchMode int

const (
	// BatchAuto makes dynamic the placeholders that replace outputs of a
	// batch source: a queue's DequeueMany or DequeueUpTo, whose outputs
	// are batches along dimension 0 by definition, and an iterator's
	// GetNext whose outputs all have a dimension 0 of one size (a batched
	// dataset).
	BatchAuto BatchMode = iota
	// BatchDynamic makes every placeholder of rank ≥ 1 dynamic, those of
	// inputs that already are Placeholders included.
	BatchDynamic
	// BatchStatic keeps the producers' shapes.
	BatchStatic
)

func (m BatchMode) String() string {
	switch m {
	case BatchAuto:
		return "auto"
	case BatchDynamic:
		return "true"
	case BatchStatic:
		return "false"
	}
	return "BatchMode(" + strconv.Itoa(int(m)) + ")"
}

// ParseBatchMode reads the value of a --dynamic-batch flag: "auto",
// or a boolean ("true": BatchDynamic, "false": BatchStatic).
func ParseBatchMode(s string) (BatchMode, error) {
	if s == "auto" {
		return BatchAuto, nil
	}
	b, err := strconv.ParseBool(s)
	if err != nil {
		return BatchAuto, fmt.Errorf("%q: want auto, true or false", s)
	}
	if b {
		return BatchDynamic, nil
	}
	return BatchStatic, nil
}

// dequeueManyOps dequeue a batch: their outputs are batches along
// dimension 0 whatever their shapes say.
var dequeueManyOps = map[string]bool{
	"QueueDequeueMany": true, "QueueDequeueManyV2": true,
	"QueueDequeueUpTo": true, "QueueDequeueUpToV2": true,
}

// getNextOps read the next element of an iterator.
var getNextOps = map[string]bool{
	"IteratorGetNext": true, "IteratorGetNextSync": true,
	"MultiDeviceIteratorGetNextFromShard": true,
}

// IsBatchSource reports whether n's outputs are batches of examples along
// dimension 0: n dequeues many elements of a queue, or reads an iterator
// whose outputs (by its output_shapes or _output_shapes) all have rank ≥ 1
// and the same dimension 0.
func IsBatchSource(n *tfpb.NodeDef) bool {
	if dequeueManyOps[n.GetOp()] {
		return true
	}
	if !getNextOps[n.GetOp()] {
		return false
	}
	for _, key := range []string{"output_shapes", "_output_shapes"} {
		shapes := n.GetAttr()[key].GetList().GetShape()
		if len(shapes) == 0 {
			continue
		}
		var d0 int64
		for i, s := range shapes {
			if s.GetUnknownRank() || len(s.GetDim()) == 0 {
				return false
			}
			if i == 0 {
				d0 = s.GetDim()[0].GetSize()
			} else if s.GetDim()[0].GetSize() != d0 {
				return false
			}
		}
		return true
	}
	return false
}

// dynamicAt reports whether the placeholders that replace n's outputs get
// an unknown batch dimension.
func (m BatchMode) dynamicAt(n *tfpb.NodeDef) bool {
	switch m {
	case BatchDynamic:
		return true
	case BatchAuto:
		return IsBatchSource(n)
	}
	return false
}

// batchCuts collects Extract's dynamic placeholders and the training batch
// sizes their shapes had.
type batchCuts struct {
	sizes        map[int64]bool  // dimension 0 of the relaxed shapes, where it was known
	placeholders map[string]bool // the dynamic placeholders, by name
	kept         []string        // Placeholder inputs kept as they are, to relax (BatchDynamic)
}

// relax makes dimension 0 of shape unknown, for placeholder name.
func (b *batchCuts) relax(name string, shape *tfpb.TensorShapeProto) {
	if shape.GetUnknownRank() || len(shape.GetDim()) == 0 {
		return
	}
	b.placeholders[name] = true
	if d := shape.Dim[0].GetSize(); d >= 0 {
		b.sizes[d] = true
		shape.Dim[0].Size = -1
	}
}

// relaxKept relaxes the shape attr and hint of the kept Placeholders of
// b.kept among nodes (the cut graph's own copies).
func (b *batchCuts) relaxKept(nodes []*tfpb.NodeDef) {
	if len(b.kept) == 0 {
		return
	}
	for _, n := range nodes {
		if !slices.Contains(b.kept, n.GetName()) {
			continue
		}
		if s := ownAttr(n, "shape").GetShape(); s != nil {
			b.relax(n.GetName(), s)
		}
		for _, s := range ownAttr(n, "_output_shapes").GetList().GetShape() {
			b.relax(n.GetName(), s)
		}
	}
}

// ownAttr gives n its own copy of attribute key (and of its attribute map)
// and returns it, for changing: the nodes Extract keeps share their
// attribute values with the graph it cut, which it does not modify.
func ownAttr(n *tfpb.NodeDef, key string) *tfpb.AttrValue {
	v := n.GetAttr()[key]
	if v == nil {
		return nil
	}
	c := proto.CloneOf(v)
	n.Attr = maps.Clone(n.Attr)
	n.Attr[key] = c
	return c
}

// relaxDownstream gives the nodes that depend on a dynamic placeholder
// through data edges the batch of the placeholders, when it was a training
// batch of 2 or more: the folded shapes of their tensors become Shape ops
// again (rebuildShapes), and every dimension of their _output_shapes hints
// equal to a training batch becomes unknown. nodes are the cut graph's own
// copies.
func (b *batchCuts) relaxDownstream(ops *Ops, nodes []*tfpb.NodeDef) {
	delete(b.sizes, 0)
	delete(b.sizes, 1)
	if len(b.placeholders) == 0 || len(b.sizes) == 0 {
		return
	}
	from := slices.Collect(maps.Keys(b.placeholders))
	consumers := dataConsumers(nodes)
	rebuilt := b.rebuildShapes(ops, nodes, consumers, reach(from, consumers))
	// The rebuilt ops read batch tensors: they and what they feed depend
	// on the placeholders now.
	down := reach(from, dataConsumers(nodes))
	for _, n := range nodes {
		if !down[n.GetName()] || b.placeholders[n.GetName()] || rebuilt[n.GetName()] || !b.batchSized(n) {
			continue
		}
		for _, s := range ownAttr(n, "_output_shapes").GetList().GetShape() {
			for _, d := range s.GetDim() {
				if b.sizes[d.GetSize()] {
					d.Size = -1
				}
			}
		}
	}
}

// batchSized reports whether a dimension of n's _output_shapes hints is a
// training batch size.
func (b *batchCuts) batchSized(n *tfpb.NodeDef) bool {
	for _, s := range n.GetAttr()["_output_shapes"].GetList().GetShape() {
		for _, d := range s.GetDim() {
			if b.sizes[d.GetSize()] {
				return true
			}
		}
	}
	return false
}

// dataConsumers maps each node to the nodes that read it through data
// edges.
func dataConsumers(nodes []*tfpb.NodeDef) map[string][]*tfpb.NodeDef {
	consumers := map[string][]*tfpb.NodeDef{}
	for _, n := range nodes {
		for _, in := range n.GetInput() {
			if r, err := ParseInput(in); err == nil && !r.Control {
				consumers[r.Node] = append(consumers[r.Node], n)
			}
		}
	}
	return consumers
}

// reach returns the nodes reachable from the named ones through consumers,
// those included.
func reach(from []string, consumers map[string][]*tfpb.NodeDef) map[string]bool {
	seen := map[string]bool{}
	work := slices.Clone(from)
	for _, name := range from {
		seen[name] = true
	}
	for len(work) > 0 {
		name := work[len(work)-1]
		work = work[:len(work)-1]
		for _, c := range consumers[name] {
			if !seen[c.GetName()] {
				seen[c.GetName()] = true
				work = append(work, c.GetName())
			}
		}
	}
	return seen
}

// shapeConstName and likeConstName match the names TensorFlow gives the
// constants it folds an op of a fully known shape into: tf.shape's
// ("Shape", "Shape_1", "dense_shape" in feature columns' to_sparse_input),
// and tf.zeros_like's and tf.ones_like's.
var (
	shapeConstName = regexp.MustCompile(`^(Shape|shape|dense_shape)(_\d+)?$`)
	likeConstName  = regexp.MustCompile(`^(zeros_like|ones_like)(_\d+)?$`)
)

// rebuildShapes turns back into ops the constants that TensorFlow folded
// from the shapes of batch tensors. Built at a fixed training batch, a
// graph has its tf.shape, tf.zeros_like and tf.ones_like of fully known
// shapes answered at build time: a constant [128, 1] where a Shape op of
// the batch tensor would be, a constant of zeros of shape [128, 1] where a
// ZerosLike would be. Such a constant — named as TensorFlow names them,
// its value (a shape: an int32 or int64 vector of at most 8 elements) or
// its own shape (zeros or ones) starting with a training batch, and
// reaching the placeholders' dependants — becomes the op again, with the
// same name and type, of the tensor it was asked about: one of those
// dependants read in the constant's own name scope (where the call was
// made) whose hinted shape is that shape (and, for zeros and ones, whose
// dtype is the constant's), and which the constant does not feed. A
// constant with no such tensor (the shape of a weight, say) is left as it
// is. It returns the rebuilt Shape ops, whose hints hold a length, not a
// batch.
func (b *batchCuts) rebuildShapes(ops *Ops, nodes []*tfpb.NodeDef, consumers map[string][]*tfpb.NodeDef, down map[string]bool) map[string]bool {
	rebuilt := map[string]bool{}
	for _, c := range nodes {
		if c.GetOp() != "Const" {
			continue
		}
		last := c.GetName()[strings.LastIndexByte(c.GetName(), '/')+1:]
		dt := c.GetAttr()["dtype"].GetType()
		value := c.GetAttr()["value"].GetTensor()
		var op string
		var shape []int64
		var xt tfpb.DataType // the tensor's dtype, 0: any
		switch {
		case shapeConstName.MatchString(last):
			v, ok := intVector(value)
			if !ok || (dt != tfpb.DataType_DT_INT32 && dt != tfpb.DataType_DT_INT64) || len(v) == 0 {
				continue
			}
			op, shape = "Shape", v
		case likeConstName.MatchString(last):
			op = "ZerosLike"
			if strings.HasPrefix(last, "ones") {
				op = "OnesLike"
			}
			if !splatOf(value, op == "OnesLike") {
				continue
			}
			for _, d := range value.GetTensorShape().GetDim() {
				shape = append(shape, d.GetSize())
			}
			xt = dt
		default:
			continue
		}
		if len(shape) == 0 || !b.sizes[shape[0]] {
			continue
		}
		fed := reach([]string{c.GetName()}, consumers)
		reaches := false
		for name := range fed {
			if down[name] {
				reaches = true
				break
			}
		}
		if !reaches {
			continue
		}
		x, t, ok := shapeSource(ops, nodes, c.GetName(), shape, xt, down, fed)
		if !ok {
			continue
		}
		attrs := map[string]*tfpb.AttrValue{"T": {Value: &tfpb.AttrValue_Type{Type: t}}}
		if op == "Shape" {
			attrs["out_type"] = &tfpb.AttrValue{Value: &tfpb.AttrValue_Type{Type: dt}}
		}
		if h := c.GetAttr()["_output_shapes"]; h != nil {
			attrs["_output_shapes"] = h
		}
		c.Op, c.Input, c.Attr = op, []string{x}, attrs
		rebuilt[c.GetName()] = op == "Shape"
	}
	return rebuilt
}

// splatOf reports whether tensor t holds only zeros (one false) or only
// ones (one true), as a constant of tf.zeros_like or tf.ones_like does.
func splatOf(t *tfpb.TensorProto, one bool) bool {
	if t == nil {
		return false
	}
	if raw := t.GetTensorContent(); len(raw) > 0 {
		if one {
			return false // TensorFlow writes ones as a splat, not as bytes
		}
		for _, b := range raw {
			if b != 0 {
				return false
			}
		}
		return true
	}
	want := 0.0
	if one {
		want = 1
	}
	var vals []float64
	for _, v := range t.GetFloatVal() {
		vals = append(vals, float64(v))
	}
	vals = append(vals, t.GetDoubleVal()...)
	for _, v := range t.GetIntVal() {
		vals = append(vals, float64(v))
	}
	for _, v := range t.GetInt64Val() {
		vals = append(vals, float64(v))
	}
	if len(vals) == 0 {
		return !one // no values: zeros
	}
	for _, v := range vals {
		if v != want {
			return false
		}
	}
	return true
}

// shapeSource finds the tensor a folded constant of name was computed from:
// a tensor of the placeholders' dependants (down) whose hinted shape is
// shape (and whose dtype is dt, unless 0), read by a node of the
// constant's name scope, not one the constant feeds (fed). It returns the
// tensor and its dtype.
func shapeSource(ops *Ops, nodes []*tfpb.NodeDef, name string, shape []int64, dt tfpb.DataType, down, fed map[string]bool) (string, tfpb.DataType, bool) {
	byName := make(map[string]*tfpb.NodeDef, len(nodes))
	for _, n := range nodes {
		byName[n.GetName()] = n
	}
	matches := func(r TensorRef) (tfpb.DataType, bool) {
		p := byName[r.Node]
		if p == nil || !down[r.Node] || fed[r.Node] {
			return 0, false
		}
		hints := p.GetAttr()["_output_shapes"].GetList().GetShape()
		if r.Index >= len(hints) || hints[r.Index].GetUnknownRank() || len(hints[r.Index].GetDim()) != len(shape) {
			return 0, false
		}
		for i, d := range hints[r.Index].GetDim() {
			if d.GetSize() != shape[i] {
				return 0, false
			}
		}
		types, err := ops.OutputTypes(p)
		if err != nil || r.Index >= len(types) || dt != 0 && types[r.Index] != dt {
			return 0, false
		}
		return types[r.Index], true
	}
	scope := ""
	if i := strings.LastIndexByte(name, '/'); i >= 0 {
		scope = name[:i+1]
	}
	for _, n := range nodes {
		if scope != "" && !strings.HasPrefix(n.GetName(), scope) {
			continue
		}
		for _, in := range n.GetInput() {
			r, err := ParseInput(in)
			if err != nil || r.Control {
				continue
			}
			if t, ok := matches(r); ok {
				return in, t, true
			}
		}
	}
	return "", 0, false
}

// intVector returns the elements of an int32 or int64 tensor of rank ≤ 1.
func intVector(t *tfpb.TensorProto) ([]int64, bool) {
	if t == nil {
		return nil, false
	}
	dims := t.GetTensorShape().GetDim()
	if len(dims) > 1 {
		return nil, false
	}
	n := int64(1)
	if len(dims) == 1 {
		n = dims[0].GetSize()
	}
	if n < 0 || n > 8 {
		return nil, false
	}
	var vals []int64
	switch t.GetDtype() {
	case tfpb.DataType_DT_INT32:
		if raw := t.GetTensorContent(); len(raw) > 0 {
			if int64(len(raw)) != 4*n {
				return nil, false
			}
			for i := range n {
				vals = append(vals, int64(int32(binary.LittleEndian.Uint32(raw[4*i:]))))
			}
			return vals, true
		}
		for _, v := range t.GetIntVal() {
			vals = append(vals, int64(v))
		}
	case tfpb.DataType_DT_INT64:
		if raw := t.GetTensorContent(); len(raw) > 0 {
			if int64(len(raw)) != 8*n {
				return nil, false
			}
			for i := range n {
				vals = append(vals, int64(binary.LittleEndian.Uint64(raw[8*i:])))
			}
			return vals, true
		}
		vals = append(vals, t.GetInt64Val()...)
	default:
		return nil, false
	}
	// A short list repeats its last element (a splat).
	if int64(len(vals)) > n || len(vals) == 0 && n > 0 {
		return nil, false
	}
	for int64(len(vals)) < n {
		vals = append(vals, vals[len(vals)-1])
	}
	return vals, true
}

// ExpandInputs returns inputs with every "node" that names a node of g with
// more than one output replaced by all its outputs, "node:0" to
// "node:<k-1>" ("node:i" selects one output; a single-output "node" stays as
// it is). A node g lacks, or whose outputs cannot be counted, is left for
// Extract to report.
func ExpandInputs(g *tfpb.GraphDef, inputs []string) ([]string, error) {
	byName := make(map[string]*tfpb.NodeDef, len(g.GetNode()))
	for _, n := range g.GetNode() {
		byName[n.GetName()] = n
	}
	return expandInputs(NewOps(g.GetLibrary()), byName, inputs)
}

func expandInputs(ops *Ops, byName map[string]*tfpb.NodeDef, inputs []string) ([]string, error) {
	var out []string
	for _, in := range inputs {
		if strings.ContainsAny(in, ":^") {
			out = append(out, in)
			continue
		}
		r, err := ParseInput(in)
		if err != nil {
			return nil, fmt.Errorf("extract: input %q: %w", in, err)
		}
		n, ok := byName[r.Node]
		if !ok {
			out = append(out, in)
			continue
		}
		k, err := ops.NumOutputs(n)
		if err != nil || k <= 1 {
			out = append(out, in)
			continue
		}
		for i := range k {
			out = append(out, r.Node+":"+strconv.Itoa(i))
		}
	}
	return out, nil
}
