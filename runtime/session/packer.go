package session

import (
	"context"
	"fmt"

	"github.com/recom-compiler/recom/dialects/fused/abi"
	"github.com/recom-compiler/recom/interp"
	"github.com/recom-compiler/recom/interp/exec"
	"github.com/recom-compiler/recom/textir"
)

// A Packer lays out the inputs of one fused.embedding_layer for its
// kernel, in abi's packed layout, straight from a batch's feeds. A
// session calls Pack once per layer and batch, from several goroutines at
// once (one per batch in flight).
type Packer interface {
	// Name says how the packer works, for the Summary.
	Name() string
	// Pack computes the layer's inputs from feeds, asks alloc for the
	// buffer of the packed bytes (alloc(batch, len) returns exactly len
	// bytes of pinned memory, which the packer must fill) and packs into
	// it. It returns the launch (abi.Packed: Inputs is the buffer alloc
	// gave, Tables nil, Scratch, Batch, Tasks, Grid and Block set).
	Pack(feeds map[string]*interp.Tensor, alloc func(batch, bytes int64) ([]byte, error)) (*abi.Packed, error)
}

// LayerInfo is what a PackerFactory gets about one layer when the
// session is made.
type LayerInfo struct {
	// Op is the fused.embedding_layer, Layer its description.
	Op    *textir.Operation
	Layer *abi.Layer
	// Inputs are the layer's operands that are not tables, in operand
	// order: the feeds they come from, or the results of the ops between
	// (casts, emb.from_dense, emb.filter, ...) that the packer replaces.
	Inputs []*textir.Value
	// Tables holds each column's table by operand index (nil for the
	// other operands); the session's own copy is in the device arena.
	Tables []*interp.Tensor
	// Program is the whole program compiled for the interpreter, and
	// Interp the options its constants were evaluated with: for a
	// packer that computes the inputs with the interpreter.
	Program *exec.Program
	Interp  *exec.Options
}

// A PackerFactory makes the Packer of one layer; an error leaves the
// session unmade (the caller then runs the program in the interpreter).
type PackerFactory func(l *LayerInfo) (Packer, error)

// InterpPacker is the fallback PackerFactory, until a native packer
// (runtime/hostpack) covers the layer: it evaluates the layer's inputs
// with the interpreter (exec.Program.Evaluate over the ops between the
// feeds and the layer), reads them as abi.Layer.Inputs does, packs them
// with abi.Layer.PackInputs, and copies the packed words into the pinned
// buffer. The Summary names it.
func InterpPacker(l *LayerInfo) (Packer, error) {
	if l.Program == nil {
		return nil, fmt.Errorf("session: the interpreter packer needs the compiled program")
	}
	for i, t := range l.Tables {
		if t == nil {
			continue
		}
		if t.Float32s() == nil {
			return nil, l.Op.Errorf("operand #%d: the table must be float32, got %v", i, t.DType())
		}
	}
	opts := l.Interp
	if opts == nil {
		opts = &exec.Options{}
	}
	return &interpPacker{l: l, opts: opts}, nil
}

type interpPacker struct {
	l    *LayerInfo
	opts *exec.Options
}

func (p *interpPacker) Name() string {
	return "fallback: the interpreter computes the layer's inputs, abi.Layer.PackInputs packs them, copied into pinned memory"
}

func (p *interpPacker) Pack(feeds map[string]*interp.Tensor, alloc func(batch, bytes int64) ([]byte, error)) (*abi.Packed, error) {
	l := p.l
	vals, err := l.Program.Evaluate(context.Background(), feeds, l.Inputs, p.opts)
	if err != nil {
		return nil, err
	}
	in := make([]*interp.Tensor, l.Op.NumOperands())
	k := 0
	for i := range in {
		if l.Tables[i] != nil {
			in[i] = l.Tables[i]
			continue
		}
		in[i] = vals[k]
		k++
	}
	cols, err := l.Layer.Inputs(l.Op, in)
	if err != nil {
		return nil, err
	}
	packed, err := l.Layer.PackInputs(cols)
	if err != nil {
		return nil, l.Op.Errorf("%v", err)
	}
	dst, err := alloc(packed.Batch, int64(len(packed.Inputs)))
	if err != nil {
		return nil, err
	}
	if len(dst) != len(packed.Inputs) {
		return nil, fmt.Errorf("session: alloc gave %d bytes for %d", len(dst), len(packed.Inputs))
	}
	copy(dst, packed.Inputs)
	packed.Inputs = dst
	return packed, nil
}
