package session

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"strings"
	"sync"
	"time"

	"github.com/recom-compiler/recom/dialects/fused/abi"
	"github.com/recom-compiler/recom/interp"
	"github.com/recom-compiler/recom/interp/exec"
	"github.com/recom-compiler/recom/runtime/cublaslt"
	"github.com/recom-compiler/recom/runtime/cuda"
	"github.com/recom-compiler/recom/runtime/densekern"
	"github.com/recom-compiler/recom/textir"
)

// Program is a compiled program: the module after --fuse and --fuse-dense
// (pipeline.Result's Context and Module).
type Program struct {
	Context *textir.Context
	Module  *textir.Operation
}

// Options configure New.
type Options struct {
	// Outputs names the tensors Run returns, as the interpreter names
	// them ("node" or "node:i"). Required.
	Outputs []string
	// Interp gives the program's constants their values (Variables,
	// Tables, RandomTables and Seed, as for the interpreter): New
	// evaluates them once. nil: no variables.
	Interp *exec.Options
	// CUDA is the context to run on; nil opens the driver and device
	// Ordinal (and Close releases them).
	CUDA    *cuda.Context
	Ordinal int
	// Slots is the number of batches in flight: each slot has its own
	// stream, pinned buffers, device buffers and graphs. 0 means 2.
	Slots int
	// Packer makes each embedding layer's packer; nil is NativePacker
	// (runtime/hostpack, falling back to InterpPacker for a layer it
	// cannot plan).
	Packer PackerFactory
	// Dense names what computes the fused.dense ops: "cublaslt",
	// cuBLASLt's products (runtime/cublaslt, the default when the library
	// loads), or "generated", the program's own kernels (--fuse-dense,
	// GeneratedDense: the default when cuBLASLt does not load; the
	// Summary says why).
	Dense string
	// Precision is the dense ops' arithmetic with cuBLASLt: "fp32" (the
	// default: TensorFlow's, float32 products without TF32), "tf32"
	// (tensor cores on inputs rounded to TF32), or "bf16" (weights and
	// the activations between layers in bfloat16, float32 accumulation;
	// the embedding layer's output converted by a kernel). The generated
	// kernels compute float32 (accumulating in float64): Dense
	// "generated" takes only "fp32", and when cuBLASLt is missing the
	// default falls back to them whatever the precision.
	Precision string
	// CublasLt is the library of Dense "cublaslt"; nil opens it
	// (cublaslt.Open).
	CublasLt *cublaslt.Library
	// DenseBackend, when set, computes the fused.dense ops instead
	// (Dense, Precision and CublasLt are then not used).
	DenseBackend DenseBackend
	// Poison fills the device results with NaN (0xff bytes) in every
	// batch's graph before its kernels run, and the pinned outputs before
	// every batch, so that what the kernels do not write shows: for
	// checks (it costs a memset per result), not for timing.
	Poison bool
	// NoTiming leaves out the two events per batch that time its graph
	// on the device (the Summary's GPU row).
	NoTiming bool
	// BatchSizes bounds the batch sizes each slot keeps device buffers
	// and graphs for (the least recently used one goes). 0 means 8.
	BatchSizes int
}

// PlanError is New's error when the program has an op the session cannot
// run natively (it names the op and its TF node): the caller may run the
// program in the interpreter instead. Other errors of New (the driver, the
// PTX, the device memory) are not PlanErrors.
type PlanError struct{ Err error }

func (e *PlanError) Error() string { return e.Err.Error() }
func (e *PlanError) Unwrap() error { return e.Err }

// Session runs a compiled program batch after batch: planned once by New,
// then Run (or RunAsync, or a Pipeline) per batch. Its methods are safe
// for concurrent use.
type Session struct {
	plan    *plan
	opts    Options
	cctx    *cuda.Context
	ownCtx  bool
	mod     *cuda.Module
	backend DenseBackend
	// denseNote says why the backend is not the one asked for (cuBLASLt
	// missing), for the Summary.
	denseNote string
	// layoutMod holds runtime/densekern's kernels when a dense step's
	// inputs are moved (layoutFns by name).
	layoutMod *cuda.Module
	layoutFns map[string]*cuda.Function
	tables    []*cuda.DevicePtr // per layer
	fns       []*cuda.Function  // per layer
	packers   []Packer

	// env0 is a batch's host values before its feeds: the constants.
	env0 []*interp.Tensor

	devMu sync.Mutex // device allocations, frees and captures
	slots []*slot
	free  chan *slot
	stats *stats

	mu     sync.Mutex
	closed bool
}

