package main

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"runtime"
	"strings"
	"sync"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/recom-compiler/recom/backend/llc"
	"github.com/recom-compiler/recom/compiler"
	"github.com/recom-compiler/recom/dialects/emb"
	"github.com/recom-compiler/recom/dialects/fused"
	"github.com/recom-compiler/recom/interp"
	"github.com/recom-compiler/recom/interp/exec"
	"github.com/recom-compiler/recom/interp/npz"
	"github.com/recom-compiler/recom/runtime/cuda"
	"github.com/recom-compiler/recom/runtime/fusedrt"
	"github.com/recom-compiler/recom/textir"
	"github.com/recom-compiler/recom/textir/inputfile"
)

func init() { subcommands = append(subcommands, newRunCmd, newBenchCmd) }

const runHelp = `Compiles MODEL in-process through the compiler's pipeline, as recom compile
does with the same flags (a GraphDef or SavedModel, cut at --outputs when
given, or a .mlir file of any stage; --lower-emb, --simplify-shapes, --fuse,
--fuse-dense) and runs it on the GPU. It writes the outputs to an .npz file.

--runtime=native (the default) runs it in the native runtime
(runtime/session): the program is planned once (tables and weights
uploaded, constants evaluated), then the batch goes from the feeds in host
memory to the outputs in host memory as one CUDA graph: the layer's inputs
packed into pinned memory, one host-to-device copy, the layer kernel, the
dense kernels (--dense=gpu, the default), the row-local ops after them (a
classifier head's sums, bias and softmax: device steps), one copy of the
outputs back; what the compiler left outside the kernels (casts, reshapes)
runs as compiled host steps. The session's summary (each step, where it runs, its
cost) goes to stderr. A program the session cannot plan (an op it has no
native step for, named with its TF node) runs as with --runtime=interp,
and run says why. --runtime=interp keeps the interpreter around the GPU
kernels (runtime/fusedrt: the layer and the dense kernels called from the
interpreter; everything else in the interpreter).

--schedule is --fuse's schedule option ('tuned ids-in-kernel=false' passes
more of its options); the pass flags take every pass's options, as recom
compile's do, and --fuse's given there win over --schedule.

The GPU machine has no llc: make the PTX where llc-19 is with --emit-ptx
FILE (no GPU needed; the PTX records the hash of the LLVM IR it was made
from) and pass it with --ptx FILE on the GPU machine, where the model is
compiled again and the hash checked.

The variables are the model's trained weights when it has them (a
SavedModel directory's variables/ and assets/, or --checkpoint PREFIX with a
GraphDef; --tags and --signature choose a SavedModel's graph), else
--tables (an .npz by variable name, as recom interp; it also replaces the
checkpoint's value of each variable it names), else the interpreter's
deterministic random values from --seed: the GPU gets exactly the values
the interpreter uses, the embedding tables in the layer's table arena and
the MLP's weights in the dense layers.

--check also runs the pure interpreter on the imported model (the import
stage of the same compilation) and fails (exit 1, worst element printed)
unless every output matches (rtol 1e-5, atol 1e-6 with float64-accumulating
dense kernels: --runtime=interp or --dense-backend=generated; rtol 1e-4 with
cuBLASLt at fp32; rtol 3e-2, atol 3e-3 at tf32 and bf16). Without a GPU or
driver: a message and exit 1.`

// runFlags are the flags run and bench share.
type runFlags struct {
	denseBackend, precision                          string // the native runtime\'s dense arithmetic
	runtime                                          string // recom run --runtime
	feeds, tables, out, ptx, emitPTX, schedule, mcpu string
	dense                                            string
	outputs                                          []string
	inputs                                           []string
	seed                                             uint64
	device                                           int
	check                                            bool
	passOpts                                         map[string]*string
	fl                                               *pflag.FlagSet
	model                                            modelFlags
	// keepIR keeps every stage's output in the compiler's result (tests).
	keepIR bool
	// shard are --shard's flags; shardStop makes compileModel stop after
	// --fuse (compileSharded goes on from there).
	shard     shardFlags
	shardStop bool
}

