package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"runtime/pprof"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/recom-compiler/recom/cmd/internal/outfile"
	"github.com/recom-compiler/recom/cmd/internal/toolflag"
	"github.com/recom-compiler/recom/compiler"
	"github.com/recom-compiler/recom/frontend/gen"
	"github.com/recom-compiler/recom/interp"
	"github.com/recom-compiler/recom/interp/exec"
	"github.com/recom-compiler/recom/runtime/cuda"
	"github.com/recom-compiler/recom/runtime/hostpack"
	"github.com/recom-compiler/recom/runtime/session"
	"github.com/recom-compiler/recom/serve"
	"github.com/recom-compiler/recom/textir"
)

func init() { subcommands = append(subcommands, newServeCmd) }

const serveHelp = `Serves MODEL (a GraphDef, saved_model.pb or SavedModel directory, cut at
--outputs as recom run does; variables from --tables or random from --seed)
over the protocols model servers speak:

  TensorFlow Serving's REST API (--http-addr):
    POST /v1/models/NAME[/versions/N]:predict   {"instances": [...]} or {"inputs": {...}}
    GET  /v1/models/NAME[/versions/N]           status
    GET  /v1/models/NAME[/versions/N]/metadata  the signature
  the Open Inference Protocol (KServe V2) over HTTP (--http-addr):
    POST /v2/models/NAME[/versions/N]/infer, GET /v2/models/NAME[/ready],
    GET /v2/health/live, /v2/health/ready, /v2
  and over gRPC (--grpc-addr): inference.GRPCInferenceService.
  Prometheus metrics at /metrics; /healthz and /readyz.

Requests that arrive together are batched (dynamic batching): a batch
takes requests until it has --max-batch rows or its first request has
waited --batch-timeout (only while another batch is in flight: with none,
a batch goes at once with the requests already waiting), runs on the backend (--inflight batches at once;
while all are busy the next batch keeps filling), and each request gets
its rows of the outputs back. On the GPU a batch is padded to the next of
--batch-sizes (default: every size up to 64, then powers of two up to
--max-batch), so that the runtime captures one CUDA graph per size; a
binary request that is a batch by itself runs on views of its body, with
no copy.

--backend gpu runs the compiled model in the native runtime
(runtime/session: each batch one CUDA graph, as recom run); --backend cpu
runs the imported model in the reference interpreter, as recom interp
does; auto (the default) takes the GPU when a CUDA driver and device are
there. The GPU machine has no llc: make the PTX with recom run --emit-ptx
where llc-19 is and pass it with --ptx.

MODEL is a SavedModel directory (served with its trained weights and
assets; --tags and --signature choose its MetaGraph and SignatureDef), a
GraphDef (--checkpoint PREFIX gives its weights; without, --tables or
random ones from --seed), or IR (a .mlir file of the import stage, as
recom compile --stop-after=import writes a cut graph: --outputs then name
what to fetch, as in recom run). Inputs are the model's placeholders (a
SavedModel's: its signature's keys), outputs the --outputs (default: a
SavedModel's signature outputs, else the model's predictions). Limits on
request size (--max-body-bytes, --max-request-rows, --max-queue,
--max-bytes-in-flight) are in docs/LIMITS.md. SIGINT or SIGTERM shuts
down gracefully: the server stops accepting, answers every request it
accepted, and exits 0 (a second signal exits at once).`

type serveFlags struct {
	runFlags
	name, version, httpAddr, grpcAddr, backend string
	maxBatch, inflight, maxQueue, maxRows      int
	readBuffer                                 int
	batchSizes                                 []int
	batchTimeout, shutdownTimeout              time.Duration
	maxBody, maxInFlightBytes                  int64
	logLevel, logFormat                        string
	warmup                                     string
	cpuProfile                                 string
	packSpin                                   time.Duration
	packSpinners                               int
	queuedOnly                                 bool
	// started, when set, gets the server's listeners' addresses once it
	// is ready (tests).
	started func(httpAddr, grpcAddr string)
}

