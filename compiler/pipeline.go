// Package compiler is recom's compiler driver as a library, and the one
// place that knows the pipeline: its stage table (stages.go) names every
// stage, the file `recom compile` writes it to and what runs it, in an
// order checked against rules when the program starts:
//
//	GraphDef ─ import ─► tfg ─ lower-emb ─► emb ─ simplify-shapes ─► shape ─ fuse ─► gpu
//	  ─ fuse-dense ─► gpu ─ llvm ─► NVPTX LLVM IR ─ ptx (llc-19) ─► PTX ─ cubin (ptxas) ─► cubin
//
// Every tool that compiles goes through it: `recom compile`, `recom run`,
// `recom bench`, `recom interp` (which stops after import), and
// scripts/run-example.sh, whose step-by-step path loops over the table as
// `recom compile --print-stages` lists it.
//
// The input is a GraphDef (binary or text), a SavedModel (saved_model.pb)
// or a .mlir file of any stage, which starts the compilation at the stage
// after the one DetectStage finds. Each pass runs through the pass manager
// (lowering/pass) with verification after it; Compile records, for every
// stage, the ops by dialect before and after it, the pass's statistics, its
// wall time and (with KeepIR) its output text. Pass options reach the
// passes as on recom-opt's command line (Options.PassOptions["fuse"] =
// "schedule=recom"), so every ablation of the passes is available to the
// tools built on this package. Only llc and ptxas run as subprocesses.
package compiler

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"regexp"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/recom-compiler/recom/backend/llc"
	"github.com/recom-compiler/recom/backend/nvptx"
	"github.com/recom-compiler/recom/dialects/all"
	"github.com/recom-compiler/recom/frontend/graphdef"
	"github.com/recom-compiler/recom/frontend/graphdef/tfpb"
	"github.com/recom-compiler/recom/frontend/importer"
	"github.com/recom-compiler/recom/lowering/densetogpu"
	"github.com/recom-compiler/recom/lowering/pass"
	"github.com/recom-compiler/recom/lowering/tfgtoemb"
	"github.com/recom-compiler/recom/textir"
	"github.com/recom-compiler/recom/textir/inputfile"
)

// Options control Compile. The zero value compiles every stage with the
// passes' default options, llc-19 -O3 for sm_90, and ptxas when installed.
type Options struct {
	// Inputs and Outputs cut the graph before import (graphdef.Extract):
	// Inputs become placeholders (a node stands for all its outputs), and
	// only what Outputs need is kept. For a SavedModel with neither, the
	// serving signature's are used.
	Inputs, Outputs []string
	// DynamicBatch says which placeholders of the cut get an unknown batch
	// dimension; the zero value, graphdef.BatchAuto, gives it to those of
	// a queue's or an iterator's batches (graphdef.BatchMode).
	DynamicBatch graphdef.BatchMode
	// Tags and Signature select a SavedModel's MetaGraph and SignatureDef.
	Tags      []string
	Signature string
	// WholeGraph imports every node of the graph file: no cut at a
	// SavedModel's signature (Inputs and Outputs must be empty).
	WholeGraph bool
	// Checkpoint is the checkpoint of a GraphDef's variables: a prefix
	// (model.ckpt-1000), its .index or a data shard, or a directory with
	// TensorFlow's checkpoint file (checkpoint.ResolvePrefix). A SavedModel
	// directory brings its own (variables/variables). See Weights.
	Checkpoint string
	// ReadWeights reads the variables' values into Result.Weights;
	// without it the checkpoint's index is checked against the graph's
	// variables (keys, dtypes, shapes) and no data is read.
	ReadWeights bool
	// NoWeights leaves the checkpoint alone (a SavedModel's assets are
	// still bound): for compilations that use no variable values, such as
	// the whole graph whose table initializers a tool evaluates.
	NoWeights bool

	// PassOptions holds option text for the passes, keyed by pass flag
	// (lower-emb, simplify-shapes, fuse, fuse-dense), in the syntax of
	// recom-opt's --fuse='schedule=recom max-threads=128'.
	PassOptions map[string]string
	// Dense runs the fuse-dense stage after fuse: the dense layers (MatMul,
	// bias, activation) become GPU kernels too. Without it they stay tfg
	// ops, run by the interpreter (recom compile sets it unless --dense=cpu).
	Dense bool
	// NoVerify skips verification after import and after each pass.
	NoVerify bool

	// StopAfter ends the compilation after the named stage ("" or
	// StageCubin: run everything). An input already at or past it (a .mlir
	// file) runs no stage.
	StopAfter string

	// KeepIR keeps each stage's output text in StageResult.Output (the
	// printed IR of the IR stages; the .ll, .ptx and cubin).
	KeepIR bool
	// Print sets how KeepIR and IRWriter print IR (generic form,
	// locations).
	Print textir.PrintOptions
	// IRWriter, when set, is where each IR stage's module is printed as
	// the stage ends, instead of into StageResult.Output: the driver
	// prints into the writer it returns for the stage and then closes it
	// (an error of either fails the stage). A large model's text (250 MB
	// for 10,000 columns) then never sits in memory whole. KeepIR still
	// keeps the backend stages' outputs (.ll, .ptx, cubin).
	IRWriter func(stage string) (io.WriteCloser, error)

	// MCPU is the GPU of llc's -mcpu and ptxas's -arch (default sm_90).
	MCPU string
	// OptLevel is llc's -O level, 1 to 3 (0: llc.DefaultOptLevel).
	OptLevel int
	// LLC and Ptxas are the tools' paths ("": looked up, see backend/llc).
	LLC, Ptxas string
	// NoCubin skips the ptxas stage.
	NoCubin bool

	// Progress, when set, is called with each stage's name as it starts,
	// its position (from 1) and the number of stages the compilation is
	// to run (those of Pipeline after the input's stage).
	Progress func(stage string, i, n int)
	// StageDone, when set, is called with each stage's result as it ends.
	StageDone func(s *StageResult)
	// Step, when set, is called inside a long stage as each of its steps
	// ends, with the step's time and what it made. The import stage's
	// steps: read, parse, extract (with inputs or outputs), convert (in a
	// graph of 100,000 nodes or more: as each tenth of the nodes is
	// converted, the time since the checks and import began), check and
	// import, verify.
	Step func(stage, step string, d time.Duration, what string)
}