func (f *runFlags) common(fl *pflag.FlagSet) {
	f.fl = fl
	fl.StringVar(&f.tables, "tables", "", "variable values, an .npz (default: the model's checkpoint, else random tables from --seed); replaces the checkpoint's values of the variables it names")
	fl.Uint64Var(&f.seed, "seed", 0, "seed of the random values of variables absent from --tables")
	fl.StringVar(&f.ptx, "ptx", "", "the kernel's PTX, made by --emit-ptx (default: compile with llc-19 now)")
	fl.StringVar(&f.emitPTX, "emit-ptx", "", "compile, write the kernel's PTX to `FILE` and exit (needs llc-19, no GPU)")
	fl.StringVar(&f.schedule, "schedule", "tuned", "kernel design: tuned or recom (--fuse's schedule option; more of its options may follow)")
	fl.StringVar(&f.denseBackend, "dense-backend", "", "the native runtime's dense layers: cublaslt (cuBLASLt's products, loaded from the CUDA toolkit; the default, and the only backend for --precision tf32 and bf16) or generated (--fuse-dense's kernels, float64 accumulation; the fp32 fallback when cuBLASLt cannot be loaded)")
	fl.StringVar(&f.precision, "precision", "", "the dense layers' arithmetic with cuBLASLt: fp32 (TensorFlow's; the default), tf32, or bf16 (weights and activations in bfloat16, fp32 accumulation)")
	fl.StringVar(&f.dense, "dense", "gpu", "where the dense layers run: gpu (--fuse-dense: a kernel per layer, activations kept on the device) or cpu (the interpreter: an ablation)")
	fl.StringVar(&f.mcpu, "mcpu", llc.DefaultCPU, "the target GPU of the PTX (llc's -mcpu)")
	fl.IntVar(&f.device, "device", 0, "the CUDA device ordinal")
	fl.StringSliceVar(&f.outputs, "outputs", nil, "output tensors, comma separated (default: the program's sole sink); the graph is cut at them, as recom compile --outputs does")
	fl.StringSliceVar(&f.inputs, "inputs", nil, "cut the graph at these tensors (node:idx,...; a node alone: all its outputs), fed as placeholders, as recom compile --inputs does (a training graph's IteratorGetNext)")
	f.passOpts = addPassFlags(fl)
	f.model.add(fl)
	f.shard.add(fl)
}

func newRunCmd(stdin io.Reader, stdout, stderr io.Writer) *cobra.Command {
	var f runFlags
	cmd := &cobra.Command{
		Use:   "run MODEL --feeds feeds.npz [--tables T.npz] [--outputs ...] -o out.npz [--check]",
		Short: "compile a model and run it with its embedding layer on the GPU",
		Long:  runHelp,
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runRun(cmd.Context(), args[0], &f, stdout, stderr)
		},
	}
	fl := cmd.Flags()
	f.common(fl)
	fl.StringVar(&f.feeds, "feeds", "", "feeds, an .npz of arrays named by tensor")
	fl.StringVarP(&f.out, "output", "o", "", "output .npz file")
	fl.BoolVar(&f.check, "check", false, "compare with the pure interpreter (rtol 1e-5); exit 1 on mismatch")
	fl.StringVar(&f.runtime, "runtime", runtimeNative, "native (runtime/session: the whole batch as one CUDA graph, no interpreter; falls back to interp, saying why, when the program cannot be planned) or interp (the GPU kernels called from the interpreter)")
	return cmd
}

// model is a compiled model: the compiler's result (the program after its
// last IR stage, its LLVM IR, and its PTX unless it comes from --ptx), the
// outputs to fetch, and the run options.
type model struct {
	path     string
	res      *compiler.Result
	outputs  []string
	llHash   string
	schedule string
	dense    bool // --fuse-dense ran
	compileT time.Duration
	// imported is the import stage's result: the cut's placeholders and
	// the SavedModel's signature (its Module is compiled further in place).
	imported *compiler.Result
	// weights are the model's checkpoint and assets (nil without).
	weights *compiler.Weights
}

// options returns the compiler's options for run's and bench's flags: the
// pass flags, --schedule as --fuse's schedule option (the --fuse flag's
// own options after it, so they win), --dense, --mcpu, the cut at
// --outputs; the stages end after stopAfter.
func (f *runFlags) options(stopAfter string) (compiler.Options, error) {
	opts := compiler.Options{Inputs: f.inputs, Outputs: f.outputs, MCPU: f.mcpu, NoCubin: true, StopAfter: stopAfter, KeepIR: f.keepIR}
	var err error
	if opts.Dense, err = denseOnGPU(f.dense); err != nil {
		return opts, err
	}
	opts.PassOptions = changedPassOptions(f.fl, f.passOpts)
	if opts.PassOptions == nil {
		opts.PassOptions = map[string]string{}
	}
	fuse := "schedule=" + f.schedule
	if o := opts.PassOptions[compiler.StageFuse]; o != "" {
		fuse += " " + o
	}
	opts.PassOptions[compiler.StageFuse] = fuse
	return opts, opts.CheckOptions()
}

