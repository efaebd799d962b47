package embtogpu

import (
	"fmt"
	"slices"

	"github.com/recom-compiler/recom/dialects/emb"
	"github.com/recom-compiler/recom/dialects/fused"
	"github.com/recom-compiler/recom/dialects/gpu"
	"github.com/recom-compiler/recom/dialects/tfg"
	"github.com/recom-compiler/recom/lowering/conversion"
	"github.com/recom-compiler/recom/textir"
)

// layers remembers matchLayer's answer per concatenation for one run of the
// pass: the target asks about every lookup and concatenation, and the
// remarks about every lookup. An answer stays right while other layers are
// rewritten: a match reads only the concatenation's own input chains, and a
// rewrite changes only its own layer's.
//
// column remembers, per lookup, whether it is a layer of its own
// (matchColumn) as first asked, before any rewrite: a lookup that a
// concatenation's layer takes and that stays for another user reaches no
// concatenation once that layer is rewritten, yet is not a layer of its
// own (its other user reads it on the host, as before).
type layers struct {
	memo   map[*textir.Operation]*layerMatch
	column map[*textir.Operation]bool
}

func newLayers() *layers {
	return &layers{memo: map[*textir.Operation]*layerMatch{}, column: map[*textir.Operation]bool{}}
}

// of returns matchLayer(concat), remembered.
func (a *layers) of(concat *textir.Operation) *layerMatch {
	m, ok := a.memo[concat]
	if !ok {
		m = matchLayer(concat)
		a.memo[concat] = m
	}
	return m
}

// fusedBy returns the op whose rewrite takes lookup lk into a kernel: the
// concatenation of its layer, lk itself when it is a layer of its own
// (matchColumn), or nil.
func (a *layers) fusedBy(lk *textir.Operation) *textir.Operation {
	cs := concatsReached(lookupResult(lk))
	col, ok := a.column[lk]
	if !ok {
		_, why := matchColumn(lk)
		col = len(cs) == 0 && why == ""
		a.column[lk] = col
	}
	for _, c := range cs {
		if m := a.of(c); m.why == nil && slices.Contains(m.lookups, lk) {
			return c
		}
	}
	if col {
		return lk
	}
	return nil
}

// whyNot says why lookup lk, which no layer takes, is not fused.
func (a *layers) whyNot(lk *textir.Operation) string {
	cs := concatsReached(lookupResult(lk))
	if len(cs) == 0 {
		// Not a layer of its own either (matchColumn).
		_, why := matchColumn(lk)
		return why
	}
	c := cs[0]
	m := a.of(c)
	j := slices.Index(m.lookups, lk)
	switch {
	case m.lookups == nil:
		return fmt.Sprintf("it reaches %s, which is not an input layer: %s", describe(c), m.why.msg)
	case j < 0:
		ins, _ := concatValues(c)
		for _, v := range ins {
			if r := blockingReshape(v, lk); r != nil {
				return fmt.Sprintf("it reaches %s through %s, whose shape operand is not one known to keep the rows", describe(c), describe(r))
			}
		}
		return fmt.Sprintf("it reaches %s through more than %d Reshape and Identity ops", describe(c), maxChain)
	case m.why.input == j:
		return fmt.Sprintf("it looks up a table of %s (version 1 fuses f32 tables)", tableOf(lk).Type())
	}
	return fmt.Sprintf("it is input #%d of %s, which is not fused: %s", j, describe(c), m.why.msg)
}

// describe names an op for a remark about another: its name, and its TF
// node when it has one.
func describe(op *textir.Operation) string {
	if n := tfg.NodeName(op); n != "" {
		return fmt.Sprintf("'%s' (node %s)", op.Name(), textir.Quote(n))
	}
	return fmt.Sprintf("'%s'", op.Name())
}

// target declares what --fuse leaves: no pooled lookup (emb.lookup,
// emb.gather, emb.gather_scatter) that a layer takes (its concatenation's,
// or its own when it reaches none) and no concatenation (tfg.ConcatV2
// along axis 1, emb.concat) of an embedding layer the patterns fuse; the fused and
// gpu dialects; every other op of the program as it is (among them the
// lookups and concatenations of layers that cannot be fused, which get a
// remark instead).
func target(ctx *textir.Context, a *layers) *conversion.Target {
	t := conversion.NewTarget(ctx)
	t.AddLegalDialect(fused.Name, gpu.Name)
	t.AddDynamicallyLegalOp(func(op *textir.Operation) bool { return a.of(op).why != nil }, "tfg.ConcatV2", emb.ConcatOp)
	t.AddDynamicallyLegalOp(func(op *textir.Operation) bool { return a.fusedBy(op) == nil }, emb.LookupOp, emb.GatherOp, emb.GatherScatterOp)
	t.MarkUnknownOpDynamicallyLegal(func(*textir.Operation) bool { return true })
	return t
}

// RemarkHostIDs starts the remark on a fused column whose ids (or part of
// their computation) stay before the layer; the compiler's summary lists
// these remarks.
const RemarkHostIDs = "ids computed before the layer: "

// RemarkNotFused starts the remark on a lookup (or a concatenation) that
// is not fused.
const RemarkNotFused = "not fused: "

// remarkUnfused reports, in walk order, each concatenation that looks like
// an input layer but is not fused, each pooled lookup no layer takes, with
// the reason, and each fused lookup whose ids are computed, in part or in
// whole, before the layer (absorbIDs's reason). It returns the number of
// the latter.
func remarkUnfused(root *textir.Operation, a *layers, opts Options, emit func(*textir.Diagnostic)) int64 {
	var host int64
	root.Walk(func(op *textir.Operation) bool {
		switch {
		case isConcat(op):
			if m := a.of(op); m.why != nil && m.why.remark {
				emit(op.Remarkf("%s%s", RemarkNotFused, m.why.msg))
			}
		case lookupResult(op) != nil:
			if a.fusedBy(op) == nil {
				emit(op.Remarkf("%s%s", RemarkNotFused, a.whyNot(op)))
			} else if _, why := absorbIDs(op, opts); why != "" {
				host++
				emit(op.Remarkf("%s%s", RemarkHostIDs, why))
			}
		}
		return true
	})
	return host
}
