package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"runtime"
	"runtime/pprof"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/recom-compiler/recom/backend/llc"
	"github.com/recom-compiler/recom/cmd/internal/outfile"
	"github.com/recom-compiler/recom/compiler"
	"github.com/recom-compiler/recom/frontend/graphdef"
	"github.com/recom-compiler/recom/lowering/pass"
	"github.com/recom-compiler/recom/textir"
)

func init() { subcommands = append(subcommands, newCompileCmd) }

// compileHelp is the long help of recom compile; the stages come from the
// compiler's table.
func compileHelp() string {
	var b strings.Builder
	b.WriteString(`Compiles the embedding layer of MODEL (a binary or text GraphDef, a
SavedModel directory or its saved_model.pb, or a .mlir file of any stage,
which starts at the next stage) into one GPU kernel, and the dense layers
into a kernel each, running every stage in one process:

`)
	for _, s := range compiler.Pipeline(compiler.Options{Dense: true}) {
		files := "DIR/" + s.File
		if s.Kind == compiler.KindCubin {
			files += ", DIR/ptxas.txt"
		}
		fmt.Fprintf(&b, "  %-17s %-32s %s\n", s.Name, s.Doc, files)
	}
	b.WriteString(`
The IR is verified after each stage. DIR/summary.txt (also printed) gives
the columns by kind, the ops each rewrite removed, the ops before and after
each stage, the kernels, ptxas's registers and shared memory where it ran,
and the time of each stage. --dot FILE draws the columns as a Graphviz graph.
Long compiles show each stage as it starts and ends on a terminal (or with
--progress).

A SavedModel is cut at its serving signature (--signature; without
serving_default, its only signature; with several, an error lists them),
its asset files (vocabularies) are bound to the graph, and its variables
(variables/variables.*) are checked against the index of its checkpoint:
every variable the compiled graph holds must be there with its dtype and
shape (recom run, bench and interp read them and run with the trained
weights). A GraphDef takes its checkpoint with --checkpoint PREFIX.

--inputs and --outputs cut a graph for inference (an input that names a
node alone stands for all its outputs: --inputs=IteratorGetNext); the
placeholders of a queue's or an iterator's batches get an unknown batch
(--dynamic-batch=true: every placeholder, false: none). A graph that still
holds parts of training (gradients, optimizers, savers, iterators, queues,
summaries) compiles with a warning that says what it holds and lists the
candidate inputs and outputs to cut it at (the summary notes them too).

The pass flags take the passes' options, as recom-opt's do, for ablations:
--lower-emb='no-range-analysis', --fuse='schedule=recom max-threads=128'.

--print-stages lists, one a line, the stages this command line would run
(no MODEL or -o needed): the stage, its input and output file, and the
command of the standalone tool that runs the same step (recom-translate,
recom-opt, llc-19, ptxas), with the options given here. Input and output
are file names in DIR; MODEL stands for the model.

DIR is written atomically: the files are made in a staging folder beside
it (.DIR.tmpNNN), renamed to DIR at the end; a failed or interrupted run
(SIGINT, SIGTERM) leaves the previous DIR, or none, and no staging folder,
and the next run into the same folder removes what a killed one left. An
existing DIR is replaced only when it holds nothing but the files recom
compile writes (and the --dot file, when --dot names a file in DIR: it is
then written with the folder); a file someone else writes into DIR while
the compile runs is kept. A link to a folder is written through.`)
	return b.String()
}

// compileFiles are the names recom compile writes into its directory: each
// stage's file, ptxas's report and the summary.
var compileFiles = func() []string {
	names := []string{"ptxas.txt", "summary.txt"}
	for _, s := range compiler.Stages {
		if n := compiler.FileName(s); n != "" {
			names = append(names, n)
		}
	}
	return names
}()

