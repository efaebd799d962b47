package embtogpu_test

import (
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/recom-compiler/recom/dialects/all"
	"github.com/recom-compiler/recom/dialects/fused/abi"
	"github.com/recom-compiler/recom/dialects/tfg"
	"github.com/recom-compiler/recom/interp"
	iexec "github.com/recom-compiler/recom/interp/exec"
	"github.com/recom-compiler/recom/textir"
)

// idFeeds makes adversarial feeds for testdata/ids.mlir.
func idFeeds(batch int64, seed uint64) map[string]*interp.Tensor {
	r := rand.New(rand.NewPCG(seed, 29))
	str := func() string {
		n := []int{0, 1, 3, 4, 7, 8, 9, 15, 16, 17, 31, 32, 33, 63, 64, 65, 100, 128, 150}[r.IntN(19)]
		b := make([]byte, n)
		for i := range b {
			b[i] = byte(r.IntN(256))
		}
		return string(b)
	}
	strs := func(n int64, f func() string) *interp.Tensor {
		v := make([]string, n)
		for i := range v {
			v[i] = f()
		}
		return interp.Must(interp.New([]int64{n}, v))
	}
	ints := func(shape []int64, f func() int64) *interp.Tensor {
		n := int64(1)
		for _, d := range shape {
			n *= d
		}
		v := make([]int64, n)
		for i := range v {
			v[i] = f()
		}
		return interp.Must(interp.New(shape, v))
	}
	edgeInts := []int64{math.MinInt64, math.MaxInt64, -1, 0, 1, 9, 10, 99, 100, -100, 7, 1e12, -1e18}
	specials := []float32{float32(math.NaN()), float32(math.Inf(1)), float32(math.Inf(-1)), 0, float32(math.Copysign(0, -1)),
		1, 10, -5, -0.5, 0.25, 100, 1e30, -1e30}
	x := make([]float32, batch)
	for i := range x {
		if r.IntN(3) == 0 {
			x[i] = specials[r.IntN(len(specials))]
		} else {
			x[i] = float32(r.NormFloat64() * 5)
		}
	}
	xd := make([]float64, batch)
	for i := range xd {
		xd[i] = []float64{0.1, 0.2, float64(float32(0.1)), 0.30000001, math.NaN(), -1, 0.4, 0.45}[r.IntN(8)]
	}
	// The first strings of the split column, side by side in the first
	// task: empty rows, empty tokens, rows of separators only.
	split := []string{"", ";;;", "", ";", "tok;", ";x", "x;;tok", ";;;"}
	row := 0
	keys := []string{"a", "bb", "", "a long key of more than sixteen bytes", "dup", "x;y", "zz", "a long key of more than sixteen byteS"}
	w := make([]float32, 3*batch)
	for i := range w {
		w[i] = float32(r.Float64()*2 - 0.5)
	}
	return map[string]*interp.Tensor{
		"@f:0": strs(batch, str),
		"@f:1": strs(batch, func() string {
			if row++; row <= len(split) {
				return split[row-1]
			}
			var t []string
			for range r.IntN(5) {
				t = append(t, []string{"", "tok", str(), "x"}[r.IntN(4)])
			}
			return strings.Join(t, ";")
		}),
		"@f:2": ints([]int64{batch, 2}, func() int64 {
			if r.IntN(2) == 0 {
				return edgeInts[r.IntN(len(edgeInts))]
			}
			return int64(r.Uint64())
		}),
		"@f:3": interp.Must(interp.New([]int64{batch}, x)),
		"@f:4": ints([]int64{batch}, func() int64 { return r.Int64N(80) - 8 }),
		"@f:5": strs(batch, func() string { return keys[r.IntN(len(keys))] }),
		"@f:6": ints([]int64{batch, 3}, func() int64 { return []int64{5, -3, 1e12, 0, 9, 2, -1, 42, math.MinInt64}[r.IntN(9)] }),
		"@f:7": interp.Must(interp.New([]int64{batch, 3}, []string(strs(3*batch, str).Strings()))),
		"@f:8": interp.Must(interp.New([]int64{batch, 3}, w)),
		"@f:9": interp.Must(interp.New([]int64{batch}, xd)),
		// Vocabulary words and misses, some bags all misses; weights
		// around 0.
		"@f:10": ints([]int64{batch, 3}, func() int64 { return []int64{5, 9, 2, 42, -1, 7, 1e12}[r.IntN(7)] }),
		"@f:11": interp.Must(interp.New([]int64{batch, 3}, []float32(slices.Repeat([]float32{1.5, -0.5, 0, 2, 0.25, 1}, int(batch))[:3*batch]))),
	}
}

