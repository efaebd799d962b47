package textir

import "slices"

// This file holds the verifier's dominance checks: block dominator trees
// (Cooper, Harvey and Kennedy's iterative algorithm on the CFG given by the
// terminators' successors) and the rule that every use of a value in an SSA
// region is dominated by its definition.

// DomTree is the dominator tree of the blocks of one region. Its queries
// memoize the last block looked up, so one DomTree must not be queried from
// several goroutines at once.
type DomTree struct {
	index     map[*Block]int32
	memoB     *Block // the last block looked up, and its index
	memoI     int32
	blocks    []*Block
	idom      []int32 // immediate dominator (by block index); -1: unreachable; entry: itself
	pre, post []int32 // dominator-tree DFS interval; -1: unreachable
}

// NewDomTree computes the dominator tree of r's blocks. The entry block is
// the first; edges are the successors of each block's last op that lie in r.
func NewDomTree(r *Region) *DomTree {
	n := len(r.blocks)
	t := &DomTree{index: make(map[*Block]int32, n), blocks: r.blocks}
	for i, b := range r.blocks {
		t.index[b] = int32(i)
	}
	t.idom = make([]int32, n)
	t.pre = make([]int32, n)
	t.post = make([]int32, n)
	for i := range t.idom {
		t.idom[i], t.pre[i], t.post[i] = -1, -1, -1
	}
	if n == 0 {
		return t
	}
	// Successor and predecessor lists in compressed form (CSR), one map
	// lookup per edge and no allocation per block.
	succStart := make([]int32, n+1)
	var succ []int32
	for i, b := range r.blocks {
		succStart[i] = int32(len(succ))
		if last := b.last; last != nil {
			for _, s := range last.successors {
				if si, ok := t.index[s]; ok {
					succ = append(succ, si)
				}
			}
		}
	}
	succStart[n] = int32(len(succ))
	// Post-order numbering of the blocks reachable from the entry.
	po := make([]int32, n) // block -> post-order number, -1 unvisited
	for i := range po {
		po[i] = -1
	}
	visited := make([]bool, n)
	order := make([]int32, 0, n) // blocks in post-order
	type frame struct {
		b    int32
		next int32
	}
	stack := []frame{{0, succStart[0]}}
	visited[0] = true
	for len(stack) > 0 {
		f := &stack[len(stack)-1]
		if f.next < succStart[f.b+1] {
			s := succ[f.next]
			f.next++
			if !visited[s] {
				visited[s] = true
				stack = append(stack, frame{s, succStart[s]})
			}
			continue
		}
		po[f.b] = int32(len(order))
		order = append(order, f.b)
		stack = stack[:len(stack)-1]
	}
	// Predecessors among reachable blocks.
	predStart := make([]int32, n+1)
	for _, b := range order {
		for _, s := range succ[succStart[b]:succStart[b+1]] {
			predStart[s+1]++
		}
	}
	for i := 0; i < n; i++ {
		predStart[i+1] += predStart[i]
	}
	pred := make([]int32, predStart[n])
	fill := slices.Clone(predStart[:n])
	for _, b := range order {
		for _, s := range succ[succStart[b]:succStart[b+1]] {
			pred[fill[s]] = b
			fill[s]++
		}
	}
	intersect := func(a, b int32) int32 {
		for a != b {
			for po[a] < po[b] {
				a = t.idom[a]
			}
			for po[b] < po[a] {
				b = t.idom[b]
			}
		}
		return a
	}
	t.idom[0] = 0
	for changed := true; changed; {
		changed = false
		for k := len(order) - 1; k >= 0; k-- { // reverse post-order
			b := order[k]
			if b == 0 {
				continue
			}
			nd := int32(-1)
			for _, p := range pred[predStart[b]:predStart[b+1]] {
				if t.idom[p] < 0 {
					continue
				}
				if nd < 0 {
					nd = p
				} else {
					nd = intersect(p, nd)
				}
			}
			if nd != t.idom[b] {
				t.idom[b] = nd
				changed = true
			}
		}
	}
	// Pre/post DFS times on the dominator tree for O(1) queries.
	first := make([]int32, n) // first child
	sib := make([]int32, n)   // next sibling
	for i := range first {
		first[i], sib[i] = -1, -1
	}
	for b := n - 1; b > 0; b-- {
		if p := t.idom[b]; p >= 0 {
			sib[b] = first[p]
			first[p] = int32(b)
		}
	}
	clock := int32(0)
	cur := []int32{0}
	t.pre[0] = clock
	clock++
	next := make([]int32, n) // the child to visit next
	copy(next, first)
	for len(cur) > 0 {
		b := cur[len(cur)-1]
		if c := next[b]; c >= 0 {
			next[b] = sib[c]
			t.pre[c] = clock
			clock++
			cur = append(cur, c)
			continue
		}
		t.post[b] = clock
		clock++
		cur = cur[:len(cur)-1]
	}
	return t
}

