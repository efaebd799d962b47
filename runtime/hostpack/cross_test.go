package hostpack

import (
	"testing"

	"github.com/recom-compiler/recom/frontend/gen"
	"github.com/recom-compiler/recom/frontend/graphdef"
	"github.com/recom-compiler/recom/interp/exec"
)

// Crossed columns are packed natively (each input computed op by op, the
// cross's row splits from theirs) byte for byte as Pack packs the
// interpreter's inputs: single- and multi-valued dense inputs, a
// bucketized sparse one, gather and lookup columns, both schedules.
func TestPackCrossed(t *testing.T) {
	cov := 0.7
	s := &gen.Spec{Groups: []gen.Group{
		{Count: 2, Kind: gen.Crossed, Buckets: 50, Dim: 4, Combiner: "sum", Feed: gen.Feed{Coverage: &cov, Invalid: 0.1}},
		{Count: 1, Kind: gen.Crossed, Buckets: 64, Dim: 8, Combiner: "mean",
			Feed: gen.Feed{Coverage: &cov, Pooling: &gen.Pooling{Dist: "uniform", Min: 1, Max: 3}}},
		{Count: 2, Kind: gen.Crossed, Buckets: 30, Boundaries: 4, Dim: 4, Combiner: "sqrtn", InputRank: 2, Feed: gen.Feed{Invalid: 0.2}},
		{Count: 1, Kind: gen.HashedString, Buckets: 20, Dim: 4, Combiner: "mean"},
	}}
	g, err := gen.Generate(s, gen.Options{Seed: 1, NoTableValues: true})
	if err != nil {
		t.Fatal(err)
	}
	for _, fuse := range []string{"", "schedule=recom", "id-pass=none"} {
		t.Run(fuse, func(t *testing.T) {
			m := compile(t, "crossed", graphdef.MarshalText(g.Graph), nil, nil, fuse)
			md := &model{name: "crossed", m: m, opts: &exec.Options{}, feeds: specFeeds(s)}
			plan, err := New(layerOp(t, m), nil)
			if err != nil {
				t.Fatal(err)
			}
			crossed := 0
			for i := range plan.Layer().Columns {
				if plan.Layer().Columns[i].IsCross() {
					crossed++
				}
			}
			if direct, computed, _ := plan.Columns(); crossed != 5 || computed != 5 || direct != 1 {
				t.Errorf("%d crossed columns, %d computed, %d direct; want 5, 5 and 1", crossed, computed, direct)
			}
			pk := plan.NewPacker()
			for i, batch := range []int{1, 7, 33, 256} {
				mustCheck(t, md, plan, pk, md.feeds(t, batch, uint64(i+1)))
			}
		})
	}
}