type compileFlags struct {
	out        string
	inputs     []string
	outputs    []string
	dynBatch   string
	tags       []string
	signature  string
	checkpoint string
	stopAfter  string
	passOpts   map[string]*string
	mcpu       string
	optLevel   int
	noCubin    bool
	verifyEach bool
	quiet      bool
	generic    bool
	debugInfo  bool
	cpuProfile string
	memProfile string
	progress   string
	dot        string
	dotSummary bool
	dense      string
	print      bool
}

func newCompileCmd(_ io.Reader, stdout, stderr io.Writer) *cobra.Command {
	f := &compileFlags{}
	cmd := &cobra.Command{
		Use:   "compile MODEL [--inputs T,...] [--outputs T,...] [--lower-emb='OPTS'] [--simplify-shapes='OPTS'] [--fuse='OPTS'] [--fuse-dense='OPTS'] [--stop-after=STAGE] -o DIR | compile --print-stages [flags]",
		Short: "compile a model's embedding layer to one GPU kernel (GraphDef -> tfg -> emb -> shape -> gpu -> LLVM IR -> PTX)",
		Long:  compileHelp(),
		Args: func(cmd *cobra.Command, args []string) error {
			if f.print {
				return cobra.NoArgs(cmd, args)
			}
			return cobra.ExactArgs(1)(cmd, args)
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx := cmd.Context()
			if ctx == nil {
				ctx = context.Background()
			}
			if f.print {
				return printStages(cmd, f, stdout)
			}
			return runCompile(ctx, cmd, args[0], f, stdout, stderr)
		},
	}
	fl := cmd.Flags()
	fl.StringVarP(&f.out, "output", "o", "", "the output `DIR` (written atomically)")
	fl.StringSliceVar(&f.inputs, "inputs", nil, "cut the graph at these tensors (`node:idx,...`; a node alone: all its outputs), fed as placeholders")
	fl.StringVar(&f.dynBatch, "dynamic-batch", "auto", "give the placeholders of the cut an unknown batch (dimension 0): auto (those of a queue's DequeueMany or an iterator's GetNext), true (all; a bare --dynamic-batch) or false (none)")
	fl.Lookup("dynamic-batch").NoOptDefVal = "true"
	fl.StringSliceVar(&f.outputs, "outputs", nil, "compute these tensors (`node:idx,...`); the rest of the graph is pruned")
	fl.StringSliceVar(&f.tags, "tags", nil, "SavedModel: the MetaGraph's `tags` (default serve)")
	fl.StringVar(&f.signature, "signature", "", "SavedModel: the SignatureDef to cut the graph at (default serving_default, else the only one)")
	fl.StringVar(&f.checkpoint, "checkpoint", "", "a GraphDef's trained variables: the checkpoint `PREFIX` (model.ckpt-1000), checked against the graph's variables (a SavedModel directory brings its own)")
	fl.StringVar(&f.stopAfter, "stop-after", "", "stop after this `stage`: "+strings.Join(compiler.Stages, ", "))
	f.passOpts = addPassFlags(fl)
	fl.StringVar(&f.mcpu, "mcpu", llc.DefaultCPU, "the target GPU (llc's -mcpu, ptxas's -arch)")
	fl.IntVarP(&f.optLevel, "opt-level", "O", llc.DefaultOptLevel, "llc's optimisation level (1, 2 or 3)")
	fl.BoolVar(&f.noCubin, "no-cubin", false, "skip ptxas even where it is installed")
	fl.BoolVar(&f.verifyEach, "verify-each", true, "verify the IR after each stage (--verify-each=false to skip)")
	fl.BoolVarP(&f.quiet, "quiet", "q", false, "do not print the summary (it is still written to DIR/summary.txt)")
	fl.BoolVar(&f.generic, "mlir-print-op-generic", false, "write the IR files in the generic form")
	fl.BoolVar(&f.debugInfo, "mlir-print-debuginfo", false, "write locations in the IR files")
	fl.StringVar(&f.cpuProfile, "cpuprofile", "", "write a CPU profile of the compilation to `FILE`")
	fl.StringVar(&f.memProfile, "memprofile", "", "debugging: write a heap profile of the live objects to `FILE` when the import stage ends (a large model's IR is then at its largest)")
	fl.StringVar(&f.progress, "progress", "auto", "show each stage as it starts and ends, with its time, on stderr: auto (when stderr is a terminal), always (a bare --progress), never")
	fl.Lookup("progress").NoOptDefVal = "always"
	fl.StringVar(&f.dense, "dense", "gpu", "where the dense layers run: gpu (--fuse-dense: a kernel per layer) or cpu (left to the interpreter: an ablation)")
	fl.StringVar(&f.dot, "dot", "", "write the column structure as a Graphviz `FILE` (one cluster per column; dot -Tsvg FILE)")
	fl.BoolVar(&f.dotSummary, "dot-summary", false, "with --dot: one node per schedule class (and per transform chain of the columns not fused) instead of a cluster per column, readable for any number of columns")
	fl.BoolVar(&f.print, "print-stages", false, "list the stages this command line runs, with their files and the standalone tool's command for each, and exit")
	return cmd
}