func newServeCmd(stdin io.Reader, stdout, stderr io.Writer) *cobra.Command {
	var f serveFlags
	cmd := &cobra.Command{
		Use:   "serve MODEL [--http-addr :8501] [--grpc-addr :8500] [--backend auto|gpu|cpu]",
		Short: "serve a model over TensorFlow Serving's REST API and the Open Inference Protocol (HTTP, gRPC), with dynamic batching",
		Long:  serveHelp,
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runServe(cmd.Context(), args[0], &f, stderr)
		},
	}
	fl := cmd.Flags()
	f.common(fl)
	fl.StringVar(&f.name, "name", "", "the model's name in the URLs (default: MODEL's file or folder name without extensions)")
	fl.StringVar(&f.version, "model-version", "1", "the model's version")
	fl.StringVar(&f.httpAddr, "http-addr", ":8501", "the HTTP address (TensorFlow Serving's REST API, the Open Inference Protocol, metrics); empty: no HTTP")
	fl.StringVar(&f.grpcAddr, "grpc-addr", ":8500", "the gRPC address (the Open Inference Protocol); empty: no gRPC")
	fl.StringVar(&f.backend, "backend", "auto", "what runs the model: gpu (runtime/session), cpu (the interpreter), or auto (gpu when a CUDA device is there)")
	fl.IntVar(&f.maxBatch, "max-batch", serve.DefaultMaxBatch, "the most rows one batch holds")
	fl.DurationVar(&f.batchTimeout, "batch-timeout", serve.DefaultTimeout, "the longest a batch's first request waits for more while another batch is in flight (0: take only those already waiting; with none in flight a batch goes at once)")
	fl.IntVar(&f.inflight, "inflight", serve.DefaultInFlight, "batches running on the backend at once")
	fl.IntVar(&f.readBuffer, "read-buffer", 0, "each HTTP connection's kernel receive buffer in bytes (SO_RCVBUF, capped by the kernel's net.core.rmem_max; 0: the kernel's autotuning)")
	fl.BoolVar(&f.queuedOnly, "queue-all", false, "send every request through the batching queue (by default a request that finds nothing waiting and a backend slot free runs at once on its own goroutine)")
	fl.IntSliceVar(&f.batchSizes, "batch-sizes", nil, "allowed batch sizes: a batch is padded to the next (default on the GPU: every size up to 64, then powers of two up to --max-batch; none on the CPU; 0: none)")
	fl.IntVar(&f.maxQueue, "max-queue", serve.DefaultMaxQueue, "the most requests waiting for a batch (more are refused with 503 / UNAVAILABLE)")
	fl.IntVar(&f.maxRows, "max-request-rows", serve.DefaultMaxRequestRows, "the most rows one request may have")
	fl.Int64Var(&f.maxBody, "max-body-bytes", serve.DefaultMaxBodyBytes, "the largest HTTP request body and gRPC message")
	fl.Int64Var(&f.maxInFlightBytes, "max-bytes-in-flight", serve.DefaultMaxBytesInFlight, "request bodies being decoded and run at once, in bytes (more wait)")
	fl.DurationVar(&f.shutdownTimeout, "shutdown-timeout", serve.DefaultShutdownTimeout, "how long a shutdown waits for the requests in progress")
	fl.StringVar(&f.logLevel, "log-level", "info", "debug (a line per request), info, warn or error")
	fl.StringVar(&f.logFormat, "log-format", "text", "text or json")
	fl.StringVar(&f.cpuProfile, "cpuprofile", "", "write a CPU profile of the server, from ready to shut down, to `FILE` (Go's pprof format)")
	fl.DurationVar(&f.packSpin, "pack-spin", -1, "GPU: how long the packers' idle workers keep looking for work before they sleep (hostpack.SetSpinWait; negative: its default, 500µs)")
	fl.IntVar(&f.packSpinners, "pack-spinners", 2, "GPU: the most packer workers spinning at once while idle, the others asleep until a batch comes (hostpack.SetSpinners; 0: no cap, as recom bench has them: every idle worker spins, taking processors from the request handlers)")
	fl.StringVar(&f.warmup, "warmup", "auto", "run one batch of random inputs per allowed batch size before taking requests: true, false, or auto (on the GPU)")
	return cmd
}

// newLogger makes the structured logger of the flags.
func (f *serveFlags) newLogger(w io.Writer) (*slog.Logger, error) {
	var level slog.Level
	if err := level.UnmarshalText([]byte(f.logLevel)); err != nil {
		return nil, fmt.Errorf("--log-level: %q is not debug, info, warn or error", f.logLevel)
	}
	o := &slog.HandlerOptions{Level: level}
	switch f.logFormat {
	case "text":
		return slog.New(slog.NewTextHandler(w, o)), nil
	case "json":
		return slog.New(slog.NewJSONHandler(w, o)), nil
	}
	return nil, fmt.Errorf("--log-format must be text or json, got %q", f.logFormat)
}

