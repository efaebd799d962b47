package graphdef

import (
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/recom-compiler/recom/frontend/graphdef/tfpb"
)

// TrainingReport is what AnalyzeTraining finds in a graph: the parts of it that
// only training runs, and where to cut it for inference.
type TrainingReport struct {
	// Gradients are the nodes that compute gradients, in graph order: those
	// in a gradients name scope ("gradients/", "gradients_1/",
	// "training/Adam/gradients/") and gradient kernels (ReluGrad, ...).
	Gradients []string
	// GradientScopes are the scopes of Gradients, in order of appearance
	// (a gradient kernel outside any scope stands for itself).
	GradientScopes []string
	// Optimizers are the optimizers, one per kind of variable update.
	Optimizers []Optimizer
	// Savers are the name scopes of the checkpoint ops (SaveV2,
	// RestoreV2, ...), in order of appearance.
	Savers []string
	// Iterators are the nodes that read a tf.data iterator (GetNext ops),
	// or, in a graph without any, its iterator ops.
	Iterators []string
	// Queues are the nodes that dequeue from a TF1 input queue, or, in a
	// graph without any, its queue ops.
	Queues []string
	// Summaries are the summary ops.
	Summaries []string

	// Losses are the tensors the gradients are of: the forward nodes whose
	// gradients the gradient scopes compute and that feed no other such
	// node.
	Losses []string
	// Inputs are candidate inputs of the inference graph: the batch
	// sources (iterator GetNext and queue dequeue nodes, each standing
	// for all its outputs) and the placeholders that the candidate
	// outputs need.
	Inputs []string
	// Outputs are candidate outputs of the inference graph, in graph
	// order: for each loss, the node that computes the model's output
	// from which the loss is taken (the last node every path from the
	// inputs and variables to the loss passes through before the labels
	// join: the head's logits or predictions), and the sinks of what is
	// computed from it without the labels and outside the loss
	// (probabilities, classes). Without gradients: the sinks of what the
	// inputs feed.
	Outputs []string
}

// Optimizer is one optimizer of a training graph.
type Optimizer struct {
	// Kind is the update it applies ("Adam", "Ftrl", "GradientDescent").
	Kind string
	// Scope is the name scope its updates live in ("Adam",
	// "training/Ftrl"), "" when they share none.
	Scope string
	// Updates are its variable updates (ApplyAdam, ResourceSparseApplyFtrl, ...).
	Updates []string
}

// Found reports whether the graph holds anything that only training runs.
func (t *TrainingReport) Found() bool {
	return len(t.Gradients)+len(t.Optimizers)+len(t.Savers)+len(t.Iterators)+len(t.Queues)+len(t.Summaries) > 0
}

// Describe says what the graph holds for training, as "12 gradient nodes
// (gradients/...), an optimizer (Adam/...), a saver (save/...), an iterator
// (IteratorGetNext), 3 summaries (loss, average_loss, Merge/MergeSummary)".
func (t *TrainingReport) Describe() string {
	var parts []string
	add := func(n int, one, many string, names []string, scopes bool) {
		if n == 0 {
			return
		}
		var shown []string
		for _, s := range names[:min(len(names), 3)] {
			if scopes && !slices.Contains(t.Gradients, s) {
				s += "/..."
			}
			shown = append(shown, s)
		}
		if len(names) > 3 {
			shown = append(shown, "...")
		}
		head := one
		if n > 1 {
			head = fmt.Sprintf("%d %s", n, many)
		}
		parts = append(parts, head+" ("+strings.Join(shown, ", ")+")")
	}
	add(len(t.Gradients), "a gradient node", "gradient nodes", t.GradientScopes, true)
	var opt []string
	for _, o := range t.Optimizers {
		if o.Scope != "" {
			opt = append(opt, o.Scope+"/...")
		} else {
			opt = append(opt, o.Kind+": "+o.Updates[0])
		}
	}
	add(len(t.Optimizers), "an optimizer", "optimizers", opt, false)
	add(len(t.Savers), "a saver", "savers", t.Savers, true)
	add(len(t.Iterators), "an iterator", "iterators", t.Iterators, false)
	add(len(t.Queues), "a queue", "queues", t.Queues, false)
	add(len(t.Summaries), "a summary", "summaries", t.Summaries, false)
	return strings.Join(parts, ", ")
}

