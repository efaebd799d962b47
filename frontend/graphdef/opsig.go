package graphdef

import (
	"errors"
	"fmt"

	"github.com/recom-compiler/recom/dialects/tfg/optab"
	"github.com/recom-compiler/recom/frontend/graphdef/tfpb"
)

// Category classifies an op by what it is for, which decides whether it may
// remain in a graph extracted for inference (see optab.Category).
type Category = optab.Category

// The categories, as optab defines them.
const (
	Compute     = optab.Compute
	State       = optab.State
	ControlFlow = optab.ControlFlow
	Iterator    = optab.Iterator
	Training    = optab.Training
	Checkpoint  = optab.Checkpoint
	Summary     = optab.Summary
	Queue       = optab.Queue
)

// OpSig is the signature of a TensorFlow op: its input and output arguments
// and its attributes, as in TensorFlow's REGISTER_OP, with dtypes and
// defaults as GraphDef protobufs. The built-in signatures are those of the
// op table (dialects/tfg/optab).
type OpSig struct {
	Name     string
	Inputs   []ArgSig
	Outputs  []ArgSig
	Attrs    []AttrSig
	Category Category
}

// ArgSig is one input or output argument. Exactly one of Type (a fixed
// dtype), TypeAttr (the name of a "type" attr) or TypeListAttr (the name of a
// "list(type)" attr) says its type; NumberAttr, if set, names an "int" attr
// giving how many tensors of that type the argument stands for. IsRef marks a
// reference (DT_X_REF) argument.
type ArgSig struct {
	Name         string
	Type         tfpb.DataType
	TypeAttr     string
	NumberAttr   string
	TypeListAttr string
	IsRef        bool
}

// AttrSig is one attribute: its name, its kind as TensorFlow spells it
// ("type", "int", "list(type)", "shape", "func", ...), and its default value
// when it has one (an attr without a default is required).
type AttrSig struct {
	Name    string
	Kind    string
	Default *tfpb.AttrValue
	// Allowed lists the allowed dtypes of a "type" attr, when restricted.
	Allowed []tfpb.DataType
	// Minimum is the minimum value of an "int" or length of a "list" attr.
	Minimum int64
}

// Required reports whether the attr has no default.
func (a *AttrSig) Required() bool { return a.Default == nil }

// Attr returns the named attribute of the signature.
func (s *OpSig) Attr(name string) (*AttrSig, bool) {
	for i := range s.Attrs {
		if s.Attrs[i].Name == name {
			return &s.Attrs[i], true
		}
	}
	return nil, false
}

// UnknownOpError reports that an op has no known signature.
type UnknownOpError struct {
	Node, Op string
}

func (e *UnknownOpError) Error() string {
	return fmt.Sprintf("node %q: unknown op %q: no signature and no _output_types hint", e.Node, e.Op)
}

// ErrUnknownOp is matched by errors.Is for every *UnknownOpError.
var ErrUnknownOp = errors.New("unknown op")

// Is makes errors.Is(err, ErrUnknownOp) true.
func (e *UnknownOpError) Is(target error) bool { return target == ErrUnknownOp }

// Signature returns the built-in signature of op.
func Signature(op string) (*OpSig, bool) {
	s, ok := builtinOps[op]
	return s, ok
}

// Ops resolves op signatures: the built-in table first, then the functions
// of a graph's library (a node whose op names a library function calls it).
type Ops struct {
	funcs map[string]*OpSig
}

// NewOps returns a resolver that also knows the functions in lib (which may be nil).
func NewOps(lib *tfpb.FunctionDefLibrary) *Ops {
	o := &Ops{}
	for _, f := range lib.GetFunction() {
		if s := sigFromOpDef(f.GetSignature()); s != nil {
			if o.funcs == nil {
				o.funcs = map[string]*OpSig{}
			}
			o.funcs[s.Name] = s
		}
	}
	return o
}

var builtin = &Ops{}

// Signature returns the signature of op: built-in, or a library function's.
func (o *Ops) Signature(op string) (*OpSig, bool) {
	if s, ok := builtinOps[op]; ok {
		return s, true
	}
	s, ok := o.funcs[op]
	return s, ok
}

// OutputTypes returns the dtypes of n's outputs, using the built-in table
// and, for unknown ops, an `_output_types` hint attr.
func OutputTypes(n *tfpb.NodeDef) ([]tfpb.DataType, error) { return builtin.OutputTypes(n) }

