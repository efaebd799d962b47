// Package compiler is recom's compiler driver as a library: it runs every
// stage from a TensorFlow graph file to PTX in one process, the same chain
// that scripts/run-example.sh strings together with recom-translate and
// recom-opt:
//
//	GraphDef ─ import ─► tfg ─ lower-emb ─► emb ─ simplify-shapes ─► shape ─ fuse ─► gpu
//	  ─ llvm ─► NVPTX LLVM IR ─ ptx (llc-19) ─► PTX ─ cubin (ptxas, where installed) ─► cubin
//
// Each pass runs through the pass manager (lowering/pass) with verification
// after it; Compile records, for every stage, the ops by dialect before and
// after it, the pass's statistics, its wall time and (with KeepIR) its
// output text. Pass options reach the passes as on recom-opt's command line
// (Options.PassOptions["fuse"] = "schedule=recom"), so every ablation of the
// passes is available to `recom compile` and the tools built on this
// package. Only llc and ptxas run as subprocesses.
package compiler

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"maps"
	"os"
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
	allpasses "github.com/recom-compiler/recom/lowering/all"
	"github.com/recom-compiler/recom/lowering/densetogpu"
	"github.com/recom-compiler/recom/lowering/embtogpu"
	"github.com/recom-compiler/recom/lowering/pass"
	"github.com/recom-compiler/recom/lowering/simplifyshapes"
	"github.com/recom-compiler/recom/lowering/tfgtoemb"
	"github.com/recom-compiler/recom/textir"
)

// The stages, in order. The pass stages carry their pass's flag as name.
const (
	StageImport         = "import"            // GraphDef → tfg
	StageLowerEmb       = tfgtoemb.Flag       // tfg → emb ("lower-emb")
	StageSimplifyShapes = simplifyshapes.Flag // emb → symbolic shapes ("simplify-shapes")
	StageFuse           = embtogpu.Flag       // emb → one gpu kernel ("fuse")
	StageFuseDense      = densetogpu.Flag     // dense layers → gpu kernels ("fuse-dense")
	StageLLVM           = "llvm"              // gpu → NVPTX LLVM IR
	StagePTX            = "ptx"               // LLVM IR → PTX (llc-19)
	StageCubin          = "cubin"             // PTX → cubin (ptxas)
)

// Stages lists every stage in pipeline order.
var Stages = []string{StageImport, StageLowerEmb, StageSimplifyShapes, StageFuse, StageFuseDense, StageLLVM, StagePTX, StageCubin}

// passStages are the stages that are one pass of the pass manager.
var passStages = []string{StageLowerEmb, StageSimplifyShapes, StageFuse, StageFuseDense}

// FileName returns the name under which `recom compile` writes the output
// of stage: 0-tfg.mlir, 1-emb.mlir, 2-shape.mlir, 3-gpu.mlir, model.ll,
// model.ptx, model.cubin.
func FileName(stage string) string {
	switch stage {
	case StageImport:
		return "0-tfg.mlir"
	case StageLowerEmb:
		return "1-emb.mlir"
	case StageSimplifyShapes:
		return "2-shape.mlir"
	case StageFuse:
		return "3-gpu.mlir"
	case StageFuseDense:
		return "4-dense.mlir"
	case StageLLVM:
		return "model.ll"
	case StagePTX:
		return "model.ptx"
	case StageCubin:
		return "model.cubin"
	}
	return ""
}

// Options control Compile. The zero value compiles every stage with the
// passes' default options, llc-19 -O3 for sm_90, and ptxas when installed.
type Options struct {
	// Inputs and Outputs cut the graph before import (graphdef.Extract):
	// Inputs become placeholders, and only what Outputs need is kept.
	// For a SavedModel with neither, the serving signature's are used.
	Inputs, Outputs []string
	// Tags and Signature select a SavedModel's MetaGraph and SignatureDef.
	Tags      []string
	Signature string

	// PassOptions holds option text for the passes, keyed by pass flag
	// (lower-emb, simplify-shapes, fuse), in the syntax of recom-opt's
	// --fuse='schedule=recom max-threads=128'.
	PassOptions map[string]string
	// Dense runs the fuse-dense stage after fuse: the dense layers (MatMul,
	// bias, activation) become GPU kernels too. Without it they stay tfg
	// ops, run by the interpreter (recom compile sets it unless --dense=cpu).
	Dense bool
	// NoVerify skips verification after import and after each pass.
	NoVerify bool

	// StopAfter ends the compilation after the named stage ("" or
	// StageCubin: run everything).
	StopAfter string

	// KeepIR keeps each stage's output text in StageResult.Output (the
	// printed IR of the IR stages; the .ll, .ptx and cubin).
	KeepIR bool
	// Print sets how KeepIR prints IR (generic form, locations).
	Print textir.PrintOptions

	// MCPU is the GPU of llc's -mcpu and ptxas's -arch (default sm_90).
	MCPU string
	// OptLevel is llc's -O level, 1 to 3 (0: llc.DefaultOptLevel).
	OptLevel int
	// LLC and Ptxas are the tools' paths ("": looked up, see backend/llc).
	LLC, Ptxas string
	// NoCubin skips the ptxas stage.
	NoCubin bool

	// Progress, when set, is called with each stage's name as it starts.
	Progress func(stage string)
	// StageDone, when set, is called with each stage's result as it ends.
	StageDone func(s *StageResult)
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
	// PrintWall is the time spent printing Output (KeepIR), not part of
	// Wall.
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
	// Model is the input's name; Format its format ("text GraphDef").
	Model, Format string
	// Nodes is the number of GraphDef nodes imported (after extraction);
	// FileNodes the number in the file.
	Nodes, FileNodes int
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
	allpasses.Register() // the pipeline's passes are found by flag
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
	return nil
}

