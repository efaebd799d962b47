package rewrite

import "github.com/recom-compiler/recom/textir"

// ConstantValue returns the constant an op materialises: for a ConstantLike
// op, its "value" property or attribute; nil otherwise.
func ConstantValue(op *textir.Operation) textir.Attribute {
	if op == nil || !op.HasTrait(textir.ConstantLike) {
		return nil
	}
	if d, ok := op.Props().(textir.DictAttr); ok {
		if a := d.Get("value"); a != nil {
			return a
		}
	}
	return op.Attr("value")
}

// constantOf returns the constant value v is known to hold, or nil.
func constantOf(v *textir.Value) textir.Attribute {
	if v == nil {
		return nil
	}
	return ConstantValue(v.DefiningOp())
}

// isUniquableConstant: a constant the folder may hoist and merge (no
// operands, no regions, one result).
func isUniquableConstant(op *textir.Operation) bool {
	return op.NumOperands() == 0 && op.NumRegions() == 0 && op.NumResults() == 1 && ConstantValue(op) != nil
}

type constKey struct {
	region  *textir.Region
	dialect string
	typ     textir.Type
	hash    uint64
}

// folder uniques constants per (insertion region, dialect, type, value), as
// MLIR's OperationFolder does: constants live at the start of the entry
// block of their insertion region, the nearest enclosing region whose
// parent op is isolated from above, unregistered, or the driver's root.
type folder struct {
	root  *textir.Operation
	byKey map[constKey][]*textir.Operation
	owned map[*textir.Operation]constKey
}

func newFolder(root *textir.Operation) *folder {
	return &folder{root: root, byKey: map[constKey][]*textir.Operation{}, owned: map[*textir.Operation]constKey{}}
}

func (f *folder) insertionRegion(op *textir.Operation) *textir.Region {
	for b := op.Block(); b != nil; {
		r := b.Parent()
		if r == nil {
			return nil
		}
		p := r.ParentOp()
		if p == nil {
			return nil
		}
		if p == f.root || p.Def() == nil || p.HasTrait(textir.IsolatedFromAbove) || p.Block() == nil {
			return r
		}
		b = p.Block()
	}
	return nil
}

func (f *folder) lookup(k constKey, a textir.Attribute) *textir.Operation {
	for _, c := range f.byKey[k] {
		if textir.AttrEqual(ConstantValue(c), a) {
			return c
		}
	}
	return nil
}

func (f *folder) add(k constKey, op *textir.Operation) {
	f.byKey[k] = append(f.byKey[k], op)
	f.owned[op] = k
}

// forget drops op from the tables (it was erased or modified).
func (f *folder) forget(op *textir.Operation) {
	k, ok := f.owned[op]
	if !ok {
		return
	}
	delete(f.owned, op)
	l := f.byKey[k]
	for i, c := range l {
		if c == op {
			l = append(l[:i], l[i+1:]...)
			break
		}
	}
	if len(l) == 0 {
		delete(f.byKey, k)
	} else {
		f.byKey[k] = l
	}
}

// insertKnownConstant registers a constant op met by the driver. It returns
// false when op duplicated a known constant and was replaced by it (erased);
// otherwise op is kept (and moved to the front of its insertion block) and
// moved reports whether it moved.
func (f *folder) insertKnownConstant(op *textir.Operation, rw *Rewriter) (kept, moved bool) {
	reg := f.insertionRegion(op)
	if reg == nil {
		return true, false
	}
	val := ConstantValue(op)
	k := constKey{reg, op.Dialect(), op.Result(0).Type(), textir.AttrHash(val)}
	if c := f.lookup(k, val); c != nil {
		if c == op {
			return true, false
		}
		rw.ReplaceOp(op, c.Results())
		return false, false
	}
	f.add(k, op)
	entry := reg.Front()
	if op.Block() != entry || (entry.First() != op && !f.isOwned(op.Prev())) {
		op.MoveBefore(entry.First())
		return true, true
	}
	return true, false
}

func (f *folder) isOwned(op *textir.Operation) bool {
	if op == nil {
		return false
	}
	_, ok := f.owned[op]
	return ok
}

// getOrCreateConstant returns a value holding attr of type t for a fold of
// op: a known constant, or one materialised by op's dialect at the start of
// the insertion region's entry block. created reports a new op.
func (f *folder) getOrCreateConstant(op *textir.Operation, attr textir.Attribute, t textir.Type, rw *Rewriter) (v *textir.Value, created *textir.Operation) {
	d := rw.Context().Dialect(op.Dialect())
	if d == nil || d.MaterializeConstant == nil {
		return nil, nil
	}
	reg := f.insertionRegion(op)
	var k constKey
	b := rw.Builder()
	saveBlock, savePos := b.Block, b.Pos
	defer func() { b.Block, b.Pos = saveBlock, savePos }()
	if reg != nil {
		k = constKey{reg, op.Dialect(), t, textir.AttrHash(attr)}
		if c := f.lookup(k, attr); c != nil {
			return c.Result(0), nil
		}
		b.SetInsertionPointToStart(reg.Front())
	} else {
		b.SetInsertionPoint(op)
	}
	c := d.MaterializeConstant(b, attr, t, op.Loc())
	if c == nil {
		return nil, nil
	}
	if c.Block() == nil {
		rw.Insert(c)
	}
	if c.NumResults() != 1 || c.Result(0).Type() != t {
		if !c.HasResultUses() {
			rw.EraseOp(c)
		}
		return nil, nil
	}
	if reg != nil && isUniquableConstant(c) && textir.AttrEqual(ConstantValue(c), attr) {
		f.add(k, c)
	}
	return c.Result(0), c
}