// New plans prog once and readies it on the GPU: the constants are
// evaluated (the interpreter, once), each layer's tables uploaded and its
// packer made, the dense layers' weights uploaded by the backend, the
// PTX loaded, and the slots made. An op the session cannot run natively
// is an error naming the op and its node: the caller then runs the
// program in the interpreter.
func New(ctx context.Context, prog Program, ptx []byte, opts Options) (*Session, error) {
	if prog.Module == nil {
		return nil, errors.New("session: no program")
	}
	if ctx == nil {
		ctx = context.Background()
	}
	p, err := planProgram(prog.Module, opts.Outputs)
	if err != nil {
		return nil, &PlanError{Err: err}
	}
	if opts.Slots <= 0 {
		opts.Slots = 2
	}
	if opts.BatchSizes <= 0 {
		opts.BatchSizes = 8
	}
	if opts.Packer == nil {
		opts.Packer = NativePacker
	}
	backend, note, err := denseBackend(&opts, len(p.dense) > 0)
	if err != nil {
		return nil, err
	}
	xprog, err := exec.Compile(prog.Module)
	if err != nil {
		return nil, err
	}
	iopts := &exec.Options{}
	if opts.Interp != nil {
		c := *opts.Interp
		iopts = &c
	}
	constOpts := *iopts
	constOpts.DataOnly = true
	if err := evalConsts(ctx, xprog, p.consts, &constOpts); err != nil {
		return nil, err
	}
	s := &Session{plan: p, opts: opts, backend: backend, denseNote: note, env0: make([]*interp.Tensor, p.nhost)}
	for _, c := range p.consts {
		s.env0[c.host] = c.konst
	}
	ok := false
	defer func() {
		if !ok {
			s.Close()
		}
	}()
	if s.cctx = opts.CUDA; s.cctx == nil {
		drv, err := cuda.Open()
		if err != nil {
			return nil, err
		}
		if s.cctx, err = drv.NewContext(opts.Ordinal); err != nil {
			return nil, err
		}
		s.ownCtx = true
	}
	if s.mod, err = s.cctx.LoadModule(ptx); err != nil {
		return nil, err
	}
	for _, ls := range p.layers {
		if err := s.readyLayer(ctx, ls, xprog, &constOpts, iopts); err != nil {
			return nil, err
		}
	}
	dev := &Device{Context: s.cctx, Module: s.mod}
	for _, ds := range p.dense {
		var b *interp.Tensor
		if ds.b != nil {
			b = ds.b.konst
		}
		if ds.step, err = s.backend.Prepare(dev, ds.op, ds.dense, ds.w.konst, b); err != nil {
			return nil, err
		}
	}
	if err := p.planLayouts(); err != nil {
		return nil, err
	}
	if err := s.readyDevice(); err != nil {
		return nil, err
	}
	if err := s.loadLayoutKernels(); err != nil {
		return nil, err
	}
	s.stats = newStats(s)
	s.free = make(chan *slot, opts.Slots)
	for i := range opts.Slots {
		sl, err := s.newSlot(i)
		if err != nil {
			return nil, err
		}
		s.slots = append(s.slots, sl)
		s.free <- sl
	}
	ok = true
	return s, nil
}

// denseBackend returns the backend of opts (and why it is not the one
// asked for), checking Dense and Precision. A program without dense ops
// opens no library.
func denseBackend(opts *Options, needed bool) (DenseBackend, string, error) {
	if opts.DenseBackend != nil {
		return opts.DenseBackend, "", nil
	}
	prec := cublaslt.FP32
	if opts.Precision != "" {
		var err error
		if prec, err = cublaslt.ParsePrecision(opts.Precision); err != nil {
			return nil, "", fmt.Errorf("session: Precision: %w", err)
		}
	}
	switch opts.Dense {
	case DenseGenerated:
		if prec != cublaslt.FP32 {
			return nil, "", fmt.Errorf("session: precision %v needs Dense %q: the generated kernels compute float32", prec, DenseCublasLt)
		}
		return GeneratedDense{}, "", nil
	case DenseCublasLt, "":
	default:
		return nil, "", fmt.Errorf("session: Dense %q: want %q or %q", opts.Dense, DenseCublasLt, DenseGenerated)
	}
	if !needed {
		return GeneratedDense{}, "", nil
	}
	lib := opts.CublasLt
	if lib == nil {
		var err error
		if lib, err = openCublasLt(); err != nil {
			if opts.Dense == DenseCublasLt {
				return nil, "", fmt.Errorf("session: Dense %q: %w", DenseCublasLt, err)
			}
			note := fmt.Sprintf("cuBLASLt not loaded (%v)", err)
			if prec != cublaslt.FP32 {
				note += fmt.Sprintf("; precision %v asked, the generated kernels compute float32", prec)
			}
			return GeneratedDense{}, note, nil
		}
	}
	return NewCublasLtDense(lib, CublasLtOptions{Precision: prec}), "", nil
}

