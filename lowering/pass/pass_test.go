package pass

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/recom-compiler/recom/textir"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

// The log of test pass runs, "flag@op".
var runLog []string

func opLabel(op *textir.Operation) string {
	if s, ok := op.Attr("sym_name").(textir.StringAttr); ok {
		return "@" + s.Value
	}
	return op.Name()
}

// testPass is the runner of the test passes: it logs its runs and calls run.
type testPass struct {
	flag string
	run  func(p *testPass, op *textir.Operation, st *State) error
}

func (p *testPass) Run(op *textir.Operation, st *State) error {
	runLog = append(runLog, p.flag+"@"+opLabel(op))
	if p.run != nil {
		return p.run(p, op, st)
	}
	return nil
}

// testDecls are the test passes, registered by init.
var testDecls = map[string]*Decl{}

func init() {
	reg := func(flag, name, anchor string, run func(p *testPass, op *textir.Operation, st *State) error, decl func(d *Decl)) {
		d := &Decl{Flag: flag, Name: name, Summary: "test pass " + flag, Anchor: anchor, New: func(o *Options) Runner {
			// Read every option, as a pass's New must.
			for _, od := range testDecls[flag].Options {
				switch od.Kind {
				case BoolOption:
					o.Bool(od.Name)
				case IntOption:
					o.Int(od.Name)
				case StringOption:
					o.String(od.Name)
				case IntListOption:
					o.IntList(od.Name)
				case StringListOption:
					o.StringList(od.Name)
				}
			}
			return &testPass{flag: flag, run: run}
		}}
		if decl != nil {
			decl(d)
		}
		testDecls[flag] = d
		Register(d)
	}
	reg("test-module-pass", "TestModulePass", "builtin.module", nil, func(d *Decl) {
		d.Options = []OptDecl{
			{Name: "flag", Kind: BoolOption, Default: false, Help: "a boolean"},
			{Name: "n", Kind: IntOption, Help: "an integer"},
			{Name: "s", Kind: StringOption, Help: "a string"},
			{Name: "list", Kind: IntListOption, Help: "integers"},
			{Name: "names", Kind: StringListOption, Help: "strings"},
		}
	})
	reg("test-func-pass", "TestFuncPass", "func.func", func(p *testPass, op *textir.Operation, st *State) error {
		st.Stat("num-funcs", "").Inc()
		st.Stat("num-ops", "Number of ops seen").Add(int64(op.Region(0).Front().Len()))
		st.MarkUnchanged()
		return nil
	}, func(d *Decl) {
		d.Statistics = []StatDecl{{"num-funcs", "Number of functions visited"}, {"num-ops", "Number of ops seen"}}
	})
	reg("test-any-pass", "TestAnyPass", "", func(p *testPass, op *textir.Operation, st *State) error {
		st.MarkUnchanged()
		return nil
	}, nil)
	reg("test-set-attr", "TestSetAttr", "", func(p *testPass, op *textir.Operation, st *State) error {
		op.SetAttr("test.touched", textir.UnitAttr{})
		return nil
	}, nil)
	reg("test-fail", "TestFail", "", func(p *testPass, op *textir.Operation, st *State) error {
		return op.Errorf("test failure")
	}, nil)
	reg("test-fail-plain", "TestFailPlain", "", func(p *testPass, op *textir.Operation, st *State) error {
		return errors.New("plain failure")
	}, nil)
	reg("test-break", "TestBreak", "", func(p *testPass, op *textir.Operation, st *State) error {
		op.SetAttr("test.broken", textir.UnitAttr{})
		return nil
	}, nil)
}

// testVerify fails on any op carrying test.broken.
func testVerify(ctx *textir.Context, op *textir.Operation) error {
	var err error
	op.Walk(func(o *textir.Operation) bool {
		if err == nil && o.Attr("test.broken") != nil {
			err = o.Errorf("is broken")
		}
		return err == nil
	})
	return err
}

