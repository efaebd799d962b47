package textir

import (
	"errors"
	"strings"
	"unicode/utf8"
)

// SourceMgr holds the text of the files that diagnostics point into, so
// that a diagnostic is printed with its source line and a caret under the
// column, as MLIR's SourceMgrDiagnosticHandler prints them:
//
//	in.mlir:2:8: error: custom op 'foo.bar' is unknown
//	  %0 = foo.bar
//	       ^
//
// A location in a file the manager does not hold prints alone. The zero
// SourceMgr holds nothing; Load, when set, is asked once for each file not
// added.
type SourceMgr struct {
	files map[string]*sourceFile
	// Load returns the text of the file name, or ok false.
	Load func(name string) (text string, ok bool)
}

type sourceFile struct {
	text  string
	lines []int // offsets of the line starts, made on first use
}

// maxShownLine is the widest source line shown whole; a longer one is shown
// as a window of this many bytes around the column.
const maxShownLine = 160

// Add makes the text of the file name available to diagnostics.
func (m *SourceMgr) Add(name, text string) {
	if m.files == nil {
		m.files = map[string]*sourceFile{}
	}
	m.files[name] = &sourceFile{text: text}
}

func (m *SourceMgr) file(name string) *sourceFile {
	if f, ok := m.files[name]; ok {
		return f
	}
	var f *sourceFile
	if m.Load != nil {
		if text, ok := m.Load(name); ok {
			f = &sourceFile{text: text}
		}
	}
	if m.files == nil {
		m.files = map[string]*sourceFile{}
	}
	m.files[name] = f
	return f
}

// line returns the text of line n (1-based) without its line break.
func (f *sourceFile) line(n int) (string, bool) {
	if f.lines == nil {
		f.lines = []int{0}
		for i := 0; i < len(f.text); i++ {
			if f.text[i] == '\n' {
				f.lines = append(f.lines, i+1)
			}
		}
	}
	if n < 1 || n > len(f.lines) {
		return "", false
	}
	start, end := f.lines[n-1], len(f.text)
	if n < len(f.lines) {
		end = f.lines[n] - 1
	}
	return strings.TrimSuffix(f.text[start:end], "\r"), true
}

// Format returns the diagnostic and its notes as Diagnostic.Error does,
// each followed by its source line and caret where its file is known (a
// note at the position just shown is not shown again).
func (m *SourceMgr) Format(d *Diagnostic) string {
	var b strings.Builder
	shown := m.format(&b, d, FileLineColLoc{})
	for _, n := range d.Notes {
		b.WriteByte('\n')
		shown = m.format(&b, n, shown)
	}
	return b.String()
}

// format writes d and its source line, unless that is at the position
// shown before, and returns the position it showed.
func (m *SourceMgr) format(b *strings.Builder, d *Diagnostic, shown FileLineColLoc) FileLineColLoc {
	d.format(b)
	if m == nil {
		return FileLineColLoc{}
	}
	pos, ok := FileLineCol(d.Loc)
	if !ok {
		return FileLineColLoc{}
	}
	if pos == shown {
		return pos
	}
	f := m.file(pos.File)
	if f == nil {
		return FileLineColLoc{}
	}
	line, ok := f.line(pos.Line)
	if !ok {
		return FileLineColLoc{}
	}
	text, caret := showLine(line, pos.Col)
	b.WriteByte('\n')
	b.WriteString(text)
	b.WriteByte('\n')
	b.WriteString(caret)
	return pos
}

// showLine returns the source line as shown (tabs expanded to the next
// multiple of 8, as LLVM shows them; a long line cut to a window around the
// column, with "..." where it was cut) and the caret line under column col
// (1-based, in bytes; past the end of the line, the caret follows it).
func showLine(line string, col int) (string, string) {
	col = max(col-1, 0)
	if col > len(line) {
		col = len(line)
	}
	prefix, suffix := "", ""
	if len(line) > maxShownLine {
		start := max(0, col-maxShownLine/2)
		end := min(len(line), start+maxShownLine)
		start = max(0, end-maxShownLine)
		for start > 0 && start < len(line) && !utf8.RuneStart(line[start]) {
			start--
		}
		for end < len(line) && !utf8.RuneStart(line[end]) {
			end++
		}
		if start > 0 {
			prefix = "..."
		}
		if end < len(line) {
			suffix = "..."
		}
		line, col = line[start:end], col-start
	}
	var text, caret strings.Builder
	text.WriteString(prefix)
	width := len(prefix)
	caretAt := -1
	for i, r := range line {
		if i >= col && caretAt < 0 {
			caretAt = width
		}
		switch {
		case r == '\t':
			n := 8 - width%8
			text.WriteString(strings.Repeat(" ", n))
			width += n
		case r < ' ' || r == utf8.RuneError || r == 0x7f:
			text.WriteByte(' ') // a control byte shown as a space
			width++
		default:
			text.WriteRune(r)
			width++
		}
	}
	if caretAt < 0 {
		caretAt = width
	}
	text.WriteString(suffix)
	caret.WriteString(strings.Repeat(" ", caretAt))
	caret.WriteByte('^')
	return text.String(), caret.String()
}

// FormatError returns err as a tool prints it: diagnostics (one, or joined
// with errors.Join) formatted with their source lines, any other error as
// its Error text.
func (m *SourceMgr) FormatError(err error) string {
	var d *Diagnostic
	if errors.As(err, &d) && d == err {
		return m.Format(d)
	}
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		parts := make([]string, 0, len(j.Unwrap()))
		for _, e := range j.Unwrap() {
			parts = append(parts, m.FormatError(e))
		}
		return strings.Join(parts, "\n")
	}
	if errors.As(err, &d) && d.Error() == err.Error() {
		return m.Format(d)
	}
	return err.Error()
}