// openCublasLt loads the library (a variable for the tests).
var openCublasLt = cublaslt.Open

// The names of Options.Dense.
const (
	DenseCublasLt  = "cublaslt"
	DenseGenerated = "generated"
)

// loadLayoutKernels loads runtime/densekern's kernels when a dense step
// moves its inputs or a device step runs.
func (s *Session) loadLayoutKernels() error {
	moves := len(s.plan.devSteps)
	for _, ds := range s.plan.dense {
		moves += len(ds.moves)
	}
	if moves == 0 {
		return nil
	}
	m, err := s.cctx.LoadModule(densekern.PTX)
	if err != nil {
		return fmt.Errorf("session: the layout kernels: %w", err)
	}
	s.layoutMod = m
	s.layoutFns = map[string]*cuda.Function{}
	for _, k := range densekern.Kernels() {
		fn, err := m.Function(k.Name)
		if err != nil {
			return fmt.Errorf("session: the layout kernels: %w", err)
		}
		s.layoutFns[k.Name] = fn
	}
	return nil
}

// evalConsts gives the constants their values with the interpreter.
func evalConsts(ctx context.Context, xprog *exec.Program, consts []*value, opts *exec.Options) error {
	if len(consts) == 0 {
		return nil
	}
	vs := make([]*textir.Value, len(consts))
	for i, c := range consts {
		vs[i] = c.v
	}
	ts, err := xprog.Evaluate(ctx, nil, vs, opts)
	if err != nil {
		return fmt.Errorf("session: evaluating the program's constants: %w", err)
	}
	for i, c := range consts {
		c.konst = ts[i]
	}
	return nil
}

// readyLayer fills the layer's tables arena (the tables evaluated in
// parallel, each copied in and dropped), uploads it, finds the kernel and
// makes the packer.
func (s *Session) readyLayer(ctx context.Context, ls *layerStep, xprog *exec.Program, constOpts, iopts *exec.Options) error {
	l := ls.layer
	fn, err := s.mod.Function(ls.kernel)
	if err != nil {
		return ls.op.Errorf("%v (was the PTX made from this program?)", err)
	}
	if n := fn.NumParams(); n >= 0 && n != 5 {
		return ls.op.Errorf("kernel %q takes %d parameters; the layer's kernel takes 5 (was the PTX made from this program?)", ls.kernel, n)
	}
	arena, err := l.TableArena(nil)
	if err != nil {
		return ls.op.Errorf("%v", err)
	}
	// Column i's table is operand tableOp[i]; one value may be several
	// columns' table (shared embeddings).
	tableOp := make([]int, len(l.Columns))
	byValue := map[*textir.Value][]int{}
	var order []*textir.Value
	k := 0
	for i := range l.Columns {
		tableOp[i] = k
		v := ls.op.Operand(k)
		if _, seen := byValue[v]; !seen {
			order = append(order, v)
		}
		byValue[v] = append(byValue[v], i)
		k += l.Columns[i].NumOperands()
	}
	var next int
	var mu sync.Mutex
	var firstErr error
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), len(order)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				mu.Lock()
				if next == len(order) || firstErr != nil {
					mu.Unlock()
					return
				}
				v := order[next]
				next++
				mu.Unlock()
				err := fillTable(ctx, xprog, constOpts, ls, v, byValue[v], arena)
				if err != nil {
					mu.Lock()
					if firstErr == nil {
						firstErr = err
					}
					mu.Unlock()
				}
			}
		}()
	}
	wg.Wait()
	if firstErr != nil {
		return firstErr
	}
	dp, err := s.cctx.Alloc(max(4*int64(len(arena)), 4))
	if err != nil {
		return ls.op.Errorf("tables arena (%d bytes): %v", 4*len(arena), err)
	}
	s.tables = append(s.tables, dp)
	s.fns = append(s.fns, fn)
	if err := cuda.CopyToDevice(dp, arena); err != nil {
		return err
	}
	// The packer sees each table as the arena's slice (no copy).
	info := &LayerInfo{Op: ls.op, Layer: l, Tables: make([]*interp.Tensor, ls.op.NumOperands()), Program: xprog, Interp: iopts}
	for i := range l.Columns {
		c := &l.Columns[i]
		t, err := interp.New([]int64{c.Rows, c.Width}, arena[c.TableOffset:c.TableOffset+c.Rows*c.Width])
		if err != nil {
			return ls.op.Errorf("column %q: %v", c.Name, err)
		}
		info.Tables[tableOp[i]] = t
	}
	for _, v := range ls.operand {
		info.Inputs = append(info.Inputs, v.v)
	}
	pk, err := s.opts.Packer(info)
	if err != nil {
		return err
	}
	ls.packer = pk
	s.packers = append(s.packers, pk)
	return nil
}