// compileModel compiles the model at path through the compiler, up to the
// PTX (to the LLVM IR when the PTX comes from --ptx). The import runs on
// its own first, so that the outputs default to the imported program's
// (its sole sink, or recom gen's prediction and input_layer/concat);
// the compilation then goes on from the imported module.
func (f *runFlags) compileModel(ctx context.Context, path string) (*model, error) {
	stop := compiler.StagePTX
	if f.ptx != "" {
		stop = compiler.StageLLVM
	}
	if f.shardStop {
		stop = compiler.StageFuse
	}
	opts, err := f.options(stop)
	if err != nil {
		return nil, err
	}
	if f.shardStop {
		opts.Dense = false
	}
	t0 := time.Now()
	imp := opts
	imp.StopAfter = compiler.StageImport
	imp.ReadWeights = true
	f.model.apply(&imp)
	if strings.HasSuffix(path, ".mlir") {
		// IR is past any cut (a 0-tfg.mlir of a graph cut at its inputs):
		// --outputs only name what to fetch.
		imp.Inputs, imp.Outputs = nil, nil
	}
	first, err := compiler.Compile(ctx, path, imp)
	if err != nil {
		return nil, err
	}
	m := &model{path: path, schedule: f.schedule, dense: opts.Dense, outputs: f.outputs, imported: first, weights: first.Weights}
	if len(m.outputs) == 0 && len(first.Outputs) > 0 && !strings.HasSuffix(path, ".mlir") {
		// A SavedModel cut at its signature: the signature's outputs.
		m.outputs = first.Outputs
	}
	if len(m.outputs) == 0 {
		if m.outputs, err = defaultOutputs(first.Module); err != nil {
			return nil, err
		}
	}
	opts.Outputs, opts.Inputs = nil, nil // cut already
	m.res, err = compiler.CompileModule(ctx, path, first.Context, first.Module, opts)
	m.res.Stages = append(first.Stages, m.res.Stages...)
	if err != nil {
		if errors.Is(err, llc.ErrNotFound) {
			return nil, fmt.Errorf("%w; make the PTX elsewhere with --emit-ptx and pass it with --ptx", err)
		}
		return nil, err
	}
	n := 0
	m.res.Module.Walk(func(op *textir.Operation) bool {
		if op.Name() == fused.EmbeddingLayerOp {
			n++
		}
		return true
	})
	if n == 0 {
		return nil, fmt.Errorf("%s: --fuse made no fused.embedding_layer (no embedding layer found)", path)
	}
	m.setHash()
	m.compileT = time.Since(t0)
	return m, nil
}

// setHash records the hash of the LLVM IR that --emit-ptx stamps on the
// PTX and --ptx checks.
func (m *model) setHash() {
	h := sha256.Sum256(m.res.LLVM)
	m.llHash = hex.EncodeToString(h[:])
}

// The outputs recom gen's models have: the prediction, and the embedding
// layer's output (which the default outputs add for checks).
const (
	genPrediction  = "prediction"
	genLayerOutput = "input_layer/concat"
)

// defaultOutputs are the outputs of a program when none are given: its
// sole sink, or else those of recom gen's models that it has (the
// prediction and the layer's output).
func defaultOutputs(root *textir.Operation) ([]string, error) {
	sink, err := soleSink(root)
	if err == nil {
		return []string{sink}, nil
	}
	have := map[string]bool{}
	root.Walk(func(op *textir.Operation) bool {
		have[exec.OpName(op)] = true
		return true
	})
	var outs []string
	for _, n := range []string{genPrediction, genLayerOutput} {
		if have[n] {
			outs = append(outs, n)
		}
	}
	if len(outs) == 0 {
		return nil, err
	}
	return outs, nil
}

const ptxHashPrefix = "// recom: llvm-ir sha256 "

