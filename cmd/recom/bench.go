package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"
	"unsafe"

	"github.com/spf13/cobra"

	"github.com/recom-compiler/recom/compiler"
	"github.com/recom-compiler/recom/dialects/fused/abi"
	"github.com/recom-compiler/recom/frontend/gen"
	"github.com/recom-compiler/recom/frontend/graphdef"
	"github.com/recom-compiler/recom/interp"
	"github.com/recom-compiler/recom/interp/exec"
	"github.com/recom-compiler/recom/interp/npz"
	"github.com/recom-compiler/recom/runtime/cuda"
	"github.com/recom-compiler/recom/runtime/fusedrt"
	"github.com/recom-compiler/recom/runtime/hostpack"
)

const benchHelp = `Times the embedding layer of MODEL on the GPU at batch --batch. The feeds
of a model recom gen made are drawn from its spec; those of any other
GraphDef or SavedModel as recom gen --feeds draws them (what the graph does
with each placeholder). The variables are the model's trained weights when
it has them (a SavedModel directory, or --checkpoint with a GraphDef), as
for recom run.

--sets distinct random feed sets are run through the program (the
interpreter computes the ids on the CPU; the layer runs on the GPU once per
set, which also gives the reference output of each set). Their packed
inputs are copied to the device as several buffers (copies of the sets, at
least --rotate-bytes in all) so that the L2 does not hold them; each buffer
has its output arena and a CUDA graph of one launch. After --warmup replays,
--iters replays rotating over the buffers are timed one by one with device
events (median and minimum reported: each replay is launched on an idle
stream and waited for, so its time includes the host's submission of the
launch), once back to back (mean), and once queued (queued_median_us:
every replay between its own pair of events, all enqueued before the
first is waited for, so that the GPU never waits for the host: the
median of the layer's time on the device alone). The output of a replay
is checked (bitwise) against the first run's.

Reported: the layer's time, lookups (rows) per second, the effective
bandwidth (table bytes in 32-byte sectors of the rows read, plus the packed
inputs and the output), and PERF.md's floor: max(bytes / 4.3 TB/s, lookups /
33e9 per s) with bytes = lookups x max(4D, 64) (tables larger than the L2
only) + lookups x 8 + the output.

--dump-inputs DIR writes, for the peers (bench/peers.py), the tables arena
(tables.npy, float32), meta.json (columns: kind, combiner, rows, width,
table_offset, out_offset, weighted; batch; sets) and, per set s,
ids_s.npy (int64, every column's ids in column order), splits_s.npy
(int64 [C, B+1], offsets into ids_s), weights_s.npy (float32, 1 where
unweighted) and out_s.npy (our output, float32 [B, width]). With --e2e it
also writes the session's plan after the layer (dense.json: the dense
layers with K×N weights dense_w_I.npy, biases dense_b_I.npy, activation
and accumulation; the host steps after the graph with their ops,
attributes and constant operands dense_c_J_K.npy; the outputs), the dense
inputs (dense_in_NAME_s.npy: feeds, or values computed on the host before
the graph, as the interpreter computes them) and the session's outputs
(dense_out_K_s.npy) of the same sets.

--e2e then times the whole model end to end in the native runtime
(runtime/session, as recom run --runtime=native runs it): max(--sets, 4)
feed sets in host memory, rotated; "E2E batch=B ... median_us p99_us" is
the latency of single batches from host feeds to host outputs (at least
200, or --iters), "E2E batch=B in_flight=K ... samples_per_s" the
throughput with K batches in flight (K = 1, 2, 4), then the session's step
costs.`

type benchFlags struct {
	runFlags
	batch, sets, iters, warmup int
	rotate                     int64
	feedSeed                   uint64
	dump                       string
	e2e                        bool
	cpuProfile                 string
	packSpin                   time.Duration
}

