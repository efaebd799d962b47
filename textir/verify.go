package textir

import "fmt"

// Verify checks op and everything nested in it against the registered op
// definitions, region rules, dominance and symbol tables. It returns the
// first failure as a *Diagnostic (built with Operation.Errorf, so it names
// the op and the TensorFlow node and points at the op's file position), or
// nil when the IR is valid.
//
// Per op, in order: registration (unless ctx.AllowUnregistered); operand,
// result, region and successor counts; operand and result type constraints;
// required attributes and their kinds; traits (Terminator, block
// terminators, SingleBlock, IsolatedFromAbove, successors, SymbolTable,
// Symbol); the op's Verify hook; dominance of its operands; its regions; its
// VerifyRegions hook.
//
// Regions of ops with the GraphRegion trait and of unregistered ops are
// graph regions: they need neither dominance nor terminators.
//
// Verification is linear in the size of the IR. It writes scratch
// positions into the ops inside op (not into op's siblings or ancestors), so
// disjoint subtrees, such as the functions of a module, may be verified
// concurrently, but one op must not be verified by two goroutines at once.
func Verify(ctx *Context, op *Operation) error {
	if op == nil {
		return Errorf(UnknownLoc{}, "cannot verify a nil operation")
	}
	v := &verifier{ctx: ctx, root: op}
	for p := op; p != nil && p.block != nil; p = p.ParentOp() {
		v.outer = append(v.outer, p.block)
	}
	if d := v.verifyOp(op); d != nil {
		return d
	}
	return nil
}

type verifier struct {
	ctx  *Context
	root *Operation
	// Ops of the SSA blocks inside root are numbered (Operation.order)
	// when the walk enters their block. The blocks enclosing root (outer)
	// are shared with whoever else may be verifying a sibling subtree, so
	// they are numbered lazily in the verifier's own map instead.
	outer    []*Block
	order    map[*Operation]int32
	numbered map[*Block]bool
	// doms holds dominator trees of multi-block SSA regions, built lazily.
	doms map[*Region]*DomTree
}

// LookupAttr returns the inherent or discardable attribute named name: it
// looks in the op's properties (when they are a DictAttr) first, then in the
// discardable attributes. It returns nil when neither has it.
func (op *Operation) LookupAttr(name string) Attribute {
	if d, ok := op.props.(DictAttr); ok {
		if a := d.Get(name); a != nil {
			return a
		}
	}
	return op.Attr(name)
}

// isSSARegionOwner reports whether the regions of op follow SSA dominance:
// op is registered and not a GraphRegion op. Unregistered ops may hold graph
// regions, so they are treated as such (as MLIR does).
func isSSARegionOwner(op *Operation) bool {
	return op != nil && op.info.Def != nil && op.info.Def.Traits&GraphRegion == 0
}

// needsTerminator reports whether the blocks of op's regions must end in a
// terminator.
func needsTerminator(op *Operation) bool {
	return isSSARegionOwner(op) && op.info.Def.Traits&NoTerminator == 0
}

func plural(n int, noun string) string {
	if n == 1 {
		return noun
	}
	return noun + "s"
}

func checkArity(op *Operation, a Arity, n int, noun string) *Diagnostic {
	if a.Allows(n) {
		return nil
	}
	var want string
	switch {
	case a.Max == a.Min:
		want = fmt.Sprintf("%d %s", a.Min, plural(a.Min, noun))
	case a.Max < 0:
		want = fmt.Sprintf("%d or more %s", a.Min, noun+"s")
	default:
		want = fmt.Sprintf("between %d and %d %s", a.Min, a.Max, noun+"s")
	}
	return op.Errorf("expected %s, but found %d", want, n)
}

func checkTypes(op *Operation, cs []TypeConstraint, n int, get func(int) Type, what string) *Diagnostic {
	if len(cs) == 0 {
		return nil
	}
	for i := 0; i < n; i++ {
		c := cs[min(i, len(cs)-1)]
		t := get(i)
		if t == nil {
			return op.Errorf("%s #%d has no type", what, i)
		}
		if c.Pred != nil && !c.Pred(t) {
			return op.Errorf("%s #%d must be %s, but got '%s'", what, i, c.Desc, t)
		}
	}
	return nil
}

// verifyOp verifies op, its operands' dominance and everything nested.
func (v *verifier) verifyOp(op *Operation) *Diagnostic {
	def := op.info.Def
	if def == nil {
		if !v.ctx.AllowsUnregisteredOp(op.info) {
			return op.Errorf("is unregistered (use --allow-unregistered-dialect)")
		}
	} else {
		if d := v.verifyDecl(op, def); d != nil {
			return d
		}
		if d := v.verifyTraits(op, def); d != nil {
			return d
		}
		if def.Verify != nil {
			if err := def.Verify(op); err != nil {
				return asDiag(op, err)
			}
		}
	}
	if op != v.root {
		if d := v.verifyOperandDominance(op); d != nil {
			return d
		}
	}
	ssa := isSSARegionOwner(op)
	for _, r := range op.regions {
		for _, b := range r.blocks {
			if ssa {
				i := int32(0)
				for o := b.first; o != nil; o = o.next {
					o.order = i
					i++
				}
			}
			for o := b.first; o != nil; o = o.next {
				if d := v.verifyOp(o); d != nil {
					return d
				}
			}
		}
	}
	if def != nil && def.VerifyRegions != nil {
		if err := def.VerifyRegions(op); err != nil {
			return asDiag(op, err)
		}
	}
	return nil
}

// asDiag turns a hook's error into a diagnostic (hooks should return
// op.Errorf(...); other errors are wrapped).
func asDiag(op *Operation, err error) *Diagnostic {
	if d, ok := err.(*Diagnostic); ok && d != nil {
		return d
	}
	return op.Errorf("%v", err)
}