// The id transforms computed by the kernel (in the simulator) give the
// emb program's rows, with and without them in the kernel.
func TestIDTransforms(t *testing.T) {
	ctx := all.NewContext()
	low := parseFile(t, ctx, "testdata/ids.mlir")
	// min-tasks=0 task-bytes=65536: tasks of more than 32 bags (a lane
	// splits several strings of a task in the id pass).
	for _, opts := range []string{"", " ids-in-kernel=false", " schedule=recom", " id-pass=none", " id-pass=hashes", " id-pass=auto", " min-tasks=0 task-bytes=65536"} {
		t.Run(strings.TrimSpace(opts), func(t *testing.T) {
			fz, stats := runPipeline(t, ctx, low, "fuse{"+opts+"}")
			l := layerOf(t, fz)
			inKernel := 0
			for i := range l.Columns {
				if len(l.Columns[i].Transforms) > 0 {
					inKernel++
				}
			}
			if strings.Contains(opts, "false") != (inKernel == 0) || stats["fuse"]["id-chains"] != int64(inKernel) {
				t.Fatalf("%d columns compute their ids in the kernel (statistic %d)", inKernel, stats["fuse"]["id-chains"])
			}
			if !strings.Contains(opts, "false") {
				fz.Walk(func(op *textir.Operation) bool {
					switch op.Name() {
					case "emb.hash", "emb.as_string", "emb.check_range", "emb.cast", "emb.add_offset", "emb.bucketize", "emb.vocab_lookup":
						t.Errorf("%s remains", op.Name())
					case "emb.filter":
						if op.LookupAttr("min") != nil || op.LookupAttr("max") != nil {
							t.Errorf("%s remains", op.Name())
						}
					}
					return true
				})
			}
			for _, batch := range []int64{1, 37, 0} {
				feeds := idFeeds(batch, uint64(batch)+3)
				o := &iexec.Options{RandomTables: true, Seed: 9}
				want, err := run(low, feeds, []string{"out"}, o)
				if err != nil {
					t.Fatal(err)
				}
				got, err := run(fz, feeds, []string{"out"}, o)
				if err != nil {
					t.Fatalf("batch %d: %v", batch, err)
				}
				if err := closeTo(want["out"], got["out"], l.Columns); err != nil {
					t.Fatalf("batch %d: %v", batch, err)
				}
			}
		})
	}
}

// HostIDs (what benchmarks hand to the peers) agrees with the kernel's
// transforms on the same values: checked through the fused op's inputs.
func TestHostIDs(t *testing.T) {
	c := abi.Column{Name: "c", Source: abi.SourceI64, Transforms: []abi.Transform{
		{Op: abi.TransformCheckRange, NumBuckets: 10, Default: 2}, {Op: abi.TransformCast, Bits: 8},
		{Op: abi.TransformAddOffset, Stride: 5}}}
	x := &abi.ColumnInput{Values: interp.Vector[int64](-1, 3, 11, 9), Splits: []int64{0, 2, 4}}
	got, err := c.HostIDs(x)
	if err != nil {
		t.Fatal(err)
	}
	want := []int64{2, 8, 2, 14}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("HostIDs = %v, want %v", got, want)
		}
	}
	// A vocabulary without out-of-vocabulary buckets: the index, else the default.
	keys := textir.DenseStrings(textir.TensorOf([]int64{2}, tfg.String()), []string{"a", "b"})
	v := abi.Column{Name: "v", Source: abi.SourceStr, Transforms: []abi.Transform{{Op: abi.TransformVocab, Keys: keys, Default: -1}}}
	got, err = v.HostIDs(&abi.ColumnInput{Values: interp.Vector("b", "z", "a")})
	if err != nil {
		t.Fatal(err)
	}
	if want := []int64{1, -1, 0}; len(got) != 3 || got[0] != want[0] || got[1] != want[1] || got[2] != want[2] {
		t.Fatalf("vocabulary HostIDs = %v, want %v", got, want)
	}
	// Missing words pruned (drop): HostIDs marks them -1, HostBags leaves
	// them and their weights out of the bags.
	d := abi.Column{Name: "d", Kind: abi.KindLookup, Weighted: true, Source: abi.SourceStr, Transforms: []abi.Transform{
		{Op: abi.TransformVocab, Keys: keys, Default: -1}, {Op: abi.TransformDrop, Min: 0, Max: math.MaxInt64}}}
	x = &abi.ColumnInput{Values: interp.Vector("b", "z", "a", "y", "x", "b"), Splits: []int64{0, 3, 5, 6}, Weights: []float32{1, 2, 3, 4, 5, 6}}
	if got, err = d.HostIDs(x); err != nil || !slices.Equal(got, []int64{1, -1, 0, -1, -1, 1}) {
		t.Fatalf("drop HostIDs = %v, %v", got, err)
	}
	ids, splits, w, err := d.HostBags(x)
	if err != nil || !slices.Equal(ids, []int64{1, 0, 1}) || !slices.Equal(splits, []int64{0, 2, 2, 3}) || !slices.Equal(w, []float32{1, 3, 6}) {
		t.Fatalf("drop HostBags = %v %v %v, %v", ids, splits, w, err)
	}
}
