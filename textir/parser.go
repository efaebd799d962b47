package textir

// The parser of MLIR's textual format.
//
// Design, decided by measurement (2-core machine, Go 1.26). The machine was
// shared with other builds while measuring (load average 15-18 on 2 cores),
// so wall times were 3-5x the CPU times; the benchmarks therefore also
// report the process CPU time per op (cpu-s/op, user+system, GC included),
// which is what an idle 2-core machine would show as wall time or less.
//
//	BenchmarkParse1M              (1,000,000 generic-form ops, 120 MB of text)
//	    4.6 cpu-s/op, 778 MB allocated, 6.5 M allocs, max RSS ~0.9 GB
//	BenchmarkParse100k            0.31 cpu-s/op, 78 MB allocated, 0.65 M allocs
//	BenchmarkParseVerifyPrint1M   5.3 cpu-s/op, 815 MB allocated, max RSS 0.94 GB
//	                              (budget: 10 s and 4 GiB)
//	BenchmarkParticipleTensorType 37,000 ns/op, 78 allocs  (one tensor type)
//	BenchmarkHandTensorType        1,400 ns/op,  5 allocs  (same, this parser,
//	                               uncached; cached spellings cost a map lookup)
//
//   - Lexing is hand-written (lexer.go): an on-demand lexer over the source
//     string, one token of lookahead, no token slice; tokens are spans of the
//     source (no allocation per token). STYLE.md measured participle's regex
//     lexer at ~20k ops in 3 s, i.e. ~150 s for 1M ops.
//   - Types, attributes and locations are hand-written recursive descent.
//     A participle grammar for tensor types driven through ParseFromLexer over
//     a hand-written token stream (parser_participle_test.go) costs ~37 us per
//     type; the 1M-op module holds ~2.5M type spellings (~90 s) and ~1.5M
//     attributes, which differ per op and cannot be memoized. Memoizing types
//     by spelling would need a hand-written scanner to find the spelling's
//     extent first, at which point the hand-written parser is as short.
//     Repeated type text is memoized here too (typeCache), so the builtin
//     type constructors (which lock and hash) run once per distinct spelling.
//   - The op/region/block structure, value scoping and forward references are
//     hand-written: custom op forms call back into the parser through
//     OpParser (dialects' OpDef.Parse hooks), which a participle grammar
//     cannot express, and participle would build an AST we would walk again.
//   - Value names %N (as printers number them) are looked up in chunked
//     arrays indexed by N, other names in a map; scratch stacks (operand uses,
//     types, values, successors, attributes) are reused by nested ops.

import (
	"slices"
	"sort"
	"strconv"
	"strings"
	"unsafe"

	"github.com/recom-compiler/recom/textir/inputfile"
)

// Parse parses a file in MLIR's textual format. If the file holds exactly
// one builtin.module op, that op is returned; otherwise the top-level ops are
// wrapped in a new builtin.module (as mlir-opt does). Errors are
// *Diagnostic values at the offending token.
func Parse(ctx *Context, filename string, src []byte) (*Operation, error) {
	p := newParser(ctx, filename, string(src))
	return p.parseFile()
}

// ParseFile reads the file at path and parses it as Parse does. The file is
// read with inputfile's bound on its size: a larger file, or a device that
// does not end (/dev/zero), is refused with an error naming it and the
// limit (RECOM_MAX_INPUT_BYTES).
func ParseFile(ctx *Context, path string) (*Operation, error) {
	src, err := inputfile.Read(path)
	if err != nil {
		return nil, err
	}
	if len(src) == 0 {
		return ParseAtLine(ctx, path, "", 1)
	}
	// The buffer is the parser's alone: no copy into a string.
	return ParseAtLine(ctx, path, unsafe.String(&src[0], len(src)), 1)
}

// ParseAtLine parses src as Parse does, for text that begins at line
// firstLine of filename (a chunk of a file cut at `// -----` lines):
// locations and diagnostics carry the line numbers of the whole file.
func ParseAtLine(ctx *Context, filename, src string, firstLine int) (*Operation, error) {
	p := newParser(ctx, filename, src)
	p.firstLine = max(firstLine, 1)
	return p.parseFile()
}

// ParseType parses a type.
func ParseType(ctx *Context, src string) (Type, error) {
	p := newParser(ctx, "<type>", src)
	t, err := p.parseType()
	if err != nil {
		return nil, err
	}
	if err := p.expectEOF(); err != nil {
		return nil, err
	}
	return t, nil
}

// ParseAttribute parses an attribute.
func ParseAttribute(ctx *Context, src string) (Attribute, error) {
	p := newParser(ctx, "<attribute>", src)
	a, err := p.parseAttribute()
	if err != nil {
		return nil, err
	}
	if err := p.expectEOF(); err != nil {
		return nil, err
	}
	return a, nil
}