// passOptionsHelp says what the flag of the pass flag takes: the options its
// declaration lists (recom-opt --help and docs/PASSES.md say what they do).
func passOptionsHelp(flag string) string {
	d, ok := pass.Lookup(flag)
	if !ok {
		panic("recom compile: pass " + flag + " is not registered")
	}
	var names []string
	for _, o := range d.OptionList() {
		names = append(names, o.Name)
	}
	return fmt.Sprintf("options of --%s (%s; see recom-opt --help)", flag, strings.Join(names, ", "))
}

// options turns the flags into the compiler's options.
func (f *compileFlags) options(cmd *cobra.Command) (compiler.Options, error) {
	opts := compiler.Options{
		Inputs: f.inputs, Outputs: f.outputs, Tags: f.tags, Signature: f.signature, Checkpoint: f.checkpoint,
		StopAfter: f.stopAfter, KeepIR: true, NoVerify: !f.verifyEach,
		Print: textir.PrintOptions{Generic: f.generic, DebugInfo: f.debugInfo},
		MCPU:  f.mcpu, OptLevel: f.optLevel, NoCubin: f.noCubin,
	}
	var err error
	if opts.Dense, err = denseOnGPU(f.dense); err != nil {
		return opts, err
	}
	if opts.DynamicBatch, err = graphdef.ParseBatchMode(f.dynBatch); err != nil {
		return opts, fmt.Errorf("--dynamic-batch=%v", err)
	}
	opts.PassOptions = changedPassOptions(cmd.Flags(), f.passOpts)
	return opts, opts.CheckOptions()
}