// fillTable evaluates the table value v and copies it into the arena for
// each of the columns cols.
func fillTable(ctx context.Context, xprog *exec.Program, opts *exec.Options, ls *layerStep, v *textir.Value, cols []int, arena []float32) error {
	ts, err := xprog.Evaluate(ctx, nil, []*textir.Value{v}, opts)
	if err != nil {
		return fmt.Errorf("session: the table of column %q: %w", ls.layer.Columns[cols[0]].Name, err)
	}
	t := ts[0]
	for _, i := range cols {
		c := &ls.layer.Columns[i]
		f := t.Float32s()
		if f == nil || t.Rank() != 2 || t.Dim(0) != c.Rows || t.Dim(1) != c.Width {
			return ls.op.Errorf("column %q: the table must be a float32 %dx%d matrix, got %v of shape %s", c.Name, c.Rows, c.Width, t.DType(), interp.ShapeString(t.Shape()))
		}
		copy(arena[c.TableOffset:], f)
	}
	return nil
}

// Run runs one batch: the feeds in host memory to the outputs in host
// memory. It waits for a free slot.
func (s *Session) Run(feeds map[string]*interp.Tensor) (map[string]*interp.Tensor, error) {
	sl, err := s.acquire()
	if err != nil {
		return nil, err
	}
	defer s.release(sl)
	b, err := sl.launch(feeds)
	if err != nil {
		return nil, err
	}
	return sl.finish(b)
}

// Pending is a batch RunAsync launched.
type Pending struct {
	done chan struct{}
	out  map[string]*interp.Tensor
	err  error
}

// Wait returns the batch's outputs once they are in host memory.
func (p *Pending) Wait() (map[string]*interp.Tensor, error) {
	<-p.done
	return p.out, p.err
}

// RunAsync packs the batch and launches its graph, and returns without
// waiting for the GPU: the host can pack the next batch meanwhile. It
// waits for a free slot; the slot is freed when the batch's outputs are
// in host memory, whether or not Wait is called.
func (s *Session) RunAsync(feeds map[string]*interp.Tensor) (*Pending, error) {
	sl, err := s.acquire()
	if err != nil {
		return nil, err
	}
	b, err := sl.launch(feeds)
	if err != nil {
		s.release(sl)
		return nil, err
	}
	p := &Pending{done: make(chan struct{})}
	go func() {
		p.out, p.err = sl.finish(b)
		s.release(sl)
		close(p.done)
	}()
	return p, nil
}

var errClosed = errors.New("session: use of a closed Session")

func (s *Session) acquire() (*slot, error) {
	s.mu.Lock()
	closed := s.closed
	s.mu.Unlock()
	if closed {
		return nil, errClosed
	}
	sl, ok := <-s.free
	if !ok {
		return nil, errClosed
	}
	return sl, nil
}

// release returns a slot whose work has finished.
func (s *Session) release(sl *slot) {
	sl.settle()
	s.free <- sl
}

