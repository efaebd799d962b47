package expr

import (
	"fmt"
	"slices"
)

// SymKind says where a symbol's value comes from.
type SymKind uint8

const (
	// InputDim is a dimension of a program input (the batch size, the
	// length of a feature vector): known before anything runs.
	InputDim SymKind = iota
	// DataCount is a data-dependent count (the values of a column, the
	// outputs of Unique, Where or StringSplit): known only once the op that
	// makes it has run.
	DataCount
)

func (k SymKind) String() string {
	if k == DataCount {
		return "count"
	}
	return "dim"
}

// SymInfo describes a symbol of a Table.
type SymInfo struct {
	Name string // "" for an unnamed symbol (printed s<id>)
	Kind SymKind
}

// Table holds global symbols and what is known about them: equality
// classes (a union-find whose representative prefers input dimensions,
// then the oldest symbol) and definitions of symbols by expressions of
// others (from solved equalities). Canon rewrites an expression with both,
// so that expressions known to be equal become structurally equal.
//
// Every symbol is a size: Bounds, and so the simplifications, assume it is
// ≥ 0. A Table is not safe for concurrent use.
type Table struct {
	syms   []SymInfo
	byName map[string]Sym
	parent []Sym
	def    []Expr
	hasDef []bool
	defVer []int
	ver    int
}

// NewTable returns an empty table.
func NewTable() *Table { return &Table{byName: map[string]Sym{}} }

// Len returns the number of symbols.
func (t *Table) Len() int { return len(t.syms) }

// New adds a symbol. Its name must be unique, and may not be a keyword
// or of the form s<digits> (which names unnamed symbols); "" is unnamed.
func (t *Table) New(name string, kind SymKind) (Sym, error) {
	if name != "" {
		if keywords[name] {
			return 0, fmt.Errorf("symbol name %q is a keyword", name)
		}
		if _, ok := lookupDefault(name); ok {
			return 0, fmt.Errorf("symbol name %q is reserved for unnamed symbols", name)
		}
		if _, dup := t.byName[name]; dup {
			return 0, fmt.Errorf("symbol %q already exists", name)
		}
	}
	s := Sym(len(t.syms))
	t.syms = append(t.syms, SymInfo{Name: name, Kind: kind})
	t.parent = append(t.parent, s)
	t.def = append(t.def, Expr{})
	t.hasDef = append(t.hasDef, false)
	t.defVer = append(t.defVer, -1)
	if name != "" {
		t.byName[name] = s
	}
	t.ver++
	return s, nil
}

func (t *Table) valid(s Sym) bool { return s >= 0 && int(s) < len(t.syms) }

// Info returns what the table knows of symbol s.
func (t *Table) Info(s Sym) SymInfo {
	if !t.valid(s) {
		return SymInfo{}
	}
	return t.syms[s]
}

// Name returns s's name, or s<id> when it has none.
func (t *Table) Name(s Sym) string {
	if t.valid(s) && t.syms[s].Name != "" {
		return t.syms[s].Name
	}
	return DefaultName(s)
}

// Lookup finds a symbol by name (or by s<id>).
func (t *Table) Lookup(name string) (Sym, bool) {
	if s, ok := t.byName[name]; ok {
		return s, true
	}
	if s, ok := lookupDefault(name); ok && t.valid(s) {
		return s, true
	}
	return 0, false
}

// Find returns the representative of s's equality class.
func (t *Table) Find(s Sym) Sym {
	if !t.valid(s) {
		return s
	}
	r := s
	for t.parent[r] != r {
		r = t.parent[r]
	}
	for t.parent[s] != r { // path compression
		t.parent[s], s = r, t.parent[s]
	}
	return r
}

// prefer reports whether a should represent a class rather than b:
// input dimensions first, then the older symbol.
func (t *Table) prefer(a, b Sym) bool {
	ka, kb := t.syms[a].Kind, t.syms[b].Kind
	if ka != kb {
		return ka == InputDim
	}
	return a < b
}

// Union records a == b.
func (t *Table) Union(a, b Sym) error {
	if !t.valid(a) || !t.valid(b) {
		return fmt.Errorf("union of unknown symbols %s and %s", DefaultName(a), DefaultName(b))
	}
	_, err := t.Equate(Var(a), Var(b))
	return err
}

// Definition returns the expression s's class is defined by, if any
// (canonical with respect to the table).
func (t *Table) Definition(s Sym) (Expr, bool) {
	r := t.Find(s)
	if !t.valid(r) || !t.hasDef[r] {
		return Expr{}, false
	}
	return t.canonDef(r), true
}

