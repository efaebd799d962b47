package graphdef

import (
	"strings"
	"testing"

	"github.com/recom-compiler/recom/frontend/graphdef/tfpb"
)

func tyAttr(t tfpb.DataType) *tfpb.AttrValue {
	return &tfpb.AttrValue{Value: &tfpb.AttrValue_Type{Type: t}}
}
func phAttr(p string) *tfpb.AttrValue {
	return &tfpb.AttrValue{Value: &tfpb.AttrValue_Placeholder{Placeholder: p}}
}
func tlist(ts ...tfpb.DataType) *tfpb.AttrValue {
	return &tfpb.AttrValue{Value: &tfpb.AttrValue_List{List: &tfpb.AttrValue_ListValue{Type: ts}}}
}
func fnAttr(name string) *tfpb.AttrValue {
	return &tfpb.AttrValue{Value: &tfpb.AttrValue_Func{Func: &tfpb.NameAttrList{Name: name}}}
}

// addMul computes (x + y) * x with T a placeholder; control output "done".
func addMul() *tfpb.FunctionDef {
	return &tfpb.FunctionDef{
		Signature: &tfpb.OpDef{Name: "add_mul",
			InputArg:      []*tfpb.OpDef_ArgDef{{Name: "x", TypeAttr: "T"}, {Name: "y", TypeAttr: "T"}},
			OutputArg:     []*tfpb.OpDef_ArgDef{{Name: "out", TypeAttr: "T"}},
			Attr:          []*tfpb.OpDef_AttrDef{{Name: "T", Type: "type"}},
			ControlOutput: []string{"done"}},
		NodeDef: []*tfpb.NodeDef{
			{Name: "sum", Op: "AddV2", Input: []string{"x", "y"}, Attr: map[string]*tfpb.AttrValue{"T": phAttr("T")}},
			{Name: "prod", Op: "Mul", Input: []string{"sum:z:0", "x"}, Attr: map[string]*tfpb.AttrValue{"T": phAttr("T")}},
			{Name: "fin", Op: "NoOp", Input: []string{"^prod"}},
		},
		Ret:        map[string]string{"out": "prod:z:0"},
		ControlRet: map[string]string{"done": "fin"},
	}
}

// outer calls add_mul twice (nested, repeated) through PartitionedCall.
func outer() *tfpb.FunctionDef {
	call := func(name string, in ...string) *tfpb.NodeDef {
		f := fnAttr("add_mul")
		f.GetFunc().Attr = map[string]*tfpb.AttrValue{"T": phAttr("T")}
		return &tfpb.NodeDef{Name: name, Op: "PartitionedCall", Input: in,
			Attr: map[string]*tfpb.AttrValue{"f": f, "Tin": tlist(tfpb.DataType_DT_FLOAT, tfpb.DataType_DT_FLOAT), "Tout": tlist(tfpb.DataType_DT_FLOAT)}}
	}
	return &tfpb.FunctionDef{
		Signature: &tfpb.OpDef{Name: "outer",
			InputArg:  []*tfpb.OpDef_ArgDef{{Name: "a", TypeAttr: "T"}},
			OutputArg: []*tfpb.OpDef_ArgDef{{Name: "r", TypeAttr: "T"}},
			Attr:      []*tfpb.OpDef_AttrDef{{Name: "T", Type: "type"}}},
		NodeDef: []*tfpb.NodeDef{call("c1", "a", "a"), call("c2", "c1:output:0", "a")},
		Ret:     map[string]string{"r": "c2:output:0"},
	}
}

func graphWith(nodes []*tfpb.NodeDef, fs ...*tfpb.FunctionDef) *tfpb.GraphDef {
	return &tfpb.GraphDef{Node: nodes, Library: &tfpb.FunctionDefLibrary{Function: fs}}
}

func ph(name string) *tfpb.NodeDef {
	return &tfpb.NodeDef{Name: name, Op: "Placeholder", Attr: map[string]*tfpb.AttrValue{"dtype": tyAttr(tfpb.DataType_DT_FLOAT)}}
}

func byName(g *tfpb.GraphDef) map[string]*tfpb.NodeDef {
	m := map[string]*tfpb.NodeDef{}
	for _, n := range g.GetNode() {
		m[n.GetName()] = n
	}
	return m
}