// testPrint prints a nested outline of op: name, symbol and marker attributes.
func testPrint(w io.Writer, op *textir.Operation) error {
	var rec func(o *textir.Operation, depth int)
	rec = func(o *textir.Operation, depth int) {
		fmt.Fprintf(w, "%s%s", strings.Repeat("  ", depth), o.Name())
		if s, ok := o.Attr("sym_name").(textir.StringAttr); ok {
			fmt.Fprintf(w, " @%s", s.Value)
		}
		for _, a := range o.Attrs() {
			if strings.HasPrefix(a.Name, "test.") {
				fmt.Fprintf(w, " [%s]", a.Name)
			}
		}
		fmt.Fprintln(w)
		for _, r := range o.Regions() {
			for _, b := range r.Blocks() {
				for c := range b.Ops() {
					rec(c, depth+1)
				}
			}
		}
	}
	rec(op, 0)
	return nil
}

// testModule builds builtin.module { func.func @f1 {2 ops}, test.other, func.func @f2 {1 op} }.
func testModule(t *testing.T) (*textir.Context, *textir.Operation) {
	t.Helper()
	ctx := textir.NewContext()
	ctx.AllowUnregistered = true
	mod := ctx.Create(&textir.OperationState{Name: "builtin.module", NumRegions: 1})
	body := textir.NewBlock()
	mod.Region(0).AppendBlock(body)
	mkFunc := func(name string, nops int) *textir.Operation {
		f := ctx.Create(&textir.OperationState{Name: "func.func", NumRegions: 1,
			Attrs: []textir.NamedAttribute{{Name: "sym_name", Value: textir.Str(name)}}})
		fb := textir.NewBlock()
		f.Region(0).AppendBlock(fb)
		for i := 1; i < nops; i++ {
			fb.Append(ctx.Create(&textir.OperationState{Name: "test.op"}))
		}
		fb.Append(ctx.Create(&textir.OperationState{Name: "func.return"}))
		return f
	}
	body.Append(mkFunc("f1", 2))
	body.Append(ctx.Create(&textir.OperationState{Name: "test.other"}))
	body.Append(mkFunc("f2", 1))
	return ctx, mod
}

func TestRegistered(t *testing.T) {
	infos := Registered()
	for i := 1; i < len(infos); i++ {
		if infos[i-1].Flag >= infos[i].Flag {
			t.Fatalf("Registered not sorted: %q before %q", infos[i-1].Flag, infos[i].Flag)
		}
	}
	d, ok := Lookup("test-func-pass")
	if !ok || d.Anchor != "func.func" || d.Summary != "test pass test-func-pass" {
		t.Fatalf("Lookup(test-func-pass) = %+v, %v", d, ok)
	}
	opts := func() []string {
		d, _ := Lookup("test-module-pass")
		var names []string
		for _, o := range d.OptionList() {
			names = append(names, o.Name+":"+o.Kind.String()+"="+o.DefaultText())
		}
		return names
	}()
	if got, want := strings.Join(opts, " "), `flag:bool=false list:list<int>= n:int=0 names:list<string>= s:string=""`; got != want {
		t.Errorf("option list = %s, want %s", got, want)
	}
}

func TestWriteHelp(t *testing.T) {
	var b strings.Builder
	if err := WriteHelp(&b); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"  --test-any-pass    - test pass test-any-pass\n",
		"  --test-module-pass - test pass test-module-pass\n      flag=<bool>          - a boolean (default: false)\n",
		"      names=<list<string>> - strings (default: )\n",
	} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("help lacks %q:\n%s", want, b.String())
		}
	}
}

func TestRegisterDuplicatePanics(t *testing.T) {
	defer func() {
		if r := recover(); r == nil || !strings.Contains(fmt.Sprint(r), `"test-any-pass" registered twice`) {
			t.Errorf("recover() = %v", r)
		}
	}()
	Register(&Decl{Flag: "test-any-pass", Summary: "again", New: func(*Options) Runner { return nil }})
}

