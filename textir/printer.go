package textir

import (
	"fmt"
	"io"
	"math"
	"runtime"
	"strconv"
	"strings"
)

// PrintOptions controls the printer.
type PrintOptions struct {
	// Generic prints every op in the generic form, as
	// --mlir-print-op-generic does; custom printers are not called and
	// result name hints are not used.
	Generic bool
	// DebugInfo prints the location of every op (" loc(...)" after it) and
	// of every block argument, inline, as --mlir-print-debuginfo does.
	DebugInfo bool
	// HexElementsLimit: a non-splat numeric dense attribute with more
	// elements than this prints its raw little-endian data as
	// dense<"0x...">. 0 means DefaultHexElementsLimit; negative never.
	HexElementsLimit int
	// ElideLargeElements prints a non-splat dense elements attribute with
	// more than ElideElementsLimit elements as dense_resource<__elided__>
	// (with its type), as --mlir-elide-elementsattrs-if-larger does: the
	// text is short but no longer reads back to the same IR.
	ElideLargeElements bool
	ElideElementsLimit int64
	// LocalScope numbers the values of an op printed on its own from that
	// op, as --mlir-print-local-scope does: values defined outside it print
	// as <<UNKNOWN SSA VALUE>>. Without it (MLIR's default) a nested op is
	// named as in its nearest IsolatedFromAbove ancestor (the function or
	// module it is in), so that its names and operands read as in the whole
	// IR. recom prints no aliases and locations inline either way, and an
	// isolated op (what IR dumps print) prints the same either way.
	LocalScope bool
}

// DefaultHexElementsLimit is the element count above which numeric dense
// attributes print as hex when PrintOptions.HexElementsLimit is 0.
const DefaultHexElementsLimit = 1024

// flushSize is the buffered output size at which the printer writes to its
// io.Writer (between ops only, or before an op's first line): the memory
// the printer holds is bounded by it and the longest line, not by the size
// of the output.
const flushSize = 64 << 10

// Print writes op and everything nested in it in MLIR's textual form,
// followed by a newline. Value names and block labels are assigned before
// printing (so graph regions may refer to values defined later), and the
// output is deterministic. The only errors are those of w (and a custom
// printer that panicked after part of its output was written).
func Print(w io.Writer, op *Operation, opts PrintOptions) error {
	p := newPrinter(w, opts)
	p.printTop(op)
	p.buf = append(p.buf, '\n')
	p.flush()
	return p.err
}

// OpString returns op printed as Print does, without the final newline,
// always in local scope (as MLIR prints an op in a diagnostic): values
// defined outside op print as <<UNKNOWN SSA VALUE>>.
func OpString(op *Operation, opts PrintOptions) string {
	opts.LocalScope = true
	p := newPrinter(nil, opts)
	p.printTop(op)
	return string(p.buf)
}

// TypeString returns a type in MLIR syntax (<<NULL TYPE>> for nil).
func TypeString(t Type) string {
	if t == nil {
		return "<<NULL TYPE>>"
	}
	return t.String()
}

// AttrString prints an attribute in MLIR syntax.
func AttrString(a Attribute) string {
	var p printer
	p.opts.HexElementsLimit = DefaultHexElementsLimit
	p.appendAttr(a)
	return string(p.buf)
}

// LocString returns a location in MLIR syntax, with its loc(...) wrapper.
func LocString(l Location) string {
	var p printer
	p.appendLoc(l)
	return string(p.buf)
}

// nameState is the numbering context of one region (MLIR's SSANameState
// naming context): the next ids, carried from the parent region.
type nameState struct {
	nextValue, nextArg, nextConflict int32
}

type printer struct {
	buf     []byte
	w       io.Writer
	err     error
	flushes int
	opts    PrintOptions
	indent  int

	vals   valTable               // value -> name (printer_names.go)
	names  []string               // named values' names, without the %
	groups map[*Operation][]int32 // starts of result groups, for ops with several
	starts []int32                // scratch for numberOp
	blocks map[*Block]int32
	used   map[string]struct{} // names in scope (hints and argN)
	scoped []string            // names added to used, in order, for scope pops

	op    OpPrinter
	child bool // a printer of printOpsParallel: prints sequentially
}

func newPrinter(w io.Writer, opts PrintOptions) *printer {
	if opts.HexElementsLimit == 0 {
		opts.HexElementsLimit = DefaultHexElementsLimit
	}
	p := &printer{w: w, opts: opts}
	p.op.impl = p
	return p
}