// ParseLocation parses a location, with or without the loc(...) wrapper.
func ParseLocation(ctx *Context, src string) (Location, error) {
	p := newParser(ctx, "<location>", src)
	var l Location
	var err error
	if p.isKeyword("loc") {
		l, _, err = p.parseOptionalLoc()
	} else {
		l, err = p.parseLocInner()
	}
	if err != nil {
		return nil, err
	}
	if err := p.expectEOF(); err != nil {
		return nil, err
	}
	if _, bad := l.(locAliasRef); bad || p.deferredLocs {
		return nil, p.errAt(0, "undefined location alias")
	}
	return l, nil
}

type parser struct {
	ctx     *Context
	file    string
	src     string
	lx      lexer
	tok     token
	prevEnd int
	depth   int

	typeAliases  map[string]Type
	attrAliases  map[string]Attribute
	locAliases   map[string]Location
	deferredLocs bool

	typeCache map[string]Type
	infoCache map[string]*OpInfo

	iso     []*isoScope
	regions []*regionScope

	// Positions to line numbers: lineStarts holds the byte offset of each
	// line that begins in src[:scanned], in order (lineStarts[0] is 0), so
	// that every byte of the source is scanned for newlines once, however
	// long its line is and in whatever order locations are asked for.
	lineStarts []int
	scanned    int
	firstLine  int // the line number of src's first line

	// defaultDialect is the dialect whose ops may be named without their
	// prefix in the regions being parsed: the OpDef.DefaultDialect of the
	// op they belong to.
	defaultDialect string

	// Stacks of scratch space shared by nested ops (each op uses the part
	// above the length it found and truncates back when done).
	useBuf  []useRef
	typeBuf []Type
	valBuf  []*Value
	succBuf []*Block
	attrBuf []NamedAttribute
}

func newParser(ctx *Context, file, src string) *parser {
	p := &parser{ctx: ctx, file: file, src: src, lineStarts: []int{0}, firstLine: 1}
	p.lx.src = src
	p.typeCache = map[string]Type{}
	p.tok = p.lx.next()
	return p
}

// opInfo returns the context's info for an op name read from the source;
// names are copied so that the context does not keep the source alive.
func (p *parser) opInfo(name string) *OpInfo {
	if info, ok := p.infoCache[name]; ok {
		return info
	}
	if p.infoCache == nil {
		p.infoCache = map[string]*OpInfo{}
	}
	name = strings.Clone(name)
	info := p.ctx.OpInfo(name)
	p.infoCache[name] = info
	return info
}

// ---- tokens and errors ----

func (p *parser) advance() {
	p.prevEnd = p.tok.end
	p.tok = p.lx.next()
}

// resetTo re-lexes from byte offset pos.
func (p *parser) resetTo(pos int) {
	p.lx.pos = pos
	p.tok = p.lx.next()
}

func (p *parser) spell() string { return p.src[p.tok.start:p.tok.end] }

func (p *parser) isKeyword(kw string) bool { return p.tok.kind == tBare && p.spell() == kw }

func (p *parser) consume(k tokKind) bool {
	if p.tok.kind == k {
		p.advance()
		return true
	}
	return false
}

func (p *parser) lineCol(pos int) (int, int) {
	for p.scanned < pos {
		i := strings.IndexByte(p.src[p.scanned:pos], '\n')
		if i < 0 {
			p.scanned = pos
			break
		}
		p.scanned += i + 1
		p.lineStarts = append(p.lineStarts, p.scanned)
	}
	// The line is the last one that starts at or before pos: usually the
	// last one found, else a binary search.
	n := len(p.lineStarts)
	if p.lineStarts[n-1] > pos {
		n = sort.SearchInts(p.lineStarts, pos+1)
	}
	return p.firstLine + n - 1, pos - p.lineStarts[n-1] + 1
}

func (p *parser) locAt(pos int) FileLineColLoc {
	l, c := p.lineCol(pos)
	return FileLineColLoc{File: p.file, Line: l, Col: c}
}

func (p *parser) errAt(pos int, format string, args ...any) *Diagnostic {
	return Errorf(p.locAt(pos), format, args...)
}

// errorf reports an error at the current token (or the lexer's error).
func (p *parser) errorf(format string, args ...any) *Diagnostic {
	if p.tok.kind == tError {
		return p.errAt(p.lx.errPos, "%s", p.lx.errMsg)
	}
	return p.errAt(p.tok.start, format, args...)
}

// expected reports "expected WHAT, got TOKEN".
func (p *parser) expected(what string) *Diagnostic {
	if p.tok.kind == tError {
		return p.errAt(p.lx.errPos, "%s", p.lx.errMsg)
	}
	return p.errAt(p.tok.start, "expected %s, got %s", what, p.lx.describe(p.tok))
}

func (p *parser) expect(k tokKind, what string) error {
	if p.tok.kind != k {
		return p.expected(what)
	}
	p.advance()
	return nil
}

