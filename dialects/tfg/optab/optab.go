// Package optab is the table of the TensorFlow ops that recom knows: one
// row per op, the way TensorFlow's REGISTER_OP(...).SetShapeFn(...) and Go's
// ssa/_gen/genericOps.go keep every fact about an op in one place.
//
// A row gives an op's
//
//   - signature: its input and output arguments (names, fixed dtypes or
//     type/number/type-list attrs, references) and its attributes (kinds,
//     defaults, allowed types, minimums), written in TensorFlow's own
//     REGISTER_OP spelling and parsed once;
//   - category: what the op is for (compute, state, control flow,
//     training, ...), which decides whether it may stay in an inference
//     graph;
//   - class: its elementwise structure (unary, binary with broadcasting,
//     shape-preserving), for passes that treat such ops alike;
//   - shape function: how the dims (and, for small integer tensors, the
//     content) of its results follow from its operands, written against a
//     ShapeContext that the analysis using it implements (--simplify-shapes
//     does so with symbolic expressions).
//
// The argument names give named access to the operands and results of a
// tfg op: Operand(op, "shape") is a tfg.Reshape's shape, whatever the
// attributes of the op make the positions.
//
// The GraphDef reader (frontend/graphdef) and the tfg dialect both read
// their signatures from this table, so the package is a leaf: it imports
// only the standard library and textir.
package optab

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
)

// Dialect is the name of the dialect whose ops the rows describe: the op of
// row R is "tfg.R".
const Dialect = "tfg"

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

// String returns the category's name ("control flow").
func (c Category) String() string {
	if c >= 0 && int(c) < len(categoryNames) {
		return categoryNames[c]
	}
	return "Category(" + strconv.Itoa(int(c)) + ")"
}

// Class is an op's elementwise structure.
type Class uint8

const (
	// Opaque ops have no elementwise structure the table records; their
	// shape function, if any, says everything.
	Opaque Class = iota
	// Unary ops are elementwise over their one input: the result has the
	// input's shape, and element i depends on input element i only.
	Unary
	// Binary ops are elementwise over two inputs whose shapes broadcast as
	// in NumPy: the result has the broadcast shape.
	Binary
	// SameShape ops keep the shape of their first input, but an element of
	// the result depends on more than one input element (Softmax).
	SameShape
)

var classNames = [...]string{"opaque", "unary", "binary", "same-shape"}

// String returns the class's name ("binary").
func (c Class) String() string {
	if int(c) < len(classNames) {
		return classNames[c]
	}
	return "Class(" + strconv.Itoa(int(c)) + ")"
}

// DType is a TensorFlow dtype as op registrations spell it: "float",
// "int64", "string", "resource", ...
type DType string

// Enum returns the dtype's enumerator name in TensorFlow's DataType enum
// ("DT_INT64" for "int64").
func (d DType) Enum() string { return "DT_" + strings.ToUpper(string(d)) }

// dtypes are the registration names the table may use.
var dtypes = map[DType]bool{
	"float": true, "double": true, "int32": true, "uint8": true, "int16": true, "int8": true,
	"string": true, "complex64": true, "int64": true, "bool": true, "bfloat16": true, "uint16": true,
	"complex128": true, "half": true, "resource": true, "variant": true, "uint32": true, "uint64": true,
}

// Arg is one input or output argument. Exactly one of Type (a fixed dtype),
// TypeAttr (the name of a "type" attr) or TypeListAttr (the name of a
// "list(type)" attr) says its type; NumberAttr, if set, names an "int" attr
// giving how many tensors of that type the argument stands for. IsRef marks
// a reference (DT_X_REF) argument.
type Arg struct {
	Name         string
	Type         DType
	TypeAttr     string
	NumberAttr   string
	TypeListAttr string
	IsRef        bool
}

// Attr is one attribute: its name, its kind as TensorFlow spells it
// ("type", "int", "list(type)", "shape", "func", ...), and its default when
// it has one (an attr without a default is required).
type Attr struct {
	Name    string
	Kind    string
	Default Value
	// Allowed lists the allowed dtypes of a "type" attr, when restricted.
	Allowed []DType
	// Minimum is the minimum value of an "int" or length of a "list" attr.
	Minimum int64
}