func (p *printer) flush() {
	if p.w == nil || len(p.buf) == 0 {
		return
	}
	if p.err == nil {
		_, p.err = p.w.Write(p.buf)
	}
	p.buf = p.buf[:0]
	p.flushes++
}

func (p *printer) printTop(op *Operation) {
	if op == nil {
		p.buf = append(p.buf, "<<NULL OPERATION>>"...)
		return
	}
	scope := op
	if !p.opts.LocalScope {
		for scope.ParentOp() != nil && !scope.HasTrait(IsolatedFromAbove) {
			scope = scope.ParentOp()
		}
	}
	p.numberTop(scope)
	p.printOp(op)
}

// ---------------------------------------------------------------------------
// Naming: MLIR's scheme. The values of a region are numbered before the
// values of the regions nested in it, and each nested region continues from
// the counters its parent region ended with (siblings start from the same
// counters). Ops with the IsolatedFromAbove trait restart at %0 and %arg0.
// Entry block arguments are %argN; other block arguments and results take
// numbers; result name hints are uniqued within the scope.

func (p *printer) numberTop(op *Operation) {
	n := countValues(op)
	p.vals.init(n)
	p.blocks = make(map[*Block]int32)
	// The top op's results come first (MLIR numbers its regions from %0
	// too, which makes an inner %0 shadow the op's own %0).
	var st nameState
	p.numberOp(op, &st)
	p.numberNested(op, st)
}

func countValues(op *Operation) int {
	n := 0
	op.Walk(func(o *Operation) bool {
		n += len(o.results)
		for _, r := range o.regions {
			for _, b := range r.blocks {
				n += len(b.args)
			}
		}
		return true
	})
	return n
}

func (p *printer) numberNested(op *Operation, st nameState) {
	if len(op.regions) == 0 {
		return
	}
	isolated := op.HasTrait(IsolatedFromAbove)
	var savedUsed map[string]struct{}
	var savedScoped []string
	if isolated {
		st = nameState{}
		savedUsed, savedScoped = p.used, p.scoped
		p.used, p.scoped = nil, nil
	}
	for _, r := range op.regions {
		s := st
		mark := len(p.scoped)
		p.numberRegion(r, &s)
		for _, b := range r.blocks {
			for o := b.first; o != nil; o = o.next {
				if len(o.regions) > 0 {
					p.numberNested(o, s)
				}
			}
		}
		for _, n := range p.scoped[mark:] {
			delete(p.used, n)
		}
		p.scoped = p.scoped[:mark]
	}
	if isolated {
		p.used, p.scoped = savedUsed, savedScoped
	}
}

func (p *printer) numberRegion(r *Region, s *nameState) {
	for bi, b := range r.blocks {
		p.blocks[b] = int32(bi)
		for _, a := range b.args {
			if bi == 0 {
				name := p.uniqueName("arg"+strconv.Itoa(int(s.nextArg)), s)
				s.nextArg++
				p.vals.put(a, p.addName(name), -1, false)
			} else {
				p.vals.put(a, s.nextValue, -1, false)
				s.nextValue++
			}
		}
		for o := b.first; o != nil; o = o.next {
			p.numberOp(o, s)
		}
	}
}

func (p *printer) numberOp(o *Operation, s *nameState) {
	n := len(o.results)
	if n == 0 {
		return
	}
	var hints []string
	if def := o.info.Def; def != nil && def.ResultNames != nil && !p.opts.Generic {
		hints = def.ResultNames(o)
	}
	if !hasHint(hints) {
		id := s.nextValue
		s.nextValue++
		if n == 1 {
			p.vals.put(&o.results[0], id, -1, false)
			return
		}
		for i := range o.results {
			p.vals.put(&o.results[i], id, int32(i), false)
		}
		return
	}
	// Result groups: one starts at result 0 and at every hinted result.
	starts := append(p.starts[:0], 0)
	for i := 1; i < n && i < len(hints); i++ {
		if hints[i] != "" {
			starts = append(starts, int32(i))
		}
	}
	p.starts = starts
	for g, start := range starts {
		end := int32(n)
		if g+1 < len(starts) {
			end = starts[g+1]
		}
		var num int32
		if h := hints[start]; h != "" {
			num = p.addName(p.uniqueName(sanitizeName(h), s))
		} else {
			num = s.nextValue
			s.nextValue++
		}
		for i := start; i < end; i++ {
			resNo := int32(-1)
			if end-start > 1 {
				resNo = i - start
			}
			p.vals.put(&o.results[i], num, resNo, i == 0 && len(starts) > 1)
		}
	}
	if len(starts) > 1 {
		if p.groups == nil {
			p.groups = map[*Operation][]int32{}
		}
		p.groups[o] = append([]int32(nil), starts...)
	}
}