// Warning is what a tool says when it compiles a graph that holds parts of
// training (Found): the message, and notes that list the candidate inputs,
// the candidate outputs and the losses (at most maxListed names each).
func (t *TrainingReport) Warning() (msg string, notes []string) {
	msg = "training graph: it holds " + t.Describe() + "; cut it for inference with --inputs and --outputs"
	list := func(names []string) string {
		if len(names) <= maxListed {
			return strings.Join(names, ", ")
		}
		return fmt.Sprintf("%s, ... (%d in all)", strings.Join(names[:maxListed], ", "), len(names))
	}
	if len(t.Inputs) > 0 {
		notes = append(notes, "candidate inputs (a node stands for all its outputs): "+list(t.Inputs))
	}
	if len(t.Outputs) > 0 {
		notes = append(notes, "candidate outputs: "+list(t.Outputs))
	}
	switch len(t.Losses) {
	case 0:
	case 1:
		notes = append(notes, "the loss: "+t.Losses[0])
	default:
		notes = append(notes, "the losses: "+list(t.Losses))
	}
	return msg, notes
}

// maxListed is the number of names a list of Warning's shows.
const maxListed = 10

// gradientScopeRE matches the name scope tf.gradients creates.
var gradientScopeRE = regexp.MustCompile(`^gradients(_\d+)?$`)

// applyRE matches an optimizer's update op; group 1 is its kind.
var applyRE = regexp.MustCompile(`^(?:Resource)?(?:Sparse)?Apply([A-Z]\w*?)(?:V\d+)?$`)

// lossOps compute a loss from logits and labels: training-category ops
// that belong to the forward graph.
var lossOps = map[string]bool{
	"SigmoidCrossEntropyWithLogits": true, "SoftmaxCrossEntropyWithLogits": true,
	"SparseSoftmaxCrossEntropyWithLogits": true,
}

// metaOps compute from their input's shape, not its values: what follows
// them is not a prediction.
var metaOps = map[string]bool{
	"Shape": true, "ShapeN": true, "Size": true, "Rank": true, "ZerosLike": true, "OnesLike": true,
}

// variableOps hold trained variables.
var variableOps = map[string]bool{"VariableV2": true, "Variable": true, "VarHandleOp": true}

// gradientScope returns the gradients scope that node name is in.
func gradientScope(name string) (string, bool) {
	if !strings.Contains(name, "gradients") {
		return "", false
	}
	comps := strings.Split(name, "/")
	for i := range len(comps) - 1 {
		if gradientScopeRE.MatchString(comps[i]) {
			return strings.Join(comps[:i+1], "/"), true
		}
	}
	return "", false
}

// parentScope returns name without its last component ("" at the top).
func parentScope(name string) string {
	if i := strings.LastIndexByte(name, '/'); i >= 0 {
		return name[:i]
	}
	return ""
}

// commonScope returns the longest common prefix of a and b, in whole name
// components.
func commonScope(a, b string) string {
	ca, cb := strings.Split(a, "/"), strings.Split(b, "/")
	n := 0
	for n < len(ca) && n < len(cb) && ca[n] == cb[n] {
		n++
	}
	return strings.Join(ca[:n], "/")
}

// updateScope returns the scope of an optimizer update: the components
// before the first "update_..." one (TensorFlow names the update of
// variable v "<optimizer>/update_<v>/..."), else its parent scope.
func updateScope(name string) string {
	comps := strings.Split(name, "/")
	for i, c := range comps[:len(comps)-1] {
		if strings.HasPrefix(c, "update_") || c == "update" {
			return strings.Join(comps[:i], "/")
		}
	}
	return parentScope(name)
}

// trainingGraph is the graph AnalyzeTraining works on: nodes by index,
// data edges both ways.
type trainingGraph struct {
	nodes     []*tfpb.NodeDef
	byName    map[string]int
	ops       *Ops
	classes   map[string]opClass
	producers [][]edge // per node: its data inputs
	consumers [][]int  // per node: the nodes that read it through data edges

	isSource []bool // batch sources and placeholders: the candidate inputs
	excluded []bool // training parts: not of the forward computation
	fwd      []bool // the forward graph: what the sources feed, outside training
	varDep   []bool // what the variables feed, outside training
}