func TestInlineNestedRepeated(t *testing.T) {
	g := graphWith([]*tfpb.NodeDef{
		ph("p"), {Name: "gate", Op: "NoOp"},
		{Name: "call", Op: "StatefulPartitionedCall", Input: []string{"p", "^gate"},
			Attr: map[string]*tfpb.AttrValue{"f": fnAttr("outer"), "Tin": tlist(tfpb.DataType_DT_FLOAT), "Tout": tlist(tfpb.DataType_DT_FLOAT)}},
		{Name: "use", Op: "Neg", Input: []string{"call"}, Attr: map[string]*tfpb.AttrValue{"T": tyAttr(tfpb.DataType_DT_FLOAT)}},
	}, addMul(), outer())
	// outer's T is bound by the call's f attr.
	g.Node[2].Attr["f"].GetFunc().Attr = map[string]*tfpb.AttrValue{"T": tyAttr(tfpb.DataType_DT_FLOAT)}
	x, err := Inline(g)
	if err != nil {
		t.Fatal(err)
	}
	if err := Validate(x); err != nil {
		t.Fatalf("inlined graph does not validate: %v", err)
	}
	m := byName(x)
	want := map[string]string{
		"call/c1/sum":  "p p",
		"call/c1/prod": "call/c1/sum p",
		// Data reads through the call's node (an Identity), so a cut at a
		// call's outputs cuts its body away; only resources are rewired.
		"call/c2/sum":  "call/c1 p",
		"call/c2/prod": "call/c2/sum call/c1",
		"call/c1":      "call/c1/prod ^call/c1/fin",
		"use":          "call",
		"call/c2/fin":  "^call/c2/prod",
	}
	for n, in := range want {
		got, ok := m[n]
		if !ok {
			t.Fatalf("no node %q in %v", n, x.GetNode())
		}
		if s := strings.Join(got.GetInput(), " "); s != in {
			t.Errorf("%s inputs = %q, want %q", n, s, in)
		}
	}
	if m["call/c1/sum"].GetAttr()["T"].GetType() != tfpb.DataType_DT_FLOAT {
		t.Errorf("placeholder T not substituted: %v", m["call/c1/sum"].GetAttr()["T"])
	}
	if m["call"].GetOp() != "Identity" {
		t.Errorf("call became %s, want Identity", m["call"].GetOp())
	}
	// The call's control input gates the body nodes with no input.
	if s := strings.Join(m["call/input_control_node"].GetInput(), " "); s != "^gate" {
		t.Errorf("gate inputs = %q", s)
	}
	// Plain call by op name, attrs from the node.
	g2 := graphWith([]*tfpb.NodeDef{ph("p"), {Name: "c", Op: "add_mul", Input: []string{"p", "p"},
		Attr: map[string]*tfpb.AttrValue{"T": tyAttr(tfpb.DataType_DT_FLOAT)}}}, addMul())
	x2, err := Inline(g2)
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(byName(x2)["c"].GetInput(), " "); got != "c/prod ^c/fin" {
		t.Errorf("c inputs = %q", got)
	}
}

func TestInlineListArgs(t *testing.T) {
	f := &tfpb.FunctionDef{
		Signature: &tfpb.OpDef{Name: "sum_list",
			InputArg:  []*tfpb.OpDef_ArgDef{{Name: "xs", Type: tfpb.DataType_DT_FLOAT, NumberAttr: "N"}},
			OutputArg: []*tfpb.OpDef_ArgDef{{Name: "s", Type: tfpb.DataType_DT_FLOAT}},
			Attr:      []*tfpb.OpDef_AttrDef{{Name: "N", Type: "int"}}},
		NodeDef: []*tfpb.NodeDef{{Name: "add", Op: "AddN", Input: []string{"xs"},
			Attr: map[string]*tfpb.AttrValue{"N": phAttr("N"), "T": tyAttr(tfpb.DataType_DT_FLOAT)}}},
		Ret: map[string]string{"s": "add:sum:0"},
	}
	n3 := &tfpb.AttrValue{Value: &tfpb.AttrValue_I{I: 3}}
	g := graphWith([]*tfpb.NodeDef{ph("a"), ph("b"), {Name: "c", Op: "sum_list", Input: []string{"a", "b", "a"},
		Attr: map[string]*tfpb.AttrValue{"N": n3}}}, f)
	x, err := Inline(g)
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(byName(x)["c/add"].GetInput(), " "); got != "a b a" {
		t.Errorf("c/add inputs = %q", got)
	}
}

