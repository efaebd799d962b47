package graphdef

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/recom-compiler/recom/frontend/graphdef/tfpb"
)

// maxErrors bounds how many problems one call reports.
const maxErrors = 20

// NodeError is a problem with one node. Where names the function a library
// node belongs to ("" for the graph itself).
type NodeError struct {
	Node  string
	Where string
	Err   error
}

func (e *NodeError) Error() string {
	if e.Where != "" {
		return fmt.Sprintf("%s: node %q: %v", e.Where, e.Node, e.Err)
	}
	return fmt.Sprintf("node %q: %v", e.Node, e.Err)
}

func (e *NodeError) Unwrap() error { return e.Err }

// Sentinel errors carried by NodeError, for errors.Is.
var (
	ErrDuplicateName  = errors.New("duplicate node name")
	ErrMissingInput   = errors.New("input names a missing node")
	ErrBadOutputIndex = errors.New("output index out of range")
	ErrMalformedInput = errors.New("malformed input string")
	ErrCycle          = errors.New("cycle outside a loop frame")
	ErrArity          = errors.New("wrong number of inputs")
)

// TensorRef is a parsed NodeDef input: "node" (output 0), "node:i" or the
// control dependency "^node".
type TensorRef struct {
	Node    string
	Index   int
	Control bool
}

func (r TensorRef) String() string {
	switch {
	case r.Control:
		return "^" + r.Node
	case r.Index == 0:
		return r.Node
	}
	return r.Node + ":" + strconv.Itoa(r.Index)
}

// ParseInput parses a NodeDef input string.
func ParseInput(s string) (TensorRef, error) {
	var r TensorRef
	name := s
	if rest, ok := strings.CutPrefix(s, "^"); ok {
		r.Control = true
		name = rest
		if strings.Contains(name, ":") {
			return r, fmt.Errorf("%w %q: a control input has no output index", ErrMalformedInput, s)
		}
	} else if i := strings.LastIndexByte(s, ':'); i >= 0 {
		name = s[:i]
		idx := s[i+1:]
		v, err := strconv.Atoi(idx)
		if err != nil || v < 0 || idx == "" || idx[0] == '+' || (len(idx) > 1 && idx[0] == '0') {
			return r, fmt.Errorf("%w %q: bad output index %q", ErrMalformedInput, s, idx)
		}
		r.Index = v
	}
	if name == "" {
		return r, fmt.Errorf("%w %q: empty node name", ErrMalformedInput, s)
	}
	if strings.ContainsAny(name, ":^ \t\n") {
		return r, fmt.Errorf("%w %q: bad node name %q", ErrMalformedInput, s, name)
	}
	r.Node = name
	return r, nil
}

// Validate checks a graph: node names are present and unique; every input
// string is well formed, with control inputs last; every input names an
// existing node and, where the producer's op signature is known, an output
// it has; nodes with a known signature have the number of data inputs it
// requires; and the graph has no cycle other than loops closed by
// NextIteration → Merge back edges. All errors are *NodeError values (joined
// with errors.Join), at most 20 of them.
func Validate(g *tfpb.GraphDef) error {
	ops := NewOps(g.GetLibrary())
	var errs []error
	add := func(node string, err error) bool {
		errs = append(errs, &NodeError{Node: node, Err: err})
		return len(errs) < maxErrors
	}
	// byName maps a name to its node's index; the caches below are indexed
	// by node, not keyed by name (a large graph's name maps miss the cache).
	byName := make(map[string]int, len(g.GetNode()))
	for i, n := range g.GetNode() {
		if n.GetName() == "" {
			if !add(fmt.Sprintf("#%d", i), errors.New("node has no name")) {
				return errors.Join(errs...)
			}
			continue
		}
		if n.GetOp() == "" {
			if !add(n.GetName(), errors.New("node has no op")) {
				return errors.Join(errs...)
			}
		}
		if _, dup := byName[n.GetName()]; dup {
			if !add(n.GetName(), fmt.Errorf("%w (op %s)", ErrDuplicateName, n.GetOp())) {
				return errors.Join(errs...)
			}
			continue
		}
		byName[n.GetName()] = i
	}
	nodes := g.GetNode()
	numOut := make([]int, len(nodes)) // cache: outputs+1; 0 = not known yet, -1+1 = unknown
	outputs := func(i int) int {
		if k := numOut[i]; k != 0 {
			return k - 1
		}
		k, err := ops.NumOutputs(nodes[i])
		if err != nil {
			k = -1
		}
		numOut[i] = k + 1
		return k
	}
	for _, n := range g.GetNode() {
		sawControl := false
		data := 0
		for _, in := range n.GetInput() {
			r, err := ParseInput(in)
			if err != nil {
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
			pi, ok := byName[r.Node]
			if !ok {
				if !add(n.GetName(), fmt.Errorf("%w: input %q: no node %q", ErrMissingInput, in, r.Node)) {
					return errors.Join(errs...)
				}
				continue
			}
			p := nodes[pi]
			if !r.Control {
				if k := outputs(pi); k >= 0 && r.Index >= k {
					if !add(n.GetName(), fmt.Errorf("%w: input %q: node %q (op %s) has %d outputs",
						ErrBadOutputIndex, in, p.GetName(), p.GetOp(), k)) {
						return errors.Join(errs...)
					}
				}
			}
		}
		if _, known := ops.Signature(n.GetOp()); known {
			want, err := ops.NumInputs(n)
			if err != nil {
				if !add(n.GetName(), err) {
					return errors.Join(errs...)
				}
			} else if want != data {
				if !add(n.GetName(), fmt.Errorf("%w: op %s takes %d data inputs, node has %d", ErrArity, n.GetOp(), want, data)) {
					return errors.Join(errs...)
				}
			}
		}
	}
	if err := findCycle(g, byName); err != nil {
		errs = append(errs, err)
	}
	return errors.Join(errs...)
}

// isBackEdgeSource reports whether edges out of op close a loop frame.
func isBackEdgeSource(op string) bool { return op == "NextIteration" || op == "RefNextIteration" }

// findCycle looks for a cycle over data and control edges, ignoring the
// back edges out of NextIteration nodes, and reports it as a *NodeError
// naming a node on it and the path. byName maps each name to the index of
// the node that holds it (the first of duplicates).
func findCycle(g *tfpb.GraphDef, byName map[string]int) error {
	const (
		white = iota
		grey
		black
	)
	nodes := g.GetNode()
	color := make([]uint8, len(nodes))
	type frame struct {
		i    int // the node's index
		next int // its next input
	}
	for ri, root := range nodes {
		if color[ri] != white || byName[root.GetName()] != ri {
			continue
		}
		stack := []frame{{ri, 0}}
		color[ri] = grey
		for len(stack) > 0 {
			top := &stack[len(stack)-1]
			ins := nodes[top.i].GetInput()
			if top.next >= len(ins) {
				color[top.i] = black
				stack = stack[:len(stack)-1]
				continue
			}
			in := ins[top.next]
			top.next++
			r, err := ParseInput(in)
			if err != nil {
				continue
			}
			pi, ok := byName[r.Node]
			if !ok || isBackEdgeSource(nodes[pi].GetOp()) {
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

func quoteAll(s []string) []string {
	out := make([]string, len(s))
	for i, x := range s {
		out[i] = strconv.Quote(x)
	}
	return out
}
