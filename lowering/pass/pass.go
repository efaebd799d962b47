// Package pass is recom's pass infrastructure, modelled on MLIR's: the Pass
// interface, typed pass options, a global pass registry keyed by flag name,
// and a PassManager that runs a nested pipeline
// (builtin.module(canonicalize, func.func(cse))) with verification after
// each pass and MLIR-style instrumentation (IR dumps, timing, statistics).
package pass

import (
	"fmt"
	"io"
	"sort"
	"strings"
	"sync"

	"github.com/recom-compiler/recom/textir"
)

// Pass is one transformation. A fresh instance is made (through its
// PassInfo.New) for every place it appears in a pipeline, so a pass may keep
// its parsed options in fields. Run may be called many times (once per
// anchor op) on the same instance, sequentially.
type Pass interface {
	// Flag is the pass's stable command-line name: "cse".
	Flag() string
	// Summary is a one-line description for --help.
	Summary() string
	// Anchor is the op kind the pass runs on ("builtin.module",
	// "func.func"), or "" for any op.
	Anchor() string
	// Options returns the pass's declared options (nil: none).
	Options() *Options
	// Run transforms op. A failure is returned as an error, preferably a
	// *textir.Diagnostic located at the op it is about.
	Run(op *textir.Operation, st *State) error
}

// Named is implemented by passes whose display name (used in IR dump
// banners, timing and statistics reports, like MLIR's pass class names:
// "CSE", "Canonicalizer") differs from the flag.
type Named interface {
	Name() string
}

// DisplayName returns p's display name: Name() when p implements Named, else
// its flag.
func DisplayName(p Pass) string {
	if n, ok := p.(Named); ok {
		return n.Name()
	}
	return p.Flag()
}

// State is what a running pass sees: the IR context, its statistics, and a
// way to report that it left the IR unchanged.
type State struct {
	ctx       *textir.Context
	stats     *statSet
	unchanged bool
	warn      textir.DiagHandler
}

// Context returns the IR context.
func (s *State) Context() *textir.Context { return s.ctx }

// Stat returns the statistic named name, declaring it (with value 0 and the
// description) on first use. Statistics are summed over every op the pass
// runs on. Declare all of a pass's statistics at the start of Run so that
// they are reported even when zero, as MLIR does.
func (s *State) Stat(name, desc string) *Statistic { return s.stats.get(name, desc) }

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

// PassInfo describes a registered pass.
type PassInfo struct {
	Flag    string
	Summary string
	Anchor  string // op kind the pass runs on, "" for any
	New     func() Pass
}

// OptionList returns the options a fresh instance of the pass declares
// (for --help), sorted by name.
func (pi PassInfo) OptionList() []*Option { return pi.New().Options().List() }

var registry = struct {
	sync.RWMutex
	byFlag map[string]PassInfo
}{byFlag: map[string]PassInfo{}}

// Register adds a pass to the global registry; call it from an init func.
// Registering a flag twice, or a PassInfo without Flag or New, panics: it is
// a programming error.
func Register(pi PassInfo) {
	if pi.Flag == "" || pi.New == nil {
		panic("pass: Register needs a Flag and a New func")
	}
	registry.Lock()
	defer registry.Unlock()
	if _, dup := registry.byFlag[pi.Flag]; dup {
		panic(fmt.Sprintf("pass: flag %q registered twice", pi.Flag))
	}
	registry.byFlag[pi.Flag] = pi
}

// Registered returns every registered pass, sorted by flag.
func Registered() []PassInfo {
	registry.RLock()
	defer registry.RUnlock()
	out := make([]PassInfo, 0, len(registry.byFlag))
	for _, pi := range registry.byFlag {
		out = append(out, pi)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Flag < out[j].Flag })
	return out
}

// Lookup returns the registered pass with the given flag.
func Lookup(flag string) (PassInfo, bool) {
	registry.RLock()
	defer registry.RUnlock()
	pi, ok := registry.byFlag[flag]
	return pi, ok
}

// NewPass makes an instance of the registered pass flag and sets its
// options from optText (MLIR's option syntax: "a=1 b"), as the command-line
// form --flag='optText' does.
func NewPass(flag, optText string) (Pass, error) {
	pi, ok := Lookup(flag)
	if !ok {
		return nil, fmt.Errorf("'%s' does not refer to a registered pass or pass pipeline", flag)
	}
	p := pi.New()
	if optText != "" {
		if err := p.Options().Parse(flag, optText); err != nil {
			return nil, err
		}
	}
	return p, nil
}

// WriteHelp lists the registered passes and their options for --help, in
// the manner of mlir-opt's "Compiler passes to run" section:
//
//	--canonicalize   - Canonicalize operations
//	    max-iterations=<int>   - Max. iterations between applying patterns (default: 10)
func WriteHelp(w io.Writer) error {
	infos := Registered()
	width := 0
	for _, pi := range infos {
		width = max(width, len(pi.Flag)+2)
	}
	var b strings.Builder
	for _, pi := range infos {
		fmt.Fprintf(&b, "  %-*s - %s\n", width, "--"+pi.Flag, pi.Summary)
		opts := pi.OptionList()
		ow := 0
		for _, o := range opts {
			ow = max(ow, len(o.Name)+len(o.Kind.String())+3)
		}
		for _, o := range opts {
			fmt.Fprintf(&b, "      %-*s - %s (default: %s)\n", ow, o.Name+"=<"+o.Kind.String()+">", o.Desc, o.Default())
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}
