package graphdef

import (
	"errors"
	"fmt"
	"math"
	"runtime"
	"strings"
	"sync"

	"github.com/recom-compiler/recom/frontend/graphdef/tfpb"
)

// Index is what the structural checks (Validate) and the import both need
// of a graph's nodes, found once: the node that holds each name, and each
// node's inputs parsed and resolved to the index of the node they name. A
// large graph's name map is slow to probe (a million names miss the
// caches), so each edge is looked up once, not once per user of it.
type Index struct {
	g      *tfpb.GraphDef
	byName map[string]int
	// inputs holds node i's inputs, in order, resolved.
	inputs [][]Input
	// root[i]: node i holds its name first (findCycle starts only there).
	root []bool
	// nameErrs are the problems of the names and ops, in node order, at
	// most maxErrors; nameFull says the last one ended the checks.
	nameErrs []error
	nameFull bool
}

// Input is one input of a node, resolved.
type Input struct {
	// Node is the index of the node the input names, or InputMissing (no
	// such node) or InputMalformed (the string does not parse).
	Node    int32
	Control bool
	// Index is the output index (0 for a control input).
	Index int
}

// Values of Input.Node for inputs that name no node.
const (
	InputMissing   = -1
	InputMalformed = -2
)

// NewIndex indexes g's nodes. Graphs of more than 2^31-1 nodes are beyond
// the index (the text and binary readers' limits stop them long before).
func NewIndex(g *tfpb.GraphDef) *Index {
	nodes := g.GetNode()
	x := &Index{g: g, byName: make(map[string]int, len(nodes)), inputs: make([][]Input, len(nodes)), root: make([]bool, len(nodes))}
	add := func(node string, err error) bool {
		if x.nameFull {
			return false
		}
		x.nameErrs = append(x.nameErrs, &NodeError{Node: node, Err: err})
		x.nameFull = len(x.nameErrs) >= maxErrors
		return !x.nameFull
	}
	for i, n := range nodes {
		name := n.GetName()
		if name == "" {
			add(fmt.Sprintf("#%d", i), errors.New("node has no name"))
			x.root[i] = i == 0 // as byName[""] reads 0
			continue
		}
		if n.GetOp() == "" {
			add(name, errors.New("node has no op"))
		}
		if _, dup := x.byName[name]; dup {
			add(name, fmt.Errorf("%w (op %s)", ErrDuplicateName, n.GetOp()))
			continue
		}
		x.byName[name] = i
		x.root[i] = true
	}
	// The inputs are resolved by several goroutines (reading the map).
	workers := min(runtime.GOMAXPROCS(0), 4)
	if len(nodes) < 4096 {
		workers = 1
	}
	var wg sync.WaitGroup
	per := (len(nodes) + workers - 1) / workers
	for w := range workers {
		lo, hi := w*per, min(len(nodes), (w+1)*per)
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := lo; i < hi; i++ {
				x.inputs[i] = x.resolve(nodes[i].GetInput())
			}
		}()
	}
	wg.Wait()
	return x
}

// resolve parses and resolves a node's input strings.
func (x *Index) resolve(ins []string) []Input {
	if len(ins) == 0 {
		return nil
	}
	out := make([]Input, len(ins))
	for j, s := range ins {
		r, err := ParseInput(s)
		if err != nil {
			out[j] = Input{Node: InputMalformed}
			continue
		}
		p, ok := x.byName[r.Node]
		if !ok || p > math.MaxInt32 {
			p = InputMissing
		}
		out[j] = Input{Node: int32(p), Control: r.Control, Index: r.Index}
	}
	return out
}

// First reports whether node i has a name and is the first node to hold
// it.
func (x *Index) First(i int) bool { return x.root[i] && x.g.GetNode()[i].GetName() != "" }

// Inputs returns node i's inputs, resolved (do not change them).
func (x *Index) Inputs(i int) []Input { return x.inputs[i] }

// NodeFacts are what the checks need of a node's attributes, found while
// they are at hand (an import that lets each node's attributes go once it
// has converted them finds them first).
type NodeFacts struct {
	// NumOutputs is the node's number of outputs, -1 when unknown.
	NumOutputs int
	// NumInputs is the number of data inputs the op's signature takes,
	// -1 for an op without a signature.
	NumInputs int
	// InputsErr says why the signature's inputs could not be counted.
	InputsErr error
}

// Facts returns n's facts.
func (o *Ops) Facts(n *tfpb.NodeDef) NodeFacts {
	f := NodeFacts{NumOutputs: -1, NumInputs: -1}
	if k, err := o.NumOutputs(n); err == nil {
		f.NumOutputs = k
	}
	if _, known := o.Signature(n.GetOp()); known {
		f.NumInputs, f.InputsErr = o.NumInputs(n)
	}
	return f
}

