// Package hostpack is the host side of a native runtime for the fused
// embedding layer: it packs a batch's feeds straight into the layer's
// packed input buffer (the layout of dialects/fused/abi), byte for byte
// what abi.Layer.Pack makes of the interpreter's column inputs, without
// running the interpreter.
//
// New compiles, once per program, a Plan for one fused.embedding_layer op
// (the module after --fuse): for every column, which fed tensor it reads
// and how — a dense [B, k] (or [B]) tensor with TensorFlow's ignore value
// dropped (emb.from_dense), a SparseTensor's indices, values and
// dense_shape (emb.from_sparse), strings split at a separator
// (emb.split_strings), a [B] (or [B, 1]) string tensor the kernel splits
// itself (source "split"), weights, the emb.filter ops and the id
// transforms that --fuse left before the layer (emb.hash, emb.as_string,
// emb.bucketize, emb.vocab_lookup, emb.check_range, emb.cast,
// emb.add_offset) — and the tensors the plan reads (Plan.Inputs: the
// program's placeholders, by the names the interpreter feeds them).
// The results of a ParseExample or ParseExampleV2 of serialized
// tf.Example records fed to the program are computed from the records
// themselves (example.go): each batch's records are indexed once per
// parse, and the columns over a parsed feature are written from the
// records straight into the packed buffer (exwrite.go); ExampleParser
// computes a parse's results for a runtime's other uses of them.
// Anything else between the placeholders and the layer is an
// *UnsupportedError naming the op and its TensorFlow node, so that the
// caller can fall back to the interpreter and say why; with
// Options.Partial the plan starts at such values instead, and the caller
// computes them (Input.Computed).
//
// Feeds are interp.Tensors; a runtime holding raw Go slices in host
// memory wraps them with interp.New, which does not copy them.
//
// A Packer packs batches with a Plan, in two steps, each run in parallel
// over chunks of columns (see parallel.go: contiguous ranges of about
// equal estimated work, claimed one at a time by the caller and up to
// Options.Workers-1 workers of a process-wide pool of GOMAXPROCS-1, which
// spin for SetSpinWait's time before they sleep so that batch after batch
// they are awake when the next one comes):
// Measure (or MeasureFeeds, which looks each feed up by name in the same
// pass) reads the feeds, checks them (dtypes, shapes, ids in range, every
// size against the kernel's 32-bit offsets before any memory is taken)
// and places the columns' regions (abi.Layout: what a runtime needs to
// size its buffers); Pack writes the packed words into a caller-provided
// []byte (pinned memory, say), every byte of it, padding included. The
// common columns (a dense feed through emb.from_dense, or the feed
// itself) are written straight from the feed; the others are computed in
// the Packer's buffers, reused from batch to batch, with the
// interpreter's semantics. An error is the first failing column's, in
// column order, whatever the number of workers.
//
//	plan, err := hostpack.New(layerOp, nil)
//	pk := plan.NewPacker()
//	lay, err := pk.MeasureFeeds(feeds)   // sizes: 4*lay.Words bytes, then 4*lay.Scratch of scratch
//	p, err := pk.Pack(buf[:4*lay.Words]) // p.Inputs is buf[:4*lay.Words]; p.Grid, p.Tasks, p.Batch
//
// (or in, err := plan.Gather(feeds), the feeds in Plan.Inputs order, then
// pk.Measure(in); Plan.Pack does all of it with a pooled Packer).
package hostpack

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"

	"github.com/recom-compiler/recom/dialects/fused"
	"github.com/recom-compiler/recom/dialects/fused/abi"
	"github.com/recom-compiler/recom/interp"
	"github.com/recom-compiler/recom/textir"
)

// Options tune New.
type Options struct {
	// Partial starts the plan at the values it cannot compute natively
	// (the results of ops other than the emb sources, filters and id
	// transforms, such as a tfg.SparseCross): they become inputs with
	// Computed set, which the caller computes (with the interpreter) and
	// passes with the placeholders. Without it such a value makes New
	// fail with an *UnsupportedError.
	Partial bool
	// Workers bounds the goroutines of one Measure or Pack: the caller
	// and Workers-1 workers of the process's pool (0: GOMAXPROCS). The
	// pool has GOMAXPROCS-1 workers for all the Packers together.
	Workers int
}