// InputTypes returns the dtypes n's data inputs must have.
func InputTypes(n *tfpb.NodeDef) ([]tfpb.DataType, error) { return builtin.InputTypes(n) }

// NumOutputs returns how many outputs n has, using the built-in table and,
// for unknown ops, the `_output_types` or `_output_shapes` hint attrs.
func NumOutputs(n *tfpb.NodeDef) (int, error) { return builtin.NumOutputs(n) }

// NumInputs returns how many data inputs n's op expects.
func NumInputs(n *tfpb.NodeDef) (int, error) { return builtin.NumInputs(n) }

// OutputTypes returns the dtypes of n's outputs (ref outputs as DT_X_REF).
func (o *Ops) OutputTypes(n *tfpb.NodeDef) ([]tfpb.DataType, error) {
	s, ok := o.Signature(n.GetOp())
	if !ok {
		if l := n.GetAttr()["_output_types"].GetList(); l != nil {
			return append([]tfpb.DataType(nil), l.GetType()...), nil
		}
		return nil, &UnknownOpError{Node: n.GetName(), Op: n.GetOp()}
	}
	return argTypes(n, s, s.Outputs, "output")
}

// InputTypes returns the dtypes of n's data inputs as the signature expects them.
func (o *Ops) InputTypes(n *tfpb.NodeDef) ([]tfpb.DataType, error) {
	s, ok := o.Signature(n.GetOp())
	if !ok {
		return nil, &UnknownOpError{Node: n.GetName(), Op: n.GetOp()}
	}
	return argTypes(n, s, s.Inputs, "input")
}

// NumOutputs returns how many outputs n has.
func (o *Ops) NumOutputs(n *tfpb.NodeDef) (int, error) {
	if _, ok := o.Signature(n.GetOp()); !ok {
		if l := n.GetAttr()["_output_shapes"].GetList(); l != nil {
			if _, hasTypes := n.GetAttr()["_output_types"]; !hasTypes {
				return len(l.GetShape()), nil
			}
		}
	}
	t, err := o.OutputTypes(n)
	return len(t), err
}

// NumInputs returns how many data inputs n's op expects.
func (o *Ops) NumInputs(n *tfpb.NodeDef) (int, error) {
	t, err := o.InputTypes(n)
	return len(t), err
}

// attrOrDefault returns n's attr name, or the signature's default for it.
func attrOrDefault(n *tfpb.NodeDef, s *OpSig, name string) *tfpb.AttrValue {
	if v, ok := n.GetAttr()[name]; ok {
		return v
	}
	if a, ok := s.Attr(name); ok {
		return a.Default
	}
	return nil
}

func argTypes(n *tfpb.NodeDef, s *OpSig, args []ArgSig, what string) ([]tfpb.DataType, error) {
	var out []tfpb.DataType
	for _, a := range args {
		fail := func(attr, want string) error {
			return fmt.Errorf("node %q (op %s): %s arg %q needs %s attr %q, which is missing or not a %s",
				n.GetName(), n.GetOp(), what, a.Name, want, attr, want)
		}
		if a.TypeListAttr != "" {
			v := attrOrDefault(n, s, a.TypeListAttr)
			if v == nil || (v.GetList() == nil && v.GetValue() != nil) {
				return nil, fail(a.TypeListAttr, "list(type)")
			}
			out = append(out, v.GetList().GetType()...)
			continue
		}
		t := a.Type
		if a.TypeAttr != "" {
			v := attrOrDefault(n, s, a.TypeAttr)
			if _, ok := v.GetValue().(*tfpb.AttrValue_Type); !ok {
				return nil, fail(a.TypeAttr, "type")
			}
			t = v.GetType()
		}
		if a.IsRef && t < 100 {
			t += 100
		}
		count := 1
		if a.NumberAttr != "" {
			v := attrOrDefault(n, s, a.NumberAttr)
			if _, ok := v.GetValue().(*tfpb.AttrValue_I); !ok {
				return nil, fail(a.NumberAttr, "int")
			}
			if v.GetI() < 0 || v.GetI() > 1<<20 {
				return nil, fmt.Errorf("node %q (op %s): attr %q = %d is not a valid count",
					n.GetName(), n.GetOp(), a.NumberAttr, v.GetI())
			}
			count = int(v.GetI())
		}
		for range count {
			out = append(out, t)
		}
	}
	return out, nil
}

