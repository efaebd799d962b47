// Command recom-translate converts between TensorFlow graphs and recom's
// textual IR, as mlir-translate does for MLIR:
//
//	recom-translate --import-graphdef [--inputs=a:0,b] [--outputs=x,y:1] [--dynamic-batch[=auto|true|false]] [--tags=serve] [--signature=NAME] FILE -o out.mlir
//	recom-translate --export-graphdef [--binary] FILE.mlir -o out.pbtxt
//	recom-translate --emit-llvm FILE.mlir -o out.ll
//	recom-translate --emit-ptx [--mcpu=sm_90] FILE.mlir -o out.ptx
//
// FILE is a binary or text GraphDef or a SavedModel (saved_model.pb); the
// format is read from the content. With --inputs/--outputs only the
// inference subgraph that computes the outputs from the inputs is imported
// (an input that names a node alone stands for all its outputs); the
// placeholders of a queue's or an iterator's batches get an unknown batch
// dimension (--dynamic-batch forces it on every placeholder, or off). A
// graph that still holds parts of training (gradients, optimizers, savers,
// iterators, queues, summaries) is imported with a warning that says what
// it holds and lists the candidate inputs and outputs to cut it at.
//
// --emit-llvm emits the gpu.module ops of FILE.mlir as NVPTX LLVM IR
// (backend/nvptx; the host program is not emitted); --emit-ptx also runs
// llc-19 -march=nvptx64 -mcpu=sm_90 -O3 on it and writes the PTX.
package main

import (
	"context"
	"errors"
	"fmt"
	"github.com/recom-compiler/recom/cmd/internal/memlimit"
	"io"
	"os"
	"runtime"
	"runtime/debug"
	"strings"

	"github.com/spf13/cobra"
	"google.golang.org/protobuf/proto"

	"github.com/recom-compiler/recom/backend/llc"
	"github.com/recom-compiler/recom/backend/nvptx"
	"github.com/recom-compiler/recom/cmd/internal/outfile"
	"github.com/recom-compiler/recom/cmd/internal/toolflag"
	"github.com/recom-compiler/recom/dialects/all"
	"github.com/recom-compiler/recom/dialects/emb"
	"github.com/recom-compiler/recom/dialects/gpu"
	"github.com/recom-compiler/recom/frontend/checkpoint"
	"github.com/recom-compiler/recom/frontend/graphdef"
	"github.com/recom-compiler/recom/frontend/graphdef/tfpb"
	"github.com/recom-compiler/recom/frontend/importer"
	"github.com/recom-compiler/recom/textir"
	"github.com/recom-compiler/recom/textir/inputfile"
)

func main() {
	memlimit.Init() // a soft heap limit under `ulimit -v`
	// SIGINT and SIGTERM remove the unfinished output and end the tool
	// with 130 and 143.
	ctx, stop := outfile.HandleSignals(context.Background(), "recom-translate", os.Stderr)
	status := runContext(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	stop()
	os.Exit(status)
}

type options struct {
	// savedModelDir is the SavedModel directory given as the input (its
	// graph file is read, its assets bound).
	savedModelDir  string
	importGraphDef bool
	exportGraphDef bool
	emitLLVM       bool
	emitPTX        bool
	mcpu           string
	inputs         []string
	outputs        []string
	dynamicBatch   string
	tags           []string
	signature      string
	binary         bool
	output         string
	generic        bool
	debugInfo      bool
	allowUnreg     bool
	stderr         io.Writer // warnings
	localScope     bool
	elideLimit     int64
	elide          bool
	noThreads      bool
	sources        textir.SourceMgr // the input, for diagnostics' source lines
}

type exitError int

func (e exitError) Error() string { return fmt.Sprintf("exit status %d", int(e)) }

// run is the whole tool, callable in-process by tests; it returns the exit
// status.
func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	return runContext(context.Background(), args, stdin, stdout, stderr)
}