// stampedPTX is the compiled PTX with the hash of the LLVM IR it was made
// from on its first line.
func (m *model) stampedPTX() []byte {
	return append([]byte(ptxHashPrefix+m.llHash+"\n"), m.res.PTX...)
}

// ptx returns the kernel's PTX: read from file (checking that it was made
// from this compilation) or the compilation's.
func (m *model) ptx(file string) ([]byte, error) {
	if file == "" {
		return m.stampedPTX(), nil
	}
	ptx, err := inputfile.Read(file)
	if err != nil {
		return nil, err
	}
	if first, _, ok := strings.Cut(string(ptx), "\n"); ok && strings.HasPrefix(first, ptxHashPrefix) {
		if got := strings.TrimPrefix(first, ptxHashPrefix); got != m.llHash {
			return nil, fmt.Errorf("%s was made from another compilation (LLVM IR sha256 %.12s…, this model with schedule=%s gives %.12s…)", file, got, m.schedule, m.llHash)
		}
	}
	return ptx, nil
}

// runOptions returns the interpreter options for the model's weights w
// (nil: none) and tables (or random tables from seed).
func runOptions(tables string, seed uint64, w *compiler.Weights) (*exec.Options, error) {
	opts := &exec.Options{RandomTables: true, Seed: seed, Tables: map[string]exec.TableData{}, Variables: map[string]*interp.Tensor{}}
	if tables != "" {
		if err := readTables(tables, opts); err != nil {
			return nil, err
		}
		opts.RandomTables = false
	}
	useWeights(opts, w)
	return opts, nil
}

// materializeTables gives every random emb.table of root its value once,
// in parallel, so that repeated runs do not draw the tables again (the
// values are the interpreter's: exec.RandomTensor's, by variable name;
// a partitioned table's shards by theirs).
func materializeTables(root *textir.Operation, opts *exec.Options) error {
	if !opts.RandomTables {
		return nil
	}
	type job struct {
		name  string
		shape []int64
	}
	var jobs []job
	seen := map[string]bool{}
	root.Walk(func(op *textir.Operation) bool {
		if op.Name() != emb.TableOp || op.LookupAttr(emb.AttrValue) != nil {
			return true
		}
		name, ok := op.LookupAttr(emb.AttrName).(textir.StringAttr)
		tt, ok2 := op.Result(0).Type().(*textir.TensorType)
		if !ok || !ok2 || !tt.HasStaticShape() || tt.Elem != textir.F32() {
			return true
		}
		// A partitioned table reads its shards' variables.
		parts, _ := emb.Partitions(op)
		if parts == nil {
			parts = []emb.TablePart{{Name: name.Value, Rows: tt.Shape[0]}}
		}
		for _, p := range parts {
			if _, given := opts.Variables[p.Name]; given || seen[p.Name] {
				continue
			}
			seen[p.Name] = true
			jobs = append(jobs, job{p.Name, []int64{p.Rows, tt.Shape[1]}})
		}
		return true
	})
	vals := make([]*interp.Tensor, len(jobs))
	errs := make([]error, len(jobs))
	var wg sync.WaitGroup
	next := make(chan int)
	for range runtime.GOMAXPROCS(0) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				vals[i], errs[i] = exec.RandomTensor(interp.Float32, jobs[i].shape, opts.Seed, jobs[i].name)
			}
		}()
	}
	for i := range jobs {
		next <- i
	}
	close(next)
	wg.Wait()
	for i, j := range jobs {
		if errs[i] != nil {
			return fmt.Errorf("table %q: %w", j.name, errs[i])
		}
		opts.Variables[j.name] = vals[i]
	}
	return nil
}

// readFeeds reads an .npz of feeds named by tensor.
func readFeeds(path string) (map[string]*interp.Tensor, error) {
	feeds := map[string]*interp.Tensor{}
	if path == "" {
		return feeds, nil
	}
	arrays, err := npz.ReadFile(path)
	if err != nil {
		return nil, err
	}
	for _, a := range arrays {
		feeds[tensorName(a.Name)] = a.Tensor
	}
	return feeds, nil
}

// gpuSession is an open device with the model's kernel loaded.
type gpuSession struct {
	drv   *cuda.Driver
	c     *cuda.Context
	rt    *fusedrt.Runtime
	dense *fusedrt.Dense
}

