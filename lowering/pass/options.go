package pass

import (
	"fmt"
	"sort"
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

// Option is one declared pass option.
type Option struct {
	Name string
	Desc string
	Kind OptionKind

	b    *bool
	i    *int
	s    *string
	il   *[]int
	sl   *[]string
	dflt string // default value, as text
}

// Value returns the option's current value in MLIR's option syntax.
func (o *Option) Value() string {
	switch o.Kind {
	case BoolOption:
		return strconv.FormatBool(*o.b)
	case IntOption:
		return strconv.Itoa(*o.i)
	case StringOption:
		return quoteOptionValue(*o.s)
	case IntListOption:
		parts := make([]string, len(*o.il))
		for i, v := range *o.il {
			parts[i] = strconv.Itoa(v)
		}
		return strings.Join(parts, ",")
	default:
		parts := make([]string, len(*o.sl))
		for i, v := range *o.sl {
			parts[i] = quoteOptionValue(v)
		}
		return strings.Join(parts, ",")
	}
}

// Default returns the option's default value as text.
func (o *Option) Default() string { return o.dflt }

func quoteOptionValue(s string) string {
	// Quote what the option parser would split at or trim away (any space,
	// not only ASCII) and anything unprintable.
	if s == "" || strings.ContainsAny(s, " \t\n,{}()'\"=") || strings.TrimSpace(s) != s ||
		strings.IndexFunc(s, func(r rune) bool { return !unicode.IsPrint(r) }) >= 0 {
		return strconv.Quote(s)
	}
	return s
}

func (o *Option) set(v string, bare bool) error {
	switch o.Kind {
	case BoolOption:
		if bare {
			*o.b = true
			return nil
		}
		b, err := strconv.ParseBool(v)
		if err != nil {
			return fmt.Errorf("invalid boolean value %q (want true or false)", v)
		}
		*o.b = b
		return nil
	}
	if bare {
		return fmt.Errorf("a value is required (%s=<%s>)", o.Name, o.Kind)
	}
	switch o.Kind {
	case IntOption:
		n, err := strconv.Atoi(v)
		if err != nil {
			return fmt.Errorf("invalid integer value %q", v)
		}
		*o.i = n
	case StringOption:
		*o.s = unquoteOptionValue(v)
	case IntListOption:
		out := []int{}
		if strings.TrimSpace(v) == "" {
			*o.il = out
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
		*o.il = out
	case StringListOption:
		out := []string{}
		if strings.TrimSpace(v) == "" {
			*o.sl = out
			return nil
		}
		for _, p := range splitTopLevel(v, ',') {
			out = append(out, unquoteOptionValue(strings.TrimSpace(p)))
		}
		*o.sl = out
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

// Options is the set of options a pass declares. Declare options in the
// pass's constructor, in the manner of the flag package:
//
//	p.maxIter = p.opts.Int("max-iterations", "Max. iterations between applying patterns", 10)
//
// The zero value is an empty set ready to use.
type Options struct {
	list []*Option
}

func (s *Options) add(o *Option) {
	for _, x := range s.list {
		if x.Name == o.Name {
			panic("pass: option " + o.Name + " declared twice")
		}
	}
	s.list = append(s.list, o)
}

// Bool declares a boolean option.
func (s *Options) Bool(name, desc string, def bool) *bool {
	v := def
	s.add(&Option{Name: name, Desc: desc, Kind: BoolOption, b: &v, dflt: strconv.FormatBool(def)})
	return &v
}

// Int declares an integer option.
func (s *Options) Int(name, desc string, def int) *int {
	v := def
	s.add(&Option{Name: name, Desc: desc, Kind: IntOption, i: &v, dflt: strconv.Itoa(def)})
	return &v
}

// String declares a string option.
func (s *Options) String(name, desc string, def string) *string {
	v := def
	s.add(&Option{Name: name, Desc: desc, Kind: StringOption, s: &v, dflt: quoteOptionValue(def)})
	return &v
}

// IntList declares a comma-separated list of integers (list=1,2,3).
func (s *Options) IntList(name, desc string, def []int) *[]int {
	v := append([]int(nil), def...)
	o := &Option{Name: name, Desc: desc, Kind: IntListOption, il: &v}
	o.dflt = o.Value()
	s.add(o)
	return &v
}

// StringList declares a comma-separated list of strings (names=a,b).
func (s *Options) StringList(name, desc string, def []string) *[]string {
	v := append([]string(nil), def...)
	o := &Option{Name: name, Desc: desc, Kind: StringListOption, sl: &v}
	o.dflt = o.Value()
	s.add(o)
	return &v
}

// List returns the declared options sorted by name.
func (s *Options) List() []*Option {
	if s == nil {
		return nil
	}
	out := append([]*Option(nil), s.list...)
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// Lookup returns the option named name, or nil.
func (s *Options) Lookup(name string) *Option {
	if s == nil {
		return nil
	}
	for _, o := range s.list {
		if o.Name == name {
			return o
		}
	}
	return nil
}

// Format prints the options and their current values in MLIR's syntax,
// sorted by name: "max-iterations=10 top-down=true".
func (s *Options) Format() string {
	var parts []string
	for _, o := range s.List() {
		parts = append(parts, o.Name+"="+o.Value())
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

// Parse sets options from MLIR's option syntax: "name=value flag list=1,2"
// separated by spaces; a bare name sets a boolean option to true; values may
// be quoted ("a b") or braced ({a b}). pass names the pass in errors.
func (s *Options) Parse(pass, text string) error {
	toks, err := splitOptions(text)
	if err != nil {
		return &OptionError{Pass: pass, Msg: err.Error()}
	}
	for _, t := range toks {
		name, val, hasVal := strings.Cut(t.text, "=")
		name = strings.TrimSpace(name)
		o := s.Lookup(name)
		if o == nil {
			return &OptionError{Pass: pass, Option: name, Col: t.col, Msg: "unknown option" + s.validList()}
		}
		if err := o.set(val, !hasVal); err != nil {
			return &OptionError{Pass: pass, Option: name, Col: t.col, Msg: err.Error()}
		}
	}
	return nil
}

func (s *Options) validList() string {
	opts := s.List()
	if len(opts) == 0 {
		return "; the pass has no options"
	}
	names := make([]string, len(opts))
	for i, o := range opts {
		names[i] = o.Name
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
