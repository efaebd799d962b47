package transforms

import (
	"github.com/recom-compiler/recom/lowering/pass"
	"github.com/recom-compiler/recom/textir"
)

// CSEDecl declares --cse.
var CSEDecl = pass.Decl{
	Flag:    "cse",
	Name:    "CSE",
	Summary: "Eliminate common sub-expressions",
	Statistics: []pass.StatDecl{
		{Name: "num-cse'd", Help: "Number of operations CSE'd"},
		{Name: "num-dce'd", Help: "Number of operations DCE'd"},
	},
	New: func(*pass.Options) pass.Runner { return &CSE{} },
}

// CSE is MLIR's common sub-expression elimination. It walks each region
// with a scoped table of the pure ops seen so far: in an SSA region the
// scopes follow the dominator tree of the region's blocks, and the regions
// of an op inherit the scope of the op's position unless the op is
// IsolatedFromAbove or unregistered (which may be isolated). Ops are equal
// when they have the same name, operands, properties, attributes and result
// types (ops with regions are never merged). Pure ops whose results are
// unused are erased too, and so are the pure ops that become unused when
// those are erased.
//
// In a graph region (the parent op has the GraphRegion trait or is
// unregistered) there is no dominance: the first of two equal ops stands for
// both, but only the uses in ops not yet visited are redirected, so every op
// already in the table keeps the operands it was hashed with; the later op
// is erased only when no use is left. Multi-block graph regions get one
// scope per block.
type CSE struct{}

// Run eliminates the common sub-expressions in the regions of op.
func (c *CSE) Run(op *textir.Operation, st *pass.State) error {
	d := &cseDriver{
		root:    op,
		ids:     map[*textir.Value]uint64{},
		visited: map[*textir.Operation]bool{},
		numCSE:  st.Stat("num-cse'd", ""),
		numDCE:  st.Stat("num-dce'd", ""),
	}
	for _, r := range op.Regions() {
		d.simplifyRegion(nil, r)
	}
	if !d.finish() {
		st.MarkUnchanged()
	}
	return nil
}

type cseScope struct {
	parent *cseScope
	table  map[uint64][]*textir.Operation
}

func (s *cseScope) lookup(h uint64, op *textir.Operation) *textir.Operation {
	for ; s != nil; s = s.parent {
		for _, c := range s.table[h] {
			if opsEquivalent(c, op) {
				return c
			}
		}
	}
	return nil
}

type cseDriver struct {
	root    *textir.Operation
	ids     map[*textir.Value]uint64
	visited map[*textir.Operation]bool // ops visited in graph regions
	toErase []*textir.Operation
	numCSE  *pass.Statistic
	numDCE  *pass.Statistic
}

func newScope(parent *cseScope) *cseScope {
	return &cseScope{parent: parent, table: map[uint64][]*textir.Operation{}}
}

// isSSARegion reports whether r's blocks follow dominance.
func isSSARegion(r *textir.Region) bool {
	p := r.ParentOp()
	return p != nil && p.Def() != nil && !p.HasTrait(textir.GraphRegion)
}

func (d *cseDriver) simplifyRegion(outer *cseScope, r *textir.Region) {
	blocks := r.Blocks()
	if len(blocks) == 0 {
		return
	}
	ssa := isSSARegion(r)
	if len(blocks) == 1 || !ssa {
		for _, b := range blocks {
			d.simplifyBlock(newScope(outer), b, ssa)
		}
		return
	}
	// Walk the dominator tree: a block's scope is a child of its immediate
	// dominator's, so only dominating definitions are visible.
	dt := textir.NewDomTree(r)
	children := map[*textir.Block][]*textir.Block{}
	for _, b := range blocks[1:] {
		if id := dt.IDom(b); id != nil {
			children[id] = append(children[id], b)
		}
	}
	var visit func(b *textir.Block, s *cseScope)
	visit = func(b *textir.Block, s *cseScope) {
		s = newScope(s)
		d.simplifyBlock(s, b, true)
		for _, c := range children[b] {
			visit(c, s)
		}
	}
	visit(blocks[0], outer)
	// Unreachable blocks see only what dominates the whole region.
	for _, b := range blocks[1:] {
		if !dt.Reachable(b) {
			d.simplifyBlock(newScope(outer), b, true)
		}
	}
}

func (d *cseDriver) simplifyBlock(s *cseScope, b *textir.Block, ssa bool) {
	for op := range b.Ops() {
		if op.NumRegions() > 0 {
			inner := s
			if op.HasTrait(textir.IsolatedFromAbove) || op.Def() == nil {
				inner = nil
			}
			for _, r := range op.Regions() {
				d.simplifyRegion(inner, r)
			}
		}
		d.simplifyOp(s, op, ssa)
		if !ssa {
			d.visited[op] = true
		}
	}
}

