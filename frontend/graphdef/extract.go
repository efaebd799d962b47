package graphdef

import (
	"errors"
	"fmt"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"

	"google.golang.org/protobuf/proto"

	"github.com/recom-compiler/recom/frontend/graphdef/tfpb"
)

// ErrNotInference is carried by the NodeErrors of Extract for nodes that
// cannot run in an inference graph.
var ErrNotInference = errors.New("cannot run at inference")

// trainingOpName matches ops that are training-only even when they are not
// in the built-in table: optimizer applies and gradient kernels.
var trainingOpName = regexp.MustCompile(`^(Resource)?(Sparse)?Apply[A-Z]|Grad(V\d+)?$`)

// PlaceholderName returns the name Extract gives the Placeholder that
// replaces output idx of node producer: the producer's own name when it has
// a single output (so the tensor keeps its name, "node:0"), else
// "<producer>/out<idx>". Extract appends "_1", "_2", ... if that name is taken.
func PlaceholderName(producer string, idx, numOutputs int) string {
	if numOutputs == 1 && idx == 0 {
		return producer
	}
	return producer + "/out" + strconv.Itoa(idx)
}

// ExtractOptions tunes Extract.
type ExtractOptions struct {
	// FollowControl keeps the sources of control inputs too. By default only
	// data edges decide what is needed: Estimator graphs hang training-time
	// work off the inference path through control edges (global-step
	// increments on input-layer constants, tf.debugging asserts guarded by
	// Switch/Merge on indicator columns), none of which inference needs.
	FollowControl bool
	// Batch says which placeholders get an unknown batch dimension (see
	// BatchMode); the zero value, BatchAuto, gives it to those that replace
	// a queue's or an iterator's batches.
	Batch BatchMode
}

// Extract returns the inference subgraph of g that computes outputs when
// inputs are fed; it is ExtractWith with default options. g is not modified.
//
// Each input is a tensor "node:idx", or "node" for every output of node
// (ExpandInputs). It becomes a Placeholder (named by PlaceholderName) whose
// dtype comes from the producer's op signature (e.g. IteratorGetNext's
// output_types[idx]) and whose shape comes from the producer's output_shapes
// or _output_shapes attr (unknown rank when neither says); consumers are
// rewired to it. An input that already is a Placeholder is kept as it is.
// A placeholder that replaces a batch of a queue or an iterator (a
// DequeueMany, DequeueUpTo or GetNext output) has an unknown batch
// dimension, and the hints of the nodes it feeds are relaxed to match (see
// BatchMode).
//
// Each output is "node", "node:idx" or "^node" (a node run for its effect).
// Everything the outputs need through data edges (and control edges, with
// FollowControl) is kept, in g's order; the rest is pruned, including
// library functions no kept node calls, and debug_info. A kept lookup table
// keeps its initializers (LookupTableImportV2, InitializeTableV2,
// InitializeTableFromTextFileV2, ... whose table_handle is the table) and
// what they need: they hang off the graph only through init_all_tables'
// control edges, yet a table's contents live in them, not in a checkpoint,
// so without them the table would be empty at inference (and a vocabulary
// column could not be recognised). Control inputs from pruned or cut nodes
// are dropped. If a kept node cannot run at inference — an uncut iterator,
// TF1 control flow (Switch, Merge, Enter, ...), a training op (optimizer
// apply, gradient, Assign, a table initialiser of no kept table), a saver,
// summary or queue op — Extract fails with a *NodeError per such node
// (joined, wrapping ErrNotInference) that says why and which node needed it.
//
// The nodes of the result are new (their inputs rewired), but they share
// their attribute values (AttrValue messages, tensors) with g's nodes:
// copying them all made Extract several times slower on large graphs.
// Neither graph's attribute values may be changed while the other is used.
func Extract(g *tfpb.GraphDef, inputs []string, outputs []string) (*tfpb.GraphDef, error) {
	return ExtractWith(g, inputs, outputs, ExtractOptions{})
}