func hasHint(hints []string) bool {
	for _, h := range hints {
		if h != "" {
			return true
		}
	}
	return false
}

// addName records a value name and returns its entry number (negative).
func (p *printer) addName(name string) int32 {
	p.names = append(p.names, name)
	return -int32(len(p.names))
}

// uniqueName returns name, or name_N with the next conflict number when
// name is already in scope, and puts the result in scope.
func (p *printer) uniqueName(name string, s *nameState) string {
	if p.used == nil {
		p.used = map[string]struct{}{}
	}
	if _, dup := p.used[name]; dup {
		for {
			probe := name + "_" + strconv.Itoa(int(s.nextConflict))
			s.nextConflict++
			if _, dup := p.used[probe]; !dup {
				name = probe
				break
			}
		}
	}
	p.used[name] = struct{}{}
	p.scoped = append(p.scoped, name)
	return name
}

// sanitizeName makes a name hint a valid suffix-id: letters, digits and
// "$._-" are kept, spaces become '_', other bytes their hex code; a leading
// digit gets a '_' prefix (numbers are the printer's own names).
func sanitizeName(h string) string {
	ok := !(h[0] >= '0' && h[0] <= '9')
	for i := 0; i < len(h) && ok; i++ {
		ok = isIdentChar(h[i]) || h[i] == '-'
	}
	if ok {
		return h
	}
	var b strings.Builder
	if h[0] >= '0' && h[0] <= '9' {
		b.WriteByte('_')
	}
	for i := 0; i < len(h); i++ {
		c := h[i]
		switch {
		case isIdentChar(c) || c == '-':
			b.WriteByte(c)
		case c == ' ':
			b.WriteByte('_')
		default:
			b.WriteString(strings.ToUpper(strconv.FormatUint(uint64(c), 16)))
		}
	}
	return b.String()
}

func isIdentChar(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '$' || c == '.'
}

// isBareIdentifier reports whether s prints without quotes as a keyword,
// attribute name or symbol name: [a-zA-Z_][a-zA-Z0-9_$.]*.
func isBareIdentifier(s string) bool {
	if s == "" {
		return false
	}
	if c := s[0]; !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '_') {
		return false
	}
	for i := 1; i < len(s); i++ {
		if !isIdentChar(s[i]) {
			return false
		}
	}
	return true
}

// ---------------------------------------------------------------------------
// Operations, regions and blocks.

func (p *printer) printOp(o *Operation) {
	start, flushes, indent := len(p.buf), p.flushes, p.indent
	p.printResults(o)
	if def := o.info.Def; def != nil && def.Print != nil && !p.opts.Generic {
		name := o.info.Name
		if o.info.Dialect == "builtin" {
			name = name[len("builtin."):]
		}
		p.buf = append(p.buf, name...)
		if !p.callCustom(def, o) {
			p.indent = indent
			if p.flushes == flushes {
				p.buf = p.buf[:start]
			} else if p.err == nil {
				p.err = fmt.Errorf("textir: the custom printer of %s failed after part of its output was written", o.info.Name)
			}
			p.printResults(o)
			p.printGeneric(o)
		}
	} else {
		p.printGeneric(o)
	}
	if p.opts.DebugInfo {
		p.buf = append(p.buf, ' ')
		p.appendLoc(o.loc)
	}
}

// callCustom runs a custom printer; a panicking one (an op it cannot
// handle) reports false and the op prints in the generic form.
func (p *printer) callCustom(def *OpDef, o *Operation) (ok bool) {
	defer func() {
		if r := recover(); r != nil {
			ok = false
		}
	}()
	def.Print(&p.op, o)
	return true
}

func (p *printer) printResults(o *Operation) {
	n := len(o.results)
	if n == 0 {
		return
	}
	if rec, _ := p.vals.get(&o.results[0]); !rec.grouped() {
		p.appendValue(&o.results[0], false)
		if n > 1 {
			p.buf = append(p.buf, ':')
			p.buf = strconv.AppendInt(p.buf, int64(n), 10)
		}
	} else {
		starts := p.groups[o]
		for g, s := range starts {
			if g > 0 {
				p.buf = append(p.buf, ", "...)
			}
			end := int32(n)
			if g+1 < len(starts) {
				end = starts[g+1]
			}
			p.appendValue(&o.results[s], false)
			if end-s > 1 {
				p.buf = append(p.buf, ':')
				p.buf = strconv.AppendInt(p.buf, int64(end-s), 10)
			}
		}
	}
	p.buf = append(p.buf, " = "...)
}