func TestInlineErrors(t *testing.T) {
	float1 := tlist(tfpb.DataType_DT_FLOAT)
	pcall := func(f string, in ...string) *tfpb.NodeDef {
		return &tfpb.NodeDef{Name: "call", Op: "PartitionedCall", Input: in,
			Attr: map[string]*tfpb.AttrValue{"f": fnAttr(f), "Tin": float1, "Tout": float1}}
	}
	self := &tfpb.FunctionDef{
		Signature: &tfpb.OpDef{Name: "self", InputArg: []*tfpb.OpDef_ArgDef{{Name: "x", Type: tfpb.DataType_DT_FLOAT}},
			OutputArg: []*tfpb.OpDef_ArgDef{{Name: "y", Type: tfpb.DataType_DT_FLOAT}}},
		NodeDef: []*tfpb.NodeDef{{Name: "again", Op: "self", Input: []string{"x"}}},
		Ret:     map[string]string{"y": "again:y:0"},
	}
	badRet := &tfpb.FunctionDef{
		Signature: &tfpb.OpDef{Name: "bad_ret", InputArg: []*tfpb.OpDef_ArgDef{{Name: "x", Type: tfpb.DataType_DT_FLOAT}},
			OutputArg: []*tfpb.OpDef_ArgDef{{Name: "y", Type: tfpb.DataType_DT_FLOAT}}},
		Ret: map[string]string{"y": "nowhere:out:0"},
	}
	badPh := &tfpb.FunctionDef{
		Signature: &tfpb.OpDef{Name: "bad_ph", InputArg: []*tfpb.OpDef_ArgDef{{Name: "x", Type: tfpb.DataType_DT_FLOAT}},
			OutputArg: []*tfpb.OpDef_ArgDef{{Name: "y", Type: tfpb.DataType_DT_FLOAT}}},
		NodeDef: []*tfpb.NodeDef{{Name: "id", Op: "Identity", Input: []string{"x"}, Attr: map[string]*tfpb.AttrValue{"T": phAttr("U")}}},
		Ret:     map[string]string{"y": "id:output:0"},
	}
	for _, c := range []struct {
		name string
		g    *tfpb.GraphDef
		want string
	}{
		{"unknown function", graphWith([]*tfpb.NodeDef{ph("p"), pcall("nope", "p")}, addMul()), `no such function`},
		{"arity", graphWith([]*tfpb.NodeDef{ph("p"), {Name: "call", Op: "add_mul", Input: []string{"p"},
			Attr: map[string]*tfpb.AttrValue{"T": tyAttr(tfpb.DataType_DT_FLOAT)}}}, addMul()), `more inputs than the call's 1`},
		{"arity over", graphWith([]*tfpb.NodeDef{ph("p"), {Name: "call", Op: "add_mul", Input: []string{"p", "p", "p"},
			Attr: map[string]*tfpb.AttrValue{"T": tyAttr(tfpb.DataType_DT_FLOAT)}}}, addMul()), `has 3 data inputs, the function takes 2`},
		{"recursion", graphWith([]*tfpb.NodeDef{ph("p"), pcall("self", "p")}, self), `recursive call (self -> self)`},
		{"unbound type attr", graphWith([]*tfpb.NodeDef{ph("p"), pcall("add_mul", "p", "p")}, addMul()), `needs type attr "T"`},
		{"placeholder", graphWith([]*tfpb.NodeDef{ph("p"), pcall("bad_ph", "p")}, badPh), `placeholder "U" is not bound`},
		{"bad ret", graphWith([]*tfpb.NodeDef{ph("p"), pcall("bad_ret", "p")}, badRet), `names no argument or body node output`},
	} {
		_, err := Inline(c.g)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: err = %v, want %q", c.name, err, c.want)
		}
	}
}

func TestInlineDepthLimit(t *testing.T) {
	var fs []*tfpb.FunctionDef
	for i := 0; i <= MaxInlineDepth; i++ {
		name := "f" + string(rune('a'+i))
		body := []*tfpb.NodeDef{{Name: "id", Op: "Identity", Input: []string{"x"}, Attr: map[string]*tfpb.AttrValue{"T": tyAttr(tfpb.DataType_DT_FLOAT)}}}
		ret := "id:output:0"
		if i < MaxInlineDepth {
			body = []*tfpb.NodeDef{{Name: "next", Op: "f" + string(rune('a'+i+1)), Input: []string{"x"}}}
			ret = "next:y:0"
		}
		fs = append(fs, &tfpb.FunctionDef{
			Signature: &tfpb.OpDef{Name: name, InputArg: []*tfpb.OpDef_ArgDef{{Name: "x", Type: tfpb.DataType_DT_FLOAT}},
				OutputArg: []*tfpb.OpDef_ArgDef{{Name: "y", Type: tfpb.DataType_DT_FLOAT}}},
			NodeDef: body, Ret: map[string]string{"y": ret}})
	}
	g := graphWith([]*tfpb.NodeDef{ph("p"), {Name: "c", Op: "fa", Input: []string{"p"}}}, fs...)
	if _, err := Inline(g); err == nil || !strings.Contains(err.Error(), "over the limit of 16") {
		t.Fatalf("err = %v", err)
	}
	g.Library.Function = g.Library.Function[1:] // one level less fits
	g.Node[1].Op = "fb"
	if _, err := Inline(g); err != nil {
		t.Fatal(err)
	}
}

