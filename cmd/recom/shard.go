package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"github.com/recom-compiler/recom/compiler"
	"github.com/recom-compiler/recom/interp"
	"github.com/recom-compiler/recom/interp/exec"
	"github.com/recom-compiler/recom/lowering/pass"
	"github.com/recom-compiler/recom/lowering/shard"
	"github.com/recom-compiler/recom/runtime/cuda"
	"github.com/recom-compiler/recom/runtime/nccl"
	"github.com/recom-compiler/recom/runtime/shardrt"
	"github.com/recom-compiler/recom/textir"
)

// shardFlags are run's and bench's --shard flags: the embedding layer split
// over N devices by the --shard pass (lowering/shard) and run by
// runtime/shardrt, on one GPU as N streams (streams) or on N GPUs with
// NCCL (nccl).
type shardFlags struct {
	devices int
	options string
	mode    string
}

func (s *shardFlags) add(fl *pflag.FlagSet) {
	fl.IntVar(&s.devices, "shard", 0, "split the embedding layer's tables over `N` devices (--shard pass) and run the layer alone through the sharded runtime: its output is checked and timed, not the dense part")
	fl.StringVar(&s.options, "shard-options", "", "more of the --shard pass's options, e.g. 'row-threshold=0 dense-device=1'")
	fl.StringVar(&s.mode, "shard-mode", string(shardrt.Streams), "how the shards run: streams (every shard on --device, a stream each, device-to-device gathers standing in for the collective) or nccl (shard d on CUDA device d, gathers through NCCL)")
}

func (s *shardFlags) on() bool { return s.devices != 0 }

func (s *shardFlags) check() error {
	if s.devices < 1 || s.devices > 64 {
		return fmt.Errorf("--shard must be 1 to 64 devices, got %d", s.devices)
	}
	for _, o := range strings.Fields(s.options) {
		if strings.HasPrefix(o, "devices=") {
			return fmt.Errorf("--shard-options: give the number of devices with --shard, not %q", o)
		}
	}
	if s.mode != string(shardrt.Streams) && s.mode != string(shardrt.NCCL) {
		return fmt.Errorf("--shard-mode must be %s or %s, got %q", shardrt.Streams, shardrt.NCCL, s.mode)
	}
	return nil
}

// compileSharded compiles the model up to --fuse (no dense part), splits
// its layer with the --shard pass and compiles the split program on to
// the PTX (the LLVM IR with --ptx). The model's outputs become the
// layer's: the one fused.exchange (or, with --shard 1, the layer).
func (f *runFlags) compileSharded(ctx context.Context, path string) (*model, error) {
	if err := f.shard.check(); err != nil {
		return nil, err
	}
	f.shardStop = true
	m, err := f.compileModel(ctx, path)
	f.shardStop = false
	if err != nil {
		return nil, err
	}
	text := fmt.Sprintf("%s{devices=%d %s}", shard.Flag, f.shard.devices, f.shard.options)
	pm, err := pass.ParsePipeline(text)
	if err != nil {
		return nil, fmt.Errorf("--shard-options: %v", err)
	}
	mod := m.res.Module
	if err := pm.Run(m.res.Context, mod); err != nil {
		return nil, err
	}
	if err := textir.Verify(m.res.Context, mod); err != nil {
		return nil, err
	}
	exchanges, layers := shardrt.LayerOps(mod)
	out := layers
	if len(exchanges) > 0 {
		out = exchanges
	}
	if len(out) != 1 {
		return nil, fmt.Errorf("%s: --shard runs one embedding layer; the program has %d", path, len(out))
	}
	m.outputs = []string{exec.OpName(out[0])}
	stop := compiler.StagePTX
	if f.ptx != "" {
		stop = compiler.StageLLVM
	}
	res, err := compiler.CompileModule(ctx, path, m.res.Context, mod, compiler.Options{MCPU: f.mcpu, NoCubin: true, StopAfter: stop})
	if err != nil {
		return nil, err
	}
	m.res.LLVM, m.res.PTX = res.LLVM, res.PTX
	m.res.Stages = append(m.res.Stages, res.Stages...)
	m.setHash()
	return m, nil
}

// shardDriver opens the CUDA driver for the sharded program module (tests
// give a simulated GPU that runs module's kernels).
var shardDriver = func(module *textir.Operation) (*cuda.Driver, error) { return cuda.Open() }

