package textir

import (
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// This file implements MLIR's --verify-diagnostics: the source carries
// expectations in comments, and the diagnostics a run emitted are checked
// against them.
//
//	// expected-error {{message}}          on this line
//	// expected-error@+1 {{message}}       on the next line (@-2: two lines up)
//	// expected-note@above {{message}}     on the closest line above without an expectation
//	// expected-warning@below {{message}}  on the closest line below without an expectation
//	// expected-remark@unknown {{message}} at a location with no file position at all
//	// expected-error-re {{op @{{.*}} failed}}  with regex fragments in {{...}}
//
// The message is a substring of the diagnostic's message. With the -re
// suffix, {{...}} fragments inside the message are regular expressions (Go
// syntax) and the rest is literal. Notes attached to a diagnostic are checked
// like any other diagnostic, as MLIR does. A diagnostic whose location has no
// file position in this file (loc("name") only, or another file) is
// unexpected unless an @unknown expectation matches an unknown location.

// ExpectedDiag is one expected-* annotation in a source file.
type ExpectedDiag struct {
	Severity Severity
	// Line is the source line the diagnostic must be reported on; 0 for
	// @unknown.
	Line int
	// Unknown is set for @unknown: the diagnostic has no location.
	Unknown bool
	// At is where the annotation itself is written.
	At FileLineColLoc
	// Message is the text between the outer {{ and }}.
	Message string
	// Regex is set for the -re form.
	Regex bool
	// Matched is set once a diagnostic matched the expectation.
	Matched bool

	re *regexp.Regexp
}

// Match reports whether msg satisfies the expectation (substring match, or
// regex search with the -re form).
func (e *ExpectedDiag) Match(msg string) bool {
	if e.re != nil {
		return e.re.MatchString(msg)
	}
	return strings.Contains(msg, e.Message)
}

var expectedDiagRE = regexp.MustCompile(`expected-(error|warning|note|remark)(-re)? *(@([+-][0-9]+|above|below|unknown))? *\{\{(.*)\}\}\s*$`)

// ParseExpectedDiags reads the expected-* annotations of src, a file (or
// chunk of a file) whose first line is line firstLine of file. It returns the
// expectations in source order and the diagnostics for malformed ones (a
// designator that points outside the text, a bad regex).
func ParseExpectedDiags(file, src string, firstLine int) ([]*ExpectedDiag, []*Diagnostic) {
	if firstLine < 1 {
		firstLine = 1
	}
	lines := strings.Split(src, "\n")
	var (
		exps    []*ExpectedDiag
		errs    []*Diagnostic
		marked  = make([]bool, len(lines)) // line i holds a designator
		pending []*ExpectedDiag            // @below, waiting for a line without one
	)
	for i, text := range lines {
		m := expectedDiagRE.FindStringSubmatchIndex(text)
		if m == nil {
			for _, e := range pending {
				e.Line = firstLine + i
			}
			pending = pending[:0]
			continue
		}
		marked[i] = true
		e := &ExpectedDiag{
			Severity: severityByName(text[m[2]:m[3]]),
			Regex:    m[4] >= 0,
			At:       FileLineColLoc{File: file, Line: firstLine + i, Col: m[0] + 1},
			Message:  text[m[10]:m[11]],
			Line:     firstLine + i,
		}
		exps = append(exps, e)
		if e.Regex {
			re, err := compileExpectation(e.Message)
			if err != nil {
				errs = append(errs, Errorf(e.At, "invalid regular expression in expected %s: %v", e.Severity, err))
			}
			e.re = re
		}
		if m[8] < 0 {
			continue
		}
		switch off := text[m[8]:m[9]]; off {
		case "unknown":
			e.Line, e.Unknown = 0, true
		case "below":
			e.Line = 0
			pending = append(pending, e)
		case "above":
			e.Line = 0
			for j := i - 1; j >= 0; j-- {
				if !marked[j] {
					e.Line = firstLine + j
					break
				}
			}
			if e.Line == 0 {
				errs = append(errs, Errorf(e.At, "expected %s@above has no line above it without an expectation", e.Severity))
			}
		default:
			// The pattern guarantees [+-]digits; an offset beyond int's range
			// (an error from Atoi) or the text's lines is refused before any
			// arithmetic on it could wrap around.
			n, err := strconv.Atoi(off)
			if err != nil || n < -i || n >= len(lines)-i {
				where := fmt.Sprintf("the input is lines %d to %d", firstLine, firstLine+len(lines)-1)
				if err == nil && n >= -1<<31 && n <= 1<<31 {
					where = fmt.Sprintf("line %d; %s", firstLine+i+n, where)
				}
				errs = append(errs, Errorf(e.At, "expected %s@%s points outside the input (%s)", e.Severity, off, where))
				e.Line = 0
				continue
			}
			e.Line = firstLine + i + n
		}
	}
	for _, e := range pending {
		errs = append(errs, Errorf(e.At, "expected %s@below has no line below it without an expectation", e.Severity))
	}
	return exps, errs
}

// compileExpectation turns an -re message into a regular expression: text
// outside {{...}} is literal, text inside is a regex.
func compileExpectation(msg string) (*regexp.Regexp, error) {
	var b strings.Builder
	for rest := msg; rest != ""; {
		i := strings.Index(rest, "{{")
		if i < 0 {
			b.WriteString(regexp.QuoteMeta(rest))
			break
		}
		b.WriteString(regexp.QuoteMeta(rest[:i]))
		rest = rest[i+2:]
		j := strings.Index(rest, "}}")
		if j < 0 {
			return nil, fmt.Errorf("found start of regex with no end '}}'")
		}
		b.WriteString("(?:" + rest[:j] + ")")
		rest = rest[j+2:]
	}
	return regexp.Compile(b.String())
}

func severityByName(s string) Severity {
	switch s {
	case "warning":
		return SevWarning
	case "note":
		return SevNote
	case "remark":
		return SevRemark
	}
	return SevError
}

// VerifyDiagnostics checks the diagnostics a run emitted against the
// expectations written in src (see ParseExpectedDiags for file and
// firstLine). It returns one error diagnostic per mismatch, nil when every
// diagnostic was expected and every expectation was produced:
//
//	file:7:3: error: unexpected error: 'func.return' op has 1 operand
//	file:5:6: error: expected error "has 2 operands" was not produced
//
// The first kind points at the diagnostic, the second at the expectation.
// An expectation may match several identical diagnostics on its line.
func VerifyDiagnostics(file, src string, firstLine int, diags []*Diagnostic) []*Diagnostic {
	exps, out := ParseExpectedDiags(file, src, firstLine)
	for _, d := range FlattenDiagnostics(diags) {
		if bad := matchExpectation(file, exps, d); bad != nil {
			out = append(out, bad)
		}
	}
	for _, e := range exps {
		if !e.Matched {
			out = append(out, Errorf(e.At, "expected %s %s was not produced", e.Severity, strconv.Quote(e.Message)))
		}
	}
	return out
}

// matchExpectation marks the expectation that d satisfies, or returns the
// error diagnostic that reports d as unexpected.
func matchExpectation(file string, exps []*ExpectedDiag, d *Diagnostic) *Diagnostic {
	pos, hasPos := FileLineCol(d.Loc)
	_, isUnknown := d.Loc.(UnknownLoc)
	isUnknown = isUnknown || d.Loc == nil
	inFile := hasPos && pos.File == file
	var nearMiss *ExpectedDiag
	// Prefer an expectation that has not matched yet, so that two expected
	// diagnostics with the same text on one line both count.
	for _, wantFresh := range []bool{true, false} {
		for _, e := range exps {
			if wantFresh == e.Matched {
				continue
			}
			switch {
			case e.Unknown && !isUnknown, !e.Unknown && (!inFile || e.Line != pos.Line):
				continue
			}
			if !e.Match(d.Message) {
				continue
			}
			if e.Severity == d.Severity {
				e.Matched = true
				return nil
			}
			if nearMiss == nil {
				nearMiss = e
			}
		}
	}
	if nearMiss != nil {
		return Errorf(d.Loc, "'%s' diagnostic emitted when expecting a '%s'", d.Severity, nearMiss.Severity)
	}
	return Errorf(d.Loc, "unexpected %s: %s", d.Severity, d.Message)
}

// FlattenDiagnostics lists diagnostics with their notes after each of them,
// as separate diagnostics (notes without a location take their parent's).
func FlattenDiagnostics(diags []*Diagnostic) []*Diagnostic {
	var out []*Diagnostic
	var add func(d *Diagnostic, parent Location)
	add = func(d *Diagnostic, parent Location) {
		loc := d.Loc
		if loc == nil {
			loc = parent
		}
		out = append(out, &Diagnostic{Severity: d.Severity, Loc: loc, Message: d.Message})
		for _, n := range d.Notes {
			add(n, loc)
		}
	}
	for _, d := range diags {
		add(d, nil)
	}
	return out
}

// DiagnosticsOf unpacks an error into diagnostics: a *Diagnostic, errors
// joined with errors.Join (or any error with Unwrap() []error), or a
// wrapped diagnostic. Any other error becomes an error diagnostic at an
// unknown location. A nil error gives nil.
func DiagnosticsOf(err error) []*Diagnostic {
	if err == nil {
		return nil
	}
	if d, ok := err.(*Diagnostic); ok {
		return []*Diagnostic{d}
	}
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		var out []*Diagnostic
		for _, e := range j.Unwrap() {
			out = append(out, DiagnosticsOf(e)...)
		}
		return out
	}
	var d *Diagnostic
	if errors.As(err, &d) {
		return []*Diagnostic{d}
	}
	return []*Diagnostic{Errorf(UnknownLoc{}, "%s", err.Error())}
}
