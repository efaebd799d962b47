package rewrite

import (
	"slices"

	"github.com/recom-compiler/recom/textir"
)

// GreedyConfig configures ApplyPatternsGreedily. Start from
// DefaultGreedyConfig: the zero value turns folding and dead-code removal off.
type GreedyConfig struct {
	// MaxIterations bounds the number of sweeps (0: 10; negative: no bound).
	MaxIterations int
	// MaxRewrites bounds the number of rewrites (pattern applications and
	// folds) over the whole run, to stop pattern ping-pong within a sweep
	// (0: 10 per op in the root plus 100,000; negative: no bound).
	MaxRewrites int
	// UseTopDownTraversal visits ops in pre-order instead of bottom-up.
	UseTopDownTraversal bool
	// EnableFolding folds ops with their OpDef.Fold and uniques constants.
	EnableFolding bool
	// EnableDCE erases trivially dead ops.
	EnableDCE bool
	// Strict makes non-convergence an error (a Diagnostic at the root).
	Strict bool
	// ExpensiveChecks fingerprints the whole root around every pattern that
	// reports no match, to catch patterns that change IR behind the
	// rewriter's back and then return false (for tests; O(IR) per failure).
	// Changes made through the rewriter are always checked.
	ExpensiveChecks bool
	// Listener, when set, is told about every change too.
	Listener Listener
}

// DefaultGreedyConfig returns MLIR's defaults: 10 iterations, folding and
// dead-code removal on, bottom-up traversal.
func DefaultGreedyConfig() GreedyConfig {
	return GreedyConfig{MaxIterations: 10, EnableFolding: true, EnableDCE: true}
}

// Result summarises a greedy run.
type Result struct {
	Changed    bool           // the IR changed
	Converged  bool           // the last sweep changed nothing
	Iterations int            // sweeps run
	Applied    map[string]int // pattern name → applications
	Folded     int            // ops folded (replaced by values or constants, or folded in place)
	Erased     int            // ops the driver erased itself: trivially dead ops and duplicate constants
}

type driver struct {
	ctx    *textir.Context
	root   *textir.Operation
	ps     *PatternSet
	cfg    GreedyConfig
	rw     *Rewriter
	folder *folder

	// The worklist is a stack. Ops seeded at the start of a sweep are not
	// indexed (a map entry per op would dominate the cost of a sweep over a
	// large module); ops pushed later are, so that they are not pushed twice
	// while waiting. A seeded op pushed again is visited early and then
	// again at its seeded position, which is harmless. Erased ops are
	// skipped when popped.
	wl     []*textir.Operation
	index  map[*textir.Operation]int
	erased map[*textir.Operation]struct{}
	consts []textir.Attribute // scratch for fold operands

	patterns map[*textir.OpInfo][]textir.RewritePattern

	res      Result
	rewrites int
	limit    int
	changed  bool // in the current sweep
}

// ApplyPatternsGreedily applies ps to the ops nested in root (not root
// itself) until nothing changes; see the package doc for the algorithm. It
// returns an error when a pattern misuses the rewriter, when a pattern
// returns false after changing IR, or, with cfg.Strict, when the rewrite did
// not converge.
func ApplyPatternsGreedily(root *textir.Operation, ps *PatternSet, cfg GreedyConfig) (Result, error) {
	if cfg.MaxIterations == 0 {
		cfg.MaxIterations = 10
	}
	d := &driver{
		ctx:      ps.ctx,
		root:     root,
		ps:       ps,
		cfg:      cfg,
		folder:   newFolder(root),
		index:    map[*textir.Operation]int{},
		erased:   map[*textir.Operation]struct{}{},
		patterns: map[*textir.OpInfo][]textir.RewritePattern{},
		res:      Result{Applied: map[string]int{}},
	}
	d.rw = NewRewriter(ps.ctx, d)
	err := d.run()
	return d.res, err
}

func (d *driver) run() error {
	for {
		if d.cfg.MaxIterations > 0 && d.res.Iterations >= d.cfg.MaxIterations {
			break
		}
		d.res.Iterations++
		d.changed = false
		d.seed()
		if err := d.processWorklist(); err != nil {
			return err
		}
		if !d.changed {
			d.res.Converged = true
			break
		}
		if d.capped() {
			break
		}
	}
	if !d.res.Converged && d.cfg.Strict {
		msg := "greedy rewriter did not converge after %d iterations"
		if d.capped() {
			return textir.Errorf(d.root.DiagLoc(), msg+" (rewrite limit of %d reached)", d.res.Iterations, d.limit)
		}
		return textir.Errorf(d.root.DiagLoc(), msg, d.res.Iterations)
	}
	return nil
}

