package checkpoint

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	"google.golang.org/protobuf/proto"

	"github.com/recom-compiler/recom/frontend/graphdef/tfpb"
	"github.com/recom-compiler/recom/interp"
)

// Binding says where the value of a graph variable is in a checkpoint: the
// tensor Key, or its part Slice when the variable is one partition of a
// partitioned variable.
type Binding struct {
	// Variable is the variable's node name in the graph (a VariableV2,
	// VarHandleOp or Variable node at the top level of the graph).
	Variable string
	// Key is the checkpoint key.
	Key string
	// Whole is true when the variable is the whole tensor; otherwise it is
	// the part Slice of a tensor of shape Full.
	Whole bool
	Full  []int64
	Slice Slice
	// Via says how the binding was found: the RestoreV2 node (with its
	// function, for a TF2 export) and output, or "name" / "object graph"
	// for the fallbacks.
	Via string
}

// Options tunes Restore and OpenSavedModel.
type Options struct {
	// Tags selects the MetaGraph of a SavedModel by its tag set (default
	// "serve").
	Tags []string
	// Only, when set, restricts the variables read to those it accepts (by
	// node name), e.g. the variables an inference subgraph uses, leaving
	// optimizer slots unread. The others are neither read nor missing.
	Only func(variable string) bool
	// IndexOnly checks the variables against the index (each one's key,
	// dtype and shape, the slice of a partition) without reading their
	// data: Restored.Variables stays empty, Bindings and Missing are
	// filled, Bytes is what reading them would take.
	IndexOnly bool
}

// Restored is what Restore read: the variables' values by node name, as
// interp/exec.Options.Variables takes them, the bindings that gave them,
// and the variables no binding was found for.
type Restored struct {
	Variables map[string]*interp.Tensor
	Bindings  []Binding
	Missing   []string
	// Bytes is the size of the stored tensors the bindings read (each key
	// once), checked against MaxReadBytes before any is read.
	Bytes int64
}

// variableOps are the ops that hold a variable, at the top of a graph.
var variableOps = map[string]bool{"VariableV2": true, "Variable": true, "VarHandleOp": true}

// objectGraphKey is the checkpoint key of a TF2 checkpoint's object graph.
const objectGraphKey = "_CHECKPOINTABLE_OBJECT_GRAPH"

// Restore reads the values of g's variables from the bundle at prefix.
// restoreOp is the restore op of the graph's saver (SaverDef's
// restore_op_name; "" when the graph has no SaverDef): its RestoreV2 nodes
// say which key (and which slice, for a partition) each variable has, as
// when TensorFlow restores the graph. A variable the saver does not restore
// is looked up by its shared_name or node name (the keys of name-based
// TF1 savers), then by the full_name its object has in the checkpoint's
// object graph (TF2 object-based checkpoints). Values are checked against
// the variable's dtype and shape attributes. A variable found nowhere is
// listed in Missing.
func Restore(g *tfpb.GraphDef, prefix, restoreOp string, opts *Options) (*Restored, error) {
	b, err := Open(prefix)
	if err != nil {
		return nil, err
	}
	defer b.Close()
	return restoreFrom(g, b, restoreOp, opts)
}

