package main

import (
	"context"
	"crypto/sha256"
	_ "embed"
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"slices"
	"time"

	"github.com/spf13/cobra"

	"github.com/recom-compiler/recom/backend/llc"
	"github.com/recom-compiler/recom/compiler"
	"github.com/recom-compiler/recom/runtime/cuda"
	"github.com/recom-compiler/recom/textir/inputfile"
)

func init() { subcommands = append(subcommands, newGPUSmokeCmd) }

// gpuSmokeKernels are the smoke test's kernels in the gpu dialect.
//
//go:embed testdata/gpusmoke.mlir
var gpuSmokeKernels []byte

const gpuSmokeHelp = `Runs recom's own kernels on the GPU through the CUDA driver (runtime/cuda)
and checks them against the CPU:

  (a) vadd4: c = a + b with 16-byte (width 4) loads and stores;
  (b) bag_sum: a CSR segmented sum like an embedding bag (random table,
      random bags of 0..--max-len ids, empty ones included, --dim/4 threads
      a bag), timed with device events after warm-up (median of --iters
      launches) and as CUDA graph replays (a one-kernel graph, median of
      --iters replays; and one graph of --iters kernels, per kernel).

The kernels are testdata/gpusmoke.mlir (embedded), emitted by backend/nvptx
and compiled to PTX by llc-19. The GPU machine has no llc-19: make the PTX
where llc-19 is with --emit-ptx FILE (no GPU needed), carry it, and run
with --ptx FILE there (bench/device-smoke.sh does both).

Exit status 1 on any mismatch, and when there is no CUDA driver
("no CUDA driver: libcuda.so.1 not found").`

type gpuSmokeFlags struct {
	ptx, emitPTX, mcpu string
	device             int
	n                  int64
	bags, rows         int64
	dim, maxLen, iters int
	warmup             int
	seed               uint64
}

func newGPUSmokeCmd(stdin io.Reader, stdout, stderr io.Writer) *cobra.Command {
	var f gpuSmokeFlags
	cmd := &cobra.Command{
		Use:   "gpu-smoke [--ptx FILE | --emit-ptx FILE]",
		Short: "run, check and time recom's vector-add and embedding-bag kernels on the GPU",
		Long:  gpuSmokeHelp,
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if f.ptx == "" {
				if err := llc.CheckCPU(f.mcpu); err != nil {
					return fmt.Errorf("--mcpu: %w", err)
				}
			}
			if f.emitPTX != "" {
				ptx, err := gpuSmokePTX(cmd.Context(), f.mcpu)
				if err != nil {
					return err
				}
				if err := writeOutput(f.emitPTX, ptx); err != nil {
					return err
				}
				fmt.Fprintf(stdout, "wrote %s (%d bytes of PTX, sha256 %x)\n", f.emitPTX, len(ptx), sha256.Sum256(ptx))
				return nil
			}
			return runGPUSmoke(cmd.Context(), f, stdout)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&f.ptx, "ptx", "", "load the kernels from this PTX file (default: compile the built-in kernels with llc-19 now)")
	fl.StringVar(&f.emitPTX, "emit-ptx", "", "write the built-in kernels' PTX to `FILE` and exit (needs llc-19, no GPU)")
	fl.StringVar(&f.mcpu, "mcpu", llc.DefaultCPU, "the target GPU of the PTX (llc's -mcpu)")
	fl.IntVar(&f.device, "device", 0, "the CUDA device ordinal")
	fl.Int64Var(&f.n, "n", 1<<25, "vadd4: elements of each vector (a multiple of 4)")
	fl.Int64Var(&f.bags, "bags", 1<<20, "bag_sum: number of bags")
	fl.Int64Var(&f.rows, "rows", 4<<20, "bag_sum: rows of the table")
	fl.IntVar(&f.dim, "dim", 16, "bag_sum: floats per row (a multiple of 4)")
	fl.IntVar(&f.maxLen, "max-len", 20, "bag_sum: bag lengths are uniform in 0..max-len")
	fl.IntVar(&f.iters, "iters", 100, "timed launches (the median is reported)")
	fl.IntVar(&f.warmup, "warmup", 10, "untimed launches before timing")
	fl.Uint64Var(&f.seed, "seed", 1, "seed of the random inputs")
	return cmd
}

