package main

import (
	"errors"
	"fmt"
	"io"
	"runtime/debug"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/recom-compiler/recom/cmd/internal/outfile"
	"github.com/recom-compiler/recom/cmd/internal/passflag"
	"github.com/recom-compiler/recom/cmd/internal/splitinput"
	"github.com/recom-compiler/recom/lowering/pass"
	"github.com/recom-compiler/recom/textir"
	"github.com/recom-compiler/recom/textir/inputfile"
)

// options are recom-opt's flags, apart from the pass flags.
type options struct {
	output            string
	splitInputFile    bool
	verifyDiagnostics bool
	allowUnregistered bool
	printGeneric      bool
	printDebugInfo    bool
	printBefore       []string
	printAfter        []string
	printBeforeAll    bool
	printAfterAll     bool
	printAfterChange  bool
	printAfterFailure bool
	printModuleScope  bool
	timing            bool
	statistics        bool
	statisticsDisplay string
	passPipeline      string
	dumpPassPipeline  bool
	verifyEach        bool
	passes            passflag.List
}

// exitError ends a run with a status after its message was printed.
type exitError int

func (e exitError) Error() string { return fmt.Sprintf("exit status %d", int(e)) }

// run is recom-opt's whole behaviour, callable in-process by tests. It
// returns the exit status.
func run(args []string, stdin io.Reader, stdout, stderr io.Writer) (status int) {
	defer func() {
		if r := recover(); r != nil {
			fmt.Fprintf(stderr, "recom-opt: error: internal error: %v\n%s", r, debug.Stack())
			status = 2
		}
	}()
	var o options
	cmd := newCommand(&o, stdin, stdout, stderr)
	cmd.SetArgs(args)
	err := cmd.Execute()
	var code exitError
	switch {
	case err == nil:
		return 0
	case errors.As(err, &code):
		return int(code)
	default:
		// Flag and argument errors from cobra.
		fmt.Fprintf(stderr, "recom-opt: error: %v\nSee 'recom-opt --help'.\n", err)
		return 1
	}
}

func newCommand(o *options, stdin io.Reader, stdout, stderr io.Writer) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "recom-opt [flags] [FILE|-]",
		Short: "recom's optimizer driver: parse textual IR, run passes in order, print the result",
		Long: `recom-opt reads textual IR (FILE, or standard input when FILE is - or
absent), verifies it, runs the passes given as flags in command-line order
(or the --pass-pipeline), verifies after each pass, and prints the result.`,
		Args:          cobra.MaximumNArgs(1),
		SilenceErrors: true,
		SilenceUsage:  true,
		RunE: func(cmd *cobra.Command, args []string) error {
			input := "-"
			if len(args) == 1 {
				input = args[0]
			}
			return o.run(input, stdin, stdout, stderr)
		},
	}
	cmd.SetIn(stdin)
	cmd.SetOut(stdout)
	cmd.SetErr(stderr)

	general := pflag.NewFlagSet("general", pflag.ContinueOnError)
	f := general
	f.StringVarP(&o.output, "output", "o", "-", "write the output to `FILE` (atomically; - is stdout)")
	f.BoolVar(&o.splitInputFile, "split-input-file", false, "split the input at '// -----' lines and process each chunk on its own")
	f.BoolVar(&o.verifyDiagnostics, "verify-diagnostics", false, "check the diagnostics against the expected-* comments of the input")
	f.BoolVar(&o.allowUnregistered, "allow-unregistered-dialect", false, "accept ops of dialects that are not registered")
	f.BoolVar(&o.printGeneric, "mlir-print-op-generic", false, "print every op in the generic form")
	f.BoolVar(&o.printDebugInfo, "mlir-print-debuginfo", false, "print locations")
	f.StringSliceVar(&o.printBefore, "mlir-print-ir-before", nil, "print the IR before the passes with these `flags` (cse,canonicalize)")
	f.StringSliceVar(&o.printAfter, "mlir-print-ir-after", nil, "print the IR after the passes with these `flags`")
	f.BoolVar(&o.printBeforeAll, "mlir-print-ir-before-all", false, "print the IR before every pass")
	f.BoolVar(&o.printAfterAll, "mlir-print-ir-after-all", false, "print the IR after every pass")
	f.BoolVar(&o.printAfterChange, "mlir-print-ir-after-change", false, "print the IR after a pass only if it changed the IR (alone: after every pass that changed it)")
	f.BoolVar(&o.printAfterFailure, "mlir-print-ir-after-failure", false, "print the IR after a pass that failed")
	f.BoolVar(&o.printModuleScope, "mlir-print-ir-module-scope", false, "print the whole module in IR dumps, not only the op the pass ran on")
	f.BoolVar(&o.timing, "mlir-timing", false, "report the time spent parsing, in each pass and printing (to stderr)")
	f.BoolVar(&o.statistics, "mlir-pass-statistics", false, "report the statistics of each pass (to stderr)")
	f.StringVar(&o.statisticsDisplay, "mlir-pass-statistics-display", "pipeline", "how to show statistics: pipeline or list")
	f.StringVar(&o.passPipeline, "pass-pipeline", "", "run this textual `pipeline`: builtin.module(cse,func.func(canonicalize))")
	f.BoolVar(&o.dumpPassPipeline, "dump-pass-pipeline", false, "print the pass pipeline to stderr before running it")
	f.BoolVar(&o.verifyEach, "verify-each", true, "verify the IR after each pass (--verify-each=false to skip)")

	passFlags := pflag.NewFlagSet("passes", pflag.ContinueOnError)
	o.passes.Define(passFlags, passes())

	cmd.Flags().AddFlagSet(general)
	cmd.Flags().AddFlagSet(passFlags)
	cmd.SetHelpFunc(func(c *cobra.Command, _ []string) {
		w := c.OutOrStdout()
		fmt.Fprintf(w, "%s\n\nUsage:\n  %s\n\nOptions:\n%s  -h, --help   show this help\n\n", c.Long, c.Use, general.FlagUsages())
		o.passes.PrintHelp(w)
	})
	return cmd
}