func (d *driver) capped() bool { return d.limit > 0 && d.rewrites >= d.limit }

func (d *driver) seed() {
	n := 0
	for _, r := range d.root.Regions() {
		for _, b := range r.Blocks() {
			n += countOps(b)
		}
	}
	if d.limit == 0 {
		switch {
		case d.cfg.MaxRewrites > 0:
			d.limit = d.cfg.MaxRewrites
		case d.cfg.MaxRewrites == 0:
			d.limit = 10*n + 100000
		default:
			d.limit = -1
		}
	}
	if cap(d.wl) < n {
		d.wl = make([]*textir.Operation, 0, n)
	}
	d.wl = d.wl[:0]
	clear(d.index)
	visit := func(o *textir.Operation) { d.wl = append(d.wl, o) }
	if d.cfg.UseTopDownTraversal {
		for _, r := range d.root.Regions() {
			for _, b := range r.Blocks() {
				for o := b.First(); o != nil; o = o.Next() {
					o.Walk(func(o *textir.Operation) bool { visit(o); return true })
				}
			}
		}
		// Reverse, so that popping from the back visits in pre-order.
		slices.Reverse(d.wl)
		return
	}
	for _, r := range d.root.Regions() {
		for _, b := range r.Blocks() {
			for o := b.First(); o != nil; o = o.Next() {
				o.WalkPost(visit)
			}
		}
	}
}

func countOps(b *textir.Block) int {
	n := 0
	for o := b.First(); o != nil; o = o.Next() {
		n++
		for _, r := range o.Regions() {
			for _, nb := range r.Blocks() {
				n += countOps(nb)
			}
		}
	}
	return n
}

// push adds op to the worklist unless it is there already, erased, the
// root, or outside the root.
func (d *driver) push(op *textir.Operation) {
	if op == nil || op == d.root || op.Block() == nil {
		return
	}
	if _, ok := d.index[op]; ok {
		return
	}
	if _, ok := d.erased[op]; ok {
		return
	}
	if !d.root.IsAncestor(op) {
		return
	}
	d.index[op] = len(d.wl)
	d.wl = append(d.wl, op)
}

func (d *driver) remove(op *textir.Operation) {
	if i, ok := d.index[op]; ok {
		d.wl[i] = nil
		delete(d.index, op)
	}
}

func (d *driver) pop() *textir.Operation {
	for len(d.wl) > 0 {
		i := len(d.wl) - 1
		op := d.wl[i]
		d.wl = d.wl[:i]
		if op == nil || op.Block() == nil {
			continue
		}
		if len(d.index) > 0 {
			if j, ok := d.index[op]; ok && j == i {
				delete(d.index, op)
			}
		}
		if len(d.erased) > 0 {
			if _, ok := d.erased[op]; ok {
				continue
			}
		}
		return op
	}
	return nil
}

// Listener implementation.

func (d *driver) OpInserted(op *textir.Operation) {
	d.push(op)
	for _, r := range op.Regions() {
		for _, b := range r.Blocks() {
			for o := b.First(); o != nil; o = o.Next() {
				o.Walk(func(n *textir.Operation) bool { d.push(n); return true })
			}
		}
	}
	if d.cfg.Listener != nil {
		d.cfg.Listener.OpInserted(op)
	}
}

func (d *driver) OpModified(op *textir.Operation) {
	d.folder.forget(op)
	d.push(op)
	if d.cfg.Listener != nil {
		d.cfg.Listener.OpModified(op)
	}
}

func (d *driver) OpReplaced(op *textir.Operation, vals []*textir.Value) {
	if d.cfg.Listener != nil {
		d.cfg.Listener.OpReplaced(op, vals)
	}
}

func (d *driver) OpErased(op *textir.Operation) {
	d.erased[op] = struct{}{}
	d.remove(op)
	d.folder.forget(op)
	// The producers of op's operands may become dead or simpler: add those
	// whose value has at most one other user left.
	for i := 0; i < op.NumOperands(); i++ {
		v := op.Operand(i)
		if v == nil || v.DefiningOp() == nil {
			continue
		}
		var other *textir.Operation
		many := false
		for u := range v.Users() {
			if u == op || u == other {
				continue
			}
			if other == nil {
				other = u
				continue
			}
			many = true
			break
		}
		if !many {
			d.push(v.DefiningOp())
		}
	}
	if d.cfg.Listener != nil {
		d.cfg.Listener.OpErased(op)
	}
}

