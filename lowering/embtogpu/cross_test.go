package embtogpu_test

import (
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/recom-compiler/recom/dialects/all"
	"github.com/recom-compiler/recom/dialects/fused/abi"
	"github.com/recom-compiler/recom/frontend/gen"
	"github.com/recom-compiler/recom/frontend/importer"
	"github.com/recom-compiler/recom/interp"
	iexec "github.com/recom-compiler/recom/interp/exec"
	"github.com/recom-compiler/recom/interp/tfops"
	"github.com/recom-compiler/recom/textir"
)

// crossFeeds makes adversarial feeds for testdata/cross.mlir: ragged
// string bags of 0 to 3 strings of every length class, int64 edge values,
// NaN and infinite floats, vocabulary hits and misses.
func crossFeeds(batch int64, seed uint64) map[string]*interp.Tensor {
	r := rand.New(rand.NewPCG(seed, 31))
	str := func() string {
		n := []int{0, 1, 3, 4, 7, 8, 9, 15, 16, 17, 31, 32, 33, 63, 64, 65, 100, 150}[r.IntN(18)]
		b := make([]byte, n)
		for i := range b {
			b[i] = byte(r.IntN(256))
		}
		return string(b)
	}
	var ragged []string
	splits := []int64{0}
	for range batch {
		for range r.IntN(4) {
			ragged = append(ragged, str())
		}
		splits = append(splits, int64(len(ragged)))
	}
	edge := []int64{math.MinInt64, math.MaxInt64, -1, 0, 1, 7, 1e12, -1e18}
	ints := make([]int64, 2*batch)
	for i := range ints {
		if r.IntN(2) == 0 {
			ints[i] = edge[r.IntN(len(edge))]
		} else {
			ints[i] = int64(r.Uint64())
		}
	}
	dense := make([]string, batch)
	for i := range dense {
		if r.IntN(4) > 0 {
			dense[i] = str()
		}
	}
	specials := []float32{float32(math.NaN()), float32(math.Inf(1)), float32(math.Inf(-1)), 0, 1, 10, -5, 0.5}
	x := make([]float32, batch)
	xd := make([]float64, batch)
	for i := range x {
		x[i] = specials[r.IntN(len(specials))]
		xd[i] = []float64{0.1, 0.2, float64(float32(0.1)), 0.3, math.NaN(), -1, 0.25}[r.IntN(7)]
	}
	keys := []string{"a", "bb", "", "a long key of more than sixteen bytes", "zz", "a long key of more than sixteen byteS"}
	vs := make([]string, batch)
	for i := range vs {
		vs[i] = keys[r.IntN(len(keys))]
	}
	n := make([]int64, 3*batch)
	for i := range n {
		n[i] = []int64{-1, 3, 12, -7, 0, 9}[r.IntN(6)]
	}
	ls := make([]string, 3*batch)
	for i := range ls {
		ls[i] = str()
	}
	return map[string]*interp.Tensor{
		"@f:0": interp.Must(interp.New([]int64{int64(len(ragged))}, ragged)),
		"@f:1": interp.Vector(splits...),
		"@f:2": interp.Must(interp.New([]int64{batch, 2}, ints)),
		"@f:3": interp.Must(interp.New([]int64{batch}, dense)),
		"@f:4": interp.Must(interp.New([]int64{batch}, x)),
		"@f:5": interp.Must(interp.New([]int64{batch}, xd)),
		"@f:6": interp.Must(interp.New([]int64{batch}, vs)),
		"@f:7": interp.Must(interp.New([]int64{batch, 3}, n)),
		"@f:8": interp.Must(interp.New([]int64{batch, 3}, ls)),
	}
}