// edge is a data input: output idx of node.
type edge struct{ node, idx int }

func newTrainingGraph(g *tfpb.GraphDef) *trainingGraph {
	return &trainingGraph{nodes: g.GetNode(), ops: NewOps(g.GetLibrary()), classes: map[string]opClass{}}
}

// link finds the data edges.
func (t *trainingGraph) link() {
	t.byName = make(map[string]int, len(t.nodes))
	for i, n := range t.nodes {
		if _, dup := t.byName[n.GetName()]; !dup {
			t.byName[n.GetName()] = i
		}
	}
	t.producers = make([][]edge, len(t.nodes))
	t.consumers = make([][]int, len(t.nodes))
	for i, n := range t.nodes {
		for _, in := range n.GetInput() {
			r, err := ParseInput(in)
			if err != nil || r.Control {
				continue
			}
			p, ok := t.byName[r.Node]
			if !ok {
				continue
			}
			t.producers[i] = append(t.producers[i], edge{p, r.Index})
			t.consumers[p] = append(t.consumers[p], i)
		}
	}
}

// opClass is what an op is to the analysis.
type opClass struct {
	getNext, dequeue, placeholder bool
	optimizer                     string // the kind of update ("Adam"), or ""
	gradient                      bool   // a gradient kernel
	cat                           Category
}

// class returns what op is, computed once per op.
func (t *trainingGraph) class(op string) opClass {
	if c, ok := t.classes[op]; ok {
		return c
	}
	c := opClass{
		getNext:     getNextOps[op],
		dequeue:     strings.HasPrefix(op, "QueueDequeue"),
		placeholder: op == "Placeholder" || op == "PlaceholderWithDefault",
		gradient:    strings.HasSuffix(op, "Grad") || op == "BroadcastGradientArgs" || trainingOpName.MatchString(op),
		cat:         Compute,
	}
	if m := applyRE.FindStringSubmatch(op); m != nil {
		c.optimizer, c.gradient = m[1], false
	}
	if s, ok := t.ops.Signature(op); ok {
		c.cat = s.Category
	}
	t.classes[op] = c
	return c
}

// forward marks the nodes reachable from the marked ones through data
// edges, entering only nodes that pass ok.
func (t *trainingGraph) forward(mark []bool, ok func(int) bool) {
	var work []int
	for i, m := range mark {
		if m {
			work = append(work, i)
		}
	}
	for len(work) > 0 {
		i := work[len(work)-1]
		work = work[:len(work)-1]
		for _, c := range t.consumers[i] {
			if !mark[c] && ok(c) {
				mark[c] = true
				work = append(work, c)
			}
		}
	}
}

// backward marks the nodes from which a marked one is reachable through
// data edges, entering only nodes that pass ok.
func (t *trainingGraph) backward(mark []bool, ok func(int) bool) {
	var work []int
	for i, m := range mark {
		if m {
			work = append(work, i)
		}
	}
	for len(work) > 0 {
		i := work[len(work)-1]
		work = work[:len(work)-1]
		for _, p := range t.producers[i] {
			if !mark[p.node] && ok(p.node) {
				mark[p.node] = true
				work = append(work, p.node)
			}
		}
	}
}

