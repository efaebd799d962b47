package textir

import (
	"iter"
	"slices"
	"sort"
)

// Value is an SSA value: an operation result or a block argument.
type Value struct {
	typ   Type
	uses  *OpOperand // head of the intrusive use list
	def   *Operation // defining op; nil for block arguments
	block *Block     // owning block, for block arguments
	index int        // result number or argument number
	loc   Location   // block argument's location; nil: unknown
}

// Type returns the value's type.
func (v *Value) Type() Type { return v.typ }

// SetType changes the value's type in place.
func (v *Value) SetType(t Type) { v.typ = t }

// Loc returns the value's location: a block argument's own location
// (UnknownLoc when unset), or the defining op's location for a result.
func (v *Value) Loc() Location {
	if v.def != nil {
		return v.def.loc
	}
	if v.loc == nil {
		return UnknownLoc{}
	}
	return v.loc
}

// SetLoc sets a block argument's location (printed with debug info).
// It has no effect on op results, whose location is their op's.
func (v *Value) SetLoc(l Location) {
	if v.def == nil {
		v.loc = l
	}
}

// DefiningOp returns the op that defines v, or nil for a block argument.
func (v *Value) DefiningOp() *Operation { return v.def }

// IsBlockArg reports whether v is a block argument.
func (v *Value) IsBlockArg() bool { return v.def == nil }

// OwnerBlock returns the block holding v's definition (the argument's block
// or the defining op's block).
func (v *Value) OwnerBlock() *Block {
	if v.def != nil {
		return v.def.block
	}
	return v.block
}

// Index returns the result number or the argument number.
func (v *Value) Index() int { return v.index }

// Uses iterates over v's uses. It is safe to change the use being visited
// (set it to another value); other changes to v's uses during the walk are not.
func (v *Value) Uses() iter.Seq[*OpOperand] {
	return func(yield func(*OpOperand) bool) {
		for u := v.uses; u != nil; {
			next := u.next
			if !yield(u) {
				return
			}
			u = next
		}
	}
}

// Users iterates over the ops that use v (an op using v twice appears twice).
func (v *Value) Users() iter.Seq[*Operation] {
	return func(yield func(*Operation) bool) {
		for u := range v.Uses() {
			if !yield(u.owner) {
				return
			}
		}
	}
}

// HasUses reports whether v has any use.
func (v *Value) HasUses() bool { return v.uses != nil }

// HasOneUse reports whether v has exactly one use.
func (v *Value) HasOneUse() bool { return v.uses != nil && v.uses.next == nil }

// NumUses counts the uses of v.
func (v *Value) NumUses() int {
	n := 0
	for u := v.uses; u != nil; u = u.next {
		n++
	}
	return n
}

// ReplaceAllUsesWith makes every use of v use w instead.
func (v *Value) ReplaceAllUsesWith(w *Value) {
	if v == w {
		return
	}
	for v.uses != nil {
		v.uses.Set(w)
	}
}

// ReplaceUsesWithIf replaces the uses of v for which keep returns true.
func (v *Value) ReplaceUsesWithIf(w *Value, pred func(*OpOperand) bool) {
	if v == w {
		return
	}
	for u := range v.Uses() {
		if pred(u) {
			u.Set(w)
		}
	}
}

// OpOperand is one use of a value by an operation.
type OpOperand struct {
	val   *Value
	owner *Operation
	index int
	next  *OpOperand
	prev  **OpOperand // the pointer that points to this operand
}

// Get returns the value used.
func (o *OpOperand) Get() *Value { return o.val }

// Owner returns the op that holds this operand.
func (o *OpOperand) Owner() *Operation { return o.owner }

// Index returns the operand number in its owner.
func (o *OpOperand) Index() int { return o.index }

// Set makes the operand use v.
func (o *OpOperand) Set(v *Value) {
	o.unlink()
	o.link(v)
}

func (o *OpOperand) link(v *Value) {
	o.val = v
	if v == nil {
		return
	}
	o.next = v.uses
	if v.uses != nil {
		v.uses.prev = &o.next
	}
	o.prev = &v.uses
	v.uses = o
}

