package optab_test

import (
	"strings"
	"testing"

	"github.com/recom-compiler/recom/dialects/builtin"
	"github.com/recom-compiler/recom/dialects/tfg"
	"github.com/recom-compiler/recom/dialects/tfg/optab"
	"github.com/recom-compiler/recom/textir"
)

// graph parses the body of a tfg.graph and returns its ops by node name.
func graph(t *testing.T, body string) map[string]*textir.Operation {
	t.Helper()
	ctx := textir.NewContext(builtin.Dialect(), tfg.Dialect())
	src := "module {\n\"tfg.graph\"() ({\n" + body + "\n}) : () -> ()\n}\n"
	m, err := textir.Parse(ctx, "test.mlir", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	ops := map[string]*textir.Operation{}
	m.Walk(func(op *textir.Operation) bool {
		if n := tfg.NodeName(op); n != "" {
			ops[n] = op
		}
		return true
	})
	return ops
}

const operandsGraph = `
%a:2 = "tfg.Const"() {_mlir_name = "a", dtype = i32, value = dense<1> : tensor<i32>} : () -> (tensor<*xi32>, !tfg.control)
%b:2 = "tfg.Const"() {_mlir_name = "b", dtype = i32, value = dense<2> : tensor<i32>} : () -> (tensor<*xi32>, !tfg.control)
%c:2 = "tfg.Const"() {_mlir_name = "c", dtype = i32, value = dense<3> : tensor<i32>} : () -> (tensor<*xi32>, !tfg.control)
%r:2 = "tfg.Reshape"(%a#0, %b#0, %c#1) {T = i32, Tshape = i32, _mlir_name = "r"} : (tensor<*xi32>, tensor<*xi32>, !tfg.control) -> (tensor<*xi32>, !tfg.control)
%cat:2 = "tfg.ConcatV2"(%a#0, %b#0, %c#0, %a#0, %b#1) {N = 3 : i64, T = i32, Tidx = i32, _mlir_name = "cat"} : (tensor<*xi32>, tensor<*xi32>, tensor<*xi32>, tensor<*xi32>, !tfg.control) -> (tensor<*xi32>, !tfg.control)
%old:2 = "tfg.Concat"(%c#0, %a#0, %b#0) {N = 2 : i64, T = i32, _mlir_name = "old"} : (tensor<*xi32>, tensor<*xi32>, tensor<*xi32>) -> (tensor<*xi32>, !tfg.control)
%fn:2 = "tfg.ConcatV2"(%a#0, %b#0, %c#0) {N = #tfg.placeholder<"N">, T = i32, Tidx = i32, _mlir_name = "fn"} : (tensor<*xi32>, tensor<*xi32>, tensor<*xi32>) -> (tensor<*xi32>, !tfg.control)
%sn:3 = "tfg.ShapeN"(%a#0, %b#0) {N = 2 : i64, T = i32, out_type = i32, _mlir_name = "sn"} : (tensor<*xi32>, tensor<*xi32>) -> (tensor<*xi32>, tensor<*xi32>, !tfg.control)
%u:3 = "tfg.Unique"(%a#0) {T = i32, _mlir_name = "u"} : (tensor<*xi32>) -> (tensor<*xi32>, tensor<*xi32>, !tfg.control)
%ss:4 = "tfg.StringSplitV2"(%a#0, %b#0) {_mlir_name = "ss"} : (tensor<*xi32>, tensor<*xi32>) -> (tensor<*xi64>, tensor<*x!tfg.string>, tensor<*xi64>, !tfg.control)
%x:3 = "tfg.SparseCross"(%a#0, %b#0, %c#0, %a#0, %b#0, %c#0) {N = 2 : i64, _mlir_name = "x", dense_types = [i32], sparse_types = [], hash_key = 1 : i64, hashed_output = true, internal_type = i64, num_buckets = 5 : i64, out_type = i64} : (tensor<*xi32>, tensor<*xi32>, tensor<*xi32>, tensor<*xi32>, tensor<*xi32>, tensor<*xi32>) -> (tensor<*xi64>, tensor<*xi64>, !tfg.control)
%two:2 = "tfg.SparseCross"(%a#0, %b#0, %c#0) {N = #tfg.placeholder<"N">, _mlir_name = "two", dense_types = #tfg.placeholder<"d">, sparse_types = [], hash_key = 1 : i64, hashed_output = true, internal_type = i64, num_buckets = 5 : i64, out_type = i64} : (tensor<*xi32>, tensor<*xi32>, tensor<*xi32>) -> (tensor<*xi64>, !tfg.control)
%short:2 = "tfg.ConcatV2"(%a#0) {N = 2 : i64, T = i32, Tidx = i32, _mlir_name = "short"} : (tensor<*xi32>) -> (tensor<*xi32>, !tfg.control)
%half:2 = "tfg.Reshape"(%a#0) {T = i32, Tshape = i32, _mlir_name = "half"} : (tensor<*xi32>) -> (tensor<*xi32>, !tfg.control)
%p:2 = "tfg.Pack"(%a#0, %b#0) {N = 2 : i64, T = i32, _mlir_name = "p"} : (tensor<*xi32>, tensor<*xi32>) -> (tensor<*xi32>, !tfg.control)
%foo:2 = "tfg.NotAnOp"(%a#0) {_mlir_name = "foo"} : (tensor<*xi32>) -> (tensor<*xi32>, !tfg.control)
`

func TestNamedOperands(t *testing.T) {
	ops := graph(t, operandsGraph)
	// names maps each value to the node name and index that define it.
	name := func(v *textir.Value) string {
		if v == nil {
			return "nil"
		}
		i := 0
		for i < v.DefiningOp().NumResults() && v.DefiningOp().Result(i) != v {
			i++
		}
		return tfg.NodeName(v.DefiningOp()) + ":" + string(rune('0'+i))
	}
	names := func(vs []*textir.Value) string {
		if vs == nil {
			return "nil"
		}
		var parts []string
		for _, v := range vs {
			parts = append(parts, name(v))
		}
		return "[" + strings.Join(parts, " ") + "]"
	}
	for _, c := range []struct {
		node, arg string
		output    bool
		one, list string // Operand/Result, Operands/Results
	}{
		{node: "r", arg: "tensor", one: "a:0", list: "[a:0]"},
		{node: "r", arg: "shape", one: "b:0", list: "[b:0]"}, // the control operand after it is not data
		{node: "r", arg: "output", output: true, one: "r:0", list: "[r:0]"},
		{node: "r", arg: "nope", one: "nil", list: "nil"},
		{node: "cat", arg: "values", one: "nil", list: "[a:0 b:0 c:0]"},
		{node: "cat", arg: "axis", one: "a:0", list: "[a:0]"},
		{node: "old", arg: "concat_dim", one: "c:0", list: "[c:0]"},
		{node: "old", arg: "values", one: "nil", list: "[a:0 b:0]"},
		// A placeholder count: what the other arguments leave.
		{node: "fn", arg: "values", one: "nil", list: "[a:0 b:0]"},
		{node: "fn", arg: "axis", one: "c:0", list: "[c:0]"},
		{node: "sn", arg: "input", list: "[a:0 b:0]", one: "nil"},
		{node: "sn", arg: "output", output: true, list: "[sn:0 sn:1]", one: "nil"},
		{node: "u", arg: "idx", output: true, one: "u:1", list: "[u:1]"},
		{node: "ss", arg: "values", output: true, one: "ss:1", list: "[ss:1]"},
		{node: "ss", arg: "sep", one: "b:0", list: "[b:0]"},
		// Number attrs and type lists, one empty.
		{node: "x", arg: "indices", one: "nil", list: "[a:0 b:0]"},
		{node: "x", arg: "values", one: "nil", list: "[]"},
		{node: "x", arg: "shapes", one: "nil", list: "[c:0 a:0]"},
		{node: "x", arg: "dense_inputs", one: "b:0", list: "[b:0]"},
		// Two unknown counts place nothing; an op short of operands has none.
		{node: "two", arg: "indices", one: "nil", list: "nil"},
		{node: "short", arg: "values", one: "nil", list: "nil"},
		{node: "short", arg: "axis", one: "nil", list: "nil"},
		{node: "half", arg: "tensor", one: "a:0", list: "[a:0]"}, // what is there is found
		{node: "half", arg: "shape", one: "nil", list: "nil"},
		{node: "p", arg: "values", one: "nil", list: "[a:0 b:0]"},
		{node: "foo", arg: "x", one: "nil", list: "nil"},
	} {
		op := ops[c.node]
		var one, list string
		if c.output {
			one, list = name(optab.Result(op, c.arg)), names(optab.Results(op, c.arg))
		} else {
			one, list = name(optab.Operand(op, c.arg)), names(optab.Operands(op, c.arg))
		}
		if one != c.one || list != c.list {
			t.Errorf("%s %s: single %s, list %s; want %s, %s", c.node, c.arg, one, list, c.one, c.list)
		}
	}
}

// SoleOperand and SoleResult serve the ops of one input or output
// argument of one tensor; every named access takes a nil op.
func TestSoleOperandAndResult(t *testing.T) {
	ops := graph(t, operandsGraph)
	for _, c := range []struct {
		node         string
		operand, res *textir.Value
	}{
		{"r", nil, ops["r"].Result(0)}, // two inputs
		{"u", ops["a"].Result(0), nil}, // two outputs
		{"p", nil, ops["p"].Result(0)}, // a list input
		{"sn", nil, nil},               // list input and output
		{"foo", nil, nil},              // not in the table
		{"a", nil, ops["a"].Result(0)}, // no input
	} {
		op := ops[c.node]
		if got := optab.SoleOperand(op); got != c.operand {
			t.Errorf("SoleOperand(%s) = %v, want %v", c.node, got, c.operand)
		}
		if got := optab.SoleResult(op); got != c.res {
			t.Errorf("SoleResult(%s) = %v, want %v", c.node, got, c.res)
		}
	}
	if optab.SoleOperand(nil) != nil || optab.SoleResult(nil) != nil || optab.Operand(nil, "x") != nil ||
		optab.Operands(nil, "x") != nil || optab.Result(nil, "y") != nil || optab.Results(nil, "y") != nil {
		t.Error("named access to a nil op")
	}
}

// TestInputRanges checks the positions of every input of every row on an
// op made with the row's defaults and counts of 2: the ranges tile the
// data operands in signature order.
func TestInputRanges(t *testing.T) {
	ctx := textir.NewContext(builtin.Dialect(), tfg.Dialect())
	for _, o := range optab.All() {
		var attrs []textir.NamedAttribute
		want := 0
		for _, a := range o.Inputs {
			switch {
			case a.NumberAttr != "":
				want += 2
			case a.TypeListAttr != "":
				want += 2
			default:
				want++
			}
		}
		for _, at := range o.Attrs {
			switch at.Kind {
			case "int":
				attrs = append(attrs, textir.NamedAttribute{Name: at.Name, Value: textir.I64Attr(2)})
			case "list(type)":
				attrs = append(attrs, textir.NamedAttribute{Name: at.Name, Value: textir.ArrayAttr{Elems: []textir.Attribute{
					textir.TypeAttr{Type: textir.I32()}, textir.TypeAttr{Type: textir.I32()}}}})
			}
		}
		c := &textir.OperationState{Name: o.FullName(), Attrs: attrs}
		src := textir.NewBlock()
		for range want {
			c.Operands = append(c.Operands, src.AddArgument(textir.TensorOf(nil, textir.I32())))
		}
		c.Operands = append(c.Operands, src.AddArgument(tfg.Control()))
		c.ResultTypes = []textir.Type{tfg.Control()}
		op := ctx.Create(c)
		next := 0
		for _, a := range o.Inputs {
			lo, hi, ok := o.InputRange(op, a.Name)
			if !ok || lo != next || hi <= lo && a.NumberAttr == "" && a.TypeListAttr == "" {
				t.Errorf("%s: input %s at [%d, %d) (ok %v), want from %d", o.Name, a.Name, lo, hi, ok, next)
				break
			}
			next = hi
		}
		if next != want {
			t.Errorf("%s: inputs end at %d, want %d", o.Name, next, want)
		}
	}
}