func TestOptions(t *testing.T) {
	tests := []struct {
		text, want, err string
	}{
		{text: "", want: `flag=false list= n=0 names= s=""`},
		{text: "flag", want: `flag=true list= n=0 names= s=""`},
		{text: "flag=false n=-3", want: `flag=false list= n=-3 names= s=""`},
		{text: "flag=true  list=1,2,3\tnames=a,b s=x", want: `flag=true list=1,2,3 n=0 names=a,b s=x`},
		{text: `s="a b" names="x y",z`, want: `flag=false list= n=0 names="x y",z s="a b"`},
		{text: `s='q r'`, want: `flag=false list= n=0 names= s="q r"`},
		{text: `s={a b}`, want: `flag=false list= n=0 names= s="a b"`},
		{text: "bogus=1", err: "pass 'test-module-pass': option 'bogus': unknown option; valid options: flag, list, n, names, s"},
		{text: "n=x", err: `pass 'test-module-pass': option 'n': invalid integer value "x"`},
		{text: "n", err: "pass 'test-module-pass': option 'n': a value is required (n=<int>)"},
		{text: "flag=maybe", err: `option 'flag': invalid boolean value "maybe" (want true or false)`},
		{text: "list=1,b", err: `option 'list': invalid integer "b" in list`},
		{text: `s="abc`, err: "unterminated quote at column 3"},
	}
	for _, tc := range tests {
		t.Run(tc.text, func(t *testing.T) {
			p, err := NewPass("test-module-pass", tc.text)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("err = %v, want %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := p.Options().Format(); got != tc.want {
				t.Errorf("options = %s, want %s", got, tc.want)
			}
		})
	}
	if _, err := NewPass("test-any-pass", "x=1"); err == nil || !strings.Contains(err.Error(), "the pass has no options") {
		t.Errorf("option on a pass without options: %v", err)
	}
	if _, err := NewPass("no-such-pass", ""); err == nil || !strings.Contains(err.Error(), "'no-such-pass' does not refer to a registered pass") {
		t.Errorf("unknown pass: %v", err)
	}
}

const moduleOpts = `{flag=false list= n=0 names= s=""}`

func TestParsePipeline(t *testing.T) {
	tests := []struct{ in, want string }{
		{"", "any()"},
		{"builtin.module()", "builtin.module()"},
		{"test-any-pass", "any(test-any-pass)"},
		{"test-any-pass, test-set-attr", "any(test-any-pass,test-set-attr)"},
		{"any(test-any-pass)", "any(test-any-pass)"},
		{"builtin.module(test-module-pass, func.func(test-func-pass))",
			"builtin.module(test-module-pass" + moduleOpts + ",func.func(test-func-pass))"},
		{" builtin.module ( test-module-pass{ n=3 flag list=1,2 } , any(test-any-pass) ) ",
			`builtin.module(test-module-pass{flag=true list=1,2 n=3 names= s=""},any(test-any-pass))`},
		// Implicit nesting: func.func passes in a module pipeline, adjacent ones shared.
		{"builtin.module(test-func-pass,test-func-pass,test-any-pass,test-func-pass)",
			"builtin.module(func.func(test-func-pass,test-func-pass),test-any-pass,func.func(test-func-pass))"},
		{`builtin.module(test-module-pass{s="a,b)" names={x y},z})`,
			`builtin.module(test-module-pass{flag=false list= n=0 names="x y",z s="a,b)"})`},
		{"builtin.module(func.func(test-func-pass),func.func(test-any-pass))",
			"builtin.module(func.func(test-func-pass),func.func(test-any-pass))"},
	}
	for _, tc := range tests {
		t.Run(tc.in, func(t *testing.T) {
			pm, err := ParsePipeline(tc.in)
			if err != nil {
				t.Fatal(err)
			}
			got := pm.String()
			if got != tc.want {
				t.Fatalf("String() = %s\nwant       %s", got, tc.want)
			}
			pm2, err := ParsePipeline(got)
			if err != nil {
				t.Fatalf("reparse: %v", err)
			}
			if again := pm2.String(); again != got {
				t.Errorf("round trip: %s\n        != %s", again, got)
			}
		})
	}
}

