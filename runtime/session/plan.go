package session

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/recom-compiler/recom/dialects/fused"
	"github.com/recom-compiler/recom/dialects/fused/abi"
	"github.com/recom-compiler/recom/dialects/tfg"
	"github.com/recom-compiler/recom/interp"
	"github.com/recom-compiler/recom/interp/exec"
	"github.com/recom-compiler/recom/textir"
)

// kind says where a value of the plan lives.
type kind int

const (
	kindConst  kind = iota // known when the session is made (variables, tables, constants)
	kindFeed               // a placeholder, fed with every batch
	kindHost               // computed on the host by a host step
	kindPacked             // an embedding layer's input: its packer reads it from the feeds
	kindDevice             // on the device: computed by a kernel, uploaded, or an alias of one
)

// value is one value of the program the plan uses.
type value struct {
	v    *textir.Value
	kind kind

	// host is the value's index in a batch's host values (kindConst,
	// kindFeed, kindHost).
	host int
	// konst is the value of a kindConst value (nil for a table, whose
	// value goes straight into its layer's arena).
	konst *interp.Tensor
	// feed is the name of a placeholder (kindFeed), feedAlt its other
	// name ("n:0"), and check what a feed of it must be.
	feed, feedAlt string
	check         feedCheck
	// afterDevice: a host value computed from device values.
	afterDevice bool
	// dev is the device state of a kindDevice value, and of a host value
	// uploaded for a device step.
	dev *devValue
}

// devValue is a matrix on the device, B rows of width elements (float32
// unless its format says otherwise).
type devValue struct {
	name   string // for the Summary and errors
	width  int64
	format Format // F32 unless every reader reads BF16 (planLayouts)
	// place, when set, puts the value in columns of a reader's
	// concatenated input rather than in memory of its own.
	place *placement
	// root is the value whose memory this one aliases (a reshape); nil
	// when it has its own.
	root *devValue
	// rest are the static dims after the batch dim of the host tensor
	// made from it.
	rest []int64
	// fromHost: uploaded with every batch from a host value (in the
	// first input region, before the packed inputs).
	fromHost *value
	// toHost: copied back with every batch (in the output arena).
	toHost bool
}

func (d *devValue) base() *devValue {
	for d.root != nil {
		d = d.root
	}
	return d
}

// hostStep is one op computed on the host, compiled once.
type hostStep struct {
	op     *textir.Operation
	node   string
	run    hostKernel
	in     []*value
	out    []*value // data results (nil for those the plan does not use)
	post   bool     // reads device values: runs after the batch's graph
	reads  []*value // device values it reads (copied back)
	statID int
}

// layerStep is one fused.embedding_layer: its packer, its kernel, its
// tables.
type layerStep struct {
	op      *textir.Operation
	node    string
	layer   *abi.Layer
	kernel  string
	packer  Packer
	out     *devValue
	tables  []*interp.Tensor // by operand (nil elsewhere), until the packers are made
	statID  int
	operand []*value // the layer's non-table operands (kindPacked)
}

// denseStep is one fused.dense.
type denseStep struct {
	op    *textir.Operation
	node  string
	dense *abi.Dense
	step  DenseStep
	in    []*devValue
	out   *devValue
	w, b  *value // constant weight and bias (b nil without one)

	// What planLayouts made of the step's Layout: the values Enqueue
	// gets as its inputs (in, or the buffers they are moved into) and
	// the moves before the step.
	layout Layout
	args   []*devValue
	moves  []move
}

// plan is what New makes of the program, once.
type plan struct {
	root    *textir.Operation
	values  map[*textir.Value]*value
	outputs []*value
	names   []string // the outputs as requested
	nhost   int      // host values of a batch
	feeds   []*value
	pre     []*hostStep // host steps before the graph, in dependence order
	post    []*hostStep // host steps after it
	layers  []*layerStep
	dense   []*denseStep // in dependence order
	// devSteps are the ops computed on the device (devstep.go), and
	// steps the graph's steps after the layers, dense and device steps
	// in dependence order.
	devSteps []*devStep
	steps    []gpuStep
	devs     []*devValue // every device value, in definition order
	uploads  []*devValue // fromHost values, in their upload order
	consts   []*value    // constants to evaluate (tables apart)
	// needFeed holds the feeds the session reads itself (host steps,
	// uploads, outputs); the packers check their own. ownFeeds lists
	// them in feed order, the only feeds a batch looks up and checks
	// before its packers run.
	needFeed map[*value]bool
	ownFeeds []*value
}

