package textir

// Listener is told about IR changes made through a Builder.
type Listener interface {
	OpInserted(op *Operation)
}

// Builder creates ops at an insertion point: before Pos in Block, or at the
// end of Block when Pos is nil.
type Builder struct {
	Ctx      *Context
	Block    *Block
	Pos      *Operation
	Listener Listener
	Loc      Location // default location for created ops when the state has none
}

// NewBuilder returns a builder with no insertion point.
func NewBuilder(ctx *Context) *Builder { return &Builder{Ctx: ctx} }

// SetInsertionPointToEnd inserts at the end of b.
func (b *Builder) SetInsertionPointToEnd(blk *Block) { b.Block, b.Pos = blk, nil }

// SetInsertionPointToStart inserts at the start of b.
func (b *Builder) SetInsertionPointToStart(blk *Block) { b.Block, b.Pos = blk, blk.first }

// SetInsertionPoint inserts before op.
func (b *Builder) SetInsertionPoint(op *Operation) { b.Block, b.Pos = op.block, op }

// SetInsertionPointAfter inserts after op.
func (b *Builder) SetInsertionPointAfter(op *Operation) { b.Block, b.Pos = op.block, op.next }

// Insert places a detached op at the insertion point (if any) and returns it.
func (b *Builder) Insert(op *Operation) *Operation {
	if b.Block != nil {
		b.Block.insertBefore(op, b.Pos)
	}
	if b.Listener != nil {
		b.Listener.OpInserted(op)
	}
	return op
}

// Create builds an op from st and inserts it.
func (b *Builder) Create(st *OperationState) *Operation {
	if st.Loc == nil && b.Loc != nil {
		st.Loc = b.Loc
	}
	return b.Insert(b.Ctx.Create(st))
}

// CreateBlock appends a new block with the given argument types to r and
// moves the insertion point to its end.
func (b *Builder) CreateBlock(r *Region, argTypes ...Type) *Block {
	blk := NewBlock(argTypes...)
	r.AppendBlock(blk)
	b.SetInsertionPointToEnd(blk)
	return blk
}
