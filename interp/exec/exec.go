// Package exec is recom's CPU reference interpreter: it evaluates an IR
// program on tensors, so that every lowering can be checked by running the
// program before and after it on the same feeds and comparing the outputs.
//
// The engine knows no dialect. Dialect packages register a Kernel per op
// name (Register) and, where needed, which types are control (unit) values
// (RegisterUnitType), which element types map to which dtypes
// (RegisterElemType), and which ops initialize a resource made by another op
// (RegisterInitializer). Importing a dialect package registers its
// semantics; dialects/tfg registers TensorFlow's.
//
// Evaluation: every op under the root that has a kernel is a node; an op
// without a kernel that holds regions (builtin.module, tfg.graph) is a
// container whose ops are nodes. Only the backward closure of the requested
// outputs is evaluated, each node after the producers of its operands
// (topological order; in SSA regions this is program order restricted to
// what is needed); a cycle is an error. Values are numbered once when the
// program is compiled, so evaluation uses slices, not maps.
//
// Tensor names: an op's name is its "_mlir_name" attribute, or else the name
// of its NameLoc location. Result i of op "n" is the tensor "n:i"; "n" alone
// is "n:0". Feeds and outputs use these names; an output "^n" runs node n
// for its effect only. A fed tensor replaces the tensor its op would make:
// the op is not run for it.
//
// Function arguments: argument i of the entry block of a container op with
// a symbol name (func.func @f) is the tensor "@f:i" ("@f" is "@f:0"); it
// can be fed, and asked for as an output (it is then the fed tensor).
//
// Side effects: ops registered with RegisterEffect (a kernel launch that
// writes device buffers in place) run on every Run, whatever the outputs,
// in program order among themselves, each after the producers of its
// operands.
package exec

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"

	"github.com/recom-compiler/recom/interp"
	"github.com/recom-compiler/recom/textir"
)

// Kernel evaluates one op. in holds the op's operand values in order
// (control operands are Unit). It returns the op's results without those of
// a unit type (the engine adds Unit for them), in order.
type Kernel func(op *textir.Operation, in []*interp.Tensor, st *State) ([]*interp.Tensor, error)

// Unit is the value of control (unit-typed) results.
var Unit = interp.Must(interp.New[bool]([]int64{0}, nil))

var (
	regMu        sync.RWMutex
	kernels      = map[string]Kernel{}
	initializers = map[string]int{}
	unitTypes    = map[textir.Type]bool{}
	effects      = map[string]bool{}
	elemTypes    = map[textir.Type]interp.DType{}
)

// Register sets the kernel of ops named opName ("dialect.op"), replacing any
// earlier one.
func Register(opName string, k Kernel) {
	regMu.Lock()
	defer regMu.Unlock()
	kernels[opName] = k
}

// Lookup returns the kernel registered for opName.
func Lookup(opName string) (Kernel, bool) {
	regMu.RLock()
	defer regMu.RUnlock()
	k, ok := kernels[opName]
	return k, ok
}

// RegisterInitializer declares that ops named opName initialize the
// resource made by the op defining their operand #operand (a hash table
// filled by its initializer). Whenever that resource's op is evaluated, its
// initializers present in the program are evaluated before any other user
// of the resource, even when no edge or only control edges connect them, as
// TensorFlow runs its table initializers before the first lookup.
func RegisterInitializer(opName string, operand int) {
	regMu.Lock()
	defer regMu.Unlock()
	initializers[opName] = operand
}

// RegisterEffect declares that ops named opName have side effects: they run
// on every Run, in program order among themselves.
func RegisterEffect(opName string) {
	regMu.Lock()
	defer regMu.Unlock()
	effects[opName] = true
}

// RegisterUnitType declares t a control type: values of type t carry no
// data (they are Unit) and kernels do not return them.
func RegisterUnitType(t textir.Type) {
	regMu.Lock()
	defer regMu.Unlock()
	unitTypes[t] = true
}

// RegisterElemType maps a dialect element type (such as !tfg.string) to a
// dtype, for the checks of kernel results and feeds.
func RegisterElemType(t textir.Type, dt interp.DType) {
	regMu.Lock()
	defer regMu.Unlock()
	elemTypes[t] = dt
}

// IsUnitType reports whether t was registered as a control type.
func IsUnitType(t textir.Type) bool {
	regMu.RLock()
	defer regMu.RUnlock()
	return unitTypes[t]
}