// nodeName is the TensorFlow node an op comes from ("" when unknown).
func nodeName(op *textir.Operation) string { return exec.OpName(op) }

// dataOperands returns op's operands that carry data (not control).
func dataOperands(op *textir.Operation) []*textir.Value {
	var out []*textir.Value
	for i := range op.NumOperands() {
		v := op.Operand(i)
		if !exec.IsUnitType(v.Type()) {
			out = append(out, v)
		}
	}
	return out
}

// dataResults returns op's results that carry data, in order: result i of
// the op's tensor names is the i-th of them.
func dataResults(op *textir.Operation) []*textir.Value {
	var out []*textir.Value
	for i := range op.NumResults() {
		v := op.Result(i)
		if !exec.IsUnitType(v.Type()) {
			out = append(out, v)
		}
	}
	return out
}

// resolveOutputs finds the values named as exec names tensors: "node" or
// "node:i", node an op's name (the first op of that name).
func resolveOutputs(root *textir.Operation, names []string) ([]*textir.Value, error) {
	byName := map[string]*textir.Operation{}
	root.Walk(func(op *textir.Operation) bool {
		if n := exec.OpName(op); n != "" {
			if _, dup := byName[n]; !dup {
				byName[n] = op
			}
		}
		return op.Name() != "gpu.module"
	})
	out := make([]*textir.Value, len(names))
	for i, name := range names {
		n, idx := name, 0
		if j := strings.LastIndexByte(name, ':'); j >= 0 {
			if k, err := strconv.Atoi(name[j+1:]); err == nil && k >= 0 {
				n, idx = name[:j], k
			}
		}
		op, ok := byName[n]
		if !ok {
			return nil, fmt.Errorf("output %q: no op named %q in the program", name, n)
		}
		res := dataResults(op)
		if idx >= len(res) {
			return nil, op.Errorf("has %d data results; tensor %q does not exist", len(res), name)
		}
		out[i] = res[idx]
	}
	return out, nil
}

// closure returns the ops the values need, producers first (data edges
// only: control dependencies are not run).
func closure(values []*textir.Value) ([]*textir.Operation, error) {
	const (
		grey = 1
		done = 2
	)
	state := map[*textir.Operation]int{}
	var order []*textir.Operation
	type frame struct {
		op   *textir.Operation
		ins  []*textir.Value
		next int
	}
	for _, v := range values {
		op := v.DefiningOp()
		if op == nil {
			return nil, fmt.Errorf("a function argument cannot be an output or input of a session (feed placeholders)")
		}
		if state[op] == done {
			continue
		}
		stack := []frame{{op: op, ins: dataOperands(op)}}
		state[op] = grey
		for len(stack) > 0 {
			f := &stack[len(stack)-1]
			if f.next == len(f.ins) {
				state[f.op] = done
				order = append(order, f.op)
				stack = stack[:len(stack)-1]
				continue
			}
			in := f.ins[f.next]
			f.next++
			p := in.DefiningOp()
			if p == nil {
				return nil, f.op.Errorf("reads a block argument, which a session cannot bind (feed placeholders)")
			}
			switch state[p] {
			case 0:
				state[p] = grey
				stack = append(stack, frame{op: p, ins: dataOperands(p)})
			case grey:
				return nil, p.Errorf("is on a dependency cycle")
			}
		}
	}
	return order, nil
}

// isPlaceholder reports whether op is fed.
func isPlaceholder(op *textir.Operation) bool { return op.Name() == "tfg.Placeholder" }