func (d *driver) patternsFor(op *textir.Operation) []textir.RewritePattern {
	info := op.Info()
	if l, ok := d.patterns[info]; ok {
		return l
	}
	l := d.ps.For(info.Name)
	d.patterns[info] = l
	return l
}

func (d *driver) processWorklist() error {
	for {
		if d.capped() {
			return nil
		}
		op := d.pop()
		if op == nil {
			return nil
		}
		if d.cfg.EnableDCE && isTriviallyDead(op) {
			d.rw.EraseOp(op)
			d.res.Erased++
			d.noteChange()
			continue
		}
		if d.cfg.EnableFolding {
			if op.HasTrait(textir.ConstantLike) {
				if isUniquableConstant(op) {
					kept, moved := d.folder.insertKnownConstant(op, d.rw)
					if !kept {
						d.res.Erased++
						d.noteChange()
						continue
					}
					if moved {
						d.res.Changed = true
					}
				}
			} else if d.tryFold(op) {
				d.res.Folded++
				d.rewrites++
				d.noteChange()
				if err := d.rw.Err(); err != nil {
					return err
				}
				continue
			}
		}
		if err := d.applyPatterns(op); err != nil {
			return err
		}
	}
}

func (d *driver) noteChange() {
	d.changed = true
	d.res.Changed = true
}

func (d *driver) applyPatterns(op *textir.Operation) error {
	for _, p := range d.patternsFor(op) {
		d.rw.SetInsertionPoint(op)
		before := d.rw.Changes()
		var fp uint64
		if d.cfg.ExpensiveChecks {
			fp = Fingerprint(d.root)
		}
		ok := p.MatchAndRewrite(op, d.rw)
		if err := d.rw.Err(); err != nil {
			return err
		}
		if !ok {
			if d.rw.Changes() != before || (d.cfg.ExpensiveChecks && Fingerprint(d.root) != fp) {
				return op.Errorf("pattern '%s' returned failure but IR did change", p.Name())
			}
			continue
		}
		d.res.Applied[p.Name()]++
		d.rewrites++
		d.noteChange()
		return nil
	}
	return nil
}

// isTriviallyDead: a side-effect-free (Pure or ConstantLike) op that is not
// a terminator, has no regions and whose results are unused.
func isTriviallyDead(op *textir.Operation) bool {
	if !op.HasTrait(textir.Pure|textir.ConstantLike) || op.HasTrait(textir.Terminator) {
		return false
	}
	return op.NumRegions() == 0 && !op.HasResultUses()
}

// tryFold folds op with its OpDef.Fold; it reports whether op changed (it
// was replaced, or folded in place).
func (d *driver) tryFold(op *textir.Operation) bool {
	def := op.Def()
	if def == nil || def.Fold == nil || op.NumResults() == 0 {
		return false
	}
	consts := d.consts[:0]
	for i := 0; i < op.NumOperands(); i++ {
		consts = append(consts, constantOf(op.Operand(i)))
	}
	d.consts = consts
	frs := def.Fold(op, consts)
	clear(consts)
	if len(frs) != op.NumResults() {
		return false
	}
	inPlace := true
	for i, fr := range frs {
		if (fr.Value == nil) == (fr.Attr == nil) {
			return false // malformed: neither or both set
		}
		if fr.Value != op.Result(i) {
			inPlace = false
		}
	}
	if inPlace {
		d.rw.notifyModified(op)
		return true
	}
	vals := make([]*textir.Value, len(frs))
	var created []*textir.Operation
	for i, fr := range frs {
		t := op.Result(i).Type()
		switch {
		case fr.Value == op.Result(i):
			// A result folded to itself cannot be replaced while others are.
			d.undoConstants(created)
			return false
		case fr.Value != nil:
			if fr.Value.Type() != t {
				d.undoConstants(created)
				return false
			}
			vals[i] = fr.Value
		default:
			v, c := d.folder.getOrCreateConstant(op, fr.Attr, t, d.rw)
			if v == nil {
				d.undoConstants(created)
				return false
			}
			if c != nil {
				created = append(created, c)
			}
			vals[i] = v
		}
	}
	d.rw.ReplaceOp(op, vals)
	return true
}

func (d *driver) undoConstants(ops []*textir.Operation) {
	for _, c := range ops {
		if !c.HasResultUses() {
			d.rw.EraseOp(c)
		}
	}
}
