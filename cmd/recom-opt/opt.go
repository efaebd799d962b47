package main

import (
	"errors"
	"fmt"
	"io"
	"runtime"
	"runtime/debug"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/recom-compiler/recom/cmd/internal/outfile"
	"github.com/recom-compiler/recom/cmd/internal/passflag"
	"github.com/recom-compiler/recom/cmd/internal/splitinput"
	"github.com/recom-compiler/recom/cmd/internal/toolflag"
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
	showDialects      bool
	disableThreading  bool
	localScope        bool
	elideLimit        int64
	elide             bool // --mlir-elide-elementsattrs-if-larger was given
	passes            passflag.List
	sources           textir.SourceMgr // the input, for diagnostics' source lines
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
	// -split-input-file as mlir-opt's RUN lines write it is --split-input-file.
	cmd.SetArgs(toolflag.DoubleDash(cmd.Flags(), args))
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
		Version:       toolflag.Version("recom-opt"),
		RunE: func(cmd *cobra.Command, args []string) error {
			if o.showDialects {
				return showDialects(stdout)
			}
			o.elide = cmd.Flags().Changed("mlir-elide-elementsattrs-if-larger")
			if o.elide && o.elideLimit < 0 {
				fmt.Fprintf(stderr, "recom-opt: error: --mlir-elide-elementsattrs-if-larger=%d: want a count of elements, 0 or more\n", o.elideLimit)
				return exitError(1)
			}
			if o.disableThreading {
				runtime.GOMAXPROCS(1)
			}
			input := "-"
			if len(args) == 1 {
				input = args[0]
			}
			return o.run(input, stdin, stdout, stderr)
		},
	}
	cmd.SetVersionTemplate("{{.Version}}")
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
	f.BoolVar(&o.showDialects, "show-dialects", false, "print the registered dialects and exit")
	f.BoolVar(&o.disableThreading, "mlir-disable-threading", false, "run on one OS thread at a time (GOMAXPROCS=1): the passes already run one after another, so this only keeps the Go runtime's work (the garbage collector) off other cores")
	f.BoolVar(&o.localScope, "mlir-print-local-scope", false, "print an op dumped alone (--mlir-print-ir-*) with names local to it; recom prints no aliases and locations inline, and every dump is of an isolated op, so the output is the same")
	f.Int64Var(&o.elideLimit, "mlir-elide-elementsattrs-if-larger", 0, "print dense elements attributes with more than `N` elements (not splats) as dense_resource<__elided__>")
	f.Bool("version", false, "print the version (with the VCS revision it was built from) and exit")

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

	// The output is staged before the input is read (so a bad -o fails
	// before a long parse; a failed run removes the staging file).
	out, err := outfile.Create(o.output, stdout)
	if err != nil {
		fmt.Fprintf(stderr, "recom-opt: error: %v\n", err)
		return exitError(1)
	}
	defer out.Abort()
	file, src, err := readInput(input, stdin)
	if err != nil {
		fmt.Fprintf(stderr, "recom-opt: error: %v\n", err)
		return exitError(1)
	}
	o.sources.Add(file, src)

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
		fmt.Fprintf(stderr, "recom-opt: error: %v\n", err)
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
		return printOp(w, op, o.printOptions())
	}
}

// printOptions are the printing flags as the printer takes them.
func (o *options) printOptions() textir.PrintOptions {
	return textir.PrintOptions{
		Generic: o.printGeneric, DebugInfo: o.printDebugInfo, LocalScope: o.localScope,
		ElideLargeElements: o.elide, ElideElementsLimit: o.elideLimit,
	}
}

