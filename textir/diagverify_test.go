package textir

import (
	"errors"
	"fmt"
	"strings"
	"testing"
)

func diagAt(sev Severity, line, col int, msg string) *Diagnostic {
	return &Diagnostic{Severity: sev, Loc: FileLineColLoc{File: "t.mlir", Line: line, Col: col}, Message: msg}
}

func TestParseExpectedDiags(t *testing.T) {
	src := strings.Join([]string{
		`%0 = "x.op"() : () -> i32 // expected-error {{same line}}`, // 1
		`// expected-warning@+1 {{next}}`,                           // 2
		`"x.a"() : () -> ()`,                                        // 3
		`// expected-note@-3 {{first}}`,                             // 4
		`// expected-remark@below {{below a}}`,                      // 5
		`// expected-remark@below {{below b}}`,                      // 6
		`"x.b"() : () -> ()`,                                        // 7
		`// expected-error@above {{above}}`,                         // 8
		`// expected-error-re {{op @{{[a-z]+}} failed}}`,            // 9
		`// expected-error@unknown {{nowhere}}`,                     // 10
	}, "\n")
	exps, errs := ParseExpectedDiags("t.mlir", src, 1)
	if len(errs) != 0 {
		t.Fatalf("unexpected errors: %v", errs)
	}
	want := []struct {
		sev     Severity
		line    int
		msg     string
		regex   bool
		unknown bool
	}{
		{SevError, 1, "same line", false, false},
		{SevWarning, 3, "next", false, false},
		{SevNote, 1, "first", false, false},
		{SevRemark, 7, "below a", false, false},
		{SevRemark, 7, "below b", false, false},
		{SevError, 7, "above", false, false},
		{SevError, 9, "op @{{[a-z]+}} failed", true, false},
		{SevError, 0, "nowhere", false, true},
	}
	if len(exps) != len(want) {
		t.Fatalf("got %d expectations, want %d", len(exps), len(want))
	}
	for i, w := range want {
		e := exps[i]
		if e.Severity != w.sev || e.Line != w.line || e.Message != w.msg || e.Regex != w.regex || e.Unknown != w.unknown {
			t.Errorf("expectation %d = %+v, want %+v", i, *e, w)
		}
	}
	if exps[0].At.Col != 30 || exps[0].At.Line != 1 {
		t.Errorf("first expectation at %v, want line 1 col 30", exps[0].At)
	}
	if !exps[6].Match("'x.op' op @abc failed badly") || exps[6].Match("op @ABC failed") {
		t.Errorf("regex expectation matches wrongly")
	}
}

func TestParseExpectedDiagsErrors(t *testing.T) {
	tests := []struct {
		name, src, want string
	}{
		{"offset before start", "// expected-error@-1 {{x}}", "points outside the input"},
		{"offset after end", "a\n// expected-error@+5 {{x}}", "points outside the input"},
		{"offset line named", "a\n// expected-error@+5 {{x}}", "points outside the input (line 7; the input is lines 1 to 2)"},
		{"offset beyond int64", "a\n// expected-error@+99999999999999999999 {{x}}", "expected error@+99999999999999999999 points outside the input (the input is lines 1 to 2)"},
		{"offset at int64's end", "a\n// expected-error@+9223372036854775807 {{x}}", "points outside the input (the input is lines 1 to 2)"},
		{"negative offset beyond int64", "a\n// expected-error@-9223372036854775808 {{x}}", "points outside the input (the input is lines 1 to 2)"},
		{"below at end", "// expected-error@below {{x}}", "has no line below"},
		{"above at start", "// expected-error@above {{x}}", "has no line above"},
		{"bad regex", "// expected-error-re {{a{{(}}b}}", "invalid regular expression"},
		{"unterminated regex", "// expected-error-re {{a {{b}}", "invalid regular expression"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, errs := ParseExpectedDiags("t.mlir", tc.src, 1)
			if len(errs) != 1 || !strings.Contains(errs[0].Error(), tc.want) {
				t.Fatalf("errors = %v, want one containing %q", errs, tc.want)
			}
		})
	}
}