func TestParsePipelineErrors(t *testing.T) {
	tests := []struct {
		in  string
		col int
		msg string
	}{
		{"builtin.module(nope)", 16, "'nope' does not refer to a registered pass or pass pipeline"},
		{"builtin.module(test-any-pass", 29, "expected ',' or ')' to close the 'builtin.module' pipeline"},
		{"builtin.module(,)", 16, "expected a pass name or an op name, found ','"},
		{"builtin.module(test-any-pass,)", 30, "expected a pass name or an op name, found ')'"},
		{"builtin.module(test-module-pass{n=1)", 32, "missing '}' to close the pass options"},
		{"builtin.module(test-module-pass{flag bogus=2})", 38, "pass 'test-module-pass': option 'bogus': unknown option; valid options: flag, list, n, names, s"},
		{"builtin.module(test-module-pass{n=z})", 33, `option 'n': invalid integer value "z"`},
		{"builtin.module(test-any-pass) x", 31, "expected ',' or end of pipeline"},
		{"a(b(", 5, "expected a pass name or an op name, found end of pipeline"},
	}
	for _, tc := range tests {
		t.Run(tc.in, func(t *testing.T) {
			_, err := ParsePipeline(tc.in)
			var pe *PipelineError
			if !errors.As(err, &pe) {
				t.Fatalf("err = %v, want a PipelineError", err)
			}
			if pe.Col != tc.col || !strings.Contains(pe.Msg, tc.msg) {
				t.Fatalf("error at col %d: %s\nwant col %d: %s", pe.Col, pe.Msg, tc.col, tc.msg)
			}
			lines := strings.Split(err.Error(), "\n")
			wantHead := fmt.Sprintf("<pass-pipeline>:1:%d: error: ", tc.col)
			if len(lines) != 3 || !strings.HasPrefix(lines[0], wantHead) || lines[1] != tc.in ||
				lines[2] != strings.Repeat(" ", tc.col-1)+"^" {
				t.Errorf("Error() =\n%s", err)
			}
		})
	}
}

func TestFromSpecs(t *testing.T) {
	pm, err := FromSpecs("builtin.module", []PassSpec{
		{"test-module-pass", "n=2 flag"}, {"test-func-pass", ""}, {"test-func-pass", ""}, {"test-any-pass", ""},
	})
	if err != nil {
		t.Fatal(err)
	}
	want := `builtin.module(test-module-pass{flag=true list= n=2 names= s=""},func.func(test-func-pass,test-func-pass),test-any-pass)`
	if got := pm.String(); got != want {
		t.Errorf("String() = %s\nwant %s", got, want)
	}
	var b bytes.Buffer
	pm.Dump(&b)
	if got := b.String(); got != "Pass Manager with 3 passes:\n"+want+"\n\n" {
		t.Errorf("Dump = %q", got)
	}
	if len(pm.Passes()) != 4 {
		t.Errorf("Passes() = %d passes", len(pm.Passes()))
	}
	if _, err := FromSpecs("builtin.module", []PassSpec{{"test-module-pass", "n=q"}}); err == nil {
		t.Error("bad option accepted")
	}
}

func runPipeline(t *testing.T, text string, cfg Config) (*PassManager, *textir.Operation, error) {
	t.Helper()
	ctx, mod := testModule(t)
	pm, err := ParsePipeline(text)
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Verify == nil {
		cfg.Verify = testVerify
	}
	if cfg.Print == nil {
		cfg.Print = testPrint
	}
	pm.Config = cfg
	runLog = nil
	return pm, mod, pm.Run(ctx, mod)
}

func TestRunOrderAndNesting(t *testing.T) {
	_, _, err := runPipeline(t, "builtin.module(test-module-pass,func.func(test-func-pass,test-any-pass),any(test-any-pass),test-any-pass)", Config{})
	if err != nil {
		t.Fatal(err)
	}
	want := "test-module-pass@builtin.module " +
		"test-func-pass@@f1 test-any-pass@@f1 test-func-pass@@f2 test-any-pass@@f2 " +
		"test-any-pass@@f1 test-any-pass@test.other test-any-pass@@f2 " +
		"test-any-pass@builtin.module"
	if got := strings.Join(runLog, " "); got != want {
		t.Errorf("run order:\n got %s\nwant %s", got, want)
	}
}