func restoreFrom(g *tfpb.GraphDef, b *Bundle, restoreOp string, opts *Options) (*Restored, error) {
	if opts == nil {
		opts = &Options{}
	}
	bindings, err := Bindings(g, restoreOp)
	if err != nil {
		return nil, err
	}
	byVar := map[string]Binding{}
	for _, bd := range bindings {
		byVar[bd.Variable] = bd
	}
	var objects map[string]string // full_name -> checkpoint key
	out := &Restored{Variables: map[string]*interp.Tensor{}}
	var nodes []*tfpb.NodeDef
	for _, n := range g.GetNode() {
		if !variableOps[n.GetOp()] || (opts.Only != nil && !opts.Only(n.GetName())) {
			continue
		}
		bd, ok := byVar[n.GetName()]
		if !ok {
			name := n.GetName()
			if s := n.GetAttr()["shared_name"].GetS(); len(s) > 0 {
				name = string(s)
			}
			switch {
			case b.Has(name):
				bd = Binding{Variable: n.GetName(), Key: name, Whole: true, Via: "name"}
			default:
				if objects == nil {
					if objects, err = objectKeys(b); err != nil {
						return nil, err
					}
				}
				key, found := objects[name]
				if !found {
					out.Missing = append(out.Missing, n.GetName())
					continue
				}
				bd = Binding{Variable: n.GetName(), Key: key, Whole: true, Via: "object graph"}
			}
		}
		if err := checkBinding(b, bd, n); err != nil {
			return nil, err
		}
		nodes = append(nodes, n)
		out.Bindings = append(out.Bindings, bd)
	}
	// What the bindings read is bounded before anything is read: a
	// hostile index may point many entries at the same bytes.
	seen := map[string]bool{}
	for _, bd := range out.Bindings {
		if !seen[bd.Key] {
			seen[bd.Key] = true
			out.Bytes += b.storedBytes(bd.Key)
		}
	}
	if out.Bytes > MaxReadBytes {
		return nil, fmt.Errorf("%s: the %d variables to read take %d bytes in the checkpoint, more than %d (set %s to raise the limit; see docs/LIMITS.md)", b.index, len(out.Bindings), out.Bytes, MaxReadBytes, EnvMaxReadBytes)
	}
	if opts.IndexOnly {
		return out, nil
	}
	for i, bd := range out.Bindings {
		t, err := readBinding(b, bd)
		if err != nil {
			return nil, err
		}
		if err := checkVariable(nodes[i], t); err != nil {
			return nil, fmt.Errorf("%s: variable %q (key %q, via %s): %v", b.index, bd.Variable, bd.Key, bd.Via, err)
		}
		out.Variables[bd.Variable] = t
	}
	return out, nil
}

// checkBinding checks what the index says of the tensor a binding reads
// against the variable node n (dtype and shape attributes), without
// reading data: the key exists, a partition's full shape is the stored
// tensor's, and the part it reads has the variable's dtype and shape.
func checkBinding(b *Bundle, bd Binding, n *tfpb.NodeDef) error {
	if !b.Has(bd.Key) {
		return fmt.Errorf("%s: variable %q: the checkpoint has no tensor %q (restored by %s)", b.index, bd.Variable, bd.Key, bd.Via)
	}
	e, _ := b.Entry(bd.Key)
	shape := e.Shape
	if !bd.Whole {
		if interp.ShapeString(e.Shape) != interp.ShapeString(bd.Full) {
			return fmt.Errorf("%s: variable %q: %s restores a slice of a %s tensor, but %q is %s", b.index, bd.Variable, bd.Via, interp.ShapeString(bd.Full), bd.Key, interp.ShapeString(e.Shape))
		}
		var err error
		if shape, err = bd.Slice.Shape(e.Shape); err != nil {
			return fmt.Errorf("%s: variable %q: tensor %q: %v", b.index, bd.Variable, bd.Key, err)
		}
	}
	dt, ok := dtypes[e.DType]
	if !ok {
		_, err := b.dtype(bd.Key, b.entries[bd.Key])
		return fmt.Errorf("variable %q: %w", bd.Variable, err)
	}
	if err := checkVariableAs(n, dt, shape); err != nil {
		return fmt.Errorf("%s: variable %q (key %q, via %s): %v", b.index, bd.Variable, bd.Key, bd.Via, err)
	}
	return nil
}

// storedBytes is the size of the stored bytes of tensor key: its entry's,
// or those of its slices' entries for a partitioned tensor.
func (b *Bundle) storedBytes(key string) int64 {
	e := b.entries[key]
	if len(e.GetSlices()) == 0 {
		return e.GetSize()
	}
	var n int64
	for _, p := range e.GetSlices() {
		if se, ok := b.entries[sliceKey(key, sliceFromProto(p))]; ok {
			n += se.GetSize()
		}
	}
	return n
}

