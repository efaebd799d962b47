package compiler

import (
	"context"
	"syscall"
	"testing"
	"time"

	"github.com/recom-compiler/recom/frontend/gen"
	"github.com/recom-compiler/recom/frontend/graphdef"
)

// genText generates a preset (scaled to columns when > 0) without table
// values, as `recom gen --no-tables` does, and returns its text GraphDef.
func genText(tb testing.TB, preset string, columns int) []byte {
	tb.Helper()
	s, err := gen.Preset(preset)
	if err != nil {
		tb.Fatal(err)
	}
	if columns > 0 {
		if s, err = s.Scale(columns); err != nil {
			tb.Fatal(err)
		}
	}
	m, err := gen.Generate(s, gen.Options{Seed: 1, NoTableValues: true})
	if err != nil {
		tb.Fatal(err)
	}
	return graphdef.MarshalText(m.Graph)
}

func benchCompile(b *testing.B, preset string, columns int) {
	data := genText(b, preset, columns)
	b.SetBytes(int64(len(data)))
	opts := Options{NoCubin: true}
	var last *Result
	cpu0 := cpuTime()
	b.ResetTimer()
	for b.Loop() {
		r, err := CompileBytes(context.Background(), preset+".pbtxt", data, opts)
		if err != nil {
			b.Fatal(err)
		}
		last = r
	}
	b.StopTimer()
	// CPU time of this process and of the tools it waited for (llc), per
	// compilation: on a shared machine, wall time alone says little.
	b.ReportMetric((cpuTime()-cpu0).Seconds()/float64(b.N), "cpu-s/op")
	for _, s := range last.Stages {
		b.ReportMetric(s.Wall.Seconds(), s.Name+"-s")
	}
	b.ReportMetric(float64(len(last.LLVM)), "ll-bytes")
	if len(last.Kernels) != 1 {
		b.Errorf("kernels %v, want one", last.Kernels)
	}
}

// BenchmarkCompileProbe compiles the probe preset (1000 columns, text
// GraphDef in memory) from GraphDef to PTX.
func BenchmarkCompileProbe(b *testing.B) { benchCompile(b, "probe", 0) }

// BenchmarkCompile10k compiles the probe preset scaled to 10,000 columns.
func BenchmarkCompile10k(b *testing.B) { benchCompile(b, "probe", 10000) }

// BenchmarkCompileE and BenchmarkCompileF compile the full presets E and F.
func BenchmarkCompileE(b *testing.B) { benchCompile(b, "E", 0) }
func BenchmarkCompileF(b *testing.B) { benchCompile(b, "F", 0) }

// cpuTime is the user and system time of this process and its waited-for
// children.
func cpuTime() time.Duration {
	var d time.Duration
	for _, who := range []int{syscall.RUSAGE_SELF, syscall.RUSAGE_CHILDREN} {
		var ru syscall.Rusage
		if syscall.Getrusage(who, &ru) == nil {
			d += time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
		}
	}
	return d
}
