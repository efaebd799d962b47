package tfgtoemb

import (
	"slices"
	"strings"
	"testing"

	"github.com/recom-compiler/recom/dialects/all"
	"github.com/recom-compiler/recom/frontend/graphdef"
	"github.com/recom-compiler/recom/textir"
)

// The operand names of tfArgs are TensorFlow's: every op is a known op
// signature, its inputs are the signature's inputs in order (a list input
// where the signature's takes a number of tensors), and the outputs it
// names are the signature's outputs. The TF1 table ops that
// frontend/graphdef does not know (LookupTableImport, InitializeTable) take
// the arguments of their V2 forms.
func TestTFArgsMatchSignatures(t *testing.T) {
	sigs := map[string]*graphdef.OpSig{}
	for _, s := range graphdef.Signatures() {
		sigs[s.Name] = s
	}
	names := func(args []graphdef.ArgSig) []string {
		var out []string
		for _, a := range args {
			n := a.Name
			if a.NumberAttr != "" || a.TypeListAttr != "" {
				n += "*"
			}
			out = append(out, n)
		}
		return out
	}
	for op, s := range tfSigs {
		name := strings.TrimPrefix(op, "tfg.")
		sig := sigs[name]
		if sig == nil && (name == "LookupTableImport" || name == "InitializeTable") {
			sig = sigs[name+"V2"]
		}
		if sig == nil {
			t.Errorf("%s: no such op signature", op)
			continue
		}
		if got, want := spelled(s.in), names(sig.Inputs); !slices.Equal(got, want) {
			t.Errorf("%s: inputs %v, want %v", op, got, want)
		}
		if got, want := spelled(s.out), names(sig.Outputs); len(got) > 0 && !slices.Equal(got, want) {
			t.Errorf("%s: outputs %v, want %v", op, got, want)
		}
	}
}

// spelled is a as tfArgs spells it: the list argument ends in "*".
func spelled(a args) []string {
	var out []string
	for i, n := range a.names {
		if i == a.list {
			n += "*"
		}
		out = append(out, n)
	}
	return out
}

// input, inputs and output find the values by name, lists included, and give nil
// for what is not there.
func TestNamedOperands(t *testing.T) {
	ctx := all.NewContext()
	m, err := textir.Parse(ctx, "t.mlir", []byte(`"tfg.graph"() ({
  %a:2 = "tfg.Const"() {dtype = i32, value = dense<1> : tensor<i32>} : () -> (tensor<i32>, !tfg.control)
  %c:2 = "tfg.ConcatV2"(%a#0, %a#0, %a#0, %a#0, %a#1) {N = 3 : i64, T = i32, Tidx = i32} : (tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>, !tfg.control) -> (tensor<3xi32>, !tfg.control)
  %s:3 = "tfg.Unique"(%c#0) {T = i32, out_idx = i32} : (tensor<3xi32>) -> (tensor<?xi32>, tensor<3xi32>, !tfg.control)
  %r:2 = "tfg.Reshape"(%s#0) {T = i32, Tshape = i32} : (tensor<?xi32>) -> (tensor<?xi32>, !tfg.control)
}) : () -> ()`))
	if err != nil {
		t.Fatal(err)
	}
	var c, u, r *textir.Operation
	m.Walk(func(op *textir.Operation) bool {
		switch op.Name() {
		case "tfg.ConcatV2":
			c = op
		case "tfg.Unique":
			u = op
		case "tfg.Reshape":
			r = op
		}
		return true
	})
	if got := inputs(c, "values"); len(got) != 3 || got[0] != c.Operand(0) || got[2] != c.Operand(2) {
		t.Errorf(`inputs(ConcatV2, "values") = %v`, got)
	}
	if got := input(c, "axis"); got != c.Operand(3) {
		t.Errorf(`input(ConcatV2, "axis") = %v, want operand 3`, got)
	}
	if input(c, "values") != nil || input(c, "x") != nil || input(nil, "x") != nil {
		t.Error("in gives a value for a list, a missing name or a nil op")
	}
	if output(u, "idx") != u.Result(1) || !isOutput(u.Result(0), "y") || isOutput(u.Result(1), "y") || output(u, "z") != nil {
		t.Error("Unique's outputs by name")
	}
	if input(r, "tensor") != r.Operand(0) || input(r, "shape") != nil {
		t.Error("Reshape with its shape operand missing")
	}
}