func (t *Table) canonDef(r Sym) Expr {
	if t.defVer[r] != t.ver {
		t.def[r] = t.Canon(t.def[r])
		t.defVer[r] = t.ver
	}
	return t.def[r]
}

// Canon substitutes every symbol by its class representative, and
// representatives by their definitions.
func (t *Table) Canon(e Expr) Expr {
	if e.err != nil {
		return e
	}
	return e.Subst(func(s Sym) (Expr, bool) {
		if !t.valid(s) {
			return Expr{}, false
		}
		r := t.Find(s)
		if t.hasDef[r] {
			return t.canonDef(r), true
		}
		if r != s {
			return Var(r), true
		}
		return Expr{}, false
	})
}

// Equate records a == b. It returns true when the equality holds from
// then on (it was already known, or it was solved: two symbols are united,
// or one symbol that appears once, with coefficient ±1, is defined by the
// rest), false when it could not be used (nothing changes), and an error
// when it contradicts what is known (3 == 4, x == x + 1) or an operand is
// poisoned.
func (t *Table) Equate(a, b Expr) (bool, error) {
	a, b = t.Canon(a), t.Canon(b)
	if p, bad := firstErr(a, b); bad {
		return false, p.err
	}
	d := Sub(a, b)
	if d.err != nil {
		return false, d.err
	}
	if c, ok := d.IsConst(); ok {
		if c != 0 {
			return false, fmt.Errorf("contradiction: %s == %s", t.Format(a), t.Format(b))
		}
		return true, nil
	}
	for _, s := range append(a.Syms(), b.Syms()...) {
		if !t.valid(s) {
			return false, fmt.Errorf("unknown symbol %s", DefaultName(s))
		}
	}
	if sa, ok := a.AsSym(); ok {
		if sb, ok := b.AsSym(); ok {
			if t.prefer(sb, sa) {
				sa, sb = sb, sa
			}
			t.parent[sb] = sa
			t.ver++
			return true, nil
		}
	}
	// Eliminate one symbol s of d = k·s + rest (k = ±1, s not in rest).
	best, bestCoef := Sym(-1), int64(0)
	for _, tm := range d.ts {
		if len(tm.fs) != 1 || tm.fs[0].pow != 1 || tm.fs[0].a.kind != KindSym || (tm.coef != 1 && tm.coef != -1) {
			continue
		}
		s := tm.fs[0].a.sym
		if d.occurrences(s) != 1 {
			continue
		}
		if best < 0 || t.prefer(best, s) {
			best, bestCoef = s, tm.coef
		}
	}
	if best < 0 {
		return false, nil
	}
	rest := Sub(d, Scale(Var(best), bestCoef))
	sol := rest
	if bestCoef == 1 {
		sol = Neg(rest)
	}
	if sol.err != nil {
		return false, sol.err
	}
	t.def[best], t.hasDef[best] = sol, true
	t.ver++
	t.defVer[best] = -1
	return true, nil
}

// Classes returns the equality classes with more than one symbol, each
// sorted with its representative first; classes are ordered by
// representative.
func (t *Table) Classes() [][]Sym {
	m := map[Sym][]Sym{}
	for i := range t.syms {
		r := t.Find(Sym(i))
		m[r] = append(m[r], Sym(i))
	}
	var out [][]Sym
	for r, c := range m {
		if len(c) < 2 {
			continue
		}
		slices.Sort(c)
		i := slices.Index(c, r)
		c = append(append([]Sym{r}, c[:i]...), c[i+1:]...)
		out = append(out, c)
	}
	slices.SortFunc(out, func(a, b []Sym) int { return int(a[0]) - int(b[0]) })
	return out
}

// Format prints e with the table's names.
func (t *Table) Format(e Expr) string { return e.Format(t.Name) }

// Parse reads an expression naming the table's symbols.
func (t *Table) Parse(src string) (Expr, error) { return Parse(src, t.Lookup) }

// Eval evaluates e (canonicalized by the table first, so that symbols
// defined by others need no value) given values by symbol.
func (t *Table) Eval(e Expr, vals map[Sym]int64) (int64, error) {
	e = t.Canon(e)
	v, err := e.Eval(func(s Sym) (int64, bool) { x, ok := vals[s]; return x, ok })
	if ee, ok := err.(*EvalError); ok && len(ee.Msg) > 0 {
		for _, s := range e.Syms() {
			if _, ok := vals[s]; !ok {
				return 0, fmt.Errorf("no value for symbol %s", t.Name(s))
			}
		}
	}
	return v, err
}
