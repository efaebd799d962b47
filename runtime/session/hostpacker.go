package session

import (
	"context"
	"errors"
	"fmt"

	"github.com/recom-compiler/recom/dialects/fused/abi"
	"github.com/recom-compiler/recom/interp"
	"github.com/recom-compiler/recom/runtime/hostpack"
	"github.com/recom-compiler/recom/textir"
)

// HostPacker is the native PackerFactory: runtime/hostpack's plan of the
// layer, compiled once, packs each batch from the feeds straight into the
// pinned buffer, in parallel over columns, without the interpreter
// (hostpack.Plan.Pack: each feed looked up and checked by the goroutine
// that packs its column, a pooled Packer per batch in flight). The
// values hostpack cannot compute (Input.Computed of a partial plan: an op
// outside the emb sources, filters and id transforms) are evaluated by
// the interpreter from the feeds first, and the Summary says so.
func HostPacker(l *LayerInfo) (Packer, error) {
	plan, err := hostpack.New(l.Op, &hostpack.Options{Partial: true})
	if err != nil {
		return nil, err
	}
	hp := &hostPacker{l: l, plan: plan}
	for i, in := range plan.Inputs() {
		if !in.Computed {
			continue
		}
		hp.computed = append(hp.computed, i)
		hp.values = append(hp.values, in.Value)
	}
	if len(hp.computed) > 0 && l.Program == nil {
		return nil, l.Op.Errorf("%d of the layer's inputs need the interpreter, and no program was given", len(hp.computed))
	}
	return hp, nil
}

// NativePacker is HostPacker, or InterpPacker where hostpack cannot plan
// the layer (its Name then says why).
func NativePacker(l *LayerInfo) (Packer, error) {
	p, err := HostPacker(l)
	if err == nil {
		return p, nil
	}
	if !hostpack.IsUnsupported(err) {
		return nil, err
	}
	f, ferr := InterpPacker(l)
	if ferr != nil {
		return nil, errors.Join(err, ferr)
	}
	return &namedPacker{Packer: f, why: err.Error()}, nil
}

type namedPacker struct {
	Packer
	why string
}

func (p *namedPacker) Name() string { return p.Packer.Name() + " (hostpack: " + p.why + ")" }

type hostPacker struct {
	l        *LayerInfo
	plan     *hostpack.Plan
	computed []int           // indexes into plan.Inputs of the interpreter's values
	values   []*textir.Value // those values
}

func (p *hostPacker) Name() string {
	direct, computed, ops := p.plan.Columns()
	s := fmt.Sprintf("hostpack (%d columns straight from their feeds, %d computed by %d host ops)", direct, computed, ops)
	if len(p.computed) > 0 {
		s += fmt.Sprintf(", %d inputs by the interpreter first", len(p.computed))
	}
	return s
}

func (p *hostPacker) Pack(feeds map[string]*interp.Tensor, alloc func(batch, bytes int64) ([]byte, error)) (*abi.Packed, error) {
	if len(p.computed) > 0 {
		vals, err := p.l.Program.Evaluate(context.Background(), feeds, p.values, p.l.Interp)
		if err != nil {
			return nil, err
		}
		ext := make(map[string]*interp.Tensor, len(feeds)+len(vals))
		for k, v := range feeds {
			ext[k] = v
		}
		for j, i := range p.computed {
			ext[p.plan.Inputs()[i].Name] = vals[j]
		}
		feeds = ext
	}
	return p.plan.Pack(feeds, alloc)
}
