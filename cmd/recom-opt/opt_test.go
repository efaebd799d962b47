package main

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/recom-compiler/recom/textir"

	"github.com/recom-compiler/recom/cmd/internal/outfile/outfiletest"
)

// runOpt runs recom-opt in-process.
func runOpt(t *testing.T, stdin string, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	var out, errb bytes.Buffer
	code = run(args, strings.NewReader(stdin), &out, &errb)
	return out.String(), errb.String(), code
}

func writeFile(t *testing.T, dir, name, text string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

const okIR = `func.func @ok(%a: i64) -> i64 {
  %0 = arith.addi %a, %a : i64
  %1 = arith.addi %a, %a : i64
  %2 = arith.muli %0, %1 : i64
  func.return %2 : i64
}
`

// badIR uses an undefined value on line 2.
const badIR = `func.func @bad() -> i64 {
  func.return %nope : i64
}
`

func TestHelp(t *testing.T) {
	out, _, code := runOpt(t, "", "--help")
	if code != 0 {
		t.Fatalf("exit %d", code)
	}
	for _, want := range []string{
		"recom-opt [flags] [FILE|-]", "--split-input-file", "--verify-diagnostics", "-o, --output",
		"--mlir-print-ir-after-all", "--pass-pipeline",
		"Passes:\n", "--canonicalize", "Canonicalize operations", "--cse", "Eliminate common sub-expressions",
		"--symbol-dce",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("--help lacks %q", want)
		}
	}
	// Pass flags are listed under Passes:, not among the options.
	opts, passes, _ := strings.Cut(out, "Passes:")
	if strings.Contains(opts, "--cse") || !strings.Contains(passes, "--cse") {
		t.Errorf("--cse is not (only) in the Passes: section:\n%s", out)
	}
}

func TestUsageErrors(t *testing.T) {
	dir := t.TempDir()
	in := writeFile(t, dir, "in.mlir", okIR)
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"unknown flag", []string{"--no-such-flag", in}, "recom-opt: error: unknown flag: --no-such-flag"},
		{"single-dash unknown flag", []string{"-no-such-flag", in}, "recom-opt: error: unknown flag: --no-such-flag"},
		{"two inputs", []string{in, in}, "accepts at most 1 arg"},
		{"missing input", []string{filepath.Join(dir, "missing.mlir")}, "cannot open input file"},
		{"pipeline and pass flags", []string{"--pass-pipeline=builtin.module(cse)", "--cse", in}, "'--pass-pipeline' can't be used with individual pass flags"},
		{"unknown pass in pipeline", []string{"--pass-pipeline=builtin.module(nope)", in}, "<pass-pipeline>:1:16: error: 'nope' does not refer to a registered pass"},
		{"bad pass option", []string{"--canonicalize=no-such-option=1", in}, "option 'no-such-option': unknown option"},
		{"unknown pass to print", []string{"--mlir-print-ir-after=nope", in}, "'nope' does not refer to a registered pass"},
		{"bad statistics display", []string{"--mlir-pass-statistics-display=tree", in}, "want pipeline or list"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			out, errs, code := runOpt(t, "", tc.args...)
			if code != 1 {
				t.Errorf("exit %d, want 1", code)
			}
			if out != "" {
				t.Errorf("stdout = %q, want nothing", out)
			}
			if !strings.Contains(errs, tc.want) {
				t.Errorf("stderr = %q, want it to contain %q", errs, tc.want)
			}
		})
	}
}

