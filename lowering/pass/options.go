package pass

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"unicode"
)

// OptionKind is the type of a pass option.
type OptionKind uint8

const (
	BoolOption OptionKind = iota
	IntOption
	StringOption
	IntListOption
	StringListOption
)

func (k OptionKind) String() string {
	return [...]string{"bool", "int", "string", "list<int>", "list<string>"}[k]
}

// value is the current value of one option of a pass instance.
type value struct {
	decl OptDecl
	b    bool
	i    int
	s    string
	il   []int
	sl   []string
	read bool // New read it (Decl.instantiate checks)
}

// newValue returns a value at od's default, or an error when the default
// does not have the option's kind.
func newValue(od OptDecl) (*value, error) {
	v := &value{decl: od}
	if od.Default == nil {
		return v, nil
	}
	ok := false
	switch od.Kind {
	case BoolOption:
		v.b, ok = od.Default.(bool)
	case IntOption:
		v.i, ok = od.Default.(int)
	case StringOption:
		v.s, ok = od.Default.(string)
	case IntListOption:
		var l []int
		l, ok = od.Default.([]int)
		v.il = append([]int(nil), l...)
	case StringListOption:
		var l []string
		l, ok = od.Default.([]string)
		v.sl = append([]string(nil), l...)
	}
	if !ok {
		return nil, fmt.Errorf("default %#v (%T) does not have kind %s", od.Default, od.Default, od.Kind)
	}
	return v, nil
}

// text returns the value in MLIR's option syntax.
func (v *value) text() string {
	switch v.decl.Kind {
	case BoolOption:
		return strconv.FormatBool(v.b)
	case IntOption:
		return strconv.Itoa(v.i)
	case StringOption:
		return quoteOptionValue(v.s)
	case IntListOption:
		parts := make([]string, len(v.il))
		for i, n := range v.il {
			parts[i] = strconv.Itoa(n)
		}
		return strings.Join(parts, ",")
	default:
		parts := make([]string, len(v.sl))
		for i, s := range v.sl {
			parts[i] = quoteOptionValue(s)
		}
		return strings.Join(parts, ",")
	}
}

// DefaultText returns the option's default in MLIR's option syntax, as
// --help and the docs show it: "10", "true", `""`, "a,b", "" for an empty
// list.
func (o OptDecl) DefaultText() string {
	v, err := newValue(o)
	if err != nil {
		return fmt.Sprintf("<%v>", err)
	}
	return v.text()
}

func quoteOptionValue(s string) string {
	// Quote what the option parser would split at or trim away (any space,
	// not only ASCII) and anything unprintable.
	if s == "" || strings.ContainsAny(s, " \t\n,{}()'\"=") || strings.TrimSpace(s) != s ||
		strings.IndexFunc(s, func(r rune) bool { return !unicode.IsPrint(r) }) >= 0 {
		return strconv.Quote(s)
	}
	return s
}

func (o *value) set(v string, bare bool) error {
	switch o.decl.Kind {
	case BoolOption:
		if bare {
			o.b = true
			return nil
		}
		b, err := strconv.ParseBool(v)
		if err != nil {
			return fmt.Errorf("invalid boolean value %q (want true or false)", v)
		}
		o.b = b
		return nil
	}
	if bare {
		return fmt.Errorf("a value is required (%s=<%s>)", o.decl.Name, o.decl.Kind)
	}
	switch o.decl.Kind {
	case IntOption:
		n, err := strconv.Atoi(v)
		if err != nil {
			return fmt.Errorf("invalid integer value %q", v)
		}
		o.i = n
	case StringOption:
		o.s = unquoteOptionValue(v)
	case IntListOption:
		out := []int{}
		if strings.TrimSpace(v) == "" {
			o.il = out
			return nil
		}
		for _, p := range splitTopLevel(v, ',') {
			p = strings.TrimSpace(p)
			n, err := strconv.Atoi(p)
			if err != nil {
				return fmt.Errorf("invalid integer %q in list", p)
			}
			out = append(out, n)
		}
		o.il = out
	case StringListOption:
		out := []string{}
		if strings.TrimSpace(v) == "" {
			o.sl = out
			return nil
		}
		for _, p := range splitTopLevel(v, ',') {
			out = append(out, unquoteOptionValue(strings.TrimSpace(p)))
		}
		o.sl = out
	}
	return nil
}

func unquoteOptionValue(v string) string {
	if len(v) >= 2 && (v[0] == '"' || v[0] == '\'') && v[len(v)-1] == v[0] {
		if v[0] == '"' {
			if s, err := strconv.Unquote(v); err == nil {
				return s
			}
		}
		return v[1 : len(v)-1]
	}
	if len(v) >= 2 && v[0] == '{' && v[len(v)-1] == '}' {
		return v[1 : len(v)-1]
	}
	return v
}

// Options are the option values of one pass instance: the defaults of its
// Decl, overridden by the option text of the pipeline. The pass's New reads
// them with the typed getters (Bool, Int, String, IntList, StringList);
// asking for an option the Decl does not declare, or as the wrong kind,
// panics (a programming error that making the pass in any test shows).
type Options struct {
	pass string   // the pass's flag, for errors
	list []*value // sorted by name
}

