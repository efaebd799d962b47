// Package pass is recom's pass infrastructure, modelled on MLIR's: the pass
// declaration (Decl: flag, summary, anchor, options with defaults,
// statistics; each pass declared once, as in MLIR's Passes.td), typed
// option values, a global pass registry keyed by flag name, and a
// PassManager that runs a nested pipeline
// (builtin.module(canonicalize, func.func(cse))) with verification after
// each pass and MLIR-style instrumentation (IR dumps, timing, statistics).
package pass

import (
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/recom-compiler/recom/textir"
)

// State is what a running pass sees: the IR context, its statistics, and a
// way to report that it left the IR unchanged.
type State struct {
	ctx       *textir.Context
	decl      *Decl
	stats     *statSet
	unchanged bool
	warn      textir.DiagHandler
	misuse    string // the first misuse of Stat: an undeclared statistic or another description
}

// Context returns the IR context.
func (s *State) Context() *textir.Context { return s.ctx }

// Stat returns the statistic named name, which the pass's Decl declares,
// starting it at 0 on first use. desc is "" or the declared description
// (Help). Statistics are summed over every op the pass runs on; a
// statistic is reported once the pass has asked for it, so ask for all of
// them at the start of Run to have them reported even when zero, as MLIR
// does. A statistic the Decl does not declare, or a different
// description, fails the pass (after Run) with an error that says so.
func (s *State) Stat(name, desc string) *Statistic {
	sd, ok := s.decl.statistic(name)
	switch {
	case !ok:
		s.misused(fmt.Sprintf("pass '%s' reports statistic '%s', which its pass.Decl does not declare", s.decl.Flag, name))
	case desc == "":
		desc = sd.Help
	case desc != sd.Help:
		s.misused(fmt.Sprintf("pass '%s' describes statistic '%s' as %q, its pass.Decl as %q", s.decl.Flag, name, desc, sd.Help))
	}
	return s.stats.get(name, desc)
}

// misused records the first misuse of Stat; the pass fails with it.
func (s *State) misused(msg string) {
	if s.misuse == "" {
		s.misuse = msg
	}
}

// MarkUnchanged tells the pass manager that the pass left the IR as it was
// (used by --mlir-print-ir-after-change).
func (s *State) MarkUnchanged() { s.unchanged = true }

// Emit reports a diagnostic that does not fail the pass (a warning or a
// remark) to the pass manager's diagnostic handler.
func (s *State) Emit(d *textir.Diagnostic) {
	if s.warn != nil {
		s.warn(d)
	}
}

// Statistic is a named counter (MLIR's Pass::Statistic).
type Statistic struct {
	Name  string
	Desc  string
	Value int64
}

// Add adds n to the statistic.
func (s *Statistic) Add(n int64) { s.Value += n }

// Inc adds one to the statistic.
func (s *Statistic) Inc() { s.Value++ }

type statSet struct {
	list []*Statistic
}

func (s *statSet) get(name, desc string) *Statistic {
	for _, st := range s.list {
		if st.Name == name {
			return st
		}
	}
	st := &Statistic{Name: name, Desc: desc}
	s.list = append(s.list, st)
	return st
}

func (s *statSet) sorted() []*Statistic {
	out := append([]*Statistic(nil), s.list...)
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// WriteHelp lists the registered passes and their options for --help, in
// the manner of mlir-opt's "Compiler passes to run" section:
//
//	--canonicalize   - Canonicalize operations
//	    max-iterations=<int>   - Max. iterations between applying patterns (default: 10)
func WriteHelp(w io.Writer) error {
	decls := Registered()
	width := 0
	for _, d := range decls {
		width = max(width, len(d.Flag)+2)
	}
	var b strings.Builder
	for _, d := range decls {
		fmt.Fprintf(&b, "  %-*s - %s\n", width, "--"+d.Flag, d.Summary)
		opts := d.OptionList()
		ow := 0
		for _, o := range opts {
			ow = max(ow, len(o.Name)+len(o.Kind.String())+3)
		}
		for _, o := range opts {
			fmt.Fprintf(&b, "      %-*s - %s (default: %s)\n", ow, o.Name+"=<"+o.Kind.String()+">", o.Help, o.DefaultText())
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}