// DTypeOf returns the dtype of the elements of t (a tensor type or an
// element type): builtin f32, f64, i1, i8, i16, i32, i64, ui8 and
// registered dialect types. ok is false for types without one (resources,
// refs of unknown types, ...), which are not checked.
func DTypeOf(t textir.Type) (interp.DType, bool) {
	e := textir.ElementType(t)
	switch e := e.(type) {
	case *textir.FloatType:
		switch e.Kind {
		case textir.KindF32:
			return interp.Float32, true
		case textir.KindF64:
			return interp.Float64, true
		}
		return interp.Invalid, false
	case *textir.IntType:
		if e.Signedness == textir.Unsigned {
			if e.Width == 8 {
				return interp.Uint8, true
			}
			return interp.Invalid, false
		}
		switch e.Width {
		case 1:
			return interp.Bool, true
		case 8:
			return interp.Int8, true
		case 16:
			return interp.Int16, true
		case 32:
			return interp.Int32, true
		case 64:
			return interp.Int64, true
		}
		return interp.Invalid, false
	}
	regMu.RLock()
	defer regMu.RUnlock()
	dt, ok := elemTypes[e]
	return dt, ok
}

// TableData is the content of a hash table given from outside the program
// (its initializer was cut away by subgraph extraction).
type TableData struct {
	Keys, Values *interp.Tensor
}

// Options tunes a run.
type Options struct {
	// Variables holds variable values by node name (VariableV2,
	// VarHandleOp).
	Variables map[string]*interp.Tensor
	// Tables holds hash-table contents by table node name, for tables
	// the program does not initialize itself.
	Tables map[string]TableData
	// RandomTables gives variables absent from Variables deterministic
	// random values drawn from Seed and the variable's name (see
	// RandomTensor); without it, such a variable is an error.
	RandomTables bool
	// Seed seeds RandomTables.
	Seed uint64
	// DataOnly follows data edges only: the producers of control
	// operands are not run for them (their value is Unit), as subgraph
	// extraction cuts them. Resource initializers still run.
	DataOnly bool
	// Kernels overrides, for this run, the registered kernels of ops by
	// op name (a GPU implementation of an op instead of its reference
	// semantics).
	Kernels map[string]Kernel
	// AssetDir is the directory that relative file names in the program
	// are resolved against (the vocabulary file of a table's
	// InitializeTableFromTextFileV2: a SavedModel's assets directory);
	// empty means the current directory. Absolute names are used as they
	// are, as TensorFlow does.
	AssetDir string
}

// node is one op with a kernel.
type node struct {
	op     *textir.Operation
	kernel Kernel
	in     []int32        // value ids of the operands
	unitIn []bool         // which operands are unit-typed; nil when none
	out    int32          // value id of result 0; results are consecutive
	data   []int32        // result numbers of the non-unit results
	want   []interp.DType // dtype expected of each data result; Invalid: unchecked
	inits  []int32        // initializer nodes of the resource this node makes
	isInit int32          // node whose resource this node initializes, or -1
	after  int32          // for an effect node, the previous effect node, or -1
	name   string
}

// Program is a compiled program: ops numbered, operands resolved. Compile
// once and Run many times; Runs may proceed concurrently.
type Program struct {
	root     *textir.Operation
	nodes    []node
	producer []int32 // value id -> node index; -1: not produced by a node
	numVals  int
	byName   map[string]int32           // op name -> node index
	args     map[string][]*textir.Value // "@f" -> entry block arguments of f
	argIDs   map[*textir.Value]int32    // function argument -> value id
	valueIDs map[*textir.Value]int32    // op result or function argument -> value id (Evaluate)
	effects  []int32                    // effect nodes in program order

	memoMu sync.Mutex
	memo   []any
}

