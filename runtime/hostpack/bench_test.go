package hostpack

import (
	"context"
	"flag"
	"slices"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/recom-compiler/recom/dialects/fused"
	"github.com/recom-compiler/recom/dialects/fused/abi"
	"github.com/recom-compiler/recom/frontend/gen"
	"github.com/recom-compiler/recom/frontend/graphdef"
	"github.com/recom-compiler/recom/interp"
	"github.com/recom-compiler/recom/interp/exec"
	"github.com/recom-compiler/recom/textir"
)

// benchModel compiles a preset at full size, its tables capped at 100k
// rows as lowering/embtogpu's BenchmarkHostPathE256 does (tables do not
// change the host side).
func benchModel(b *testing.B, preset string) (*textir.Operation, *gen.Spec) {
	s, err := gen.Preset(preset)
	if err != nil {
		b.Fatal(err)
	}
	for i := range s.Groups {
		s.Groups[i].Buckets = min(s.Groups[i].Buckets, 100000)
	}
	g, err := gen.Generate(s, gen.Options{Seed: 3, NoTableValues: true})
	if err != nil {
		b.Fatal(err)
	}
	return compile(b, preset, graphdef.MarshalText(g.Graph), nil, nil, ""), s
}

// BenchmarkHostPack is the host side of one batch of the fused layer
// with a plan: Measure and Pack of gen's feeds into a reused buffer (what
// a native runtime does before its one host-to-device copy), for model E
// at B=256 and 2048 and the probe preset at 256. Compare with
// lowering/embtogpu's BenchmarkHostPathE256 (the interpreter, then Pack):
//
//	go test -run '^$' -bench 'HostPack' -cpu 1,2 ./runtime/hostpack/
func BenchmarkHostPack(b *testing.B) {
	for _, c := range []struct {
		preset string
		batch  int
	}{{"E", 256}, {"E", 2048}, {"probe", 256}} {
		b.Run(c.preset+"/B="+strconv.Itoa(c.batch), func(b *testing.B) {
			spinForBench(b)
			m, s := benchModel(b, c.preset)
			plan, err := NewForModule(m, nil)
			if err != nil {
				b.Fatal(err)
			}
			feeds := specFeeds(s)(b, c.batch, 1)
			in, err := plan.Gather(feeds)
			if err != nil {
				b.Fatal(err)
			}
			pk := plan.NewPacker()
			lay, err := pk.Measure(in)
			if err != nil {
				b.Fatal(err)
			}
			buf := make([]byte, 4*lay.Words)
			b.SetBytes(int64(len(buf)))
			// On a shared machine the mean says little: the fastest
			// and the median batch are reported too.
			var times []time.Duration
			b.ResetTimer()
			for b.Loop() {
				t0 := time.Now()
				if _, err := pk.Measure(in); err != nil {
					b.Fatal(err)
				}
				if _, err := pk.Pack(buf); err != nil {
					b.Fatal(err)
				}
				times = append(times, time.Since(t0))
			}
			slices.Sort(times)
			b.ReportMetric(float64(times[0].Nanoseconds())/1e3, "min-us")
			b.ReportMetric(float64(times[len(times)/2].Nanoseconds())/1e3, "median-us")
			b.ReportMetric(float64(len(buf)), "packed-bytes")
		})
	}
}