func runServe(ctx context.Context, path string, f *serveFlags, stderr io.Writer) error {
	if ctx == nil {
		ctx = context.Background()
	}
	log, err := f.newLogger(stderr)
	if err != nil {
		return err
	}
	if f.httpAddr == "" && f.grpcAddr == "" {
		return errors.New("serve: --http-addr and --grpc-addr are both empty: nothing to serve on")
	}
	if f.packSpinners < 0 {
		return errors.New("serve: --pack-spinners must not be negative")
	}
	if f.packSpin >= 0 {
		hostpack.SetSpinWait(f.packSpin)
	}
	hostpack.SetSpinners(f.packSpinners)
	if f.name == "" {
		f.name = modelName(path)
	}
	// The listeners come first: a busy port fails before the model loads.
	var httpLn, grpcLn net.Listener
	if f.httpAddr != "" {
		if httpLn, err = net.Listen("tcp", f.httpAddr); err != nil {
			return fmt.Errorf("--http-addr: %w", err)
		}
		defer httpLn.Close()
		httpLn = serve.ReadBufferListener(httpLn, f.readBuffer)
	}
	if f.grpcAddr != "" {
		if grpcLn, err = net.Listen("tcp", f.grpcAddr); err != nil {
			return fmt.Errorf("--grpc-addr: %w", err)
		}
		defer grpcLn.Close()
	}
	// SIGINT and SIGTERM drain the server instead of ending the tool.
	sctx, cancel := context.WithCancel(ctx)
	defer cancel()
	restore := outfile.HandleGracefully(func(sig os.Signal) {
		log.Info("signal received: shutting down", "signal", sig.String())
		cancel()
	})
	defer restore()

	t0 := time.Now()
	ld, err := f.load(sctx, path, log)
	if err != nil {
		return err
	}
	opts := serve.BatchOptions{MaxBatch: f.maxBatch, Timeout: f.batchTimeout, InFlight: f.inflight, MaxQueue: f.maxQueue, Sizes: ld.sizes, Queued: f.queuedOnly}
	srv, err := serve.New(serve.Config{
		Name: f.name, Version: f.version, Signature: ld.sig, Backend: ld.backend, Batch: opts,
		Limits:        serve.Limits{MaxBodyBytes: f.maxBody, MaxRequestRows: f.maxRows, MaxBytesInFlight: f.maxInFlightBytes},
		Logger:        log,
		ServerVersion: strings.TrimSpace(strings.TrimPrefix(toolflag.Version("recom"), "recom version ")),
	})
	if err != nil {
		ld.backend.Close()
		return err
	}
	if ld.warm {
		if err := warmup(sctx, srv, ld, f.inflight, log); err != nil {
			srv.Close()
			return err
		}
	}
	if f.cpuProfile != "" {
		stop, err := startCPUProfile(f.cpuProfile)
		if err != nil {
			srv.Close()
			return fmt.Errorf("serve --cpuprofile: %w", err)
		}
		defer stop()
	}
	srv.SetReady(true)
	log.Info("model ready", "model", f.name, "version", f.version, "backend", ld.backend.Name(), "inputs", len(ld.sig.Inputs), "outputs", outputKeys(ld.sig), "batch_sizes", fmt.Sprint(ld.sizes), "load", time.Since(t0).Round(time.Millisecond))
	if f.started != nil {
		f.started(addrOf(httpLn), addrOf(grpcLn))
	}
	return srv.Serve(sctx, httpLn, grpcLn, f.shutdownTimeout)
}

func addrOf(l net.Listener) string {
	if l == nil {
		return ""
	}
	return l.Addr().String()
}

func outputKeys(sig serve.Signature) string {
	var k []string
	for _, o := range sig.Outputs {
		k = append(k, o.Key)
	}
	return strings.Join(k, ",")
}

// modelName is a model's default name: its file's name without extensions
// (small.pbtxt: small), or its SavedModel folder's (a version folder's
// parent: models/ranker/3 is ranker).
func modelName(path string) string {
	p := filepath.Clean(path)
	if filepath.Base(p) == "saved_model.pb" || filepath.Base(p) == "saved_model.pbtxt" {
		p = filepath.Dir(p)
	}
	base := filepath.Base(p)
	if _, err := strconv.Atoi(base); err == nil {
		base = filepath.Base(filepath.Dir(p))
	}
	if i := strings.IndexByte(base, '.'); i > 0 {
		base = base[:i]
	}
	base = strings.NewReplacer("/", "_", ":", "_", " ", "_").Replace(base)
	if base == "" || base == "." {
		return "model"
	}
	return base
}

// loaded is a model ready to serve.
type loaded struct {
	sig     serve.Signature
	backend serve.Backend
	sizes   []int
	warm    bool
	// module is the imported program (the warm-up's feeds are drawn for
	// it) and tables the contents of its cut-away tables.
	module *textir.Operation
	tables map[string]exec.TableData
}

