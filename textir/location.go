package textir

import (
	"fmt"
	"strconv"
	"strings"
)

// Location says where an operation came from.
type Location interface {
	// String returns the location in MLIR's syntax, without the loc(...) wrapper.
	String() string
	isLoc()
}

// UnknownLoc is loc(unknown).
type UnknownLoc struct{}

// FileLineColLoc is loc("file":line:col).
type FileLineColLoc struct {
	File      string
	Line, Col int
}

// NameLoc is loc("name") or loc("name"(child)). A TensorFlow node's name is
// its op's NameLoc.
type NameLoc struct {
	Name  string
	Child Location // nil if absent
}

// FusedLoc is loc(fused[a, b]) or loc(fused<#meta>[a, b]).
type FusedLoc struct {
	Locs     []Location
	Metadata Attribute // nil if absent
}

// CallSiteLoc is loc(callsite(callee at caller)): code at Callee inlined
// at Caller (MLIR's CallSiteLoc).
type CallSiteLoc struct {
	Callee, Caller Location
}

func (UnknownLoc) isLoc()     {}
func (FileLineColLoc) isLoc() {}
func (NameLoc) isLoc()        {}
func (FusedLoc) isLoc()       {}
func (CallSiteLoc) isLoc()    {}

func (UnknownLoc) String() string { return "unknown" }
func (l FileLineColLoc) String() string {
	return strconv.Quote(l.File) + ":" + strconv.Itoa(l.Line) + ":" + strconv.Itoa(l.Col)
}
func (l NameLoc) String() string {
	if l.Child == nil {
		return Quote(l.Name)
	}
	return Quote(l.Name) + "(" + l.Child.String() + ")"
}
func (l FusedLoc) String() string {
	var b strings.Builder
	b.WriteString("fused")
	if l.Metadata != nil {
		b.WriteString("<" + AttrString(l.Metadata) + ">")
	}
	b.WriteByte('[')
	for i, c := range l.Locs {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(c.String())
	}
	b.WriteByte(']')
	return b.String()
}

func (l CallSiteLoc) String() string {
	return "callsite(" + l.Callee.String() + " at " + l.Caller.String() + ")"
}

// FileLineCol returns the first file position inside l, if any (a call
// site's callee first, as MLIR reports it).
func FileLineCol(l Location) (FileLineColLoc, bool) {
	switch l := l.(type) {
	case FileLineColLoc:
		return l, true
	case CallSiteLoc:
		if f, ok := FileLineCol(l.Callee); ok {
			return f, true
		}
		return FileLineCol(l.Caller)
	case NameLoc:
		if l.Child != nil {
			return FileLineCol(l.Child)
		}
	case FusedLoc:
		for _, c := range l.Locs {
			if f, ok := FileLineCol(c); ok {
				return f, true
			}
		}
	}
	return FileLineColLoc{}, false
}

// LocName returns the first name inside l (a TensorFlow node name), if any.
func LocName(l Location) (string, bool) {
	switch l := l.(type) {
	case NameLoc:
		return l.Name, true
	case CallSiteLoc:
		if n, ok := LocName(l.Callee); ok {
			return n, true
		}
		return LocName(l.Caller)
	case FusedLoc:
		for _, c := range l.Locs {
			if n, ok := LocName(c); ok {
				return n, true
			}
		}
	}
	return "", false
}

// Quote returns s as an MLIR string literal: printable ASCII kept, '"' and
// '\\' escaped, everything else as \XX hex escapes (MLIR's convention).
func Quote(s string) string {
	var b strings.Builder
	b.Grow(len(s) + 2)
	b.WriteByte('"')
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '"' || c == '\\':
			b.WriteByte('\\')
			b.WriteByte(c)
		case c == '\n':
			b.WriteString(`\n`)
		case c == '\t':
			b.WriteString(`\t`)
		case c >= 0x20 && c < 0x7f:
			b.WriteByte(c)
		default:
			fmt.Fprintf(&b, "\\%02X", c)
		}
	}
	b.WriteByte('"')
	return b.String()
}