func openGPU(device int, ptx []byte) (*gpuSession, error) {
	drv, err := cuda.Open()
	if err != nil {
		if errors.Is(err, cuda.ErrNoDriver) {
			return nil, fmt.Errorf("recom run and recom bench need an NVIDIA GPU and its driver: %w", err)
		}
		return nil, err
	}
	n, err := drv.DeviceCount()
	if err != nil {
		return nil, err
	}
	if n == 0 {
		return nil, errors.New("no CUDA device: recom run and recom bench need an NVIDIA GPU")
	}
	c, err := drv.NewContext(device)
	if err != nil {
		return nil, err
	}
	rt, err := fusedrt.New(c, ptx)
	if err != nil {
		c.Close()
		return nil, err
	}
	return &gpuSession{drv: drv, c: c, rt: rt, dense: fusedrt.NewDense(rt)}, nil
}

// install makes runs with opts use the GPU: the embedding layer, and the
// dense layers when --fuse-dense ran (outputs copied back only where
// fetched or read on the CPU).
func (g *gpuSession) install(m *model, opts *exec.Options) {
	g.rt.Install(opts)
	if m.dense {
		g.dense.Fetch = map[string]bool{}
		for _, o := range m.outputs {
			n, _, _ := strings.Cut(o, ":")
			g.dense.Fetch[n] = true
		}
		g.dense.Install(opts)
	}
}

// denseSummary describes the dense layers' GPU work ("" without any).
func (g *gpuSession) denseSummary() (launches int, text string) {
	ls := g.dense.Layers()
	if len(ls) == 0 {
		return 0, ""
	}
	for _, l := range ls {
		launches += l.Launches
	}
	d := g.dense
	return launches, fmt.Sprintf("; %d dense layers on the GPU (%d activation copies up, %d down, %d kept on the device, %d not copied back)",
		len(ls), d.Up, d.Down, d.Kept, d.Skipped)
}

// timeDense times the dense part (a CUDA graph of the last run's dense
// launches) and prints it, when dense layers ran.
func timeDense(g *gpuSession, warmup, iters int, stdout io.Writer) error {
	n, _ := g.denseSummary()
	if n == 0 {
		return nil
	}
	med, lo, err := g.dense.Time(warmup, iters)
	if err != nil {
		return fmt.Errorf("timing the dense layers: %w", err)
	}
	fmt.Fprintf(stdout, "dense layers: %d kernels in one CUDA graph: median %.1f µs, min %.1f µs\n",
		len(g.dense.Layers()), float64(med.Nanoseconds())/1e3, float64(lo.Nanoseconds())/1e3)
	return nil
}

func (g *gpuSession) close() {
	g.dense.Close()
	g.rt.Close()
	g.c.Close()
}

// emitPTX writes the compiled model's PTX to --emit-ptx: no GPU and no
// CUDA driver are needed (run and bench both take the flag).
func emitPTX(m *model, f *runFlags, stdout io.Writer) error {
	ptx := m.stampedPTX()
	if err := writeOutput(f.emitPTX, ptx); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "wrote %s (%d bytes of PTX, schedule=%s, LLVM IR sha256 %.12s…)\n", f.emitPTX, len(ptx), f.schedule, m.llHash)
	return nil
}