// StageResult is what one stage did.
type StageResult struct {
	Name string
	// Wall is the stage's wall time (for import: reading and parsing the
	// file, extraction, import and verification).
	Wall time.Duration
	// Before and After count ops by dialect around the stage (IR stages
	// only; import's Before is empty: see Result.Nodes).
	Before, After OpCounts
	// Stats are the pass's statistics (pass stages only), sorted by name.
	Stats []Stat
	// Output is the stage's output with Options.KeepIR: the printed
	// module for the IR stages, the .ll, .ptx or cubin bytes.
	Output []byte
	// PrintWall is the time spent printing Output (KeepIR) or into
	// Options.IRWriter, not part of Wall.
	PrintWall time.Duration
	// Size is the size in bytes of the stage's output for the backend
	// stages (.ll, .ptx, cubin), whether or not it is kept.
	Size int
}

// Stat is one statistic of a pass.
type Stat struct {
	Name  string
	Value int64
}

// Stat returns the value of the named statistic (0 when absent).
func (s *StageResult) Stat(name string) int64 {
	for _, st := range s.Stats {
		if st.Name == name {
			return st.Value
		}
	}
	return 0
}

// OpCounts counts ops by dialect name.
type OpCounts map[string]int

// Total is the number of ops of every dialect.
func (c OpCounts) Total() int {
	n := 0
	for _, v := range c {
		n += v
	}
	return n
}

// String lists the counts by dialect, largest first: "tfg 2000, emb 24".
func (c OpCounts) String() string {
	names := slices.Collect(maps.Keys(c))
	sort.Slice(names, func(i, j int) bool {
		if c[names[i]] != c[names[j]] {
			return c[names[i]] > c[names[j]]
		}
		return names[i] < names[j]
	})
	var b strings.Builder
	for i, n := range names {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "%s %d", n, c[n])
	}
	return b.String()
}

// CountOps counts the ops nested in op (op itself included) by dialect.
func CountOps(op *textir.Operation) OpCounts {
	c := OpCounts{}
	op.Walk(func(o *textir.Operation) bool {
		c[o.Dialect()]++
		return true
	})
	return c
}

