package shard_test

import (
	"context"
	"fmt"
	"math"
	"testing"

	"github.com/recom-compiler/recom/dialects/all"
	"github.com/recom-compiler/recom/dialects/fused"
	"github.com/recom-compiler/recom/dialects/fused/abi"
	"github.com/recom-compiler/recom/dialects/gpu"
	"github.com/recom-compiler/recom/frontend/gen"
	"github.com/recom-compiler/recom/frontend/importer"
	"github.com/recom-compiler/recom/interp"
	"github.com/recom-compiler/recom/interp/exec"
	allpasses "github.com/recom-compiler/recom/lowering/all"
	"github.com/recom-compiler/recom/lowering/pass"
	"github.com/recom-compiler/recom/textir"
)

func init() { allpasses.Register() }

// runPipeline runs a textual pipeline on a clone of m and verifies the result.
func runPipeline(tb testing.TB, ctx *textir.Context, m *textir.Operation, text string) (*textir.Operation, map[string]map[string]int64) {
	tb.Helper()
	pm, err := pass.ParsePipeline(text)
	if err != nil {
		tb.Fatal(err)
	}
	out := ctx.Clone(m, nil)
	if err := pm.Run(ctx, out); err != nil {
		tb.Fatal(err)
	}
	if err := textir.Verify(ctx, out); err != nil {
		tb.Fatal(err)
	}
	return out, pm.Statistics()
}

func run(m *textir.Operation, feeds map[string]*interp.Tensor, outputs []string, opts *exec.Options) (map[string]*interp.Tensor, error) {
	prog, err := exec.Compile(m)
	if err != nil {
		return nil, err
	}
	return prog.Run(context.Background(), feeds, outputs, opts)
}

// closeTo compares float outputs within rtol 1e-5 and atol 1e-5 (the
// kernels sum in float32 in their own orders).
func closeTo(a, b *interp.Tensor) error {
	if interp.ShapeString(a.Shape()) != interp.ShapeString(b.Shape()) {
		return fmt.Errorf("got shape %s, want %s", interp.ShapeString(b.Shape()), interp.ShapeString(a.Shape()))
	}
	for i := range a.Len() {
		x, y := a.Float64At(i), b.Float64At(i)
		if math.Abs(x-y) > 1e-5*math.Max(math.Abs(x), math.Abs(y))+1e-5 || math.IsNaN(y) != math.IsNaN(x) {
			return fmt.Errorf("element %d: got %v, want %v", i, y, x)
		}
	}
	return nil
}

type modelCase struct {
	preset  string
	columns int
}

func genModel(tb testing.TB, c modelCase) (*gen.Spec, *gen.Model) {
	tb.Helper()
	s, err := gen.Preset(c.preset)
	if err != nil {
		tb.Fatal(err)
	}
	if c.columns > 0 {
		if s, err = s.Scale(c.columns); err != nil {
			tb.Fatal(err)
		}
	}
	for i := range s.Groups {
		f := &s.Groups[i].Feed
		if s.Groups[i].Kind != gen.Bucketized {
			cov := 0.7
			f.Coverage = &cov
		}
	}
	m, err := gen.Generate(s, gen.Options{Seed: 5})
	if err != nil {
		tb.Fatal(err)
	}
	return s, m
}

func countOps(m *textir.Operation, name string) int {
	n := 0
	m.Walk(func(op *textir.Operation) bool {
		if op.Name() == name {
			n++
		}
		return true
	})
	return n
}

