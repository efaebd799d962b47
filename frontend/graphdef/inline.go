package graphdef

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/recom-compiler/recom/frontend/graphdef/tfpb"
	"google.golang.org/protobuf/proto"
)

// Limits on function inlining (docs/LIMITS.md).
const (
	MaxInlineDepth = 16      // calls nested inside calls
	MaxInlineNodes = 1 << 20 // nodes added by inlining, in all
)

// Inline replaces every call of a library function in g — PartitionedCall,
// StatefulPartitionedCall (attr f) and a node whose op names a library
// function — by the function's body, with TensorFlow's FunctionDef meaning:
// body nodes are renamed "<call>/<node>", argument names become the call's
// inputs, "node:out_arg:i" names the i-th tensor of an output arg, attr
// placeholders take the call's attrs, and the call itself becomes an
// IdentityN (named as the call, so its consumers are unchanged) of the ret
// tensors, with the control_ret nodes as control inputs. The call's own
// control inputs gate every body node that has no input. Nested calls are
// inlined too; recursion is refused. g is not changed; a graph with no
// call is returned as is.
func Inline(g *tfpb.GraphDef) (*tfpb.GraphDef, error) {
	in := &inliner{ops: NewOps(g.GetLibrary()), funcs: map[string]*tfpb.FunctionDef{},
		rename: map[string]string{}, calls: map[string]bool{}}
	for _, f := range g.GetLibrary().GetFunction() {
		in.funcs[f.GetSignature().GetName()] = f
	}
	if len(in.funcs) == 0 {
		return g, nil
	}
	hasCall := false
	for _, n := range g.GetNode() {
		if _, ok := in.callee(n); ok {
			hasCall = true
			break
		}
	}
	if !hasCall {
		return g, nil
	}
	nodes, err := in.expand(g.GetNode(), nil)
	if err != nil {
		return nil, err
	}
	// Consumers read a returned resource directly, so that what follows a
	// table or variable through the call sees its creator; data is read
	// through the call's node, which stays for fetches, cuts and control
	// edges by name.
	for _, n := range nodes {
		if in.calls[n.GetName()] {
			continue
		}
		for j, s := range n.GetInput() {
			if strings.HasPrefix(s, "^") {
				continue
			}
			for hop := 0; hop <= MaxInlineDepth; hop++ {
				r, ok := in.rename[canonical(s)]
				if !ok {
					break
				}
				s = r
			}
			n.Input[j] = s
		}
	}
	out := proto.Clone(g).(*tfpb.GraphDef)
	out.Node = nodes
	return out, nil
}

type inliner struct {
	ops   *Ops
	funcs map[string]*tfpb.FunctionDef
	added int
	// rename maps a call's output "call:i" to the tensor its function returns.
	rename map[string]string
	calls  map[string]bool
}

// canonical writes a data input as "node:i".
func canonical(s string) string {
	if strings.LastIndexByte(s, ':') < 0 {
		return s + ":0"
	}
	return s
}

// callee returns the function n calls, with the attrs bound to its placeholders.
func (in *inliner) callee(n *tfpb.NodeDef) (string, bool) {
	switch n.GetOp() {
	case "PartitionedCall", "StatefulPartitionedCall":
		if f := n.GetAttr()["f"].GetFunc(); f != nil {
			return f.GetName(), true
		}
		return "", false
	}
	if _, ok := in.funcs[n.GetOp()]; ok {
		return n.GetOp(), true
	}
	return "", false
}

func (in *inliner) expand(nodes []*tfpb.NodeDef, chain []string) ([]*tfpb.NodeDef, error) {
	var out []*tfpb.NodeDef
	for _, n := range nodes {
		name, ok := in.callee(n)
		if !ok {
			out = append(out, n)
			continue
		}
		body, err := in.inlineCall(n, name, chain)
		if err != nil {
			return nil, err
		}
		out = append(out, body...)
	}
	return out, nil
}

