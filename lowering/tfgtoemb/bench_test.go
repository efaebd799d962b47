package tfgtoemb_test

import (
	"fmt"
	"runtime"
	"testing"

	"github.com/recom-compiler/recom/dialects/all"
	"github.com/recom-compiler/recom/frontend/gen"
	"github.com/recom-compiler/recom/frontend/importer"
	"github.com/recom-compiler/recom/lowering/pass"
)

// BenchmarkLowerEmb runs --lower-emb on models of 1,000 and 10,000 columns
// (preset E's mix of kinds, scaled); the time per column should not grow.
func BenchmarkLowerEmb(b *testing.B) {
	for _, n := range []int{1000, 10000} {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			s, err := gen.Preset("E")
			if err != nil {
				b.Fatal(err)
			}
			if s, err = s.Scale(n); err != nil {
				b.Fatal(err)
			}
			m, err := gen.Generate(s, gen.Options{NoTableValues: true})
			if err != nil {
				b.Fatal(err)
			}
			ctx := all.NewContext()
			mod, err := importer.Import(ctx, m.Graph)
			if err != nil {
				b.Fatal(err)
			}
			for b.Loop() {
				b.StopTimer()
				in := ctx.Clone(mod, nil)
				pm, _ := pass.ParsePipeline("lower-emb")
				pm.Config.NoVerify = true
				runtime.GC()
				b.StartTimer()
				if err := pm.Run(ctx, in); err != nil {
					b.Fatal(err)
				}
				if got := pm.Statistics()["lower-emb"]["columns-lowered"]; got != int64(n) {
					b.Fatalf("lowered %d columns, want %d", got, n)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n), "ns/column")
		})
	}
}
