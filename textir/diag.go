package textir

import (
	"fmt"
	"strings"
)

// Severity of a diagnostic.
type Severity uint8

const (
	SevError Severity = iota
	SevWarning
	SevNote
	SevRemark
)

func (s Severity) String() string {
	return [...]string{"error", "warning", "note", "remark"}[s]
}

// Diagnostic is a message about a location, with attached notes. It is an
// error, so library code returns it and only main prints it.
type Diagnostic struct {
	Severity Severity
	Loc      Location
	Message  string
	Notes    []*Diagnostic
}

// Error formats the diagnostic and its notes as MLIR does:
// file:line:col: error: message.
func (d *Diagnostic) Error() string {
	var b strings.Builder
	d.format(&b)
	for _, n := range d.Notes {
		b.WriteByte('\n')
		n.format(&b)
	}
	return b.String()
}

func (d *Diagnostic) format(b *strings.Builder) {
	b.WriteString(LocPrefix(d.Loc))
	b.WriteString(": ")
	b.WriteString(d.Severity.String())
	b.WriteString(": ")
	b.WriteString(d.Message)
}

// AttachNote adds a note at loc (nil: the diagnostic's own location) and
// returns the diagnostic.
func (d *Diagnostic) AttachNote(loc Location, format string, args ...any) *Diagnostic {
	if loc == nil {
		loc = d.Loc
	}
	d.Notes = append(d.Notes, &Diagnostic{Severity: SevNote, Loc: loc, Message: fmt.Sprintf(format, args...)})
	return d
}

// LocPrefix renders a location as a diagnostic prefix: file:line:col where a
// file position is known, else loc("name") or loc(unknown).
func LocPrefix(l Location) string {
	if l == nil {
		return "loc(unknown)"
	}
	if f, ok := FileLineCol(l); ok {
		return fmt.Sprintf("%s:%d:%d", f.File, f.Line, f.Col)
	}
	return "loc(" + l.String() + ")"
}

// Errorf returns an error diagnostic at loc.
func Errorf(loc Location, format string, args ...any) *Diagnostic {
	return &Diagnostic{Severity: SevError, Loc: loc, Message: fmt.Sprintf(format, args...)}
}

// DiagHandler receives diagnostics that are reported rather than returned
// (warnings, remarks, and errors collected while continuing).
type DiagHandler func(*Diagnostic)