// gpuSmokePTX compiles the embedded kernels, IR of the gpu stage, through
// the compiler's backend stages: parse, verify, emit NVPTX LLVM IR, llc-19.
func gpuSmokePTX(ctx context.Context, mcpu string) ([]byte, error) {
	if ctx == nil {
		ctx = context.Background()
	}
	res, err := compiler.CompileBytes(ctx, "gpusmoke.mlir", gpuSmokeKernels,
		compiler.Options{MCPU: mcpu, NoCubin: true, StopAfter: compiler.StagePTX})
	if err != nil {
		return nil, err
	}
	return res.PTX, nil
}

// bagInputs are the inputs of bag_sum.
type bagInputs struct {
	offsets, ids []int64 // CSR: bag r is ids[offsets[r]:offsets[r+1]]
	table        []float32
	dim          int
}

// genBags makes a random table and random bags of 0..maxLen ids (bag 0
// and the last bag are empty).
func genBags(rng *rand.Rand, bags, rows int64, dim, maxLen int) *bagInputs {
	in := &bagInputs{offsets: make([]int64, bags+1), table: make([]float32, rows*int64(dim)), dim: dim}
	for i := range in.table {
		in.table[i] = rng.Float32()*2 - 1
	}
	for r := int64(0); r < bags; r++ {
		n := int64(rng.IntN(maxLen + 1))
		if r == 0 || r == bags-1 {
			n = 0
		}
		in.offsets[r+1] = in.offsets[r] + n
	}
	in.ids = make([]int64, in.offsets[bags])
	for k := range in.ids {
		in.ids[k] = rng.Int64N(rows)
	}
	return in
}

// cpuBagSum is bag_sum on the CPU, summing in the kernel's order.
func cpuBagSum(in *bagInputs) []float32 {
	bags := len(in.offsets) - 1
	out := make([]float32, bags*in.dim)
	for r := 0; r < bags; r++ {
		o := out[r*in.dim : (r+1)*in.dim]
		for _, id := range in.ids[in.offsets[r]:in.offsets[r+1]] {
			row := in.table[int(id)*in.dim : (int(id)+1)*in.dim]
			for j := range o {
				o[j] += row[j]
			}
		}
	}
	return out
}

// mismatch compares got with want; a value may differ by tol relative to
// max(1, |want|). It returns the number of mismatches, the first one's
// index (-1 if none) and the largest absolute difference.
func mismatch(got, want []float32, tol float64) (bad, first int, maxDiff float64) {
	first = -1
	for i := range want {
		d := math.Abs(float64(got[i]) - float64(want[i]))
		if math.IsNaN(d) {
			d = math.Inf(1)
		}
		maxDiff = max(maxDiff, d)
		if d > tol*max(1, math.Abs(float64(want[i]))) {
			if first < 0 {
				first = i
			}
			bad++
		}
	}
	return bad, first, maxDiff
}

// eventTimer times work on a stream with two events (recom gpu-smoke and
// recom bench).
type eventTimer struct {
	s          *cuda.Stream
	start, end *cuda.Event
}

func (t *eventTimer) time(work func() error) (time.Duration, error) {
	if err := t.start.Record(t.s); err != nil {
		return 0, err
	}
	if err := work(); err != nil {
		return 0, err
	}
	if err := t.end.Record(t.s); err != nil {
		return 0, err
	}
	if err := t.end.Synchronize(); err != nil {
		return 0, err
	}
	return cuda.Elapsed(t.start, t.end)
}

// median runs work warmup times, then times it n times and returns the
// median and the minimum.
func (t *eventTimer) median(warmup, n int, work func() error) (med, lo time.Duration, err error) {
	for range warmup {
		if err := work(); err != nil {
			return 0, 0, err
		}
	}
	ds := make([]time.Duration, 0, n)
	for range n {
		d, err := t.time(work)
		if err != nil {
			return 0, 0, err
		}
		ds = append(ds, d)
	}
	slices.Sort(ds)
	return ds[len(ds)/2], ds[0], nil
}