func (d *cseDriver) simplifyOp(s *cseScope, op *textir.Operation, ssa bool) {
	if op.HasTrait(textir.Terminator) {
		return
	}
	if isTriviallyDead(op) {
		d.toErase = append(d.toErase, op)
		d.numDCE.Inc()
		return
	}
	if !op.HasTrait(textir.Pure) || op.NumRegions() > 0 || op.NumResults() == 0 {
		return
	}
	h := d.hash(op)
	existing := s.lookup(h, op)
	if existing == nil {
		s.table[h] = append(s.table[h], op)
		return
	}
	if ssa {
		// Every use of op comes after it in dominance order: none was visited.
		op.ReplaceAllUsesWith(existing.Results())
		d.toErase = append(d.toErase, op)
	} else {
		for i, r := range op.Results() {
			r.ReplaceUsesWithIf(existing.Result(i), func(u *textir.OpOperand) bool {
				return !d.visited[u.Owner()]
			})
		}
		if !op.HasResultUses() {
			d.toErase = append(d.toErase, op)
		}
	}
	d.numCSE.Inc()
	if _, unknown := existing.Loc().(textir.UnknownLoc); unknown {
		if _, opUnknown := op.Loc().(textir.UnknownLoc); !opUnknown {
			existing.SetLoc(op.Loc())
		}
	}
}

// finish erases the ops collected during the walk and then, transitively,
// the pure ops left without uses. It reports whether anything changed.
func (d *cseDriver) finish() bool {
	changed := d.numCSE.Value > 0 || len(d.toErase) > 0
	var work []*textir.Operation
	erase := func(op *textir.Operation) {
		for _, v := range op.Operands() {
			if v != nil && v.DefiningOp() != nil {
				work = append(work, v.DefiningOp())
			}
		}
		op.Erase()
	}
	for _, op := range d.toErase {
		erase(op)
	}
	for len(work) > 0 {
		op := work[len(work)-1]
		work = work[:len(work)-1]
		if op == d.root || !attachedUnder(op, d.root) || !isTriviallyDead(op) {
			continue
		}
		erase(op)
		d.numDCE.Inc()
		changed = true
	}
	return changed
}

// attachedUnder reports whether op is still nested in root (not erased).
func attachedUnder(op, root *textir.Operation) bool {
	for o := op; o != nil; o = o.ParentOp() {
		if o == root {
			return true
		}
		if o.Block() == nil {
			return false
		}
	}
	return false
}

// isTriviallyDead reports whether op can be erased because nothing uses
// its results and it has no effect: it is Pure (and so is everything in its
// regions, terminators aside) and not a terminator.
func isTriviallyDead(op *textir.Operation) bool {
	if op.HasResultUses() || op.HasTrait(textir.Terminator) || !op.HasTrait(textir.Pure) {
		return false
	}
	ok := true
	for _, r := range op.Regions() {
		for _, b := range r.Blocks() {
			for o := range b.Ops() {
				o.Walk(func(n *textir.Operation) bool {
					if !n.HasTrait(textir.Pure) && !n.HasTrait(textir.Terminator) {
						ok = false
					}
					return ok
				})
			}
		}
	}
	return ok
}

func (d *cseDriver) valueID(v *textir.Value) uint64 {
	if id, ok := d.ids[v]; ok {
		return id
	}
	id := uint64(len(d.ids) + 1)
	d.ids[v] = id
	return id
}

const (
	fnvOffset = 14695981039346656037
	fnvPrime  = 1099511628211
)

func mix(h, x uint64) uint64 {
	for i := 0; i < 8; i++ {
		h ^= x & 0xff
		h *= fnvPrime
		x >>= 8
	}
	return h
}

func mixString(h uint64, s string) uint64 {
	for i := 0; i < len(s); i++ {
		h ^= uint64(s[i])
		h *= fnvPrime
	}
	return h
}

func (d *cseDriver) hash(op *textir.Operation) uint64 {
	h := mixString(fnvOffset, op.Name())
	for _, v := range op.Operands() {
		h = mix(h, d.valueID(v))
	}
	if p := op.Props(); p != nil {
		h = mix(h, textir.AttrHash(p))
	}
	for _, a := range op.Attrs() {
		h = mixString(h, a.Name)
		h = mix(h, textir.AttrHash(a.Value))
	}
	for _, t := range op.ResultTypes() {
		h = mixString(h, t.String())
	}
	return h
}

// opsEquivalent compares two region-free ops for CSE.
func opsEquivalent(a, b *textir.Operation) bool {
	if a.Info() != b.Info() || a.NumOperands() != b.NumOperands() || a.NumResults() != b.NumResults() ||
		len(a.Successors()) != 0 || len(b.Successors()) != 0 {
		return false
	}
	for i := range a.NumOperands() {
		if a.Operand(i) != b.Operand(i) {
			return false
		}
	}
	for i := range a.NumResults() {
		if a.Result(i).Type() != b.Result(i).Type() {
			return false
		}
	}
	pa, pb := a.Props(), b.Props()
	if (pa == nil) != (pb == nil) || pa != nil && !textir.AttrEqual(pa, pb) {
		return false
	}
	aa, ba := a.Attrs(), b.Attrs()
	if len(aa) != len(ba) {
		return false
	}
	for i := range aa {
		if aa[i].Name != ba[i].Name || !textir.AttrEqual(aa[i].Value, ba[i].Value) {
			return false
		}
	}
	return true
}