func newBenchCmd(stdin io.Reader, stdout, stderr io.Writer) *cobra.Command {
	var f benchFlags
	cmd := &cobra.Command{
		Use:   "bench MODEL --batch B [--schedule tuned|recom] [--ptx FILE]",
		Short: "time the compiled embedding layer on the GPU (CUDA graph replays, device events)",
		Long:  benchHelp,
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runBench(cmd.Context(), args[0], &f, stdout, stderr)
		},
	}
	fl := cmd.Flags()
	f.common(fl)
	fl.IntVar(&f.batch, "batch", 256, "batch size")
	fl.IntVar(&f.sets, "sets", 4, "distinct random feed sets")
	fl.IntVar(&f.iters, "iters", 200, "timed graph replays (the median is reported)")
	fl.IntVar(&f.warmup, "warmup", 20, "untimed replays before timing")
	fl.Int64Var(&f.rotate, "rotate-bytes", 256<<20, "packed-input bytes to rotate over, at least (copies of the sets)")
	fl.Uint64Var(&f.feedSeed, "feed-seed", 1, "seed of the first feed set (set i uses feed-seed+i)")
	fl.StringVar(&f.dump, "dump-inputs", "", "write the tables, the per-column inputs and our outputs as .npy files to `DIR`")
	fl.DurationVar(&f.packSpin, "pack-spin", -1, "how long the packers' idle workers keep looking for work before they sleep (hostpack.SetSpinWait; negative: its default, 500µs)")
	fl.StringVar(&f.cpuProfile, "cpuprofile", "", "write a CPU profile of the --e2e timing (the host side of the native runtime) to `FILE`")
	fl.BoolVar(&f.e2e, "e2e", false, "also time the whole model end to end in the native runtime (runtime/session): feeds in host memory to outputs in host memory, latency median and p99 of single batches, throughput with 1, 2 and 4 in flight")
	return cmd
}

// benchStats are the counts behind the reported rates.
type benchStats struct {
	lookups     int64   // ids over all columns
	sectorBytes float64 // table bytes read in 32-byte sectors
	floorBytes  float64 // PERF.md's byte count
	inputBytes  int64
	outBytes    int64
}

func layerStats(l *abi.Layer, r *fusedrt.Run) benchStats {
	var s benchStats
	tableBytes := 4 * l.TableFloats
	inL2 := tableBytes <= 50<<20 // H200: 60 MiB of L2, some of it for the inputs and output
	for i := range l.Columns {
		c := &l.Columns[i]
		n := int64(r.Cols[i].Len())
		if c.Source == abi.SourceSplit && r.Cols[i].Values != nil {
			n = 0 // tokens, not strings
			for _, str := range r.Cols[i].Values.Strings() {
				n += int64(strings.Count(str, c.Sep)) + 1
			}
		}
		s.lookups += n
		row := 4 * c.Width
		s.sectorBytes += float64(n * ((row + 31) / 32 * 32))
		if !inL2 {
			s.floorBytes += float64(n * max(row, 64))
		}
		s.floorBytes += float64(8 * n)
	}
	s.inputBytes = int64(len(r.Packed.Inputs))
	s.outBytes = 4 * r.Packed.Batch * l.Width
	s.floorBytes += float64(s.outBytes)
	return s
}

func runBench(ctx context.Context, path string, f *benchFlags, stdout, stderr io.Writer) error {
	if ctx == nil {
		ctx = context.Background()
	}
	if f.batch < 1 || f.sets < 1 || f.iters < 1 || f.warmup < 0 {
		return errors.New("bench: --batch, --sets and --iters must be positive")
	}
	if f.packSpin >= 0 {
		hostpack.SetSpinWait(f.packSpin)
	}
	if f.cpuProfile != "" && !f.e2e {
		return errors.New("bench: --cpuprofile profiles the --e2e timing: give --e2e")
	}
	if f.shard.on() {
		return benchSharded(ctx, path, f, stdout, stderr)
	}
	feedSet, err := f.feedSets(ctx, path)
	if err != nil {
		return err
	}
	m, err := f.compileModel(ctx, path)
	if err != nil {
		return err
	}
	if f.emitPTX != "" {
		return emitPTX(m, &f.runFlags, stdout)
	}
	ptx, err := m.ptx(f.ptx)
	if err != nil {
		return err
	}
	opts, err := runOptions(f.tables, f.seed, m.weights)
	if err != nil {
		return err
	}
	fmt.Fprintf(stderr, "recom bench: %s\n", weightsNote(m.weights, f.tables))
	t0 := time.Now()
	if err := materializeTables(m.res.Module, opts); err != nil {
		return err
	}
	tTables := time.Since(t0)
	g, err := openGPU(f.device, ptx)
	if err != nil {
		return err
	}
	defer g.close()
	g.rt.Record = true
	g.install(m, opts)
	t0 = time.Now()
	for i := range f.sets {
		feeds, err := feedSet(f.feedSeed + uint64(i))
		if err != nil {
			return err
		}
		if _, err := exec.Run(ctx, m.res.Module, feeds, m.outputs, opts); err != nil {
			return err
		}
	}
	tSets := time.Since(t0)
	layers := g.rt.Layers()
	if len(layers) != 1 {
		if !f.e2e || f.dump != "" {
			return fmt.Errorf("bench: the program ran %d embedding layers; bench times exactly one (--e2e without --dump-inputs times the whole model of several)", len(layers))
		}
		// A model of several layers (a two-tower model's towers): no
		// layer alone to time; the whole model end to end.
		fmt.Fprintf(stderr, "recom bench: %s: %d embedding layers: timing the whole model only (--e2e)\n", path, len(layers))
		return f.benchE2E(ctx, m, ptx, feedSet, opts, g.c, stdout)
	}
	l := layers[0]
	fmt.Fprintf(stderr, "recom bench: %s: compiled in %.2f s (schedule=%s), tables drawn in %.2f s, %d feed sets run in %.2f s\n",
		path, m.compileT.Seconds(), f.schedule, tTables.Seconds(), f.sets, tSets.Seconds())
	if f.dump != "" {
		if err := dumpInputs(f.dump, g.rt, l); err != nil {
			return err
		}
		fmt.Fprintf(stderr, "recom bench: wrote the inputs of %d sets to %s\n", len(l.Runs), f.dump)
	}
	if err := timeDense(g, f.warmup, f.iters, stdout); err != nil {
		return err
	}
	if err := timeLayer(g, l, f, stdout); err != nil {
		return err
	}
	if !f.e2e {
		return nil
	}
	return f.benchE2E(ctx, m, ptx, feedSet, opts, g.c, stdout)
}

