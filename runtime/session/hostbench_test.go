package session

import (
	"context"
	"flag"
	"slices"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/recom-compiler/recom/dialects/all"
	"github.com/recom-compiler/recom/frontend/gen"
	"github.com/recom-compiler/recom/frontend/graphdef"
	"github.com/recom-compiler/recom/interp"
	"github.com/recom-compiler/recom/interp/exec"
	"github.com/recom-compiler/recom/runtime/cuda"
	"github.com/recom-compiler/recom/runtime/densekern"
	"github.com/recom-compiler/recom/runtime/hostpack"
	"github.com/recom-compiler/recom/textir"
)

// The host side of the session, measured without a GPU: the session runs
// on the simulated driver (runtime/cuda.Sim) whose kernels do nothing, so
// that a batch's time is what the host does for it — look up and check
// the feeds, pack the layer's inputs into pinned memory, stage the
// uploads, launch the graph, make the outputs — plus the simulator's
// copies (plain memory copies standing in for the DMA engines). Run them
// on the GPU machine's CPU with bench/experiments/session-e2e.sh hostbench.

// benchSpin sets hostpack.SetSpinWait for the benchmarks (negative: the
// default).
var benchSpin = flag.Duration("hostpack-spin", -1, "benchmarks: hostpack's pool spin wait (hostpack.SetSpinWait; negative: the default)")

// hostModels caches the compiled benchmark models by preset.
var hostModels sync.Map

// hostBenchModel compiles a preset of frontend/gen through --fuse-dense
// with its tables capped at 100k rows (the host side does not read them;
// E's 8M-row tables would take 5 GB), random tables from seed 7.
func hostBenchModel(tb testing.TB, preset string) *compiled {
	tb.Helper()
	if m, ok := hostModels.Load(preset); ok {
		return m.(*compiled)
	}
	spec, err := gen.Preset(preset)
	if err != nil {
		tb.Fatal(err)
	}
	for i := range spec.Groups {
		spec.Groups[i].Buckets = min(spec.Groups[i].Buckets, 100000)
	}
	g, err := gen.Generate(spec, gen.Options{NoTableValues: true})
	if err != nil {
		tb.Fatal(err)
	}
	m := compileModel(tb, preset, graphdef.MarshalText(g.Graph), &exec.Options{RandomTables: true, Seed: 7}, spec)
	hostModels.Store(preset, m)
	return m
}

// hostSession makes a session of m on a simulated GPU whose kernels (the
// program's and runtime/densekern's) return at once, with the generated
// dense kernels (cuBLASLt's simulation computes its products).
func hostSession(tb testing.TB, m *compiled, slots int) *Session {
	tb.Helper()
	if *benchSpin >= 0 {
		old := hostpack.SetSpinWait(*benchSpin)
		tb.Cleanup(func() { hostpack.SetSpinWait(old) })
	}
	sim := cuda.NewSim()
	// Deferred: the graph's copies run when the batch is waited for, as
	// on a GPU (not in the launch, which would then count them).
	sim.Deferred = true
	noop := func(name string, _ *textir.Operation, sizes []uint64, _ []bool) {
		sim.AddKernel(name, sizes, func(*cuda.Sim, uint32, uint32, []uint64) {})
	}
	eachKernel(tb, m.prog.Module, noop)
	eachKernel(tb, densekern.Module(all.NewContext()), noop)
	drv, err := sim.Driver()
	if err != nil {
		tb.Fatal(err)
	}
	c, err := drv.NewContext(0)
	if err != nil {
		tb.Fatal(err)
	}
	s, err := New(context.Background(), m.prog, []byte("simulated PTX"),
		Options{CUDA: c, Outputs: m.outputs, Interp: m.opts, Dense: DenseGenerated, Slots: slots})
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() {
		if err := s.Close(); err != nil {
			tb.Error(err)
		}
		c.Close()
	})
	return s
}

// hostFeeds draws n feed sets of batch rows (batches rotate over them, so
// that the caches do not hold one set's feeds from batch to batch).
func hostFeeds(tb testing.TB, m *compiled, batch, n int) []map[string]*interp.Tensor {
	tb.Helper()
	sets := make([]map[string]*interp.Tensor, n)
	for i := range sets {
		sets[i] = m.feeds(tb, batch, 9000+uint64(i))
	}
	return sets
}

