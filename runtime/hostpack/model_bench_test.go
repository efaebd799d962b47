package hostpack

import (
	"flag"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/recom-compiler/recom/dialects/all"
	"github.com/recom-compiler/recom/interp"
	"github.com/recom-compiler/recom/interp/npz"
	allpasses "github.com/recom-compiler/recom/lowering/all"
	"github.com/recom-compiler/recom/lowering/pass"
	"github.com/recom-compiler/recom/textir"
)

// benchModelDir names a folder as bench/real-models.sh build writes one
// per model (model.mlir, the cut graph; feeds-B.npz): BenchmarkPackModel
// packs its feeds.
var benchModelDir = flag.String("hostpack-model", "", "benchmarks: a folder with model.mlir and feeds-B.npz (bench/real-models.sh build's) for BenchmarkPackModel")

// BenchmarkPackModel packs a real model's layer inputs (the folder given
// by -hostpack-model, e.g. build/real/taxi) at the batch sizes it has
// feeds for:
//
//	go test -run '^$' -bench PackModel -hostpack-model $PWD/build/real/taxi ./runtime/hostpack/
//
// (an absolute path: go test runs in the package's folder)
func BenchmarkPackModel(b *testing.B) {
	if *benchModelDir == "" {
		b.Skip("give -hostpack-model DIR")
	}
	src, err := os.ReadFile(filepath.Join(*benchModelDir, "model.mlir"))
	if err != nil {
		b.Fatal(err)
	}
	allpasses.Register()
	ctx := all.NewContext()
	m, err := textir.Parse(ctx, "model.mlir", src)
	if err != nil {
		b.Fatal(err)
	}
	pm, err := pass.FromSpecs("builtin.module", []pass.PassSpec{{Flag: "lower-emb"}, {Flag: "simplify-shapes"}, {Flag: "fuse"}})
	if err != nil {
		b.Fatal(err)
	}
	if err := pm.Run(ctx, m); err != nil {
		b.Fatal(err)
	}
	plan, err := NewForModule(m, nil)
	if err != nil {
		b.Fatal(err)
	}
	files, _ := filepath.Glob(filepath.Join(*benchModelDir, "feeds-*.npz"))
	if len(files) == 0 {
		b.Fatalf("%s: no feeds-B.npz", *benchModelDir)
	}
	for _, f := range files {
		arrs, err := npz.ReadFile(f)
		if err != nil {
			b.Fatal(err)
		}
		feeds := map[string]*interp.Tensor{}
		for _, a := range arrs {
			feeds[strings.TrimSuffix(a.Name, ".npy")] = a.Tensor
		}
		name := strings.TrimSuffix(strings.TrimPrefix(filepath.Base(f), "feeds-"), ".npz")
		b.Run("B="+name, func(b *testing.B) {
			spinForBench(b)
			var buf []byte
			alloc := func(_, n int64) ([]byte, error) {
				if int64(cap(buf)) < n {
					buf = make([]byte, n+n/4)
				}
				return buf[:n], nil
			}
			var times []time.Duration
			for b.Loop() {
				t0 := time.Now()
				if _, err := plan.Pack(feeds, alloc); err != nil {
					b.Fatal(err)
				}
				times = append(times, time.Since(t0))
			}
			slices.Sort(times)
			b.ReportMetric(float64(times[len(times)/2].Nanoseconds())/1e3, "median-us")
		})
	}
}