func TestVerifyDiagnostics(t *testing.T) {
	src := strings.Join([]string{
		`func.func @f() {`,                              // 1
		`  // expected-error@+1 {{has 1 operand}}`,      // 2
		`  "func.return"(%x) : (i32) -> ()`,             // 3
		`}`,                                             // 4
		`// expected-note@-1 {{prior}}`,                 // 5
		`// expected-warning-re@above {{w{{[0-9]+}}x}}`, // 6
	}, "\n")
	tests := []struct {
		name  string
		diags []*Diagnostic
		want  []string // substrings of the mismatches, in order
	}{
		{"all match", []*Diagnostic{
			diagAt(SevError, 3, 3, "'func.return' op has 1 operand").AttachNote(FileLineColLoc{File: "t.mlir", Line: 4, Col: 1}, "prior definition"),
			diagAt(SevWarning, 4, 1, "w42x"),
		}, nil},
		{"missing", []*Diagnostic{
			diagAt(SevError, 3, 3, "'func.return' op has 1 operand").AttachNote(FileLineColLoc{File: "t.mlir", Line: 4, Col: 1}, "prior definition"),
		}, []string{`t.mlir:6:4: error: expected warning "w{{[0-9]+}}x" was not produced`}},
		{"unexpected and missing", []*Diagnostic{
			diagAt(SevError, 3, 3, "'func.return' op has 2 operands"),
			diagAt(SevWarning, 4, 1, "w7x"),
			{Severity: SevNote, Loc: FileLineColLoc{File: "t.mlir", Line: 4, Col: 1}, Message: "prior"},
		}, []string{
			`t.mlir:3:3: error: unexpected error: 'func.return' op has 2 operands`,
			`t.mlir:2:6: error: expected error "has 1 operand" was not produced`,
		}},
		{"wrong severity", []*Diagnostic{
			diagAt(SevWarning, 3, 3, "'func.return' op has 1 operand"),
			diagAt(SevWarning, 4, 1, "w1x"),
			diagAt(SevNote, 4, 1, "prior"),
		}, []string{
			`t.mlir:3:3: error: 'warning' diagnostic emitted when expecting a 'error'`,
			`expected error "has 1 operand" was not produced`,
		}},
		{"wrong line", []*Diagnostic{
			diagAt(SevError, 2, 3, "'func.return' op has 1 operand"),
			diagAt(SevWarning, 4, 1, "w1x"),
			diagAt(SevNote, 4, 1, "prior"),
		}, []string{`t.mlir:2:3: error: unexpected error`, `was not produced`}},
		{"name location is unexpected", []*Diagnostic{
			diagAt(SevError, 3, 3, "'func.return' op has 1 operand"),
			diagAt(SevWarning, 4, 1, "w1x"),
			diagAt(SevNote, 4, 1, "prior"),
			{Severity: SevError, Loc: NameLoc{Name: "node"}, Message: "boom"},
		}, []string{`loc("node"): error: unexpected error: boom`}},
		{"other file is unexpected", []*Diagnostic{
			diagAt(SevError, 3, 3, "'func.return' op has 1 operand"),
			diagAt(SevWarning, 4, 1, "w1x"),
			diagAt(SevNote, 4, 1, "prior"),
			{Severity: SevError, Loc: FileLineColLoc{File: "u.mlir", Line: 3, Col: 3}, Message: "has 1 operand"},
		}, []string{`u.mlir:3:3: error: unexpected error: has 1 operand`}},
		{"name location with a file position matches", []*Diagnostic{
			{Severity: SevError, Loc: NameLoc{Name: "n", Child: FileLineColLoc{File: "t.mlir", Line: 3, Col: 1}}, Message: "op has 1 operand!"},
			diagAt(SevWarning, 4, 1, "w1x"),
			diagAt(SevNote, 4, 1, "prior"),
		}, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := VerifyDiagnostics("t.mlir", src, 1, tc.diags)
			if len(got) != len(tc.want) {
				t.Fatalf("got %d mismatches %v, want %d", len(got), got, len(tc.want))
			}
			for i, w := range tc.want {
				if !strings.Contains(got[i].Error(), w) {
					t.Errorf("mismatch %d = %q, want it to contain %q", i, got[i].Error(), w)
				}
			}
		})
	}
}

func TestVerifyDiagnosticsFirstLine(t *testing.T) {
	// A chunk of a split file: its first line is line 10 of the file.
	src := "// expected-error@+1 {{bad}}\n\"x.op\"() : () -> ()\n"
	if got := VerifyDiagnostics("f", src, 10, []*Diagnostic{
		{Severity: SevError, Loc: FileLineColLoc{File: "f", Line: 11, Col: 1}, Message: "bad op"},
	}); len(got) != 0 {
		t.Fatalf("mismatches: %v", got)
	}
	got := VerifyDiagnostics("f", src, 10, nil)
	if len(got) != 1 || !strings.HasPrefix(got[0].Error(), "f:10:4: error: expected error") {
		t.Fatalf("mismatches: %v", got)
	}
}

func TestVerifyDiagnosticsDuplicates(t *testing.T) {
	src := "x // expected-error {{dup}}\n// expected-error@-1 {{dup}}\n"
	d := diagAt(SevError, 1, 1, "dup")
	if got := VerifyDiagnostics("t.mlir", src, 1, []*Diagnostic{d, d}); len(got) != 0 {
		t.Fatalf("two expectations, two diagnostics: %v", got)
	}
	// MLIR lets one expectation match repeated diagnostics, but each
	// expectation must be produced.
	if got := VerifyDiagnostics("t.mlir", src, 1, []*Diagnostic{d}); len(got) != 1 {
		t.Fatalf("two expectations, one diagnostic: %v", got)
	}
	if got := VerifyDiagnostics("t.mlir", "x // expected-error {{dup}}", 1, []*Diagnostic{d, d}); len(got) != 0 {
		t.Fatalf("one expectation, two diagnostics: %v", got)
	}
}

func TestVerifyDiagnosticsUnknownLoc(t *testing.T) {
	src := "// expected-error@unknown {{lost}}\n"
	if got := VerifyDiagnostics("t.mlir", src, 1, []*Diagnostic{Errorf(UnknownLoc{}, "lost it")}); len(got) != 0 {
		t.Fatalf("mismatches: %v", got)
	}
	if got := VerifyDiagnostics("t.mlir", src, 1, []*Diagnostic{Errorf(NameLoc{Name: "n"}, "lost it")}); len(got) != 2 {
		t.Fatalf("a name location is not unknown: %v", got)
	}
}

func TestDiagnosticsOf(t *testing.T) {
	d1 := Errorf(UnknownLoc{}, "one")
	d2 := Errorf(UnknownLoc{}, "two")
	tests := []struct {
		name string
		err  error
		want []string
	}{
		{"nil", nil, nil},
		{"single", d1, []string{"one"}},
		{"joined", errors.Join(d1, d2), []string{"one", "two"}},
		{"wrapped", fmt.Errorf("ctx: %w", d2), []string{"two"}},
		{"plain", errors.New("plain"), []string{"plain"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := DiagnosticsOf(tc.err)
			if len(got) != len(tc.want) {
				t.Fatalf("got %v, want %v", got, tc.want)
			}
			for i, w := range tc.want {
				if got[i].Message != w {
					t.Errorf("diag %d = %q, want %q", i, got[i].Message, w)
				}
			}
		})
	}
}
