package pass

import (
	"fmt"
	"io"
	"strings"
)

// PassManager is a pipeline of passes anchored on an op kind (MLIR's
// OpPassManager). Its elements are passes, which run on the anchor op
// itself, and nested pass managers, which run on the ops directly nested in
// the anchor op's regions whose name matches their anchor.
//
// Anchors: "" (printed "any") accepts any op. Implicit nesting: AddPass on
// a manager anchored on A with a pass anchored on B (B != A, B != "") nests
// the pass into a manager anchored on B, reusing the last element when it
// is already a manager on B, so builtin.module(cse-on-funcs) becomes
// builtin.module(func.func(cse-on-funcs)). As in MLIR, a nested manager runs
// on the ops directly nested in its parent's anchor op (one level deep), and
// it runs its whole pipeline on one such op before moving to the next. A
// manager anchored on "" does not nest: an anchored pass in it checks at run
// time that the op it is given has its anchor.
type PassManager struct {
	anchor string
	elems  []*element

	// Config controls verification and instrumentation; it is read from the
	// top-level manager only.
	Config Config
}

type element struct {
	pass   *Pass
	nested *PassManager
	stats  statSet
}

// New returns an empty pass manager anchored on the op kind anchor
// ("builtin.module"; "" or "any" for any op).
func New(anchor string) *PassManager {
	if anchor == "any" {
		anchor = ""
	}
	return &PassManager{anchor: anchor}
}

// Anchor returns the op kind the manager runs on ("" for any).
func (pm *PassManager) Anchor() string { return pm.anchor }

// Size returns the number of elements (passes and nested managers) at the
// top level of pm, as MLIR's "Pass Manager with N passes" counts them.
func (pm *PassManager) Size() int { return len(pm.elems) }

// AddPass appends p, nesting it implicitly when its anchor is a different
// op kind (see PassManager).
func (pm *PassManager) AddPass(p *Pass) {
	a := p.decl.Anchor
	if a == "" || a == pm.anchor || pm.anchor == "" {
		pm.elems = append(pm.elems, &element{pass: p})
		return
	}
	if n := len(pm.elems); n > 0 && pm.elems[n-1].nested != nil && pm.elems[n-1].nested.anchor == a {
		pm.elems[n-1].nested.AddPass(p)
		return
	}
	pm.Nest(a).AddPass(p)
}

// Nest appends a new nested pass manager anchored on anchor and returns it.
func (pm *PassManager) Nest(anchor string) *PassManager {
	n := New(anchor)
	pm.elems = append(pm.elems, &element{nested: n})
	return n
}

// Passes returns the passes of pm in pipeline order, nested ones included.
func (pm *PassManager) Passes() []*Pass {
	var out []*Pass
	for _, e := range pm.elems {
		if e.pass != nil {
			out = append(out, e.pass)
		} else {
			out = append(out, e.nested.Passes()...)
		}
	}
	return out
}

func anchorText(a string) string {
	if a == "" {
		return "any"
	}
	return a
}

// String prints the pipeline in MLIR's textual grammar, every option with
// its current value: builtin.module(func.func(cse),canonicalize{max-iterations=10 ...}).
// ParsePipeline reads it back to an equal pipeline.
func (pm *PassManager) String() string {
	var b strings.Builder
	pm.print(&b)
	return b.String()
}

func (pm *PassManager) print(b *strings.Builder) {
	b.WriteString(anchorText(pm.anchor))
	b.WriteByte('(')
	for i, e := range pm.elems {
		if i > 0 {
			b.WriteByte(',')
		}
		if e.nested != nil {
			e.nested.print(b)
			continue
		}
		b.WriteString(e.pass.decl.Flag)
		if s := e.pass.opts.Format(); s != "" {
			b.WriteString("{" + s + "}")
		}
	}
	b.WriteByte(')')
}

// Dump writes the pipeline as --dump-pass-pipeline does:
// "Pass Manager with N passes:\nbuiltin.module(...)\n\n".
func (pm *PassManager) Dump(w io.Writer) error {
	_, err := fmt.Fprintf(w, "Pass Manager with %d passes:\n%s\n\n", pm.Size(), pm.String())
	return err
}

// PassSpec is one pass given on the command line: --flag='options'.
type PassSpec struct {
	Flag    string // "lower-emb"
	Options string // the text after '=': "no-range-analysis max-threads=256"; "" for none
}

// FromSpecs builds a pipeline anchored on anchor (the top op's name, as
// mlir-opt does) from passes in command-line order, nesting passes anchored
// on other op kinds implicitly.
func FromSpecs(anchor string, specs []PassSpec) (*PassManager, error) {
	pm := New(anchor)
	for _, s := range specs {
		p, err := NewPass(s.Flag, s.Options)
		if err != nil {
			return nil, err
		}
		pm.AddPass(p)
	}
	return pm, nil
}

