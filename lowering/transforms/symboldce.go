package transforms

import (
	"github.com/recom-compiler/recom/lowering/pass"
	"github.com/recom-compiler/recom/textir"
)

// SymbolDCEDecl declares --symbol-dce.
var SymbolDCEDecl = pass.Decl{
	Flag:       "symbol-dce",
	Name:       "SymbolDCE",
	Summary:    "Eliminate dead symbols",
	Statistics: []pass.StatDecl{{Name: "num-dce'd", Help: "Number of symbols DCE'd"}},
	New:        func(*pass.Options) pass.Runner { return &SymbolDCE{} },
}

// SymbolDCE is MLIR's symbol-dce. It runs on an op with the SymbolTable
// trait and erases the symbols (ops with the Symbol trait) nested in it,
// at any depth of nested symbol tables, that nothing live refers to.
//
// Liveness is computed as a fixed point by a worklist: live to begin with
// are every op of a table that is not a symbol, and every symbol that may be
// referred to from outside — public symbols (no sym_visibility, or
// "public"), and "nested" symbols of a table that is itself visible (a
// table is hidden when it is private, not a symbol, inside a hidden table,
// or the top op the pass runs on, as in MLIR). Every symbol that a live op refers to (a
// SymbolRefAttr anywhere in its attributes, properties or nested ops, not
// looking into nested symbol tables, which are handled on their own when
// live; @a::@b makes both live) becomes live in turn. What remains is
// unreachable from every root, so one pass reaches the fixed point.
type SymbolDCE struct{}

// Run erases the dead symbols of the symbol table op.
func (s *SymbolDCE) Run(op *textir.Operation, st *pass.State) error {
	numDCE := st.Stat("num-dce'd", "")
	if !op.HasTrait(textir.SymbolTable) {
		return op.Errorf("was scheduled to run under SymbolDCE, but does not define a symbol table")
	}
	d := &symbolDCE{live: map[*textir.Operation]bool{}, indexes: map[*textir.Operation]textir.SymbolTableIndex{}}
	// As in MLIR, the table is hidden (its "nested" symbols are not
	// visible from outside) unless it is a non-private symbol nested in
	// another op.
	hidden := true
	if op.ParentOp() != nil && op.HasTrait(textir.Symbol) {
		hidden = visibility(op) == "private"
	}
	d.computeLiveness(op, hidden)

	var dead []*textir.Operation
	op.WalkPost(func(t *textir.Operation) {
		if !t.HasTrait(textir.SymbolTable) {
			return
		}
		for _, r := range t.Regions() {
			for _, b := range r.Blocks() {
				for o := range b.Ops() {
					if o.HasTrait(textir.Symbol) && !d.live[o] && !o.HasResultUses() {
						dead = append(dead, o)
					}
				}
			}
		}
	})
	for _, o := range dead {
		o.Erase()
		numDCE.Inc()
	}
	if len(dead) == 0 {
		st.MarkUnchanged()
	}
	return nil
}

type symbolDCE struct {
	live    map[*textir.Operation]bool
	indexes map[*textir.Operation]textir.SymbolTableIndex
}

func visibility(op *textir.Operation) string {
	if v, ok := op.LookupAttr("sym_visibility").(textir.StringAttr); ok {
		return v.Value
	}
	return "public"
}

func (d *symbolDCE) computeLiveness(table *textir.Operation, hidden bool) {
	var work []*textir.Operation
	for _, r := range table.Regions() {
		for _, b := range r.Blocks() {
			for o := range b.Ops() {
				if !o.HasTrait(textir.Symbol) {
					work = append(work, o)
					continue
				}
				vis := visibility(o)
				discardable := vis == "private" || vis == "nested" && hidden
				if !discardable && !d.live[o] {
					d.live[o] = true
					work = append(work, o)
				}
			}
		}
	}
	for len(work) > 0 {
		o := work[len(work)-1]
		work = work[:len(work)-1]
		if o.HasTrait(textir.SymbolTable) {
			inner := hidden || !o.HasTrait(textir.Symbol) || visibility(o) == "private"
			d.computeLiveness(o, inner)
		}
		parent := o.ParentOp()
		if parent == nil || !parent.HasTrait(textir.SymbolTable) {
			continue
		}
		forEachSymbolUse(o, func(ref textir.SymbolRefAttr) {
			for _, s := range d.resolve(parent, ref) {
				if !d.live[s] {
					d.live[s] = true
					work = append(work, s)
				}
			}
		})
	}
}

func (d *symbolDCE) index(table *textir.Operation) textir.SymbolTableIndex {
	ix, ok := d.indexes[table]
	if !ok {
		ix = textir.NewSymbolTableIndex(table)
		d.indexes[table] = ix
	}
	return ix
}

// resolve returns every symbol along ref, looked up in table, or nil when
// some part does not resolve (references to unknown symbols are ignored).
func (d *symbolDCE) resolve(table *textir.Operation, ref textir.SymbolRefAttr) []*textir.Operation {
	s := d.index(table)[ref.Root]
	if s == nil {
		return nil
	}
	out := []*textir.Operation{s}
	for _, n := range ref.Nested {
		if !s.HasTrait(textir.SymbolTable) {
			return nil
		}
		if s = d.index(s)[n]; s == nil {
			return nil
		}
		out = append(out, s)
	}
	return out
}

// forEachSymbolUse calls fn for every symbol reference held by op's
// attributes and properties and by the ops nested in it, without looking
// into the regions of symbol tables (op's own included): their references
// resolve in their own table and are handled when that table is processed.
func forEachSymbolUse(op *textir.Operation, fn func(textir.SymbolRefAttr)) {
	op.Walk(func(o *textir.Operation) bool {
		if p := o.Props(); p != nil {
			attrSymbolRefs(p, fn)
		}
		for _, a := range o.Attrs() {
			attrSymbolRefs(a.Value, fn)
		}
		return !o.HasTrait(textir.SymbolTable)
	})
}

func attrSymbolRefs(a textir.Attribute, fn func(textir.SymbolRefAttr)) {
	switch a := a.(type) {
	case textir.SymbolRefAttr:
		fn(a)
	case textir.ArrayAttr:
		for _, e := range a.Elems {
			attrSymbolRefs(e, fn)
		}
	case textir.DictAttr:
		for _, e := range a.Entries {
			attrSymbolRefs(e.Value, fn)
		}
	}
}
