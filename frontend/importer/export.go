package importer

import (
	"fmt"

	"github.com/recom-compiler/recom/dialects/tfg"
	"github.com/recom-compiler/recom/frontend/graphdef/tfpb"
	"github.com/recom-compiler/recom/textir"
	"google.golang.org/protobuf/proto"
)

// FindGraph returns the tfg.graph op inside root (root itself if it is one).
func FindGraph(root *textir.Operation) (*textir.Operation, error) {
	var found *textir.Operation
	n := 0
	root.Walk(func(op *textir.Operation) bool {
		if op.Name() == "tfg.graph" {
			found = op
			n++
			return false
		}
		return true
	})
	switch n {
	case 0:
		return nil, textir.Errorf(root.DiagLoc(), "no tfg.graph op to export")
	case 1:
		return found, nil
	}
	return nil, textir.Errorf(root.DiagLoc(), "%d tfg.graph ops; expected one", n)
}

// Export converts the tfg.graph inside root back into a GraphDef.
func Export(ctx *textir.Context, root *textir.Operation) (*tfpb.GraphDef, error) {
	graph, err := FindGraph(root)
	if err != nil {
		return nil, err
	}
	g := &tfpb.GraphDef{}
	if err := graphAttrs(graph, g); err != nil {
		return nil, err
	}
	if graph.NumRegions() != 1 || len(graph.Region(0).Blocks()) != 1 {
		return nil, graph.Errorf("expects one region with one block")
	}
	names := map[*textir.Operation]string{}
	for op := range graph.Region(0).Front().Ops() {
		name, ok := op.Attr(AttrName).(textir.StringAttr)
		if !ok || name.Value == "" {
			return nil, op.Errorf("has no %s string attribute: cannot name the node", AttrName)
		}
		names[op] = name.Value
	}
	for op := range graph.Region(0).Front().Ops() {
		n, err := exportNode(ctx, op, names)
		if err != nil {
			return nil, err
		}
		g.Node = append(g.Node, n)
	}
	return g, nil
}

func exportNode(ctx *textir.Context, op *textir.Operation, names map[*textir.Operation]string) (*tfpb.NodeDef, error) {
	opName, ok := cutPrefix(op.Name(), tfg.Name+".")
	if !ok {
		return nil, op.Errorf("is not a tfg op: cannot export it as a TensorFlow node")
	}
	if op.NumResults() == 0 || !tfg.IsControl(op.Result(op.NumResults()-1).Type()) {
		return nil, op.Errorf("has no trailing !tfg.control result")
	}
	n := &tfpb.NodeDef{Name: names[op], Op: opName}
	seenControl := false
	for i := range op.NumOperands() {
		v := op.Operand(i)
		def := v.DefiningOp()
		pname, ok := names[def]
		if def == nil || !ok {
			return nil, op.Errorf("operand %d is not defined by a node of the graph", i)
		}
		switch {
		case tfg.IsControl(v.Type()):
			seenControl = true
			n.Input = append(n.Input, "^"+pname)
		case seenControl:
			return nil, op.Errorf("data operand %d follows a control operand", i)
		case v.Index() == 0:
			n.Input = append(n.Input, pname)
		default:
			n.Input = append(n.Input, fmt.Sprintf("%s:%d", pname, v.Index()))
		}
	}
	for _, a := range op.Attrs() {
		switch a.Name {
		case AttrName:
		case AttrDevice:
			s, ok := a.Value.(textir.StringAttr)
			if !ok {
				return nil, op.Errorf("%s must be a string", AttrDevice)
			}
			n.Device = s.Value
		case AttrFullType:
			ft, err := FullTypeProto(a.Value)
			if err != nil {
				return nil, op.Errorf("%v", err)
			}
			n.ExperimentalType = ft
		case AttrDebugInfo:
			d, ok := a.Value.(textir.DictAttr)
			if !ok {
				return nil, op.Errorf("%s must be a dictionary", AttrDebugInfo)
			}
			info := &tfpb.NodeDef_ExperimentalDebugInfo{}
			var err error
			if info.OriginalNodeNames, err = strList(d.Get("original_node_names")); err != nil {
				return nil, op.Errorf("%s: %v", AttrDebugInfo, err)
			}
			if info.OriginalFuncNames, err = strList(d.Get("original_func_names")); err != nil {
				return nil, op.Errorf("%s: %v", AttrDebugInfo, err)
			}
			n.ExperimentalDebugInfo = info
		default:
			v, err := AttrToProto(ctx, a.Value)
			if err != nil {
				return nil, op.Errorf("attribute %q: %v", a.Name, err)
			}
			if n.Attr == nil {
				n.Attr = map[string]*tfpb.AttrValue{}
			}
			n.Attr[a.Name] = v
		}
	}
	return n, nil
}

func cutPrefix(s, p string) (string, bool) {
	if len(s) > len(p) && s[:len(p)] == p {
		return s[len(p):], true
	}
	return s, false
}

func strList(a textir.Attribute) ([]string, error) {
	if a == nil {
		return nil, nil
	}
	arr, ok := a.(textir.ArrayAttr)
	if !ok {
		return nil, fmt.Errorf("expected an array of strings")
	}
	var out []string
	for _, e := range arr.Elems {
		s, ok := e.(textir.StringAttr)
		if !ok {
			return nil, fmt.Errorf("expected an array of strings")
		}
		out = append(out, s.Value)
	}
	return out, nil
}

func graphAttrs(graph *textir.Operation, g *tfpb.GraphDef) error {
	if d, ok := graph.Attr(GraphVersions).(textir.DictAttr); ok {
		v := &tfpb.VersionDef{}
		if p, ok := d.Get("producer").(textir.IntegerAttr); ok {
			v.Producer = int32(p.Value)
		}
		if m, ok := d.Get("min_consumer").(textir.IntegerAttr); ok {
			v.MinConsumer = int32(m.Value)
		}
		if b, ok := d.Get("bad_consumers").(textir.ArrayAttr); ok {
			for _, e := range b.Elems {
				if x, ok := e.(textir.IntegerAttr); ok {
					v.BadConsumers = append(v.BadConsumers, int32(x.Value))
				}
			}
		}
		g.Versions = v
	}
	if v, ok := graph.Attr(GraphVersion).(textir.IntegerAttr); ok {
		//lint:ignore SA1019 field 3 (version) is part of TensorFlow's wire format; export restores what import kept
		g.Version = int32(v.Value)
	}
	if s, ok := graph.Attr(GraphLibrary).(textir.StringAttr); ok {
		g.Library = &tfpb.FunctionDefLibrary{}
		if err := proto.Unmarshal([]byte(s.Value), g.Library); err != nil {
			return graph.Errorf("bad %s attribute: %v", GraphLibrary, err)
		}
	}
	if s, ok := graph.Attr(GraphDebugInfo).(textir.StringAttr); ok {
		g.DebugInfo = &tfpb.GraphDebugInfo{}
		if err := proto.Unmarshal([]byte(s.Value), g.DebugInfo); err != nil {
			return graph.Errorf("bad %s attribute: %v", GraphDebugInfo, err)
		}
	}
	return nil
}