func (p *parser) expectEOF() error {
	if p.tok.kind != tEOF {
		return p.expected("end of input")
	}
	return nil
}

func (p *parser) enter() error {
	p.depth++
	if int64(p.depth) > MaxNesting {
		return p.errorf("%v", nestingLimit())
	}
	return nil
}

func (p *parser) leave() { p.depth-- }

// ---- value scopes ----

// useRef is an operand use read before its type is known.
type useRef struct {
	name string
	num  int
	pos  int
}

// fwdUse is a use of a value before its definition, through a placeholder.
type fwdUse struct {
	num int
	val *Value
	pos int
}

// ssaEntry is what a name denotes in an isolated scope: a group of op
// results, a block argument, or (not yet defined) forward uses.
type ssaEntry struct {
	op       *Operation
	arg      *Value
	first, n int32
	pos      int32
	fwd      []fwdUse
}

func (e *ssaEntry) defined() bool { return e.op != nil || e.arg != nil }
func (e *ssaEntry) used() bool    { return e.op != nil || e.arg != nil || e.fwd != nil }

func (e *ssaEntry) value(i int) *Value {
	if e.arg != nil {
		return e.arg
	}
	return &e.op.results[int(e.first)+i]
}

// isoScope is the name scope of an op that is isolated from above (and of
// the file's top level): names from outside are not visible inside. Names
// %N (as printers number values) live in a slice indexed by N; other names
// in a map.
type isoScope struct {
	values map[string]ssaEntry
	chunks [][]ssaEntry // %N is chunks[N>>numChunkBits][N&numChunkMask]
	nfwd   int
}

const (
	numChunkBits = 12
	numChunkMask = 1<<numChunkBits - 1
)

// numericName returns N for a name %N written without leading zeros.
func numericName(name string) (int, bool) {
	if len(name) < 2 || len(name) > 9 || (name[1] == '0' && len(name) > 2) {
		return 0, false
	}
	n := 0
	for i := 1; i < len(name); i++ {
		c := name[i]
		if !isDigit(c) {
			return 0, false
		}
		n = n*10 + int(c-'0')
	}
	return n, true
}

// slot returns the slot of %N, or nil when N is beyond the allocated chunks.
func (sc *isoScope) slot(n int) *ssaEntry {
	if c := n >> numChunkBits; c < len(sc.chunks) {
		return &sc.chunks[c][n&numChunkMask]
	}
	return nil
}

func (sc *isoScope) get(name string) (ssaEntry, bool) {
	if n, ok := numericName(name); ok {
		if e := sc.slot(n); e != nil && e.used() {
			return *e, true
		}
	}
	if len(sc.values) == 0 {
		return ssaEntry{}, false
	}
	e, ok := sc.values[name]
	return e, ok
}

func (sc *isoScope) set(name string, e ssaEntry) {
	if n, ok := numericName(name); ok {
		if _, inMap := sc.values[name]; !inMap {
			// Grow by whole chunks, but not for a far-away number.
			for c := n >> numChunkBits; c >= len(sc.chunks) && c < len(sc.chunks)+4; {
				sc.chunks = append(sc.chunks, make([]ssaEntry, 1<<numChunkBits))
			}
			if s := sc.slot(n); s != nil {
				*s = e
				return
			}
		}
	}
	if sc.values == nil {
		sc.values = map[string]ssaEntry{}
	}
	sc.values[name] = e
}

func (sc *isoScope) del(name string) {
	if n, ok := numericName(name); ok {
		if s := sc.slot(n); s != nil && s.used() {
			*s = ssaEntry{}
			return
		}
	}
	delete(sc.values, name)
}

// regionScope tracks the names and block labels of one region.
type regionScope struct {
	region *Region
	blocks map[string]*blockRef
	defs   []string // names to forget when the region ends
	isoTop bool     // the region opened an isolated scope (names die with it)
}

type blockRef struct {
	b       *Block
	defined bool
	pos     int // first use or definition
}

func (p *parser) pushRegion(r *Region, isolated bool) {
	if isolated || len(p.iso) == 0 {
		p.iso = append(p.iso, &isoScope{})
	}
	p.regions = append(p.regions, &regionScope{region: r, isoTop: isolated || len(p.regions) == 0})
}