// ExtractWith is Extract with options.
func ExtractWith(g *tfpb.GraphDef, inputs []string, outputs []string, opts ExtractOptions) (*tfpb.GraphDef, error) {
	if len(outputs) == 0 {
		return nil, errors.New("extract: no outputs requested")
	}
	ops := NewOps(g.GetLibrary())
	byName := make(map[string]*tfpb.NodeDef, len(g.GetNode()))
	for _, n := range g.GetNode() {
		if _, dup := byName[n.GetName()]; dup {
			return nil, &NodeError{Node: n.GetName(), Err: ErrDuplicateName}
		}
		byName[n.GetName()] = n
	}
	taken := func(name string) bool { _, ok := byName[name]; return ok }
	inputs, err := expandInputs(ops, byName, inputs)
	if err != nil {
		return nil, err
	}

	// Plan the cuts.
	type cut struct {
		node *tfpb.NodeDef
		idx  int
		ph   *tfpb.NodeDef // nil: the producer is a Placeholder kept as is
	}
	cutTensor := map[TensorRef]string{} // (node, idx) -> replacement tensor name
	cutsOf := map[string][]*cut{}       // producer -> its cuts, by idx
	replaced := map[string]bool{}       // producers wholly replaced by a same-named placeholder
	newNames := map[string]bool{}
	batch := batchCuts{sizes: map[int64]bool{}, placeholders: map[string]bool{}}
	for _, in := range inputs {
		r, err := ParseInput(in)
		if err != nil {
			return nil, fmt.Errorf("extract: input %q: %w", in, err)
		}
		if r.Control {
			return nil, fmt.Errorf("extract: input %q: a control input cannot be fed", in)
		}
		n, ok := byName[r.Node]
		if !ok {
			return nil, fmt.Errorf("extract: input %q: %w: no node %q", in, ErrMissingInput, r.Node)
		}
		if _, dup := cutTensor[TensorRef{Node: r.Node, Index: r.Index}]; dup {
			continue
		}
		c := &cut{node: n, idx: r.Index}
		if n.GetOp() == "Placeholder" && r.Index == 0 {
			cutTensor[TensorRef{Node: r.Node}] = r.Node
			cutsOf[r.Node] = append(cutsOf[r.Node], c)
			if opts.Batch == BatchDynamic {
				batch.kept = append(batch.kept, r.Node)
			}
			continue
		}
		types, err := ops.OutputTypes(n)
		if err != nil {
			return nil, fmt.Errorf("extract: input %q: cannot tell its dtype: %w", in, err)
		}
		if r.Index >= len(types) {
			return nil, &NodeError{Node: r.Node, Err: fmt.Errorf("%w: input %q: op %s has %d outputs", ErrBadOutputIndex, in, n.GetOp(), len(types))}
		}
		dt := types[r.Index]
		if dt > 100 {
			dt -= 100 // a placeholder feeds the value, not the ref
		}
		name := PlaceholderName(r.Node, r.Index, len(types))
		if name == r.Node {
			replaced[r.Node] = true
		} else {
			base := name
			for k := 1; taken(name) || newNames[name]; k++ {
				name = base + "_" + strconv.Itoa(k)
			}
		}
		newNames[name] = true
		shape := outputShape(n, r.Index)
		if opts.Batch.dynamicAt(n) {
			batch.relax(name, shape)
		}
		c.ph = &tfpb.NodeDef{
			Name: name,
			Op:   "Placeholder",
			Attr: map[string]*tfpb.AttrValue{
				"dtype":          {Value: &tfpb.AttrValue_Type{Type: dt}},
				"shape":          {Value: &tfpb.AttrValue_Shape{Shape: shape}},
				"_output_shapes": {Value: &tfpb.AttrValue_List{List: &tfpb.AttrValue_ListValue{Shape: []*tfpb.TensorShapeProto{proto.CloneOf(shape)}}}},
			},
		}
		cutTensor[TensorRef{Node: r.Node, Index: r.Index}] = name
		cutsOf[r.Node] = append(cutsOf[r.Node], c)
	}

	// rewire returns n's inputs with cut tensors replaced.
	rewire := func(n *tfpb.NodeDef) []string {
		if len(cutsOf) == 0 {
			// Nothing is cut (outputs alone were given): the inputs stay.
			return slices.Clone(n.GetInput())
		}
		var out []string
		for _, in := range n.GetInput() {
			r, err := ParseInput(in)
			if err != nil {
				out = append(out, in)
				continue
			}
			if r.Control {
				if len(cutsOf[r.Node]) > 0 && !replaced[r.Node] && cutsOf[r.Node][0].ph != nil {
					continue // control input on a cut multi-output node: dropped
				}
				out = append(out, in)
				continue
			}
			if name, ok := cutTensor[TensorRef{Node: r.Node, Index: r.Index}]; ok {
				out = append(out, name)
				continue
			}
			out = append(out, in)
		}
		return out
	}

	// The nodes of the new graph by id: g's nodes by index, then the
	// placeholders. A placeholder takes the name of a producer it replaces
	// whole, so ids are looked up by name through the placeholders first.
	orig := g.GetNode()
	var phs []*tfpb.NodeDef
	phID := map[string]int32{}
	for _, cs := range cutsOf {
		for _, c := range cs {
			if c.ph != nil {
				phID[c.ph.GetName()] = int32(len(orig) + len(phs))
				phs = append(phs, c.ph)
			}
		}
	}
	index := make(map[string]int32, len(orig))
	for i, n := range orig {
		index[n.GetName()] = int32(i)
	}
	// id returns the node called name in the new graph, or -1.
	id := func(name string) int32 {
		if len(phID) > 0 {
			if i, ok := phID[name]; ok {
				return i
			}
		}
		if i, ok := index[name]; ok && (len(replaced) == 0 || !replaced[name]) {
			return i
		}
		return -1
	}
	nodes := make([]*tfpb.NodeDef, len(orig)+len(phs))
	copy(nodes[len(orig):], phs)
	// node returns node i of the new graph: an original is copied on first
	// use with its inputs rewired. The copy shares its attribute values
	// with g (see ExtractWith's doc): the proto.Clone of every kept node
	// was most of the time Extract took on large graphs.
	node := func(i int32) *tfpb.NodeDef {
		if nodes[i] == nil {
			o := orig[i]
			nodes[i] = &tfpb.NodeDef{Name: o.GetName(), Op: o.GetOp(), Input: rewire(o), Device: o.GetDevice(),
				Attr: o.GetAttr(), ExperimentalDebugInfo: o.GetExperimentalDebugInfo(), ExperimentalType: o.GetExperimentalType()}
		}
		return nodes[i]
	}

	// initsOf lists, per table node, the initializers that fill it: nodes of
	// a table-initialisation op whose table_handle input is that node's
	// output 0, uncut.
	initsOf := map[string][]string{}
	for _, n := range orig {
		if !tableInitOps[n.GetOp()] || len(n.GetInput()) == 0 {
			continue
		}
		r, err := ParseInput(n.GetInput()[0])
		if err != nil || r.Control || r.Index != 0 {
			continue
		}
		if _, cut := cutTensor[TensorRef{Node: r.Node}]; cut {
			continue
		}
		initsOf[r.Node] = append(initsOf[r.Node], n.GetName())
	}

	// Mark what the outputs need: neededBy[i] says why node i is kept (its
	// text is made only for an error).
	neededBy := make([]need, len(nodes))
	var queue []int32
	var errs []error
	for _, out := range outputs {
		r, err := ParseInput(out)
		if err != nil {
			return nil, fmt.Errorf("extract: output %q: %w", out, err)
		}
		name := r.Node
		if !r.Control {
			if t, ok := cutTensor[TensorRef{Node: r.Node, Index: r.Index}]; ok {
				name = t
			}
		}
		i := id(name)
		if i < 0 {
			return nil, fmt.Errorf("extract: output %q: %w: no node %q", out, ErrMissingInput, r.Node)
		}
		n := node(i)
		if !r.Control && n.GetOp() != "Placeholder" {
			if k, err := ops.NumOutputs(n); err == nil && r.Index >= k {
				return nil, &NodeError{Node: r.Node, Err: fmt.Errorf("%w: output %q: op %s has %d outputs", ErrBadOutputIndex, out, n.GetOp(), k)}
			}
		}
		if neededBy[i].kind == 0 {
			neededBy[i] = need{kind: byOutput, from: out}
			queue = append(queue, i)
		}
	}
	for len(queue) > 0 {
		i := queue[0]
		queue = queue[1:]
		n := nodes[i]
		name := n.GetName()
		for _, init := range initsOf[name] {
			j := id(init)
			if j < 0 || neededBy[j].kind != 0 {
				continue
			}
			node(j)
			neededBy[j] = need{kind: byTable, from: name}
			queue = append(queue, j)
		}
		for _, in := range n.GetInput() {
			r, err := ParseInput(in)
			if err != nil {
				errs = append(errs, &NodeError{Node: name, Err: err})
				continue
			}
			if r.Control && !opts.FollowControl {
				continue
			}
			j := id(r.Node)
			if j >= 0 && neededBy[j].kind != 0 {
				continue
			}
			if j < 0 {
				errs = append(errs, &NodeError{Node: name, Err: fmt.Errorf("%w: input %q: no node %q", ErrMissingInput, in, r.Node)})
				continue
			}
			node(j)
			neededBy[j] = need{kind: byNode, from: name}
			queue = append(queue, j)
		}
	}

	// Emit in g's order, placeholders where their producer was.
	//lint:ignore SA1019 field 3 (version) is part of TensorFlow's wire format; the cut graph keeps it
	res := &tfpb.GraphDef{Versions: proto.CloneOf(g.GetVersions()), Version: g.GetVersion()}
	var keptIDs []int32 // the ids of res.Node
	for _, o := range orig {
		cs := cutsOf[o.GetName()]
		sort.SliceStable(cs, func(i, j int) bool { return cs[i].idx < cs[j].idx })
		for _, c := range cs {
			if c.ph != nil && c.ph.GetName() != o.GetName() {
				if j := phID[c.ph.GetName()]; neededBy[j].kind != 0 {
					res.Node = append(res.Node, nodes[j])
					keptIDs = append(keptIDs, j)
				}
			}
		}
		if j := id(o.GetName()); j >= 0 && neededBy[j].kind != 0 {
			res.Node = append(res.Node, nodes[j])
			keptIDs = append(keptIDs, j)
		}
	}

	// Drop control inputs from pruned nodes.
	for _, n := range res.Node {
		kept := n.Input[:0]
		for _, in := range n.Input {
			if !strings.HasPrefix(in, "^") {
				kept = append(kept, in) // a data input: its producer is kept
				continue
			}
			if r, err := ParseInput(in); err == nil && r.Control {
				if j := id(r.Node); j < 0 || neededBy[j].kind == 0 {
					continue
				}
			}
			kept = append(kept, in)
		}
		n.Input = kept
	}

	batch.relaxKept(res.Node)
	batch.relaxDownstream(ops, res.Node)

	// Refuse what cannot run at inference.
	for k, n := range res.Node {
		if len(errs) >= maxErrors {
			break
		}
		if why := notInference(ops, n); why != "" {
			errs = append(errs, &NodeError{Node: n.GetName(),
				Err: fmt.Errorf("%w: %s (needed by %s)", ErrNotInference, why, neededBy[keptIDs[k]])})
		}
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	res.Library = pruneLibrary(g.GetLibrary(), res.Node)
	return res, nil
}

// need says why Extract keeps a node: an output names it, it initialises a
// kept table, or a kept node takes its output.
type need struct {
	kind needKind
	from string // the output, the table or the node
}

type needKind uint8

const (
	notNeeded needKind = iota
	byOutput
	byTable
	byNode
)

func (n need) String() string {
	switch n.kind {
	case byOutput:
		return "output " + strconv.Quote(n.from)
	case byTable:
		return "table " + strconv.Quote(n.from) + ", which it initialises"
	case byNode:
		return "node " + strconv.Quote(n.from)
	}
	return "nothing"
}

// tableInitOps are the ops that fill a lookup table (input 0 is the table).
// They are training-category ops, but Extract keeps those of kept tables:
// at inference they run once, when the model is loaded.
var tableInitOps = map[string]bool{
	"LookupTableImportV2": true, "LookupTableImport": true,
	"InitializeTableV2": true, "InitializeTable": true,
	"InitializeTableFromTextFileV2": true, "InitializeTableFromTextFile": true,
}

// notInference says why n cannot be part of an inference graph, or "".
// A table initializer is fine: Extract keeps only those of kept tables.
func notInference(ops *Ops, n *tfpb.NodeDef) string {
	op := n.GetOp()
	if tableInitOps[op] {
		return ""
	}
	s, known := ops.Signature(op)
	if !known {
		if trainingOpName.MatchString(op) {
			return fmt.Sprintf("op %s is a training op (optimizer or gradient)", op)
		}
		return ""
	}
	switch s.Category {
	case Iterator:
		return fmt.Sprintf("op %s reads a tf.data iterator; feed its outputs instead (pass them as inputs)", op)
	case ControlFlow:
		return fmt.Sprintf("op %s is unresolved TF1 control flow; cut the graph before it or choose outputs that do not need it", op)
	case Training:
		return fmt.Sprintf("op %s is training-only (it updates state, initialises it, or computes gradients)", op)
	case Checkpoint:
		return fmt.Sprintf("op %s saves or restores checkpoints", op)
	case Summary:
		return fmt.Sprintf("op %s writes summaries", op)
	case Queue:
		return fmt.Sprintf("op %s uses a TF1 input queue", op)
	}
	return ""
}

// outputShape returns the static shape of output idx of n, from the
// output_shapes attr (iterators) or the _output_shapes hint, else unknown rank.
func outputShape(n *tfpb.NodeDef, idx int) *tfpb.TensorShapeProto {
	for _, key := range []string{"output_shapes", "_output_shapes"} {
		if l := n.GetAttr()[key].GetList(); l != nil && idx < len(l.GetShape()) {
			return proto.CloneOf(l.GetShape()[idx])
		}
	}
	return &tfpb.TensorShapeProto{UnknownRank: true}
}

// pruneLibrary keeps the functions that nodes call, directly (op name) or
// through func attrs, transitively.
func pruneLibrary(lib *tfpb.FunctionDefLibrary, nodes []*tfpb.NodeDef) *tfpb.FunctionDefLibrary {
	if len(lib.GetFunction()) == 0 {
		return nil
	}
	fns := map[string]*tfpb.FunctionDef{}
	for _, f := range lib.GetFunction() {
		fns[f.GetSignature().GetName()] = f
	}
	keep := map[string]bool{}
	var work []string
	use := func(name string) {
		if _, ok := fns[name]; ok && !keep[name] {
			keep[name] = true
			work = append(work, name)
		}
	}
	var visitAttr func(v *tfpb.AttrValue)
	visitAttr = func(v *tfpb.AttrValue) {
		if f := v.GetFunc(); f != nil {
			use(f.GetName())
			for _, a := range f.GetAttr() {
				visitAttr(a)
			}
		}
		for _, f := range v.GetList().GetFunc() {
			use(f.GetName())
			for _, a := range f.GetAttr() {
				visitAttr(a)
			}
		}
	}
	visitNode := func(n *tfpb.NodeDef) {
		use(n.GetOp())
		for _, a := range n.GetAttr() {
			visitAttr(a)
		}
	}
	for _, n := range nodes {
		visitNode(n)
	}
	for len(work) > 0 {
		f := fns[work[0]]
		work = work[1:]
		for _, n := range f.GetNodeDef() {
			visitNode(n)
		}
		for _, a := range f.GetAttr() {
			visitAttr(a)
		}
	}
	if len(keep) == 0 {
		return nil
	}
	out := &tfpb.FunctionDefLibrary{}
	for _, f := range lib.GetFunction() {
		if keep[f.GetSignature().GetName()] {
			out.Function = append(out.Function, proto.CloneOf(f))
		}
	}
	for _, gd := range lib.GetGradient() {
		if keep[gd.GetFunctionName()] && keep[gd.GetGradientFunc()] {
			out.Gradient = append(out.Gradient, proto.CloneOf(gd))
		}
	}
	return out
}
