package graphdef

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

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
		return BatchAuto, fmt.Errorf("dynamic batch %q: want auto, true or false", s)
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
		if s := n.GetAttr()["shape"].GetShape(); s != nil {
			b.relax(n.GetName(), s)
		}
		for _, s := range n.GetAttr()["_output_shapes"].GetList().GetShape() {
			b.relax(n.GetName(), s)
		}
	}
}

// relaxDownstream makes unknown, in the _output_shapes hints of the nodes
// that depend on a dynamic placeholder through data edges, every dimension
// equal to a training batch size of 2 or more. nodes are the cut graph's
// own copies.
func (b *batchCuts) relaxDownstream(nodes []*tfpb.NodeDef) {
	delete(b.sizes, 0)
	delete(b.sizes, 1)
	if len(b.placeholders) == 0 || len(b.sizes) == 0 {
		return
	}
	consumers := map[string][]*tfpb.NodeDef{}
	for _, n := range nodes {
		for _, in := range n.GetInput() {
			if r, err := ParseInput(in); err == nil && !r.Control {
				consumers[r.Node] = append(consumers[r.Node], n)
			}
		}
	}
	seen := map[string]bool{}
	var work []string
	for name := range b.placeholders {
		seen[name] = true
		work = append(work, name)
	}
	for len(work) > 0 {
		name := work[len(work)-1]
		work = work[:len(work)-1]
		for _, c := range consumers[name] {
			if seen[c.GetName()] {
				continue
			}
			seen[c.GetName()] = true
			work = append(work, c.GetName())
			for _, s := range c.GetAttr()["_output_shapes"].GetList().GetShape() {
				for _, d := range s.GetDim() {
					if b.sizes[d.GetSize()] {
						d.Size = -1
					}
				}
			}
		}
	}
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