// PipelineError is a syntax or lookup error in a textual pipeline; it
// points at a column of the text.
type PipelineError struct {
	Text string
	Col  int // 1-based
	Msg  string
}

// Error prints the error as MLIR does, with the text and a caret:
//
//	<pass-pipeline>:1:16: error: 'foo' does not refer to a registered pass or pass pipeline
//	builtin.module(foo)
//	               ^
func (e *PipelineError) Error() string {
	return fmt.Sprintf("<pass-pipeline>:1:%d: error: %s\n%s\n%s^", e.Col, e.Msg, e.Text, strings.Repeat(" ", max(e.Col-1, 0)))
}

// ParsePipeline parses MLIR's textual pipeline grammar:
//
//	pipeline ::= anchor '(' element (',' element)* ')'
//	element  ::= pipeline | pass-flag ('{' options '}')?
//
// "any" is the op-agnostic anchor. A bare list of elements ("cse,canonicalize")
// is accepted too and anchored on any op. Options use the same syntax as on
// the command line.
func ParsePipeline(text string) (*PassManager, error) {
	p := &pipeParser{text: text}
	root := New("")
	p.skipSpace()
	if p.pos == len(text) {
		return root, nil
	}
	elems, err := p.parseElems(root)
	if err != nil {
		return nil, err
	}
	p.skipSpace()
	if p.pos != len(text) {
		return nil, p.errf(p.pos, "expected ',' or end of pipeline")
	}
	// A single anchored pipeline is the root.
	if elems == 1 && root.elems[0].nested != nil {
		return root.elems[0].nested, nil
	}
	return root, nil
}

type pipeParser struct {
	text string
	pos  int
}

func (p *pipeParser) errf(pos int, format string, args ...any) error {
	return &PipelineError{Text: p.text, Col: pos + 1, Msg: fmt.Sprintf(format, args...)}
}

func (p *pipeParser) skipSpace() {
	for p.pos < len(p.text) && isSpace(p.text[p.pos]) {
		p.pos++
	}
}

func isNameChar(c byte) bool {
	return c == '-' || c == '_' || c == '.' || c == '$' ||
		c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

// parseElems parses element (',' element)* into pm and returns how many it read.
func (p *pipeParser) parseElems(pm *PassManager) (int, error) {
	n := 0
	for {
		if err := p.parseElem(pm); err != nil {
			return n, err
		}
		n++
		p.skipSpace()
		if p.pos < len(p.text) && p.text[p.pos] == ',' {
			p.pos++
			continue
		}
		return n, nil
	}
}

func (p *pipeParser) parseElem(pm *PassManager) error {
	p.skipSpace()
	start := p.pos
	for p.pos < len(p.text) && isNameChar(p.text[p.pos]) {
		p.pos++
	}
	name := p.text[start:p.pos]
	if name == "" {
		if p.pos == len(p.text) {
			return p.errf(p.pos, "expected a pass name or an op name, found end of pipeline")
		}
		return p.errf(p.pos, "expected a pass name or an op name, found '%c'", p.text[p.pos])
	}
	p.skipSpace()
	if p.pos < len(p.text) && p.text[p.pos] == '(' {
		p.pos++
		nested := pm.Nest(name)
		p.skipSpace()
		if p.pos < len(p.text) && p.text[p.pos] == ')' {
			p.pos++
			return nil
		}
		if _, err := p.parseElems(nested); err != nil {
			return err
		}
		p.skipSpace()
		if p.pos >= len(p.text) || p.text[p.pos] != ')' {
			return p.errf(p.pos, "expected ',' or ')' to close the '%s' pipeline", name)
		}
		p.pos++
		return nil
	}
	d, ok := Lookup(name)
	if !ok {
		return p.errf(start, "'%s' does not refer to a registered pass or pass pipeline", name)
	}
	optText := ""
	open := p.pos
	if p.pos < len(p.text) && p.text[p.pos] == '{' {
		end, err := p.matchBrace(open)
		if err != nil {
			return err
		}
		p.pos = end + 1
		optText = p.text[open+1 : end]
	}
	pass, err := d.NewPass(optText)
	if err != nil {
		if oe, ok := err.(*OptionError); ok && oe.Col > 0 {
			return p.errf(open+oe.Col, "%s", oe.Error())
		}
		return p.errf(open, "%s", err.Error())
	}
	pm.AddPass(pass)
	return nil
}

// matchBrace returns the index of the '}' closing the '{' at open.
func (p *pipeParser) matchBrace(open int) (int, error) {
	depth := 0
	for i := open; i < len(p.text); i++ {
		switch c := p.text[i]; c {
		case '"', '\'':
			j := closingQuote(p.text, i)
			if j < 0 {
				return 0, p.errf(i, "unterminated quote in pass options")
			}
			i = j
		case '{':
			depth++
		case '}':
			depth--
			if depth == 0 {
				return i, nil
			}
		}
	}
	return 0, p.errf(open, "missing '}' to close the pass options")
}