// readBinding reads the value a binding names.
func readBinding(b *Bundle, bd Binding) (*interp.Tensor, error) {
	if !b.Has(bd.Key) {
		return nil, fmt.Errorf("%s: variable %q: the checkpoint has no tensor %q (restored by %s)", b.index, bd.Variable, bd.Key, bd.Via)
	}
	if bd.Whole {
		return b.Tensor(bd.Key)
	}
	e, _ := b.Entry(bd.Key)
	if interp.ShapeString(e.Shape) != interp.ShapeString(bd.Full) {
		return nil, fmt.Errorf("%s: variable %q: %s restores a slice of a %s tensor, but %q is %s", b.index, bd.Variable, bd.Via, interp.ShapeString(bd.Full), bd.Key, interp.ShapeString(e.Shape))
	}
	return b.TensorSlice(bd.Key, bd.Slice)
}

// checkVariable checks a value against the dtype and shape attributes of
// its variable node.
func checkVariable(n *tfpb.NodeDef, t *interp.Tensor) error {
	return checkVariableAs(n, t.DType(), t.Shape())
}

// checkVariableAs checks a value's dtype and shape against the dtype and
// shape attributes of its variable node.
func checkVariableAs(n *tfpb.NodeDef, dtype interp.DType, got []int64) error {
	if a, ok := n.GetAttr()["dtype"]; ok {
		dt := a.GetType()
		if dt > 100 { // a reference type
			dt -= 100
		}
		if want, ok := dtypes[dt]; !ok || want != dtype {
			return fmt.Errorf("the checkpoint holds %s, the variable is %s", dtype, dtypeName(dt))
		}
	}
	if a, ok := n.GetAttr()["shape"]; ok && a.GetShape() != nil && !a.GetShape().GetUnknownRank() {
		dims := a.GetShape().GetDim()
		bad := len(dims) != len(got)
		for i := 0; !bad && i < len(dims); i++ {
			bad = dims[i].GetSize() >= 0 && dims[i].GetSize() != got[i]
		}
		if bad {
			want := make([]string, len(dims))
			for i, d := range dims {
				want[i] = strconv.FormatInt(d.GetSize(), 10)
			}
			return fmt.Errorf("the checkpoint holds shape %s, the variable's is [%s]", interp.ShapeString(got), strings.Join(want, ","))
		}
	}
	return nil
}

// objectKeys maps the full names of the variables in a TF2 checkpoint's
// object graph to their checkpoint keys, leaving out names given to
// several keys; it is empty for a checkpoint without an object graph.
func objectKeys(b *Bundle) (map[string]string, error) {
	out := map[string]string{}
	if !b.Has(objectGraphKey) {
		return out, nil
	}
	t, err := b.Tensor(objectGraphKey)
	if err != nil {
		return nil, err
	}
	if t.DType() != interp.String || t.Len() != 1 {
		return nil, fmt.Errorf("%s: %s is %s, not a string scalar", b.index, objectGraphKey, t)
	}
	og := &tfpb.TrackableObjectGraph{}
	if err := proto.Unmarshal([]byte(t.Strings()[0]), og); err != nil {
		return nil, fmt.Errorf("%s: %s: %v", b.index, objectGraphKey, err)
	}
	// A full name is the variable's name when it was created, which need
	// not be unique (two Keras metrics each have a variable "total", which
	// the exported graph names total and total_1): a name given to two
	// keys designates neither.
	ambiguous := map[string]bool{}
	for _, n := range og.GetNodes() {
		for _, a := range n.GetAttributes() {
			name := a.GetFullName()
			if a.GetName() != "VARIABLE_VALUE" || name == "" {
				continue
			}
			if old, ok := out[name]; ok && old != a.GetCheckpointKey() {
				ambiguous[name] = true
			}
			out[name] = a.GetCheckpointKey()
		}
	}
	for name := range ambiguous {
		delete(out, name)
	}
	return out, nil
}

// maxCallDepth bounds the nesting of function calls followed from the
// graph to a RestoreV2 node, and maxScopes the function bodies visited in
// all; TensorFlow's exports nest one level (the restore function).
const (
	maxCallDepth = 16
	maxScopes    = 4096
)