func (in *inliner) inlineCall(call *tfpb.NodeDef, fname string, chain []string) ([]*tfpb.NodeDef, error) {
	fail := func(format string, args ...any) error {
		return fmt.Errorf("node %q (op %s): calling function %q: %s", call.GetName(), call.GetOp(), fname, fmt.Sprintf(format, args...))
	}
	f, ok := in.funcs[fname]
	if !ok {
		return nil, fail("no such function in the graph's library")
	}
	for _, c := range chain {
		if c == fname {
			return nil, fail("recursive call (%s -> %s): recursion cannot be inlined", strings.Join(chain, " -> "), fname)
		}
	}
	if len(chain)+1 > MaxInlineDepth {
		return nil, fail("calls nested %d deep, over the limit of %d", len(chain)+1, MaxInlineDepth)
	}
	if in.added+len(f.GetNodeDef()) > MaxInlineNodes {
		return nil, fail("inlining would add over %d nodes (the limit)", MaxInlineNodes)
	}
	// Bound attrs: the func attr's own map for the call ops, the call's attrs otherwise.
	bound := call.GetAttr()
	if fa := call.GetAttr()["f"].GetFunc(); fa != nil && call.GetOp() != fname {
		bound = fa.GetAttr()
	}
	sig := sigFromOpDef(f.GetSignature())
	if sig == nil {
		return nil, fail("bad signature")
	}
	site := &tfpb.NodeDef{Name: call.GetName(), Op: fname, Attr: bound}
	// The call's data and control inputs.
	var data, ctrl []string
	for _, s := range call.GetInput() {
		if strings.HasPrefix(s, "^") {
			ctrl = append(ctrl, s)
		} else {
			data = append(data, s)
		}
	}
	vals := map[string][]string{} // arg or "node:out_arg" -> tensors
	pos := 0
	for _, a := range sig.Inputs {
		ts, err := argTypes(site, sig, []ArgSig{a}, "input")
		if err != nil {
			return nil, fail("%v", err)
		}
		if pos+len(ts) > len(data) {
			return nil, fail("the function takes more inputs than the call's %d", len(data))
		}
		vals[a.Name] = data[pos : pos+len(ts)]
		pos += len(ts)
	}
	if pos != len(data) {
		return nil, fail("the call has %d data inputs, the function takes %d", len(data), pos)
	}
	prefix := call.GetName() + "/"
	inBody, known := map[string]bool{}, map[string]bool{}
	body := make([]*tfpb.NodeDef, 0, len(f.GetNodeDef())+2)
	for _, bn := range f.GetNodeDef() {
		if _, dup := vals[bn.GetName()]; dup || inBody[bn.GetName()] {
			return nil, fail("body node %q repeats a name", bn.GetName())
		}
		inBody[bn.GetName()] = true
	}
	for _, bn := range f.GetNodeDef() {
		nn := proto.Clone(bn).(*tfpb.NodeDef)
		nn.Name = prefix + bn.GetName()
		for k, v := range nn.GetAttr() {
			sv, err := substitute(v, bound)
			if err != nil {
				return nil, fail("body node %q attr %q: %v", bn.GetName(), k, err)
			}
			nn.Attr[k] = sv
		}
		if call.GetDevice() != "" && nn.Device == "" {
			nn.Device = call.GetDevice()
		}
		// Output args of the body node, by name.
		if s, ok := in.ops.Signature(nn.GetOp()); ok {
			known[bn.GetName()] = true
			start := 0
			for _, a := range s.Outputs {
				ts, err := argTypes(nn, s, []ArgSig{a}, "output")
				if err != nil {
					return nil, fail("%v", err)
				}
				r := make([]string, len(ts))
				for i := range ts {
					r[i] = tensorName(nn.Name, start+i)
				}
				vals[bn.GetName()+":"+a.Name] = r
				start += len(ts)
			}
		}
		body = append(body, nn)
	}
	resolve := func(s string) ([]string, error) {
		if c, ok := strings.CutPrefix(s, "^"); ok {
			if !inBody[c] {
				return nil, fmt.Errorf("control input %q names no body node", s)
			}
			return []string{"^" + prefix + c}, nil
		}
		parts := strings.Split(s, ":")
		switch len(parts) {
		case 1:
			if v, ok := vals[s]; ok {
				return v, nil
			}
			if inBody[s] {
				return []string{prefix + s}, nil
			}
		case 2:
			if v, ok := vals[s]; ok {
				return v, nil
			}
		case 3:
			if v, ok := vals[parts[0]+":"+parts[1]]; ok {
				var i int
				if _, err := fmt.Sscanf(parts[2], "%d", &i); err == nil && i >= 0 && i < len(v) && fmt.Sprint(i) == parts[2] {
					return v[i : i+1], nil
				}
				return nil, fmt.Errorf("input %q: index out of range (the arg has %d tensors)", s, len(v))
			}
			// An op without a signature: take its outputs as one list.
			if inBody[parts[0]] && !known[parts[0]] {
				i, err := strconv.Atoi(parts[2])
				if err != nil || i < 0 || i > 1<<20 || strconv.Itoa(i) != parts[2] {
					return nil, fmt.Errorf("input %q: bad output index", s)
				}
				return []string{tensorName(prefix+parts[0], i)}, nil
			}
		}
		return nil, fmt.Errorf("input %q names no argument or body node output", s)
	}
	var gate string
	if len(ctrl) > 0 {
		gate = prefix + "input_control_node"
		if inBody["input_control_node"] {
			gate += "_"
		}
		body = append(body, &tfpb.NodeDef{Name: gate, Op: "NoOp", Input: ctrl, Device: call.GetDevice()})
	}
	for i, bn := range f.GetNodeDef() {
		nn := body[i]
		var dIn, cIn []string
		for _, s := range bn.GetInput() {
			r, err := resolve(s)
			if err != nil {
				return nil, fail("body node %q: %v", bn.GetName(), err)
			}
			if strings.HasPrefix(s, "^") {
				cIn = append(cIn, r...)
			} else {
				dIn = append(dIn, r...)
			}
		}
		if gate != "" && len(dIn) == 0 && len(cIn) == 0 {
			cIn = append(cIn, "^"+gate)
		}
		nn.Input = append(dIn, cIn...)
	}
	// The call becomes an IdentityN of the ret tensors.
	outTypes, err := in.ops.OutputTypes(call)
	if err != nil {
		return nil, fail("%v", err)
	}
	var rets []string
	for _, a := range sig.Outputs {
		r, ok := f.GetRet()[a.Name]
		if !ok {
			return nil, fail("output arg %q has no ret", a.Name)
		}
		v, err := resolve(r)
		if err != nil {
			return nil, fail("ret %q: %v", a.Name, err)
		}
		rets = append(rets, v...)
	}
	if len(rets) != len(outTypes) {
		return nil, fail("the function returns %d tensors, the call has %d outputs", len(rets), len(outTypes))
	}
	for _, a := range f.GetSignature().GetControlOutput() {
		r, ok := f.GetControlRet()[a]
		if !ok || !inBody[r] {
			return nil, fail("control output %q names no body node", a)
		}
		rets = append(rets, "^"+prefix+r)
	}
	var res *tfpb.NodeDef
	if len(outTypes) == 0 {
		res = &tfpb.NodeDef{Name: call.GetName(), Op: "NoOp", Input: rets, Device: call.GetDevice()}
	} else if len(outTypes) == 1 {
		// Identity, which the table and variable tracers look through.
		res = &tfpb.NodeDef{Name: call.GetName(), Op: "Identity", Input: rets, Device: call.GetDevice(),
			Attr: map[string]*tfpb.AttrValue{"T": {Value: &tfpb.AttrValue_Type{Type: outTypes[0]}}}}
	} else {
		res = &tfpb.NodeDef{Name: call.GetName(), Op: "IdentityN", Input: rets, Device: call.GetDevice(),
			Attr: map[string]*tfpb.AttrValue{"T": {Value: &tfpb.AttrValue_List{List: &tfpb.AttrValue_ListValue{Type: outTypes}}}}}
	}
	if sh, ok := call.GetAttr()["_output_shapes"]; ok && res.Attr != nil {
		res.Attr["_output_shapes"] = sh
	}
	for i, t := range outTypes {
		// A returned resource (a table, a variable) is read from its
		// creator, so that the tracers find it; data stays behind the
		// call's node, so that a cut at the call (--inputs CALL) still
		// cuts the body away.
		if t == tfpb.DataType_DT_RESOURCE {
			in.rename[fmt.Sprintf("%s:%d", call.GetName(), i)] = rets[i]
		}
	}
	in.calls[call.GetName()] = true
	in.added += len(body) + 1
	nested, err := in.expand(body, append(chain, fname))
	if err != nil {
		return nil, err
	}
	return append(nested, res), nil
}

func tensorName(node string, i int) string {
	if i == 0 {
		return node
	}
	return fmt.Sprintf("%s:%d", node, i)
}

// substitute replaces attr placeholders in v with the bound attrs.
func substitute(v *tfpb.AttrValue, bound map[string]*tfpb.AttrValue) (*tfpb.AttrValue, error) {
	if p := v.GetPlaceholder(); p != "" {
		b, ok := bound[p]
		if !ok {
			return nil, fmt.Errorf("placeholder %q is not bound by the call", p)
		}
		return b, nil
	}
	if fn := v.GetFunc(); fn != nil {
		var c *tfpb.NameAttrList
		for k, a := range fn.GetAttr() {
			s, err := substitute(a, bound)
			if err != nil {
				return nil, err
			}
			if s != a {
				if c == nil {
					c = proto.Clone(fn).(*tfpb.NameAttrList)
				}
				c.Attr[k] = s
			}
		}
		if c != nil {
			return &tfpb.AttrValue{Value: &tfpb.AttrValue_Func{Func: c}}, nil
		}
	}
	return v, nil
}
