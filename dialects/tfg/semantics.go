package tfg

// The interpreter semantics of tfg ops: one exec.Kernel per TensorFlow op,
// translating the node's attributes into calls of interp/tfops. Importing
// this package registers them.
//
// Stateful ops keep their state in the run's exec.State: variables under
// "var:<node>", hash tables under "table:<node>". A VariableV2 or
// VarHandleOp value comes from exec.Options.Variables, or else (with
// RandomTables) from exec.RandomTensor; random tables read only through
// gathers are never materialized: the gathers make the rows they need.
// Resource handles (VarHandleOp, HashTableV2) are scalar strings holding
// the node name.

import (
	"errors"
	"fmt"
	"strings"

	"github.com/recom-compiler/recom/interp"
	"github.com/recom-compiler/recom/interp/exec"
	"github.com/recom-compiler/recom/interp/tfops"
	"github.com/recom-compiler/recom/textir"
)

func init() {
	exec.RegisterUnitType(Control())
	exec.RegisterElemType(String(), interp.String)
	for _, e := range []textir.Type{textir.F32(), textir.F64(), textir.I1(), textir.I8(), textir.I16(), textir.I32(), textir.I64(),
		textir.IntegerTypeOf(8, textir.Unsigned)} {
		dt, _ := exec.DTypeOf(e)
		exec.RegisterElemType(Ref(e), dt)
	}
	exec.RegisterElemType(Ref(String()), interp.String)
	registerCore()
	registerMath()
	registerArray()
	registerSparse()
	registerExample()
}

// reg registers a kernel for tfg.<name>.
func reg(name string, k exec.Kernel) { exec.Register(Name+"."+name, k) }

// data drops the trailing control values of a kernel's inputs.
func data(in []*interp.Tensor) []*interp.Tensor {
	for len(in) > 0 && in[len(in)-1] == exec.Unit {
		in = in[:len(in)-1]
	}
	return in
}

// nIn checks the number of data inputs.
func nIn(op *textir.Operation, in []*interp.Tensor, n int) ([]*interp.Tensor, error) {
	d := data(in)
	if len(d) != n {
		return nil, op.Errorf("expects %d data inputs, got %d", n, len(d))
	}
	return d, nil
}

func one(t *interp.Tensor, err error) ([]*interp.Tensor, error) {
	if err != nil {
		return nil, err
	}
	return []*interp.Tensor{t}, nil
}

// attrType reads a type attribute as a dtype.
func attrType(op *textir.Operation, name string) (interp.DType, error) {
	a, ok := op.Attr(name).(textir.TypeAttr)
	if !ok {
		return interp.Invalid, op.Errorf("requires type attribute '%s'", name)
	}
	dt, ok := exec.DTypeOf(a.Type)
	if !ok {
		return interp.Invalid, op.Errorf("attribute '%s': type %s is not supported by the interpreter", name, a.Type)
	}
	return dt, nil
}

func attrInt(op *textir.Operation, name string, def int64) int64 {
	if a, ok := op.Attr(name).(textir.IntegerAttr); ok {
		return a.Value
	}
	return def
}

func attrBool(op *textir.Operation, name string, def bool) bool {
	if a, ok := op.Attr(name).(textir.BoolAttr); ok {
		return a.Value
	}
	return def
}

func attrString(op *textir.Operation, name, def string) string {
	if a, ok := op.Attr(name).(textir.StringAttr); ok {
		return a.Value
	}
	return def
}

func attrInts(op *textir.Operation, name string) ([]int64, error) {
	a := op.Attr(name)
	if a == nil {
		return nil, nil
	}
	arr, ok := a.(textir.ArrayAttr)
	if !ok {
		return nil, op.Errorf("attribute '%s' must be a list of ints", name)
	}
	out := make([]int64, len(arr.Elems))
	for i, e := range arr.Elems {
		v, ok := e.(textir.IntegerAttr)
		if !ok {
			return nil, op.Errorf("attribute '%s' must be a list of ints", name)
		}
		out[i] = v.Value
	}
	return out, nil
}

func attrFloats(op *textir.Operation, name string) ([]float32, error) {
	a := op.Attr(name)
	if a == nil {
		return nil, nil
	}
	arr, ok := a.(textir.ArrayAttr)
	if !ok {
		return nil, op.Errorf("attribute '%s' must be a list of floats", name)
	}
	out := make([]float32, len(arr.Elems))
	for i, e := range arr.Elems {
		v, ok := e.(textir.FloatAttr)
		if !ok {
			return nil, op.Errorf("attribute '%s' must be a list of floats", name)
		}
		out[i] = float32(v.Value)
	}
	return out, nil
}

// attrShape reads a #tfg.shape attribute; known is false for an unknown
// rank.
func attrShape(op *textir.Operation, name string) (dims []int64, known bool, err error) {
	a := op.Attr(name)
	if a == nil {
		return nil, false, nil
	}
	s, ok := ShapeOf(a)
	if !ok {
		return nil, false, op.Errorf("attribute '%s' must be a #tfg.shape", name)
	}
	if s.UnknownRank {
		return nil, false, nil
	}
	return s.Dims, true, nil
}

