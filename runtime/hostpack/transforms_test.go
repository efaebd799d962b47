package hostpack

import (
	"math"
	"math/rand/v2"
	"os"
	"strings"
	"testing"

	"github.com/recom-compiler/recom/dialects/all"
	"github.com/recom-compiler/recom/interp"
	"github.com/recom-compiler/recom/interp/exec"
	allpasses "github.com/recom-compiler/recom/lowering/all"
	"github.com/recom-compiler/recom/lowering/pass"
	"github.com/recom-compiler/recom/textir"
)

// fuseFile parses an emb-level program and runs --fuse on it.
func fuseFile(tb testing.TB, path, opts string) *textir.Operation {
	tb.Helper()
	src, err := os.ReadFile(path)
	if err != nil {
		tb.Fatal(err)
	}
	allpasses.Register()
	ctx := all.NewContext()
	m, err := textir.Parse(ctx, path, src)
	if err != nil {
		tb.Fatal(err)
	}
	pm, err := pass.ParsePipeline("fuse{" + opts + "}")
	if err != nil {
		tb.Fatal(err)
	}
	if err := pm.Run(ctx, m); err != nil {
		tb.Fatal(err)
	}
	return m
}

// transformFeeds draws the feeds of testdata/transforms.mlir: strings of
// every length class, separators at the ends and side by side, whitespace
// runs, ids at the edges of their types, unsorted sparse indices; with
// strict, every id the strict range check sees is in range.
func transformFeeds(batch int64, seed uint64, strict bool) map[string]*interp.Tensor {
	r := rand.New(rand.NewPCG(seed, 31))
	pickS := func(xs ...string) string { return xs[r.IntN(len(xs))] }
	str := func() string {
		n := []int{0, 1, 3, 7, 8, 9, 15, 16, 17, 33, 100}[r.IntN(11)]
		b := make([]byte, n)
		for i := range b {
			b[i] = byte(r.IntN(256))
		}
		return string(b)
	}
	strs := func(shape []int64, f func() string) *interp.Tensor {
		n := shape[0]
		if len(shape) == 2 {
			n *= shape[1]
		}
		v := make([]string, n)
		for i := range v {
			v[i] = f()
		}
		return interp.Must(interp.New(shape, v))
	}
	join := func(sep string, parts ...string) func() string {
		return func() string {
			t := make([]string, r.IntN(5))
			for i := range t {
				t[i] = parts[r.IntN(len(parts))]
			}
			return strings.Join(t, sep)
		}
	}
	i64s := func(shape []int64, f func() int64) *interp.Tensor {
		n := shape[0]
		if len(shape) == 2 {
			n *= shape[1]
		}
		v := make([]int64, n)
		for i := range v {
			v[i] = f()
		}
		return interp.Must(interp.New(shape, v))
	}
	edge := []int64{math.MinInt64, math.MaxInt64, -1, 0, 1, 9, 10, 49, 50, 63, 64, -100, 1e12}
	i32 := make([]int32, 3*batch)
	for i := range i32 {
		i32[i] = []int32{-1, -1, 0, 5, math.MinInt32, math.MaxInt32, -7, 99}[r.IntN(8)]
	}
	x := make([]int32, batch)
	for i := range x {
		x[i] = []int32{-11, -10, -9, 0, 1, 10, 100, 101, math.MinInt32, math.MaxInt32, 16777217}[r.IntN(11)]
	}
	xd := make([]float64, batch)
	for i := range xd {
		xd[i] = []float64{0.1, 0.2, float64(float32(0.1)), 0.30000001, math.NaN(), -1, 0.4, math.Inf(1)}[r.IntN(8)]
	}
	// A SparseTensor of about two entries a row, rows in random order.
	nnz := int(2*batch) + r.IntN(3)
	if batch == 0 {
		nnz = 0
	}
	ind := make([]int64, 2*nnz)
	spv := make([]int64, nnz)
	sps := make([]string, nnz)
	spf := make([]float32, nnz)
	for i := range nnz {
		ind[2*i], ind[2*i+1] = r.Int64N(batch), r.Int64N(5)
		spv[i] = r.Int64N(60) - 5
		sps[i] = str()
		spf[i] = []float32{-1, 0, 0.5, 1, 2, 3, float32(math.NaN())}[r.IntN(7)]
	}
	wv := make([]int64, 4*batch)
	ww := make([]float32, 4*batch)
	for i := range wv {
		wv[i] = r.Int64N(14) - 2
		if wv[i] < 0 {
			wv[i] = -1
			continue
		}
		ww[i] = []float32{1, 0.5, -1, 2, float32(math.NaN()), 1e-30}[r.IntN(6)]
	}
	n := i64s([]int64{batch}, func() int64 {
		if strict {
			return r.Int64N(50)
		}
		return edge[r.IntN(len(edge))]
	})
	return map[string]*interp.Tensor{
		"@f:0":  strs([]int64{batch}, func() string { return pickS("", str()) }),
		"@f:1":  strs([]int64{batch}, join("ab", "", "a", "b", "xy", "abab", str())),
		"@f:2":  strs([]int64{batch}, join(pickS(" ", "\t", " \n ", "  "), "", "w", "x y", str())),
		"@f:3":  interp.Must(interp.New([]int64{batch, 3}, i32)),
		"@f:4":  n,
		"@f:5":  i64s([]int64{batch}, func() int64 { return r.Int64N(50) }),
		"@f:6":  interp.Must(interp.New([]int64{int64(nnz), 2}, ind)),
		"@f:7":  interp.Must(interp.New([]int64{int64(nnz)}, spv)),
		"@f:8":  interp.Vector(batch, 5),
		"@f:9":  interp.Must(interp.New([]int64{int64(nnz)}, sps)),
		"@f:10": interp.Must(interp.New([]int64{batch}, x)),
		"@f:11": i64s([]int64{batch}, func() int64 { return []int64{-1, 1, 22, -3, 7, 5, 1e12, math.MinInt64}[r.IntN(8)] }),
		"@f:12": strs([]int64{batch, 1}, join(";", "", "a", "tok", str())),
		"@f:13": interp.Must(interp.New([]int64{batch, 4}, wv)),
		"@f:14": interp.Must(interp.New([]int64{batch, 4}, ww)),
		"@f:15": interp.Must(interp.New([]int64{batch}, xd)),
		"@f:16": interp.Must(interp.New([]int64{int64(nnz)}, spf)),
	}
}

