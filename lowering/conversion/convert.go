package conversion

import (
	"slices"
	"sort"
	"strconv"

	"github.com/recom-compiler/recom/lowering/rewrite"
	"github.com/recom-compiler/recom/textir"
)

// Mode is the kind of conversion.
type Mode uint8

const (
	// Partial: ops the target does not know stay; only explicitly illegal
	// ops left over are errors.
	Partial Mode = iota
	// Full: every op must end up legal.
	Full
)

// DefaultMaxDepth bounds the recursive legalization of ops created by
// patterns, to stop pattern cycles.
const DefaultMaxDepth = 32

// Options configures ApplyConversion.
type Options struct {
	Mode Mode
	// MaxDepth bounds recursive legalization (0: DefaultMaxDepth).
	MaxDepth int
	// ExpensiveChecks fingerprints the root around every pattern that
	// returns false, to catch changes made behind the rewriter's back (for
	// tests; costs a walk of the IR per failed match). Changes made through
	// the rewriter are always caught.
	ExpensiveChecks bool
	// Applied, when non-nil, receives pattern name → applications.
	Applied map[string]int
}

// ApplyPartialConversion legalizes root and the ops nested in it; see
// Options.Mode.
func ApplyPartialConversion(root *textir.Operation, target *Target, patterns []ConversionPattern, tc *TypeConverter) error {
	return ApplyConversion(root, target, patterns, tc, Options{Mode: Partial})
}

// ApplyFullConversion legalizes root and the ops nested in it, and fails
// unless all of them end up legal.
func ApplyFullConversion(root *textir.Operation, target *Target, patterns []ConversionPattern, tc *TypeConverter) error {
	return ApplyConversion(root, target, patterns, tc, Options{Mode: Full})
}

type matKind uint8

const (
	matNone   matKind = iota
	matSource         // new value → old type, for old users
	matTarget         // old value → new type, for converted users
)

type origin struct {
	pattern string
	from    string
	loc     textir.Location
}

type note struct {
	loc textir.Location
	msg string
}

type valType struct {
	v *textir.Value
	t textir.Type
}

type converter struct {
	target *Target
	tc     *TypeConverter
	opts   Options
	root   *textir.Operation
	rw     *ConversionRewriter

	byRoot map[string][]ConversionPattern
	anyOp  []ConversionPattern

	created  []*textir.Operation
	erased   map[*textir.Operation]struct{}
	casts    map[*textir.Operation]matKind
	castList []*textir.Operation
	mapping  map[*textir.Value]*textir.Value
	tmCache  map[valType]*textir.Operation
	origins  map[*textir.Operation]origin
	notes    map[*textir.Operation][]note
}

// ApplyConversion legalizes root and every op nested in it, in pre-order:
// an op that is not legal is handed to the patterns rooted at its name (and
// the any-op patterns) by decreasing benefit until one succeeds; the ops
// that pattern created are legalized in turn, up to MaxDepth. It returns a
// Diagnostic at the first op left illegal (in walk order), or at the first
// op still using a value whose type was converted (full mode).
func ApplyConversion(root *textir.Operation, target *Target, patterns []ConversionPattern, tc *TypeConverter, opts Options) error {
	if opts.MaxDepth <= 0 {
		opts.MaxDepth = DefaultMaxDepth
	}
	c := &converter{
		target:  target,
		tc:      tc,
		opts:    opts,
		root:    root,
		erased:  map[*textir.Operation]struct{}{},
		casts:   map[*textir.Operation]matKind{},
		mapping: map[*textir.Value]*textir.Value{},
		tmCache: map[valType]*textir.Operation{},
		origins: map[*textir.Operation]origin{},
		notes:   map[*textir.Operation][]note{},
	}
	c.rw = &ConversionRewriter{Rewriter: rewrite.NewRewriter(target.ctx, c), c: c}
	c.freeze(patterns)

	var ops []*textir.Operation
	root.Walk(func(op *textir.Operation) bool { ops = append(ops, op); return true })
	for _, op := range ops {
		if op != root && op.Block() == nil {
			continue
		}
		if err := c.legalize(op, 0); err != nil {
			return err
		}
	}
	c.cleanup()
	if err := c.firstIllegal(); err != nil {
		return err
	}
	if opts.Mode == Full {
		return c.firstUnresolved()
	}
	return nil
}