func runContext(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) (status int) {
	defer func() {
		if r := recover(); r != nil {
			fmt.Fprintf(stderr, "recom-translate: error: internal error: %v\n%s", r, debug.Stack())
			status = 2
		}
	}()
	o := options{stderr: stderr}
	cmd := &cobra.Command{
		Use:           "recom-translate (--import-graphdef | --export-graphdef | --emit-llvm | --emit-ptx) [flags] FILE",
		Short:         "convert between TensorFlow graphs and recom's textual IR; emit gpu modules as NVPTX LLVM IR or PTX",
		Args:          cobra.MaximumNArgs(1),
		SilenceErrors: true,
		SilenceUsage:  true,
		Version:       toolflag.Version("recom-translate"),
		RunE: func(cmd *cobra.Command, args []string) error {
			input := "-"
			if len(args) == 1 {
				input = args[0]
			}
			o.elide = cmd.Flags().Changed("mlir-elide-elementsattrs-if-larger")
			if o.elide && o.elideLimit < 0 {
				fmt.Fprintf(stderr, "recom-translate: error: --mlir-elide-elementsattrs-if-larger=%d: want a count of elements, 0 or more\n", o.elideLimit)
				return exitError(1)
			}
			if o.noThreads {
				runtime.GOMAXPROCS(1)
			}
			if err := o.run(cmd.Context(), input, stdin, stdout); err != nil {
				fmt.Fprintln(stderr, o.sources.FormatError(err))
				return exitError(1)
			}
			return nil
		},
	}
	cmd.SetVersionTemplate("{{.Version}}")
	cmd.SetOut(stdout)
	cmd.SetErr(stderr)
	f := cmd.Flags()
	f.BoolVar(&o.importGraphDef, "import-graphdef", false, "import a GraphDef or SavedModel (saved_model.pb, or the directory: its assets are bound) into the tfg dialect")
	f.BoolVar(&o.exportGraphDef, "export-graphdef", false, "export the tfg dialect back to a GraphDef")
	f.BoolVar(&o.emitLLVM, "emit-llvm", false, "emit the gpu.module ops as NVPTX LLVM IR (.ll)")
	f.BoolVar(&o.emitPTX, "emit-ptx", false, "emit the gpu.module ops as PTX (NVPTX LLVM IR through llc-19)")
	f.StringVar(&o.mcpu, "mcpu", llc.DefaultCPU, "with --emit-ptx: the target GPU (llc's -mcpu)")
	f.StringSliceVar(&o.inputs, "inputs", nil, "with --import-graphdef: tensors fed at inference (`node:idx,...`; a node alone: all its outputs), made placeholders")
	f.StringVar(&o.dynamicBatch, "dynamic-batch", "auto", "with --import-graphdef: give the placeholders of the cut an unknown batch (dimension 0): auto (those of a queue's DequeueMany or an iterator's GetNext), true (all; a bare --dynamic-batch) or false (none)")
	f.Lookup("dynamic-batch").NoOptDefVal = "true"
	f.StringSliceVar(&o.outputs, "outputs", nil, "with --import-graphdef: tensors to compute (`node:idx,...`); the rest is pruned")
	f.StringSliceVar(&o.tags, "tags", []string{"serve"}, "SavedModel: the MetaGraph's `tags`")
	f.StringVar(&o.signature, "signature", "", "SavedModel: the SignatureDef whose inputs/outputs to use (default serving_default if present)")
	f.BoolVar(&o.binary, "binary", false, "with --export-graphdef: write the binary protobuf instead of text")
	f.StringVarP(&o.output, "output", "o", "-", "write the output to `FILE` (atomically; - is stdout)")
	f.BoolVar(&o.generic, "mlir-print-op-generic", false, "print every op in the generic form")
	f.BoolVar(&o.debugInfo, "mlir-print-debuginfo", false, "print locations")
	f.BoolVar(&o.allowUnreg, "allow-unregistered-dialect", false, "accept ops of dialects that are not registered")
	f.BoolVar(&o.localScope, "mlir-print-local-scope", false, "accepted for mlir-translate's command lines: the output is the same (recom prints no aliases and locations inline)")
	f.Int64Var(&o.elideLimit, "mlir-elide-elementsattrs-if-larger", 0, "print dense elements attributes with more than `N` elements (not splats) as dense_resource<__elided__>")
	f.BoolVar(&o.noThreads, "mlir-disable-threading", false, "run on one OS thread at a time (GOMAXPROCS=1): --import-graphdef then decodes a large text GraphDef on one core")
	f.Bool("version", false, "print the version (with the VCS revision it was built from) and exit")
	// -import-graphdef as mlir-translate's RUN lines write it is --import-graphdef.
	cmd.SetArgs(toolflag.DoubleDash(f, args))
	err := cmd.ExecuteContext(ctx)
	var code exitError
	switch {
	case err == nil:
		return 0
	case errors.As(err, &code):
		return int(code)
	}
	fmt.Fprintf(stderr, "recom-translate: error: %v\nSee 'recom-translate --help'.\n", err)
	return 1
}