func TestRoundTrip(t *testing.T) {
	out, errs, code := runOpt(t, okIR)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	for _, want := range []string{"func.func @ok(%arg0: i64) -> i64", "arith.addi %arg0, %arg0 : i64", "return"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	again, errs, code := runOpt(t, out)
	if code != 0 || again != out {
		t.Errorf("printing twice differs (exit %d, %s):\n%s\n---\n%s", code, errs, out, again)
	}
	generic, errs, code := runOpt(t, okIR, "--mlir-print-op-generic")
	if code != 0 || !strings.Contains(generic, `"func.func"()`) {
		t.Fatalf("generic output (exit %d, %s):\n%s", code, errs, generic)
	}
	back, errs, code := runOpt(t, generic)
	if code != 0 || back != out {
		t.Errorf("generic output does not parse back to the same IR (exit %d, %s):\n%s", code, errs, back)
	}
}

func TestDiagnostics(t *testing.T) {
	dir := t.TempDir()
	in := writeFile(t, dir, "bad.mlir", badIR)
	out, errs, code := runOpt(t, "", in)
	if code != 1 || out != "" {
		t.Fatalf("exit %d, stdout %q", code, out)
	}
	if !regexp.MustCompile(`(?m)^` + regexp.QuoteMeta(in) + `:2:\d+: error: .*nope`).MatchString(errs) {
		t.Errorf("stderr = %q, want %s:2:col: error: ... nope", errs, in)
	}
	// From stdin the file is <stdin>.
	_, errs, _ = runOpt(t, badIR)
	if !strings.HasPrefix(errs, "<stdin>:2:") {
		t.Errorf("stderr = %q, want <stdin>:2:...", errs)
	}
}

func TestSplitInputFile(t *testing.T) {
	src := "func.func @first() {\n  func.return\n}\n" + // lines 1-3
		"// -----\n" + // 4
		"func.func @second() -> i64 {\n  func.return %nope : i64\n}\n" + // 5-7
		"// -----\n" + // 8
		"\n\nfunc.func @third() -> i64 {\n  func.return %again : i64\n}\n" + // 9-13
		"// -----\n" + // 14
		"func.func @fourth() {\n  func.return\n}\n" // 15-17
	out, errs, code := runOpt(t, src, "--split-input-file")
	if code != 1 {
		t.Errorf("exit %d, want 1", code)
	}
	// Errors carry the original file's line numbers, and every chunk runs.
	for _, want := range []string{"<stdin>:6:", "<stdin>:12:"} {
		if !strings.Contains(errs, want) {
			t.Errorf("stderr lacks %q:\n%s", want, errs)
		}
	}
	if strings.Count(out, "// -----\n") != 3 || !strings.Contains(out, "@first") || !strings.Contains(out, "@fourth") {
		t.Errorf("stdout:\n%s", out)
	}
	if strings.Index(out, "@first") > strings.Index(out, "@fourth") {
		t.Errorf("chunks out of order:\n%s", out)
	}
}

func TestVerifyDiagnostics(t *testing.T) {
	good := "func.func @ok() {\n  func.return\n}\n" +
		"// -----\n" +
		"func.func @bad() -> i64 {\n" +
		"  // expected-error@+1 {{nope}}\n" +
		"  func.return %nope : i64\n}\n"
	out, errs, code := runOpt(t, good, "--split-input-file", "--verify-diagnostics")
	if code != 0 || errs != "" {
		t.Fatalf("exit %d, stderr %q", code, errs)
	}
	if !strings.Contains(out, "func.func @ok()") || strings.Contains(out, "@bad") {
		t.Errorf("stdout:\n%s", out)
	}

	tests := []struct {
		name, src string
		want      []string
	}{
		{"missing", "func.func @ok() {\n  // expected-error@+1 {{never reported}}\n  func.return\n}\n",
			[]string{`<stdin>:2:6: error: expected error "never reported" was not produced`}},
		{"unexpected", "func.func @bad() -> i64 {\n  func.return %nope : i64\n}\n",
			[]string{`<stdin>:2:`, `error: unexpected error:`}},
		{"split keeps line numbers", "func.func @ok() {\n  func.return\n}\n// -----\n\n// expected-error@+1 {{never reported}}\nfunc.func @f() {\n  func.return\n}\n",
			[]string{`<stdin>:6:4: error: expected error "never reported" was not produced`}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, errs, code := runOpt(t, tc.src, "--verify-diagnostics", "--split-input-file")
			if code != 1 {
				t.Errorf("exit %d, want 1", code)
			}
			for _, w := range tc.want {
				if !strings.Contains(errs, w) {
					t.Errorf("stderr = %q, want it to contain %q", errs, w)
				}
			}
		})
	}
}

