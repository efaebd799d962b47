package emb_test

import (
	"fmt"
	"math"
	"testing"

	"github.com/recom-compiler/recom/dialects/emb"
	"github.com/recom-compiler/recom/interp"
	"github.com/recom-compiler/recom/interp/exec"
)

// TestShardOf checks the row maps against TensorFlow's documented
// examples (13 ids in 5 shards: "mod" [[0, 5, 10], [1, 6, 11], [2, 7,
// 12], [3, 8], [4, 9]], "div" [[0, 1, 2], [3, 4, 5], [6, 7, 8], [9, 10],
// [11, 12]]) and that every row has one place in a shard of ShardRows
// rows.
func TestShardOf(t *testing.T) {
	want := map[string][][]int64{
		emb.StrategyMod: {{0, 5, 10}, {1, 6, 11}, {2, 7, 12}, {3, 8}, {4, 9}},
		emb.StrategyDiv: {{0, 1, 2}, {3, 4, 5}, {6, 7, 8}, {9, 10}, {11, 12}},
	}
	for s, shards := range want {
		for p, rows := range shards {
			for q, r := range rows {
				if gp, gq := emb.ShardOf(s, 13, 5, r); gp != int64(p) || gq != int64(q) {
					t.Errorf("%s: row %d is at (%d, %d), want (%d, %d)", s, r, gp, gq, p, q)
				}
			}
		}
	}
	for _, s := range []string{emb.StrategyMod, emb.StrategyDiv} {
		for rows := int64(1); rows < 40; rows++ {
			for n := int64(1); n <= rows; n++ {
				seen := map[[2]int64]bool{}
				for r := range rows {
					p, q := emb.ShardOf(s, rows, n, r)
					if p < 0 || p >= n || q < 0 || q >= emb.ShardRows(rows, n, p) || seen[[2]int64{p, q}] {
						t.Fatalf("%s, %d rows in %d shards: row %d at (%d, %d)", s, rows, n, r, p, q)
					}
					seen[[2]int64{p, q}] = true
				}
			}
		}
	}
}

// A partitioned table is its shards' variables put together by the
// strategy: given, random, and random and lazy (rows made by the lookups).
func TestPartitionedTable(t *testing.T) {
	const rows, width, n = 13, 3, 5
	shard := func(s string, p int64) string { return fmt.Sprintf("%s/part_%d", s, p) }
	for _, s := range []string{emb.StrategyMod, emb.StrategyDiv} {
		for _, mode := range []string{"given", "random", "lazy"} {
			t.Run(s+"/"+mode, func(t *testing.T) {
				if mode == "lazy" {
					old := emb.LazyTableElements
					emb.LazyTableElements = 10
					defer func() { emb.LazyTableElements = old }()
				}
				opts := &exec.Options{RandomTables: mode != "given", Seed: 7, Variables: map[string]*interp.Tensor{}}
				parts := make([]*interp.Tensor, n)
				names := ""
				for p := range int64(n) {
					shape := []int64{emb.ShardRows(rows, n, p), width}
					v, err := exec.RandomTensor(interp.Float32, shape, 7, shard(s, p))
					if err != nil {
						t.Fatal(err)
					}
					parts[p] = v
					if mode == "given" {
						opts.Variables[shard(s, p)] = v
					}
					if p > 0 {
						names += ", "
					}
					names += fmt.Sprintf("%q", shard(s, p))
				}
				ty := fmt.Sprintf("tensor<%dx%dxf32>", rows, width)
				body := feed("i", "tensor<?xi64>") +
					fmt.Sprintf(`%%t = emb.table {name = %q, partitions = [%s], partition_strategy = %q} : %s loc("t")`, s, names, s, ty) + "\n" +
					fmt.Sprintf(`%%g = emb.gather %%t, %%i : %s, tensor<?xi64> -> tensor<?x%dxf32> loc("g")`, ty, width) + "\n"
				ids := []int64{12, 0, 5, 9, 3, 11}
				outs := []string{"g"}
				if mode != "lazy" {
					outs = append(outs, "t")
				}
				got, err := run(t, body, map[string]*interp.Tensor{"i": i64s(ids...)}, outs, opts)
				if err != nil {
					t.Fatal(err)
				}
				whole := make([]float32, 0, rows*width)
				for r := range int64(rows) {
					p, q := emb.ShardOf(s, rows, n, r)
					whole = append(whole, parts[p].Float32s()[q*width:(q+1)*width]...)
				}
				var g []float32
				for _, id := range ids {
					g = append(g, whole[id*width:(id+1)*width]...)
				}
				want := map[string]*interp.Tensor{"g": mat(int64(len(ids)), width, g...)}
				if mode != "lazy" {
					want["t"] = mat(rows, width, whole...)
				}
				expect(t, got, nil, want)
			})
		}
	}
	t.Run("errors", func(t *testing.T) {
		body := `%t = emb.table {name = "e", partitions = ["e/part_0", "e/part_1"], partition_strategy = "div"} : tensor<5x2xf32> loc("t")` + "\n"
		_, err := run(t, body, nil, []string{"t"}, &exec.Options{})
		expectErr(t, err, `no value for variable "e/part_0" (partition 0 of the table`)
		v := map[string]*interp.Tensor{"e/part_0": mat[float32](2, 2, 1, 2, 3, 4), "e/part_1": mat[float32](3, 2, 1, 2, 3, 4, 5, 6)}
		_, err = run(t, body, nil, []string{"t"}, &exec.Options{Variables: v})
		expectErr(t, err, `partition "e/part_0" is given with shape [2,2], but partition 0 of the table is 3x2`)
	})
}

// div_no_nan: a weighted mean (or sqrtn) whose weights sum to 0 is 0, as
// DivNoNan gives; without it, x / 0.
func TestLookupDivNoNaN(t *testing.T) {
	table := mat[float32](3, 2, 1, 2, 10, 20, 100, 200)
	opts := &exec.Options{Variables: map[string]*interp.Tensor{"t": table}}
	body := func(attr string) string {
		return feed("v", "tensor<?xi64>") + feed("s", "tensor<?xi64>") + feed("w", "tensor<?xf32>") +
			`%t = emb.table {name = "t"} : tensor<3x2xf32>` + "\n" +
			`%r = emb.lookup %t, %v, %s, %w {combiner = "mean"` + attr + `} : tensor<3x2xf32>, tensor<?xi64>, tensor<?xf32> -> tensor<?x2xf32> loc("out")` + "\n"
	}
	// Bag 0: weights 2 and -2 (sum 0); bag 1: 0.5 on row 2; bag 2 empty.
	feeds := map[string]*interp.Tensor{"v": i64s(0, 1, 2), "s": i64s(0, 2, 3, 3), "w": f32s(2, -2, 0.5)}
	got, err := run(t, body(", div_no_nan"), feeds, []string{"out"}, opts)
	expect(t, got, err, map[string]*interp.Tensor{"out": mat[float32](3, 2, 0, 0, 100, 200, 0, 0)})
	got, err = run(t, body(""), feeds, []string{"out"}, opts)
	if err != nil {
		t.Fatal(err)
	}
	if r := got["out"].Float32s(); !math.IsInf(float64(r[0]), -1) {
		t.Errorf("without div_no_nan, bag 0 is %v, want -Inf ((2 - 20) / 0)", r[:2])
	}
}
