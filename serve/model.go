package serve

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/recom-compiler/recom/compiler"
	"github.com/recom-compiler/recom/dialects/tfg"
	"github.com/recom-compiler/recom/interp"
	"github.com/recom-compiler/recom/interp/exec"
	"github.com/recom-compiler/recom/textir"
)

// SignatureOf describes what serving the program mod with the given
// outputs takes and gives: the placeholders the outputs need (keyed by the
// SavedModel signature's keys when res, the import stage's result, was cut
// at one; else by name) and the outputs (by the signature's keys, or as
// named), with their dtypes and shapes.
func SignatureOf(mod *textir.Operation, res *compiler.Result, outputs []string) (Signature, error) {
	sig := Signature{Name: DefaultSignature, Method: PredictMethod}
	byName := map[string]*textir.Operation{}
	mod.Walk(func(op *textir.Operation) bool {
		// The op that the interpreter and the session fetch by name: the
		// first with a kernel.
		if _, ok := exec.Lookup(op.Name()); !ok {
			return true
		}
		if n := exec.OpName(op); n != "" && byName[n] == nil {
			byName[n] = op
		}
		return true
	})
	inKey, outKey := map[string]string{}, map[string]string{}
	if res != nil && res.Signature != nil {
		if res.Signature.Key != "" {
			sig.Name = res.Signature.Key
		}
		if res.Signature.MethodName != "" {
			sig.Method = res.Signature.MethodName
		}
		for _, t := range res.Signature.Inputs {
			name := tensorRef(t.Name)
			if p, ok := res.Placeholders[name]; ok {
				inKey[p] = t.Key
			}
		}
		for _, t := range res.Signature.Outputs {
			outKey[tensorRef(t.Name)] = t.Key
		}
	}
	// The placeholders the outputs need, in the module's order.
	need := map[*textir.Operation]bool{}
	var stack []*textir.Operation
	for _, o := range outputs {
		node, idx := splitTensor(o)
		op, ok := byName[node]
		if !ok {
			return sig, fmt.Errorf("output %q: the model has no node %q", o, node)
		}
		if idx >= op.NumResults() {
			return sig, fmt.Errorf("output %q: node %q (%s) has %d results", o, node, op.Name(), op.NumResults())
		}
		dt, shape, unknown, err := tensorTypeOf(op.Result(idx).Type())
		if err != nil {
			return sig, fmt.Errorf("output %q: %w", o, err)
		}
		key := o
		if k, ok := outKey[tensorRef(o)]; ok {
			key = k
		}
		sig.Outputs = append(sig.Outputs, TensorSpec{Key: key, Name: o, DType: dt, Shape: shape, UnknownRank: unknown})
		stack = append(stack, op)
	}
	for len(stack) > 0 {
		op := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if need[op] {
			continue
		}
		need[op] = true
		for _, v := range op.Operands() {
			if d := v.DefiningOp(); d != nil && !need[d] {
				stack = append(stack, d)
			}
		}
	}
	var bad error
	mod.Walk(func(op *textir.Operation) bool {
		if op.Name() != "tfg.Placeholder" || !need[op] || bad != nil {
			return true
		}
		name := tfg.NodeName(op)
		ta, _ := op.Attr("dtype").(textir.TypeAttr)
		dt, ok := exec.DTypeOf(ta.Type)
		if ta.Type == nil || !ok {
			bad = fmt.Errorf("placeholder %q: its dtype %v is not served", name, ta.Type)
			return false
		}
		spec := TensorSpec{Key: name, Name: name, DType: dt}
		if k, ok := inKey[name]; ok {
			spec.Key = k
		}
		if s, ok := tfg.ShapeOf(op.Attr("shape")); ok && !s.UnknownRank {
			spec.Shape = append([]int64{}, s.Dims...)
		} else if _, shape, unknown, err := tensorTypeOf(op.Result(0).Type()); err == nil {
			spec.Shape, spec.UnknownRank = shape, unknown
		} else {
			spec.UnknownRank = true
		}
		sig.Inputs = append(sig.Inputs, spec)
		return false
	})
	return sig, bad
}

// tensorTypeOf is a tensor type's dtype and shape.
func tensorTypeOf(t textir.Type) (interp.DType, []int64, bool, error) {
	switch tt := t.(type) {
	case *textir.TensorType:
		dt, ok := exec.DTypeOf(tt.Elem)
		if !ok {
			return 0, nil, false, fmt.Errorf("element type %v is not served", tt.Elem)
		}
		return dt, append([]int64{}, tt.Shape...), false, nil
	case *textir.UnrankedTensorType:
		dt, ok := exec.DTypeOf(tt.Elem)
		if !ok {
			return 0, nil, false, fmt.Errorf("element type %v is not served", tt.Elem)
		}
		return dt, nil, true, nil
	}
	return 0, nil, false, fmt.Errorf("type %v is not a tensor", t)
}

// splitTensor splits "node:i" (i defaults to 0).
func splitTensor(s string) (string, int) {
	if i := strings.LastIndexByte(s, ':'); i > 0 {
		if n, err := strconv.Atoi(s[i+1:]); err == nil && n >= 0 {
			return s[:i], n
		}
	}
	return s, 0
}

// tensorRef is "node:i" for "node" or "node:i".
func tensorRef(s string) string {
	n, i := splitTensor(s)
	return fmt.Sprintf("%s:%d", n, i)
}
