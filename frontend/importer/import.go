// Package importer converts TensorFlow GraphDefs to the tfg dialect and back.
//
// Import makes one tfg op per node inside a "tfg.graph" op (see package
// dialects/tfg for the mapping); Export inverts it. Import → Export → Import
// gives identical IR, and the exported graph has the original's nodes, ops,
// inputs, devices and attributes (tensors compare by value: a tensor written
// as tensor_content may come back as a *_val splat and vice versa).
package importer

import (
	"errors"
	"fmt"
	"maps"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/recom-compiler/recom/dialects/tfg"
	"github.com/recom-compiler/recom/frontend/graphdef"
	"github.com/recom-compiler/recom/frontend/graphdef/tfpb"
	"github.com/recom-compiler/recom/textir"
	"google.golang.org/protobuf/proto"
)

// Reserved attribute names carrying NodeDef fields other than attr.
const (
	AttrName      = "_mlir_name"
	AttrDevice    = "_mlir_device"
	AttrFullType  = "_mlir_fulltype"
	AttrDebugInfo = "_mlir_debug_info"
)

// Graph-level attributes of tfg.graph.
const (
	GraphVersions  = "versions"
	GraphVersion   = "version"    // the deprecated GraphDef.version
	GraphLibrary   = "library"    // the FunctionDefLibrary, binary-encoded (kept for export; calls are inlined before import by graphdef.Inline)
	GraphDebugInfo = "debug_info" // GraphDebugInfo, binary-encoded
)

// unknownElem is the element type of outputs whose dtype cannot be known
// (ops without a signature or hints).
func unknownElem() textir.Type { return textir.OpaqueTypeOf(tfg.Name, "unknown", "") }

// Error is an import or export failure about one node.
type Error struct {
	Node string
	Msg  string
}

func (e *Error) Error() string { return fmt.Sprintf("node %q: %s", e.Node, e.Msg) }

func nodeErr(node, format string, args ...any) error {
	return &Error{Node: node, Msg: fmt.Sprintf(format, args...)}
}

// Import converts g into a builtin.module holding one tfg.graph op.
func Import(ctx *textir.Context, g *tfpb.GraphDef) (*textir.Operation, error) {
	return ImportWith(ctx, g, Options{})
}

// Options are ImportWith's.
type Options struct {
	// Check runs graphdef's structural checks (graphdef.Validate) with
	// the import, on the same index of the graph; their errors win over
	// the import's.
	Check bool
	// Consume lets the import drop each node's attributes (NodeDef.Attr,
	// set to nil) once it has converted them, so that the GraphDef's
	// memory goes as the module's grows: for a caller that does not read
	// them afterwards.
	Consume bool
	// Progress, when set, is called (on the goroutine that called
	// ImportWith) as each tenth of the nodes is converted, with the
	// nodes of the tenths done (t×total/10) and the total, and once more
	// as all are converted and linked.
	Progress func(done, total int)
}

// How the nodes are shared among the converting goroutines: convertChunk
// nodes at a time, by importWorkers goroutines (0: GOMAXPROCS) for graphs
// of parallelMinNodes nodes or more. Variables for tests.
var (
	convertChunk     = 2048
	importWorkers    = 0
	parallelMinNodes = 4096
)

