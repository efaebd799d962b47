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
	nodes := g.GetNode()
	return NewIndex(g).Check(func(i int) NodeFacts { return ops.Facts(nodes[i]) })
}

// isBackEdgeSource reports whether edges out of op close a loop frame.
func isBackEdgeSource(op string) bool { return op == "NextIteration" || op == "RefNextIteration" }

func quoteAll(s []string) []string {
	out := make([]string, len(s))
	for i, x := range s {
		out[i] = strconv.Quote(x)
	}
	return out
}