// BenchmarkHostPathInterp is the path a plan replaces, measured here on
// the same models and batches: the interpreter computes the layer's
// operands, then abi.Layer.PackInputs lays them out.
func BenchmarkHostPathInterp(b *testing.B) {
	for _, c := range []struct {
		preset string
		batch  int
	}{{"E", 256}, {"E", 2048}, {"probe", 256}} {
		b.Run(c.preset+"/B="+strconv.Itoa(c.batch), func(b *testing.B) {
			m, s := benchModel(b, c.preset)
			op := Find(m)[0]
			l, err := abi.LayerOf(op)
			if err != nil {
				b.Fatal(err)
			}
			prog, err := exec.Compile(m)
			if err != nil {
				b.Fatal(err)
			}
			vars := map[string]*interp.Tensor{}
			m.Walk(func(op *textir.Operation) bool {
				if op.Name() == "emb.table" {
					tt := op.Result(0).Type().(*textir.TensorType)
					vars[op.LookupAttr("name").(textir.StringAttr).Value] = interp.Must(interp.Zeros(interp.Float32, tt.Shape))
				}
				return true
			})
			var out *interp.Tensor
			stub := func(op *textir.Operation, in []*interp.Tensor, st *exec.State) ([]*interp.Tensor, error) {
				cols, err := l.Inputs(op, in)
				if err != nil {
					return nil, err
				}
				p, err := l.PackInputs(cols)
				if err != nil {
					return nil, err
				}
				if out == nil {
					out = interp.Must(interp.Zeros(interp.Float32, []int64{p.Batch, l.Width}))
				}
				return []*interp.Tensor{out}, nil
			}
			ro := &exec.Options{Variables: vars, Kernels: map[string]exec.Kernel{fused.EmbeddingLayerOp: stub}}
			feeds := specFeeds(s)(b, c.batch, 1)
			b.ResetTimer()
			for b.Loop() {
				if _, err := prog.Run(context.Background(), feeds, []string{tensorName(op)}, ro); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// benchSpin sets SetSpinWait for the benchmarks (negative: the default).
var benchSpin = flag.Duration("hostpack-spin", -1, "benchmarks: the pool's spin wait (SetSpinWait; negative: the default)")

// benchFinSpin sets how long a caller polls for its job's last chunks
// (negative: the default).
var benchFinSpin = flag.Duration("hostpack-fin-spin", -1, "benchmarks: how long a caller polls for its job's last chunks before it blocks (negative: the default)")

// benchMinChunk sets the least estimated work of a chunk for the
// benchmarks (0: the default).
var benchMinChunk = flag.Int64("hostpack-min-chunk", 0, "benchmarks: the least estimated work (about ns) of a chunk (0: the default)")

// spinForBench applies -hostpack-spin for one benchmark.
func spinForBench(b *testing.B) {
	if *benchFinSpin >= 0 {
		old := finSpin
		finSpin = *benchFinSpin
		b.Cleanup(func() { finSpin = old })
	}
	if *benchMinChunk > 0 {
		old := minChunkWork
		minChunkWork = *benchMinChunk
		b.Cleanup(func() { minChunkWork = old })
	}
	if *benchSpin >= 0 {
		old := SetSpinWait(*benchSpin)
		b.Cleanup(func() { SetSpinWait(old) })
	}
}

// cpuTime returns the CPU time (user+system) the process has used: per
// op, it is the work of a batch on all threads, which a shared machine's
// other load does not inflate as it inflates wall time.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkPackE is what a runtime does per batch of preset E with a
// plan: Plan.Pack from the feeds by name (look them up, check them,
// measure, pack) into a reused buffer, rotating over 4 feed sets so that
// the caches do not keep one batch's feeds for the next (cpu-us: the
// process's CPU time per batch, helpers included):
//
//	go test -run '^$' -bench 'PackE' -cpu 1,2 ./runtime/hostpack/
func BenchmarkPackE(b *testing.B) {
	for _, batch := range []int{1, 32, 256, 2048} {
		b.Run("B="+strconv.Itoa(batch), func(b *testing.B) {
			spinForBench(b)
			m, s := benchModel(b, "E")
			plan, err := NewForModule(m, nil)
			if err != nil {
				b.Fatal(err)
			}
			sets := make([]map[string]*interp.Tensor, 4)
			for i := range sets {
				sets[i] = specFeeds(s)(b, batch, 100+uint64(i))
			}
			var buf []byte
			alloc := func(_, n int64) ([]byte, error) {
				if int64(cap(buf)) < n {
					buf = make([]byte, n+n/4)
				}
				return buf[:n], nil
			}
			for _, f := range sets {
				if _, err := plan.Pack(f, alloc); err != nil {
					b.Fatal(err)
				}
			}
			var times []time.Duration
			i := 0
			c0 := cpuTime()
			for b.Loop() {
				t0 := time.Now()
				if _, err := plan.Pack(sets[i%len(sets)], alloc); err != nil {
					b.Fatal(err)
				}
				times = append(times, time.Since(t0))
				i++
			}
			b.ReportMetric(float64((cpuTime()-c0).Nanoseconds())/1e3/float64(i), "cpu-us")
			slices.Sort(times)
			b.ReportMetric(float64(times[0].Nanoseconds())/1e3, "min-us")
			b.ReportMetric(float64(times[len(times)/2].Nanoseconds())/1e3, "median-us")
		})
	}
}