// AnalyzeTraining finds what g holds for training — gradients, optimizers,
// savers, iterators, queues, summaries — and the candidate inputs and
// outputs of its inference graph (see TrainingReport). It only reads g, and works
// on any graph: an inference graph has nothing Found, and the sinks of what
// its placeholders feed as candidate outputs.
func AnalyzeTraining(g *tfpb.GraphDef) *TrainingReport {
	t := newTrainingGraph(g)
	res := t.parts()
	t.link()
	n := len(t.nodes)
	excluded, isSource := t.excluded, t.isSource

	// The forward graph: what the sources feed, outside training; and
	// what the variables feed.
	fwd := slices.Clone(isSource)
	t.forward(fwd, func(i int) bool { return !excluded[i] && !isSource[i] })
	t.fwd = fwd
	t.varDep = make([]bool, n)
	for i, nd := range t.nodes {
		t.varDep[i] = variableOps[nd.GetOp()]
	}
	t.forward(t.varDep, func(i int) bool { return !excluded[i] })

	// The losses: forward nodes with gradients, none of whose
	// descendants has one.
	hasGrad := make([]bool, n)
	for _, name := range res.Gradients {
		if f, ok := t.gradientOf(name); ok && fwd[f] {
			hasGrad[f] = true
		}
	}
	below := make([]bool, n) // feeds a node with a gradient
	for i := range n {
		if hasGrad[i] {
			for _, p := range t.producers[i] {
				below[p.node] = true
			}
		}
	}
	t.backward(below, func(i int) bool { return fwd[i] })
	var losses []int
	for i := range n {
		if hasGrad[i] && !below[i] {
			losses = append(losses, i)
			res.Losses = append(res.Losses, t.nodes[i].GetName())
		}
	}

	// The outputs.
	isOut := make([]bool, n)
	found := false
	for _, l := range losses {
		if t.lossOutputs(l, isOut) {
			found = true
		}
	}
	if !found {
		// The sinks of the forward graph.
		t.sinks(isOut)
	}

	// The inputs: the sources the outputs need.
	need := slices.Clone(isOut)
	t.backward(need, func(int) bool { return true })
	for i, nd := range t.nodes {
		if isOut[i] {
			res.Outputs = append(res.Outputs, nd.GetName())
		}
		if isSource[i] && need[i] {
			res.Inputs = append(res.Inputs, nd.GetName())
		}
	}
	return res
}

// TrainingParts is the first half of AnalyzeTraining, and quick: what g
// holds for training, without losses or candidates.
func TrainingParts(g *tfpb.GraphDef) *TrainingReport {
	return newTrainingGraph(g).parts()
}

// parts finds the parts of training, the nodes outside the forward graph
// (t.excluded) and the sources (t.isSource).
func (t *trainingGraph) parts() *TrainingReport {
	res := &TrainingReport{}
	n := len(t.nodes)
	t.excluded = make([]bool, n)
	t.isSource = make([]bool, n)
	excluded, isSource := t.excluded, t.isSource
	var getNext, iterators, dequeues, queues []string
	optimizers := map[string]*Optimizer{}
	for i, nd := range t.nodes {
		name, op := nd.GetName(), nd.GetOp()
		c := t.class(op)
		switch {
		case c.getNext:
			getNext = append(getNext, name)
			isSource[i] = true
			continue
		case c.dequeue:
			dequeues = append(dequeues, name)
			isSource[i] = true
			continue
		case c.placeholder:
			isSource[i] = true
			continue
		}
		if scope, ok := gradientScope(name); ok {
			res.Gradients = append(res.Gradients, name)
			if !slices.Contains(res.GradientScopes, scope) {
				res.GradientScopes = append(res.GradientScopes, scope)
			}
			excluded[i] = true
			continue
		}
		if kind := c.optimizer; kind != "" {
			o := optimizers[kind]
			if o == nil {
				o = &Optimizer{Kind: kind, Scope: updateScope(name)}
				optimizers[kind] = o
				res.Optimizers = append(res.Optimizers, Optimizer{Kind: kind})
			}
			o.Updates = append(o.Updates, name)
			o.Scope = commonScope(o.Scope, updateScope(name))
			excluded[i] = true
			continue
		}
		if c.gradient {
			res.Gradients = append(res.Gradients, name)
			s := parentScope(name)
			if s == "" {
				s = name // listed by its own name
			}
			if !slices.Contains(res.GradientScopes, s) {
				res.GradientScopes = append(res.GradientScopes, s)
			}
			excluded[i] = true
			continue
		}
		switch c.cat {
		case Checkpoint:
			s := parentScope(name)
			if s == "" {
				s = name
			}
			if !slices.Contains(res.Savers, s) {
				res.Savers = append(res.Savers, s)
			}
			excluded[i] = true
		case Summary:
			res.Summaries = append(res.Summaries, name)
			excluded[i] = true
		case Iterator:
			iterators = append(iterators, name)
			excluded[i] = true
		case Queue:
			queues = append(queues, name)
			excluded[i] = true
		case Training:
			excluded[i] = !lossOps[op]
		}
	}
	for i := range res.Optimizers {
		res.Optimizers[i] = *optimizers[res.Optimizers[i].Kind]
	}
	res.Savers = outermost(res.Savers)
	// Whatever lives in a saver's scope is the saver's (its filename
	// placeholder, the string ops that name the shards).
	if len(res.Savers) > 0 {
		for i, nd := range t.nodes {
			for _, s := range res.Savers {
				if strings.HasPrefix(nd.GetName(), s+"/") {
					excluded[i], isSource[i] = true, false
				}
			}
		}
	}
	res.Iterators = getNext
	if len(getNext) == 0 {
		res.Iterators = iterators
	}
	res.Queues = dequeues
	if len(dequeues) == 0 {
		res.Queues = queues
	}
	return res
}