// The sharded program (each device's kernel, the routes and the exchange's
// combine kernel, all on the simulator) computes what the unsharded
// layer and the emb-level program compute, on random feeds, for every
// kind of column (hashed strings, vocabularies, bucketized, split tokens,
// weighted, shared tables, every combiner), both schedules, 1 to 4
// devices, and plans from all table-wise to all row-wise.
func TestShardedMatchesInterpreter(t *testing.T) {
	type shardCase struct {
		devices   int
		threshold int64
	}
	cases := []struct {
		model  modelCase
		sched  string
		shards []shardCase
	}{
		{modelCase{preset: "small"}, "tuned", []shardCase{{2, 0}, {3, 3000}, {4, 1 << 30}, {1, 0}}},
		{modelCase{preset: "small"}, "recom", []shardCase{{2, 0}, {3, 5000}}},
		{modelCase{preset: "E", columns: 12}, "tuned", []shardCase{{2, 100000}, {4, 0}}},
		{modelCase{preset: "F", columns: 12}, "tuned", []shardCase{{3, 100000}}},
		{modelCase{preset: "probe", columns: 6}, "tuned", []shardCase{{2, 0}}},
	}
	for _, c := range cases {
		s, m := genModel(t, c.model)
		ctx := all.NewContext()
		ref, err := importer.Import(ctx, m.Graph)
		if err != nil {
			t.Fatal(err)
		}
		low, _ := runPipeline(t, ctx, ref, "lower-emb")
		fz, _ := runPipeline(t, ctx, low, "fuse{schedule="+c.sched+"}")
		vars := map[string]*interp.Tensor{}
		for _, a := range m.Tables {
			vars[a.Name] = a.Tensor
		}
		outputs := []string{gen.EmbeddingNode}
		if m.Output != gen.EmbeddingNode {
			outputs = append(outputs, m.Output)
		}
		for _, sc := range c.shards {
			name := fmt.Sprintf("%s-%d-%s/devices=%d,threshold=%d", c.model.preset, c.model.columns, c.sched, sc.devices, sc.threshold)
			t.Run(name, func(t *testing.T) {
				sh, stats := runPipeline(t, ctx, fz, fmt.Sprintf("shard{devices=%d row-threshold=%d}", sc.devices, sc.threshold))
				if sc.devices > 1 {
					if got := stats["shard"]["layers"]; got != 1 {
						t.Fatalf("sharded %d layers, want 1", got)
					}
					if n := countOps(sh, fused.ExchangeOp); n != 1 {
						t.Fatalf("%d exchanges, want 1", n)
					}
					if got, want := stats["shard"]["table-wise"]+stats["shard"]["row-wise"], int64(s.NumColumns()); got != want {
						t.Errorf("placed %d columns, want %d", got, want)
					}
					if sc.threshold == 0 && stats["shard"]["table-wise"] != 0 {
						t.Errorf("row-threshold=0 left %d columns table-wise", stats["shard"]["table-wise"])
					}
				} else if countOps(sh, fused.ExchangeOp) != 0 {
					t.Fatalf("devices=1 sharded the layer")
				}
				for _, batch := range []int{1, 19} {
					arrays, err := gen.Feeds(s, batch, uint64(batch)+7)
					if err != nil {
						t.Fatal(err)
					}
					feeds := map[string]*interp.Tensor{}
					for _, a := range arrays {
						feeds[a.Name] = a.Tensor
					}
					opts := &exec.Options{Variables: vars}
					want, err := run(low, feeds, outputs, opts)
					if err != nil {
						t.Fatal(err)
					}
					got, err := run(sh, feeds, outputs, opts)
					if err != nil {
						t.Fatalf("batch %d: %v", batch, err)
					}
					for _, o := range outputs {
						if err := closeTo(want[o], got[o]); err != nil {
							t.Fatalf("batch %d: output %s: %v", batch, o, err)
						}
					}
				}
			})
		}
	}
}

// The exchange's combine kernel, on the simulator, gives what
// abi.Exchange.Combine computes on the host, for a layer sharded with
// some of everything.
func TestCombineKernelMatchesHost(t *testing.T) {
	_, m := genModel(t, modelCase{preset: "small"})
	ctx := all.NewContext()
	ref, err := importer.Import(ctx, m.Graph)
	if err != nil {
		t.Fatal(err)
	}
	low, _ := runPipeline(t, ctx, ref, "lower-emb")
	sh, _ := runPipeline(t, ctx, low, "fuse,shard{devices=3 row-threshold=3000}")
	var ex *textir.Operation
	sh.Walk(func(op *textir.Operation) bool {
		if op.Name() == fused.ExchangeOp {
			ex = op
		}
		return true
	})
	e, err := abi.ExchangeOf(ex)
	if err != nil {
		t.Fatal(err)
	}
	if e.Dens == 0 {
		t.Fatal("the plan has no mean or sqrtn row-wise column")
	}
	const b = 5
	partials := make([][]float32, len(e.Widths))
	for i, w := range e.Widths {
		partials[i] = make([]float32, b*w)
		for j := range partials[i] {
			partials[i][j] = float32(math.Sin(float64(7*i+j))) * 3
		}
	}
	dens := make([][]float32, e.Dens)
	for s := range dens {
		dens[s] = make([]float32, b)
		for j := range dens[s] {
			dens[s][j] = float32(1 + s + j)
		}
	}
	want, _, err := e.Combine(partials, dens)
	if err != nil {
		t.Fatal(err)
	}
	k, err := gpu.Compile(textir.LookupSymbol(ex, ex.LookupAttr("kernel").(textir.SymbolRefAttr)))
	if err != nil {
		t.Fatal(err)
	}
	got, gb, err := e.Run(k, partials, dens)
	if err != nil || gb != b {
		t.Fatalf("batch %d, %v", gb, err)
	}
	for i, x := range want {
		if got[i] != x {
			t.Fatalf("element %d: kernel %v, host %v", i, got[i], x)
		}
	}
}