func TestRunAnchorMismatch(t *testing.T) {
	ctx, mod := testModule(t)
	pm, _ := ParsePipeline("func.func(test-any-pass)")
	err := pm.Run(ctx, mod)
	if err == nil || !strings.Contains(err.Error(), "can't run 'func.func' pass manager on 'builtin.module' op") {
		t.Errorf("err = %v", err)
	}
	// An anchored pass in an op-agnostic pipeline checks the op it gets.
	pm, _ = ParsePipeline("test-func-pass")
	pm.Config.Verify = testVerify
	err = pm.Run(ctx, mod)
	if err == nil || !strings.Contains(err.Error(), "pass 'test-func-pass' runs on 'func.func' ops, not on 'builtin.module'") {
		t.Errorf("err = %v", err)
	}
}

func TestRunFailureStops(t *testing.T) {
	_, _, err := runPipeline(t, "builtin.module(test-any-pass,func.func(test-fail),test-set-attr)", Config{})
	var pe *PassError
	if !errors.As(err, &pe) || pe.Pass.Decl().Flag != "test-fail" || pe.Verify || opLabel(pe.Op) != "@f1" {
		t.Fatalf("err = %#v", err)
	}
	var d *textir.Diagnostic
	if !errors.As(err, &d) || d.Message != "'func.func' op test failure" {
		t.Errorf("diagnostic = %v", d)
	}
	if got := strings.Join(runLog, " "); got != "test-any-pass@builtin.module test-fail@@f1" {
		t.Errorf("ran %s", got)
	}
	want := "loc(unknown): error: 'func.func' op test failure\nloc(unknown): note: while running pass 'test-fail' (TestFail) on 'func.func' op"
	if err.Error() != want {
		t.Errorf("Error() = %q\nwant %q", err.Error(), want)
	}
	// A plain error becomes a diagnostic at the op.
	_, _, err = runPipeline(t, "builtin.module(test-fail-plain)", Config{})
	if !errors.As(err, &d) || d.Message != "'builtin.module' op plain failure" {
		t.Errorf("plain failure: %v", err)
	}
}

func TestVerifyAfterEachPass(t *testing.T) {
	_, _, err := runPipeline(t, "builtin.module(func.func(test-break),test-set-attr)", Config{})
	var pe *PassError
	if !errors.As(err, &pe) || !pe.Verify || pe.Pass.Decl().Flag != "test-break" {
		t.Fatalf("err = %v", err)
	}
	if !strings.HasSuffix(err.Error(), "note: the IR failed to verify after pass 'test-break' (TestBreak)") {
		t.Errorf("Error() = %s", err)
	}
	if got := strings.Join(runLog, " "); got != "test-break@@f1" {
		t.Errorf("ran %s", got)
	}
	// With verification off the pipeline goes on.
	_, _, err = runPipeline(t, "builtin.module(func.func(test-break),test-set-attr)", Config{NoVerify: true})
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(runLog, " "); got != "test-break@@f1 test-break@@f2 test-set-attr@builtin.module" {
		t.Errorf("ran %s", got)
	}
	// A pass that reports the IR unchanged is not verified (as MLIR).
	calls := 0
	_, _, err = runPipeline(t, "builtin.module(test-any-pass,test-set-attr)", Config{Verify: func(*textir.Context, *textir.Operation) error {
		calls++
		return nil
	}})
	if err != nil || calls != 1 {
		t.Errorf("verify calls = %d, err = %v", calls, err)
	}
}

func checkGolden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update)", err)
	}
	if got != string(want) {
		t.Errorf("%s differs:\n--- got ---\n%s--- want ---\n%s", name, got, want)
	}
}