func runRun(ctx context.Context, path string, f *runFlags, stdout, stderr io.Writer) error {
	if ctx == nil {
		ctx = context.Background()
	}
	if f.out == "" && f.emitPTX == "" {
		return errors.New("run: -o is required")
	}
	if f.runtime != runtimeNative && f.runtime != runtimeInterp {
		return fmt.Errorf("--runtime must be %s or %s, got %q", runtimeNative, runtimeInterp, f.runtime)
	}
	if f.shard.on() {
		return runSharded(ctx, path, f, stdout, stderr)
	}
	m, err := f.compileModel(ctx, path)
	if err != nil {
		return err
	}
	if f.emitPTX != "" {
		return emitPTX(m, f, stdout)
	}
	ptx, err := m.ptx(f.ptx)
	if err != nil {
		return err
	}
	feeds, err := readFeeds(f.feeds)
	if err != nil {
		return err
	}
	opts, err := runOptions(f.tables, f.seed, m.weights)
	if err != nil {
		return err
	}
	fmt.Fprintf(stderr, "recom run: %s\n", weightsNote(m.weights, f.tables))
	if err := materializeTables(m.res.Module, opts); err != nil {
		return err
	}
	switch f.runtime {
	case runtimeNative:
		got, fallback, err := f.runNative(ctx, m, ptx, feeds, opts, stderr)
		if err != nil {
			return err
		}
		if fallback == nil {
			if err := writeOutputs(f.out, m.outputs, got); err != nil {
				return err
			}
			fmt.Fprintf(stderr, "recom run: wrote %s\n", f.out)
			if !f.check {
				return nil
			}
			return checkAgainstInterp(ctx, m, feeds, f, got, stdout)
		}
		fmt.Fprintf(stderr, "recom run: the native runtime cannot run %s (%v); running it with the interpreter around the GPU kernels\n", path, fallback)
	}
	g, err := openGPU(f.device, ptx)
	if err != nil {
		return err
	}
	defer g.close()
	g.install(m, opts)
	t0 := time.Now()
	got, err := exec.Run(ctx, m.res.Module, feeds, m.outputs, opts)
	if err != nil {
		return err
	}
	tRun := time.Since(t0)
	if err := writeOutputs(f.out, m.outputs, got); err != nil {
		return err
	}
	launches := 0
	for _, l := range g.rt.Layers() {
		launches += l.Launches
	}
	dl, dense := g.denseSummary()
	fmt.Fprintf(stderr, "recom run: %s: compiled in %.2f s (schedule=%s); ran in %.2f s on %v with %d GPU launch(es)%s; wrote %s\n",
		path, m.compileT.Seconds(), f.schedule, tRun.Seconds(), g.c.Device(), launches+dl, dense, f.out)
	if !f.check {
		return nil
	}
	return checkAgainstInterp(ctx, m, feeds, f, got, stdout)
}

// checkAgainstInterp runs the pure interpreter on the imported model (the
// import stage of the same compilation: the same cut, the same weights)
// and compares its outputs with got.
func checkAgainstInterp(ctx context.Context, m *model, feeds map[string]*interp.Tensor, f *runFlags, got map[string]*interp.Tensor, stdout io.Writer) error {
	outputs := m.outputs
	ropts := compiler.Options{Inputs: f.inputs, Outputs: f.outputs, StopAfter: compiler.StageImport, Tags: f.model.tags, Signature: f.model.signature, NoWeights: true}
	if strings.HasSuffix(m.path, ".mlir") {
		ropts.Inputs, ropts.Outputs = nil, nil
	}
	ref, err := compiler.Compile(ctx, m.path, ropts)
	if err != nil {
		return err
	}
	opts, err := runOptions(f.tables, f.seed, m.weights)
	if err != nil {
		return err
	}
	t0 := time.Now()
	want, err := exec.Run(ctx, ref.Module, feeds, outputs, opts)
	if err != nil {
		return fmt.Errorf("reference interpreter: %w", err)
	}
	rtol, atol := f.checkTolerance()
	bad := 0
	elems := 0
	for _, o := range outputs {
		x, y := got[o], want[o]
		elems += y.Len()
		if err := x.AllClose(y, rtol, atol); err != nil {
			bad++
			var me *interp.MismatchError
			if errors.As(err, &me) && me.Reason == "value" {
				fmt.Fprintf(stdout, "check: %s: %d of %d elements differ; worst at index %s: gpu = %s, interpreter = %s\n",
					o, me.Count, y.Len(), interp.ShapeString(me.Index), me.Got, me.Want)
			} else {
				fmt.Fprintf(stdout, "check: %s: %v\n", o, err)
			}
		}
	}
	if bad > 0 {
		fmt.Fprintf(stdout, "check: FAIL: %d of %d outputs differ from the interpreter (rtol %g, atol %g)\n", bad, len(outputs), rtol, atol)
		return exitError(1)
	}
	fmt.Fprintf(stdout, "check: PASS: %d outputs, %d elements match the interpreter (rtol %g, atol %g; reference %.2f s)\n", len(outputs), elems, rtol, atol, time.Since(t0).Seconds())
	return nil
}

// writeOutputs writes the named outputs of got to the .npz file path.
func writeOutputs(path string, names []string, got map[string]*interp.Tensor) error {
	var arrays []npz.Array
	for _, o := range names {
		if t, ok := got[o]; ok {
			arrays = append(arrays, npz.Array{Name: o, Tensor: t})
		}
	}
	return writeNPZFile(path, arrays)
}