func (p *printer) printGeneric(o *Operation) {
	p.buf = append(p.buf, '"')
	p.appendEscaped(o.info.Name)
	p.buf = append(p.buf, '"', '(')
	for i := range o.operands {
		if i > 0 {
			p.buf = append(p.buf, ", "...)
		}
		p.appendValue(o.operands[i].val, true)
	}
	p.buf = append(p.buf, ')')
	if len(o.successors) > 0 {
		p.buf = append(p.buf, '[')
		for i, s := range o.successors {
			if i > 0 {
				p.buf = append(p.buf, ", "...)
			}
			p.appendBlockName(s)
		}
		p.buf = append(p.buf, ']')
	}
	if o.props != nil {
		p.buf = append(p.buf, " <"...)
		p.appendAttr(o.props)
		p.buf = append(p.buf, '>')
	}
	if len(o.regions) > 0 {
		p.buf = append(p.buf, " ("...)
		for i, r := range o.regions {
			if i > 0 {
				p.buf = append(p.buf, ", "...)
			}
			p.printRegion(r, true, true)
		}
		p.buf = append(p.buf, ')')
	}
	p.appendAttrDict(o.attrs, nil)
	p.buf = append(p.buf, " : "...)
	p.appendFunctionalType(o)
}

func (p *printer) appendFunctionalType(o *Operation) {
	p.buf = append(p.buf, '(')
	for i := range o.operands {
		if i > 0 {
			p.buf = append(p.buf, ", "...)
		}
		if v := o.operands[i].val; v != nil {
			p.appendType(v.typ)
		} else {
			p.appendType(nil)
		}
	}
	p.buf = append(p.buf, ") -> "...)
	wrap := len(o.results) != 1
	if !wrap {
		_, wrap = o.results[0].typ.(*FunctionType)
	}
	if wrap {
		p.buf = append(p.buf, '(')
	}
	for i := range o.results {
		if i > 0 {
			p.buf = append(p.buf, ", "...)
		}
		p.appendType(o.results[i].typ)
	}
	if wrap {
		p.buf = append(p.buf, ')')
	}
}

// printRegion prints "{", the blocks, and "}" at the current indentation.
// The entry block's header is printed when requested and it has arguments
// or predecessors, or when printEmptyBlock is set and it is empty.
func (p *printer) printRegion(r *Region, printEntryArgs, printEmptyBlock bool) {
	if r == nil {
		p.buf = append(p.buf, "{<<NULL REGION>>}"...)
		return
	}
	p.buf = append(p.buf, '{', '\n')
	if len(r.blocks) > 0 {
		entry := r.blocks[0]
		hdr := printEmptyBlock && entry.first == nil ||
			printEntryArgs && (len(entry.args) > 0 || hasPredecessor(r, entry))
		p.printBlock(entry, hdr)
		for _, b := range r.blocks[1:] {
			p.printBlock(b, true)
		}
	}
	p.appendIndent()
	p.buf = append(p.buf, '}')
}

func hasPredecessor(r *Region, b *Block) bool {
	for _, q := range r.blocks {
		if t := q.last; t != nil {
			for _, s := range t.successors {
				if s == b {
					return true
				}
			}
		}
	}
	return false
}

func (p *printer) printBlock(b *Block, header bool) {
	if header {
		p.appendIndent()
		p.appendBlockName(b)
		if len(b.args) > 0 {
			p.buf = append(p.buf, '(')
			for i, a := range b.args {
				if i > 0 {
					p.buf = append(p.buf, ", "...)
				}
				p.appendArgument(a, nil)
			}
			p.buf = append(p.buf, ')')
		}
		p.buf = append(p.buf, ':', '\n')
	}
	p.indent += 2
	if !p.child && b.numOps >= parallelMinOps && runtime.GOMAXPROCS(0) > 1 {
		p.printOpsParallel(b)
	} else {
		for o := b.first; o != nil; o = o.next {
			// Flushing before each op as well as after it keeps the
			// buffer small however deeply the ops nest (each op's first
			// line is written before its regions are printed).
			if len(p.buf) >= flushSize {
				p.flush()
			}
			p.appendIndent()
			p.printOp(o)
			p.buf = append(p.buf, '\n')
			if len(p.buf) >= flushSize {
				p.flush()
			}
		}
	}
	p.indent -= 2
}

// A block of at least parallelMinOps ops (a TensorFlow graph of a large
// model: a million ops in one tfg.graph) is printed by several goroutines,
// each printing a run of parallelChunkOps consecutive ops into a buffer of
// its own, written out in order: the names were all assigned before
// printing starts, so the text is the same as printed by one goroutine.
// At most 2×GOMAXPROCS runs are printed or waiting at a time, which bounds
// the memory held.
const (
	parallelMinOps   = 16384
	parallelChunkOps = 4096
)