func TestInstrumentation(t *testing.T) {
	pipeline := "builtin.module(test-set-attr,func.func(test-func-pass,test-set-attr),test-any-pass)"
	tests := []struct {
		name string
		cfg  Config
	}{
		{"before-all", Config{PrintBeforeAll: true}},
		{"after-all", Config{PrintAfterAll: true}},
		{"after-change", Config{PrintAfterAll: true, PrintAfterChange: true}},
		{"after-selected", Config{PrintAfter: []string{"test-func-pass"}, PrintBefore: []string{"test-any-pass"}}},
		{"module-scope", Config{PrintAfter: []string{"test-func-pass"}, PrintModuleScope: true}},
	}
	var all strings.Builder
	for _, tc := range tests {
		var out bytes.Buffer
		tc.cfg.IROut = &out
		if _, _, err := runPipeline(t, pipeline, tc.cfg); err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(&all, "=== %s\n%s", tc.name, out.String())
	}
	var out bytes.Buffer
	_, _, err := runPipeline(t, "builtin.module(func.func(test-break))", Config{PrintAfterFailure: true, IROut: &out})
	if err == nil {
		t.Fatal("no error")
	}
	fmt.Fprintf(&all, "=== after-failure\n%s", out.String())
	checkGolden(t, "instrument.golden", all.String())
}

func TestDefaultPrinter(t *testing.T) {
	ctx, mod := testModule(t)
	pm, _ := ParsePipeline("builtin.module(test-set-attr)")
	var out bytes.Buffer
	pm.Config = Config{Verify: testVerify, PrintAfterAll: true, IROut: &out}
	if err := pm.Run(ctx, mod); err != nil {
		t.Fatal(err)
	}
	want := "// -----// IR Dump After TestSetAttr (test-set-attr) //----- //\n" +
		textir.OpString(mod, textir.PrintOptions{}) + "\n\n"
	if out.String() != want {
		t.Errorf("dump =\n%s\nwant\n%s", out.String(), want)
	}
}

func TestStatistics(t *testing.T) {
	pm, _, err := runPipeline(t, "builtin.module(test-any-pass,func.func(test-func-pass),func.func(test-func-pass,test-any-pass))", Config{})
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	b.WriteString("=== pipeline\n")
	if err := pm.WriteStatistics(&b, "pipeline"); err != nil {
		t.Fatal(err)
	}
	b.WriteString("=== list\n")
	if err := pm.WriteStatistics(&b, "list"); err != nil {
		t.Fatal(err)
	}
	checkGolden(t, "statistics.golden", b.String())
	if got := pm.Statistics()["test-func-pass"]; got["num-funcs"] != 4 || got["num-ops"] != 6 {
		t.Errorf("Statistics() = %v", got)
	}
	if err := pm.WriteStatistics(io.Discard, "tree"); err == nil {
		t.Error("bad display mode accepted")
	}
}

func TestTimingReport(t *testing.T) {
	tm := NewTimer()
	stop := tm.Start("Parser")
	stop()
	_, _, err := runPipeline(t, "builtin.module(test-any-pass,func.func(test-func-pass,test-any-pass))", Config{Timing: tm})
	if err != nil {
		t.Fatal(err)
	}
	tm.Start("Output")()
	var b strings.Builder
	if err := tm.WriteReport(&b); err != nil {
		t.Fatal(err)
	}
	// Replace the numbers, which vary, and check the layout.
	num := regexp.MustCompile(`\d+\.\d{4} \(\s*\d+\.\d%\)`)
	got := num.ReplaceAllString(b.String(), "T")
	got = regexp.MustCompile(`Total Execution Time: \d+\.\d{4} seconds`).ReplaceAllString(got, "Total Execution Time: T seconds")
	want := `===-------------------------------------------------------------------------===
                         ... Execution time report ...
===-------------------------------------------------------------------------===
  Total Execution Time: T seconds

  ----Wall Time----  ----Name----
    T  Parser
    T  TestAnyPass
    T  'func.func' Pipeline
    T    TestFuncPass
    T    TestAnyPass
    T  Output
    T  Total
`
	if got != want {
		t.Errorf("report layout:\n%s\nwant\n%s\nraw:\n%s", got, want, b.String())
	}
	if !strings.Contains(b.String(), "(100.0%)  Total") {
		t.Errorf("total line: %s", b.String())
	}
}