// feedSets returns what draws bench's feed sets for the model at path, by
// seed: a generated model's spec (gen.Feeds), else the graph's
// placeholders as recom gen --feeds draws them (gen.GraphFeeds on the
// imported, cut graph).
func (f *benchFlags) feedSets(ctx context.Context, path string) (func(seed uint64) (map[string]*interp.Tensor, error), error) {
	named := func(arrays []npz.Array) map[string]*interp.Tensor {
		feeds := map[string]*interp.Tensor{}
		for _, a := range arrays {
			feeds[tensorName(a.Name)] = a.Tensor
		}
		return feeds
	}
	if st, err := os.Stat(path); err == nil && !st.IsDir() && !strings.HasSuffix(path, ".mlir") {
		gf, err := graphdef.Load(path, graphTags(f.model.tags)...)
		if err != nil {
			return nil, err
		}
		spec, err := gen.SpecFromGraph(gf.Graph)
		switch {
		case err == nil:
			return func(seed uint64) (map[string]*interp.Tensor, error) {
				arrays, err := gen.Feeds(spec, f.batch, seed)
				return named(arrays), err
			}, nil
		case !errors.Is(err, gen.ErrNoSpec):
			return nil, fmt.Errorf("%s: %w", path, err)
		}
	}
	opts := compiler.Options{StopAfter: compiler.StageImport, Outputs: f.outputs, NoWeights: true, Tags: f.model.tags, Signature: f.model.signature}
	if strings.HasSuffix(path, ".mlir") {
		opts.Outputs = nil
	}
	res, err := compiler.Compile(ctx, path, opts)
	if err != nil {
		return nil, err
	}
	aliases := map[string]string{}
	for tensor, ph := range res.Placeholders {
		aliases[tensor] = ph
	}
	return func(seed uint64) (map[string]*interp.Tensor, error) {
		arrays, _, err := gen.GraphFeeds(ctx, res.Module, gen.GraphFeedOptions{Batch: f.batch, Seed: seed, Aliases: aliases})
		if err != nil {
			return nil, fmt.Errorf("%s: drawing feeds: %w", path, err)
		}
		return named(arrays), nil
	}, nil
}

// graphTags are the graphdef options that select a SavedModel's MetaGraph
// by the --tags given (none: the default).
func graphTags(tags []string) []graphdef.Option {
	if len(tags) == 0 {
		return nil
	}
	return []graphdef.Option{graphdef.WithTags(tags...)}
}