// Close waits for the batches in flight and frees the session's device
// and pinned memory, its streams and module (and its context, when New
// opened it).
func (s *Session) Close() error {
	if s == nil {
		return nil
	}
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return nil
	}
	s.closed = true
	s.mu.Unlock()
	var errs []error
	keep := func(err error) {
		if err != nil {
			errs = append(errs, err)
		}
	}
	for range s.slots {
		sl := <-s.free
		keep(sl.close())
	}
	if s.free != nil {
		close(s.free) // a Run waiting for a slot gets errClosed
	}
	for _, ds := range s.plan.dense {
		if ds.step != nil {
			keep(ds.step.Close())
		}
	}
	for _, t := range s.tables {
		keep(t.Close())
	}
	keep(s.closeDevice())
	if s.mod != nil {
		keep(s.mod.Close())
	}
	if s.layoutMod != nil {
		keep(s.layoutMod.Close())
	}
	if s.ownCtx {
		keep(s.cctx.Close())
	}
	return errors.Join(errs...)
}

// Layers returns the embedding layers' descriptions, in plan order.
func (s *Session) Layers() []*abi.Layer {
	out := make([]*abi.Layer, len(s.plan.layers))
	for i, ls := range s.plan.layers {
		out[i] = ls.layer
	}
	return out
}

// Outputs returns the names of the tensors Run returns.
func (s *Session) Outputs() []string { return append([]string(nil), s.plan.names...) }

// Profile runs the batch of feeds once as usual, then iters times with its
// GPU steps enqueued one by one (not as a graph) between device events,
// and keeps each step's mean device time for the Summary (its "GPU, step
// alone" rows, replaced by each Profile). Launching steps one by one adds
// the launch gaps a graph removes: the graph row is the batch's real
// cost, these rows say where it goes.
func (s *Session) Profile(feeds map[string]*interp.Tensor, iters int) error {
	if iters < 1 {
		return errors.New("session: Profile needs at least one iteration")
	}
	sl, err := s.acquire()
	if err != nil {
		return err
	}
	defer s.release(sl)
	b, err := sl.launch(feeds)
	if err != nil {
		return err
	}
	if _, err := sl.finish(b); err != nil {
		return err
	}
	if b.empty {
		return errors.New("session: Profile of an empty batch")
	}
	descs, total, err := sl.timeSteps(iters, func(mark func(string) error) error { return sl.enqueue(b, mark) })
	if err != nil {
		return err
	}
	rows := make([]StepCost, len(descs))
	for i, d := range descs {
		rows[i] = StepCost{Step: fmt.Sprintf("batch %d: %s", b.b, d), Where: WhereAlone, Calls: int64(iters), Total: total[i]}
	}
	s.stats.mu.Lock()
	s.stats.profile = rows
	s.stats.mu.Unlock()
	return nil
}

// timeSteps runs enqueue iters times on the slot's stream with an event
// after each step it marks, and returns the steps' descriptions and total
// device times.
func (sl *slot) timeSteps(iters int, enqueue func(mark func(what string) error) error) ([]string, []time.Duration, error) {
	var evs []*cuda.Event
	defer func() {
		for _, e := range evs {
			e.Close()
		}
	}()
	var descs []string
	var total []time.Duration
	for it := range iters {
		k := 0
		mark := func(what string) error {
			if k == len(evs) {
				e, err := sl.s.cctx.NewEvent()
				if err != nil {
					return err
				}
				evs = append(evs, e)
			}
			if it == 0 && k > 0 {
				descs = append(descs, what)
			}
			k++
			return evs[k-1].Record(sl.stream)
		}
		if err := mark(""); err != nil {
			return nil, nil, err
		}
		sl.inflight = true
		err := enqueue(mark)
		if rerr := sl.done.Record(sl.stream); rerr != nil {
			sl.stream.Synchronize()
			sl.inflight = false
			return nil, nil, errors.Join(err, rerr)
		}
		if err != nil {
			return nil, nil, err // release waits for what was enqueued
		}
		if err := evs[k-1].Synchronize(); err != nil {
			return nil, nil, err
		}
		sl.inflight = false
		if it == 0 {
			total = make([]time.Duration, k-1)
		}
		for i := 1; i < k; i++ {
			d, err := cuda.Elapsed(evs[i-1], evs[i])
			if err != nil {
				return nil, nil, err
			}
			total[i-1] += d
		}
	}
	return descs, total, nil
}