// printOptions are the printing flags as the printer takes them.
func (o *options) printOptions() textir.PrintOptions {
	return textir.PrintOptions{Generic: o.generic, DebugInfo: o.debugInfo, LocalScope: o.localScope,
		ElideLargeElements: o.elide, ElideElementsLimit: o.elideLimit}
}

func (o *options) run(ctx context.Context, input string, stdin io.Reader, stdout io.Writer) error {
	modes := 0
	for _, on := range []bool{o.importGraphDef, o.exportGraphDef, o.emitLLVM, o.emitPTX} {
		if on {
			modes++
		}
	}
	if modes != 1 {
		return errors.New("recom-translate: error: give exactly one of --import-graphdef and --export-graphdef, or one of --emit-llvm and --emit-ptx")
	}
	if o.emitPTX {
		if err := llc.CheckCPU(o.mcpu); err != nil {
			return fmt.Errorf("recom-translate: error: --mcpu: %v", err)
		}
	}
	if st, err := os.Stat(input); o.importGraphDef && input != "-" && err == nil && st.IsDir() {
		// A SavedModel directory: its graph file, with its assets bound
		// to the graph as recom compile binds them.
		graph, err := checkpoint.GraphFile(input)
		if err != nil {
			return fmt.Errorf("recom-translate: error: %v", err)
		}
		o.savedModelDir, input = input, graph
	}
	data, err := readInput(input, stdin)
	if err != nil {
		return fmt.Errorf("recom-translate: error: %v", err)
	}
	if !o.importGraphDef {
		name := input
		if name == "-" {
			name = "<stdin>"
		}
		o.sources.Add(name, string(data))
	}
	tctx := all.NewContext()
	tctx.AllowUnregistered = o.allowUnreg
	switch {
	case o.importGraphDef:
		return o.importGraph(tctx, input, data, stdout)
	case o.emitLLVM, o.emitPTX:
		return o.emitDevice(ctx, tctx, input, data, stdout)
	}
	return o.exportGraph(tctx, input, data, stdout)
}

// emitDevice writes the gpu.module ops of the input as NVPTX LLVM IR, or
// as PTX through llc-19.
func (o *options) emitDevice(ctx context.Context, tctx *textir.Context, input string, data []byte, stdout io.Writer) error {
	module, err := textir.Parse(tctx, input, data)
	if err != nil {
		return err
	}
	if err := textir.Verify(tctx, module); err != nil {
		return err
	}
	// llc turns an empty module into an empty PTX file without a word; say
	// instead that there is nothing to emit.
	hasKernel := false
	module.Walk(func(op *textir.Operation) bool {
		if op.Name() == gpu.FuncOp && gpu.IsKernel(op) {
			hasKernel = true
		}
		return !hasKernel
	})
	if !hasKernel {
		return noKernel(module)
	}
	ll, err := nvptx.EmitText(module)
	if err != nil {
		return err
	}
	out := []byte(ll)
	if o.emitPTX {
		out, err = llc.CompilePTX(ctx, out, llc.Options{CPU: o.mcpu, OptLevel: llc.DefaultOptLevel})
		if err != nil {
			return fmt.Errorf("recom-translate: error: %v", err)
		}
	}
	f, err := outfile.Create(o.output, stdout)
	if err != nil {
		return fmt.Errorf("recom-translate: error: %v", err)
	}
	defer f.Abort()
	f.Write(out)
	if err := f.Commit(); err != nil {
		return fmt.Errorf("recom-translate: error: %v", err)
	}
	return nil
}