// Compile numbers the ops of root and resolves their operands.
func Compile(root *textir.Operation) (*Program, error) {
	// Count first, so that the tables are allocated once.
	numOps, numRes := 0, 0
	root.Walk(func(op *textir.Operation) bool {
		numOps++
		numRes += op.NumResults()
		return true
	})
	p := &Program{root: root, byName: make(map[string]int32, numOps), nodes: make([]node, 0, numOps), producer: make([]int32, 0, numRes),
		args: map[string][]*textir.Value{}, argIDs: map[*textir.Value]int32{}}
	ids := make(map[*textir.Value]int32, numRes)
	regMu.RLock()
	kern := make(map[string]Kernel, len(kernels))
	for k, v := range kernels {
		kern[k] = v
	}
	units := make(map[textir.Type]bool, len(unitTypes))
	for k, v := range unitTypes {
		units[k] = v
	}
	effectOps := make(map[string]bool, len(effects))
	for k := range effects {
		effectOps[k] = true
	}
	regMu.RUnlock()
	lastEffect := int32(-1)
	root.Walk(func(op *textir.Operation) bool {
		k, ok := kern[op.Name()]
		if !ok {
			if op.NumRegions() > 0 {
				sym, hasSym := textir.SymbolName(op)
				if _, dup := p.args["@"+sym]; dup {
					hasSym = false
				}
				for ri, r := range op.Regions() {
					for bi, b := range r.Blocks() {
						for _, a := range b.Args() {
							if hasSym && ri == 0 && bi == 0 {
								// A function argument: a value that can be fed.
								ids[a] = int32(p.numVals)
								p.argIDs[a] = int32(p.numVals)
								p.numVals++
								p.producer = append(p.producer, -1)
								p.args["@"+sym] = append(p.args["@"+sym], a)
								continue
							}
							ids[a] = -1 // block arguments have no value
						}
					}
				}
				return true // a container: its ops are nodes
			}
			k = nil // no semantics: an error only if it must run
		}
		idx := int32(len(p.nodes))
		n := node{op: op, kernel: k, out: int32(p.numVals), isInit: -1, after: -1, name: OpName(op)}
		if effectOps[op.Name()] {
			n.after = lastEffect
			lastEffect = idx
			p.effects = append(p.effects, idx)
		}
		for i := range op.NumResults() {
			r := op.Result(i)
			ids[r] = int32(p.numVals)
			p.numVals++
			p.producer = append(p.producer, idx)
			if units[r.Type()] {
				continue
			}
			n.data = append(n.data, int32(i))
			dt, ok := DTypeOf(r.Type())
			if !ok {
				dt = interp.Invalid
			}
			n.want = append(n.want, dt)
		}
		if n.name != "" {
			if _, dup := p.byName[n.name]; !dup {
				p.byName[n.name] = idx
			}
		}
		p.nodes = append(p.nodes, n)
		return false // a kernel handles the op's regions, if any
	})
	regMu.RLock()
	inits := make(map[string]int, len(initializers))
	for k, v := range initializers {
		inits[k] = v
	}
	regMu.RUnlock()
	for i := range p.nodes {
		n := &p.nodes[i]
		n.in = make([]int32, n.op.NumOperands())
		for j := range n.in {
			v := n.op.Operand(j)
			id, ok := ids[v]
			if !ok {
				return nil, n.op.Errorf("operand #%d is not defined inside the program", j)
			}
			n.in[j] = id
			if IsUnitType(v.Type()) {
				if n.unitIn == nil {
					n.unitIn = make([]bool, len(n.in))
				}
				n.unitIn[j] = true
			}
		}
		if k, ok := inits[n.op.Name()]; ok && k < len(n.in) && n.in[k] >= 0 {
			target := p.producer[n.in[k]]
			n.isInit = target
			p.nodes[target].inits = append(p.nodes[target].inits, int32(i))
		}
	}
	p.memo = make([]any, len(p.nodes))
	p.valueIDs = ids
	return p, nil
}

// OpName returns the name tensors of op are named after: its "_mlir_name"
// attribute, or the name of its NameLoc location, or "".
func OpName(op *textir.Operation) string {
	if s, ok := op.Attr("_mlir_name").(textir.StringAttr); ok {
		return s.Value
	}
	if n, ok := textir.LocName(op.Loc()); ok {
		return n
	}
	return ""
}

// parseTensorName splits "node", "node:idx" and "node__idx" (for file
// formats whose names cannot hold ':'); control reports a leading '^'.
func parseTensorName(s string) (name string, idx int, control bool) {
	if strings.HasPrefix(s, "^") {
		return s[1:], 0, true
	}
	if i := strings.LastIndexByte(s, ':'); i >= 0 {
		if k, err := strconv.Atoi(s[i+1:]); err == nil && k >= 0 {
			return s[:i], k, false
		}
	}
	return s, 0, false
}