func (o *OpOperand) unlink() {
	if o.val == nil {
		return
	}
	*o.prev = o.next
	if o.next != nil {
		o.next.prev = o.prev
	}
	o.val, o.next, o.prev = nil, nil, nil
}

// OpInfo identifies an operation name within a Context: its dialect and its
// definition (nil for an unregistered op). It is shared by all ops of a name.
type OpInfo struct {
	Name    string // "dialect.op"
	Dialect string // the part before the first '.'
	Def     *OpDef // nil when unregistered
}

// Operation is an MLIR-style operation.
type Operation struct {
	info       *OpInfo
	operands   []OpOperand
	results    []Value
	props      Attribute // properties <{...}>, nil if none
	attrs      []NamedAttribute
	successors []*Block
	regions    []*Region
	loc        Location
	srcLoc     Location // where the parser read it; never printed
	block      *Block
	prev, next *Operation
	order      int32 // position in its block; scratch written by the verifier (verify.go)
}

// OperationState collects what is needed to create an operation.
type OperationState struct {
	Name        string
	Loc         Location
	Operands    []*Value
	ResultTypes []Type
	Props       Attribute
	Attrs       []NamedAttribute
	Successors  []*Block
	Regions     []*Region // taken over by the new op
	NumRegions  int       // empty regions added after Regions
}

// AddAttr appends an attribute to the state.
func (s *OperationState) AddAttr(name string, a Attribute) {
	s.Attrs = append(s.Attrs, NamedAttribute{name, a})
}

// Create builds a detached operation from the state. The name is resolved in
// ctx (registered or not; the verifier decides whether that is allowed).
func (ctx *Context) Create(s *OperationState) *Operation {
	op := &Operation{info: ctx.OpInfo(s.Name), loc: s.Loc, props: s.Props}
	if op.loc == nil {
		op.loc = UnknownLoc{}
	}
	op.setOperands(s.Operands)
	op.results = make([]Value, len(s.ResultTypes))
	for i, t := range s.ResultTypes {
		op.results[i] = Value{typ: t, def: op, index: i}
	}
	if len(s.Attrs) > 0 {
		op.attrs = NewDictAttr(s.Attrs).Entries
	}
	op.successors = slices.Clone(s.Successors)
	for _, r := range s.Regions {
		op.appendRegion(r)
	}
	for i := 0; i < s.NumRegions; i++ {
		op.appendRegion(&Region{})
	}
	return op
}

func (op *Operation) appendRegion(r *Region) {
	r.parent = op
	op.regions = append(op.regions, r)
}

// Name returns the op's full name, "dialect.op".
func (op *Operation) Name() string { return op.info.Name }

// Info returns the op's name info.
func (op *Operation) Info() *OpInfo { return op.info }

// Def returns the op's definition, nil when unregistered.
func (op *Operation) Def() *OpDef { return op.info.Def }

// Dialect returns the op's dialect namespace.
func (op *Operation) Dialect() string { return op.info.Dialect }

// HasTrait reports whether the op is registered with trait t.
func (op *Operation) HasTrait(t Trait) bool { return op.info.Def != nil && op.info.Def.Traits&t != 0 }

// Loc returns the op's location.
func (op *Operation) Loc() Location { return op.loc }

// SetLoc sets the op's location.
func (op *Operation) SetLoc(l Location) { op.loc = l }

// SourceLoc returns where the parser read the op (nil if built in memory).
func (op *Operation) SourceLoc() Location { return op.srcLoc }

// SetSourceLoc records where the op was read.
func (op *Operation) SetSourceLoc(l Location) { op.srcLoc = l }

// DiagLoc returns the location diagnostics about op should point at: a file
// position where one is known (from its location or from where it was
// parsed), fused with the op's name location so both show.
func (op *Operation) DiagLoc() Location {
	if _, ok := FileLineCol(op.loc); ok || op.srcLoc == nil {
		return op.loc
	}
	if _, isUnknown := op.loc.(UnknownLoc); isUnknown {
		return op.srcLoc
	}
	return FusedLoc{Locs: []Location{op.srcLoc, op.loc}}
}

