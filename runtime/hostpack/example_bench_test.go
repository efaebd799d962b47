package hostpack

import (
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/recom-compiler/recom/frontend/gen"
	"github.com/recom-compiler/recom/frontend/graphdef"
)

// BenchmarkExamplePack is the host side of one batch of preset E served
// from tf.Example records: the records indexed, measured and packed
// straight into a reused buffer (Measure and Pack), at B=256 and 2048.
// Compare with BenchmarkHostPack (the same layer from one feed per
// feature):
//
//	go test -run '^$' -bench 'ExamplePack|HostPack/E' -cpu 1,4 ./runtime/hostpack/
func BenchmarkExamplePack(b *testing.B) {
	for _, batch := range []int{256, 2048} {
		b.Run("E/B="+strconv.Itoa(batch), func(b *testing.B) {
			spinForBench(b)
			s, err := gen.Preset("E")
			if err != nil {
				b.Fatal(err)
			}
			for i := range s.Groups {
				s.Groups[i].Buckets = min(s.Groups[i].Buckets, 100000)
			}
			s.Serving = gen.ServingTFExample
			g, err := gen.Generate(s, gen.Options{Seed: 3, NoTableValues: true})
			if err != nil {
				b.Fatal(err)
			}
			m := compile(b, "E", graphdef.MarshalText(g.Graph), nil, nil, "")
			plan, err := NewForModule(m, nil)
			if err != nil {
				b.Fatal(err)
			}
			if direct, computed, _ := plan.Columns(); computed > 0 {
				b.Fatalf("%d columns from the records, %d computed", direct, computed)
			}
			in, err := plan.Gather(specFeeds(s)(b, batch, 1))
			if err != nil {
				b.Fatal(err)
			}
			recBytes := 0
			for _, r := range in[0].Strings() {
				recBytes += len(r)
			}
			pk := plan.NewPacker()
			lay, err := pk.Measure(in)
			if err != nil {
				b.Fatal(err)
			}
			buf := make([]byte, 4*lay.Words)
			b.SetBytes(int64(recBytes))
			times := make([]time.Duration, 0, 1024) // no allocation per op
			b.ResetTimer()
			c0 := cpuTime()
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
			b.ReportMetric(float64((cpuTime()-c0).Nanoseconds())/1e3/float64(len(times)), "cpu-us")
			slices.Sort(times)
			b.ReportMetric(float64(times[0].Nanoseconds())/1e3, "min-us")
			b.ReportMetric(float64(times[len(times)/2].Nanoseconds())/1e3, "median-us")
			b.ReportMetric(float64(recBytes), "record-bytes")
			b.ReportMetric(float64(len(buf)), "packed-bytes")
		})
	}
}