// planProgram classifies the ops the outputs need: constants, feeds, the
// embedding layers with the ops their packers replace, the dense layers,
// device aliases, and host steps; anything else is an error naming the op
// and its node.
func planProgram(root *textir.Operation, outputs []string) (*plan, error) {
	if len(outputs) == 0 {
		return nil, fmt.Errorf("session: no outputs requested")
	}
	outVals, err := resolveOutputs(root, outputs)
	if err != nil {
		return nil, err
	}
	ops, err := closure(outVals)
	if err != nil {
		return nil, err
	}
	p := &plan{root: root, values: map[*textir.Value]*value{}, names: outputs}

	// Which ops depend on the feeds.
	live := map[*textir.Operation]bool{}
	for _, op := range ops {
		if isPlaceholder(op) {
			live[op] = true
			continue
		}
		for _, v := range dataOperands(op) {
			if live[v.DefiningOp()] {
				live[op] = true
				break
			}
		}
	}
	// The packers' ops: what the layers' non-table operands need,
	// placeholders excepted.
	packed := map[*textir.Operation]*textir.Operation{} // op → its layer
	for _, op := range ops {
		if op.Name() != fused.EmbeddingLayerOp {
			continue
		}
		var stack []*textir.Operation
		for _, v := range dataOperands(op) {
			if d := v.DefiningOp(); live[d] && !isPlaceholder(d) {
				stack = append(stack, d)
			}
		}
		for len(stack) > 0 {
			d := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			if _, seen := packed[d]; seen || isPlaceholder(d) || !live[d] {
				continue
			}
			if d.Name() == fused.EmbeddingLayerOp || d.Name() == fused.DenseOp {
				return nil, op.Errorf("reads the result of %s (node %q): a layer's inputs must come from the feeds", d.Name(), nodeName(d))
			}
			packed[d] = op
			for _, v := range dataOperands(d) {
				stack = append(stack, v.DefiningOp())
			}
		}
	}

	newHost := func(tv *textir.Value, k kind) *value {
		v := &value{v: tv, kind: k, host: p.nhost}
		p.nhost++
		p.values[tv] = v
		return v
	}
	for _, op := range ops {
		switch {
		case !live[op]:
			for _, r := range dataResults(op) {
				newHost(r, kindConst)
			}
		case isPlaceholder(op):
			res := dataResults(op)
			if len(res) != 1 {
				return nil, op.Errorf("a placeholder must have one data result")
			}
			v := newHost(res[0], kindFeed)
			v.feed = nodeName(op)
			if v.feed == "" {
				return nil, op.Errorf("a placeholder needs a name to be fed by")
			}
			p.feeds = append(p.feeds, v)
		case tfg.IsExampleParse(op):
			if err := p.planParse(op, ops, packed, outVals); err != nil {
				return nil, err
			}
		case packed[op] != nil:
			for _, r := range dataResults(op) {
				p.values[r] = &value{v: r, kind: kindPacked}
			}
		case op.Name() == fused.EmbeddingLayerOp:
			if err := p.planLayer(op); err != nil {
				return nil, err
			}
		case op.Name() == fused.DenseOp:
			if err := p.planDense(op); err != nil {
				return nil, err
			}
		default:
			if err := p.planHost(op); err != nil {
				return nil, err
			}
		}
	}
	// What reads the packers' values must be the layers.
	for _, op := range ops {
		if packed[op] != nil {
			continue
		}
		for _, v := range dataOperands(op) {
			if pv := p.values[v]; pv != nil && pv.kind == kindPacked && op.Name() != fused.EmbeddingLayerOp {
				d := v.DefiningOp()
				return nil, op.Errorf("reads the result of %s (node %q), which only an embedding layer's packer computes", d.Name(), nodeName(d))
			}
		}
	}
	for i, ov := range outVals {
		v := p.values[ov]
		if v.kind == kindPacked {
			d := ov.DefiningOp()
			return nil, d.Errorf("output %q is an input of an embedding layer, which its packer computes without the session seeing it", outputs[i])
		}
		if v.kind == kindDevice {
			v.dev.base().toHost = true
		}
		p.outputs = append(p.outputs, v)
	}
	if len(p.layers) == 0 && len(p.uploads) == 0 {
		return nil, fmt.Errorf("session: nothing of the program runs on the GPU (no fused.embedding_layer, no fused.dense): run it in the interpreter")
	}
	p.needFeed = map[*value]bool{}
	for _, v := range p.outputs {
		p.needFeed[v] = true
	}
	for _, u := range p.uploads {
		p.needFeed[u.fromHost] = true
	}
	for _, hs := range append(append([]*hostStep(nil), p.pre...), p.post...) {
		for _, v := range hs.in {
			p.needFeed[v] = true
		}
	}
	for _, v := range p.values {
		if v.kind == kindConst && v.konst == nil && p.needsConst(v) {
			p.consts = append(p.consts, v)
		}
	}
	// Deterministic order for the evaluation.
	order := map[*textir.Value]int{}
	for i, op := range ops {
		for _, r := range dataResults(op) {
			order[r] = i
		}
	}
	sortValues(p.consts, order)
	for _, v := range p.feeds {
		v.feedAlt = v.feed + ":0"
		v.check = feedCheckOf(v.v)
		if p.needFeed[v] {
			p.ownFeeds = append(p.ownFeeds, v)
		}
	}
	return p, nil
}