// printOpsParallel prints the ops of b, one a line, as printBlock does.
func (p *printer) printOpsParallel(b *Block) {
	workers := runtime.GOMAXPROCS(0)
	type run struct {
		first *Operation
		n     int
		out   chan []byte
	}
	runs := make(chan *run, 2*workers) // in order, to the writer below
	todo := make(chan *run, 2*workers) // to the workers
	for range workers {
		go func() {
			c := p.childPrinter()
			for r := range todo {
				c.buf = c.buf[:0]
				o := r.first
				for range r.n {
					c.appendIndent()
					c.printOp(o)
					c.buf = append(c.buf, '\n')
					o = o.next
				}
				r.out <- append([]byte(nil), c.buf...)
			}
		}()
	}
	go func() {
		o := b.first
		for o != nil {
			r := &run{first: o, out: make(chan []byte, 1)}
			for ; o != nil && r.n < parallelChunkOps; o = o.next {
				r.n++
			}
			runs <- r // blocks while 2×workers runs are pending
			todo <- r
		}
		close(runs)
		close(todo)
	}()
	for r := range runs {
		p.buf = append(p.buf, <-r.out...)
		if len(p.buf) >= flushSize {
			p.flush()
		}
	}
}

// childPrinter returns a printer that prints with p's names and options
// into a buffer of its own (its valTable has its own cache of recent
// lookups: the cache is written by lookups).
func (p *printer) childPrinter() *printer {
	c := &printer{opts: p.opts, indent: p.indent, vals: p.vals, names: p.names, groups: p.groups, blocks: p.blocks, child: true}
	c.vals.near = make([]vtEntry, len(p.vals.near))
	c.op.impl = c
	return c
}

// appendArgument writes %name: type {attrs} loc(...).
func (p *printer) appendArgument(a *Value, attrs []NamedAttribute) {
	p.appendValue(a, false)
	p.buf = append(p.buf, ": "...)
	if a == nil {
		p.appendType(nil)
		return
	}
	p.appendType(a.typ)
	p.appendAttrDict(attrs, nil)
	if p.opts.DebugInfo {
		p.buf = append(p.buf, ' ')
		p.appendLoc(a.Loc())
	}
}

// maxIndent is the widest indentation the printer writes: regions nested
// deeper than maxIndent/2 levels print at that column. Indentation that
// grew with the depth would make the text quadratic in it (20,000 nested
// regions: 800 MB), while whitespace means nothing to the parser.
const maxIndent = 256

const spaces = "                                                                "

func (p *printer) appendIndent() {
	n := min(p.indent, maxIndent)
	for n > len(spaces) {
		p.buf = append(p.buf, spaces...)
		n -= len(spaces)
	}
	p.buf = append(p.buf, spaces[:n]...)
}

func (p *printer) appendValue(v *Value, withResNo bool) {
	if v == nil {
		p.buf = append(p.buf, "<<NULL VALUE>>"...)
		return
	}
	rec, ok := p.vals.get(v)
	if !ok {
		p.buf = append(p.buf, "<<UNKNOWN SSA VALUE>>"...)
		return
	}
	p.buf = append(p.buf, '%')
	if rec.num < 0 {
		p.buf = append(p.buf, p.names[-rec.num-1]...)
	} else {
		p.buf = strconv.AppendInt(p.buf, int64(rec.num), 10)
	}
	if r := rec.resNo(); withResNo && r >= 0 {
		p.buf = append(p.buf, '#')
		p.buf = strconv.AppendInt(p.buf, int64(r), 10)
	}
}

func (p *printer) appendBlockName(b *Block) {
	id, ok := p.blocks[b]
	if !ok {
		p.buf = append(p.buf, "^<<UNKNOWN BLOCK>>"...)
		return
	}
	p.buf = append(p.buf, "^bb"...)
	p.buf = strconv.AppendInt(p.buf, int64(id), 10)
}

// ---------------------------------------------------------------------------
// Types, attributes and locations.

func (p *printer) appendType(t Type) {
	if t == nil {
		p.buf = append(p.buf, "<<NULL TYPE>>"...)
		return
	}
	p.buf = append(p.buf, t.String()...)
}