// Compile compiles the graph file at path (a binary or text GraphDef, or a
// SavedModel) through every stage, or up to Options.StopAfter. On failure
// it returns what was done so far (never a nil Result) with the error: a
// *StageError for the failure of a stage.
func Compile(ctx context.Context, path string, opts Options) (*Result, error) {
	if err := opts.CheckOptions(); err != nil {
		return &Result{Model: path}, err
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return &Result{Model: path}, err
	}
	return CompileBytes(ctx, path, data, opts)
}

// CompileBytes is Compile on the contents of a graph file; name is used in
// diagnostics.
func CompileBytes(ctx context.Context, name string, data []byte, opts Options) (*Result, error) {
	if err := opts.CheckOptions(); err != nil {
		return &Result{Model: name}, err
	}
	c := &driver{ctx: ctx, opts: &opts, res: &Result{Model: name, PassOptions: maps.Clone(opts.PassOptions)}, inputSize: len(data)}
	err := c.run(name, data)
	return c.res, err
}

type driver struct {
	ctx       context.Context
	opts      *Options
	res       *Result
	lastIR    []byte // the last IR printed, to size the next buffer
	inputSize int    // the graph file's size
}

// stage runs fn as the named stage, timed and recorded. It reports whether
// the pipeline goes on after it.
func (c *driver) stage(name string, fn func(s *StageResult) error) (bool, error) {
	if err := c.ctx.Err(); err != nil {
		return false, err
	}
	if c.opts.Progress != nil {
		c.opts.Progress(name)
	}
	s := &StageResult{Name: name}
	start := time.Now()
	err := fn(s)
	s.Wall = time.Since(start) - s.PrintWall
	c.res.Stages = append(c.res.Stages, s)
	if c.opts.StageDone != nil {
		c.opts.StageDone(s)
	}
	if err != nil {
		return false, &StageError{Stage: name, Err: err}
	}
	return c.opts.StopAfter != name, nil
}

func (c *driver) keepIR(s *StageResult) error {
	if !c.opts.KeepIR {
		return nil
	}
	start := time.Now()
	var b bytes.Buffer
	if n := len(c.lastIR); n > 0 {
		b.Grow(n + n/4)
	} else {
		// The tfg IR of a text GraphDef is a little over half its size.
		b.Grow(c.inputSize * 5 / 8)
	}
	err := textir.Print(&b, c.res.Module, c.opts.Print)
	s.Output = b.Bytes()
	c.lastIR = s.Output
	s.PrintWall = time.Since(start)
	return err
}

func (c *driver) run(name string, data []byte) error {
	r := c.res
	more, err := c.stage(StageImport, func(s *StageResult) error {
		if err := c.importGraph(name, data); err != nil {
			return err
		}
		s.After = CountOps(r.Module)
		return c.keepIR(s)
	})
	if !more {
		c.kernelsFromIR()
		return err
	}
	for _, flag := range passStages {
		if flag == StageFuseDense && !c.opts.Dense {
			continue
		}
		if flag == StageFuse {
			c.noteColumns(false)
		}
		more, err = c.stage(flag, func(s *StageResult) error { return c.runPass(flag, s) })
		if !more {
			c.noteColumns(flag == StageFuse && err == nil)
			c.kernelsFromIR()
			return err
		}
	}
	c.noteColumns(true)
	c.kernelsFromIR()
	if n := len(r.Kernels) - denseKernels(r.Module); n != 1 {
		r.Notes = append(r.Notes, fmt.Sprintf("fuse made %d kernels; one is expected for the embedding layer (the remarks say what was not fused)", n))
	}
	more, err = c.stage(StageLLVM, func(s *StageResult) error {
		ll, err := nvptx.EmitText(r.Module)
		if err != nil {
			return err
		}
		r.LLVM = []byte(ll)
		s.Size = len(ll)
		if c.opts.KeepIR {
			s.Output = r.LLVM
		}
		return nil
	})
	if !more {
		return err
	}
	more, err = c.stage(StagePTX, func(s *StageResult) error {
		ptx, err := llc.CompilePTX(c.ctx, r.LLVM, c.llcOptions())
		if err != nil {
			return err
		}
		r.PTX = ptx
		s.Size = len(ptx)
		if c.opts.KeepIR {
			s.Output = ptx
		}
		r.Kernels = PTXEntries(ptx)
		return nil
	})
	if !more {
		return err
	}
	if c.opts.NoCubin {
		r.Notes = append(r.Notes, "cubin: skipped, as asked")
		return nil
	}
	path := c.opts.Ptxas
	if path == "" {
		if path, err = llc.FindPtxas(); err != nil {
			if !IsNotFound(err) {
				return &StageError{Stage: StageCubin, Err: err}
			}
			r.Notes = append(r.Notes, "cubin: skipped: ptxas not found (it comes with the CUDA toolkit; registers and shared memory are reported where it runs)")
			return nil
		}
	}
	_, err = c.stage(StageCubin, func(s *StageResult) error {
		cub, err := llc.Assemble(c.ctx, path, r.PTX, c.opts.MCPU)
		if err != nil {
			return err
		}
		r.Cubin = cub
		s.Size = len(cub.Data)
		if c.opts.KeepIR {
			s.Output = cub.Data
		}
		return nil
	})
	return err
}

