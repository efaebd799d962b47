package pass

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"time"

	"github.com/recom-compiler/recom/textir"
)

// Config controls verification and instrumentation of a run. The zero value
// verifies after each pass with textir.Verify and prints nothing.
type Config struct {
	// NoVerify turns off verification after each pass (--verify-each=false).
	NoVerify bool
	// Verify checks the op a pass ran on after the pass (skipped when the
	// pass called MarkUnchanged, as MLIR skips it when all analyses are
	// preserved). Nil means textir.Verify.
	Verify func(ctx *textir.Context, op *textir.Operation) error

	// Print prints an op for IR dumps (the driver passes textir.Print with
	// its printing flags). Nil means textir.Print with default options.
	Print func(w io.Writer, op *textir.Operation) error
	// IROut receives IR dumps (MLIR prints them to stderr); nil: os.Stderr.
	IROut io.Writer
	// PrintBefore and PrintAfter list pass flags to dump the IR before and
	// after (--mlir-print-ir-before=cse,canonicalize).
	PrintBefore, PrintAfter []string
	// PrintBeforeAll and PrintAfterAll dump around every pass.
	PrintBeforeAll, PrintAfterAll bool
	// PrintAfterChange restricts the after-dumps selected by PrintAfter and
	// PrintAfterAll to passes that changed the IR (as MLIR's
	// --mlir-print-ir-after-change modifies --mlir-print-ir-after*). A pass
	// changed the IR unless it called MarkUnchanged or the printed IR is
	// the same before and after.
	PrintAfterChange bool
	// PrintAfterFailure dumps the IR after a pass that failed, or whose
	// result failed to verify, with "After <Name> Failed (<flag>)".
	PrintAfterFailure bool
	// PrintModuleScope prints the top-level op rather than the op the pass
	// ran on, with the anchor op named in the banner.
	PrintModuleScope bool

	// Timing, when set, receives the wall time of each pass, nested by
	// pipeline (--mlir-timing); write it with Timing.WriteReport.
	Timing *Timer

	// Diag receives diagnostics that passes report without failing
	// (warnings, remarks). Nil drops them.
	Diag textir.DiagHandler
}

// PassError is returned when a pass fails or the IR fails to verify after
// it. It unwraps to the diagnostic (a *textir.Diagnostic), so a driver can
// match it against expected-error annotations unchanged.
type PassError struct {
	Pass   *Pass
	Op     *textir.Operation // the op the pass ran on
	Verify bool              // the verifier failed after the pass (the pass itself succeeded)
	Err    error
}

func (e *PassError) Error() string {
	d := e.Pass.decl
	what := fmt.Sprintf("while running pass '%s' (%s) on '%s' op", d.Flag, d.DisplayName(), e.Op.Name())
	if e.Verify {
		what = fmt.Sprintf("the IR failed to verify after pass '%s' (%s)", d.Flag, d.DisplayName())
	}
	return e.Err.Error() + "\n" + textir.LocPrefix(e.Op.DiagLoc()) + ": note: " + what
}

func (e *PassError) Unwrap() error { return e.Err }

// Run runs the pipeline on op (which must have pm's anchor unless pm is
// anchored on any op). It stops at the first pass that fails or after which
// verification fails, returning a *PassError.
func (pm *PassManager) Run(ctx *textir.Context, op *textir.Operation) error {
	if pm.anchor != "" && op.Name() != pm.anchor {
		return op.Errorf("can't run '%s' pass manager on '%s' op", pm.anchor, op.Name())
	}
	cfg := pm.Config
	if cfg.IROut == nil {
		cfg.IROut = os.Stderr
	}
	if cfg.Print == nil {
		cfg.Print = func(w io.Writer, op *textir.Operation) error {
			return textir.Print(w, op, textir.PrintOptions{})
		}
	}
	r := &runner{ctx: ctx, cfg: &cfg, top: op}
	var t *Timer
	if pm.Config.Timing != nil {
		t = pm.Config.Timing
	}
	return r.runPM(pm, op, t)
}

type runner struct {
	ctx *textir.Context
	cfg *Config
	top *textir.Operation
}

