package conversion

import "github.com/recom-compiler/recom/textir"

type action uint8

const (
	actionNone action = iota
	actionLegal
	actionDynamic
	actionIllegal
)

type legality struct {
	act action
	fn  func(*textir.Operation) bool
}

// Target declares which ops are legal after a conversion. An op's own entry
// wins over its dialect's; ops with neither are unknown: legal in partial
// conversion, illegal in full conversion, unless
// MarkUnknownOpDynamicallyLegal decides.
type Target struct {
	ctx      *textir.Context
	ops      map[string]legality
	dialects map[string]legality
	unknown  func(*textir.Operation) bool
}

// NewTarget returns an empty target for ctx.
func NewTarget(ctx *textir.Context) *Target {
	return &Target{ctx: ctx, ops: map[string]legality{}, dialects: map[string]legality{}}
}

// Context returns the target's context.
func (t *Target) Context() *textir.Context { return t.ctx }

// AddLegalOp marks ops legal.
func (t *Target) AddLegalOp(names ...string) {
	for _, n := range names {
		t.ops[n] = legality{act: actionLegal}
	}
}

// AddIllegalOp marks ops illegal: they must be converted.
func (t *Target) AddIllegalOp(names ...string) {
	for _, n := range names {
		t.ops[n] = legality{act: actionIllegal}
	}
}

// AddDynamicallyLegalOp makes fn decide whether ops of these names are legal.
func (t *Target) AddDynamicallyLegalOp(fn func(*textir.Operation) bool, names ...string) {
	for _, n := range names {
		t.ops[n] = legality{act: actionDynamic, fn: fn}
	}
}

// AddLegalDialect marks every op of the dialects legal.
func (t *Target) AddLegalDialect(names ...string) {
	for _, n := range names {
		t.dialects[n] = legality{act: actionLegal}
	}
}

// AddIllegalDialect marks every op of the dialects illegal.
func (t *Target) AddIllegalDialect(names ...string) {
	for _, n := range names {
		t.dialects[n] = legality{act: actionIllegal}
	}
}

// AddDynamicallyLegalDialect makes fn decide for the ops of the dialects.
func (t *Target) AddDynamicallyLegalDialect(fn func(*textir.Operation) bool, names ...string) {
	for _, n := range names {
		t.dialects[n] = legality{act: actionDynamic, fn: fn}
	}
}

// MarkUnknownOpDynamicallyLegal makes fn decide for ops the target has no
// entry for (in both modes).
func (t *Target) MarkUnknownOpDynamicallyLegal(fn func(*textir.Operation) bool) { t.unknown = fn }

func (t *Target) lookup(op *textir.Operation) legality {
	if l, ok := t.ops[op.Name()]; ok {
		return l
	}
	if l, ok := t.dialects[op.Dialect()]; ok {
		return l
	}
	if t.unknown != nil {
		return legality{act: actionDynamic, fn: t.unknown}
	}
	return legality{}
}

// IsLegal reports whether op is legal; known is false when the target says
// nothing about it.
func (t *Target) IsLegal(op *textir.Operation) (legal, known bool) {
	switch l := t.lookup(op); l.act {
	case actionLegal:
		return true, true
	case actionDynamic:
		return l.fn(op), true
	case actionIllegal:
		return false, true
	}
	return false, false
}

// IsIllegal reports whether op is explicitly illegal: marked illegal, or
// dynamically legal and rejected.
func (t *Target) IsIllegal(op *textir.Operation) bool {
	legal, known := t.IsLegal(op)
	return known && !legal
}
