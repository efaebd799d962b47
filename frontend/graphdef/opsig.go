package graphdef

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/recom-compiler/recom/frontend/graphdef/tfpb"
)

// Category classifies an op by what it is for, which decides whether it may
// remain in a graph extracted for inference.
type Category int

const (
	// Compute ops compute tensors and can run at inference.
	Compute Category = iota
	// State ops are stateful but may run at inference: they create or read
	// variables and tables (VariableV2, VarHandleOp, ReadVariableOp,
	// ResourceGather, HashTableV2, LookupTableFindV2), draw random numbers,
	// assert, or call stateful functions.
	State
	// ControlFlow ops are TF1 dataflow control flow (Switch, Merge, Enter,
	// Exit, NextIteration, LoopCond); a compiler needs them resolved.
	ControlFlow
	// Iterator ops pull data from a tf.data pipeline; inference feeds replace them.
	Iterator
	// Training ops update state or compute gradients: optimizer applies,
	// Assign*, *Grad, and variable/table initialisation.
	Training
	// Checkpoint ops save or restore variables.
	Checkpoint
	// Summary ops write TensorBoard summaries.
	Summary
	// Queue ops are TF1 input queues.
	Queue
)

var categoryNames = [...]string{"compute", "state", "control flow", "iterator", "training", "checkpoint", "summary", "queue"}

func (c Category) String() string {
	if int(c) < len(categoryNames) {
		return categoryNames[c]
	}
	return "Category(" + strconv.Itoa(int(c)) + ")"
}

// OpSig is the signature of a TensorFlow op: its input and output arguments
// and its attributes, as in TensorFlow's REGISTER_OP.
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

// ---- the REGISTER_OP-like spec language of opdefs.go ----

// opSpec is one op in TensorFlow's own spelling:
//
//	inputs/outputs: "name: T" "name: N * T" "name: Ref(T)" "name: int64", comma separated;
//	attrs: "name: kind" or "name: kind = default", semicolon separated, where
//	kind is type, {int32, int64} (a restricted type), int >= 1, list(type), ...
type opSpec struct {
	name, in, out, attrs string
	cat                  Category
}

var builtinOps = map[string]*OpSig{}

func init() {
	for _, sp := range opSpecs {
		s, err := parseOpSpec(sp)
		if err != nil {
			panic("graphdef: bad built-in op spec: " + err.Error()) // a bug in opdefs.go, not bad input
		}
		if _, dup := builtinOps[s.Name]; dup {
			panic("graphdef: duplicate built-in op spec " + s.Name)
		}
		builtinOps[s.Name] = s
	}
}

func parseOpSpec(sp opSpec) (*OpSig, error) {
	s := &OpSig{Name: sp.name, Category: sp.cat}
	for _, a := range splitList(sp.attrs, ';') {
		at, err := parseAttrSpec(a)
		if err != nil {
			return nil, fmt.Errorf("%s: attr %q: %v", sp.name, a, err)
		}
		s.Attrs = append(s.Attrs, at)
	}
	var err error
	if s.Inputs, err = parseArgSpecs(s, sp.in); err != nil {
		return nil, fmt.Errorf("%s: %v", sp.name, err)
	}
	if s.Outputs, err = parseArgSpecs(s, sp.out); err != nil {
		return nil, fmt.Errorf("%s: %v", sp.name, err)
	}
	return s, nil
}

func splitList(s string, sep byte) []string {
	var out []string
	depth, start := 0, 0
	for i := 0; i <= len(s); i++ {
		if i < len(s) {
			switch s[i] {
			case '{', '(', '[':
				depth++
				continue
			case '}', ')', ']':
				depth--
				continue
			}
			if s[i] != sep || depth > 0 {
				continue
			}
		}
		if p := strings.TrimSpace(s[start:i]); p != "" {
			out = append(out, p)
		}
		start = i + 1
	}
	return out
}

// dtypeByShortName maps TensorFlow's op-registration type names to dtypes.
var dtypeByShortName = map[string]tfpb.DataType{
	"float": tfpb.DataType_DT_FLOAT, "double": tfpb.DataType_DT_DOUBLE, "int32": tfpb.DataType_DT_INT32,
	"uint8": tfpb.DataType_DT_UINT8, "int16": tfpb.DataType_DT_INT16, "int8": tfpb.DataType_DT_INT8,
	"string": tfpb.DataType_DT_STRING, "complex64": tfpb.DataType_DT_COMPLEX64, "int64": tfpb.DataType_DT_INT64,
	"bool": tfpb.DataType_DT_BOOL, "bfloat16": tfpb.DataType_DT_BFLOAT16, "uint16": tfpb.DataType_DT_UINT16,
	"complex128": tfpb.DataType_DT_COMPLEX128, "half": tfpb.DataType_DT_HALF, "resource": tfpb.DataType_DT_RESOURCE,
	"variant": tfpb.DataType_DT_VARIANT, "uint32": tfpb.DataType_DT_UINT32, "uint64": tfpb.DataType_DT_UINT64,
}