// Errorf returns an error diagnostic about op: "'name' op message", with the
// TensorFlow node name (from a NameLoc) when the op has one.
func (op *Operation) Errorf(format string, args ...any) *Diagnostic {
	return op.diag(SevError, format, args...)
}

// Warningf returns a warning diagnostic about op.
func (op *Operation) Warningf(format string, args ...any) *Diagnostic {
	return op.diag(SevWarning, format, args...)
}

// Remarkf returns a remark diagnostic about op.
func (op *Operation) Remarkf(format string, args ...any) *Diagnostic {
	return op.diag(SevRemark, format, args...)
}

func (op *Operation) diag(sev Severity, format string, args ...any) *Diagnostic {
	d := Errorf(op.DiagLoc(), format, args...)
	d.Severity = sev
	prefix := "'" + op.Name() + "' op "
	if name, ok := LocName(op.loc); ok {
		prefix = "'" + op.Name() + "' op (node " + Quote(name) + ") "
	}
	d.Message = prefix + d.Message
	return d
}

// NumOperands returns the operand count.
func (op *Operation) NumOperands() int { return len(op.operands) }

// Operand returns operand i's value.
func (op *Operation) Operand(i int) *Value { return op.operands[i].val }

// OpOperand returns operand i's use.
func (op *Operation) OpOperand(i int) *OpOperand { return &op.operands[i] }

// Operands returns the operand values (a fresh slice).
func (op *Operation) Operands() []*Value {
	vs := make([]*Value, len(op.operands))
	for i := range op.operands {
		vs[i] = op.operands[i].val
	}
	return vs
}

// SetOperand makes operand i use v.
func (op *Operation) SetOperand(i int, v *Value) { op.operands[i].Set(v) }

// SetOperands replaces all operands.
func (op *Operation) SetOperands(vs []*Value) {
	for i := range op.operands {
		op.operands[i].unlink()
	}
	op.setOperands(vs)
}

func (op *Operation) setOperands(vs []*Value) {
	op.operands = make([]OpOperand, len(vs))
	for i, v := range vs {
		o := &op.operands[i]
		o.owner, o.index = op, i
		o.link(v)
	}
}

// NumResults returns the result count.
func (op *Operation) NumResults() int { return len(op.results) }

// Result returns result i.
func (op *Operation) Result(i int) *Value { return &op.results[i] }

// Results returns the results (a fresh slice).
func (op *Operation) Results() []*Value {
	vs := make([]*Value, len(op.results))
	for i := range op.results {
		vs[i] = &op.results[i]
	}
	return vs
}

// ResultTypes returns the result types.
func (op *Operation) ResultTypes() []Type {
	ts := make([]Type, len(op.results))
	for i := range op.results {
		ts[i] = op.results[i].typ
	}
	return ts
}

// OperandTypes returns the operand types.
func (op *Operation) OperandTypes() []Type {
	ts := make([]Type, len(op.operands))
	for i := range op.operands {
		ts[i] = op.operands[i].val.typ
	}
	return ts
}

// HasResultUses reports whether any result is used.
func (op *Operation) HasResultUses() bool {
	for i := range op.results {
		if op.results[i].uses != nil {
			return true
		}
	}
	return false
}

// ReplaceAllUsesWith replaces each result's uses with the matching value.
func (op *Operation) ReplaceAllUsesWith(vs []*Value) {
	for i := range op.results {
		op.results[i].ReplaceAllUsesWith(vs[i])
	}
}

// Props returns the op's properties (nil if none).
func (op *Operation) Props() Attribute { return op.props }

// SetProps sets the op's properties.
func (op *Operation) SetProps(p Attribute) { op.props = p }

// Attrs returns the discardable attributes, sorted by name. The slice must
// not be modified.
func (op *Operation) Attrs() []NamedAttribute { return op.attrs }