func usString(d time.Duration) string { return fmt.Sprintf("%.2f µs", float64(d)/1e3) }

func runGPUSmoke(ctx context.Context, f gpuSmokeFlags, w io.Writer) error {
	if f.n <= 0 || f.n%4 != 0 || f.bags <= 0 || f.rows <= 0 || f.dim <= 0 || f.dim%4 != 0 || f.maxLen < 0 || f.iters <= 0 || f.warmup < 0 {
		return fmt.Errorf("gpu-smoke: --n and --dim must be positive multiples of 4, --bags, --rows and --iters positive")
	}
	drv, err := cuda.Open()
	if err != nil {
		return err
	}
	var ptx []byte
	if f.ptx != "" {
		if ptx, err = inputfile.Read(f.ptx); err != nil {
			return err
		}
	} else if ptx, err = gpuSmokePTX(ctx, f.mcpu); err != nil {
		if errors.Is(err, llc.ErrNotFound) {
			return fmt.Errorf("%w; make the PTX elsewhere with --emit-ptx and pass it with --ptx", err)
		}
		return err
	}
	c, err := drv.NewContext(f.device)
	if err != nil {
		return err
	}
	defer c.Close()
	fmt.Fprintf(w, "device %d: %v, driver CUDA %d.%d\n", f.device, c.Device(), drv.Version()/1000, drv.Version()%1000/10)
	mod, err := c.LoadModule(ptx)
	if err != nil {
		return err
	}
	defer mod.Close()
	fmt.Fprintf(w, "module: %d bytes of PTX (sha256 %x)\n", len(ptx), sha256.Sum256(ptx))
	fns := map[string]*cuda.Function{}
	for _, name := range []string{"vadd4", "bag_sum"} {
		fn, err := mod.Function(name)
		if err != nil {
			return err
		}
		regs, err := fn.Attribute(cuda.FuncNumRegs)
		if err != nil {
			return err
		}
		fmt.Fprintf(w, "kernel %s: %d parameters, %d registers\n", name, fn.NumParams(), regs)
		fns[name] = fn
	}
	s, err := c.NewStream()
	if err != nil {
		return err
	}
	defer s.Close()
	start, err := c.NewEvent()
	if err != nil {
		return err
	}
	defer start.Close()
	end, err := c.NewEvent()
	if err != nil {
		return err
	}
	defer end.Close()
	tm := &eventTimer{s: s, start: start, end: end}
	rng := rand.New(rand.NewPCG(f.seed, 0x5eed))

	okA, err := smokeVadd(w, c, fns["vadd4"], tm, rng, f)
	if err != nil {
		return err
	}
	okB, err := smokeBagSum(w, c, fns["bag_sum"], tm, rng, f)
	if err != nil {
		return err
	}
	if !okA || !okB {
		fmt.Fprintln(w, "gpu-smoke: FAIL")
		return exitError(1)
	}
	fmt.Fprintln(w, "gpu-smoke: PASS")
	return nil
}

// devBuffers allocates and fills device copies of host slices; close
// frees them all.
type devBuffers []*cuda.DevicePtr

func (b *devBuffers) close() {
	for _, p := range *b {
		p.Close()
	}
}

func upload[T cuda.Elem](c *cuda.Context, bufs *devBuffers, host []T, bytes int64) (*cuda.DevicePtr, error) {
	p, err := c.Alloc(bytes)
	if err != nil {
		return nil, err
	}
	*bufs = append(*bufs, p)
	if host != nil {
		err = cuda.CopyToDevice(p, host)
	}
	return p, err
}