// Result is a compilation's outcome.
type Result struct {
	// Model is the input's name; Format its format ("text GraphDef",
	// "textual IR").
	Model, Format string
	// From is the stage a .mlir input was at (DetectStage); the
	// compilation started at the stage after it. "" for a graph file.
	From string
	// Nodes is the number of GraphDef nodes imported (after extraction);
	// FileNodes the number in the file.
	Nodes, FileNodes int
	// Inputs and Outputs are the tensors the graph was cut at, as given in
	// Options or from the SavedModel's signature; both empty when the
	// whole graph was imported.
	Inputs, Outputs []string
	// Placeholders maps each cut input tensor ("node:idx") to the
	// Placeholder node that replaces it (graphdef.PlaceholderName).
	Placeholders map[string]string
	// Signature is the SavedModel's serving signature the graph was cut
	// at (its keys name the inputs and outputs for recom serve); nil for
	// a GraphDef or a cut given by Inputs and Outputs.
	Signature *graphdef.ServingSignature
	// Context and Module are the IR after the last IR stage run.
	Context *textir.Context
	Module  *textir.Operation
	// Stages are the stages run, in order.
	Stages []*StageResult
	// LLVM is the NVPTX LLVM IR, PTX llc's output, Cubin ptxas's output
	// (each nil when its stage did not run).
	LLVM, PTX []byte
	Cubin     *llc.Cubin
	// Kernels are the kernel entries: of the PTX when it was made, else
	// the gpu.func kernels of the module.
	Kernels []string
	// Diagnostics are the warnings and remarks the passes reported.
	Diagnostics []*textir.Diagnostic
	// Notes say what was skipped and why ("ptxas not found: ...").
	Notes []string
	// PassOptions are the option texts the passes ran with (as given).
	PassOptions map[string]string
	// Columns are the embedding columns as they were before --fuse, with
	// the kernel each went to (dot.go).
	Columns []*Column
	// Weights are the model's checkpoint and assets (a SavedModel
	// directory, or a GraphDef with Options.Checkpoint); nil without.
	Weights *Weights
}

// Stage returns the result of the named stage, or nil when it did not run.
func (r *Result) Stage(name string) *StageResult {
	for _, s := range r.Stages {
		if s.Name == name {
			return s
		}
	}
	return nil
}

// Wall is the total wall time of the stages run (printing excluded).
func (r *Result) Wall() time.Duration {
	var d time.Duration
	for _, s := range r.Stages {
		d += s.Wall
	}
	return d
}

// PrintWall is the total time spent printing the stages' IR (KeepIR).
func (r *Result) PrintWall() time.Duration {
	var d time.Duration
	for _, s := range r.Stages {
		d += s.PrintWall
	}
	return d
}

// StageError is the failure of one stage. It unwraps to the cause (a
// *textir.Diagnostic, a *pass.PassError, an *llc.ToolError, ...).
type StageError struct {
	Stage string
	Err   error
}

func (e *StageError) Error() string { return e.Err.Error() }
func (e *StageError) Unwrap() error { return e.Err }

// CheckOptions reports an unknown stage in StopAfter or an unknown pass
// flag or bad option text in PassOptions, before anything runs.
func (o *Options) CheckOptions() error {
	if o.WholeGraph && (len(o.Inputs) > 0 || len(o.Outputs) > 0) {
		return errors.New("the whole graph is imported (WholeGraph), yet inputs or outputs to cut it at are given")
	}
	if o.NoWeights && (o.ReadWeights || o.Checkpoint != "") {
		return errors.New("the weights are left alone (NoWeights), yet a checkpoint or reading the weights is asked for")
	}
	if o.StopAfter != "" && !slices.Contains(Stages, o.StopAfter) {
		return fmt.Errorf("unknown stage %q (want one of %s)", o.StopAfter, strings.Join(Stages, ", "))
	}
	for _, flag := range slices.Sorted(maps.Keys(o.PassOptions)) {
		if !slices.Contains(passStages, flag) {
			return fmt.Errorf("options for %q: the pipeline's passes are %s", flag, strings.Join(passStages, ", "))
		}
		if _, err := pass.NewPass(flag, o.PassOptions[flag]); err != nil {
			return err
		}
	}
	if o.OptLevel < 0 || o.OptLevel > 3 {
		return fmt.Errorf("llc optimisation level %d: want 1, 2 or 3", o.OptLevel)
	}
	if o.MCPU != "" {
		if err := llc.CheckCPU(o.MCPU); err != nil {
			return fmt.Errorf("--mcpu: %w", err)
		}
	}
	return nil
}

