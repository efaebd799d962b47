package rewrite

import (
	"fmt"

	"github.com/recom-compiler/recom/textir"
)

// Listener is told about every IR change made through a Rewriter.
type Listener interface {
	// OpInserted: op was created or moved to its current position.
	OpInserted(op *textir.Operation)
	// OpModified: op was changed in place (operands, attributes, types,
	// regions).
	OpModified(op *textir.Operation)
	// OpReplaced: op's results are about to be replaced with vals (the
	// users are then reported as modified, and op as erased).
	OpReplaced(op *textir.Operation, vals []*textir.Value)
	// OpErased: op is about to be erased. It is called for every op nested
	// in op first (in post-order, each block from its end), then for op.
	// When it is called op is still linked and still uses its operands.
	OpErased(op *textir.Operation)
}

// Rewriter implements textir.PatternRewriter: it changes IR and reports
// each change to its Listener (which may be nil). A misuse (erasing an op
// whose results are still used, replacing with the wrong number of values)
// is not performed; it is recorded and returned by Err.
type Rewriter struct {
	ctx      *textir.Context
	b        textir.Builder
	listener Listener
	changes  uint64
	err      error
	// OnMatchFailure, when set, receives the messages of NotifyMatchFailure.
	OnMatchFailure func(op *textir.Operation, msg string)
}

var _ textir.PatternRewriter = (*Rewriter)(nil)

// NewRewriter returns a rewriter that reports to l.
func NewRewriter(ctx *textir.Context, l Listener) *Rewriter {
	r := &Rewriter{ctx: ctx, listener: l}
	r.b.Ctx = ctx
	r.b.Listener = builderListener{r}
	return r
}

type builderListener struct{ r *Rewriter }

func (l builderListener) OpInserted(op *textir.Operation) { l.r.notifyInserted(op) }

// SetListener changes the listener.
func (r *Rewriter) SetListener(l Listener) { r.listener = l }

// Changes counts the changes reported so far; a pattern that returns false
// must leave it unchanged.
func (r *Rewriter) Changes() uint64 { return r.changes }

// Err returns the first misuse recorded, or nil.
func (r *Rewriter) Err() error { return r.err }

// SetErr records err unless an error is already recorded.
func (r *Rewriter) SetErr(err error) {
	if r.err == nil {
		r.err = err
	}
}

// Context returns the IR context.
func (r *Rewriter) Context() *textir.Context { return r.ctx }

// Builder returns the rewriter's builder; ops it creates are reported.
func (r *Rewriter) Builder() *textir.Builder { return &r.b }

// SetInsertionPoint makes the builder insert before op.
func (r *Rewriter) SetInsertionPoint(op *textir.Operation) { r.b.SetInsertionPoint(op) }

// Create builds an op at the insertion point and reports it.
func (r *Rewriter) Create(st *textir.OperationState) *textir.Operation { return r.b.Create(st) }

// Insert places a detached op at the insertion point and reports it.
func (r *Rewriter) Insert(op *textir.Operation) *textir.Operation { return r.b.Insert(op) }

func (r *Rewriter) notifyInserted(op *textir.Operation) {
	r.changes++
	if r.listener != nil {
		r.listener.OpInserted(op)
	}
}

func (r *Rewriter) notifyModified(op *textir.Operation) {
	r.changes++
	if r.listener != nil {
		r.listener.OpModified(op)
	}
}

// ReplaceOp replaces op's results with vals (one per result) and erases op.
func (r *Rewriter) ReplaceOp(op *textir.Operation, vals []*textir.Value) {
	if len(vals) != op.NumResults() {
		r.SetErr(op.Errorf("replaced with %d values but has %d results", len(vals), op.NumResults()))
		return
	}
	r.changes++
	if r.listener != nil {
		r.listener.OpReplaced(op, vals)
	}
	for i, v := range vals {
		r.ReplaceAllUsesWith(op.Result(i), v)
	}
	r.EraseOp(op)
}

