package optab

import "github.com/recom-compiler/recom/textir"

// A tfg op's operands are its data inputs followed by its control inputs
// (values of type !tfg.control); its results are its data outputs followed
// by one control result. An argument of a signature stands for a number of
// consecutive data operands (or results): one, the value of its number attr
// (N * T), or the length of its type-list attr. Named access finds an
// argument's tensors from the op's attributes, falling back on the row's
// defaults; when one argument's count cannot be read (a placeholder inside
// a function body), it is what the other arguments leave.

// controlType is !tfg.control (tfg.Control).
var controlType textir.Type = textir.OpaqueTypeOf(Dialect, "control", "")

// isControl reports whether t is !tfg.control (tfg.IsControl).
func isControl(t textir.Type) bool { return t == controlType }

// numDataOperands is the number of op's operands before the first control one.
func numDataOperands(op *textir.Operation) int {
	for i := range op.NumOperands() {
		if isControl(op.Operand(i).Type()) {
			return i
		}
	}
	return op.NumOperands()
}

// numDataResults is the number of op's results without its control result.
func numDataResults(op *textir.Operation) int {
	n := op.NumResults()
	if n > 0 && isControl(op.Result(n-1).Type()) {
		return n - 1
	}
	return n
}

// count returns how many tensors arg a stands for in op, or -1 when op's
// attributes (and the row's defaults) do not say.
func (o *Op) count(op *textir.Operation, a *Arg) int {
	switch {
	case a.NumberAttr != "":
		if v, ok := op.Attr(a.NumberAttr).(textir.IntegerAttr); ok {
			if v.Value < 0 || v.Value > 1<<20 {
				return -1
			}
			return int(v.Value)
		}
		if at, ok := o.Attr(a.NumberAttr); ok && op.Attr(a.NumberAttr) == nil {
			if d, ok := at.Default.(Int); ok && d >= 0 {
				return int(d)
			}
		}
		return -1
	case a.TypeListAttr != "":
		if v, ok := op.Attr(a.TypeListAttr).(textir.ArrayAttr); ok {
			return len(v.Elems)
		}
		if at, ok := o.Attr(a.TypeListAttr); ok && op.Attr(a.TypeListAttr) == nil {
			if _, ok := at.Default.(EmptyList); ok {
				return 0
			}
		}
		return -1
	}
	return 1
}

// argRange places argument name of args among total tensors.
func (o *Op) argRange(op *textir.Operation, args []Arg, total int, name string) (lo, hi int, ok bool) {
	at, unknown, known, before := -1, -1, 0, 0
	for i := range args {
		if args[i].Name == name {
			at, before = i, known
		}
		n := o.count(op, &args[i])
		if n < 0 {
			if unknown >= 0 {
				return 0, 0, false // two counts unknown: nothing places them
			}
			unknown = i
			continue
		}
		known += n
	}
	if at < 0 || unknown >= 0 && known > total {
		return 0, 0, false
	}
	// lo is what the arguments before at take, the unknown one included.
	lo = before
	if unknown >= 0 && unknown < at {
		lo += total - known
	}
	n := total - known
	if at != unknown {
		n = o.count(op, &args[at])
	}
	hi = lo + n
	if hi > total {
		return 0, 0, false
	}
	return lo, hi, true
}

// InputRange returns the positions [lo, hi) among op's data operands of the
// tensors of input argument name. ok is false when the row has no such
// input or op does not have the tensors its attributes call for.
func (o *Op) InputRange(op *textir.Operation, name string) (lo, hi int, ok bool) {
	return o.argRange(op, o.Inputs, numDataOperands(op), name)
}

// OutputRange returns the positions [lo, hi) among op's data results of the
// tensors of output argument name, as InputRange does for inputs.
func (o *Op) OutputRange(op *textir.Operation, name string) (lo, hi int, ok bool) {
	return o.argRange(op, o.Outputs, numDataResults(op), name)
}

// Operands returns the data operands of tfg op op that input argument name
// stands for (one for a plain argument, N for "N * T"), or nil when op is
// nil or not a tfg op of the table, its row has no such input, or op lacks
// them.
func Operands(op *textir.Operation, name string) []*textir.Value {
	if op == nil {
		return nil
	}
	o, ok := Of(op.Name())
	if !ok {
		return nil
	}
	lo, hi, ok := o.InputRange(op, name)
	if !ok {
		return nil
	}
	vs := make([]*textir.Value, hi-lo)
	for i := range vs {
		vs[i] = op.Operand(lo + i)
	}
	return vs
}

// Operand returns the data operand of tfg op op for input argument name:
// Operand(reshape, "shape") is a tfg.Reshape's target shape. It returns nil
// where Operands would, and when the argument is not exactly one tensor.
func Operand(op *textir.Operation, name string) *textir.Value {
	if op == nil {
		return nil
	}
	o, ok := Of(op.Name())
	if !ok {
		return nil
	}
	if lo, hi, ok := o.InputRange(op, name); ok && hi == lo+1 {
		return op.Operand(lo)
	}
	return nil
}

// Results returns the data results of tfg op op that output argument name
// stands for, or nil as Operands does.
func Results(op *textir.Operation, name string) []*textir.Value {
	if op == nil {
		return nil
	}
	o, ok := Of(op.Name())
	if !ok {
		return nil
	}
	lo, hi, ok := o.OutputRange(op, name)
	if !ok {
		return nil
	}
	vs := make([]*textir.Value, hi-lo)
	for i := range vs {
		vs[i] = op.Result(lo + i)
	}
	return vs
}

// Result returns the data result of tfg op op for output argument name, or
// nil as Operand does.
func Result(op *textir.Operation, name string) *textir.Value {
	if op == nil {
		return nil
	}
	o, ok := Of(op.Name())
	if !ok {
		return nil
	}
	if lo, hi, ok := o.OutputRange(op, name); ok && hi == lo+1 {
		return op.Result(lo)
	}
	return nil
}

// SoleOperand returns the data operand of a tfg op whose row has one input
// argument of one tensor (Identity's "input", Relu's "features", Cast's
// "x"), or nil: for generic code over such ops.
func SoleOperand(op *textir.Operation) *textir.Value {
	if op == nil {
		return nil
	}
	if o, ok := Of(op.Name()); ok && len(o.Inputs) == 1 {
		return Operand(op, o.Inputs[0].Name)
	}
	return nil
}

// SoleResult returns the data result of a tfg op whose row has one output
// argument of one tensor (Identity's "output", Add's "z", MatMul's
// "product"), or nil.
func SoleResult(op *textir.Operation) *textir.Value {
	if op == nil {
		return nil
	}
	if o, ok := Of(op.Name()); ok && len(o.Outputs) == 1 {
		return Result(op, o.Outputs[0].Name)
	}
	return nil
}
