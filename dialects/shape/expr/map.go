package expr

import (
	"fmt"
	"strings"
)

// Map is a function of named parameters to expressions,
// "(batch, n) -> (batch, n * 8)": in its results, symbol i is parameter i.
// The names are for printing and parsing only; maps compare by structure
// (Equal), and parameters with equal names are not allowed.
type Map struct {
	Params  []string
	Results []Expr
}

// NewMap builds a map, checking that parameter names are distinct and
// non-empty, and that results use only parameters.
func NewMap(params []string, results ...Expr) (Map, error) {
	m := Map{Params: params, Results: results}
	return m, m.Check()
}

// Check validates m.
func (m Map) Check() error {
	seen := map[string]bool{}
	for _, p := range m.Params {
		if p == "" {
			return fmt.Errorf("empty parameter name")
		}
		if keywords[p] {
			return fmt.Errorf("parameter name %q is a keyword", p)
		}
		if seen[p] {
			return fmt.Errorf("parameter %s declared twice", nameDesc(p))
		}
		seen[p] = true
	}
	for i, r := range m.Results {
		if r.err != nil {
			return fmt.Errorf("result #%d: %v", i, r.err)
		}
		for _, s := range r.Syms() {
			if s < 0 || int(s) >= len(m.Params) {
				return fmt.Errorf("result #%d uses symbol %s, but the map has %d parameters", i, DefaultName(s), len(m.Params))
			}
		}
	}
	return nil
}

// Name returns the name of parameter s.
func (m Map) Name(s Sym) string {
	if s >= 0 && int(s) < len(m.Params) {
		return m.Params[s]
	}
	return DefaultName(s)
}

// String prints "(a, b) -> a * 8 + b"; several results print in parentheses.
func (m Map) String() string {
	var b strings.Builder
	b.WriteByte('(')
	for i, p := range m.Params {
		if i > 0 {
			b.WriteString(", ")
		}
		writeName(&b, p)
	}
	b.WriteString(") -> ")
	if len(m.Results) != 1 {
		b.WriteByte('(')
	}
	for i, r := range m.Results {
		if i > 0 {
			b.WriteString(", ")
		}
		r.format(&b, m.Name)
	}
	if len(m.Results) != 1 {
		b.WriteByte(')')
	}
	return b.String()
}

// Equal reports whether two maps have the same number of parameters and
// equal results (parameter names do not matter).
func (m Map) Equal(o Map) bool {
	if len(m.Params) != len(o.Params) || len(m.Results) != len(o.Results) {
		return false
	}
	for i := range m.Results {
		if !m.Results[i].Equal(o.Results[i]) {
			return false
		}
	}
	return true
}

// Eval evaluates every result given the parameters' values.
func (m Map) Eval(args []int64) ([]int64, error) {
	if len(args) != len(m.Params) {
		return nil, fmt.Errorf("map of %d parameters applied to %d values", len(m.Params), len(args))
	}
	out := make([]int64, len(m.Results))
	for i, r := range m.Results {
		v, err := r.EvalSlice(args)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", r.Format(m.Name), err)
		}
		out[i] = v
	}
	return out, nil
}

// ParseMap reads "(p0, p1, ...) -> expr" or "(p0, ...) -> (expr, ...)".
// Errors are *SyntaxError.
func ParseMap(src string) (Map, error) {
	var m Map
	index := map[string]Sym{}
	p := newParser(src, func(name string) (Sym, bool) { s, ok := index[name]; return s, ok })
	if err := p.expect("("); err != nil {
		return Map{}, err
	}
	for !p.isPunct(")") {
		if len(m.Params) > 0 {
			if err := p.expect(","); err != nil {
				return Map{}, err
			}
		}
		t := p.tok
		if t.kind != tString && (t.kind != tIdent || keywords[t.text]) {
			return Map{}, p.errorf("expected a parameter name, found %s", t.desc())
		}
		if _, dup := index[t.text]; dup {
			return Map{}, p.errorf("parameter %s declared twice", nameDesc(t.text))
		}
		if t.text == "" {
			return Map{}, p.errorf("empty parameter name")
		}
		index[t.text] = Sym(len(m.Params))
		m.Params = append(m.Params, t.text)
		p.next()
	}
	p.next()
	if err := p.expect("->"); err != nil {
		return Map{}, err
	}
	// "(e1, e2)" is a result list, unless the parenthesis only starts an
	// expression: "(a + b) floordiv 2".
	if p.isPunct("(") {
		save := *p
		p.next()
		var rs []Expr
		var err error
		list := false // a comma was seen: this is a result list
		for !p.isPunct(")") {
			if len(rs) > 0 {
				if err = p.expect(","); err != nil {
					break
				}
				list = true
			}
			var e Expr
			if e, err = p.expr(); err != nil {
				break
			}
			rs = append(rs, e)
		}
		if err == nil {
			p.next()
			if p.tok.kind == tEOF {
				m.Results = rs
				return m, nil
			}
			if list || len(rs) == 0 {
				return Map{}, p.errorf("unexpected %s after result list", p.tok.desc())
			}
		} else if list {
			return Map{}, err
		}
		*p = save
	}
	e, err := p.expr()
	if err != nil {
		return Map{}, err
	}
	if p.tok.kind != tEOF {
		return Map{}, p.errorf("unexpected %s after expression", p.tok.desc())
	}
	m.Results = []Expr{e}
	return m, nil
}