func timeLayer(g *gpuSession, l *fusedrt.Layer, f *benchFlags, stdout io.Writer) error {
	runs := l.Runs
	p0 := runs[0].Packed
	for _, r := range runs {
		if r.Packed.Grid != p0.Grid || r.Packed.Tasks != p0.Tasks || r.Packed.Batch != p0.Batch {
			return errors.New("bench: the feed sets gave different launch shapes")
		}
	}
	inBytes := int64(0) // the sets' ids counts differ: size for the largest
	for _, r := range runs {
		inBytes = max(inBytes, int64(len(r.Packed.Inputs))+r.Packed.Scratch)
	}
	nbuf := len(runs)
	if total := inBytes * int64(nbuf); total < f.rotate {
		nbuf = int(min((f.rotate+inBytes*int64(len(runs))-1)/(inBytes*int64(len(runs))), 64)) * len(runs)
	}
	outBytes := 4 * p0.Batch * l.Layer.Width
	nout := nbuf
	if outBytes*int64(nbuf) > 2<<30 {
		nout = 1
	}
	var bufs []*cuda.DevicePtr
	defer func() {
		for _, b := range bufs {
			b.Close()
		}
	}()
	ins := make([]*cuda.DevicePtr, nbuf)
	outs := make([]*cuda.DevicePtr, nout)
	graphs := make([]*cuda.Graph, nbuf)
	defer func() {
		for _, gr := range graphs {
			if gr != nil {
				gr.Close()
			}
		}
	}()
	for j := range nbuf {
		d, err := g.c.Alloc(max(inBytes, 4))
		if err != nil {
			return err
		}
		bufs = append(bufs, d)
		if err := cuda.CopyToDevice(d, runs[j%len(runs)].Packed.Inputs); err != nil {
			return err
		}
		ins[j] = d
	}
	for j := range nout {
		d, err := g.c.Alloc(max(outBytes, 4))
		if err != nil {
			return err
		}
		bufs = append(bufs, d)
		outs[j] = d
	}
	for j := range nbuf {
		gr, err := g.rt.Capture(l, runs[j%len(runs)].Packed, ins[j], outs[j%nout])
		if err != nil {
			return err
		}
		graphs[j] = gr
	}
	s := g.rt.Stream()
	start, err := g.c.NewEvent()
	if err != nil {
		return err
	}
	defer start.Close()
	end, err := g.c.NewEvent()
	if err != nil {
		return err
	}
	defer end.Close()
	// Check: a poisoned output, one replay of each set's graph, bitwise
	// equal to the set's first (checked) run.
	for j := range min(nbuf, len(runs)) {
		o := outs[j%nout]
		if err := o.Memset8(0xff); err != nil {
			return err
		}
		if err := graphs[j].Launch(s); err != nil {
			return err
		}
		if err := s.Synchronize(); err != nil {
			return err
		}
		got := make([]float32, outBytes/4)
		if err := cuda.CopyFromDevice(got, o); err != nil {
			return err
		}
		want := runs[j].Out
		for i := range got {
			if math.Float32bits(got[i]) != math.Float32bits(want[i]) {
				return fmt.Errorf("bench: graph replay of set %d differs from its launch at element %d: %g vs %g", j, i, got[i], want[i])
			}
		}
	}
	for it := range f.warmup {
		if err := graphs[it%nbuf].Launch(s); err != nil {
			return err
		}
	}
	tm := &eventTimer{s: s, start: start, end: end}
	ds := make([]time.Duration, 0, f.iters)
	for it := range f.iters {
		d, err := tm.time(func() error { return graphs[it%nbuf].Launch(s) })
		if err != nil {
			return err
		}
		ds = append(ds, d)
	}
	slices.Sort(ds)
	med, lo := ds[len(ds)/2], ds[0]
	qmed, err := queuedMedian(g.c, s, f.iters, func(it int) error { return graphs[it%nbuf].Launch(s) })
	if err != nil {
		return err
	}
	b2b, err := tm.time(func() error {
		for it := range f.iters {
			if err := graphs[it%nbuf].Launch(s); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	b2b /= time.Duration(f.iters)

	st := layerStats(l.Layer, &runs[0])
	sec := med.Seconds()
	eff := (st.sectorBytes + float64(st.inputBytes+st.outBytes)) / sec
	floor := max(st.floorBytes/4.3e12, float64(st.lookups)/33e9)
	regs, _ := l.Fn.Attribute(cuda.FuncNumRegs)
	local, _ := l.Fn.Attribute(cuda.FuncLocalSizeBytes)
	fmt.Fprintf(stdout, "bench: %d columns, batch %d, schedule=%s: grid %d x %d threads, %d tasks, %d registers, %d B local; %d lookups, %.1f MB rows (32-B sectors), %.2f MB packed inputs, %.2f MB output; rotating %d buffers\n",
		len(l.Layer.Columns), p0.Batch, f.schedule, p0.Grid, p0.Block, p0.Tasks, regs, local, st.lookups, st.sectorBytes/1e6, float64(st.inputBytes)/1e6, float64(st.outBytes)/1e6, nbuf)
	fmt.Fprintf(stdout, "BENCH schedule=%s batch=%d median_us=%.2f min_us=%.2f b2b_us=%.2f queued_median_us=%.2f grows_per_s=%.2f eff_TBps=%.3f floor_us=%.2f ratio_to_floor=%.2f\n",
		f.schedule, p0.Batch, us(med), us(lo), us(b2b), us(qmed), float64(st.lookups)/sec/1e9, eff/1e12, floor*1e6, sec/floor)
	return nil
}

func us(d time.Duration) float64 { return float64(d) / 1e3 }

// dumpInputs writes what bench/peers.py reads (see benchHelp).
func dumpInputs(dir string, rt *fusedrt.Runtime, l *fusedrt.Layer) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	arena, err := rt.TableArena(l)
	if err != nil {
		return err
	}
	if err := writeNPY(filepath.Join(dir, "tables.npy"), []int64{int64(len(arena))}, arena); err != nil {
		return err
	}
	type col struct {
		Name        string `json:"name"`
		Kind        string `json:"kind"`
		Combiner    string `json:"combiner"`
		Weighted    bool   `json:"weighted"`
		Rows        int64  `json:"rows"`
		Width       int64  `json:"width"`
		TableOffset int64  `json:"table_offset"`
		OutOffset   int64  `json:"out_offset"`
	}
	meta := struct {
		Batch   int64  `json:"batch"`
		Width   int64  `json:"width"`
		Sets    int    `json:"sets"`
		Columns []col  `json:"columns"`
		Layout  string `json:"layout"`
	}{Width: l.Layer.Width, Sets: len(l.Runs), Layout: "ids_s: every column's ids, column order; splits_s[c]: offsets of column c's bags into ids_s"}
	for _, c := range l.Layer.Columns {
		meta.Columns = append(meta.Columns, col{c.Name, c.Kind, c.Combiner, c.Weighted, c.Rows, c.Width, c.TableOffset, c.OutOffset})
	}
	for s, r := range l.Runs {
		B := r.Packed.Batch
		meta.Batch = B
		var ids []int64
		var w []float32
		splits := make([]int64, 0, int64(len(r.Cols))*(B+1))
		for i, c := range r.Cols {
			base := int64(len(ids))
			cids, csplits, cw, err := l.Layer.Columns[i].HostBags(&c)
			if err != nil {
				return err
			}
			if l.Layer.Columns[i].Kind == abi.KindLookup {
				for _, x := range csplits {
					splits = append(splits, base+x)
				}
			} else {
				for b := range B + 1 {
					splits = append(splits, base+b)
				}
			}
			ids = append(ids, cids...)
			if cw != nil {
				w = append(w, cw...)
			} else {
				for range cids {
					w = append(w, 1)
				}
			}
		}
		for name, a := range map[string]struct {
			shape []int64
			data  any
		}{
			"ids":     {[]int64{int64(len(ids))}, ids},
			"splits":  {[]int64{int64(len(r.Cols)), B + 1}, splits},
			"weights": {[]int64{int64(len(w))}, w},
			"out":     {[]int64{B, l.Layer.Width}, r.Out},
		} {
			if err := writeNPYAny(filepath.Join(dir, fmt.Sprintf("%s_%d.npy", name, s)), a.shape, a.data); err != nil {
				return err
			}
		}
	}
	b, err := json.MarshalIndent(meta, "", " ")
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, "meta.json"), b, 0o644)
}