// run processes one input file.
func (o *options) run(input string, stdin io.Reader, stdout, stderr io.Writer) error {
	start := time.Now()
	var timer *pass.Timer
	if o.timing {
		timer = pass.NewTimer()
	}
	if err := o.checkFlags(); err != nil {
		fmt.Fprintf(stderr, "recom-opt: error: %v\n", err)
		return exitError(1)
	}
	// Build the pipeline once up front so that errors in it are reported
	// before any input is read.
	pm, err := o.pipeline()
	if err != nil {
		printPipelineError(stderr, err)
		return exitError(1)
	}
	if o.dumpPassPipeline {
		pm.Dump(stderr)
	}

	file, src, err := readInput(input, stdin)
	if err != nil {
		fmt.Fprintf(stderr, "recom-opt: error: %v\n", err)
		return exitError(1)
	}
	out, err := outfile.Create(o.output, stdout)
	if err != nil {
		fmt.Fprintf(stderr, "recom-opt: error: cannot open output: %v\n", err)
		return exitError(1)
	}
	defer out.Abort()

	chunks := []splitinput.Chunk{{Text: src, FirstLine: 1}}
	if o.splitInputFile {
		chunks = splitinput.Split(src)
	}
	// One context for every chunk, as mlir-opt shares its MLIRContext:
	// registering the dialects costs far more than a small chunk.
	ctx := newContext()
	ctx.AllowUnregistered = o.allowUnregistered
	failed := false
	for i, c := range chunks {
		if i > 0 {
			io.WriteString(out, splitinput.Marker+"\n")
			// A fresh pipeline per chunk, as mlir-opt makes, so that
			// statistics are per chunk.
			if pm, err = o.pipeline(); err != nil {
				printPipelineError(stderr, err)
				return exitError(1)
			}
		}
		if !o.processChunk(ctx, file, c, pm, timer, out, stderr) {
			failed = true
		}
	}
	if timer != nil {
		timer.Wall = time.Since(start)
		timer.WriteReport(stderr)
	}
	if failed {
		if o.output == "-" {
			// What succeeded is on stdout, as mlir-opt streams it.
			out.Commit()
		}
		return exitError(1)
	}
	if err := out.Commit(); err != nil {
		fmt.Fprintf(stderr, "recom-opt: error: cannot write %s: %v\n", o.output, err)
		return exitError(1)
	}
	return nil
}

func (o *options) checkFlags() error {
	if o.passPipeline != "" && len(o.passes.Specs) > 0 {
		return errors.New("'--pass-pipeline' can't be used with individual pass flags")
	}
	if o.statisticsDisplay != "pipeline" && o.statisticsDisplay != "list" {
		return fmt.Errorf("--mlir-pass-statistics-display=%s: want pipeline or list", o.statisticsDisplay)
	}
	for _, names := range [][]string{o.printBefore, o.printAfter} {
		for _, n := range names {
			if _, ok := pass.Lookup(n); !ok {
				return fmt.Errorf("'%s' does not refer to a registered pass (in --mlir-print-ir-before/after)", n)
			}
		}
	}
	return nil
}