// Check is Validate on the indexed graph, with each node's facts from
// facts (called at most once per node; Validate's finds them from the
// attributes, an import's from what it noted while converting).
func (x *Index) Check(facts func(i int) NodeFacts) error {
	errs := x.nameErrs
	if x.nameFull {
		return errors.Join(errs...)
	}
	add := func(node string, err error) bool {
		errs = append(errs, &NodeError{Node: node, Err: err})
		return len(errs) < maxErrors
	}
	nodes := x.g.GetNode()
	// facts are found once per node: as a producer, and for its arity.
	cache := make([]NodeFacts, len(nodes))
	have := make([]bool, len(nodes))
	factsOf := func(i int) *NodeFacts {
		if !have[i] {
			cache[i], have[i] = facts(i), true
		}
		return &cache[i]
	}
	for i, n := range nodes {
		sawControl := false
		data := 0
		for j, r := range x.inputs[i] {
			in := n.GetInput()[j]
			if r.Node == InputMalformed {
				_, err := ParseInput(in)
				if !add(n.GetName(), err) {
					return errors.Join(errs...)
				}
				continue
			}
			if r.Control {
				sawControl = true
			} else {
				data++
				if sawControl {
					if !add(n.GetName(), fmt.Errorf("%w: data input %q after a control input", ErrMalformedInput, in)) {
						return errors.Join(errs...)
					}
				}
			}
			if r.Node == InputMissing {
				ref, _ := ParseInput(in)
				if !add(n.GetName(), fmt.Errorf("%w: input %q: no node %q", ErrMissingInput, in, ref.Node)) {
					return errors.Join(errs...)
				}
				continue
			}
			pi := int(r.Node)
			p := nodes[pi]
			if !r.Control {
				if k := factsOf(pi).NumOutputs; k >= 0 && r.Index >= k {
					if !add(n.GetName(), fmt.Errorf("%w: input %q: node %q (op %s) has %d outputs",
						ErrBadOutputIndex, in, p.GetName(), p.GetOp(), k)) {
						return errors.Join(errs...)
					}
				}
			}
		}
		if f := factsOf(i); f.InputsErr != nil {
			if !add(n.GetName(), f.InputsErr) {
				return errors.Join(errs...)
			}
		} else if f.NumInputs >= 0 && f.NumInputs != data {
			if !add(n.GetName(), fmt.Errorf("%w: op %s takes %d data inputs, node has %d", ErrArity, n.GetOp(), f.NumInputs, data)) {
				return errors.Join(errs...)
			}
		}
	}
	if err := x.findCycle(); err != nil {
		errs = append(errs, err)
	}
	return errors.Join(errs...)
}

// findCycle looks for a cycle over data and control edges, ignoring the
// back edges out of NextIteration nodes, and reports it as a *NodeError
// naming a node on it and the path.
func (x *Index) findCycle() error {
	const (
		white = iota
		grey
		black
	)
	nodes := x.g.GetNode()
	color := make([]uint8, len(nodes))
	back := make([]bool, len(nodes))
	for i, n := range nodes {
		back[i] = isBackEdgeSource(n.GetOp())
	}
	type frame struct {
		i    int // the node's index
		next int // its next input
	}
	var stack []frame
	for ri := range nodes {
		if color[ri] != white || !x.root[ri] {
			continue
		}
		stack = append(stack[:0], frame{ri, 0})
		color[ri] = grey
		for len(stack) > 0 {
			top := &stack[len(stack)-1]
			ins := x.inputs[top.i]
			if top.next >= len(ins) {
				color[top.i] = black
				stack = stack[:len(stack)-1]
				continue
			}
			r := ins[top.next]
			top.next++
			if r.Node < 0 {
				continue
			}
			pi := int(r.Node)
			if back[pi] {
				continue
			}
			switch color[pi] {
			case white:
				color[pi] = grey
				stack = append(stack, frame{pi, 0})
			case grey:
				// p is on the stack and feeds top; each stack entry feeds
				// the one below it, so data flows p -> top -> ... -> p.
				path := []string{nodes[pi].GetName()}
				for i := len(stack) - 1; i >= 0; i-- {
					path = append(path, nodes[stack[i].i].GetName())
					if stack[i].i == pi {
						break
					}
				}
				return &NodeError{Node: nodes[pi].GetName(), Err: fmt.Errorf("%w: %s", ErrCycle, strings.Join(quoteAll(path), " -> "))}
			}
		}
	}
	return nil
}