// sigFromOpDef converts a function signature to an OpSig.
func sigFromOpDef(d *tfpb.OpDef) *OpSig {
	if d.GetName() == "" {
		return nil
	}
	conv := func(args []*tfpb.OpDef_ArgDef) []ArgSig {
		var out []ArgSig
		for _, a := range args {
			out = append(out, ArgSig{Name: a.GetName(), Type: a.GetType(), TypeAttr: a.GetTypeAttr(),
				NumberAttr: a.GetNumberAttr(), TypeListAttr: a.GetTypeListAttr(), IsRef: a.GetIsRef()})
		}
		return out
	}
	s := &OpSig{Name: d.GetName(), Inputs: conv(d.GetInputArg()), Outputs: conv(d.GetOutputArg())}
	if d.GetIsStateful() {
		s.Category = State
	}
	for _, a := range d.GetAttr() {
		s.Attrs = append(s.Attrs, AttrSig{Name: a.GetName(), Kind: a.GetType(), Default: a.GetDefaultValue(), Minimum: a.GetMinimum()})
	}
	return s
}

// ---- the built-in signatures, from the op table ----

var builtinOps = map[string]*OpSig{}

func init() {
	for _, o := range optab.All() {
		s, err := sigFromRow(o)
		if err != nil {
			panic("graphdef: op table row " + o.Name + ": " + err.Error()) // a bug in optab, not bad input
		}
		builtinOps[s.Name] = s
	}
}

// dtypeOf returns the protobuf dtype of an op-table dtype.
func dtypeOf(d optab.DType) (tfpb.DataType, error) {
	v, ok := tfpb.DataType_value[d.Enum()]
	if !ok {
		return 0, fmt.Errorf("dtype %q has no DataType", d)
	}
	return tfpb.DataType(v), nil
}

// sigFromRow converts a row of the op table to an OpSig.
func sigFromRow(o *optab.Op) (*OpSig, error) {
	s := &OpSig{Name: o.Name, Category: o.Category}
	args := func(in []optab.Arg) ([]ArgSig, error) {
		var out []ArgSig
		for _, a := range in {
			arg := ArgSig{Name: a.Name, TypeAttr: a.TypeAttr, NumberAttr: a.NumberAttr, TypeListAttr: a.TypeListAttr, IsRef: a.IsRef}
			if a.Type != "" {
				t, err := dtypeOf(a.Type)
				if err != nil {
					return nil, err
				}
				arg.Type = t
			}
			out = append(out, arg)
		}
		return out, nil
	}
	var err error
	if s.Inputs, err = args(o.Inputs); err != nil {
		return nil, err
	}
	if s.Outputs, err = args(o.Outputs); err != nil {
		return nil, err
	}
	for _, a := range o.Attrs {
		at := AttrSig{Name: a.Name, Kind: a.Kind, Minimum: a.Minimum}
		for _, d := range a.Allowed {
			t, err := dtypeOf(d)
			if err != nil {
				return nil, err
			}
			at.Allowed = append(at.Allowed, t)
		}
		if a.Default != nil {
			if at.Default, err = attrValueOf(a.Default); err != nil {
				return nil, fmt.Errorf("attr %s: %v", a.Name, err)
			}
		}
		s.Attrs = append(s.Attrs, at)
	}
	return s, nil
}

// attrValueOf returns the AttrValue of an op-table default.
func attrValueOf(v optab.Value) (*tfpb.AttrValue, error) {
	out := &tfpb.AttrValue{}
	switch v := v.(type) {
	case optab.Int:
		out.Value = &tfpb.AttrValue_I{I: int64(v)}
	case optab.Float:
		out.Value = &tfpb.AttrValue_F{F: float32(v)}
	case optab.Bool:
		out.Value = &tfpb.AttrValue_B{B: bool(v)}
	case optab.String:
		out.Value = &tfpb.AttrValue_S{S: []byte(v)}
	case optab.DType:
		t, err := dtypeOf(v)
		if err != nil {
			return nil, err
		}
		out.Value = &tfpb.AttrValue_Type{Type: t}
	case optab.EmptyList:
		out.Value = &tfpb.AttrValue_List{List: &tfpb.AttrValue_ListValue{}}
	case optab.UnknownShape:
		out.Value = &tfpb.AttrValue_Shape{Shape: &tfpb.TensorShapeProto{UnknownRank: true}}
	default:
		return nil, fmt.Errorf("default of type %T", v)
	}
	return out, nil
}
