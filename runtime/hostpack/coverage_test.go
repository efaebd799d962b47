package hostpack

import (
	"testing"

	"github.com/recom-compiler/recom/dialects/fused/abi"
)

// The models TestPackTransforms and TestPackMatchesInterpreter check
// against the interpreter (each batch packed from gathered feeds and by
// name, Plan.Pack) hold every source (ids, i64, f32, f64, str, split),
// straight from a feed and computed, ragged (row splits) and not,
// weighted, and every op the plan computes (sparse tensors, split
// strings, filters, the id transforms): so those tests cover them all.
func TestPackCoverage(t *testing.T) {
	sources := map[string]bool{}
	var direct, computed, ragged, flat, weighted int
	ops := map[gkind]bool{}
	for _, fuse := range []string{"", "ids-in-kernel=false", "schedule=recom"} {
		for _, m := range []*model{{m: fuseFile(t, "testdata/transforms.mlir", fuse)}, smallModel(t, fuse)} {
			plan, err := NewForModule(m.m, nil)
			if err != nil {
				t.Fatal(err)
			}
			for i := range plan.cols {
				cp := &plan.cols[i]
				sources[cp.c.Source] = true
				if cp.direct != nil {
					direct++
				} else {
					computed++
					for _, n := range cp.graph.nodes {
						ops[n.kind] = true
					}
				}
				if cp.splits {
					ragged++
				} else {
					flat++
				}
				if cp.weighted {
					weighted++
				}
			}
		}
	}
	for _, s := range []string{abi.SourceIDs, abi.SourceI64, abi.SourceF32, abi.SourceF64, abi.SourceStr, abi.SourceSplit} {
		if !sources[s] {
			t.Errorf("no column of source %q", s)
		}
	}
	for k := gInput; k <= gAddOffset; k++ {
		if !ops[k] {
			t.Errorf("no column computes op kind %d", k)
		}
	}
	if direct == 0 || computed == 0 || ragged == 0 || flat == 0 || weighted == 0 {
		t.Errorf("columns: %d direct, %d computed, %d ragged, %d not, %d weighted", direct, computed, ragged, flat, weighted)
	}
}
