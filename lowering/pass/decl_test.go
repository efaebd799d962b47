package pass

import (
	"errors"
	"fmt"
	"reflect"
	"regexp"
	"strings"
	"testing"

	"github.com/recom-compiler/recom/textir"
)

// nopRunner is a runner that does nothing.
type nopRunner struct{}

func (nopRunner) Run(*textir.Operation, *State) error { return nil }

// kindsDecl has one option of every kind, with defaults, and a New that
// records what it read.
func kindsDecl(got *[]any) *Decl {
	return &Decl{
		Flag: "test-kinds", Summary: "every option kind",
		Options: []OptDecl{
			{Name: "b", Kind: BoolOption, Default: true, Help: "a bool"},
			{Name: "i", Kind: IntOption, Default: 1 << 20, Help: "an int"},
			{Name: "s", Kind: StringOption, Default: "a b", Help: "a string"},
			{Name: "il", Kind: IntListOption, Default: []int{3, -1}, Help: "ints"},
			{Name: "sl", Kind: StringListOption, Default: []string{"x", "y,z"}, Help: "strings"},
			{Name: "zero", Kind: IntOption, Help: "an int without a default"},
		},
		New: func(o *Options) Runner {
			*got = []any{o.Bool("b"), o.Int("i"), o.String("s"), o.IntList("il"), o.StringList("sl"), o.Int("zero")}
			return nopRunner{}
		},
	}
}

func TestDeclDefaults(t *testing.T) {
	var got []any
	d := kindsDecl(&got)
	if err := d.Check(); err != nil {
		t.Fatal(err)
	}
	var defs []string
	for _, o := range d.OptionList() {
		defs = append(defs, o.Name+"="+o.DefaultText())
	}
	if s, want := strings.Join(defs, " "), `b=true i=1048576 il=3,-1 s="a b" sl=x,"y,z" zero=0`; s != want {
		t.Errorf("DefaultText: %s, want %s", s, want)
	}
	p, err := d.NewPass("")
	if err != nil {
		t.Fatal(err)
	}
	want := []any{true, 1 << 20, "a b", []int{3, -1}, []string{"x", "y,z"}, 0}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("New read %#v, want %#v", got, want)
	}
	if s := p.Options().Format(); s != `b=true i=1048576 il=3,-1 s="a b" sl=x,"y,z" zero=0` {
		t.Errorf("Format() = %s", s)
	}
	// Defaults are fresh each time: what one instance parses does not
	// leak into the next.
	if _, err := d.NewPass("il=7 sl= b=false"); err != nil {
		t.Fatal(err)
	}
	if want := []any{false, 1 << 20, "a b", []int{7}, []string{}, 0}; !reflect.DeepEqual(got, want) {
		t.Errorf("with options New read %#v, want %#v", got, want)
	}
	if s := d.Defaults().Format(); s != `b=true i=1048576 il=3,-1 s="a b" sl=x,"y,z" zero=0` {
		t.Errorf("Defaults() after a parse = %s", s)
	}
	if p.Decl() != d || p.Runner() != (nopRunner{}) {
		t.Errorf("Pass: decl %p runner %v", p.Decl(), p.Runner())
	}
}

func TestDeclParseOptions(t *testing.T) {
	var got []any
	d := kindsDecl(&got)
	for _, tc := range []struct{ text, err string }{
		{"bogus=1", "pass 'test-kinds': option 'bogus': unknown option; valid options: b, i, il, s, sl, zero"},
		{"i=x", `pass 'test-kinds': option 'i': invalid integer value "x"`},
		{"b=2", `option 'b': invalid boolean value "2"`},
		{"s", "option 's': a value is required (s=<string>)"},
	} {
		_, err := d.NewPass(tc.text)
		if err == nil || !strings.Contains(err.Error(), tc.err) {
			t.Errorf("NewPass(%q): %v, want %q", tc.text, err, tc.err)
		}
		if _, err := d.ParseOptions(tc.text); err == nil {
			t.Errorf("ParseOptions(%q) accepted it", tc.text)
		}
	}
}

