// Package importer converts TensorFlow GraphDefs to the tfg dialect and back.
//
// Import makes one tfg op per node inside a "tfg.graph" op (see package
// dialects/tfg for the mapping); Export inverts it. Import → Export → Import
// gives identical IR, and the exported graph has the original's nodes, ops,
// inputs, devices and attributes (tensors compare by value: a tensor written
// as tensor_content may come back as a *_val splat and vice versa).
package importer

import (
	"fmt"
	"maps"
	"slices"

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
	ops := graphdef.NewOps(g.GetLibrary())
	byName := make(map[string]int, len(g.Node))
	for i, n := range g.Node {
		if n.Name == "" {
			return nil, nodeErr(fmt.Sprintf("#%d", i), "node has no name")
		}
		if _, dup := byName[n.Name]; dup {
			return nil, nodeErr(n.Name, "duplicate node name")
		}
		byName[n.Name] = i
	}
	// Parse inputs once; find how many outputs unknown ops must have.
	// Each input is kept with its producer's index, so that the name map
	// (large, and slow to probe in a graph of a million nodes) is read once
	// per edge.
	inputs := make([][]input, len(g.Node))
	maxUse := make([]int, len(g.Node))
	for i, n := range g.Node {
		seenControl := false
		if len(n.Input) > 0 {
			inputs[i] = make([]input, 0, len(n.Input))
		}
		for _, s := range n.Input {
			r, err := graphdef.ParseInput(s)
			if err != nil {
				return nil, nodeErr(n.Name, "%v", err)
			}
			p, ok := byName[r.Node]
			if !ok {
				return nil, nodeErr(n.Name, "input %q names a missing node", s)
			}
			if r.Control {
				seenControl = true
			} else if seenControl {
				return nil, nodeErr(n.Name, "data input %q after a control input", s)
			}
			if !r.Control && r.Index+1 > maxUse[p] {
				maxUse[p] = r.Index + 1
			}
			inputs[i] = append(inputs[i], input{TensorRef: r, node: p})
		}
	}

	graph := ctx.Create(&textir.OperationState{Name: "tfg.graph", NumRegions: 1, Loc: textir.UnknownLoc{}})
	if err := setGraphAttrs(graph, g); err != nil {
		return nil, err
	}
	body := textir.NewBlock()
	graph.Region(0).AppendBlock(body)

	created := make([]*textir.Operation, len(g.Node))
	// One budget for the elements all the graph's tensors expand to.
	conv := new(converter)
	for i, n := range g.Node {
		types, err := outputTypes(ops, n, maxUse[i])
		if err != nil {
			return nil, err
		}
		st := &textir.OperationState{Name: "tfg." + n.Op, Loc: textir.NameLoc{Name: n.Name}, ResultTypes: append(types, tfg.Control())}
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
				return nil, nodeErr(n.Name, "attribute with an empty name")
			}
			if isReserved(k) {
				return nil, nodeErr(n.Name, "attribute name %q is reserved by the importer", k)
			}
			if d := attrDepth(n.Attr[k]); d > textir.MaxNesting-attrNestingMargin {
				return nil, nodeErr(n.Name, "attribute %q: %v", k, &textir.LimitError{What: "functions and lists nested too deeply",
					Limit: textir.MaxNesting - attrNestingMargin, Unit: "levels of textual IR", Env: textir.EnvMaxNesting})
			}
			a, err := conv.attr(n.Attr[k])
			if err != nil {
				return nil, nodeErr(n.Name, "attribute %q: %v", k, err)
			}
			st.AddAttr(k, a)
		}
		op := ctx.Create(st)
		body.Append(op)
		created[i] = op
	}
	for i, n := range g.Node {
		vals := make([]*textir.Value, len(inputs[i]))
		for j, r := range inputs[i] {
			p := created[r.node]
			if r.Control {
				vals[j] = p.Result(p.NumResults() - 1)
				continue
			}
			if r.Index >= p.NumResults()-1 {
				return nil, nodeErr(n.Name, "input %q: node %q has %d outputs", n.Input[j], r.Node, p.NumResults()-1)
			}
			vals[j] = p.Result(r.Index)
		}
		created[i].SetOperands(vals)
	}

	module := ctx.Create(&textir.OperationState{Name: "builtin.module", NumRegions: 1, Loc: textir.UnknownLoc{}})
	mb := textir.NewBlock()
	module.Region(0).AppendBlock(mb)
	mb.Append(graph)
	return module, nil
}

// input is a parsed node input and the index of the node it names.
type input struct {
	graphdef.TensorRef
	node int
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