// A plain-lookup model of TensorFlow 2.16 (weighted means with DivNoNan,
// sqrtn, partitioned and constant tables) sharded all row-wise and all
// table-wise computes what its lowered program computes.
func TestShardedPlainLookups(t *testing.T) {
	spec := `{"tf": "2.16", "lookups": [
		{"count": 1, "api": "embedding_lookup", "rows": 9, "dim": 4, "tables": "const"},
		{"count": 1, "api": "embedding_lookup_sparse", "rows": 20, "dim": 4, "combiner": "sqrtn", "tables": "resource"},
		{"count": 1, "api": "embedding_lookup_sparse", "rows": 20, "dim": 4, "combiner": "sum", "weighted": true, "partitions": 2},
		{"count": 1, "api": "embedding_lookup_sparse", "rows": 20, "dim": 8, "combiner": "mean", "weighted": true, "partitions": 3},
		{"count": 1, "api": "safe_embedding_lookup_sparse", "rows": 20, "dim": 4, "combiner": "sqrtn", "weighted": true}]}`
	s, err := gen.ParseLookupSpec([]byte(spec), "plain")
	if err != nil {
		t.Fatal(err)
	}
	m, err := gen.GenerateLookups(s, gen.Options{Seed: 2})
	if err != nil {
		t.Fatal(err)
	}
	ctx := all.NewContext()
	ref, err := importer.Import(ctx, m.Graph)
	if err != nil {
		t.Fatal(err)
	}
	low, _ := runPipeline(t, ctx, ref, "lower-emb")
	fz, _ := runPipeline(t, ctx, low, "fuse")
	noNaN := false
	fz.Walk(func(op *textir.Operation) bool {
		if l, err := abi.LayerOf(op); err == nil && op.Name() == fused.EmbeddingLayerOp {
			for _, c := range l.Columns {
				noNaN = noNaN || c.DivNoNaN
			}
		}
		return true
	})
	if !noNaN {
		t.Fatal("no div_no_nan column fused: the test does not test it")
	}
	vars := map[string]*interp.Tensor{}
	for _, a := range m.Tables {
		vars[a.Name] = a.Tensor
	}
	opts := &exec.Options{Variables: vars}
	for _, threshold := range []int64{0, 1 << 30} {
		sh, _ := runPipeline(t, ctx, fz, fmt.Sprintf("shard{devices=3 row-threshold=%d}", threshold))
		if countOps(sh, fused.ExchangeOp) != 1 {
			t.Fatalf("threshold %d: not sharded", threshold)
		}
		for _, batch := range []int{1, 17} {
			arrays, _, err := gen.GraphFeeds(context.Background(), ref, gen.GraphFeedOptions{Batch: batch, Seed: uint64(batch)})
			if err != nil {
				t.Fatal(err)
			}
			feeds := map[string]*interp.Tensor{}
			for _, a := range arrays {
				feeds[a.Name] = a.Tensor
			}
			want, err := run(low, feeds, []string{m.Output}, opts)
			if err != nil {
				t.Fatal(err)
			}
			got, err := run(sh, feeds, []string{m.Output}, opts)
			if err != nil {
				t.Fatalf("threshold %d batch %d: %v", threshold, batch, err)
			}
			if err := closeTo(want[m.Output], got[m.Output]); err != nil {
				t.Errorf("threshold %d batch %d: %v", threshold, batch, err)
			}
		}
	}
}