func runCompile(ctx context.Context, cmd *cobra.Command, model string, f *compileFlags, stdout, stderr io.Writer) error {
	if f.out == "" {
		return errors.New("no output directory (-o DIR)")
	}
	if f.dotSummary && f.dot == "" {
		return errors.New("--dot-summary draws the --dot FILE: give --dot too")
	}
	opts, err := f.options(cmd)
	if err != nil {
		return err
	}
	switch f.progress {
	case "always":
		opts.Progress, opts.StageDone, opts.Step = progressPrinter(stderr)
	case "auto":
		if isTerminal(stderr) {
			opts.Progress, opts.StageDone, opts.Step = progressPrinter(stderr)
		}
	case "never":
	default:
		return fmt.Errorf("--progress=%s: want auto, always or never", f.progress)
	}
	// --dot into the output folder writes the file as part of the folder
	// (a file written there beside it would go at the commit).
	dotName := ""
	if name, ok := outfile.Within(f.out, f.dot); ok {
		if slices.Contains(compileFiles, name) {
			return fmt.Errorf("--dot %s: %s is a file recom compile writes into %s", f.dot, name, f.out)
		}
		dotName = name
	}
	owned := func(name string) bool { return slices.Contains(compileFiles, name) || name == dotName }
	dir, err := outfile.CreateDir(f.out, owned)
	if err != nil {
		return err
	}
	defer dir.Abort()

	if f.cpuProfile != "" {
		pf, err := os.Create(f.cpuProfile)
		if err != nil {
			return err
		}
		defer pf.Close()
		if err := pprof.StartCPUProfile(pf); err != nil {
			return err
		}
		defer pprof.StopCPUProfile()
	}

	// Each IR stage's module is printed straight into its file in the
	// staging folder (never held in memory whole: 250 MB of text for
	// 10,000 columns); the file is synced, and the backend stages' files
	// written, by the goroutine below while the next stage runs.
	jobs := make(chan func() error, 2*len(compiler.Stages))
	written := make(chan error, 1)
	go func() {
		var err error
		for job := range jobs {
			if jerr := job(); err == nil {
				err = jerr
			}
		}
		written <- err
	}()
	opts.IRWriter = func(stage string) (io.WriteCloser, error) {
		df, err := dir.Create(compiler.FileName(stage))
		if err != nil {
			return nil, err
		}
		return &laterSync{df, jobs}, nil
	}
	stageDone := opts.StageDone
	opts.StageDone = func(s *compiler.StageResult) {
		if stageDone != nil {
			stageDone(s)
		}
		if s.Name == compiler.StageImport && f.memProfile != "" {
			if err := writeHeapProfile(f.memProfile); err != nil {
				fmt.Fprintf(stderr, "recom compile: warning: --memprofile: %v\n", err)
			}
		}
		if out := s.Output; len(out) > 0 {
			name := compiler.FileName(s.Name)
			jobs <- func() error { return dir.WriteFile(name, out) }
		}
	}
	res, err := compiler.Compile(ctx, model, opts)
	close(jobs)
	werr := <-written
	sources := mlirSources()
	for _, d := range res.Diagnostics {
		fmt.Fprintln(stderr, sources.Format(d))
	}
	if err != nil {
		return err
	}
	if werr != nil {
		return werr
	}
	if res.Cubin != nil {
		if err := dir.WriteFile("ptxas.txt", []byte(res.Cubin.Log)); err != nil {
			return err
		}
	}
	var sum strings.Builder
	res.WriteSummary(&sum)
	if err := dir.WriteFile("summary.txt", []byte(sum.String())); err != nil {
		return err
	}
	writeDot := res.WriteDot
	if f.dotSummary {
		writeDot = res.WriteDotSummary
	}
	if dotName != "" {
		var b bytes.Buffer
		if err := writeDot(&b); err != nil {
			return err
		}
		if err := dir.WriteFile(dotName, b.Bytes()); err != nil {
			return err
		}
	} else if f.dot != "" {
		df, err := outfile.Create(f.dot, stdout)
		if err != nil {
			return err
		}
		defer df.Abort()
		if err := writeDot(df); err != nil {
			return err
		}
		if err := df.Commit(); err != nil {
			return err
		}
	}
	if err := dir.Commit(); err != nil {
		return err
	}
	if len(dir.Kept) > 0 {
		fmt.Fprintf(stderr, "recom compile: warning: kept %s in %s (written there by someone else during the compile)\n",
			strings.Join(dir.Kept, ", "), f.out)
	}
	if !f.quiet {
		io.WriteString(stdout, sum.String())
	}
	return nil
}

// laterSync is a file of the output folder whose Close hands the sync (and
// the close) to the goroutine that writes the folder's files, so that the
// next stage need not wait for the disk.
type laterSync struct {
	*outfile.DirFile
	jobs chan<- func() error
}

func (l *laterSync) Close() error {
	l.jobs <- l.DirFile.Close
	return nil
}