// readInput reads FILE or stdin ("-"), with inputfile's bound on its size.
func readInput(input string, stdin io.Reader) ([]byte, error) {
	if input == "-" {
		return inputfile.ReadFrom(stdin, "<stdin>")
	}
	return inputfile.Read(input)
}

func (o *options) importGraph(ctx *textir.Context, input string, data []byte, stdout io.Writer) error {
	var opts []graphdef.Option
	if len(o.tags) > 0 {
		opts = append(opts, graphdef.WithTags(o.tags...))
	}
	if o.signature != "" {
		opts = append(opts, graphdef.WithSignature(o.signature))
	}
	file, err := graphdef.Parse(data, input, opts...)
	if err != nil {
		return locatedErr(input, err)
	}
	if o.savedModelDir != "" {
		if file.MetaGraph == nil {
			return fmt.Errorf("%s: error: the SavedModel directory's graph file holds a GraphDef, not a SavedModel", input)
		}
		assets, err := checkpoint.Assets(o.savedModelDir, file.MetaGraph)
		if err == nil {
			err = checkpoint.BindAssets(file.Graph, assets)
		}
		if err != nil {
			return fmt.Errorf("recom-translate: error: %v", err)
		}
	}
	g, err := graphdef.Inline(file.Graph)
	if err != nil {
		return fmt.Errorf("%s: error: inlining function calls: %s", input, indentErr(err))
	}
	inputs, outputs := o.inputs, o.outputs
	if len(inputs) == 0 && len(outputs) == 0 {
		if sig := file.Signature; sig != nil {
			inputs, outputs = sig.InputNames(), sig.OutputNames()
		} else if err := file.NoSignatureError(); err != nil {
			return fmt.Errorf("%s: error: %v", input, strings.TrimPrefix(err.Error(), input+": "))
		}
	}
	if len(inputs) > 0 && len(outputs) == 0 {
		return fmt.Errorf("%s: error: --inputs needs --outputs (what to compute from them)", input)
	}
	batch, err := graphdef.ParseBatchMode(o.dynamicBatch)
	if err != nil {
		return fmt.Errorf("recom-translate: error: --dynamic-batch=%v", err)
	}
	if len(outputs) > 0 {
		x, err := graphdef.ExtractWith(g, inputs, outputs, graphdef.ExtractOptions{Batch: batch})
		if err != nil {
			if errors.Is(err, graphdef.ErrNotInference) {
				o.warnTraining(input, file.Graph, file.Graph)
			}
			return fmt.Errorf("%s: error: %s", input, indentErr(err))
		}
		g = x
	}
	o.warnTraining(input, g, file.Graph)
	// The structural checks with the import, on one index of the graph
	// (as recom compile imports); their errors win when both fail. The
	// graph is not read after it, so each node's attributes may go once
	// converted.
	module, err := importer.ImportWith(ctx, g, importer.Options{Check: true, Consume: true})
	if err != nil {
		return fmt.Errorf("%s: error: %s", input, indentErr(err))
	}
	if err := textir.Verify(ctx, module); err != nil {
		return err
	}
	out, err := outfile.Create(o.output, stdout)
	if err != nil {
		return fmt.Errorf("recom-translate: error: %v", err)
	}
	defer out.Abort()
	textir.Print(out, module, o.printOptions())
	if err := out.Commit(); err != nil {
		return fmt.Errorf("recom-translate: error: %v", err)
	}
	return nil
}