// resolve finds the value id of a tensor name. For a function argument
// ("@f:i") nodeIdx is -1.
func (p *Program) resolve(s string) (id int32, nodeIdx int32, control bool, err error) {
	name, idx, control := parseTensorName(s)
	if strings.HasPrefix(name, "@") && !control {
		args, ok := p.args[name]
		if !ok {
			return -1, -1, false, fmt.Errorf("no function %s with arguments in the program", name)
		}
		if idx >= len(args) {
			return -1, -1, false, fmt.Errorf("function %s has %d arguments; tensor %q does not exist", name, len(args), s)
		}
		return p.argIDs[args[idx]], -1, false, nil
	}
	ni, ok := p.byName[name]
	if !ok {
		// node__idx, as written by tools whose array names avoid ':'.
		if i := strings.LastIndex(s, "__"); i > 0 {
			if k, err2 := strconv.Atoi(s[i+2:]); err2 == nil && k >= 0 {
				if nj, ok2 := p.byName[s[:i]]; ok2 {
					ni, ok, idx, name = nj, true, k, s[:i]
				}
			}
		}
	}
	if !ok {
		return -1, -1, false, fmt.Errorf("no op named %q in the program", name)
	}
	n := &p.nodes[ni]
	if control {
		return -1, ni, true, nil
	}
	if idx >= len(n.data) {
		return -1, -1, false, n.op.Errorf("has %d data results; tensor %q does not exist", len(n.data), s)
	}
	return n.out + n.data[idx], ni, false, nil
}

// State is the per-run state kernels see: options, resources (variables,
// hash tables) and the op being evaluated.
type State struct {
	ctx       context.Context
	prog      *Program
	opts      *Options
	cur       int32
	lazy      bool
	resources map[string]any
}

// MarkLazy tells the engine that the current op's results stand for values
// made lazily by their users (a random table read only by gathers): their
// shapes are not checked against the result types.
func (s *State) MarkLazy() { s.lazy = true }

// Context returns the run's context.
func (s *State) Context() context.Context { return s.ctx }

// Options returns the run's options (never nil).
func (s *State) Options() *Options { return s.opts }

// Resource returns the per-run resource stored under key, or nil.
func (s *State) Resource(key string) any { return s.resources[key] }

// SetResource stores a per-run resource (a variable's value, a hash table).
func (s *State) SetResource(key string, v any) { s.resources[key] = v }

// Memo returns a value computed once per op of the Program and kept across
// runs (a decoded constant, parsed attributes): build runs on the first
// call for the current op.
func (s *State) Memo(build func() (any, error)) (any, error) {
	p := s.prog
	p.memoMu.Lock()
	v := p.memo[s.cur]
	p.memoMu.Unlock()
	if v != nil {
		return v, nil
	}
	v, err := build()
	if err != nil {
		return nil, err
	}
	p.memoMu.Lock()
	p.memo[s.cur] = v
	p.memoMu.Unlock()
	return v, nil
}

// Run compiles root and runs it: see Program.Run.
func Run(ctx context.Context, root *textir.Operation, feeds map[string]*interp.Tensor, outputs []string, opts *Options) (map[string]*interp.Tensor, error) {
	p, err := Compile(root)
	if err != nil {
		return nil, err
	}
	return p.Run(ctx, feeds, outputs, opts)
}

// Run evaluates the outputs (tensor names, or "^node" for a node run for
// its effect) given the feeds, and returns them keyed by the names as
// given. opts may be nil.
func (p *Program) Run(ctx context.Context, feeds map[string]*interp.Tensor, outputs []string, opts *Options) (map[string]*interp.Tensor, error) {
	if len(outputs) == 0 {
		return nil, errors.New("exec: no outputs requested")
	}
	vals, fed, err := p.bindFeeds(feeds)
	if err != nil {
		return nil, err
	}
	var roots []int32
	outIDs := make([]int32, len(outputs))
	for i, o := range outputs {
		id, ni, control, err := p.resolve(o)
		if err != nil {
			return nil, fmt.Errorf("output %q: %w", o, err)
		}
		outIDs[i] = id
		if ni < 0 && !control && !fed[id] {
			return nil, fmt.Errorf("output %q: the function argument was not fed", o)
		}
		if control || !fed[id] {
			roots = append(roots, ni)
		}
	}
	if err := p.run(ctx, vals, fed, roots, opts); err != nil {
		return nil, err
	}
	res := make(map[string]*interp.Tensor, len(outputs))
	for i, o := range outputs {
		if outIDs[i] >= 0 {
			res[o] = vals[outIDs[i]]
		}
	}
	return res, nil
}