func (t *DomTree) lookup(b *Block) (int32, bool) {
	if b == t.memoB && b != nil {
		return t.memoI, true
	}
	i, ok := t.index[b]
	if ok {
		t.memoB, t.memoI = b, i
	}
	return i, ok
}

// Reachable reports whether b is reachable from the region's entry.
func (t *DomTree) Reachable(b *Block) bool {
	i, ok := t.lookup(b)
	return ok && t.pre[i] >= 0
}

// Dominates reports whether block a dominates block b (a block dominates
// itself). Blocks unreachable from the entry dominate nothing and are
// dominated by nothing.
func (t *DomTree) Dominates(a, b *Block) bool {
	i, ok1 := t.lookup(a)
	j, ok2 := t.lookup(b)
	if !ok1 || !ok2 || t.pre[i] < 0 || t.pre[j] < 0 {
		return false
	}
	return t.pre[i] <= t.pre[j] && t.post[j] <= t.post[i]
}

// IDom returns the immediate dominator of b, nil for the entry block and for
// unreachable blocks.
func (t *DomTree) IDom(b *Block) *Block {
	i, ok := t.index[b]
	if !ok || i == 0 || t.idom[i] < 0 {
		return nil
	}
	return t.blocks[t.idom[i]]
}

func regionIsSSA(r *Region) bool { return r.parent == nil || isSSARegionOwner(r.parent) }

func (v *verifier) domTree(r *Region) *DomTree {
	if t, ok := v.doms[r]; ok {
		return t
	}
	if v.doms == nil {
		v.doms = map[*Region]*DomTree{}
	}
	t := NewDomTree(r)
	v.doms[r] = t
	return t
}

// opBefore reports whether a comes before b; both are in the same block.
func (v *verifier) opBefore(a, b *Operation) bool {
	if b.prev == a {
		return true
	}
	if a.prev == b || a == b {
		return false
	}
	blk := a.block
	if !slices.Contains(v.outer, blk) {
		return a.order < b.order
	}
	if !v.numbered[blk] {
		if v.numbered == nil {
			v.numbered = map[*Block]bool{}
			v.order = make(map[*Operation]int32, blk.numOps)
		}
		v.numbered[blk] = true
		i := int32(0)
		for o := blk.first; o != nil; o = o.next {
			v.order[o] = i
			i++
		}
	}
	return v.order[a] < v.order[b]
}

// verifyOperandDominance checks that each operand of op is defined in an
// enclosing scope and, in SSA regions, that its definition dominates op.
func (v *verifier) verifyOperandDominance(op *Operation) *Diagnostic {
	for i := range op.operands {
		val := op.operands[i].val
		if val == nil {
			return op.Errorf("operand #%d is null", i)
		}
		if !v.dominatesUse(val, op) {
			d := op.Errorf("operand #%d does not dominate this use", i)
			noteDominance(d, val, op)
			return d
		}
	}
	return nil
}

// dominatesUse reports whether val's definition properly dominates its use
// by user (or the use is exempt: graph regions, unreachable blocks).
func (v *verifier) dominatesUse(val *Value, user *Operation) bool {
	defBlock := val.OwnerBlock()
	if defBlock == nil || defBlock.parent == nil {
		return false
	}
	defRegion := defBlock.parent
	// The ancestor of user (user itself included) that lies in defRegion.
	a := user
	for a != nil && (a.block == nil || a.block.parent != defRegion) {
		a = a.ParentOp()
	}
	if a == nil {
		return false // the definition's region does not enclose the use
	}
	if !regionIsSSA(defRegion) {
		return true
	}
	if a.block == defBlock {
		if val.def == nil {
			return true
		}
		return val.def != a && v.opBefore(val.def, a)
	}
	t := v.domTree(defRegion)
	if !t.Reachable(a.block) {
		return true
	}
	return t.Dominates(defBlock, a.block)
}

// noteDominance explains where a non-dominating operand is defined,
// relative to its user.
func noteDominance(d *Diagnostic, val *Value, user *Operation) {
	defBlock := val.OwnerBlock()
	var where string
	switch {
	case defBlock == nil || defBlock.parent == nil:
		where = "not in any region"
	case defBlock == user.block:
		where = "in the same block"
	case user.block != nil && defBlock.parent == user.block.parent:
		where = "in the same region"
	case defBlock.parent.IsAncestorOf(user):
		where = "in a parent region"
	default:
		if p := defBlock.ParentOp(); p != nil && user.block != nil && user.block.parent.IsAncestorOf(p) {
			where = "in a child region"
		} else {
			where = "neither in a parent nor in a child region"
		}
	}
	if val.def != nil {
		if val.def.IsAncestor(user) {
			d.AttachNote(val.def.DiagLoc(), "operand defined here (result #%d of the op that holds the use)", val.index)
			return
		}
		d.AttachNote(val.def.DiagLoc(), "operand defined here (op %s)", where)
		return
	}
	loc := Location(nil)
	if p := defBlock.ParentOp(); p != nil {
		loc = p.DiagLoc()
	}
	d.AttachNote(loc, "operand defined as a block argument (block #%d %s)", blockIndex(defBlock), where)
}