// Bindings finds the variables that g's saver restores and where from: the
// RestoreV2 nodes that restoreOp depends on (all of them when restoreOp is
// "" or not in g), in the graph or in the functions it calls (a TF2 export
// restores in a function called with the variables' handles). Each output
// of a RestoreV2 is followed through Identity ops to the Assign or
// AssignVariableOp that stores it, and from there back to the variable.
// Bindings are sorted by variable; a variable restored from two places is
// an error.
func Bindings(g *tfpb.GraphDef, restoreOp string) ([]Binding, error) {
	t := &tracer{funcs: map[string]*tfpb.FunctionDef{}, hasRestore: map[string]int{}, found: map[string]Binding{}}
	for _, f := range g.GetLibrary().GetFunction() {
		t.funcs[f.GetSignature().GetName()] = f
	}
	top := newScope(g.GetNode(), nil, nil, nil)
	var roots map[string]bool // the nodes restoreOp depends on
	if n, ok := top.nodes[restoreOp]; ok {
		roots = top.ancestors(n)
	}
	if err := t.visit(top, roots); err != nil {
		return nil, err
	}
	out := make([]Binding, 0, len(t.found))
	for _, b := range t.found {
		out = append(out, b)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Variable < out[j].Variable })
	return out, nil
}

// tracer follows RestoreV2 outputs to variables.
type tracer struct {
	funcs      map[string]*tfpb.FunctionDef
	hasRestore map[string]int // function -> 1 if it (transitively) has a RestoreV2, 2 if not; 3 while being computed
	found      map[string]Binding
	scopes     int
}

// scope is the graph or a function body being traced, with what resolves
// its names.
type scope struct {
	nodes    map[string]*tfpb.NodeDef
	order    []*tfpb.NodeDef
	fn       *tfpb.FunctionDef // nil for the graph
	args     map[string]int    // function argument -> position
	caller   *scope
	call     *tfpb.NodeDef
	uses     map[ref][]use
	depth    int
	fnPrefix string // "f/" inside function f, for messages
}

// ref is one output of a node; arg is set for a function argument.
type ref struct {
	node string
	idx  int
	arg  bool
}

// use is an input of a node: the node and the input's position.
type use struct {
	node *tfpb.NodeDef
	pos  int
}

func newScope(nodes []*tfpb.NodeDef, fn *tfpb.FunctionDef, caller *scope, call *tfpb.NodeDef) *scope {
	s := &scope{nodes: map[string]*tfpb.NodeDef{}, order: nodes, fn: fn, caller: caller, call: call, uses: map[ref][]use{}}
	if fn != nil {
		s.args = map[string]int{}
		for i, a := range fn.GetSignature().GetInputArg() {
			s.args[a.GetName()] = i
		}
		s.depth = caller.depth + 1
		s.fnPrefix = fn.GetSignature().GetName() + "/"
	}
	for _, n := range nodes {
		s.nodes[n.GetName()] = n
	}
	for _, n := range nodes {
		for i, in := range n.GetInput() {
			if r, ok := s.parse(in); ok {
				s.uses[r] = append(s.uses[r], use{n, i})
			}
		}
	}
	return s
}

// parse resolves an input string: "node" or "node:i" in a graph,
// "arg" or "node:output_arg:i" in a function; control inputs ("^node") are
// not refs. Inside a function the index is taken within the output
// argument, which is the flat output index for the ops traced (each has a
// single output argument).
func (s *scope) parse(in string) (ref, bool) {
	if strings.HasPrefix(in, "^") {
		return ref{}, false
	}
	if s.fn == nil {
		name, idx, ok := strings.Cut(in, ":")
		if !ok {
			return ref{node: in}, true
		}
		i, err := strconv.Atoi(idx)
		if err != nil || i < 0 {
			return ref{}, false
		}
		return ref{node: name, idx: i}, true
	}
	parts := strings.Split(in, ":")
	switch len(parts) {
	case 1:
		if _, ok := s.args[in]; ok {
			return ref{node: in, arg: true}, true
		}
		return ref{node: in}, true
	case 2:
		return ref{node: parts[0]}, true
	case 3:
		i, err := strconv.Atoi(parts[2])
		if err != nil || i < 0 {
			return ref{}, false
		}
		return ref{node: parts[0], idx: i}, true
	}
	return ref{}, false
}