func smokeVadd(w io.Writer, c *cuda.Context, fn *cuda.Function, tm *eventTimer, rng *rand.Rand, f gpuSmokeFlags) (bool, error) {
	n := f.n
	a, b := make([]float32, n), make([]float32, n)
	for i := range a {
		a[i], b[i] = rng.Float32(), rng.Float32()
	}
	var bufs devBuffers
	defer bufs.close()
	da, err := upload(c, &bufs, a, 4*n)
	if err != nil {
		return false, err
	}
	db, err := upload(c, &bufs, b, 4*n)
	if err != nil {
		return false, err
	}
	dc, err := upload[float32](c, &bufs, nil, 4*n)
	if err != nil {
		return false, err
	}
	if err := dc.Memset8(0xff); err != nil { // poison: NaN everywhere
		return false, err
	}
	const block = 256
	grid := int((n/4 + block - 1) / block)
	launch := func() error { return fn.Launch(cuda.Dim(grid), cuda.Dim(block), 0, tm.s, da, db, dc, n) }
	if err := launch(); err != nil {
		return false, err
	}
	got := make([]float32, n)
	if err := tm.s.Synchronize(); err != nil {
		return false, err
	}
	if err := cuda.CopyFromDevice(got, dc); err != nil {
		return false, err
	}
	want := make([]float32, n)
	for i := range want {
		want[i] = a[i] + b[i]
	}
	bad, first, maxDiff := mismatch(got, want, 0)
	med, lo, err := tm.median(f.warmup, f.iters, launch)
	if err != nil {
		return false, err
	}
	bytes := float64(12 * n)
	fmt.Fprintf(w, "(a) vadd4 n=%d: %d mismatches (max |diff| %g); median %s (min %s) of %d, %.2f TB/s (12 bytes/element)\n",
		n, bad, maxDiff, usString(med), usString(lo), f.iters, bytes/med.Seconds()/1e12)
	if bad > 0 {
		fmt.Fprintf(w, "(a) MISMATCH at %d: got %v, want %v\n", first, got[first], want[first])
	}
	return bad == 0, nil
}