// Compile compiles the file at path — a binary or text GraphDef, a
// SavedModel, or a .mlir file of any stage — through every stage from the
// input's, or up to Options.StopAfter. On failure it returns what was done
// so far (never a nil Result) with the error: a *StageError for the
// failure of a stage.
func Compile(ctx context.Context, path string, opts Options) (*Result, error) {
	if err := opts.CheckOptions(); err != nil {
		return &Result{Model: path}, err
	}
	if !strings.HasSuffix(path, ".mlir") {
		// A graph file is read by the import stage, whose time and
		// progress then count the reading; a missing one fails before any
		// stage. A SavedModel directory stands for its graph file, and
		// brings its variables and assets.
		graph, dir, err := modelPath(path)
		if err != nil {
			return &Result{Model: path}, err
		}
		d := newDriver(ctx, path, &opts, 0)
		d.path, d.savedModelDir = graph, dir
		return d.res, d.run(0)
	}
	data, err := inputfile.Read(path)
	if err != nil {
		return &Result{Model: path}, err
	}
	return CompileBytes(ctx, path, data, opts)
}

// CompileBytes is Compile on the contents of a file; name is used in
// diagnostics, and a name ending in .mlir makes data textual IR, parsed
// and verified and compiled from the stage after the one it is at.
func CompileBytes(ctx context.Context, name string, data []byte, opts Options) (*Result, error) {
	if err := opts.CheckOptions(); err != nil {
		return &Result{Model: name}, err
	}
	d := newDriver(ctx, name, &opts, len(data))
	if !strings.HasSuffix(name, ".mlir") {
		d.data = data
		return d.res, d.run(0)
	}
	if len(opts.Inputs) > 0 || len(opts.Outputs) > 0 || len(opts.Tags) > 0 || opts.Signature != "" || opts.Checkpoint != "" {
		return d.res, fmt.Errorf("%s: inputs, outputs, tags, signatures and checkpoints apply to graph files, not to IR", name)
	}
	tctx := all.NewContext()
	m, err := textir.Parse(tctx, name, data)
	if err != nil {
		return d.res, err
	}
	if !opts.NoVerify {
		if err := textir.Verify(tctx, m); err != nil {
			return d.res, err
		}
	}
	return d.res, d.resume(tctx, m)
}

// CompileModule compiles a module already in memory (a .mlir file parsed
// with a context of every dialect, or the Module of a compilation that
// stopped early) from the stage after the one it is at; the passes change
// it in place. name is the model's name in the result.
func CompileModule(ctx context.Context, name string, tctx *textir.Context, m *textir.Operation, opts Options) (*Result, error) {
	if err := opts.CheckOptions(); err != nil {
		return &Result{Model: name}, err
	}
	d := newDriver(ctx, name, &opts, 0)
	return d.res, d.resume(tctx, m)
}

func newDriver(ctx context.Context, name string, opts *Options, inputSize int) *driver {
	return &driver{ctx: ctx, opts: opts, inputSize: inputSize,
		res: &Result{Model: name, PassOptions: maps.Clone(opts.PassOptions)}}
}

// resume starts the compilation of m after the stage it is at.
func (d *driver) resume(tctx *textir.Context, m *textir.Operation) error {
	r := d.res
	r.Context, r.Module, r.Format = tctx, m, "textual IR"
	from, err := DetectStage(m)
	if err != nil {
		return err
	}
	r.From = from
	return d.run(stageIndex(from) + 1)
}

// driver is one compilation.
type driver struct {
	ctx  context.Context
	opts *Options
	res  *Result
	data []byte // the graph file (import)
	path string // the graph file, read by the import stage (Compile)
	// savedModelDir is the SavedModel directory the graph file is in, when
	// the model was given as one (its variables and assets are read).
	savedModelDir string
	release       func()   // gives the memory of data back (readGraphFile), or nil
	counts        OpCounts // the ops of the module as the last IR stage left it, or nil
	lastIRLen     int      // the length of the last IR printed, to size the next buffer (not the bytes: a caller may let them go)
	inputSize     int      // the input file's size
	ptxas         string   // ptxas's path, once found
	started       int      // the stages started so far
	current       string   // the stage running
	steps         int      // the stages the compilation is to run
}

// inputPast reports whether the input was IR at or after the named stage.
func (d *driver) inputPast(stage string) bool {
	return d.res.From != "" && stageIndex(d.res.From) >= stageIndex(stage)
}