// AnalyzeCut is AnalyzeTraining for g, a cut of graph file (or file
// itself): what g holds, with file's losses and candidate inputs and
// outputs, where file is to be cut.
//
// Where g holds nothing of training, it is as quick as TrainingParts: it
// looks for no candidates.
func AnalyzeCut(g, file *tfpb.GraphDef) *TrainingReport {
	r := TrainingParts(g)
	if !r.Found() {
		return r
	}
	whole := AnalyzeTraining(file)
	if g == file {
		return whole
	}
	r.Losses, r.Inputs, r.Outputs = whole.Losses, whole.Inputs, whole.Outputs
	return r
}

// outermost drops the scopes inside another of scopes, keeping the order.
func outermost(scopes []string) []string {
	var out []string
	for _, s := range scopes {
		inner := false
		for _, o := range scopes {
			if o != s && strings.HasPrefix(s, o+"/") {
				inner = true
				break
			}
		}
		if !inner {
			out = append(out, s)
		}
	}
	return out
}

// gradientOf returns the forward node whose gradient gradient node name
// computes: "<gradients scope>/<forward node>_grad/...". The scope may
// nest ("training/Ftrl/gradients/gradients/...").
func (t *trainingGraph) gradientOf(name string) (int, bool) {
	comps := strings.Split(name, "/")
	for i, c := range comps {
		if !gradientScopeRE.MatchString(c) {
			continue
		}
		for j := i + 1; j < len(comps)-1; j++ {
			f, ok := strings.CutSuffix(comps[j], "_grad")
			if !ok {
				continue
			}
			if k, ok := t.byName[strings.Join(append(slices.Clone(comps[i+1:j]), f), "/")]; ok {
				return k, true
			}
		}
	}
	return 0, false
}

// lossOutputs marks the candidate outputs for loss l in out: the model's
// output that the loss is taken of, and the sinks of what is computed from
// it without the labels and outside the loss. It reports false when the
// graph does not show the model's output (no node that every path from
// the inputs and variables to the loss passes through before the labels
// join).
func (t *trainingGraph) lossOutputs(l int, out []bool) bool {
	n := len(t.nodes)
	fwd, isSource := t.fwd, t.isSource
	// The loss's ancestors that depend on both a variable and an input:
	// the model and the loss computed from it.
	anc := make([]bool, n)
	anc[l] = true
	t.backward(anc, func(i int) bool { return fwd[i] })
	vars := t.varDep
	var model []int
	index := make([]int, n)
	for i := range n {
		index[i] = -1
		if anc[i] && vars[i] && fwd[i] {
			index[i] = len(model)
			model = append(model, i)
		}
	}
	if index[l] < 0 {
		return false
	}
	chain := t.dominators(model, index, l)
	if len(chain) < 2 {
		return false
	}
	// The model's output: the last of the chain that reads no input the
	// first does not.
	first := t.inputTensors(chain[0])
	m := chain[0]
	for _, c := range chain[1:] {
		if !subset(t.inputTensors(c), first) {
			break
		}
		m = c
	}
	if m == l {
		return false
	}
	out[m] = true

	// What the labels feed (the inputs m does not read).
	labels := make([]bool, n)
	for i := range n {
		if !fwd[i] {
			continue
		}
		for _, p := range t.producers[i] {
			if isSource[p.node] && !first[p] {
				labels[i] = true
			}
		}
	}
	t.forward(labels, func(i int) bool { return fwd[i] })

	// The predictions: what m feeds, outside the loss, without the labels,
	// through values (not shapes).
	pred := make([]bool, n)
	pred[m] = true
	t.forward(pred, func(i int) bool {
		return fwd[i] && !anc[i] && !labels[i] && !metaOps[t.nodes[i].GetOp()]
	})
	for i := range n {
		if !pred[i] || i == m {
			continue
		}
		sink := true
		for _, c := range t.consumers[i] {
			if pred[c] {
				sink = false
				break
			}
		}
		if k, err := t.ops.NumOutputs(t.nodes[i]); sink && err == nil && k > 0 {
			out[i] = true
		}
	}
	return true
}