// ImportWith is Import with options.
//
// The nodes are converted (attributes, result types, the op without its
// operands) by GOMAXPROCS goroutines while another indexes the graph's
// names and inputs (graphdef.NewIndex); the ops are then linked in node
// order. A node whose conversion depends on the rest of the graph — an op
// without a signature, whose outputs its users count, or a tensor to
// expand, charged to the one budget of the whole graph — is converted
// afterwards, in node order, so the module and the first error are those
// of converting the nodes one by one.
func ImportWith(ctx *textir.Context, g *tfpb.GraphDef, o Options) (*textir.Operation, error) {
	nodes := g.GetNode()
	ops := graphdef.NewOps(g.GetLibrary())
	var x *graphdef.Index
	indexed := make(chan struct{})
	go func() {
		defer close(indexed)
		x = graphdef.NewIndex(g)
	}()

	im := &nodeImporter{ops: ops, ctx: ctx, nodes: nodes, created: make([]*textir.Operation, len(nodes)), consume: o.Consume}
	if o.Check {
		im.facts = make([]graphdef.NodeFacts, len(nodes))
	}
	workers := importWorkers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	if len(nodes) < parallelMinNodes {
		workers = 1
	}
	results := make([]workerResult, workers)
	// Each tenth of the nodes converted is reported once, as the first
	// chunk that reaches it ends (at most 9 reports before the end).
	tenths := make(chan int, 10)
	var next, done atomic.Int64
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			res := &results[w]
			res.firstErr = len(nodes)
			conv := &converter{deferExpand: true}
			for {
				lo := int(next.Add(int64(convertChunk))) - convertChunk
				if lo >= len(nodes) {
					return
				}
				hi := min(lo+convertChunk, len(nodes))
				for i := lo; i < hi; i++ {
					err := im.convert(i, conv, -1)
					switch {
					case err == errDeferred:
						res.deferred = append(res.deferred, i)
					case err != nil && i < res.firstErr:
						res.firstErr, res.err = i, err
					}
				}
				d := int(done.Add(int64(hi - lo)))
				for t := (d-(hi-lo))*10/len(nodes) + 1; t <= d*10/len(nodes) && t < 10; t++ {
					tenths <- t
				}
			}
		}()
	}
	go func() { wg.Wait(); close(tenths) }()
	reported := 0
	for t := range tenths {
		// Two goroutines may send their tenths out of order.
		for ; reported < t; reported++ {
			if o.Progress != nil {
				o.Progress((reported+1)*len(nodes)/10, len(nodes))
			}
		}
	}
	wg.Wait()
	<-indexed

	// The checks (on the facts the workers noted), then the import's own
	// errors in the order converting the nodes one by one finds them.
	if o.Check {
		if err := x.Check(func(i int) graphdef.NodeFacts { return im.facts[i] }); err != nil {
			return nil, err
		}
	}
	maxUse, err := structureErrors(nodes, x)
	if err != nil {
		return nil, err
	}
	firstErr, convErr := len(nodes), error(nil)
	var deferred []int
	for _, r := range results {
		if r.firstErr < firstErr {
			firstErr, convErr = r.firstErr, r.err
		}
		deferred = append(deferred, r.deferred...)
	}
	slices.Sort(deferred)
	conv := new(converter)
	for _, i := range deferred {
		if i > firstErr {
			break
		}
		if err := im.convert(i, conv, maxUse[i]); err != nil {
			firstErr, convErr = i, err
			break
		}
	}
	if convErr != nil {
		return nil, convErr
	}

	graph := ctx.Create(&textir.OperationState{Name: "tfg.graph", NumRegions: 1, Loc: textir.UnknownLoc{}})
	if err := setGraphAttrs(graph, g); err != nil {
		return nil, err
	}
	body := textir.NewBlock()
	graph.Region(0).AppendBlock(body)
	created := im.created
	for _, op := range created {
		body.Append(op)
	}
	var vals []*textir.Value
	for i, n := range nodes {
		ins := x.Inputs(i)
		if len(ins) == 0 {
			continue
		}
		vals = vals[:0]
		for j, r := range ins {
			p := created[r.Node]
			if r.Control {
				vals = append(vals, p.Result(p.NumResults()-1))
				continue
			}
			if r.Index >= p.NumResults()-1 {
				return nil, nodeErr(n.Name, "input %q: node %q has %d outputs", n.Input[j], nodes[r.Node].GetName(), p.NumResults()-1)
			}
			vals = append(vals, p.Result(r.Index))
		}
		created[i].SetOperands(vals)
	}
	if o.Progress != nil {
		o.Progress(len(nodes), len(nodes))
	}

	module := ctx.Create(&textir.OperationState{Name: "builtin.module", NumRegions: 1, Loc: textir.UnknownLoc{}})
	mb := textir.NewBlock()
	module.Region(0).AppendBlock(mb)
	mb.Append(graph)
	return module, nil
}