// lookup returns the option named name, or nil.
func (s *Options) lookup(name string) *value {
	for _, o := range s.list {
		if o.decl.Name == name {
			return o
		}
	}
	return nil
}

// get returns the option named name, which must be of kind k, and marks it
// read.
func (s *Options) get(name string, k OptionKind) *value {
	o := s.lookup(name)
	if o == nil {
		panic(fmt.Sprintf("pass '%s': option '%s' is not declared", s.pass, name))
	}
	if o.decl.Kind != k {
		panic(fmt.Sprintf("pass '%s': option '%s' has kind %s, not %s", s.pass, name, o.decl.Kind, k))
	}
	o.read = true
	return o
}

// Bool returns the value of the boolean option name.
func (s *Options) Bool(name string) bool { return s.get(name, BoolOption).b }

// Int returns the value of the integer option name.
func (s *Options) Int(name string) int { return s.get(name, IntOption).i }

// String returns the value of the string option name.
func (s *Options) String(name string) string { return s.get(name, StringOption).s }

// IntList returns (a copy of) the value of the integer-list option name.
func (s *Options) IntList(name string) []int {
	return slices.Clone(s.get(name, IntListOption).il)
}

// StringList returns (a copy of) the value of the string-list option name.
func (s *Options) StringList(name string) []string {
	return slices.Clone(s.get(name, StringListOption).sl)
}

// Format prints the options and their current values in MLIR's syntax,
// sorted by name: "max-iterations=10 top-down=true".
func (s *Options) Format() string {
	var parts []string
	for _, o := range s.list {
		parts = append(parts, o.decl.Name+"="+o.text())
	}
	return strings.Join(parts, " ")
}

// OptionError reports an option that could not be set.
type OptionError struct {
	Pass   string // the pass's flag
	Option string // the option as written ("" when the text is malformed)
	Msg    string
	Col    int // 1-based column in the option text, 0 if unknown
}

func (e *OptionError) Error() string {
	if e.Option == "" {
		return fmt.Sprintf("pass '%s': %s", e.Pass, e.Msg)
	}
	return fmt.Sprintf("pass '%s': option '%s': %s", e.Pass, e.Option, e.Msg)
}

// parse sets options from MLIR's option syntax: "name=value flag list=1,2"
// separated by spaces; a bare name sets a boolean option to true; values may
// be quoted ("a b") or braced ({a b}).
func (s *Options) parse(text string) error {
	toks, err := splitOptions(text)
	if err != nil {
		return &OptionError{Pass: s.pass, Msg: err.Error()}
	}
	for _, t := range toks {
		name, val, hasVal := strings.Cut(t.text, "=")
		name = strings.TrimSpace(name)
		o := s.lookup(name)
		if o == nil {
			return &OptionError{Pass: s.pass, Option: name, Col: t.col, Msg: "unknown option" + s.validList()}
		}
		if err := o.set(val, !hasVal); err != nil {
			return &OptionError{Pass: s.pass, Option: name, Col: t.col, Msg: err.Error()}
		}
	}
	return nil
}

func (s *Options) validList() string {
	if len(s.list) == 0 {
		return "; the pass has no options"
	}
	names := make([]string, len(s.list))
	for i, o := range s.list {
		names[i] = o.decl.Name
	}
	return "; valid options: " + strings.Join(names, ", ")
}

type optTok struct {
	text string
	col  int
}

// splitOptions splits option text at top-level whitespace, keeping quoted
// and braced values whole.
func splitOptions(text string) ([]optTok, error) {
	var toks []optTok
	i := 0
	for i < len(text) {
		for i < len(text) && isSpace(text[i]) {
			i++
		}
		if i >= len(text) {
			break
		}
		start := i
		depth := 0
		for i < len(text) && (depth > 0 || !isSpace(text[i])) {
			switch c := text[i]; c {
			case '"', '\'':
				j := closingQuote(text, i)
				if j < 0 {
					return nil, fmt.Errorf("unterminated quote at column %d", i+1)
				}
				i = j
			case '{':
				depth++
			case '}':
				depth--
				if depth < 0 {
					return nil, fmt.Errorf("unbalanced '}' at column %d", i+1)
				}
			}
			i++
		}
		if depth > 0 {
			return nil, fmt.Errorf("unbalanced '{' at column %d", start+1)
		}
		toks = append(toks, optTok{text[start:i], start + 1})
	}
	return toks, nil
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

// closingQuote returns the index of the quote closing the one at i, or -1.
func closingQuote(s string, i int) int {
	q := s[i]
	for j := i + 1; j < len(s); j++ {
		if s[j] == '\\' && q == '"' {
			j++
			continue
		}
		if s[j] == q {
			return j
		}
	}
	return -1
}

// splitTopLevel splits s at sep outside quotes and braces.
func splitTopLevel(s string, sep byte) []string {
	var parts []string
	depth, start := 0, 0
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '"' || c == '\'':
			if j := closingQuote(s, i); j >= 0 {
				i = j
			}
		case c == '{' || c == '(':
			depth++
		case c == '}' || c == ')':
			depth--
		case c == sep && depth == 0:
			parts = append(parts, s[start:i])
			start = i + 1
		}
	}
	return append(parts, s[start:])
}