// needsConst reports whether a constant's value is read per batch or by
// New: by a host step, as a dense weight or bias, or as an output (a
// layer's tables are read apart).
func (p *plan) needsConst(v *value) bool {
	for _, o := range p.outputs {
		if o == v {
			return true
		}
	}
	for _, s := range append(append([]*hostStep(nil), p.pre...), p.post...) {
		for _, in := range s.in {
			if in == v {
				return true
			}
		}
	}
	for _, d := range p.dense {
		if d.w == v || d.b == v {
			return true
		}
	}
	for _, st := range p.devSteps {
		if slices.Contains(st.in, v) { // uploaded, or an axis (for DensePlan)
			return true
		}
	}
	return false
}

func sortValues(vs []*value, order map[*textir.Value]int) {
	for i := 1; i < len(vs); i++ {
		for j := i; j > 0 && order[vs[j].v] < order[vs[j-1].v]; j-- {
			vs[j], vs[j-1] = vs[j-1], vs[j]
		}
	}
}

// newDevice records a device value made by op's result r.
func (p *plan) newDevice(r *textir.Value, width int64, rest []int64, name string) *value {
	d := &devValue{name: name, width: width, rest: rest}
	v := &value{v: r, kind: kindDevice, dev: d}
	p.values[r] = v
	p.devs = append(p.devs, d)
	return v
}

func (p *plan) planLayer(op *textir.Operation) error {
	l, err := abi.LayerOf(op)
	if err != nil {
		return err
	}
	kernel, err := kernelName(op, "kernel")
	if err != nil {
		return err
	}
	ls := &layerStep{op: op, node: nodeName(op), layer: l, kernel: kernel, tables: make([]*interp.Tensor, op.NumOperands())}
	k := 0
	for i := range l.Columns {
		c := &l.Columns[i]
		for j := range c.NumOperands() {
			v := p.values[op.Operand(k+j)]
			if v == nil {
				return op.Errorf("operand #%d has no planned value", k+j)
			}
			switch {
			case j == 0 && v.kind != kindConst:
				return op.Errorf("column %q: the table must be constant (a variable or a constant), not computed per batch", c.Name)
			case j == 0:
			case v.kind == kindPacked || v.kind == kindFeed || isParseHost(v):
				ls.operand = append(ls.operand, v)
			case v.kind == kindConst:
				return op.Errorf("column %q: operand #%d is a constant; the session packs only inputs that come from the feeds", c.Name, k+j)
			default:
				return op.Errorf("column %q: operand #%d is computed on the %s; a layer's inputs must come from the feeds", c.Name, k+j, where(v))
			}
		}
		k += c.NumOperands()
	}
	if k != op.NumOperands() {
		return op.Errorf("columns take %d operands, but the op has %d", k, op.NumOperands())
	}
	ls.out = p.newDevice(op.Result(0), l.Width, []int64{l.Width}, ls.node).dev
	p.layers = append(p.layers, ls)
	return nil
}

func where(v *value) string {
	if v.kind == kindDevice {
		return "device"
	}
	return "host"
}

func (p *plan) planDense(op *textir.Operation) error {
	d, err := abi.DenseOf(op)
	if err != nil {
		return err
	}
	if d.TransposeA {
		return op.Errorf("transpose_a: a session's device values are row-major [batch, width]")
	}
	ds := &denseStep{op: op, node: nodeName(op), dense: d}
	for i, k := range d.Ks {
		v := p.values[op.Operand(i)]
		switch {
		case v.kind == kindDevice:
		case (v.kind == kindFeed || v.kind == kindHost) && !v.afterDevice:
			if v.dev == nil {
				v.dev = &devValue{name: fmt.Sprintf("input #%d of fused.dense (node %q)", i, ds.node), width: k, rest: []int64{k}, fromHost: v}
				p.devs = append(p.devs, v.dev)
				p.uploads = append(p.uploads, v.dev)
			}
		case v.afterDevice:
			return op.Errorf("input #%d is computed on the host from device results; the session cannot leave the GPU between steps", i)
		default:
			return op.Errorf("input #%d is %s; a dense layer's inputs must come from the device or the feeds", i, kindName(v.kind))
		}
		if v.dev.width != k {
			return op.Errorf("input #%d has %d columns, want %d", i, v.dev.width, k)
		}
		ds.in = append(ds.in, v.dev)
	}
	ds.w = p.values[op.Operand(len(d.Ks))]
	if d.Bias {
		ds.b = p.values[op.Operand(len(d.Ks)+1)]
	}
	for _, c := range []*value{ds.w, ds.b} {
		if c != nil && c.kind != kindConst {
			return op.Errorf("the weight and bias must be constant (variables or constants), not computed per batch")
		}
	}
	ds.out = p.newDevice(op.Result(0), d.N, []int64{d.N}, ds.node).dev
	p.dense = append(p.dense, ds)
	p.steps = append(p.steps, gpuStep{dense: ds})
	return nil
}