// verifyDecl checks the declarative parts of the definition: counts, type
// constraints and attributes.
func (v *verifier) verifyDecl(op *Operation, def *OpDef) *Diagnostic {
	if d := checkArity(op, def.Operands, len(op.operands), "operand"); d != nil {
		return d
	}
	if d := checkArity(op, def.Results, len(op.results), "result"); d != nil {
		return d
	}
	if d := checkArity(op, def.Regions, len(op.regions), "region"); d != nil {
		return d
	}
	if d := checkArity(op, def.Successors, len(op.successors), "successor"); d != nil {
		return d
	}
	for i := range op.operands {
		if op.operands[i].val == nil {
			return op.Errorf("operand #%d is null", i)
		}
	}
	if d := checkTypes(op, def.OperandTypes, len(op.operands), func(i int) Type { return op.operands[i].val.typ }, "operand"); d != nil {
		return d
	}
	if d := checkTypes(op, def.ResultTypes, len(op.results), func(i int) Type { return op.results[i].typ }, "result"); d != nil {
		return d
	}
	for _, spec := range def.Attrs {
		a := op.LookupAttr(spec.Name)
		if a == nil {
			if !spec.Optional {
				return op.Errorf("requires attribute '%s'", spec.Name)
			}
			continue
		}
		if !spec.Kind.Matches(a) {
			return op.Errorf("attribute '%s' failed to satisfy constraint: %s", spec.Name, spec.Kind)
		}
	}
	return nil
}

// verifyTraits checks the structural traits of a registered op.
func (v *verifier) verifyTraits(op *Operation, def *OpDef) *Diagnostic {
	tr := def.Traits
	if tr&Terminator != 0 && op.block != nil && op.next != nil {
		return op.Errorf("must be the last operation in the parent block")
	}
	if needsTerminator(op) {
		for ri, r := range op.regions {
			for bi, b := range r.blocks {
				if b.last == nil {
					return op.Errorf("empty block: expect at least a terminator (region #%d, block #%d)", ri, bi)
				}
				last := b.last
				if last.info.Def != nil && last.info.Def.Traits&Terminator == 0 {
					return last.Errorf("block with no terminator, has '%s' as its last operation", last.Name())
				}
			}
		}
	}
	if tr&SingleBlock != 0 {
		for ri, r := range op.regions {
			if len(r.blocks) > 1 {
				return op.Errorf("expects region #%d to have 0 or 1 blocks, but found %d", ri, len(r.blocks))
			}
		}
	}
	if tr&IsolatedFromAbove != 0 {
		if d := verifyIsolated(op); d != nil {
			return d
		}
	}
	for i, s := range op.successors {
		if s == nil {
			return op.Errorf("successor #%d is null", i)
		}
		if op.block == nil || s.parent != op.block.parent {
			return op.Errorf("branching to block of a different region (successor #%d)", i)
		}
	}
	if tr&Symbol != 0 {
		if _, ok := op.LookupAttr("sym_name").(StringAttr); !ok {
			return op.Errorf("requires string attribute 'sym_name'")
		}
	}
	if a := op.LookupAttr("sym_visibility"); a != nil {
		s, ok := a.(StringAttr)
		if !ok || (s.Value != "public" && s.Value != "private" && s.Value != "nested") {
			return op.Errorf(`visibility expected to be one of ["public", "private", "nested"], but got %s`, AttrString(a))
		}
	}
	if tr&SymbolTable != 0 {
		if d := verifySymbolTable(op); d != nil {
			return d
		}
	}
	return nil
}

// verifyIsolated checks that nothing inside op's regions uses a value
// defined outside op. Regions of nested IsolatedFromAbove ops are skipped:
// their own check covers them, which keeps the whole verification linear.
func verifyIsolated(iso *Operation) *Diagnostic {
	var stack []*Region
	stack = append(stack, iso.regions...)
	for len(stack) > 0 {
		r := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		for _, b := range r.blocks {
			for o := b.first; o != nil; o = o.next {
				for i := range o.operands {
					val := o.operands[i].val
					if val == nil || definedInside(val, iso) {
						continue
					}
					d := o.Errorf("using value defined outside the region (operand #%d)", i)
					noteDefinition(d, val, i)
					d.AttachNote(iso.DiagLoc(), "required by region isolation constraints")
					return d
				}
				if o.info.Def != nil && o.info.Def.Traits&IsolatedFromAbove != 0 {
					continue
				}
				stack = append(stack, o.regions...)
			}
		}
	}
	return nil
}

// definedInside reports whether val is defined in one of op's regions.
func definedInside(val *Value, op *Operation) bool {
	b := val.OwnerBlock()
	if b == nil {
		return false
	}
	for p := b.ParentOp(); p != nil; p = p.ParentOp() {
		if p == op {
			return true
		}
	}
	return false
}

// noteDefinition attaches a note saying where val is defined.
func noteDefinition(d *Diagnostic, val *Value, operand int) {
	if def := val.def; def != nil {
		d.AttachNote(def.DiagLoc(), "operand #%d is result #%d of '%s', defined here", operand, val.index, def.Name())
		return
	}
	b := val.block
	if b == nil || b.ParentOp() == nil {
		d.AttachNote(nil, "operand #%d is an argument of a detached block", operand)
		return
	}
	p := b.ParentOp()
	d.AttachNote(p.DiagLoc(), "operand #%d is argument #%d of block #%d of a region of '%s', defined here",
		operand, val.index, blockIndex(b), p.Name())
}

func blockIndex(b *Block) int {
	if b.parent == nil {
		return -1
	}
	for i, x := range b.parent.blocks {
		if x == b {
			return i
		}
	}
	return -1
}
