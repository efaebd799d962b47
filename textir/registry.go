package textir

import (
	"fmt"
	"sort"
	"strings"
	"sync"
)

// Trait is a property of an op kind (MLIR's op traits), as a bit set.
type Trait uint32

const (
	// Pure: no side effects; unused results make the op dead, and CSE may merge it.
	Pure Trait = 1 << iota
	// Terminator: must be the last op of its block.
	Terminator
	// IsolatedFromAbove: regions may not use values defined outside the op.
	IsolatedFromAbove
	// GraphRegion: the op's regions are graph regions (no dominance, no terminator required).
	GraphRegion
	// NoTerminator: blocks of the op's regions need no terminator.
	NoTerminator
	// SingleBlock: each region has at most one block.
	SingleBlock
	// Commutative: operands may be reordered.
	Commutative
	// ConstantLike: the op materialises a constant (its value attribute).
	ConstantLike
	// SymbolTable: the op's region defines a symbol table (names via sym_name).
	SymbolTable
	// Symbol: the op defines a symbol (sym_name attribute).
	Symbol
	// ReturnLike: a terminator that returns to the parent op.
	ReturnLike
)

var traitNames = []string{"Pure", "Terminator", "IsolatedFromAbove", "GraphRegion", "NoTerminator",
	"SingleBlock", "Commutative", "ConstantLike", "SymbolTable", "Symbol", "ReturnLike"}

func (t Trait) String() string {
	var parts []string
	for i, n := range traitNames {
		if t&(1<<i) != 0 {
			parts = append(parts, n)
		}
	}
	return strings.Join(parts, "|")
}

// Arity bounds a count: Min..Max, Max < 0 meaning unbounded.
type Arity struct{ Min, Max int }

// Exactly returns the arity n..n.
func Exactly(n int) Arity { return Arity{n, n} }

// AtLeast returns the arity n.. (variadic).
func AtLeast(n int) Arity { return Arity{n, -1} }

// Between returns the arity lo..hi.
func Between(lo, hi int) Arity { return Arity{lo, hi} }

// Allows reports whether n is within the arity.
func (a Arity) Allows(n int) bool { return n >= a.Min && (a.Max < 0 || n <= a.Max) }

func (a Arity) String() string {
	switch {
	case a.Max == a.Min:
		return fmt.Sprint(a.Min)
	case a.Max < 0:
		return fmt.Sprintf("at least %d", a.Min)
	}
	return fmt.Sprintf("%d to %d", a.Min, a.Max)
}

// TypeConstraint is a named predicate on types.
type TypeConstraint struct {
	Desc string // "tensor of 64-bit integer values"
	Pred func(Type) bool
}

// AnyType accepts every type.
var AnyType = TypeConstraint{"any type", func(Type) bool { return true }}

// AttrKind says which kind of attribute an op requires.
type AttrKind uint8

const (
	AnyAttr AttrKind = iota
	IntegerAttrKind
	FloatAttrKind
	StringAttrKind
	BoolAttrKind
	UnitAttrKind
	ArrayAttrKind
	DictAttrKind
	TypeAttrKind
	SymbolRefAttrKind
	DenseAttrKind
)

var attrKindNames = [...]string{"any attribute", "integer attribute", "float attribute", "string attribute",
	"bool attribute", "unit attribute", "array attribute", "dictionary attribute", "type attribute",
	"symbol reference attribute", "dense elements attribute"}

func (k AttrKind) String() string { return attrKindNames[k] }

// Matches reports whether a is of kind k.
func (k AttrKind) Matches(a Attribute) bool {
	switch k {
	case AnyAttr:
		return true
	case IntegerAttrKind:
		_, ok := a.(IntegerAttr)
		return ok
	case FloatAttrKind:
		_, ok := a.(FloatAttr)
		return ok
	case StringAttrKind:
		_, ok := a.(StringAttr)
		return ok
	case BoolAttrKind:
		_, ok := a.(BoolAttr)
		return ok
	case UnitAttrKind:
		_, ok := a.(UnitAttr)
		return ok
	case ArrayAttrKind:
		_, ok := a.(ArrayAttr)
		return ok
	case DictAttrKind:
		_, ok := a.(DictAttr)
		return ok
	case TypeAttrKind:
		_, ok := a.(TypeAttr)
		return ok
	case SymbolRefAttrKind:
		_, ok := a.(SymbolRefAttr)
		return ok
	case DenseAttrKind:
		_, ok := a.(*DenseElementsAttr)
		return ok
	}
	return false
}