// pipeline builds the pass manager from the pass flags or --pass-pipeline.
func (o *options) pipeline() (*pass.PassManager, error) {
	var pm *pass.PassManager
	var err error
	if o.passPipeline != "" {
		pm, err = pass.ParsePipeline(o.passPipeline)
	} else {
		pm, err = pass.FromSpecs("builtin.module", o.passes.Specs)
	}
	if err != nil {
		return nil, err
	}
	cfg := &pm.Config
	cfg.NoVerify = !o.verifyEach
	cfg.Verify = textir.Verify
	cfg.Print = o.printer()
	cfg.PrintBefore, cfg.PrintAfter = o.printBefore, o.printAfter
	cfg.PrintBeforeAll, cfg.PrintAfterAll = o.printBeforeAll, o.printAfterAll
	cfg.PrintAfterChange = o.printAfterChange
	if o.printAfterChange && !o.printAfterAll && len(o.printAfter) == 0 {
		// Alone, --mlir-print-ir-after-change means "after every pass that
		// changed the IR" (in mlir-opt it only modifies the other flags).
		cfg.PrintAfterAll = true
	}
	cfg.PrintAfterFailure = o.printAfterFailure
	cfg.PrintModuleScope = o.printModuleScope
	return pm, nil
}

func printPipelineError(w io.Writer, err error) {
	var pe *pass.PipelineError
	if errors.As(err, &pe) {
		fmt.Fprintln(w, pe.Error())
		return
	}
	fmt.Fprintf(w, "recom-opt: error: %v\n", err)
}

// printer returns the function that prints IR with the printing flags.
func (o *options) printer() func(io.Writer, *textir.Operation) error {
	return func(w io.Writer, op *textir.Operation) error {
		return printOp(w, op, o.printGeneric, o.printDebugInfo)
	}
}

// readInput reads FILE or stdin ("-"), with inputfile's bound on its size,
// and returns the name diagnostics use.
func readInput(input string, stdin io.Reader) (string, string, error) {
	name, what := input, "cannot open input file"
	var b []byte
	var err error
	if input == "-" {
		name, what = "<stdin>", "cannot read standard input"
		b, err = inputfile.ReadFrom(stdin, name)
	} else {
		b, err = inputfile.Read(input)
	}
	var tl *inputfile.TooLargeError
	if errors.As(err, &tl) {
		return "", "", err // it names the input and the limit
	}
	if err != nil {
		return "", "", fmt.Errorf("%s: %v", what, err)
	}
	return name, string(b), nil
}

// processChunk parses, verifies, transforms and prints one chunk of input
// and reports whether it succeeded (with --verify-diagnostics: whether the
// diagnostics were the expected ones).
func (o *options) processChunk(ctx *textir.Context, file string, c splitinput.Chunk, pm *pass.PassManager, timer *pass.Timer, out io.Writer, stderr io.Writer) bool {
	var diags []*textir.Diagnostic
	pm.Config.Diag = func(d *textir.Diagnostic) { diags = append(diags, d) }
	pm.Config.IROut = stderr
	pm.Config.Timing = timer

	// The parser numbers the chunk's lines from its first line in the
	// file, so that diagnostics name the original file's lines.
	stop := timer.Start("Parser")
	op, err := parseSource(ctx, file, c.Text, c.FirstLine)
	if err == nil {
		err = textir.Verify(ctx, op)
	}
	stop()
	if err == nil {
		err = pm.Run(ctx, op)
		if o.statistics {
			pm.WriteStatistics(stderr, o.statisticsDisplay)
		}
	}
	// The IR streams to the output (the printer holds a bounded buffer):
	// with --verify-diagnostics whenever the passes succeeded, else only
	// when no error was reported either.
	if err == nil && (o.verifyDiagnostics || !hasError(diags)) {
		stop := timer.Start("Output")
		err = printOp(out, op, o.printGeneric, o.printDebugInfo)
		stop()
	}
	diags = append(diags, textir.DiagnosticsOf(err)...)

	if o.verifyDiagnostics {
		mismatches := textir.VerifyDiagnostics(file, c.Text, c.FirstLine, diags)
		for _, m := range mismatches {
			fmt.Fprintln(stderr, m.Error())
		}
		// A chunk that failed as expected printed nothing.
		return len(mismatches) == 0
	}
	ok := err == nil
	for _, d := range diags {
		fmt.Fprintln(stderr, d.Error())
		if d.Severity == textir.SevError {
			ok = false
		}
	}
	var pe *pass.PassError
	if errors.As(err, &pe) {
		// The pass and the op it ran on, after the pass's own diagnostic.
		what := fmt.Sprintf("while running pass '%s' on '%s' op", pe.Pass.Decl().Flag, pe.Op.Name())
		if pe.Verify {
			what = fmt.Sprintf("the IR failed to verify after pass '%s'", pe.Pass.Decl().Flag)
		}
		fmt.Fprintf(stderr, "%s: note: %s\n", textir.LocPrefix(pe.Op.DiagLoc()), what)
	}
	return ok
}

// hasError reports whether one of diags is an error.
func hasError(diags []*textir.Diagnostic) bool {
	for _, d := range diags {
		if d.Severity == textir.SevError {
			return true
		}
	}
	return false
}