// attrTypes reads a list(type) attribute as dtypes (nil when absent).
func attrTypes(op *textir.Operation, name string) ([]interp.DType, error) {
	a := op.Attr(name)
	if a == nil {
		return nil, nil
	}
	arr, ok := a.(textir.ArrayAttr)
	if !ok {
		return nil, op.Errorf("attribute '%s' must be a list of types", name)
	}
	out := make([]interp.DType, len(arr.Elems))
	for i, e := range arr.Elems {
		t, ok := e.(textir.TypeAttr)
		if !ok {
			return nil, op.Errorf("attribute '%s' must be a list of types", name)
		}
		dt, ok := exec.DTypeOf(t.Type)
		if !ok {
			return nil, op.Errorf("attribute '%s': type %s is not supported by the interpreter", name, t.Type)
		}
		out[i] = dt
	}
	return out, nil
}

// attrShapes reads a list(shape) attribute (nil when absent).
func attrShapes(op *textir.Operation, name string) ([]tfops.PartialShape, error) {
	a := op.Attr(name)
	if a == nil {
		return nil, nil
	}
	arr, ok := a.(textir.ArrayAttr)
	if !ok {
		return nil, op.Errorf("attribute '%s' must be a list of #tfg.shape", name)
	}
	out := make([]tfops.PartialShape, len(arr.Elems))
	for i, e := range arr.Elems {
		sh, ok := ShapeOf(e)
		if !ok {
			return nil, op.Errorf("attribute '%s' must be a list of #tfg.shape", name)
		}
		out[i] = tfops.PartialShape{Dims: sh.Dims, UnknownRank: sh.UnknownRank}
	}
	return out, nil
}

// TensorFromAttr converts a dense elements attribute to a tensor.
func TensorFromAttr(d *textir.DenseElementsAttr) (*interp.Tensor, error) {
	dt, ok := exec.DTypeOf(d.Type.Elem)
	if !ok {
		return nil, fmt.Errorf("element type %s is not supported by the interpreter", d.Type.Elem)
	}
	shape := d.Type.Shape
	n, err := interp.NumElements(shape)
	if err != nil {
		return nil, err
	}
	buf, err := interp.MakeSlice(dt, int(n))
	if err != nil {
		return nil, err
	}
	switch b := buf.(type) {
	case []float32:
		for i := range b {
			b[i] = float32(d.FloatAt(int64(i)))
		}
	case []float64:
		for i := range b {
			b[i] = d.FloatAt(int64(i))
		}
	case []int8:
		for i := range b {
			b[i] = int8(d.IntAt(int64(i)))
		}
	case []int16:
		for i := range b {
			b[i] = int16(d.IntAt(int64(i)))
		}
	case []int32:
		for i := range b {
			b[i] = int32(d.IntAt(int64(i)))
		}
	case []int64:
		for i := range b {
			b[i] = d.IntAt(int64(i))
		}
	case []uint8:
		for i := range b {
			b[i] = uint8(d.IntAt(int64(i)))
		}
	case []bool:
		for i := range b {
			b[i] = d.IntAt(int64(i)) != 0
		}
	case []string:
		for i := range b {
			b[i] = d.StringAt(int64(i))
		}
	}
	return interp.FromSlice(shape, buf)
}

func registerCore() {
	reg("NoOp", func(op *textir.Operation, in []*interp.Tensor, st *exec.State) ([]*interp.Tensor, error) {
		return nil, nil
	})
	reg("Const", func(op *textir.Operation, in []*interp.Tensor, st *exec.State) ([]*interp.Tensor, error) {
		v, err := st.Memo(func() (any, error) {
			d, ok := op.Attr("value").(*textir.DenseElementsAttr)
			if !ok {
				return nil, op.Errorf("attribute 'value' is not a dense elements attribute the interpreter can read")
			}
			t, err := TensorFromAttr(d)
			if err != nil {
				return nil, op.Errorf("attribute 'value': %v", err)
			}
			return t, nil
		})
		if err != nil {
			return nil, err
		}
		return []*interp.Tensor{v.(*interp.Tensor)}, nil
	})
	reg("Placeholder", func(op *textir.Operation, in []*interp.Tensor, st *exec.State) ([]*interp.Tensor, error) {
		return nil, op.Errorf(notFed)
	})
	reg("PlaceholderWithDefault", identity)
	reg("Identity", identity)
	reg("StopGradient", identity)
	reg("Snapshot", identity)
	reg("PreventGradient", identity)
	reg("IdentityN", func(op *textir.Operation, in []*interp.Tensor, st *exec.State) ([]*interp.Tensor, error) {
		d := data(in)
		return append([]*interp.Tensor(nil), d...), nil
	})
	reg("VariableV2", variableV2)
	reg("Variable", variableV2)
	reg("VarHandleOp", varHandleOp)
	reg("ReadVariableOp", readVariableOp)
	reg("ResourceGather", resourceGather)
	registerTables()
}

func identity(op *textir.Operation, in []*interp.Tensor, st *exec.State) ([]*interp.Tensor, error) {
	d, err := nIn(op, in, 1)
	if err != nil {
		return nil, err
	}
	if s, ok := st.Resource("var-stubs").(stubs); ok && s[d[0]] != nil {
		st.MarkLazy() // forwards a lazy variable
	}
	return d, nil
}

// notFed is the message of a placeholder run without a value; the op's
// diagnostic prefix names the node.
const notFed = "is not fed: no value was given for it"

// NotFed reports whether err is the interpreter's error for a placeholder
// that was given no value, so that a tool can say how to give one.
func NotFed(err error) bool {
	var d *textir.Diagnostic
	return errors.As(err, &d) && strings.HasPrefix(d.Message, "'tfg.Placeholder' op") && strings.HasSuffix(d.Message, notFed)
}