// stage runs st, timed and recorded. It reports whether the pipeline goes
// on after it.
func (d *driver) stage(st Stage) (bool, error) {
	if err := d.ctx.Err(); err != nil {
		return false, err
	}
	d.started++
	if d.opts.Progress != nil {
		d.opts.Progress(st.Name, d.started, d.steps)
	}
	s := &StageResult{Name: st.Name}
	start := time.Now()
	d.current = st.Name
	err := d.runStage(st, s)
	d.current = ""
	s.Wall = time.Since(start) - s.PrintWall
	d.res.Stages = append(d.res.Stages, s)
	if d.opts.StageDone != nil {
		d.opts.StageDone(s)
	}
	if err != nil {
		return false, &StageError{Stage: st.Name, Err: err}
	}
	return d.opts.StopAfter != st.Name, nil
}

// runStage runs st as its kind says.
func (d *driver) runStage(st Stage, s *StageResult) error {
	r := d.res
	switch st.Kind {
	case KindImport:
		if d.path != "" && d.data == nil {
			start := time.Now()
			data, release, err := readGraphFile(d.path)
			if err != nil {
				return err
			}
			d.data, d.inputSize, d.release = data, len(data), release
			d.step("read", start, fmt.Sprintf("%.1f MB", float64(len(data))/(1<<20)))
		}
		err := d.importGraph(r.Model)
		d.releaseInput()
		if err != nil {
			return err
		}
		s.After = CountOps(r.Module)
		d.counts = s.After
		return d.keepIR(s)
	case KindPass:
		return d.runPass(st.Name, s)
	case KindLLVM:
		ll, err := nvptx.EmitText(r.Module)
		if err != nil {
			return err
		}
		r.LLVM = []byte(ll)
		s.Size = len(ll)
		if d.opts.KeepIR {
			s.Output = r.LLVM
		}
		return nil
	case KindPTX:
		ptx, err := llc.CompilePTX(d.ctx, r.LLVM, d.opts.LLCOptions())
		if err != nil {
			return err
		}
		r.PTX = ptx
		s.Size = len(ptx)
		if d.opts.KeepIR {
			s.Output = ptx
		}
		r.Kernels = PTXEntries(ptx)
		return nil
	case KindCubin:
		cub, err := llc.Assemble(d.ctx, d.ptxas, r.PTX, d.opts.MCPU)
		if err != nil {
			return err
		}
		r.Cubin = cub
		s.Size = len(cub.Data)
		if d.opts.KeepIR {
			s.Output = cub.Data
		}
		return nil
	}
	return fmt.Errorf("stage %s: no runner for kind %v", st.Name, st.Kind)
}

func (d *driver) keepIR(s *StageResult) error {
	if d.opts.IRWriter != nil {
		start := time.Now()
		w, err := d.opts.IRWriter(s.Name)
		if err != nil {
			return err
		}
		err = textir.Print(w, d.res.Module, d.opts.Print)
		if cerr := w.Close(); err == nil {
			err = cerr
		}
		s.PrintWall = time.Since(start)
		return err
	}
	if !d.opts.KeepIR {
		return nil
	}
	start := time.Now()
	var b bytes.Buffer
	if n := d.lastIRLen; n > 0 {
		b.Grow(n + n/4)
	} else {
		// The tfg IR of a text GraphDef is a little over half its size.
		b.Grow(d.inputSize * 5 / 8)
	}
	err := textir.Print(&b, d.res.Module, d.opts.Print)
	s.Output = b.Bytes()
	d.lastIRLen = len(s.Output)
	s.PrintWall = time.Since(start)
	return err
}