// appendEscaped writes s with MLIR string escapes, without the quotes.
func (p *printer) appendEscaped(s string) {
	const hex = "0123456789ABCDEF"
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '"' || c == '\\':
			p.buf = append(p.buf, '\\', c)
		case c == '\n':
			p.buf = append(p.buf, '\\', 'n')
		case c == '\t':
			p.buf = append(p.buf, '\\', 't')
		case c >= 0x20 && c < 0x7f:
			p.buf = append(p.buf, c)
		default:
			p.buf = append(p.buf, '\\', hex[c>>4], hex[c&15])
		}
	}
}

func (p *printer) appendQuoted(s string) {
	p.buf = append(p.buf, '"')
	p.appendEscaped(s)
	p.buf = append(p.buf, '"')
}

func (p *printer) appendKeywordOrString(s string) {
	if isBareIdentifier(s) {
		p.buf = append(p.buf, s...)
	} else {
		p.appendQuoted(s)
	}
}

func (p *printer) appendSymbol(s string) {
	p.buf = append(p.buf, '@')
	p.appendKeywordOrString(s)
}

// appendAttrDict writes " {a = 1 : i32, b}" for the entries not named in
// elided, or nothing when none is left.
func (p *printer) appendAttrDict(attrs []NamedAttribute, elided []string) {
	first := true
	for _, a := range attrs {
		if isElided(a.Name, elided) {
			continue
		}
		if first {
			p.buf = append(p.buf, " {"...)
			first = false
		} else {
			p.buf = append(p.buf, ", "...)
		}
		p.appendNamedAttr(a)
	}
	if !first {
		p.buf = append(p.buf, '}')
	}
}

func isElided(name string, elided []string) bool {
	for _, e := range elided {
		if e == name {
			return true
		}
	}
	return false
}

func (p *printer) appendNamedAttr(a NamedAttribute) {
	p.appendKeywordOrString(a.Name)
	if _, unit := a.Value.(UnitAttr); unit {
		return
	}
	p.buf = append(p.buf, " = "...)
	p.appendAttr(a.Value)
}

func (p *printer) appendAttr(a Attribute) {
	p.appendAttrElide(a, false)
}

// appendAttrElide writes an attribute; with elideType the ": type" suffix
// of integers, floats and strings is left out.
func (p *printer) appendAttrElide(a Attribute, elideType bool) {
	switch a := a.(type) {
	case nil:
		p.buf = append(p.buf, "<<NULL ATTRIBUTE>>"...)
	case IntegerAttr:
		p.appendInt(a.Value, a.Type)
		if a.Type != nil && !elideType {
			p.buf = append(p.buf, " : "...)
			p.appendType(a.Type)
		}
	case FloatAttr:
		p.appendFloat(a.Value, a.Type)
		if a.Type != nil && !elideType {
			p.buf = append(p.buf, " : "...)
			p.appendType(a.Type)
		}
	case StringAttr:
		p.appendQuoted(a.Value)
		if a.Type != nil && a.Type != None() && !elideType {
			p.buf = append(p.buf, " : "...)
			p.appendType(a.Type)
		}
	case BoolAttr:
		if a.Value {
			p.buf = append(p.buf, "true"...)
		} else {
			p.buf = append(p.buf, "false"...)
		}
	case UnitAttr:
		p.buf = append(p.buf, "unit"...)
	case ArrayAttr:
		p.buf = append(p.buf, '[')
		for i, e := range a.Elems {
			if i > 0 {
				p.buf = append(p.buf, ", "...)
			}
			p.appendAttr(e)
		}
		p.buf = append(p.buf, ']')
	case DictAttr:
		p.buf = append(p.buf, '{')
		for i, e := range a.Entries {
			if i > 0 {
				p.buf = append(p.buf, ", "...)
			}
			p.appendNamedAttr(e)
		}
		p.buf = append(p.buf, '}')
	case TypeAttr:
		p.appendType(a.Type)
	case SymbolRefAttr:
		p.appendSymbol(a.Root)
		for _, n := range a.Nested {
			p.buf = append(p.buf, "::"...)
			p.appendSymbol(n)
		}
	case OpaqueAttr:
		p.buf = append(p.buf, '#')
		p.buf = append(p.buf, a.Dialect...)
		if a.Name != "" {
			p.buf = append(p.buf, '.')
			p.buf = append(p.buf, a.Name...)
		}
		if a.Params != "" {
			p.buf = append(p.buf, '<')
			p.buf = append(p.buf, a.Params...)
			p.buf = append(p.buf, '>')
		}
	case *DenseElementsAttr:
		p.appendDense(a)
	default:
		p.buf = append(p.buf, "<<UNKNOWN ATTRIBUTE>>"...)
	}
}

