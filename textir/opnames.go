package textir

import (
	"fmt"
	"strings"
)

// Named operands and results. An op definition names its operands and its
// results in order (OpDef.NamedOperands, OpDef.NamedResults), as the
// $names of MLIR's ODS do: arith.select's operands are condition,
// true_value and false_value. Each name stands for one value, except that
// one name of a list may stand for a group of values:
//
//	"weights?"  an optional value: zero or one
//	"values..." a variadic group: any number the arity allows
//
// The group takes the values the other names leave, wherever it stands:
// gpu.store's operands are "values...", "ptr", "index". A list with more
// than one group would need sizes to split the values (MLIR's
// AttrSizedOperandSegments) and is refused.
//
// Each dialect generates from the names a view per op (views_gen.go, by
// dialects/internal/opviewgen), so that passes read lookup.Table() rather
// than op.Operand(0); ViewOperand and its kin are what those views call.

// NameSegment is one entry of a name list: the name, without its marker,
// and how many values it stands for.
type NameSegment struct {
	Name string
	// Optional: "name?", zero or one value.
	Optional bool
	// Variadic: "name...", any number of values.
	Variadic bool
}

// Group reports whether the segment may stand for other than one value.
func (s NameSegment) Group() bool { return s.Optional || s.Variadic }

// String returns the name as a list spells it, marker included.
func (s NameSegment) String() string {
	switch {
	case s.Optional:
		return s.Name + "?"
	case s.Variadic:
		return s.Name + "..."
	}
	return s.Name
}

// NameSegments parses a name list (NamedOperands or NamedResults).
func NameSegments(names []string) []NameSegment {
	segs := make([]NameSegment, len(names))
	for i, n := range names {
		switch {
		case strings.HasSuffix(n, "..."):
			segs[i] = NameSegment{Name: strings.TrimSuffix(n, "..."), Variadic: true}
		case strings.HasSuffix(n, "?"):
			segs[i] = NameSegment{Name: strings.TrimSuffix(n, "?"), Optional: true}
		default:
			segs[i] = NameSegment{Name: n}
		}
	}
	return segs
}

// NameSpan places a name of a list among n values: its values are the
// positions [lo, hi). ok is false when the list has no such name or n
// values cannot be split as the list says (fewer values than single names,
// more without a group, two or more for an optional name).
func NameSpan(names []string, name string, n int) (lo, hi int, ok bool) {
	segs := NameSegments(names)
	slack := n
	group := -1
	for i, s := range segs {
		if s.Group() {
			group = i
		} else {
			slack--
		}
	}
	if slack < 0 || group < 0 && slack != 0 || group >= 0 && segs[group].Optional && slack > 1 {
		return 0, 0, false
	}
	pos := 0
	for _, s := range segs {
		k := 1
		if s.Group() {
			k = slack
		}
		if s.Name == name {
			return pos, pos + k, true
		}
		pos += k
	}
	return 0, 0, false
}

// reservedNames may not name an operand or a result: the views have
// methods of these names.
var reservedNames = map[string]bool{"op": true}

// CheckNames reports whether the op's NamedOperands and NamedResults agree
// with its Operands and Results: every name a lower-case snake_case word,
// unique across both lists and not reserved ("op"); at most one group per
// list; one name per value when the arity is exact, an optional name when
// it is n to n+1, and a variadic one when the arity leaves more room. A nil
// list declares no names and is not checked. Register panics when it
// fails.
func (d *OpDef) CheckNames() error {
	seen := map[string]string{}
	for _, l := range []struct {
		names []string
		arity Arity
		noun  string
	}{{d.NamedOperands, d.Operands, "operand"}, {d.NamedResults, d.Results, "result"}} {
		if l.names == nil {
			continue
		}
		if err := checkNameList(l.names, l.arity, l.noun); err != nil {
			return fmt.Errorf("op %s: %v", d.Name, err)
		}
		for _, s := range NameSegments(l.names) {
			if prev, dup := seen[s.Name]; dup {
				if prev == l.noun {
					return fmt.Errorf("op %s: %s name %q is used twice", d.Name, l.noun, s.Name)
				}
				return fmt.Errorf("op %s: %q names both an operand and a result", d.Name, s.Name)
			}
			seen[s.Name] = l.noun
		}
	}
	return nil
}