// Every source and transform the plan computes (testdata/transforms.mlir),
// with the transforms before the layer and in the kernel, packs as the
// interpreter's inputs do; where a range check without a default sees
// an id out of range, both fail.
func TestPackTransforms(t *testing.T) {
	for _, opts := range []string{"ids-in-kernel=false", "", "schedule=recom"} {
		t.Run(opts, func(t *testing.T) {
			md := &model{name: "transforms", m: fuseFile(t, "testdata/transforms.mlir", opts), opts: &exec.Options{}}
			plan, err := NewForModule(md.m, nil)
			if err != nil {
				t.Fatal(err)
			}
			direct, computed, ops := plan.Columns()
			if computed < 8 || ops < computed || direct+computed != len(plan.Layer().Columns) {
				t.Errorf("%d columns direct, %d computed with %d ops, of %d: want most computed", direct, computed, ops, len(plan.Layer().Columns))
			}
			pk := plan.NewPacker()
			failed := 0
			for i, batch := range []int64{1, 0, 17, 200} {
				mustCheck(t, md, plan, pk, transformFeeds(batch, uint64(i), true))
				if err := check(t, md, plan, pk, transformFeeds(batch, uint64(i), false)); err != nil {
					failed++
				}
			}
			if failed == 0 {
				t.Error("ids out of a strict range check were never refused")
			}
		})
	}
}