func TestPassOrder(t *testing.T) {
	_, errs, code := runOpt(t, okIR, "--cse", "--canonicalize", "--cse", "--mlir-print-ir-after-all")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	re := regexp.MustCompile(`IR Dump After (\S+) \((\S+)\)`)
	var got []string
	for _, m := range re.FindAllStringSubmatch(errs, -1) {
		got = append(got, m[2])
	}
	if strings.Join(got, " ") != "cse canonicalize cse" {
		t.Errorf("passes ran in order %v, want cse canonicalize cse:\n%s", got, errs)
	}
	_, errs, _ = runOpt(t, okIR, "--canonicalize", "--cse", "--dump-pass-pipeline")
	if !strings.Contains(errs, "Pass Manager with 2 passes:\nbuiltin.module(canonicalize") || !strings.Contains(errs, "},cse)") {
		t.Errorf("--dump-pass-pipeline:\n%s", errs)
	}
}

func TestReports(t *testing.T) {
	_, errs, code := runOpt(t, okIR, "--cse", "--mlir-timing", "--mlir-pass-statistics")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	for _, want := range []string{"Pass statistics report", "CSE", "(S) 1 num-cse'd", "Execution time report", "Parser", "Output", "Total"} {
		if !strings.Contains(errs, want) {
			t.Errorf("stderr lacks %q:\n%s", want, errs)
		}
	}
}

func TestOutputFile(t *testing.T) {
	dir := t.TempDir()
	good := writeFile(t, dir, "good.mlir", okIR)
	bad := writeFile(t, dir, "bad.mlir", badIR)
	target := filepath.Join(dir, "out", "result.mlir")
	if err := os.Mkdir(filepath.Dir(target), 0o755); err != nil {
		t.Fatal(err)
	}

	// A failed run leaves no file and no temporary file.
	if _, _, code := runOpt(t, "", bad, "-o", target); code != 1 {
		t.Fatalf("exit %d, want 1", code)
	}
	if names := outfiletest.Names(t, filepath.Dir(target)); len(names) != 0 {
		t.Fatalf("a failed run left %v", names)
	}

	// A good run writes the file and nothing to stdout.
	out, errs, code := runOpt(t, "", good, "-o", target)
	if code != 0 || out != "" {
		t.Fatalf("exit %d, stdout %q, stderr %q", code, out, errs)
	}
	written, err := os.ReadFile(target)
	if err != nil || !strings.Contains(string(written), "func.func @ok") {
		t.Fatalf("output file: %q, %v", written, err)
	}

	// A failed run leaves an existing file as it was.
	if _, _, code := runOpt(t, "", bad, "-o", target); code != 1 {
		t.Fatalf("exit %d, want 1", code)
	}
	again, _ := os.ReadFile(target)
	if !bytes.Equal(again, written) {
		t.Errorf("a failed run changed the output file:\n%s", again)
	}
	if names := outfiletest.Names(t, filepath.Dir(target)); len(names) != 1 {
		t.Errorf("directory holds %v, want only result.mlir", names)
	}

	// -o - is stdout.
	out, _, code = runOpt(t, "", good, "-o", "-")
	if code != 0 || out != string(written) {
		t.Errorf("-o - printed %q (exit %d)", out, code)
	}
}

func TestInternalError(t *testing.T) {
	saved := parseSource
	defer func() { parseSource = saved }()
	parseSource = func(*textir.Context, string, string, int) (*textir.Operation, error) { panic("boom") }
	dir := t.TempDir()
	target := filepath.Join(dir, "out.mlir")
	out, errs, code := runOpt(t, okIR, "-o", target)
	if code != 2 || out != "" {
		t.Errorf("exit %d, stdout %q; want 2 and nothing", code, out)
	}
	if !strings.HasPrefix(errs, "recom-opt: error: internal error: boom\n") {
		t.Errorf("stderr = %q", errs)
	}
	if names := outfiletest.Names(t, dir); len(names) != 0 {
		t.Errorf("a crashed run left %v", names)
	}
}