// reportSteps reports the mean of the session's host rows per batch:
// check (the feeds), pack (every layer), launch, and their sum with the
// staging, the outputs and the host steps (host-us: the host side of a
// batch, the wait for the GPU apart).
func reportSteps(b *testing.B, s *Session) {
	st := s.stats
	st.mu.Lock()
	rows := slices.Clone(st.rows)
	n := max(st.batches, 1)
	st.mu.Unlock()
	var host, pack time.Duration
	for i, c := range rows {
		if c.Where != WhereHost && c.Where != WhereFallback || i == statCapture {
			continue
		}
		host += c.Total
		for _, ls := range s.plan.layers {
			if ls.statID == i {
				pack += c.Total
			}
		}
	}
	per := func(d time.Duration) float64 { return float64(d.Nanoseconds()) / 1e3 / float64(n) }
	b.ReportMetric(per(rows[statFeeds].Total), "check-us")
	b.ReportMetric(per(pack), "pack-us")
	b.ReportMetric(per(rows[statPrepare].Total+rows[statLaunch].Total), "launch-us")
	b.ReportMetric(per(host), "host-us")
}

// BenchmarkSessionHost is the host side of one batch of preset E (and F)
// through Session.Run, batch after batch (one in flight), on the
// simulated GPU: ns/op is a whole Run; the metrics split the host's part
// by step (the Summary's means) and give the median Run:
//
//	go test -run '^$' -bench 'SessionHost' -cpu 1,2 ./runtime/session/
func BenchmarkSessionHost(b *testing.B) {
	for _, c := range []struct {
		preset string
		batch  int
	}{{"E", 256}, {"E", 2048}, {"F", 256}} {
		b.Run(c.preset+"/B="+strconv.Itoa(c.batch), func(b *testing.B) {
			m := hostBenchModel(b, c.preset)
			s := hostSession(b, m, 2)
			sets := hostFeeds(b, m, c.batch, 4)
			for _, f := range sets { // capture the graphs, size the buffers
				if _, err := s.Run(f); err != nil {
					b.Fatal(err)
				}
			}
			s.ResetStats()
			var times []time.Duration
			i := 0
			for b.Loop() {
				t0 := time.Now()
				if _, err := s.Run(sets[i%len(sets)]); err != nil {
					b.Fatal(err)
				}
				times = append(times, time.Since(t0))
				i++
			}
			slices.Sort(times)
			b.ReportMetric(float64(times[len(times)/2].Nanoseconds())/1e3, "median-us")
			reportSteps(b, s)
		})
	}
}

// BenchmarkSessionPipeline is the host's throughput with K batches in
// flight (a Pipeline of depth K on K slots) on the simulated GPU: ns/op
// is the wall time per batch, which is what the host sustains when the
// GPU takes no time.
func BenchmarkSessionPipeline(b *testing.B) {
	for _, batch := range []int{256, 2048} {
		for _, k := range []int{1, 2, 4} {
			b.Run("E/B="+strconv.Itoa(batch)+"/K="+strconv.Itoa(k), func(b *testing.B) {
				m := hostBenchModel(b, "E")
				s := hostSession(b, m, k)
				sets := hostFeeds(b, m, batch, 4)
				for _, f := range sets {
					if _, err := s.Run(f); err != nil {
						b.Fatal(err)
					}
				}
				p := s.NewPipeline(k)
				defer p.Close()
				b.ResetTimer()
				errc := make(chan error, 1)
				go func() {
					for i := range b.N {
						if err := p.Submit(sets[i%len(sets)]); err != nil {
							errc <- err
							return
						}
					}
					errc <- nil
				}()
				for range b.N {
					if _, err := p.Next(); err != nil {
						b.Fatal(err)
					}
				}
				if err := <-errc; err != nil {
					b.Fatal(err)
				}
				b.StopTimer()
				b.ReportMetric(float64(batch)*float64(b.N)/b.Elapsed().Seconds(), "samples/s")
			})
		}
	}
}