// writeHeapProfile writes the heap profile of the live objects (after a
// collection) to path.
func writeHeapProfile(path string) error {
	pf, err := os.Create(path)
	if err != nil {
		return err
	}
	runtime.GC()
	if err := pprof.WriteHeapProfile(pf); err != nil {
		pf.Close()
		return err
	}
	return pf.Close()
}

// printStages writes the stages the flags select, one a line: the stage,
// its input and output file, and the standalone tool's command that runs
// the same step (scripts/run-example.sh runs them one by one).
func printStages(cmd *cobra.Command, f *compileFlags, stdout io.Writer) error {
	opts, err := f.options(cmd)
	if err != nil {
		return err
	}
	var b strings.Builder
	in := "MODEL"
	for _, s := range compiler.Pipeline(opts) {
		fmt.Fprintf(&b, "%-16s %-13s %-13s %s\n", s.Name, in, s.File, shellJoin(stageCommand(s, &opts)))
		switch s.Kind {
		case compiler.KindImport, compiler.KindPass, compiler.KindLLVM, compiler.KindPTX:
			in = s.File
		}
	}
	_, err = io.WriteString(stdout, b.String())
	return err
}

// stageCommand is the command of the standalone tool that runs stage s
// with opts, the input and output (-o) left out.
func stageCommand(s compiler.Stage, opts *compiler.Options) []string {
	switch s.Kind {
	case compiler.KindImport:
		c := []string{"recom-translate", "--import-graphdef"}
		if len(opts.Inputs) > 0 {
			c = append(c, "--inputs="+strings.Join(opts.Inputs, ","))
		}
		if len(opts.Outputs) > 0 {
			c = append(c, "--outputs="+strings.Join(opts.Outputs, ","))
		}
		if opts.DynamicBatch != graphdef.BatchAuto {
			c = append(c, "--dynamic-batch="+opts.DynamicBatch.String())
		}
		if len(opts.Tags) > 0 {
			c = append(c, "--tags="+strings.Join(opts.Tags, ","))
		}
		if opts.Signature != "" {
			c = append(c, "--signature="+opts.Signature)
		}
		return c
	case compiler.KindPass:
		flag := "--" + s.Name
		if o, ok := opts.PassOptions[s.Name]; ok && o != "" {
			flag += "=" + o
		}
		return []string{"recom-opt", flag}
	case compiler.KindLLVM:
		return []string{"recom-translate", "--emit-llvm"}
	case compiler.KindPTX:
		args := opts.LLCOptions().Args()
		return append([]string{"llc-19"}, args[:len(args)-3]...) // without "-o - -"
	case compiler.KindCubin:
		arch := opts.MCPU
		if arch == "" {
			arch = llc.DefaultCPU
		}
		return []string{"ptxas", "-arch=" + arch, "-v"}
	}
	return nil
}

// shellJoin joins words as a POSIX shell reads them back: a word with
// characters the shell treats specially is quoted, a flag's after its "="
// (--fuse='schedule=recom max-threads=128').
func shellJoin(words []string) string {
	out := make([]string, len(words))
	for i, w := range words {
		if flag, val, ok := strings.Cut(w, "="); ok && strings.HasPrefix(flag, "--") && shellPlain(flag) {
			out[i] = flag + "=" + shellQuote(val)
		} else {
			out[i] = shellQuote(w)
		}
	}
	return strings.Join(out, " ")
}