// DenseProfile is the dense part of a batch measured alone (ProfileDense).
type DenseProfile struct {
	Batch int64
	// Graph is the mean device time of the dense steps (the moves of
	// their inputs and the device steps among and after them included)
	// captured as one CUDA graph and replayed
	// back to back: what the dense part costs inside the batch's graph.
	Graph time.Duration
	// Steps are the mean device times of each launch, enqueued one by
	// one between events (as Profile's rows).
	Steps []StepCost
}

// String prints the graph's time and each step's, one a line.
func (p *DenseProfile) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "batch %d: the dense steps as one graph %.1f us", p.Batch, us(p.Graph))
	for _, c := range p.Steps {
		fmt.Fprintf(&b, "\n  %8.1f us  %s", us(c.Mean()), c.Step)
	}
	return b.String()
}

// ProfileDense runs the batch of feeds once as usual, then measures its
// dense part alone, over the inputs that run left on the device: its
// steps enqueued one by one between device events, iters times, and the
// same steps captured as one CUDA graph, replayed iters times back to
// back between two events. It is the dense layers' cost as a framework's
// MLP captured as a graph is measured (with the model's device steps: a
// head after the MLP).
func (s *Session) ProfileDense(feeds map[string]*interp.Tensor, iters int) (*DenseProfile, error) {
	if iters < 1 {
		return nil, errors.New("session: ProfileDense needs at least one iteration")
	}
	if len(s.plan.dense) == 0 {
		return nil, errors.New("session: ProfileDense of a program without dense layers")
	}
	sl, err := s.acquire()
	if err != nil {
		return nil, err
	}
	defer s.release(sl)
	b, err := sl.launch(feeds)
	if err != nil {
		return nil, err
	}
	if _, err := sl.finish(b); err != nil {
		return nil, err
	}
	if b.empty {
		return nil, errors.New("session: ProfileDense of an empty batch")
	}
	f := b.fr
	descs, total, err := sl.timeSteps(iters, func(mark func(string) error) error { return sl.enqueueDense(f, mark) })
	if err != nil {
		return nil, err
	}
	p := &DenseProfile{Batch: f.b}
	for i, d := range descs {
		p.Steps = append(p.Steps, StepCost{Step: d, Where: WhereAlone, Calls: int64(iters), Total: total[i]})
	}
	g, err := sl.captureDense(f)
	if err == nil {
		p.Graph, err = sl.timeGraph(g, iters)
		err = errors.Join(err, g.Close())
	}
	if err != nil {
		return nil, fmt.Errorf("session: the dense steps as one graph: %w", err)
	}
	return p, nil
}

// captureDense captures the dense steps of a batch of frame f alone.
func (sl *slot) captureDense(f *frame) (*cuda.Graph, error) {
	sl.s.devMu.Lock()
	defer sl.s.devMu.Unlock()
	if err := sl.stream.BeginCapture(); err != nil {
		return nil, err
	}
	err := sl.enqueueDense(f, func(string) error { return nil })
	g, cerr := sl.stream.EndCapture()
	if err == nil {
		err = cerr
	}
	if err != nil {
		if g != nil {
			g.Close()
		}
		return nil, err
	}
	return g, nil
}

// timeGraph launches g once, then iters times back to back between two
// events, and returns the mean device time of a replay.
func (sl *slot) timeGraph(g *cuda.Graph, iters int) (time.Duration, error) {
	start, err := sl.s.cctx.NewEvent()
	if err != nil {
		return 0, err
	}
	defer start.Close()
	end, err := sl.s.cctx.NewEvent()
	if err != nil {
		return 0, err
	}
	defer end.Close()
	sl.inflight = true
	err = g.Launch(sl.stream)
	if err == nil {
		err = start.Record(sl.stream)
	}
	for i := 0; err == nil && i < iters; i++ {
		err = g.Launch(sl.stream)
	}
	if err == nil {
		err = end.Record(sl.stream)
	}
	if rerr := sl.done.Record(sl.stream); err == nil {
		err = rerr
	}
	if err != nil {
		return 0, err // release waits for what was enqueued
	}
	if err := end.Synchronize(); err != nil {
		return 0, err
	}
	sl.inflight = false
	d, err := cuda.Elapsed(start, end)
	return d / time.Duration(iters), err
}