// Evaluate is Run for callers that hold the values they want rather than
// their names (names may repeat, and many ops have none): it evaluates
// values, results of ops of the program or arguments of its functions,
// given the feeds (by name, as for Run), and returns their tensors in
// order. A value of a control type is Unit; a function argument must be
// fed. opts may be nil.
func (p *Program) Evaluate(ctx context.Context, feeds map[string]*interp.Tensor, values []*textir.Value, opts *Options) ([]*interp.Tensor, error) {
	if len(values) == 0 {
		return nil, errors.New("exec: no values requested")
	}
	vals, fed, err := p.bindFeeds(feeds)
	if err != nil {
		return nil, err
	}
	var roots []int32
	ids := make([]int32, len(values))
	for i, v := range values {
		id, ok := p.valueIDs[v]
		if v == nil || !ok || id < 0 {
			return nil, fmt.Errorf("exec: value #%d is not a result or function argument of the program", i)
		}
		ids[i] = id
		if fed[id] {
			continue
		}
		ni := p.producer[id]
		if ni < 0 {
			return nil, fmt.Errorf("exec: value #%d: the function argument %s was not fed", i, p.argName(id))
		}
		roots = append(roots, ni)
	}
	if err := p.run(ctx, vals, fed, roots, opts); err != nil {
		return nil, err
	}
	res := make([]*interp.Tensor, len(values))
	for i, id := range ids {
		res[i] = vals[id]
	}
	return res, nil
}

// bindFeeds checks the feeds and returns the value table holding them.
func (p *Program) bindFeeds(feeds map[string]*interp.Tensor) (vals []*interp.Tensor, fed []bool, err error) {
	vals = make([]*interp.Tensor, p.numVals)
	fed = make([]bool, p.numVals)
	for name, t := range feeds {
		id, ni, control, err := p.resolve(name)
		if err != nil {
			return nil, nil, fmt.Errorf("feed %q: %w", name, err)
		}
		if control {
			return nil, nil, fmt.Errorf("feed %q: a control input cannot be fed", name)
		}
		if t == nil {
			return nil, nil, fmt.Errorf("feed %q: nil tensor", name)
		}
		if ni < 0 { // a function argument
			a := p.argValue(id)
			if want, ok := DTypeOf(a.Type()); ok && want != t.DType() {
				return nil, nil, fmt.Errorf("feed %q has dtype %v, but the argument of type %s is %v", name, t.DType(), a.Type(), want)
			}
			if err := checkShape(a.Type(), t); err != nil {
				return nil, nil, fmt.Errorf("feed %q: %v", name, err)
			}
			vals[id] = t
			fed[id] = true
			continue
		}
		n := &p.nodes[ni]
		ri := int(id - n.out)
		if want, ok := DTypeOf(n.op.Result(ri).Type()); ok && want != t.DType() {
			return nil, nil, n.op.Errorf("feed %q has dtype %v, but the tensor is %v", name, t.DType(), want)
		}
		if err := checkShape(n.op.Result(ri).Type(), t); err != nil {
			return nil, nil, n.op.Errorf("feed %q: %v", name, err)
		}
		vals[id] = t
		fed[id] = true
	}
	return vals, fed, nil
}