// appendInt writes an integer of type t: unsigned types unsigned, i1 as 0
// or 1, others signed.
func (p *printer) appendInt(v int64, t Type) {
	if it, ok := t.(*IntType); ok {
		switch {
		case it.Width == 1 && it.Signedness != Signed:
			p.buf = append(p.buf, '0'+byte(v&1))
			return
		case it.Signedness == Unsigned:
			u := uint64(v)
			if it.Width < 64 {
				u &= 1<<uint(it.Width) - 1
			}
			p.buf = strconv.AppendUint(p.buf, u, 10)
			return
		}
	}
	p.buf = strconv.AppendInt(p.buf, v, 10)
}

// appendFloat writes v as a value of float type t (f64 when t is not a
// float type) so that it reads back to the same bits: MLIR's "%e" form with
// six digits after the point when that is exact (1.000000e+00), else the
// shortest exact decimal in exponent form (3.333333333333333e-01), and NaN
// and infinities as the hex bit pattern of the type (0x7FC00000).
func (p *printer) appendFloat(v float64, t Type) {
	kind := KindF64
	if ft, ok := t.(*FloatType); ok {
		kind = ft.Kind
	}
	var x float64 // the value as the type holds it
	var bits uint64
	width := 64
	switch kind {
	case KindF64:
		x, bits = v, 0
	case KindF32:
		f := float32(v)
		x, bits, width = float64(f), uint64(math.Float32bits(f)), 32
	case KindF16:
		h := Float32ToHalf(float32(v))
		x, bits, width = float64(HalfToFloat32(h)), uint64(h), 16
	case KindBF16:
		var b [2]byte
		PutFloat(b[:], bf16Type, v)
		h := uint16(b[0]) | uint16(b[1])<<8
		x, bits, width = float64(math.Float32frombits(uint32(h)<<16)), uint64(h), 16
	}
	if x != x || x > math.MaxFloat64 || x < -math.MaxFloat64 { // NaN or Inf
		if kind == KindF64 {
			bits = math.Float64bits(v)
		}
		p.appendHexBits(bits, width)
		return
	}
	bitSize := 64
	if kind != KindF64 {
		bitSize = 32 // f16 and bf16 values are exact in f32
	}
	start := len(p.buf)
	p.buf = strconv.AppendFloat(p.buf, x, 'e', 6, bitSize)
	if y, err := strconv.ParseFloat(string(p.buf[start:]), bitSize); err == nil && sameFloat(y, x, kind) {
		return
	}
	p.buf = strconv.AppendFloat(p.buf[:start], x, 'e', -1, bitSize)
	// MLIR's float literals need a '.': 1e+10 becomes 1.0e+10.
	for i := start; i < len(p.buf); i++ {
		if p.buf[i] == '.' {
			return
		}
		if p.buf[i] == 'e' {
			p.buf = append(p.buf[:i], append([]byte(".0"), p.buf[i:]...)...)
			return
		}
	}
}

// sameFloat reports whether y, read back, is x in the float kind.
func sameFloat(y, x float64, kind FloatKind) bool {
	switch kind {
	case KindF64:
		return math.Float64bits(y) == math.Float64bits(x)
	case KindF16:
		return Float32ToHalf(float32(y)) == Float32ToHalf(float32(x))
	case KindBF16:
		return math.Float32bits(float32(y))>>16 == math.Float32bits(float32(x))>>16
	}
	return math.Float32bits(float32(y)) == math.Float32bits(float32(x))
}

func (p *printer) appendHexBits(bits uint64, width int) {
	const hex = "0123456789ABCDEF"
	p.buf = append(p.buf, '0', 'x')
	for sh := width - 4; sh >= 0; sh -= 4 {
		p.buf = append(p.buf, hex[bits>>uint(sh)&15])
	}
}