// Attr returns the attribute named name, or nil.
func (op *Operation) Attr(name string) Attribute {
	i := sort.Search(len(op.attrs), func(i int) bool { return op.attrs[i].Name >= name })
	if i < len(op.attrs) && op.attrs[i].Name == name {
		return op.attrs[i].Value
	}
	return nil
}

// SetAttr sets (or adds) an attribute, keeping the list sorted.
func (op *Operation) SetAttr(name string, a Attribute) {
	i := sort.Search(len(op.attrs), func(i int) bool { return op.attrs[i].Name >= name })
	if i < len(op.attrs) && op.attrs[i].Name == name {
		op.attrs[i].Value = a
		return
	}
	op.attrs = slices.Insert(op.attrs, i, NamedAttribute{name, a})
}

// RemoveAttr removes an attribute; it reports whether one was there.
func (op *Operation) RemoveAttr(name string) bool {
	i := sort.Search(len(op.attrs), func(i int) bool { return op.attrs[i].Name >= name })
	if i < len(op.attrs) && op.attrs[i].Name == name {
		op.attrs = slices.Delete(op.attrs, i, i+1)
		return true
	}
	return false
}

// SetAttrs replaces all attributes.
func (op *Operation) SetAttrs(as []NamedAttribute) { op.attrs = NewDictAttr(as).Entries }

// Successors returns the successor blocks (the slice must not be modified).
func (op *Operation) Successors() []*Block { return op.successors }

// SetSuccessor sets successor i.
func (op *Operation) SetSuccessor(i int, b *Block) { op.successors[i] = b }

// NumRegions returns the region count.
func (op *Operation) NumRegions() int { return len(op.regions) }

// Region returns region i.
func (op *Operation) Region(i int) *Region { return op.regions[i] }

// Regions returns the regions (the slice must not be modified).
func (op *Operation) Regions() []*Region { return op.regions }

// Block returns the block holding op, nil if detached.
func (op *Operation) Block() *Block { return op.block }

// ParentOp returns the op whose region holds op, nil at the top.
func (op *Operation) ParentOp() *Operation {
	if op.block == nil || op.block.parent == nil {
		return nil
	}
	return op.block.parent.parent
}

// ParentRegion returns the region holding op.
func (op *Operation) ParentRegion() *Region {
	if op.block == nil {
		return nil
	}
	return op.block.parent
}

// Next returns the op after op in its block.
func (op *Operation) Next() *Operation { return op.next }

// Prev returns the op before op in its block.
func (op *Operation) Prev() *Operation { return op.prev }

// IsAncestor reports whether op is other or contains it.
func (op *Operation) IsAncestor(other *Operation) bool {
	for o := other; o != nil; o = o.ParentOp() {
		if o == op {
			return true
		}
	}
	return false
}

// Remove unlinks op from its block without destroying it.
func (op *Operation) Remove() {
	b := op.block
	if b == nil {
		return
	}
	if op.prev != nil {
		op.prev.next = op.next
	} else {
		b.first = op.next
	}
	if op.next != nil {
		op.next.prev = op.prev
	} else {
		b.last = op.prev
	}
	op.prev, op.next, op.block = nil, nil, nil
	b.numOps--
}

// DropAllUses drops op's operands and the operands of everything nested in
// it, so that op no longer uses any value.
func (op *Operation) DropAllReferences() {
	for i := range op.operands {
		op.operands[i].unlink()
	}
	for _, r := range op.regions {
		for _, b := range r.blocks {
			for o := b.first; o != nil; o = o.next {
				o.DropAllReferences()
			}
		}
	}
}

// Erase removes op from its block and drops its references. Its results
// must have no uses left.
func (op *Operation) Erase() {
	op.Remove()
	op.DropAllReferences()
}

// MoveBefore moves op right before other (in other's block).
func (op *Operation) MoveBefore(other *Operation) {
	op.Remove()
	other.block.insertBefore(op, other)
}

// MoveAfter moves op right after other.
func (op *Operation) MoveAfter(other *Operation) {
	op.Remove()
	other.block.insertBefore(op, other.next)
}