// The crossed columns' ids computed by the kernel (in the simulator) give
// the emb program's rows, with every schedule and id pass, and left on
// the host.
func TestCrossedColumns(t *testing.T) {
	ctx := all.NewContext()
	low := parseFile(t, ctx, "testdata/cross.mlir")
	for _, opts := range []string{"", " ids-in-kernel=false", " host-ids=cross", " schedule=recom", " id-pass=none", " min-tasks=0 task-bytes=65536", " rows-in-flight=4"} {
		t.Run(strings.TrimSpace(opts), func(t *testing.T) {
			fz, stats := runPipeline(t, ctx, low, "fuse{"+opts+"}")
			l := layerOf(t, fz)
			crossed := 0
			for i := range l.Columns {
				if l.Columns[i].IsCross() {
					crossed++
				}
			}
			host := strings.Contains(opts, "false") || strings.Contains(opts, "cross")
			if (host && crossed != 0) || (!host && crossed != 6) || stats["fuse"]["id-chains"] < int64(crossed) {
				t.Fatalf("%d crossed columns in the kernel (id-chains %d)", crossed, stats["fuse"]["id-chains"])
			}
			left := 0
			fz.Walk(func(op *textir.Operation) bool {
				if op.Name() == "emb.cross" {
					left++
				}
				return true
			})
			if host != (left == 6) {
				t.Errorf("%d emb.cross left before the layer", left)
			}
			for _, batch := range []int64{1, 37, 0, 90} {
				feeds := crossFeeds(batch, uint64(batch)+5)
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

// A gather column's crosses are one a row: Pack refuses inputs that make
// another count, and the ragged splits of the inputs are checked.
func TestCrossPackChecks(t *testing.T) {
	c := abi.Column{Name: "g", Kind: abi.KindGather, Combiner: "sum", Rows: 10, Width: 1, Source: abi.SourceCross,
		Cross:      []abi.CrossInput{{Source: abi.SourceI64}, {Source: abi.SourceStr}},
		Transforms: []abi.Transform{{Op: abi.TransformCross, NumBuckets: 10, HashKey: 3}},
		Class:      0, Lanes: 1, Vector: 1, StoreWidth: 1, Segments: 1, RowsInFlight: 1, BagsPerTask: 32, ParamsOffset: 64}
	l := &abi.Layer{Schedule: abi.ScheduleTuned, Width: 1, Block: 32, TableFloats: 128, Columns: []abi.Column{c}}
	in := func(a []int64, as []int64, s []string, ss []int64) []abi.ColumnInput {
		return []abi.ColumnInput{{Table: make([]float32, 10), Cross: []abi.CrossValues{
			{Values: interp.Vector(a...), Splits: as}, {Values: interp.Must(interp.New([]int64{int64(len(s))}, s)), Splits: ss}}}}
	}
	if _, err := l.Pack(in([]int64{1, 2}, []int64{0, 1, 2}, []string{"a", "b"}, []int64{0, 1, 2})); err != nil {
		t.Fatalf("one cross a row: %v", err)
	}
	for _, c := range []struct {
		name string
		in   []abi.ColumnInput
		want string
	}{
		{"two crosses in a row", in([]int64{1, 2, 3}, []int64{0, 2, 3}, []string{"a", "b"}, []int64{0, 1, 2}), "row 0 has 2 crosses, a gather column one"},
		{"batches differ", in([]int64{1, 2}, []int64{0, 1, 2}, []string{"a"}, []int64{0, 1}), "cross input #1 has 1 rows, input #0 has 2"},
		{"splits past the values", in([]int64{1, 2}, []int64{0, 1, 3}, []string{"a", "b"}, []int64{0, 1, 2}), "invalid row splits"},
		{"decreasing splits", in([]int64{1, 2}, []int64{0, 2, 1, 2}, []string{"a", "b", "c"}, []int64{0, 1, 2, 3}), "non-decreasing"},
	} {
		if _, err := l.Pack(c.in); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want one containing %q", c.name, err, c.want)
		}
	}
}

// HostIDs of a crossed column is TensorFlow's SparseCross of the inputs'
// transformed features.
func TestCrossHostIDs(t *testing.T) {
	c := abi.Column{Name: "c", Source: abi.SourceCross, Kind: abi.KindLookup,
		Cross: []abi.CrossInput{{Source: abi.SourceF32, Transforms: 2}, {Source: abi.SourceStr}},
		Transforms: []abi.Transform{{Op: abi.TransformBucketize, Boundaries: []float32{0, 1}}, {Op: abi.TransformCast, Bits: 64},
			{Op: abi.TransformCross, NumBuckets: 100, HashKey: 956888297470}}}
	x := &abi.ColumnInput{Cross: []abi.CrossValues{
		{Values: interp.Vector[float32](-1, 0.5, 3), Splits: []int64{0, 1, 3}},
		{Values: interp.Vector("p", "q", "r"), Splits: []int64{0, 2, 3}}}}
	got, err := c.HostIDs(x)
	if err != nil {
		t.Fatal(err)
	}
	s := tfops.CrossSpec{Mode: tfops.CrossHashKey, HashKey: 956888297470, NumBuckets: 100}
	_, want, _, err := tfops.Cross("SparseCross", []tfops.CrossInput{{Values: interp.Vector[int64](0, 1, 2), Starts: []int64{0, 1, 3}},
		{Values: interp.Vector("p", "q", "r"), Starts: []int64{0, 2, 3}}}, 2, s)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(got, want.Int64s()) || len(got) != 4 {
		t.Fatalf("HostIDs = %v, want %v", got, want.Int64s())
	}
}

// A generated model of crossed columns (a string crossed with an int64
// feature, single- and multi-valued, and with a bucketized feature) with
// a dense part: after lower-emb, simplify-shapes and fuse, every column is
// fused with its crosses computed in the kernel, and the program computes
// what the TensorFlow graph does.
func TestCrossedModel(t *testing.T) {
	cov := 0.7
	s := &gen.Spec{Groups: []gen.Group{
		{Count: 2, Kind: gen.Crossed, Buckets: 50, Dim: 4, Combiner: "sum", Feed: gen.Feed{Coverage: &cov, Invalid: 0.1}},
		{Count: 1, Kind: gen.Crossed, Buckets: 64, Dim: 8, Combiner: "mean",
			Feed: gen.Feed{Coverage: &cov, Pooling: &gen.Pooling{Dist: "uniform", Min: 1, Max: 3}}},
		{Count: 2, Kind: gen.Crossed, Buckets: 30, Boundaries: 4, Dim: 4, Combiner: "sqrtn", InputRank: 2, Feed: gen.Feed{Invalid: 0.2}},
		{Count: 1, Kind: gen.HashedString, Buckets: 20, Dim: 4, Combiner: "mean"},
	}, Dense: &gen.Dense{Features: 3, Bottom: []int{4}, Top: []int{5}}}
	m, err := gen.Generate(s, gen.Options{Seed: 4})
	if err != nil {
		t.Fatal(err)
	}
	ctx := all.NewContext()
	ref, err := importer.Import(ctx, m.Graph)
	if err != nil {
		t.Fatal(err)
	}
	for _, sched := range []string{"tuned", "recom"} {
		fz, stats := runPipeline(t, ctx, ref, "lower-emb,simplify-shapes,fuse{schedule="+sched+"}")
		if got := stats["fuse"]["columns"]; got != int64(s.NumColumns()) {
			t.Fatalf("fused %d columns, want %d", got, s.NumColumns())
		}
		l := layerOf(t, fz)
		crossed := 0
		for i := range l.Columns {
			if l.Columns[i].IsCross() {
				crossed++
			}
		}
		if crossed != 5 {
			t.Errorf("%d crossed columns in the kernel, want 5", crossed)
		}
		fz.Walk(func(op *textir.Operation) bool {
			if strings.HasPrefix(op.Name(), "tfg.SparseCross") || op.Name() == "emb.cross" {
				t.Errorf("%s remains", op.Name())
			}
			return true
		})
		vars := map[string]*interp.Tensor{}
		for _, a := range m.Tables {
			vars[a.Name] = a.Tensor
		}
		for _, batch := range []int{1, 33} {
			arrays, err := gen.Feeds(s, batch, uint64(batch))
			if err != nil {
				t.Fatal(err)
			}
			feeds := map[string]*interp.Tensor{}
			for _, a := range arrays {
				feeds[a.Name] = a.Tensor
			}
			outputs := []string{gen.EmbeddingNode, m.Output}
			opts := &iexec.Options{Variables: vars}
			want, err := run(ref, feeds, outputs, opts)
			if err != nil {
				t.Fatal(err)
			}
			got, err := run(fz, feeds, outputs, opts)
			if err != nil {
				t.Fatalf("%s batch %d: %v", sched, batch, err)
			}
			for _, o := range outputs {
				if err := closeTo(want[o], got[o], l.Columns); err != nil {
					t.Fatalf("%s batch %d: output %s: %v", sched, batch, o, err)
				}
			}
		}
	}
}

// Hostile crosses: num_buckets 0 (ids unreduced, as TensorFlow's) or more
// than the table's rows cannot be checked in the kernel, so the cross stays
// on the host and an id past the table is a clear error naming the column;
// inputs whose row splits disagree on the batch are an error, never a
// panic, kernel or host.
func TestCrossHostile(t *testing.T) {
	const src = `func.func @f(%s: tensor<?x!tfg.string>, %ss: tensor<?xi64>, %i: tensor<?x2xi64>) -> tensor<?x12xf32> {
  %t0 = emb.table {name = "x0"} : tensor<1000x8xf32>
  %t1 = emb.table {name = "x1"} : tensor<10x4xf32>
  %a, %as = emb.from_dense %i : tensor<?x2xi64> -> tensor<?xi64>
  %c0, %cs0 = emb.cross %s, %ss, %a, %as {hash_key = 956888297470 : i64, num_buckets = NB : i64} : tensor<?x!tfg.string>, tensor<?xi64> -> tensor<?xi64>
  %l0 = emb.lookup %t0, %c0, %cs0 {combiner = "sum"} : tensor<1000x8xf32>, tensor<?xi64> -> tensor<?x8xf32>
  %h = emb.hash %s {num_buckets = 10 : i64} : tensor<?x!tfg.string> -> tensor<?xi64>
  %l1 = emb.lookup %t1, %h, %ss {combiner = "mean"} : tensor<10x4xf32>, tensor<?xi64> -> tensor<?x4xf32>
  %r = emb.concat %l0, %l1 : (tensor<?x8xf32>, tensor<?x4xf32>) -> tensor<?x12xf32> loc("out")
  func.return %r : tensor<?x12xf32>
}
`
	feeds := func(splits []int64, batch int64) map[string]*interp.Tensor {
		strs := make([]string, splits[len(splits)-1])
		for i := range strs {
			strs[i] = strings.Repeat("q", i)
		}
		ints := make([]int64, 2*batch)
		for i := range ints {
			ints[i] = int64(i) * 7919
		}
		return map[string]*interp.Tensor{
			"@f:0": interp.Must(interp.New([]int64{int64(len(strs))}, strs)),
			"@f:1": interp.Vector(splits...),
			"@f:2": interp.Must(interp.New([]int64{batch, 2}, ints)),
		}
	}
	o := &iexec.Options{RandomTables: true, Seed: 3}
	for _, nb := range []string{"0", "5000", "9223372036854775807"} {
		ctx := all.NewContext()
		m, err := textir.Parse(ctx, "hostile.mlir", []byte(strings.Replace(src, "NB", nb, 1)))
		if err != nil {
			t.Fatal(err)
		}
		fz, _ := runPipeline(t, ctx, m, "fuse")
		for i := range layerOf(t, fz).Columns {
			if layerOf(t, fz).Columns[i].IsCross() {
				t.Fatalf("num_buckets %s: the cross went into the kernel", nb)
			}
		}
		_, err = run(fz, feeds([]int64{0, 2, 3, 5, 8}, 4), []string{"out"}, o)
		if err == nil || !strings.Contains(err.Error(), `column "x0": id`) || !strings.Contains(err.Error(), "is not in [0, 1000)") {
			t.Errorf("num_buckets %s: ids past the table: error %v, want one naming the column and the table rows", nb, err)
		}
	}
	ctx := all.NewContext()
	m, err := textir.Parse(ctx, "hostile.mlir", []byte(strings.Replace(src, "NB", "1000", 1)))
	if err != nil {
		t.Fatal(err)
	}
	fz, _ := runPipeline(t, ctx, m, "fuse")
	if c := layerOf(t, fz).Columns; len(c) != 2 || !c[0].IsCross() {
		t.Fatal("num_buckets 1000: the cross is not in the kernel")
	}
	for _, bad := range []struct {
		splits []int64
		batch  int64
	}{{[]int64{0, 1, 2}, 3}, {[]int64{0, 2, 1, 3}, 3}, {[]int64{1, 2, 3, 4}, 3}} {
		if _, err := run(fz, feeds(bad.splits, bad.batch), []string{"out"}, o); err == nil {
			t.Errorf("splits %v with a batch of %d: no error", bad.splits, bad.batch)
		} else if !strings.Contains(err.Error(), "split") && !strings.Contains(err.Error(), "rows") {
			t.Errorf("splits %v with a batch of %d: unclear error %v", bad.splits, bad.batch, err)
		} else {
			t.Logf("splits %v with a batch of %d: %v", bad.splits, bad.batch, err)
		}
	}
}