// ancestors returns the nodes n depends on, through data and control
// inputs, and n itself.
func (s *scope) ancestors(n *tfpb.NodeDef) map[string]bool {
	seen := map[string]bool{n.GetName(): true}
	work := []*tfpb.NodeDef{n}
	for len(work) > 0 {
		cur := work[len(work)-1]
		work = work[:len(work)-1]
		for _, in := range cur.GetInput() {
			name := strings.TrimPrefix(in, "^")
			name, _, _ = strings.Cut(name, ":")
			if p, ok := s.nodes[name]; ok && !seen[name] {
				seen[name] = true
				work = append(work, p)
			}
		}
	}
	return seen
}

// callee returns the function a node calls: the "f" attribute of a call
// op (StatefulPartitionedCall, PartitionedCall), or the op itself when it
// names a library function.
func (t *tracer) callee(n *tfpb.NodeDef) *tfpb.FunctionDef {
	if f, ok := t.funcs[n.GetOp()]; ok {
		return f
	}
	if a, ok := n.GetAttr()["f"]; ok && a.GetFunc() != nil {
		return t.funcs[a.GetFunc().GetName()]
	}
	return nil
}

// restores reports whether f, or a function it calls, has a RestoreV2.
func (t *tracer) restores(f *tfpb.FunctionDef) bool {
	name := f.GetSignature().GetName()
	switch t.hasRestore[name] {
	case 1:
		return true
	case 2, 3:
		return false
	}
	t.hasRestore[name] = 3
	res := false
	for _, n := range f.GetNodeDef() {
		if n.GetOp() == "RestoreV2" {
			res = true
			break
		}
		if c := t.callee(n); c != nil && t.restores(c) {
			res = true
			break
		}
	}
	t.hasRestore[name] = 2
	if res {
		t.hasRestore[name] = 1
	}
	return res
}

// visit traces the RestoreV2 nodes of s (those in only, when set) and the
// functions s calls that restore.
func (t *tracer) visit(s *scope, only map[string]bool) error {
	t.scopes++
	if t.scopes > maxScopes {
		return fmt.Errorf("restore: more than %d function bodies to follow from the graph to its RestoreV2 nodes", maxScopes)
	}
	for _, n := range s.order {
		if only != nil && !only[n.GetName()] {
			continue
		}
		if n.GetOp() == "RestoreV2" {
			if err := t.restore(s, n); err != nil {
				return err
			}
			continue
		}
		f := t.callee(n)
		if f == nil || !t.restores(f) {
			continue
		}
		if s.depth >= maxCallDepth {
			return fmt.Errorf("restore: node %q: function calls nested more than %d deep", s.fnPrefix+n.GetName(), maxCallDepth)
		}
		if err := t.visit(newScope(f.GetNodeDef(), f, s, n), nil); err != nil {
			return err
		}
	}
	return nil
}

// restore binds the outputs of the RestoreV2 node r to the variables they
// are assigned to.
func (t *tracer) restore(s *scope, r *tfpb.NodeDef) error {
	where := s.fnPrefix + r.GetName()
	if len(r.GetInput()) < 3 {
		return fmt.Errorf("restore: node %q: RestoreV2 has %d inputs, want 3", where, len(r.GetInput()))
	}
	dtypes := r.GetAttr()["dtypes"].GetList().GetType()
	names, err := s.constStrings(r.GetInput()[1], len(dtypes))
	if err != nil {
		return fmt.Errorf("restore: node %q: tensor_names: %v", where, err)
	}
	specs, err := s.constStrings(r.GetInput()[2], len(dtypes))
	if err != nil {
		return fmt.Errorf("restore: node %q: shape_and_slices: %v", where, err)
	}
	for k, name := range names {
		full, sl, whole, err := ParseShapeAndSlice(specs[k])
		if err != nil {
			return fmt.Errorf("restore: node %q: output %d (%q): %v", where, k, name, err)
		}
		via := fmt.Sprintf("RestoreV2 node %q output %d", where, k)
		for _, v := range t.assigned(s, ref{node: r.GetName(), idx: k}, 0) {
			b := Binding{Variable: v, Key: name, Whole: whole, Full: full, Slice: sl, Via: via}
			if old, ok := t.found[v]; ok && (old.Key != b.Key || old.Whole != b.Whole || old.Slice.String() != b.Slice.String()) {
				return fmt.Errorf("restore: variable %q is restored both from %q (%s) and from %q (%s)", v, old.Key, old.Via, b.Key, b.Via)
			}
			t.found[v] = b
		}
	}
	return nil
}