func (p *parser) popRegion() error {
	rs := p.regions[len(p.regions)-1]
	p.regions = p.regions[:len(p.regions)-1]
	var err error
	if rs.blocks != nil {
		first := -1
		for _, br := range rs.blocks {
			if !br.defined && (first < 0 || br.pos < first) {
				first = br.pos
			}
		}
		if first >= 0 {
			err = p.errAt(first, "reference to an undefined block")
		}
	}
	sc := p.iso[len(p.iso)-1]
	if rs.isoTop {
		p.iso = p.iso[:len(p.iso)-1]
		if sc.nfwd > 0 && err == nil {
			first, name := -1, ""
			check := func(n string, e ssaEntry) {
				if !e.defined() {
					for _, u := range e.fwd {
						if first < 0 || u.pos < first {
							first, name = u.pos, n
						}
					}
				}
			}
			for n, e := range sc.values {
				check(n, e)
			}
			for c, chunk := range sc.chunks {
				for i, e := range chunk {
					check("%"+strconv.Itoa(c<<numChunkBits+i), e)
				}
			}
			err = p.errAt(first, "use of undeclared SSA value name '%s'", name)
		}
		return err
	}
	for _, n := range rs.defs {
		sc.del(n)
	}
	return err
}

func (p *parser) curRegion() *regionScope { return p.regions[len(p.regions)-1] }

// define binds name to n values (op results from first, or a block argument).
func (p *parser) define(name string, pos int, op *Operation, first, n int, arg *Value) error {
	sc := p.iso[len(p.iso)-1]
	e, ok := sc.get(name)
	if ok && e.defined() {
		return p.errAt(pos, "redefinition of SSA value '%s'", name).
			AttachNote(p.locAt(int(e.pos)), "previously defined here")
	}
	ne := ssaEntry{op: op, arg: arg, first: int32(first), n: int32(n), pos: int32(pos)}
	if ok {
		sc.nfwd--
		for _, u := range e.fwd {
			if u.num >= n {
				return p.errAt(u.pos, "reference to invalid result number")
			}
			real := ne.value(u.num)
			if real.typ != u.val.typ {
				return p.errAt(u.pos, "use of value '%s' expects type %s, but its definition has type %s",
					name, quoteType(u.val.typ), quoteType(real.typ)).AttachNote(p.locAt(pos), "defined here")
			}
			u.val.ReplaceAllUsesWith(real)
		}
	}
	sc.set(name, ne)
	if rs := p.curRegion(); !rs.isoTop {
		rs.defs = append(rs.defs, name)
	}
	return nil
}

func quoteType(t Type) string { return "'" + t.String() + "'" }

// resolve returns the value of a use with the type it is used with. A use
// before the definition gets a placeholder replaced when the name is defined.
func (p *parser) resolve(u useRef, t Type) (*Value, error) {
	sc := p.iso[len(p.iso)-1]
	e, ok := sc.get(u.name)
	if ok && e.defined() {
		if u.num >= int(e.n) {
			return nil, p.errAt(u.pos, "reference to invalid result number")
		}
		v := e.value(u.num)
		if v.typ != t {
			return nil, p.errAt(u.pos, "use of value '%s' expects different type than prior uses: %s vs %s",
				u.name, quoteType(t), quoteType(v.typ)).AttachNote(p.locAt(int(e.pos)), "prior use here")
		}
		return v, nil
	}
	for _, f := range e.fwd {
		if f.num == u.num {
			if f.val.typ != t {
				return nil, p.errAt(u.pos, "use of value '%s' expects different type than prior uses: %s vs %s",
					u.name, quoteType(t), quoteType(f.val.typ)).AttachNote(p.locAt(f.pos), "prior use here")
			}
			return f.val, nil
		}
	}
	if !ok {
		sc.nfwd++
	}
	v := &Value{typ: t}
	e.fwd = append(e.fwd, fwdUse{num: u.num, val: v, pos: u.pos})
	sc.set(u.name, e)
	return v, nil
}

// parseUse reads %name or %name#n.
func (p *parser) parseUse() (useRef, error) {
	if p.tok.kind != tPercent {
		return useRef{}, p.expected("SSA operand")
	}
	u := useRef{name: p.spell(), pos: p.tok.start}
	p.advance()
	if p.tok.kind == tHash && p.tok.start == p.prevEnd && isDigit(p.src[p.tok.start+1]) {
		n, err := strconv.Atoi(p.src[p.tok.start+1 : p.tok.end])
		if err != nil || n < 0 {
			return useRef{}, p.errorf("invalid SSA value result number")
		}
		u.num = n
		p.advance()
	}
	return u, nil
}

// ---- blocks ----

// blockFor returns the block labelled name in the current region, creating
// a forward reference if it is not defined yet.
func (p *parser) blockFor(name string, pos int) *Block {
	rs := p.curRegion()
	if rs.blocks == nil {
		rs.blocks = map[string]*blockRef{}
	}
	if br, ok := rs.blocks[name]; ok {
		return br.b
	}
	br := &blockRef{b: &Block{}, pos: pos}
	rs.blocks[name] = br
	return br.b
}

func (p *parser) parseSuccessor() (*Block, error) {
	if p.tok.kind != tCaret {
		return nil, p.expected("block name")
	}
	b := p.blockFor(p.spell(), p.tok.start)
	p.advance()
	return b, nil
}

