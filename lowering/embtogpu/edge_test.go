package embtogpu_test

import (
	"fmt"
	"math/rand/v2"
	"os"
	"strings"
	"testing"

	"github.com/recom-compiler/recom/backend/llc/llctest"
	"github.com/recom-compiler/recom/backend/nvptx"
	"github.com/recom-compiler/recom/dialects/all"
	"github.com/recom-compiler/recom/interp"
	iexec "github.com/recom-compiler/recom/interp/exec"
	"github.com/recom-compiler/recom/textir"
)

func parseFile(t *testing.T, ctx *textir.Context, path string) *textir.Operation {
	t.Helper()
	src, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	m, err := textir.Parse(ctx, path, src)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// edgeFeeds makes ids in range with -1 (ignored: empty and short bags).
func edgeFeeds(batch int64, seed uint64) map[string]*interp.Tensor {
	r := rand.New(rand.NewPCG(seed, 11))
	ids := func(k, rows int64, empty float64) *interp.Tensor {
		v := make([]int64, batch*k)
		for i := range v {
			v[i] = r.Int64N(rows)
			if r.Float64() < empty {
				v[i] = -1
			}
		}
		return interp.Must(interp.New([]int64{batch, k}, v))
	}
	w := make([]float32, batch*3)
	for i := range w {
		w[i] = float32(r.Float64()*2 + 0.1)
	}
	e := make([]int32, batch)
	for i := range e {
		e[i] = int32(r.IntN(11))
	}
	return map[string]*interp.Tensor{
		"@f:0": ids(4, 1000, 0.4),
		"@f:1": ids(64, 50000, 0.2),
		"@f:2": ids(3, 100, 0),
		"@f:3": interp.Must(interp.New([]int64{batch, 3}, w)),
		"@f:4": ids(2, 100, 0.5),
		"@f:5": interp.Must(interp.New([]int64{batch}, e)),
		"@f:6": ids(1, 100, 0.5),
	}
}

func TestEdgeCases(t *testing.T) {
	ctx := all.NewContext()
	low := parseFile(t, ctx, "testdata/edge.mlir")
	for _, sched := range []string{"tuned", "recom"} {
		for _, opts := range []string{"", " rows-in-flight=2 max-threads=128"} {
			if sched == "recom" && opts != "" {
				continue
			}
			t.Run(sched+opts, func(t *testing.T) {
				fz, _ := runPipeline(t, ctx, low, "fuse{schedule="+sched+opts+"}")
				l := layerOf(t, fz)
				for _, batch := range []int64{1, 33, 0} {
					feeds := edgeFeeds(batch, uint64(batch)+1)
					o := &iexec.Options{RandomTables: true, Seed: 5}
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
}

// An id out of range is an error of the fused op as of the lookup.
func TestOutOfRange(t *testing.T) {
	ctx := all.NewContext()
	low := parseFile(t, ctx, "testdata/edge.mlir")
	fz, _ := runPipeline(t, ctx, low, "fuse")
	feeds := edgeFeeds(4, 1)
	feeds["@f:5"] = interp.Must(interp.New([]int64{4}, []int32{0, 11, 2, 3}))
	o := &iexec.Options{RandomTables: true, Seed: 5}
	if _, err := run(low, feeds, []string{"out"}, o); err == nil {
		t.Fatal("the emb program accepts id 11 of an 11-row table")
	}
	if _, err := run(fz, feeds, []string{"out"}, o); err == nil || !strings.Contains(err.Error(), "not in [0, 11)") {
		t.Fatalf("fused program: got %v, want an id range error", err)
	}
}

// The schedules chosen for the edge columns: sub-warp groups for narrow
// rows, a warp looping over wide rows, narrower vectors for odd widths,
// twice the rows in flight for long bags, one for gathers; bags per task
// from the cost model (small tables count as L2-resident); store width 1
// everywhere because the layer's width (429) is odd.
func TestPlan(t *testing.T) {
	ctx := all.NewContext()
	low := parseFile(t, ctx, "testdata/edge.mlir")
	fz, _ := runPipeline(t, ctx, low, "fuse")
	l := layerOf(t, fz)
	got := map[string]string{}
	for _, c := range l.Columns {
		got[c.Name] = fmt.Sprintf("lanes=%d vector=%d store=%d segments=%d rif=%d bags=%d", c.Lanes, c.Vector, c.StoreWidth, c.Segments, c.RowsInFlight, c.BagsPerTask)
	}
	want := map[string]string{
		"t8":   "lanes=2 vector=4 store=1 segments=1 rif=4 bags=48",
		"tl":   "lanes=2 vector=4 store=1 segments=1 rif=8 bags=16",
		"t3":   "lanes=4 vector=1 store=1 segments=1 rif=2 bags=128",
		"t6":   "lanes=4 vector=2 store=1 segments=1 rif=4 bags=56",
		"t128": "lanes=32 vector=4 store=1 segments=1 rif=4 bags=4",
		"t256": "lanes=32 vector=4 store=1 segments=2 rif=2 bags=3",
		"t4":   "lanes=1 vector=4 store=1 segments=1 rif=1 bags=160",
		"t16":  "lanes=4 vector=4 store=1 segments=1 rif=1 bags=48",
	}
	for k, w := range want {
		if got[k] != w {
			t.Errorf("%s: %s, want %s", k, got[k], w)
		}
	}
}

// The kernel of each schedule emits as NVPTX LLVM IR and goes through
// llc-19: one .entry, 16-byte non-coherent loads for D % 4 == 0 columns.
func TestPTX(t *testing.T) {
	llctest.Need(t)
	ctx := all.NewContext()
	low := parseFile(t, ctx, "testdata/edge.mlir")
	for _, sched := range []string{"tuned", "recom"} {
		t.Run(sched, func(t *testing.T) {
			fz, _ := runPipeline(t, ctx, low, "fuse{schedule="+sched+"}")
			ll, err := nvptx.EmitText(fz)
			if err != nil {
				t.Fatal(err)
			}
			s := llctest.PTX(t, []byte(ll))
			if n := strings.Count(s, ".entry"); n != 1 {
				t.Errorf("%d .entry in the PTX, want 1", n)
			}
			if !strings.Contains(s, "ld.global.nc.v4.f32") {
				t.Errorf("no ld.global.nc.v4.f32 in the PTX")
			}
		})
	}
}