func (c *converter) freeze(patterns []ConversionPattern) {
	type ip struct {
		p   ConversionPattern
		seq int
	}
	srt := func(l []ip) []ConversionPattern {
		sort.SliceStable(l, func(i, j int) bool {
			if bi, bj := l[i].p.Benefit(), l[j].p.Benefit(); bi != bj {
				return bi > bj
			}
			return l[i].seq < l[j].seq
		})
		out := make([]ConversionPattern, len(l))
		for i, x := range l {
			out[i] = x.p
		}
		return out
	}
	byRoot := map[string][]ip{}
	var anyOp []ip
	for i, p := range patterns {
		if p == nil {
			continue
		}
		if p.Root() == "" {
			anyOp = append(anyOp, ip{p, i})
		} else {
			byRoot[p.Root()] = append(byRoot[p.Root()], ip{p, i})
		}
	}
	c.byRoot = map[string][]ConversionPattern{}
	for name, l := range byRoot {
		c.byRoot[name] = srt(append(l, anyOp...))
	}
	c.anyOp = srt(anyOp)
}

func (c *converter) patternsFor(name string) []ConversionPattern {
	if l, ok := c.byRoot[name]; ok {
		return l
	}
	return c.anyOp
}

// rewrite.Listener

func (c *converter) OpInserted(op *textir.Operation) { c.created = append(c.created, op) }
func (c *converter) OpModified(*textir.Operation)    {}
func (c *converter) OpReplaced(*textir.Operation, []*textir.Value) {
}
func (c *converter) OpErased(op *textir.Operation) { c.erased[op] = struct{}{} }

func (c *converter) dead(op *textir.Operation) bool {
	_, ok := c.erased[op]
	return ok || (op != c.root && op.Block() == nil)
}

func (c *converter) isLegal(op *textir.Operation) bool {
	legal, known := c.target.IsLegal(op)
	if known {
		return legal
	}
	return c.opts.Mode == Partial
}

func (c *converter) addNote(op *textir.Operation, loc textir.Location, msg string) {
	// Compare messages only: locations may hold slices (FusedLoc).
	if !slices.ContainsFunc(c.notes[op], func(n note) bool { return n.msg == msg }) {
		c.notes[op] = append(c.notes[op], note{loc, msg})
	}
}

// lookup follows replacements of converted type.
func (c *converter) lookup(v *textir.Value) *textir.Value {
	for i := 0; i < 64; i++ {
		w, ok := c.mapping[v]
		if !ok {
			break
		}
		v = w
	}
	return v
}

// remap returns the value a pattern sees for operand v.
func (c *converter) remap(v *textir.Value) *textir.Value {
	if v == nil {
		return nil
	}
	v = c.lookup(v)
	if c.tc == nil {
		return v
	}
	t, ok := c.tc.ConvertType(v.Type())
	if !ok || t == v.Type() {
		return v
	}
	if m := c.targetMaterialize(v, t); m != nil {
		return m
	}
	return v
}

func (c *converter) targetMaterialize(v *textir.Value, t textir.Type) *textir.Value {
	k := valType{v, t}
	if op, ok := c.tmCache[k]; ok && !c.dead(op) {
		_, out, _ := oneToOneCast(op)
		return out
	}
	b := c.rw.Builder()
	saveBlock, savePos := b.Block, b.Pos
	defer func() { b.Block, b.Pos = saveBlock, savePos }()
	setInsertionAfterDef(b, v)
	fn := defaultMaterialize
	if c.tc.TargetMaterialization != nil {
		fn = c.tc.TargetMaterialization
	}
	m := fn(b, t, []*textir.Value{v}, locOf(v))
	if m == nil || m.DefiningOp() == nil {
		return nil
	}
	if d := m.DefiningOp(); isCastOf(d, v) {
		c.casts[d] = matTarget
		c.castList = append(c.castList, d)
		c.tmCache[k] = d
	}
	return m
}

// sourceMaterialize builds, at the rewriter's insertion point, a value of
// the old type t for users of a value replaced by v; the result maps to v.
func (c *converter) sourceMaterialize(v *textir.Value, t textir.Type, loc textir.Location) *textir.Value {
	fn := defaultMaterialize
	if c.tc != nil && c.tc.SourceMaterialization != nil {
		fn = c.tc.SourceMaterialization
	}
	m := fn(c.rw.Builder(), t, []*textir.Value{v}, loc)
	if m == nil || m.Type() != t {
		c.rw.SetErr(textir.Errorf(loc, "failed to materialize conversion from '%s' to '%s'", v.Type(), t))
		return nil
	}
	c.mapping[m] = v
	if d := m.DefiningOp(); isCastOf(d, v) {
		c.casts[d] = matSource
		c.castList = append(c.castList, d)
	}
	return m
}

// isCastOf reports whether op is a cast of v alone: a materialization the
// conversion tracks.
func isCastOf(op *textir.Operation, v *textir.Value) bool {
	in, _, ok := oneToOneCast(op)
	return ok && in == v
}