func writeNPYAny(path string, shape []int64, data any) error {
	switch d := data.(type) {
	case []int64:
		return writeNPY(path, shape, d)
	case []float32:
		return writeNPY(path, shape, d)
	}
	return fmt.Errorf("writeNPY: unsupported %T", data)
}

func writeNPY[T int64 | float32](path string, shape []int64, data []T) error {
	// Written directly (NPY 1.0): the interpreter's tensors are capped in
	// size (RECOM_MAX_TENSOR_ELEMENTS), a tables arena is not.
	descr := "<f4"
	var zero T
	if _, ok := any(zero).(int64); ok {
		descr = "<i8"
	}
	dims := ""
	for _, d := range shape {
		dims += fmt.Sprintf("%d, ", d)
	}
	if len(shape) > 1 {
		dims = strings.TrimSuffix(dims, " ")
		dims = strings.TrimSuffix(dims, ",")
	}
	hdr := fmt.Sprintf("{'descr': '%s', 'fortran_order': False, 'shape': (%s), }", descr, dims)
	pad := 64 - (10+len(hdr)+1)%64
	hdr += strings.Repeat(" ", pad%64) + "\n"
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	w := bufio.NewWriterSize(f, 1<<20)
	w.WriteString("\x93NUMPY\x01\x00")
	w.Write([]byte{byte(len(hdr)), byte(len(hdr) >> 8)})
	w.WriteString(hdr)
	if len(data) > 0 {
		w.Write(unsafe.Slice((*byte)(unsafe.Pointer(&data[0])), len(data)*int(unsafe.Sizeof(zero)))) // little-endian host (amd64)
	}
	if err := w.Flush(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