func TestDeclCheck(t *testing.T) {
	ok := func() *Decl {
		return &Decl{Flag: "test-ok", Summary: "fine", New: func(*Options) Runner { return nopRunner{} }}
	}
	tests := []struct {
		edit func(d *Decl)
		err  string
	}{
		{func(d *Decl) { d.Flag = "" }, "pass declaration without a Flag"},
		{func(d *Decl) { d.Flag = "a b" }, `pass 'a b': the flag has a character a pipeline cannot name: ' '`},
		{func(d *Decl) { d.Flag = "a{" }, "cannot name: '{'"},
		{func(d *Decl) { d.Summary = "" }, "pass 'test-ok': no Summary"},
		{func(d *Decl) { d.New = nil }, "pass 'test-ok': no New func"},
		{func(d *Decl) { d.Options = []OptDecl{{Kind: IntOption}} }, "an option without a name"},
		{func(d *Decl) { d.Options = []OptDecl{{Name: "n", Kind: IntOption}, {Name: "n", Kind: BoolOption}} }, "option 'n' declared twice"},
		{func(d *Decl) { d.Options = []OptDecl{{Name: "n", Kind: IntOption, Default: "3"}} }, `option 'n': default "3" (string) does not have kind int`},
		{func(d *Decl) { d.Options = []OptDecl{{Name: "n", Kind: IntOption, Default: int64(3)}} }, "option 'n': default 3 (int64) does not have kind int"},
		{func(d *Decl) { d.Options = []OptDecl{{Name: "l", Kind: StringListOption, Default: "a"}} }, "does not have kind list<string>"},
		{func(d *Decl) { d.Options = []OptDecl{{Name: "k", Kind: StringListOption + 1}} }, "option 'k': unknown kind 5"},
		{func(d *Decl) { d.Statistics = []StatDecl{{Help: "x"}} }, "a statistic without a name"},
		{func(d *Decl) { d.Statistics = []StatDecl{{"s", "x"}, {"s", "y"}} }, "statistic 's' declared twice"},
	}
	if err := ok().Check(); err != nil {
		t.Fatalf("a good declaration: %v", err)
	}
	for _, tc := range tests {
		d := ok()
		tc.edit(d)
		err := d.Check()
		if err == nil || !strings.Contains(err.Error(), tc.err) {
			t.Errorf("Check() = %v, want %q", err, tc.err)
		}
		func() {
			defer func() {
				if r := recover(); r == nil || !strings.Contains(fmt.Sprint(r), tc.err) {
					t.Errorf("Register of a bad declaration: recover() = %v, want %q", r, tc.err)
				}
			}()
			Register(d)
		}()
	}
}

// registrations numbers the flags TestRegisterTwicePanics registers, so
// that it can run more than once in a process (go test -count).
var registrations int

func TestRegisterTwicePanics(t *testing.T) {
	registrations++
	flag := fmt.Sprintf("test-twice-%d", registrations) // shorter than test-module-pass: TestWriteHelp checks the padding
	d := &Decl{Flag: flag, Summary: "once", New: func(*Options) Runner { return nopRunner{} }}
	Register(d)
	if got, ok := Lookup(d.Flag); !ok || got != d {
		t.Fatalf("Lookup = %v, %v", got, ok)
	}
	defer func() {
		if r := recover(); r == nil || !strings.Contains(fmt.Sprint(r), fmt.Sprintf("flag %q registered twice", flag)) {
			t.Errorf("recover() = %v", r)
		}
	}()
	// Another declaration with the same flag is refused too.
	Register(&Decl{Flag: d.Flag, Summary: "twice", New: d.New})
}

func TestNewMustReadEveryOption(t *testing.T) {
	d := &Decl{Flag: "test-unread", Summary: "forgets an option",
		Options: []OptDecl{{Name: "used", Kind: BoolOption}, {Name: "forgotten", Kind: IntOption}},
		New: func(o *Options) Runner {
			o.Bool("used")
			return nopRunner{}
		}}
	defer func() {
		if r := recover(); r == nil || fmt.Sprint(r) != "pass 'test-unread': New did not read its option 'forgotten'" {
			t.Errorf("recover() = %v", r)
		}
	}()
	d.NewPass("")
}