// workerResult is what one converting goroutine leaves: the first node it
// failed to convert (len(nodes) for none) and why, and the nodes it left
// for later (errDeferred), in increasing order.
type workerResult struct {
	firstErr int
	err      error
	deferred []int
}

// structureErrors returns the first problem of the graph's names and inputs
// as the import reports it (graphdef.Validate reports them all, in its own
// words): a node without a name, a name held twice, then the inputs of
// each node in order. It also returns, for each node, how many of its
// outputs its users read (the outputs of an op without a signature).
func structureErrors(nodes []*tfpb.NodeDef, x *graphdef.Index) ([]int, error) {
	for i, n := range nodes {
		if n.Name == "" {
			return nil, nodeErr(fmt.Sprintf("#%d", i), "node has no name")
		}
		if !x.First(i) {
			return nil, nodeErr(n.Name, "duplicate node name")
		}
	}
	maxUse := make([]int, len(nodes))
	for i, n := range nodes {
		seenControl := false
		for j, r := range x.Inputs(i) {
			s := n.Input[j]
			switch r.Node {
			case graphdef.InputMalformed:
				_, err := graphdef.ParseInput(s)
				return nil, nodeErr(n.Name, "%v", err)
			case graphdef.InputMissing:
				return nil, nodeErr(n.Name, "input %q names a missing node", s)
			}
			if r.Control {
				seenControl = true
			} else if seenControl {
				return nil, nodeErr(n.Name, "data input %q after a control input", s)
			}
			if !r.Control && r.Index+1 > maxUse[r.Node] {
				maxUse[r.Node] = r.Index + 1
			}
		}
	}
	return maxUse, nil
}

// nodeImporter converts the nodes of one graph into ops (without their
// operands).
type nodeImporter struct {
	ops     *graphdef.Ops
	ctx     *textir.Context
	nodes   []*tfpb.NodeDef
	created []*textir.Operation
	facts   []graphdef.NodeFacts // the checks' (Options.Check), else nil
	consume bool
}

// convert converts node i into created[i] with conv. used is how many
// outputs the node's users read, or -1 while unknown: an op without a
// signature then returns errDeferred, as does a tensor to expand with a
// converter that defers them. A node it leaves keeps its attributes.
func (im *nodeImporter) convert(i int, conv *converter, used int) error {
	n := im.nodes[i]
	if im.facts != nil && used < 0 {
		im.facts[i] = im.ops.Facts(n)
	}
	types, err := outputTypes(im.ops, n, used)
	if err != nil {
		return err
	}
	st := &textir.OperationState{Name: "tfg." + n.Op, Loc: textir.NameLoc{Name: n.Name}, ResultTypes: append(types, tfg.Control())}
	st.Attrs = make([]textir.NamedAttribute, 0, 2+len(n.Attr))
	st.AddAttr(AttrName, textir.Str(n.Name))
	if n.Device != "" {
		st.AddAttr(AttrDevice, textir.Str(n.Device))
	}
	if n.ExperimentalType != nil {
		st.AddAttr(AttrFullType, FullType(n.ExperimentalType))
	}
	if d := n.ExperimentalDebugInfo; d != nil {
		st.AddAttr(AttrDebugInfo, textir.NewDictAttr([]textir.NamedAttribute{
			{Name: "original_func_names", Value: strArray(d.OriginalFuncNames)},
			{Name: "original_node_names", Value: strArray(d.OriginalNodeNames)},
		}))
	}
	for _, k := range slices.Sorted(maps.Keys(n.Attr)) {
		if k == "" {
			return nodeErr(n.Name, "attribute with an empty name")
		}
		if isReserved(k) {
			return nodeErr(n.Name, "attribute name %q is reserved by the importer", k)
		}
		if d := attrDepth(n.Attr[k]); d > textir.MaxNesting-attrNestingMargin {
			return nodeErr(n.Name, "attribute %q: %v", k, &textir.LimitError{What: "functions and lists nested too deeply",
				Limit: textir.MaxNesting - attrNestingMargin, Unit: "levels of textual IR", Env: textir.EnvMaxNesting})
		}
		a, err := conv.attr(n.Attr[k])
		if err != nil {
			if errors.Is(err, errDeferred) {
				return errDeferred
			}
			return nodeErr(n.Name, "attribute %q: %v", k, err)
		}
		st.AddAttr(k, a)
	}
	im.created[i] = im.ctx.Create(st)
	if im.consume {
		n.Attr = nil
	}
	return nil
}