// Required reports whether the attr has no default.
func (a *Attr) Required() bool { return a.Default == nil }

// Value is an attr's default: Int, Float, Bool, String, DType (of a "type"
// attr), EmptyList or UnknownShape.
type Value interface{ isValue() }

// Int is the default of an "int" attr.
type Int int64

// Float is the default of a "float" attr.
type Float float32

// Bool is the default of a "bool" attr.
type Bool bool

// String is the default of a "string" attr.
type String string

// EmptyList is the default [] of a "list(...)" attr.
type EmptyList struct{}

// UnknownShape is the default of a "shape" attr: unknown rank.
type UnknownShape struct{}

func (Int) isValue()          {}
func (Float) isValue()        {}
func (Bool) isValue()         {}
func (String) isValue()       {}
func (DType) isValue()        {}
func (EmptyList) isValue()    {}
func (UnknownShape) isValue() {}

// Op is one row of the table: a TensorFlow op as recom knows it. Rows are
// shared: callers must not modify them.
type Op struct {
	Name     string
	Inputs   []Arg
	Outputs  []Arg
	Attrs    []Attr
	Category Category
	Class    Class
	// Shape is the op's shape function: its own, or its class's (see
	// ClassShape); nil when nothing is known of its results.
	Shape ShapeFn
}

// Attr returns the named attribute of the op.
func (o *Op) Attr(name string) (*Attr, bool) {
	for i := range o.Attrs {
		if o.Attrs[i].Name == name {
			return &o.Attrs[i], true
		}
	}
	return nil, false
}

// FullName returns the name of the op's tfg op ("tfg.Reshape").
func (o *Op) FullName() string { return Dialect + "." + o.Name }

var table = map[string]*Op{}

func init() {
	for _, r := range rows {
		o, err := parseRow(r)
		if err != nil {
			panic("optab: bad row: " + err.Error()) // a bug in ops.go, not bad input
		}
		if _, dup := table[o.Name]; dup {
			panic("optab: duplicate row " + o.Name)
		}
		table[o.Name] = o
	}
}

// Lookup returns the row of the TensorFlow op name ("Reshape").
func Lookup(name string) (*Op, bool) {
	o, ok := table[name]
	return o, ok
}

// Of returns the row of a tfg op ("tfg.Reshape").
func Of(name string) (*Op, bool) {
	n, ok := strings.CutPrefix(name, Dialect+".")
	if !ok {
		return nil, false
	}
	return Lookup(n)
}

// All returns every row, sorted by op name.
func All() []*Op {
	out := make([]*Op, 0, len(table))
	for _, k := range slices.Sorted(maps.Keys(table)) {
		out = append(out, table[k])
	}
	return out
}

// ---- the REGISTER_OP-like spelling of ops.go ----

// row is one op as ops.go writes it, in TensorFlow's own spelling:
//
//	in/out: "name: T" "name: N * T" "name: Ref(T)" "name: int64", comma separated;
//	attrs: "name: kind" or "name: kind = default", semicolon separated, where
//	kind is type, {int32, int64} (a restricted type), int >= 1, list(type), ...
//
// class and shape give the op's class and shape function; a row without a
// shape function takes its class's (ClassShape).
type row struct {
	name, in, out, attrs string
	cat                  Category
	class                Class
	shape                ShapeFn
}

func parseRow(r row) (*Op, error) {
	o := &Op{Name: r.name, Category: r.cat, Class: r.class, Shape: r.shape}
	if o.Shape == nil {
		o.Shape = ClassShape(r.class)
	}
	for _, a := range splitList(r.attrs, ';') {
		at, err := parseAttr(a)
		if err != nil {
			return nil, fmt.Errorf("%s: attr %q: %v", r.name, a, err)
		}
		o.Attrs = append(o.Attrs, at)
	}
	var err error
	if o.Inputs, err = parseArgs(o, r.in); err != nil {
		return nil, fmt.Errorf("%s: %v", r.name, err)
	}
	if o.Outputs, err = parseArgs(o, r.out); err != nil {
		return nil, fmt.Errorf("%s: %v", r.name, err)
	}
	if (r.class == Unary || r.class == SameShape) && (len(o.Inputs) == 0 || len(o.Outputs) == 0) ||
		r.class == Binary && (len(o.Inputs) != 2 || len(o.Outputs) == 0) {
		return nil, fmt.Errorf("%s: class %s does not fit %d inputs and %d outputs", r.name, r.class, len(o.Inputs), len(o.Outputs))
	}
	return o, nil
}

