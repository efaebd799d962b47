package textir

import (
	"bytes"
	"io"
	"strconv"
	"syscall"
	"testing"
	"time"
)

// cpuTime returns the CPU time (user+system) the process has used; the
// benchmarks report it per op because wall time on a shared machine is noisy.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// genBenchModule writes a module of about n generic-form ops: constants with
// dense attributes, ops with 1–3 operands and attributes, tensor types of a
// few shapes, and every 50th op a region holding two more ops.
func genBenchModule(n int) []byte {
	var b bytes.Buffer
	b.Grow(n * 90)
	b.WriteString("\"builtin.module\"() ({\n")
	const t = "tensor<4x?xf32>"
	names := 0
	emitted := 0
	val := func(back int) string {
		i := names - back
		if i < 0 {
			i = 0
		}
		return "%" + strconv.Itoa(i)
	}
	for emitted < n {
		id := strconv.Itoa(names)
		switch {
		case names%10 == 0:
			b.WriteString("  %" + id + " = \"bench.const\"() {value = dense<[[1.0, 2.5], [3.0, -4.0]]> : tensor<2x2xf32>} : () -> " + t + "\n")
			emitted++
		case names%50 == 1:
			b.WriteString("  %" + id + " = \"bench.region\"(" + val(1) + ") ({\n  ^bb0(%a: " + t + "):\n    %x = \"bench.neg\"(%a) : (" + t + ") -> " + t +
				"\n    \"bench.yield\"(%x) : (" + t + ") -> ()\n  }) {kind = \"loop\"} : (" + t + ") -> " + t + "\n")
			emitted += 3
		case names%3 == 0:
			b.WriteString("  %" + id + " = \"bench.add\"(" + val(1) + ", " + val(7) + ") : (" + t + ", " + t + ") -> " + t + "\n")
			emitted++
		case names%3 == 1:
			b.WriteString("  %" + id + " = \"bench.fma\"(" + val(1) + ", " + val(2) + ", " + val(names/2) + ") {fastmath = true, name = \"op" + id +
				"\", scale = 5 : i64} : (" + t + ", " + t + ", " + t + ") -> " + t + "\n")
			emitted++
		default:
			b.WriteString("  %" + id + " = \"bench.relu\"(" + val(3) + ") {alpha = 0.5 : f32} : (" + t + ") -> " + t + "\n")
			emitted++
		}
		names++
	}
	b.WriteString("}) : () -> ()\n")
	return b.Bytes()
}

func benchParse(b *testing.B, n int) {
	src := genBenchModule(n)
	ctx := NewContext()
	ctx.AllowUnregistered = true
	b.SetBytes(int64(len(src)))
	b.ReportAllocs()
	b.ResetTimer()
	c0 := cpuTime()
	for i := 0; i < b.N; i++ {
		if _, err := Parse(ctx, "bench.mlir", src); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric((cpuTime()-c0).Seconds()/float64(b.N), "cpu-s/op")
}

// BenchmarkParse1M parses a generated module of 1,000,000 ops.
func BenchmarkParse1M(b *testing.B) { benchParse(b, 1_000_000) }

// BenchmarkParse100k parses a generated module of 100,000 ops.
func BenchmarkParse100k(b *testing.B) { benchParse(b, 100_000) }

func TestBenchModuleParses(t *testing.T) {
	src := genBenchModule(2000)
	ctx := NewContext()
	ctx.AllowUnregistered = true
	m, err := Parse(ctx, "bench.mlir", src)
	if err != nil {
		t.Fatal(err)
	}
	count := 0
	m.Walk(func(*Operation) bool { count++; return true })
	if count < 2000 {
		t.Fatalf("parsed %d ops, want at least 2000", count)
	}
}

// BenchmarkParseVerifyPrint1M is the budget the project set: parse, verify
// and print a generated module of 1,000,000 ops (under 10 s and 4 GiB).
func BenchmarkParseVerifyPrint1M(b *testing.B) {
	src := genBenchModule(1_000_000)
	ctx := NewContext()
	ctx.AllowUnregistered = true
	b.SetBytes(int64(len(src)))
	b.ReportAllocs()
	b.ResetTimer()
	c0 := cpuTime()
	defer func() { b.ReportMetric((cpuTime()-c0).Seconds()/float64(b.N), "cpu-s/op") }()
	for i := 0; i < b.N; i++ {
		m, err := Parse(ctx, "bench.mlir", src)
		if err != nil {
			b.Fatal(err)
		}
		if err := Verify(ctx, m); err != nil {
			b.Fatal(err)
		}
		if err := Print(io.Discard, m, PrintOptions{}); err != nil {
			b.Fatal(err)
		}
	}
}