func kindName(k kind) string {
	switch k {
	case kindConst:
		return "a constant"
	case kindFeed:
		return "a feed"
	case kindHost:
		return "computed on the host"
	case kindPacked:
		return "an embedding layer's input"
	}
	return "on the device"
}

// planHost plans an op that is neither a layer nor a dense layer: a
// device alias when it only reshapes a device value, a device step when
// it is one (devstep.go), else a host step.
func (p *plan) planHost(op *textir.Operation) error {
	ins := dataOperands(op)
	vals := make([]*value, len(ins))
	devIn := false
	after := false
	for i, v := range ins {
		vals[i] = p.values[v]
		if vals[i] == nil {
			return op.Errorf("operand #%d has no planned value", i)
		}
		switch {
		case vals[i].kind == kindDevice:
			devIn = true
		case vals[i].afterDevice:
			after = true
		case vals[i].kind == kindPacked:
			return op.Errorf("reads an embedding layer's input, which only its packer computes")
		}
	}
	if devIn {
		if d, ok := deviceAlias(op, vals); ok {
			res := dataResults(op)
			v := &value{v: res[0], kind: kindDevice, dev: d}
			p.values[res[0]] = v
			p.devs = append(p.devs, d)
			return nil
		}
		if !after && p.planDevice(op, vals) {
			return nil
		}
	}
	k, err := compileHost(op, vals)
	if err != nil {
		return err
	}
	s := &hostStep{op: op, node: nodeName(op), run: k, in: vals, post: devIn || after}
	for _, r := range dataResults(op) {
		v := &value{v: r, kind: kindHost, host: p.nhost, afterDevice: s.post}
		p.nhost++
		p.values[r] = v
		s.out = append(s.out, v)
	}
	for _, v := range vals {
		if v.kind == kindDevice {
			v.dev.base().toHost = true
			s.reads = append(s.reads, v)
		}
	}
	if s.post {
		p.post = append(p.post, s)
	} else {
		p.pre = append(p.pre, s)
	}
	return nil
}

// aliasOps are the ops that only reinterpret a tensor's shape: on a
// device value they cost nothing.
var aliasOps = map[string]bool{
	"tfg.Identity": true, "tfg.Snapshot": true, "tfg.StopGradient": true,
	"tfg.Reshape": true, "tfg.ExpandDims": true, "tfg.Squeeze": true,
}

// deviceAlias returns the device value an alias op makes of its device
// operand: the same memory, when its result type is [?, static dims...]
// of the operand's row width.
func deviceAlias(op *textir.Operation, in []*value) (*devValue, bool) {
	if !aliasOps[op.Name()] || len(in) == 0 || in[0].kind != kindDevice {
		return nil, false
	}
	for _, v := range in[1:] {
		if v.kind != kindConst { // a shape or axis computed per batch
			return nil, false
		}
	}
	res := dataResults(op)
	if len(res) != 1 {
		return nil, false
	}
	src := in[0].dev
	rest := src.rest
	if op.Name() != "tfg.Identity" && op.Name() != "tfg.Snapshot" && op.Name() != "tfg.StopGradient" {
		tt, ok := res[0].Type().(*textir.TensorType)
		if !ok || len(tt.Shape) < 1 || tt.Shape[0] >= 0 || tt.Elem != textir.F32() {
			return nil, false
		}
		n := int64(1)
		for _, d := range tt.Shape[1:] {
			if d < 0 {
				return nil, false
			}
			n *= d
		}
		if n != src.width {
			return nil, false
		}
		rest = tt.Shape[1:]
	}
	return &devValue{name: nodeName(op), width: src.width, root: src, rest: rest}, true
}

// kernelName returns the kernel function named by op's symbol attribute
// (the leaf of the reference).
func kernelName(op *textir.Operation, attr string) (string, error) {
	ref, ok := op.LookupAttr(attr).(textir.SymbolRefAttr)
	if !ok {
		return "", op.Errorf("requires symbol reference attribute '%s'", attr)
	}
	if n := len(ref.Nested); n > 0 {
		return ref.Nested[n-1], nil
	}
	return ref.Root, nil
}