// parseSuccessorOperands reads the optional "(%a, %b : t1, t2)" after a
// successor and appends the values to p.valBuf.
func (p *parser) parseSuccessorOperands() error {
	if p.tok.kind != tLParen {
		return nil
	}
	p.advance()
	base := len(p.useBuf)
	defer func() { p.useBuf = p.useBuf[:base] }()
	for p.tok.kind != tColon {
		u, err := p.parseUse()
		if err != nil {
			return err
		}
		p.useBuf = append(p.useBuf, u)
		if !p.consume(tComma) {
			break
		}
	}
	n := len(p.useBuf) - base
	if n > 0 {
		if err := p.expect(tColon, "':'"); err != nil {
			return err
		}
		for i := 0; i < n; i++ {
			if i > 0 {
				if err := p.expect(tComma, "','"); err != nil {
					return err
				}
			}
			t, err := p.parseType()
			if err != nil {
				return err
			}
			v, err := p.resolve(p.useBuf[base+i], t)
			if err != nil {
				return err
			}
			p.valBuf = append(p.valBuf, v)
		}
	}
	return p.expect(tRParen, "')'")
}

// parseRegion reads "{ blocks }" into r. args, when non-nil, are the entry
// block's arguments declared by a custom form.
func (p *parser) parseRegion(r *Region, args []Argument, isolated bool) error {
	if p.tok.kind != tLBrace {
		return p.expected("'{' to begin a region")
	}
	if err := p.enter(); err != nil {
		return err
	}
	defer p.leave()
	p.advance()
	p.pushRegion(r, isolated)
	err := p.parseRegionBody(r, args)
	if perr := p.popRegion(); err == nil {
		err = perr
	}
	return err
}

func (p *parser) parseRegionBody(r *Region, args []Argument) error {
	if p.tok.kind == tRBrace && args == nil {
		p.advance()
		return nil
	}
	if p.tok.kind != tCaret {
		entry := &Block{}
		r.AppendBlock(entry)
		for _, a := range args {
			v := entry.AddArgument(a.Type)
			if a.Loc != nil {
				v.SetLoc(a.Loc)
			}
			if a.Name != "" {
				pos := p.tok.start
				if a.srcPos > 0 {
					pos = a.srcPos - 1
				}
				if err := p.define(a.Name, pos, nil, 0, 1, v); err != nil {
					return err
				}
			}
		}
		if err := p.parseOps(entry); err != nil {
			return err
		}
	} else if args != nil {
		return p.errorf("invalid block name in region with named arguments")
	}
	for p.tok.kind == tCaret {
		if err := p.parseBlock(r); err != nil {
			return err
		}
	}
	return p.expect(tRBrace, "'}' to end a region")
}

// parseBlock reads "^bb(%a: t, ...):" and the block's ops.
func (p *parser) parseBlock(r *Region) error {
	name, pos := p.spell(), p.tok.start
	rs := p.curRegion()
	if rs.blocks == nil {
		rs.blocks = map[string]*blockRef{}
	}
	br, ok := rs.blocks[name]
	if ok && br.defined {
		return p.errAt(pos, "redefinition of block '%s'", name)
	}
	if !ok {
		br = &blockRef{b: &Block{}}
		rs.blocks[name] = br
	}
	br.defined, br.pos = true, pos
	b := br.b
	r.AppendBlock(b)
	p.advance()
	if p.consume(tLParen) {
		if p.tok.kind != tRParen {
			for {
				if p.tok.kind != tPercent {
					return p.expected("block argument name")
				}
				an, apos := p.spell(), p.tok.start
				p.advance()
				if err := p.expect(tColon, "':' and type for block argument"); err != nil {
					return err
				}
				t, err := p.parseType()
				if err != nil {
					return err
				}
				loc, hasLoc, err := p.parseOptionalLoc()
				if err != nil {
					return err
				}
				arg := b.AddArgument(t)
				if hasLoc {
					arg.SetLoc(loc)
				}
				if err := p.define(an, apos, nil, 0, 1, arg); err != nil {
					return err
				}
				if !p.consume(tComma) {
					break
				}
			}
		}
		if err := p.expect(tRParen, "')' to end block argument list"); err != nil {
			return err
		}
	}
	if err := p.expect(tColon, "':' after block name"); err != nil {
		return err
	}
	return p.parseOps(b)
}

func (p *parser) parseOps(b *Block) error {
	for {
		switch p.tok.kind {
		case tRBrace, tCaret, tEOF:
			return nil
		}
		if err := p.parseOperation(b); err != nil {
			return err
		}
	}
}

// ---- operations ----

type resultGroup struct {
	name string
	n    int
	pos  int
}