// Input is a tensor a Plan reads.
type Input struct {
	// Name is the tensor's name as the interpreter (interp/exec) feeds
	// it: the node's name for its result 0, "node:i" for result i.
	Name string
	// DType and Shape are what the IR says of the tensor: its element
	// type, and its dimensions (-1 where unknown; nil when the rank is
	// unknown). Measure checks every feed against them, as the
	// interpreter checks its feeds.
	DType interp.DType
	Shape []int64
	// Computed is set for a value the plan starts at because it cannot
	// compute it (Options.Partial): not a placeholder, the caller
	// computes it from the placeholders.
	Computed bool
	// Op is the op whose result the tensor is (nil for a function
	// argument, named "@func:i").
	Op *textir.Operation
	// Value is the tensor in the program: Op's result, or the function
	// argument.
	Value *textir.Value
	// alt is the other name of the tensor ("n" for "n:0", "n:0" for
	// "n"; "" when there is none).
	alt string
}

// lookup returns the input's feed, by its name or its other name (nil
// when missing).
func (in *Input) lookup(feeds map[string]*interp.Tensor) *interp.Tensor {
	t, ok := feeds[in.Name]
	if !ok && in.alt != "" {
		t = feeds[in.alt]
	}
	return t
}

// altName returns the other name of the tensor named name ("n" for
// "n:0", "n:0" for "n"; "" for "n:i", i > 0).
func altName(name string) string {
	if base, idx, cut := strings.Cut(name, ":"); cut {
		if idx == "0" {
			return base
		}
		return ""
	}
	return name + ":0"
}

// UnsupportedError is New's error for a value between the placeholders
// and the layer that the plan cannot compute natively: the op, with its
// TensorFlow node in the diagnostic, and why.
type UnsupportedError struct {
	Op   *textir.Operation
	Diag *textir.Diagnostic
}

func (e *UnsupportedError) Error() string { return e.Diag.Error() }

// Unwrap returns the diagnostic.
func (e *UnsupportedError) Unwrap() error { return e.Diag }

// Plan is the host side of one fused.embedding_layer, compiled once: the
// inputs it reads and, for each column, how its packed regions are made
// from them. A Plan is immutable; Packers made from it may run at once.
type Plan struct {
	op      *textir.Operation
	layer   *abi.Layer
	rules   *abi.LayoutRules // the layer's placement, read once
	inputs  []Input
	cols    []colPlan
	workers int // Options.Workers (0: GOMAXPROCS at each call)
	// examples are the parses of tf.Example records the plan reads
	// (example.go), and exCols the columns read straight from each.
	examples []*exPlan
	exCols   [][]int
	pool     sync.Pool // Packers of Plan.Pack
}

// Layer returns the layer's static description (abi.LayerOf of its op).
func (p *Plan) Layer() *abi.Layer { return p.layer }

// Op returns the fused.embedding_layer op of the plan.
func (p *Plan) Op() *textir.Operation { return p.op }

// Inputs returns the tensors the plan reads, in the order Measure takes
// them.
func (p *Plan) Inputs() []Input { return p.inputs }

// Columns returns how many of the layer's columns are written straight
// from a feed (direct) and how many are computed op by op in the
// Packer's buffers first, with the ops they compute.
func (p *Plan) Columns() (direct, computed, ops int) {
	for i := range p.cols {
		var gs []*graphPlan
		if g := p.cols[i].graph; g != nil {
			gs = append(gs, g)
		}
		if x := p.cols[i].cross; x != nil {
			for j := range x.inputs {
				gs = append(gs, x.inputs[j].graph)
			}
		}
		if gs == nil {
			direct++
			continue
		}
		computed++
		for _, g := range gs {
			for _, n := range g.nodes {
				if n.kind != gInput {
					ops++
				}
			}
		}
	}
	return direct, computed, ops
}