// warnTraining warns on stderr when graph g, the graph of file or a cut of
// it, holds parts of training: what it holds, and where to cut file for
// inference (graphdef.AnalyzeCut).
func (o *options) warnTraining(input string, g, file *tfpb.GraphDef) {
	rep := graphdef.AnalyzeCut(g, file)
	if !rep.Found() {
		return
	}
	msg, notes := rep.Warning()
	fmt.Fprintf(o.stderr, "%s: warning: %s\n", input, msg)
	for _, n := range notes {
		fmt.Fprintf(o.stderr, "%s: note: %s\n", input, n)
	}
}

func (o *options) exportGraph(ctx *textir.Context, input string, data []byte, stdout io.Writer) error {
	module, err := textir.Parse(ctx, input, data)
	if err != nil {
		return err
	}
	if err := textir.Verify(ctx, module); err != nil {
		return err
	}
	g, err := importer.Export(ctx, module)
	if err != nil {
		return err
	}
	var raw []byte
	if o.binary {
		raw, err = proto.MarshalOptions{Deterministic: true}.Marshal(g)
		if err != nil {
			return fmt.Errorf("recom-translate: error: %v", err)
		}
	} else {
		raw = graphdef.MarshalText(g)
	}
	out, err := outfile.Create(o.output, stdout)
	if err != nil {
		return fmt.Errorf("recom-translate: error: %v", err)
	}
	defer out.Abort()
	out.Write(raw)
	if err := out.Commit(); err != nil {
		return fmt.Errorf("recom-translate: error: %v", err)
	}
	return nil
}

// indentErr puts each of a joined error's lines on its own indented line.
func indentErr(err error) string {
	return strings.ReplaceAll(err.Error(), "\n", "\n  ")
}

// locatedErr formats a parse error as "FILE[:LINE:COL]: error: MSG" when the
// error already begins with the file name (and maybe a position), else as
// "FILE: error: MSG".
func locatedErr(input string, err error) error {
	msg := err.Error()
	rest, ok := strings.CutPrefix(msg, input+":")
	if !ok {
		return fmt.Errorf("%s: error: %s", input, msg)
	}
	loc := input
	for range 2 { // an optional line:col
		i := 0
		for i < len(rest) && rest[i] >= '0' && rest[i] <= '9' {
			i++
		}
		if i == 0 || i == len(rest) || rest[i] != ':' {
			break
		}
		loc += ":" + rest[:i]
		rest = rest[i+1:]
	}
	return fmt.Errorf("%s: error: %s", loc, strings.TrimSpace(rest))
}

// noKernel says why a module has no gpu kernel to emit: what it holds
// instead, and which pass would make a kernel of it.
func noKernel(module *textir.Operation) error {
	lookups, tfgOps, layers := 0, 0, 0
	module.Walk(func(op *textir.Operation) bool {
		switch op.Name() {
		case emb.LookupOp, emb.GatherOp, emb.GatherScatterOp:
			lookups++
		case "fused.embedding_layer", "fused.dense":
			layers++
		}
		if op.Dialect() == "tfg" {
			tfgOps++
		}
		return true
	})
	why := "it has no gpu.module with a gpu.func ... kernel"
	switch {
	case layers > 0:
		why = fmt.Sprintf("its %d fused layer%s name kernels that are not in it", layers, plural(layers))
	case lookups == 1:
		why = "1 embedding lookup is not fused into a kernel: run --fuse (its remarks say why a lookup is left)"
	case lookups > 1:
		why = fmt.Sprintf("%d embedding lookups are not fused into a kernel: run --fuse (its remarks say why a lookup is left)", lookups)
	case tfgOps > 0:
		why = "it has no embedding lookups for --fuse to make a kernel of (tfg ops only: --lower-emb finds the embedding columns)"
	}
	return textir.Errorf(module.DiagLoc(), "no gpu kernel to emit: %s", why)
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}