// parseOperation reads one op (generic or custom form) and appends it to b.
func (p *parser) parseOperation(b *Block) error {
	start := p.tok.start
	src := Location(p.locAt(start))
	var groupsBuf [2]resultGroup
	groups := groupsBuf[:0]
	total := 0
	if p.tok.kind == tPercent {
		for {
			if p.tok.kind != tPercent {
				return p.expected("SSA result name")
			}
			g := resultGroup{name: p.spell(), n: 1, pos: p.tok.start}
			p.advance()
			if p.tok.kind == tColon {
				p.advance()
				if p.tok.kind != tInt {
					return p.expected("integer number of results")
				}
				n, err := strconv.Atoi(p.spell())
				if err != nil || n < 1 || strings.HasPrefix(p.spell(), "0x") {
					return p.errorf("expected named operation to have at least 1 result")
				}
				g.n = n
				p.advance()
			}
			if total+g.n < total {
				return p.errAt(g.pos, "too many results")
			}
			total += g.n
			groups = append(groups, g)
			if !p.consume(tComma) {
				break
			}
		}
		if err := p.expect(tEqual, "'='"); err != nil {
			return err
		}
	}
	var op *Operation
	var err error
	explicitLoc := false
	switch p.tok.kind {
	case tString:
		op, explicitLoc, err = p.parseGenericOp()
	case tBare:
		op, explicitLoc, err = p.parseCustomOp()
	default:
		return p.expected("operation name in quotes")
	}
	if err != nil {
		return err
	}
	if !explicitLoc {
		l, ok, err := p.parseOptionalLoc()
		if err != nil {
			return err
		}
		if ok {
			op.loc, explicitLoc = l, true
		}
	}
	op.srcLoc = src
	if !explicitLoc {
		op.loc = src
	}
	b.Append(op)
	if total != len(op.results) {
		if len(groups) == 0 {
			return nil // results without names are fine
		}
		return p.errAt(start, "operation defines %d results but was provided %d to bind", len(op.results), total)
	}
	first := 0
	for _, g := range groups {
		if err := p.define(g.name, g.pos, op, first, g.n, nil); err != nil {
			return err
		}
		first += g.n
	}
	return nil
}

// parseGenericOp reads "name"(operands) [succs] <props> (regions) {attrs} : type loc.
func (p *parser) parseGenericOp() (*Operation, bool, error) {
	name := unquote(p.spell())
	if name == "" {
		return nil, false, p.errorf("empty operation name is invalid")
	}
	p.advance()
	info := p.opInfo(name)
	name = info.Name
	isolated := info.Def != nil && info.Def.Traits&IsolatedFromAbove != 0
	savedDefault := p.defaultDialect
	p.defaultDialect = ""
	if info.Def != nil {
		p.defaultDialect = info.Def.DefaultDialect
	}
	defer func() { p.defaultDialect = savedDefault }()

	useBase, typeBase, valBase, succBase, attrBase := len(p.useBuf), len(p.typeBuf), len(p.valBuf), len(p.succBuf), len(p.attrBuf)
	defer func() {
		p.useBuf, p.typeBuf, p.valBuf = p.useBuf[:useBase], p.typeBuf[:typeBase], p.valBuf[:valBase]
		p.succBuf, p.attrBuf = p.succBuf[:succBase], p.attrBuf[:attrBase]
	}()

	if err := p.expect(tLParen, "'(' to start operand list"); err != nil {
		return nil, false, err
	}
	if p.tok.kind != tRParen {
		for {
			u, err := p.parseUse()
			if err != nil {
				return nil, false, err
			}
			p.useBuf = append(p.useBuf, u)
			if !p.consume(tComma) {
				break
			}
		}
	}
	if err := p.expect(tRParen, "')' to end operand list"); err != nil {
		return nil, false, err
	}
	nOperands := len(p.useBuf) - useBase

	// Successors; their operands are resolved at once and kept in succVals.
	var succVals []*Value
	if p.tok.kind == tLBracket {
		p.advance()
		vb := len(p.valBuf)
		for {
			b, err := p.parseSuccessor()
			if err != nil {
				return nil, false, err
			}
			p.succBuf = append(p.succBuf, b)
			if err := p.parseSuccessorOperands(); err != nil {
				return nil, false, err
			}
			if !p.consume(tComma) {
				break
			}
		}
		if err := p.expect(tRBracket, "']' to end successor list"); err != nil {
			return nil, false, err
		}
		succVals = append(succVals, p.valBuf[vb:]...)
		p.valBuf = p.valBuf[:vb]
	}
	nSucc := len(p.succBuf) - succBase

	var props Attribute
	if p.tok.kind == tLess {
		p.advance()
		a, err := p.parseAttribute()
		if err != nil {
			return nil, false, err
		}
		props = a
		if err := p.expect(tGreater, "'>' to close properties"); err != nil {
			return nil, false, err
		}
	}

	var regions []*Region
	if p.tok.kind == tLParen {
		p.advance()
		for {
			r := &Region{}
			if err := p.parseRegion(r, nil, isolated); err != nil {
				return nil, false, err
			}
			regions = append(regions, r)
			if !p.consume(tComma) {
				break
			}
		}
		if err := p.expect(tRParen, "')' to end region list"); err != nil {
			return nil, false, err
		}
	}

	if p.tok.kind == tLBrace {
		if err := p.parseAttrDictInto(); err != nil {
			return nil, false, err
		}
	}
	nAttrs := len(p.attrBuf) - attrBase

	if err := p.expect(tColon, "':' followed by operation type"); err != nil {
		return nil, false, err
	}
	typePos := p.tok.start
	if p.tok.kind != tLParen {
		return nil, false, p.expected("function type")
	}
	if err := p.parseTypeListParens(); err != nil {
		return nil, false, err
	}
	nIn := len(p.typeBuf) - typeBase
	if err := p.expect(tArrow, "'->' in function type"); err != nil {
		return nil, false, err
	}
	if p.tok.kind == tLParen {
		if err := p.parseTypeListParens(); err != nil {
			return nil, false, err
		}
	} else {
		t, err := p.parseType()
		if err != nil {
			return nil, false, err
		}
		p.typeBuf = append(p.typeBuf, t)
	}
	if nIn != nOperands {
		return nil, false, p.errAt(typePos, "expected %d operand type%s but had %d", nOperands, pluralS(nOperands), nIn)
	}
	for i := 0; i < nOperands; i++ {
		v, err := p.resolve(p.useBuf[useBase+i], p.typeBuf[typeBase+i])
		if err != nil {
			return nil, false, err
		}
		p.valBuf = append(p.valBuf, v)
	}
	p.valBuf = append(p.valBuf, succVals...)

	l, hasLoc, err := p.parseOptionalLoc()
	if err != nil {
		return nil, false, err
	}
	st := OperationState{
		Name:        name,
		Loc:         l,
		Operands:    p.valBuf[valBase:],
		ResultTypes: p.typeBuf[typeBase+nIn:],
		Props:       props,
		Regions:     regions,
	}
	if nSucc > 0 {
		st.Successors = p.succBuf[succBase:]
	}
	op := p.ctx.Create(&st)
	if nAttrs > 0 {
		// Sorted here rather than by NewDictAttr (sort.SliceStable costs
		// reflection and an allocation per op); names are already unique.
		op.attrs = sortedAttrs(p.attrBuf[attrBase:])
	}
	return op, hasLoc, nil
}

