package textir

import (
	"io"
	"syscall"
	"testing"
	"time"
)

// printCPUTime is the process's user+system CPU time: a steadier measure
// than wall time on a loaded machine.
func printCPUTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// buildPrintBench builds, in memory, a module of about n ops: dense
// constants, generic ops with 1–3 operands and attributes, custom-form ops
// (pt.add, pt.const with a name hint), tensor types of a few shapes, and
// every 50th op a region holding two more ops.
func buildPrintBench(n int) *Operation {
	ctx := ptCtx()
	m, b := irb{ctx: ctx}.module("")
	t := TensorOf([]int64{4, Dynamic}, F32())
	dense := DenseFloats(TensorOf([]int64{2, 2}, F32()), []float64{1, 2.5, 3, -4})
	var defs []*Value
	val := func(back int) *Value {
		i := len(defs) - back
		if i < 0 {
			i = 0
		}
		return defs[i]
	}
	emitted := 0
	for k := 0; emitted < n; k++ {
		var op *Operation
		switch {
		case k%10 == 0:
			op = b.op("bench.const", nil, tys(t), na("value", dense))
			emitted++
		case k%50 == 1:
			op = b.opState(&OperationState{Name: "bench.region", Operands: vals(val(1)), ResultTypes: tys(t),
				Attrs: []NamedAttribute{na("kind", Str("loop"))}, NumRegions: 1})
			blk := NewBlock(t)
			op.Region(0).AppendBlock(blk)
			x := irb{ctx, blk}.op("bench.neg", vals(blk.Arg(0)), tys(t))
			irb{ctx, blk}.op("bench.yield", vals(x.Result(0)), nil)
			emitted += 3
		case k%7 == 2:
			op = b.op("pt.const", nil, tys(I64()), na("value", IntegerAttr{int64(k), I64()}))
			emitted++
		case k%3 == 0:
			op = b.op("pt.add", vals(val(1), val(7)), tys(t))
			emitted++
		case k%3 == 1:
			op = b.op("bench.fma", vals(val(1), val(2), val(len(defs)/2)), tys(t),
				na("fastmath", BoolAttr{true}), na("name", Str("op")), na("scale", I64Attr(5)))
			emitted++
		default:
			op = b.op("bench.relu", vals(val(3)), tys(t), na("alpha", FloatAttr{0.5, F32()}))
			emitted++
		}
		if op.Result(0).Type() == Type(t) {
			defs = append(defs, op.Result(0))
		}
	}
	return m
}

var printBench1M *Operation

// BenchmarkPrint1M prints a module of 1,000,000 ops (built once, outside
// the timing) to io.Discard through Print's buffered writer.
func BenchmarkPrint1M(b *testing.B) {
	if printBench1M == nil {
		printBench1M = buildPrintBench(1_000_000)
	}
	m := printBench1M
	var cw countWriter
	if err := Print(&cw, m, PrintOptions{}); err != nil {
		b.Fatal(err)
	}
	b.SetBytes(cw.n)
	b.ReportAllocs()
	b.ResetTimer()
	c0 := printCPUTime()
	for i := 0; i < b.N; i++ {
		if err := Print(io.Discard, m, PrintOptions{}); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric((printCPUTime()-c0).Seconds()/float64(b.N), "cpu-s/op")
}

// BenchmarkPrint1MGeneric is BenchmarkPrint1M in the generic form.
func BenchmarkPrint1MGeneric(b *testing.B) {
	if printBench1M == nil {
		printBench1M = buildPrintBench(1_000_000)
	}
	m := printBench1M
	b.ReportAllocs()
	b.ResetTimer()
	c0 := printCPUTime()
	for i := 0; i < b.N; i++ {
		if err := Print(io.Discard, m, PrintOptions{Generic: true}); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric((printCPUTime()-c0).Seconds()/float64(b.N), "cpu-s/op")
}

type countWriter struct{ n int64 }

func (w *countWriter) Write(p []byte) (int, error) { w.n += int64(len(p)); return len(p), nil }

func TestPrintBenchModuleRoundTrips(t *testing.T) {
	m := buildPrintBench(3000)
	text := OpString(m, PrintOptions{})
	checkReparse(t, "bench", text+"\n", PrintOptions{}, false)
}