// maxChain bounds the Identity ops followed between a RestoreV2 and its
// Assign, and between a handle and its variable.
const maxChain = 64

// assigned returns the top-level variables that the value r is assigned
// to, following Identity, Snapshot and IdentityN ops.
func (t *tracer) assigned(s *scope, r ref, depth int) []string {
	if depth > maxChain {
		return nil
	}
	var out []string
	for _, u := range s.uses[r] {
		switch u.node.GetOp() {
		case "Identity", "Snapshot":
			out = append(out, t.assigned(s, ref{node: u.node.GetName()}, depth+1)...)
		case "IdentityN":
			out = append(out, t.assigned(s, ref{node: u.node.GetName(), idx: u.pos}, depth+1)...)
		case "Assign", "AssignVariableOp":
			if u.pos == 1 {
				if v, ok := s.variable(u.node.GetInput()[0], 0); ok {
					out = append(out, v)
				}
			}
		}
	}
	return out
}

// variable resolves the input in (a ref or a resource handle) to the
// top-level variable node it designates, through Identity ops and through
// function arguments to the caller's inputs.
func (s *scope) variable(in string, depth int) (string, bool) {
	if depth > maxChain {
		return "", false
	}
	r, ok := s.parse(in)
	if !ok {
		return "", false
	}
	if r.arg {
		pos := s.args[r.node]
		for _, a := range s.fn.GetSignature().GetInputArg()[:pos] {
			if a.GetNumberAttr() != "" || a.GetTypeListAttr() != "" {
				return "", false // list arguments shift the positions
			}
		}
		var data []string
		for _, in := range s.call.GetInput() {
			if !strings.HasPrefix(in, "^") {
				data = append(data, in)
			}
		}
		if pos >= len(data) {
			return "", false
		}
		return s.caller.variable(data[pos], depth+1)
	}
	n, ok := s.nodes[r.node]
	if !ok {
		return "", false
	}
	switch {
	case variableOps[n.GetOp()] && s.fn == nil:
		return n.GetName(), true
	case n.GetOp() == "Identity" && len(n.GetInput()) > 0:
		return s.variable(n.GetInput()[0], depth+1)
	}
	return "", false
}

// constStrings returns the want strings of the Const node that the input
// in designates (through Identity ops): one per output of the RestoreV2.
func (s *scope) constStrings(in string, want int) ([]string, error) {
	for range maxChain {
		r, ok := s.parse(in)
		if !ok || r.arg {
			return nil, fmt.Errorf("%q is not a constant", in)
		}
		n, ok := s.nodes[r.node]
		if !ok {
			return nil, fmt.Errorf("no node %q", r.node)
		}
		switch n.GetOp() {
		case "Identity":
			if len(n.GetInput()) == 0 {
				return nil, fmt.Errorf("node %q has no input", r.node)
			}
			in = n.GetInput()[0]
			continue
		case "Const":
		default:
			return nil, fmt.Errorf("node %q is a %s, not a Const", r.node, n.GetOp())
		}
		tp := n.GetAttr()["value"].GetTensor()
		if tp == nil || tp.GetDtype() != tfpb.DataType_DT_STRING {
			return nil, fmt.Errorf("node %q, a Const, does not hold strings", r.node)
		}
		dims := tp.GetTensorShape().GetDim()
		if len(dims) != 1 || dims[0].GetSize() != int64(want) {
			return nil, fmt.Errorf("node %q, a Const, is not a vector of %d strings, one per entry of the RestoreV2's dtypes", r.node, want)
		}
		vals := tp.GetStringVal()
		if len(vals) > want || (len(vals) == 0 && want > 0) {
			return nil, fmt.Errorf("node %q, a Const, has %d strings for %d elements", r.node, len(vals), want)
		}
		out := make([]string, want)
		for i := range out {
			// TensorFlow repeats the last value of a short list.
			out[i] = string(vals[min(i, len(vals)-1)])
		}
		return out, nil
	}
	return nil, fmt.Errorf("more than %d Identity ops before the Const", maxChain)
}