// sinks marks in out the sinks of the forward graph: the nodes computed
// from the sources through values (not shapes) that have data outputs and
// feed no other such node.
func (t *trainingGraph) sinks(out []bool) {
	fwd, isSource := t.fwd, t.isSource
	val := slices.Clone(isSource)
	t.forward(val, func(i int) bool { return fwd[i] && !metaOps[t.nodes[i].GetOp()] })
	for i := range val {
		if !val[i] || isSource[i] {
			continue
		}
		sink := true
		for _, c := range t.consumers[i] {
			if val[c] {
				sink = false
				break
			}
		}
		if k, err := t.ops.NumOutputs(t.nodes[i]); sink && err == nil && k > 0 {
			out[i] = true
		}
	}
}

// inputTensors returns the source tensors (outputs of placeholders, batch
// sources) that node i reads, directly or not.
func (t *trainingGraph) inputTensors(i int) map[edge]bool {
	anc := make([]bool, len(t.nodes))
	anc[i] = true
	t.backward(anc, func(int) bool { return true })
	set := map[edge]bool{}
	for j, a := range anc {
		if !a {
			continue
		}
		for _, p := range t.producers[j] {
			if t.isSource[p.node] {
				set[p] = true
			}
		}
	}
	return set
}

func subset(a, b map[edge]bool) bool {
	for k := range a {
		if !b[k] {
			return false
		}
	}
	return true
}

// dominators returns the chain of nodes that dominate l in the subgraph of
// nodes (index maps a node to its position there, -1 outside) entered
// from a virtual root at each node without a predecessor in it, from the
// one nearest the root to l.
func (t *trainingGraph) dominators(nodes, index []int, l int) []int {
	k := len(nodes)
	root := k
	preds := make([][]int, k+1)
	succs := make([][]int, k+1)
	for v, i := range nodes {
		for _, p := range t.producers[i] {
			if u := index[p.node]; u >= 0 && !slices.Contains(preds[v], u) {
				preds[v] = append(preds[v], u)
				succs[u] = append(succs[u], v)
			}
		}
		if len(preds[v]) == 0 {
			preds[v] = []int{root}
			succs[root] = append(succs[root], v)
		}
	}
	// Reverse postorder from the root.
	post := make([]int, k+1)
	for i := range post {
		post[i] = -1
	}
	var order []int
	type frame struct{ v, next int }
	visited := make([]bool, k+1)
	stack := []frame{{root, 0}}
	visited[root] = true
	for len(stack) > 0 {
		f := &stack[len(stack)-1]
		if f.next < len(succs[f.v]) {
			w := succs[f.v][f.next]
			f.next++
			if !visited[w] {
				visited[w] = true
				stack = append(stack, frame{w, 0})
			}
			continue
		}
		post[f.v] = len(order)
		order = append(order, f.v)
		stack = stack[:len(stack)-1]
	}
	slices.Reverse(order)
	idom := make([]int, k+1)
	for i := range idom {
		idom[i] = -1
	}
	idom[root] = root
	intersect := func(a, b int) int {
		for a != b {
			for post[a] < post[b] {
				a = idom[a]
			}
			for post[b] < post[a] {
				b = idom[b]
			}
		}
		return a
	}
	for changed := true; changed; {
		changed = false
		for _, v := range order[1:] {
			d := -1
			for _, p := range preds[v] {
				if idom[p] < 0 {
					continue
				}
				if d < 0 {
					d = p
				} else {
					d = intersect(p, d)
				}
			}
			if d >= 0 && idom[v] != d {
				idom[v] = d
				changed = true
			}
		}
	}
	v := index[l]
	if idom[v] < 0 {
		return nil
	}
	var chain []int
	for ; v != root; v = idom[v] {
		chain = append(chain, nodes[v])
	}
	slices.Reverse(chain)
	return chain
}