// load reads, compiles and readies MODEL on the backend the flags ask
// for: the one place recom serve loads a model.
func (f *serveFlags) load(ctx context.Context, path string, log *slog.Logger) (*loaded, error) {
	useGPU := false
	switch f.backend {
	case "gpu":
		useGPU = true
	case "cpu":
	case "auto":
		useGPU = gpuPresent()
	default:
		return nil, fmt.Errorf("--backend must be auto, gpu or cpu, got %q", f.backend)
	}
	ld := &loaded{}
	if useGPU {
		err := f.loadGPU(ctx, path, ld, log)
		var pe *session.PlanError
		if !errors.As(err, &pe) {
			if err != nil {
				return nil, err
			}
			return f.finish(ld, true)
		}
		log.Warn("the native runtime cannot run the model: serving it on the CPU (the interpreter)", "reason", err.Error())
	}
	if err := f.loadCPU(ctx, path, ld); err != nil {
		return nil, err
	}
	return f.finish(ld, false)
}

// finish sets the batch sizes and the warm-up for the backend.
func (f *serveFlags) finish(ld *loaded, gpu bool) (*loaded, error) {
	switch {
	case len(f.batchSizes) == 1 && f.batchSizes[0] == 0:
	case len(f.batchSizes) > 0:
		for _, s := range f.batchSizes {
			if s <= 0 {
				return nil, fmt.Errorf("--batch-sizes: %d is not a batch size", s)
			}
		}
		ld.sizes = f.batchSizes
	case gpu:
		ld.sizes = serve.GPUSizes(max(f.maxBatch, 1))
	}
	switch f.warmup {
	case "auto":
		ld.warm = gpu
	case "true":
		ld.warm = true
	case "false":
	default:
		return nil, fmt.Errorf("--warmup must be true, false or auto, got %q", f.warmup)
	}
	return ld, nil
}

// gpuPresent reports whether a CUDA driver with a device is there.
func gpuPresent() bool {
	drv, err := cuda.Open()
	if err != nil {
		return false
	}
	n, err := drv.DeviceCount()
	return err == nil && n > 0
}

// loadCPU imports the model for the interpreter, as recom interp does.
func (f *serveFlags) loadCPU(ctx context.Context, path string, ld *loaded) error {
	iopts := compiler.Options{StopAfter: compiler.StageImport, Outputs: graphCut(path, f.outputs), ReadWeights: true}
	f.model.apply(&iopts)
	res, err := compiler.Compile(ctx, path, iopts)
	if err != nil {
		return err
	}
	opts, err := runOptions(f.tables, f.seed, res.Weights)
	if err != nil {
		return err
	}
	if err := cutTables(ctx, path, f.model.tags, res, opts); err != nil {
		return err
	}
	outputs := f.outputs
	if len(outputs) == 0 && res.Signature != nil {
		// A SavedModel cut at its signature: the signature's outputs.
		outputs = res.Outputs
	}
	if len(outputs) == 0 {
		all, err := defaultOutputs(res.Module)
		if err != nil {
			return err
		}
		outputs = e2eOutputs(all, nil)
	}
	if ld.sig, err = serve.SignatureOf(res.Module, res, outputs); err != nil {
		return err
	}
	b, err := serve.NewInterpBackend(res.Module, outputs, opts)
	if err != nil {
		return err
	}
	ld.backend, ld.module, ld.tables = b, res.Module, opts.Tables
	return nil
}

// loadGPU compiles the model and plans it in the native runtime.
func (f *serveFlags) loadGPU(ctx context.Context, path string, ld *loaded, log *slog.Logger) error {
	m, err := f.compileModel(ctx, path)
	if err != nil {
		return err
	}
	ptx, err := m.ptx(f.ptx)
	if err != nil {
		return err
	}
	opts, err := runOptions(f.tables, f.seed, m.weights)
	if err != nil {
		return err
	}
	if err := materializeTables(m.res.Module, opts); err != nil {
		return err
	}
	em := *m
	em.outputs = e2eOutputs(m.outputs, f.outputs)
	if ld.sig, err = serve.SignatureOf(m.res.Module, m.imported, em.outputs); err != nil {
		return err
	}
	so := f.sessionOptions(&em, opts, nil, f.inflight)
	so.NoTiming = true
	so.BatchSizes = 2 * (len(serve.GPUSizes(max(f.maxBatch, 1))) + len(f.batchSizes))
	t0 := time.Now()
	s, err := session.New(ctx, session.Program{Context: m.res.Context, Module: m.res.Module}, ptx, so)
	if errors.Is(err, cuda.ErrNoDriver) {
		return fmt.Errorf("--backend gpu needs an NVIDIA GPU and its driver (--backend cpu serves on the interpreter): %w", err)
	}
	if err != nil {
		return err
	}
	log.Info("compiled and planned on the GPU", "compile", m.compileT.Round(time.Millisecond), "plan", time.Since(t0).Round(time.Millisecond))
	ld.backend = serve.NewSessionBackend(s, fmt.Sprintf("device %d", f.device))
	// The warm-up's feeds are drawn for the imported program.
	wo := compiler.Options{StopAfter: compiler.StageImport, Outputs: graphCut(path, f.outputs), NoWeights: true}
	wo.Tags, wo.Signature = f.model.tags, f.model.signature
	if imp, err := compiler.Compile(ctx, path, wo); err == nil {
		ld.module = imp.Module
	}
	return nil
}