// shellPlain reports whether the shell reads w as it is.
func shellPlain(w string) bool {
	return w != "" && strings.Trim(w, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_=.,:/+@%") == ""
}

// shellQuote quotes w for the shell where it needs it.
func shellQuote(w string) string {
	if shellPlain(w) {
		return w
	}
	return "'" + strings.ReplaceAll(w, "'", `'\''`) + "'"
}

// changedPassOptions returns the option text of the pass flags given on the
// command line (nil when none was).
func changedPassOptions(fl *pflag.FlagSet, flags map[string]*string) map[string]string {
	var opts map[string]string
	for flag, v := range flags {
		if fl.Changed(flag) {
			if opts == nil {
				opts = map[string]string{}
			}
			opts[flag] = *v
		}
	}
	return opts
}

// addPassFlags adds a flag per pass stage of the compiler, taking the
// pass's options (--fuse='schedule=recom'), and returns their values by
// pass flag.
func addPassFlags(fl *pflag.FlagSet) map[string]*string {
	vals := map[string]*string{}
	for _, s := range compiler.Pipeline(compiler.Options{Dense: true}) {
		if s.Kind != compiler.KindPass {
			continue
		}
		v := new(string)
		vals[s.Name] = v
		fl.Var((*passOptions)(v), s.Name, passOptionsHelp(s.Name))
		fl.Lookup(s.Name).NoOptDefVal = "''"
	}
	return vals
}

// denseOnGPU reads --dense: gpu (fuse-dense runs) or cpu.
func denseOnGPU(dense string) (bool, error) {
	if dense != "gpu" && dense != "cpu" {
		return false, fmt.Errorf("--dense must be gpu or cpu, got %q", dense)
	}
	return dense == "gpu", nil
}

// passOptions is the value of a pass flag: the pass's option text, as
// recom-opt takes it (--fuse='schedule=recom'). A bare --fuse is the
// default options.
type passOptions string

func (o *passOptions) String() string { return string(*o) }
func (o *passOptions) Type() string   { return "options" }
func (o *passOptions) Set(s string) error {
	if s == "''" {
		s = ""
	}
	*o = passOptions(strings.TrimSpace(s))
	return nil
}

// progressPrinter returns the pipeline's stage callbacks that print one
// line as each stage starts, one as each step of a long stage ends, and
// one as the stage ends, with its time (the summary's) and size, and the
// time its IR took to print (the summary's "printing IR" holds it):
//
//	recom compile: [1/7] import ...
//	recom compile: [1/7] import: read 0.012 s, 1.2 MB
//	recom compile: [1/7] import: parse 0.020 s, 2068 nodes
//	...
//	recom compile: [1/7] import 0.051 s, 2070 ops; its IR printed in 0.004 s
//	recom compile: [2/7] lower-emb ...
//	recom compile: [2/7] lower-emb 0.012 s, 2070 -> 694 ops; its IR printed in 0.002 s
func progressPrinter(w io.Writer) (start func(string, int, int), done func(*compiler.StageResult), step func(string, string, time.Duration, string)) {
	i, n := 0, 0
	start = func(stage string, si, sn int) {
		i, n = si, sn
		fmt.Fprintf(w, "recom compile: [%d/%d] %s ...\n", i, n, stage)
	}
	step = func(stage, name string, d time.Duration, what string) {
		if what != "" {
			what = ", " + what
		}
		fmt.Fprintf(w, "recom compile: [%d/%d] %s: %s %.3f s%s\n", i, n, stage, name, d.Seconds(), what)
	}
	done = func(s *compiler.StageResult) {
		what := ""
		switch {
		case s.Name == compiler.StageImport:
			what = fmt.Sprintf(", %d ops", s.After.Total())
		case s.After != nil:
			what = fmt.Sprintf(", %d -> %d ops", s.Before.Total(), s.After.Total())
		case s.Size > 0:
			what = fmt.Sprintf(", %d bytes", s.Size)
		}
		if s.PrintWall > 0 {
			what += fmt.Sprintf("; its IR printed in %.3f s", s.PrintWall.Seconds())
		}
		fmt.Fprintf(w, "recom compile: [%d/%d] %s %.3f s%s\n", i, n, s.Name, s.Wall.Seconds(), what)
	}
	return start, done, step
}

// isTerminal reports whether w is a terminal (a character device).
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&fs.ModeCharDevice != 0
}