// run runs the stages of the table from index start on, as the options
// say: the pass stages the options leave out are skipped, and the
// compilation ends after StopAfter. The IR stages' results (the columns,
// the kernels) are noted when the last IR stage is done.
func (d *driver) run(start int) error {
	r := d.res
	stop := len(stages) - 1
	if d.opts.StopAfter != "" {
		stop = stageIndex(d.opts.StopAfter)
	}
	for _, st := range stages[start:max(start, stop+1)] {
		if st.keep == nil || st.keep(d.opts) {
			d.steps++
		}
	}
	irDone := false
	for _, st := range stages[start:max(start, stop+1)] {
		if !st.Kind.IR() && !irDone {
			irDone = true
			d.endIR()
		}
		if st.keep != nil && !st.keep(d.opts) {
			if st.Kind == KindCubin {
				r.Notes = append(r.Notes, "cubin: skipped, as asked")
			}
			continue
		}
		if st.Name == StageFuse {
			d.noteColumns(false)
		}
		if st.Kind == KindCubin {
			if found, err := d.findPtxas(); !found {
				if err != nil {
					return &StageError{Stage: st.Name, Err: err}
				}
				return nil
			}
		}
		more, err := d.stage(st)
		if !more {
			switch {
			case st.Kind.IR() && err == nil:
				// Stopped after an IR stage (--stop-after): its
				// results are noted as at the end of the IR stages.
				d.endIR()
			case st.Kind.IR():
				d.noteColumns(false)
				d.kernelsFromIR()
			}
			return err
		}
	}
	if !irDone {
		// Stopped at an IR stage the options leave out, or the input is
		// already at or past StopAfter.
		d.endIR()
	}
	return nil
}

// endIR notes, once the last IR stage is done, the columns that were fused
// and the kernels, and calls out an embedding layer that fuse did not make
// one kernel.
func (d *driver) endIR() {
	r := d.res
	d.noteColumns(true)
	d.kernelsFromIR()
	if r.Stage(StageFuse) == nil {
		return
	}
	// A model may have several embedding layers (a two-tower model has
	// one per tower), each a kernel: what calls for a note is a column no
	// kernel took.
	_, total := r.ColumnKinds()
	total = max(total, int64(len(r.Columns))) // a .mlir input past lower-emb
	fusedCols := 0
	for _, c := range r.Columns {
		if c.Kernel != "" {
			fusedCols++
		}
	}
	if n := len(r.Kernels) - denseKernels(r.Module); int64(fusedCols) < total {
		r.Notes = append(r.Notes, fmt.Sprintf("fuse made %d embedding kernel%s and left %d of the %d embedding columns out of them (the columns above and the remarks say why)", n, plural(n), total-int64(fusedCols), total))
	}
}

// findPtxas finds ptxas for the cubin stage. Where it is not installed the
// stage is skipped with a note (found false, no error).
func (d *driver) findPtxas() (found bool, err error) {
	if d.ptxas = d.opts.Ptxas; d.ptxas != "" {
		return true, nil
	}
	if d.ptxas, err = llc.FindPtxas(); err != nil {
		if !IsNotFound(err) {
			return false, err
		}
		d.res.Notes = append(d.res.Notes, "cubin: skipped: ptxas not found (it comes with the CUDA toolkit; registers and shared memory are reported where it runs)")
		return false, nil
	}
	return true, nil
}

// LLCOptions are the options of llc for the ptx stage: Options' LLC, MCPU
// and OptLevel (0: llc.DefaultOptLevel).
func (o *Options) LLCOptions() llc.Options {
	l := llc.Options{Path: o.LLC, CPU: o.MCPU, OptLevel: o.OptLevel}
	if l.OptLevel == 0 {
		l.OptLevel = llc.DefaultOptLevel
	}
	return l
}

// readGraphFile reads the graph file outside the Go heap, so that its
// address space is given back as soon as it is parsed (a variable for
// tests).
var readGraphFile = inputfile.ReadOffHeap

// releaseInput lets the graph file's bytes go.
func (d *driver) releaseInput() {
	d.data = nil
	if d.release != nil {
		d.release()
		d.release = nil
	}
}

