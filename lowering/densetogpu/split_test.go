package densetogpu

import (
	"testing"

	"github.com/recom-compiler/recom/dialects/fused/abi"
)

// The split-K plan of model E's top MLP (input 8088 embedding columns and
// the 32 of the bottom MLP; layers of 1024, 1024, 128 and 1): the slices,
// grid and K steps per block of a launch at batch 32, 256 and 2048.
func TestSplitPlan(t *testing.T) {
	type launch struct{ b, splits, grid, steps int64 }
	for _, c := range []struct {
		ks      []int64
		n       int64
		splitK  string
		maxS    int64
		auto    bool
		launchs []launch
	}{
		{[]int64{8088, 32}, 1024, "", 64, true, []launch{{32, 17, 272, 30}, {256, 5, 320, 102}, {2048, 1, 512, 508}}},
		{[]int64{8088, 32}, 1024, "1", 1, false, []launch{{32, 1, 16, 508}, {256, 1, 64, 508}, {2048, 1, 512, 508}}},
		{[]int64{1024}, 1024, "auto", 16, true, []launch{{32, 16, 256, 4}, {256, 5, 320, 13}, {2048, 1, 512, 64}}},
		{[]int64{1024}, 128, "", 16, true, []launch{{32, 16, 32, 4}, {256, 16, 128, 4}, {2048, 5, 320, 13}}},
		{[]int64{128}, 1, "", 1, false, []launch{{32, 1, 1, 8}, {2048, 1, 8, 8}}},
		{[]int64{32}, 32, "", 1, false, []launch{{32, 1, 1, 2}}},
		// Fixed counts: clamped to the steps, then to non-empty slices.
		{[]int64{1024}, 128, "10", 10, false, []launch{{32, 10, 20, 7}, {2048, 10, 640, 7}}},
		{[]int64{100}, 8, "100", 7, false, []launch{{1, 7, 7, 1}}},
		{[]int64{1024}, 128, "48", 48, false, []launch{{1, 32, 64, 2}}},
	} {
		d := &abi.Dense{Ks: c.ks, N: c.n, Bias: true, Activation: abi.ActRelu}
		if err := Plan(d, Options{SplitK: c.splitK}); err != nil {
			t.Fatal(err)
		}
		if d.SplitK != c.maxS || d.SplitAuto != c.auto {
			t.Errorf("%v×%d split-k=%q: planned split_k %d auto %v, want %d %v", c.ks, c.n, c.splitK, d.SplitK, d.SplitAuto, c.maxS, c.auto)
		}
		for _, l := range c.launchs {
			s := d.Splits(l.b)
			got := launch{l.b, s, d.LaunchGrid(l.b, s), d.StepsPerSlice(s)}
			if got != l {
				t.Errorf("%v×%d split-k=%q: launch %+v, want %+v", c.ks, c.n, c.splitK, got, l)
			}
			if s > 1 && (s-1)*d.StepsPerSlice(s) >= d.Steps() {
				t.Errorf("%v×%d: %d slices leave the last one empty", c.ks, c.n, s)
			}
		}
	}
}