// AttrSpec declares an attribute of an op.
type AttrSpec struct {
	Name     string
	Kind     AttrKind
	Optional bool
}

// FoldResult is what a folder produced for one result: an existing value
// or a constant attribute (which the driver materialises). Exactly one is set.
type FoldResult struct {
	Value *Value
	Attr  Attribute
}

// OpDef declares one op kind: its shape, traits, verifier, folder,
// canonicalization patterns and custom textual form.
type OpDef struct {
	Name    string // "dialect.op"
	Summary string // one line, for --help style listings

	Operands     Arity
	Results      Arity
	Regions      Arity
	Successors   Arity
	OperandTypes []TypeConstraint // per position; the last repeats for variadic tails; nil: any
	ResultTypes  []TypeConstraint // likewise
	Attrs        []AttrSpec       // required and optional attributes (looked up in props, then attrs)
	Traits       Trait

	// NamedOperands and NamedResults name the operands and the results in
	// order, as the $names of MLIR's ODS do (arith.select: condition,
	// true_value, false_value): one name per value, or one name marked
	// "name?" or "name..." for an optional or variadic group (opnames.go).
	// CheckNames checks them against Operands and Results; nil declares no
	// names. Each dialect's views (views_gen.go) are generated from them.
	// (ResultNames, below, is another thing: SSA name hints for printing.)
	NamedOperands []string
	NamedResults  []string

	// Verify checks what the declaration cannot; it runs after the
	// declarative checks passed. Return op.Errorf(...) on failure.
	Verify func(op *Operation) error
	// VerifyRegions runs after the op's regions were verified.
	VerifyRegions func(op *Operation) error
	// Fold returns one FoldResult per result when the op folds, or nil.
	// operands[i] is the constant attribute of operand i, or nil.
	// A folder never creates ops.
	Fold func(op *Operation, operands []Attribute) []FoldResult
	// Canonicalize lists the op's canonicalization patterns.
	Canonicalize []RewritePattern

	// Print prints the custom form after the result list ("%0 = ");
	// nil means the op always prints in the generic form.
	Print func(p *OpPrinter, op *Operation)
	// Parse parses the custom form (after the op name) into st.
	Parse func(p *OpParser, st *OperationState) error
	// ResultNames suggests names for results (%ctl), or nil.
	ResultNames func(op *Operation) []string
	// DefaultDialect is the dialect whose ops may be written without
	// their prefix in the op's regions, as MLIR's
	// OpAsmOpInterface::getDefaultDialect says ("func" for func.func, so
	// that a bare "return" in a function body is func.return). Ops nested
	// deeper take their own op's default, not this one. The printer still
	// writes the full names.
	DefaultDialect string
}

// Dialect is a namespace of ops.
type Dialect struct {
	Name    string
	Summary string
	Ops     []*OpDef
	// MaterializeConstant builds an op producing attr as a value of type t
	// (used when a folder returns a constant), or returns nil.
	MaterializeConstant func(b *Builder, attr Attribute, t Type, loc Location) *Operation
	// ParseType parses a dialect type !name<params> into a Type, or nil to keep it opaque.
	ParseType func(name, params string) (Type, error)
	// OpenOps accepts ops of this dialect that are not registered (as
	// TensorFlow's TFG dialect accepts every TensorFlow op): the verifier
	// lets them through without --allow-unregistered-dialect.
	OpenOps bool
}

// Context holds the registered dialects and op infos. It is safe for
// concurrent reads after registration.
type Context struct {
	mu                sync.RWMutex
	dialects          map[string]*Dialect
	infos             map[string]*OpInfo
	AllowUnregistered bool
}

// NewContext returns a context with the given dialects registered.
func NewContext(ds ...*Dialect) *Context {
	c := &Context{dialects: map[string]*Dialect{}, infos: map[string]*OpInfo{}}
	for _, d := range ds {
		c.Register(d)
	}
	return c
}