// shardedLayer opens the GPU(s) and makes the sharded layer of m.
func (f *runFlags) shardedLayer(ctx context.Context, m *model, ptx []byte, opts *exec.Options) (*shardrt.Layer, func(), error) {
	drv, err := shardDriver(m.res.Module)
	if err != nil {
		if errors.Is(err, cuda.ErrNoDriver) {
			return nil, nil, fmt.Errorf("recom run and recom bench need an NVIDIA GPU and its driver: %w", err)
		}
		return nil, nil, err
	}
	so := shardrt.Options{Mode: shardrt.Mode(f.shard.mode), Interp: opts}
	var ctxs []*cuda.Context
	closeAll := func() {
		for _, c := range ctxs {
			c.Close()
		}
	}
	ordinals := []int{f.device}
	if so.Mode == shardrt.NCCL {
		n, err := drv.DeviceCount()
		if err != nil {
			return nil, nil, err
		}
		if n < f.shard.devices {
			return nil, nil, fmt.Errorf("--shard-mode=nccl runs shard d on CUDA device d: %d devices asked for, %d visible", f.shard.devices, n)
		}
		ordinals = nil
		for d := range f.shard.devices {
			ordinals = append(ordinals, d)
		}
		if so.NCCL, err = nccl.Open(); err != nil {
			return nil, nil, err
		}
		so.Ordinals = ordinals
	}
	for _, d := range ordinals {
		c, err := drv.NewContext(d)
		if err != nil {
			closeAll()
			return nil, nil, err
		}
		ctxs = append(ctxs, c)
	}
	so.Contexts = ctxs
	l, err := shardrt.New(ctx, m.res.Module, ptx, so)
	if err != nil {
		closeAll()
		return nil, nil, err
	}
	return l, func() { l.Close(); closeAll() }, nil
}

// shardedModel compiles the sharded model and readies what running it
// needs: its PTX and the variables' values. With --emit-ptx it writes the
// PTX instead and returns a nil model.
func (f *runFlags) shardedModel(ctx context.Context, path string, stdout io.Writer) (*model, []byte, *exec.Options, error) {
	m, err := f.compileSharded(ctx, path)
	if err != nil {
		return nil, nil, nil, err
	}
	if f.emitPTX != "" {
		return nil, nil, nil, emitPTX(m, f, stdout)
	}
	ptx, err := m.ptx(f.ptx)
	if err != nil {
		return nil, nil, nil, err
	}
	opts, err := runOptions(f.tables, f.seed, m.weights)
	if err == nil {
		err = materializeTables(m.res.Module, opts)
	}
	if err != nil {
		return nil, nil, nil, err
	}
	return m, ptx, opts, nil
}

// runSharded is recom run --shard: the layer's output from the feeds,
// written to -o and, with --check, compared with the interpreter's value
// of the same tensor on the imported model.
func runSharded(ctx context.Context, path string, f *runFlags, stdout, stderr io.Writer) error {
	m, ptx, opts, err := f.shardedModel(ctx, path, stdout)
	if err != nil || m == nil {
		return err
	}
	feeds, err := readFeeds(f.feeds)
	if err != nil {
		return err
	}
	l, done, err := f.shardedLayer(ctx, m, ptx, opts)
	if err != nil {
		return err
	}
	defer done()
	t0 := time.Now()
	out, err := l.Run(feeds)
	if err != nil {
		return err
	}
	got := map[string]*interp.Tensor{m.outputs[0]: out}
	if err := writeOutputs(f.out, m.outputs, got); err != nil {
		return err
	}
	fmt.Fprintf(stderr, "recom run: %s: the layer in %d shards (%s, packers %v) ran in %.2f ms; wrote %s\n",
		path, l.Shards(), f.shard.mode, l.Packers(), float64(time.Since(t0).Microseconds())/1e3, f.out)
	if !f.check {
		return nil
	}
	return checkAgainstInterp(ctx, m, feeds, f, got, stdout)
}

// benchSharded is recom bench --shard: the sharded layer's latency from
// host feeds to its output in host memory (packing, copies, every shard's
// kernel, the exchange), median and p99 over --iters batches rotating over
// --sets feed sets.
func benchSharded(ctx context.Context, path string, f *benchFlags, stdout, stderr io.Writer) error {
	feedSet, err := f.feedSets(ctx, path)
	if err != nil {
		return err
	}
	m, ptx, opts, err := f.shardedModel(ctx, path, stdout)
	if err != nil || m == nil {
		return err
	}
	l, done, err := f.shardedLayer(ctx, m, ptx, opts)
	if err != nil {
		return err
	}
	defer done()
	sets := make([]map[string]*interp.Tensor, f.sets)
	for i := range sets {
		if sets[i], err = feedSet(f.feedSeed + uint64(i)); err != nil {
			return err
		}
	}
	for i := range f.warmup {
		if _, err := l.Run(sets[i%len(sets)]); err != nil {
			return err
		}
	}
	wall := make([]float64, f.iters)
	dev := make([]float64, f.iters)
	for i := range f.iters {
		t0 := time.Now()
		if _, err := l.Run(sets[i%len(sets)]); err != nil {
			return err
		}
		wall[i] = float64(time.Since(t0).Nanoseconds()) / 1e3
		dev[i] = float64(l.DeviceTime().Nanoseconds()) / 1e3
	}
	slices.Sort(wall)
	slices.Sort(dev)
	q := func(v []float64, p float64) float64 { return v[min(len(v)-1, int(p*float64(len(v))))] }
	devText := "" // the exchange's events time the device part; one shard has none
	if q(dev, 0.5) > 0 {
		devText = fmt.Sprintf(" device_median_us=%.1f", q(dev, 0.5))
	}
	fmt.Fprintf(stdout, "SHARD devices=%d mode=%s batch=%d iters=%d median_us=%.1f p99_us=%.1f%s packers=%v\n",
		l.Shards(), f.shard.mode, f.batch, f.iters, q(wall, 0.5), q(wall, 0.99), devText, l.Packers())
	return nil
}