// splitList splits s at sep outside brackets, dropping empty parts.
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

func parseArgs(o *Op, list string) ([]Arg, error) {
	var out []Arg
	for _, a := range splitList(list, ',') {
		name, typ, ok := strings.Cut(a, ":")
		if !ok {
			return nil, fmt.Errorf("arg %q: missing ':'", a)
		}
		arg := Arg{Name: strings.TrimSpace(name)}
		typ = strings.TrimSpace(typ)
		if strings.HasPrefix(typ, "Ref(") && strings.HasSuffix(typ, ")") {
			arg.IsRef = true
			typ = strings.TrimSpace(typ[4 : len(typ)-1])
		}
		if n, t, ok := strings.Cut(typ, "*"); ok {
			arg.NumberAttr = strings.TrimSpace(n)
			typ = strings.TrimSpace(t)
			if at, ok := o.Attr(arg.NumberAttr); !ok || at.Kind != "int" {
				return nil, fmt.Errorf("arg %q: number attr %q is not an int attr", a, arg.NumberAttr)
			}
		}
		if dtypes[DType(typ)] {
			arg.Type = DType(typ)
		} else if at, ok := o.Attr(typ); ok && at.Kind == "type" {
			arg.TypeAttr = typ
		} else if ok && at.Kind == "list(type)" && arg.NumberAttr == "" {
			arg.TypeListAttr = typ
		} else {
			return nil, fmt.Errorf("arg %q: %q is neither a dtype nor a type attr", a, typ)
		}
		for _, b := range out {
			if b.Name == arg.Name {
				return nil, fmt.Errorf("arg %q: duplicate name", a)
			}
		}
		out = append(out, arg)
	}
	return out, nil
}

func parseAttr(a string) (Attr, error) {
	name, rest, ok := strings.Cut(a, ":")
	if !ok {
		return Attr{}, errors.New("missing ':'")
	}
	at := Attr{Name: strings.TrimSpace(name)}
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
			if !dtypes[DType(t)] {
				return at, fmt.Errorf("unknown dtype %q", t)
			}
			at.Allowed = append(at.Allowed, DType(t))
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
	switch {
	case strings.HasPrefix(kind, "list("):
		if def != "[]" {
			return at, fmt.Errorf("only [] list defaults are supported, got %q", def)
		}
		at.Default = EmptyList{}
	case kind == "type":
		dt, ok := strings.CutPrefix(def, "DT_")
		if !ok || !dtypes[DType(strings.ToLower(dt))] {
			return at, fmt.Errorf("unknown dtype default %q", def)
		}
		at.Default = DType(strings.ToLower(dt))
	case kind == "int":
		i, err := strconv.ParseInt(def, 10, 64)
		if err != nil {
			return at, err
		}
		at.Default = Int(i)
	case kind == "float":
		f, err := strconv.ParseFloat(def, 32)
		if err != nil {
			return at, err
		}
		at.Default = Float(f)
	case kind == "bool":
		b, err := strconv.ParseBool(def)
		if err != nil {
			return at, err
		}
		at.Default = Bool(b)
	case kind == "string":
		str, err := strconv.Unquote(def)
		if err != nil {
			return at, fmt.Errorf("string default %s: %v", def, err)
		}
		at.Default = String(str)
	case kind == "shape":
		if def != "unknown" {
			return at, fmt.Errorf("only the 'unknown' shape default is supported")
		}
		at.Default = UnknownShape{}
	default:
		return at, fmt.Errorf("no default syntax for kind %q", kind)
	}
	return at, nil
}