// Walk visits op and every op nested in it, in pre-order. It is safe for fn
// to erase or move the op it is visiting but not others. Returning false from
// fn skips the op's regions.
func (op *Operation) Walk(fn func(*Operation) bool) {
	if !fn(op) {
		return
	}
	for _, r := range op.regions {
		for _, b := range r.blocks {
			for o := b.first; o != nil; {
				next := o.next
				o.Walk(fn)
				o = next
			}
		}
	}
}

// WalkPost visits every op nested in op and then op itself (post-order).
// fn may erase the op it visits.
func (op *Operation) WalkPost(fn func(*Operation)) {
	for _, r := range op.regions {
		for _, b := range r.blocks {
			for o := b.first; o != nil; {
				next := o.next
				o.WalkPost(fn)
				o = next
			}
		}
	}
	fn(op)
}

// Clone returns a deep copy of op (regions included), detached. Operands
// defined outside op are mapped through m when present and kept otherwise;
// m is filled with the mapping of op's results and nested values.
func (ctx *Context) Clone(op *Operation, m map[*Value]*Value) *Operation {
	if m == nil {
		m = map[*Value]*Value{}
	}
	blockMap := map[*Block]*Block{}
	n := cloneOp(op, m, blockMap)
	// A use that comes before its definition (graph regions allow it) was
	// cloned while its value had no copy yet: map it now, so the clone
	// never refers to the original's values.
	n.Walk(func(o *Operation) bool {
		for i := range o.operands {
			if w, ok := m[o.operands[i].val]; ok {
				o.SetOperand(i, w)
			}
		}
		return true
	})
	return n
}

func cloneOp(op *Operation, m map[*Value]*Value, bm map[*Block]*Block) *Operation {
	n := &Operation{info: op.info, loc: op.loc, srcLoc: op.srcLoc, props: op.props, attrs: slices.Clone(op.attrs)}
	vs := op.Operands()
	for i, v := range vs {
		if w, ok := m[v]; ok {
			vs[i] = w
		}
	}
	n.setOperands(vs)
	n.results = make([]Value, len(op.results))
	for i := range op.results {
		n.results[i] = Value{typ: op.results[i].typ, def: n, index: i}
		m[&op.results[i]] = &n.results[i]
	}
	// Create all blocks first so successors can be mapped.
	for _, r := range op.regions {
		nr := &Region{}
		n.appendRegion(nr)
		for _, b := range r.blocks {
			nb := &Block{}
			for _, a := range b.args {
				na := nb.AddArgument(a.typ)
				m[a] = na
			}
			nr.AppendBlock(nb)
			bm[b] = nb
		}
	}
	for ri, r := range op.regions {
		for bi, b := range r.blocks {
			nb := n.regions[ri].blocks[bi]
			for o := b.first; o != nil; o = o.next {
				nb.Append(cloneOp(o, m, bm))
			}
		}
	}
	n.successors = make([]*Block, len(op.successors))
	for i, s := range op.successors {
		if t, ok := bm[s]; ok {
			n.successors[i] = t
		} else {
			n.successors[i] = s
		}
	}
	return n
}

// Block is a list of operations with arguments.
type Block struct {
	args        []*Value
	first, last *Operation
	numOps      int
	parent      *Region
}

// NewBlock returns an empty block with arguments of the given types.
func NewBlock(argTypes ...Type) *Block {
	b := &Block{}
	for _, t := range argTypes {
		b.AddArgument(t)
	}
	return b
}

// Args returns the block arguments (the slice must not be modified).
func (b *Block) Args() []*Value { return b.args }

// Arg returns argument i.
func (b *Block) Arg(i int) *Value { return b.args[i] }

// NumArgs returns the argument count.
func (b *Block) NumArgs() int { return len(b.args) }

// AddArgument appends an argument of type t.
func (b *Block) AddArgument(t Type) *Value {
	v := &Value{typ: t, block: b, index: len(b.args)}
	b.args = append(b.args, v)
	return v
}