func TestOptionGetterMisuse(t *testing.T) {
	d := &Decl{Flag: "test-getters", Summary: "s", Options: []OptDecl{{Name: "n", Kind: IntOption}},
		New: func(o *Options) Runner { o.Int("n"); return nopRunner{} }}
	for _, tc := range []struct {
		get  func(o *Options)
		want string
	}{
		{func(o *Options) { o.Int("m") }, "pass 'test-getters': option 'm' is not declared"},
		{func(o *Options) { o.Bool("n") }, "pass 'test-getters': option 'n' has kind int, not bool"},
		{func(o *Options) { o.StringList("n") }, "pass 'test-getters': option 'n' has kind int, not list<string>"},
	} {
		func() {
			defer func() {
				if r := recover(); fmt.Sprint(r) != tc.want {
					t.Errorf("recover() = %v, want %q", r, tc.want)
				}
			}()
			tc.get(d.Defaults())
		}()
	}
}

// statsDecl's pass reports the statistic named by its option name with
// the description desc.
var statsDecl = &Decl{
	Flag: "test-stats", Summary: "reports statistics",
	Options: []OptDecl{
		{Name: "name", Kind: StringOption, Default: "declared", Help: "the statistic to report"},
		{Name: "desc", Kind: StringOption, Help: "its description"},
	},
	Statistics: []StatDecl{{Name: "declared", Help: "A declared statistic"}},
	New: func(o *Options) Runner {
		name, desc := o.String("name"), o.String("desc")
		return runFunc(func(op *textir.Operation, st *State) error {
			st.Stat(name, desc).Add(2)
			return nil
		})
	},
}

type runFunc func(op *textir.Operation, st *State) error

func (f runFunc) Run(op *textir.Operation, st *State) error { return f(op, st) }

func TestStatisticsFromDecl(t *testing.T) {
	ctx, mod := testModule(t)
	for _, tc := range []struct{ opts, err string }{
		{"", ""},
		{"desc='A declared statistic'", ""},
		{"name=undeclared", "pass 'test-stats' reports statistic 'undeclared', which its pass.Decl does not declare"},
		{"desc=other", `pass 'test-stats' describes statistic 'declared' as "other", its pass.Decl as "A declared statistic"`},
	} {
		p, err := statsDecl.NewPass(tc.opts)
		if err != nil {
			t.Fatal(err)
		}
		pm := New("builtin.module")
		pm.AddPass(p)
		pm.Config.Verify = testVerify
		err = pm.Run(ctx, mod)
		if tc.err != "" {
			var pe *PassError
			if err == nil || !strings.Contains(err.Error(), tc.err) || !errors.As(err, &pe) || pe.Pass != p {
				t.Errorf("%q: err = %v, want %q", tc.opts, err, tc.err)
			}
			continue
		}
		if err != nil {
			t.Fatalf("%q: %v", tc.opts, err)
		}
		var b strings.Builder
		if err := pm.WriteStatistics(&b, "list"); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(b.String(), "test-stats\n  (S) 2 declared - A declared statistic\n") {
			t.Errorf("%q: the report lacks the declared description:\n%s", tc.opts, b.String())
		}
	}
}

func TestWriteHelpFromDecl(t *testing.T) {
	if _, ok := Lookup(statsDecl.Flag); !ok {
		Register(statsDecl)
	}
	var b strings.Builder
	if err := WriteHelp(&b); err != nil {
		t.Fatal(err)
	}
	// The flags are padded to the longest registered one.
	want := regexp.MustCompile(`\n  --test-stats +- reports statistics\n` +
		`      desc=<string> - its description \(default: ""\)\n` +
		`      name=<string> - the statistic to report \(default: declared\)\n`)
	if !want.MatchString(b.String()) {
		t.Errorf("help does not match\n%s\n:\n%s", want, b.String())
	}
}