// EraseOp erases op and everything nested in it. Op's results must be
// unused.
func (r *Rewriter) EraseOp(op *textir.Operation) {
	if op.HasResultUses() {
		r.SetErr(op.Errorf("erased while its results are still in use"))
		return
	}
	r.changes++
	if r.listener != nil {
		notifyErased(r.listener, op)
	}
	op.Erase()
}

// notifyErased reports op's nested ops (post-order, blocks walked from the
// end so users are reported before producers) and then op.
func notifyErased(l Listener, op *textir.Operation) {
	for _, reg := range op.Regions() {
		for _, b := range reg.Blocks() {
			for o := b.Last(); o != nil; o = o.Prev() {
				notifyErased(l, o)
			}
		}
	}
	l.OpErased(op)
}

// ModifyOpInPlace runs fn, which changes op in place, and reports op as
// modified.
func (r *Rewriter) ModifyOpInPlace(op *textir.Operation, fn func()) {
	fn()
	r.notifyModified(op)
}

// ReplaceAllUsesWith makes every use of from use to; each user is reported
// as modified.
func (r *Rewriter) ReplaceAllUsesWith(from, to *textir.Value) {
	if from == to {
		return
	}
	for u := range from.Uses() {
		u.Set(to)
		r.notifyModified(u.Owner())
	}
}

// ReplaceUsesWithIf replaces the uses of from for which pred holds.
func (r *Rewriter) ReplaceUsesWithIf(from, to *textir.Value, pred func(*textir.OpOperand) bool) {
	if from == to {
		return
	}
	for u := range from.Uses() {
		if pred(u) {
			u.Set(to)
			r.notifyModified(u.Owner())
		}
	}
}

// MoveOpBefore moves op right before pos and reports it as inserted.
func (r *Rewriter) MoveOpBefore(op, pos *textir.Operation) {
	op.MoveBefore(pos)
	r.notifyInserted(op)
}

// MoveOpAfter moves op right after pos and reports it as inserted.
func (r *Rewriter) MoveOpAfter(op, pos *textir.Operation) {
	op.MoveAfter(pos)
	r.notifyInserted(op)
}

// InlineBlockBefore moves src's ops before pos, replacing src's arguments
// with args; src is then removed from its region. The moved ops are
// reported as inserted.
func (r *Rewriter) InlineBlockBefore(src *textir.Block, pos *textir.Operation, args []*textir.Value) {
	if pos == nil || pos.Block() == nil {
		r.SetErr(textir.Errorf(textir.UnknownLoc{}, "InlineBlockBefore: insertion point is not in a block"))
		return
	}
	r.inlineBlock(src, pos.Block(), pos, args)
}

// InlineBlockAtEnd moves src's ops to the end of dest, replacing src's
// arguments with args; src is then removed from its region.
func (r *Rewriter) InlineBlockAtEnd(src, dest *textir.Block, args []*textir.Value) {
	r.inlineBlock(src, dest, nil, args)
}

func (r *Rewriter) inlineBlock(src, dest *textir.Block, pos *textir.Operation, args []*textir.Value) {
	if len(args) != src.NumArgs() {
		r.SetErr(textir.Errorf(textir.UnknownLoc{}, "inlining a block with %d arguments given %d values", src.NumArgs(), len(args)))
		return
	}
	for i, a := range src.Args() {
		r.ReplaceAllUsesWith(a, args[i])
	}
	for o := src.First(); o != nil; {
		next := o.Next()
		dest.InsertBefore(o, pos)
		r.notifyInserted(o)
		o = next
	}
	if reg := src.Parent(); reg != nil {
		reg.RemoveBlock(src)
		if p := reg.ParentOp(); p != nil {
			r.notifyModified(p)
		}
	}
}

// NotifyMatchFailure reports why a pattern did not apply; it returns false.
func (r *Rewriter) NotifyMatchFailure(op *textir.Operation, format string, args ...any) bool {
	if r.OnMatchFailure != nil {
		r.OnMatchFailure(op, fmt.Sprintf(format, args...))
	}
	return false
}