// importGraph parses the graph file, cuts it at the inputs and outputs,
// checks it and imports it into the tfg dialect.
func (d *driver) importGraph(name string) error {
	r, o := d.res, d.opts
	var gopts []graphdef.Option
	if len(o.Tags) > 0 {
		gopts = append(gopts, graphdef.WithTags(o.Tags...))
	}
	if o.Signature != "" {
		gopts = append(gopts, graphdef.WithSignature(o.Signature))
	}
	start := time.Now()
	file, err := graphdef.Parse(d.data, name, gopts...)
	// The file's bytes (400 MB for 10,000 columns) are not needed once
	// parsed (the messages hold copies of what they read): they go before
	// the import builds the module.
	d.releaseInput()
	if err != nil {
		return err
	}
	r.Format = file.Format.String()
	g := file.Graph
	r.FileNodes = len(g.GetNode())
	d.step("parse", start, fmt.Sprintf("%d nodes", r.FileNodes))
	if err := d.bindAssets(file); err != nil {
		return err
	}
	if g, err = inlineCalls(d, name, g); err != nil {
		return err
	}
	inputs, outputs := o.Inputs, o.Outputs
	if len(inputs) == 0 && len(outputs) == 0 && !o.WholeGraph {
		if sig := file.Signature; sig != nil {
			inputs, outputs = sig.InputNames(), sig.OutputNames()
			r.Signature = sig
		} else if err := file.NoSignatureError(); err != nil {
			return err
		}
	}
	if len(inputs) > 0 && len(outputs) == 0 {
		return fmt.Errorf("%s: inputs given without outputs (what to compute from them)", name)
	}
	if len(outputs) > 0 {
		start := time.Now()
		tensors, err := graphdef.ExpandInputs(g, inputs)
		if err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		if r.Placeholders, err = placeholderNames(g, tensors); err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		x, err := graphdef.ExtractWith(g, tensors, outputs, graphdef.ExtractOptions{Batch: o.DynamicBatch})
		if err != nil {
			if errors.Is(err, graphdef.ErrNotInference) {
				d.warnTraining(name, file.Graph, file.Graph)
			}
			return fmt.Errorf("%s: %w", name, err)
		}
		g = x
		r.Inputs, r.Outputs = slices.Clone(inputs), slices.Clone(outputs)
		d.step("extract", start, fmt.Sprintf("%d nodes", len(g.GetNode())))
	}
	d.warnTraining(name, g, file.Graph)
	r.Nodes = len(g.GetNode())
	wstart := time.Now()
	if err := d.restoreWeights(name, file, g); err != nil {
		return err
	}
	if r.Weights != nil && r.Weights.Prefix != "" {
		d.step("weights", wstart, r.Weights.String())
	}
	// The structural checks run with the import, on one index of the
	// graph; their errors are the more complete, so they win when both
	// fail. The import lets each node's attributes go once converted (the
	// graph is not read after it).
	start = time.Now()
	r.Context = all.NewContext()
	iopts := importer.Options{Check: true, Consume: true}
	if d.opts.Step != nil && len(g.GetNode()) >= progressMinNodes {
		iopts.Progress = func(done, total int) {
			if done < total {
				d.step("convert", start, fmt.Sprintf("%d of %d nodes", done, total))
			}
		}
	}
	mod, err := importGraphDef(r.Context, g, iopts)
	if err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	r.Module = mod
	d.step("check and import", start, "")
	if !o.NoVerify {
		start := time.Now()
		if err := textir.Verify(r.Context, mod); err != nil {
			return err
		}
		d.step("verify", start, "")
	}
	return nil
}

// warnTraining warns, when graph g (the graph file's graph, or a cut of
// it) holds parts of training, what it holds, with the candidate inputs and
// outputs of file's inference graph: a warning diagnostic with notes, and
// notes in the summary.
func (d *driver) warnTraining(name string, g, file *tfpb.GraphDef) {
	rep := graphdef.AnalyzeCut(g, file)
	if !rep.Found() {
		return
	}
	msg, notes := rep.Warning()
	diag := &textir.Diagnostic{Severity: textir.SevWarning, Loc: textir.NameLoc{Name: name}, Message: msg}
	for _, n := range notes {
		diag.AttachNote(nil, "%s", n)
	}
	d.res.Diagnostics = append(d.res.Diagnostics, diag)
	d.res.Notes = append(d.res.Notes, msg)
	d.res.Notes = append(d.res.Notes, notes...)
}

// step reports a step of the running stage to Options.Step.
func (d *driver) step(step string, start time.Time, what string) {
	if d.opts.Step != nil && d.current != "" {
		d.opts.Step(d.current, step, time.Since(start), what)
	}
}

// placeholderNames maps each input tensor ("node:idx") of g to the name of
// the Placeholder graphdef.Extract puts in its place.
func placeholderNames(g *tfpb.GraphDef, inputs []string) (map[string]string, error) {
	m := map[string]string{}
	if len(inputs) == 0 {
		return m, nil // no map of a million names to build
	}
	byName := make(map[string]*tfpb.NodeDef, len(g.GetNode()))
	for _, n := range g.GetNode() {
		byName[n.GetName()] = n
	}
	for _, in := range inputs {
		ref, err := graphdef.ParseInput(in)
		if err != nil {
			return nil, fmt.Errorf("input %q: %w", in, err)
		}
		n, ok := byName[ref.Node]
		if !ok {
			return nil, fmt.Errorf("input %q: no node %q", in, ref.Node)
		}
		k, err := graphdef.NumOutputs(n)
		if err != nil {
			k = 1
		}
		m[fmt.Sprintf("%s:%d", ref.Node, ref.Index)] = graphdef.PlaceholderName(ref.Node, ref.Index, k)
	}
	return m, nil
}