func smokeBagSum(w io.Writer, c *cuda.Context, fn *cuda.Function, tm *eventTimer, rng *rand.Rand, f gpuSmokeFlags) (bool, error) {
	in := genBags(rng, f.bags, f.rows, f.dim, f.maxLen)
	want := cpuBagSum(in)
	lookups := int64(len(in.ids))
	empty := 0
	for r := range f.bags {
		if in.offsets[r] == in.offsets[r+1] {
			empty++
		}
	}
	var bufs devBuffers
	defer bufs.close()
	dOff, err := upload(c, &bufs, in.offsets, 8*int64(len(in.offsets)))
	if err != nil {
		return false, err
	}
	dIDs, err := upload(c, &bufs, in.ids, 8*max(lookups, 1))
	if err != nil {
		return false, err
	}
	dTab, err := upload(c, &bufs, in.table, 4*int64(len(in.table)))
	if err != nil {
		return false, err
	}
	dOut, err := upload[float32](c, &bufs, nil, 4*int64(len(want)))
	if err != nil {
		return false, err
	}
	d4 := int64(f.dim / 4)
	const block = 256
	grid := int((f.bags*d4 + block - 1) / block)
	launch := func() error {
		return fn.Launch(cuda.Dim(grid), cuda.Dim(block), 0, tm.s, dOff, dIDs, dTab, dOut, f.bags, d4)
	}
	check := func(what string) (bool, error) {
		if err := tm.s.Synchronize(); err != nil {
			return false, err
		}
		got := make([]float32, len(want))
		if err := cuda.CopyFromDevice(got, dOut); err != nil {
			return false, err
		}
		bad, first, maxDiff := mismatch(got, want, 1e-5)
		fmt.Fprintf(w, "(b) bag_sum %s: %d mismatches of %d (max |diff| %g)\n", what, bad, len(want), maxDiff)
		if bad > 0 {
			fmt.Fprintf(w, "(b) MISMATCH at bag %d, float %d: got %v, want %v\n", first/f.dim, first%f.dim, got[first], want[first])
		}
		return bad == 0, nil
	}
	fmt.Fprintf(w, "(b) bag_sum: %d bags (%d empty), %d rows x %d floats (%.0f MB table), %d lookups\n",
		f.bags, empty, f.rows, f.dim, float64(len(in.table))*4/1e6, lookups)
	if err := dOut.Memset8(0xff); err != nil {
		return false, err
	}
	if err := launch(); err != nil {
		return false, err
	}
	ok, err := check("launch")
	if err != nil {
		return false, err
	}
	rowBytes := float64(max(4*f.dim, 64))
	bytes := float64(lookups)*(rowBytes+8) + float64(8*(f.bags+1)) + float64(4*int64(len(want)))
	report := func(what string, d time.Duration) {
		fmt.Fprintf(w, "(b) bag_sum %s: %s, %.2f TB/s (rows+ids+offsets+out), %.1f G rows/s\n",
			what, usString(d), bytes/d.Seconds()/1e12, float64(lookups)/d.Seconds()/1e9)
	}
	med, lo, err := tm.median(f.warmup, f.iters, launch)
	if err != nil {
		return false, err
	}
	report(fmt.Sprintf("launch, median of %d (min %s)", f.iters, usString(lo)), med)

	// The same launch captured into a graph, replayed.
	if err := dOut.Memset8Async(0xff, tm.s); err != nil {
		return false, err
	}
	if err := tm.s.BeginCapture(); err != nil {
		return false, err
	}
	if err := launch(); err != nil {
		return false, err
	}
	g1, err := tm.s.EndCapture()
	if err != nil {
		return false, err
	}
	defer g1.Close()
	med, lo, err = tm.median(f.warmup, f.iters, func() error { return g1.Launch(tm.s) })
	if err != nil {
		return false, err
	}
	report(fmt.Sprintf("graph replay (%d node), median of %d (min %s)", g1.Nodes(), f.iters, usString(lo)), med)
	okG, err := check("after graph replays")
	if err != nil {
		return false, err
	}
	// A graph of iters launches back to back: the kernel's time without
	// launch gaps.
	if err := tm.s.BeginCapture(); err != nil {
		return false, err
	}
	for range f.iters {
		if err := launch(); err != nil {
			return false, err
		}
	}
	gN, err := tm.s.EndCapture()
	if err != nil {
		return false, err
	}
	defer gN.Close()
	med, _, err = tm.median(1, 5, func() error { return gN.Launch(tm.s) })
	if err != nil {
		return false, err
	}
	report(fmt.Sprintf("in a graph of %d kernels, per kernel (median of 5 replays)", gN.Nodes()), med/time.Duration(f.iters))
	return ok && okG, nil
}

// queuedMedian times n launches on s, each between its own pair of
// events, all enqueued before the first is waited for: the GPU runs them
// one after the other without waiting for the host between them, so
// each pair measures the launch's work on the device alone (without the
// host's submission, which a launch on an idle stream includes). It
// returns the median.
func queuedMedian(c *cuda.Context, s *cuda.Stream, n int, launch func(it int) error) (time.Duration, error) {
	if n <= 0 {
		return 0, fmt.Errorf("queued timing: no launches")
	}
	evs := make([]*cuda.Event, 0, 2*n)
	defer func() {
		for _, e := range evs {
			e.Close()
		}
	}()
	for range 2 * n {
		e, err := c.NewEvent()
		if err != nil {
			return 0, err
		}
		evs = append(evs, e)
	}
	for it := range n {
		if err := evs[2*it].Record(s); err != nil {
			return 0, err
		}
		if err := launch(it); err != nil {
			return 0, err
		}
		if err := evs[2*it+1].Record(s); err != nil {
			return 0, err
		}
	}
	if err := evs[2*n-1].Synchronize(); err != nil {
		return 0, err
	}
	ds := make([]time.Duration, n)
	for it := range n {
		d, err := cuda.Elapsed(evs[2*it], evs[2*it+1])
		if err != nil {
			return 0, err
		}
		ds[it] = d
	}
	slices.Sort(ds)
	return ds[n/2], nil
}