// Find returns the fused.embedding_layer ops under root, in program order.
func Find(root *textir.Operation) []*textir.Operation {
	var ops []*textir.Operation
	root.Walk(func(op *textir.Operation) bool {
		if op.Name() == fused.EmbeddingLayerOp {
			ops = append(ops, op)
		}
		return true
	})
	return ops
}

// NewForModule is New for the only fused.embedding_layer under root.
func NewForModule(root *textir.Operation, opts *Options) (*Plan, error) {
	ops := Find(root)
	if len(ops) != 1 {
		return nil, fmt.Errorf("hostpack: the program has %d fused.embedding_layer ops, want one", len(ops))
	}
	return New(ops[0], opts)
}

// Gather returns the feeds of the plan's inputs in Plan.Inputs order from
// a map keyed by tensor name ("node" and "node:0" name the same tensor).
// A missing input is an error naming it.
func (p *Plan) Gather(feeds map[string]*interp.Tensor) ([]*interp.Tensor, error) {
	in, err := p.gather(feeds, nil)
	if err != nil {
		return nil, err
	}
	return in, nil
}

// gather is Gather into in's memory when it is large enough.
func (p *Plan) gather(feeds map[string]*interp.Tensor, in []*interp.Tensor) ([]*interp.Tensor, error) {
	if cap(in) < len(p.inputs) {
		in = make([]*interp.Tensor, len(p.inputs))
	}
	in = in[:len(p.inputs)]
	var missing []string
	for i := range p.inputs {
		t := p.inputs[i].lookup(feeds)
		if t == nil {
			missing = append(missing, strconv.Quote(p.inputs[i].Name))
			continue
		}
		in[i] = t
	}
	if len(missing) > 0 {
		if len(missing) > 5 {
			missing = append(missing[:5], fmt.Sprintf("and %d more", len(missing)-5))
		}
		return in, fmt.Errorf("hostpack: no feed for %s", strings.Join(missing, ", "))
	}
	return in, nil
}

// New compiles the plan of the fused.embedding_layer op (see the package
// doc). opts may be nil.
func New(op *textir.Operation, opts *Options) (*Plan, error) {
	if op.Name() != fused.EmbeddingLayerOp {
		return nil, op.Errorf("hostpack: not a %s", fused.EmbeddingLayerOp)
	}
	if opts == nil {
		opts = &Options{}
	}
	l, err := abi.LayerOf(op)
	if err != nil {
		return nil, err
	}
	n := 0
	for i := range l.Columns {
		n += l.Columns[i].NumOperands()
	}
	if op.NumOperands() != n {
		return nil, op.Errorf("columns take %d operands, got %d", n, op.NumOperands())
	}
	b := &builder{opts: opts, p: &Plan{op: op, layer: l, rules: l.LayoutRules()}, inputOf: map[*textir.Value]int{}, exOf: map[*textir.Operation]int{}}
	b.p.workers = max(opts.Workers, 0)
	k := 0
	for i := range l.Columns {
		c := &l.Columns[i]
		if c.IsCross() {
			cp, err := b.crossColumn(i, c, op.Operands()[k+1:k+c.NumOperands()])
			if err != nil {
				return nil, err
			}
			b.p.cols = append(b.p.cols, cp)
			k += c.NumOperands()
			continue
		}
		vals := op.Operand(k + 1)
		k += 2
		var splits, weights *textir.Value
		if c.HasSplits() {
			splits = op.Operand(k)
			k++
		}
		if c.Weighted {
			weights = op.Operand(k)
			k++
		}
		cp, err := b.column(i, c, vals, splits, weights)
		if err != nil {
			return nil, err
		}
		b.p.cols = append(b.p.cols, cp)
	}
	b.p.groupExamples()
	for i := range b.p.inputs {
		b.p.inputs[i].alt = altName(b.p.inputs[i].Name)
	}
	return b.p, nil
}

// errUnsupported makes the *UnsupportedError of op.
func errUnsupported(op *textir.Operation, format string, args ...any) error {
	return &UnsupportedError{Op: op, Diag: op.Errorf("hostpack: "+format, args...)}
}

// IsUnsupported reports whether err is (or wraps) an *UnsupportedError.
func IsUnsupported(err error) bool {
	var u *UnsupportedError
	return errors.As(err, &u)
}