// EraseArgument removes argument i, which must have no uses.
func (b *Block) EraseArgument(i int) {
	b.args = slices.Delete(b.args, i, i+1)
	for j := i; j < len(b.args); j++ {
		b.args[j].index = j
	}
}

// Parent returns the region holding b.
func (b *Block) Parent() *Region { return b.parent }

// ParentOp returns the op holding b's region.
func (b *Block) ParentOp() *Operation {
	if b.parent == nil {
		return nil
	}
	return b.parent.parent
}

// First returns the first op, nil if empty.
func (b *Block) First() *Operation { return b.first }

// Last returns the last op (the terminator, in SSA regions).
func (b *Block) Last() *Operation { return b.last }

// Len returns the number of ops in b.
func (b *Block) Len() int { return b.numOps }

// Empty reports whether b holds no op.
func (b *Block) Empty() bool { return b.first == nil }

// Ops iterates over b's ops; the op being visited may be erased or moved.
func (b *Block) Ops() iter.Seq[*Operation] {
	return func(yield func(*Operation) bool) {
		for o := b.first; o != nil; {
			next := o.next
			if !yield(o) {
				return
			}
			o = next
		}
	}
}

// Append adds op at the end of b.
func (b *Block) Append(op *Operation) { b.insertBefore(op, nil) }

// InsertBefore inserts op before pos (nil: at the end).
func (b *Block) InsertBefore(op, pos *Operation) { b.insertBefore(op, pos) }

func (b *Block) insertBefore(op, pos *Operation) {
	if op.block != nil {
		op.Remove()
	}
	op.block = b
	b.numOps++
	if pos == nil {
		op.prev = b.last
		op.next = nil
		if b.last != nil {
			b.last.next = op
		} else {
			b.first = op
		}
		b.last = op
		return
	}
	op.next = pos
	op.prev = pos.prev
	if pos.prev != nil {
		pos.prev.next = op
	} else {
		b.first = op
	}
	pos.prev = op
}

// Predecessors returns the blocks of b's region whose terminators branch to b,
// in region order (with repetition when a block branches twice).
func (b *Block) Predecessors() []*Block {
	var preds []*Block
	if b.parent == nil {
		return nil
	}
	for _, p := range b.parent.blocks {
		if t := p.last; t != nil {
			for _, s := range t.successors {
				if s == b {
					preds = append(preds, p)
				}
			}
		}
	}
	return preds
}

// Region is a list of blocks owned by an operation.
type Region struct {
	blocks []*Block
	parent *Operation
}

// Blocks returns the blocks (the slice must not be modified).
func (r *Region) Blocks() []*Block { return r.blocks }

// Empty reports whether r has no block.
func (r *Region) Empty() bool { return len(r.blocks) == 0 }

// Front returns the entry block, nil if empty.
func (r *Region) Front() *Block {
	if len(r.blocks) == 0 {
		return nil
	}
	return r.blocks[0]
}

// ParentOp returns the op owning r.
func (r *Region) ParentOp() *Operation { return r.parent }

// AppendBlock adds b at the end of r.
func (r *Region) AppendBlock(b *Block) {
	b.parent = r
	r.blocks = append(r.blocks, b)
}

// InsertBlock inserts b at position i.
func (r *Region) InsertBlock(i int, b *Block) {
	b.parent = r
	r.blocks = slices.Insert(r.blocks, i, b)
}

// RemoveBlock unlinks b from r (it keeps its ops).
func (r *Region) RemoveBlock(b *Block) {
	if i := slices.Index(r.blocks, b); i >= 0 {
		r.blocks = slices.Delete(r.blocks, i, i+1)
		b.parent = nil
	}
}

// TakeBody moves all blocks of other into r (which must be empty).
func (r *Region) TakeBody(other *Region) {
	for _, b := range other.blocks {
		r.AppendBlock(b)
	}
	other.blocks = nil
}

// IsProperAncestor reports whether r contains op (at any depth).
func (r *Region) IsAncestorOf(op *Operation) bool {
	for o := op; o != nil; o = o.ParentOp() {
		if o.ParentRegion() == r {
			return true
		}
	}
	return false
}