// graphCut is the cut at outputs for importing path: none for IR, which
// is past any cut (a 0-tfg.mlir of a graph cut at its inputs, as
// bench/real-models.sh writes): there --outputs only name what to fetch,
// as in recom run.
func graphCut(path string, outputs []string) []string {
	if strings.HasSuffix(path, ".mlir") {
		return nil
	}
	return outputs
}

// warmup runs batches of random inputs of every allowed batch size, each
// size slots times in a row (the GPU runtime captures a graph per size on
// each of its slots, which it takes in turn), through the server's own
// path.
func warmup(ctx context.Context, srv *serve.Server, ld *loaded, slots int, log *slog.Logger) error {
	if ld.module == nil {
		log.Warn("no warm-up: the model could not be imported for drawing its inputs")
		return nil
	}
	sizes := ld.sizes
	if len(sizes) == 0 {
		sizes = []int{1}
	}
	t0 := time.Now()
	arrays, _, err := gen.GraphFeeds(ctx, ld.module, gen.GraphFeedOptions{Batch: sizes[len(sizes)-1], Seed: 1, Tables: ld.tables})
	if err != nil {
		log.Warn("no warm-up: the model's inputs could not be drawn", "error", err.Error())
		return nil
	}
	byName := map[string]*interp.Tensor{}
	for _, a := range arrays {
		byName[tensorName(a.Name)] = a.Tensor
	}
	srv.SetReady(true) // the warm-up runs through the server
	defer srv.SetReady(false)
	sig := srv.Signature()
	for _, n := range sizes {
		in := map[string]*interp.Tensor{}
		for _, s := range sig.Inputs {
			t, ok := byName[s.Name]
			if !ok {
				log.Warn("no warm-up: no input drawn for a placeholder", "input", s.Key)
				return nil
			}
			if t.Rank() > 0 && t.Dim(0) >= int64(n) {
				if t, err = sliceFirst(t, n); err != nil {
					return err
				}
			}
			in[s.Key] = t
		}
		for range max(slots, 1) {
			if _, err := srv.Predict(ctx, in); err != nil {
				return fmt.Errorf("warm-up batch of %d rows: %w", n, err)
			}
		}
	}
	log.Info("warmed up", "batch_sizes", fmt.Sprint(sizes), "duration", time.Since(t0).Round(time.Millisecond))
	return nil
}

// sliceFirst returns the first n rows of t (a copy).
func sliceFirst(t *interp.Tensor, n int) (*interp.Tensor, error) {
	shape := t.Shape()
	row := t.Len() / int(shape[0])
	shape[0] = int64(n)
	switch d := t.Data().(type) {
	case []float32:
		return interp.New(shape, append([]float32{}, d[:n*row]...))
	case []float64:
		return interp.New(shape, append([]float64{}, d[:n*row]...))
	case []int32:
		return interp.New(shape, append([]int32{}, d[:n*row]...))
	case []int64:
		return interp.New(shape, append([]int64{}, d[:n*row]...))
	case []bool:
		return interp.New(shape, append([]bool{}, d[:n*row]...))
	case []string:
		return interp.New(shape, append([]string{}, d[:n*row]...))
	}
	return nil, fmt.Errorf("cannot slice a %v tensor", t.DType())
}

// startCPUProfile profiles the process into path until stop.
func startCPUProfile(path string) (stop func(), err error) {
	pf, err := os.Create(path)
	if err != nil {
		return nil, err
	}
	if err := pprof.StartCPUProfile(pf); err != nil {
		pf.Close()
		return nil, err
	}
	return func() {
		pprof.StopCPUProfile()
		pf.Close()
	}, nil
}