func (c *converter) legalize(op *textir.Operation, depth int) error {
	if c.dead(op) || c.casts[op] != matNone || c.isLegal(op) {
		return nil
	}
	if depth > c.opts.MaxDepth {
		c.addNote(op, op.DiagLoc(), "legalization stopped at depth "+strconv.Itoa(c.opts.MaxDepth)+": the patterns may form a cycle")
		return nil
	}
	for _, p := range c.patternsFor(op.Name()) {
		operands := make([]*textir.Value, op.NumOperands())
		for i := range operands {
			operands[i] = c.remap(op.Operand(i))
		}
		c.rw.SetInsertionPoint(op)
		saved := c.created
		c.created = nil
		before := c.rw.Changes()
		var fp uint64
		if c.opts.ExpensiveChecks {
			fp = rewrite.Fingerprint(c.root)
		}
		ok := p.MatchAndRewrite(op, operands, c.rw)
		created := c.created
		c.created = saved
		if err := c.rw.Err(); err != nil {
			return err
		}
		if !ok {
			if c.rw.Changes() != before || (c.opts.ExpensiveChecks && rewrite.Fingerprint(c.root) != fp) {
				return op.Errorf("pattern '%s' returned failure but IR did change", p.Name())
			}
			continue
		}
		if c.opts.Applied != nil {
			c.opts.Applied[p.Name()]++
		}
		o := origin{pattern: p.Name(), from: op.Name(), loc: op.DiagLoc()}
		var todo []*textir.Operation
		for _, n := range created {
			if c.dead(n) || c.casts[n] != matNone || n == op {
				continue
			}
			if _, seen := c.origins[n]; !seen {
				c.origins[n] = o
			}
			n.Walk(func(m *textir.Operation) bool { todo = append(todo, m); return true })
		}
		for _, n := range todo {
			if err := c.legalize(n, depth+1); err != nil {
				return err
			}
		}
		if !c.dead(op) && !c.isLegal(op) {
			c.addNote(op, op.DiagLoc(), "pattern '"+p.Name()+"' applied but left the operation illegal")
			return c.legalize(op, depth+1)
		}
		return nil
	}
	return nil
}

// cleanup erases the materializations nobody uses.
func (c *converter) cleanup() {
	for changed := true; changed; {
		changed = false
		for i := len(c.castList) - 1; i >= 0; i-- {
			op := c.castList[i]
			if !c.dead(op) && !op.HasResultUses() {
				c.rw.EraseOp(op)
				changed = true
			}
		}
	}
}

func (c *converter) firstIllegal() error {
	var bad *textir.Operation
	c.root.Walk(func(op *textir.Operation) bool {
		if bad != nil {
			return false
		}
		if c.casts[op] != matNone {
			return true
		}
		if c.opts.Mode == Full && !c.isLegal(op) || c.opts.Mode == Partial && c.target.IsIllegal(op) {
			bad = op
			return false
		}
		return true
	})
	if bad == nil {
		return nil
	}
	msg := "failed to legalize operation '" + bad.Name() + "'"
	if c.opts.Mode == Partial {
		msg += " that was explicitly marked illegal"
	}
	d := textir.Errorf(bad.DiagLoc(), "%s", msg)
	if o, ok := c.origins[bad]; ok {
		d.AttachNote(o.loc, "created by pattern '%s' while legalizing operation '%s'", o.pattern, o.from)
	}
	for _, n := range c.notes[bad] {
		d.AttachNote(n.loc, "%s", n.msg)
	}
	return d
}

// firstUnresolved reports the first op (in walk order) that still bridges
// old and new types through a materialization.
func (c *converter) firstUnresolved() error {
	live := false
	for _, op := range c.castList {
		if !c.dead(op) {
			live = true
			break
		}
	}
	if !live {
		return nil
	}
	var err *textir.Diagnostic
	c.root.Walk(func(op *textir.Operation) bool {
		if err != nil {
			return false
		}
		if k := c.casts[op]; k == matTarget && !c.dead(op) {
			v, out, _ := oneToOneCast(op)
			err = textir.Errorf(diagLocOf(v), "failed to legalize a value of type '%s': it has a user converted to '%s'", v.Type(), out.Type())
			for u := range out.Users() {
				err.AttachNote(u.DiagLoc(), "see user '%s' here", u.Name())
				break
			}
			return false
		}
		for i := 0; i < op.NumOperands(); i++ {
			d := op.Operand(i).DefiningOp()
			if d == nil || c.casts[d] != matSource || c.dead(d) {
				continue
			}
			in, out, _ := oneToOneCast(d)
			err = textir.Errorf(op.DiagLoc(), "failed to legalize operation '%s': operand #%d still has type '%s', whose value was converted to '%s'",
				op.Name(), i, out.Type(), in.Type())
			err.AttachNote(d.DiagLoc(), "value converted here")
			return false
		}
		return true
	})
	if err == nil {
		return nil
	}
	return err
}

func diagLocOf(v *textir.Value) textir.Location {
	if d := v.DefiningOp(); d != nil {
		return d.DiagLoc()
	}
	if p := v.OwnerBlock().ParentOp(); p != nil {
		return p.DiagLoc()
	}
	return textir.UnknownLoc{}
}