func isReserved(name string) bool {
	switch name {
	case AttrName, AttrDevice, AttrFullType, AttrDebugInfo:
		return true
	}
	return false
}

func strArray(ss []string) textir.ArrayAttr {
	a := textir.ArrayAttr{Elems: []textir.Attribute{}}
	for _, s := range ss {
		a.Elems = append(a.Elems, textir.Str(s))
	}
	return a
}

// outputTypes returns the data result types of n: dtypes from the op's
// signature (or hints), shapes from _output_shapes when it matches.
func outputTypes(ops *graphdef.Ops, n *tfpb.NodeDef, used int) ([]textir.Type, error) {
	var elems []textir.Type
	dts, err := ops.OutputTypes(n)
	if err != nil && used < 0 {
		return nil, errDeferred // the users' count is not known yet
	}
	if err == nil {
		for _, dt := range dts {
			e, err := ElemType(dt)
			if err != nil {
				return nil, nodeErr(n.Name, "output type: %v", err)
			}
			elems = append(elems, e)
		}
	} else {
		// Unknown op: as many outputs as hints or uses say, of unknown dtype.
		k, herr := ops.NumOutputs(n)
		if herr != nil {
			k = 0
		}
		k = max(k, used)
		for range k {
			elems = append(elems, unknownElem())
		}
	}
	shapes := n.Attr["_output_shapes"].GetList().GetShape()
	types := make([]textir.Type, len(elems))
	for i, e := range elems {
		if len(shapes) == len(elems) {
			types[i] = TensorType(shapeOf(shapes[i]), e)
		} else {
			types[i] = textir.UnrankedTensorOf(e)
		}
	}
	return types, nil
}

func setGraphAttrs(graph *textir.Operation, g *tfpb.GraphDef) error {
	if v := g.Versions; v != nil {
		es := []textir.NamedAttribute{
			{Name: "producer", Value: textir.IntegerAttr{Value: int64(v.Producer), Type: textir.I32()}},
			{Name: "min_consumer", Value: textir.IntegerAttr{Value: int64(v.MinConsumer), Type: textir.I32()}},
		}
		if len(v.BadConsumers) > 0 {
			var bad []textir.Attribute
			for _, b := range v.BadConsumers {
				bad = append(bad, textir.IntegerAttr{Value: int64(b), Type: textir.I32()})
			}
			es = append(es, textir.NamedAttribute{Name: "bad_consumers", Value: textir.ArrayAttr{Elems: bad}})
		}
		graph.SetAttr(GraphVersions, textir.NewDictAttr(es))
	}
	//lint:ignore SA1019 field 3 (version) is part of TensorFlow's wire format; import keeps it for export
	if v := g.Version; v != 0 {
		graph.SetAttr(GraphVersion, textir.IntegerAttr{Value: int64(v), Type: textir.I32()})
	}
	det := proto.MarshalOptions{Deterministic: true}
	if g.Library != nil {
		raw, err := det.Marshal(g.Library)
		if err != nil {
			return err
		}
		graph.SetAttr(GraphLibrary, textir.Str(string(raw)))
	}
	if g.DebugInfo != nil {
		raw, err := det.Marshal(g.DebugInfo)
		if err != nil {
			return err
		}
		graph.SetAttr(GraphDebugInfo, textir.Str(string(raw)))
	}
	return nil
}