// run evaluates the nodes roots need (and every side effect) into vals.
func (p *Program) run(ctx context.Context, vals []*interp.Tensor, fed []bool, roots []int32, opts *Options) error {
	if opts == nil {
		opts = &Options{}
	}
	roots = append(roots, p.effects...)
	order, err := p.schedule(roots, fed, opts.DataOnly)
	if err != nil {
		return err
	}
	st := &State{ctx: ctx, prog: p, opts: opts, resources: map[string]any{}}
	var in []*interp.Tensor
	for k, ni := range order {
		if k&255 == 0 && ctx != nil {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		n := &p.nodes[ni]
		kern := n.kernel
		if k, ok := opts.Kernels[n.op.Name()]; ok && k != nil {
			kern = k
		}
		if kern == nil {
			return n.op.Errorf("has no semantics registered in the interpreter")
		}
		in = in[:0]
		for _, id := range n.in {
			if id < 0 {
				return n.op.Errorf("operand #%d is a block argument, which the interpreter cannot bind", len(in))
			}
			v := vals[id]
			if v == nil {
				if n.unitIn != nil && n.unitIn[len(in)] {
					v = Unit
				} else if p.producer[id] < 0 {
					return n.op.Errorf("operand #%d is a function argument that was not fed (feed it as \"%s\")", len(in), p.argName(id))
				} else {
					return n.op.Errorf("operand #%d has no value", len(in))
				}
			}
			in = append(in, v)
		}
		st.cur, st.lazy = ni, false
		outs, err := kern(n.op, in, st)
		if err != nil {
			var d *textir.Diagnostic
			if errors.As(err, &d) {
				return err
			}
			return n.op.Errorf("%v", err)
		}
		if len(outs) != len(n.data) {
			return n.op.Errorf("kernel returned %d results, want %d", len(outs), len(n.data))
		}
		for i, r := range n.data {
			id := n.out + r
			if fed[id] {
				continue
			}
			t := outs[i]
			if t == nil {
				return n.op.Errorf("kernel returned no value for result #%d", r)
			}
			if w := n.want[i]; w != interp.Invalid && t.DType() != w {
				return n.op.Errorf("result #%d has dtype %v, but the op's result type %s wants %v", r, t.DType(), n.op.Result(int(r)).Type(), w)
			}
			if !st.lazy {
				if err := checkShape(n.op.Result(int(r)).Type(), t); err != nil {
					return n.op.Errorf("result #%d: %v", r, err)
				}
			}
			vals[id] = t
		}
		for r := range n.op.NumResults() {
			if id := n.out + int32(r); vals[id] == nil {
				vals[id] = Unit
			}
		}
	}
	return nil
}

// argValue returns the function argument with value id id.
func (p *Program) argValue(id int32) *textir.Value {
	for a, i := range p.argIDs {
		if i == id {
			return a
		}
	}
	return nil
}

// argName returns the tensor name of the function argument with value id id.
func (p *Program) argName(id int32) string {
	a := p.argValue(id)
	for name, args := range p.args {
		for i, b := range args {
			if a == b {
				return name + ":" + strconv.Itoa(i)
			}
		}
	}
	return "?"
}

// checkShape rejects a fed tensor whose rank or static dims contradict the
// value's ranked tensor type.
func checkShape(t textir.Type, v *interp.Tensor) error {
	tt, ok := t.(*textir.TensorType)
	if !ok {
		return nil
	}
	if len(tt.Shape) != v.Rank() {
		return fmt.Errorf("shape %s is incompatible with the tensor type %s", interp.ShapeString(v.Shape()), t)
	}
	for i, d := range tt.Shape {
		if d >= 0 && d != v.Dim(i) {
			return fmt.Errorf("shape %s is incompatible with the tensor type %s", interp.ShapeString(v.Shape()), t)
		}
	}
	return nil
}

// schedule returns the nodes the roots need, each after its dependencies:
// the producers of its unfed operands and, for a user of a resource, the
// resource's initializers. A cycle is an error naming an op on it.
func (p *Program) schedule(roots []int32, fed []bool, dataOnly bool) ([]int32, error) {
	const (
		white = iota
		grey
		black
	)
	color := make([]uint8, len(p.nodes))
	var order []int32
	type frame struct {
		n    int32
		next int // next operand (then initializer) to visit
	}
	var stack []frame
	// deps yields dependency k of node n, or -2 when done, -1 to skip.
	dep := func(n *node, self int32, k int) int32 {
		if k < len(n.in) {
			id := n.in[k]
			if id < 0 || fed[id] || (dataOnly && n.unitIn != nil && n.unitIn[k]) {
				return -1
			}
			return p.producer[id]
		}
		// The previous side effect.
		k -= len(n.in)
		if k == 0 {
			return n.after
		}
		k--
		// Initializers of the resources n's operands come from.
		for _, id := range n.in {
			if id < 0 || fed[id] || p.producer[id] < 0 {
				continue
			}
			pr := &p.nodes[p.producer[id]]
			if k < len(pr.inits) {
				if in := pr.inits[k]; in != self && n.isInit < 0 {
					return in
				}
				return -1
			}
			k -= len(pr.inits)
		}
		return -2
	}
	for _, r := range roots {
		if color[r] != white {
			continue
		}
		color[r] = grey
		stack = append(stack[:0], frame{n: r})
		for len(stack) > 0 {
			f := &stack[len(stack)-1]
			n := &p.nodes[f.n]
			d := dep(n, f.n, f.next)
			if d == -2 {
				color[f.n] = black
				order = append(order, f.n)
				stack = stack[:len(stack)-1]
				continue
			}
			f.next++
			if d < 0 {
				continue
			}
			switch color[d] {
			case white:
				color[d] = grey
				stack = append(stack, frame{n: d})
			case grey:
				return nil, p.nodes[d].op.Errorf("is on a dependency cycle (through %q)", n.name)
			}
		}
	}
	return order, nil
}