func (p *printer) appendDense(d *DenseElementsAttr) {
	if p.opts.ElideLargeElements && d.Type != nil && !d.Splat && d.Type.NumElements() > p.opts.ElideElementsLimit {
		p.buf = append(p.buf, "dense_resource<__elided__> : "...)
		p.appendType(d.Type)
		return
	}
	p.buf = append(p.buf, "dense<"...)
	if d.Type == nil {
		p.buf = append(p.buf, "> : <<NULL TYPE>>"...)
		return
	}
	n := d.Type.NumElements()
	switch {
	case n <= 0:
	case d.IsString():
		need := n
		if d.Splat {
			need = 1
		}
		switch {
		case int64(len(d.Strings)) < need: // malformed: print what there is
			p.buf = append(p.buf, '[')
			for i, s := range d.Strings {
				if i > 0 {
					p.buf = append(p.buf, ", "...)
				}
				p.appendQuoted(s)
			}
			p.buf = append(p.buf, ']')
		case d.Splat:
			p.appendQuoted(d.Strings[0])
		default:
			p.appendNested(d.Type.Shape, func(i int64) { p.appendQuoted(d.Strings[i]) })
		}
	default:
		eb := int64(ElemBytes(d.Type.Elem))
		need := n * eb
		if d.Splat {
			need = eb
		}
		elem := d.Type.Elem
		isBool := false
		if it, ok := elem.(*IntType); ok && it.Width == 1 {
			isBool = true
		}
		switch {
		case int64(len(d.Data)) < need: // malformed: the raw data, which does not read back
			p.appendHexData(d.Data)
		case d.Splat:
			p.appendDenseElem(d, elem, isBool, 0)
		case !isBool && p.opts.HexElementsLimit > 0 && n > int64(p.opts.HexElementsLimit):
			p.appendHexData(d.Data[:need])
		default:
			p.appendNested(d.Type.Shape, func(i int64) { p.appendDenseElem(d, elem, isBool, i) })
		}
	}
	p.buf = append(p.buf, "> : "...)
	p.appendType(d.Type)
}

func (p *printer) appendDenseElem(d *DenseElementsAttr, elem Type, isBool bool, i int64) {
	switch {
	case isBool:
		if d.IntAt(i) != 0 {
			p.buf = append(p.buf, "true"...)
		} else {
			p.buf = append(p.buf, "false"...)
		}
	case IsFloat(elem):
		p.appendFloat(d.FloatAt(i), elem)
	default:
		p.appendInt(d.IntAt(i), elem)
	}
}

// appendNested writes the elements of a row-major array of the given shape
// with one level of brackets per dimension (none for rank 0).
func (p *printer) appendNested(shape []int64, elem func(i int64)) {
	if len(shape) == 0 {
		elem(0)
		return
	}
	strides := make([]int64, len(shape))
	s := int64(1)
	for d := len(shape) - 1; d >= 0; d-- {
		strides[d] = s
		s *= shape[d]
	}
	var rec func(d int, base int64)
	rec = func(d int, base int64) {
		p.buf = append(p.buf, '[')
		for j := int64(0); j < shape[d]; j++ {
			if j > 0 {
				p.buf = append(p.buf, ", "...)
			}
			if d == len(shape)-1 {
				elem(base + j)
			} else {
				rec(d+1, base+j*strides[d])
			}
		}
		p.buf = append(p.buf, ']')
	}
	rec(0, 0)
}

func (p *printer) appendHexData(data []byte) {
	const hex = "0123456789ABCDEF"
	p.buf = append(p.buf, '"', '0', 'x')
	for _, c := range data {
		p.buf = append(p.buf, hex[c>>4], hex[c&15])
	}
	p.buf = append(p.buf, '"')
}

// appendLoc writes loc(...).
func (p *printer) appendLoc(l Location) {
	p.buf = append(p.buf, "loc("...)
	p.appendLocBody(l)
	p.buf = append(p.buf, ')')
}

func (p *printer) appendLocBody(l Location) {
	switch l := l.(type) {
	case nil, UnknownLoc:
		p.buf = append(p.buf, "unknown"...)
	case FileLineColLoc:
		p.appendQuoted(l.File)
		p.buf = append(p.buf, ':')
		p.buf = strconv.AppendInt(p.buf, int64(l.Line), 10)
		p.buf = append(p.buf, ':')
		p.buf = strconv.AppendInt(p.buf, int64(l.Col), 10)
	case NameLoc:
		p.appendQuoted(l.Name)
		if l.Child != nil {
			if _, unknown := l.Child.(UnknownLoc); !unknown {
				p.buf = append(p.buf, '(')
				p.appendLocBody(l.Child)
				p.buf = append(p.buf, ')')
			}
		}
	case FusedLoc:
		p.buf = append(p.buf, "fused"...)
		if l.Metadata != nil {
			p.buf = append(p.buf, '<')
			p.appendAttr(l.Metadata)
			p.buf = append(p.buf, '>')
		}
		p.buf = append(p.buf, '[')
		for i, c := range l.Locs {
			if i > 0 {
				p.buf = append(p.buf, ", "...)
			}
			p.appendLocBody(c)
		}
		p.buf = append(p.buf, ']')
	case CallSiteLoc:
		p.buf = append(p.buf, "callsite("...)
		p.appendLocBody(l.Callee)
		p.buf = append(p.buf, " at "...)
		p.appendLocBody(l.Caller)
		p.buf = append(p.buf, ')')
	default:
		p.appendQuoted(l.String())
	}
}