// checkNameList checks one list against its arity.
func checkNameList(names []string, a Arity, noun string) error {
	segs := NameSegments(names)
	fixed, groups := 0, 0
	var group NameSegment
	for _, s := range segs {
		if !isSnakeName(s.Name) {
			return fmt.Errorf("%s name %q is not a lower-case snake_case name", noun, s.String())
		}
		if reservedNames[s.Name] {
			return fmt.Errorf("%s name %q is reserved", noun, s.Name)
		}
		if s.Group() {
			groups++
			group = s
		} else {
			fixed++
		}
	}
	switch {
	case groups > 1:
		return fmt.Errorf("%s names %q have more than one optional or variadic name", noun, names)
	case groups == 0 && a != Exactly(fixed):
		return fmt.Errorf("%d %s names %q for %s %ss (a range of counts needs a name marked '?' or '...')", fixed, noun, names, a, noun)
	case group.Optional && a != Between(fixed, fixed+1):
		return fmt.Errorf("%s names %q with the optional %q need %d to %d %ss, the op takes %s", noun, names, group.String(), fixed, fixed+1, noun, a)
	case group.Variadic && (a.Min < fixed || a.Max >= 0 && a.Max < fixed+2):
		return fmt.Errorf("%s names %q with the variadic %q do not fit %s %ss (%d single names; mark a group of at most one value '?')", noun, names, group.String(), a, noun, fixed)
	}
	return nil
}

// isSnakeName reports whether s is a lower-case snake_case name: words of
// lower-case letters and digits, starting with a letter, joined by single
// underscores.
func isSnakeName(s string) bool {
	if s == "" || s[0] < 'a' || s[0] > 'z' || s[len(s)-1] == '_' || strings.Contains(s, "__") {
		return false
	}
	for _, c := range s {
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '_') {
			return false
		}
	}
	return true
}

// ViewOperand returns operand i of op for a generated view, counting from
// the front when i >= 0 and from the back when i < 0 (-1 is the last). It
// returns nil when op is nil or has no such operand.
func ViewOperand(op *Operation, i int) *Value {
	if op == nil {
		return nil
	}
	if i < 0 {
		i += len(op.operands)
	}
	if i < 0 || i >= len(op.operands) {
		return nil
	}
	return op.operands[i].val
}

// ViewOperands returns the operands of op from lo up to the last after
// ones (operands [lo, n-after)) for a generated view's group, or nil when
// op is nil or has fewer than lo+after operands.
func ViewOperands(op *Operation, lo, after int) []*Value {
	if op == nil || lo < 0 || after < 0 || lo+after > len(op.operands) {
		return nil
	}
	vs := make([]*Value, len(op.operands)-lo-after)
	for i := range vs {
		vs[i] = op.operands[lo+i].val
	}
	return vs
}

// ViewResult returns result i of op for a generated view, as ViewOperand
// does for operands.
func ViewResult(op *Operation, i int) *Value {
	if op == nil {
		return nil
	}
	if i < 0 {
		i += len(op.results)
	}
	if i < 0 || i >= len(op.results) {
		return nil
	}
	return &op.results[i]
}

// ViewResults returns the results of op [lo, n-after) for a generated
// view's group, as ViewOperands does for operands.
func ViewResults(op *Operation, lo, after int) []*Value {
	if op == nil || lo < 0 || after < 0 || lo+after > len(op.results) {
		return nil
	}
	vs := make([]*Value, len(op.results)-lo-after)
	for i := range vs {
		vs[i] = &op.results[lo+i]
	}
	return vs
}

// ViewOptional returns the one value of an optional name's group, or nil
// when the group is empty (or, for a malformed op, holds more than one).
func ViewOptional(vs []*Value) *Value {
	if len(vs) == 1 {
		return vs[0]
	}
	return nil
}