func parseArgSpecs(s *OpSig, list string) ([]ArgSig, error) {
	var out []ArgSig
	for _, a := range splitList(list, ',') {
		name, typ, ok := strings.Cut(a, ":")
		if !ok {
			return nil, fmt.Errorf("arg %q: missing ':'", a)
		}
		arg := ArgSig{Name: strings.TrimSpace(name)}
		typ = strings.TrimSpace(typ)
		if strings.HasPrefix(typ, "Ref(") && strings.HasSuffix(typ, ")") {
			arg.IsRef = true
			typ = strings.TrimSpace(typ[4 : len(typ)-1])
		}
		if n, t, ok := strings.Cut(typ, "*"); ok {
			arg.NumberAttr = strings.TrimSpace(n)
			typ = strings.TrimSpace(t)
			if at, ok := s.Attr(arg.NumberAttr); !ok || at.Kind != "int" {
				return nil, fmt.Errorf("arg %q: number attr %q is not an int attr", a, arg.NumberAttr)
			}
		}
		if dt, ok := dtypeByShortName[typ]; ok {
			arg.Type = dt
		} else if at, ok := s.Attr(typ); ok && at.Kind == "type" {
			arg.TypeAttr = typ
		} else if ok && at.Kind == "list(type)" && arg.NumberAttr == "" {
			arg.TypeListAttr = typ
		} else {
			return nil, fmt.Errorf("arg %q: %q is neither a dtype nor a type attr", a, typ)
		}
		out = append(out, arg)
	}
	return out, nil
}

func parseAttrSpec(a string) (AttrSig, error) {
	name, rest, ok := strings.Cut(a, ":")
	if !ok {
		return AttrSig{}, errors.New("missing ':'")
	}
	at := AttrSig{Name: strings.TrimSpace(name)}
	kind, def, hasDef := rest, "", false
	for i := 0; i < len(rest); i++ {
		if rest[i] == '=' && (i == 0 || rest[i-1] != '>') {
			kind, def, hasDef = rest[:i], rest[i+1:], true
			break
		}
	}
	kind = strings.TrimSpace(kind)
	if k, m, ok := strings.Cut(kind, ">="); ok {
		kind = strings.TrimSpace(k)
		v, err := strconv.ParseInt(strings.TrimSpace(m), 10, 64)
		if err != nil {
			return at, err
		}
		at.Minimum = v
	}
	if strings.HasPrefix(kind, "{") {
		for _, t := range splitList(strings.Trim(kind, "{}"), ',') {
			if strings.HasPrefix(t, "'") {
				kind = "string"
				break
			}
			dt, ok := dtypeByShortName[t]
			if !ok {
				return at, fmt.Errorf("unknown dtype %q", t)
			}
			at.Allowed = append(at.Allowed, dt)
		}
		if kind != "string" {
			kind = "type"
		}
	}
	at.Kind = kind
	if !hasDef {
		return at, nil
	}
	def = strings.TrimSpace(def)
	v := &tfpb.AttrValue{}
	switch {
	case strings.HasPrefix(kind, "list("):
		v.Value = &tfpb.AttrValue_List{List: &tfpb.AttrValue_ListValue{}}
		if def != "[]" {
			return at, fmt.Errorf("only [] list defaults are supported, got %q", def)
		}
	case kind == "type":
		dt, ok := tfpb.DataType_value[def]
		if !ok {
			return at, fmt.Errorf("unknown dtype default %q", def)
		}
		v.Value = &tfpb.AttrValue_Type{Type: tfpb.DataType(dt)}
	case kind == "int":
		i, err := strconv.ParseInt(def, 10, 64)
		if err != nil {
			return at, err
		}
		v.Value = &tfpb.AttrValue_I{I: i}
	case kind == "float":
		f, err := strconv.ParseFloat(def, 32)
		if err != nil {
			return at, err
		}
		v.Value = &tfpb.AttrValue_F{F: float32(f)}
	case kind == "bool":
		b, err := strconv.ParseBool(def)
		if err != nil {
			return at, err
		}
		v.Value = &tfpb.AttrValue_B{B: b}
	case kind == "string":
		str, err := strconv.Unquote(def)
		if err != nil {
			return at, fmt.Errorf("string default %s: %v", def, err)
		}
		v.Value = &tfpb.AttrValue_S{S: []byte(str)}
	case kind == "shape":
		if def != "unknown" {
			return at, fmt.Errorf("only the 'unknown' shape default is supported")
		}
		v.Value = &tfpb.AttrValue_Shape{Shape: &tfpb.TensorShapeProto{UnknownRank: true}}
	default:
		return at, fmt.Errorf("no default syntax for kind %q", kind)
	}
	at.Default = v
	return at, nil
}