// progressMinNodes is the size of graph whose import reports its progress
// (Options.Step), a tenth of the nodes at a time: one that takes a second or
// more to import.
const progressMinNodes = 100_000

// importGraphDef is importer.ImportWith (a variable for tests).
var importGraphDef = func(ctx *textir.Context, g *tfpb.GraphDef, o importer.Options) (*textir.Operation, error) {
	return importer.ImportWith(ctx, g, o)
}

// runPass runs one pass of the pipeline through a pass manager, with its
// options, verification, statistics and diagnostics.
func (d *driver) runPass(flag string, s *StageResult) error {
	r := d.res
	// The module is as the last IR stage left it: its counts are known
	// (a walk of a million ops saved after the import).
	if d.counts != nil {
		s.Before = maps.Clone(d.counts)
	} else {
		s.Before = CountOps(r.Module)
	}
	d.counts = nil
	pm, err := pass.FromSpecs("builtin.module", []pass.PassSpec{{Flag: flag, Options: d.opts.PassOptions[flag]}})
	if err != nil {
		return err
	}
	pm.Config.NoVerify = d.opts.NoVerify
	pm.Config.Diag = func(d *textir.Diagnostic) { r.Diagnostics = append(r.Diagnostics, d) }
	if err := pm.Run(r.Context, r.Module); err != nil {
		return err
	}
	stats := pm.Statistics()[flag]
	for _, n := range slices.Sorted(maps.Keys(stats)) {
		s.Stats = append(s.Stats, Stat{Name: n, Value: stats[n]})
	}
	s.After = CountOps(r.Module)
	d.counts = s.After
	return d.keepIR(s)
}

// kernelsFromIR sets Result.Kernels from the gpu.func kernels of the module
// (before the PTX exists).
func (d *driver) kernelsFromIR() {
	r := d.res
	if r.Module == nil {
		return
	}
	r.Kernels = nil
	r.Module.Walk(func(op *textir.Operation) bool {
		if _, ok := op.LookupAttr("kernel").(textir.UnitAttr); ok && op.Name() == "gpu.func" {
			if n, ok := op.Attr("sym_name").(textir.StringAttr); ok {
				r.Kernels = append(r.Kernels, n.Value)
			}
		}
		return op.Dialect() == "builtin" || op.Name() == "gpu.module"
	})
}

// denseKernels counts the kernels of --fuse-dense's gpu.module.
func denseKernels(m *textir.Operation) int {
	mod := textir.LookupSymbolIn(m, densetogpu.ModuleName)
	if mod == nil || mod.Name() != "gpu.module" || mod.Region(0).Front() == nil {
		return 0
	}
	n := 0
	for range mod.Region(0).Front().Ops() {
		n++
	}
	return n
}

var entryRE = regexp.MustCompile(`(?m)^\s*(?:\.visible\s+|\.weak\s+)?\.entry\s+([A-Za-z_$%][\w$%]*)`)

// PTXEntries returns the names of the kernel entries (.entry) of a PTX
// module, in order.
func PTXEntries(ptx []byte) []string {
	var out []string
	for _, m := range entryRE.FindAllSubmatch(ptx, -1) {
		out = append(out, string(m[1]))
	}
	return out
}

// ColumnKinds returns the number of columns lower-emb found of each kind
// (from its columns-<kind> statistics), kinds in tfgtoemb.Kinds order, and
// the total.
func (r *Result) ColumnKinds() (kinds []Stat, total int64) {
	s := r.Stage(StageLowerEmb)
	if s == nil {
		return nil, 0
	}
	for _, k := range tfgtoemb.Kinds {
		if v := s.Stat("columns-" + k); v > 0 {
			kinds = append(kinds, Stat{Name: k, Value: v})
		}
	}
	return kinds, s.Stat("columns")
}

// IsNotFound reports whether err is a missing external tool (llc-19 or
// ptxas).
func IsNotFound(err error) bool { return errors.Is(err, llc.ErrNotFound) }