// showDialects prints the registered dialects, as mlir-opt --show-dialects.
func showDialects(w io.Writer) error {
	var names []string
	for _, d := range newContext().Dialects() {
		names = append(names, d.Name)
	}
	slices.Sort(names)
	_, err := fmt.Fprintf(w, "Available Dialects: %s\n", strings.Join(names, ", "))
	return err
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
	if err != nil {
		err = graphDefHint(err, file, c.Text)
	}
	if err == nil {
		err = textir.Verify(ctx, op)
	}
	stop()
	if err == nil {
		err = pm.Run(ctx, op)
		if o.statistics {
			pm.WriteStatistics(stderr, o.statisticsDisplay)
		}
		if err == nil {
			diags = append(diags, fusedNothing(op, pm, diags)...)
		}
	}
	// The IR streams to the output (the printer holds a bounded buffer):
	// with --verify-diagnostics whenever the passes succeeded, else only
	// when no error was reported either.
	if err == nil && (o.verifyDiagnostics || !hasError(diags)) {
		stop := timer.Start("Output")
		err = printOp(out, op, o.printOptions())
		stop()
	}
	diags = append(diags, textir.DiagnosticsOf(err)...)

	if o.verifyDiagnostics {
		mismatches := textir.VerifyDiagnostics(file, c.Text, c.FirstLine, diags)
		for _, m := range mismatches {
			fmt.Fprintln(stderr, o.sources.Format(m))
		}
		// A chunk that failed as expected printed nothing.
		return len(mismatches) == 0
	}
	ok := err == nil
	var pe *pass.PassError
	if errors.As(err, &pe) && len(diags) > 0 {
		// The pass and the op it ran on, a note after the pass's own
		// diagnostic.
		what := fmt.Sprintf("while running pass '%s' on '%s' op", pe.Pass.Decl().Flag, pe.Op.Name())
		if pe.Verify {
			what = fmt.Sprintf("the IR failed to verify after pass '%s'", pe.Pass.Decl().Flag)
		}
		last := *diags[len(diags)-1]
		last.Notes = append(slices.Clip(last.Notes), &textir.Diagnostic{Severity: textir.SevNote, Loc: pe.Op.DiagLoc(), Message: what})
		diags[len(diags)-1] = &last
	}
	for _, d := range diags {
		fmt.Fprintln(stderr, o.sources.Format(d))
		if d.Severity == textir.SevError {
			ok = false
		}
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

// graphDefHint adds a note to a parse error when the input is a TensorFlow
// graph rather than IR (its name ends in .pb or .pbtxt, or its text starts
// with a GraphDef field): recom-translate imports those.
func graphDefHint(err error, file, src string) error {
	var d *textir.Diagnostic
	if !errors.As(err, &d) || !looksLikeGraphDef(file, src) {
		return err
	}
	name := file
	if name == "<stdin>" {
		name = "-"
	}
	d.AttachNote(textir.FileLineColLoc{File: file, Line: 1, Col: 1},
		"this is a TensorFlow graph, not IR: import it with 'recom-translate --import-graphdef %s' (or compile it with 'recom compile')", name)
	return err
}

// looksLikeGraphDef reports whether a file is a GraphDef or SavedModel by
// its name or its first word.
func looksLikeGraphDef(file, src string) bool {
	for _, ext := range []string{".pb", ".pbtxt", ".pbtext"} {
		if strings.HasSuffix(file, ext) {
			return true
		}
	}
	text := strings.TrimLeft(src, " \t\r\n")
	for strings.HasPrefix(text, "#") { // text-format comments
		_, text, _ = strings.Cut(text, "\n")
		text = strings.TrimLeft(text, " \t\r\n")
	}
	for _, field := range []string{"node", "versions", "library", "meta_graphs", "saved_model_schema_version"} {
		if rest, ok := strings.CutPrefix(text, field); ok {
			rest = strings.TrimLeft(rest, " \t")
			if strings.HasPrefix(rest, "{") || strings.HasPrefix(rest, ":") {
				return true
			}
		}
	}
	return false
}

// fusedNothing warns when --fuse ran and fused no embedding layer: that is
// no error (a module may have no layer), but never what the pass was run
// for. The remarks of --fuse say why each lookup it saw was left.
func fusedNothing(op *textir.Operation, pm *pass.PassManager, diags []*textir.Diagnostic) []*textir.Diagnostic {
	layers, ran := pm.Statistics()["fuse"]["layers"]
	if !ran || layers > 0 {
		return nil
	}
	why := "the module has no embedding lookups (emb.lookup, emb.gather, emb.gather_scatter): --lower-emb makes them from a model's embedding columns"
	for _, d := range diags {
		if d.Severity == textir.SevRemark && strings.Contains(d.Message, "not fused: ") {
			why = "the remarks above say why each lookup was left"
			break
		}
	}
	return []*textir.Diagnostic{{Severity: textir.SevWarning, Loc: op.DiagLoc(), Message: "--fuse fused no embedding layer: " + why}}
}