// FuzzInline feeds arbitrary body inputs, rets and op names to the
// inliner: it must return a graph or an error, never panic.
func FuzzInline(f *testing.F) {
	f.Add("sum:z:0", "x", "prod:z:0", "AddV2", "add_mul")
	f.Add("x:out:99999999999", "^fin", "prod", "add_mul", "add_mul")
	f.Add("sum:z:-1", "y:a:b:c", "", "PartitionedCall", "nope")
	f.Fuzz(func(t *testing.T, in1, in2, ret, op, callee string) {
		fd := addMul()
		fd.NodeDef[1].Input = []string{in1, in2}
		fd.NodeDef[0].Op = op
		fd.Ret["out"] = ret
		g := graphWith([]*tfpb.NodeDef{ph("p"), {Name: "c", Op: callee, Input: []string{"p", "p"},
			Attr: map[string]*tfpb.AttrValue{"T": tyAttr(tfpb.DataType_DT_FLOAT), "f": fnAttr(callee)}}}, fd, outer())
		_, _ = Inline(g)
	})
}

// A function returning a variable's handle and a value: the handle's
// reader is rewired to the VarHandleOp in the body (so variable and table
// tracing finds its creator), the value's reader reads through the call's
// node (so a cut at the call's outputs cuts the body away).
func TestInlineResourceRewired(t *testing.T) {
	f := &tfpb.FunctionDef{
		Signature: &tfpb.OpDef{Name: "make_var",
			InputArg:  []*tfpb.OpDef_ArgDef{{Name: "x", Type: tfpb.DataType_DT_FLOAT}},
			OutputArg: []*tfpb.OpDef_ArgDef{{Name: "h", Type: tfpb.DataType_DT_RESOURCE}, {Name: "y", Type: tfpb.DataType_DT_FLOAT}}},
		NodeDef: []*tfpb.NodeDef{
			{Name: "v", Op: "VarHandleOp", Attr: map[string]*tfpb.AttrValue{"dtype": tyAttr(tfpb.DataType_DT_FLOAT),
				"shape": {Value: &tfpb.AttrValue_Shape{Shape: &tfpb.TensorShapeProto{}}}, "shared_name": {Value: &tfpb.AttrValue_S{S: []byte("v")}}}},
			{Name: "neg", Op: "Neg", Input: []string{"x"}, Attr: map[string]*tfpb.AttrValue{"T": tyAttr(tfpb.DataType_DT_FLOAT)}},
		},
		Ret: map[string]string{"h": "v:resource:0", "y": "neg:y:0"},
	}
	g := graphWith([]*tfpb.NodeDef{
		ph("p"),
		{Name: "call", Op: "PartitionedCall", Input: []string{"p"},
			Attr: map[string]*tfpb.AttrValue{"f": fnAttr("make_var"), "Tin": tlist(tfpb.DataType_DT_FLOAT),
				"Tout": tlist(tfpb.DataType_DT_RESOURCE, tfpb.DataType_DT_FLOAT)}},
		{Name: "read", Op: "ReadVariableOp", Input: []string{"call"}, Attr: map[string]*tfpb.AttrValue{"dtype": tyAttr(tfpb.DataType_DT_FLOAT)}},
		{Name: "use", Op: "Identity", Input: []string{"call:1"}, Attr: map[string]*tfpb.AttrValue{"T": tyAttr(tfpb.DataType_DT_FLOAT)}},
	}, f)
	x, err := Inline(g)
	if err != nil {
		t.Fatal(err)
	}
	m := byName(x)
	if got := strings.Join(m["read"].GetInput(), " "); got != "call/v:0" && got != "call/v" {
		t.Errorf("read's input = %q, want the body's VarHandleOp call/v", got)
	}
	if got := strings.Join(m["use"].GetInput(), " "); got != "call:1" {
		t.Errorf("use's input = %q, want call:1 (through the call's node)", got)
	}
	if op := m["call"].GetOp(); op != "IdentityN" {
		t.Errorf("the call's node is %s, want IdentityN", op)
	}
}