// sortedAttrs returns a sorted copy of a list of attributes with unique names.
func sortedAttrs(as []NamedAttribute) []NamedAttribute {
	out := make([]NamedAttribute, len(as))
	copy(out, as)
	if len(out) > 16 {
		slices.SortFunc(out, func(a, b NamedAttribute) int { return strings.Compare(a.Name, b.Name) })
		return out
	}
	for i := 1; i < len(out); i++ {
		for j := i; j > 0 && out[j].Name < out[j-1].Name; j-- {
			out[j], out[j-1] = out[j-1], out[j]
		}
	}
	return out
}

func pluralS(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

// parseTypeListParens reads "(t1, t2)" and appends the types to p.typeBuf.
func (p *parser) parseTypeListParens() error {
	p.advance() // (
	if p.tok.kind != tRParen {
		for {
			t, err := p.parseType()
			if err != nil {
				return err
			}
			p.typeBuf = append(p.typeBuf, t)
			if !p.consume(tComma) {
				break
			}
		}
	}
	return p.expect(tRParen, "')' in type list")
}

// parseCustomOp reads an op in its custom form through its OpDef.Parse hook.
func (p *parser) parseCustomOp() (*Operation, bool, error) {
	name, pos := p.spell(), p.tok.start
	def := p.ctx.LookupOp(name)
	if def == nil && !strings.Contains(name, ".") && p.defaultDialect != "" {
		// MLIR's default dialect: "return" in a func.func is func.return.
		def = p.ctx.LookupOp(p.defaultDialect + "." + name)
	}
	if def == nil && !strings.Contains(name, ".") {
		def = p.ctx.LookupOp("builtin." + name)
	}
	if def == nil || def.Parse == nil {
		if name == "module" || name == "builtin.module" {
			p.advance()
			op, err := p.parseModuleFallback()
			return op, false, err
		}
		return nil, false, p.errAt(pos, "custom op '%s' is unknown", name)
	}
	p.advance()
	st := &OperationState{Name: def.Name}
	op := &OpParser{impl: p, isolated: def.Traits&IsolatedFromAbove != 0}
	savedDefault := p.defaultDialect
	p.defaultDialect = def.DefaultDialect
	defer func() { p.defaultDialect = savedDefault }()
	if err := def.Parse(op, st); err != nil {
		if _, ok := err.(*Diagnostic); ok {
			return nil, false, err
		}
		return nil, false, p.errorf("%s", err.Error())
	}
	return p.ctx.Create(st), st.Loc != nil, nil
}

// parseModuleFallback parses "module @name? attributes {..}? {region}" when
// no builtin dialect with a custom parser is registered.
func (p *parser) parseModuleFallback() (*Operation, error) {
	st := &OperationState{Name: "builtin.module"}
	if p.tok.kind == tAt {
		st.AddAttr("sym_name", StringAttr{Value: p.symName()})
		p.advance()
	}
	if p.isKeyword("attributes") {
		p.advance()
		base := len(p.attrBuf)
		if err := p.parseAttrDictInto(); err != nil {
			return nil, err
		}
		st.Attrs = append(st.Attrs, p.attrBuf[base:]...)
		p.attrBuf = p.attrBuf[:base]
	}
	r := &Region{}
	if err := p.parseRegion(r, nil, true); err != nil {
		return nil, err
	}
	if r.Empty() {
		r.AppendBlock(&Block{})
	}
	st.Regions = []*Region{r}
	return p.ctx.Create(st), nil
}

// symName returns the name of the current @symbol token, unquoted.
func (p *parser) symName() string {
	s := p.src[p.tok.start+1 : p.tok.end]
	if strings.HasPrefix(s, `"`) {
		return unquote(s)
	}
	return s
}

// ---- file ----

func (p *parser) parseFile() (*Operation, error) {
	mod := p.ctx.Create(&OperationState{Name: "builtin.module", NumRegions: 1})
	body := &Block{}
	mod.regions[0].AppendBlock(body)
	top := Location(FileLineColLoc{File: p.file, Line: p.firstLine, Col: 1})
	mod.loc, mod.srcLoc = top, top
	p.pushRegion(mod.regions[0], true)
	for p.tok.kind != tEOF {
		var err error
		switch p.tok.kind {
		case tHash:
			err = p.parseAttrAliasDef()
		case tBang:
			err = p.parseTypeAliasDef()
		case tFileMetaOpen:
			i := strings.Index(p.src[p.tok.end:], "#-}")
			if i < 0 {
				return nil, p.errorf("unterminated file metadata dictionary, expected '#-}'")
			}
			p.resetTo(p.tok.end + i + 3)
		default:
			err = p.parseOperation(body)
		}
		if err != nil {
			return nil, err
		}
	}
	if err := p.popRegion(); err != nil {
		return nil, err
	}
	if p.deferredLocs {
		var err error
		mod.Walk(func(op *Operation) bool {
			if err == nil {
				op.loc, err = p.resolveDeferredLoc(op.loc)
			}
			for _, r := range op.regions {
				for _, b := range r.blocks {
					for _, a := range b.args {
						if err == nil && a.loc != nil {
							a.loc, err = p.resolveDeferredLoc(a.loc)
						}
					}
				}
			}
			return err == nil
		})
		if err != nil {
			return nil, err
		}
	}
	if body.numOps == 1 && body.first.Name() == "builtin.module" {
		m := body.first
		m.Remove()
		return m, nil
	}
	return mod, nil
}

func (p *parser) parseAttrAliasDef() error {
	name, pos := p.src[p.tok.start+1:p.tok.end], p.tok.start
	if isDigit(name[0]) {
		return p.expected("attribute alias definition or operation")
	}
	if strings.Contains(name, ".") {
		return p.errorf("attribute names with a '.' are reserved for dialect-defined names")
	}
	p.advance()
	if err := p.expect(tEqual, "'=' in attribute alias definition"); err != nil {
		return err
	}
	if p.attrAliases == nil {
		p.attrAliases, p.locAliases = map[string]Attribute{}, map[string]Location{}
	}
	_, dupA := p.attrAliases[name]
	_, dupL := p.locAliases[name]
	if dupA || dupL {
		return p.errAt(pos, "redefinition of attribute alias id '%s'", name)
	}
	if p.isKeyword("loc") {
		l, _, err := p.parseOptionalLoc()
		if err != nil {
			return err
		}
		p.locAliases[name] = l
		return nil
	}
	a, err := p.parseAttribute()
	if err != nil {
		return err
	}
	p.attrAliases[name] = a
	return nil
}

func (p *parser) parseTypeAliasDef() error {
	name, pos := p.src[p.tok.start+1:p.tok.end], p.tok.start
	if strings.Contains(name, ".") {
		return p.errorf("type names with a '.' are reserved for dialect-defined names")
	}
	p.advance()
	if err := p.expect(tEqual, "'=' in type alias definition"); err != nil {
		return err
	}
	if p.typeAliases == nil {
		p.typeAliases = map[string]Type{}
	}
	if _, dup := p.typeAliases[name]; dup {
		return p.errAt(pos, "redefinition of type alias id '%s'", name)
	}
	t, err := p.parseType()
	if err != nil {
		return err
	}
	p.typeAliases[name] = t
	return nil
}