// Register adds a dialect and its ops. Registering a name twice panics: it is
// a programming error.
func (c *Context) Register(d *Dialect) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, dup := c.dialects[d.Name]; dup {
		return
	}
	c.dialects[d.Name] = d
	for _, def := range d.Ops {
		if !strings.HasPrefix(def.Name, d.Name+".") {
			panic("textir: op " + def.Name + " registered in dialect " + d.Name)
		}
		if info, ok := c.infos[def.Name]; ok && info.Def != nil {
			panic("textir: op " + def.Name + " registered twice")
		}
		if err := def.CheckNames(); err != nil {
			panic("textir: " + err.Error())
		}
		c.infos[def.Name] = &OpInfo{Name: def.Name, Dialect: d.Name, Def: def}
	}
}

// Dialect returns a registered dialect.
func (c *Context) Dialect(name string) *Dialect {
	c.mu.RLock()
	defer c.mu.RUnlock()
	return c.dialects[name]
}

// Dialects returns the registered dialects sorted by name.
func (c *Context) Dialects() []*Dialect {
	c.mu.RLock()
	defer c.mu.RUnlock()
	ds := make([]*Dialect, 0, len(c.dialects))
	for _, d := range c.dialects {
		ds = append(ds, d)
	}
	sort.Slice(ds, func(i, j int) bool { return ds[i].Name < ds[j].Name })
	return ds
}

// OpInfo returns the shared info for an op name, creating an unregistered
// one on first use.
func (c *Context) OpInfo(name string) *OpInfo {
	c.mu.RLock()
	info, ok := c.infos[name]
	c.mu.RUnlock()
	if ok {
		return info
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if info, ok := c.infos[name]; ok {
		return info
	}
	dialect, _, _ := strings.Cut(name, ".")
	info = &OpInfo{Name: name, Dialect: dialect}
	c.infos[name] = info
	return info
}

// LookupOp returns the definition of a registered op.
func (c *Context) LookupOp(name string) *OpDef {
	c.mu.RLock()
	defer c.mu.RUnlock()
	if info := c.infos[name]; info != nil {
		return info.Def
	}
	return nil
}

// AllowsUnregisteredOp reports whether an unregistered op named name is
// acceptable: the context allows unregistered ops, or its dialect is open.
func (c *Context) AllowsUnregisteredOp(info *OpInfo) bool {
	if c.AllowUnregistered {
		return true
	}
	d := c.Dialect(info.Dialect)
	return d != nil && d.OpenOps
}

// IsRegisteredDialect reports whether a dialect namespace is registered.
func (c *Context) IsRegisteredDialect(name string) bool { return c.Dialect(name) != nil }

// RewritePattern rewrites ops rooted at an op name.
type RewritePattern interface {
	// Root is the op name the pattern matches, or "" for any op.
	Root() string
	// Benefit orders patterns: higher is tried first.
	Benefit() int
	// Name identifies the pattern in statistics and debug output.
	Name() string
	// MatchAndRewrite rewrites op through rw and reports whether it did.
	// A pattern that returns false must not have changed the IR.
	MatchAndRewrite(op *Operation, rw PatternRewriter) bool
}

// PatternRewriter is how patterns change IR, so that drivers see every change.
type PatternRewriter interface {
	// Builder positions and creates ops; created ops are tracked.
	Builder() *Builder
	// Create builds an op at the insertion point.
	Create(st *OperationState) *Operation
	// ReplaceOp replaces op's results with vals and erases op.
	ReplaceOp(op *Operation, vals []*Value)
	// EraseOp erases op, whose results must be unused.
	EraseOp(op *Operation)
	// ModifyOpInPlace runs fn, which changes op in place (operands, attributes, types).
	ModifyOpInPlace(op *Operation, fn func())
	// ReplaceAllUsesWith replaces all uses of from with to, notifying the users.
	ReplaceAllUsesWith(from, to *Value)
	// InlineBlockBefore moves src's ops before pos, mapping src's arguments to args; src is erased.
	InlineBlockBefore(src *Block, pos *Operation, args []*Value)
	// NotifyMatchFailure records why a pattern did not apply (for debugging); returns false.
	NotifyMatchFailure(op *Operation, format string, args ...any) bool
	// Context returns the IR context.
	Context() *Context
}

// Pattern is a RewritePattern made from a function.
type Pattern struct {
	RootName    string
	PatternName string
	Weight      int
	Fn          func(op *Operation, rw PatternRewriter) bool
}

func (p *Pattern) Root() string { return p.RootName }
func (p *Pattern) Benefit() int { return p.Weight }
func (p *Pattern) Name() string { return p.PatternName }
func (p *Pattern) MatchAndRewrite(op *Operation, rw PatternRewriter) bool {
	return p.Fn(op, rw)
}