func (r *runner) runPM(pm *PassManager, op *textir.Operation, t *Timer) error {
	for i, e := range pm.elems {
		if e.pass != nil {
			if err := r.runPass(e, op, t.child(i, e.pass.decl.DisplayName())); err != nil {
				return err
			}
			continue
		}
		nt := t.child(i, "'"+anchorText(e.nested.anchor)+"' Pipeline")
		var targets []*textir.Operation
		for _, reg := range op.Regions() {
			for _, b := range reg.Blocks() {
				for c := range b.Ops() {
					if e.nested.anchor == "" || c.Name() == e.nested.anchor {
						targets = append(targets, c)
					}
				}
			}
		}
		start := time.Now()
		for _, c := range targets {
			if err := r.runPM(e.nested, c, nt); err != nil {
				nt.add(time.Since(start))
				return err
			}
		}
		nt.add(time.Since(start))
	}
	return nil
}

func (r *runner) runPass(e *element, op *textir.Operation, t *Timer) error {
	p := e.pass
	if a := p.decl.Anchor; a != "" && a != op.Name() {
		return &PassError{Pass: p, Op: op, Err: op.Errorf("pass '%s' runs on '%s' ops, not on '%s'", p.decl.Flag, a, op.Name())}
	}
	cfg := r.cfg
	flag := p.decl.Flag
	if cfg.PrintBeforeAll || slices.Contains(cfg.PrintBefore, flag) {
		r.dump("Before", p, op)
	}
	printAfter := cfg.PrintAfterAll || slices.Contains(cfg.PrintAfter, flag)
	var before []byte
	if printAfter && cfg.PrintAfterChange {
		before = r.printed(op)
	}

	st := &State{ctx: r.ctx, decl: p.decl, stats: &e.stats, warn: cfg.Diag}
	start := time.Now()
	err := p.run.Run(op, st)
	t.add(time.Since(start))
	if err == nil && st.misuse != "" {
		err = op.Errorf("%s", st.misuse)
	}
	if err != nil {
		if cfg.PrintAfterFailure {
			r.dump("Failed", p, op)
		}
		return &PassError{Pass: p, Op: op, Err: asDiag(op, err)}
	}
	if !cfg.NoVerify && !st.unchanged {
		verify := cfg.Verify
		if verify == nil {
			verify = textir.Verify
		}
		if verr := verify(r.ctx, op); verr != nil {
			if cfg.PrintAfterFailure {
				r.dump("Failed", p, op)
			}
			return &PassError{Pass: p, Op: op, Verify: true, Err: asDiag(op, verr)}
		}
	}
	if printAfter {
		if cfg.PrintAfterChange && (st.unchanged || bytes.Equal(before, r.printed(op))) {
			return nil
		}
		r.dump("After", p, op)
	}
	return nil
}

// asDiag makes err a diagnostic located at op when it is not one already.
func asDiag(op *textir.Operation, err error) error {
	var d *textir.Diagnostic
	if errors.As(err, &d) {
		return err
	}
	return op.Errorf("%v", err)
}

func (r *runner) printed(op *textir.Operation) []byte {
	var b bytes.Buffer
	if r.cfg.PrintModuleScope {
		op = r.top
	}
	if err := r.cfg.Print(&b, op); err != nil {
		fmt.Fprintf(&b, "<<print failed: %v>>", err)
	}
	return b.Bytes()
}

// dump writes an IR dump in MLIR's format:
//
//	// -----// IR Dump After CSE (cse) //----- //
//	<op>
//	<blank line>
func (r *runner) dump(when string, p *Pass, op *textir.Operation) {
	var b bytes.Buffer
	if when == "Failed" {
		fmt.Fprintf(&b, "// -----// IR Dump After %s Failed (%s)", p.decl.DisplayName(), p.decl.Flag)
	} else {
		fmt.Fprintf(&b, "// -----// IR Dump %s %s (%s)", when, p.decl.DisplayName(), p.decl.Flag)
	}
	if r.cfg.PrintModuleScope {
		fmt.Fprintf(&b, " ('%s' operation", op.Name())
		if s, ok := op.Attr("sym_name").(textir.StringAttr); ok {
			fmt.Fprintf(&b, ": @%s", s.Value)
		}
		b.WriteString(")")
	}
	b.WriteString(" //----- //\n")
	b.Write(r.printed(op))
	if n := b.Len(); n > 0 && b.Bytes()[n-1] != '\n' {
		b.WriteByte('\n')
	}
	b.WriteByte('\n')
	r.cfg.IROut.Write(b.Bytes())
}