func (c *driver) llcOptions() llc.Options {
	o := llc.Options{Path: c.opts.LLC, CPU: c.opts.MCPU, OptLevel: c.opts.OptLevel}
	if o.OptLevel == 0 {
		o.OptLevel = llc.DefaultOptLevel
	}
	return o
}

// importGraph parses the graph file, cuts it at the inputs and outputs,
// checks it and imports it into the tfg dialect.
func (c *driver) importGraph(name string, data []byte) error {
	r, o := c.res, c.opts
	var gopts []graphdef.Option
	if len(o.Tags) > 0 {
		gopts = append(gopts, graphdef.WithTags(o.Tags...))
	}
	if o.Signature != "" {
		gopts = append(gopts, graphdef.WithSignature(o.Signature))
	}
	file, err := graphdef.Parse(data, name, gopts...)
	if err != nil {
		return err
	}
	r.Format = file.Format.String()
	g := file.Graph
	r.FileNodes = len(g.GetNode())
	inputs, outputs := o.Inputs, o.Outputs
	if sig := file.Signature; sig != nil && len(inputs) == 0 && len(outputs) == 0 {
		inputs, outputs = sig.InputNames(), sig.OutputNames()
	}
	if len(inputs) > 0 && len(outputs) == 0 {
		return fmt.Errorf("%s: inputs given without outputs (what to compute from them)", name)
	}
	if len(outputs) > 0 {
		if g, err = graphdef.Extract(g, inputs, outputs); err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
	}
	r.Nodes = len(g.GetNode())
	// The structural checks and the import both only read the graph: they
	// run side by side. The checks' errors are the more complete, so they
	// win when both fail.
	var verr error
	checked := make(chan struct{})
	go func() {
		defer close(checked)
		verr = graphdef.Validate(g)
	}()
	r.Context = all.NewContext()
	mod, err := importGraphDef(r.Context, g)
	<-checked
	if verr != nil {
		return fmt.Errorf("%s: %w", name, verr)
	}
	if err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	r.Module = mod
	if !o.NoVerify {
		return textir.Verify(r.Context, mod)
	}
	return nil
}

// importGraphDef is importer.Import (a variable for tests).
var importGraphDef = func(ctx *textir.Context, g *tfpb.GraphDef) (*textir.Operation, error) {
	return importer.Import(ctx, g)
}

// runPass runs one pass of the pipeline through a pass manager, with its
// options, verification, statistics and diagnostics.
func (c *driver) runPass(flag string, s *StageResult) error {
	r := c.res
	s.Before = CountOps(r.Module)
	pm, err := pass.FromSpecs("builtin.module", []pass.PassSpec{{Flag: flag, Options: c.opts.PassOptions[flag]}})
	if err != nil {
		return err
	}
	pm.Config.NoVerify = c.opts.NoVerify
	pm.Config.Diag = func(d *textir.Diagnostic) { r.Diagnostics = append(r.Diagnostics, d) }
	if err := pm.Run(r.Context, r.Module); err != nil {
		return err
	}
	stats := pm.Statistics()[flag]
	for _, n := range slices.Sorted(maps.Keys(stats)) {
		s.Stats = append(s.Stats, Stat{Name: n, Value: stats[n]})
	}
	s.After = CountOps(r.Module)
	return c.keepIR(s)
}

// kernelsFromIR sets Result.Kernels from the gpu.func kernels of the module
// (before the PTX exists).
func (c *driver) kernelsFromIR() {
	r := c.res
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
